//! The comparison on constructed per-run values: the equivalence decision and the headline family.

use super::*;

/// A metric's index by its JSON name.
fn metric_index(name: &str) -> usize {
    Metric::from_name(name).expect(name).index()
}

fn settings() -> Settings {
    Settings::new(0.05, 2.0, IndicativeGates::Pass)
}

/// Per-run value rows (`[run][metric]`) with `values` in the columns of `names`, NaN elsewhere.
fn rows(names: &[&str], values: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let runs = values[0].len();
    (0..runs)
        .map(|r| {
            let mut row = vec![f64::NAN; Metric::ALL.len()];
            for (name, column) in names.iter().zip(values) {
                row[metric_index(name)] = column[r];
            }
            row
        })
        .collect()
}

fn one(name: &str, before: Vec<f64>, after: Vec<f64>) -> MetricResult {
    let k = metric_index(name);
    let (b, a) = (rows(&[name], &[before]), rows(&[name], &[after]));
    let mut r = compare_metrics(&b, &a, &[k], Scope::App, &settings(), &mut BoundsCache::default());
    r.remove(0)
}

#[test]
fn equivalence_on_constructed_runs() {
    // fps 50.0, 50.1, …, 50.9 before; each +0.05 after. The 90% interval of the shift over 10 vs 10 runs drops
    // the c = 27 smallest and largest of the 100 differences 0.05 + k/10 (P(U ≤ 27) ≤ 0.05 < P(U ≤ 28)):
    // [−0.25, 0.35], inside ±2% of the before median 50.45 (±1.009): same.
    let before: Vec<f64> = (0..10).map(|i| 50.0 + f64::from(i) / 10.0).collect();
    let after: Vec<f64> = before.iter().map(|v| v + 0.05).collect();
    let r = one("fps", before, after);
    let [lo, hi] = r.equivalence_ci.expect("interval");
    assert!((lo + 0.25).abs() < 1e-9 && (hi - 0.35).abs() < 1e-9, "{lo} {hi}");
    assert_eq!(r.verdict, Verdict::Same);
    assert!((r.before.unwrap() - 50.45).abs() < 1e-9);
    assert!((r.delta.unwrap() - 0.05).abs() < 1e-9);
    assert_eq!(r.runs_needed, None);

    // The same shift over runs ten times as spread: the interval [−2.5, 3.5] is past the margin: inconclusive,
    // with an estimate of the runs that would fit it.
    let before: Vec<f64> = (0..10).map(|i| 50.0 + f64::from(i)).collect();
    let after: Vec<f64> = before.iter().map(|v| v + 0.05).collect();
    let r = one("fps", before, after);
    assert_eq!(r.verdict, Verdict::Inconclusive);
    assert!(r.runs_needed.is_some_and(|n| n > 10), "{:?}", r.runs_needed);
}

#[test]
fn zero_on_both_sides_is_not_same() {
    let r = one("frozen_per_1000", vec![0.0; 6], vec![0.0; 6]);
    assert_eq!((r.verdict, r.delta), (Verdict::Inconclusive, Some(0.0)));
    assert_eq!(r.p_value, Some(1.0));
}

