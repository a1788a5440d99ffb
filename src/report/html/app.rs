//! The view of one app on `report.html`: the verdict cards, summary, its
//! presents ([`super::presents`]), drop levels, percentiles, scenes, the jank vocabularies side by side, the
//! worst frames with why they were late, data quality and the app's charts.
//! One function per section of the page.

use super::view::{field, AppView, CujRow, Field, LevelRow, PercentileRow, SceneRow, Vocabulary, WorstRow};
use crate::frames::{DropLevel, FrameWhy};
use crate::metrics::{AppSummary, Category, GreenAlliance, Headline, HeadlineSource, Percentiles, WorstFrame};
use crate::report::charts::{self, Chart};
use crate::report::format::*;
use crate::report::Report;

/// The view of app `a`; times of its worst frames are seconds from `origin_ts`.
///
/// The verdict cards, the summary's first rows, the drop levels and the FPS
/// chart show the app's headline series (its doFrames, or its visible
/// layer's presents); the doFrame (Matrix) numbers follow, labelled as the
/// Java main thread's.
pub(crate) fn app_view(report: &Report, a: &AppSummary, charts: &[Chart], origin_ts: i64) -> AppView {
    let refresh = app_refresh(report, a);
    let h = &a.headline;
    let units = Units::of(h.source);
    let counts = h.drop_level.values();
    let janky: i64 = counts[1..].iter().sum();
    let g = &a.green_alliance;
    let worst = worst_rows(a, report.rows, &super::timeline::frames_with_lanes(report), origin_ts);
    AppView {
        name: app_name(a),
        pid: a.pid,
        pid_note: pid_note(a),
        anchor: format!("app-{}", a.pid),
        refresh: refresh.clone(),
        fps: fmt_fps(h.fps),
        fps_from: match h.source {
            HeadlineSource::Frames => format!("doFrames, paced · fps_wall {}", fmt_fps(a.fps_wall)),
            HeadlineSource::Presents => {
                format!("presents of {}, paced · fps_wall {}", layer_label(h), fmt_fps(h.fps_wall))
            }
        },
        unit: units.unit.into(),
        dropped_unit: units.dropped.into(),
        verdict_class: match g.verdict.passed() {
            Some(true) => "pass",
            Some(false) => "fail",
            None => "none",
        }
        .into(),
        verdict: match g.verdict.passed() {
            Some(_) => g.verdict.label().to_uppercase(),
            None => g.verdict.label().to_string(),
        },
        verdict_rule: verdict_rule(g, h),
        frozen: counts[4],
        high: counts[3],
        frozen_text: fmt_count(counts[4]),
        high_text: fmt_count(counts[3]),
        janky: format!("{} of {} {} dropped ≥ 3 {}", fmt_count(janky), fmt_count(h.frames), units.unit, units.dropped),
        summary: summary(a, refresh),
        worst_title: match h.source {
            HeadlineSource::Frames => "Worst frames and why".into(),
            HeadlineSource::Presents => "Worst doFrames of the Java main thread, and why".into(),
        },
        no_worst: no_worst(a),
        presents: super::presents::presents_view(report, a, charts),
        levels_total: levels_total(a),
        levels: level_rows(a),
        percentiles: percentile_rows(a),
        scenes: scene_rows(a),
        cujs: cuj_rows(a),
        vocabularies: vocabularies(a),
        worst_data_loss: worst.iter().any(|w| w.data_loss),
        worst,
        quality: quality(a),
        charts: app_charts(a, charts),
    }
}

/// What the headline series counts: frames that drop frames, or presents
/// that drop vsyncs.
struct Units {
    unit: &'static str,
    dropped: &'static str,
}

impl Units {
    fn of(source: HeadlineSource) -> Units {
        match source {
            HeadlineSource::Frames => Units { unit: "frames", dropped: "frames" },
            HeadlineSource::Presents => Units { unit: "presents", dropped: "vsyncs" },
        }
    }
}

/// The headline's layer, shortened for a card.
fn layer_label(h: &Headline) -> String {
    h.layer.as_deref().map_or_else(|| "its layer".to_string(), |l| shorten_middle(l, 60))
}

