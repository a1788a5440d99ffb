//! `fpsan ab` and `capture --runs` against the fake adb (tests/fake_adb/adb):
//! a fake APK is a key=value file naming the traces the fake device records
//! while that build is installed (made by the project's trace builder:
//! janky runs for one build, smooth for the other). Checked: the ABBA order
//! and the installs it needs, the device hygiene done and recorded and put
//! back, a failed run retried and reported, a run that fails every time
//! stopping the experiment with one line, `--until-decided` stopping at its
//! first look on a large change and running to `--max-runs` on none, Ctrl-C
//! keeping the finished runs (exit 130), and `compare` reading runs.json.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fpsan::capture::identity::file_sha256;
use fpsan::capture::manifest::{Build, LookVerdict, Manifest, RunStatus, SeriesKind};
use fpsan::capture::{launch::Launch, scenario::Scenario, CaptureRequest};
use fpsan::compare::{CompareFormat, CompareRequest, IndicativeGates};
use fpsan::experiment::{ab, capture_runs, plan::Order, AbRequest, Compile, ExperimentError};
use tracegen::ab_runs::{app_run, RunSpec, AB_APP};

use super::capture::Fake;

/// Traces of one build: `jank` is each frame's chance of being janky.
pub(crate) fn traces(dir: &Path, name: &str, jank: &[f64]) -> Vec<PathBuf> {
    jank.iter()
        .enumerate()
        .map(|(k, &p)| {
            let path = dir.join(format!("{name}-{k}.pftrace"));
            let spec = RunSpec { secs: 4.0, ..RunSpec::new(100 + k as u64, p) };
            std::fs::write(&path, app_run(&spec)).unwrap();
            path
        })
        .collect()
}

/// A fake APK of `AB_APP` whose device records `traces` in turn.
pub(crate) fn apk(dir: &Path, name: &str, version: u32, traces: &[PathBuf]) -> PathBuf {
    let path = dir.join(format!("{name}.apk"));
    let list: Vec<String> = traces.iter().map(|p| p.display().to_string()).collect();
    std::fs::write(
        &path,
        format!("package={AB_APP}\nversionCode={version}\nversionName={version}.0\ntraces={}\n", list.join(" ")),
    )
    .unwrap();
    path
}

pub(crate) fn device(extra: &[(&str, &str)]) -> Fake {
    let activity = format!("{AB_APP}/.MainActivity");
    let mut all = vec![("FAKE_ADB_ACTIVITY", activity.as_str())];
    all.extend_from_slice(extra);
    Fake::with("ok", &all)
}

pub(crate) fn request(fake: &Fake, before: PathBuf, after: PathBuf, runs: usize) -> AbRequest {
    let out = fake.dir.path().join("exp");
    AbRequest {
        capture: CaptureRequest {
            app: AB_APP.to_string(),
            secs: 1,
            out: None,
            serial: None,
            buffer_mb: None,
            analyze: false,
            dry_run: false,
            drive: Some(Scenario::parse("input swipe 500 1500 500 300 100; sleep 0.1").unwrap()),
            launch: Launch::Cold,
            activity: None,
        },
        before_apk: before,
        after_apk: after,
        runs: Some(runs),
        order: Order::Abba,
        seed: 1,
        until_decided: false,
        max_runs: 20,
        out: out.clone(),
        retries: 2,
        cool_down: Duration::from_secs(5),
        compile: Compile::Ignore,
        allow_dirty_device: false,
        compare: CompareRequest {
            before: out.join("before"),
            after: out.join("after"),
            app: Some(AB_APP.to_string()),
            pids: None,
            out: Some(out.clone()),
            format: CompareFormat::Json,
            fail_if: vec!["fps.delta_pct < -5".into()],
            alpha: 0.05,
            min_change_pct: 2.0,
            refresh_hz: None,
            indicative_gates: IndicativeGates::Pass,
            decide_on: fpsan::compare::DecideOn::Frames,
            whole_trace: false,
            color: false,
            sink: fpsan::sink::Sink::quiet(),
        },
    }
}

pub(crate) fn manifest(dir: &Path) -> Manifest {
    Manifest::read(&dir.join("runs.json")).unwrap()
}

pub(crate) fn setting(fake: &Fake, name: &str) -> String {
    std::fs::read_to_string(fake.state.join("settings").join(name)).unwrap_or_default().trim().to_string()
}

fn json(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).unwrap()
}

