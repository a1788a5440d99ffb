//! Tests of `compare::stats`: hand-computed values, explained in the comments.

use super::*;
use std::time::Instant;

// -----------------------------------------------------------------------------------------------------------
// verdict

#[test]
fn verdict_table_before_100() {
    use Direction::{Higher, Lower, Neutral};
    use Verdict::{Better, Inconclusive, Same, Worse};
    // before = 100, so absolute deltas read directly as percent; min change 5 %.
    let cases = [
        // CI wholly positive, estimate ≥ 5 %.
        (Higher, 10.0, (8.0, 12.0), Better),
        (Lower, 10.0, (8.0, 12.0), Worse),
        (Neutral, 10.0, (8.0, 12.0), Inconclusive),
        // CI wholly negative.
        (Higher, -10.0, (-12.0, -8.0), Worse),
        (Lower, -10.0, (-12.0, -8.0), Better),
        (Neutral, -10.0, (-12.0, -8.0), Inconclusive),
        // CI within ±5 %.
        (Higher, 1.0, (-3.0, 4.0), Same),
        (Lower, 1.0, (-3.0, 4.0), Same),
        (Neutral, 1.0, (-3.0, 4.0), Same),
        // CI straddling 0 and reaching past ±5 %.
        (Higher, 2.0, (-8.0, 12.0), Inconclusive),
        (Lower, 2.0, (-8.0, 12.0), Inconclusive),
        (Neutral, 2.0, (-8.0, 12.0), Inconclusive),
        // A real but negligible change (CI one-sided, inside ±5 %).
        (Higher, 2.0, (1.0, 4.0), Same),
        (Lower, -2.0, (-4.0, -1.0), Same),
        // One-sided CI reaching past 5 %, estimate below 5 %: neither a change nor the same.
        (Higher, 3.0, (1.0, 9.0), Inconclusive),
        (Lower, -3.0, (-9.0, -1.0), Inconclusive),
        // Boundaries: an estimate of exactly 5 % counts; a CI touching 0 is not one-sided; ±5 % is within.
        (Higher, 5.0, (5.0, 6.0), Better),
        (Lower, -5.0, (-6.0, -5.0), Better),
        (Higher, 5.0, (0.0, 5.0), Same),
        (Higher, 6.0, (0.0, 12.0), Inconclusive),
        (Lower, 0.0, (-5.0, 5.0), Same),
        // Estimate on the other side of a one-sided CI: not a change.
        (Higher, -6.0, (1.0, 9.0), Inconclusive),
    ];
    for (dir, delta, ci, want) in cases {
        assert_eq!(
            verdict(dir, 100.0, delta, ci, 5.0),
            want,
            "{dir:?} delta {delta} ci {ci:?}"
        );
    }
}

#[test]
fn verdict_percent_is_of_the_magnitude_of_before() {
    // before −200: CI (10, 30) is 5 %..15 %, estimate 20 is +10 %: the value went up.
    assert_eq!(
        verdict(Direction::Higher, -200.0, 20.0, (10.0, 30.0), 5.0),
        Verdict::Better
    );
    assert_eq!(
        verdict(Direction::Lower, -200.0, 20.0, (10.0, 30.0), 5.0),
        Verdict::Worse
    );
    // The same absolute CI (1, 2) is 2 %..4 % of 50 (Same) but 10 %..20 % of 10 (estimate 15 %: Better).
    assert_eq!(verdict(Direction::Higher, 50.0, 1.5, (1.0, 2.0), 5.0), Verdict::Same);
    assert_eq!(verdict(Direction::Higher, 10.0, 1.5, (1.0, 2.0), 5.0), Verdict::Better);
}

#[test]
fn verdict_before_zero_uses_signs_only() {
    use Direction::{Higher, Lower, Neutral};
    use Verdict::{Better, Inconclusive, Same, Worse};
    let cases = [
        (Higher, 0.0, (0.0, 0.0), Same),
        (Lower, 0.0, (0.0, 0.0), Same),
        (Neutral, 0.0, (0.0, 0.0), Same),
        // From 0 to anything is an infinite percentage, past any threshold.
        (Higher, 2.0, (1.0, 3.0), Better),
        (Lower, 2.0, (1.0, 3.0), Worse),
        (Neutral, 2.0, (1.0, 3.0), Inconclusive),
        (Higher, -2.0, (-3.0, -1.0), Worse),
        (Lower, -2.0, (-3.0, -1.0), Better),
        // Touching or straddling 0: 0 % at one end, ±∞ % at the other.
        (Higher, 1.0, (0.0, 3.0), Inconclusive),
        (Lower, -1.0, (-3.0, 0.0), Inconclusive),
        (Neutral, 1.0, (-1.0, 2.0), Inconclusive),
    ];
    for (dir, delta, ci, want) in cases {
        assert_eq!(
            verdict(dir, 0.0, delta, ci, 5.0),
            want,
            "{dir:?} delta {delta} ci {ci:?}"
        );
        assert_eq!(
            verdict(dir, -0.0, delta, ci, 1000.0),
            want,
            "{dir:?} delta {delta} ci {ci:?}, -0.0"
        );
    }
}

