//! Quantiles with the same index rules as polars, so a percentile computed here for one run is the statistic
//! `analyze`'s summary prints for it.

/// How a quantile picks or blends the order statistics of `n` sorted values `v[0..n]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Interpolation {
    /// `v[max(⌈n·q⌉ − 1, 0)]`: the nearest-rank percentile. This is what fpsan's summaries print (SQL
    /// `QUANTILE_DISC`, polars `QuantileMethod::Equiprobable`).
    NearestRank,
    /// Position `q·(n − 1)`, linear between the two closest order statistics (polars `QuantileMethod::Linear`,
    /// SQL `QUANTILE_CONT`, numpy's default). Used for the median of per-run values.
    Linear,
}

/// The `q` quantile of `values` by nearest rank; see [`quantiles`].
pub(crate) fn quantile_nearest_rank(values: &mut [f64], q: f64) -> f64 {
    quantiles(values, &[q], Interpolation::NearestRank)[0]
}

/// The `q` quantile of `values` by linear interpolation; see [`quantiles`].
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
/// buffer right of the previous one, so P50, P90, P95, P99 and max cost under two partitioning passes rather
/// than a sort.
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

#[cfg(test)]
#[path = "quantile_tests.rs"]
mod tests;
