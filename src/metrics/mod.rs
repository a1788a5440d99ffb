//! Per-app summaries of the frames table, computed with polars. This module
//! owns the summary types ([`AppSummary`] and its parts, as docs/metrics.md
//! defines them: "Per-app summary" and the sections after it), the options
//! that shape them ([`AppFilter`], [`Category`], [`MetricsOptions`]), and the
//! two entry points: [`frames_table`] (the frames as a `DataFrame`, built in
//! `table`, scenes from `scene`) and [`summarize`], which runs the SQL in
//! `queries/` over it ([`sql`]) and reads each query's result rows into those
//! types, one reader per query.

use std::collections::{BTreeMap, HashMap};

use polars::prelude::{DataFrame, PolarsError, PolarsResult};
use serde::Serialize;

use crate::frames::{DropLevel, FrameAnalysis, FrameRow, FrameWhy};
use crate::model::Trace;
pub use crate::presents::{Levels, Percentiles, PerfDog};
use crate::presents::{PresentAnalysis, PresentRow, Renderer, RendererKind};
pub use cuj::{attach as attach_cujs, CujSummary};

mod cuj;
mod scene;
pub mod sql;
pub(crate) mod table;

#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("summary query failed: {0}")]
    Polars(#[from] PolarsError),
}

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

/// Which apps to analyse (`--app` / `--pid`).
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
    pub pass: bool,
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

