//! `fpsan capture` against a fake adb (tests/fake_adb/adb, see its header):
//! the exact adb invocations of each scenario, the error line of each
//! failure, cleanup of the device on every path (interrupt included), the
//! TraceConfig (the `--dry-run` text, checked against Perfetto's official
//! schema), the countdown's silence on a pipe, and the real Debian `adb`
//! with no device attached.
//!
//! The fixtures tests/fake_adb/ok.pftrace and tiny.pftrace are written by
//! [`ok_fixture`] / [`tiny_fixture`] with the official protos
//! (`FPSAN_WRITE_FIXTURES=1 cargo test --release capture::fixtures` rewrites
//! them; the test fails if the committed files differ from the encoders).
//!
//! The pulled trace is checked with fpsan's own reader, as in production.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fpsan::capture::{
    self, CaptureEnv, CaptureError, CaptureOutcome, CaptureRequest, CaptureWarning, CaptureWarningCode,
};
use fpsan::sink::Sink;

use protobuf::Message as _;

const APP: &str = "com.example.app";
const STAMP: &str = "20261123-101500";
const REMOTE: &str = "/data/misc/perfetto-traces/fpsan-com.example.app-20261123-101500.pftrace";

fn fake_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fake_adb")
}

// ---------------------------------------------------------------------------
// Fixtures: a tiny valid trace with the app, and an "almost empty" one.

const T0: u64 = 1_000_000_000_000;
const APP_PID: i32 = 4321;
const RENDER_TID: i32 = 4340;

fn print_event(ts: u64, tid: i32, buf: &str) -> perfetto_protos::ftrace_event::FtraceEvent {
    let mut e = perfetto_protos::ftrace_event::FtraceEvent::new();
    e.set_timestamp(ts);
    e.set_pid(tid as u32);
    let mut p = perfetto_protos::ftrace::PrintFtraceEvent::new();
    p.ip = Some(0xffff_ffc0_0812_3456);
    p.buf = Some(buf.to_string());
    e.set_print(p);
    e
}

fn switch_event(ts: u64, prev: (&str, i32), next: (&str, i32)) -> perfetto_protos::ftrace_event::FtraceEvent {
    let mut e = perfetto_protos::ftrace_event::FtraceEvent::new();
    e.set_timestamp(ts);
    e.set_pid(prev.1 as u32);
    let mut s = perfetto_protos::sched::SchedSwitchFtraceEvent::new();
    s.prev_comm = Some(prev.0.into());
    s.prev_pid = Some(prev.1);
    s.prev_prio = Some(120);
    s.prev_state = Some(1);
    s.next_comm = Some(next.0.into());
    s.next_pid = Some(next.1);
    s.next_prio = Some(110);
    e.set_sched_switch(s);
    e
}

/// A process tree with the app (and one of its `:service` processes), then
/// two ftrace bundles: 12 frames of `Choreographer#doFrame` + `DrawFrame`
/// atrace slices as `print` events, with the sched_switch events around them.
pub fn ok_fixture() -> Vec<u8> {
    use perfetto_protos::process_tree::{process_tree, ProcessTree};
    let mut trace = perfetto_protos::trace::Trace::new();

    let mut tree = ProcessTree::new();
    for (pid, ppid, cmdline) in [
        (1, 0, "/system/bin/init"),
        (612, 1, "/system/bin/surfaceflinger"),
        (1021, 700, "system_server"),
        (APP_PID, 700, APP),
        (4388, 700, "com.example.app:sync"),
    ] {
        let mut p = process_tree::Process::new();
        p.pid = Some(pid);
        p.ppid = Some(ppid);
        p.cmdline.push(cmdline.to_string());
        tree.processes.push(p);
    }
    for (tid, tgid, name) in [(APP_PID, APP_PID, "example.app"), (RENDER_TID, APP_PID, "RenderThread")] {
        let mut t = process_tree::Thread::new();
        t.tid = Some(tid);
        t.tgid = Some(tgid);
        t.name = Some(name.to_string());
        tree.threads.push(t);
    }
    let mut packet = perfetto_protos::trace_packet::TracePacket::new();
    packet.set_timestamp(T0);
    packet.set_trusted_packet_sequence_id(1);
    packet.set_process_tree(tree);
    trace.packet.push(packet);

    // 60 Hz frames, 6 per bundle (one bundle per CPU like traced_probes).
    for (cpu, frames) in [(0u32, 0..6u64), (1, 6..12)] {
        let mut bundle = perfetto_protos::ftrace_event_bundle::FtraceEventBundle::new();
        bundle.cpu = Some(cpu);
        for i in frames {
            let t = T0 + 1_000_000 + i * 16_666_667;
            bundle.event.push(switch_event(t, ("swapper/0", 0), ("example.app", APP_PID)));
            bundle.event.push(print_event(
                t + 10_000,
                APP_PID,
                &format!("B|{APP_PID}|Choreographer#doFrame {}\n", 1000 + i),
            ));
            bundle.event.push(print_event(t + 4_000_000, APP_PID, &format!("E|{APP_PID}\n")));
            bundle.event.push(print_event(t + 4_100_000, RENDER_TID, &format!("B|{APP_PID}|DrawFrame {}\n", 1000 + i)));
            bundle.event.push(print_event(t + 7_000_000, RENDER_TID, &format!("E|{APP_PID}\n")));
            bundle.event.push(switch_event(t + 7_100_000, ("RenderThread", RENDER_TID), ("swapper/0", 0)));
        }
        let mut packet = perfetto_protos::trace_packet::TracePacket::new();
        packet.set_trusted_packet_sequence_id(2);
        packet.set_ftrace_events(bundle);
        trace.packet.push(packet);
    }
    trace.write_to_bytes().expect("encode ok fixture")
}

/// What a session whose data sources never started leaves: the service's
/// own packets (trace config, clock snapshot), no ftrace, no processes.
pub fn tiny_fixture() -> Vec<u8> {
    let mut trace = perfetto_protos::trace::Trace::new();
    let mut config = perfetto_protos::trace_config::TraceConfig::new();
    config.duration_ms = Some(1000);
    let mut packet = perfetto_protos::trace_packet::TracePacket::new();
    packet.set_trusted_packet_sequence_id(1);
    packet.set_trace_config(config);
    trace.packet.push(packet);

    let mut snapshot = perfetto_protos::clock_snapshot::ClockSnapshot::new();
    for (id, ts) in [(6u32, T0), (3, T0 - 5_000_000)] {
        let mut c = perfetto_protos::clock_snapshot::clock_snapshot::Clock::new();
        c.clock_id = Some(id);
        c.timestamp = Some(ts);
        snapshot.clocks.push(c);
    }
    let mut packet = perfetto_protos::trace_packet::TracePacket::new();
    packet.set_timestamp(T0);
    packet.set_trusted_packet_sequence_id(1);
    packet.set_clock_snapshot(snapshot);
    trace.packet.push(packet);
    trace.write_to_bytes().expect("encode tiny fixture")
}

