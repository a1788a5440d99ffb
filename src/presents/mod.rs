//! Presented frames: what each layer put on the screen, whoever drew it.
//! The frames table rebuilds frames from `Choreographer#doFrame`, which only
//! apps drawing through the View system have; games, video, maps and most
//! Flutter engines draw on their own threads into a SurfaceView, and their
//! Java main thread still runs cheap doFrames at the display rate. This
//! stage reads the buffers each layer presented, from the first source that
//! has the layer ([`PresentSource`]), puts their intervals on the display's
//! vsync grid ([`DisplayGrid`]) and names each app's renderer ([`renderer`]).
//! Flutter apps also get their frames rebuilt from the engine's markers
//! ([`flutter`]: build → raster → present).
//! Every column and rule: docs/presents.md.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::frames::{DisplayGrid, DropLevel, FrameAnalysis};
use crate::model::{JankSeverity, JankTag, PresentType, Trace};

mod deadline;
mod flutter;
#[cfg(test)]
mod flutter_tests;
mod names;
mod renderer;
mod sources;
mod summary;
#[cfg(test)]
mod tests;
mod verdict;

pub use crate::series::{perfdog, Levels, Percentiles, PerfDog};
pub use deadline::is_idle;
pub use flutter::{FlutterFrame, FlutterSummary};
pub use names::{LayerNames, NameSource};
pub use renderer::{Engine, Renderer, RendererKind};
pub use sources::GraphicsApi;
pub use summary::{IdleSpans, LayerSummary};
pub use verdict::TimelineVerdict;

/// Where a layer's presents were read from, in order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PresentSource {
    /// FrameTimeline actual surface frames (Android 12+): the present time
    /// SurfaceFlinger measured, per layer.
    FrameTimeline,
    /// SurfaceFlinger's per-layer counter of queued buffers (atrace `gfx`,
    /// any version): each fall is a buffer latched for the screen.
    LayerCounter,
    /// The producing thread's `queueBuffer` (else `eglSwapBuffers*` /
    /// `vkQueuePresentKHR`) slices: when the app handed a buffer over.
    Producer,
}

impl PresentSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FrameTimeline => "frame_timeline",
            Self::LayerCounter => "layer_counter",
            Self::Producer => "producer",
        }
    }
}

/// One row of the presents table: one buffer a layer presented (or, for
/// the `producer` source, a thread queued). Column by column: docs/presents.md.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PresentRow {
    /// The app the layer belongs to.
    pub process: Option<String>,
    pub pid: Option<i32>,
    /// The layer (`SurfaceView - PKG/ACTIVITY#0`, `PKG/ACTIVITY#0`, …); for
    /// the producer source the producing thread's name.
    pub layer: String,
    pub source: PresentSource,
    /// The thread that produced the layer's buffers, when it is known.
    pub tid: Option<i32>,
    pub thread: Option<String>,
    /// When the buffer reached the screen (the producer source: when it was queued).
    pub ts: i64,
    /// `ts` − the layer's previous present; null for its first.
    pub interval_ns: Option<i64>,
    /// The display's vsync period at `ts` (see [`DisplayGrid`]).
    pub vsync_period_ns: i64,
    /// When the frame was due on screen: FrameTimeline's expected end for
    /// its token, else one period after the vsync of the app's doFrame that
    /// asked for it; null when unknown (docs/presents.md, "Dropped vsyncs").
    pub due_ts: Option<i64>,
    /// The part of `interval_ns` in which the app asked for no frame, when
    /// it is an idle span (longer than 83.33 ms); else 0. Null for the first.
    pub idle_ns: Option<i64>,
    /// `interval_ns − idle_ns`: the time the frame took, counted from its
    /// request when the app was idle before it.
    pub frame_time_ns: Option<i64>,
    /// max(round(frame_time / vsync period) − 1, 0): vsyncs on which the
    /// layer showed the previous buffer again while this frame was due.
    pub dropped_vsyncs: Option<i64>,
    pub drop_level: DropLevel,
    /// FrameTimeline only: the buffer's vsync id, present type and jank type.
    pub frame_id: Option<i64>,
    pub present_type: Option<PresentType>,
    pub jank_type: Option<String>,
    /// FrameTimeline only: Perfetto's jank tag, the severity and the present
    /// delay (ms) of the buffer's actual surface frame.
    pub jank_tag: Option<JankTag>,
    pub jank_severity: Option<JankSeverity>,
    pub present_delay_ms: Option<f64>,
    /// PerfDog's Jank / BigJank on the present intervals (docs/presents.md).
    pub perfdog_jank: bool,
    pub perfdog_big_jank: bool,
}

impl PresentRow {
    /// The present as a frame of its layer's series: its frame time is its
    /// cost, its dropped vsyncs (against its deadline) its dropped frames,
    /// the display's period its frame interval. The first present of a
    /// layer, without an interval, is none.
    pub fn series_frame(&self) -> Option<crate::series::Frame> {
        Some(crate::series::Frame {
            ts: self.ts,
            cost_ns: self.frame_time_ns?,
            dropped: self.dropped_vsyncs.unwrap_or(0),
            interval_ns: self.vsync_period_ns,
            refresh_hz: 1e9 / self.vsync_period_ns as f64,
            skipped: 0,
            overrun_ns: None,
            was_jank: None,
            scene: 0,
        })
    }
}

/// The display grid and the period to assume where it measures none.
#[derive(Clone, Copy)]
pub(crate) struct Grid<'a> {
    pub display: &'a DisplayGrid,
    pub fallback: i64,
}

