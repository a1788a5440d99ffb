//! The view model of `report.html`: the page, one view per app and their
//! rows, every value a preformatted string (see [`super::format`]) so the
//! template only places them.

use serde::Serialize;

/// A label and its value: header, summary and quality lists.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct Field {
    pub label: String,
    pub value: String,
}

pub(crate) fn field(label: &str, value: impl Into<String>) -> Field {
    Field { label: label.into(), value: value.into() }
}

/// A chart inlined in the page.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ChartView {
    pub title: String,
    pub file_name: String,
    pub width: u32,
    pub height: u32,
    /// `fpsan-chart:N`, replaced by chart N in the finished page (`inline_charts`)
    pub src: String,
}

/// One drop level of an app: frames, share, dropped frames.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct LevelRow {
    pub name: String,
    /// CSS class of the level colour.
    pub class: String,
    pub frames: String,
    pub share: String,
    pub dropped: String,
}

/// P50, P90, P95, P99 and max of one metric.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct PercentileRow {
    pub metric: String,
    pub values: Vec<String>,
}

/// One scene of an app.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct SceneRow {
    pub scene: String,
    pub frames: String,
    pub fps: String,
    pub refresh: String,
    pub dropped: String,
    pub levels: Vec<String>,
    pub p90: String,
}

/// One jank CUJ name of an app: its instances, then its frames as a scene's.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct CujRow {
    pub cuj: String,
    /// `2 (2 completed, 0 canceled)`.
    pub runs: String,
    pub time: String,
    /// FrameTimeline's missed frames: `app 5 · SF 1 of 6`.
    pub missed: String,
    /// Its doFrames summarised; None when none drew.
    pub frames: Option<SceneRow>,
}

/// One jank vocabulary: its name, its numbers, its formula.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct Vocabulary {
    pub name: String,
    pub fields: Vec<Field>,
    pub formula: String,
}

/// One of an app's worst frames, with why it was late.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct WorstRow {
    pub rank: usize,
    pub at: String,
    pub frame_id: String,
    pub scene: String,
    pub cost: String,
    pub dropped: String,
    pub level: String,
    pub level_class: String,
    pub phase: String,
    pub longest: String,
    /// The critical path's chain (docs/frames.md, "Critical path"); empty without one.
    pub chain: String,
    pub thread_state: String,
    pub blockers: String,
    pub jank_type: String,
    /// A data loss the trace reports touches the frame: the row is greyed.
    pub data_loss: bool,
    /// The frame's index (`#frame=N`) when the frame timeline has its lanes.
    pub timeline: Option<usize>,
}

/// One layer of an app on its presents table.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct LayerRow {
    /// The name shortened for the table; `full` is the whole name (a tooltip).
    pub layer: String,
    pub full: String,
    /// True for the layer the chart shows (the headline's, else the busiest).
    pub shown: bool,
    pub source: String,
    pub presents: String,
    pub fps: String,
    pub refresh: String,
    pub dropped: String,
    pub idle: String,
    pub jank: String,
    pub big_jank: String,
    pub stutter: String,
    pub p50: String,
    pub p90: String,
    pub p99: String,
}

/// What an app put on the screen: its renderer, where its headline fps
/// comes from and why, its layers and the chart of the shown one.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PresentsView {
    /// `SurfaceView (Unity, GL)`, `–` when no renderer was told.
    pub renderer: String,
    /// The threads or layer that told it.
    pub evidence: String,
    /// `23.2 fps`.
    pub headline: String,
    /// `the presents of LAYER` or `its doFrames`.
    pub headline_from: String,
    pub reason: String,
    pub layers: Vec<LayerRow>,
    /// `3 more layers with fewer presents: presents.csv`; empty when all are listed.
    pub more_layers: String,
    pub charts: Vec<ChartView>,
}