fn fps_verdict(out: &[u8]) -> String {
    let v = json(out);
    v["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == "fps").unwrap()["verdict"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn abba_runs_with_hygiene_then_compare() {
    let fake = device(&[("FAKE_ADB_SCREEN", "Asleep"), ("FAKE_ADB_LOCKED", "1"), ("FAKE_ADB_THERMAL", "2 1 0")]);
    std::fs::create_dir_all(fake.state.join("settings")).unwrap();
    std::fs::write(fake.state.join("settings/window_animation_scale"), "0.5\n").unwrap();
    let dir = fake.dir.path();
    let before = apk(dir, "before", 41, &traces(dir, "janky", &[0.25, 0.3]));
    let after = apk(dir, "after", 42, &traces(dir, "smooth", &[0.01, 0.02]));
    let req = AbRequest { compile: Compile::Full, ..request(&fake, before.clone(), after.clone(), 4) };
    let done = ab(&req, &fake.env()).unwrap();
    assert_eq!(done.runs_per_side, [4, 4]);
    assert_eq!(fps_verdict(&done.compare.stdout), "better");
    assert!(done.compare.tripped.is_empty());

    let m = manifest(&req.out);
    let sides: Vec<&str> = m.runs.iter().map(|r| r.side.unwrap().name()).collect();
    assert_eq!(sides, ["before", "after", "after", "before", "before", "after", "after", "before"]);
    assert!(m.runs.iter().all(|r| r.ok() && r.attempt == 1));
    let numbers: Vec<usize> = m.runs.iter().map(|r| r.run).collect();
    assert_eq!(numbers, [1, 1, 2, 2, 3, 3, 4, 4]);
    // One install per change of build: B A . B . A . B
    let log = fake.log();
    let installs: Vec<&String> = log.iter().filter(|l| l.contains(" install -r -d ")).collect();
    assert_eq!(installs.len(), 5, "{installs:?}");
    assert_eq!(log.iter().filter(|l| l.contains("cmd package compile -f -m speed ")).count(), 5);
    let (sha_b, sha_a) = (file_sha256(&before).unwrap(), file_sha256(&after).unwrap());
    for r in &m.runs {
        let (sha, code) = if r.side == Some(Build::Before) { (&sha_b, "41") } else { (&sha_a, "42") };
        assert_eq!(r.device.apk_sha256.as_ref(), Some(sha));
        assert_eq!(r.device.version_code.as_deref(), Some(code));
        assert_eq!(r.device.compile_status.as_deref(), Some("speed"));
        assert_eq!((r.device.awake, r.device.locked), (Some(true), Some(false)));
        assert_eq!(r.device.battery_pct, Some(87));
        assert_eq!(r.device.battery_temp_c, Some(31.2));
        assert_eq!(r.launch_state.as_deref(), Some("COLD"));
        assert!(r.fps.is_some());
        assert!(req.out.join(r.trace.as_ref().unwrap()).is_file());
    }
    // The first run waited for the device to cool (status 2, then 1, then 0: two polls of 1 s).
    assert_eq!(m.runs[0].device.thermal_status, Some(0));
    assert!(m.runs[0].device.cooled_down_s >= 1.5, "{}", m.runs[0].device.cooled_down_s);
    assert!(!m.runs[0].device.throttled);
    assert_eq!(m.runs[1].device.cooled_down_s, 0.0);
    assert!(log.iter().any(|l| l.ends_with("shell input keyevent KEYCODE_WAKEUP")));
    assert!(log.iter().any(|l| l.ends_with("shell wm dismiss-keyguard")));
    // Settings put back: the animation scale the user had, the screen timeout.
    assert!(log.iter().any(|l| l.ends_with("shell settings put global window_animation_scale 1")));
    assert_eq!(setting(&fake, "window_animation_scale"), "0.5");
    assert_eq!(setting(&fake, "stay_on_while_plugged_in"), "0");
    assert_eq!(m.settings_changed, ["stay_on_while_plugged_in", "window_animation_scale"]);
    // Each run marked its scenario's window into ftrace's trace_marker: 1 before the first step, 0 after the last.
    let marks = std::fs::read_to_string(fake.state.join("trace_marker")).unwrap();
    let values: Vec<&str> = marks.lines().map(|l| l.rsplit('|').next().unwrap()).collect();
    assert_eq!(values, ["1", "0"].repeat(8));
    assert!(marks.lines().all(|l| l.starts_with("C|") && l.contains("|fpsan.scenario|")), "{marks}");
    fake.assert_device_clean();
    for f in ["compare.html", "compare.json", "before/run-04.pftrace", "after/run-04.pftrace"] {
        assert!(req.out.join(f).is_file(), "{f}");
    }
}

#[test]
fn failed_runs_are_retried_and_recorded() {
    // The app dies during the first run's scenario (driven step 3, after `am force-stop` and `am start`);
    // the second install fails for want of storage;
    // the device drops at the third install and comes back.
    let fake = device(&[
        ("FAKE_ADB_CRASH_ON_STEP", "3"),
        ("FAKE_ADB_INSTALL_FAIL", "2"),
        ("FAKE_ADB_DISCONNECT_ON_INSTALL", "3"),
    ]);
    let dir = fake.dir.path();
    let before = apk(dir, "before", 1, &traces(dir, "a", &[0.05]));
    let after = apk(dir, "after", 2, &traces(dir, "b", &[0.05]));
    let req = request(&fake, before, after, 1);
    let done = ab(&req, &fake.env()).unwrap();
    assert_eq!(done.runs_per_side, [1, 1]);
    let m = manifest(&req.out);
    let summary: Vec<(Build, u32, RunStatus)> = m.runs.iter().map(|r| (r.side.unwrap(), r.attempt, r.status)).collect();
    let expect = [
        (Build::Before, 1, RunStatus::Failed),
        (Build::Before, 2, RunStatus::Ok),
        (Build::After, 1, RunStatus::Failed),
        (Build::After, 2, RunStatus::Failed),
        (Build::After, 3, RunStatus::Ok),
    ];
    assert_eq!(summary, expect);
    let reason = |k: usize| m.runs[k].reason.clone().unwrap();
    assert!(reason(0).contains("died during the scenario"), "{}", reason(0));
    assert_eq!(m.runs[0].trace.as_deref(), Some("failed/before-run-01-attempt-1.pftrace"));
    assert!(req.out.join("failed/before-run-01-attempt-1.pftrace").is_file());
    assert!(reason(2).contains("INSTALL_FAILED_INSUFFICIENT_STORAGE"), "{}", reason(2));
    assert!(reason(3).contains("no devices/emulators found"), "{}", reason(3));
    // compare reads only the kept runs.
    assert_eq!(std::fs::read_dir(req.out.join("before")).unwrap().count(), 1);
}

#[test]
fn a_run_that_always_fails_stops_the_experiment() {
    let fake = device(&[]);
    let dir = fake.dir.path();
    let before = apk(dir, "before", 1, &traces(dir, "a", &[0.05]));
    // Not an APK at all: every install fails.
    let after = dir.join("after.apk");
    std::fs::write(&after, b"PK\x03\x04 not really").unwrap();
    let req = AbRequest { retries: 1, ..request(&fake, before, after, 2) };
    let err = ab(&req, &fake.env()).unwrap_err();
    assert!(matches!(err, ExperimentError::Stopped { .. }), "{err:?}");
    let line = err.to_string();
    assert!(line.starts_with("after run 1 failed 2 times (last: installing "), "{line}");
    assert!(line.contains("INSTALL_PARSE_FAILED_NOT_APK"), "{line}");
    assert!(line.ends_with(&format!("1 before and 0 after runs kept in {}", req.out.display())), "{line}");
    assert!(!line.contains('\n'));
    let m = manifest(&req.out);
    assert_eq!(m.stopped.as_deref(), Some(line.as_str()));
    assert_eq!(m.runs.len(), 3);
    fake.assert_device_clean();
    assert_eq!(setting(&fake, "stay_on_while_plugged_in"), "0");
}

#[test]
fn until_decided_stops_early_on_a_large_change_and_runs_to_the_maximum_on_none() {
    let fake = device(&[]);
    let dir = fake.dir.path();
    let before = apk(dir, "before", 1, &traces(dir, "janky", &[0.25, 0.3, 0.28]));
    let after = apk(dir, "after", 2, &traces(dir, "smooth", &[0.01, 0.02, 0.015]));
    let req = AbRequest { runs: None, until_decided: true, max_runs: 8, ..request(&fake, before, after, 1) };
    let done = ab(&req, &fake.env()).unwrap();
    // First look at 4 a side (2/70 = 0.029 ≤ α(4/8) = 0.031), fully separated: better.
    assert_eq!(done.runs_per_side, [4, 4]);
    let m = manifest(&req.out);
    assert_eq!(m.looks.len(), 1);
    assert_eq!(m.looks[0].verdict, LookVerdict::Better);
    assert!((m.looks[0].alpha - 0.05 * (1.0 + (std::f64::consts::E - 1.0) * 0.5).ln()).abs() < 1e-12);
    assert!((done.alpha - m.looks[0].alpha).abs() < 1e-15);
    assert_eq!(fps_verdict(&done.compare.stdout), "better");

    // The same mixed runs for both builds: never decided, to --max-runs.
    let fake = device(&[]);
    let dir = fake.dir.path();
    let mixed = traces(dir, "mixed", &[0.02, 0.3, 0.1]);
    let before = apk(dir, "before", 1, &mixed);
    let after = apk(dir, "after", 2, &mixed);
    let req = AbRequest { runs: None, until_decided: true, max_runs: 6, ..request(&fake, before, after, 1) };
    let done = ab(&req, &fake.env()).unwrap();
    assert_eq!(done.runs_per_side, [6, 6]);
    let m = manifest(&req.out);
    let looked: Vec<[usize; 2]> = m.looks.iter().map(|l| l.runs_per_side).collect();
    assert_eq!(looked, [[4, 4], [5, 5], [6, 6]]);
    assert!(m.looks.iter().all(|l| l.verdict == LookVerdict::Inconclusive));
    let spent: f64 = m.looks.iter().map(|l| l.alpha).sum();
    assert!((spent - 0.05).abs() < 1e-12, "{spent}");
}

#[test]
fn ctrl_c_keeps_finished_runs_and_restores_the_device() {
    let fake = device(&[]);
    std::fs::create_dir_all(fake.state.join("settings")).unwrap();
    std::fs::write(fake.state.join("settings/animator_duration_scale"), "0\n").unwrap();
    let dir = fake.dir.path();
    let before = apk(dir, "before", 1, &traces(dir, "a", &[0.05]));
    let after = apk(dir, "after", 2, &traces(dir, "b", &[0.05]));
    let out = dir.join("exp");
    let mut child = fpsan_with(&fake)
        .args(["ab", "--app", AB_APP, "--runs", "3", "--secs", "3", "--launch", "none", "--out"])
        .arg(&out)
        .arg("--before")
        .arg(&before)
        .arg("--after")
        .arg(&after)
        .spawn()
        .unwrap();
    // Interrupt during the second run's trace.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(out.join("runs.json")).is_ok_and(|t| t.contains("\"ok\"")) {
        assert!(Instant::now() < deadline, "no run finished");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    let last = stderr.lines().last().unwrap();
    assert_eq!(last, format!("fpsan: interrupted: 1 before and 0 after runs kept in {}", out.display()));
    let m = manifest(&out);
    assert!(m.interrupted);
    let statuses: Vec<RunStatus> = m.runs.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [RunStatus::Ok, RunStatus::Interrupted]);
    assert!(out.join("before/run-01.pftrace").is_file());
    assert_eq!(std::fs::read_dir(out.join("after")).unwrap().count(), 0);
    assert_eq!(setting(&fake, "animator_duration_scale"), "0");
    assert_eq!(setting(&fake, "stay_on_while_plugged_in"), "0");
    fake.assert_device_clean();
}

