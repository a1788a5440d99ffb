//! Unit tests of `compare`: the plain-Rust metrics against `analyze`'s
//! polars summaries (the independent path), and the comparison on small
//! hand-made runs.

use crate::model::WarningCode;
use std::path::PathBuf;

use super::comparison::{compare, zero_both, Comparison, IndicativeGates, Settings};
use super::gate::{parse_rule, GateRule, GateStatus, Gateable};
use super::present::words::{tripped_line, verdict_cell};
use super::runs::{Run, Sides};
use super::stats::rank::PMethod;
use super::stats::Verdict;
use crate::analysis::{self, Options};
use crate::series::{Frame, Metric, Values};

fn demo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/demo.pftrace")
}

/// One value of a polars SQL query over the demo's frames table.
fn sql_value(a: &analysis::Analysis, sql: &str) -> f64 {
    let tables = a.tables().expect("tables");
    let df = crate::query::run(&a.trace, Some(&tables), sql).expect("query");
    let col = df.columns()[0].cast(&polars::prelude::DataType::Float64).expect("cast");
    col.f64().expect("f64").get(0).expect("a value")
}

#[test]
fn one_run_metrics_equal_analyze_summary() {
    let a = analysis::analyze(&demo(), &Options::default()).expect("demo analyses");
    let app = &a.apps[0];
    let frames: Vec<Frame> = a.frames.rows.iter().filter(|r| r.pid == app.pid).map(|r| Frame::from_row(r, 0)).collect();
    let refs: Vec<&Frame> = frames.iter().collect();
    let v = Values::of(&refs, Some(app.wall_end_ts - app.first_ts));
    let get = |name: &str| v[Metric::from_name(name).expect(name)];
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
        ("perfetto_jank_pct", 100.0 * app.jank.perfetto.jank as f64 / app.jank.perfetto.frames_with_data as f64),
        ("overrun_p90", ms(app.overrun_ns.p90)),
        ("skipped_events", 1000.0 * app.jank.choreographer.skipped_frame_events as f64 / n),
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
    // The demo's ground truth (tracegen/src/scenarios.rs): 300 frames, 5 of them dropping ≥ 1 frame.
    assert_eq!((get("frames"), get("jank_pct")), (300.0, 100.0 * 5.0 / 300.0));
}

/// A run of `n` frames at `hz`, every `every`-th dropping `dropped` frames.
fn run_at(hz: f64, n: usize, every: usize, dropped: i64, cost_jitter: i64) -> Run {
    let interval = (1e9 / hz).round() as i64;
    let frames: Vec<Frame> = (0..n)
        .map(|k| {
            let d = if every > 0 && k % every == 0 { dropped } else { 0 };
            Frame {
                ts: k as i64 * interval,
                cost_ns: d * interval + 5_000_000 + (k as i64 * 7919 % 1000) * cost_jitter,
                dropped: d,
                interval_ns: interval,
                refresh_hz: 1e9 / interval as f64,
                skipped: 0,
                overrun_ns: None,
                was_jank: None,
                scene: 0,
            }
        })
        .collect();
    Run {
        trace: format!("run-{every}.pftrace"),
        wall_ns: n as i64 * interval,
        first_ts: 0,
        frames,
        scene_names: vec!["(unknown)".into()],
        cujs: Vec::new(),
        presents_layer: None,
        fingerprint: None,
        device: None,
        frames_df: None,
        blockers: None,
        startup: None,
        blocks: None,
        input: None,
    }
}

pub(super) fn run(n: usize, every: usize, dropped: i64, cost_jitter: i64) -> Run {
    run_at(60.0, n, every, dropped, cost_jitter)
}

fn settings() -> Settings {
    Settings::new(0.05, 2.0, IndicativeGates::Pass)
}

fn sides(before: Vec<Run>, after: Vec<Run>) -> Sides {
    Sides { app: "com.example.app".into(), runs: [before, after], notes: Vec::new(), warnings: Vec::new() }
}

