//! The frames table as a polars `DataFrame`: one row per [`FrameRow`] with the
//! columns docs/frames.md defines, plus `frame_index` (the row's index in the
//! whole-trace `FrameAnalysis::rows`, to join `FrameWhy`) and `scene`
//! (docs/metrics.md, "Frames table: extra columns"). Every output
//! (query, summaries, csv, json, parquet) starts from this table, so a column
//! is named and typed in exactly one place. Also [`TableBuilder`], which builds
//! it and the `fpsan query` tables.

use polars::prelude::*;

use crate::frames::FrameRow;

/// Builds a `DataFrame` from a slice of rows one column at a time, each column
/// a name and a typed closure over a row:
/// `TableBuilder::new(&rows).col("ts", |r| r.ts).col("name", |r| r.name.as_deref()).build()`.
/// A column's dtype is the closure's return type (`Option<_>` for nullable).
/// The columns are built at once, one per core, in `build`.
pub(crate) struct TableBuilder<'r, R> {
    rows: &'r [R],
    columns: Vec<Box<dyn FnOnce() -> Column + Send + 'r>>,
}

impl<'r, R: Sync> TableBuilder<'r, R> {
    pub(crate) fn new(rows: &'r [R]) -> Self {
        TableBuilder { rows, columns: Vec::new() }
    }

    /// Append column `name` with `f(row)` for every row.
    pub(crate) fn col<T>(mut self, name: &str, f: impl Fn(&'r R) -> T + Send + 'r) -> Self
    where
        Series: NamedFrom<Vec<T>, [T]>,
    {
        let (rows, name) = (self.rows, PlSmallStr::from(name));
        self.columns.push(Box::new(move || Column::new(name, rows.iter().map(f).collect::<Vec<T>>())));
        self
    }

    /// Append column `name` with the given values, one per row.
    pub(crate) fn values<T: Send + 'r>(mut self, name: &str, values: Vec<T>) -> Self
    where
        Series: NamedFrom<Vec<T>, [T]>,
    {
        debug_assert_eq!(values.len(), self.rows.len());
        let name = PlSmallStr::from(name);
        self.columns.push(Box::new(move || Column::new(name, values)));
        self
    }

    pub(crate) fn build(self) -> PolarsResult<DataFrame> {
        use rayon::prelude::*;
        let columns: Vec<Column> = self.columns.into_par_iter().map(|column| column()).collect();
        DataFrame::new(self.rows.len(), columns)
    }
}

/// Build the frames table. `indices[i]` is the whole-trace index of `rows[i]`
/// and `scenes[i]` its scene (both must have `rows.len()` entries).
pub(crate) fn frames_df(rows: &[&FrameRow], indices: &[usize], scenes: Vec<Option<String>>) -> PolarsResult<DataFrame> {
    debug_assert_eq!(rows.len(), indices.len());
    debug_assert_eq!(rows.len(), scenes.len());
    TableBuilder::new(rows)
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
        .values("scene", scenes)
        .build()
}

/// Build the presents table (docs/presents.md), one row per present.
pub(crate) fn presents_df(rows: &[crate::presents::PresentRow]) -> PolarsResult<DataFrame> {
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
