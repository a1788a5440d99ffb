//! Jank CUJs: the `J<NAME>` slices that SystemUI, Launcher and other
//! platform apps emit around an interaction (InteractionJankMonitor /
//! FrameTracker), read as Perfetto's `android.cujs` stdlib reads them, so
//! each becomes a scene with its own frames (docs/cujs.md).
//!
//! [`markers`] finds the CUJ slices and applies the `FT#…` markers;
//! [`frames`] finds each CUJ's doFrames, vsync range, boundaries, layer and
//! FrameTimeline counts.

pub mod correlate;
#[cfg(test)]
mod correlate_tests;
mod frames;
mod markers;
#[cfg(test)]
mod tests;

pub(crate) use frames::{is_app_jank, is_sf_jank};

use crate::frames::FrameAnalysis;
use crate::model::{Name, SliceId, Trace, Upid, Utid};

/// How the instrumentation says the CUJ ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CujState {
    /// An `FT#end…` marker (including `FT#endVsync#<id>`).
    Completed,
    /// An `FT#cancel` marker: the interaction was abandoned.
    Canceled,
}

impl CujState {
    pub fn as_str(self) -> &'static str {
        match self {
            CujState::Completed => "completed",
            CujState::Canceled => "canceled",
        }
    }
}

/// FrameTimeline's frames in a CUJ's vsync range (of its layer, when known).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct TimelineCounts {
    /// Vsyncs with an actual frame.
    pub frames: i64,
    /// Of those, the vsyncs whose jank type blames the app (Perfetto's
    /// `android_is_app_jank_type`: App Deadline Missed, App Resynced Jitter).
    pub missed_app_frames: i64,
    /// … blames SurfaceFlinger (`android_is_sf_jank_type`).
    pub missed_sf_frames: i64,
}

/// One CUJ (one `J<NAME>` slice) and what its markers and frames say.
#[derive(Debug, Clone)]
pub struct Cuj {
    /// 1-based, in (start, slice id) order: trace_processor's `cuj_id`.
    pub id: usize,
    pub upid: Upid,
    pub pid: i32,
    pub process: Option<Name>,
    pub slice: SliceId,
    /// `J<NAME>`.
    pub slice_name: Name,
    /// The CUJ slice's start and end.
    pub ts: i64,
    pub ts_end: i64,
    pub state: Option<CujState>,
    /// The thread named by a `J<NAME>#UIThread` marker.
    pub ui_thread: Option<Utid>,
    pub layer_id: Option<i64>,
    pub begin_vsync: Option<i64>,
    pub end_vsync: Option<i64>,
    /// The CUJ's layer: the marked one, else the only one its frames drew.
    pub layer_name: Option<Name>,
    /// Counted as a jank CUJ: not canceled, and either ended or, on builds
    /// without state markers, longer than 4 ms (Perfetto's `android_jank_cuj`).
    pub counted: bool,
    /// Its doFrames (indices into the frame rows), in vsync order; empty
    /// when not counted.
    pub frames: Vec<usize>,
    /// The vsync range: the markers', else that of its doFrames.
    pub vsyncs: Option<(i64, i64)>,
    /// On the UI thread, per doFrame (aligned with `frames`): the frame's
    /// expected start (or the previous doFrame's end) to its doFrame's end
    /// (`_android_jank_cuj_main_thread_frame_boundary`).
    pub frame_boundaries: Vec<(i64, i64)>,
    /// On the UI thread: first frame's expected start (or the previous
    /// doFrame's end) to the last doFrame's end.
    pub boundary: Option<(i64, i64)>,
    /// From the first layer frame's expected start to the last one's doFrame
    /// end (`android_sysui_jank_cujs`); the start is None without an
    /// expected frame.
    pub layer_span: Option<(Option<i64>, i64)>,
    pub timeline: Option<TimelineCounts>,
}

impl Cuj {
    /// `NAME` of `J<NAME>`.
    pub fn name(&self) -> &str {
        cuj_name(&self.slice_name)
    }
    /// Where the CUJ ran: its UI-thread boundary, else its slice.
    pub fn span(&self) -> (i64, i64) {
        self.boundary.unwrap_or((self.ts, self.ts_end))
    }
}

/// `NAME` of `J<NAME>` (Perfetto's `_extract_cuj_name_from_slice`).
pub fn cuj_name(slice_name: &str) -> &str {
    slice_name.get(2..slice_name.len().saturating_sub(1)).unwrap_or_default()
}

/// Every CUJ of the trace, in `cuj_id` order.
#[derive(Debug, Clone, Default)]
pub struct CujAnalysis {
    pub cujs: Vec<Cuj>,
}

/// Reads the CUJs. A trace without `J<…>` slices costs one pass over the
/// slice names.
pub fn analyze(trace: &Trace, frame_analysis: &FrameAnalysis) -> CujAnalysis {
    let slices = markers::read(trace);
    if slices.is_empty() {
        return CujAnalysis::default();
    }
    let mut upids: Vec<Upid> = slices.iter().map(|c| c.upid).collect();
    upids.sort();
    upids.dedup();
    let pids: Vec<i32> = upids.iter().map(|&u| trace.process(u).pid).collect();
    let timeline = frames::TimelineIndex::new(trace, &upids);
    let rows = frames::DoFrames::new(frame_analysis, &pids);
    let cujs = slices
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let process = trace.process(c.upid);
            let state = if c.canceled {
                Some(CujState::Canceled)
            } else if c.ended {
                Some(CujState::Completed)
            } else {
                None
            };
            let counted = match state {
                Some(CujState::Completed) => true,
                Some(CujState::Canceled) => false,
                None => c.ts_end - c.ts > 4_000_000,
            };
            let layer = frames::layer_span(&c, trace, process.pid, &rows, &timeline);
            let mut cuj = Cuj {
                id: i + 1,
                upid: c.upid,
                pid: process.pid,
                process: process.name.clone(),
                slice: c.slice,
                slice_name: c.name.clone(),
                ts: c.ts,
                ts_end: c.ts_end,
                state,
                ui_thread: c.ui_thread,
                layer_id: c.layer_id,
                begin_vsync: c.begin_vsync,
                end_vsync: c.end_vsync,
                layer_name: layer.layer_name,
                counted,
                frames: Vec::new(),
                vsyncs: None,
                frame_boundaries: Vec::new(),
                boundary: None,
                layer_span: None,
                timeline: None,
            };
            if counted {
                let do_frames = frames::do_frames(&c, trace, process.pid, &rows);
                let vsync_of = |k: usize| rows.row(do_frames[k]).frame_id.unwrap_or_default();
                if !do_frames.is_empty() {
                    let range = (
                        c.begin_vsync.unwrap_or_else(|| vsync_of(0)),
                        c.end_vsync.unwrap_or_else(|| vsync_of(do_frames.len() - 1)),
                    );
                    cuj.vsyncs = Some(range);
                    cuj.frame_boundaries =
                        frames::main_thread_frame_boundaries(c.upid, &do_frames, range, &rows, &timeline);
                    cuj.boundary = cuj.frame_boundaries.iter().copied().reduce(|(a, b), (c, d)| (a.min(c), b.max(d)));
                    cuj.timeline = frames::timeline_counts(range, cuj.layer_name.as_ref(), &timeline);
                }
                cuj.layer_span = layer.span;
                cuj.frames = do_frames;
            }
            cuj
        })
        .collect();
    CujAnalysis { cujs }
}