#[test]
fn verdict_odd_inputs() {
    let v = |before, delta, ci, min| verdict(Direction::Higher, before, delta, ci, min);
    assert_eq!(v(f64::NAN, 10.0, (8.0, 12.0), 5.0), Verdict::Inconclusive);
    assert_eq!(v(100.0, f64::INFINITY, (8.0, 12.0), 5.0), Verdict::Inconclusive);
    assert_eq!(v(100.0, 10.0, (f64::NAN, 12.0), 5.0), Verdict::Inconclusive);
    assert_eq!(v(100.0, 10.0, (8.0, f64::INFINITY), 5.0), Verdict::Inconclusive);
    assert_eq!(v(100.0, 10.0, (8.0, 12.0), f64::NAN), Verdict::Inconclusive);
    assert_eq!(v(100.0, 10.0, (12.0, 8.0), 5.0), Verdict::Inconclusive); // lo > hi
                                                                         // A negative threshold is its magnitude.
    assert_eq!(v(100.0, 10.0, (8.0, 12.0), -5.0), Verdict::Better);
    assert_eq!(v(100.0, 1.0, (-3.0, 4.0), -5.0), Verdict::Same);
    // Threshold 0: any one-sided CI is a change; only an exact (0, 0) is Same.
    assert_eq!(v(100.0, 0.1, (0.05, 0.2), 0.0), Verdict::Better);
    assert_eq!(v(100.0, 0.0, (0.0, 0.0), 0.0), Verdict::Same);
    assert_eq!(v(100.0, 0.0, (0.0, 0.1), 0.0), Verdict::Inconclusive);
}

