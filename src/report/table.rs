//! The terminal report (`--format table`): one summary line per app, then per
//! app its drop levels, the jank vocabularies side by side, scenes, the worst
//! frames with why they were late, and data quality.

use std::fmt::Write as _;

use super::cells::text_table;
use super::{Artifact, Exporter, Report, ReportError};
use crate::metrics::{AppSummary, Levels};

pub struct TableExporter;

fn ms(ns: i64) -> String {
    format!("{:.1}", ns as f64 / 1e6)
}

fn opt_ms(ns: Option<i64>) -> String {
    ns.map(ms).unwrap_or_else(|| "-".into())
}

fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / (1u64 << 20) as f64)
    } else {
        format!("{:.1} kB", bytes as f64 / 1024.0)
    }
}

/// Indent every line of a sub-table under its app.
fn indent(table: &str) -> String {
    table.lines().map(|l| format!("    {l}\n")).collect()
}

fn levels_line(count: &Levels, sum: &Levels) -> String {
    count
        .iter()
        .zip(sum.values())
        .map(|((level, c), s)| format!("{level} {c} ({s})"))
        .collect::<Vec<_>>()
        .join("  ")
}

fn summary_table(apps: &[AppSummary]) -> String {
    let headers: Vec<String> = [
        "app",
        "pid",
        "frames",
        "fps",
        "fps_wall",
        "Hz",
        "dropped",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "max ms",
        "green alliance",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let rows: Vec<Vec<String>> = apps
        .iter()
        .map(|a| {
            vec![
                a.process.clone().unwrap_or_else(|| "?".into()),
                a.pid.to_string(),
                a.frames.to_string(),
                format!("{:.1}", a.fps),
                format!("{:.1}", a.fps_wall),
                format!("{:.0}", a.refresh_hz),
                a.dropped_frames.to_string(),
                opt_ms(a.frame_cost_ns.p50),
                opt_ms(a.frame_cost_ns.p90),
                opt_ms(a.frame_cost_ns.p99),
                opt_ms(a.frame_cost_ns.max),
                format!(
                    "{} (≥ {})",
                    if a.green_alliance.pass { "pass" } else { "FAIL" },
                    a.green_alliance.min_fps
                ),
            ]
        })
        .collect();
    let right = [false, true, true, true, true, true, true, true, true, true, true, false];
    text_table(&headers, &rows, &right)
}

fn app_details(out: &mut String, a: &AppSummary, trace_start: i64) {
    let name = a.process.as_deref().unwrap_or("?");
    let _ = writeln!(out, "\n{name} (pid {})", a.pid);
    let _ = writeln!(
        out,
        "  drop levels    {}   [frames (dropped frames)]",
        levels_line(&a.drop_level, &a.drop_sum)
    );
    let j = &a.jank;
    let p = &j.perfetto;
    let _ = writeln!(
        out,
        "  Perfetto       jank {}  big {}  huge {}  slow {}  (of {} frames with FrameTimeline)",
        p.jank, p.big_jank, p.huge_jank, p.slow, p.frames_with_data
    );
    if !j.frame_timeline.is_empty() {
        let types: Vec<String> = j.frame_timeline.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(out, "  FrameTimeline  {}", types.join(", "));
    }
    let v = &j.vitals;
    let _ = writeln!(
        out,
        "  Android vitals slow {} ({:.1}%)  frozen {} ({:.2}%){}",
        v.slow,
        v.slow_pct,
        v.frozen,
        v.frozen_pct,
        match (v.excessive_slow, v.excessive_frozen) {
            (true, true) => "  excessive slow and frozen",
            (true, false) => "  excessive slow",
            (false, true) => "  excessive frozen",
            _ => "",
        }
    );
    let d = &j.perfdog;
    let _ = writeln!(
        out,
        "  PerfDog        jank {}  big jank {}  stutter {:.2}%",
        d.jank,
        d.big_jank,
        100.0 * d.stutter
    );
    let c = &j.choreographer;
    let _ = writeln!(
        out,
        "  Choreographer  {} \"Skipped N frames\" events ({} frames, max {})",
        c.skipped_frame_events, c.skipped_frames, c.max_skipped_frames
    );
    let _ = writeln!(
        out,
        "  overrun ms     p50 {}  p90 {}  p99 {}  max {};  doFrame ms p50 {}  p90 {}  p99 {}",
        opt_ms(a.overrun_ns.p50),
        opt_ms(a.overrun_ns.p90),
        opt_ms(a.overrun_ns.p99),
        opt_ms(a.overrun_ns.max),
        opt_ms(a.do_frame_dur.p50),
        opt_ms(a.do_frame_dur.p90),
        opt_ms(a.do_frame_dur.p99),
    );
    if a.scenes.len() > 1 || a.scenes.first().is_some_and(|s| s.scene != "(unknown)") {
        let headers: Vec<String> = [
            "scene", "frames", "fps", "dropped", "BEST", "NORMAL", "MIDDLE", "HIGH", "FROZEN", "p90 ms",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let rows: Vec<Vec<String>> = a
            .scenes
            .iter()
            .map(|s| {
                let mut r = vec![
                    s.scene.clone(),
                    s.frames.to_string(),
                    format!("{:.1}", s.fps),
                    s.dropped_frames.to_string(),
                ];
                r.extend(s.drop_level.values().iter().map(|v| v.to_string()));
                r.push(opt_ms(s.frame_cost_p90));
                r
            })
            .collect();
        out.push_str("  scenes\n");
        out.push_str(&indent(&text_table(
            &headers,
            &rows,
            &[false, true, true, true, true, true, true, true, true, true],
        )));
    }
    if !a.worst_frames.is_empty() {
        let headers: Vec<String> = [
            "at s",
            "frame_id",
            "cost ms",
            "dropped",
            "level",
            "phase",
            "phase ms",
            "longest slice",
            "why else",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let rows: Vec<Vec<String>> = a
            .worst_frames
            .iter()
            .map(|w| {
                let (phase, phase_ms, longest, other) = match &w.why {
                    Some(y) => {
                        let mut other = Vec::new();
                        if let Some(t) = &y.thread_state {
                            other.push(format!(
                                "run {} runnable {} sleep {} blocked {} ms",
                                ms(t.running_ns),
                                ms(t.runnable_ns),
                                ms(t.sleeping_ns),
                                ms(t.blocked_ns)
                            ));
                        }
                        if let Some(b) = y.blockers.first() {
                            other.push(format!("blocked start: {} {} ms", b.name, ms(b.dur)));
                        }
                        (
                            y.dominant_phase.to_string(),
                            ms(y.dominant_phase_ns),
                            match (&y.longest_slice, y.longest_slice_ns) {
                                (Some(n), Some(d)) => format!("{n} ({} ms)", ms(d)),
                                (Some(n), None) => n.clone(),
                                _ => "-".into(),
                            },
                            other.join("; "),
                        )
                    }
                    None => (
                        "-".into(),
                        "-".into(),
                        "-".into(),
                        w.jank_type.clone().unwrap_or_default(),
                    ),
                };
                vec![
                    format!("{:.3}", (w.ts - trace_start) as f64 / 1e9),
                    w.frame_id.map(|v| v.to_string()).unwrap_or_else(|| "-".into()),
                    ms(w.frame_cost_ns),
                    w.dropped_frames.to_string(),
                    w.drop_level.to_string(),
                    phase,
                    phase_ms,
                    longest,
                    other,
                ]
            })
            .collect();
        out.push_str("  worst frames (why)\n");
        out.push_str(&indent(&text_table(
            &headers,
            &rows,
            &[true, true, true, true, false, false, true, false, false],
        )));
    }
    let q = &a.quality;
    let sources: Vec<String> = q.vsync_sources.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(
        out,
        "  data quality   vsync: {};  without RenderThread {};  without FrameTimeline {}",
        sources.join(", "),
        q.without_render_thread,
        q.without_timeline
    );
}

/// The whole terminal report.
pub fn render(report: &Report) -> String {
    let m = report.meta;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "trace {}  ({} {}, {:.2} s, {} packets)",
        m.path,
        size(m.file_size),
        if m.container.is_empty() { "plain" } else { &m.container },
        report.span_ns as f64 / 1e9,
        m.packets
    );
    let loss = super::info::data_loss_items(&m.data_loss);
    if !loss.is_empty() {
        let items: Vec<String> = loss.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(
            out,
            "data loss {} (frames near the gaps may be wrong)",
            items.join(", ")
        );
    }
    if report.apps.is_empty() {
        out.push_str("no frames\n");
        return out;
    }
    out.push('\n');
    out.push_str(&summary_table(report.apps));
    let start = m.first_ts.unwrap_or(0);
    for a in report.apps {
        app_details(&mut out, a, start);
    }
    let intervals: Vec<String> = report
        .quality
        .interval_sources
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    if !intervals.is_empty() {
        let _ = writeln!(out, "\nframe interval from: {}", intervals.join(", "));
    }
    out
}

impl Exporter for TableExporter {
    fn name(&self) -> &'static str {
        "table"
    }

    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        Ok(vec![Artifact {
            file_name: "summary.txt".into(),
            bytes: render(report).into_bytes(),
        }])
    }
}
