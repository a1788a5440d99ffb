//! The phone profiles of the fake adb (tests/fake_adb/adb, FAKE_ADB_PROFILE;
//! the replies they play are in tests/fake_adb/replies/) against the main
//! paths: `capture`, `capture --launch cold --drive`, `capture --runs 2`
//! (through the CLI, for the lines it prints once), `ab` with device hygiene
//! (2+2 runs) and a capture that fails (perfetto refuses to start). For every
//! profile, each path is checked for the exact facts the profile implies:
//! the SDK level, the tracing service switched on and back off (Android
//! 9/10), where the thermal state came from, how the installed APK was
//! identified, the settings put back, and nothing left on the device (no
//! perfetto running, no trace file) on any path. 1-s traces keep the matrix
//! short.

use std::path::Path;

use fpsan::capture::identity::file_sha256;
use fpsan::capture::identity::IdentityMethod;
use fpsan::capture::manifest::{Manifest, RunStatus};
use fpsan::capture::thermal::ThermalSource;
use fpsan::capture::{self, launch::Launch, CaptureRequest, CaptureWarning, CaptureWarningCode};
use fpsan::experiment::{ab, AbRequest};
use tracegen::ab_runs::AB_APP;

use super::ab::{apk, device, manifest, request, setting, traces};
use super::capture::Fake;