/// The fps that measures what the user saw, and where it came from
/// (docs/metrics.md, "Headline").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Headline {
    pub fps: f64,
    pub source: HeadlineSource,
    /// The layer, when `source` is `presents`.
    pub layer: Option<String>,
    pub reason: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Jank {
    pub perfetto: PerfettoJank,
    /// FrameTimeline jank type → frames ("A, B" counts for A and for B).
    pub frame_timeline: BTreeMap<String, i64>,
    /// Perfetto's jank tag → frames: `Self Jank` is the app's own jank;
    /// buffer stuffing, SurfaceFlinger's jank and display-off frames are not.
    pub frame_timeline_tags: BTreeMap<String, i64>,
    /// FrameTimeline's jank severity (None, Partial, Full, Unknown) → frames.
    pub frame_timeline_severity: BTreeMap<String, i64>,
    pub vitals: Vitals,
    pub perfdog: PerfDog,
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
    pub process: Option<String>,
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

/// The headline of an app whose doFrames give `fps`: the presents of its
/// visible layer when a renderer other than its views draws it.
fn headline(pid: i32, fps: f64, presents: &PresentAnalysis) -> Headline {
    let renderer = presents.renderers.get(&pid);
    match (renderer, presents.visible_layer(pid)) {
        (Some(r), Some(l)) => Headline {
            fps: l.fps,
            source: HeadlineSource::Presents,
            layer: Some(l.layer.clone()),
            reason: format!(
                "{r} draws the app's content: {} presents of {} ({}); its doFrames ({} fps) only measure the Java main thread",
                l.presents,
                l.layer,
                l.source.as_str(),
                format_fps(fps)
            ),
        },
        _ => Headline {
            fps,
            source: HeadlineSource::Frames,
            layer: None,
            reason: match renderer {
                Some(r) if r.kind.draws_outside_views() => {
                    format!("{r}, but no layer of its own with presents was found: its doFrames")
                }
                _ => "its views draw its content: its doFrames".to_string(),
            },
        },
    }
}

fn format_fps(fps: f64) -> String {
    format!("{fps:.1}")
}

/// Green Alliance verdict: the app's headline fps against the category's
/// minimum (≥ 55, or ≥ 25 for games, maps and video).
fn green_alliance(given: Option<Category>, renderer: Option<&Renderer>, fps: f64) -> GreenAlliance {
    let (category, category_source, reason) = match given {
        Some(c) => (c, CategorySource::Given, "--category".to_string()),
        None => {
            let (c, why) = Category::detect(renderer);
            (c, CategorySource::Detected, why)
        }
    };
    let min_fps = category.green_alliance_min_fps();
    GreenAlliance { category, category_source, reason, min_fps, fps, pass: fps >= min_fps }
}

/// The presents table (docs/presents.md), one row per present.
pub fn presents_table(rows: &[PresentRow]) -> Result<DataFrame, MetricsError> {
    Ok(table::presents_df(rows)?)
}

/// The frames of `analysis` kept by `filter`, as the frames table (with scenes).
pub fn frames_table(trace: &Trace, analysis: &FrameAnalysis, filter: &AppFilter) -> Result<DataFrame, MetricsError> {
    let (indices, rows): (Vec<usize>, Vec<&FrameRow>) =
        analysis.rows.iter().enumerate().filter(|(_, r)| filter.matches(r.process.as_deref(), r.pid)).unzip();
    let scenes = scene::assign(trace, &rows);
    Ok(table::frames_df(&rows, &indices, scenes)?)
}

/// The scene of every frame of `analysis`, by row (`None`: none could be
/// told; docs/metrics.md). The frames table's `scene` column holds the same.
pub fn frame_scenes(trace: &Trace, analysis: &FrameAnalysis) -> Vec<Option<String>> {
    let rows: Vec<&FrameRow> = analysis.rows.iter().collect();
    scene::assign(trace, &rows)
}

/// Results of the per-group queries, keyed by pid, for [`app_summary`] to take
/// its parts from.
struct PerApp {
    percentiles: HashMap<i32, [Percentiles; 3]>,
    /// (window, frames) of the 1 s wall-time windows that have frames.
    windows: HashMap<i32, Vec<(i64, i64)>>,
    frame_timeline: HashMap<i32, BTreeMap<String, i64>>,
    jank_tags: HashMap<i32, BTreeMap<String, i64>>,
    jank_severities: HashMap<i32, BTreeMap<String, i64>>,
    vsync_sources: HashMap<i32, BTreeMap<String, i64>>,
    perfdog: HashMap<i32, PerfDog>,
    scenes: HashMap<i32, Vec<SceneSummary>>,
    worst_frames: HashMap<i32, Vec<WorstFrame>>,
}

/// Summaries of every app in the frames table, most frames first.
pub fn summarize(
    frames: &DataFrame,
    why: &[FrameWhy],
    presents: &PresentAnalysis,
    opts: &MetricsOptions,
) -> Result<Vec<AppSummary>, MetricsError> {
    use sql::{
        APP_SUMMARY, FPS_WALL, JANK_TAGS, JANK_TYPES, PERCENTILES, PERFDOG, SCENES, VSYNC_SOURCES, WORST_FRAMES,
    };
    let [apps, pct, wall, jank, tags, vsync, pd, sc, worst] = sql::run_all(
        frames,
        [APP_SUMMARY, PERCENTILES, FPS_WALL, JANK_TYPES, JANK_TAGS, VSYNC_SOURCES, PERFDOG, SCENES, WORST_FRAMES],
    )?;
    let mut per_app = PerApp {
        percentiles: percentiles(&pct)?,
        windows: wall_windows(&wall)?,
        frame_timeline: counts_by_name(&jank, "jank")?,
        jank_tags: counts_of_kind(&tags, "tag")?,
        jank_severities: counts_of_kind(&tags, "severity")?,
        vsync_sources: counts_by_name(&vsync, "vsync_source")?,
        perfdog: perfdog(&pd)?,
        scenes: scenes(&sc)?,
        worst_frames: worst_frames(&worst, why, opts.worst_frames)?,
    };
    let mut out = Vec::with_capacity(apps.height());
    for r in sql::Rows::new(&apps).iter() {
        if let Some(app) = app_summary(&r, opts.category, presents, &mut per_app)? {
            out.push(app);
        }
    }
    Ok(out)
}

/// The rows of a per-group query result as `f(row)`, grouped by pid in result
/// order; rows without a pid are left out.
fn by_pid<T>(df: &DataFrame, mut f: impl FnMut(&sql::Row) -> PolarsResult<T>) -> PolarsResult<HashMap<i32, Vec<T>>> {
    let mut m: HashMap<i32, Vec<T>> = HashMap::new();
    for r in sql::Rows::new(df).iter() {
        if let Some(pid) = r.opt_i64("pid")? {
            m.entry(pid as i32).or_default().push(f(&r)?);
        }
    }
    Ok(m)
}

/// One `app_summary.sql` row (`None` without a pid) with its parts from `per_app`.
fn app_summary(
    r: &sql::Row,
    category: Option<Category>,
    presents: &PresentAnalysis,
    per_app: &mut PerApp,
) -> PolarsResult<Option<AppSummary>> {
    let Some(pid) = r.opt_i64("pid")?.map(|p| p as i32) else {
        return Ok(None);
    };
    let frames = r.i64("frames")?;
    let fps = r.f64("fps")?;
    let (first_ts, wall_end_ts) = (r.i64("first_ts")?, r.i64("wall_end_ts")?);
    let windows = per_app.windows.remove(&pid).unwrap_or_default();
    let [frame_cost_ns, do_frame_dur, overrun_ns] = per_app.percentiles.remove(&pid).unwrap_or_default();
    let renderer = presents.renderers.get(&pid);
    let headline = headline(pid, fps, presents);
    Ok(Some(AppSummary {
        pid,
        process: r.opt_str("process")?,
        frames,
        fps,
        fps_wall: fps_wall(frames, first_ts, wall_end_ts),
        refresh_hz: r.f64("refresh_hz")?,
        drop_level: levels(r, "frames")?,
        drop_sum: levels(r, "dropped")?,
        dropped_frames: r.i64("dropped_frames")?,
        frame_interval_ns: r.i64("min_frame_interval_ns")?,
        paced_ns: r.i64("paced_ns")?,
        first_ts,
        wall_end_ts,
        frame_cost_ns,
        do_frame_dur,
        overrun_ns,
        jank: jank(r, pid, frames, per_app)?,
        renderer: renderer.cloned(),
        green_alliance: green_alliance(category, renderer, headline.fps),
        headline,
        fps_wall_timeline: fps_windows(first_ts, wall_end_ts, &windows),
        scenes: per_app.scenes.remove(&pid).unwrap_or_default(),
        cujs: Vec::new(),
        worst_frames: per_app.worst_frames.remove(&pid).unwrap_or_default(),
        quality: quality(r, pid, per_app)?,
    }))
}

/// The data quality of one app: its vsync sources from `per_app`, the counts
/// of frames without RenderThread or FrameTimeline data from its row.
fn quality(r: &sql::Row, pid: i32, per_app: &mut PerApp) -> PolarsResult<AppQuality> {
    Ok(AppQuality {
        vsync_sources: per_app.vsync_sources.remove(&pid).unwrap_or_default(),
        without_render_thread: r.i64("without_render_thread")?,
        without_timeline: r.i64("without_timeline")?,
    })
}

/// The per-level columns `{level}_{suffix}` of a result row (`best_frames` …).
fn levels(r: &sql::Row, suffix: &str) -> PolarsResult<Levels> {
    let mut v = [0i64; 5];
    for (k, level) in DropLevel::ALL.iter().enumerate() {
        v[k] = r.i64(&format!("{}_{suffix}", level.as_str().to_lowercase()))?;
    }
    Ok(Levels(v))
}

/// `percentiles.sql`: frame_cost_ns, do_frame_dur and overrun_ns per pid.
fn percentiles(df: &DataFrame) -> PolarsResult<HashMap<i32, [Percentiles; 3]>> {
    let read = |r: &sql::Row, base: &str| -> PolarsResult<Percentiles> {
        let g = |p: &str| r.opt_i64(&format!("{base}_{p}"));
        Ok(Percentiles { p50: g("p50")?, p90: g("p90")?, p95: g("p95")?, p99: g("p99")?, max: g("max")? })
    };
    let rows = by_pid(df, |r| Ok([read(r, "frame_cost")?, read(r, "do_frame_dur")?, read(r, "overrun_ns")?]))?;
    // One row per pid; were there more, the last would count.
    Ok(rows.into_iter().filter_map(|(pid, v)| Some((pid, v.last().copied()?))).collect())
}

/// `fps_wall.sql`: (window, frames) per pid.
fn wall_windows(df: &DataFrame) -> PolarsResult<HashMap<i32, Vec<(i64, i64)>>> {
    by_pid(df, |r| Ok((r.i64("window")?, r.i64("frames")?)))
}

/// Frames per wall-time second from the first frame to the wall end.
fn fps_wall(frames: i64, first_ts: i64, wall_end_ts: i64) -> f64 {
    let wall_s = (wall_end_ts - first_ts) as f64 / 1e9;
    if wall_s > 0.0 {
        frames as f64 / wall_s
    } else {
        0.0
    }
}

/// The 1 s wall-time windows of one app: window k covers
/// [first_ts + k·1 s, first_ts + (k+1)·1 s) cut at `wall_end_ts`.
pub(crate) fn fps_windows(first_ts: i64, wall_end_ts: i64, counts: &[(i64, i64)]) -> Vec<FpsWindow> {
    const SEC: i64 = 1_000_000_000;
    let span = (wall_end_ts - first_ts).max(0);
    let n = (span + SEC - 1) / SEC;
    let count: HashMap<i64, i64> = counts.iter().copied().collect();
    (0..n)
        .map(|k| {
            let start = first_ts + k * SEC;
            let end = (start + SEC).min(wall_end_ts);
            let seconds = (end - start) as f64 / 1e9;
            let frames = count.get(&k).copied().unwrap_or(0);
            FpsWindow { start_ts: start, seconds, frames, fps: frames as f64 / seconds }
        })
        .collect()
}

/// `scenes.sql`: the scenes of each pid, first seen first.
fn scenes(df: &DataFrame) -> PolarsResult<HashMap<i32, Vec<SceneSummary>>> {
    by_pid(df, |r| {
        Ok(SceneSummary {
            scene: r.str("scene")?,
            frames: r.i64("frames")?,
            first_ts: r.i64("first_ts")?,
            fps: r.f64("fps")?,
            refresh_hz: r.f64("refresh_hz")?,
            dropped_frames: r.i64("dropped_frames")?,
            drop_level: levels(r, "frames")?,
            drop_sum: levels(r, "dropped")?,
            frame_cost_p90: r.opt_i64("frame_cost_p90")?,
        })
    })
}

/// `worst_frames.sql`: the first `limit` janky frames of each pid, worst
/// first, with their why.
fn worst_frames(df: &DataFrame, why: &[FrameWhy], limit: usize) -> PolarsResult<HashMap<i32, Vec<WorstFrame>>> {
    // Only the first `limit` rows of each pid are read whole: a busy trace
    // has thousands of janky frames, and reading every one is wasted work.
    let mut worst: HashMap<i32, Vec<WorstFrame>> = HashMap::new();
    for r in sql::Rows::new(df).iter() {
        let Some(pid) = r.opt_i64("pid")? else { continue };
        let frames = worst.entry(pid as i32).or_default();
        if frames.len() >= limit {
            continue;
        }
        frames.push(WorstFrame {
            frame_index: r.i64("frame_index")? as usize,
            ts: r.i64("ts")?,
            frame_id: r.opt_i64("frame_id")?,
            scene: r.opt_str("scene")?,
            frame_cost_ns: r.i64("frame_cost_ns")?,
            dropped_frames: r.i64("dropped_frames")?,
            drop_level: r.opt_str("drop_level")?.as_deref().and_then(DropLevel::parse).unwrap_or_default(),
            do_frame_dur: r.i64("do_frame_dur")?,
            jank_type: r.opt_str("jank_type")?,
            why: None,
        });
    }
    let kept: std::collections::HashSet<usize> = worst.values().flatten().map(|f| f.frame_index).collect();
    let why_by_index: HashMap<usize, &FrameWhy> =
        why.iter().filter(|w| kept.contains(&w.frame_index)).map(|w| (w.frame_index, w)).collect();
    for f in worst.values_mut().flatten() {
        f.why = why_by_index.get(&f.frame_index).map(|w| (*w).clone());
    }
    Ok(worst)
}

/// `jank_types.sql` / `vsync_sources.sql`: frames per name (column `key`) per
/// pid; rows with a null name are left out.
fn counts_by_name(df: &DataFrame, key: &str) -> PolarsResult<HashMap<i32, BTreeMap<String, i64>>> {
    let rows = by_pid(df, |r| Ok((r.opt_str(key)?, r.i64("frames")?)))?;
    Ok(rows.into_iter().map(|(pid, v)| (pid, v.into_iter().filter_map(|(k, n)| Some((k?, n))).collect())).collect())
}

/// `jank_tags.sql`: frames per name of one `kind` per pid.
fn counts_of_kind(df: &DataFrame, kind: &str) -> PolarsResult<HashMap<i32, BTreeMap<String, i64>>> {
    let rows = by_pid(df, |r| Ok((r.str("kind")?, r.opt_str("name")?, r.i64("frames")?)))?;
    Ok(rows
        .into_iter()
        .map(|(pid, v)| {
            (pid, v.into_iter().filter(|(k, _, _)| k == kind).filter_map(|(_, n, c)| Some((n?, c))).collect())
        })
        .collect())
}

/// `perfdog.sql`: PerfDog's counts and stutter per pid.
fn perfdog(df: &DataFrame) -> PolarsResult<HashMap<i32, PerfDog>> {
    let rows = by_pid(df, |r| {
        let (jank_time_ns, total_time_ns) = (r.i64("jank_time_ns")?, r.i64("total_time_ns")?);
        Ok(PerfDog {
            jank: r.i64("jank")?,
            big_jank: r.i64("big_jank")?,
            jank_time_ns,
            total_time_ns,
            stutter: if total_time_ns > 0 { jank_time_ns as f64 / total_time_ns as f64 } else { 0.0 },
        })
    })?;
    // One row per pid; were there more, the last would count.
    Ok(rows.into_iter().filter_map(|(pid, mut v)| Some((pid, v.pop()?))).collect())
}

/// The jank vocabularies of one app: Perfetto's, vitals and Choreographer's
/// from its `app_summary.sql` row, FrameTimeline's and PerfDog's from `per_app`.
fn jank(r: &sql::Row, pid: i32, frames: i64, per_app: &mut PerApp) -> PolarsResult<Jank> {
    Ok(Jank {
        perfetto: PerfettoJank {
            frames_with_data: r.i64("perfetto_frames")?,
            jank: r.i64("perfetto_jank")?,
            slow: r.i64("perfetto_slow")?,
            big_jank: r.i64("perfetto_big_jank")?,
            huge_jank: r.i64("perfetto_huge_jank")?,
        },
        frame_timeline: per_app.frame_timeline.remove(&pid).unwrap_or_default(),
        frame_timeline_tags: per_app.jank_tags.remove(&pid).unwrap_or_default(),
        frame_timeline_severity: per_app.jank_severities.remove(&pid).unwrap_or_default(),
        vitals: vitals(r.i64("vitals_slow")?, r.i64("vitals_frozen")?, frames),
        perfdog: per_app.perfdog.remove(&pid).unwrap_or_default(),
        choreographer: Choreographer {
            skipped_frame_events: r.i64("skipped_frame_events")?,
            skipped_frames: r.i64("skipped_frames_in_events")?,
            max_skipped_frames: r.i64("max_skipped_frames")?,
        },
    })
}

/// Android vitals from the slow and frozen counts of `frames` frames.
fn vitals(slow: i64, frozen: i64, frames: i64) -> Vitals {
    let pct_of = |n: i64| {
        if frames > 0 {
            100.0 * n as f64 / frames as f64
        } else {
            0.0
        }
    };
    Vitals {
        slow,
        frozen,
        slow_pct: pct_of(slow),
        frozen_pct: pct_of(frozen),
        excessive_slow: pct_of(slow) > 50.0,
        excessive_frozen: pct_of(frozen) > 0.1,
    }
}

#[cfg(test)]
mod tests;
