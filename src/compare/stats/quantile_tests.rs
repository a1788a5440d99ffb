use super::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn nearest_rank_matches_fpsan_summaries() {
    // The cases of fpsan's metrics tests (`nearest_rank_percentiles`, `percentile_ranks_on_20_values`).
    let q = |v: &[f64]| quantiles(&mut v.to_vec(), &[0.5, 0.9, 0.95, 0.99, 1.0], Interpolation::NearestRank);
    // n = 10: ranks ⌈5⌉ = 5, ⌈9⌉ = 9, ⌈9.5⌉ = 10, ⌈9.9⌉ = 10.
    assert_eq!(q(&[5.0, 1.0, 9.0, 3.0, 7.0, 2.0, 8.0, 4.0, 10.0, 6.0]), [5.0, 9.0, 10.0, 10.0, 10.0]);
    // n = 3: ranks ⌈1.5⌉ = 2, ⌈2.7⌉ = 3, 3, 3.
    assert_eq!(q(&[-3.0, 4.0, 10.0]), [4.0, 10.0, 10.0, 10.0, 10.0]);
    // 1..=20: ranks 10, 18, 19, 20.
    let twenty: Vec<f64> = (1..=20).map(f64::from).collect();
    assert_eq!(q(&twenty), [10.0, 18.0, 19.0, 20.0, 20.0]);
    // q = 0 is the minimum (rank ⌈0⌉ is clamped to 1).
    assert_eq!(quantile_nearest_rank(&mut [3.0, 1.0, 2.0], 0.0), 1.0);
}

#[test]
fn linear_interpolates_between_closest_ranks() {
    // Position q·(n − 1): 0.5·3 = 1.5 → 2 + 0.5·(3 − 2).
    assert_eq!(quantile_linear(&mut [4.0, 1.0, 3.0, 2.0], 0.5), 2.5);
    // 0.75·4 = 3 exactly → the 4th value.
    assert_eq!(quantile_linear(&mut [5.0, 4.0, 3.0, 2.0, 1.0], 0.75), 4.0);
    // 0.125·2 = 0.25 → 0 + 0.25·8.
    assert_eq!(quantile_linear(&mut [16.0, 0.0, 8.0], 0.125), 2.0);
    // 0.9·1 = 0.9 → 0 + 0.9·10.
    assert_eq!(quantile_linear(&mut [10.0, 0.0], 0.9), 9.0);
    assert_eq!(quantile_linear(&mut [10.0, 0.0, 7.0], 1.0), 10.0);
    assert_eq!(quantile_linear(&mut [10.0, 0.0, 7.0], 0.0), 0.0);
}

#[test]
fn quantile_edge_cases() {
    for how in [Interpolation::NearestRank, Interpolation::Linear] {
        assert!(quantiles(&mut [], &[0.5], how)[0].is_nan());
        assert_eq!(quantiles(&mut [7.0], &[0.0, 0.5, 1.0], how), [7.0; 3]);
        let out = quantiles(&mut [1.0, 2.0], &[-0.1, 1.5, f64::NAN, 0.5], how);
        assert!(out[..3].iter().all(|v| v.is_nan()), "{how:?}: {out:?}");
        assert!(out[3].is_finite());
    }
    // Requested order is kept, duplicates included.
    let mut v: Vec<f64> = (1..=20).map(f64::from).collect();
    assert_eq!(quantiles(&mut v, &[1.0, 0.5, 0.9, 0.5], Interpolation::NearestRank), [20.0, 10.0, 18.0, 10.0]);
}

#[test]
fn multi_select_equals_sorting() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let qs = [0.99, 0.0, 0.5, 0.025, 0.9, 0.95, 0.975, 1.0, 0.333];
    for round in 0..300 {
        let n = rng.random_range(1..200);
        // Few distinct values in half the rounds, to exercise duplicates.
        let span = if round % 2 == 0 { 5 } else { 1_000_000 };
        let values: Vec<f64> = (0..n).map(|_| f64::from(rng.random_range(0..span)) / 8.0).collect();
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        for how in [Interpolation::NearestRank, Interpolation::Linear] {
            let want: Vec<f64> = qs
                .iter()
                .map(|&q| {
                    let Some((lo, hi, f)) = quantile_position(n, q, how) else {
                        return f64::NAN;
                    };
                    let (l, u) = (sorted[lo], sorted[hi]);
                    if l == u {
                        l
                    } else {
                        (f - lo as f64) * (u - l) + l
                    }
                })
                .collect();
            assert_eq!(quantiles(&mut values.clone(), &qs, how), want, "{how:?} n {n}");
        }
    }
}
