//! The startup metrics of `compare`: which runs' startups are compared, and
//! the decision rule's calibration on them by simulation (fixed seeds): a
//! same-build false alarm rate within alpha at 5 and 10 runs a side, and the
//! power to call a 10 % TTID change.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::super::comparison::{compare, DecideOn, IndicativeGates, Settings};
use super::super::runs::{Run, RunStartup, Sides};
use super::super::stats::Verdict;
use super::super::tests::run;
use super::*;
use crate::model::WarningCode;

/// A run of 20 smooth frames whose app started as `startup_type` with TTID
/// `ttid_ms` (TTFD none; the startup 10 ms longer than TTID).
fn started(startup_type: Option<StartupType>, ttid_ms: f64) -> Run {
    let mut r = run(20, 0, 0, 0);
    let ttid = (ttid_ms * 1e6).round() as i64;
    r.startup = Some(RunStartup {
        package: "com.example.app".into(),
        pid: Some(50),
        startup_type,
        dur_ns: ttid + 10_000_000,
        ttid_ns: Some(ttid),
        ttfd_ns: None,
        parts: Vec::new(),
    });
    r
}

const COLD: Option<StartupType> = Some(StartupType::Cold);
const WARM: Option<StartupType> = Some(StartupType::Warm);

#[test]
fn the_most_common_type_is_compared_and_a_run_without_it_is_left_out() {
    let before = vec![started(COLD, 800.0), started(WARM, 300.0), run(20, 0, 0, 0)];
    let after = vec![started(COLD, 700.0), started(COLD, 720.0)];
    let (samples, warning) = samples(&before, &after);
    assert!(samples.parts.is_empty(), "no run was explained");
    // TTID and duration; no run has a TTFD.
    let got: Vec<_> = samples.metrics.iter().map(|x| (x.metric.name(), x.before.clone(), x.after.clone())).collect();
    assert_eq!(
        got,
        [
            ("startup_ttid", vec![Some(800.0), None, None], vec![Some(700.0), Some(720.0)]),
            ("startup_dur", vec![Some(810.0), None, None], vec![Some(710.0), Some(730.0)]),
        ]
    );
    let warning = warning.expect("two types");
    assert_eq!(warning.code, WarningCode::StartupTypesDiffer);
    assert_eq!(warning.message, "the runs' startups are of several types (cold 3, warm 1): the cold ones are compared");
}

#[test]
fn a_tie_between_types_keeps_the_colder_and_no_startup_compares_nothing() {
    let (samples, _) = samples(&[started(WARM, 300.0)], &[started(COLD, 800.0)]);
    // The warm run is left out: the before side has no cold start, so nothing is compared.
    assert!(samples.metrics.is_empty(), "{samples:?}");
    assert_eq!(super::samples(&[run(20, 0, 0, 0)], &[run(20, 0, 0, 0)]), (Samples::default(), None));
}

/// `k` runs a side of TTIDs drawn log-normally around `before_ms` and
/// `after_ms` with a 5 % coefficient of variation (cold starts of one build
/// on one phone); the startup_ttid verdict of each of `trials` comparisons.
fn ttid_verdicts(
    decide_on: DecideOn,
    (seed, k): (u64, usize),
    before_ms: f64,
    after_ms: f64,
    trials: usize,
) -> Vec<Verdict> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut normal = move || {
        // Box–Muller.
        let (u, v): (f64, f64) = (rng.random_range(f64::EPSILON..1.0), rng.random_range(0.0..1.0));
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    };
    let settings = Settings::new(0.05, 2.0, IndicativeGates::Pass).deciding_on(decide_on);
    (0..trials)
        .map(|_| {
            let mut side = |median: f64| (0..k).map(|_| started(COLD, median * (0.05 * normal()).exp())).collect();
            let sides = Sides {
                app: "com.example.app".into(),
                runs: [side(before_ms), side(after_ms)],
                notes: Vec::new(),
                warnings: Vec::new(),
            };
            let c = compare(&sides, &[], &settings);
            c.verdict("startup_ttid").expect("startup_ttid is compared")
        })
        .collect()
}

fn share(verdicts: &[Verdict], v: Verdict) -> f64 {
    verdicts.iter().filter(|&&x| x == v).count() as f64 / verdicts.len() as f64
}