/// The app's refresh rates from its frames (`60/120 Hz`), else its
/// headline's (an app known only by its presents).
fn app_refresh(report: &Report, a: &AppSummary) -> String {
    let frames = charts::data::app_frames(report.rows, a.pid);
    if frames.is_empty() {
        fmt_hz(a.headline.refresh_hz)
    } else {
        charts::data::refresh_label(&frames, a.refresh_hz)
    }
}

fn category_name(c: Category) -> &'static str {
    match c {
        Category::App => "ordinary",
        Category::Game => "game",
        Category::Map => "map",
        Category::Video => "video",
    }
}

/// `Green Alliance, ordinary app: fps ≥ 55.0`; without a verdict for too
/// few frames, `Green Alliance needs ≥ 30 frames: 3 frames`.
fn verdict_rule(g: &GreenAlliance, h: &Headline) -> String {
    match g.verdict.passed() {
        Some(_) => format!("Green Alliance, {} app: fps ≥ {}", category_name(g.category), fmt_fps(g.min_fps)),
        None => {
            let unit = Units::of(h.source).unit;
            format!("Green Alliance needs ≥ {} {unit}: {} {unit}", g.min_frames, fmt_count(h.frames))
        }
    }
}

/// CSS class of a drop level's colour: `lv-best`.
pub(super) fn level_class(level: DropLevel) -> String {
    format!("lv-{}", level.as_str().to_lowercase())
}

// ---------------------------------------------------------------------------
// Summary, levels, percentiles, scenes

/// The headline series first, then the Java main thread's doFrames
/// (labelled as such when the headline is another series).
fn summary(a: &AppSummary, refresh: String) -> Vec<Field> {
    let h = &a.headline;
    let units = Units::of(h.source);
    let mut out = vec![
        field("fps", fmt_fps(h.fps)),
        field(
            "judged on",
            match h.source {
                HeadlineSource::Frames => "the doFrames of the Java main thread".to_string(),
                HeadlineSource::Presents => format!("the presents of {}", layer_label(h)),
            },
        ),
        field(units.unit, fmt_count(h.frames)),
        field(&format!("dropped {}", units.dropped), fmt_count(h.dropped)),
        field("refresh rate", refresh),
    ];
    if h.source == HeadlineSource::Presents {
        out.extend([
            field("fps_wall (presents over their wall time)", fmt_fps(h.fps_wall)),
            field("idle spans (no frame asked for; not drops)", fmt_idle(&h.idle)),
        ]);
    }
    let main = if h.source == HeadlineSource::Frames { "" } else { "main thread " };
    if a.frames > 0 {
        if h.source != HeadlineSource::Frames {
            out.push(field("main thread doFrames", fmt_count(a.frames)));
            out.push(field("main thread fps (paced)", fmt_fps(a.fps)));
            out.push(field("main thread dropped frames", fmt_count(a.dropped_frames)));
        }
        out.extend([
            field(&format!("{main}fps_wall"), fmt_fps(a.fps_wall)),
            field(&format!("{main}frame interval"), fmt_ms(a.frame_interval_ns)),
            field(&format!("{main}wall time"), fmt_duration(a.wall_end_ts - a.first_ts)),
            field(&format!("{main}vsync time used (Σ (d+1)·I)"), fmt_duration(a.paced_ns)),
        ]);
    }
    out.push(field("scenes", fmt_count(a.scenes.len() as i64)));
    out
}

/// The headline series' drop levels.
fn level_rows(a: &AppSummary) -> Vec<LevelRow> {
    let h = &a.headline;
    let counts = h.drop_level.values();
    let sums = h.drop_sum.values();
    DropLevel::ALL
        .iter()
        .enumerate()
        .map(|(k, &level)| LevelRow {
            name: level.to_string(),
            class: level_class(level),
            frames: fmt_count(counts[k]),
            share: fmt_share(counts[k], h.frames),
            dropped: fmt_count(sums[k]),
        })
        .collect()
}

