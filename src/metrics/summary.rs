//! Every app's summary, computed once in plain Rust from its frames and its
//! layers' presents (docs/metrics.md). The shared numbers (fps, drop
//! levels, percentiles, PerfDog) come from [`crate::series`], the one
//! definition `compare` evaluates too; the SQL in `queries/` computes the
//! same numbers as documented examples, and a test holds them equal.

use std::collections::{BTreeMap, HashMap};

use super::{
    fps_windows, green_alliance, AppQuality, AppSummary, Category, Choreographer, Headline, HeadlineSource, Jank,
    PerfettoJank, SceneSummary, Screen, Vitals, WorstFrame,
};
use crate::frames::{FrameAnalysis, FrameRow, FrameWhy, SchedIndex};
use crate::presents::{JudgedBy, LayerSummary, PresentAnalysis, PresentRow};
use crate::series::{self, Percentiles, PerfDog, SKIPPED_FRAME_WARNING_LIMIT};

/// A frame kept for the summaries: its whole-trace index, its row and its scene.
#[derive(Debug, Clone, Copy)]
pub struct Kept<'a> {
    pub index: usize,
    pub row: &'a FrameRow,
    pub scene: Option<&'a str>,
}

/// Summaries of every app that has frames in `kept` (frames of `analysis`)
/// or presents in `presents`: the app that reached the screen most first
/// (then most frames, then by pid), so apps that draw nothing come last.
pub fn summarize(
    kept: &[Kept],
    analysis: &FrameAnalysis,
    presents: &PresentAnalysis,
    category: Option<Category>,
    worst_frames: usize,
) -> Vec<AppSummary> {
    let mut by_pid: BTreeMap<i32, Vec<Kept>> = BTreeMap::new();
    for k in kept {
        by_pid.entry(k.row.pid).or_default().push(*k);
    }
    // Apps known only by what their layers presented (no doFrames).
    for l in &presents.layers {
        if let Some(pid) = l.pid {
            if presents.shown_layer(pid).is_some() {
                by_pid.entry(pid).or_default();
            }
        }
    }
    let why_of: HashMap<usize, &FrameWhy> = analysis.why.iter().map(|w| (w.frame_index, w)).collect();
    let mut apps: Vec<AppSummary> = by_pid
        .into_iter()
        .map(|(pid, mut frames)| {
            // Time order within the app (PerfDog's history, the wall windows).
            frames.sort_by_key(|k| (k.row.ts, k.index));
            app(pid, &frames, &why_of, presents, &analysis.sched, category, worst_frames)
        })
        .collect();
    apps.sort_by(|a, b| b.screen.reached.cmp(&a.screen.reached).then(b.frames.cmp(&a.frames)).then(a.pid.cmp(&b.pid)));
    apps
}