/// `k` janky runs (every 4th–… frame drops 3) and `k` smooth ones (every 60th–… drops 1).
fn janky(k: usize) -> Vec<Run> {
    (0..k).map(|i| run(600, 4 + i, 3, 1000)).collect()
}
fn smooth(k: usize) -> Vec<Run> {
    (0..k).map(|i| run(600, 60 + i, 1, 1000)).collect()
}

fn rules(texts: &[&str]) -> Vec<GateRule> {
    let (all, descriptive) = super::gate_names();
    let g = Gateable { all: &all, descriptive: &descriptive };
    texts.iter().map(|r| parse_rule(r, g).expect(r)).collect()
}

#[test]
fn janky_to_smooth_is_better_and_json_keys_are_fixed() {
    let c = compare(&sides(janky(5), smooth(5)), &[], &settings());
    for name in ["fps", "frame_cost_p90", "jank_pct", "dropped_per_100"] {
        assert_eq!(c.metric(name).expect(name).verdict, Verdict::Better, "{name}");
    }
    // 5 vs 5 runs fully separated: the exact Mann–Whitney p is 2/252; fps is tested first (its own p), the other
    // two by Holm after it: 2 · 2/252.
    let fps = c.metric("fps").expect("fps");
    assert_eq!((fps.p_value, fps.p_method), (Some(2.0 / 252.0), Some(PMethod::Exact)));
    assert_eq!(fps.p_adjusted, Some(2.0 / 252.0));
    let p90 = c.metric("frame_cost_p90").and_then(|m| m.p_adjusted).expect("p90");
    assert!((p90 - 4.0 / 252.0).abs() < 1e-15, "{p90}");
    assert_eq!(c.metric("dropped_per_100").and_then(|m| m.p_adjusted), Some(2.0 / 252.0));
    assert!(!c.indicative);
    assert_eq!((c.overall, c.min_runs_per_side), ("smoother", 4));
    // Described only: the frame count and the sample maximum.
    for name in ["frames", "frame_cost_max"] {
        let m = c.metric(name).expect(name);
        assert_eq!((m.verdict, m.p_value, m.ci), (Verdict::Descriptive, None, None), "{name}");
    }
    // No FrameTimeline: no overrun or Perfetto metrics.
    assert!(c.metric("overrun_p90").is_none() && c.metric("perfetto_jank_pct").is_none());
    let json: serde_json::Value =
        serde_json::from_slice(&super::present::json::json(&c).expect("json")).expect("parse");
    // serde_json's map is sorted: compare key sets (the document itself keeps the struct's order).
    let keys = |v: &serde_json::Value| -> Vec<String> { v.as_object().expect("object").keys().cloned().collect() };
    let sorted = |mut v: Vec<&str>| -> Vec<String> {
        v.sort_unstable();
        v.into_iter().map(String::from).collect()
    };
    let top = vec![
        "fpsan_version",
        "app",
        "settings",
        "before",
        "after",
        "indicative",
        "min_runs_per_side",
        "overall",
        "metrics",
        "scenes",
        "blockers",
        "gates",
        "warnings",
    ];
    assert_eq!(keys(&json), sorted(top));
    assert_eq!(
        keys(&json["settings"]),
        sorted(vec!["alpha", "confidence", "min_change_pct", "indicative_gates", "decide_on"])
    );
    let metric = vec![
        "metric",
        "unit",
        "direction",
        "family",
        "before",
        "after",
        "delta",
        "delta_pct",
        "ci",
        "equivalence_ci",
        "p_value",
        "p_adjusted",
        "p_method",
        "verdict",
        "runs_needed",
        "before_runs",
        "after_runs",
    ];
    let m = &json["metrics"][1];
    assert_eq!(keys(m), sorted(metric));
    assert_eq!(
        (m["metric"].as_str(), m["direction"].as_str(), m["family"].as_str()),
        (Some("fps"), Some("higher"), Some("headline"))
    );
    assert_eq!(m["before_runs"].as_array().map(Vec::len), Some(5));
    assert_eq!(keys(&json["before"]["runs"][0]), sorted(vec!["trace", "frames", "fps", "refresh_hz"]));
    assert_eq!(keys(&json["before"]), sorted(vec!["runs", "refresh_hz"]));
}

