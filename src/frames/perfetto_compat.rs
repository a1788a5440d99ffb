//! The columns that reproduce Perfetto's `android.frames.per_frame_metrics`
//! (`android_app_vsync_delay_per_frame`, `android_cpu_time_per_frame`,
//! `android_frames_ui_time`, `android_frames_overrun`, `android_frame_stats`)
//! for one frame, including which frames get NULL there.

use super::render_thread::Draw;
use crate::model::TimelineSlice;

/// `time_from_ms(5)`: the fallback CPU time added to the UI time.
pub const FALLBACK_CPU_NS: i64 = 5_000_000;
pub const SLOW_NS: i64 = 20_000_000;
pub const BIG_JANK_NS: i64 = 50_000_000;
pub const HUGE_JANK_NS: i64 = 200_000_000;

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Compat {
    pub app_vsync_delay: Option<i64>,
    pub cpu_time: Option<i64>,
    pub ui_time: Option<i64>,
    pub overrun_ns: Option<i64>,
    pub was_jank: Option<bool>,
    pub was_slow_frame: Option<bool>,
    pub was_big_jank: Option<bool>,
    pub was_huge_jank: Option<bool>,
}

/// `iif(cond, 1, NULL)`.
fn iif(cond: bool) -> Option<bool> {
    cond.then_some(true)
}

/// * Only frames with an id exist in those tables (`android_frames_choreographer_do_frame`).
/// * `app_vsync_delay` = first actual surface frame start − expected start, for
///   frames in `android_frames` (at least one `DrawFrames <id>`, both timeline
///   slices of the app present).
/// * `cpu_time` = `app_vsync_delay + doFrame dur + Σ DrawFrames dur` when the
///   delay exists, else `doFrame dur + 5 ms` (`_estimated_cpu_time_per_frame`).
/// * `ui_time` = doFrame dur.
/// * `overrun_ns`: see `TimelineIndex::perfetto_overrun`.
/// * `was_*` come from `android_frame_stats`, which only has frames with an
///   overrun; each is 1 or NULL, never 0.
pub fn compat(
    frame_id: Option<i64>,
    do_frame_dur: i64,
    draw: &Draw,
    expected: Option<&TimelineSlice>,
    first_actual: Option<&TimelineSlice>,
    perfetto_overrun: Option<i64>,
) -> Compat {
    if frame_id.is_none() {
        return Compat::default();
    }
    let app_vsync_delay = match (draw.count > 0, expected, first_actual) {
        (true, Some(e), Some(a)) => Some(a.ts - e.ts),
        _ => None,
    };
    let cpu_time = match app_vsync_delay {
        Some(d) => d + do_frame_dur + draw.dur.unwrap_or(0),
        None => do_frame_dur + FALLBACK_CPU_NS,
    };
    let mut c = Compat {
        app_vsync_delay,
        cpu_time: Some(cpu_time),
        ui_time: Some(do_frame_dur),
        overrun_ns: perfetto_overrun,
        ..Compat::default()
    };
    if let Some(o) = perfetto_overrun {
        c.was_jank = iif(o > 0);
        c.was_slow_frame = iif(cpu_time > SLOW_NS);
        c.was_big_jank = iif(cpu_time > BIG_JANK_NS);
        c.was_huge_jank = iif(cpu_time > HUGE_JANK_NS);
    }
    c
}
