//! The exit status contract (README, "Exit status") through the binary:
//! usage 2, unusable input and files that cannot be read or written 1, a
//! tripped gate 3; each error is one line on stderr, never a panic.

use std::path::PathBuf;

use tracegen::ab_runs::{app_run, RunSpec, AB_APP};

use crate::util::{fpsan, testdata};

/// The command's exit status and stderr.
fn run(cmd: &mut assert_cmd::Command) -> (Option<i32>, String) {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    for bug in ["panicked", "backtrace", "internal error"] {
        assert!(!stderr.contains(bug), "{stderr}");
    }
    (out.status.code(), stderr)
}

/// The one line an error of fpsan's is.
fn only_line(stderr: &str) -> &str {
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "stderr should be one line: {stderr:?}");
    lines[0]
}

/// clap's errors are one `error:` line followed by its usage and help hints.
fn clap_error_line(stderr: &str) -> &str {
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr:?}");
    errors[0]
}

fn demo() -> PathBuf {
    testdata("demo.pftrace")
}

#[test]
fn bad_flag_values_are_usage_errors() {
    let (code, stderr) = run(fpsan().arg("analyze").arg(demo()).arg("--refresh-hz=-1"));
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        clap_error_line(&stderr),
        "error: invalid value '-1' for '--refresh-hz <F>': expected a positive number, got `-1`"
    );

    let (code, stderr) = run(fpsan().arg("query").arg(demo()));
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(clap_error_line(&stderr), "error: the following required arguments were not provided:");
    assert!(stderr.contains("<SQL|--file <FILE>>"), "{stderr}");
}

#[test]
fn sql_that_does_not_run_is_a_usage_error() {
    let (code, stderr) = run(fpsan().arg("query").arg(demo()).arg("SELECT nope FROM nowhere"));
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        only_line(&stderr),
        "fpsan: SQL error: relation 'nowhere' was not found; the tables are slice, counter, thread, process, \
         frame_timeline, track, thread_track, process_track, counter_track, process_counter_track, \
         thread_counter_track, actual_frame_timeline_slice, expected_frame_timeline_slice, sched, thread_state, \
         frames, presents, flutter_frames, main_thread_blocks, apps, scenes, startups, input_events (and those of INCLUDE PERFETTO MODULE \
         android.frames.timeline: android_frames_choreographer_do_frame, android_frames_draw_frame, \
         android_frames_layers, android_frames; INCLUDE PERFETTO MODULE android.startup.startups: \
         android_startups; INCLUDE PERFETTO MODULE android.startup.time_to_display: \
         android_startup_time_to_display; INCLUDE PERFETTO MODULE android.input: android_input_events)"
    );
}

#[test]
fn a_bad_keys_template_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, stderr) =
        run(fpsan().arg("batch").arg(demo()).arg("--out").arg(tmp.path().join("lake")).args(["--keys", "{a}{b}"]));
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(only_line(&stderr), r#"fpsan: --keys "{a}{b}": each path component holds at most one {name}"#);
    assert!(!tmp.path().join("lake").exists());
}

#[test]
fn a_bad_scenario_is_a_usage_error() {
    let (code, stderr) =
        run(fpsan().args(["capture", "--app", "com.example.app", "--dry-run", "--drive", "input tap 1 2; swip 1 2"]));
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        only_line(&stderr),
        "fpsan: scenario step 2: `swip 1 2`: unknown step \"swip\" (steps: input, am, uiautomator, cmd, wm, sleep, wait-idle)"
    );
}

