//! The presents table's rows and each layer's summary: fps, dropped vsyncs
//! against each frame's deadline, idle spans, drop levels, interval
//! percentiles, PerfDog's Jank / BigJank / Stutter and FrameTimeline's
//! verdict (docs/presents.md). The summary value types are shared with the
//! frames' per-app summary (`metrics`).

use serde::Serialize;

use super::deadline::{self, Requests};
use super::sources::{GraphicsApi, Stream};
use super::{Grid, LayerNames, PresentRow, PresentSource, TimelineVerdict};
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
    /// Matrix's paced fps over the presents with an interval: presents /
    /// Σ (dropped vsyncs + 1)·vsync period.
    pub fps: f64,
    /// (presents − 1) per second of wall time from the first present to the
    /// last ([`series::presents_fps_wall`]); 0 with fewer than two.
    pub fps_wall: f64,
    /// The spans in which the app asked for no frame (docs/presents.md, "Dropped vsyncs").
    pub idle: IdleSpans,
    /// The display's highest rate over the layer's presents.
    pub refresh_hz: f64,
    pub dropped_vsyncs: i64,
    /// Presents with an interval per drop level of their dropped vsyncs, and the vsyncs dropped per level.
    pub drop_level: Levels,
    pub drop_sum: Levels,
    /// Present-to-present intervals (wall time, idle spans included).
    pub interval_ns: Percentiles,
    /// Frame times: the intervals less their idle spans.
    pub frame_time_ns: Percentiles,
    /// PerfDog's vocabulary over the frame times.
    pub perfdog: PerfDog,
    /// FrameTimeline's verdict over the layer's actual surface frames
    /// (`frame_timeline` layers; empty for the others).
    #[serde(flatten)]
    pub timeline: TimelineVerdict,
}

/// Spans in which the app asked for no frame, each longer than 83.33 ms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct IdleSpans {
    pub count: i64,
    pub total_ns: i64,
}

impl IdleSpans {
    /// The idle spans of a layer's rows.
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a PresentRow>) -> IdleSpans {
        let mut idle = IdleSpans::default();
        for ns in rows.into_iter().filter_map(|r| r.idle_ns).filter(|&ns| ns > 0) {
            idle.count += 1;
            idle.total_ns += ns;
        }
        idle
    }
}

/// Appends the rows of `s` (its presents on the display grid, each measured
/// against its deadline: FrameTimeline's, else its app's doFrame in
/// `requests`) to `rows`; returns PerfDog's vocabulary over their frame times.
pub(crate) fn rows_of(
    s: &Stream,
    trace: &crate::model::Trace,
    names: &LayerNames,
    grid: Grid,
    requests: &Requests,
    rows: &mut Vec<PresentRow>,
) -> PerfDog {
    let periods: Vec<i64> = s.presents.iter().map(|p| grid.display.period_at(p.ts, grid.fallback)).collect();
    // Each present's due time, and (all but the first) its timing since the previous one.
    let mut dues: Vec<Option<i64>> = Vec::with_capacity(s.presents.len());
    let mut timings: Vec<deadline::Timing> = Vec::with_capacity(s.presents.len());
    for (i, p) in s.presents.iter().enumerate() {
        let Some(prev) = i.checked_sub(1).map(|j| s.presents[j].ts) else {
            dues.push(p.due_ts);
            continue;
        };
        let due = p.due_ts.or_else(|| requests.due(s.pid, prev, p.ts, periods[i]));
        dues.push(due);
        timings.push(deadline::timing(prev, p.ts, due, periods[i]));
    }
    let frame_times: Vec<i64> = timings.iter().map(|t| t.frame_time_ns).collect();
    let (summary, flags) = perfdog(&frame_times);
    // The process's name, else (or for a comm cut from it) the package its layers name.
    let own = s.upid.and_then(|u| trace.process(u).name.as_deref());
    let process = s.pid.map_or(own, |pid| names.name(own, pid)).map(str::to_string);
    let thread = s.producer.map(|u| trace.thread(u));
    for (i, p) in s.presents.iter().enumerate() {
        let timing = i.checked_sub(1).map(|j| timings[j]);
        let dropped_vsyncs = timing.map(|t| t.dropped);
        let (perfdog_jank, perfdog_big_jank) = i.checked_sub(1).map_or((false, false), |j| flags[j]);
        rows.push(PresentRow {
            process: process.clone(),
            pid: s.pid,
            layer: s.layer.clone(),
            source: s.source,
            tid: thread.map(|t| t.tid),
            thread: thread.and_then(|t| t.name.as_deref().map(str::to_string)),
            ts: p.ts,
            interval_ns: i.checked_sub(1).map(|j| p.ts - s.presents[j].ts),
            vsync_period_ns: periods[i],
            due_ts: dues[i],
            idle_ns: timing.map(|t| t.idle_ns),
            frame_time_ns: timing.map(|t| t.frame_time_ns),
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
    /// The summary of stream `s`, whose rows are `rows`, PerfDog's
    /// vocabulary over them `perfdog` and FrameTimeline's verdict on its
    /// actual frames `timeline`.
    pub(crate) fn of(s: &Stream, rows: &[PresentRow], perfdog: PerfDog, timeline: TimelineVerdict) -> LayerSummary {
        // The layer as a series: each present with an interval (the first
        // has none), so its fps and levels are the headline's definitions.
        let series: Vec<series::Frame> = rows.iter().filter_map(PresentRow::series_frame).collect();
        let fps = series::fps(&series);
        let (drop_level, drop_sum) = series::drop_levels(&series);
        let (first_ts, last_ts) = (rows.first().map_or(0, |r| r.ts), rows.last().map_or(0, |r| r.ts));
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
            fps_wall: series::presents_fps_wall(rows.len() as i64, first_ts, last_ts),
            idle: IdleSpans::of(rows),
            refresh_hz: rows.iter().map(|r| r.vsync_period_ns).min().map_or(0.0, |p| 1e9 / p as f64),
            dropped_vsyncs: rows.iter().filter_map(|r| r.dropped_vsyncs).sum(),
            drop_level,
            drop_sum,
            interval_ns: Percentiles::of(rows.iter().filter_map(|r| r.interval_ns).collect()),
            frame_time_ns: Percentiles::of(series.iter().map(|f| f.cost_ns).collect()),
            perfdog,
            timeline,
        }
    }
}
