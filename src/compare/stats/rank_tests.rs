//! Tests of the rank statistics: values counted by hand (explained in the comments), brute-force
//! enumeration, and simulation with fixed seeds.

use super::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// The p value, checked against the tie-free shortcut where it applies.
fn p(before: &[f64], after: &[f64]) -> Option<f64> {
    let counted = mann_whitney(before, after, None).map(|t| t.p);
    let null = NullU::new(before.len(), after.len());
    let shortcut = mann_whitney(before, after, Some(&null)).map(|t| t.p);
    match (counted, shortcut) {
        (Some(c), Some(s)) => assert!((c - s).abs() <= 1e-12 * c.max(1e-300), "{c} vs {s}"),
        (c, s) => assert_eq!(c, s),
    }
    counted
}

/// Asserts p(a, b) == p(b, a) == want, exactly.
fn assert_p(a: &[f64], b: &[f64], want: f64) {
    assert_eq!(p(a, b), Some(want), "{a:?} vs {b:?}");
    assert_eq!(p(b, a), Some(want), "{b:?} vs {a:?}");
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
        assert_eq!(p(&a, &b), Some(brute_force_p(&a, &b)), "{a:?} vs {b:?}");
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
        let s: usize = (0..pooled.len()).filter(|i| mask & (1 << i) != 0).map(|i| ranks[i]).sum();
        total += 1;
        le += u32::from(s <= w);
        ge += u32::from(s >= w);
    }
    (f64::from(2 * le.min(ge)) / f64::from(total)).min(1.0)
}

#[test]
fn mann_whitney_refusals() {
    assert_eq!(p(&[], &[1.0]), None);
    assert_eq!(p(&[1.0], &[]), None);
    assert_eq!(p(&[1.0, f64::NAN], &[2.0]), None);
    assert_eq!(p(&[1.0], &[2.0, f64::NEG_INFINITY]), None);
}

#[test]
fn direction_and_method() {
    // After larger: U of after = 16 of 16, its null mean 8.
    let t = mann_whitney(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0], None).unwrap();
    assert_eq!((t.u_excess, t.method), (8.0, PMethod::Exact));
    let t = mann_whitney(&[5.0, 6.0, 7.0, 8.0], &[1.0, 2.0, 3.0, 4.0], None).unwrap();
    assert_eq!(t.u_excess, -8.0);
    // Ties count a half: after = [2, 3] against [1, 2]: U = 1 + 0.5 + 1 + 1 = 3.5 − 2.
    assert_eq!(mann_whitney(&[1.0, 2.0], &[2.0, 3.0], None).unwrap().u_excess, 1.5);
}

#[test]
fn largest_exact_case() {
    let a: Vec<f64> = (0..50).map(f64::from).collect();
    let b: Vec<f64> = (50..100).map(f64::from).collect();
    let t = Instant::now();
    // One subset of C(100, 50) is as extreme; u128 counts keep that 1 exact.
    assert_p(&a, &b, 2.0 / 100_891_344_545_564_193_334_812_497_256.0);
    let floor = smallest_p(50, 50) / (2.0 / 100_891_344_545_564_193_334_812_497_256.0);
    assert!((floor - 1.0).abs() < 1e-12, "{floor}");
    eprintln!("mann_whitney 50 vs 50 (two calls): {:?}", t.elapsed());
}

#[test]
fn two_hundred_runs_a_side_use_the_normal_approximation() {
    // before = 0, 2, …, 398 and after = 1, 3, …, 399: after's ranks are 2, 4, …, 400, sum 200·201 = 40200,
    // U = 40200 − 200·201/2 = 20100, null mean 20000, σ² = 200·200·401/12. z = (100 − ½)/σ = 0.086062;
    // p = erfc(z/√2) = 0.931417 (Python's math.erfc).
    let before: Vec<f64> = (0..200).map(|i| f64::from(2 * i)).collect();
    let after: Vec<f64> = (0..200).map(|i| f64::from(2 * i + 1)).collect();
    let t = Instant::now();
    let r = mann_whitney(&before, &after, None).unwrap();
    assert!(t.elapsed().as_secs_f64() < 1.0, "{:?}", t.elapsed());
    assert_eq!((r.method, r.u_excess), (PMethod::Normal, 100.0));
    assert!((r.p - 0.931_417_117).abs() < 1e-8, "{}", r.p);
    // Fully separated 200 vs 200: z = (20000 − ½)/σ ≈ 17.3, p ≈ 5e-67, still a number.
    let r = mann_whitney(&before, &after.iter().map(|v| v + 1000.0).collect::<Vec<_>>(), None).unwrap();
    assert!(r.p > 0.0 && r.p < 1e-60, "{}", r.p);
    // Every value tied: no evidence.
    assert_eq!(p(&[1.0; 60], &[1.0; 70]), Some(1.0));
}

