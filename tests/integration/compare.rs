//! `fpsan compare` end to end through the binary, on runs generated with the
//! project's trace builder (`tracegen::ab_runs`) into a temporary directory,
//! and on the real before/after pairs in `../shared/traces`.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tracegen::ab_runs::{app_run, RunSpec, AB_APP};

use crate::util::{fpsan, shared, testdata};

/// Smooth and janky builds: probability that a frame drops ≥ 1 frame.
const SMOOTH: f64 = 0.02;
const JANKY: f64 = 0.25;

/// `n` runs of `spec(seed)` in `dir/name/`, seeds `first..first + n`.
fn runs(dir: &Path, name: &str, first: u64, n: u64, spec: impl Fn(u64) -> RunSpec) -> PathBuf {
    let side = dir.join(name);
    std::fs::create_dir_all(&side).unwrap();
    for seed in first..first + n {
        std::fs::write(side.join(format!("run-{seed:02}.pftrace")), app_run(&spec(seed))).unwrap();
    }
    side
}

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn compare(before: &Path, after: &Path, extra: &[&str]) -> Out {
    let out = fpsan().arg("compare").arg(before).arg(after).args(extra).output().unwrap();
    Out {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn json(before: &Path, after: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    let out = compare(before, after, &args);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

fn verdict(doc: &Value, metric: &str) -> String {
    let m = doc["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == metric);
    m.unwrap_or_else(|| panic!("no {metric}"))["verdict"].as_str().unwrap().to_string()
}

/// 5 janky runs and 5 smooth runs of the same 60 Hz scenario (5 a side: the
/// fewest at which the headline's three tests, Holm-adjusted, can reach 0.05).
fn janky_and_smooth(dir: &Path) -> (PathBuf, PathBuf) {
    let janky = runs(dir, "janky", 1, 5, |s| RunSpec::new(s, JANKY));
    let smooth = runs(dir, "smooth", 11, 5, |s| RunSpec::new(s, SMOOTH));
    (janky, smooth)
}

#[test]
fn janky_to_smooth_is_better_and_back_is_worse_with_gates() {
    let tmp = tempfile::tempdir().unwrap();
    let (janky, smooth) = janky_and_smooth(tmp.path());
    let doc = json(&janky, &smooth, &[]);
    assert_eq!(doc["app"], AB_APP);
    assert_eq!(doc["indicative"], false);
    assert_eq!(doc["before"]["runs"].as_array().unwrap().len(), 5);
    assert_eq!(doc["overall"], "smoother");
    // A genuine improvement draws more frames in the same time: not a changed scenario.
    assert!(!doc["warnings"].to_string().contains("scenario"), "{}", doc["warnings"]);
    for m in ["fps", "frame_cost_p90", "jank_pct"] {
        assert_eq!(verdict(&doc, m), "better", "{m}");
    }
    // Both scenes (activities) are compared too.
    assert_eq!(doc["scenes"].as_array().unwrap().len(), 2);

    let doc = json(&smooth, &janky, &[]);
    for m in ["fps", "frame_cost_p90", "jank_pct"] {
        assert_eq!(verdict(&doc, m), "worse", "{m}");
    }
    let out = compare(&smooth, &janky, &["--fail-if", "fps.delta_pct < -5"]);
    assert_eq!(out.code, Some(3), "{}", out.stderr);
    assert!(out.stdout.contains("less smooth"), "{}", out.stdout);
    let gate_lines: Vec<&str> = out.stderr.lines().filter(|l| l.contains("gate tripped")).collect();
    assert_eq!(gate_lines.len(), 1, "{}", out.stderr);
    assert!(gate_lines[0].contains("fps.delta_pct < -5") && gate_lines[0].contains("CI"), "{}", gate_lines[0]);
    let out = compare(&smooth, &janky, &["--fail-if", "fps.delta_pct < -99"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
}

#[test]
fn runs_of_the_same_build_are_not_better_or_worse() {
    let tmp = tempfile::tempdir().unwrap();
    let a = runs(tmp.path(), "a", 21, 5, |s| RunSpec::new(s, 0.08));
    let b = runs(tmp.path(), "b", 31, 5, |s| RunSpec::new(s, 0.08));
    let doc = json(&a, &b, &[]);
    for m in ["fps", "frame_cost_p90"] {
        let v = verdict(&doc, m);
        assert!(v == "same" || v == "inconclusive", "{m}: {v}");
    }
}

#[test]
fn one_run_per_side_is_indicative() {
    let tmp = tempfile::tempdir().unwrap();
    let (janky, smooth) = janky_and_smooth(tmp.path());
    let (before, after) = (janky.join("run-01.pftrace"), smooth.join("run-11.pftrace"));
    let doc = json(&before, &after, &[]);
    assert_eq!(doc["indicative"], true);
    assert_eq!(doc["overall"], "indicative");
    assert_eq!(verdict(&doc, "fps"), "indicative");
    let out = compare(&before, &after, &[]);
    assert!(out.stdout.contains("indicative: 1 vs 1 runs cannot show a change at alpha 0.05"), "{}", out.stdout);
    // A gate on it is not checked (stderr says so) unless the user asks to fail closed.
    let gate = ["--fail-if", "fps.delta_pct > 5"];
    let out = compare(&before, &after, &gate);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stderr.contains("fpsan: gates not checked: the comparison is indicative (1 vs 1 runs"),
        "{}",
        out.stderr
    );
    let out = compare(&before, &after, &[gate[0], gate[1], "--indicative-gates", "fail"]);
    assert_eq!(out.code, Some(3), "{}", out.stderr);
    assert!(out.stderr.contains("failing closed"), "{}", out.stderr);
}

/// Forty-five runs a side once overflowed the stack (analyses nested inside
/// each other on rayon's workers); each run here is 2 s long.
#[test]
fn many_runs_a_side_finish() {
    let tmp = tempfile::tempdir().unwrap();
    let short = |seed, jank| RunSpec { secs: 2.0, ..RunSpec::new(seed, jank) };
    let a = runs(tmp.path(), "a", 100, 45, |s| short(s, 0.1));
    let b = runs(tmp.path(), "b", 200, 45, |s| short(s, 0.1));
    let doc = json(&a, &b, &[]);
    assert_eq!(doc["before"]["runs"].as_array().unwrap().len(), 45);
    let fps = doc["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == "fps").unwrap();
    assert!(fps["p_value"].is_f64(), "{fps}");
    assert_eq!(fps["p_method"], "exact");
}

#[test]
fn refresh_rate_change_is_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let at60 = runs(tmp.path(), "60", 41, 2, |s| RunSpec::new(s, SMOOTH));
    let at120 = runs(tmp.path(), "120", 51, 2, |s| RunSpec { refresh_hz: 120.0, ..RunSpec::new(s, SMOOTH) });
    let doc = json(&at60, &at120, &[]);
    // 1e9 / 16_666_667 and 1e9 / 8_333_333: the intervals are whole nanoseconds.
    let hz = |side: &str| doc[side]["refresh_hz"].as_f64().unwrap();
    assert!((hz("before") - 60.0).abs() < 1e-3 && (hz("after") - 120.0).abs() < 1e-3, "{doc}");
    // Each warning is {code, message}.
    let warnings = doc["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w["code"] == "refresh_differs"
            && w["message"].as_str().unwrap().starts_with("refresh rate differs: before 60 Hz, after 120 Hz")),
        "{warnings:?}"
    );
}

#[test]
fn bad_rules_exit_2_and_list_the_metrics() {
    let tmp = tempfile::tempdir().unwrap();
    let one = runs(tmp.path(), "one", 61, 1, |s| RunSpec::new(s, SMOOTH));
    let out = compare(&one, &one, &["--fail-if", "fps.delta_pct <> 5"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("does not parse") || out.stderr.contains("not a finite number"), "{}", out.stderr);
    let out = compare(&one, &one, &["--fail-if", "fsp.after < 5"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr.contains("unknown metric `fsp`; known metrics: fps, fps_wall, frame_cost_p50"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(out.stdout.is_empty());
}

#[test]
fn unusable_input_exits_1_with_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let good = runs(tmp.path(), "good", 71, 2, |s| RunSpec::new(s, SMOOTH));
    // A directory with a note and a damaged trace beside the runs: both named and left out.
    std::fs::write(good.join("notes.txt"), "not a trace").unwrap();
    let out = compare(&good, &good, &["--format", "json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["before"]["runs"].as_array().unwrap().len(), 2);
    assert!(doc["warnings"].to_string().contains("notes.txt"), "{}", doc["warnings"]);

    let empty = tmp.path().join("junk");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(empty.join("a.pftrace"), "junk").unwrap();
    let out = compare(&good, &empty, &[]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("after side has no usable run") && out.stderr.contains("a.pftrace"), "{}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);

    let out = compare(&good, &good, &["--app", "com.example.absent"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "com.example.absent has no frames or presents on the before side; apps there: com.example.compare (pid "
        ),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
}

#[test]
fn markdown_is_a_github_table() {
    let tmp = tempfile::tempdir().unwrap();
    let (janky, smooth) = janky_and_smooth(tmp.path());
    let out = compare(&janky, &smooth, &["--format", "markdown"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.starts_with(&format!("**{AB_APP}: smoother — fps ")), "{}", out.stdout);
    assert!(out.stdout.contains("| metric | before | after | Δ | Δ% | 95% CI | p | verdict |"));
    assert!(out.stdout.contains("| `fps` |"), "{}", out.stdout);
}

#[test]
fn out_dir_has_html_charts_json_and_parquet() {
    let tmp = tempfile::tempdir().unwrap();
    let (janky, smooth) = janky_and_smooth(tmp.path());
    let dir = tmp.path().join("out");
    let out = compare(&janky, &smooth, &["--out", dir.to_str().unwrap()]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    for chart in ["cdf", "drop-levels", "fps-runs", "fps-wall"] {
        let png = std::fs::read(dir.join(format!("charts/compare-{chart}.png"))).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{chart}");
    }
    let html = std::fs::read_to_string(dir.join("compare.html")).unwrap();
    assert_eq!(fpsan::report::html::external_references(&html), Vec::<String>::new());
    assert_eq!(html.matches("data:image/png;base64,").count(), 4);
    assert!(html.contains(&format!("{AB_APP}: smoother")));
    let doc: Value = serde_json::from_slice(&std::fs::read(dir.join("compare.json")).unwrap()).unwrap();
    let frames: u64 = ["before", "after"]
        .iter()
        .flat_map(|s| doc[s]["runs"].as_array().unwrap().iter().map(|r| r["frames"].as_u64().unwrap()))
        .sum();
    check_parquet(&dir.join("frames.parquet"), frames);
    if let Some(chromium) = crate::report::chromium() {
        let r = crate::report::render(&chromium, &dir.join("compare.html"), 4000);
        assert!(r.page_requests.is_empty(), "the page fetched: {:?}", r.page_requests);
        let non_white = r.rgb.chunks_exact(3).filter(|p| p.iter().any(|&v| v < 235)).count();
        assert!(non_white > (r.width * r.height) as usize / 20, "page looks blank");
    }
}

/// Every frame of every run, with `side` and `run` first.
fn check_parquet(path: &Path, frames: u64) {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let meta = reader.metadata();
    assert_eq!(meta.file_metadata().num_rows() as u64, frames);
    let schema = meta.file_metadata().schema_descr();
    let names: Vec<&str> = schema.columns().iter().map(|c| c.name()).collect();
    assert_eq!(&names[..3], ["side", "run", "frame_index"]);
    assert!(names.contains(&"scene") && names.contains(&"frame_cost_ns"));
}

/// The real pairs: compare runs, exits 0, and names the demo app (chosen with `--app`: the
/// system UI has more frames than the demo app in two of them, so the automatic choice is
/// checked separately). cpu-spin has no frames at all (no `Choreographer#doFrame`: the
/// scenario spins a worker thread), so there compare must say so and exit 1.
#[test]
fn real_before_after_pairs() {
    let pairs = [
        ("app-startup", Some("com.example.perfetto.startup")),
        ("db-ui-thread", Some("com.example.perfetto.dbui")),
        ("binder-spam", Some("com.example.perfetto.binderspam")),
        ("cpu-spin", None),
    ];
    for (pair, app) in pairs {
        let Some(before) = shared(&format!("traces/real-android16-{pair}-before.pftrace")) else {
            return;
        };
        let Some(after) = shared(&format!("traces/real-android16-{pair}-after.pftrace")) else {
            return;
        };
        let auto = compare(&before, &after, &[]);
        let Some(app) = app else {
            assert_eq!(auto.code, Some(1), "{pair}: {}", auto.stderr);
            assert!(auto.stderr.contains("before side has no usable run") && auto.stderr.contains("no frames"));
            assert_eq!(auto.stderr.lines().count(), 1, "{}", auto.stderr);
            continue;
        };
        assert_eq!(auto.code, Some(0), "{pair}: {}", auto.stderr);
        let out = compare(&before, &after, &["--app", app]);
        assert_eq!(out.code, Some(0), "{pair}: {}", out.stderr);
        assert!(out.stdout.starts_with(&format!("{app}: ")), "{pair}: {}", out.stdout);
        assert!(out.stdout.contains("indicative: 1 vs 1 runs cannot show a change"), "{pair}: {}", out.stdout);
        let head = |o: &Out| o.stdout.lines().next().unwrap_or("").to_string();
        println!("{pair}: {}\n{pair} (auto): {}", head(&out), head(&auto));
    }
}

/// `-o` is `--out`: the files its help lists.
#[test]
fn short_out_writes_what_the_help_lists() {
    let dir = tempfile::tempdir().unwrap();
    let demo = testdata("demo.pftrace");
    let out = fpsan().arg("compare").arg(&demo).arg(&demo).arg("-o").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    for f in ["compare.html", "compare.json", "frames.parquet"]
        .into_iter()
        .map(String::from)
        .chain(["cdf", "drop-levels", "fps-runs", "fps-wall"].map(|c| format!("charts/compare-{c}.png")))
    {
        assert!(dir.path().join(&f).is_file(), "{f}");
    }
    let help = fpsan().args(["compare", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("-o, --out <DIR>") && help.contains("charts/compare-{cdf,drop-levels,fps-runs,fps-wall}.png")
    );
}

/// 6 runs a side with the main thread's scheduler events; `binder_ms` adds a binder call of that length
/// to every frame's traversal (`tracegen::ab_runs`), answered by system_server's binder threads. Six: the
/// blocker kinds are Holm-adjusted among themselves, and 4 or 5 runs a side cannot call one of several.
fn sched_runs(dir: &Path, name: &str, first: u64, binder_ms: i64) -> PathBuf {
    runs(dir, name, first, 6, |s| RunSpec { sched: true, binder_ns: binder_ms * 1_000_000, ..RunSpec::new(s, SMOOTH) })
}

fn blocker<'a>(doc: &'a Value, kind: &str) -> &'a Value {
    let found = doc["blockers"].as_array().unwrap().iter().find(|b| b["kind"] == kind);
    found.unwrap_or_else(|| panic!("no blocker {kind}: {}", doc["blockers"]))
}

/// The after build makes an 8 ms binder call in every frame: on each frame's critical path the binder
/// thread's reply, 8 ms less its 50 µs insets at both ends (the thread that wakes the main thread), so each
/// after run spends exactly 7.9 ms per frame in `binder:* / binder reply` (system_server's pid and binder
/// thread differ run to run and frame to frame: one kind), each before run 0. 6 vs 6 runs fully separated:
/// p = 2/924, the smallest of the kinds', so Holm multiplies it by their number: worse. The main thread's own work (its traversal around the call) did not change.
#[test]
fn a_binder_call_added_to_every_frame_is_the_blocker_that_grew() {
    let tmp = tempfile::tempdir().unwrap();
    let before = sched_runs(tmp.path(), "before", 81, 0);
    let after = sched_runs(tmp.path(), "after", 91, 8);
    let doc = json(&before, &after, &[]);
    let b = blocker(&doc, "binder:* / binder reply");
    assert_eq!((b["thread"].as_str(), b["slice"].as_str()), (Some("binder:*"), Some("binder reply")));
    assert_eq!(
        (b["metric"].as_str(), b["unit"].as_str(), b["family"].as_str()),
        (Some("blocker"), Some("ms per frame"), Some("exploratory"))
    );
    assert_eq!(b["before_runs"], serde_json::json!(vec![0.0; 6]));
    assert_eq!(b["after_runs"], serde_json::json!(vec![7.9; 6]));
    assert_eq!((b["before"].as_f64(), b["after"].as_f64(), b["delta"].as_f64()), (Some(0.0), Some(7.9), Some(7.9)));
    assert!((b["p_value"].as_f64().unwrap() - 2.0 / 924.0).abs() < 1e-15, "{b}");
    // Five kinds are compared (the main thread's traversal, commit, animation, … and the binder's).
    let kinds = doc["blockers"].as_array().unwrap().len();
    assert_eq!(kinds, 5, "{}", doc["blockers"]);
    assert!((b["p_adjusted"].as_f64().unwrap() - kinds as f64 * 2.0 / 924.0).abs() < 1e-15, "{b}");
    assert_eq!(b["ci"], serde_json::json!([7.9, 7.9]));
    assert_eq!(b["verdict"], "worse");
    // The main thread's own part of the call (tracegen::ab_runs::binder_call): 70 µs a frame, the 30 µs from
    // its sleep to the reply's start being the binder thread's that woke it; under the 0.1 ms a frame a kind
    // needs to be listed.
    let own_kind = "example.compare / binder transaction";
    assert!(doc["blockers"].as_array().unwrap().iter().all(|o| o["kind"] != own_kind), "{}", doc["blockers"]);
    // Nothing else grew: the main thread's own work is drawn from the same distributions. Its wait from vsync
    // to doFrame `(no slice)` may read a little better: once frames are 8 ms longer, the previous frame's
    // DrawFrames sometimes ends after the next vsync and within 2 ms of the wakeup, and the critical path hands
    // that part of the wait to the RenderThread (docs/frames.md, "Critical path").
    for other in doc["blockers"].as_array().unwrap().iter().filter(|o| o["kind"] != b["kind"]) {
        assert_ne!(other["verdict"], "worse", "{other}");
    }

    // The terminal says the same in its blockers section.
    let out = compare(&before, &after, &[]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let section = out.stdout.split("blockers: critical-path time per frame, ms (exploratory)").nth(1).unwrap();
    let row = section.lines().find(|l| l.starts_with("binder:* / binder reply")).unwrap_or_else(|| panic!("{section}"));
    let cells: Vec<&str> = row.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(cells, ["binder:* / binder reply", "0.00", "7.90", "+7.90", "–", "[+7.90, +7.90]", "0.011", "worse ↓"]);

    // An unchanged pair (the same build, other seeds): no blocker better or worse.
    let again = sched_runs(tmp.path(), "again", 101, 0);
    let doc = json(&before, &again, &[]);
    assert!(!doc["blockers"].as_array().unwrap().is_empty());
    for b in doc["blockers"].as_array().unwrap() {
        let v = b["verdict"].as_str().unwrap();
        assert!(v == "same" || v == "inconclusive", "{b}");
    }
    assert!(doc["blockers"].as_array().unwrap().iter().all(|b| b["kind"] != "binder:* / binder reply"));
}

#[test]
fn the_real_startup_pair_compares_its_ttid() {
    let (Some(before), Some(after)) = (
        shared("traces/real-android16-app-startup-before.pftrace"),
        shared("traces/real-android16-app-startup-after.pftrace"),
    ) else {
        return;
    };
    let doc = json(&before, &after, &["--app", "com.example.perfetto.startup"]);
    let metric = |name: &str| doc["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == name).cloned();
    // trace_processor v58.2's TTID and duration of each cold start, in ms
    // (tests/integration/startups.rs holds its rows).
    let ttid = metric("startup_ttid").expect("startup_ttid compared");
    assert_eq!((ttid["before"].as_f64(), ttid["after"].as_f64()), (Some(3455.608242), Some(871.166958)));
    assert_eq!((ttid["unit"].as_str(), ttid["family"].as_str()), (Some("ms"), Some("secondary")));
    assert_eq!(ttid["verdict"], "indicative");
    let dur = metric("startup_dur").expect("startup_dur compared");
    assert_eq!((dur["before"].as_f64(), dur["after"].as_f64()), (Some(3468.905549), Some(882.246583)));
    // Neither start reported itself fully drawn.
    assert!(metric("startup_ttfd").is_none());
    // A gate may name it (not checked on an indicative comparison).
    let out =
        compare(&before, &after, &["--app", "com.example.perfetto.startup", "--fail-if", "startup_ttid.delta_pct > 5"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    // Deciding on the startup, the headline leads with TTID.
    let out = compare(&before, &after, &["--app", "com.example.perfetto.startup", "--decide-on", "startup"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let first = out.stdout.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("com.example.perfetto.startup: indicative — TTID 3455.6 → 871.2 ms (-75%), fps "),
        "{first}"
    );
    let doc = json(&before, &after, &["--app", "com.example.perfetto.startup", "--decide-on", "startup"]);
    assert_eq!(doc["settings"]["decide_on"], "startup");
}
