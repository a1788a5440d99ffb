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
