//! Unit tests of `compare`: the plain-Rust metrics against `analyze`'s
//! polars summaries (the independent path), and the comparison on small
//! hand-made runs.

use std::path::PathBuf;

use super::comparison::{compare, Settings};
use super::metrics::{eval, index_of, Frame, Walls, METRICS};
use super::runs::{Run, Sides};
use super::stats::{parse_rule, Resample, Verdict};
use crate::analysis::{self, Options};

fn demo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/demo.pftrace")
}

/// One value of a polars SQL query over the demo's frames table.
fn sql_value(a: &analysis::Analysis, sql: &str) -> f64 {
    let df = crate::query::run(&a.trace, Some(&a.frames_df), None, sql).expect("query");
    let col = df.columns()[0].cast(&polars::prelude::DataType::Float64).expect("cast");
    col.f64().expect("f64").get(0).expect("a value")
}

#[test]
fn one_run_metrics_equal_analyze_summary() {
    let a = analysis::analyze(&demo(), &Options::default()).expect("demo analyses");
    let app = &a.apps[0];
    let frames: Vec<Frame> = a
        .frames
        .rows
        .iter()
        .filter(|r| r.pid == app.pid)
        .map(|r| Frame::from_row(0, r, 0))
        .collect();
    let refs: Vec<&Frame> = frames.iter().collect();
    let v = eval(&refs, Some(app.wall_end_ts - app.first_ts));
    let get = |name: &str| v[index_of(name).expect(name)];
    let n = app.frames as f64;
    let ms = |p: Option<i64>| p.expect("percentile") as f64 / 1e6;
    let levels = app.drop_level.values();
    let at_least = |k: usize| levels[k..].iter().sum::<i64>() as f64 * 1000.0 / n;
    let expected = [
        ("frames", n),
        ("fps", app.fps),
        ("fps_wall", app.fps_wall),
        ("frame_cost_p50", ms(app.frame_cost_ns.p50)),
        ("frame_cost_p90", ms(app.frame_cost_ns.p90)),
        ("frame_cost_p95", ms(app.frame_cost_ns.p95)),
        ("frame_cost_p99", ms(app.frame_cost_ns.p99)),
        ("frame_cost_max", ms(app.frame_cost_ns.max)),
        ("dropped_per_100", 100.0 * app.dropped_frames as f64 / n),
        ("normal_plus_per_1000", at_least(1)),
        ("middle_plus_per_1000", at_least(2)),
        ("high_plus_per_1000", at_least(3)),
        ("frozen_per_1000", at_least(4)),
        (
            "perfetto_jank_pct",
            100.0 * app.jank.perfetto.jank as f64 / app.jank.perfetto.frames_with_data as f64,
        ),
        ("overrun_p90", ms(app.overrun_ns.p90)),
        (
            "skipped_events",
            1000.0 * app.jank.choreographer.skipped_frame_events as f64 / n,
        ),
    ];
    for (name, want) in expected {
        assert_eq!(get(name), want, "{name}");
    }
    // jank_pct has no field in the summary: polars SQL over the frames table.
    let jank = sql_value(
        &a,
        &format!(
            "SELECT 100.0 * SUM(CASE WHEN dropped_frames >= 1 THEN 1 ELSE 0 END) / COUNT(*) FROM frames WHERE pid = {}",
            app.pid
        ),
    );
    assert_eq!(get("jank_pct"), jank);
    // The demo's ground truth (src/tracegen/scenarios.rs): 300 frames, 5 of them dropping ≥ 1 frame.
    assert_eq!((get("frames"), get("jank_pct")), (300.0, 100.0 * 5.0 / 300.0));
    assert_eq!(v.len(), METRICS.len());
}

