//! The metrics `compare` compares, computed in plain Rust over one run's
//! frames (one value per run per side is what the statistics take). Each
//! formula is the one `analyze` uses (docs/metrics.md); a test checks that
//! one run's values equal `analyze`'s summary of it.

use super::stats::quantile::{quantile_nearest_rank, quantiles, Interpolation};
use super::stats::Direction;
use crate::frames::DropLevel;

/// One frame of the compared app, reduced to what the metrics need.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Frame {
    pub ts: i64,
    pub cost_ns: i64,
    pub dropped: i64,
    pub interval_ns: i64,
    pub refresh_hz: f64,
    pub skipped: i64,
    pub overrun_ns: Option<i64>,
    pub was_jank: Option<bool>,
    /// Index into the run's scene names.
    pub scene: u32,
}

impl Frame {
    /// A present of the layer an app is judged by, as a frame: its interval
    /// is its cost, its dropped vsyncs its dropped frames, the display's
    /// period its frame interval (the first present, without an interval,
    /// is none). The formulas then read as PerfDog's on presents.
    pub(crate) fn from_present(p: &crate::presents::PresentRow) -> Option<Frame> {
        Some(Frame {
            ts: p.ts,
            cost_ns: p.interval_ns?,
            dropped: p.dropped_vsyncs.unwrap_or(0),
            interval_ns: p.vsync_period_ns,
            refresh_hz: 1e9 / p.vsync_period_ns as f64,
            skipped: 0,
            overrun_ns: None,
            was_jank: None,
            scene: 0,
        })
    }

    pub(crate) fn from_row(r: &crate::frames::FrameRow, scene: u32) -> Frame {
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

/// What a metric's comparison may conclude.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// One of the headline's three: tested as a family (Holm).
    Headline,
    /// Tested on its own at `--alpha`.
    Secondary,
    /// Described only: no test, no verdict, no gate on its change.
    Descriptive,
}

/// A compared metric: its JSON name, unit, which way is better, how people read it, what it may conclude.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MetricDef {
    pub name: &'static str,
    pub unit: &'static str,
    pub direction: Direction,
    pub label: &'static str,
    pub role: Role,
}

const fn def(name: &'static str, unit: &'static str, direction: Direction, label: &'static str) -> MetricDef {
    let role = match direction {
        Neutral => Role::Descriptive,
        _ => Role::Secondary,
    };
    MetricDef { name, unit, direction, label, role }
}

const fn headline(d: MetricDef) -> MetricDef {
    MetricDef { role: Role::Headline, ..d }
}

/// A sample maximum grows with the number of frames and rests on one frame: described, never judged.
const fn descriptive(d: MetricDef) -> MetricDef {
    MetricDef { role: Role::Descriptive, ..d }
}

use Direction::{Higher, Lower, Neutral};

/// Every metric, in output order. [`eval`] returns values in this order.
pub(crate) const METRICS: &[MetricDef] = &[
    def("frames", "frames", Neutral, "frames"),
    headline(def("fps", "fps", Higher, "fps")),
    def("fps_wall", "fps", Higher, "fps (wall time)"),
    def("frame_cost_p50", "ms", Lower, "frame cost P50"),
    headline(def("frame_cost_p90", "ms", Lower, "frame cost P90")),
    def("frame_cost_p95", "ms", Lower, "frame cost P95"),
    def("frame_cost_p99", "ms", Lower, "frame cost P99"),
    descriptive(def("frame_cost_max", "ms", Lower, "frame cost max")),
    headline(def("jank_pct", "%", Lower, "janky frames")),
    def("dropped_per_100", "per 100 frames", Lower, "dropped frames"),
    def("normal_plus_per_1000", "per 1000 frames", Lower, "NORMAL+ frames"),
    def("middle_plus_per_1000", "per 1000 frames", Lower, "MIDDLE+ frames"),
    def("high_plus_per_1000", "per 1000 frames", Lower, "HIGH+ frames"),
    def("frozen_per_1000", "per 1000 frames", Lower, "FROZEN frames"),
    def("perfetto_jank_pct", "%", Lower, "Perfetto was_jank"),
    def("overrun_p90", "ms", Lower, "overrun P90"),
    def("skipped_events", "per 1000 frames", Lower, "Skipped-frames events"),
];