/// One app's summary from its frames (in time order) and its layers.
fn app(
    pid: i32,
    frames: &[Kept],
    why_of: &HashMap<usize, &FrameWhy>,
    presents: &PresentAnalysis,
    sched: &SchedIndex,
    category: Option<Category>,
    worst_frames: usize,
) -> AppSummary {
    let rows: Vec<&FrameRow> = frames.iter().map(|k| k.row).collect();
    let series: Vec<series::Frame> = rows.iter().map(|r| series::Frame::from_row(r, 0)).collect();
    let n = rows.len() as i64;
    let pacing = series::Pacing::of(&series);
    let (drop_level, drop_sum) = series::drop_levels(&series);
    let first_ts = rows.iter().map(|r| r.ts).min().unwrap_or(0);
    let wall_end_ts = rows.iter().map(|r| r.ts + r.frame_interval_ns).max().unwrap_or(0);
    let count = |p: &dyn Fn(&FrameRow) -> bool| rows.iter().filter(|r| p(r)).count() as i64;
    let layer = presents.shown_layer(pid);
    let renderer = presents.renderers.get(&pid);
    let fps_wall = series::fps_wall(n, wall_end_ts - first_ts);
    let judged = presents.judged_layer(pid, n > 0);
    // The headline's series: the judged layer's presents, else the doFrames.
    let layer_series: Option<Vec<series::Frame>> = judged.map(|(l, _)| presents_series(presents, l));
    let headline = headline(pid, &pacing, fps_wall, &series, judged, presents);
    let vitals = match &layer_series {
        // A present is slow when it missed its deadline's vsync: its frame
        // time is one vsync even when on time.
        Some(s) => vitals(
            s.iter().filter(|f| f.dropped >= 1).count() as i64,
            s.iter().filter(|f| f.cost_ns > 700_000_000).count() as i64,
            s.len() as i64,
        ),
        None => vitals(
            count(&|r| r.frame_cost_ns * 25 > r.frame_interval_ns * 24),
            count(&|r| r.frame_cost_ns > 700_000_000),
            n,
        ),
    };
    let screen = Screen::of(pid, &rows, presents, sched);
    let timeline = presents.timeline.get(&pid).cloned().unwrap_or_default();
    let mut windows: BTreeMap<i64, i64> = BTreeMap::new();
    for r in &rows {
        *windows.entry((r.ts - first_ts) / 1_000_000_000).or_default() += 1;
    }
    let windows: Vec<(i64, i64)> = windows.into_iter().collect();
    // The trace's name for the process (its frames', else its layer's),
    // else the package its layers name.
    let trace_name = rows
        .iter()
        .filter_map(|r| r.process.as_deref())
        .max()
        .or_else(|| layer.and_then(|l| l.process.as_deref()).filter(|_| presents.names.get(pid).is_none()));
    let named = presents.names.resolve(trace_name, pid);
    AppSummary {
        pid,
        process: named.map(|(n, _)| n.to_string()),
        process_source: named.map(|(_, source)| source),
        frames: n,
        fps: pacing.fps(),
        fps_wall,
        refresh_hz: pacing.refresh_hz,
        drop_level,
        drop_sum,
        dropped_frames: rows.iter().map(|r| r.dropped_frames).sum(),
        frame_interval_ns: rows.iter().map(|r| r.frame_interval_ns).min().unwrap_or(0),
        paced_ns: pacing.paced_ns,
        first_ts,
        wall_end_ts,
        frame_cost_ns: Percentiles::of(rows.iter().map(|r| r.frame_cost_ns).collect()),
        do_frame_dur: Percentiles::of(rows.iter().map(|r| r.do_frame_dur).collect()),
        overrun_ns: Percentiles::of(rows.iter().filter_map(|r| r.overrun_ns).collect()),
        jank: Jank {
            perfetto: PerfettoJank {
                frames_with_data: count(&|r| r.perfetto_overrun_ns.is_some()),
                jank: count(&|r| r.was_jank == Some(true)),
                slow: count(&|r| r.was_slow_frame == Some(true)),
                big_jank: count(&|r| r.was_big_jank == Some(true)),
                huge_jank: count(&|r| r.was_huge_jank == Some(true)),
            },
            frame_timeline_frames: timeline.timeline_frames,
            frame_timeline_janky: timeline.timeline_janky,
            frame_timeline: timeline.jank_types,
            frame_timeline_tags: timeline.jank_tags,
            frame_timeline_severity: timeline.jank_severity,
            vitals,
            perfdog_layer: layer.map(|l| l.layer.clone()),
            perfdog: match layer {
                Some(l) => l.perfdog.clone(),
                None => do_frame_perfdog(&rows),
            },
            choreographer: Choreographer {
                skipped_frame_events: count(&|r| r.skipped_frames >= SKIPPED_FRAME_WARNING_LIMIT),
                skipped_frames: rows
                    .iter()
                    .filter(|r| r.skipped_frames >= SKIPPED_FRAME_WARNING_LIMIT)
                    .map(|r| r.skipped_frames)
                    .sum(),
                max_skipped_frames: rows.iter().map(|r| r.skipped_frames).max().unwrap_or(0),
            },
        },
        renderer: renderer.cloned(),
        green_alliance: green_alliance(category, renderer, headline.fps, headline.frames, &screen),
        screen,
        headline,
        fps_wall_timeline: fps_windows(first_ts, wall_end_ts, &windows),
        scenes: scenes(frames),
        cujs: Vec::new(),
        worst_frames: worst(frames, why_of, worst_frames),
        quality: AppQuality {
            vsync_sources: counts(rows.iter().map(|r| r.vsync_source.map_or("none", |v| v.as_str()))),
            without_render_thread: count(&|r| r.draw_frame_count == 0),
            without_timeline: count(&|r| r.actual_ts.is_none()),
        },
    }
}

