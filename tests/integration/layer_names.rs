//! Apps found by their layers (docs/presents.md, "Apps named by their
//! layers"): a process the trace does not name is named, and matched by
//! `--app`, by the package its layers name; a process with a name keeps it;
//! an `--app` that matches nothing lists the apps and pids there are.

use std::path::Path;

use serde_json::Value;
use tracegen::scenarios::{JANK_NONE, PREDICTION_VALID, PRESENT_ON_TIME};
use tracegen::{ActualFrame, BuildOptions, TraceBuilder};

use crate::util::{fpsan, shared};

/// 60 Hz.
const P60: i64 = 16_666_667;
const T0: i64 = 1_000_000_000;
/// No process_tree entry: known only by its FrameTimeline layer.
const BARE_PID: i32 = 4000;
const BARE: &str = "com.example.bare";
const BARE_LAYER: &str = "TX - com.example.bare/com.example.bare.MainActivity#7";
/// Presents of the bare app, one every second vsync.
const BARE_PRESENTS: i64 = 31;
/// Named `com.example.named` by the process_tree; presents a layer of another package.
const NAMED_PID: i32 = 5000;
const NAMED: &str = "com.example.named";
const OTHER_LAYER: &str = "TX - com.example.other/com.example.other.Main#3";
const NAMED_PRESENTS: i64 = 10;

/// `n` actual surface frames of `layer` (pid `pid`), presented every
/// `every` ns from `T0 + P60`, token from `token`.
fn presents(b: &mut TraceBuilder, pid: i32, layer: &str, token: i64, n: i64, every: i64) {
    for k in 0..n {
        let start = T0 + k * every;
        b.actual_surface_frame(
            start,
            Some(start + P60),
            ActualFrame {
                token: token + k,
                display_frame_token: token + k,
                pid,
                layer: layer.to_owned(),
                present_type: PRESENT_ON_TIME,
                on_time_finish: true,
                jank_type: JANK_NONE,
                prediction_type: PREDICTION_VALID,
                ..Default::default()
            },
        );
    }
}

/// A FrameTimeline-only capture: the bare app and the named one.
fn write_trace(dir: &Path) -> std::path::PathBuf {
    let mut b = TraceBuilder::new();
    b.process(NAMED_PID, NAMED);
    presents(&mut b, BARE_PID, BARE_LAYER, 100, BARE_PRESENTS, 2 * P60);
    presents(&mut b, NAMED_PID, OTHER_LAYER, 500, NAMED_PRESENTS, P60);
    let path = dir.join("layers.pftrace");
    std::fs::write(&path, b.build(&BuildOptions::default())).unwrap();
    path
}

fn analyze(trace: &Path, args: &[&str]) -> std::process::Output {
    fpsan().arg("analyze").arg(trace).args(args).output().unwrap()
}