/// Everything the page shows about one app.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AppView {
    pub name: String,
    pub pid: i32,
    /// `pid N`, and where the name came from when not the process.
    pub pid_note: String,
    pub anchor: String,
    pub refresh: String,
    /// The headline fps, and what it was computed on.
    pub fps: String,
    pub fps_from: String,
    /// What the headline series counts (`frames` / `presents`) and drops (`frames` / `vsyncs`).
    pub unit: String,
    pub dropped_unit: String,
    /// The verdict card's class: `pass`, `fail`, or `none` (too few frames).
    pub verdict_class: String,
    pub verdict: String,
    pub verdict_rule: String,
    pub frozen: i64,
    pub high: i64,
    pub frozen_text: String,
    pub high_text: String,
    pub janky: String,
    pub summary: Vec<Field>,
    pub presents: PresentsView,
    pub levels: Vec<LevelRow>,
    pub levels_total: LevelRow,
    pub percentiles: Vec<PercentileRow>,
    pub scenes: Vec<SceneRow>,
    pub cujs: Vec<CujRow>,
    pub vocabularies: Vec<Vocabulary>,
    pub worst_title: String,
    pub worst: Vec<WorstRow>,
    /// What the page says where the worst-frames table would be when no
    /// doFrame dropped a frame (a doFrame list says nothing of the app's
    /// presents or of FrameTimeline's verdict, so it names them).
    pub no_worst: String,
    /// Some worst frame is greyed (`WorstRow::data_loss`): the page says why.
    pub worst_data_loss: bool,
    pub quality: Vec<Field>,
    pub charts: Vec<ChartView>,
}

/// An app that animates but draws nothing: no verdict, its frames and CPU time.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct AnimatingRow {
    pub name: String,
    pub pid: i32,
    pub anchor: String,
    pub frames: String,
    /// Its main thread's CPU time over its doFrames, ms, and what measured it.
    pub cpu_time: String,
    pub cpu_time_from: String,
}

/// A term of the definitions section and its formula.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Definition {
    pub term: String,
    pub formula: String,
}

/// The frame timeline section (the page's script draws the lanes).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct TimelineView {
    /// `12 frames: 10 janky (of 10) and 2 of the apps' costliest that dropped none (40.1 kB of data)`.
    pub summary: String,
    /// What was left out for the budget; empty when nothing was.
    pub left_out: String,
    pub frames: usize,
    /// The page's script (`templates/timeline.js`), which draws the lanes.
    pub script: &'static str,
}

/// One startup's row of the page's "Startups" section.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StartupRow {
    pub package: String,
    pub startup_type: String,
    /// Its start, s into the trace.
    pub at: String,
    pub dur: String,
    pub ttid: String,
    pub ttfd: String,
    /// Its main-thread milestones, and the largest parts of its critical
    /// path (empty when not explained).
    pub steps: String,
    pub until: &'static str,
    pub causes: String,
    /// Matrix's costs (empty without them).
    pub matrix: String,
}

/// The page's "Input" section (docs/input.md): the terminal's table and its notes.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct InputView {
    pub headers: Vec<&'static str>,
    pub rows: Vec<Vec<String>>,
    pub notes: Vec<String>,
    /// Each gesture: app, start, events, touch to first frame, end to end p90, delayed.
    pub gestures: Vec<Vec<String>>,
}

/// The page's "Main-thread blocks" section (docs/blocks.md).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BlocksView {
    /// The column heads of the per-process table's counts: the levels.
    pub levels: Vec<&'static str>,
    pub apps: Vec<BlockAppRow>,
    /// The longest blocks, longest first.
    pub longest: Vec<BlockRow>,
}

/// One process' row of the blocks table.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BlockAppRow {
    pub process: String,
    pub pid: i32,
    pub per_level: Vec<i64>,
    pub blocked: String,
    pub per_min: String,
    pub longest: String,
}

/// One of the longest blocks, as the terminal details it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BlockRow {
    pub at: String,
    pub dur: String,
    pub level: &'static str,
    pub title: String,
    pub states: String,
    pub methods: String,
    pub chain: String,
    /// The frame a doFrame block is, when the frame timeline has its lanes
    /// (its index in the frames table, the page's `#frame=`).
    pub timeline: Option<usize>,
}

/// The whole page.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Page {
    pub title: String,
    pub fpsan_version: String,
    pub header: Vec<Field>,
    /// The apps something of which reached the screen.
    pub apps: Vec<AppView>,
    /// The apps that animate but draw nothing.
    pub animating: Vec<AnimatingRow>,
    /// The reported apps' startups (docs/startups.md).
    pub startups: Vec<StartupRow>,
    /// None when no main thread had a block of frame-scale or longer.
    pub blocks: Option<BlocksView>,
    /// None when no app received input (docs/input.md).
    pub input: Option<InputView>,
    pub overview_charts: Vec<ChartView>,
    pub quality: Vec<Field>,
    pub warnings: Vec<String>,
    pub definitions: Vec<Definition>,
    pub level_names: Vec<String>,
    /// None when the analysis built no lanes (the section and its script are left out).
    pub timeline: Option<TimelineView>,
}