#[test]
fn enum_names_and_symbols() {
    fn json<T: Serialize>(value: T) -> String {
        serde_json::to_string(&value).unwrap_or_default()
    }
    let directions = [Direction::Higher, Direction::Lower, Direction::Neutral].map(json);
    assert_eq!(directions, [r#""higher""#, r#""lower""#, r#""neutral""#]);
    let verdicts = [Verdict::Better, Verdict::Worse, Verdict::Same, Verdict::Inconclusive];
    assert_eq!(
        verdicts.map(json),
        [r#""better""#, r#""worse""#, r#""same""#, r#""inconclusive""#]
    );
    assert_eq!(verdicts.map(Verdict::symbol), ["↑", "↓", "~", "?"]);
    assert_eq!(
        serde_json::from_str::<Direction>(r#""lower""#).ok(),
        Some(Direction::Lower)
    );
    assert_eq!(serde_json::from_str::<Verdict>(r#""same""#).ok(), Some(Verdict::Same));
    assert!(serde_json::from_str::<Direction>(r#""Higher""#).is_err());
}

// -----------------------------------------------------------------------------------------------------------
// Mann–Whitney

/// Asserts p(a, b) == p(b, a) == want, exactly.
fn assert_p(a: &[f64], b: &[f64], want: f64) {
    assert_eq!(mann_whitney_p(a, b), Some(want), "{a:?} vs {b:?}");
    assert_eq!(mann_whitney_p(b, a), Some(want), "{b:?} vs {a:?}");
}

#[test]
fn mann_whitney_separated() {
    // 4 vs 4: of the C(8, 4) = 70 equally likely rank sets only {1,2,3,4} is as low as a's: p = 2 · 1/70.
    assert_p(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0], 2.0 / 70.0);
    // 3 vs 3: 2 · 1/C(6, 3) = 2/20.
    assert_p(&[10.0, 11.0, 12.0], &[0.5, 0.25, 0.125], 0.1);
    // 1 vs 3: a's rank is 1 of 4 equally likely: 2 · 1/4.
    assert_p(&[1.0], &[2.0, 3.0, 4.0], 0.5);
}

#[test]
fn mann_whitney_no_difference() {
    // Identical samples: a's doubled ranks 3+7+11+15 = 36 are the centre of a symmetric distribution, so both
    // tails hold more than half: p = 1.
    assert_p(&[1.0, 2.0, 3.0, 4.0], &[1.0, 2.0, 3.0, 4.0], 1.0);
    // All values tied: every subset has the same sum.
    assert_p(&[5.0, 5.0], &[5.0, 5.0, 5.0], 1.0);
    // −0.0 and +0.0 are the same value.
    assert_p(&[-0.0], &[0.0], 1.0);
}

#[test]
fn mann_whitney_interleaved() {
    // a = ranks {1, 3, 5}, W = 9. Rank sums of the 20 three-subsets of 1..6:
    //   6:1 7:1 8:2 9:3 10:3 11:3 12:3 13:2 14:1 15:1
    // P(W ≤ 9) = 7/20, P(W ≥ 9) = 16/20: p = 14/20.
    assert_p(&[1.0, 3.0, 5.0], &[2.0, 4.0, 6.0], 14.0 / 20.0);
}

#[test]
fn mann_whitney_ties_by_hand() {
    // a = [1, 2], b = [2, 3]: ranks 1, 2.5, 2.5, 4, doubled 2, 5, 5, 8; a's sum 7.
    // The 6 pairs: {2,5} 7, {2,5} 7, {2,8} 10, {5,5} 10, {5,8} 13, {5,8} 13.
    // P(W ≤ 7) = 2/6, P(W ≥ 7) = 6/6: p = 4/6.
    assert_p(&[1.0, 2.0], &[2.0, 3.0], 4.0 / 6.0);
    // a = [1, 1, 2], b = [2, 3, 3]: doubled midranks 3, 3, 7, 7, 11, 11; a's sum 3 + 3 + 7 = 13.
    // Take x 3s, y 7s, z 11s (x + y + z = 3, each ≤ 2), C(2,x)·C(2,y)·C(2,z) ways, sum 3x + 7y + 11z:
    //   (2,1,0) 2 ways 13 | (2,0,1) 2 ways 17 | (1,2,0) 2 ways 17 | (1,1,1) 8 ways 21
    //   (0,2,1) 2 ways 25 | (1,0,2) 2 ways 25 | (0,1,2) 2 ways 29          (20 in all)
    // P(W ≤ 13) = 2/20, P(W ≥ 13) = 1: p = 4/20. Fully separated but tied at the edges: 0.2, not 0.1.
    assert_p(&[1.0, 1.0, 2.0], &[2.0, 3.0, 3.0], 0.2);
}

#[test]
fn mann_whitney_matches_brute_force_enumeration() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..200 {
        let (na, nb) = (rng.random_range(1..=6), rng.random_range(1..=6));
        // Values from 0..5 so ties are frequent.
        let mut draw = |n: usize| (0..n).map(|_| f64::from(rng.random_range(0u8..5))).collect::<Vec<_>>();
        let (a, b) = (draw(na), draw(nb));
        assert_eq!(mann_whitney_p(&a, &b), Some(brute_force_p(&a, &b)), "{a:?} vs {b:?}");
    }
}

/// Enumerates every way of labelling `a.len()` of the pooled values as "a" (bit masks), with ranks computed
/// by counting: midrank(v) = #(values < v) + (#(values == v) + 1) / 2.
fn brute_force_p(a: &[f64], b: &[f64]) -> f64 {
    let pooled: Vec<f64> = a.iter().chain(b).copied().collect();
    let midrank2 = |v: f64| {
        let less = pooled.iter().filter(|&&x| x < v).count();
        let equal = pooled.iter().filter(|&&x| x == v).count();
        2 * less + equal + 1
    };
    let ranks: Vec<usize> = pooled.iter().map(|&v| midrank2(v)).collect();
    let w: usize = ranks[..a.len()].iter().sum();
    let (mut total, mut le, mut ge) = (0u32, 0u32, 0u32);
    for mask in 0u32..(1 << pooled.len()) {
        if mask.count_ones() as usize != a.len() {
            continue;
        }
        let s: usize = (0..pooled.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| ranks[i])
            .sum();
        total += 1;
        le += u32::from(s <= w);
        ge += u32::from(s >= w);
    }
    (f64::from(2 * le.min(ge)) / f64::from(total)).min(1.0)
}

#[test]
fn mann_whitney_refusals() {
    assert_eq!(mann_whitney_p(&[], &[1.0]), None);
    assert_eq!(mann_whitney_p(&[1.0], &[]), None);
    assert_eq!(mann_whitney_p(&[1.0, f64::NAN], &[2.0]), None);
    assert_eq!(mann_whitney_p(&[1.0], &[2.0, f64::NEG_INFINITY]), None);
    let big = vec![1.0; MANN_WHITNEY_MAX_PER_SIDE + 1];
    assert_eq!(mann_whitney_p(&big, &[1.0]), None);
    assert_eq!(mann_whitney_p(&[1.0], &vec![0.0; 10_000_000]), None);
}

#[test]
fn mann_whitney_largest_case_is_exact() {
    let a: Vec<f64> = (0..50).map(f64::from).collect();
    let b: Vec<f64> = (50..100).map(f64::from).collect();
    let t = Instant::now();
    // One subset of C(100, 50) is as extreme; u128 counts keep that 1 exact.
    assert_p(&a, &b, 2.0 / 100_891_344_545_564_193_334_812_497_256.0);
    eprintln!("mann_whitney 50 vs 50 (four calls): {:?}", t.elapsed());
}

// -----------------------------------------------------------------------------------------------------------
// quantiles

#[test]
fn nearest_rank_matches_fpsan_summaries() {
    // The cases of fpsan's metrics tests (`nearest_rank_percentiles`, `percentile_ranks_on_20_values`).
    let q = |v: &[f64]| {
        quantiles(
            &mut v.to_vec(),
            &[0.5, 0.9, 0.95, 0.99, 1.0],
            Interpolation::NearestRank,
        )
    };
    // n = 10: ranks ⌈5⌉ = 5, ⌈9⌉ = 9, ⌈9.5⌉ = 10, ⌈9.9⌉ = 10.
    assert_eq!(
        q(&[5.0, 1.0, 9.0, 3.0, 7.0, 2.0, 8.0, 4.0, 10.0, 6.0]),
        [5.0, 9.0, 10.0, 10.0, 10.0]
    );
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
    assert_eq!(
        quantiles(&mut v, &[1.0, 0.5, 0.9, 0.5], Interpolation::NearestRank),
        [20.0, 10.0, 18.0, 10.0]
    );
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

// -----------------------------------------------------------------------------------------------------------
// bootstrap

/// `runs` runs of `frames` values uniform in [shift, shift + 100), plus `run_offsets[r]` for run r if given.
fn runs_of(seed: u64, runs: usize, frames: usize, shift: f64, run_offsets: &[f64]) -> Vec<Vec<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..runs)
        .map(|r| {
            let offset = run_offsets.get(r).copied().unwrap_or(0.0);
            (0..frames)
                .map(|_| shift + offset + rng.random_range(0.0..100.0))
                .collect()
        })
        .collect()
}

fn slices(runs: &[Vec<f64>]) -> Vec<&[f64]> {
    runs.iter().map(Vec::as_slice).collect()
}

fn mean(r: &Resample<'_, f64>) -> Vec<f64> {
    let frames = r.frames();
    vec![frames.iter().copied().sum::<f64>() / frames.len() as f64]
}

fn mean_ci(before: &[Vec<f64>], after: &[Vec<f64>], resamples: usize, seed: u64) -> (f64, f64) {
    let out = bootstrap_deltas(&slices(before), &slices(after), resamples, seed, mean);
    out[0].ci95.unwrap_or((f64::NAN, f64::NAN))
}

#[test]
fn bootstrap_is_reproducible_and_seeded() {
    let before = runs_of(1, 4, 300, 0.0, &[]);
    let after = runs_of(2, 4, 300, 0.0, &[]);
    let first = mean_ci(&before, &after, 500, 42);
    assert_eq!(mean_ci(&before, &after, 500, 42), first);
    let other = mean_ci(&before, &after, 500, 43);
    assert!(other.0 != first.0 && other.1 != first.1, "{first:?} vs {other:?}");
}

#[test]
fn bootstrap_does_not_depend_on_thread_count() {
    let before = runs_of(1, 5, 500, 0.0, &[]);
    let after = runs_of(2, 3, 700, 3.0, &[]);
    let run_in = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        pool.install(|| bootstrap_deltas(&slices(&before), &slices(&after), 1000, 9, mean))
    };
    let one = run_in(1);
    assert!(one[0].ci95.is_some());
    assert_eq!(run_in(2), one);
    assert_eq!(run_in(3), one);
}

#[test]
fn bootstrap_same_distribution_ci_contains_zero() {
    let (lo, hi) = mean_ci(&runs_of(10, 6, 400, 0.0, &[]), &runs_of(11, 6, 400, 0.0, &[]), 2000, 1);
    assert!(lo < 0.0 && 0.0 < hi, "({lo}, {hi})");
    // Mean of 2400 uniform(0, 100) values: sd 28.9/√2400 ≈ 0.59 per side, 0.83 for the difference, so the
    // interval is about ±1.6 wide; allow for the run level.
    assert!(hi - lo < 5.0, "({lo}, {hi})");
}

#[test]
fn bootstrap_shift_of_ten_is_found() {
    let (lo, hi) = mean_ci(&runs_of(20, 6, 400, 0.0, &[]), &runs_of(21, 6, 400, 10.0, &[]), 2000, 1);
    assert!(lo > 6.0 && hi < 14.0 && lo < 10.0 && 10.0 < hi, "({lo}, {hi})");
}

#[test]
fn bootstrap_with_one_run_per_side_is_frame_level() {
    let (lo, hi) = mean_ci(
        &runs_of(30, 1, 2000, 0.0, &[]),
        &runs_of(31, 1, 2000, 10.0, &[]),
        2000,
        1,
    );
    assert!(lo > 6.0 && hi < 14.0 && lo < 10.0 && 10.0 < hi, "({lo}, {hi})");
}

#[test]
fn run_level_carries_between_run_spread() {
    // Runs whose levels differ by tens: pooled as one run (frame level only) the mean looks precise; resampled
    // by run, the interval reflects that 4 runs say little about the level.
    let offsets = [0.0, 40.0, 80.0, 120.0];
    let before = runs_of(40, 4, 500, 0.0, &offsets);
    let after = runs_of(41, 4, 500, 0.0, &offsets);
    let pooled = |runs: &[Vec<f64>]| vec![runs.concat()];
    let (hl, hh) = mean_ci(&before, &after, 2000, 5);
    let (fl, fh) = mean_ci(&pooled(&before), &pooled(&after), 2000, 5);
    // Frame level: sd of pooled values ≈ 49, so ±1.96·49·√(2/2000) ≈ ±3. Run level: run means are 0, 40, 80,
    // 120 (+50), sd ≈ 45 over 4 runs per side, ±1.96·45·√(2/4) ≈ ±60.
    assert!(fh - fl < 10.0, "frame level ({fl}, {fh})");
    assert!(hh - hl > 60.0, "hierarchical ({hl}, {hh})");
}

#[test]
fn resample_shape() {
    // Runs of 1, 2 and 7 frames before, 5 runs after. Metric 0: pooled frame count minus the drawn runs'
    // lengths (always 0); metric 1: number of drawn runs (3 before, 5 after: delta 2 every time).
    let before_runs: Vec<Vec<u8>> = vec![vec![0], vec![1; 2], vec![2; 7]];
    let after_runs: Vec<Vec<u8>> = (0..5u8).map(|r| vec![r; usize::from(r) + 1]).collect();
    let (before, after): (Vec<&[u8]>, Vec<&[u8]>) = (
        before_runs.iter().map(Vec::as_slice).collect(),
        after_runs.iter().map(Vec::as_slice).collect(),
    );
    let out = bootstrap_deltas(&before, &after, 300, 8, |r: &Resample<'_, u8>| {
        let side = if r.runs().len() == 5 { &after } else { &before };
        // Each frame of run i holds i, so every drawn frame must come from a drawn run.
        let from_drawn_runs = r.frames().iter().all(|&&f| r.runs().contains(&usize::from(f)));
        let drawn: usize = r.runs().iter().map(|&i| side[i].len()).sum();
        let frames_ok = from_drawn_runs && r.frames().len() == drawn;
        vec![if frames_ok { 0.0 } else { f64::NAN }, r.runs().len() as f64]
    });
    assert_eq!(out.len(), 2);
    assert_eq!(
        out[0],
        DeltaCi {
            before: 0.0,
            after: 0.0,
            ci95: Some((0.0, 0.0))
        }
    );
    assert_eq!(
        out[1],
        DeltaCi {
            before: 3.0,
            after: 5.0,
            ci95: Some((2.0, 2.0))
        }
    );
    assert_eq!(out[1].delta(), 2.0);
}

#[test]
fn point_estimates_are_on_the_captured_frames() {
    let before = [vec![1.0, 2.0], vec![3.0]];
    let after = [vec![4.0, 5.0, 6.0, 7.0]];
    let out = bootstrap_deltas(&slices(&before), &slices(&after), 100, 0, mean);
    assert_eq!((out[0].before, out[0].after, out[0].delta()), (2.0, 5.5, 3.5));
}

#[test]
fn undefined_metrics() {
    let before = runs_of(50, 4, 50, 0.0, &[]);
    let after = runs_of(51, 4, 50, 0.0, &[]);
    // A delta is finite when its metric is defined on both sides. Metric 1 is never defined. Metric 2 is
    // defined unless runs 0, 0 are drawn first (15/16 per side, 88 % of resamples); metric 3 only when run 0 is
    // drawn first (1/4 per side, 6 %).
    let out = bootstrap_deltas(&slices(&before), &slices(&after), 1000, 2, |r: &Resample<'_, f64>| {
        let defined_if = |defined: bool| if defined { 1.0 } else { f64::NAN };
        let runs = r.runs();
        vec![
            mean(r)[0],
            f64::NAN,
            defined_if(runs[..2] != [0, 0]),
            defined_if(runs[0] == 0),
        ]
    });
    assert!(out[0].ci95.is_some());
    assert_eq!(out[1].ci95, None);
    assert_eq!(out[2].ci95, Some((0.0, 0.0)));
    assert_eq!(out[3].ci95, None);
}

#[test]
fn interval_needs_half_of_the_resamples() {
    // 5 finite deltas of 10 resamples is half: enough. 4 is not.
    assert_eq!(
        percentile_interval(&mut [1.0, 2.0, 3.0, 4.0, 5.0], 10),
        Some((1.1, 4.9))
    );
    assert_eq!(percentile_interval(&mut [1.0, 2.0, 3.0, 4.0], 10), None);
    assert_eq!(percentile_interval(&mut [], 0), None);
}

#[test]
fn bootstrap_degenerate_inputs() {
    let empty: Vec<&[f64]> = Vec::new();
    let one_empty_run: Vec<&[f64]> = vec![&[]];
    let some: Vec<&[f64]> = vec![&[1.0, 2.0]];
    for (b, a) in [
        (&empty, &some),
        (&some, &empty),
        (&one_empty_run, &some),
        (&empty, &one_empty_run),
    ] {
        let out = bootstrap_deltas(b, a, 50, 1, mean);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].ci95, None);
    }
    // No resamples: point estimates, no interval.
    let out = bootstrap_deltas(&some, &some, 0, 1, mean);
    assert_eq!(
        out,
        [DeltaCi {
            before: 1.5,
            after: 1.5,
            ci95: None
        }]
    );
    // A metric vector whose length varies: missing values are undefined, extra ones ignored.
    let out = bootstrap_deltas(&some, &some, 50, 1, |r: &Resample<'_, f64>| {
        vec![1.0; r.frames().len() + 1]
    });
    assert_eq!(out.len(), 3);
}

