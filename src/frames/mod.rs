//! Frame reconstruction: one [`FrameRow`] per `Choreographer#doFrame` slice,
//! from vsync to commit and on to RenderThread and the display (SPEC §3).

/// One row of the frames table. Field names are the SPEC §3 column names.
/// Times are ns in trace time; `Option` is SQL NULL.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct FrameRow {
    pub process: Option<String>,
    pub pid: i32,
    pub tid: i32,
    pub thread: Option<String>,
    /// Android 12+ vsync id from `Choreographer#doFrame <id>`.
    pub frame_id: Option<i64>,
    pub ts: i64,
    pub do_frame_dur: i64,
    pub vsync_ts: Option<i64>,
    /// `frame_timeline`, `vsync_app`, `jitter_counter`, `estimated`.
    pub vsync_source: Option<String>,
    pub frame_interval_ns: i64,
    pub refresh_hz: f64,
    pub jitter_ns: Option<i64>,
    pub skipped_frames: i64,
    pub frame_time_ns: Option<i64>,
    pub input_dur: Option<i64>,
    pub animation_dur: Option<i64>,
    pub insets_animation_dur: Option<i64>,
    pub traversal_dur: Option<i64>,
    pub commit_dur: Option<i64>,
    pub commit_ts: Option<i64>,
    pub commit_jitter_ns: Option<i64>,
    pub commit_corrected: bool,
    pub corrected_frame_time_ns: Option<i64>,
    pub frame_cost_ns: i64,
    pub dropped_frames: i64,
    /// `BEST`, `NORMAL`, `MIDDLE`, `HIGH`, `FROZEN`.
    pub drop_level: String,
    pub draw_frame_ts: Option<i64>,
    pub draw_frame_dur: Option<i64>,
    pub draw_frame_count: i64,
    pub expected_ts: Option<i64>,
    pub expected_end: Option<i64>,
    pub actual_ts: Option<i64>,
    pub actual_end: Option<i64>,
    pub overrun_ns: Option<i64>,
    pub jank_type: Option<String>,
    pub present_type: Option<String>,
    pub layer_name: Option<String>,
    /// Number of actual surface frames (layers) sharing this frame's token and pid.
    pub layer_count: i64,
    pub app_vsync_delay: Option<i64>,
    pub cpu_time: Option<i64>,
    pub ui_time: Option<i64>,
    pub was_jank: Option<bool>,
    pub was_slow_frame: Option<bool>,
    pub was_big_jank: Option<bool>,
    pub was_huge_jank: Option<bool>,
}

use std::collections::BTreeMap;

use crate::model::Trace;

/// Knobs for reconstruction.
#[derive(Debug, Clone)]
pub struct FrameOptions {
    /// `--refresh-hz`: force the frame interval instead of reading it from the trace.
    pub refresh_hz: Option<f64>,
    /// Main-thread slices at least this long that ran between a frame's vsync and
    /// its doFrame start are reported as blockers (trace-side BlockCanary).
    pub blocker_threshold_ns: i64,
}

impl Default for FrameOptions {
    fn default() -> Self {
        FrameOptions { refresh_hz: None, blocker_threshold_ns: 8_000_000 }
    }
}

/// A main-thread slice that delayed a frame's start.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Blocker {
    pub name: String,
    pub ts: i64,
    pub dur: i64,
}

/// Time the frame's thread spent in each scheduler state inside the frame
/// (vsync to doFrame end), from sched_switch / sched_waking.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ThreadStateSplit {
    pub running_ns: i64,
    pub runnable_ns: i64,
    pub sleeping_ns: i64,
    /// Uninterruptible sleep (D state: I/O, locks in the kernel).
    pub blocked_ns: i64,
}

/// Why a janky frame was late.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FrameWhy {
    /// Index into `FrameAnalysis::rows`.
    pub frame_index: usize,
    /// `start_jitter`, `input`, `animation`, `insets_animation`, `traversal`, `commit`, or `other`.
    pub dominant_phase: String,
    pub dominant_phase_ns: i64,
    /// Longest descendant slice of the doFrame (any depth), if any.
    pub longest_slice: Option<String>,
    pub longest_slice_ns: Option<i64>,
    pub blockers: Vec<Blocker>,
    pub thread_state: Option<ThreadStateSplit>,
}

/// What the reconstruction could and could not match, for the data-quality section.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct FrameQuality {
    /// Frames per `vsync_source` (`frame_timeline`, `vsync_app`, `jitter_counter`, `estimated`, `none`).
    pub vsync_sources: BTreeMap<String, u64>,
    /// Frames per interval source (`override`, `frame_timeline`, `vsync_app`, `do_frame_grid`, `default`).
    pub interval_sources: BTreeMap<String, u64>,
    pub without_render_thread: u64,
    pub without_timeline: u64,
    /// doFrame slices cut by the trace start or end (not turned into frames).
    pub cut_by_trace_bounds: u64,
}

#[derive(Debug, Clone, Default)]
pub struct FrameAnalysis {
    /// Ordered by (pid, ts).
    pub rows: Vec<FrameRow>,
    /// One entry per janky frame (dropped_frames ≥ 1).
    pub why: Vec<FrameWhy>,
    pub quality: FrameQuality,
}

/// Thread ids that ran `Choreographer#doFrame` (their scheduler data feeds
/// `FrameWhy::thread_state`; load it with `read::sched_for_threads` into
/// `Trace::sched` before calling [`analyze`]).
pub fn frame_threads(trace: &Trace) -> Vec<i32> {
    let _ = trace;
    todo!("frames::frame_threads")
}

/// Rebuild every frame of every app in the trace.
pub fn analyze(trace: &Trace, opts: &FrameOptions) -> FrameAnalysis {
    let _ = (trace, opts);
    todo!("frames::analyze")
}
