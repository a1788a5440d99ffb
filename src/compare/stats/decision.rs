//! The decision rule of `compare` (docs/compare.md, "The decision rule"): from a metric's per-run values
//! on each side to better / worse / same / inconclusive, with Holm's step-down over a family of tests and
//! the number of runs a side likely to resolve an inconclusive result.

use serde::Serialize;

use super::rank::z;

pub(crate) use crate::series::Direction;

/// What `compare` says of one metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Significant at `--alpha` (after Holm within its family) and at least `--min-change`, the good way.
    Better,
    /// The same, the bad way.
    Worse,
    /// The interval of the change lies within ±`--min-change` (an equivalence decision).
    Same,
    /// The runs support none of the above; more runs may.
    Inconclusive,
    /// Too few runs for the test to reach `--alpha` at all: the numbers describe, nothing is decided.
    Indicative,
    /// A metric that carries no verdict (the frame count, a sample maximum).
    Descriptive,
}

impl Verdict {
    pub fn symbol(self) -> &'static str {
        match self {
            Verdict::Better => "↑",
            Verdict::Worse => "↓",
            Verdict::Same => "~",
            Verdict::Inconclusive => "?",
            Verdict::Indicative | Verdict::Descriptive => "·",
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::Same => "same",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Indicative => "indicative",
            Verdict::Descriptive => "descriptive",
        }
    }
}

/// The evidence on one metric that [`decide`] weighs. Values are in the metric's units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Evidence {
    pub direction: Direction,
    /// The before side's median run.
    pub before: f64,
    /// After's median run minus before's.
    pub delta: f64,
    /// The p value the decision uses (Holm-adjusted within the metric's family).
    pub p: f64,
    /// Which way the rank test saw the change: U of `after` minus its null mean.
    pub u_excess: f64,
    /// The 1 − 2α interval of the shift (two one-sided tests at α), None when the sides are too small.
    pub equivalence_ci: Option<(f64, f64)>,
}

/// Whether the medians' change `delta` and the rank test's direction `u_excess` (U of after minus its null
/// mean) point the same, non-zero way.
pub(crate) fn ranks_agree(delta: f64, u_excess: f64) -> bool {
    delta != 0.0 && u_excess != 0.0 && (delta > 0.0) == (u_excess > 0.0)
}

/// `x` in percent of |before|; when before is 0 a non-zero change is an infinite percentage.
pub(crate) fn percent_of(before: f64, x: f64) -> f64 {
    if before == 0.0 {
        if x == 0.0 {
            0.0
        } else {
            x.signum() * f64::INFINITY
        }
    } else {
        x / before.abs() * 100.0
    }
}

/// The decision rule:
/// - `Better`/`Worse`: p ≤ α, the rank test and the medians agree on the sign of the change, and
///   |Δ%| ≥ `min_change_pct`; better or worse by the metric's direction;
/// - `Same`: the 1 − 2α interval of the shift lies within ±`min_change_pct` of |before| (Schuirmann's two
///   one-sided tests at α); never when before is 0, where a percentage margin is empty;
/// - otherwise `Inconclusive`.
///
/// A significant change smaller than the margin is `Same` when its interval fits the margin, else
/// `Inconclusive`. Non-finite evidence is `Inconclusive`. `Neutral` metrics are `Descriptive`.
pub(crate) fn decide(e: &Evidence, alpha: f64, min_change_pct: f64) -> Verdict {
    let up_is_better = match e.direction {
        Direction::Higher => true,
        Direction::Lower => false,
        Direction::Neutral => return Verdict::Descriptive,
    };
    if ![e.before, e.delta, e.p, e.u_excess].iter().all(|v| v.is_finite()) {
        return Verdict::Inconclusive;
    }
    let min = min_change_pct.abs();
    if e.p <= alpha && ranks_agree(e.delta, e.u_excess) && percent_of(e.before, e.delta).abs() >= min {
        return if (e.delta > 0.0) == up_is_better { Verdict::Better } else { Verdict::Worse };
    }
    let equivalent = e.before != 0.0
        && e.equivalence_ci.is_some_and(|(lo, hi)| {
            lo.is_finite() && hi.is_finite() && percent_of(e.before, lo) >= -min && percent_of(e.before, hi) <= min
        });
    if equivalent {
        Verdict::Same
    } else {
        Verdict::Inconclusive
    }
}

/// Holm's step-down adjusted p values (Holm 1979, "A simple sequentially rejective multiple test
/// procedure", Scand. J. Statist. 6(2)): with the k available p values sorted, p₍ᵢ₎ becomes
/// max over j ≤ i of min(1, (k − j + 1) · p₍ⱼ₎). Rejecting where the adjusted p ≤ α controls the family-wise
/// error at α whatever the dependence between the tests. `None` entries are not tests and stay `None`.
pub(crate) fn holm(ps: &[Option<f64>]) -> Vec<Option<f64>> {
    let mut order: Vec<usize> = (0..ps.len()).filter(|&i| ps[i].is_some_and(f64::is_finite)).collect();
    order.sort_by(|&a, &b| ps[a].unwrap_or(1.0).total_cmp(&ps[b].unwrap_or(1.0)).then(a.cmp(&b)));
    let k = order.len();
    let mut out = vec![None; ps.len()];
    let mut running = 0.0f64;
    for (j, &i) in order.iter().enumerate() {
        let scaled = ((k - j) as f64 * ps[i].unwrap_or(1.0)).min(1.0);
        running = running.max(scaled);
        out[i] = Some(running);
    }
    out
}