#[test]
fn the_same_runs_are_never_better_or_worse_and_output_is_deterministic() {
    let mk = || (0..5).map(|k| run(600, 10 + k, 2, 1000)).collect::<Vec<_>>();
    let c1 = compare(&sides(mk(), mk()), &[], &settings());
    for m in &c1.metrics {
        assert_eq!(m.delta, Some(0.0), "{}", m.metric);
        assert!(
            matches!(m.verdict, Verdict::Same | Verdict::Inconclusive | Verdict::Descriptive),
            "{}: {:?}",
            m.metric,
            m.verdict
        );
    }
    let c2 = compare(&sides(mk(), mk()), &[], &settings());
    assert_eq!(super::present::json::json(&c1).unwrap(), super::present::json::json(&c2).unwrap());
}

#[test]
fn too_few_runs_are_indicative() {
    for (b, a) in [(1, 1), (3, 3), (1, 5)] {
        let c = compare(&sides(janky(b), smooth(a)), &[], &settings());
        assert!(c.indicative, "{b} vs {a}");
        assert_eq!(c.overall, "indicative");
        for m in &c.metrics {
            assert!(matches!(m.verdict, Verdict::Indicative | Verdict::Descriptive), "{}", m.metric);
            assert_eq!((m.p_value, m.ci), (None, None), "{}", m.metric);
        }
        let table = super::present::text::table(&c, false);
        assert!(table.contains(&format!("indicative: {b} vs {a} runs cannot show a change at alpha 0.05")), "{table}");
    }
    // The description is still there: medians and deltas.
    let c = compare(&sides(janky(1), smooth(1)), &[], &settings());
    assert!(c.metric("fps").and_then(|m| m.delta).is_some_and(|d| d > 0.0));
    // 4 vs 4 and 3 vs 5 can reach 0.05: decided.
    assert!(!compare(&sides(janky(4), smooth(4)), &[], &settings()).indicative);
    assert!(!compare(&sides(janky(3), smooth(5)), &[], &settings()).indicative);
}

#[test]
fn gates_trip_only_on_significant_changes_or_budgets() {
    let rules =
        rules(&["fps.delta_pct < -5", "fps.delta_pct < -99", "jank_pct.after > 5", "frozen_per_1000.after > 0"]);
    let c = compare(&sides(smooth(5), janky(5)), &rules, &settings());
    let tripped: Vec<bool> = c.gates.iter().map(|g| g.tripped).collect();
    assert_eq!(tripped, [true, false, true, false]);
    // Holm over the two rules on a change: 2 · 2/252.
    assert!((c.gates[0].p_adjusted.unwrap() - 4.0 / 252.0).abs() < 1e-15);
    assert_eq!(c.gates[2].p_adjusted, None);
    let line = tripped_line(&c, &rules[0], &c.gates[0]);
    assert!(line.starts_with("gate tripped: fps.delta_pct < -5: fps.delta_pct = -"), "{line}");
    assert!(line.contains("(< -5); fps ") && line.contains("95% CI [") && line.ends_with("verdict worse"), "{line}");
}

