//! Main-thread blocks between builds: which runs give which values, and a
//! build whose main thread blocks more is called worse on them.

use super::super::comparison::{compare, IndicativeGates, Settings};
use super::super::runs::{Run, Sides};
use super::super::stats::Verdict;
use super::super::tests::run;
use super::*;

/// A run whose app's main thread had `blocks` blocks of frame-scale and
/// longer in a minute, `blocked_ms` of them, the longest `longest_ms`.
fn blocked(blocks: i64, blocked_ms: i64, longest_ms: i64) -> Run {
    let mut r = run(600, 0, 0, 0);
    r.blocks = Some(BlockSummary {
        pid: 100,
        process: None,
        per_level: [blocks, 0, 0, 0, 0],
        blocks,
        blocked_ns: blocked_ms * 1_000_000,
        longest_ns: Some(longest_ms * 1_000_000),
        blocks_per_min: Some(blocks as f64),
        blocked_ms_per_min: Some(blocked_ms as f64),
    });
    r
}

#[test]
fn each_metric_reads_the_runs_summary_and_a_run_without_one_is_left_out() {
    let before = [blocked(2, 150, 80), run(600, 0, 0, 0)];
    let after = [blocked(3, 400, 200)];
    let got = samples(&before, &after);
    let names: Vec<&str> = got.iter().map(|s| s.metric.name()).collect();
    assert_eq!(names, ["blocks_per_min", "blocked_ms_per_min", "longest_block_ms"]);
    assert_eq!((got[0].before.clone(), got[0].after.clone()), (vec![Some(2.0), None], vec![Some(3.0)]));
    assert_eq!((got[1].before.clone(), got[1].after.clone()), (vec![Some(150.0), None], vec![Some(400.0)]));
    assert_eq!((got[2].before.clone(), got[2].after.clone()), (vec![Some(80.0), None], vec![Some(200.0)]));
    // No side has a summary: nothing to compare.
    assert_eq!(samples(&[run(600, 0, 0, 0)], &after), Vec::new());
}

#[test]
fn a_main_thread_blocked_longer_is_worse() {
    // Five runs a side, fully separated on every metric: p = 2/252 each, a secondary metric at alpha.
    let before: Vec<Run> = (0..5).map(|i| blocked(2, 100 + i, 60 + i)).collect();
    let after: Vec<Run> = (0..5).map(|i| blocked(4, 300 + i, 200 + i)).collect();
    let sides = Sides { app: "com.example.app".into(), runs: [before, after], notes: Vec::new(), warnings: Vec::new() };
    let c = compare(&sides, &[], &Settings::new(0.05, 2.0, IndicativeGates::Pass));
    for name in ["blocks_per_min", "blocked_ms_per_min", "longest_block_ms"] {
        let m = c.metric(name).unwrap_or_else(|| panic!("{name} compared"));
        assert_eq!(m.verdict, Verdict::Worse, "{name}");
        assert!((m.p_value.expect("p") - 2.0 / 252.0).abs() < 1e-15, "{name}");
    }
    let m = c.metric("blocked_ms_per_min").expect("compared");
    assert_eq!((m.before, m.after, m.unit), (Some(102.0), Some(302.0), "ms per min"));
}