/// The `all` row under the levels.
fn levels_total(a: &AppSummary) -> LevelRow {
    let h = &a.headline;
    LevelRow {
        name: "all".into(),
        class: String::new(),
        frames: fmt_count(h.frames),
        share: fmt_share(h.frames, h.frames),
        dropped: fmt_count(h.drop_sum.values().iter().sum()),
    }
}

fn percentile_row(metric: &str, p: &Percentiles) -> PercentileRow {
    PercentileRow {
        metric: metric.into(),
        values: [p.p50, p.p90, p.p95, p.p99, p.max].into_iter().map(fmt_opt_ms).collect(),
    }
}

fn percentile_rows(a: &AppSummary) -> Vec<PercentileRow> {
    let mut rows = Vec::new();
    if a.headline.source == HeadlineSource::Presents {
        rows.push(percentile_row(
            &format!("present frame time, idle spans left out ({})", layer_label(&a.headline)),
            &a.headline.frame_time_ns,
        ));
    }
    if a.frames > 0 {
        rows.extend([
            percentile_row("frame cost (vsync → doFrame end)", &a.frame_cost_ns),
            percentile_row("doFrame duration", &a.do_frame_dur),
            percentile_row("FrameTimeline overrun", &a.overrun_ns),
        ]);
    }
    rows
}

fn scene_rows(a: &AppSummary) -> Vec<SceneRow> {
    a.scenes.iter().map(scene_row).collect()
}

fn scene_row(s: &crate::metrics::SceneSummary) -> SceneRow {
    SceneRow {
        scene: s.scene.clone(),
        frames: fmt_count(s.frames),
        fps: fmt_fps(s.fps),
        refresh: fmt_hz(s.refresh_hz),
        dropped: fmt_count(s.dropped_frames),
        levels: s.drop_level.values().iter().map(|v| fmt_count(*v)).collect(),
        p90: fmt_opt_ms(s.frame_cost_p90),
    }
}

