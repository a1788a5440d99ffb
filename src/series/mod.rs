//! A series of frames and every number fpsan computes from one: the one
//! definition of fps (paced and per second of wall time), drop levels,
//! dropped frames, percentiles and PerfDog's vocabulary (docs/metrics.md).
//! An app's doFrames are a series; so are the presents of a layer (the
//! `presents` stage turns them into [`Frame`]s: this module reads only
//! `frames`, below it). `analyze`'s summaries, its scenes and jank CUJs, each
//! layer's summary, `compare`'s per-run values and its gates all evaluate
//! through here; the SQL in `queries/` is a tested example of the same
//! numbers, not a second implementation.
//!
//! Pure data and arithmetic: no polars, so the frames-only build (the fuzz
//! targets) has it too.

use serde::Serialize;

use crate::frames::{DropLevel, FrameRow};

mod metric;

pub use metric::{Direction, Metric, Role, Values};

/// Choreographer logs "Skipped N frames!" from this many skipped frames on.
pub const SKIPPED_FRAME_WARNING_LIMIT: i64 = 30;

/// One frame of a series, reduced to what the numbers need.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    pub ts: i64,
    /// A doFrame's vsync-to-end cost; a present's frame time (its interval
    /// since the previous present, less the idle span before its request).
    pub cost_ns: i64,
    /// A doFrame's dropped frames; a present's dropped vsyncs.
    pub dropped: i64,
    /// The frame interval (the display's vsync period) in force.
    pub interval_ns: i64,
    pub refresh_hz: f64,
    pub skipped: i64,
    pub overrun_ns: Option<i64>,
    pub was_jank: Option<bool>,
    /// Index into the run's scene names (compare).
    pub scene: u32,
}

impl Frame {
    /// A doFrame row as a frame of scene `scene` (a present becomes one in
    /// `presents`, which reads this module, not the other way round).
    pub fn from_row(r: &FrameRow, scene: u32) -> Frame {
        Frame {
            ts: r.ts,
            cost_ns: r.frame_cost_ns,
            dropped: r.dropped_frames,
            interval_ns: r.frame_interval_ns,
            refresh_hz: r.refresh_hz,
            skipped: r.skipped_frames,
            overrun_ns: r.overrun_ns,
            was_jank: r.was_jank,
            scene,
        }
    }
}

/// Matrix's pacing of a series, in one pass: its frames, the vsync time
/// they took, Σ (dropped + 1)·I (`paced_ns`), and the highest refresh rate
/// they ran at (NaN without frames).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pacing {
    pub frames: i64,
    pub paced_ns: i64,
    pub refresh_hz: f64,
}

impl Pacing {
    pub fn of<'a>(frames: impl IntoIterator<Item = &'a Frame>) -> Pacing {
        let mut p = Pacing { frames: 0, paced_ns: 0, refresh_hz: f64::NAN };
        for f in frames {
            p.frames += 1;
            p.paced_ns += (f.dropped + 1) * f.interval_ns;
            p.refresh_hz = p.refresh_hz.max(f.refresh_hz);
        }
        p
    }

    /// The fps of the series: see [`fps`].
    pub fn fps(&self) -> f64 {
        if self.paced_ns <= 0 {
            return f64::NAN;
        }
        self.refresh_hz.min(1e9 * self.frames as f64 / self.paced_ns as f64)
    }
}

/// The fps of a series (docs/metrics.md, "fps"), doFrames or presents alike:
/// Matrix's paced formula without its 60 cap, frames / Σ (dropped + 1)·I,
/// capped at the highest refresh rate the frames ran at. A present's dropped
/// vsyncs are counted against its deadline, so an idle span costs nothing.
/// NaN without frames.
pub fn fps<'a>(frames: impl IntoIterator<Item = &'a Frame>) -> f64 {
    Pacing::of(frames).fps()
}

/// Frames per second of wall time (docs/metrics.md, "Wall-time FPS"):
/// `frames` counted over `wall_ns`, `frames · 1e9 / wall_ns`. 0 without wall
/// time (no frame, or a layer's single present): nothing was shown per
/// second, as a layer's fps with fewer than two presents (docs/presents.md).
pub fn fps_wall(frames: i64, wall_ns: i64) -> f64 {
    if wall_ns > 0 {
        frames as f64 * 1e9 / wall_ns as f64
    } else {
        0.0
    }
}

/// The rate of `presents` presents, the first at `first_ts` and the last at
/// `last_ts`: their intervals per second of wall time,
/// `(presents − 1) · 1e9 / (last_ts − first_ts)`, idle spans included; 0 with
/// fewer than two (a layer's `fps_wall`, a Flutter app's `fps`: docs/presents.md).
pub fn presents_fps_wall(presents: i64, first_ts: i64, last_ts: i64) -> f64 {
    fps_wall((presents - 1).max(0), last_ts - first_ts)
}

/// Frames per drop level and dropped frames per level (BEST counts max(d, 0)).
pub fn drop_levels<'a>(frames: impl IntoIterator<Item = &'a Frame>) -> (Levels, Levels) {
    drop_levels_of(frames.into_iter().map(|f| f.dropped))
}

/// [`drop_levels`] of frames given by their dropped frames (or vsyncs) alone.
pub fn drop_levels_of(dropped: impl IntoIterator<Item = i64>) -> (Levels, Levels) {
    let (mut count, mut sum) = (Levels::default(), Levels::default());
    for d in dropped {
        let level = DropLevel::from_dropped(d);
        count.0[level.index()] += 1;
        sum.0[level.index()] += if level == DropLevel::Best { d.max(0) } else { d };
    }
    (count, sum)
}

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
    /// The sum over the levels from `from` up.
    pub fn at_least(&self, from: DropLevel) -> i64 {
        self.0[from.index()..].iter().sum()
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
    /// Of `values` (sorted here): the value at sorted position ⌈n·p⌉, 1-based
    /// (SQL's `QUANTILE_DISC`, polars' nearest rank).
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

#[cfg(test)]
mod tests;