/// A run of `n` frames at 60 Hz, every `every`-th dropping `dropped` frames.
fn run(side: u8, n: usize, every: usize, dropped: i64, cost_jitter: i64) -> Run {
    const I: i64 = 16_666_667;
    let frames: Vec<Frame> = (0..n)
        .map(|k| {
            let d = if every > 0 && k % every == 0 { dropped } else { 0 };
            Frame {
                side,
                ts: k as i64 * I,
                cost_ns: d * I + 5_000_000 + (k as i64 * 7919 % 1000) * cost_jitter,
                dropped: d,
                interval_ns: I,
                refresh_hz: 1e9 / I as f64,
                skipped: 0,
                overrun_ns: None,
                was_jank: None,
                scene: 0,
            }
        })
        .collect();
    Run {
        trace: format!("run-{side}-{every}.pftrace"),
        wall_ns: n as i64 * I,
        first_ts: 0,
        trace_span_ns: n as i64 * I,
        frames,
        scene_names: vec!["(unknown)".into()],
        fingerprint: None,
        device: None,
        frames_df: None,
    }
}

fn settings() -> Settings {
    Settings {
        alpha: 0.05,
        min_change_pct: 2.0,
        seed: 1,
        resamples: 2000,
    }
}

fn sides(before: Vec<Run>, after: Vec<Run>) -> Sides {
    Sides {
        app: "com.example.app".into(),
        runs: [before, after],
        chosen_note: None,
        warnings: Vec::new(),
    }
}

#[test]
fn janky_to_smooth_is_better_and_json_keys_are_fixed() {
    let before = (0..4).map(|k| run(0, 600, 4 + k, 3, 1000)).collect();
    let after = (0..4).map(|k| run(1, 600, 60 + k, 1, 1000)).collect();
    let c = compare(&sides(before, after), &[], &settings());
    for name in ["fps", "jank_pct", "dropped_per_100"] {
        assert_eq!(c.metric(name).expect(name).verdict, Verdict::Better, "{name}");
    }
    // 4 vs 4 runs fully separated: the exact Mann–Whitney p is 2/70.
    assert_eq!(c.metric("fps").and_then(|m| m.p_value), Some(2.0 / 70.0));
    assert!(!c.indicative);
    // No FrameTimeline: no overrun or Perfetto metrics.
    assert!(c.metric("overrun_p90").is_none() && c.metric("perfetto_jank_pct").is_none());
    let json: serde_json::Value = serde_json::from_slice(&super::render::json(&c).expect("json")).expect("parse");
    // serde_json's map is sorted: compare key sets (the document itself keeps the struct's order).
    let keys = |v: &serde_json::Value| -> Vec<String> { v.as_object().expect("object").keys().cloned().collect() };
    let sorted = |mut v: Vec<&str>| -> Vec<String> {
        v.sort_unstable();
        v.into_iter().map(String::from).collect()
    };
    let top = vec![
        "fpsan_version",
        "app",
        "before",
        "after",
        "indicative",
        "metrics",
        "scenes",
        "gates",
        "warnings",
    ];
    assert_eq!(keys(&json), sorted(top));
    let metric = vec![
        "metric",
        "unit",
        "direction",
        "before",
        "after",
        "delta",
        "delta_pct",
        "ci95",
        "p_value",
        "verdict",
        "before_runs",
        "after_runs",
    ];
    let m = &json["metrics"][1];
    assert_eq!(keys(m), sorted(metric));
    assert_eq!(
        (m["metric"].as_str(), m["direction"].as_str()),
        (Some("fps"), Some("higher"))
    );
    assert_eq!(
        keys(&json["before"]["runs"][0]),
        sorted(vec!["trace", "frames", "fps", "refresh_hz"])
    );
    assert_eq!(keys(&json["before"]), sorted(vec!["runs", "refresh_hz"]));
}

