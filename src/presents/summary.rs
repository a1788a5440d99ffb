//! The presents table's rows and each layer's summary: fps, dropped vsyncs,
//! drop levels, interval percentiles and PerfDog's Jank / BigJank / Stutter
//! (docs/presents.md). The summary value types are shared with the frames'
//! per-app summary (`metrics`).

use std::collections::BTreeMap;

use serde::Serialize;

use super::sources::{GraphicsApi, Stream};
use super::{Grid, PresentRow, PresentSource};
use crate::frames::DropLevel;

/// Counts (or sums) per Matrix drop level, indexed by [`DropLevel`]; in JSON
/// an object keyed by the level names, smooth to frozen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Levels(pub [i64; 5]);

impl Levels {
    pub fn values(&self) -> [i64; 5] {
        self.0
    }
    /// (level, value), smooth to frozen.
    pub fn iter(&self) -> impl Iterator<Item = (DropLevel, i64)> + '_ {
        DropLevel::ALL.into_iter().zip(self.0)
    }
}

impl std::ops::Index<DropLevel> for Levels {
    type Output = i64;
    fn index(&self, l: DropLevel) -> &i64 {
        &self.0[l.index()]
    }
}

impl Serialize for Levels {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(5))?;
        for (level, v) in self.iter() {
            m.serialize_entry(level.as_str(), &v)?;
        }
        m.end()
    }
}

/// Nearest-rank percentiles (ns); null when nothing has the value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Percentiles {
    pub p50: Option<i64>,
    pub p90: Option<i64>,
    pub p95: Option<i64>,
    pub p99: Option<i64>,
    pub max: Option<i64>,
}

impl Percentiles {
    /// Of `values` (sorted here): the value at sorted position ⌈n·p⌉, 1-based.
    pub fn of(mut values: Vec<i64>) -> Percentiles {
        values.sort_unstable();
        let at = |p: f64| {
            let n = values.len();
            (n > 0).then(|| values[((n as f64 * p).ceil() as usize).clamp(1, n) - 1])
        };
        Percentiles { p50: at(0.5), p90: at(0.9), p95: at(0.95), p99: at(0.99), max: values.last().copied() }
    }
}

/// PerfDog's jank vocabulary over a series of frame times.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PerfDog {
    pub jank: i64,
    pub big_jank: i64,
    pub jank_time_ns: i64,
    pub total_time_ns: i64,
    /// jank_time_ns / total_time_ns.
    pub stutter: f64,
}

/// PerfDog's Jank and BigJank flags of each frame time (present-to-present
/// interval): a Jank is longer than twice the mean of the previous three and
/// than 83.33 ms (`3·t > 2·Σprev3` and `3·t > 250 ms`, exact in integers); a
/// BigJank the same, longer than 125 ms. The first three have no history.
pub fn perfdog(frame_times: &[i64]) -> (PerfDog, Vec<(bool, bool)>) {
    let mut d = PerfDog::default();
    let mut flags = Vec::with_capacity(frame_times.len());
    for (i, &t) in frame_times.iter().enumerate() {
        let slow = i >= 3 && 3 * t > 2 * frame_times[i - 3..i].iter().sum::<i64>();
        let (jank, big) = (slow && 3 * t > 250_000_000, slow && t > 125_000_000);
        d.jank += jank as i64;
        d.big_jank += big as i64;
        d.jank_time_ns += if jank { t } else { 0 };
        d.total_time_ns += t;
        flags.push((jank, big));
    }
    d.stutter = if d.total_time_ns > 0 { d.jank_time_ns as f64 / d.total_time_ns as f64 } else { 0.0 };
    (d, flags)
}

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
    /// Presents per drop level of their dropped vsyncs, and the vsyncs dropped per level.
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
pub(crate) fn rows_of(s: &Stream, trace: &crate::model::Trace, grid: Grid, rows: &mut Vec<PresentRow>) -> PerfDog {
    let intervals: Vec<i64> = s.presents.windows(2).map(|w| w[1].ts - w[0].ts).collect();
    let (summary, flags) = perfdog(&intervals);
    let process = s.upid.and_then(|u| trace.process(u).name.as_deref().map(str::to_string));
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
        let intervals: Vec<i64> = rows.iter().filter_map(|r| r.interval_ns).collect();
        let (first_ts, last_ts) = (rows.first().map_or(0, |r| r.ts), rows.last().map_or(0, |r| r.ts));
        let span = last_ts - first_ts;
        let mut drop_level = Levels::default();
        let mut drop_sum = Levels::default();
        let mut jank_types: BTreeMap<String, i64> = BTreeMap::new();
        let mut jank_tags: BTreeMap<String, i64> = BTreeMap::new();
        for r in rows {
            if let Some(tag) = r.jank_tag {
                *jank_tags.entry(tag.as_str().to_string()).or_default() += 1;
            }
            drop_level.0[r.drop_level.index()] += 1;
            drop_sum.0[r.drop_level.index()] += r.dropped_vsyncs.unwrap_or(0);
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
            fps: if span > 0 { (rows.len() - 1) as f64 * 1e9 / span as f64 } else { 0.0 },
            refresh_hz: rows.iter().map(|r| r.vsync_period_ns).min().map_or(0.0, |p| 1e9 / p as f64),
            dropped_vsyncs: rows.iter().filter_map(|r| r.dropped_vsyncs).sum(),
            drop_level,
            drop_sum,
            interval_ns: Percentiles::of(intervals),
            perfdog,
            jank_types,
            jank_tags,
        }
    }
}