#[test]
fn capture_runs_make_a_side_and_compare_reads_their_records() {
    let fake = device(&[]);
    let dir = fake.dir.path();
    let build = apk(dir, "only", 7, &traces(dir, "a", &[0.05, 0.08]));
    // Install the one build by hand, as a user would before `capture --runs`.
    let ok = std::process::Command::new(&fake.wrapper).args(["install", "-r"]).arg(&build).output().unwrap();
    assert!(ok.status.success());
    let template = request(&fake, build.clone(), build.clone(), 1).capture;
    let side = |name: &str| {
        let req = CaptureRequest { out: Some(dir.join(name)), ..template.clone() };
        capture_runs(&req, 2, false, &fake.env()).unwrap()
    };
    let first = side("first");
    let second = side("second");
    let m = manifest(&first);
    assert_eq!(m.kind, SeriesKind::Capture);
    assert_eq!(
        m.runs.iter().map(|r| r.trace.clone().unwrap()).collect::<Vec<_>>(),
        ["run-01.pftrace", "run-02.pftrace"]
    );
    assert!(m.runs.iter().all(|r| r.side.is_none() && r.device.version_code.as_deref() == Some("7")));
    // compare: runs.json is not a run; the same APK on both sides is a warning.
    let out = fpsan::compare::run(&CompareRequest {
        before: first,
        after: second,
        out: None,
        fail_if: Vec::new(),
        ..request(&fake, build.clone(), build, 1).compare
    })
    .unwrap();
    let v = json(&out.stdout);
    assert_eq!(v["before"]["runs"].as_array().unwrap().len(), 2);
    let codes: Vec<&str> = v["warnings"].as_array().unwrap().iter().filter_map(|w| w["code"].as_str()).collect();
    assert!(codes.contains(&"device_state_differs"), "{codes:?}");
    assert!(v["warnings"].to_string().contains("the build did not change"));
}

