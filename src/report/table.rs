//! The terminal report (`--format table`): one summary line per app, then per
//! app its drop levels, the jank vocabularies side by side, scenes, the worst
//! frames with why they were late, and data quality.

use std::fmt::Write as _;

use super::cells::text_table;
use super::format::*;
use super::{Artifact, Exporter, Report, ReportError};
use crate::metrics::{AppSummary, CujSummary, GreenAlliance, HeadlineSource, Levels, SceneSummary, WorstFrame};

pub(crate) struct TableExporter;

/// Indent every line of a sub-table under its app.
fn indent(table: &str) -> String {
    table.lines().map(|l| format!("    {l}\n")).collect()
}

fn levels_line(count: &Levels, sum: &Levels) -> String {
    count.iter().zip(sum.values()).map(|((level, c), s)| format!("{level} {c} ({s})")).collect::<Vec<_>>().join("  ")
}

fn summary_table(apps: &[&AppSummary]) -> String {
    // Every number is the headline series': the app's doFrames, or the
    // presents of its visible layer (then frames are presents, dropped are
    // vsyncs and the times are present intervals).
    let headers = [
        "app",
        "pid",
        "fps",
        "from",
        "frames",
        "dropped",
        "Hz",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "max ms",
        "green alliance",
    ];
    let rows: Vec<Vec<String>> = apps
        .iter()
        .map(|a| {
            let h = &a.headline;
            vec![
                process_name(a).to_string(),
                a.pid.to_string(),
                fmt_fps(h.fps),
                match h.source {
                    HeadlineSource::Frames => "doFrames",
                    HeadlineSource::Presents => "presents",
                }
                .to_string(),
                h.frames.to_string(),
                h.dropped.to_string(),
                format!("{:.0}", h.refresh_hz),
                fmt_opt_ms_value(h.frame_time_ns.p50),
                fmt_opt_ms_value(h.frame_time_ns.p90),
                fmt_opt_ms_value(h.frame_time_ns.p99),
                fmt_opt_ms_value(h.frame_time_ns.max),
                verdict_cell(&a.green_alliance),
            ]
        })
        .collect();
    let right = [false, true, true, false, true, true, true, true, true, true, true, false];
    text_table(&headers, &rows, &right)
}

/// `pass (≥ 55)`, `FAIL (≥ 55)`, or `too few frames (< 30)`.
fn verdict_cell(g: &GreenAlliance) -> String {
    match g.verdict.passed() {
        Some(_) => format!("{} (≥ {})", g.verdict.label(), g.min_fps),
        None => format!("{} (< {})", g.verdict.label(), g.min_frames),
    }
}

/// The apps that animate but draw nothing: their doFrames and their main
/// thread's CPU time over them, no FPS verdict.
fn animating_table(apps: &[&AppSummary]) -> String {
    let headers = ["app", "pid", "frames", "CPU ms", "CPU time from"];
    let rows: Vec<Vec<String>> = apps
        .iter()
        .map(|a| {
            vec![
                process_name(a).to_string(),
                a.pid.to_string(),
                a.frames.to_string(),
                fmt_ms_value(a.screen.cpu_time_ns),
                a.screen.cpu_time_source.label().to_string(),
            ]
        })
        .collect();
    text_table(&headers, &rows, &[false, true, true, true, false])
}

