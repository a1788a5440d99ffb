//! Slice ends without a begin, told apart as docs/limits.md says: the
//! capture's start (each CPU's ring buffer starts at its own time) or a loss
//! the trace reports (`CPU:n [LOST m EVENTS]`), on systrace text made by the
//! trace builder and then edited as the kernel would have written it; and
//! the JSON block of a systrace HTML report, read for the capture's metadata.
//! Every expected number is worked out by hand below.

use std::path::Path;

use fpsan::analysis::{self, Analysis, Options};
use fpsan::model::{LossGap, Severity, WarningCode};
use tracegen::systrace::SystraceOptions;
use tracegen::TraceBuilder;

use crate::util::fpsan;

const US: i64 = 1_000;
const MS: i64 = 1_000_000;
/// 60 Hz in whole microseconds (ftrace text prints µs).
const P: i64 = 16_667 * US;
const T0: i64 = 100_000 * MS;
const APP: i32 = 4000;
const RENDER: i32 = 4010;
const OTHER: i32 = 5000;
const FRAMES: i64 = 10;
/// The main thread's frames that run on CPU 1 (the others on CPU 0), but
/// for their doFrame's end, which comes back to CPU 0.
const MIGRATED: [i64; 2] = [2, 5];

fn v(k: i64) -> i64 {
    T0 + k * P
}

/// Ten frames of the app: doFrame [v+1, v+6] ms with a traversal [v+2, v+4]
/// on the main thread, DrawFrame [v+6.5, v+8.5] on RenderThread (CPU 2), and
/// another thread's `work` [v+3, v+3.5] on CPU 1 every frame.
fn scroll() -> TraceBuilder {
    let mut b = TraceBuilder::new();
    b.process(APP, "com.example.scroller").thread(APP, APP, "com.example.scroller").thread(RENDER, APP, "RenderThread");
    b.process(OTHER, "com.other.app").thread(OTHER, OTHER, "com.other.app");
    for k in 0..FRAMES {
        b.atrace_begin(v(k) + MS, APP, APP, "Choreographer#doFrame");
        b.slice(v(k) + 2 * MS, 2 * MS, APP, APP, "traversal");
        b.atrace_end(v(k) + 6 * MS, APP, APP);
        b.slice(v(k) + 6_500 * US, 2 * MS, RENDER, APP, "DrawFrame");
        b.slice(v(k) + 3 * MS, 500 * US, OTHER, OTHER, "work");
    }
    b
}

/// An event line's (tid, ts).
fn tid_ts(line: &str) -> Option<(i32, i64)> {
    let (task, rest) = line.split_once(" (")?;
    let tid = task.trim().rsplit_once('-')?.1.parse().ok()?;
    let (_, rest) = rest.split_once("] ")?;
    let stamp = rest.split_whitespace().nth(1)?.trim_end_matches(':');
    let (secs, micros) = stamp.split_once('.')?;
    Some((tid, secs.parse::<i64>().ok()? * 1_000_000_000 + micros.parse::<i64>().ok()? * 1_000))
}

/// The CPU the kernel recorded each event on: the main thread's migrated
/// frames ran on CPU 1 until their doFrame's end; `OTHER` runs on CPU 1.
fn cpu_of(tid: i32, ts: i64) -> u32 {
    let k = (ts - T0).div_euclid(P);
    match tid {
        APP if MIGRATED.contains(&k) && ts < v(k) + 6 * MS => 1,
        APP => 0,
        RENDER => 2,
        _ => 1,
    }
}

/// The builder's text with each event on its CPU (`cpu_of`), then `edit`
/// applied to the lines (with their tid, ts and CPU).
fn capture(edit: impl Fn(&str, i32, i64, u32) -> Vec<String>) -> String {
    let text = scroll().systrace_text(&SystraceOptions::default());
    let mut out = String::new();
    for line in text.lines() {
        let Some((tid, ts)) = tid_ts(line) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let cpu = cpu_of(tid, ts);
        let at = line.find(" [").expect("cpu column");
        let line = format!("{} [{cpu:03}]{}", &line[..at], &line[at + 6..]);
        for l in edit(&line, tid, ts, cpu) {
            out.push_str(&l);
            out.push('\n');
        }
    }
    out
}