/// A trace that marks the driven scenario's window (1.0 s to 3.0 s after the first vsync) is analysed
/// over the frames that start inside it; `whole_trace` analyses them all.
#[test]
fn analysis_keeps_to_the_marked_scenario_window() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("marked.pftrace");
    let spec = RunSpec { secs: 4.0, scenario_window: Some((1.0, 3.0)), ..RunSpec::new(5, 0.1) };
    std::fs::write(&path, app_run(&spec)).unwrap();
    let whole = fpsan::analysis::Options { whole_trace: true, ..Default::default() };
    let all = fpsan::analysis::analyze(&path, &whole).unwrap();
    // tracegen's runs start at 2000 s; the window is 2001 s to 2003 s.
    let t_start = 2_001_000_000_000;
    let inside = all.frames.rows.iter().filter(|r| (t_start..t_start + 2_000_000_000).contains(&r.ts)).count();
    assert!(inside > 60 && inside < all.frames.rows.len() / 2 + 10, "{inside} of {}", all.frames.rows.len());
    let windowed = fpsan::analysis::analyze(&path, &fpsan::analysis::Options::default()).unwrap();
    assert_eq!(windowed.frames.rows.len(), inside);
    assert!(windowed.frames.rows.iter().all(|r| (t_start..t_start + 2_000_000_000).contains(&r.ts)));
    let note = windowed.warnings.iter().find(|w| w.message.contains("scenario's window")).unwrap();
    assert!(note.message.contains(&format!("{inside} of {} frames", all.frames.rows.len())), "{}", note.message);
    assert_eq!(windowed.apps[0].frames as usize, inside);
    // Every janky frame's explanation still points at its own frame.
    for w in &windowed.frames.why {
        assert!(windowed.frames.rows[w.frame_index].dropped_frames >= 1);
    }
}