// -----------------------------------------------------------------------------------------------------------
// gate rules

const METRICS: &[&str] = &["fps", "jank_pct", "frozen_per_1000", "p99_ms"];

fn rule(s: &str) -> GateRule {
    match parse_rule(s, METRICS) {
        Ok(r) => r,
        Err(e) => panic!("{s}: {e}"),
    }
}

#[test]
fn parse_valid_rules() {
    let r = rule("fps.delta_pct < -5");
    assert_eq!(
        r,
        GateRule {
            text: "fps.delta_pct < -5".into(),
            metric: "fps".into(),
            field: GateField::DeltaPct,
            op: GateOp::Lt,
            threshold: -5.0
        }
    );
    let parts = |r: GateRule| (r.metric, r.field, r.op, r.threshold);
    assert_eq!(
        parts(rule("frozen_per_1000.after>0")),
        ("frozen_per_1000".into(), GateField::After, GateOp::Gt, 0.0)
    );
    assert_eq!(
        parts(rule("jank_pct.after >= 5.5")),
        ("jank_pct".into(), GateField::After, GateOp::Ge, 5.5)
    );
    assert_eq!(
        parts(rule("  p99_ms.delta<=+2.5e1\t")),
        ("p99_ms".into(), GateField::Delta, GateOp::Le, 25.0)
    );
    assert_eq!(rule("  p99_ms.delta<=+2.5e1\t").text, "p99_ms.delta<=+2.5e1");
    assert_eq!((GateOp::Ge.as_str(), GateField::DeltaPct.as_str()), (">=", "delta_pct"));
}