/// Layer `l`'s presents with an interval as a series (its rows are one run
/// of `presents.rows`, which are ordered by pid).
fn presents_series(presents: &PresentAnalysis, l: &LayerSummary) -> Vec<series::Frame> {
    let from = presents.rows.partition_point(|r| r.pid < l.pid);
    presents.rows[from..]
        .iter()
        .take_while(|r| r.pid == l.pid)
        .filter(|r| r.source == l.source && r.layer == l.layer)
        .filter_map(PresentRow::series_frame)
        .collect()
}

/// The series an app is judged by and its numbers: the presents of its
/// visible layer when a renderer other than its views draws it (or when it
/// has no doFrames at all; `judged`), else its doFrames (docs/metrics.md, "Headline").
fn headline(
    pid: i32,
    pacing: &series::Pacing,
    fps_wall: f64,
    frames: &[series::Frame],
    judged: Option<(&LayerSummary, JudgedBy)>,
    presents: &PresentAnalysis,
) -> Headline {
    let renderer = presents.renderers.get(&pid);
    let on_presents = |l: &LayerSummary, reason: String| Headline {
        fps: l.fps,
        source: HeadlineSource::Presents,
        layer: Some(l.layer.clone()),
        reason,
        fps_wall: l.fps_wall,
        frames: l.drop_level.values().iter().sum(),
        dropped: l.dropped_vsyncs,
        idle: l.idle,
        refresh_hz: l.refresh_hz,
        drop_level: l.drop_level,
        drop_sum: l.drop_sum,
        frame_time_ns: l.frame_time_ns,
    };
    if let Some((l, why)) = judged {
        let reason = match renderer.filter(|_| why == JudgedBy::Renderer) {
            Some(r) => format!(
                "{r} draws the app's content: {} presents of {} ({}); its doFrames ({} fps) only measure the Java main thread",
                l.presents,
                l.layer,
                l.source.as_str(),
                super::format_fps(pacing.fps())
            ),
            None => format!(
                "no doFrames in the trace: the {} presents of its layer {} ({})",
                l.presents,
                l.layer,
                l.source.as_str()
            ),
        };
        return on_presents(l, reason);
    }
    let (drop_level, drop_sum) = series::drop_levels(frames);
    Headline {
        fps: pacing.fps(),
        source: HeadlineSource::Frames,
        layer: None,
        reason: match renderer {
            Some(r) if r.kind.draws_outside_views() => {
                format!("{r}, but no layer of its own with presents was found: its doFrames")
            }
            _ => "its views draw its content: its doFrames".to_string(),
        },
        fps_wall,
        frames: frames.len() as i64,
        dropped: frames.iter().map(|f| f.dropped).sum(),
        idle: Default::default(),
        refresh_hz: pacing.refresh_hz,
        drop_level,
        drop_sum,
        frame_time_ns: Percentiles::of(frames.iter().map(|f| f.cost_ns).collect()),
    }
}

/// Occurrences per name.
fn counts<'a>(names: impl Iterator<Item = &'a str>) -> BTreeMap<String, i64> {
    let mut m = BTreeMap::new();
    for n in names {
        *m.entry(n.to_string()).or_default() += 1;
    }
    m
}

