//! Per-app summaries. This module owns the summary types ([`AppSummary`] and
//! its parts, as docs/metrics.md defines them: "Per-app summary" and the
//! sections after it), the options that shape them ([`AppFilter`],
//! [`Category`], [`MetricsOptions`]), and the entry points: [`kept_frames`]
//! (the frames an `--app` keeps and their scenes, from `scene`; the
//! frames table is `crate::tables::frames` of them) and [`summarize`] (`summary`: plain Rust over the rows, its shared numbers from
//! [`crate::series`]). The SQL in `queries/` ([`sql`]) computes the same
//! numbers as documented, tested examples.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::frames::{DropLevel, FrameAnalysis, FrameRow, FrameWhy};
use crate::model::Trace;
pub use crate::presents::{IdleSpans, Levels, Percentiles, PerfDog};
use crate::presents::{LayerNames, NameSource, PresentAnalysis, Renderer, RendererKind};
pub use cuj::{attach as attach_cujs, CujSummary};
pub use screen::{drew, CpuTimeSource, Screen, Verdict, MIN_VERDICT_FRAMES};

mod cuj;
mod scene;
mod screen;
pub mod sql;
#[cfg(test)]
mod sql_examples;
mod summary;

/// App category for the Green Alliance verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// An ordinary app.
    #[default]
    App,
    Game,
    Map,
    Video,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Category::App => "app",
            Category::Game => "game",
            Category::Map => "map",
            Category::Video => "video",
        }
    }

    /// Green Alliance minimum average FPS: 55 for ordinary apps, 25 for games,
    /// maps and video.
    pub(crate) fn green_alliance_min_fps(self) -> f64 {
        match self {
            Category::App => 55.0,
            Category::Game | Category::Map | Category::Video => 25.0,
        }
    }

    /// The category an app's renderer shows, and why: a game engine or a
    /// SurfaceView drawn with GL / Vulkan is a game, a video decoder video;
    /// anything else an ordinary app (maps cannot be told: `--category map`).
    pub fn detect(renderer: Option<&Renderer>) -> (Category, String) {
        match renderer {
            Some(r) if r.kind == RendererKind::SurfaceView => {
                (Category::Game, format!("renderer {r} ({}): games, maps and video need ≥ 25 fps", r.evidence))
            }
            Some(r) if r.kind == RendererKind::Video => {
                (Category::Video, format!("renderer {r} ({}): games, maps and video need ≥ 25 fps", r.evidence))
            }
            Some(r) => (Category::App, format!("renderer {r}: ordinary apps need ≥ 55 fps")),
            None => (Category::App, "no renderer detected: ordinary apps need ≥ 55 fps".to_string()),
        }
    }
}

#[derive(Debug, Clone)]
pub struct MetricsOptions {
    /// `--category`; `None`: detected from each app's renderer.
    pub category: Option<Category>,
    /// Janky frames listed per app under "why".
    pub worst_frames: usize,
}

impl Default for MetricsOptions {
    fn default() -> Self {
        MetricsOptions { category: None, worst_frames: 10 }
    }
}

/// Which apps to analyse (`--app` / `--pid`). A package matches the app's
/// name: the trace's name for its process, else the package its layers
/// name (`presents::LayerNames`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppFilter {
    All,
    /// Exact process name, `PKG:sub` processes, or the kernel comm of a long
    /// package name (its last 15 characters).
    Package(String),
    Pid(i32),
}

impl std::fmt::Display for AppFilter {
    /// What the filter asks for, as the "no frames for …" error names it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppFilter::Package(p) => write!(f, "app {p}"),
            AppFilter::Pid(p) => write!(f, "pid {p}"),
            AppFilter::All => f.write_str("any app"),
        }
    }
}

impl AppFilter {
    pub fn matches(&self, process: Option<&str>, pid: i32) -> bool {
        match self {
            AppFilter::All => true,
            AppFilter::Pid(p) => *p == pid,
            AppFilter::Package(pkg) => process.is_some_and(|name| package_matches(name, pkg)),
        }
    }
}