#[test]
fn parse_errors() {
    let err = |s: &str| parse_rule(s, METRICS).err();
    let syntax = |s: &str| Some(RuleError::Syntax { rule: s.trim().into() });
    for bad in [
        "",
        "fps.delta_pct",
        "fps < 5",
        ".after < 5",
        "fps. < 5",
        "fps.after = 5",
        "fps.after == 5",
    ] {
        assert_eq!(err(bad), syntax(bad), "{bad:?}");
    }
    assert_eq!(err("fps .after < 5"), syntax("fps .after < 5"));
    assert_eq!(
        err("fps.before < 5"),
        Some(RuleError::UnknownField {
            rule: "fps.before < 5".into(),
            field: "before".into()
        })
    );
    for (bad, number) in [("fps.after <", ""), ("fps.after < x", "x"), ("fps.after <= = 5", "= 5")] {
        assert_eq!(
            err(bad),
            Some(RuleError::BadNumber {
                rule: bad.into(),
                number: number.into()
            })
        );
    }
    for bad in [
        "fps.after < nan",
        "fps.after < inf",
        "fps.after > -infinity",
        "fps.after < 1e999",
    ] {
        assert!(matches!(err(bad), Some(RuleError::BadNumber { .. })), "{bad}");
    }
    assert_eq!(
        err("fsp.after < 5"),
        Some(RuleError::UnknownMetric {
            rule: "fsp.after < 5".into(),
            metric: "fsp".into(),
            known: "fps, jank_pct, frozen_per_1000, p99_ms".into()
        })
    );
    assert!(
        matches!(parse_rule("fps.after < 5", &[]), Err(RuleError::UnknownMetric { known, .. }) if known == "(none)")
    );
}