// ---------------------------------------------------------------------------
// Phones in the wild: MIUI's developer switches (tests/fake_adb/replies/).

const INSTALL_REFUSED: &str = "the phone refused the install (INSTALL_FAILED_USER_RESTRICTED): turn on Developer options → Install via USB (MIUI/HyperOS; needs a Mi account and a SIM) and allow the install if the phone asks, then run again";
const SETTINGS_REFUSED: &str = "the phone refused to change its settings (WRITE_SECURE_SETTINGS): turn on Developer options → USB debugging (Security settings) (MIUI/HyperOS), or Disable permission monitoring (ColorOS/realme UI), then run again";

fn miui(extra: &[(&str, &str)]) -> Fake {
    let mut all = vec![("FAKE_ADB_PROFILE", "miui-14")];
    all.extend_from_slice(extra);
    device(&all)
}

fn installs(fake: &Fake) -> usize {
    fake.log().iter().filter(|l| l.contains(" install -r -d ")).count()
}

/// Install via USB off: one install attempt, no retry (none can help), the
/// experiment stops with the switch to turn on, exit 1 from the CLI, the
/// settings put back.
#[test]
fn miui_install_refused_stops_ab_after_one_attempt_with_one_line() {
    let fake = miui(&[("FAKE_ADB_MIUI_USB_DEBUG_SECURITY", "1")]);
    let dir = fake.dir.path();
    let before = apk(dir, "before", 1, &traces(dir, "a", &[0.05]));
    let after = apk(dir, "after", 2, &traces(dir, "b", &[0.05]));
    let req = request(&fake, before.clone(), after.clone(), 2);
    let err = ab(&req, &fake.env()).unwrap_err();
    assert!(matches!(err, ExperimentError::Refused { .. }), "{err:?}");
    assert_eq!(err.kind(), fpsan::error::ErrorKind::Input);
    assert_eq!(err.to_string(), INSTALL_REFUSED);
    assert_eq!(installs(&fake), 1);
    let m = manifest(&req.out);
    assert_eq!(m.stopped.as_deref(), Some(INSTALL_REFUSED));
    assert_eq!(m.runs.len(), 1);
    assert_eq!((m.runs[0].status, m.runs[0].reason.as_deref()), (RunStatus::Failed, Some(INSTALL_REFUSED)));
    assert_eq!(setting(&fake, "stay_on_while_plugged_in"), "0");
    fake.assert_device_clean();

    // The command line: exit 1, the line alone on stderr.
    let fake = miui(&[("FAKE_ADB_MIUI_USB_DEBUG_SECURITY", "1")]);
    let out = dir.join("cli");
    let run = fpsan_with(&fake)
        .args(["ab", "--app", AB_APP, "--runs", "2", "--secs", "1", "--out"])
        .arg(&out)
        .arg("--before")
        .arg(&before)
        .arg("--after")
        .arg(&after)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(String::from_utf8(run.stderr).unwrap(), format!("fpsan: {INSTALL_REFUSED}\n"));
    assert_eq!(installs(&fake), 1);
}