#[test]
fn fixtures_match_their_encoders() {
    for (name, bytes) in [("ok.pftrace", ok_fixture()), ("tiny.pftrace", tiny_fixture())] {
        let path = fake_dir().join(name);
        if std::env::var_os("FPSAN_WRITE_FIXTURES").is_some() {
            std::fs::write(&path, &bytes).unwrap();
        }
        let on_disk = std::fs::read(&path).unwrap_or_default();
        assert!(on_disk == bytes, "{name} differs from its encoder: rerun with FPSAN_WRITE_FIXTURES=1");
    }
    let ok = ok_fixture().len();
    assert!((2_000..8_000).contains(&ok), "ok.pftrace should be a few KB, is {ok} bytes");
}

// ---------------------------------------------------------------------------
// Decoding the pulled trace.

/// The loader `fpsan capture` itself uses: the reader and importer.
pub(crate) fn loader() -> capture::Loader {
    fpsan::analysis::trace_facts
}

#[test]
fn fixtures_pass_and_fail_the_check_as_intended() {
    let ok = capture::check::check_with(&fake_dir().join("ok.pftrace"), APP, loader()).unwrap();
    assert_eq!(ok.app_pids, vec![APP_PID, 4388]);
    assert_eq!(ok.packets, 3);
    assert_eq!(ok.size_bytes, ok_fixture().len() as u64);
    // From the process tree at T0 to the last sched_switch of frame 11.
    assert_eq!(ok.span_ns, (1_000_000 + 11 * 16_666_667 + 7_100_000) as i64);
    let tiny = capture::check::check_with(&fake_dir().join("tiny.pftrace"), APP, loader()).unwrap_err();
    assert!(matches!(tiny, capture::check::CheckFailure::Empty { packets: 2, .. }), "{tiny:?}");
}

// ---------------------------------------------------------------------------
// The fake device.

pub(crate) struct Fake {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) state: PathBuf,
    log: PathBuf,
    pub(crate) wrapper: PathBuf,
}

impl Fake {
    fn new(scenario: &str) -> Fake {
        Fake::with(scenario, &[])
    }

    /// A wrapper script that sets the fake's environment and execs it, so
    /// that tests running side by side do not share process env.
    pub(crate) fn with(scenario: &str, extra: &[(&str, &str)]) -> Fake {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        std::fs::create_dir(&state).unwrap();
        let log = dir.path().join("adb.log");
        let wrapper = dir.path().join("adb");
        let mut script = format!(
            "#!/bin/sh\nexport FAKE_ADB_SCENARIO='{scenario}' FAKE_ADB_STATE='{}' FAKE_ADB_LOG='{}'\n",
            state.display(),
            log.display()
        );
        for (k, v) in extra {
            script.push_str(&format!("export {k}='{v}'\n"));
        }
        script.push_str(&format!("exec '{}' \"$@\"\n", fake_dir().join("adb").display()));
        std::fs::write(&wrapper, script).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Fake { dir, state, log, wrapper }
    }

    pub(crate) fn env(&self) -> CaptureEnv {
        let mut env = CaptureEnv::detached(self.wrapper.clone(), STAMP, loader());
        env.poll = Duration::from_millis(100);
        env
    }

    pub(crate) fn out(&self) -> PathBuf {
        self.dir.path().join("out.pftrace")
    }

    pub(crate) fn args(&self, secs: u32) -> CaptureRequest {
        CaptureRequest {
            app: APP.to_string(),
            secs,
            out: Some(self.out()),
            serial: None,
            buffer_mb: None,
            analyze: false,
            dry_run: false,
            drive: None,
            launch: Default::default(),
            activity: None,
        }
    }

    fn run(&self, args: &CaptureRequest) -> Result<Option<CaptureOutcome>, CaptureError> {
        capture::run_with(args, &self.env())
    }

    /// The adb invocations, with consecutive polls collapsed into one
    /// and the perfetto pid and output path replaced by `PID` / `OUT`.
    pub(crate) fn log(&self) -> Vec<String> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let pid = self.pid().map(|p| p.to_string());
        let out = self.out().display().to_string();
        let mut lines: Vec<String> = Vec::new();
        for line in text.lines() {
            let mut l = line.replace(&out, "OUT");
            if let Some(pid) = &pid {
                l = l.replace(&format!("/proc/{pid} "), "/proc/PID ").replace(&format!(" {pid}"), " PID");
            }
            let repeat_poll = l.contains(" shell test -d /proc/") && lines.last() == Some(&l);
            if !repeat_poll {
                lines.push(l);
            }
        }
        lines
    }

    fn events(&self) -> String {
        std::fs::read_to_string(self.state.join("events")).unwrap_or_default()
    }

    fn pid(&self) -> Option<u32> {
        self.events().lines().find_map(|l| l.strip_prefix("perfetto ")?.strip_suffix(" started")?.parse().ok())
    }

    pub(crate) fn prop(&self, name: &str) -> String {
        std::fs::read_to_string(self.state.join("props").join(name)).unwrap_or_default().trim().to_string()
    }

    /// Nothing left on the device: no trace file, no perfetto running.
    pub(crate) fn assert_device_clean(&self) {
        let traces = self.state.join("device/data/misc/perfetto-traces");
        let left: Vec<_> =
            std::fs::read_dir(&traces).map(|d| d.flatten().map(|e| e.file_name()).collect()).unwrap_or_default();
        assert!(left.is_empty(), "files left on the device: {left:?}");
        let running: Vec<_> = std::fs::read_dir(self.state.join("proc"))
            .map(|d| d.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert!(running.is_empty(), "perfetto still running: {running:?}");
        if let Some(pid) = self.pid() {
            assert!(self.events().contains(&format!("perfetto {pid} exited")), "{}", self.events());
        }
    }

    fn assert_no_local_leftovers(&self) {
        let part = format!("{}.part", self.out().display());
        assert!(!Path::new(&part).exists(), "partial file left: {part}");
    }
}

fn sh(cmd: &str) -> String {
    format!("-s FAKE0001 shell {cmd}")
}

fn start_cmd() -> String {
    sh(&format!("perfetto --background -c - -o {REMOTE}"))
}

fn poll_cmd() -> String {
    sh("test -d /proc/PID && echo RUN || echo TERM")
}

fn pull_cmd() -> String {
    format!("-s FAKE0001 pull {REMOTE} OUT.part")
}

