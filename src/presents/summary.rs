//! The presents table's rows and each layer's summary: fps, dropped vsyncs,
//! drop levels, interval percentiles and PerfDog's Jank / BigJank / Stutter
//! (docs/presents.md). The summary value types are shared with the frames'
//! per-app summary (`metrics`).

use std::collections::BTreeMap;

use serde::Serialize;

use super::sources::{GraphicsApi, Stream};
use super::{Grid, LayerNames, PresentRow, PresentSource};
use crate::frames::DropLevel;
use crate::series::{self, perfdog, Levels, Percentiles, PerfDog};

/// One layer's presents summarised (docs/presents.md, "Per layer").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayerSummary {
    pub process: Option<String>,
    pub pid: Option<i32>,
    pub layer: String,
    pub source: PresentSource,
    pub tid: Option<i32>,
    pub thread: Option<String>,
    pub api: Option<GraphicsApi>,
    pub presents: i64,
    pub first_ts: i64,
    pub last_ts: i64,
    /// (presents − 1) per second from the first present to the last.
    pub fps: f64,
    /// The display's highest rate over the layer's presents.
    pub refresh_hz: f64,
    pub dropped_vsyncs: i64,
    /// Presents with an interval per drop level of their dropped vsyncs, and the vsyncs dropped per level.
    pub drop_level: Levels,
    pub drop_sum: Levels,
    pub interval_ns: Percentiles,
    pub perfdog: PerfDog,
    /// FrameTimeline jank type → presents (`"A, B"` counts for A and for B).
    pub jank_types: BTreeMap<String, i64>,
    /// Perfetto's jank tag → presents (`Self Jank` is the layer's own).
    pub jank_tags: BTreeMap<String, i64>,
}

/// Appends the rows of `s` (its presents on the display grid) to `rows`;
/// returns PerfDog's vocabulary over their intervals.
pub(crate) fn rows_of(
    s: &Stream,
    trace: &crate::model::Trace,
    names: &LayerNames,
    grid: Grid,
    rows: &mut Vec<PresentRow>,
) -> PerfDog {
    let intervals: Vec<i64> = s.presents.windows(2).map(|w| w[1].ts - w[0].ts).collect();
    let (summary, flags) = perfdog(&intervals);
    // The process's name, else (or for a comm cut from it) the package its layers name.
    let own = s.upid.and_then(|u| trace.process(u).name.as_deref());
    let process = s.pid.map_or(own, |pid| names.name(own, pid)).map(str::to_string);
    let thread = s.producer.map(|u| trace.thread(u));
    for (i, p) in s.presents.iter().enumerate() {
        let vsync_period_ns = grid.display.period_at(p.ts, grid.fallback);
        let interval_ns = i.checked_sub(1).map(|j| intervals[j]);
        let dropped_vsyncs = interval_ns.map(|iv| ((iv + vsync_period_ns / 2) / vsync_period_ns - 1).max(0));
        let (perfdog_jank, perfdog_big_jank) = i.checked_sub(1).map_or((false, false), |j| flags[j]);
        rows.push(PresentRow {
            process: process.clone(),
            pid: s.pid,
            layer: s.layer.clone(),
            source: s.source,
            tid: thread.map(|t| t.tid),
            thread: thread.and_then(|t| t.name.as_deref().map(str::to_string)),
            ts: p.ts,
            interval_ns,
            vsync_period_ns,
            dropped_vsyncs,
            drop_level: DropLevel::from_dropped(dropped_vsyncs.unwrap_or(0)),
            frame_id: p.frame_id,
            present_type: p.present_type,
            jank_type: p.jank_type.as_deref().map(str::to_string),
            jank_tag: p.jank_tag,
            jank_severity: p.jank_severity,
            present_delay_ms: p.present_delay_ms,
            perfdog_jank,
            perfdog_big_jank,
        });
    }
    summary
}

impl LayerSummary {
    /// The summary of stream `s`, whose rows are `rows` and PerfDog's
    /// vocabulary over them `perfdog`.
    pub(crate) fn of(s: &Stream, rows: &[PresentRow], perfdog: PerfDog) -> LayerSummary {
        // The layer as a series: each present with an interval (the first
        // has none), so its fps and levels are the headline's definitions.
        let series: Vec<series::Frame> = rows.iter().filter_map(series::Frame::from_present).collect();
        let fps = series::fps(series::Kind::Presents, &series);
        let (drop_level, drop_sum) = series::drop_levels(&series);
        let (first_ts, last_ts) = (rows.first().map_or(0, |r| r.ts), rows.last().map_or(0, |r| r.ts));
        let mut jank_types: BTreeMap<String, i64> = BTreeMap::new();
        let mut jank_tags: BTreeMap<String, i64> = BTreeMap::new();
        for r in rows {
            if let Some(tag) = r.jank_tag {
                *jank_tags.entry(tag.as_str().to_string()).or_default() += 1;
            }
            for t in r.jank_type.iter().flat_map(|j| j.split(", ")) {
                *jank_types.entry(t.to_string()).or_default() += 1;
            }
        }
        let first = rows.first();
        LayerSummary {
            process: first.and_then(|r| r.process.clone()),
            pid: s.pid,
            layer: s.layer.clone(),
            source: s.source,
            tid: first.and_then(|r| r.tid),
            thread: first.and_then(|r| r.thread.clone()),
            api: s.api,
            presents: rows.len() as i64,
            first_ts,
            last_ts,
            // One present has no interval: 0 fps, not undefined.
            fps: if fps.is_nan() { 0.0 } else { fps },
            refresh_hz: rows.iter().map(|r| r.vsync_period_ns).min().map_or(0.0, |p| 1e9 / p as f64),
            dropped_vsyncs: rows.iter().filter_map(|r| r.dropped_vsyncs).sum(),
            drop_level,
            drop_sum,
            interval_ns: Percentiles::of(series.iter().map(|f| f.cost_ns).collect()),
            perfdog,
            jank_types,
            jank_tags,
        }
    }
}