fn analyze(path: &Path) -> Analysis {
    analysis::analyze(path, &Options::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Seconds from the trace's first event (frame 0's doFrame begin), as the
/// warnings print them.
fn secs(ts: i64) -> String {
    format!("{:.6}", (ts - (v(0) + MS)) as f64 / 1e9)
}

#[test]
fn an_end_whose_begin_fell_before_a_later_cpus_start_is_the_capture_start() {
    // CPU 1's buffer wrapped: its data starts at frame 3's `work` (v(3) +
    // 3 ms). Frame 2's doFrame began on CPU 1 at v(2) + 1 ms and is gone;
    // its end, back on CPU 0 after frame 0's and 1's begins, is kept.
    let start = v(3) + 3 * MS;
    let text = capture(|l, _, ts, cpu| if cpu == 1 && ts < start { vec![] } else { vec![l.to_string()] });
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("wrapped.txt");
    std::fs::write(&path, &text).expect("write");
    let a = analyze(&path);
    let m = &a.trace.meta;
    assert_eq!((m.cut_at_start, m.data_loss.unmatched_ends), (1, 0));
    assert!(m.data_loss.gaps.is_empty());
    // CPU 0 starts with frame 0's doFrame, CPU 2 with its DrawFrame.
    let starts: Vec<(u32, i64)> = m.cpu_starts.iter().map(|c| (c.cpu, c.ts)).collect();
    assert_eq!(starts, [(0, v(0) + MS), (1, start), (2, v(0) + 6_500 * US)]);
    assert_eq!(m.complete_from, Some(start));
    let app: Vec<_> = a.frames.rows.iter().filter(|r| r.pid == APP).collect();
    assert_eq!(app.len(), FRAMES as usize - 1, "frame 2 has no begin");
    assert!(a.frames.rows.iter().all(|r| !r.data_loss));
    assert!(a.warnings.iter().all(|w| w.severity != Severity::DataLoss), "{:?}", a.warnings);

    let info = fpsan().arg("info").arg(&path).output().expect("info");
    let out = String::from_utf8_lossy(&info.stdout);
    assert!(out.lines().any(|l| l == "data loss     none"), "{out}");
    // v(3) + 3 ms − (v(0) + 1 ms) = 3 × 16.667 + 2 ms = 0.052001 s; CPU 2
    // starts 5.5 ms after CPU 0, not late.
    let cut = "cut start     1 slice ends have no begin: the trace starts mid-slice (each CPU's ring buffer starts at its own time: CPU 1's data starts at 0.052001 s; the other CPUs' by 0.005500 s); not data loss";
    assert!(out.lines().any(|l| l == cut), "{out}");
    let analyzed = fpsan().arg("analyze").arg(&path).output().expect("analyze");
    assert!(analyzed.status.success());
    let (stdout, stderr) = (String::from_utf8_lossy(&analyzed.stdout), String::from_utf8_lossy(&analyzed.stderr));
    assert!(!stdout.contains("data loss") && !stderr.contains("data loss"), "{stdout}\n{stderr}");
}

#[test]
fn an_end_after_a_reported_gap_is_data_loss_and_flags_the_frames_it_touches() {
    // CPU 1 lost frame 5's doFrame begin and traversal and `work` of frame 5
    // (5 events): the kernel prints the note before CPU 1's next event, frame
    // 6's `work` at v(6) + 3 ms. CPU 1's event before it: frame 4's `work`
    // end at v(4) + 3.5 ms.
    let text = capture(|l, tid, ts, cpu| {
        let k = (ts - T0).div_euclid(P);
        match (cpu, k) {
            (1, 5) => vec![],
            (1, 6) if tid == OTHER && ts == v(6) + 3 * MS => {
                vec!["CPU:1 [LOST 5 EVENTS]".to_string(), l.to_string()]
            }
            _ => vec![l.to_string()],
        }
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("lost.txt");
    std::fs::write(&path, &text).expect("write");
    let a = analyze(&path);
    let m = &a.trace.meta;
    let gap = LossGap { cpu: 1, from: v(4) + 3_500 * US, to: v(6) + 3 * MS, events: Some(5) };
    assert_eq!(m.data_loss.gaps, [gap]);
    assert_eq!((m.data_loss.unmatched_ends, m.data_loss.ftrace_lost_events, m.cut_at_start), (1, 5, 0));
    let lost: Vec<_> = a.warnings.iter().filter(|w| w.severity == Severity::DataLoss).collect();
    assert_eq!(lost.len(), 1, "{:?}", a.warnings);
    assert_eq!(lost[0].code, WarningCode::FtraceOverrun);
    // From 0.069168 s (4 × 16.667 + 2.5 ms) to 0.102002 s; frame 5's end at
    // v(5) + 6 ms = 0.088335 s, on the main thread (its kernel comm).
    let want = format!(
        "CPU 1 lost 5 events between {} s and {} s (`CPU:1 [LOST 5 EVENTS]`); 1 slice ends from {} s to {} s have no begin: xample.scroller {APP}",
        secs(gap.from),
        secs(gap.to),
        secs(v(5) + 6 * MS),
        secs(v(5) + 6 * MS)
    );
    assert_eq!(lost[0].message, want);
    assert_eq!((secs(gap.from), secs(gap.to)), ("0.069168".to_string(), "0.102002".to_string()));
    // Frame 4 ([v(4), v(4) + 8.5 ms]) and frame 6 overlap the gap; frame 5
    // has no begin, so no row; no other frame touches it.
    let flagged: Vec<i64> = a.frames.rows.iter().filter(|r| r.data_loss).map(|r| (r.ts - T0) / P).collect();
    assert_eq!(flagged, [4, 6]);
    assert_eq!(a.frames.rows.len(), FRAMES as usize - 1);

    let info = fpsan().arg("info").arg(&path).output().expect("info");
    let out = String::from_utf8_lossy(&info.stdout);
    assert!(out.lines().any(|l| l == "data loss     ftrace_lost_events 5, unmatched_ends 1"), "{out}");
    assert!(out.lines().any(|l| l == format!("data loss     {want}")), "{out}");
    let table = fpsan().arg("analyze").arg(&path).output().expect("analyze");
    let table = String::from_utf8_lossy(&table.stdout);
    let line = "data loss ftrace_lost_events 5, unmatched_ends 1 (frames touched: 2, data_loss in the frames table)";
    assert!(table.lines().any(|l| l == line), "{table}");
    let analyzed = fpsan().args(["analyze", "--format", "csv"]).arg(&path).output().expect("analyze");
    let csv = String::from_utf8_lossy(&analyzed.stdout);
    let header: Vec<&str> = csv.lines().next().expect("header").split(',').collect();
    let col = header.iter().position(|h| *h == "data_loss").expect("data_loss column");
    let values: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').nth(col).expect("cell")).collect();
    assert_eq!(values.iter().filter(|v| **v == "true").count(), 2, "{csv}");
    let stderr = String::from_utf8_lossy(&analyzed.stderr);
    assert!(stderr.lines().any(|l| l == format!("fpsan: data loss: {want}")), "{stderr}");
}

/// The systrace controller's block as catapult's systrace.py writes it
/// (`tracing_controller.py`: py_trace_event's events, then `metadata`).
const CONTROLLER_BLOCK: &str = r#"{"traceEvents": [{"category": "process_argv", "name": "process_argv", "args": {"argv": ["systrace.py", "-t", "5", "-a", "com.example.scroller", "gfx", "view"]}, "pid": 160383, "ts": 1037300940509.7991, "tid": 139628672526080, "ph": "M"}, {"category": "python", "name": "clock_sync", "args": {"issue_ts": 1037307346185.212, "sync_id": "9a7e4fe3-89ad-441f-8226-8fe533fe973e"}, "pid": 160383, "ts": 1037307351643.906, "tid": 139628726089536, "ph": "c"}], "metadata": {"clock-domain": "SYSTRACE"}}"#;

#[test]
fn an_html_reports_metadata_block_is_read_not_warned_about() {
    let html = scroll().systrace_html(&SystraceOptions::default());
    let builder_block = "{\"traceEvents\": [], \"systemTraceEvents\": \"\"}";
    assert!(html.contains(builder_block));
    let html = html.replace(builder_block, CONTROLLER_BLOCK);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("report.html");
    std::fs::write(&path, html).expect("write");
    let a = analyze(&path);
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
    let c = &a.trace.meta.capture;
    assert_eq!(c.command_line.as_deref(), Some("systrace.py -t 5 -a com.example.scroller gfx view"));
    assert_eq!(c.clock_domain.as_deref(), Some("SYSTRACE"));
    assert_eq!((c.capture_time.as_deref(), c.os.as_deref()), (None, None));

    let info = fpsan().arg("info").arg(&path).output().expect("info");
    let out = String::from_utf8_lossy(&info.stdout);
    assert!(out.lines().any(|l| l == "captured by   systrace.py -t 5 -a com.example.scroller gfx view"), "{out}");
    assert!(out.lines().any(|l| l == "clock domain  SYSTRACE"), "{out}");
    assert!(!out.contains("skipped"), "{out}");
    let json = fpsan().args(["info", "--format", "json"]).arg(&path).output().expect("info json");
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(doc["capture"]["clock_domain"], "SYSTRACE");
    assert_eq!(doc["warnings"], serde_json::json!([]));
}

/// What trace_processor v58.2's `stats` grade data loss on the Android 12
/// emulator capture, from
/// `select name, idx, severity, source, value from stats where severity = 'data_loss' and value > 0 order by idx`:
/// perf_cpu_lost_records, by CPU (idx), all `trace`-sourced.
const EMULATOR_PERF_LOST: [(u32, u64); 4] = [(0, 2857), (1, 2609), (2, 1697), (3, 1964)];

#[test]
fn perf_records_the_kernel_lost_are_data_loss_as_trace_processor_grades_them() {
    let Some(path) = crate::util::shared("traces/real-emulator-android12-frametimeline-sched.pftrace") else { return };
    let opened = analysis::open(&path, &analysis::frame_read_options(fpsan::sink::Sink::quiet())).expect("open");
    let d = &opened.trace.meta.data_loss;
    let got: Vec<(u32, u64)> = d.perf_lost_records.iter().map(|c| (c.cpu, c.count)).collect();
    assert_eq!(got, EMULATOR_PERF_LOST);
    let lost: Vec<_> = opened.trace.meta.warnings.iter().filter(|w| w.code == WarningCode::PerfRecordsLost).collect();
    assert_eq!(lost.len(), 1);
    assert_eq!(lost[0].severity, Severity::DataLoss);
    let want = "the kernel's perf ring buffers lost 9127 records (CPU 0 2857, CPU 1 2609, CPU 2 1697, CPU 3 1964; trace_processor's perf_cpu_lost_records): perf samples are missing, and the trace does not say whose or when";
    assert_eq!(lost[0].message, want);
    // `info` no longer says "data loss none".
    let info = fpsan().arg("info").arg(&path).output().expect("info");
    let out = String::from_utf8_lossy(&info.stdout);
    assert!(out.lines().any(|l| l == "data loss     perf_lost_records 9127"), "{out}");
}