fn rm_cmd() -> String {
    sh(&format!("rm -f {REMOTE}"))
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

// ---------------------------------------------------------------------------
// Scenarios.

#[test]
fn ok_capture_runs_the_expected_commands() {
    let fake = Fake::new("ok");
    let outcome = fake.run(&fake.args(1)).unwrap().unwrap();
    let expected = [
        "devices".to_string(),
        sh("getprop ro.build.version.sdk"),
        sh("pm path com.example.app"),
        start_cmd(),
        poll_cmd(),
        pull_cmd(),
        rm_cmd(),
    ];
    assert_eq!(strs(&fake.log()), strs(&expected));
    assert_eq!(outcome.path, fake.out());
    assert_eq!(outcome.serial, "FAKE0001");
    assert_eq!(outcome.sdk, 34);
    assert!(!outcome.interrupted);
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    assert_eq!(outcome.trace.app_pids, vec![APP_PID, 4388]);
    assert_eq!(std::fs::read(fake.out()).unwrap(), ok_fixture());
    // perfetto got exactly the config fpsan built.
    let sent = std::fs::read(fake.state.join("config.bin")).unwrap();
    assert_eq!(sent, capture::config::encode(&capture::config::build(APP, 1, None)));
    assert!(!fake.events().contains("pulled while perfetto was running"));
    fake.assert_device_clean();
    fake.assert_no_local_leftovers();
}

#[test]
fn slow_exit_is_waited_for_before_pulling() {
    let fake = Fake::new("slow_exit");
    let t = Instant::now();
    let outcome = fake.run(&fake.args(1)).unwrap().unwrap();
    assert!(t.elapsed() >= Duration::from_secs(4), "returned after {:?}", t.elapsed());
    assert!(!fake.events().contains("pulled while perfetto was running"), "{}", fake.events());
    assert_eq!(
        strs(&fake.log()),
        strs(&[
            "devices".to_string(),
            sh("getprop ro.build.version.sdk"),
            sh("pm path com.example.app"),
            start_cmd(),
            poll_cmd(),
            pull_cmd(),
            rm_cmd(),
        ])
    );
    assert_eq!(outcome.trace.packets, 3);
    fake.assert_device_clean();
}

#[test]
fn android9_enables_traced_and_restores_it() {
    let fake = Fake::new("android9");
    let outcome = fake.run(&fake.args(1)).unwrap().unwrap();
    assert_eq!(outcome.sdk, 28);
    assert_eq!(
        strs(&fake.log()),
        strs(&[
            "devices".to_string(),
            sh("getprop ro.build.version.sdk"),
            sh("pm path com.example.app"),
            sh("getprop persist.traced.enable"),
            sh("setprop persist.traced.enable 1"),
            sh("getprop init.svc.traced"),
            start_cmd(),
            poll_cmd(),
            pull_cmd(),
            rm_cmd(),
            sh("setprop persist.traced.enable 0"),
        ])
    );
    assert_eq!(fake.prop("persist.traced.enable"), "0");
    assert_eq!(fake.prop("init.svc.traced"), "stopped");
    fake.assert_device_clean();
}

#[test]
fn android10_with_traced_on_changes_no_property() {
    let fake = Fake::with("android9", &[("FAKE_ADB_SDK", "29")]);
    // The device already has the daemons on.
    let props = fake.state.join("props");
    std::fs::create_dir_all(&props).unwrap();
    std::fs::write(props.join("ro.build.version.sdk"), "29\n").unwrap();
    std::fs::write(props.join("persist.traced.enable"), "1\n").unwrap();
    std::fs::write(props.join("init.svc.traced"), "running\n").unwrap();
    std::fs::write(fake.state.join("logcat"), "").unwrap();
    std::fs::write(props.join(".init"), "").unwrap();
    let outcome = fake.run(&fake.args(1)).unwrap().unwrap();
    assert_eq!(outcome.sdk, 29);
    let log = fake.log();
    assert_eq!(log[3], sh("getprop persist.traced.enable"));
    assert_eq!(log[4], start_cmd());
    assert!(!log.iter().any(|l| l.contains("setprop")), "{log:?}");
    assert_eq!(fake.prop("persist.traced.enable"), "1");
    fake.assert_device_clean();
}

#[test]
fn android8_is_explained() {
    let fake = Fake::new("android8");
    let err = fake.run(&fake.args(1)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the device runs Android SDK 26, which has no perfetto (it ships with Android 9, SDK 28): use a device with Android 9 or newer"
    );
    assert_eq!(strs(&fake.log()), strs(&["devices".to_string(), sh("getprop ro.build.version.sdk")]));
}

#[test]
fn missing_app_is_explained() {
    let fake = Fake::new("app_missing");
    let err = fake.run(&fake.args(1)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "package com.example.app is not installed on FAKE0001: check the name with `adb -s FAKE0001 shell pm list packages com.example.app`"
    );
    assert_eq!(
        strs(&fake.log()),
        strs(&["devices".to_string(), sh("getprop ro.build.version.sdk"), sh("pm path com.example.app")])
    );
}

#[test]
fn device_problems_are_one_line_with_the_fix() {
    let cases = [
        ("no_device", "no Android device found: connect one over USB with USB debugging on (Settings > Developer options) or use `adb connect HOST:PORT`, then check `adb devices`"),
        ("unauthorized", "device FAKE0001 is unauthorized: unlock it and accept the \"Allow USB debugging?\" prompt (no prompt? Developer options > Revoke USB debugging authorizations, then replug)"),
        ("offline", "device FAKE0001 is offline: replug the USB cable or run `adb reconnect offline`, then check `adb devices`"),
        ("two_devices", "several devices are connected (FAKE0001 (device), emulator-5554 (device)): choose one with --serial SERIAL or ANDROID_SERIAL=SERIAL"),
    ];
    for (scenario, message) in cases {
        let fake = Fake::new(scenario);
        let err = fake.run(&fake.args(1)).unwrap_err();
        assert_eq!(err.to_string(), message, "{scenario}");
        assert_eq!(fake.log(), vec!["devices"], "{scenario}");
    }
}

#[test]
fn serial_picks_one_of_two_devices() {
    let fake = Fake::new("two_devices");
    let mut args = fake.args(1);
    args.serial = Some("emulator-5554".into());
    let outcome = fake.run(&args).unwrap().unwrap();
    assert_eq!(outcome.serial, "emulator-5554");
    let log = fake.log();
    assert_eq!(log[0], "devices");
    assert!(log[1..].iter().all(|l| l.starts_with("-s emulator-5554 ")), "{log:?}");
    fake.assert_device_clean();

    // ANDROID_SERIAL does the same; --serial wins over it.
    let fake = Fake::new("two_devices");
    let mut env = fake.env();
    env.android_serial = Some("FAKE0001".into());
    let outcome = capture::run_with(&fake.args(1), &env).unwrap().unwrap();
    assert_eq!(outcome.serial, "FAKE0001");

    let fake = Fake::new("two_devices");
    let mut args = fake.args(1);
    args.serial = Some("nope".into());
    let mut env = fake.env();
    env.android_serial = Some("FAKE0001".into());
    let err = capture::run_with(&args, &env).unwrap_err();
    assert_eq!(
        err.to_string(),
        "device nope (from --serial) is not connected; adb sees: FAKE0001 (device), emulator-5554 (device); check the serial with `adb devices`"
    );
}

#[test]
fn tiny_trace_error_carries_perfettos_reason() {
    let fake = Fake::new("tiny_trace");
    let err = fake.run(&fake.args(1)).unwrap_err();
    let size = tiny_fixture().len();
    assert_eq!(
        err.to_string(),
        format!(
            "the trace {} is almost empty ({size} bytes, 2 packets, no ftrace data): perfetto recorded nothing; \
             perfetto says: Failed to enable ftrace: /sys/kernel/tracing/tracing_on is not writable (SELinux denial)",
            fake.out().display()
        )
    );
    assert_eq!(
        strs(&fake.log()),
        strs(&[
            "devices".to_string(),
            sh("getprop ro.build.version.sdk"),
            sh("pm path com.example.app"),
            start_cmd(),
            poll_cmd(),
            pull_cmd(),
            rm_cmd(),
            "-s FAKE0001 logcat -d -s perfetto".to_string(),
        ])
    );
    fake.assert_device_clean();
}

#[test]
fn disconnect_during_pull_says_where_the_trace_is() {
    let fake = Fake::new("disconnect_during_pull");
    let err = fake.run(&fake.args(1)).unwrap_err();
    let out = fake.out().display().to_string();
    assert_eq!(
        err.to_string(),
        format!(
            "could not pull the trace from FAKE0001: adb: error: failed to copy '{REMOTE}' to '{out}.part': no response: Connection reset by peer; \
             the trace is still on the device: once it is back, run `adb -s FAKE0001 pull {REMOTE} {out}` and `adb -s FAKE0001 shell rm -f {REMOTE}`"
        )
    );
    // Tried twice, then tried to clean up (the device is gone).
    assert_eq!(
        strs(&fake.log()[3..]),
        strs(&[start_cmd(), poll_cmd(), pull_cmd(), rm_cmd()])
            .into_iter()
            .flat_map(|c| if c == pull_cmd() { vec![c, c] } else { vec![c] })
            .collect::<Vec<_>>()
    );
    fake.assert_no_local_leftovers();
    assert!(!fake.out().exists());
    // perfetto itself had finished.
    assert!(fake.events().contains("exited"), "{}", fake.events());
}

#[test]
fn disconnect_during_pull_recovers_when_the_device_returns() {
    let fake = Fake::with("disconnect_during_pull", &[("FAKE_ADB_RECONNECT", "1")]);
    let outcome = fake.run(&fake.args(1)).unwrap().unwrap();
    assert_eq!(std::fs::read(&outcome.path).unwrap(), ok_fixture());
    assert_eq!(strs(&fake.log()[3..]), strs(&[start_cmd(), poll_cmd(), pull_cmd(), pull_cmd(), rm_cmd()]));
    fake.assert_device_clean();
    fake.assert_no_local_leftovers();
}

/// A device whose tracing daemons are down (Android 11+ where someone set
/// persist.traced.enable=0): perfetto starts, cannot reach traced, exits at
/// once and leaves a 0-byte file. This is the classic silent failure.
#[test]
fn traced_down_is_explained_not_silent() {
    let fake = Fake::new("ok");
    let props = fake.state.join("props");
    std::fs::create_dir_all(&props).unwrap();
    std::fs::write(props.join("ro.build.version.sdk"), "33\n").unwrap();
    std::fs::write(props.join("persist.traced.enable"), "0\n").unwrap();
    std::fs::write(props.join("init.svc.traced"), "stopped\n").unwrap();
    std::fs::write(fake.state.join("logcat"), "").unwrap();
    std::fs::write(props.join(".init"), "").unwrap();
    let err = fake.run(&fake.args(1)).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "the trace {} is almost empty (0 bytes, 0 packets, no ftrace data): perfetto recorded nothing; \
             perfetto says: Failed to connect to the traced service, is it running?",
            fake.out().display()
        )
    );
    assert_eq!(
        strs(&fake.log()[3..]),
        strs(&[start_cmd(), poll_cmd(), pull_cmd(), rm_cmd(), "-s FAKE0001 logcat -d -s perfetto".to_string()])
    );
    fake.assert_device_clean();
}

