//! Rank statistics on per-run values: the two-sided Mann–Whitney U test (Mann & Whitney 1947) and the
//! distribution-free confidence interval of the shift that goes with it (Moses' interval around the
//! Hodges–Lehmann estimate; Hodges & Lehmann 1963, Hollander, Wolfe & Chicken 2014, §4.3). Both look only at the order of the runs'
//! values, so one odd run (a throttled device) moves them by one rank, not by its size.
//!
//! p values are exact up to [`EXACT_MAX_PER_SIDE`] runs a side: the permutation distribution of the rank
//! sum given the pooled midranks, counted in integers, so ties are handled exactly. Above that the normal
//! approximation with the tie correction of the variance and a continuity correction is used (Lehmann 1975,
//! *Nonparametrics*, §1.4); at 50 runs a side it is within 0.001 of the exact p around p = 0.05 (a unit
//! test checks this), and its error shrinks as the sides grow.

use statrs::distribution::{ContinuousCDF, Normal};

/// Largest side for exact p values and exact interval bounds. Subset counts reach C(100, 50) ≈ 1.0e29 at
/// 50 + 50, which u128 holds exactly; the counting costs ~n·m·(n+m) steps per test, a few ms here.
pub(crate) const EXACT_MAX_PER_SIDE: usize = 50;

/// How a p value was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PMethod {
    /// The exact permutation distribution.
    Exact,
    /// The normal approximation (sides above [`EXACT_MAX_PER_SIDE`]).
    Normal,
}

/// The outcome of a two-sided Mann–Whitney U test of `after` against `before`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RankTest {
    /// Two-sided p value.
    pub p: f64,
    pub method: PMethod,
    /// U of `after` minus its mean under no change, n·m/2: positive when `after`'s runs tend to be larger.
    pub u_excess: f64,
}

/// The standard normal distribution.
fn std_normal() -> Normal {
    Normal::standard()
}

/// The `q` quantile of the standard normal.
pub(crate) fn z(q: f64) -> f64 {
    std_normal().inverse_cdf(q)
}

/// The smallest two-sided p an exact rank test of `n` against `m` values can give: 2 / C(n + m, n) (only
/// the most extreme of the C(n + m, n) equally likely splits is as extreme). Ties only raise it.
pub(crate) fn smallest_p(n: usize, m: usize) -> f64 {
    if n == 0 || m == 0 {
        return 1.0;
    }
    let (small, total) = (n.min(m), n + m);
    // C(total, small) as a product of ratios; f64 holds C(400, 200) ≈ 1e119 comfortably.
    let choose = (0..small).fold(1.0f64, |acc, i| acc * (total - i) as f64 / (i + 1) as f64);
    (2.0 / choose).min(1.0)
}

/// Two-sided Mann–Whitney U test of `after` against `before`. `None` when a side is empty or a value is not
/// finite. `null`, the tie-free distribution for these side sizes, saves the counting when no value ties.
pub(crate) fn mann_whitney(before: &[f64], after: &[f64], null: Option<&NullU>) -> Option<RankTest> {
    if before.is_empty() || after.is_empty() || !before.iter().chain(after).all(|v| v.is_finite()) {
        return None;
    }
    let (n, m) = (before.len(), after.len());
    let ranks = Ranked::new(after, before);
    // U of `after` = its rank sum − m(m + 1)/2; ranks are doubled, so halve.
    let u_after = ranks.first_sum as f64 / 2.0 - (m * (m + 1)) as f64 / 2.0;
    let u_excess = u_after - (n * m) as f64 / 2.0;
    let tie_free = ranks.tie_sizes.len() == n + m;
    let known = null.filter(|d| (d.n, d.m) == (n, m)).and_then(|d| d.cdf.as_deref());
    let (p, method) = if let (true, Some(cdf)) = (tie_free, known) {
        // Without ties U is a whole number and its distribution symmetric: P(U ≥ u) = P(U ≤ nm − u).
        let u = u_after.round() as usize;
        let tail = cdf[u].min(cdf[n * m - u]);
        ((2.0 * tail).min(1.0), PMethod::Exact)
    } else if n <= EXACT_MAX_PER_SIDE && m <= EXACT_MAX_PER_SIDE {
        (exact_p(&ranks, m, n), PMethod::Exact)
    } else {
        (normal_p(n, m, u_excess, &ranks.tie_sizes), PMethod::Normal)
    };
    Some(RankTest { p, method, u_excess })
}