/// Every layer's presents, their summaries and every app's renderer.
#[derive(Debug, Clone, Default)]
pub struct PresentAnalysis {
    /// Ordered by (pid, layer, ts).
    pub rows: Vec<PresentRow>,
    /// One per layer, in `rows` order (so by pid).
    pub layers: Vec<LayerSummary>,
    /// The renderer of every app that has frames, presents or engine threads, by pid.
    pub renderers: BTreeMap<i32, Renderer>,
    /// Flutter frames rebuilt from the engine's markers, by (pid, time).
    pub flutter: Vec<FlutterFrame>,
    /// One per app with Flutter frames, by pid.
    pub flutter_apps: Vec<FlutterSummary>,
    /// The apps the trace names only by their layers (their rows' and
    /// layers' `process` is that package).
    pub names: LayerNames,
    /// FrameTimeline's verdict over each app's actual surface frames (all
    /// its layers), by pid.
    pub timeline: BTreeMap<i32, TimelineVerdict>,
}

impl PresentAnalysis {
    /// The layers of app `pid` (every one presented at least one buffer).
    pub fn layers_of(&self, pid: i32) -> &[LayerSummary] {
        // Layers are ordered by pid: the app's are one run.
        let from = self.layers.partition_point(|l| l.pid < Some(pid));
        let to = self.layers.partition_point(|l| l.pid <= Some(pid));
        &self.layers[from..to]
    }

    /// The layer that shows what a user of app `pid` saw, when its content is
    /// not drawn by its View hierarchy: the app's layer (not its View
    /// layer) with the most presents.
    pub fn visible_layer(&self, pid: i32) -> Option<&LayerSummary> {
        let renderer = self.renderers.get(&pid)?;
        if !renderer.kind.draws_outside_views() {
            return None;
        }
        self.layers_of(pid)
            .iter()
            .filter(|l| l.presents >= 2 && !renderer::is_view_layer(l))
            .max_by_key(|l| (l.presents, std::cmp::Reverse(l.source)))
    }
}

impl PresentAnalysis {
    /// The layer that shows app `pid`: its visible layer when a renderer
    /// other than its views draws it, else its layer (its window) with the
    /// most presents. PerfDog is read on it, and an app with no doFrames is
    /// judged by it.
    pub fn shown_layer(&self, pid: i32) -> Option<&LayerSummary> {
        self.visible_layer(pid).or_else(|| {
            self.layers_of(pid)
                .iter()
                .filter(|l| l.presents >= 2)
                .max_by_key(|l| (l.presents, std::cmp::Reverse(l.source)))
        })
    }

    /// The layer whose presents app `pid` is judged by, and why, when it is
    /// judged by presents rather than by its doFrames (docs/metrics.md,
    /// "Headline"): its visible layer when a renderer other than its views
    /// draws it; without doFrames (`has_do_frames` false), the layer that
    /// shows it. `analyze`'s headline and `compare` both decide by this.
    pub fn judged_layer(&self, pid: i32, has_do_frames: bool) -> Option<(&LayerSummary, JudgedBy)> {
        match self.visible_layer(pid) {
            Some(l) => Some((l, JudgedBy::Renderer)),
            None if !has_do_frames => self.shown_layer(pid).map(|l| (l, JudgedBy::NoDoFrames)),
            None => None,
        }
    }
}

/// Why an app is judged by a layer's presents ([`PresentAnalysis::judged_layer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JudgedBy {
    /// A renderer other than its views draws its content.
    Renderer,
    /// It has no doFrames.
    NoDoFrames,
}

impl JudgedBy {
    /// Why, in words.
    pub fn why(self) -> &'static str {
        match self {
            Self::Renderer => "its renderer draws its content, not its views",
            Self::NoDoFrames => "it has no doFrames",
        }
    }
}

/// The presents of every layer of `trace`, on the display grid the frames
/// stage measured (`frames`); where it measures no period, the frames' most
/// common interval (else 60 Hz).
pub fn analyze(trace: &Trace, frames: &FrameAnalysis) -> PresentAnalysis {
    analyze_in(trace, frames, None)
}

/// [`analyze`], with each layer's presents kept to `window` (its first
/// present there has no interval), and Flutter's engine frames to those
/// whose first phase starts in it.
pub fn analyze_in(
    trace: &Trace,
    frames: &FrameAnalysis,
    window: Option<crate::frames::ScenarioWindow>,
) -> PresentAnalysis {
    let grid = Grid { display: &frames.display, fallback: crate::frames::common_interval(&frames.rows) };
    let mut streams = sources::streams(trace);
    // Before the window: a name is the trace's, whenever the layer presented.
    let names = LayerNames::of(trace, &streams);
    if let Some(w) = window {
        for s in &mut streams {
            s.presents.retain(|p| w.contains(p.ts));
        }
        streams.retain(|s| !s.presents.is_empty());
    }
    let renderers = renderer::detect(trace, &streams);
    let requests = deadline::Requests::of(frames);
    let verdicts = verdict::by_layer(trace, window);
    let mut timeline: BTreeMap<i32, TimelineVerdict> = BTreeMap::new();
    for ((pid, _), v) in &verdicts {
        timeline.entry(*pid).or_default().merge(v);
    }
    let mut rows = Vec::new();
    let mut layers = Vec::new();
    for s in &streams {
        let first = rows.len();
        let perfdog = summary::rows_of(s, trace, &names, grid, &requests, &mut rows);
        // Only FrameTimeline's layers have its verdict.
        let verdict = s
            .pid
            .filter(|_| s.source == PresentSource::FrameTimeline)
            .and_then(|pid| verdicts.get(&(pid, s.layer.clone())))
            .cloned()
            .unwrap_or_default();
        layers.push(LayerSummary::of(s, &rows[first..], perfdog, verdict));
    }
    let (flutter, flutter_apps) = flutter::analyze(trace, grid, window);
    PresentAnalysis { rows, layers, renderers, flutter, flutter_apps, names, timeline }
}
