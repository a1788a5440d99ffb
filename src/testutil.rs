//! The `FrameRow` fixture every unit test builds frames with (traces are
//! built with `model::testutil::TB`; a whole report with
//! `report::fixture`). Compiled for tests only.

use crate::frames::{DropLevel, FrameRow, VsyncSource};

pub(crate) const MS: i64 = 1_000_000;
/// The frame interval at 60 Hz.
pub(crate) const I60: i64 = 16_666_667;

/// A frame of process `app<pid>` on thread `pid`: doFrame starts at `ts`,
/// on its vsync, and the whole vsync-to-commit `cost_ns` is doFrame; one
/// DrawFrame (no time); dropped frames and drop level from `cost_ns /
/// interval_ns`. Override fields with `FrameRow { .., ..frame(..) }`.
pub(crate) fn frame(pid: i32, ts: i64, interval_ns: i64, cost_ns: i64) -> FrameRow {
    let dropped = (cost_ns / interval_ns).max(0);
    FrameRow {
        process: Some(format!("app{pid}")),
        pid,
        tid: pid,
        ts,
        do_frame_dur: cost_ns,
        vsync_ts: Some(ts),
        frame_interval_ns: interval_ns,
        refresh_hz: 1e9 / interval_ns as f64,
        frame_cost_ns: cost_ns,
        dropped_frames: dropped,
        drop_level: DropLevel::from_dropped(dropped),
        draw_frame_count: 1,
        ..Default::default()
    }
}

/// The `k`-th frame of app `name` at 60 Hz with every part filled in: main
/// thread `main`, vsync id 1000 + `k` (FrameTimeline vsync) 1 ms before the
/// doFrame at `ts`, which holds input (even `k` only, 0.5 ms), animation
/// (1 ms), traversal (the rest) and commit (1 ms); RenderThread 3 ms right
/// after; from `k` = 20 on a FrameTimeline match presenting 10 ms after
/// the doFrame (Late Present past 2 intervals, App Deadline Missed when it
/// dropped a frame); layer `name/name.MainActivity#0`. `cost` is vsync to
/// doFrame end.
pub(crate) fn app_frame(pid: i32, name: &str, ts: i64, cost: i64, k: i64) -> FrameRow {
    let jitter = MS;
    let dur = cost - jitter;
    let d = cost / I60;
    let timeline = k >= 20;
    FrameRow {
        process: Some(name.into()),
        thread: Some("main".into()),
        frame_id: Some(1000 + k),
        do_frame_dur: dur,
        vsync_ts: Some(ts - jitter),
        vsync_source: Some(VsyncSource::FrameTimeline),
        jitter_ns: Some(jitter),
        input_dur: (k % 2 == 0).then_some(MS / 2),
        animation_dur: Some(MS),
        traversal_dur: Some(dur - 3 * MS),
        commit_dur: Some(MS),
        draw_frame_ts: Some(ts + dur),
        draw_frame_dur: Some(3 * MS),
        actual_end: timeline.then_some(ts + dur + 10 * MS),
        expected_end: timeline.then_some(ts - jitter + 2 * I60),
        overrun_ns: timeline.then_some(dur + 10 * MS + jitter - 2 * I60),
        perfetto_overrun_ns: timeline.then_some(dur + 10 * MS + jitter - 2 * I60),
        present_type: timeline.then(|| {
            if dur + 10 * MS + jitter > 2 * I60 {
                crate::model::PresentType::Late
            } else {
                crate::model::PresentType::OnTime
            }
        }),
        jank_type: timeline.then(|| if d >= 1 { "App Deadline Missed" } else { "None" }.into()),
        layer_name: Some(format!("{name}/{name}.MainActivity#0")),
        layer_count: 1,
        ..frame(pid, ts, I60, cost)
    }
}