/// USB debugging (Security settings) off: the animation scale the user had
/// cannot be put at 1. `ab` records it, says so and does not start;
/// `--allow-dirty-device` runs with it. The stay-awake it could set is put
/// back on both paths.
#[test]
fn miui_settings_refused_are_recorded_and_need_allow_dirty_device() {
    let seeded = |fake: &Fake| {
        std::fs::create_dir_all(fake.state.join("settings")).unwrap();
        std::fs::write(fake.state.join("settings/window_animation_scale"), "0.5\n").unwrap();
    };
    let fake = miui(&[("FAKE_ADB_MIUI_INSTALL_VIA_USB", "1")]);
    seeded(&fake);
    let dir = fake.dir.path();
    let before = apk(dir, "before", 1, &traces(dir, "a", &[0.05]));
    let after = apk(dir, "after", 2, &traces(dir, "b", &[0.05]));
    // No `input` step: the same switch refuses it (the test above).
    let mut req = request(&fake, before.clone(), after.clone(), 1);
    req.capture.drive = Some(Scenario::parse("sleep 0.1").unwrap());
    let err = ab(&req, &fake.env()).unwrap_err();
    let line = format!("{SETTINGS_REFUSED} (or pass --allow-dirty-device to run with window_animation_scale at 0.5)");
    assert!(matches!(err, ExperimentError::DirtyDevice { .. }), "{err:?}");
    assert_eq!(err.kind(), fpsan::error::ErrorKind::Input);
    assert_eq!(err.to_string(), line);
    let m = manifest(&req.out);
    assert_eq!(m.stopped.as_deref(), Some(line.as_str()));
    assert!(m.runs.is_empty());
    assert_eq!(m.settings_changed, ["stay_on_while_plugged_in"]);
    let not_set = serde_json::to_value(&m.settings_not_set).unwrap();
    assert_eq!(
        not_set,
        serde_json::json!([{"name": "window_animation_scale", "value": "0.5", "reason": SETTINGS_REFUSED}])
    );
    assert_eq!(installs(&fake), 0);
    let log = fake.log();
    assert!(log.iter().any(|l| l.ends_with("shell svc power stayon false")), "{log:?}");
    assert_eq!(setting(&fake, "stay_on_while_plugged_in"), "0");
    assert_eq!(setting(&fake, "window_animation_scale"), "0.5");

    let fake = miui(&[("FAKE_ADB_MIUI_INSTALL_VIA_USB", "1")]);
    seeded(&fake);
    req.out = fake.dir.path().join("exp");
    req.compare.before = req.out.join("before");
    req.compare.after = req.out.join("after");
    req.compare.out = Some(req.out.clone());
    let done = ab(&AbRequest { allow_dirty_device: true, ..req.clone() }, &fake.env()).unwrap();
    assert_eq!(done.runs_per_side, [1, 1]);
    let m = manifest(&req.out);
    assert!(m.stopped.is_none() && m.runs.iter().all(|r| r.ok()));
    assert_eq!(serde_json::to_value(&m.settings_not_set).unwrap(), not_set);
    assert_eq!(setting(&fake, "stay_on_while_plugged_in"), "0");
    assert_eq!(setting(&fake, "window_animation_scale"), "0.5");
    fake.assert_device_clean();
}

/// The scenario's `input` refused on the first run: no trace enters the
/// comparison, no retry, the experiment stops with the switch to turn on.
#[test]
fn miui_refused_scenario_stops_ab_without_a_trace() {
    let fake = miui(&[("FAKE_ADB_MIUI_INSTALL_VIA_USB", "1")]);
    let dir = fake.dir.path();
    let before = apk(dir, "before", 1, &traces(dir, "a", &[0.05]));
    let after = apk(dir, "after", 2, &traces(dir, "b", &[0.05]));
    let req = request(&fake, before, after, 2);
    let err = ab(&req, &fake.env()).unwrap_err();
    let line = "scenario step 1 (`input swipe 500 1500 500 300 100`): the phone refused the simulated touches (INJECT_EVENTS): turn on Developer options → USB debugging (Security settings) (MIUI/HyperOS; reboot the phone if it still refuses), then run again";
    assert_eq!(err.to_string(), line);
    let m = manifest(&req.out);
    assert_eq!(m.runs.len(), 1);
    assert_eq!((m.runs[0].status, m.runs[0].trace.as_deref()), (RunStatus::Failed, None));
    assert_eq!(fake.log().iter().filter(|l| l.contains("perfetto --background")).count(), 1);
    for side in ["before", "after"] {
        assert_eq!(std::fs::read_dir(req.out.join(side)).unwrap().count(), 0, "{side}");
    }
    assert!(!req.out.join("failed").exists());
    // Stay-awake was set (with svc, which MIUI lets through) and is put back.
    assert!(fake.log().iter().any(|l| l.ends_with("shell svc power stayon false")), "{:?}", fake.log());
    assert_eq!(setting(&fake, "stay_on_while_plugged_in"), "0");
    fake.assert_device_clean();
}