#[test]
fn parse_error_messages() {
    let msg = |s: &str| parse_rule(s, METRICS).err().map(|e| e.to_string()).unwrap_or_default();
    assert_eq!(
        msg("fps.delta_pct"),
        "gate rule `fps.delta_pct` does not parse: expected METRIC.FIELD OP NUMBER, e.g. `fps.delta_pct < -5`; \
         FIELD is after, delta or delta_pct; OP is <, <=, >, >="
    );
    assert_eq!(
        msg("fsp.after < 5"),
        "gate rule `fsp.after < 5`: unknown metric `fsp`; known metrics: fps, jank_pct, frozen_per_1000, p99_ms"
    );
    assert!(msg("fps.before < 5").contains("unknown field `before`; expected METRIC.FIELD OP NUMBER"));
    assert!(msg("fps.after < x").contains("`x` is not a finite number; expected METRIC.FIELD OP NUMBER"));
    // User input with a newline still gives a one-line message.
    let m = msg("fps.after\n< x\ry");
    assert!(m.starts_with(r"gate rule `fps.after\n< x\ry`: `x\ry` is not"), "{m}");
    assert!(!m.contains(['\n', '\r']));
}

#[test]
fn tripped_table() {
    use Verdict::{Better, Inconclusive, Same, Worse};
    let nan = f64::NAN;
    // (rule, after, delta, delta_pct, verdict, tripped)
    let cases = [
        ("fps.delta_pct < -5", 50.0, -5.0, -8.0, Worse, true),
        ("fps.delta_pct < -5", 50.0, -5.0, -8.0, Inconclusive, false),
        ("fps.delta_pct < -5", 50.0, -5.0, -8.0, Same, false),
        ("fps.delta_pct < -5", 50.0, -5.0, -8.0, Better, false),
        ("fps.delta_pct < -5", 50.0, -3.0, -5.0, Worse, false), // −5 is not < −5
        ("fps.delta_pct < -5", 50.0, -5.0, nan, Worse, false),
        ("fps.delta_pct < -5", 50.0, -5.0, f64::NEG_INFINITY, Worse, false),
        ("p99_ms.delta >= 2", 30.0, 2.0, 7.0, Worse, true),
        ("p99_ms.delta >= 2", 30.0, 1.99, 7.0, Worse, false),
        ("p99_ms.delta >= 2", 30.0, 3.0, 7.0, Inconclusive, false),
        ("jank_pct.delta_pct <= 0", 1.0, -1.0, 0.0, Worse, true), // field values are the caller's
        // `after` is a budget: the verdict does not matter.
        ("frozen_per_1000.after > 0", 1.5, 0.0, 0.0, Better, true),
        ("frozen_per_1000.after > 0", 1.5, nan, nan, Inconclusive, true),
        ("frozen_per_1000.after > 0", 0.0, 1.0, 10.0, Worse, false),
        ("frozen_per_1000.after > 0", nan, 1.0, 10.0, Worse, false),
        ("frozen_per_1000.after > 0", f64::INFINITY, 1.0, 10.0, Worse, false),
        ("jank_pct.after >= 5.5", 5.5, 0.0, 0.0, Same, true),
        ("jank_pct.after >= 5.5", 5.49, 0.0, 0.0, Same, false),
    ];
    for (text, after, delta, delta_pct, verdict, want) in cases {
        assert_eq!(
            rule(text).tripped(after, delta, delta_pct, verdict),
            want,
            "{text} {after} {delta} {delta_pct}"
        );
    }
}