/// One app's block under the summary table, one line or sub-table per section.
fn app_details(out: &mut String, a: &AppSummary, trace_start: i64) {
    let _ = writeln!(out, "\n{} ({})", process_name(a), pid_note(a));
    headline_lines(out, a);
    let h = &a.headline;
    match h.source {
        HeadlineSource::Frames => {
            let _ = writeln!(
                out,
                "  drop levels    {}   [frames (dropped frames)]",
                levels_line(&h.drop_level, &h.drop_sum)
            );
        }
        HeadlineSource::Presents => {
            let _ = writeln!(
                out,
                "  drop levels    {}   [presents (dropped vsyncs)]",
                levels_line(&h.drop_level, &h.drop_sum)
            );
            let _ = writeln!(
                out,
                "  idle spans     {}   [no frame asked for, not counted as drops; fps_wall {}]",
                fmt_idle(&h.idle),
                fmt_fps(h.fps_wall)
            );
            if a.frames > 0 {
                let _ = writeln!(
                    out,
                    "  main thread    {} doFrames  fps {} (paced)  fps_wall {}  dropped {}  levels {}",
                    a.frames,
                    fmt_fps(a.fps),
                    fmt_fps(a.fps_wall),
                    a.dropped_frames,
                    levels_line(&a.drop_level, &a.drop_sum)
                );
            }
        }
    }
    jank_lines(out, a);
    if a.frames == 0 {
        return;
    }
    let _ = writeln!(
        out,
        "  overrun ms     p50 {}  p90 {}  p99 {}  max {};  doFrame ms p50 {}  p90 {}  p99 {}",
        fmt_opt_ms_value(a.overrun_ns.p50),
        fmt_opt_ms_value(a.overrun_ns.p90),
        fmt_opt_ms_value(a.overrun_ns.p99),
        fmt_opt_ms_value(a.overrun_ns.max),
        fmt_opt_ms_value(a.do_frame_dur.p50),
        fmt_opt_ms_value(a.do_frame_dur.p90),
        fmt_opt_ms_value(a.do_frame_dur.p99),
    );
    if a.scenes.len() > 1 || a.scenes.first().is_some_and(|s| s.scene != "(unknown)") {
        out.push_str("  scenes\n");
        out.push_str(&indent(&scenes_table(&a.scenes)));
    }
    if !a.cujs.is_empty() {
        out.push_str("  jank CUJs\n");
        out.push_str(&indent(&cujs_table(&a.cujs)));
    }
    if !a.worst_frames.is_empty() {
        out.push_str("  worst frames (why)\n");
        out.push_str(&indent(&worst_table(&a.worst_frames, trace_start)));
    }
    let q = &a.quality;
    let _ = writeln!(
        out,
        "  data quality   vsync: {};  without RenderThread {};  without FrameTimeline {}",
        fmt_pairs(&q.vsync_sources),
        q.without_render_thread,
        q.without_timeline
    );
}

/// The renderer, where the headline fps comes from, and the Green Alliance
/// threshold applied and why.
fn headline_lines(out: &mut String, a: &AppSummary) {
    if let Some(r) = &a.renderer {
        let _ = writeln!(out, "  renderer       {r}  [{}]", r.evidence);
    }
    let h = &a.headline;
    let _ = writeln!(out, "  headline fps   {} (paced)  [{}]", fmt_fps(h.fps), h.reason);
    let g = &a.green_alliance;
    let few = match g.verdict.passed() {
        Some(_) => String::new(),
        None => format!(": {} {}, a verdict needs {}", h.frames, units_of(h.source), g.min_frames),
    };
    let _ = writeln!(
        out,
        "  green alliance {}{few} (≥ {}, {} {}: {})",
        g.verdict.label(),
        g.min_fps,
        g.category.as_str(),
        match g.category_source {
            crate::metrics::CategorySource::Given => "given",
            crate::metrics::CategorySource::Detected => "detected",
        },
        g.reason
    );
}

/// What a headline series counts: `frames` (doFrames) or `presents`.
fn units_of(source: HeadlineSource) -> &'static str {
    match source {
        HeadlineSource::Frames => "frames",
        HeadlineSource::Presents => "presents",
    }
}

/// The jank vocabularies, one line each (Perfetto's and Choreographer's
/// are doFrames', so an app without doFrames has neither).
fn jank_lines(out: &mut String, a: &AppSummary) {
    let j = &a.jank;
    let p = &j.perfetto;
    if a.frames > 0 {
        let _ = writeln!(
            out,
            "  Perfetto       jank {}  big {}  huge {}  slow {}  (of {} frames with FrameTimeline)",
            p.jank, p.big_jank, p.huge_jank, p.slow, p.frames_with_data
        );
    }
    if let Some(janky) = fmt_timeline_janky(j) {
        let _ = writeln!(out, "  FrameTimeline  {janky}: {}", fmt_pairs(&j.frame_timeline));
        let _ = writeln!(
            out,
            "                 tags: {};  severity: {}",
            fmt_pairs(&j.frame_timeline_tags),
            fmt_pairs(&j.frame_timeline_severity)
        );
    }
    let v = &j.vitals;
    let _ = writeln!(
        out,
        "  Android vitals slow {} ({})  frozen {} ({}){}",
        v.slow,
        fmt_pct(v.slow_pct),
        v.frozen,
        fmt_small_pct(v.frozen_pct),
        vitals_excessive(v).map(|e| format!("  excessive {e}")).unwrap_or_default()
    );
    let d = &j.perfdog;
    let _ = writeln!(
        out,
        "  PerfDog        jank {}  big jank {}  stutter {}  [on {}]",
        d.jank,
        d.big_jank,
        fmt_small_pct(100.0 * d.stutter),
        j.perfdog_layer
            .as_deref()
            .map_or_else(|| "doFrames: no layer of the app presented".to_string(), |l| format!("the presents of {l}"))
    );
    if a.frames == 0 {
        return;
    }
    let c = &j.choreographer;
    let _ = writeln!(
        out,
        "  Choreographer  {} \"Skipped N frames\" events (≥ {} skipped, {} frames in them); most skipped at once {}",
        c.skipped_frame_events,
        crate::series::SKIPPED_FRAME_WARNING_LIMIT,
        c.skipped_frames,
        c.max_skipped_frames
    );
}