#[test]
fn gates_on_an_indicative_comparison() {
    let rules = rules(&["fps.delta_pct < -5", "jank_pct.after > 5"]);
    // 1 vs 1, far worse: by default no gate is checked ...
    let c = compare(&sides(smooth(1), janky(1)), &rules, &settings());
    assert!(c.indicative);
    for g in &c.gates {
        assert_eq!((g.status, g.tripped), (GateStatus::NotChecked, false), "{}", g.rule);
        assert!(g.reason.as_deref().is_some_and(|r| r.starts_with("indicative comparison (1 vs 1 runs")));
    }
    // ... and failing closed trips every one, saying why.
    let closed = Settings::new(0.05, 2.0, IndicativeGates::Fail);
    let c = compare(&sides(smooth(1), smooth(1)), &rules, &closed);
    assert!(c.gates.iter().all(|g| g.tripped && g.status == GateStatus::Tripped));
    let line = tripped_line(&c, &rules[0], &c.gates[0]);
    assert!(line.ends_with(": failing closed"), "{line}");
    // The table's note says what the gates did, never "no gate is checked" beside a tripped one.
    let note = |c: &Comparison| {
        let table = super::present::text::table(c, false);
        table.lines().find(|l| l.trim_start().starts_with("indicative: ")).map(|l| l.trim().to_string())
    };
    assert_eq!(
        note(&c).as_deref(),
        Some(
            "indicative: 1 vs 1 runs cannot show a change at alpha 0.05 (a test needs 4 runs a side); these numbers \
             describe the captures, no verdict is given and every --fail-if gate trips (--indicative-gates fail)"
        )
    );
    let open = compare(&sides(smooth(1), smooth(1)), &rules, &settings());
    assert!(
        note(&open).is_some_and(|n| n.ends_with("no verdict is given and no gate is checked")),
        "{:?}",
        note(&open)
    );
    // Failing closed with no gate to trip: none is checked.
    let none = compare(&sides(smooth(1), smooth(1)), &[], &closed);
    assert!(
        note(&none).is_some_and(|n| n.ends_with("no verdict is given and no gate is checked")),
        "{:?}",
        note(&none)
    );
}

#[test]
fn two_hundred_runs_a_side_finish_with_a_p_value() {
    let side = |offset: usize| (0..200).map(|k| run(120, 5 + (k + offset) % 7, 1, 10)).collect::<Vec<_>>();
    let t = std::time::Instant::now();
    let c = compare(&sides(side(0), side(3)), &[], &settings());
    eprintln!("200 vs 200 runs: {:?}", t.elapsed());
    for m in c.metrics.iter().filter(|m| m.verdict != Verdict::Descriptive) {
        assert!(m.p_value.is_some_and(f64::is_finite), "{}", m.metric);
        assert_eq!(m.p_method, Some(PMethod::Normal), "{}", m.metric);
        assert!(m.ci.is_some(), "{}", m.metric);
    }
}

#[test]
fn warnings_for_mixed_rates_and_a_changed_scenario() {
    let mut before = smooth(4);
    before[3] = run_at(120.0, 1200, 60, 1, 1000);
    let c = compare(&sides(before, smooth(4)), &[], &settings());
    assert!(
        c.warnings.iter().any(|w| w.code == WarningCode::MixedRefresh
            && w.message.starts_with("mixed refresh rates on the before side: its runs ran at 60 to 120 Hz")),
        "{:?}",
        c.warnings
    );
    // Half as long a scenario: the app drew for 5 s, not 10.
    let short: Vec<Run> = (0..4).map(|i| run(300, 60 + i, 1, 1000)).collect();
    let c = compare(&sides(smooth(4), short), &[], &settings());
    assert!(
        c.warnings.iter().any(|w| w.code == WarningCode::ScenarioChanged
            && w.message.contains("did the scenario change?")
            && w.message.contains("(median run, -50%)")),
        "{:?}",
        c.warnings
    );
}

#[test]
fn printed_confidence_follows_alpha() {
    let s = Settings::new(0.1, 2.0, IndicativeGates::Pass);
    let c = compare(&sides(janky(5), smooth(5)), &[], &s);
    let table = super::present::text::table(&c, false);
    assert!(table.contains("90% CI") && !table.contains("95%"), "{table}");
    assert!(super::present::text::markdown(&c).contains("| 90% CI |"));
}