/// One profile, and what each path must show on it.
struct Case {
    name: &'static str,
    env: &'static [(&'static str, &'static str)],
    sdk: u32,
    /// Android 9/10: `persist.traced.enable` switched on for each capture and back to 0.
    switches_traced: bool,
    thermal: ThermalSource,
    /// With a status: 0 (the fake's default); with zones: the hottest.
    zone: Option<(&'static str, f64)>,
    identity: (IdentityMethod, &'static str),
    /// The lines `capture --runs 2` prints once (besides its usual ones).
    told: &'static [&'static str],
}

const THERMAL_ZONES_LINE: &str = "fpsan: warning: FAKE0001 gives no thermal status (`dumpsys thermalservice`, Android 9): the hottest /sys/class/thermal zone is recorded instead, and runs are not cooled down";
const THERMAL_UNKNOWN_LINE: &str = "fpsan: warning: the thermal state of FAKE0001 is unknown (no thermal status, /sys/class/thermal unreadable): recorded as unknown, and runs are not cooled down";
const MD5_LINE: &str = "fpsan: warning: FAKE0001 has no sha256sum: the installed APK is identified by its MD5 (`md5sum`), weaker than SHA-256";
const SIZE_LINE: &str = "fpsan: warning: FAKE0001 has no hash tool (sha256sum, md5sum): the installed APK is identified only by its size (`ls -l`), lastUpdateTime and versionCode; two builds of one size cannot be told apart";

const CASES: [Case; 5] = [
    Case {
        name: "aosp-14",
        env: &[],
        sdk: 34,
        switches_traced: false,
        thermal: ThermalSource::Thermalservice,
        zone: None,
        identity: (IdentityMethod::Sha256, "sha256sum"),
        told: &[],
    },
    Case {
        name: "aosp-9",
        env: &[("FAKE_ADB_PROFILE", "aosp-9")],
        sdk: 28,
        switches_traced: true,
        thermal: ThermalSource::ThermalZones,
        zone: Some(("thermal_zone1 (cpu-1-0)", 41.5)),
        identity: (IdentityMethod::Sha256, "sha256sum"),
        told: &[THERMAL_ZONES_LINE],
    },
    // toybox built without libcrypto (0.7.2 to 0.8.5) has md5sum but no sha256sum.
    Case {
        name: "aosp-10 without sha256sum",
        env: &[("FAKE_ADB_PROFILE", "aosp-10"), ("FAKE_ADB_MISSING", "sha256sum")],
        sdk: 29,
        switches_traced: true,
        thermal: ThermalSource::Thermalservice,
        zone: None,
        identity: (IdentityMethod::Md5, "md5sum"),
        told: &[MD5_LINE],
    },
    Case {
        name: "aosp-9 without hash tools, stat or readable zones",
        env: &[
            ("FAKE_ADB_PROFILE", "aosp-9"),
            ("FAKE_ADB_MISSING", "sha256sum md5sum stat"),
            ("FAKE_ADB_THERMAL_ZONES", "unreadable"),
        ],
        sdk: 28,
        switches_traced: true,
        thermal: ThermalSource::Unknown,
        zone: None,
        identity: (IdentityMethod::SizeAndVersion, "ls -l"),
        told: &[THERMAL_UNKNOWN_LINE, SIZE_LINE],
    },
    Case {
        name: "miui-14 with its switches on",
        env: &[
            ("FAKE_ADB_PROFILE", "miui-14"),
            ("FAKE_ADB_MIUI_INSTALL_VIA_USB", "1"),
            ("FAKE_ADB_MIUI_USB_DEBUG_SECURITY", "1"),
        ],
        sdk: 34,
        switches_traced: false,
        thermal: ThermalSource::Thermalservice,
        zone: None,
        identity: (IdentityMethod::Sha256, "sha256sum"),
        told: &[],
    },
];

fn fake(case: &Case, extra: &[(&str, &str)]) -> Fake {
    let mut env = case.env.to_vec();
    env.extend_from_slice(extra);
    device(&env)
}

/// Install `apk` by hand, as a user does before `capture`.
fn install(fake: &Fake, apk: &Path) {
    let ok = std::process::Command::new(&fake.wrapper).args(["install", "-r"]).arg(apk).output().unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
}

/// The tracing service as the profile left it, with the switches made.
fn assert_traced_restored(case: &Case, fake: &Fake, captures: usize) {
    let log = fake.log();
    let on = log.iter().filter(|l| l.ends_with("shell setprop persist.traced.enable 1")).count();
    let off = log.iter().filter(|l| l.ends_with("shell setprop persist.traced.enable 0")).count();
    let want = if case.switches_traced { captures } else { 0 };
    assert_eq!((on, off), (want, want), "{}: {log:?}", case.name);
    if case.switches_traced {
        assert_eq!(fake.prop("persist.traced.enable"), "0", "{}", case.name);
        assert_eq!(fake.prop("init.svc.traced"), "stopped", "{}", case.name);
    } else {
        assert_eq!(fake.prop("persist.traced.enable"), "1", "{}", case.name);
    }
}

/// A run's recorded device state, against the profile and the APK it ran.
fn assert_device_state(case: &Case, run: &fpsan::capture::manifest::RunRecord, apk: &Path) {
    let d = &run.device;
    let what = format!("{} run {:?} {}", case.name, run.side, run.run);
    assert_eq!(d.thermal_source, Some(case.thermal), "{what}");
    let status = (case.thermal == ThermalSource::Thermalservice).then_some(0);
    assert_eq!(d.thermal_status, status, "{what}");
    assert_eq!(d.thermal_zone.as_deref(), case.zone.map(|z| z.0), "{what}");
    assert_eq!(d.thermal_zone_c, case.zone.map(|z| z.1), "{what}");
    let id = d.apk_identity.as_ref().unwrap_or_else(|| panic!("{what}: no identity"));
    assert_eq!((id.method, id.tool.as_str()), case.identity, "{what}");
    assert_eq!(id.weaker, case.identity.0 != IdentityMethod::Sha256, "{what}");
    let bytes = std::fs::read(apk).unwrap();
    match case.identity.0 {
        IdentityMethod::Sha256 => {
            assert_eq!(d.apk_sha256.as_deref(), Some(file_sha256(apk).unwrap().as_str()), "{what}");
            assert_eq!((&id.md5, id.size_bytes), (&None, None), "{what}");
        }
        IdentityMethod::Md5 => {
            // The local MD5 by an independent path: the host's md5sum.
            let host = std::process::Command::new("md5sum").arg(apk).output().unwrap();
            let want = String::from_utf8(host.stdout).unwrap().split_whitespace().next().unwrap().to_string();
            assert_eq!((d.apk_sha256.as_deref(), id.md5.as_deref()), (None, Some(want.as_str())), "{what}");
        }
        IdentityMethod::SizeAndVersion => {
            assert_eq!((d.apk_sha256.as_deref(), id.size_bytes), (None, Some(bytes.len() as u64)), "{what}");
            let t = id.last_update_time.clone().unwrap_or_default();
            assert!(
                t.len() == 19 && t.as_bytes()[4] == b'-' && t.as_bytes()[10] == b' ' && t.as_bytes()[13] == b':',
                "{what}: lastUpdateTime {t:?}"
            );
            assert!(d.version_code.is_some(), "{what}");
        }
    }
}

fn run_case(case: &Case) {
    // capture: one trace, the tracing service switched and put back.
    let f = fake(case, &[]);
    let dir = f.dir.path();
    let build = apk(dir, "only", 7, &traces(dir, "a", &[0.05, 0.08]));
    install(&f, &build);
    let template = request(&f, build.clone(), build.clone(), 1).capture;
    let plain =
        CaptureRequest { drive: None, launch: Launch::None, out: Some(dir.join("one.pftrace")), ..template.clone() };
    let outcome = capture::run_with(&plain, &f.env()).unwrap().unwrap();
    assert_eq!(outcome.sdk, case.sdk, "{}", case.name);
    assert!(dir.join("one.pftrace").is_file());
    assert_traced_restored(case, &f, 1);
    f.assert_device_clean();

    // capture --launch cold --drive: the launch reported, the step driven.
    let driven = CaptureRequest { out: Some(dir.join("driven.pftrace")), ..template.clone() };
    let outcome = capture::run_with(&driven, &f.env()).unwrap().unwrap();
    assert_eq!(outcome.launched.and_then(|l| l.state).as_deref(), Some("COLD"), "{}", case.name);
    // The fake's shell is not root (a real phone's is not either).
    let not_root = "cold launch: the page cache was not dropped (adb is not root): the app's files may still be cached";
    assert_eq!(outcome.warnings, [CaptureWarning::new(CaptureWarningCode::PageCacheKept, not_root)], "{}", case.name);
    let steps = std::fs::read_to_string(f.state.join("driven")).unwrap();
    assert_eq!(steps.lines().filter(|l| l.contains(" input swipe 500 1500 500 300 100")).count(), 1, "{steps}");
    assert_traced_restored(case, &f, 2);
    f.assert_device_clean();

    // capture --runs 2 from the CLI: the record, and each weaker source said once.
    let out = dir.join("series");
    let run = super::util::fpsan()
        .env("ADB", &f.wrapper)
        .args(["capture", "--app", AB_APP, "--runs", "2", "--secs", "1", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert_eq!(run.status.code(), Some(0), "{}: {stderr}", case.name);
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("fpsan: warning:")).collect();
    assert_eq!(warnings, case.told, "{}", case.name);
    let m: Manifest = manifest(&out);
    assert_eq!(m.runs.len(), 2, "{}", case.name);
    for r in &m.runs {
        assert_eq!(r.status, RunStatus::Ok, "{}: {:?}", case.name, r.reason);
        assert_device_state(case, r, &build);
    }
    assert_eq!(m.settings_changed, ["stay_on_while_plugged_in"], "{}", case.name);
    assert_eq!(setting(&f, "stay_on_while_plugged_in"), "0", "{}", case.name);
    assert_traced_restored(case, &f, 4);
    f.assert_device_clean();

    // A capture that fails (perfetto refuses to start): nothing left, the service put back.
    let failing = fake(case, &[("FAKE_ADB_PERFETTO_START_FAIL", "1")]);
    install(&failing, &build);
    let args = CaptureRequest { out: Some(failing.dir.path().join("x.pftrace")), ..plain.clone() };
    let err = capture::run_with(&args, &failing.env()).unwrap_err();
    assert!(err.to_string().contains("Permission denied"), "{}: {err}", case.name);
    assert_traced_restored(case, &failing, 1);
    failing.assert_device_clean();

    // ab, 2+2 runs with hygiene: each run's identity checked against its build.
    let f = fake(case, &[]);
    std::fs::create_dir_all(f.state.join("settings")).unwrap();
    std::fs::write(f.state.join("settings/window_animation_scale"), "0.5\n").unwrap();
    let dir = f.dir.path();
    let before = apk(dir, "before", 1, &traces(dir, "b", &[0.05]));
    let after = apk(dir, "after", 2, &traces(dir, "c", &[0.05]));
    let req: AbRequest = request(&f, before.clone(), after.clone(), 2);
    let done = ab(&req, &f.env()).unwrap_or_else(|e| panic!("{}: {e}", case.name));
    assert_eq!(done.runs_per_side, [2, 2], "{}", case.name);
    let m = manifest(&req.out);
    assert_eq!(m.runs.len(), 4, "{}", case.name);
    for r in &m.runs {
        assert_eq!((r.status, r.attempt), (RunStatus::Ok, 1), "{}: {:?}", case.name, r.reason);
        let built = if r.side == Some(fpsan::capture::manifest::Build::Before) { &before } else { &after };
        assert_device_state(case, r, built);
        let by_size: Vec<&CaptureWarning> = r
            .warnings
            .iter()
            .filter(|w| {
                w.code == CaptureWarningCode::ApkCheckedBySize && w.message.contains("checked only by its size")
            })
            .collect();
        let want = usize::from(case.identity.0 == IdentityMethod::SizeAndVersion);
        assert_eq!(by_size.len(), want, "{}: {:?}", case.name, r.warnings);
    }
    let b = &m.builds[0];
    assert_eq!(b.size_bytes, Some(std::fs::metadata(&before).unwrap().len()));
    assert_eq!(m.settings_changed, ["stay_on_while_plugged_in", "window_animation_scale"], "{}", case.name);
    assert_eq!(setting(&f, "window_animation_scale"), "0.5", "{}", case.name);
    assert_eq!(setting(&f, "stay_on_while_plugged_in"), "0", "{}", case.name);
    assert_traced_restored(case, &f, 4);
    f.assert_device_clean();
}

#[test]
fn profile_aosp_14() {
    run_case(&CASES[0]);
}

#[test]
fn profile_aosp_9() {
    run_case(&CASES[1]);
}

#[test]
fn profile_aosp_10_without_sha256sum() {
    run_case(&CASES[2]);
}

#[test]
fn profile_aosp_9_without_hash_tools_or_zones() {
    run_case(&CASES[3]);
}

#[test]
fn profile_miui_14_switches_on() {
    run_case(&CASES[4]);
}

/// The wrong build on the device is caught by each identity, never passed
/// by a weaker one as if it were a hash: the installed APK is swapped for
/// the other build's before the identity is read.
#[test]
fn a_wrong_build_fails_the_run_by_md5_and_by_size() {
    for (env, want) in [
        (&[("FAKE_ADB_MISSING", "sha256sum")][..], "device MD5 "),
        (&[("FAKE_ADB_MISSING", "sha256sum md5sum")][..], "device base.apk is "),
    ] {
        let f = device(env);
        let dir = f.dir.path();
        let before = apk(dir, "before", 1, &traces(dir, "b", &[0.05]));
        // versionCode 22 and versionName 22.0: two bytes longer, so that size tells them apart too.
        let after = apk(dir, "after", 22, &traces(dir, "c", &[0.05]));
        let mut req = request(&f, before.clone(), after, 1);
        req.retries = 0;
        // Make the fake install `before` whatever it is given.
        let wrapper = std::fs::read_to_string(&f.wrapper).unwrap();
        let pin = format!(
            "case \" $* \" in *\" install \"*) set -- -s FAKE0001 install -r -d '{}' ;; esac\nexec '",
            before.display()
        );
        let pinned = wrapper.replace("exec '", &pin);
        std::fs::write(&f.wrapper, pinned).unwrap();
        let err = ab(&req, &f.env()).unwrap_err().to_string();
        assert!(
            err.starts_with("after run 1 failed 1 times (last: the installed APK is not the after build ("),
            "{err}"
        );
        assert!(err.contains(want), "{err}");
        f.assert_device_clean();
    }
}