/// A scene's frames, fps, dropped frames and frames per drop level: the
/// cells the scenes and the CUJs tables share.
fn scene_cells(s: &SceneSummary) -> Vec<String> {
    let mut cells = vec![s.frames.to_string(), fmt_fps(s.fps), s.dropped_frames.to_string()];
    cells.extend(s.drop_level.values().iter().map(|v| v.to_string()));
    cells
}

fn scenes_table(scenes: &[SceneSummary]) -> String {
    let headers = ["scene", "frames", "fps", "dropped", "BEST", "NORMAL", "MIDDLE", "HIGH", "FROZEN", "p90 ms"];
    let rows: Vec<Vec<String>> = scenes
        .iter()
        .map(|s| {
            let mut r = vec![shorten(&s.scene, TERMINAL_NAME_CHARS)];
            r.extend(scene_cells(s));
            r.push(fmt_opt_ms_value(s.frame_cost_p90));
            r
        })
        .collect();
    text_table(&headers, &rows, &[false, true, true, true, true, true, true, true, true, true])
}

/// Each CUJ name: its instances and states, fpsan's frames of it, and
/// FrameTimeline's missed frames (app / SurfaceFlinger).
fn cujs_table(cujs: &[CujSummary]) -> String {
    let headers = [
        "cuj",
        "runs",
        "done",
        "canceled",
        "ms",
        "frames",
        "fps",
        "dropped",
        "BEST",
        "NORMAL",
        "MIDDLE",
        "HIGH",
        "FROZEN",
        "FT missed app/sf",
    ];
    let rows: Vec<Vec<String>> = cujs
        .iter()
        .map(|c| {
            let mut r = vec![
                shorten_head(&c.cuj, TERMINAL_NAME_CHARS),
                c.instances.to_string(),
                c.completed.to_string(),
                c.canceled.to_string(),
                fmt_ms_value(c.dur_ns),
            ];
            match &c.frames {
                Some(f) => r.extend(scene_cells(f)),
                None => r.extend(std::iter::repeat_n(NONE_ASCII.to_string(), 8)),
            }
            r.push(match (c.timeline_frames, c.missed_app_frames, c.missed_sf_frames) {
                (Some(n), Some(app), Some(sf)) => format!("{app}/{sf} of {n}"),
                _ => NONE_ASCII.to_string(),
            });
            r
        })
        .collect();
    let mut right = [true; 14];
    right[0] = false;
    right[13] = false;
    text_table(&headers, &rows, &right)
}

/// The worst frames; times are seconds from `trace_start`.
fn worst_table(worst: &[WorstFrame], trace_start: i64) -> String {
    let headers = [
        "at s",
        "frame_id",
        "cost ms",
        "dropped",
        "level",
        "phase",
        "phase ms",
        "longest slice",
        "waited on (critical path)",
    ];
    let rows: Vec<Vec<String>> = worst
        .iter()
        .map(|w| {
            let [phase, phase_ms, longest, other] = why_cells(w);
            vec![
                format!("{:.3}", secs_since(w.ts, trace_start)),
                w.frame_id.map(|v| v.to_string()).unwrap_or_else(|| NONE_ASCII.into()),
                fmt_ms_value(w.frame_cost_ns),
                w.dropped_frames.to_string(),
                w.drop_level.to_string(),
                phase,
                phase_ms,
                longest,
                other,
            ]
        })
        .collect();
    text_table(&headers, &rows, &[true, true, true, true, false, false, true, false, false])
}

