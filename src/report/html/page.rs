//! The page-level parts of `report.html`'s view model: the header (trace,
//! device, Android release, apps, refresh rates), the trace's data quality,
//! the definitions of every term, and [`page`], which puts them together
//! with one [`AppView`] per app.

use super::app::app_view;
use super::view::{field, AnimatingRow, Definition, Field, Page};
use crate::frames::DropLevel;
use crate::report::charts::{Chart, ChartKind};
use crate::report::format::*;
use crate::report::{info, Report};

/// The view model of the page.
pub(crate) fn page(report: &Report, charts: &[Chart]) -> Page {
    let origin_ts = report.origin_ts();
    Page {
        title: title(report),
        fpsan_version: env!("CARGO_PKG_VERSION").into(),
        header: header(report),
        apps: report.drawing_apps().map(|a| app_view(report, a, charts, origin_ts)).collect(),
        animating: report.animating_apps().map(animating_row).collect(),
        startups: report.startups.iter().map(|s| startup_row(s, origin_ts)).collect(),
        blocks: blocks_view(report, origin_ts),
        input: input_view(report, origin_ts),
        overview_charts: charts
            .iter()
            .enumerate()
            .filter(|(_, c)| c.kind == ChartKind::AppsDropLevels)
            .map(|(i, c)| super::chart_view(i, c))
            .collect(),
        quality: trace_quality(report),
        warnings: report.warnings.iter().map(|w| w.line()).collect(),
        definitions: definitions(),
        level_names: DropLevel::ALL.iter().map(|l| l.to_string()).collect(),
        timeline: super::timeline::timeline_view(report),
    }
}

/// `fpsan report: PACKAGE`, the chosen app: the first in report order (the
/// app that reached the screen most) that drew. Never a pid or an app that
/// drew nothing; without a named app that drew, the trace's file name.
fn title(report: &Report) -> String {
    let chosen = report.drawing_apps().next().and_then(|a| a.process.as_deref());
    let file = || std::path::Path::new(&report.meta.path).file_name().map(|f| f.to_string_lossy().into_owned());
    match chosen.map(str::to_string).or_else(file) {
        Some(name) => format!("fpsan report: {name}"),
        None => "fpsan report".into(),
    }
}

/// A startup as the "Startups" section lists it: the terminal's columns and
/// lines, names kept whole.
fn startup_row(s: &crate::startups::Startup, origin_ts: i64) -> super::view::StartupRow {
    let ms = |ns: Option<i64>| ns.map_or_else(|| NONE_ASCII.to_string(), |v| format!("{} ms", fmt_ms_value(v)));
    super::view::StartupRow {
        package: s.package.to_string(),
        startup_type: s.startup_type.map_or(NONE_ASCII, |t| t.as_str()).into(),
        at: format!("{:.3} s", secs_since(s.ts, origin_ts)),
        dur: ms(Some(s.dur)),
        ttid: ms(s.ttid.map(|d| d.dur)),
        ttfd: ms(s.ttfd.map(|d| d.dur)),
        steps: s.why.as_ref().map(startup_steps).unwrap_or_default(),
        until: startup_until(s),
        causes: s.why.as_ref().map(|w| startup_causes(w, usize::MAX)).unwrap_or_default(),
        matrix: s.why.as_ref().and_then(startup_matrix).unwrap_or_default(),
    }
}