#[test]
fn same_build_startups_raise_false_alarms_within_alpha() {
    for (k, seed) in [(5, 41), (10, 42)] {
        let verdicts = ttid_verdicts(DecideOn::Frames, (seed, k), 800.0, 800.0, 2000);
        let alarms = share(&verdicts, Verdict::Better) + share(&verdicts, Verdict::Worse);
        // alpha 0.05; 2000 trials: 3 standard errors above it is 0.065.
        assert!(alarms <= 0.065, "{k} runs a side: {alarms}");
        // Deciding on both, TTID gets half of alpha: 3 standard errors above 0.025 is 0.036.
        let verdicts = ttid_verdicts(DecideOn::Both, (seed, k), 800.0, 800.0, 2000);
        let alarms = share(&verdicts, Verdict::Better) + share(&verdicts, Verdict::Worse);
        assert!(alarms <= 0.036, "both, {k} runs a side: {alarms}");
    }
}

#[test]
fn a_ten_percent_slower_ttid_is_called_worse() {
    // 5 % run-to-run variation: at 10 runs a side nearly always, at 5 most of the time.
    for (k, seed, min_power, min_power_both) in [(5, 43, 0.6, 0.45), (10, 44, 0.95, 0.9)] {
        let verdicts = ttid_verdicts(DecideOn::Frames, (seed, k), 800.0, 880.0, 500);
        let power = share(&verdicts, Verdict::Worse);
        assert!(power >= min_power, "{k} runs a side: {power}");
        assert_eq!(share(&verdicts, Verdict::Better), 0.0, "{k} runs a side");
        // Deciding on both, at half of alpha.
        let verdicts = ttid_verdicts(DecideOn::Both, (seed, k), 800.0, 880.0, 500);
        let power = share(&verdicts, Verdict::Worse);
        assert!(power >= min_power_both, "both, {k} runs a side: {power}");
    }
}

#[test]
fn deciding_on_the_startup_makes_ttid_the_headline() {
    use super::super::comparison::Family;
    // Identical frames on both sides; TTID 10 % slower after.
    let side = |base: f64| (0..5).map(|k| started(COLD, base + k as f64)).collect::<Vec<_>>();
    let sides = || Sides {
        app: "com.example.app".into(),
        runs: [side(800.0), side(880.0)],
        notes: Vec::new(),
        warnings: Vec::new(),
    };
    let settings = Settings::new(0.05, 2.0, IndicativeGates::Pass);
    let family =
        |c: &super::super::Comparison, name: &str| c.metrics.iter().find(|m| m.metric == name).map(|m| m.family);
    // Deciding on the frames, the word is the frames' alone: as without any startup.
    let mut unstarted = sides();
    unstarted.runs.iter_mut().flatten().for_each(|r| r.startup = None);
    let frames_word = compare(&unstarted, &[], &settings).overall();
    for (decide_on, overall, fps_family, ttid_family) in [
        (DecideOn::Frames, frames_word, Family::Headline, Family::Secondary),
        (DecideOn::Startup, "slower start", Family::Secondary, Family::Headline),
        (DecideOn::Both, "worse", Family::Headline, Family::Headline),
    ] {
        let c = compare(&sides(), &[], &settings.deciding_on(decide_on));
        assert_eq!(c.overall(), overall, "{decide_on:?}");
        assert_eq!(family(&c, "fps"), Some(fps_family), "{decide_on:?}");
        assert_eq!(family(&c, "startup_ttid"), Some(ttid_family), "{decide_on:?}");
        assert_eq!(c.verdict("startup_ttid"), Some(Verdict::Worse), "{decide_on:?}");
    }
}

#[test]
fn a_cold_launch_decides_on_ttid_and_with_a_scenario_on_both() {
    use crate::capture::launch::Launch;
    use crate::experiment::default_decision;
    assert_eq!(default_decision(Launch::Cold, false), DecideOn::Startup);
    assert_eq!(default_decision(Launch::Cold, true), DecideOn::Both);
    for launch in [Launch::Warm, Launch::Hot, Launch::None] {
        assert_eq!(default_decision(launch, false), DecideOn::Frames);
    }
}