/// Android vitals from the slow and frozen counts of `frames` frames.
fn vitals(slow: i64, frozen: i64, frames: i64) -> Vitals {
    let pct_of = |n: i64| if frames > 0 { 100.0 * n as f64 / frames as f64 } else { 0.0 };
    Vitals {
        slow,
        frozen,
        slow_pct: pct_of(slow),
        frozen_pct: pct_of(frozen),
        excessive_slow: pct_of(slow) > 50.0,
        excessive_frozen: pct_of(frozen) > 0.1,
    }
}

/// PerfDog on doFrames, for an app without a layer that presented: each
/// frame's time from the later of the previous frame's present and its own
/// vsync to its present (FrameTimeline's actual end, else RenderThread's
/// end, else the doFrame's), so idle time between requested frames is not
/// a frame time (queries/perfdog.sql is the same in SQL).
fn do_frame_perfdog(rows: &[&FrameRow]) -> PerfDog {
    let mut times = Vec::with_capacity(rows.len());
    let mut previous: Option<i64> = None;
    for r in rows {
        let present = r
            .actual_end
            .or(r.draw_frame_ts.zip(r.draw_frame_dur).map(|(ts, dur)| ts + dur))
            .unwrap_or(r.ts + r.do_frame_dur);
        let start = r.vsync_ts.unwrap_or(r.ts);
        let from = previous.map_or(start, |p| p.max(start));
        times.push((present - from).max(0));
        previous = Some(present);
    }
    series::perfdog(&times).0
}

/// The scenes of an app's frames (time order), first seen first, each with
/// the same fps and drop-level definitions as the app.
pub(crate) fn scenes(frames: &[Kept]) -> Vec<SceneSummary> {
    let mut order: Vec<&str> = Vec::new();
    let mut groups: HashMap<&str, Vec<&FrameRow>> = HashMap::new();
    for k in frames {
        let name = k.scene.unwrap_or("(unknown)");
        groups
            .entry(name)
            .or_insert_with(|| {
                order.push(name);
                Vec::new()
            })
            .push(k.row);
    }
    order.iter().map(|name| scene(name, &groups[name])).collect()
}

/// One scene's summary over its frames.
pub(crate) fn scene(name: &str, rows: &[&FrameRow]) -> SceneSummary {
    let series: Vec<series::Frame> = rows.iter().map(|r| series::Frame::from_row(r, 0)).collect();
    let (drop_level, drop_sum) = series::drop_levels(&series);
    let pacing = series::Pacing::of(&series);
    SceneSummary {
        scene: name.to_string(),
        frames: rows.len() as i64,
        first_ts: rows.iter().map(|r| r.ts).min().unwrap_or(0),
        fps: pacing.fps(),
        refresh_hz: pacing.refresh_hz,
        dropped_frames: rows.iter().map(|r| r.dropped_frames).sum(),
        drop_level,
        drop_sum,
        frame_cost_p90: Percentiles::of(rows.iter().map(|r| r.frame_cost_ns).collect()).p90,
    }
}

/// The app's `limit` frames that dropped at least one frame, worst first
/// (then earliest), with why they were late.
fn worst(frames: &[Kept], why_of: &HashMap<usize, &FrameWhy>, limit: usize) -> Vec<WorstFrame> {
    let mut janky: Vec<&Kept> = frames.iter().filter(|k| k.row.dropped_frames >= 1).collect();
    janky.sort_by(|a, b| b.row.frame_cost_ns.cmp(&a.row.frame_cost_ns).then(a.row.ts.cmp(&b.row.ts)));
    janky
        .into_iter()
        .take(limit)
        .map(|k| WorstFrame {
            frame_index: k.index,
            ts: k.row.ts,
            frame_id: k.row.frame_id,
            scene: k.scene.map(str::to_string),
            frame_cost_ns: k.row.frame_cost_ns,
            dropped_frames: k.row.dropped_frames,
            drop_level: k.row.drop_level,
            do_frame_dur: k.row.do_frame_dur,
            jank_type: k.row.jank_type.clone(),
            why: why_of.get(&k.index).map(|w| (*w).clone()),
        })
        .collect()
}