#[test]
fn normal_approximation_is_close_to_exact_at_the_switch() {
    // At 50 vs 50, the approximation's p is within 0.001 of the exact p wherever p is near alpha.
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut checked = 0;
    for round in 0..400 {
        let shift = f64::from(round % 40) / 100.0;
        // Values on a grid of 20 in half the rounds: ties.
        let grid = round % 2 == 0;
        let mut draw = |s: f64| -> Vec<f64> {
            (0..50)
                .map(|_| {
                    let v: f64 = rng.random_range(0.0..1.0) + s;
                    if grid {
                        (v * 20.0).round()
                    } else {
                        v
                    }
                })
                .collect()
        };
        let (a, b) = (draw(0.0), draw(shift));
        let exact = exact_p(&Ranked::new(&a, &b), 50, 50);
        if !(0.01..=0.1).contains(&exact) {
            continue;
        }
        let ranked = Ranked::new(&b, &a);
        let u_excess = ranked.first_sum as f64 / 2.0 - 50.0 * 51.0 / 2.0 - 1250.0;
        let approx = normal_p(50, 50, u_excess, &ranked.tie_sizes);
        assert!((approx - exact).abs() < 0.001, "exact {exact}, normal {approx}");
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} cases near alpha");
}

#[test]
fn smallest_p_values() {
    assert_eq!(smallest_p(4, 4), 2.0 / 70.0);
    assert_eq!(smallest_p(3, 3), 0.1);
    assert_eq!(smallest_p(3, 5), 2.0 / 56.0);
    assert_eq!(smallest_p(1, 1), 1.0);
    assert_eq!(smallest_p(0, 5), 1.0);
    assert!(smallest_p(200, 200) > 0.0);
}

#[test]
fn shift_interval_by_hand() {
    // after − before over [1, 2, 3, 4] and [11, 12, 13, 14], sorted:
    //   7, 8, 8, 9, 9, 9, 10, 10, 10, 10, 11, 11, 11, 12, 12, 13.
    // 90%: P(U ≤ 1) = 2/70 ≤ 0.05 < P(U ≤ 2) = 4/70, c = 1: the 2nd smallest and 2nd largest.
    // 95%: P(U ≤ 0) = 1/70 ≤ 0.025 < 2/70, c = 0: the extremes.
    let (before, after) = ([1.0, 2.0, 3.0, 4.0], [11.0, 12.0, 13.0, 14.0]);
    let b = NullU::new(4, 4);
    assert_eq!(b.interval(&before, &after, 0.1), Some((8.0, 12.0)));
    assert_eq!(b.interval(&before, &after, 0.05), Some((7.0, 13.0)));
    // 3 vs 3: P(U ≤ 0) = 1/20 > 0.025: no 95% interval.
    assert_eq!(NullU::new(3, 3).interval(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0], 0.05), None);
    // 5 vs 5: P(U ≤ 2) = 4/252 ≤ 0.025 < P(U ≤ 3) = 7/252: the 3rd smallest and 3rd largest of 25.
    let before5 = [0.0, 10.0, 20.0, 30.0, 40.0];
    let after5 = [1.0, 2.0, 3.0, 4.0, 5.0];
    let mut d: Vec<f64> = after5.iter().flat_map(|a| before5.iter().map(move |b| a - b)).collect();
    d.sort_by(f64::total_cmp);
    assert_eq!(NullU::new(5, 5).interval(&before5, &after5, 0.05), Some((d[2], d[22])));
    // Wrong sizes or a non-finite value: none.
    assert_eq!(b.interval(&before[..3], &after, 0.05), None);
    assert_eq!(b.interval(&[1.0, 2.0, 3.0, f64::NAN], &after, 0.05), None);
}

/// Share of `trials` intervals from `n` vs `m` normal values, after shifted by 1.5, that hold the shift.
fn coverage(n: usize, m: usize, trials: usize, seed: u64) -> f64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let bounds = NullU::new(n, m);
    let mut normal = move || -> f64 {
        // Box–Muller.
        let (u1, u2): (f64, f64) = (rng.random_range(f64::EPSILON..1.0), rng.random_range(0.0..1.0));
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    };
    let mut held = 0;
    for _ in 0..trials {
        let before: Vec<f64> = (0..n).map(|_| normal()).collect();
        let after: Vec<f64> = (0..m).map(|_| normal() + 1.5).collect();
        let (lo, hi) = bounds.interval(&before, &after, 0.05).unwrap();
        held += usize::from(lo <= 1.5 && 1.5 <= hi);
    }
    held as f64 / trials as f64
}

#[test]
fn shift_interval_covers_at_its_level() {
    // Exact sizes: coverage 1 − 2·P(U ≤ c) ≥ 95%; for 6 vs 7, c = 6 and P(U ≤ 6) = 0.0175, so 96.5%.
    let c = coverage(6, 7, 4000, 5);
    assert!((0.955..=0.975).contains(&c), "6 vs 7: {c}");
    // Above the exact sizes the bound comes from the normal approximation.
    let c = coverage(60, 55, 1000, 6);
    assert!((0.935..=0.965).contains(&c), "60 vs 55: {c}");
}