#[test]
fn headline_is_one_family() {
    // 5 vs 5 runs fully separated on all three: each p is 2/C(10, 5) = 2/252. fps, first, keeps it; the other
    // two, by Holm among themselves, 2 · 2/252 (then the maximum with fps's): all three better.
    let up: Vec<f64> = (0..5).map(f64::from).collect();
    let down: Vec<f64> = (0..5).map(|i| 100.0 - f64::from(i)).collect();
    let names = ["fps", "frame_cost_p90", "jank_pct", "dropped_per_100"];
    let b = rows(&names, &[up.clone(), down.clone(), down.clone(), down.clone()]);
    let a = rows(&names, &[down.clone(), up.clone(), up.clone(), up.clone()]);
    let included: Vec<usize> = names.iter().map(|n| metric_index(n)).collect();
    let r = compare_metrics(&b, &a, &included, Scope::App, &settings(), &mut BoundsCache::default());
    for (m, adjusted) in r[..3].iter().zip([2.0 / 252.0, 4.0 / 252.0, 4.0 / 252.0]) {
        assert_eq!(m.family, Family::Headline);
        assert_eq!(m.p_value, Some(2.0 / 252.0), "{}", m.metric);
        assert!((m.p_adjusted.unwrap() - adjusted).abs() < 1e-15, "{}", m.metric);
        assert_eq!(m.verdict, Verdict::Better, "{}", m.metric);
    }
    // A secondary metric is its own family: unadjusted.
    assert_eq!((r[3].family, r[3].p_adjusted), (Family::Secondary, Some(2.0 / 252.0)));

    // At 4 vs 4 each p is 2/70 = 0.029: fps, first, is decided; the other two by Holm need 2 · 2/70 = 0.057,
    // past 0.05: inconclusive, though each test alone would be significant; the estimate says more runs.
    let (b4, a4) = (rows(&names, &vec![up[..4].to_vec(); 4]), rows(&names, &vec![down[..4].to_vec(); 4]));
    let r = compare_metrics(&b4, &a4, &included, Scope::App, &settings(), &mut BoundsCache::default());
    assert_eq!((r[0].p_adjusted, r[0].verdict), (Some(2.0 / 70.0), Verdict::Better));
    assert!((r[1].p_adjusted.unwrap() - 4.0 / 70.0).abs() < 1e-15);
    assert_eq!(r[1].verdict, Verdict::Inconclusive);
    assert!(r[1].runs_needed.is_some_and(|n| n >= 5), "{:?}", r[1].runs_needed);
    assert_eq!(r[3].verdict, Verdict::Worse, "a secondary metric at its own alpha");

    // When fps is not significant, the other two are not decided whatever their own p: fps's p caps theirs.
    let flat: Vec<f64> = vec![50.0, 51.0, 52.0, 53.0, 54.0];
    let b = rows(&names, &[flat.clone(), down.clone(), down.clone(), down.clone()]);
    let a = rows(&names, &[flat.clone(), up.clone(), up.clone(), up.clone()]);
    let r = compare_metrics(&b, &a, &included, Scope::App, &settings(), &mut BoundsCache::default());
    assert_eq!(r[0].p_value, Some(1.0));
    assert_eq!((r[1].p_adjusted, r[1].verdict), (Some(1.0), Verdict::Inconclusive));
    assert_eq!(r[3].verdict, Verdict::Better, "secondary: its own test");
}

#[test]
fn scenes_are_exploratory_and_too_few_runs_indicative() {
    let k = metric_index("fps");
    let b = rows(&["fps"], &[vec![50.0, 51.0, 52.0]]);
    let a = rows(&["fps"], &[vec![55.0, 56.0, 57.0]]);
    let r = compare_metrics(&b, &a, &[k], Scope::Scene, &settings(), &mut BoundsCache::default());
    // 3 vs 3 cannot reach 0.05 (smallest p 0.1): indicative, no test, an estimate of the runs needed.
    assert_eq!((r[0].family, r[0].verdict, r[0].p_value), (Family::Exploratory, Verdict::Indicative, None));
    assert!(r[0].runs_needed.is_some_and(|n| n >= 4));
}

#[test]
fn runs_needed_to_reach_alpha() {
    assert_eq!(min_runs_per_side(0.05), 4);
    assert_eq!(min_runs_per_side(0.01), 5);
    assert_eq!(min_runs_per_side(0.1), 3);
    // 2/C(8, 3) = 0.036; 2/C(7, 3) = 0.057; 2/C(40, 1) = 0.05 exactly; 2/39.
    assert!(testable(3, 5, 0.05) && !testable(3, 4, 0.05) && testable(1, 39, 0.05) && !testable(1, 38, 0.05));
}

#[test]
fn confidence_label_follows_alpha() {
    let label = |alpha| crate::compare::ci_label(&Settings::new(alpha, 2.0, IndicativeGates::Pass));
    assert_eq!(label(0.05), "95% CI");
    assert_eq!(label(0.1), "90% CI");
    assert_eq!(label(0.005), "99.5% CI");
    assert_eq!(label(0.0001), "99.99% CI");
}