/// Jank CUJs are scenes aligned by CUJ name: each run's value is over the
/// frames of its instances of that CUJ (two instances of one name pooled).
#[test]
fn cujs_are_compared_as_scenes_by_name() {
    // 60 Hz runs of 120 frames; every 4th frame drops 1 vsync before, none after.
    let with_cuj = |dropped: i64| {
        let mut r = run(120, 4, dropped, 0);
        // Two instances: frames 0..20 and 40..60 (indices into `frames`).
        r.cujs = vec![("J<SCROLL>".into(), (0..20).collect()), ("J<SCROLL>".into(), (40..60).collect())];
        r
    };
    let c = compare(&sides(vec![with_cuj(1), with_cuj(1)], vec![with_cuj(0), with_cuj(0)]), &[], &settings());
    let scene = c.scenes.iter().find(|s| s.scene == "J<SCROLL>").expect("the CUJ is a compared scene");
    let fps = scene.metrics.iter().find(|m| m.metric == "fps").expect("fps");
    // Before: 40 frames, 10 of them (k % 4 == 0) dropping 1 vsync: 40 frames in
    // 50 vsyncs of 16.67 ms → 60 · 40 / 50 = 48 fps (the interval is rounded to
    // 16 666 667 ns). After: 40 frames in 40 vsyncs → 60 fps.
    let interval = 16_666_667.0;
    let want_before = 1e9 * 40.0 / (50.0 * interval);
    assert_eq!(fps.before_runs, vec![Some(want_before), Some(want_before)]);
    assert_eq!(fps.after_runs, vec![Some(1e9 / interval), Some(1e9 / interval)]);
}

#[test]
fn zero_on_every_run_of_both_sides_reads_no_change() {
    // No frame of either side drops 42 vsyncs: FROZEN is 0 on every run.
    let c = compare(&sides(janky(5), smooth(5)), &[], &settings());
    let m = c.metric("frozen_per_1000").expect("frozen_per_1000");
    // compare.json keeps the numbers and the test's verdict.
    assert_eq!((m.before, m.after, m.delta, m.verdict), (Some(0.0), Some(0.0), Some(0.0), Verdict::Inconclusive));
    assert!(zero_both(m));
    let row = |text: &str| text.lines().find(|l| l.contains("frozen_per_1000")).expect("a row").to_string();
    // The terminal row says so without colour; fps keeps its colour.
    let table = super::present::text::table(&c, true);
    assert_eq!(
        row(&table),
        "frozen_per_1000 (per 1000 frames)         0.00   0.00    +0.00        –  [+0.00, +0.00]      1.000   no change (0 both)"
    );
    assert!(table.contains("\x1b[32mbetter ↑\x1b[0m"), "{table}");
    assert_eq!(
        row(&super::present::text::markdown(&c)),
        "| `frozen_per_1000 (per 1000 frames)` | 0.00 | 0.00 | +0.00 | – | [+0.00, +0.00] | 1.000 | no change (0 both) |"
    );
    let html = super::present::html::render(&c, &[]).expect("html");
    assert_eq!(
        row(&html),
        "<tr><td>frozen_per_1000 (per 1000 frames)</td><td class=\"num\">0.00</td><td class=\"num\">0.00</td>\
         <td class=\"num\">+0.00</td><td class=\"num\">–</td><td class=\"num\">[+0.00, +0.00]</td>\
         <td class=\"num\">1.000</td><td class=\"neutral\">no change (0 both)</td></tr>"
    );
    let card =
        "<div class=\"card neutral\"><div class=\"k\">FROZEN frames per 1000</div><div class=\"v\">0.00 → 0.00</div>\
                <div class=\"s neutral\">Δ +0.00 · no change (0 both)</div></div>";
    assert!(html.contains(card), "{html}");
    // One run above 0 makes it a comparison again, shown with its verdict.
    let mut one = m.clone();
    one.after_runs[2] = Some(1.0);
    assert!(!zero_both(&one));
    assert_eq!(verdict_cell(&one), "inconclusive ?");
}