/// Doubled midranks (integers) of `first ∪ second` pooled, in pooled order.
struct Ranked {
    /// Every value's doubled midrank.
    ranks: Vec<u32>,
    /// Sum of the doubled midranks of `first`.
    first_sum: u64,
    /// Sizes of the groups of tied values (groups of one included).
    tie_sizes: Vec<usize>,
}

impl Ranked {
    fn new(first: &[f64], second: &[f64]) -> Ranked {
        let mut pooled: Vec<(f64, bool)> =
            first.iter().map(|&v| (v, true)).chain(second.iter().map(|&v| (v, false))).collect();
        pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
        let mut ranks = Vec::with_capacity(pooled.len());
        let mut tie_sizes = Vec::new();
        let mut first_sum = 0u64;
        let mut start = 0;
        while start < pooled.len() {
            // `==` rather than total_cmp, so −0.0 and +0.0 tie.
            let end = start + pooled[start..].iter().take_while(|p| p.0 == pooled[start].0).count();
            // 1-based ranks start+1 ..= end; twice their mean is start + 1 + end.
            let rank2 = (start + 1 + end) as u32;
            for p in &pooled[start..end] {
                ranks.push(rank2);
                if p.1 {
                    first_sum += u64::from(rank2);
                }
            }
            tie_sizes.push(end - start);
            start = end;
        }
        Ranked { ranks, first_sum, tie_sizes }
    }
}

/// Exact two-sided p: the rank sum `W` of one side against its distribution over all ways of choosing which
/// pooled values belong to that side, given the pooled midranks. p = min(1, 2 · min(P(W ≤ w), P(W ≥ w))).
///
/// `ranked` pools the `first` (its `first_sum`) and `second` sides, of `first_len` and `second_len` values.
fn exact_p(ranked: &Ranked, first_len: usize, second_len: usize) -> f64 {
    if ranked.tie_sizes.len() == 1 {
        // Every value tied: every split has the same sum.
        return 1.0;
    }
    // Counting subsets of the smaller side is cheaper, and the two-sided p is the same for either side; the
    // counts depend only on the pooled ranks, the smaller side's sum is the rest of the total if it is second.
    let small = first_len.min(second_len);
    let w = if first_len <= second_len {
        ranked.first_sum
    } else {
        ranked.ranks.iter().map(|&r| u64::from(r)).sum::<u64>() - ranked.first_sum
    } as usize;
    // u64 counts are half the work of u128 ones and hold every subset count while C(N, n) < 2⁶³.
    if smallest_p(first_len, second_len) > 2.0 / 2f64.powi(63) {
        two_sided(&rank_sum_counts::<u64>(&ranked.ranks, small), w)
    } else {
        two_sided(&rank_sum_counts::<u128>(&ranked.ranks, small), w)
    }
}

/// An exact subset count.
trait Count: Copy + Default + Ord + std::ops::AddAssign + std::iter::Sum + std::ops::Add<Output = Self> {
    const ONE: Self;
    fn to_f64(self) -> f64;
}