#[test]
fn perfetto_start_failure_is_explained_and_cleaned_up() {
    let fake = Fake::with("ok", &[("FAKE_ADB_PERFETTO_START_FAIL", "1")]);
    let err = fake.run(&fake.args(1)).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "perfetto did not start on FAKE0001: [perfetto_cmd.cc:702] Could not open {REMOTE}: Permission denied; \
             perfetto says: Failed to open {REMOTE}: Permission denied"
        )
    );
    assert_eq!(strs(&fake.log()[3..]), strs(&[start_cmd(), "-s FAKE0001 logcat -d -s perfetto".to_string(), rm_cmd()]));
    fake.assert_device_clean();
}

/// Waits until the fake perfetto has started.
fn wait_started(fake: &Fake) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(pid) = fake.pid() {
            return pid;
        }
        assert!(Instant::now() < deadline, "perfetto never started: {:?}", fake.log());
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn interrupt_stops_perfetto_and_keeps_the_trace() {
    let fake = Fake::new("ok");
    let env = fake.env();
    let stop: Arc<AtomicBool> = env.stop.clone();
    let args = fake.args(30);
    let t = Instant::now();
    let outcome = std::thread::scope(|s| {
        let run = s.spawn(|| capture::run_with(&args, &env));
        wait_started(&fake);
        std::thread::sleep(Duration::from_millis(300));
        // What the Ctrl-C handler does.
        capture::request_stop(&stop);
        run.join().unwrap()
    })
    .unwrap()
    .unwrap();
    assert!(t.elapsed() < Duration::from_secs(15), "took {:?}", t.elapsed());
    assert!(outcome.interrupted);
    assert_eq!(
        strs(&fake.log()),
        strs(&[
            "devices".to_string(),
            sh("getprop ro.build.version.sdk"),
            sh("pm path com.example.app"),
            start_cmd(),
            poll_cmd(),
            sh("kill -TERM PID"),
            poll_cmd(),
            pull_cmd(),
            rm_cmd(),
        ])
    );
    let pid = fake.pid().unwrap();
    assert!(fake.events().contains(&format!("perfetto {pid} exited (SIGTERM)")), "{}", fake.events());
    assert_eq!(std::fs::read(&outcome.path).unwrap(), ok_fixture());
    fake.assert_device_clean();
}

#[test]
fn interrupt_before_tracing_restores_the_device() {
    let fake = Fake::new("android9");
    let env = fake.env();
    capture::request_stop(&env.stop);
    let err = capture::run_with(&fake.args(1), &env).unwrap_err();
    assert_eq!(err.to_string(), "capture cancelled (Ctrl-C) before tracing started; nothing was changed on the device");
    assert_eq!(
        strs(&fake.log()[3..]),
        strs(&[
            sh("getprop persist.traced.enable"),
            sh("setprop persist.traced.enable 1"),
            sh("getprop init.svc.traced"),
            sh("setprop persist.traced.enable 0"),
        ])
    );
    assert_eq!(fake.prop("persist.traced.enable"), "0");
    assert!(fake.pid().is_none());
}

