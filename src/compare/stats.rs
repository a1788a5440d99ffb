//! Statistics behind `fpsan compare`: whether an "after" capture is better, worse or the same as a "before" one.
//!
//! This module owns the numbers only; reading captures, computing the metrics and printing belong elsewhere.
//!
//! - [`verdict`] turns a delta and its 95% confidence interval into better / worse / same / inconclusive, in the
//!   style of Go's benchstat: a change is reported only when the interval excludes zero *and* the change is large
//!   enough to matter, and "same" is claimed only when the whole interval is within the noise threshold.
//! - [`mann_whitney_p`] is the two-sided Mann–Whitney U (Wilcoxon rank-sum) test on per-run values (Mann & Whitney
//!   1947, "On a test of whether one of two random variables is stochastically larger than the other"). The p-value
//!   comes from the exact permutation distribution of the rank sum conditional on the observed midranks, which stays
//!   exact with ties, where the normal approximation and the tie-free tables do not.
//! - [`bootstrap_deltas`] is a two-level (hierarchical) bootstrap: runs are resampled, then frames within each drawn
//!   run (Saravanan, Berman & Sober 2020, "Application of the hierarchical bootstrap to multi-level data in
//!   neuroscience"). Frames of one run are not independent of each other (same device state, same thermal phase),
//!   so resampling pooled frames alone understates the uncertainty whenever runs differ; resampling runs first
//!   carries the between-run spread into the interval. With a single run per side the run level draws that run
//!   every time and the procedure reduces to a plain frame-level bootstrap.
//! - [`quantiles`] computes the percentiles both the bootstrap and the summaries need, with the same index rules as
//!   polars, so a bootstrapped P99 is the statistic the report prints.
//! - [`GateRule`] is the rule language of CI gates (`fps.delta_pct < -5`).
//! - [`coefficient_of_variation`] backs the "noisy runs" warning.

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------------------------------------------
// Verdicts
// ---------------------------------------------------------------------------------------------------------------

/// Which way a metric improves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Direction {
    /// Higher is better (e.g. FPS).
    Higher,
    /// Lower is better (e.g. jank percentage, P99 frame time).
    Lower,
    /// Reported but never judged better or worse (e.g. frame count).
    Neutral,
}

/// The outcome of comparing one metric between two captures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Verdict {
    Better,
    Worse,
    Same,
    Inconclusive,
}

impl Verdict {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            Verdict::Better => "↑",
            Verdict::Worse => "↓",
            Verdict::Same => "~",
            Verdict::Inconclusive => "?",
        }
    }
}