/// Phase, phase ms, longest slice and what the frame waited on: its
/// critical path's chain (docs/frames.md), else its thread state and first
/// blocker; the FrameTimeline jank type when the frame has no why.
fn why_cells(w: &WorstFrame) -> [String; 4] {
    let Some(y) = &w.why else {
        return [NONE_ASCII.into(), NONE_ASCII.into(), NONE_ASCII.into(), w.jank_type.clone().unwrap_or_default()];
    };
    let mut other = Vec::new();
    if !y.chain.is_empty() {
        other.push(y.chain.clone());
    } else if let Some(t) = &y.thread_state {
        other.push(format!(
            "run {} runnable {} sleep {} blocked {} ms",
            fmt_ms_value(t.running_ns),
            fmt_ms_value(t.runnable_ns),
            fmt_ms_value(t.sleeping_ns),
            fmt_ms_value(t.blocked_ns)
        ));
    }
    if let Some(b) = y.blockers.first() {
        other.push(format!(
            "blocked start: {} {} ms",
            shorten_head(&b.name, TERMINAL_NAME_CHARS),
            fmt_ms_value(b.delay_ns)
        ));
    }
    let longest = match (&y.longest_slice, y.longest_slice_ns) {
        (Some(n), Some(d)) => format!("{} ({} ms)", shorten_head(n, TERMINAL_NAME_CHARS), fmt_ms_value(d)),
        (Some(n), None) => shorten_head(n, TERMINAL_NAME_CHARS),
        _ => NONE_ASCII.into(),
    };
    [y.dominant_phase.to_string(), fmt_ms_value(y.dominant_phase_ns), longest, other.join("; ")]
}

/// The whole terminal report.
pub(crate) fn render(report: &Report) -> String {
    let m = report.meta;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "trace {}  ({} {}, {:.2} s, {})",
        m.path,
        fmt_size(m.file_size),
        m.container,
        report.span_ns as f64 / 1e9,
        m.records()
    );
    let loss = super::info::data_loss_items(&m.data_loss);
    if !loss.is_empty() {
        let touched = report.rows.iter().filter(|r| r.data_loss).count();
        let _ =
            writeln!(out, "data loss {} (frames touched: {touched}, data_loss in the frames table)", fmt_pairs(loss));
    }
    let drawing: Vec<&AppSummary> = report.drawing_apps().collect();
    let animating: Vec<&AppSummary> = report.animating_apps().collect();
    if report.apps.is_empty() {
        out.push_str("no frames (no Choreographer#doFrame)\n");
    } else {
        if !drawing.is_empty() {
            out.push('\n');
            out.push_str(&summary_table(&drawing));
        }
        if !animating.is_empty() {
            let _ = writeln!(
                out,
                "\n{} (no traversal, DrawFrame or present: no FPS verdict)",
                crate::metrics::Verdict::DrawsNothing.label()
            );
            out.push_str(&animating_table(&animating));
        }
        let start = m.first_ts.unwrap_or(0);
        for a in drawing {
            app_details(&mut out, a, start);
        }
        let intervals = &report.quality.interval_sources;
        if !intervals.is_empty() {
            let _ = writeln!(out, "\nframe interval from: {}", fmt_pairs(intervals));
        }
    }
    presents_section(&mut out, report);
    startups_section(&mut out, report);
    blocks_section(&mut out, report);
    input_section(&mut out, report);
    out
}

/// Each app's input: events, gestures, handling and end-to-end latency,
/// the delayed frames of its gestures (docs/input.md); nothing without input.
fn input_section(out: &mut String, report: &Report) {
    let apps = &report.input.apps;
    if apps.is_empty() {
        return;
    }
    let _ = writeln!(out, "\ninput (from finger to screen: read, handled, presented; docs/input.md)");
    let rows: Vec<Vec<String>> = apps.iter().map(|s| input_cells(s, TERMINAL_NAME_CHARS)).collect();
    let right: Vec<bool> = (0..INPUT_HEADERS.len()).map(|i| i > 0).collect();
    out.push_str(&indent(&text_table(&INPUT_HEADERS, &rows, &right)));
    for s in apps {
        if let Some(note) = s.source.note() {
            let _ = writeln!(out, "  {} ({}): {note}", s.process.as_deref().unwrap_or(NONE_ASCII), s.pid);
        }
    }
}