// -----------------------------------------------------------------------------------------------------------
// coefficient of variation

#[test]
fn coefficient_of_variation_values() {
    // Mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32, sample variance 32/7.
    let cv = coefficient_of_variation(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
    assert_eq!(cv, Some((32.0f64 / 7.0).sqrt() / 5.0));
    // Mean −2, deviations ±1: sd √2, over |mean|.
    assert_eq!(coefficient_of_variation(&[-1.0, -3.0]), Some(2.0f64.sqrt() / 2.0));
    assert_eq!(coefficient_of_variation(&[5.0, 5.0, 5.0]), Some(0.0));
    assert_eq!(coefficient_of_variation(&[]), None);
    assert_eq!(coefficient_of_variation(&[3.0]), None);
    assert_eq!(coefficient_of_variation(&[-1.0, 1.0]), None);
    assert_eq!(coefficient_of_variation(&[1.0, f64::NAN]), None);
    assert_eq!(coefficient_of_variation(&[f64::MAX, f64::MAX]), None); // the sum overflows
}

// -----------------------------------------------------------------------------------------------------------
// speed (cargo test --release -- --ignored --nocapture)

struct Frame {
    cost_ms: f64,
    dropped: u32,
}

/// 10 runs × 5000 frames; cost ≈ 8..24 ms with a 2 % tail up to 120 ms.
fn frame_runs(seed: u64, shift: f64) -> Vec<Vec<Frame>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..10)
        .map(|_| {
            (0..5000)
                .map(|_| {
                    let tail = if rng.random_bool(0.02) {
                        rng.random_range(0.0..100.0)
                    } else {
                        0.0
                    };
                    let cost_ms = shift + rng.random_range(8.0..24.0) + tail;
                    Frame {
                        cost_ms,
                        dropped: (cost_ms / 16.7) as u32,
                    }
                })
                .collect()
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Eval {
    /// The metrics, quantiles by [`quantiles`]' successive selection.
    MultiSelect,
    /// The same metrics, quantiles read off one full sort.
    SortOnce,
    /// The frame count only: the cost of drawing the resamples.
    DrawOnly,
}

/// p50/p90/p95/p99/max of cost, mean cost, janky and frozen frames per 1000 frames.
fn frame_metrics(r: &Resample<'_, Frame>, how: Eval) -> Vec<f64> {
    let frames = r.frames();
    if how == Eval::DrawOnly {
        return vec![frames.len() as f64];
    }
    let mut cost: Vec<f64> = frames.iter().map(|f| f.cost_ms).collect();
    let mean = cost.iter().sum::<f64>() / cost.len() as f64;
    let qs = [0.5, 0.9, 0.95, 0.99, 1.0];
    let mut out = if how == Eval::SortOnce {
        cost.sort_unstable_by(f64::total_cmp);
        let rank = |q| quantile_position(cost.len(), q, Interpolation::NearestRank).map_or(0, |p| p.0);
        qs.iter().map(|&q| cost[rank(q)]).collect()
    } else {
        quantiles(&mut cost, &qs, Interpolation::NearestRank)
    };
    let per_1000 = |n: usize| n as f64 * 1000.0 / frames.len() as f64;
    out.push(mean);
    out.push(per_1000(frames.iter().filter(|f| f.dropped > 0).count()));
    out.push(per_1000(frames.iter().filter(|f| f.cost_ms > 700.0).count()));
    out
}

#[test]
#[ignore = "benchmark"]
fn bench_bootstrap_10_runs_5000_frames_2000_resamples() {
    let before = frame_runs(1, 0.0);
    let after = frame_runs(2, 1.0);
    let (b, a): (Vec<&[Frame]>, Vec<&[Frame]>) = (
        before.iter().map(Vec::as_slice).collect(),
        after.iter().map(Vec::as_slice).collect(),
    );
    for how in [Eval::MultiSelect, Eval::SortOnce, Eval::DrawOnly] {
        for threads in [2, 1] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("thread pool");
            let t = Instant::now();
            let out = pool.install(|| bootstrap_deltas(&b, &a, 2000, 1, |r| frame_metrics(r, how)));
            eprintln!("{how:?}, {threads} thread(s): {:.2?}", t.elapsed());
            assert!(out.iter().all(|d| d.ci95.is_some()), "{out:?}");
            if how != Eval::DrawOnly {
                // After is before + 1 ms plus sampling noise.
                eprintln!("  mean delta {:.3} ms, ci95 {:?}", out[5].delta(), out[5].ci95);
            }
        }
    }
}