/// Index of a metric in [`METRICS`] by its JSON name.
pub(crate) fn index_of(name: &str) -> Option<usize> {
    METRICS.iter().position(|m| m.name == name)
}

/// Names of the metrics a gate rule may name (all but the frame count).
pub(crate) fn gateable() -> Vec<&'static str> {
    METRICS.iter().filter(|m| m.direction != Neutral).map(|m| m.name).collect()
}

/// Names of the metrics whose change carries no verdict.
pub(crate) fn descriptive_names() -> Vec<&'static str> {
    METRICS.iter().filter(|m| m.role == Role::Descriptive).map(|m| m.name).collect()
}

/// Choreographer logs "Skipped N frames!" from this many skipped frames on.
const SKIPPED_FRAME_WARNING_LIMIT: i64 = 30;

/// Percent / per-mille helper: NaN without frames.
fn rate(count: usize, n: usize, per: f64) -> f64 {
    if n == 0 {
        f64::NAN
    } else {
        per * count as f64 / n as f64
    }
}

/// Nearest-rank P50/P90/P95/P99/max (ns) of `values`, as `analyze` prints them.
fn cost_percentiles(values: &mut [f64]) -> [f64; 5] {
    let q = quantiles(values, &[0.5, 0.9, 0.95, 0.99, 1.0], Interpolation::NearestRank);
    [q[0], q[1], q[2], q[3], q[4]]
}

/// All metrics over one run's `frames` in [`METRICS`] order. `wall_ns` is the
/// run's wall time (None: `fps_wall` is undefined, as for a scene).
/// Undefined values are NaN.
pub(crate) fn eval(frames: &[&Frame], wall_ns: Option<i64>) -> Vec<f64> {
    let n = frames.len();
    let paced: i64 = frames.iter().map(|f| (f.dropped + 1) * f.interval_ns).sum();
    let max_hz = frames.iter().map(|f| f.refresh_hz).fold(f64::NAN, f64::max);
    // Matrix's fps without its 60 cap, capped at the app's highest refresh rate (app_summary.sql).
    let fps = if paced > 0 { max_hz.min(1e9 * n as f64 / paced as f64) } else { f64::NAN };
    let fps_wall = match wall_ns {
        Some(w) if w > 0 && n > 0 => n as f64 / (w as f64 / 1e9),
        _ => f64::NAN,
    };
    let mut costs: Vec<f64> = frames.iter().map(|f| f.cost_ns as f64).collect();
    let cost = if n > 0 { cost_percentiles(&mut costs) } else { [f64::NAN; 5] };
    let level_at_least = |l: DropLevel| frames.iter().filter(|f| DropLevel::from_dropped(f.dropped) >= l).count();
    let dropped: i64 = frames.iter().map(|f| f.dropped.max(0)).sum();
    let mut overruns: Vec<f64> = frames.iter().filter_map(|f| f.overrun_ns).map(|v| v as f64).collect();
    let overrun_p90 = quantile_nearest_rank(&mut overruns, 0.9);
    let perfetto_jank = frames.iter().filter(|f| f.was_jank == Some(true)).count();
    let ms = |ns: f64| ns / 1e6;
    vec![
        n as f64,
        fps,
        fps_wall,
        ms(cost[0]),
        ms(cost[1]),
        ms(cost[2]),
        ms(cost[3]),
        ms(cost[4]),
        rate(frames.iter().filter(|f| f.dropped >= 1).count(), n, 100.0),
        if n == 0 { f64::NAN } else { 100.0 * dropped as f64 / n as f64 },
        rate(level_at_least(DropLevel::Normal), n, 1000.0),
        rate(level_at_least(DropLevel::Middle), n, 1000.0),
        rate(level_at_least(DropLevel::High), n, 1000.0),
        rate(level_at_least(DropLevel::Frozen), n, 1000.0),
        rate(perfetto_jank, overruns.len(), 100.0),
        ms(overrun_p90),
        rate(frames.iter().filter(|f| f.skipped >= SKIPPED_FRAME_WARNING_LIMIT).count(), n, 1000.0),
    ]
}