/// The main threads' blocks of frame-scale and longer: per process, their
/// count at each level, and the longest with their states, slow methods and
/// critical path (docs/blocks.md); nothing when there is none.
fn blocks_section(out: &mut String, report: &Report) {
    let summaries = report.blocks.listed();
    if summaries.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nmain-thread blocks (frame-scale and longer; BlockCanary and Matrix from the trace, docs/blocks.md)"
    );
    let mut headers = vec!["process", "pid"];
    headers.extend(crate::blocks::summary::COUNTED_LEVELS.iter().map(|l| l.as_str()));
    headers.extend(["blocked ms", "per min", "longest ms"]);
    let rows: Vec<Vec<String>> = summaries
        .iter()
        .map(|s| {
            let mut row =
                vec![shorten_head(s.process.as_deref().unwrap_or(NONE_ASCII), TERMINAL_NAME_CHARS), s.pid.to_string()];
            row.extend(s.per_level.iter().map(|n| n.to_string()));
            row.push(fmt_ms_value(s.blocked_ns));
            row.push(fmt_per_min(s.blocks_per_min));
            row.push(fmt_opt_ms_value(s.longest_ns));
            row
        })
        .collect();
    // Every column but the process' name is a number.
    let right: Vec<bool> = (0..headers.len()).map(|i| i > 0).collect();
    out.push_str(&indent(&text_table(&headers, &rows, &right)));
    let _ = writeln!(out, "  longest");
    let start = report.origin_ts();
    for b in crate::blocks::summary::longest(&report.blocks.blocks, crate::blocks::summary::LONGEST) {
        let level = b.level.map_or(NONE_ASCII, |l| l.as_str());
        let _ = writeln!(
            out,
            "    {:.3} s  {} ms  {level}  {}",
            secs_since(b.ts, start),
            fmt_ms_value(b.dur),
            block_title(b, TERMINAL_NAME_CHARS)
        );
        let _ = writeln!(out, "      {}", block_states(b));
        let methods = block_methods(b, TERMINAL_NAME_CHARS);
        if !methods.is_empty() {
            let _ = writeln!(out, "      slowest inside: {methods}");
        }
        if let Some(chain) = b.why.as_ref().and_then(|w| w.chain.as_deref()) {
            let _ = writeln!(out, "      path: {chain}");
        }
    }
}