#[test]
fn unusable_input_is_exit_1() {
    let tmp = tempfile::tempdir().unwrap();
    let notes = tmp.path().join("notes.txt");
    std::fs::write(&notes, "milk\neggs\n").unwrap();
    let (code, stderr) = run(fpsan().arg("analyze").arg(&notes));
    assert_eq!(code, Some(1), "{stderr}");
    let expected = format!(
        "fpsan: {} is not a Perfetto trace (it is a text file, not a Perfetto protobuf or systrace); give a Perfetto \
         trace (.pftrace, .perfetto-trace) or a systrace capture (.html, .txt, .ctrace), e.g. one recorded with \
         `fpsan capture --app PKG`",
        notes.display()
    );
    assert_eq!(only_line(&stderr), expected);

    let (code, stderr) = run(fpsan().arg("analyze").arg(demo()).args(["--app", "nosuch"]));
    assert_eq!(code, Some(1), "{stderr}");
    let expected = format!(
        "fpsan: no frames or presents for app nosuch in {}; the apps it has: com.example.scroll (pid 4242, 300 \
         frames, 300 presents); pass one of their names to --app, or a pid to --pid",
        demo().display()
    );
    assert_eq!(only_line(&stderr), expected);
}

#[test]
fn an_output_that_cannot_be_written_is_exit_1() {
    let (code, stderr) = run(fpsan().arg("analyze").arg(demo()).args(["--out", "/proc/forbidden"]));
    assert_eq!(code, Some(1), "{stderr}");
    let line = only_line(&stderr);
    assert!(line.starts_with("fpsan: cannot create output directory /proc/forbidden: "), "{line}");

    // Not a usage error: the lake's folder cannot be made.
    let (code, stderr) = run(fpsan().arg("batch").arg(demo()).args(["--out", "/proc/x"]));
    assert_eq!(code, Some(1), "{stderr}");
    let line = only_line(&stderr);
    assert!(line.starts_with("fpsan: cannot create /proc/x: "), "{line}");
}

#[test]
fn a_tripped_gate_is_exit_3() {
    let tmp = tempfile::tempdir().unwrap();
    let side = |name: &str, seed: u64| {
        let path = tmp.path().join(name);
        std::fs::write(&path, app_run(&RunSpec::new(seed, 0.02))).unwrap();
        path
    };
    let (before, after) = (side("before.pftrace", 1), side("after.pftrace", 2));
    // One run a side is indicative: `--indicative-gates fail` trips every rule.
    let (code, stderr) = run(fpsan().arg("compare").arg(&before).arg(&after).args([
        "--app",
        AB_APP,
        "--fail-if",
        "fps.delta_pct > 5",
        "--indicative-gates",
        "fail",
    ]));
    assert_eq!(code, Some(3), "{stderr}");
    let line = only_line(&stderr);
    assert!(line.starts_with("fpsan: gate tripped: fps.delta_pct > 5") && line.ends_with("failing closed"), "{line}");
}

#[test]
fn open_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let trace = crate::open::two_frames(dir.path(), "t.pftrace");
    let (code, stderr) = run(fpsan().arg("open").arg(&trace).args(["--port", "0", "--frame", "2"]));
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        only_line(&stderr),
        "fpsan: --frame 2: the trace has 2 frames, frame_index 0 to 1 (the first column of `fpsan analyze --format csv`)"
    );

    let missing = dir.path().join("absent.pftrace");
    let (code, stderr) = run(fpsan().arg("open").arg(&missing).args(["--port", "0"]));
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        only_line(&stderr),
        format!("fpsan: cannot read {}: No such file or directory (os error 2); check the path", missing.display())
    );

    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let (code, stderr) = run(fpsan().arg("open").arg(&trace).args(["--port", &port.to_string()]));
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        only_line(&stderr),
        format!(
            "fpsan: port {port} on 127.0.0.1 is in use (another `fpsan open`, or trace_processor_shell --httpd?); \
             stop it, or pass another --port (0: a free one)"
        )
    );

    // A trace without frames has no frame N.
    let mut b = tracegen::TraceBuilder::new();
    b.process(100, "com.app").thread(100, 100, "com.app");
    b.slice(1_000_000, 1_000_000, 100, 100, "work");
    let empty = dir.path().join("no-frames.pftrace");
    std::fs::write(&empty, b.build(&tracegen::BuildOptions::default())).unwrap();
    let (code, stderr) = run(fpsan().arg("open").arg(&empty).args(["--port", "0", "--frame", "0"]));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(only_line(&stderr).starts_with(&format!("fpsan: no frames in {}: ", empty.display())), "{stderr}");
}