#[test]
fn same_runs_are_not_better_or_worse_and_same_seed_same_output() {
    let mk = |side| (0..3).map(|k| run(side, 600, 10 + k, 2, 1000)).collect::<Vec<_>>();
    let c1 = compare(&sides(mk(0), mk(1)), &[], &settings());
    for m in &c1.metrics {
        assert_eq!(m.delta, Some(0.0), "{}", m.metric);
        assert!(
            matches!(m.verdict, Verdict::Same | Verdict::Inconclusive),
            "{}: {:?}",
            m.metric,
            m.verdict
        );
    }
    let c2 = compare(&sides(mk(0), mk(1)), &[], &settings());
    assert_eq!(super::render::json(&c1).unwrap(), super::render::json(&c2).unwrap());
}

#[test]
fn one_run_per_side_is_indicative_and_fps_wall_has_no_interval() {
    let c = compare(
        &sides(vec![run(0, 600, 5, 3, 1000)], vec![run(1, 600, 50, 1, 1000)]),
        &[],
        &settings(),
    );
    assert!(c.indicative);
    let wall = c.metric("fps_wall").expect("fps_wall");
    assert_eq!((wall.ci95, wall.verdict), (None, Verdict::Inconclusive));
    assert_eq!(c.metric("fps").map(|m| m.verdict), Some(Verdict::Better));
    assert_eq!(c.metric("fps").and_then(|m| m.p_value), None);
    let table = super::render::table(&c, false);
    assert!(
        table.contains("1 run per side: frame-level only; repeat runs for a verdict"),
        "{table}"
    );
}

#[test]
fn gates_trip_only_on_worse_deltas_or_budgets() {
    let known = super::comparison::rule_metrics();
    let rules: Vec<_> = [
        "fps.delta_pct < -5",
        "fps.delta_pct < -99",
        "jank_pct.after > 5",
        "frozen_per_1000.after > 0",
    ]
    .iter()
    .map(|r| parse_rule(r, &known).expect(r))
    .collect();
    let smooth = (0..3).map(|k| run(0, 600, 60 + k, 1, 1000)).collect();
    let janky = (0..3).map(|k| run(1, 600, 4 + k, 3, 1000)).collect();
    let c = compare(&sides(smooth, janky), &rules, &settings());
    let tripped: Vec<bool> = c.gates.iter().map(|g| g.tripped).collect();
    assert_eq!(tripped, [true, false, true, false]);
    let line = super::comparison::tripped_line(&c, &rules[0]);
    assert!(
        line.starts_with("gate tripped: fps.delta_pct < -5: fps.delta_pct = -"),
        "{line}"
    );
    assert!(
        line.contains("(< -5); fps ") && line.contains("95% CI [") && line.ends_with("verdict worse"),
        "{line}"
    );
    assert!(parse_rule("frames.after > 1", &known).is_err(), "frames is never gated");
}

#[test]
fn walls_sum_the_drawn_runs_of_the_right_side() {
    let before = [run(0, 10, 0, 0, 0), run(0, 20, 0, 0, 0)];
    let after = [run(1, 30, 0, 0, 0)];
    let walls = Walls {
        sides: Some([
            before.iter().map(|r| r.wall_ns).collect(),
            after.iter().map(|r| r.wall_ns).collect(),
        ]),
    };
    let b: Vec<&[Frame]> = before.iter().map(|r| r.frames.as_slice()).collect();
    let a: Vec<&[Frame]> = after.iter().map(|r| r.frames.as_slice()).collect();
    let k = index_of("fps_wall").expect("fps_wall");
    let out = super::stats::bootstrap_deltas(&b, &a, 200, 3, |r: &Resample<'_, Frame>| walls.eval(r));
    // Every run draws frames = its own length, at one frame per interval: fps_wall is the refresh rate exactly
    // whichever runs are drawn, so the interval has zero width.
    let hz = 1e9 / 16_666_667.0;
    assert!(
        (out[k].before - hz).abs() < 1e-9 && (out[k].after - hz).abs() < 1e-9,
        "{:?}",
        out[k]
    );
    let (lo, hi) = out[k].ci95.expect("interval");
    assert!(lo.abs() < 1e-9 && hi.abs() < 1e-9, "{lo} {hi}");
}
