//! The frames table as a polars `DataFrame`: one row per [`FrameRow`], SPEC §3
//! column names in SPEC order, plus `frame_index` (the row's index in the
//! whole-trace `FrameAnalysis::rows`, to join `FrameWhy`) and `scene`.
//! Every output (query, summaries, csv, json, parquet) starts from this table,
//! so a column is named and typed in exactly one place.

use polars::prelude::*;

use crate::frames::FrameRow;

/// Build the frames table. `indices[i]` is the whole-trace index of `rows[i]`
/// and `scenes[i]` its scene (both must have `rows.len()` entries).
pub fn frames_df(rows: &[&FrameRow], indices: &[usize], scenes: &[Option<String>]) -> PolarsResult<DataFrame> {
    debug_assert_eq!(rows.len(), indices.len());
    debug_assert_eq!(rows.len(), scenes.len());
    macro_rules! col {
        ($name:literal, $f:expr) => {
            Column::new($name.into(), rows.iter().map($f).collect::<Vec<_>>())
        };
    }
    let s = |o: &Option<String>| o.clone();
    let columns = vec![
        Column::new(
            "frame_index".into(),
            indices.iter().map(|&i| i as i64).collect::<Vec<i64>>(),
        ),
        col!("process", |r| s(&r.process)),
        col!("pid", |r| r.pid),
        col!("tid", |r| r.tid),
        col!("thread", |r| s(&r.thread)),
        col!("frame_id", |r| r.frame_id),
        col!("ts", |r| r.ts),
        col!("do_frame_dur", |r| r.do_frame_dur),
        col!("vsync_ts", |r| r.vsync_ts),
        col!("vsync_source", |r| r.vsync_source.map(|v| v.as_str().to_string())),
        col!("frame_interval_ns", |r| r.frame_interval_ns),
        col!("interval_source", |r| r.interval_source.as_str().to_string()),
        col!("refresh_hz", |r| r.refresh_hz),
        col!("jitter_ns", |r| r.jitter_ns),
        col!("skipped_frames", |r| r.skipped_frames),
        col!("frame_time_ns", |r| r.frame_time_ns),
        col!("input_dur", |r| r.input_dur),
        col!("animation_dur", |r| r.animation_dur),
        col!("insets_animation_dur", |r| r.insets_animation_dur),
        col!("traversal_dur", |r| r.traversal_dur),
        col!("commit_dur", |r| r.commit_dur),
        col!("commit_ts", |r| r.commit_ts),
        col!("commit_jitter_ns", |r| r.commit_jitter_ns),
        col!("commit_corrected", |r| r.commit_corrected),
        col!("corrected_frame_time_ns", |r| r.corrected_frame_time_ns),
        col!("frame_cost_ns", |r| r.frame_cost_ns),
        col!("dropped_frames", |r| r.dropped_frames),
        col!("drop_level", |r| r.drop_level.as_str().to_string()),
        col!("draw_frame_ts", |r| r.draw_frame_ts),
        col!("draw_frame_dur", |r| r.draw_frame_dur),
        col!("draw_frame_count", |r| r.draw_frame_count),
        col!("expected_ts", |r| r.expected_ts),
        col!("expected_end", |r| r.expected_end),
        col!("actual_ts", |r| r.actual_ts),
        col!("actual_end", |r| r.actual_end),
        col!("overrun_ns", |r| r.overrun_ns),
        col!("surface_overrun_ns", |r| r.surface_overrun_ns),
        col!("jank_type", |r| s(&r.jank_type)),
        col!("present_type", |r| s(&r.present_type)),
        col!("layer_name", |r| s(&r.layer_name)),
        col!("layer_count", |r| r.layer_count),
        col!("app_vsync_delay", |r| r.app_vsync_delay),
        col!("cpu_time", |r| r.cpu_time),
        col!("ui_time", |r| r.ui_time),
        col!("was_jank", |r| r.was_jank),
        col!("was_slow_frame", |r| r.was_slow_frame),
        col!("was_big_jank", |r| r.was_big_jank),
        col!("was_huge_jank", |r| r.was_huge_jank),
        Column::new("scene".into(), scenes.to_vec()),
    ];
    DataFrame::new(rows.len(), columns)
}