/// `runs` with a 6.00, 6.01, … ms-per-frame `main / traversal` each (the same on both sides), and with
/// `binder_ms` per frame of `binder:* / binder reply` when given.
fn with_blockers(runs: Vec<Run>, binder_ms: Option<f64>) -> Vec<Run> {
    use super::blocker_kinds::BlockerKind;
    let kind = |t: &str, s: &str| BlockerKind { thread: Some(t.into()), slice: Some(s.into()) };
    runs.into_iter()
        .enumerate()
        .map(|(i, mut r)| {
            let n = r.frames.len() as i64;
            let mut totals = std::collections::BTreeMap::new();
            totals.insert(kind("main", "traversal"), (6_000_000 + 10_000 * i as i64) * n);
            if let Some(ms) = binder_ms {
                totals.insert(kind("binder:*", "binder reply"), (ms * 1e6).round() as i64 * n);
            }
            r.blockers = Some(totals);
            r
        })
        .collect()
}

/// The cells of a text line: columns are two or more spaces apart.
fn text_cells(line: &str) -> Vec<String> {
    line.split("  ").map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect()
}

#[test]
fn a_grown_blocker_is_worse_and_every_format_says_so() {
    // Six runs a side: the kinds are Holm-adjusted among themselves, and with two kinds the fewest runs
    // from which one can be called is 5 (2 · 2/252 ≤ 0.05 < 2 · 2/70); six leave room.
    let before = with_blockers(smooth(6), None);
    let after = with_blockers(smooth(6), Some(7.9));
    let c = compare(&sides(before, after), &[], &settings());
    let kinds: Vec<&str> = c.blockers.iter().map(|b| b.kind.as_str()).collect();
    // Most time over both sides first: traversal 6.025 + 6.025, the binder 0 + 7.9.
    assert_eq!(kinds, ["main / traversal", "binder:* / binder reply"]);
    let (traversal, binder) = (&c.blockers[0].result, &c.blockers[1].result);
    // The binder: 0 on every before run, 7.9 on every after run. Fully separated 6 vs 6: p = 2/924, the
    // smaller of the two kinds', so Holm doubles it; every difference is 7.9, so is the interval; before
    // is 0, so the change is an infinite percentage: large.
    assert_eq!((binder.before, binder.after, binder.delta, binder.delta_pct), (Some(0.0), Some(7.9), Some(7.9), None));
    assert_eq!((binder.before_runs.clone(), binder.after_runs.clone()), (vec![Some(0.0); 6], vec![Some(7.9); 6]));
    assert!((binder.p_value.expect("p") - 2.0 / 924.0).abs() < 1e-15);
    assert!((binder.p_adjusted.expect("p") - 4.0 / 924.0).abs() < 1e-15);
    assert_eq!(
        (binder.ci, binder.verdict, binder.family),
        (Some([7.9, 7.9]), Verdict::Worse, super::comparison::Family::Exploratory)
    );
    assert_eq!((binder.metric, binder.unit), ("blocker", "ms per frame"));
    // The traversal: the same runs on both sides; p 1; the 90% interval of the shift drops the c = 7
    // smallest and largest of the 36 differences (P(U ≤ 7) = 43/924 ≤ 0.05 < P(U ≤ 8) = 61/924): the
    // differences are 0.01·d, d = −5 … 5 (6 − |d| of each), so [−0.02, +0.02], inside ±2% of 6.025.
    assert!(traversal.before.is_some_and(|v| (v - 6.025).abs() < 1e-12), "{:?}", traversal.before);
    assert_eq!((traversal.delta, traversal.p_value, traversal.p_adjusted), (Some(0.0), Some(1.0), Some(1.0)));
    let eq = traversal.equivalence_ci.expect("interval");
    assert!((eq[0] + 0.02).abs() < 1e-9 && (eq[1] - 0.02).abs() < 1e-9, "{eq:?}");
    assert_eq!(traversal.verdict, Verdict::Same);

    // JSON: the kind, its parts and the fields of a metric.
    let json: serde_json::Value =
        serde_json::from_slice(&super::present::json::json(&c).expect("json")).expect("parse");
    let b = &json["blockers"][1];
    assert_eq!(
        (b["thread"].as_str(), b["slice"].as_str(), b["kind"].as_str()),
        (Some("binder:*"), Some("binder reply"), Some("binder:* / binder reply"))
    );
    let mut keys: Vec<&str> = b.as_object().expect("object").keys().map(String::as_str).collect();
    keys.retain(|k| !["thread", "slice", "kind"].contains(k));
    let metric_keys: Vec<&str> = json["metrics"][1].as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(keys, metric_keys);
    assert_eq!(
        (b["verdict"].as_str(), b["after"].as_f64(), b["delta_pct"].as_null()),
        (Some("worse"), Some(7.9), Some(()))
    );

    // The terminal table, Markdown and the HTML page show the JSON's numbers, row by row.
    let text = super::present::text::table(&c, false);
    let md = super::present::text::markdown(&c);
    // minijinja escapes `/` too.
    let html = super::present::html::render(&c, &[]).expect("html").replace("&#x2f;", "/");
    let section = text.split(super::present::words::BLOCKERS_TITLE).nth(1).expect("a blockers section");
    assert!(section.lines().nth(1).is_some_and(|h| h.starts_with("blocker ")), "{section}");
    assert!(md.contains("| blocker | before | after | Δ | Δ% | 95% CI | p | verdict |"), "{md}");
    assert!(html.contains("<th>blocker</th>"), "{html}");
    for (k, b) in json["blockers"].as_array().expect("blockers").iter().enumerate() {
        let num = |key: &str, sign: &str| {
            b[key].as_f64().map_or(crate::report::format::NONE.to_string(), |v| {
                if sign == "+" {
                    format!("{v:+.2}")
                } else {
                    format!("{v:.2}")
                }
            })
        };
        let ci = |v: &serde_json::Value| {
            format!("[{:+.2}, {:+.2}]", v[0].as_f64().unwrap_or(f64::NAN), v[1].as_f64().unwrap_or(f64::NAN))
        };
        let pct = b["delta_pct"].as_f64().map_or(crate::report::format::NONE.to_string(), |v| format!("{v:+.1}%"));
        let p = b["p_adjusted"].as_f64().map_or(crate::report::format::NONE.to_string(), |v| format!("{v:.3}"));
        let verdict = c.blockers[k].result.verdict;
        let cells = [
            crate::report::format::shorten_head(b["kind"].as_str().expect("kind"), super::present::words::KIND_CHARS),
            num("before", ""),
            num("after", ""),
            num("delta", "+"),
            pct,
            ci(&b["ci"]),
            p,
            format!("{} {}", verdict.word(), verdict.symbol()),
        ];
        let line = section.lines().nth(2 + k).expect("a row");
        assert_eq!(text_cells(line), cells, "{line}");
        let md_row = format!("| `{}` | {} |", cells[0], cells[1..].join(" | "));
        assert!(md.contains(&md_row), "{md_row}\n{md}");
        let html_row: String = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let class = match i {
                    0 => String::new(),
                    7 => format!(" class=\"{}\"", verdict.word()),
                    _ => " class=\"num\"".to_string(),
                };
                format!("<td{class}>{c}</td>")
            })
            .collect();
        assert!(html.contains(&format!("<tr>{html_row}</tr>")), "{html_row}");
    }
    assert_eq!(section.lines().nth(3).map(text_cells).expect("row")[1..4], ["0.00", "7.90", "+7.90"]);
}

#[test]
fn runs_without_critical_paths_have_no_blockers() {
    // Runs judged by their layer's presents (here: no blocker totals at all) compare no blockers.
    let c = compare(&sides(smooth(4), smooth(4)), &[], &settings());
    assert!(c.blockers.is_empty());
    assert!(!super::present::text::table(&c, false).contains(super::present::words::BLOCKERS_TITLE));
}