impl Count for u64 {
    const ONE: Self = 1;
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Count for u128 {
    const ONE: Self = 1;
    fn to_f64(self) -> f64 {
        self as f64
    }
}

/// p = min(1, 2 · min(P(W ≤ w), P(W ≥ w))) from the counts of every rank sum.
fn two_sided<C: Count>(counts: &[C], w: usize) -> f64 {
    let total: C = counts.iter().copied().sum();
    let at_most: C = counts.iter().take(w + 1).copied().sum();
    let at_least: C = counts.iter().skip(w).copied().sum();
    let tail = at_most.min(at_least);
    ((tail + tail).to_f64() / total.to_f64()).min(1.0)
}

/// `counts[s]` = number of `n`-element subsets of `ranks` whose sum is `s`.
fn rank_sum_counts<C: Count>(ranks: &[u32], n: usize) -> Vec<C> {
    let max_sum: usize = ranks.iter().map(|&r| r as usize).sum();
    let width = max_sum + 1;
    // table[k * width + s]: k-element subsets of the ranks seen so far summing to s (0/1 knapsack, k descending).
    let mut table = vec![C::default(); (n + 1) * width];
    table[0] = C::ONE;
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

/// Normal approximation: z = (|U − nm/2| − ½) / σ with σ² = nm/12 · ((N + 1) − Σ(t³ − t) / (N(N − 1))).
fn normal_p(n: usize, m: usize, u_excess: f64, tie_sizes: &[usize]) -> f64 {
    let (nf, mf) = (n as f64, m as f64);
    let big_n = nf + mf;
    let ties: f64 = tie_sizes.iter().map(|&t| (t as f64).powi(3) - t as f64).sum();
    let var = nf * mf / 12.0 * ((big_n + 1.0) - ties / (big_n * (big_n - 1.0)));
    if var <= 0.0 {
        // Every value tied: no evidence either way.
        return 1.0;
    }
    let zv = ((u_excess.abs() - 0.5).max(0.0)) / var.sqrt();
    (2.0 * std_normal().sf(zv)).min(1.0)
}

/// The null distribution of U without ties for `n` against `m` values, for interval bounds and tie-free p
/// values: computed once per pair of side sizes and shared by every metric.
#[derive(Debug, Clone)]
pub(crate) struct NullU {
    n: usize,
    m: usize,
    /// `cdf[u]` = P(U ≤ u) under no change, exact sizes only.
    cdf: Option<Vec<f64>>,
}

impl NullU {
    pub(crate) fn new(n: usize, m: usize) -> NullU {
        let exact = n > 0 && m > 0 && n <= EXACT_MAX_PER_SIDE && m <= EXACT_MAX_PER_SIDE;
        let cdf = exact.then(|| {
            // Doubled ranks 2, 4, …, 2N: subset sums are 2W; U = W − n(n + 1)/2.
            let ranks: Vec<u32> = (1..=(n + m) as u32).map(|r| 2 * r).collect();
            let counts = rank_sum_counts::<u128>(&ranks, n);
            let total: u128 = counts.iter().sum();
            let w_min = n * (n + 1);
            let mut running = 0u128;
            (0..=n * m)
                .map(|u| {
                    running += counts[w_min + 2 * u];
                    running as f64 / total as f64
                })
                .collect()
        });
        NullU { n, m, cdf }
    }

    /// The largest c with P(U ≤ c) ≤ γ/2, or None when even U = 0 is more likely than that (the sides are
    /// too small for a 1 − γ interval).
    fn critical(&self, gamma: f64) -> Option<usize> {
        let half = gamma / 2.0;
        match &self.cdf {
            Some(cdf) => {
                let below = cdf.partition_point(|&p| p <= half * (1.0 + 1e-12));
                below.checked_sub(1)
            }
            None => {
                let (nf, mf) = (self.n as f64, self.m as f64);
                let sd = (nf * mf * (nf + mf + 1.0) / 12.0).sqrt();
                let c = (nf * mf / 2.0 - 0.5 - z(1.0 - half) * sd).floor();
                (c >= 0.0).then_some(c as usize)
            }
        }
    }

    /// The 1 − γ confidence interval of the shift `after − before` (Moses): the (c + 1)-th smallest and the
    /// (c + 1)-th largest of the n·m differences `after_j − before_i`, c = [`Self::critical`]. Exact coverage
    /// for continuous values at the exact sizes; ties make it conservative.
    pub(crate) fn interval(&self, before: &[f64], after: &[f64], gamma: f64) -> Option<(f64, f64)> {
        if before.len() != self.n || after.len() != self.m || !(gamma > 0.0 && gamma < 1.0) {
            return None;
        }
        let c = self.critical(gamma)?;
        let mut d = differences(before, after)?;
        let last = d.len() - 1;
        let (_, lo, _) = d.select_nth_unstable_by(c, f64::total_cmp);
        let lo = *lo;
        let (_, hi, _) = d.select_nth_unstable_by(last - c, f64::total_cmp);
        Some((lo, *hi))
    }
}

/// Every `after_j − before_i`; None when a value is not finite or a side is empty.
fn differences(before: &[f64], after: &[f64]) -> Option<Vec<f64>> {
    if before.is_empty() || after.is_empty() || !before.iter().chain(after).all(|v| v.is_finite()) {
        return None;
    }
    Some(after.iter().flat_map(|a| before.iter().map(move |b| a - b)).collect())
}

#[cfg(test)]
#[path = "rank_tests.rs"]
mod tests;