/// The "Main-thread blocks" section: the terminal's table and longest
/// blocks, names kept whole.
fn blocks_view(report: &Report, origin_ts: i64) -> Option<super::view::BlocksView> {
    use super::view::{BlockAppRow, BlockRow, BlocksView};
    use crate::blocks::summary;
    let apps: Vec<BlockAppRow> = report
        .blocks
        .listed()
        .into_iter()
        .map(|s| BlockAppRow {
            process: s.process.as_deref().unwrap_or(NONE_ASCII).to_string(),
            pid: s.pid,
            per_level: s.per_level.to_vec(),
            blocked: format!("{} ms", fmt_ms_value(s.blocked_ns)),
            per_min: fmt_per_min(s.blocks_per_min),
            longest: s.longest_ns.map_or_else(|| NONE_ASCII.to_string(), |v| format!("{} ms", fmt_ms_value(v))),
        })
        .collect();
    if apps.is_empty() {
        return None;
    }
    let with_lanes: std::collections::HashSet<usize> =
        report.lanes.map(|l| l.frames.iter().map(|f| f.frame_index).collect()).unwrap_or_default();
    let longest = summary::longest(&report.blocks.blocks, summary::LONGEST)
        .into_iter()
        .map(|b| BlockRow {
            timeline: frame_of(report.rows, b).filter(|i| with_lanes.contains(i)),
            at: format!("{:.3} s", secs_since(b.ts, origin_ts)),
            dur: format!("{} ms", fmt_ms_value(b.dur)),
            level: b.level.map_or(NONE_ASCII, |l| l.as_str()),
            title: block_title(b, usize::MAX),
            states: block_states(b),
            methods: block_methods(b, usize::MAX),
            chain: b.why.as_ref().and_then(|w| w.chain.clone()).unwrap_or_default(),
        })
        .collect();
    Some(BlocksView { levels: summary::COUNTED_LEVELS.iter().map(|l| l.as_str()).collect(), apps, longest })
}

/// The "Input" section: the terminal's table, names kept whole, and the gestures.
fn input_view(report: &Report, origin_ts: i64) -> Option<super::view::InputView> {
    let apps = &report.input.apps;
    if apps.is_empty() {
        return None;
    }
    let gestures = report
        .input
        .gestures
        .iter()
        .map(|g| {
            vec![
                format!("{} ({})", g.process.as_deref().unwrap_or(NONE_ASCII), g.pid),
                g.channel.clone(),
                format!("{:.3} s", secs_since(g.start_ts, origin_ts)),
                g.events.to_string(),
                fmt_opt_ms(g.touch_to_first_frame_ns),
                fmt_opt_ms(g.end_to_end_ns.p90),
                fmt_delayed(g.delayed_frames, g.judged_presents, NONE),
            ]
        })
        .collect();
    Some(super::view::InputView {
        headers: INPUT_HEADERS.to_vec(),
        rows: apps.iter().map(|s| input_cells(s, usize::MAX)).collect(),
        notes: apps
            .iter()
            .filter_map(|s| {
                Some(format!("{} ({}): {}", s.process.as_deref().unwrap_or(NONE_ASCII), s.pid, s.source.note()?))
            })
            .collect(),
        gestures,
    })
}

/// The frame (index in `rows`, ordered by (pid, ts)) a block is, when it is a doFrame.
fn frame_of(rows: &[crate::frames::FrameRow], b: &crate::blocks::Block) -> Option<usize> {
    if b.kind != crate::blocks::BlockKind::Slice || !b.name.starts_with(crate::frames::DO_FRAME) {
        return None;
    }
    let at = rows.partition_point(|r| (r.pid, r.ts) < (b.pid, b.ts));
    rows.get(at).filter(|r| r.pid == b.pid && r.tid == b.tid && r.ts == b.ts).map(|_| at)
}

/// An app that animates but draws nothing, as its row lists it.
fn animating_row(a: &crate::metrics::AppSummary) -> AnimatingRow {
    AnimatingRow {
        name: app_name(a),
        pid: a.pid,
        anchor: format!("app-{}", a.pid),
        frames: fmt_count(a.frames),
        cpu_time: fmt_ms(a.screen.cpu_time_ns),
        cpu_time_from: a.screen.cpu_time_source.label().into(),
    }
}