#[test]
fn missing_adb_says_how_to_install_it() {
    let fake = Fake::new("ok");
    let mut env = fake.env();
    env.adb = Some(PathBuf::from("/nonexistent/platform-tools/adb"));
    let err = capture::run_with(&fake.args(1), &env).unwrap_err();
    assert_eq!(
        err.to_string(),
        "adb not found (/nonexistent/platform-tools/adb): install it (Debian/Ubuntu: `sudo apt install adb`; other systems: \
         Android SDK platform-tools from https://developer.android.com/tools/releases/platform-tools) or set ADB=/path/to/adb"
    );
}

#[test]
fn output_directory_must_exist_before_tracing() {
    let fake = Fake::new("ok");
    let mut args = fake.args(1);
    let out = fake.dir.path().join("no/such/dir/t.pftrace");
    args.out = Some(out.clone());
    let err = fake.run(&args).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cannot write the trace to {}: directory {} does not exist: choose another -o FILE",
            out.display(),
            out.parent().unwrap().display()
        )
    );
    assert!(fake.log().is_empty(), "adb was run: {:?}", fake.log());
}

#[test]
fn bad_package_names_never_reach_the_device_shell() {
    let fake = Fake::new("ok");
    let mut args = fake.args(1);
    args.app = "com.example.app; reboot".into();
    let err = fake.run(&args).unwrap_err();
    assert!(matches!(err, CaptureError::BadPackage { .. }), "{err}");
    assert!(fake.log().is_empty());
}

// ---------------------------------------------------------------------------
// The config.

const DRY_RUN_30S: &str = r#"# fpsan capture --dry-run: nothing was run on a device.
# This TraceConfig is sent binary-encoded (346 bytes) on stdin to:
#   adb -s SERIAL shell perfetto --background -c - -o /data/misc/perfetto-traces/fpsan-com.example.app-<time>.pftrace
buffers {
  size_kb: 153600
  fill_policy: RING_BUFFER
}
buffers {
  size_kb: 4096
  fill_policy: DISCARD
}
data_sources {
  config {
    name: "linux.ftrace"
    target_buffer: 0
    ftrace_config {
      ftrace_events: "sched/sched_switch"
      ftrace_events: "sched/sched_waking"
      ftrace_events: "task/task_newtask"
      ftrace_events: "task/task_rename"
      atrace_categories: "gfx"
      atrace_categories: "view"
      atrace_categories: "input"
      atrace_categories: "am"
      atrace_categories: "wm"
      atrace_categories: "sched"
      atrace_categories: "freq"
      atrace_categories: "binder_driver"
      atrace_categories: "dalvik"
      atrace_apps: "com.example.app"
      buffer_size_kb: 4096
      compact_sched {
        enabled: true
      }
    }
  }
}
data_sources {
  config {
    name: "linux.process_stats"
    target_buffer: 1
    process_stats_config {
      scan_all_processes_on_start: true
    }
  }
}
data_sources {
  config {
    name: "android.surfaceflinger.frametimeline"
    target_buffer: 0
  }
}
data_sources {
  config {
    name: "android.input.inputevent"
    target_buffer: 0
    android_input_event_config {
      mode: TRACE_MODE_USE_RULES
      rules {
        trace_level: TRACE_LEVEL_REDACTED
        match_any_packages: "com.example.app"
      }
      trace_dispatcher_input_events: true
      trace_dispatcher_window_dispatch: true
    }
  }
}
duration_ms: 30000
"#;

fn args_for(secs: u32, buffer_mb: Option<u32>) -> CaptureRequest {
    CaptureRequest {
        app: APP.into(),
        secs,
        out: None,
        serial: None,
        buffer_mb,
        analyze: false,
        dry_run: true,
        drive: None,
        launch: Default::default(),
        activity: None,
    }
}

#[test]
fn dry_run_text_snapshot() {
    let text = capture::dry_run_text(&args_for(30, None)).unwrap();
    assert_eq!(text, DRY_RUN_30S);
    // run() with --dry-run touches no device and returns no outcome.
    let fake = Fake::new("ok");
    let mut args = fake.args(30);
    args.dry_run = true;
    assert!(fake.run(&args).unwrap().is_none());
    assert!(fake.log().is_empty());
}

/// The binary config, decoded with Perfetto's official schema, equals the
/// dry-run text parsed with the same schema: field numbers, types and the
/// text rendering agree.
#[test]
fn binary_and_text_agree_under_the_official_schema() {
    use perfetto_protos::trace_config::{trace_config::buffer_config::FillPolicy, TraceConfig};
    for (secs, mb) in [(30, None), (1, None), (120, None), (10, Some(8))] {
        let config = capture::config::build(APP, secs, mb);
        let bytes = capture::config::encode(&config);
        let decoded = TraceConfig::parse_from_bytes(&bytes).unwrap();
        let text = capture::dry_run_text(&args_for(secs, mb)).unwrap();
        let body: String = text.lines().filter(|l| !l.starts_with('#')).map(|l| format!("{l}\n")).collect();
        let parsed: TraceConfig = protobuf::text_format::parse_from_str(&body).unwrap();
        assert_eq!(decoded, parsed, "secs={secs} mb={mb:?}");
        assert!(decoded.special_fields.unknown_fields().iter().next().is_none());

        assert_eq!(decoded.duration_ms(), secs * 1000);
        assert_eq!(decoded.buffers[0].fill_policy(), FillPolicy::RING_BUFFER);
        assert_eq!(decoded.buffers[1].fill_policy(), FillPolicy::DISCARD);
        let ftrace = decoded.data_sources[0].config.ftrace_config.as_ref().unwrap();
        assert_eq!(decoded.data_sources[0].config.name(), "linux.ftrace");
        assert_eq!(ftrace.atrace_apps, vec![APP.to_string()]);
        assert_eq!(
            ftrace.atrace_categories,
            ["gfx", "view", "input", "am", "wm", "sched", "freq", "binder_driver", "dalvik"]
        );
        assert_eq!(
            ftrace.ftrace_events,
            ["sched/sched_switch", "sched/sched_waking", "task/task_newtask", "task/task_rename"]
        );
        assert!(ftrace.compact_sched.enabled());
        let ps = &decoded.data_sources[1].config;
        assert_eq!(ps.name(), "linux.process_stats");
        assert_eq!(ps.target_buffer(), 1);
        assert!(ps.process_stats_config.scan_all_processes_on_start());
        assert_eq!(decoded.data_sources[2].config.name(), "android.surfaceflinger.frametimeline");
        let input = &decoded.data_sources[3].config;
        assert_eq!(input.name(), "android.input.inputevent");
        let input = input.android_input_event_config.as_ref().unwrap();
        use perfetto_protos::android_input_event_config::android_input_event_config::{TraceLevel, TraceMode};
        assert_eq!(input.mode(), TraceMode::TRACE_MODE_USE_RULES);
        assert_eq!(input.rules[0].trace_level(), TraceLevel::TRACE_LEVEL_REDACTED);
        assert_eq!(input.rules[0].match_any_packages, vec![APP.to_string()]);
        assert!(input.trace_dispatcher_input_events() && input.trace_dispatcher_window_dispatch());
    }
    // Sizes worked out by hand: 5 MB/s, floor 16 MB, cap 256 MB; streaming
    // when the buffer holds less than 5 MB/s × secs.
    let c = |secs, mb| {
        TraceConfig::parse_from_bytes(&capture::config::encode(&capture::config::build(APP, secs, mb))).unwrap()
    };
    assert_eq!(c(30, None).buffers[0].size_kb(), 150 * 1024);
    assert!(!c(30, None).has_write_into_file());
    assert_eq!(c(1, None).buffers[0].size_kb(), 16 * 1024);
    assert_eq!(c(120, None).buffers[0].size_kb(), 256 * 1024);
    assert!(c(120, None).write_into_file());
    assert_eq!(c(120, None).file_write_period_ms(), 5000);
    assert_eq!(c(10, Some(8)).buffers[0].size_kb(), 8 * 1024);
    assert_eq!(c(10, Some(8)).file_write_period_ms(), 800);
}

