//! Every metric of a series: its name, unit, which way is better, what it
//! means, and its one evaluation ([`Values::of`]). `compare` compares them
//! run by run, `--fail-if` gates name them, and `analyze`'s summaries read
//! their shared parts ([`super::fps`], [`super::drop_levels`],
//! [`super::Percentiles`]) from the same definitions.

use serde::Serialize;

use super::{drop_levels, fps, fps_wall, Frame, Percentiles, SKIPPED_FRAME_WARNING_LIMIT};
use crate::frames::DropLevel;

/// Which way a metric improves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Higher is better (e.g. FPS).
    Higher,
    /// Lower is better (e.g. jank percentage, P90 frame cost).
    Lower,
    /// Described, never judged better or worse (e.g. frame count).
    Neutral,
}

/// What a metric's comparison may conclude.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// One of the headline's three: tested as a family (Holm).
    Headline,
    /// Tested on its own at `--alpha`.
    Secondary,
    /// Described only: no test, no verdict, no gate on its change.
    Descriptive,
}

/// A metric of a series (docs/metrics.md; docs/compare.md lists how
/// `compare` reads each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    Frames,
    Fps,
    FpsWall,
    FrameCostP50,
    FrameCostP90,
    FrameCostP95,
    FrameCostP99,
    FrameCostMax,
    JankPct,
    DroppedPer100,
    NormalPlusPer1000,
    MiddlePlusPer1000,
    HighPlusPer1000,
    FrozenPer1000,
    PerfettoJankPct,
    OverrunP90,
    SkippedEvents,
}

use Direction::{Higher, Lower, Neutral};

impl Metric {
    /// Every metric, in output order.
    pub const ALL: [Metric; 17] = [
        Metric::Frames,
        Metric::Fps,
        Metric::FpsWall,
        Metric::FrameCostP50,
        Metric::FrameCostP90,
        Metric::FrameCostP95,
        Metric::FrameCostP99,
        Metric::FrameCostMax,
        Metric::JankPct,
        Metric::DroppedPer100,
        Metric::NormalPlusPer1000,
        Metric::MiddlePlusPer1000,
        Metric::HighPlusPer1000,
        Metric::FrozenPer1000,
        Metric::PerfettoJankPct,
        Metric::OverrunP90,
        Metric::SkippedEvents,
    ];

    /// Its JSON name, the one `--fail-if` rules use.
    pub fn name(self) -> &'static str {
        self.def().0
    }

    pub fn unit(self) -> &'static str {
        self.def().1
    }

    pub fn direction(self) -> Direction {
        self.def().2
    }

    /// How people read it (the tables' label).
    pub fn label(self) -> &'static str {
        self.def().3
    }

    /// What it is, in one sentence (docs/metrics.md has the formulas).
    pub fn meaning(self) -> &'static str {
        self.def().4
    }

    /// (name, unit, direction, label, meaning): the one table of them.
    fn def(self) -> (&'static str, &'static str, Direction, &'static str, &'static str) {
        use Metric::*;
        match self {
            Frames => ("frames", "frames", Neutral, "frames", "frames in the series"),
            Fps => ("fps", "fps", Higher, "fps", "frames / Σ (dropped + 1)·I, capped at the refresh rate (a present's dropped vsyncs counted against its deadline)"),
            FpsWall => ("fps_wall", "fps", Higher, "fps (wall time)", "frames per second of wall time"),
            FrameCostP50 => ("frame_cost_p50", "ms", Lower, "frame cost P50", "median frame cost (a present's interval)"),
            FrameCostP90 => ("frame_cost_p90", "ms", Lower, "frame cost P90", "90th percentile frame cost, nearest rank"),
            FrameCostP95 => ("frame_cost_p95", "ms", Lower, "frame cost P95", "95th percentile frame cost, nearest rank"),
            FrameCostP99 => ("frame_cost_p99", "ms", Lower, "frame cost P99", "99th percentile frame cost, nearest rank"),
            FrameCostMax => ("frame_cost_max", "ms", Lower, "frame cost max", "the slowest frame's cost"),
            JankPct => ("jank_pct", "%", Lower, "janky frames", "frames that dropped at least one frame (vsync)"),
            DroppedPer100 => ("dropped_per_100", "per 100 frames", Lower, "dropped frames", "dropped frames (vsyncs) per 100 frames"),
            NormalPlusPer1000 => ("normal_plus_per_1000", "per 1000 frames", Lower, "NORMAL+ frames", "frames at drop level NORMAL or worse"),
            MiddlePlusPer1000 => ("middle_plus_per_1000", "per 1000 frames", Lower, "MIDDLE+ frames", "frames at drop level MIDDLE or worse"),
            HighPlusPer1000 => ("high_plus_per_1000", "per 1000 frames", Lower, "HIGH+ frames", "frames at drop level HIGH or worse"),
            FrozenPer1000 => ("frozen_per_1000", "per 1000 frames", Lower, "FROZEN frames", "frames at drop level FROZEN"),
            PerfettoJankPct => ("perfetto_jank_pct", "%", Lower, "Perfetto was_jank", "Perfetto's was_jank over the frames FrameTimeline matched"),
            OverrunP90 => ("overrun_p90", "ms", Lower, "overrun P90", "90th percentile FrameTimeline overrun"),
            SkippedEvents => ("skipped_events", "per 1000 frames", Lower, "Skipped-frames events", "Choreographer \"Skipped N frames\" events (≥ 30) per 1000 frames"),
        }
    }

    /// What its comparison may conclude: fps, frame cost P90 and janky
    /// frames are the headline family; a sample maximum grows with the
    /// number of frames and rests on one frame, so it is described, never judged.
    pub fn role(self) -> Role {
        match self {
            Metric::Fps | Metric::FrameCostP90 | Metric::JankPct => Role::Headline,
            Metric::FrameCostMax => Role::Descriptive,
            m if m.direction() == Neutral => Role::Descriptive,
            _ => Role::Secondary,
        }
    }

    /// Its place in [`Metric::ALL`] (and in a [`Values`]).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The metric a JSON name (or a gate rule) names.
    pub fn from_name(name: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether it needs FrameTimeline data on the frames.
    pub fn needs_timeline(self) -> bool {
        matches!(self, Metric::PerfettoJankPct | Metric::OverrunP90)
    }
}