/// What was traced, where, and by which fpsan.
fn header(report: &Report) -> Vec<Field> {
    let m = report.meta;
    let mut header =
        vec![field("trace", m.path.clone()), field("file", format!("{}, {}", fmt_size(m.file_size), m.container))];
    if let Some(d) = &m.android.device {
        header.push(field("device", d.clone()));
    }
    if let Some(b) = &m.android.build_fingerprint {
        header.push(field("build", b.clone()));
    }
    header.push(field(
        "Android",
        android_version(m.android.sdk_version, m.android.build_fingerprint.as_deref())
            .unwrap_or_else(|| "unknown".into()),
    ));
    header.push(field(
        "apps",
        report
            .apps
            .iter()
            .map(|a| {
                if a.screen.draws_nothing() {
                    format!("{} (pid {}, {})", app_name(a), a.pid, crate::metrics::Verdict::DrawsNothing.label())
                } else {
                    format!("{} (pid {})", app_name(a), a.pid)
                }
            })
            .collect::<Vec<_>>()
            .join(", "),
    ));
    header.push(field("refresh rates", trace_refresh(report)));
    header.push(field("duration", fmt_duration(report.span_ns)));
    header.push(field("fpsan", env!("CARGO_PKG_VERSION")));
    header
}

/// Distinct refresh rates of the reported apps' frames, rounded: `60 Hz`, `60/120 Hz`.
fn trace_refresh(report: &Report) -> String {
    let reported: std::collections::HashSet<i32> = report.apps.iter().map(|a| a.pid).collect();
    let rates = report.rows.iter().filter(|r| reported.contains(&r.pid)).map(|r| r.refresh_hz);
    fmt_rates(rates.filter(|v| v.is_finite() && *v > 0.0)).unwrap_or_else(|| NONE.into())
}

/// The trace's contents and the whole-trace reconstruction quality; `–` for
/// an empty value.
fn trace_quality(report: &Report) -> Vec<Field> {
    let m = report.meta;
    let q = report.quality;
    let count = |n: u64| fmt_count(n as i64);
    let mut quality = vec![
        field(
            "data sources",
            if m.data_sources.is_empty() { NONE.into() } else { crate::model::DataSource::list(&m.data_sources) },
        ),
        if m.is_systrace() {
            field("ftrace lines", count(m.ftrace_events))
        } else {
            field("packets", count(m.packets))
        },
        field("atrace events", format!("{} ({} malformed)", count(m.atrace_events), count(m.atrace_malformed))),
        field("FrameTimeline events", count(m.frame_timeline_events)),
        field("scheduler events", count(m.sched_events)),
        field("vsync sources (all frames)", fmt_pairs(q.vsync_sources.iter().map(|(k, v)| (k, count(*v))))),
        field("frame interval sources", fmt_pairs(q.interval_sources.iter().map(|(k, v)| (k, count(*v))))),
        field("frames without RenderThread", count(q.without_render_thread)),
        field("frames without FrameTimeline", count(q.without_timeline)),
        field("doFrames cut by the trace bounds", count(q.cut_by_trace_bounds)),
    ];
    let loss = info::data_loss_items(&m.data_loss);
    quality.push(field(
        "data loss",
        if loss.is_empty() { "none reported".into() } else { fmt_pairs(loss.iter().map(|(k, v)| (k, count(*v)))) },
    ));
    if !loss.is_empty() {
        let touched = report.rows.iter().filter(|r| r.data_loss).count() as u64;
        quality.push(field("frames touched by data loss (greyed)", count(touched)));
    }
    let buffers = info::loss_info_items(&m.data_loss);
    if !buffers.is_empty() {
        quality.push(field("buffer counters (information)", fmt_pairs(buffers.iter().map(|(k, v)| (k, count(*v))))));
    }
    if m.cut_at_start > 0 {
        let starts: Vec<(u32, f64)> = m.cpu_starts.iter().map(|c| (c.cpu, m.secs_in(c.ts))).collect();
        let text = info::cut_start_text(m.cut_at_start, &starts, m.complete_from.map(|t| m.secs_in(t)));
        quality.push(field("slice ends without a begin", text));
    }
    if let Some(cmd) = &m.capture.command_line {
        quality.push(field("captured by", cmd.clone()));
    }
    for f in quality.iter_mut() {
        if f.value.is_empty() {
            f.value = NONE.into();
        }
    }
    quality
}