// ---------------------------------------------------------------------------
// Silence on a pipe: run a capture in a child process whose stderr is a
// pipe, through `CaptureEnv::from_process` (terminal detection, Ctrl-C
// handler), and check that it printed nothing there.

const CHILD_ENV: &str = "FPSAN_CAPTURE_CHILD_ADB";

#[test]
fn child_capture_for_pipe_test() {
    let Some(adb) = std::env::var_os(CHILD_ENV) else { return };
    let out = PathBuf::from(std::env::var_os("FPSAN_CAPTURE_CHILD_OUT").unwrap());
    if std::env::var_os("FPSAN_CAPTURE_CHILD_RUN").is_some() {
        // The real entry point: $ADB, ANDROID_SERIAL, the reader, the path returned.
        assert_eq!(std::env::var_os("ADB"), Some(adb));
        let args = CaptureRequest {
            app: APP.into(),
            secs: 1,
            out: Some(out.clone()),
            serial: None,
            buffer_mb: None,
            analyze: true,
            dry_run: false,
            drive: None,
            launch: Default::default(),
            activity: None,
        };
        let outcome = capture::run(&args, loader(), Sink::stderr()).unwrap().unwrap();
        assert!(outcome.analyze);
        assert_eq!(outcome.path, out);
        // What the cli does with it.
        println!("{}", outcome.path.display());
        return;
    }
    let mut env = CaptureEnv::from_process(loader(), Sink::stderr());
    let expect_tty = std::env::var_os("FPSAN_CAPTURE_CHILD_TTY").is_some();
    assert_eq!(env.sink.is_interactive(), expect_tty, "progress must follow whether stderr is a terminal");
    env.adb = Some(PathBuf::from(adb));
    env.stamp = STAMP.into();
    env.poll = Duration::from_millis(100);
    env.loader = loader();
    let args = CaptureRequest {
        app: APP.into(),
        secs: 1,
        out: Some(out),
        serial: None,
        buffer_mb: None,
        analyze: false,
        dry_run: false,
        drive: None,
        launch: Default::default(),
        activity: None,
    };
    capture::run_with(&args, &env).unwrap().unwrap();
}

#[test]
fn countdown_is_silent_on_a_pipe() {
    let fake = Fake::new("ok");
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["capture::child_capture_for_pipe_test", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, &fake.wrapper)
        .env("FPSAN_CAPTURE_CHILD_OUT", fake.out())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let mut stdout = String::new();
    child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "child failed: {stdout}\n{stderr}");
    assert!(stdout.contains("1 passed"), "{stdout}");
    assert_eq!(stderr, "", "the capture wrote to a piped stderr");
    assert_eq!(std::fs::read(fake.out()).unwrap(), ok_fixture());
    fake.assert_device_clean();
}

/// `capture::run` itself, as the cli calls it: adb from `$ADB`, the device
/// from `ANDROID_SERIAL`, the reader's check, the path it returns (which the
/// child prints, as the cli does).
#[test]
fn run_takes_adb_and_serial_from_the_environment() {
    let fake = Fake::new("two_devices");
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["capture::child_capture_for_pipe_test", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, &fake.wrapper)
        .env("ADB", &fake.wrapper)
        .env("ANDROID_SERIAL", "emulator-5554")
        .env("FPSAN_CAPTURE_CHILD_RUN", "1")
        .env("FPSAN_CAPTURE_CHILD_OUT", fake.out())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    // libtest's "test ... " prefix may share the line with the printed path.
    assert!(stdout.lines().any(|l| l.ends_with(&fake.out().display().to_string())), "{stdout}");
    assert!(fake.log()[1..].iter().all(|l| l.starts_with("-s emulator-5554 ")), "{:?}", fake.log());
    fake.assert_device_clean();
}

/// The same child on a pseudo-terminal (util-linux `script`): the countdown
/// and the summary line appear.
#[test]
fn countdown_shows_on_a_terminal() {
    if Command::new("script").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_err() {
        eprintln!("skipped countdown_shows_on_a_terminal: util-linux `script` is absent");
        return;
    }
    let fake = Fake::new("ok");
    let exe = std::env::current_exe().unwrap();
    let inner = format!("{} capture::child_capture_for_pipe_test --exact --nocapture --test-threads=1", exe.display());
    let mut cmd = Command::new("script");
    cmd.args(["-qefc", &inner, "/dev/null"])
        .env(CHILD_ENV, &fake.wrapper)
        .env("FPSAN_CAPTURE_CHILD_OUT", fake.out())
        .env("FPSAN_CAPTURE_CHILD_TTY", "1")
        .stdin(Stdio::null());
    let output = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("tracing com.example.app"), "{text}");
    assert!(text.contains("(Ctrl-C stops early)"), "{text}");
    assert!(
        text.contains(&format!(
            "fpsan: wrote {} (0.0 MB, 0.2 s, 3 packets, com.example.app pid 4321,4388)",
            fake.out().display()
        )),
        "{text}"
    );
    fake.assert_device_clean();
}

// ---------------------------------------------------------------------------
// The real adb (Debian's `adb` package; CI installs it) with no device.

