//! Input latency between builds: which runs give which values, and a build
//! whose app answers touches later is called worse on them.

use super::super::comparison::{compare, IndicativeGates, Settings};
use super::super::runs::{Run, Sides};
use super::super::stats::Verdict;
use super::super::tests::run;
use super::*;
use crate::input::InputSource;
use crate::series::Percentiles;

/// A run whose app's events took `e2e_ms` end to end and `handling_ms` to
/// handle at p90, with `delayed` of 20 judged presents late.
fn touched(e2e_ms: i64, handling_ms: i64, delayed: i64) -> Run {
    let mut r = run(600, 0, 0, 0);
    let p90 = |ms: i64| Percentiles { p90: Some(ms * 1_000_000), ..Percentiles::default() };
    r.input = Some(InputSummary {
        pid: 100,
        process: None,
        source: InputSource::InputEvents,
        events: 40,
        gestures: 2,
        handling_ns: p90(handling_ms),
        end_to_end_ns: p90(e2e_ms),
        touch_to_first_frame_ns: Percentiles::default(),
        judged_presents: 20,
        delayed_frames: delayed,
        delayed_pct: Some(100.0 * delayed as f64 / 20.0),
    });
    r
}

#[test]
fn each_metric_reads_the_runs_summary_and_a_run_without_input_is_left_out() {
    let before = [touched(40, 5, 1), run(600, 0, 0, 0)];
    let after = [touched(60, 9, 4)];
    let got = samples(&before, &after);
    let names: Vec<&str> = got.iter().map(|s| s.metric.name()).collect();
    assert_eq!(names, ["input_e2e_p90_ms", "input_handling_p90_ms", "input_delayed_pct"]);
    assert_eq!((got[0].before.clone(), got[0].after.clone()), (vec![Some(40.0), None], vec![Some(60.0)]));
    assert_eq!((got[1].before.clone(), got[1].after.clone()), (vec![Some(5.0), None], vec![Some(9.0)]));
    assert_eq!((got[2].before.clone(), got[2].after.clone()), (vec![Some(5.0), None], vec![Some(20.0)]));
    // No side has input: nothing to compare.
    assert_eq!(samples(&[run(600, 0, 0, 0)], &after), Vec::new());
}

#[test]
fn an_app_that_answers_touches_later_is_worse() {
    // Five runs a side, fully separated on every metric: p = 2/252 each, a secondary metric at alpha.
    let before: Vec<Run> = (0..5).map(|i| touched(40 + i, 5 + i, 1)).collect();
    let after: Vec<Run> = (0..5).map(|i| touched(70 + i, 20 + i, 5)).collect();
    let sides = Sides { app: "com.example.app".into(), runs: [before, after], notes: Vec::new(), warnings: Vec::new() };
    let c = compare(&sides, &[], &Settings::new(0.05, 2.0, IndicativeGates::Pass));
    for name in ["input_e2e_p90_ms", "input_handling_p90_ms"] {
        let m = c.metric(name).unwrap_or_else(|| panic!("{name} compared"));
        assert_eq!(m.verdict, Verdict::Worse, "{name}");
        assert!((m.p_value.expect("p") - 2.0 / 252.0).abs() < 1e-15, "{name}");
    }
    let m = c.metric("input_e2e_p90_ms").expect("compared");
    assert_eq!((m.before, m.after, m.unit), (Some(42.0), Some(72.0), "ms"));
    // Every run of a side has the same share (5 % against 25 %): ties, still fully separated.
    let m = c.metric("input_delayed_pct").expect("compared");
    assert_eq!((m.before, m.after, m.verdict), (Some(5.0), Some(25.0), Verdict::Worse));
}

/// `k` runs a side of end-to-end p90s drawn log-normally around `before_ms`
/// and `after_ms` with a 10 % coefficient of variation (scrolls of one build
/// on one phone); the input_e2e_p90_ms verdict of each of `trials` comparisons.
fn e2e_verdicts((seed, k): (u64, usize), before_ms: f64, after_ms: f64, trials: usize) -> Vec<Verdict> {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut normal = move || {
        // Box–Muller.
        let (u, v): (f64, f64) = (rng.random_range(f64::EPSILON..1.0), rng.random_range(0.0..1.0));
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    };
    let settings = Settings::new(0.05, 2.0, IndicativeGates::Pass);
    (0..trials)
        .map(|_| {
            let mut side =
                |median: f64| -> Vec<Run> { (0..k).map(|_| touched_ms(median * (0.10 * normal()).exp())).collect() };
            let sides = Sides {
                app: "com.example.app".into(),
                runs: [side(before_ms), side(after_ms)],
                notes: Vec::new(),
                warnings: Vec::new(),
            };
            compare(&sides, &[], &settings).verdict("input_e2e_p90_ms").expect("input_e2e_p90_ms is compared")
        })
        .collect()
}

/// A run whose app's end-to-end p90 was `e2e_ms`.
fn touched_ms(e2e_ms: f64) -> Run {
    let mut r = touched(0, 5, 1);
    if let Some(s) = r.input.as_mut() {
        s.end_to_end_ns.p90 = Some((e2e_ms * 1e6).round() as i64);
    }
    r
}

fn share(verdicts: &[Verdict], v: Verdict) -> f64 {
    verdicts.iter().filter(|&&x| x == v).count() as f64 / verdicts.len() as f64
}

#[test]
fn same_build_input_latency_raises_false_alarms_within_alpha() {
    for (k, seed) in [(5, 51), (10, 52)] {
        let verdicts = e2e_verdicts((seed, k), 60.0, 60.0, 2000);
        let alarms = share(&verdicts, Verdict::Better) + share(&verdicts, Verdict::Worse);
        // alpha 0.05; 2000 trials: 3 standard errors above it is 0.065 (measured 3.3 % and 4.85 %).
        assert!(alarms <= 0.065, "{k} runs a side: {alarms}");
    }
}

#[test]
fn a_twenty_percent_later_scroll_is_called_worse() {
    // 10 % run-to-run variation, 20 % later at p90: measured 57.8 % at 5 runs a side, 96.2 % at 10.
    for (k, seed, min_power) in [(5, 53, 0.5), (10, 54, 0.9)] {
        let verdicts = e2e_verdicts((seed, k), 60.0, 72.0, 500);
        let power = share(&verdicts, Verdict::Worse);
        assert!(power >= min_power, "{k} runs a side: {power}");
        assert_eq!(share(&verdicts, Verdict::Better), 0.0, "{k} runs a side");
    }
}