/// Both switches on, MIUI runs the experiment as AOSP does.
#[test]
fn miui_with_its_switches_on_runs_like_aosp() {
    let fake = miui(&[("FAKE_ADB_MIUI_INSTALL_VIA_USB", "1"), ("FAKE_ADB_MIUI_USB_DEBUG_SECURITY", "1")]);
    let dir = fake.dir.path();
    let before = apk(dir, "before", 1, &traces(dir, "a", &[0.05]));
    let after = apk(dir, "after", 2, &traces(dir, "b", &[0.05]));
    let req = request(&fake, before, after, 1);
    let done = ab(&req, &fake.env()).unwrap();
    assert_eq!(done.runs_per_side, [1, 1]);
    let m = manifest(&req.out);
    assert!(m.runs.iter().all(|r| r.ok() && r.attempt == 1) && m.settings_not_set.is_empty());
    assert_eq!(installs(&fake), 2);
    fake.assert_device_clean();
}

// ---------------------------------------------------------------------------
// Ctrl-C on every path: the settings (stay-awake, scales) and the tracing
// service put back, nothing left on the device.

/// fpsan's binary talking to the fake device, its output captured.
fn fpsan_with(fake: &Fake) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_fpsan"));
    cmd.env("ADB", &fake.wrapper).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    cmd
}

/// Wait until `pred` holds on the fake's adb log, then send SIGINT to `child`;
/// its exit status and stderr.
fn interrupt_when(
    fake: &Fake,
    mut child: std::process::Child,
    pred: impl Fn(&[String]) -> bool,
) -> (Option<i32>, String) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !pred(&fake.log()) {
        assert!(Instant::now() < deadline, "never reached: {:?}", fake.log());
        std::thread::sleep(Duration::from_millis(50));
    }
    let sent = Instant::now();
    std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let status = child.wait().unwrap();
    assert!(sent.elapsed() < Duration::from_secs(15), "took {:?} to stop", sent.elapsed());
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    (status.code(), stderr)
}

/// Ctrl-C while `ab` waits for a throttling phone to cool down (before any
/// trace): exit 130, no run kept, the scale and stay-awake put back.
#[test]
fn ctrl_c_during_the_cool_down_restores_the_settings() {
    let fake = device(&[("FAKE_ADB_PROFILE", "aosp-10"), ("FAKE_ADB_THERMAL", "3")]);
    std::fs::create_dir_all(fake.state.join("settings")).unwrap();
    std::fs::write(fake.state.join("settings/transition_animation_scale"), "0.5\n").unwrap();
    let dir = fake.dir.path();
    let before = apk(dir, "before", 1, &traces(dir, "a", &[0.05]));
    let after = apk(dir, "after", 2, &traces(dir, "b", &[0.05]));
    let out = dir.join("exp");
    let child = fpsan_with(&fake)
        .args(["ab", "--app", AB_APP, "--runs", "2", "--secs", "1", "--cool-down", "300", "--out"])
        .arg(&out)
        .arg("--before")
        .arg(&before)
        .arg("--after")
        .arg(&after)
        .spawn()
        .unwrap();
    let (code, stderr) = interrupt_when(&fake, child, |log| log.iter().any(|l| l.ends_with("dumpsys thermalservice")));
    assert_eq!(code, Some(130), "{stderr}");
    let last = format!("fpsan: interrupted: 0 before and 0 after runs kept in {}", out.display());
    assert_eq!(stderr.lines().last(), Some(last.as_str()), "{stderr}");
    let m = manifest(&out);
    assert!(m.interrupted);
    assert_eq!(m.runs.iter().map(|r| r.status).collect::<Vec<_>>(), [RunStatus::Interrupted]);
    assert_eq!(m.runs[0].device.thermal_status, Some(3));
    assert!(!fake.log().iter().any(|l| l.contains("perfetto --background")), "{:?}", fake.log());
    assert_eq!(setting(&fake, "transition_animation_scale"), "0.5");
    assert_eq!(setting(&fake, "stay_on_while_plugged_in"), "0");
    assert_eq!(fake.prop("persist.traced.enable"), "0");
    fake.assert_device_clean();
}