fn cuj_rows(a: &AppSummary) -> Vec<CujRow> {
    a.cujs
        .iter()
        .map(|c| CujRow {
            cuj: c.cuj.clone(),
            runs: format!("{} ({} completed, {} canceled)", c.instances, c.completed, c.canceled),
            time: fmt_ms(c.dur_ns),
            missed: match (c.timeline_frames, c.missed_app_frames, c.missed_sf_frames) {
                (Some(n), Some(app), Some(sf)) => format!("app {app} · SF {sf} of {n}"),
                _ => NONE.to_string(),
            },
            frames: c.frames.as_ref().map(scene_row),
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Jank vocabularies

fn vocabularies(a: &AppSummary) -> Vec<Vocabulary> {
    let v = |name: &str, fields: Vec<Field>, formula: &str| Vocabulary {
        name: name.into(),
        fields,
        formula: formula.into(),
    };
    vec![
        v(
            "Perfetto",
            perfetto_fields(a),
            "android.frames.per_frame_metrics: was_jank, was_slow_frame, was_big_jank, was_huge_jank",
        ),
        v(
            "FrameTimeline",
            frame_timeline_fields(a),
            "SurfaceFlinger's jank type, tag and severity of every actual surface frame of the app's layers, as trace_processor's actual_frame_timeline_slice; a frame with two types counts for each; janky: a tag other than No Jank, Unspecified, Non-perceivable Jank",
        ),
        v(
            "Android vitals",
            vitals_fields(a),
            match a.headline.source {
                HeadlineSource::Frames => "slow: frame cost > 16 ms scaled to the interval (cost·25 > I·24); frozen: > 700 ms",
                HeadlineSource::Presents => "on the headline's presents: slow: ≥ 1 vsync dropped against its deadline; frozen: frame time > 700 ms",
            },
        ),
        v(
            "PerfDog",
            perfdog_fields(a),
            &format!(
                "Jank: frame time > 2× the mean of the previous 3 and > 83.33 ms; BigJank: > 125 ms; Stutter = jank time / total; on {}",
                match &a.jank.perfdog_layer {
                    Some(l) => format!("the presents of {}", shorten_middle(l, 60)),
                    None => "the doFrames (no layer of the app presented)".to_string(),
                }
            ),
        ),
        v(
            "Choreographer",
            choreographer_fields(a),
            "frames whose start jitter skipped ≥ 30 frames (Choreographer logs “Skipped N frames!”)",
        ),
    ]
}

fn perfetto_fields(a: &AppSummary) -> Vec<Field> {
    let p = &a.jank.perfetto;
    if a.frames == 0 {
        return vec![field("frames with data", "0 (Perfetto's columns are doFrames'; the app has none)")];
    }
    if p.frames_with_data == 0 {
        return vec![field("frames with data", "0 (needs FrameTimeline)")];
    }
    vec![
        field("jank", fmt_count(p.jank)),
        field("slow", fmt_count(p.slow)),
        field("big jank", fmt_count(p.big_jank)),
        field("huge jank", fmt_count(p.huge_jank)),
        field("frames with data", fmt_count(p.frames_with_data)),
    ]
}

fn frame_timeline_fields(a: &AppSummary) -> Vec<Field> {
    let j = &a.jank;
    if j.frame_timeline_frames == 0 {
        return vec![field("actual frames", "0 (needs FrameTimeline)")];
    }
    let mut out = vec![
        field("actual frames", fmt_count(j.frame_timeline_frames)),
        field("janky", fmt_count(j.frame_timeline_janky)),
    ];
    out.extend(j.frame_timeline.iter().map(|(k, v)| field(k, fmt_count(*v))));
    out.push(field("tags", fmt_pairs(&j.frame_timeline_tags)));
    out.push(field("severity", fmt_pairs(&j.frame_timeline_severity)));
    out
}

/// Where no doFrame of the app dropped a frame: what that says, and what
/// its presents and FrameTimeline say beside it.
fn no_worst(a: &AppSummary) -> String {
    let mut out = if a.frames == 0 {
        "No doFrames to list: the app is judged by its layer's presents.".to_string()
    } else {
        "No doFrame dropped a frame.".to_string()
    };
    let h = &a.headline;
    if h.source == HeadlineSource::Presents {
        out.push_str(&format!(
            " Its {} presents dropped {} vsyncs against their deadlines (drop levels above).",
            fmt_count(h.frames),
            fmt_count(h.dropped)
        ));
    }
    if let Some(t) = fmt_timeline_janky(&a.jank) {
        out.push_str(&format!(" FrameTimeline: {t} (its vocabulary above)."));
    }
    out
}

fn vitals_fields(a: &AppSummary) -> Vec<Field> {
    let v = &a.jank.vitals;
    vec![
        field("slow", format!("{} ({})", fmt_count(v.slow), fmt_pct(v.slow_pct))),
        field("frozen", format!("{} ({})", fmt_count(v.frozen), fmt_small_pct(v.frozen_pct))),
        field("excessive", vitals_excessive(v).unwrap_or("no")),
    ]
}

fn perfdog_fields(a: &AppSummary) -> Vec<Field> {
    let d = &a.jank.perfdog;
    vec![
        field("Jank", fmt_count(d.jank)),
        field("BigJank", fmt_count(d.big_jank)),
        field("Stutter", fmt_small_pct(100.0 * d.stutter)),
        field("jank time", fmt_ms(d.jank_time_ns)),
    ]
}

fn choreographer_fields(a: &AppSummary) -> Vec<Field> {
    let c = &a.jank.choreographer;
    vec![
        field("“Skipped N frames” events", fmt_count(c.skipped_frame_events)),
        field("frames skipped in them", fmt_count(c.skipped_frames)),
        field("most skipped at once", fmt_count(c.max_skipped_frames)),
    ]
}

// ---------------------------------------------------------------------------
// Worst frames

/// The worst frames' rows; those a data loss touches (`rows`' `data_loss`)
/// are greyed on the page, those in `with_lanes` link to the frame timeline.
fn worst_rows(
    a: &AppSummary,
    rows: &[crate::frames::FrameRow],
    with_lanes: &foldhash::HashSet<usize>,
    origin_ts: i64,
) -> Vec<WorstRow> {
    let lost = |w: &WorstFrame| rows.get(w.frame_index).is_some_and(|r| r.data_loss);
    a.worst_frames
        .iter()
        .enumerate()
        .map(|(k, w)| WorstRow {
            data_loss: lost(w),
            timeline: with_lanes.contains(&w.frame_index).then_some(w.frame_index),
            ..worst_row(k + 1, w, origin_ts)
        })
        .collect()
}

fn worst_row(rank: usize, w: &WorstFrame, origin_ts: i64) -> WorstRow {
    let why = w.why.as_ref();
    let or_none = |s: Option<String>| s.unwrap_or_else(|| NONE.into());
    WorstRow {
        rank,
        at: format!("{:.3} s", secs_since(w.ts, origin_ts)),
        frame_id: or_none(w.frame_id.map(|v| v.to_string())),
        scene: or_none(w.scene.clone()),
        cost: fmt_ms(w.frame_cost_ns),
        dropped: fmt_count(w.dropped_frames),
        level: w.drop_level.to_string(),
        level_class: level_class(w.drop_level),
        phase: or_none(why.map(|y| format!("{} {}", part_words(y.dominant_phase), fmt_ms(y.dominant_phase_ns)))),
        longest: or_none(why.and_then(longest_slice)),
        chain: why.map(|y| y.chain.clone()).unwrap_or_default(),
        thread_state: or_none(why.and_then(thread_state)),
        blockers: or_none(why.map(blockers).filter(|s| !s.is_empty())),
        jank_type: or_none(w.jank_type.clone()),
        data_loss: false,
        timeline: None,
    }
}

/// `inflate (12.3 ms)`.
fn longest_slice(y: &FrameWhy) -> Option<String> {
    let name = y.longest_slice.clone()?;
    Some(match y.longest_slice_ns {
        Some(ns) => format!("{name} ({})", fmt_ms(ns)),
        None => name,
    })
}

/// `Running 20.0 ms · Runnable 5.0 ms · Sleeping 30.0 ms · Blocked 4.0 ms`.
fn thread_state(y: &FrameWhy) -> Option<String> {
    let t = y.thread_state.as_ref()?;
    Some(format!(
        "Running {} · Runnable {} · Sleeping {} · Blocked {}",
        fmt_ms(t.running_ns),
        fmt_ms(t.runnable_ns),
        fmt_ms(t.sleeping_ns),
        fmt_ms(t.blocked_ns)
    ))
}

/// `GC (9.0 ms); binder (6.2 ms of 38.7 ms)`: how long each slice delayed
/// the start, and the whole slice when it began before the vsync; empty
/// without blockers.
fn blockers(y: &FrameWhy) -> String {
    y.blockers.iter().map(|b| format!("{} ({})", b.name, delay_of(b))).collect::<Vec<_>>().join("; ")
}

/// `6.2 ms of 38.7 ms` for a slice that began before the vsync, else `9.0 ms`.
fn delay_of(b: &crate::frames::Blocker) -> String {
    if b.delay_ns < b.dur {
        format!("{} of {}", fmt_ms(b.delay_ns), fmt_ms(b.dur))
    } else {
        fmt_ms(b.delay_ns)
    }
}

// ---------------------------------------------------------------------------
// Data quality and charts

fn quality(a: &AppSummary) -> Vec<Field> {
    let q = &a.quality;
    let with_share = |n: i64| format!("{} ({})", fmt_count(n), fmt_share(n, a.frames));
    vec![
        field("vsync sources", fmt_pairs(q.vsync_sources.iter().map(|(k, v)| (k, fmt_count(*v))))),
        field("frames without RenderThread", with_share(q.without_render_thread)),
        field("frames without FrameTimeline", with_share(q.without_timeline)),
    ]
}

/// The app's frame charts; its layer-presents chart is in its Presents section.
fn app_charts(a: &AppSummary, charts: &[Chart]) -> Vec<super::view::ChartView> {
    charts
        .iter()
        .enumerate()
        .filter(|(_, c)| c.pid == Some(a.pid) && c.kind != charts::ChartKind::LayerPresents)
        .map(|(i, c)| super::chart_view(i, c))
        .collect()
}