#[test]
fn real_adb_without_a_device() {
    let real = Path::new("/usr/bin/adb");
    if !real.exists() {
        eprintln!("skipped real_adb_without_a_device: /usr/bin/adb is absent (apt-get install adb)");
        return;
    }
    // A private adb server port, so no server of the user's is touched, and
    // the server this test starts is the one it stops.
    let port = 15_000 + std::process::id() % 10_000;
    let dir = tempfile::tempdir().unwrap();
    let wrapper = dir.path().join("adb");
    std::fs::write(&wrapper, format!("#!/bin/sh\nexport ANDROID_ADB_SERVER_PORT={port}\nexec /usr/bin/adb \"$@\"\n"))
        .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let env = CaptureEnv::detached(wrapper, STAMP, loader());
    let args = CaptureRequest {
        app: APP.into(),
        secs: 1,
        out: Some(dir.path().join("t.pftrace")),
        serial: None,
        buffer_mb: None,
        analyze: false,
        dry_run: false,
        drive: None,
        launch: Default::default(),
        activity: None,
    };
    let result = capture::run_with(&args, &env);
    let _ = Command::new(real)
        .args(["-P", &port.to_string(), "kill-server"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    match result {
        Err(CaptureError::NoDevice) => {}
        Err(CaptureError::AdbFailed { detail, .. }) if detail.contains("cannot bind") || detail.contains("daemon") => {
            eprintln!("skipped real_adb_without_a_device: the adb server could not start here: {detail}");
        }
        other => panic!("expected the no-device error, got {other:?}"),
    }
}

/// `--drive`: the scenario's steps reach the device in order, as single
/// `adb shell` calls, while perfetto runs, with the sleeps between them kept.
#[test]
fn a_driven_capture_runs_its_steps_in_order_while_tracing() {
    use fpsan::capture::scenario::Scenario;
    let fake = Fake::new("ok");
    let mut args = fake.args(2);
    args.drive = Some(
        Scenario::parse("am start -W -n com.example.app/.Main; sleep 0.3; input swipe 500 1500 500 300 300").unwrap(),
    );
    let outcome = fake.run(&args).unwrap().unwrap();
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    let driven = std::fs::read_to_string(fake.state.join("driven")).unwrap();
    let lines: Vec<(i64, &str)> =
        driven.lines().map(|l| l.split_once(' ').map(|(t, c)| (t.parse().unwrap(), c)).unwrap()).collect();
    let cmds: Vec<&str> = lines.iter().map(|l| l.1).collect();
    assert_eq!(cmds, ["am start -W -n com.example.app/.Main", "input swipe 500 1500 500 300 300"]);
    assert!(lines[1].0 - lines[0].0 >= 300, "the 0.3 s sleep is kept: {driven}");
    // Each step is one shell call, after perfetto started and before the pull.
    let log = fake.log();
    let at = |s: &str| log.iter().position(|l| l.contains(s)).unwrap_or_else(|| panic!("{s} not in {log:?}"));
    assert!(at("perfetto") < at("shell am start -W -n com.example.app/.Main"));
    assert!(at("shell input swipe 500 1500 500 300 300") < at("pull"));
    fake.assert_device_clean();
}

/// A step the device refuses ends the scenario with a warning naming it; the
/// capture itself still succeeds (the trace holds what ran).
#[test]
fn a_failing_step_stops_the_scenario_with_a_warning() {
    use fpsan::capture::scenario::Scenario;
    let fake = Fake::with("ok", &[("FAKE_ADB_DRIVE_FAIL", "2")]);
    let mut args = fake.args(1);
    args.drive = Some(Scenario::parse("input tap 1 2; input tap 3 4; input tap 5 6").unwrap());
    let outcome = fake.run(&args).unwrap().unwrap();
    assert_eq!(outcome.warnings.len(), 1, "{:?}", outcome.warnings);
    assert!(
        outcome.warnings[0].code == CaptureWarningCode::StepFailed
            && outcome.warnings[0].message.starts_with("scenario step 2 (`input tap 3 4`) failed: ")
            && outcome.warnings[0].message.contains("Invalid arguments"),
        "{:?}",
        outcome.warnings
    );
    let driven = std::fs::read_to_string(fake.state.join("driven")).unwrap();
    assert_eq!(driven.lines().count(), 2, "the third step never ran: {driven}");
}

/// `wait-idle`: the scenario waits until the app's frame count (`dumpsys gfxinfo`) stands still for a
/// second; an app that keeps drawing is waited for up to the bound, with a warning.
#[test]
fn wait_idle_waits_for_the_app_to_stop_drawing() {
    use fpsan::capture::scenario::Scenario;
    let steps = "am start -W -n com.example.app/.MainActivity; wait-idle 5; input tap 1 2";
    let fake = Fake::with("ok", &[("FAKE_ADB_BUSY_POLLS", "3")]);
    let mut args = fake.args(4);
    args.drive = Some(Scenario::parse(steps).unwrap());
    let outcome = fake.run(&args).unwrap().unwrap();
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    let driven = std::fs::read_to_string(fake.state.join("driven")).unwrap();
    let times: Vec<i64> = driven.lines().map(|l| l.split_once(' ').unwrap().0.parse().unwrap()).collect();
    // Three polls while it draws (200 ms apart), then a second of the same count.
    let waited = times[1] - times[0];
    assert!((1_300..4_000).contains(&waited), "waited {waited} ms");
    let polls: usize = std::fs::read_to_string(fake.state.join("gfxinfo_calls")).unwrap().trim().parse().unwrap();
    // 3 busy polls, then polls 200 ms apart until the count stood still for
    // 1 s: 8 on a quiet machine; a loaded one (each fake adb call is a
    // shell process) fits fewer into that second, never fewer than 3 + 2.
    assert!(polls >= 5, "{polls} polls");

    let fake = Fake::with("ok", &[("FAKE_ADB_BUSY_POLLS", "100000")]);
    let mut args = fake.args(3);
    args.drive = Some(Scenario::parse(&steps.replace("wait-idle 5", "wait-idle 1")).unwrap());
    let outcome = fake.run(&args).unwrap().unwrap();
    assert_eq!(
        outcome.warnings,
        [CaptureWarning::new(
            CaptureWarningCode::NotIdle,
            "scenario step 2 (`wait-idle`): com.example.app was still drawing after 1.0 s; the scenario went on"
        )]
    );
    assert_eq!(std::fs::read_to_string(fake.state.join("driven")).unwrap().lines().count(), 2);
}

/// `fpsan capture --drive` refuses a bad scenario before touching a device.
#[test]
fn a_bad_scenario_is_one_line_before_any_adb_call() {
    let fake = Fake::new("ok");
    let out = crate::util::fpsan()
        .env("ADB", &fake.wrapper)
        .args(["capture", "--app", APP, "--secs", "1", "--drive", "input tap 1 2; swipe 1 2"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("scenario step 2: `swipe 1 2`: unknown step \"swipe\""), "{err}");
    assert!(fake.log().is_empty(), "adb was called: {:?}", fake.log());
}

/// `--launch`: the app is put in Macrobenchmark's start state before
/// tracing and started inside the trace; `am start -W`'s report is kept.
#[test]
fn launch_states_cold_warm_hot() {
    for (launch, prepared, state, total) in [
        (fpsan::capture::launch::Launch::Cold, vec!["am force-stop com.example.app"], "COLD", 412),
        (
            fpsan::capture::launch::Launch::Warm,
            vec!["am start -W -n com.example.app/.MainActivity", "input keyevent 4"],
            "WARM",
            180,
        ),
        (
            fpsan::capture::launch::Launch::Hot,
            vec!["am start -W -n com.example.app/.MainActivity", "input keyevent 3"],
            "HOT",
            61,
        ),
    ] {
        let fake = Fake::new("ok");
        let mut args = fake.args(1);
        args.launch = launch;
        let outcome = fake.run(&args).unwrap().unwrap();
        let l = outcome.launched.expect("launched");
        assert_eq!(
            (l.component.as_str(), l.state.as_deref(), l.total_ms, l.wait_ms),
            ("com.example.app/.MainActivity", Some(state), Some(total), Some(total + 3)),
            "{launch:?}"
        );
        let driven = std::fs::read_to_string(fake.state.join("driven")).unwrap();
        let cmds: Vec<&str> = driven.lines().filter_map(|l| l.split_once(' ').map(|x| x.1)).collect();
        let mut want = prepared.clone();
        want.push("am start -W -n com.example.app/.MainActivity");
        assert_eq!(cmds, want, "{launch:?}");
        // The preparation runs before perfetto starts, the launch after.
        let log = fake.log();
        let perfetto = log.iter().position(|l| l.contains("perfetto")).unwrap();
        let launch_at = log.iter().rposition(|l| l.contains("am start -W")).unwrap();
        assert!(perfetto < launch_at, "{log:?}");
        if launch == fpsan::capture::launch::Launch::Cold {
            // adb is not root on the fake device: the cache is not dropped, and it says so.
            assert!(
                outcome
                    .warnings
                    .iter()
                    .any(|w| w.code == CaptureWarningCode::PageCacheKept
                        && w.message.contains("page cache was not dropped")),
                "{:?}",
                outcome.warnings
            );
        } else {
            assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
        }
    }
}

/// An activity that does not exist: `am` says so on stdout with exit 0;
/// the capture names it in a warning and still writes the trace.
#[test]
fn a_missing_activity_is_a_warning() {
    let fake = Fake::new("ok");
    let mut args = fake.args(1);
    args.launch = fpsan::capture::launch::Launch::Cold;
    args.activity = Some(".Nope".into());
    let outcome = fake.run(&args).unwrap().unwrap();
    assert_eq!(outcome.launched, None);
    assert!(
        outcome.warnings.iter().any(|w| w.code == CaptureWarningCode::LaunchFailed
            && w.message
                == "starting com.example.app/.Nope failed: Error: Activity class {com.example.app/.Nope} does not exist."),
        "{:?}",
        outcome.warnings
    );
}

/// `--activity` goes into a device shell line: anything but a component's
/// alphabet is refused before any adb call.
#[test]
fn an_activity_with_shell_syntax_never_reaches_the_device() {
    let fake = Fake::new("ok");
    let mut args = fake.args(1);
    args.launch = fpsan::capture::launch::Launch::Cold;
    args.activity = Some(".Main;reboot".into());
    let err = fake.run(&args).unwrap_err().to_string();
    assert_eq!(
        err,
        "invalid capture arguments: --activity \".Main;reboot\" is not an activity name: use .MainActivity or com.example.app/.MainActivity"
    );
    assert!(fake.log().is_empty(), "{:?}", fake.log());
}

// ---------------------------------------------------------------------------
// Phones in the wild: the replies of tests/fake_adb/replies/ (FAKE_ADB_PROFILE).

const INJECT_EVENTS_LINE: &str = "the phone refused the simulated touches (INJECT_EVENTS): turn on Developer options → USB debugging (Security settings) (MIUI/HyperOS; reboot the phone if it still refuses), then run again";

/// MIUI with USB debugging (Security settings) off refuses `input`: the
/// capture fails with the switch to turn on (its trace would not hold the
/// scenario), perfetto is stopped, its file deleted, nothing is pulled, and
/// the steps after the refused one never run.
#[test]
fn miui_refusing_a_scenario_step_fails_the_capture_and_leaves_nothing() {
    use fpsan::capture::scenario::Scenario;
    let fake = Fake::with("ok", &[("FAKE_ADB_PROFILE", "miui-14")]);
    let mut args = fake.args(3);
    args.drive =
        Some(Scenario::parse("sleep 0.1; input swipe 500 1500 500 300 300; sleep 0.1; input tap 1 2").unwrap());
    let err = fake.run(&args).unwrap_err();
    assert!(matches!(err, CaptureError::Refused { .. }), "{err:?}");
    assert_eq!(err.kind(), fpsan::error::ErrorKind::Input);
    assert_eq!(err.to_string(), format!("scenario step 2 (`input swipe 500 1500 500 300 300`): {INJECT_EVENTS_LINE}"));
    let driven = std::fs::read_to_string(fake.state.join("driven")).unwrap();
    assert_eq!(driven.lines().count(), 1, "the steps after the refused one never ran: {driven}");
    let log = fake.log();
    assert!(log.iter().any(|l| l == &sh("kill -TERM PID")), "{log:?}");
    assert!(log.iter().any(|l| l == &rm_cmd()), "{log:?}");
    assert!(!log.iter().any(|l| l.contains(" pull ")), "{log:?}");
    fake.assert_device_clean();
    fake.assert_no_local_leftovers();
    assert!(!fake.out().exists());

    // The switch on: the same scenario runs, as on AOSP.
    let fake = Fake::with("ok", &[("FAKE_ADB_PROFILE", "miui-14"), ("FAKE_ADB_MIUI_USB_DEBUG_SECURITY", "1")]);
    let args = CaptureRequest { out: Some(fake.out()), ..args };
    let outcome = fake.run(&args).unwrap().unwrap();
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    assert_eq!(std::fs::read_to_string(fake.state.join("driven")).unwrap().lines().count(), 2);
    assert!(fake.out().is_file());
    fake.assert_device_clean();
}

/// A warm launch presses BACK with `input` before tracing: refused on MIUI,
/// it stops the capture with the switch before perfetto starts.
#[test]
fn miui_refusing_the_launch_preparation_says_which_switch() {
    let fake = Fake::with("ok", &[("FAKE_ADB_PROFILE", "miui-14")]);
    let mut args = fake.args(1);
    args.launch = fpsan::capture::launch::Launch::Warm;
    let err = fake.run(&args).unwrap_err().to_string();
    assert_eq!(err, format!("`input keyevent 4` (putting com.example.app in the warm state): {INJECT_EVENTS_LINE}"));
    assert!(!fake.log().iter().any(|l| l.contains("perfetto")), "{:?}", fake.log());
    fake.assert_device_clean();
}

/// The CLI: the refusal is the one line on stderr, exit status 1.
#[test]
fn miui_refusal_is_one_line_and_exit_1_from_the_cli() {
    let fake = Fake::with("ok", &[("FAKE_ADB_PROFILE", "miui-14")]);
    let out = crate::util::fpsan()
        .env("ADB", &fake.wrapper)
        .args(["capture", "--app", APP, "--secs", "2", "--drive", "input tap 1 2", "-o"])
        .arg(fake.out())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err, format!("fpsan: scenario step 1 (`input tap 1 2`): {INJECT_EVENTS_LINE}\n"));
    fake.assert_device_clean();
    assert!(!fake.out().exists());
}