/// Ctrl-C in the middle of a trace of `capture --runs` on Android 9: the
/// run is interrupted, perfetto stopped and its file deleted, the tracing
/// service switched back off, the settings put back.
#[test]
fn ctrl_c_during_capture_runs_on_android_9_restores_everything() {
    let fake = device(&[("FAKE_ADB_PROFILE", "aosp-9")]);
    std::fs::create_dir_all(fake.state.join("settings")).unwrap();
    std::fs::write(fake.state.join("settings/window_animation_scale"), "0\n").unwrap();
    let dir = fake.dir.path();
    let build = apk(dir, "only", 7, &traces(dir, "a", &[0.05]));
    let ok = std::process::Command::new(&fake.wrapper).args(["install", "-r"]).arg(&build).output().unwrap();
    assert!(ok.status.success());
    let out = dir.join("series");
    let child = fpsan_with(&fake)
        .args(["capture", "--app", AB_APP, "--runs", "3", "--secs", "5", "--out"])
        .arg(&out)
        .spawn()
        .unwrap();
    let (code, stderr) = interrupt_when(&fake, child, |log| log.iter().any(|l| l.contains("perfetto --background")));
    assert_eq!(code, Some(130), "{stderr}");
    let m = manifest(&out);
    assert!(m.interrupted);
    assert_eq!(m.runs.iter().map(|r| r.status).collect::<Vec<_>>(), [RunStatus::Interrupted]);
    let log = fake.log();
    assert_eq!(log.iter().filter(|l| l.ends_with("shell setprop persist.traced.enable 1")).count(), 1, "{log:?}");
    // After the capture's own cleanup, the series puts the settings back, last changed first.
    let tail: Vec<&str> = log[log.len() - 3..].iter().map(|l| l.trim_start_matches("-s FAKE0001 shell ")).collect();
    assert_eq!(
        tail,
        ["setprop persist.traced.enable 0", "settings put global window_animation_scale 0", "svc power stayon false"]
    );
    assert_eq!(fake.prop("persist.traced.enable"), "0");
    assert_eq!(setting(&fake, "window_animation_scale"), "0");
    assert_eq!(setting(&fake, "stay_on_while_plugged_in"), "0");
    fake.assert_device_clean();
}

/// Cold starts of `AB_APP` whose bindApplication lasts `bind_ms` each: TTID
/// 400 + bind ms (`tracegen::startups::cold_start`).
fn cold_starts(dir: &Path, name: &str, bind_ms: &[i64]) -> Vec<PathBuf> {
    bind_ms
        .iter()
        .enumerate()
        .map(|(k, &bind)| {
            let path = dir.join(format!("{name}-{k}.pftrace"));
            let trace = tracegen::startups::cold_start(AB_APP, bind).build(&tracegen::BuildOptions::default());
            std::fs::write(&path, trace).unwrap();
            path
        })
        .collect()
}

#[test]
fn a_cold_launch_without_a_scenario_decides_on_ttid() {
    let fake = device(&[]);
    let dir = fake.dir.path();
    // TTIDs 700–720 ms before, 800–820 after: the after build starts ~14 % slower.
    let before = apk(dir, "before", 1, &cold_starts(dir, "fast", &[300, 310, 320]));
    let after = apk(dir, "after", 2, &cold_starts(dir, "slow", &[400, 410, 420]));
    let base = request(&fake, before, after, 1);
    let capture = CaptureRequest { drive: None, ..base.capture.clone() };
    let decide_on = fpsan::experiment::default_decision(capture.launch, capture.drive.is_some());
    assert_eq!(decide_on, fpsan::compare::DecideOn::Startup);
    let compare = CompareRequest { decide_on, ..base.compare.clone() };
    let req = AbRequest { runs: None, until_decided: true, max_runs: 8, capture, compare, ..base };
    let done = ab(&req, &fake.env()).unwrap();
    // The looks decide on TTID: fully separated at the first look (4 a side), worse.
    assert_eq!(done.runs_per_side, [4, 4]);
    let m = manifest(&req.out);
    assert_eq!(m.looks.len(), 1);
    assert_eq!((m.looks[0].metric.as_str(), m.looks[0].verdict), ("startup_ttid", LookVerdict::Worse));
    let ttids: Vec<Option<f64>> = m.runs.iter().map(|r| r.ttid_ms).collect();
    // ABBA from the before build: each build's traces in turn.
    assert_eq!(ttids, [700.0, 800.0, 810.0, 710.0, 720.0, 820.0, 800.0, 700.0].map(Some));
    let v = json(&done.compare.stdout);
    assert_eq!(v["overall"], "slower start");
    assert_eq!(v["settings"]["decide_on"], "startup");
    let ttid = v["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == "startup_ttid").unwrap();
    assert_eq!((ttid["family"].as_str(), ttid["verdict"].as_str()), (Some("headline"), Some("worse")));
    assert_eq!((ttid["before"].as_f64(), ttid["after"].as_f64()), (Some(705.0), Some(805.0)));
    // The breakdown says which part grew: bindApplication, 100 ms a run; the rest did not change.
    let part = |name: &str| v["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == name).unwrap().clone();
    let bind = part("startup_bind_application");
    assert_eq!((bind["family"].as_str(), bind["verdict"].as_str()), (Some("exploratory"), Some("worse")));
    assert_eq!((bind["before"].as_f64(), bind["after"].as_f64()), (Some(305.0), Some(405.0)));
    for same in ["startup_activity_start", "startup_activity_resume", "startup_first_do_frame"] {
        assert_eq!(part(same)["delta"].as_f64(), Some(0.0), "{same}");
    }
}