/// Judges `delta = after − before` given its 95% confidence interval `ci95` (absolute units, like `delta`).
///
/// Everything is compared in percent of `|before|`. `Better`/`Worse` need the whole interval strictly on one side of
/// zero and the point estimate at least `min_change_pct` away from zero on that side; `Same` needs the whole
/// interval within ±`min_change_pct`; anything else is `Inconclusive`. `Neutral` metrics can only be `Same` or
/// `Inconclusive`.
///
/// When `before` is 0 any non-zero change is an infinite percentage, so only its sign counts: an interval of
/// exactly (0, 0) is `Same`, one strictly above or below zero is a change, one touching zero is `Inconclusive`.
/// A negative `min_change_pct` is taken as its magnitude. Non-finite inputs and an interval with `lo > hi` are
/// `Inconclusive`: nothing trustworthy can be said about them.
pub(crate) fn verdict(direction: Direction, before: f64, delta: f64, ci95: (f64, f64), min_change_pct: f64) -> Verdict {
    let (lo, hi) = ci95;
    if ![before, delta, lo, hi, min_change_pct].iter().all(|v| v.is_finite()) || lo > hi {
        return Verdict::Inconclusive;
    }
    let min = min_change_pct.abs();
    let pct = |x: f64| {
        if before == 0.0 {
            if x == 0.0 {
                0.0
            } else {
                x.signum() * f64::INFINITY
            }
        } else {
            x / before.abs() * 100.0
        }
    };
    let (lo, hi, d) = (pct(lo), pct(hi), pct(delta));
    let up_is_better = match direction {
        Direction::Higher => Some(true),
        Direction::Lower => Some(false),
        Direction::Neutral => None,
    };
    if let Some(up_is_better) = up_is_better {
        // The point estimate must sit on the same side as the interval; a bootstrap interval that excludes its own
        // point estimate is a sign of a broken metric, not of a change.
        let went_up = lo > 0.0 && d >= min;
        let went_down = hi < 0.0 && d <= -min;
        if went_up || went_down {
            return if went_up == up_is_better {
                Verdict::Better
            } else {
                Verdict::Worse
            };
        }
    }
    if lo >= -min && hi <= min {
        Verdict::Same
    } else {
        Verdict::Inconclusive
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Mann–Whitney U
// ---------------------------------------------------------------------------------------------------------------

/// Largest side [`mann_whitney_p`] accepts. Subset counts reach C(100, 50) ≈ 1.0e29 at 50 + 50, which u128 holds
/// exactly; beyond that the exact test is also needlessly slow (the normal approximation would be the tool).
pub(crate) const MANN_WHITNEY_MAX_PER_SIDE: usize = 50;

/// Exact two-sided Mann–Whitney U test p-value for samples `a` and `b`.
///
/// `None` when a side is empty or larger than [`MANN_WHITNEY_MAX_PER_SIDE`], or any value is non-finite. Deciding
/// how many values are enough to be worth testing is the caller's business.
///
/// The rank sum `W` of one side is compared with its distribution over all ways of choosing which of the pooled
/// values belong to that side, given the pooled midranks (ties share the mean of their ranks). Ranks are doubled
/// so midranks are integers and the distribution can be counted exactly by dynamic programming.
/// p = min(1, 2 · min(P(W ≤ w), P(W ≥ w))).
pub(crate) fn mann_whitney_p(a: &[f64], b: &[f64]) -> Option<f64> {
    let sizes_ok = |s: &[f64]| !s.is_empty() && s.len() <= MANN_WHITNEY_MAX_PER_SIDE;
    if !sizes_ok(a) || !sizes_ok(b) || !a.iter().chain(b).all(|v| v.is_finite()) {
        return None;
    }
    // Counting subsets of the smaller side is cheaper, and the two-sided p is the same for either side.
    let (small, large) = if b.len() < a.len() { (b, a) } else { (a, b) };
    let (ranks, w) = doubled_midranks(small, large);
    let counts = rank_sum_counts(&ranks, small.len());
    let w = w as usize;
    let total: u128 = counts.iter().sum();
    let at_most: u128 = counts.iter().take(w + 1).sum();
    let at_least: u128 = counts.iter().skip(w).sum();
    let tail = at_most.min(at_least);
    Some(((2 * tail) as f64 / total as f64).min(1.0))
}

/// Doubled midranks (integers) of the pooled `small ∪ large`, and the sum of those belonging to `small`.
fn doubled_midranks(small: &[f64], large: &[f64]) -> (Vec<u32>, u32) {
    let mut pooled: Vec<(f64, bool)> = small
        .iter()
        .map(|&v| (v, true))
        .chain(large.iter().map(|&v| (v, false)))
        .collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut ranks = Vec::with_capacity(pooled.len());
    let mut w = 0;
    let mut start = 0;
    while start < pooled.len() {
        // `==` rather than total_cmp, so −0.0 and +0.0 tie.
        let end = start + pooled[start..].iter().take_while(|p| p.0 == pooled[start].0).count();
        // 1-based ranks start+1 ..= end; twice their mean is start + 1 + end. At most 201 for 100 values.
        let rank2 = (start + 1 + end) as u32;
        for p in &pooled[start..end] {
            ranks.push(rank2);
            if p.1 {
                w += rank2;
            }
        }
        start = end;
    }
    (ranks, w)
}

/// `counts[s]` = number of `n`-element subsets of `ranks` whose sum is `s`.
fn rank_sum_counts(ranks: &[u32], n: usize) -> Vec<u128> {
    let max_sum: usize = ranks.iter().map(|&r| r as usize).sum();
    let width = max_sum + 1;
    // table[k * width + s]: k-element subsets of the ranks seen so far summing to s (0/1 knapsack, k descending).
    let mut table = vec![0u128; (n + 1) * width];
    table[0] = 1;
    let mut reach = 0;
    for (i, &r) in ranks.iter().enumerate() {
        let r = r as usize;
        reach += r;
        for k in (1..=n.min(i + 1)).rev() {
            let (prev, cur) = table.split_at_mut(k * width);
            let prev = &prev[(k - 1) * width..];
            for (count, &below) in cur[r..=reach].iter_mut().zip(&prev[..=reach - r]) {
                *count += below;
            }
        }
    }
    table.split_off(n * width)
}

// ---------------------------------------------------------------------------------------------------------------
// Quantiles
// ---------------------------------------------------------------------------------------------------------------

/// How a quantile picks or blends the order statistics of `n` sorted values `v[0..n]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Interpolation {
    /// `v[max(⌈n·q⌉ − 1, 0)]`: the nearest-rank percentile. This is what fpsan's summaries print (SQL
    /// `QUANTILE_DISC`, polars `QuantileMethod::Equiprobable`).
    NearestRank,
    /// Position `q·(n − 1)`, linear between the two closest order statistics (polars `QuantileMethod::Linear`,
    /// SQL `QUANTILE_CONT`, numpy's default). Used for the bootstrap percentile interval.
    Linear,
}

/// The `q` quantile of `values` by nearest rank; see [`quantiles`].
pub(crate) fn quantile_nearest_rank(values: &mut [f64], q: f64) -> f64 {
    quantiles(values, &[q], Interpolation::NearestRank)[0]
}

/// The `q` quantile of `values` by linear interpolation; see [`quantiles`].
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn quantile_linear(values: &mut [f64], q: f64) -> f64 {
    quantiles(values, &[q], Interpolation::Linear)[0]
}

/// The quantiles `qs` (any order) of `values`, returned in the order of `qs`; `values` is reordered.
///
/// NaN for an empty `values`, and for a `q` that is NaN or outside [0, 1]. Values are ordered by `f64::total_cmp`;
/// callers drop NaN ("undefined") values first, as polars ignores nulls. The index arithmetic mirrors polars'
/// float for float, so the results equal the summaries' to the bit.
///
/// Rather than sorting, the needed order statistics are selected in ascending order, each in the part of the
/// buffer right of the previous one, so P50, P90, P95, P99 and max cost under two partitioning passes; in this
/// module's bootstrap benchmark that made the metrics about 4× cheaper than one sort per resample.
pub(crate) fn quantiles(values: &mut [f64], qs: &[f64], how: Interpolation) -> Vec<f64> {
    let n = values.len();
    let positions: Vec<Option<(usize, usize, f64)>> = qs.iter().map(|&q| quantile_position(n, q, how)).collect();
    let mut needed: Vec<usize> = positions.iter().flatten().flat_map(|&(lo, hi, _)| [lo, hi]).collect();
    needed.sort_unstable();
    needed.dedup();
    let mut start = 0;
    for idx in needed {
        // Everything left of `start` is ≤ everything from `start` on, so selecting within the tail gives the
        // global order statistic.
        values[start..].select_nth_unstable_by(idx - start, f64::total_cmp);
        start = idx + 1;
    }
    positions
        .iter()
        .map(|pos| match *pos {
            None => f64::NAN,
            Some((lo, hi, float_idx)) => {
                let (lower, upper) = (values[lo], values[hi]);
                if lower == upper {
                    lower
                } else {
                    (float_idx - lo as f64) * (upper - lower) + lower
                }
            }
        })
        .collect()
}

/// The indices of the order statistics quantile `q` of `n` values needs, and the fractional position between them.
fn quantile_position(n: usize, q: f64, how: Interpolation) -> Option<(usize, usize, f64)> {
    if n == 0 || !(0.0..=1.0).contains(&q) {
        return None;
    }
    let last = n - 1;
    match how {
        Interpolation::NearestRank => {
            let idx = (((n as f64 * q).ceil() - 1.0).max(0.0) as usize).min(last);
            Some((idx, idx, idx as f64))
        }
        Interpolation::Linear => {
            let float_idx = last as f64 * q;
            let lo = (float_idx as usize).min(last);
            let hi = (float_idx.ceil() as usize).min(last);
            Some((lo, hi, float_idx))
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Hierarchical bootstrap
// ---------------------------------------------------------------------------------------------------------------

/// One side's frames as `eval` sees them: either as captured or as drawn by one bootstrap resample. Frames are
/// borrowed, never copied, and a frame drawn twice appears twice.
#[derive(Debug)]
pub(crate) struct Resample<'a, T> {
    frames: Vec<&'a T>,
    runs: Vec<usize>,
}

impl<'a, T> Resample<'a, T> {
    fn new() -> Self {
        Resample {
            frames: Vec::new(),
            runs: Vec::new(),
        }
    }

    /// All runs in order with all their frames: what the point estimate is computed on.
    fn observed(side: &[&'a [T]]) -> Self {
        Resample {
            frames: side.iter().flat_map(|run| run.iter()).collect(),
            runs: (0..side.len()).collect(),
        }
    }

    /// The pooled frames of all drawn runs, run by run.
    pub(crate) fn frames(&self) -> &[&'a T] {
        &self.frames
    }

    /// Indices (into the side's list of runs) of the drawn runs, in draw order; lets `eval` look up per-run data
    /// such as a run's wall time.
    pub(crate) fn runs(&self) -> &[usize] {
        &self.runs
    }

    /// Replaces the contents with a fresh two-level resample of `side`, reusing the buffers.
    fn redraw<R: Rng>(&mut self, side: &[&'a [T]], rng: &mut R) {
        self.frames.clear();
        self.runs.clear();
        let n_runs = side.len();
        for _ in 0..n_runs {
            let r = rng.random_range(0..n_runs);
            self.runs.push(r);
            let run = side[r];
            let len = run.len();
            if len > 0 {
                self.frames.extend((0..len).map(|_| &run[rng.random_range(0..len)]));
            }
        }
    }
}

/// One metric's comparison: the values on the captured data and the bootstrap interval of their difference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DeltaCi {
    /// The metric on all "before" frames as captured (NaN when undefined).
    pub before: f64,
    /// The metric on all "after" frames as captured (NaN when undefined).
    pub after: f64,
    /// The 2.5% and 97.5% percentiles of the bootstrapped `after − before`; `None` when fewer than half of the
    /// resamples gave a finite difference (or there were no resamples).
    pub ci95: Option<(f64, f64)>,
}

impl DeltaCi {
    pub(crate) fn delta(&self) -> f64 {
        self.after - self.before
    }
}

/// Two-level bootstrap of the differences `after − before` of K metrics at once.
///
/// Each side is a list of runs, each run a slice of frames. `eval` computes the K metrics of one side (NaN for an
/// undefined metric, e.g. a percentile of no values). It is first called on each side as captured, which fixes K
/// and gives [`DeltaCi::before`]/[`DeltaCi::after`]; a resample's missing values count as NaN, extra ones are
/// ignored.
///
/// One resample, per side: draw as many runs as the side has, with replacement; for each drawn run draw as many
/// of its frames as it has, with replacement; pool them and `eval`. Resample `i` draws from ChaCha8 stream `i` of
/// the key derived from `seed`, so the result depends on `seed` only, not on rayon's thread count or scheduling.
/// Memory is `resamples × K` f64 plus one pooled frame-reference buffer per side per rayon job.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn bootstrap_deltas<T, F>(
    before: &[&[T]],
    after: &[&[T]],
    resamples: usize,
    seed: u64,
    eval: F,
) -> Vec<DeltaCi>
where
    T: Sync,
    F: Fn(&Resample<'_, T>) -> Vec<f64> + Sync,
{
    bootstrap_deltas_at(before, after, resamples, seed, 0.05, eval)
}

/// [`bootstrap_deltas`] with a `1 − alpha` interval (the `alpha / 2` and `1 − alpha / 2` percentiles) instead of
/// the 95% one; `compare --alpha`.
pub(crate) fn bootstrap_deltas_at<T, F>(
    before: &[&[T]],
    after: &[&[T]],
    resamples: usize,
    seed: u64,
    alpha: f64,
    eval: F,
) -> Vec<DeltaCi>
where
    T: Sync,
    F: Fn(&Resample<'_, T>) -> Vec<f64> + Sync,
{
    let point_before = eval(&Resample::observed(before));
    let point_after = eval(&Resample::observed(after));
    let k_metrics = point_before.len().max(point_after.len());
    let value = |v: &[f64], k: usize| v.get(k).copied().unwrap_or(f64::NAN);

    let deltas: Vec<Vec<f64>> = (0..resamples)
        .into_par_iter()
        .map_init(
            || (Resample::new(), Resample::new()),
            |(res_before, res_after), i| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                rng.set_stream(i as u64);
                res_before.redraw(before, &mut rng);
                res_after.redraw(after, &mut rng);
                let (b, a) = (eval(res_before), eval(res_after));
                (0..k_metrics).map(|k| value(&a, k) - value(&b, k)).collect()
            },
        )
        .collect();

    let mut column = Vec::with_capacity(resamples);
    (0..k_metrics)
        .map(|k| {
            column.clear();
            column.extend(deltas.iter().map(|row| row[k]).filter(|d| d.is_finite()));
            DeltaCi {
                before: value(&point_before, k),
                after: value(&point_after, k),
                ci95: percentile_interval_at(&mut column, resamples, alpha),
            }
        })
        .collect()
}

/// The 95% percentile interval of the finite deltas, if they are at least half of the resamples.
#[cfg(test)]
fn percentile_interval(finite: &mut [f64], resamples: usize) -> Option<(f64, f64)> {
    percentile_interval_at(finite, resamples, 0.05)
}

/// The `1 − alpha` percentile interval of the finite deltas, if they are at least half of the resamples.
fn percentile_interval_at(finite: &mut [f64], resamples: usize, alpha: f64) -> Option<(f64, f64)> {
    if finite.is_empty() || finite.len().saturating_mul(2) < resamples {
        return None;
    }
    let q = quantiles(finite, &[alpha / 2.0, 1.0 - alpha / 2.0], Interpolation::Linear);
    Some((q[0], q[1]))
}

// ---------------------------------------------------------------------------------------------------------------
// CI gate rules
// ---------------------------------------------------------------------------------------------------------------

/// Which number of a compared metric a gate rule tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GateField {
    /// The "after" value itself.
    After,
    /// `after − before`, in the metric's units.
    Delta,
    /// `(after − before) / |before| · 100`.
    DeltaPct,
}

impl GateField {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            GateField::After => "after",
            GateField::Delta => "delta",
            GateField::DeltaPct => "delta_pct",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GateOp {
    Lt,
    Le,
    Gt,
    Ge,
}

impl GateOp {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            GateOp::Lt => "<",
            GateOp::Le => "<=",
            GateOp::Gt => ">",
            GateOp::Ge => ">=",
        }
    }

    fn holds(self, value: f64, threshold: f64) -> bool {
        match self {
            GateOp::Lt => value < threshold,
            GateOp::Le => value <= threshold,
            GateOp::Gt => value > threshold,
            GateOp::Ge => value >= threshold,
        }
    }
}

/// A parsed `METRIC.FIELD OP NUMBER` rule, e.g. `fps.delta_pct < -5`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GateRule {
    /// The rule as written (trimmed), for messages.
    pub text: String,
    pub metric: String,
    pub field: GateField,
    pub op: GateOp,
    pub threshold: f64,
}

const RULE_GRAMMAR: &str = concat!(
    "expected METRIC.FIELD OP NUMBER, e.g. `fps.delta_pct < -5`; ",
    "FIELD is after, delta or delta_pct; OP is <, <=, >, >="
);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RuleError {
    #[error("gate rule `{rule}` does not parse: {grammar}", grammar = RULE_GRAMMAR)]
    Syntax { rule: String },
    #[error("gate rule `{rule}`: unknown field `{field}`; {grammar}", grammar = RULE_GRAMMAR)]
    UnknownField { rule: String, field: String },
    #[error("gate rule `{rule}`: `{number}` is not a finite number; {grammar}", grammar = RULE_GRAMMAR)]
    BadNumber { rule: String, number: String },
    #[error("gate rule `{rule}`: unknown metric `{metric}`; known metrics: {known}")]
    UnknownMetric {
        rule: String,
        metric: String,
        known: String,
    },
}

/// Parses a gate rule; `known_metrics` are the metric names a rule may name.
pub(crate) fn parse_rule(s: &str, known_metrics: &[&str]) -> Result<GateRule, RuleError> {
    let text = s.trim();
    let rule = one_line(text);
    let syntax = || RuleError::Syntax { rule: rule.clone() };
    let op_at = text.find(['<', '>']).ok_or_else(syntax)?;
    let (lhs, rest) = text.split_at(op_at);
    let (op, number) = match (rest.starts_with('<'), rest[1..].strip_prefix('=')) {
        (true, Some(number)) => (GateOp::Le, number),
        (true, None) => (GateOp::Lt, &rest[1..]),
        (false, Some(number)) => (GateOp::Ge, number),
        (false, None) => (GateOp::Gt, &rest[1..]),
    };
    let (metric, field) = lhs.trim().rsplit_once('.').ok_or_else(syntax)?;
    let well_formed = |part: &str| !part.is_empty() && !part.contains(char::is_whitespace);
    if !well_formed(metric) || !well_formed(field) {
        return Err(syntax());
    }
    let field = match field {
        "after" => GateField::After,
        "delta" => GateField::Delta,
        "delta_pct" => GateField::DeltaPct,
        _ => {
            return Err(RuleError::UnknownField {
                rule,
                field: one_line(field),
            });
        }
    };
    let number = number.trim();
    let threshold = match number.parse::<f64>() {
        Ok(t) if t.is_finite() => t,
        _ => {
            return Err(RuleError::BadNumber {
                rule,
                number: one_line(number),
            });
        }
    };
    if !known_metrics.contains(&metric) {
        let known = if known_metrics.is_empty() {
            "(none)".to_owned()
        } else {
            known_metrics.join(", ")
        };
        return Err(RuleError::UnknownMetric {
            rule,
            metric: one_line(metric),
            known,
        });
    }
    Ok(GateRule {
        text: text.to_owned(),
        metric: metric.to_owned(),
        field,
        op,
        threshold,
    })
}

/// Escapes control characters so an error quoting user input stays on one line.
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

impl GateRule {
    /// Whether the rule fails the build for a metric with these numbers and verdict.
    ///
    /// A rule on `delta` or `delta_pct` also needs the verdict `Worse`, so noise that happens to cross the
    /// threshold (an inconclusive or negligible change) never fails a build; a rule on `after` is an absolute
    /// budget and trips on the comparison alone. Non-finite values never trip.
    pub(crate) fn tripped(&self, after: f64, delta: f64, delta_pct: f64, verdict: Verdict) -> bool {
        let value = match self.field {
            GateField::After => after,
            GateField::Delta => delta,
            GateField::DeltaPct => delta_pct,
        };
        let needs_worse = self.field != GateField::After;
        value.is_finite() && self.op.holds(value, self.threshold) && (!needs_worse || verdict == Verdict::Worse)
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Run-to-run noise
// ---------------------------------------------------------------------------------------------------------------

/// Sample standard deviation (n − 1) over |mean|. `None` for fewer than 2 values, a non-finite value or a zero
/// mean. The magnitude of the mean is used so the result reads as "spread relative to size" whatever the sign.
pub(crate) fn coefficient_of_variation(values: &[f64]) -> Option<f64> {
    if values.len() < 2 || !values.iter().all(|v| v.is_finite()) {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if mean == 0.0 || !mean.is_finite() {
        return None;
    }
    let squares: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    let cv = (squares / (n - 1.0)).sqrt() / mean.abs();
    cv.is_finite().then_some(cv)
}

#[cfg(test)]
#[path = "stats_tests.rs"]
mod tests;