/// Every metric's value over one series, indexed by [`Metric`]; NaN where undefined.
#[derive(Debug, Clone, PartialEq)]
pub struct Values(pub [f64; Metric::ALL.len()]);

impl std::ops::Index<Metric> for Values {
    type Output = f64;
    fn index(&self, m: Metric) -> &f64 {
        &self.0[m.index()]
    }
}

/// `count` per `per` of `n`: NaN without frames.
fn rate(count: i64, n: usize, per: f64) -> f64 {
    if n == 0 {
        f64::NAN
    } else {
        per * count as f64 / n as f64
    }
}

impl Values {
    /// Every metric over `frames` (doFrames or presents). `wall_ns` is the
    /// series' wall time (None: `fps_wall` is undefined, as for a scene).
    pub fn of(frames: &[&Frame], wall_ns: Option<i64>) -> Values {
        let n = frames.len();
        let it = || frames.iter().copied();
        let wall_fps = wall_ns.map_or(f64::NAN, |w| fps_wall(n as i64, w));
        let ms = |ns: Option<i64>| ns.map_or(f64::NAN, |v| v as f64 / 1e6);
        let cost = Percentiles::of(it().map(|f| f.cost_ns).collect());
        let (levels, _) = drop_levels(it());
        let dropped: i64 = it().map(|f| f.dropped.max(0)).sum();
        let overruns: Vec<i64> = it().filter_map(|f| f.overrun_ns).collect();
        let with_timeline = overruns.len();
        let count = |p: &dyn Fn(&Frame) -> bool| it().filter(|f| p(f)).count() as i64;
        let mut v = [f64::NAN; Metric::ALL.len()];
        for m in Metric::ALL {
            v[m.index()] = match m {
                Metric::Frames => n as f64,
                Metric::Fps => fps(it()),
                Metric::FpsWall => wall_fps,
                Metric::FrameCostP50 => ms(cost.p50),
                Metric::FrameCostP90 => ms(cost.p90),
                Metric::FrameCostP95 => ms(cost.p95),
                Metric::FrameCostP99 => ms(cost.p99),
                Metric::FrameCostMax => ms(cost.max),
                Metric::JankPct => rate(count(&|f| f.dropped >= 1), n, 100.0),
                Metric::DroppedPer100 => rate(dropped, n, 100.0),
                Metric::NormalPlusPer1000 => rate(levels.at_least(DropLevel::Normal), n, 1000.0),
                Metric::MiddlePlusPer1000 => rate(levels.at_least(DropLevel::Middle), n, 1000.0),
                Metric::HighPlusPer1000 => rate(levels.at_least(DropLevel::High), n, 1000.0),
                Metric::FrozenPer1000 => rate(levels.at_least(DropLevel::Frozen), n, 1000.0),
                Metric::PerfettoJankPct => rate(count(&|f| f.was_jank == Some(true)), with_timeline, 100.0),
                Metric::OverrunP90 => ms(Percentiles::of(overruns.clone()).p90),
                Metric::SkippedEvents => rate(count(&|f| f.skipped >= SKIPPED_FRAME_WARNING_LIMIT), n, 1000.0),
            };
        }
        Values(v)
    }
}