/// Adjusted p values of a family tested as a hierarchy: the primary hypothesis first at α, then the others by
/// Holm's step-down at α, only once the primary is rejected (a fixed sequence with Holm in its second step:
/// Maurer, Hothorn & Lehmacher 1995, "Multiple comparisons in drug clinical trials and preclinical assays:
/// a-priori ordered hypotheses"; Westfall & Krishen 2001, "Optimally weighted, fixed sequence and gatekeeper
/// multiple testing procedures", J. Stat. Plan. Inference 99). The primary keeps its own p; another's
/// adjusted p is max(primary's p, its Holm-adjusted p among the others), so rejecting where it is ≤ α is the
/// procedure, and the family-wise error stays at α. Without a primary test the others are plain Holm.
pub(crate) fn primary_then_holm(primary: Option<f64>, others: &[Option<f64>]) -> (Option<f64>, Vec<Option<f64>>) {
    let primary = primary.filter(|p| p.is_finite());
    let adjusted = holm(others).into_iter().map(|p| p.map(|p| primary.map_or(p, |first| p.max(first)))).collect();
    (primary, adjusted)
}

/// Asymptotic relative efficiency of the rank test against the t test under normal errors (3/π), by which
/// a t-test sample size is divided for Mann–Whitney (Noether 1987, "Sample size determination for some
/// common nonparametric tests", JASA 82(398)).
const RANK_TEST_EFFICIENCY: f64 = 3.0 / std::f64::consts::PI;
/// Power the "runs needed" estimate aims at.
const POWER: f64 = 0.8;
/// Estimates above this are reported as "more than".
pub(crate) const RUNS_NEEDED_CAP: usize = 1000;

/// What an inconclusive metric needs, for [`runs_needed`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Spread {
    /// The before side's median run (the base of percentages).
    pub before: f64,
    /// Observed after − before.
    pub delta: f64,
    /// Pooled run-to-run standard deviation of the metric.
    pub sd: f64,
}

/// Runs per side likely (80% power) to resolve an inconclusive metric, from the observed run-to-run spread:
/// - an observed change of at least `min_change_pct`: runs for the rank test to find a change that large at
///   `alpha_test` (the family's Holm level in the worst case): n = 2 (z₁₋α/2 + z₀.₈)² σ² / (Δ² · 3/π);
/// - a smaller one: runs for the two one-sided tests to fit it within the margin M = min_change% · |before|:
///   n = 2 (z₁₋α + z₀.₈)² σ² / ((M − |Δ|)² · 3/π).
///
/// Normal-theory sizes (Chow, Shao & Wang 2008, *Sample Size Calculations in Clinical Research*, §3.2) over
/// the rank test's efficiency. `None` when the spread is unknown or zero or before is 0; at least
/// `min_runs`, at most [`RUNS_NEEDED_CAP`] + 1 (read as "more than the cap").
pub(crate) fn runs_needed(
    s: Spread,
    alpha: f64,
    alpha_test: f64,
    min_change_pct: f64,
    min_runs: usize,
) -> Option<usize> {
    if !(s.sd.is_finite() && s.sd > 0.0 && s.before.is_finite() && s.before != 0.0 && s.delta.is_finite()) {
        return None;
    }
    let margin = min_change_pct.abs() / 100.0 * s.before.abs();
    let (za, effect) = if s.delta.abs() >= margin && s.delta != 0.0 {
        (z(1.0 - alpha_test / 2.0), s.delta.abs())
    } else {
        (z(1.0 - alpha), margin - s.delta.abs())
    };
    if effect <= 0.0 {
        return None;
    }
    let n = 2.0 * (za + z(POWER)).powi(2) * s.sd * s.sd / (effect * effect * RANK_TEST_EFFICIENCY);
    let n = if n.is_finite() { n.ceil() } else { f64::INFINITY };
    Some((n.min((RUNS_NEEDED_CAP + 1) as f64) as usize).max(min_runs))
}

/// Pooled sample standard deviation of two sides, each around its own mean (one degree of freedom spent per
/// non-empty side); None without a degree of freedom left or for a non-finite value.
pub(crate) fn pooled_sd(a: &[f64], b: &[f64]) -> Option<f64> {
    let means = usize::from(!a.is_empty()) + usize::from(!b.is_empty());
    let dof = (a.len() + b.len()).checked_sub(means).filter(|&d| d > 0)?;
    let squares = |s: &[f64]| -> f64 {
        if s.is_empty() {
            return 0.0;
        }
        let mean = s.iter().sum::<f64>() / s.len() as f64;
        s.iter().map(|v| (v - mean) * (v - mean)).sum()
    };
    let sd = ((squares(a) + squares(b)) / dof as f64).sqrt();
    sd.is_finite().then_some(sd)
}

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
    let cv = pooled_sd(values, &[])? / mean.abs();
    cv.is_finite().then_some(cv)
}

#[cfg(test)]
#[path = "decision_tests.rs"]
mod tests;
