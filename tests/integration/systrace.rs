//! Legacy systrace end to end. One scroll, written by the trace builder as a
//! Perfetto trace and as systrace text, `.ctrace`, HTML (several
//! `trace-data` blocks, a process dump, CRLF) and gzip of those, must give
//! the same frames and the same "why" in every form: the Perfetto path is
//! the independent reference. Names, the thread-state split and the cut
//! start are also checked against values worked out by hand. The real atrace
//! captures in `../shared/traces` are checked against counts made here with
//! a regex-free scan of their text.

use std::io::Write;
use std::path::{Path, PathBuf};

use fpsan::analysis::{self, Analysis, Options};
use fpsan::frames::{FrameRow, FrameWhy};
use fpsan::read::ReadOptions;
use tracegen::systrace::SystraceOptions;
use tracegen::{BuildOptions, TraceBuilder};

use crate::util::{fpsan, shared};

const US: i64 = 1_000;
const MS: i64 = 1_000_000;
/// 60 Hz in whole microseconds (ftrace text prints µs).
const P: i64 = 16_667 * US;
const T0: i64 = 100_000 * MS;
const SF: i32 = 600;
const APP: i32 = 4000;
const RENDER: i32 = 4010;
const OTHER: i32 = 5000;
const APP_NAME: &str = "com.example.scroller";
/// The kernel keeps the last 15 bytes of the main thread's name.
const APP_COMM: &str = "xample.scroller";
/// The janky frame: doFrame 40 ms long.
const JANKY: i64 = 5;
/// The app's frames (vsync index k): doFrame at v(k) + 1 ms.
const APP_FRAMES: [i64; 8] = [0, 1, 2, 3, 4, JANKY, 8, 9];
const OTHER_FRAMES: [i64; 3] = [1, 2, 3];

fn v(k: i64) -> i64 {
    T0 + k * P
}

/// SurfaceFlinger's VSYNC-app toggles, two apps' doFrames (the app's with a
/// traversal and a RenderThread DrawFrame), an `E` before the main thread's
/// first `B` (the ring buffer's cut start), and scheduler events of the main
/// thread around the janky frame.
fn scroll() -> TraceBuilder {
    let mut b = TraceBuilder::new();
    b.process(SF, "/system/bin/surfaceflinger").thread(SF, SF, "surfaceflinger");
    b.process(APP, APP_NAME).thread(APP, APP, APP_NAME).thread(RENDER, APP, "RenderThread");
    b.process(OTHER, "com.other.app").thread(OTHER, OTHER, "com.other.app");
    for k in 0..12 {
        b.atrace_counter(v(k), SF, SF, "VSYNC-app", k % 2);
    }
    b.atrace_end(v(0) - 500 * US, APP, APP);
    for k in APP_FRAMES {
        let (ts, dur) = (v(k) + MS, if k == JANKY { 40 * MS } else { 5 * MS });
        b.atrace_begin(ts, APP, APP, "Choreographer#doFrame");
        b.slice(ts + MS, 3 * MS, APP, APP, "traversal");
        b.atrace_end(ts + dur, APP, APP);
        b.slice(ts + dur + 500 * US, 2 * MS, RENDER, APP, "DrawFrame");
    }
    for k in OTHER_FRAMES {
        b.slice(v(k) + 2 * MS, 4 * MS, OTHER, OTHER, "Choreographer#doFrame");
    }
    // Janky frame: in at +0.5 ms; sleeps (S) 11–21 ms, woken at 21, back in
    // at 26; blocked (D) 33–36, woken at 36, in at 37 to the end (41 ms).
    let j = v(JANKY);
    b.sched_switch(j + 500 * US, 0, 0, "swapper/0", 0, APP, APP_COMM);
    b.sched_switch(j + 11 * MS, 0, APP, APP_COMM, 1, 0, "swapper/0");
    b.sched_waking(j + 21 * MS, 1, APP, APP_COMM, 0);
    b.sched_switch(j + 26 * MS, 0, 0, "swapper/0", 0, APP, APP_COMM);
    b.sched_switch(j + 33 * MS, 0, APP, APP_COMM, 2, 0, "swapper/0");
    b.sched_waking(j + 36 * MS, 1, APP, APP_COMM, 0);
    b.sched_switch(j + 37 * MS, 0, 0, "swapper/0", 0, APP, APP_COMM);
    b
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(data).expect("gzip");
    z.finish().expect("gzip")
}

/// The scroll in every form, written into `dir`: (name, path).
fn captures(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let b = scroll();
    let text = SystraceOptions::default();
    let html = SystraceOptions { crlf: true, ftrace_blocks: 3, ..Default::default() };
    let no_tgid = SystraceOptions { tgid_column: false, ..Default::default() };
    let forms: Vec<(&str, Vec<u8>)> = vec![
        ("scroll.txt", b.systrace_text(&text).into_bytes()),
        ("scroll-no-tgid.txt", b.systrace_text(&no_tgid).into_bytes()),
        ("scroll.txt.gz", gzip(b.systrace_text(&text).as_bytes())),
        ("scroll.ctrace", b.ctrace(&text)),
        ("scroll.html", b.systrace_html(&html).into_bytes()),
        ("scroll.html.gz", gzip(b.systrace_html(&html).as_bytes())),
    ];
    forms
        .into_iter()
        .map(|(name, bytes)| {
            let path = dir.join(name);
            std::fs::write(&path, bytes).expect("write capture");
            (name, path)
        })
        .collect()
}