/// `--app` matching: `name == pkg`, `name` starts with `pkg:`, or `name` is
/// the 15-character comm the kernel keeps for a longer package name.
fn package_matches(name: &str, pkg: &str) -> bool {
    if name == pkg || name.strip_prefix(pkg).is_some_and(|rest| rest.starts_with(':')) {
        return true;
    }
    let comm = crate::model::package_comm(pkg);
    comm.len() < pkg.len() && name == comm
}

/// One 1 s window of wall time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FpsWindow {
    pub start_ts: i64,
    /// Window length in seconds (1, except the last window, cut at the wall end).
    pub seconds: f64,
    pub frames: i64,
    pub fps: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PerfettoJank {
    /// Frames that have Perfetto's per-frame metrics (a FrameTimeline match).
    pub frames_with_data: i64,
    pub jank: i64,
    pub slow: i64,
    pub big_jank: i64,
    pub huge_jank: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Vitals {
    /// frame_cost_ns > 0.96·I (16 ms at 60 Hz, scaled to the frame interval).
    pub slow: i64,
    /// frame_cost_ns > 700 ms.
    pub frozen: i64,
    pub slow_pct: f64,
    pub frozen_pct: f64,
    /// Play Console's bad-behaviour thresholds: > 50 % slow, > 0.1 % frozen.
    pub excessive_slow: bool,
    pub excessive_frozen: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Choreographer {
    /// Frames with skipped_frames ≥ 30 (Choreographer logs "Skipped N frames!").
    pub skipped_frame_events: i64,
    /// Σ skipped_frames over those events.
    pub skipped_frames: i64,
    pub max_skipped_frames: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GreenAlliance {
    pub category: Category,
    /// `given` (`--category`) or `detected` (from the renderer).
    pub category_source: CategorySource,
    /// Why this threshold applies.
    pub reason: String,
    pub min_fps: f64,
    /// The headline fps.
    pub fps: f64,
    /// The fewest frames of the headline series a verdict needs.
    pub min_frames: i64,
    /// Pass or fail, or none: too few frames, or nothing reached the screen.
    pub verdict: Verdict,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CategorySource {
    Given,
    Detected,
}

/// Where an app's headline fps comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HeadlineSource {
    /// Its doFrame frames (`fps`).
    Frames,
    /// The presents of the layer that shows its content.
    Presents,
}

impl HeadlineSource {
    /// Its JSON and table spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            HeadlineSource::Frames => "frames",
            HeadlineSource::Presents => "presents",
        }
    }
}

/// What the user saw, the numbers every output shows first: the series an
/// app is judged by (its doFrames, or its visible layer's presents), where it
/// came from, and its fps, drops and frame times (docs/metrics.md, "Headline").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Headline {
    pub fps: f64,
    pub source: HeadlineSource,
    /// The layer, when `source` is `presents`.
    pub layer: Option<String>,
    pub reason: String,
    /// Frames per second of wall time: the app's `fps_wall` (doFrames), or
    /// the layer's presents over the time from its first to its last.
    pub fps_wall: f64,
    /// The frames of the series: doFrames, or presents with an interval.
    pub frames: i64,
    /// Dropped frames (doFrames) or dropped vsyncs against each present's
    /// deadline (presents).
    pub dropped: i64,
    /// Presents: the spans in which the app asked for no frame (none for doFrames,
    /// each of which is a request).
    pub idle: IdleSpans,
    /// The highest refresh rate over the series.
    pub refresh_hz: f64,
    pub drop_level: Levels,
    pub drop_sum: Levels,
    /// Frame cost (doFrames) or frame time (presents: the interval less its idle span).
    pub frame_time_ns: Percentiles,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Jank {
    pub perfetto: PerfettoJank,
    /// FrameTimeline's verdict over the app's actual surface frames (all its
    /// layers, as trace_processor's `actual_frame_timeline_slice` has them),
    /// whether the app is judged by doFrames or presents: the frames, …
    pub frame_timeline_frames: i64,
    /// … the janky ones (a jank tag other than No Jank, Unspecified and
    /// Non-perceivable Jank), …
    pub frame_timeline_janky: i64,
    /// … jank type → frames ("A, B" counts for A and for B), …
    pub frame_timeline: BTreeMap<String, i64>,
    /// … Perfetto's jank tag → frames (`Self Jank` is the app's own jank;
    /// buffer stuffing, SurfaceFlinger's jank and display-off frames are not) …
    pub frame_timeline_tags: BTreeMap<String, i64>,
    /// … and jank severity (None, Partial, Full, Unknown) → frames.
    pub frame_timeline_severity: BTreeMap<String, i64>,
    pub vitals: Vitals,
    /// PerfDog's vocabulary over the presents of [`Jank::perfdog_layer`],
    /// the layer that shows the app; over its doFrames when it has none.
    pub perfdog: PerfDog,
    pub perfdog_layer: Option<String>,
    pub choreographer: Choreographer,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SceneSummary {
    pub scene: String,
    pub frames: i64,
    pub first_ts: i64,
    pub fps: f64,
    pub refresh_hz: f64,
    pub dropped_frames: i64,
    pub drop_level: Levels,
    pub drop_sum: Levels,
    pub frame_cost_p90: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorstFrame {
    /// Index in the whole-trace frames table.
    pub frame_index: usize,
    pub ts: i64,
    pub frame_id: Option<i64>,
    pub scene: Option<String>,
    pub frame_cost_ns: i64,
    pub dropped_frames: i64,
    pub drop_level: DropLevel,
    pub do_frame_dur: i64,
    pub jank_type: Option<String>,
    pub why: Option<FrameWhy>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AppQuality {
    /// Frames per vsync source (`none` when there was no vsync).
    pub vsync_sources: BTreeMap<String, i64>,
    pub without_render_thread: i64,
    pub without_timeline: i64,
}

/// The per-app summary (docs/metrics.md, "Per-app summary"). The first fields are the fixed JSON keys.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AppSummary {
    pub pid: i32,
    /// The trace's name for the process, else the package its layers name
    /// (docs/presents.md, "Apps named by their layers").
    pub process: Option<String>,
    /// Where `process` was read: `process` or `layer`; null without a name.
    pub process_source: Option<NameSource>,
    pub frames: i64,
    pub fps: f64,
    pub fps_wall: f64,
    pub refresh_hz: f64,
    pub drop_level: Levels,
    pub drop_sum: Levels,
    pub dropped_frames: i64,
    /// Smallest frame interval the app ran at.
    pub frame_interval_ns: i64,
    /// Σ (dropped_frames + 1)·I: the vsync time the frames took.
    pub paced_ns: i64,
    pub first_ts: i64,
    /// max(ts + I): where the app's wall time ends.
    pub wall_end_ts: i64,
    pub frame_cost_ns: Percentiles,
    pub do_frame_dur: Percentiles,
    pub overrun_ns: Percentiles,
    pub jank: Jank,
    /// What draws the app (docs/presents.md, "Renderer").
    pub renderer: Option<Renderer>,
    /// What of the app reached the screen: the apps' order, and whether it
    /// gets a verdict (docs/metrics.md, "What reached the screen").
    pub screen: Screen,
    /// The fps of what the user saw: `fps`, or the presents of the app's
    /// SurfaceView layer when its content is not drawn by its views.
    pub headline: Headline,
    pub green_alliance: GreenAlliance,
    pub fps_wall_timeline: Vec<FpsWindow>,
    pub scenes: Vec<SceneSummary>,
    /// The app's jank CUJs by name (docs/metrics.md, "Jank CUJs").
    pub cujs: Vec<CujSummary>,
    pub worst_frames: Vec<WorstFrame>,
    pub quality: AppQuality,
}

fn format_fps(fps: f64) -> String {
    format!("{fps:.1}")
}

/// Green Alliance verdict: the app's headline fps against the category's
/// minimum (≥ 55, or ≥ 25 for games, maps and video), when its headline
/// series has `frames` frames and something of it reached the screen
/// ([`Verdict::of`]).
fn green_alliance(
    given: Option<Category>,
    renderer: Option<&Renderer>,
    fps: f64,
    frames: i64,
    screen: &Screen,
) -> GreenAlliance {
    let (category, category_source, reason) = match given {
        Some(c) => (c, CategorySource::Given, "--category".to_string()),
        None => {
            let (c, why) = Category::detect(renderer);
            (c, CategorySource::Detected, why)
        }
    };
    let min_fps = category.green_alliance_min_fps();
    let verdict = Verdict::of(screen, frames, fps, min_fps);
    GreenAlliance { category, category_source, reason, min_fps, fps, min_frames: MIN_VERDICT_FRAMES, verdict }
}

/// The frames of `analysis` that `filter` keeps (an app the trace does not
/// name is matched by the package its layers name, `names`): their
/// whole-trace indices and their scenes.
pub fn kept_frames(
    trace: &Trace,
    analysis: &FrameAnalysis,
    filter: &AppFilter,
    names: &LayerNames,
) -> (Vec<usize>, Vec<Option<String>>) {
    let (indices, rows): (Vec<usize>, Vec<&FrameRow>) = analysis
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| filter.matches(names.name(r.process.as_deref(), r.pid), r.pid))
        .unzip();
    let scenes = scene::assign(trace, &rows);
    (indices, scenes)
}

/// Summaries of every app with kept frames (see [`kept_frames`]) or with
/// presents in `presents`, the app that reached the screen most first
/// ([`Screen::reached`]; apps that draw nothing last).
pub fn summarize(
    analysis: &FrameAnalysis,
    indices: &[usize],
    scenes: &[Option<String>],
    presents: &PresentAnalysis,
    opts: &MetricsOptions,
) -> Vec<AppSummary> {
    let kept: Vec<summary::Kept> = indices
        .iter()
        .zip(scenes)
        .map(|(&index, scene)| summary::Kept { index, row: &analysis.rows[index], scene: scene.as_deref() })
        .collect();
    summary::summarize(&kept, analysis, presents, opts.category, opts.worst_frames)
}

/// The scene of every frame of `analysis`, by row (`None`: none could be
/// told; docs/metrics.md). The frames table's `scene` column holds the same.
pub fn frame_scenes(trace: &Trace, analysis: &FrameAnalysis) -> Vec<Option<String>> {
    let rows: Vec<&FrameRow> = analysis.rows.iter().collect();
    scene::assign(trace, &rows)
}

/// The 1 s wall-time windows of one app: window k covers
/// [first_ts + k·1 s, first_ts + (k+1)·1 s) cut at `wall_end_ts`; `counts`
/// holds (window, frames) of the windows that have frames.
pub(crate) fn fps_windows(first_ts: i64, wall_end_ts: i64, counts: &[(i64, i64)]) -> Vec<FpsWindow> {
    const SEC: i64 = 1_000_000_000;
    let span = (wall_end_ts - first_ts).max(0);
    let n = (span + SEC - 1) / SEC;
    let count: HashMap<i64, i64> = counts.iter().copied().collect();
    (0..n)
        .map(|k| {
            let start = first_ts + k * SEC;
            let end = (start + SEC).min(wall_end_ts);
            let frames = count.get(&k).copied().unwrap_or(0);
            let fps = crate::series::fps_wall(frames, end - start);
            FpsWindow { start_ts: start, seconds: (end - start) as f64 / 1e9, frames, fps }
        })
        .collect()
}

#[cfg(test)]
mod tests;