/// Each startup: its app, type, duration and display times (docs/startups.md).
fn startups_section(out: &mut String, report: &Report) {
    if report.startups.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nstartups (Perfetto's android_startups and android_startup_time_to_display)");
    let headers = ["package", "type", "at s", "dur ms", "TTID ms", "TTFD ms"];
    let start = report.origin_ts();
    let rows: Vec<Vec<String>> = report
        .startups
        .iter()
        .map(|s| {
            vec![
                shorten_head(&s.package, TERMINAL_NAME_CHARS),
                s.startup_type.map_or(NONE_ASCII, |t| t.as_str()).to_string(),
                format!("{:.3}", secs_since(s.ts, start)),
                fmt_ms_value(s.dur),
                fmt_opt_ms_value(s.ttid.map(|d| d.dur)),
                fmt_opt_ms_value(s.ttfd.map(|d| d.dur)),
            ]
        })
        .collect();
    out.push_str(&indent(&text_table(&headers, &rows, &[false, false, true, true, true, true])));
    for s in report.startups {
        if let Some(why) = &s.why {
            startup_why(out, s, why);
        }
    }
}

/// A startup's main-thread milestones and its largest causes, two lines
/// (docs/startups.md, "Why it was slow").
fn startup_why(out: &mut String, s: &crate::startups::Startup, why: &crate::startups::StartupWhy) {
    let _ = writeln!(out, "    {}: {}", shorten_head(&s.package, TERMINAL_NAME_CHARS), startup_steps(why));
    if !why.causes.is_empty() {
        let _ = writeln!(
            out,
            "      largest on the path to {}: {}",
            startup_until(s),
            startup_causes(why, TERMINAL_NAME_CHARS)
        );
    }
    if let Some(matrix) = startup_matrix(why) {
        let _ = writeln!(out, "      {matrix}");
    }
}

/// The layers that presented buffers, and every app's renderer.
fn presents_section(out: &mut String, report: &Report) {
    let p = report.presents;
    if p.layers.is_empty() {
        return;
    }
    let _ = writeln!(out, "\npresents (what each layer put on the screen)");
    out.push_str(&indent(&layers_table(&p.layers, &p.renderers)));
    flutter_section(out, &p.flutter_apps);
}

/// Each Flutter app's frames from the engine's markers: build (UI thread)
/// → raster (raster thread) → present, like a doFrame's phases.
fn flutter_section(out: &mut String, apps: &[crate::presents::FlutterSummary]) {
    if apps.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nflutter frames (engine markers: Animator::BeginFrame → Rasterizer::DoDraw → present)");
    let headers = [
        "app",
        "pid",
        "ui",
        "raster",
        "frames",
        "presented",
        "fps",
        "build p50",
        "build p90",
        "raster p50",
        "raster p90",
        "total p90",
        "jank",
        "not rastered",
        "no build",
    ];
    let rows: Vec<Vec<String>> = apps
        .iter()
        .map(|a| {
            let thread = |tid: Option<i32>, name: &Option<String>| match (tid, name) {
                (Some(t), Some(n)) => format!("{n} {t}"),
                (Some(t), None) => t.to_string(),
                _ => NONE_ASCII.into(),
            };
            vec![
                a.process.clone().unwrap_or_else(|| NONE_ASCII.into()),
                a.pid.to_string(),
                thread(a.ui_tid, &a.ui_thread),
                thread(a.raster_tid, &a.raster_thread),
                a.frames.to_string(),
                a.presented.to_string(),
                fmt_fps(a.fps),
                fmt_opt_ms_value(a.build_ns.p50),
                fmt_opt_ms_value(a.build_ns.p90),
                fmt_opt_ms_value(a.raster_ns.p50),
                fmt_opt_ms_value(a.raster_ns.p90),
                fmt_opt_ms_value(a.total_ns.p90),
                a.jank_frames.to_string(),
                a.builds_not_rastered.to_string(),
                a.rasters_without_build.to_string(),
            ]
        })
        .collect();
    let right = [false, true, false, false, true, true, true, true, true, true, true, true, true, true, true];
    out.push_str(&indent(&text_table(&headers, &rows, &right)));
    let _ = writeln!(out, "    (ms; total = build start → present; jank = total over one vsync period)");
}

/// Layer names run to 200 characters (`TX - Surface(name=…)/@0x… - animation-leash of …#5`):
/// the table shows this many, the CSV, JSON and Parquet all of them.
const LAYER_WIDTH: usize = 60;

/// One line per layer: its app and renderer, presents, fps, the display
/// rate, dropped vsyncs, interval percentiles and PerfDog's vocabulary.
fn layers_table(
    layers: &[crate::presents::LayerSummary],
    renderers: &std::collections::BTreeMap<i32, crate::presents::Renderer>,
) -> String {
    let headers = [
        "app", "pid", "renderer", "layer", "source", "presents", "fps", "Hz", "dropped", "idle", "p50 ms", "p90 ms",
        "max ms", "jank", "big jank", "stutter",
    ];
    let rows: Vec<Vec<String>> = layers
        .iter()
        .map(|l| {
            let renderer = l.pid.and_then(|pid| renderers.get(&pid)).map(|r| r.to_string());
            vec![
                l.process.clone().unwrap_or_else(|| NONE_ASCII.into()),
                l.pid.map_or_else(|| NONE_ASCII.into(), |p| p.to_string()),
                renderer.unwrap_or_else(|| NONE_ASCII.into()),
                shorten_middle(&l.layer, LAYER_WIDTH),
                l.source.as_str().to_string(),
                l.presents.to_string(),
                fmt_fps(l.fps),
                format!("{:.0}", l.refresh_hz),
                l.dropped_vsyncs.to_string(),
                fmt_idle(&l.idle),
                fmt_opt_ms_value(l.frame_time_ns.p50),
                fmt_opt_ms_value(l.frame_time_ns.p90),
                fmt_opt_ms_value(l.frame_time_ns.max),
                l.perfdog.jank.to_string(),
                l.perfdog.big_jank.to_string(),
                fmt_small_pct(100.0 * l.perfdog.stutter),
            ]
        })
        .collect();
    let right = [false, true, false, false, false, true, true, true, true, true, true, true, true, true, true, true];
    text_table(&headers, &rows, &right)
}

impl Exporter<Report<'_>> for TableExporter {
    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        Ok(vec![Artifact { file_name: "summary.txt".into(), bytes: render(report).into_bytes() }])
    }
}
