//! The analysis' row tables: `frames` (one row per doFrame, docs/frames.md,
//! plus `frame_index` and `scene`, docs/metrics.md), `presents` (one row per
//! buffer a layer presented, docs/presents.md) and `flutter_frames` (one row
//! per Flutter engine frame, docs/presents.md).

use polars::prelude::*;

use super::TableBuilder;
use crate::frames::{FrameAnalysis, FrameRow};

/// The frames table of the rows of `analysis` at `indices` (whole-trace
/// indices, as `metrics::kept_frames` gives them) with their `scenes`.
pub fn frames(analysis: &FrameAnalysis, indices: &[usize], scenes: &[Option<String>]) -> PolarsResult<DataFrame> {
    debug_assert_eq!(indices.len(), scenes.len());
    let rows: Vec<&FrameRow> = indices.iter().map(|&i| &analysis.rows[i]).collect();
    TableBuilder::new(&rows)
        .values("frame_index", indices.iter().map(|&i| i as i64).collect())
        .col("process", |r| r.process.as_deref())
        .col("pid", |r| r.pid)
        .col("tid", |r| r.tid)
        .col("thread", |r| r.thread.as_deref())
        .col("frame_id", |r| r.frame_id)
        .col("ts", |r| r.ts)
        .col("do_frame_dur", |r| r.do_frame_dur)
        .col("vsync_ts", |r| r.vsync_ts)
        .col("vsync_source", |r| r.vsync_source.map(|v| v.as_str()))
        .col("frame_interval_ns", |r| r.frame_interval_ns)
        .col("interval_source", |r| r.interval_source.as_str())
        .col("refresh_hz", |r| r.refresh_hz)
        .col("jitter_ns", |r| r.jitter_ns)
        .col("skipped_frames", |r| r.skipped_frames)
        .col("frame_time_ns", |r| r.frame_time_ns)
        .col("input_dur", |r| r.input_dur)
        .col("animation_dur", |r| r.animation_dur)
        .col("insets_animation_dur", |r| r.insets_animation_dur)
        .col("traversal_dur", |r| r.traversal_dur)
        .col("commit_dur", |r| r.commit_dur)
        .col("commit_ts", |r| r.commit_ts)
        .col("commit_jitter_ns", |r| r.commit_jitter_ns)
        .col("commit_corrected", |r| r.commit_corrected)
        .col("corrected_frame_time_ns", |r| r.corrected_frame_time_ns)
        .col("frame_cost_ns", |r| r.frame_cost_ns)
        .col("dropped_frames", |r| r.dropped_frames)
        .col("drop_level", |r| r.drop_level.as_str())
        .col("draw_frame_ts", |r| r.draw_frame_ts)
        .col("draw_frame_dur", |r| r.draw_frame_dur)
        .col("draw_frame_count", |r| r.draw_frame_count)
        .col("expected_ts", |r| r.expected_ts)
        .col("expected_end", |r| r.expected_end)
        .col("actual_ts", |r| r.actual_ts)
        .col("actual_end", |r| r.actual_end)
        .col("overrun_ns", |r| r.overrun_ns)
        .col("perfetto_overrun_ns", |r| r.perfetto_overrun_ns)
        .col("jank_type", |r| r.jank_type.as_deref())
        .col("present_type", |r| r.present_type.map(|p| p.as_str()))
        .col("jank_tag", |r| r.jank_tag.map(|t| t.as_str()))
        .col("jank_severity", |r| r.jank_severity.map(|s| s.as_str()))
        .col("present_delay_ms", |r| r.present_delay_ms)
        .col("layer_name", |r| r.layer_name.as_deref())
        .col("layer_count", |r| r.layer_count)
        .col("app_vsync_delay", |r| r.app_vsync_delay)
        .col("cpu_time", |r| r.cpu_time)
        .col("ui_time", |r| r.ui_time)
        .col("was_jank", |r| r.was_jank)
        .col("was_slow_frame", |r| r.was_slow_frame)
        .col("was_big_jank", |r| r.was_big_jank)
        .col("was_huge_jank", |r| r.was_huge_jank)
        .col("data_loss", |r| r.data_loss)
        .col("blocker_tid", |r| r.top_blocker().map(|b| b.tid))
        .col("blocker_thread", |r| r.top_blocker().and_then(|b| b.thread.as_deref()))
        .col("blocker_slice", |r| r.top_blocker().and_then(|b| b.slice.as_deref()))
        .col("blocker_ns", |r| r.top_blocker().map(|b| b.ns))
        .values("scene", scenes.to_vec())
        .build()
}

/// Build the presents table (docs/presents.md), one row per present.
pub fn presents(rows: &[crate::presents::PresentRow]) -> PolarsResult<DataFrame> {
    TableBuilder::new(rows)
        .col("process", |r| r.process.as_deref())
        .col("pid", |r| r.pid)
        .col("layer", |r| r.layer.as_str())
        .col("source", |r| r.source.as_str())
        .col("tid", |r| r.tid)
        .col("thread", |r| r.thread.as_deref())
        .col("ts", |r| r.ts)
        .col("interval_ns", |r| r.interval_ns)
        .col("vsync_period_ns", |r| r.vsync_period_ns)
        .col("due_ts", |r| r.due_ts)
        .col("idle_ns", |r| r.idle_ns)
        .col("frame_time_ns", |r| r.frame_time_ns)
        .col("dropped_vsyncs", |r| r.dropped_vsyncs)
        .col("drop_level", |r| r.drop_level.as_str())
        .col("frame_id", |r| r.frame_id)
        .col("present_type", |r| r.present_type.map(|p| p.as_str()))
        .col("jank_type", |r| r.jank_type.as_deref())
        .col("jank_tag", |r| r.jank_tag.map(|t| t.as_str()))
        .col("jank_severity", |r| r.jank_severity.map(|s| s.as_str()))
        .col("present_delay_ms", |r| r.present_delay_ms)
        .col("perfdog_jank", |r| r.perfdog_jank)
        .col("perfdog_big_jank", |r| r.perfdog_big_jank)
        .build()
}

/// Build the Flutter frames table (docs/presents.md, "Flutter frames"), one
/// row per engine frame.
pub fn flutter_frames(rows: &[crate::presents::FlutterFrame]) -> PolarsResult<DataFrame> {
    TableBuilder::new(rows)
        .col("process", |r| r.process.as_deref())
        .col("pid", |r| r.pid)
        .col("ui_tid", |r| r.ui_tid)
        .col("raster_tid", |r| r.raster_tid)
        .col("build_ts", |r| r.build_ts)
        .col("build_dur", |r| r.build_dur)
        .col("raster_ts", |r| r.raster_ts)
        .col("raster_dur", |r| r.raster_dur)
        .col("present_ts", |r| r.present_ts)
        .col("vsync_period_ns", |r| r.vsync_period_ns)
        .col("total_ns", |r| r.total_ns)
        .col("dropped_vsyncs", |r| r.dropped_vsyncs)
        .col("drop_level", |r| r.drop_level.as_str())
        .build()
}