fn json_apps(trace: &Path, args: &[&str]) -> Vec<Value> {
    let out = analyze(trace, &[args, &["--format", "json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    json["apps"].as_array().unwrap().clone()
}

/// stderr's one line, and the exit code.
fn failure(out: &std::process::Output) -> (Option<i32>, String) {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    (out.status.code(), stderr.trim_end().to_string())
}

#[test]
fn app_matches_the_package_of_an_unnamed_processs_layer() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write_trace(dir.path());
    let apps = json_apps(&trace, &["--app", BARE]);
    assert_eq!(apps.len(), 1, "{apps:?}");
    let a = &apps[0];
    assert_eq!((a["pid"].as_i64(), a["process"].as_str()), (Some(BARE_PID as i64), Some(BARE)));
    assert_eq!(a["process_source"], "layer");
    assert_eq!(a["frames"], 0);
    let h = &a["headline"];
    assert_eq!((h["source"].as_str(), h["layer"].as_str()), (Some("presents"), Some(BARE_LAYER)));
    // 31 presents two vsyncs apart: 30 intervals of 2·P60, one vsync dropped each.
    assert_eq!((h["frames"].as_i64(), h["dropped"].as_i64()), (Some(30), Some(30)));
    assert_eq!(h["fps"].as_f64(), Some(1e9 * 30.0 / (30 * 2 * P60) as f64));
    // --pid picks the same app, named the same.
    assert_eq!(json_apps(&trace, &["--pid", &BARE_PID.to_string()]), apps);

    // The terminal says where the name came from; so do report.html and
    // summary.json; `fpsan query`'s apps table (the lake's) has the name.
    let out = analyze(&trace, &["--app", BARE]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&format!("\n{BARE} (pid {BARE_PID}, named by its layer)\n")), "{text}");
    let row = text.lines().find(|l| l.starts_with(BARE)).expect("the app row");
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[..6], [BARE, "4000", "30.0", "presents", "30", "30"], "{row}");
    let out_dir = dir.path().join("out");
    let out = analyze(&trace, &["--app", BARE, "--out", out_dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: Value = serde_json::from_slice(&std::fs::read(out_dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["apps"][0]["process"], BARE);
    assert_eq!(summary["apps"][0]["process_source"], "layer");
    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    assert!(html.contains(&format!("<h2>{BARE} <small>(pid {BARE_PID}, named by its layer, ")), "report.html heading");
    let out = fpsan()
        .arg("query")
        .arg(&trace)
        .arg("SELECT pid, process, process_source FROM apps ORDER BY pid")
        .args(["--format", "csv"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("pid,process,process_source\n{BARE_PID},{BARE},layer\n{NAMED_PID},{NAMED},process\n")
    );
}

/// A process with a name keeps it: a layer of another package does not
/// rename it, and `--app` of that package does not find it.
#[test]
fn the_process_name_wins_over_its_layers_package() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write_trace(dir.path());
    let apps = json_apps(&trace, &["--app", NAMED]);
    assert_eq!(apps.len(), 1);
    assert_eq!(
        (apps[0]["pid"].as_i64(), apps[0]["process_source"].as_str()),
        (Some(NAMED_PID as i64), Some("process"))
    );
    assert_eq!(apps[0]["headline"]["frames"], NAMED_PRESENTS - 1);

    let (code, line) = failure(&analyze(&trace, &["--app", "com.example.other"]));
    assert_eq!(code, Some(1), "{line}");
    assert_eq!(
        line,
        format!(
            "fpsan: no frames or presents for app com.example.other in {}; the apps it has: {BARE} (pid {BARE_PID}, \
             named by its layer, {BARE_PRESENTS} presents), {NAMED} (pid {NAMED_PID}, {NAMED_PRESENTS} presents); pass \
             one of their names to --app, or a pid to --pid",
            trace.display()
        )
    );
    // The same list for a pid that is not there.
    let (code, line) = failure(&analyze(&trace, &["--pid", "1"]));
    assert_eq!(code, Some(1), "{line}");
    assert!(
        line.starts_with(&format!("fpsan: no frames or presents for pid 1 in {}; the apps it has: ", trace.display()))
    );
}

/// The list is bounded: ten apps, then how many more.
#[test]
fn the_no_match_error_lists_ten_apps_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = TraceBuilder::new();
    // Twelve unnamed apps, app k (pid 6000 + k) with k + 2 presents.
    for k in 0..12 {
        let layer = format!("TX - com.example.app{k}/com.example.app{k}.Main#1");
        presents(&mut b, 6000 + k as i32, &layer, 1000 * (k + 1), k + 2, P60);
    }
    let trace = dir.path().join("twelve.pftrace");
    std::fs::write(&trace, b.build(&BuildOptions::default())).unwrap();
    let (code, line) = failure(&analyze(&trace, &["--app", "nothere"]));
    assert_eq!(code, Some(1), "{line}");
    // Most presents first: apps 11 down to 2; apps 1 and 0 are the two more.
    let listed: Vec<String> = (2..12)
        .rev()
        .map(|k| format!("com.example.app{k} (pid {}, named by its layer, {} presents)", 6000 + k, k + 2))
        .collect();
    assert_eq!(
        line,
        format!(
            "fpsan: no frames or presents for app nothere in {}; the apps it has: {}, … and 2 more; pass one of their \
             names to --app, or a pid to --pid",
            trace.display(),
            listed.join(", ")
        )
    );
}

const NIA: &str = "com.google.samples.apps.nowinandroid.demo";
const NIA_LAYER: &str =
    "TX - com.google.samples.apps.nowinandroid.demo/com.google.samples.apps.nowinandroid.MainActivity#50010";

/// The real Pixel 7 Pro capture without process names: `--app PKG` finds
/// pid 9305 by its layer, judged by that layer's presents, which equal
/// FrameTimeline's finished, not dropped actual surface frames of the layer.
#[test]
fn nowinandroid_is_found_by_its_layer() {
    let Some(trace) = shared("traces/real-pixel7pro-android13-nowinandroid-frametimeline-only.pftrace") else { return };
    let apps = json_apps(&trace, &["--app", NIA]);
    assert_eq!(apps.len(), 1, "{apps:?}");
    let a = &apps[0];
    assert_eq!((a["pid"].as_i64(), a["process"].as_str()), (Some(9305), Some(NIA)));
    assert_eq!(a["process_source"], "layer");
    let h = &a["headline"];
    assert_eq!((h["source"].as_str(), h["layer"].as_str()), (Some("presents"), Some(NIA_LAYER)));
    assert_eq!(h["frames"], 737);
    // The independent count: the model's FrameTimeline rows of that layer.
    let sql = format!(
        "SELECT count(*) AS n, min(ts + dur) AS first, max(ts + dur) AS last FROM frame_timeline \
         WHERE kind = 'actual' AND surface AND pid = 9305 AND layer_name = '{NIA_LAYER}' AND dur >= 0 \
         AND (present_type IS NULL OR present_type <> 'Dropped Frame')"
    );
    let out = fpsan().arg("query").arg(&trace).arg(&sql).args(["--format", "json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let (n, first, last) =
        (rows[0]["n"].as_i64().unwrap(), rows[0]["first"].as_i64().unwrap(), rows[0]["last"].as_i64().unwrap());
    assert_eq!(n, 738);
    // Its wall rate is the presents over their span; its headline fps is paced.
    assert_eq!(h["fps_wall"].as_f64(), Some(1e9 * (n - 1) as f64 / (last - first) as f64));
    assert_eq!(h["fps"].as_f64(), Some(FPS_NIA));
    // The terminal's app row.
    let out = analyze(&trace, &["--app", NIA]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let row = text.lines().find(|l| l.starts_with(NIA)).expect("the app row");
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[..5], [NIA, "9305", FPS_NIA_SHOWN, "presents", "737"], "{row}");
    assert!(text.contains(&format!("\n{NIA} (pid 9305, named by its layer)\n")), "{text}");
}

/// fpsan's headline fps of nowinandroid's layer (paced: its five idle spans
/// cost nothing; its wall rate is 87.9), and as the terminal shows it.
const FPS_NIA: f64 = 110.13699070684947;
const FPS_NIA_SHOWN: &str = "110.1";

/// The no-match error on the real capture, word for word.
#[test]
fn nowinandroid_no_match_lists_its_apps() {
    let Some(trace) = shared("traces/real-pixel7pro-android13-nowinandroid-frametimeline-only.pftrace") else { return };
    let (code, line) = failure(&analyze(&trace, &["--app", "com.example.nothere"]));
    assert_eq!(code, Some(1), "{line}");
    // Settings is named by its layer; pid 1265 (system_server: animation
    // leashes) and pid 13407 (SystemUI: the app's splash screen and the
    // status bar) by nothing.
    assert_eq!(
        line,
        format!(
            "fpsan: no frames or presents for app com.example.nothere in {}; the apps it has: {NIA} (pid 9305, named \
             by its layer, 738 presents), com.android.settings (pid 4586, named by its layer, 67 presents), ? (pid \
             1265, 59 presents), ? (pid 13407, 33 presents); pass one of their names to --app, or a pid to --pid",
            trace.display()
        )
    );
}

// `compare` knows the same apps as `analyze` (docs/compare.md, "The app"):
// an app known only by its layer's presents is chosen, found by `--app` and
// by its pids, judged by that layer's presents, and listed when missing.

/// A FrameTimeline-only run: the bare app presenting every `every` ns (when
/// `bare`), and the named app (when `named`).
fn write_run(path: &Path, every: Option<i64>, named: bool) {
    let mut b = TraceBuilder::new();
    if named {
        b.process(NAMED_PID, NAMED);
        presents(&mut b, NAMED_PID, OTHER_LAYER, 500, NAMED_PRESENTS, P60);
    }
    if let Some(every) = every {
        presents(&mut b, BARE_PID, BARE_LAYER, 100, BARE_PRESENTS, every);
    }
    std::fs::write(path, b.build(&BuildOptions::default())).unwrap();
}

/// `runs` runs of [`write_run`] in `dir/name/`.
fn write_side(dir: &Path, name: &str, runs: usize, every: Option<i64>, named: bool) -> std::path::PathBuf {
    let side = dir.join(name);
    std::fs::create_dir_all(&side).unwrap();
    for k in 0..runs {
        write_run(&side.join(format!("run-{k}.pftrace")), every, named);
    }
    side
}

fn compare(before: &Path, after: &Path, args: &[&str]) -> std::process::Output {
    fpsan().arg("compare").arg(before).arg(after).args(args).output().unwrap()
}

fn compare_json(before: &Path, after: &Path, args: &[&str]) -> (Value, String) {
    let out = compare(before, after, &[args, &["--format", "json"]].concat());
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    (serde_json::from_slice(&out.stdout).unwrap(), stderr)
}

fn metric<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == name).unwrap_or_else(|| panic!("no {name}"))
}

/// Four runs a side of the bare app, presenting every second vsync before
/// and every vsync after: better, and the other way round worse, whichever
/// way the app is chosen.
#[test]
fn compare_judges_an_app_known_only_by_its_layer() {
    let dir = tempfile::tempdir().unwrap();
    let slow = write_side(dir.path(), "slow", 4, Some(2 * P60), true);
    let fast = write_side(dir.path(), "fast", 4, Some(P60), true);
    // 31 presents: 30 intervals. Presents' fps = 1e9 · intervals / Σ intervals
    // (docs/compare.md: a present's interval is its cost):
    // slow: 1e9 · 30 / (30 · 2 · 16 666 667) = 1e9 / 33 333 334 ≈ 29.99999940;
    // fast: 1e9 · 30 / (30 · 16 666 667)     = 1e9 / 16 666 667 ≈ 59.99999880.
    let fps_slow = 1e9 * 30.0 / 1_000_000_020.0;
    let fps_fast = 1e9 * 30.0 / 500_000_010.0;
    // Automatic choice: the bare app's 4 · 30 intervals a side outnumber the
    // named app's 4 · 9.
    let (auto, stderr) = compare_json(&slow, &fast, &[]);
    assert!(
        stderr.contains(&format!("comparing {BARE}: the app with the most frames compared on both sides")),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("judging {BARE} by the presents of its layer {BARE_LAYER}: ")), "{stderr}");
    assert_eq!(auto["app"], BARE);
    for (side, fps) in [("before", fps_slow), ("after", fps_fast)] {
        let runs = auto[side]["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 4);
        for r in runs {
            assert_eq!((r["frames"].as_i64(), r["fps"].as_f64()), (Some(30), Some(fps)), "{side}");
        }
    }
    let fps = metric(&auto, "fps");
    assert_eq!((fps["before"].as_f64(), fps["after"].as_f64()), (Some(fps_slow), Some(fps_fast)));
    // 4 against 4 runs fully apart: the exact two-sided p is 2/70.
    assert_eq!(fps["p_value"].as_f64(), Some(2.0 / 70.0));
    assert_eq!(fps["verdict"], "better");
    // `--app` and the pids choose the same app and give the same document.
    let (by_app, _) = compare_json(&slow, &fast, &["--app", BARE]);
    assert_eq!(by_app, auto);
    let pid = BARE_PID.to_string();
    let (by_pid, _) = compare_json(&slow, &fast, &["--pid-before", &pid, "--pid-after", &pid]);
    assert_eq!(by_pid, auto);
    // The other way round.
    let (back, _) = compare_json(&fast, &slow, &["--app", BARE]);
    let fps = metric(&back, "fps");
    assert_eq!(
        (fps["before"].as_f64(), fps["after"].as_f64(), fps["verdict"].as_str()),
        (Some(fps_fast), Some(fps_slow), Some("worse"))
    );
}

/// The errors list the apps known by their presents, with their presents,
/// as `analyze`'s no-match line does.
#[test]
fn compare_lists_apps_known_only_by_their_layers() {
    let dir = tempfile::tempdir().unwrap();
    let both = write_side(dir.path(), "both", 4, Some(P60), true);
    let (code, line) = failure(&compare(&both, &both, &["--app", "com.example.nothere"]));
    assert_eq!(code, Some(1), "{line}");
    // Presents over the side's four runs: 4 · 31 and 4 · 10.
    assert_eq!(
        line,
        format!(
            "fpsan: com.example.nothere has no frames or presents on the before side; apps there: {BARE} (pid \
             {BARE_PID}, named by its layer, 124 presents), {NAMED} (pid {NAMED_PID}, 40 presents)"
        )
    );
    let bare = write_side(dir.path(), "bare", 1, Some(P60), false);
    let named = write_side(dir.path(), "named", 1, None, true);
    let (code, line) = failure(&compare(&bare, &named, &[]));
    assert_eq!(code, Some(1), "{line}");
    assert_eq!(
        line,
        format!(
            "fpsan: no app has frames or presents on both sides; before: {BARE} (pid {BARE_PID}, named by its layer, \
             {BARE_PRESENTS} presents); after: {NAMED} (pid {NAMED_PID}, {NAMED_PRESENTS} presents)"
        )
    );
}

/// The real capture against itself, four runs a side (the fewest a test
/// decides with): the app is found by its layer and nothing changed; each
/// run's fps is `analyze`'s headline fps of that layer.
#[test]
fn compare_nowinandroid_against_itself() {
    let Some(trace) = shared("traces/real-pixel7pro-android13-nowinandroid-frametimeline-only.pftrace") else { return };
    let dir = tempfile::tempdir().unwrap();
    let side = dir.path().join("runs");
    std::fs::create_dir(&side).unwrap();
    for k in 0..4 {
        std::fs::copy(&trace, side.join(format!("run-{k}.pftrace"))).unwrap();
    }
    let out_dir = dir.path().join("out");
    let out = compare(&side, &side, &["--app", NIA, "--out", out_dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(&format!("judging {NIA} by the presents of its layer {NIA_LAYER}: ")), "{stderr}");
    let doc: Value = serde_json::from_slice(&std::fs::read(out_dir.join("compare.json")).unwrap()).unwrap();
    assert_eq!(doc["app"], NIA);
    assert_eq!(doc["overall"], "no change");
    for side in ["before", "after"] {
        for r in doc[side]["runs"].as_array().unwrap() {
            assert_eq!((r["frames"].as_i64(), r["fps"].as_f64()), (Some(737), Some(FPS_NIA)), "{side}");
        }
    }
    let fps = metric(&doc, "fps");
    assert_eq!((fps["before"].as_f64(), fps["after"].as_f64()), (Some(FPS_NIA), Some(FPS_NIA)));
    assert_eq!(fps["verdict"], "same");
}