fn analyze(path: &Path) -> Analysis {
    analysis::analyze(path, &Options::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A frame row without its names, which legitimately differ by source
/// (systrace names a thread by its comm, cut at 15 characters).
fn unnamed(r: &FrameRow) -> FrameRow {
    let mut r = FrameRow { process: None, thread: None, ..r.clone() };
    for t in &mut r.path_totals {
        t.thread = None;
    }
    r
}

/// A why without the thread names in its critical path and chain.
fn unnamed_why(w: &FrameWhy) -> FrameWhy {
    let mut w = w.clone();
    for s in &mut w.critical_path {
        s.thread = None;
    }
    w.chain = String::new();
    w
}

#[test]
fn every_systrace_form_gives_the_perfetto_paths_frames() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pf = dir.path().join("scroll.pftrace");
    std::fs::write(&pf, scroll().build(&BuildOptions::default())).expect("write");
    let reference = analyze(&pf);
    assert_eq!(reference.frames.rows.len(), APP_FRAMES.len() + OTHER_FRAMES.len());
    for (name, path) in captures(dir.path()) {
        let a = analyze(&path);
        let rows: Vec<FrameRow> = a.frames.rows.iter().map(unnamed).collect();
        let want: Vec<FrameRow> = reference.frames.rows.iter().map(unnamed).collect();
        assert_eq!(rows, want, "{name}: frames differ from the Perfetto trace's");
        let why = |w: &[FrameWhy]| w.iter().map(unnamed_why).collect::<Vec<_>>();
        assert_eq!(why(&a.frames.why), why(&reference.frames.why), "{name}: why differs");
        assert_eq!(a.trace.meta.cut_at_start, 1, "{name}");
        assert_eq!(a.trace.meta.data_loss.unmatched_ends, 0, "{name}");
        assert!(!a.warnings.iter().any(|w| w.message.contains("data loss")), "{name}: {:?}", a.warnings);
    }
}

#[test]
fn the_janky_frame_has_its_hand_computed_cost_and_thread_state() {
    let dir = tempfile::tempdir().expect("tempdir");
    let html = captures(dir.path()).into_iter().find(|c| c.0 == "scroll.html").expect("html").1;
    let a = analyze(&html);
    let app: Vec<&FrameRow> = a.frames.rows.iter().filter(|r| r.pid == APP).collect();
    assert_eq!(app.len(), APP_FRAMES.len());
    let (k, r) = app.iter().enumerate().find(|(_, r)| r.do_frame_dur == 40 * MS).expect("janky frame");
    // vsync = the VSYNC-app edge at v(5); cost = 1 + 40 ms; 41 ms / P = 2 dropped.
    assert_eq!((r.vsync_ts, r.frame_cost_ns, r.dropped_frames), (Some(v(JANKY)), 41 * MS, 2));
    assert_eq!((r.traversal_dur, r.draw_frame_dur, r.draw_frame_count), (Some(3 * MS), Some(2 * MS), 1));
    let why = a.frames.why.iter().find(|w| w.frame_index == k).expect("why of the janky frame");
    let s = why.thread_state.as_ref().expect("thread state from the sched lines");
    // From v(5): unknown until the first event at +0.5 ms; running 0.5–11,
    // 26–33, 37–41 = 21.5 ms; sleeping 11–21; runnable 21–26, 36–37; blocked 33–36.
    assert_eq!((s.running_ns, s.sleeping_ns, s.runnable_ns, s.blocked_ns), (21_500_000, 10 * MS, 6 * MS, 3 * MS));
}

#[test]
fn processes_are_named_by_the_process_dump_else_the_main_threads_comm() {
    let dir = tempfile::tempdir().expect("tempdir");
    let caps = captures(dir.path());
    let name_of = |file: &str, pid: i32| -> Option<String> {
        let path = &caps.iter().find(|c| c.0 == file).expect("capture").1;
        let t = analysis::load(path, &ReadOptions::default()).expect("load");
        t.processes.iter().find(|p| p.pid == pid).and_then(|p| p.name.as_deref().map(String::from))
    };
    // The HTML's ps listing has argv[0]; text has only the kernel's comm.
    assert_eq!(name_of("scroll.html", APP).as_deref(), Some(APP_NAME));
    assert_eq!(name_of("scroll.html.gz", OTHER).as_deref(), Some("com.other.app"));
    assert_eq!(name_of("scroll.txt", APP).as_deref(), Some(APP_COMM));
    assert_eq!(name_of("scroll.ctrace", OTHER).as_deref(), Some("com.other.app"));
    // Without the tgid column the main thread's B|pid still places it.
    assert_eq!(name_of("scroll-no-tgid.txt", APP).as_deref(), Some(APP_COMM));

    let html = &caps.iter().find(|c| c.0 == "scroll.html").expect("html").1;
    let info = fpsan().arg("info").arg(html).output().expect("info");
    let out = String::from_utf8_lossy(&info.stdout);
    assert!(out.contains("systrace html"), "{out}");
    assert!(out.contains(APP_NAME) && out.contains("com.other.app"), "{out}");
    assert!(out.contains("data loss     none"), "{out}");
    assert!(out.contains("cut start     1 "), "{out}");
    let analyzed = fpsan().args(["analyze", "--app", APP_NAME, "--format", "csv"]).arg(html).output().expect("analyze");
    assert!(analyzed.status.success(), "{}", String::from_utf8_lossy(&analyzed.stderr));
    let csv = String::from_utf8_lossy(&analyzed.stdout);
    assert_eq!(csv.lines().count(), 1 + APP_FRAMES.len(), "{csv}");
}

/// `(doFrame, DrawFrame)` begins per tgid, counted straight from the text:
/// the payload after `tracing_mark_write: B|`, split at the next `|`.
fn begins_by_pid(text: &str) -> std::collections::BTreeMap<i32, (usize, usize)> {
    let mut out = std::collections::BTreeMap::new();
    for line in text.lines() {
        let Some((_, payload)) = line.split_once("tracing_mark_write: B|") else { continue };
        let Some((pid, name)) = payload.split_once('|') else { continue };
        let e = out.entry(pid.parse().expect("pid")).or_insert((0, 0));
        if name.starts_with("Choreographer#doFrame") {
            e.0 += 1;
        } else if name.starts_with("DrawFrame") {
            e.1 += 1;
        }
    }
    out
}

#[test]
fn real_atrace_text_frames_match_an_independent_count() {
    for (file, frames_of_app) in
        [("real-atrace-catapult-decompressed.txt", 18926), ("real-atrace-flashlight-sample.txt", 2507)]
    {
        let Some(path) = shared(&format!("traces/{file}")) else { return };
        let text = std::fs::read_to_string(&path).expect("read");
        let want = begins_by_pid(&text);
        let a = analyze(&path);
        let mut got: std::collections::BTreeMap<i32, (usize, usize)> = std::collections::BTreeMap::new();
        for r in &a.frames.rows {
            got.entry(r.pid).or_default().0 += 1;
        }
        for (pid, (do_frames, _)) in &want {
            if *do_frames > 0 {
                // Every doFrame begin is a frame, except one cut by the trace end.
                let n = got.get(pid).map_or(0, |g| g.0);
                let cut = a.frames.quality.cut_by_trace_bounds as usize;
                assert!(
                    n + cut == *do_frames && n > 0,
                    "{file} pid {pid}: {n} frames + {cut} cut vs {do_frames} doFrame begins"
                );
            }
        }
        // DrawFrame per process: the frames matched to one add up to the
        // DrawFrame begins (each DrawFrame belongs to one frame here).
        let draws: i64 = a.frames.rows.iter().filter(|r| r.pid == frames_of_app).map(|r| r.draw_frame_count).sum();
        assert_eq!(draws as usize, want[&frames_of_app].1, "{file}: DrawFrames");
        assert_eq!(a.trace.meta.data_loss.unmatched_ends, 0, "{file}: the cut start is not data loss");
        assert_eq!(a.trace.meta.cut_at_start, ends_before_first_begin(&text), "{file}");
    }
}

/// `E` lines of a thread before its first `B` line, counted from the text.
fn ends_before_first_begin(text: &str) -> u64 {
    let mut begun = std::collections::HashSet::new();
    let mut cut = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        // `<comm>-<tid> (<tgid>) [<cpu>] ...`: the task is before the tgid column.
        let Some((task, rest)) = line.split_once(" (") else { continue };
        let Some((_, tid)) = task.trim().rsplit_once('-') else { continue };
        let tid: i32 = tid.parse().expect("tid");
        if rest.contains("tracing_mark_write: B|") {
            begun.insert(tid);
        } else if rest.contains("tracing_mark_write: E") && !begun.contains(&tid) {
            cut += 1;
        }
    }
    cut
}

#[test]
fn unreadable_legacy_captures_get_one_clear_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases: [(&str, &[u8], &str); 3] = [
        (
            "page.html",
            b"<!DOCTYPE html><html><body>hello</body></html>\n",
            "the HTML file holds no systrace data blocks",
        ),
        ("bad.ctrace", b"TRACE:\n\x78\x9c\x01\x02garbage", "the compressed trace is damaged ("),
        ("header-only.txt", b"# tracer: nop\n#\n", "no trace events found"),
    ];
    for (name, bytes, why) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        let out = fpsan().arg("info").arg(&path).output().expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(why), "{name}: {err}");
    }
}
