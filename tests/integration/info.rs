//! `fpsan info` through the built binary: the fixed JSON keys, process
//! ordering and counts, the text form, `--format json` and its old spelling
//! `--json`, and one-line errors.

use std::path::PathBuf;

use crate::util::{fpsan, shared, testdata};

fn frames_trace() -> Option<PathBuf> {
    shared("conformance/Frames__android_frames/trace.pftrace")
}

#[test]
fn json_keys_and_processes() {
    let Some(t) = frames_trace() else { return };
    let out = fpsan().arg("info").arg(&t).arg("--json").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    for k in [
        "packets",
        "span_ns",
        "frame_timeline_events",
        "processes",
        "warnings",
        "file_size",
        "data_sources",
        "data_loss",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    assert!(v["packets"].as_u64().unwrap() > 0);
    assert!(v["frame_timeline_events"].as_u64().unwrap() > 0);
    assert_eq!(v["file_size"].as_u64().unwrap(), std::fs::metadata(&t).unwrap().len());
    let procs = v["processes"].as_array().unwrap();
    for p in procs {
        for k in ["pid", "name", "do_frame_count", "draw_frame_count"] {
            assert!(p.get(k).is_some(), "process missing {k}");
        }
    }
    assert_eq!(procs[0]["name"], "com.android.systemui");
    assert_eq!(procs[0]["do_frame_count"], 15);
    assert!(procs[0]["draw_frame_count"].as_u64().unwrap() >= 15);
    // Sorted by do_frame_count desc, then pid.
    let keys: Vec<(i64, i64)> =
        procs.iter().map(|p| (-p["do_frame_count"].as_i64().unwrap(), p["pid"].as_i64().unwrap())).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn text_form() {
    let Some(t) = frames_trace() else { return };
    let out = fpsan().arg("info").arg(&t).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("com.android.systemui") && s.contains("doFrame"), "{s}");
}

#[test]
fn bad_input_is_exit_1_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.bin");
    std::fs::write(&junk, [0xffu8; 64]).unwrap();
    for path in [dir.path().join("missing.pftrace"), dir.path().to_path_buf(), junk] {
        let out = fpsan().arg("info").arg(&path).arg("--json").output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", path.display());
        assert!(out.stdout.is_empty());
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(e.lines().filter(|l| !l.trim().is_empty()).count(), 1, "{e}");
        assert!(!e.contains("panicked") && !e.contains("internal error"), "{e}");
    }
}

#[test]
fn usage_errors_are_exit_2() {
    assert_eq!(fpsan().arg("info").output().unwrap().status.code(), Some(2));
    assert_eq!(fpsan().args(["info", "x", "--yaml"]).output().unwrap().status.code(), Some(2));
}

/// JSON is `--format json`, as in every other command; `--json`, the old
/// spelling, prints the same document and is no longer advertised.
#[test]
fn format_json_and_the_old_json_flag() {
    let demo = testdata("demo.pftrace");
    let run = |args: &[&str]| {
        let out = fpsan().arg("info").arg(&demo).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    let json = run(&["--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&json).expect("one JSON document");
    assert_eq!(v["file_size"].as_u64(), Some(std::fs::metadata(&demo).unwrap().len()));
    assert_eq!(v["processes"][0]["name"], "com.example.scroll");
    assert_eq!(v["processes"][0]["do_frame_count"], 300);
    assert_eq!(run(&["--json"]), json);
    let text = run(&[]);
    assert_eq!(run(&["--format", "table"]), text);
    assert!(text.starts_with(b"file "), "{}", String::from_utf8_lossy(&text));
    let both = fpsan().arg("info").arg(&demo).args(["--json", "--format", "table"]).output().unwrap();
    assert_eq!(both.status.code(), Some(2));
    let help = fpsan().args(["info", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(help.contains("--format <FORMAT>") && help.contains("[possible values: table, json]"), "{help}");
    assert!(!help.contains("--json"), "{help}");
}

/// Patches the tracing service discarded are information, as trace_processor
/// grades `traced_patches_discarded`, not data loss: the FrameTimeline-only
/// Pixel 7 Pro capture (419 572 of them, nothing lost) says "data loss none"
/// in `info` and no "data loss" line in `analyze`.
#[test]
fn discarded_patches_are_not_data_loss() {
    let Some(path) = shared("traces/real-pixel7pro-android13-nowinandroid-frametimeline-only.pftrace") else {
        return;
    };
    let out = fpsan().arg("info").arg(&path).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().any(|l| l == "data loss     none"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("patches       419572 discarded")), "{text}");
    let out = fpsan().arg("analyze").arg(&path).output().unwrap();
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(!table.contains("data loss"), "{table}");
}