/// The terms the page uses and how each is computed.
fn definitions() -> Vec<Definition> {
    let d = |t: &str, f: &str| Definition { term: t.into(), formula: f.into() };
    vec![
        d("I (frame interval)", "the vsync period in force for the frame, read from the trace (FrameTimeline, VSYNC-app or the doFrame grid); refresh rate = 1e9 / I"),
        d("frame cost", "vsync-to-commit-end: ts + do_frame_dur − vsync_ts (the doFrame duration when the vsync is unknown)"),
        d("dropped frames d", "frame_cost / I, integer division, never negative"),
        d("drop level", "Matrix levels on d: FROZEN ≥ 42, HIGH ≥ 24, MIDDLE ≥ 9, NORMAL ≥ 3, else BEST"),
        d("dropSum", "Σ d of the frames of a level (BEST adds max(d, 0))"),
        d("fps (paced)", "min(refresh rate, 1e9 · frames / Σ (d + 1) · I): Matrix's formula without its 60 fps cap and millisecond truncation"),
        d("fps_wall", "frames per second of wall time from the first doFrame to max(ts + I), counted in 1 s windows by doFrame start"),
        d("percentiles", "nearest rank: the value at rank ⌈n · p⌉ of the n sorted values"),
        d("overrun", "FrameTimeline actual_end − expected_end of the app's surface frame"),
        d("Green Alliance", &format!("pass when fps ≥ 55 (ordinary apps) or ≥ 25 (games, maps, video); no verdict (too few frames) under {} frames of the headline series", crate::metrics::MIN_VERDICT_FRAMES)),
        d("animates, draws nothing", "none of the app's doFrames ran a traversal, had a RenderThread DrawFrame or a FrameTimeline present, and no layer of it presented a buffer: listed with its doFrames and its main thread's CPU time over them, no FPS verdict; apps are listed by what reached the screen (drawn doFrames or its busiest layer's presents), most first"),
        d("Perfetto jank", "counts of was_jank / was_slow_frame / was_big_jank / was_huge_jank as android.frames.per_frame_metrics defines them"),
        d("Android vitals", "slow: cost · 25 > I · 24 (16 ms at 60 Hz, scaled to I); frozen: cost > 700 ms; excessive: > 50 % slow or > 0.1 % frozen"),
        d("PerfDog", "frame time = present − max(previous present, vsync); Jank: 3·ft > 2·(sum of the previous 3) and ft > 83.33 ms; BigJank: also > 125 ms; Stutter = Σ jank frame time / Σ frame time"),
        d("Choreographer", "frames with skipped_frames = jitter / I ≥ 30, the “Skipped N frames!” log"),
        d("dominant phase", "the largest of start jitter, input, animation, insets animation, traversal and commit for a janky frame; the longest slice is the longest slice nested in its doFrame"),
        d("presents (per layer)", "the buffers a layer put on the screen: FrameTimeline's actual surface frames, else SurfaceFlinger's per-layer counter, else the producing thread's queueBuffer; fps = (presents − 1) per second from the first present to the last; dropped vsyncs = max(round(interval / vsync period) − 1, 0); PerfDog's Jank, BigJank and Stutter on the present intervals (docs/presents.md)"),
        d("headline fps", "the fps of what the user saw: the presents of the app's own layer when a SurfaceView, Flutter or video renderer draws its content, else its doFrames' fps"),
        d("idle (FPS chart)", "no frame pending for ≥ 100 ms: from the end of one frame's work to the next frame's vsync"),
    ]
}
