//! Holes in the capture (docs/limits.md, "Capture holes"): half a second in
//! which no CPU recorded anything, in otherwise dense scheduler data, as
//! Perfetto ftrace events, as compact_sched and as systrace text. The hole
//! is a data-loss warning with its exact range; the frame over it is
//! flagged `data_loss` and its critical path says no data there, naming no
//! waker across it; the frames either side are untouched; the same trace
//! without the hole has no warning, and nor does any real trace in
//! `../shared/traces`. The systrace version also names the app by its
//! layer's package, its comm being that package's last 15 characters.
//! Every expected number is worked out by hand below.

use std::path::{Path, PathBuf};

use fpsan::analysis::{self, Analysis, Options};
use fpsan::frames::critical_path::{Hop, PathState};
use fpsan::model::{CaptureHole, Severity, WarningCode};
use fpsan::presents::NameSource;
use tracegen::systrace::SystraceOptions;
use tracegen::{BuildOptions, TraceBuilder};

use crate::util::shared;

const US: i64 = 1_000;
const MS: i64 = 1_000_000;
/// 60 Hz in whole microseconds (systrace text prints µs).
const P: i64 = 16_667 * US;
const T0: i64 = 100_000 * MS;
const SF: i32 = 600;
const APP: i32 = 4000;
const RENDER: i32 = 4010;
const BUSY: [i32; 2] = [7002, 7003];
const PACKAGE: &str = "com.example.android.displayingbitmaps";
/// The kernel keeps a thread's last 15 characters.
const COMM: &str = "splayingbitmaps";
const LAYER: &str =
    "com.example.android.displayingbitmaps/com.example.android.displayingbitmaps.ui.ImageGridActivity#0";
/// The frame whose doFrame spans the hole; the frames before it and from
/// `AFTER` on are ordinary.
const HOLE_FRAME: i64 = 90;
const AFTER: i64 = 121;
const LAST: i64 = 180;
/// The last event before the hole and the first after it: 500 ms of silence.
const HOLE_FROM: i64 = T0 + 1_506 * MS;
const HOLE_TO: i64 = T0 + 2_006 * MS;

fn v(k: i64) -> i64 {
    T0 + k * P
}

/// `ms` (fractional) after `v(k)`.
fn at(k: i64, ms: f64) -> i64 {
    v(k) + (ms * 1e6).round() as i64
}

/// A thread on a CPU from `from` to `to`, then out in state `out_state`.
fn run(b: &mut TraceBuilder, cpu: u32, (tid, comm): (i32, &str), from: i64, to: i64, out_state: i64) {
    b.sched_switch(from, cpu, 0, "swapper", 0, tid, comm);
    b.sched_switch(to, cpu, tid, comm, out_state, 0, "swapper");
}

/// The app draws a frame every vsync: its main thread runs on CPU 0 over
/// `[v + 0.5, v + 5.5)` ms with a doFrame `[v + 1, v + 5)`, SurfaceFlinger's
/// VSYNC-app ticks at each vsync and its layer counter falls after each
/// frame; two busy threads switch in on CPUs 2 and 3 every other
/// millisecond and out in between. With `hole`, nothing at all is recorded
/// after `HOLE_FROM` and before `HOLE_TO` (both switches in); frame `HOLE_FRAME`'s main thread sleeps from `v + 5` into the
/// hole, and after it its RenderThread (CPU 1, from 2007 ms) wakes it at
/// 2009 ms; it runs from 2010 ms and its doFrame ends at 2012 ms.
fn scenario(hole: bool) -> TraceBuilder {
    let mut b = TraceBuilder::new();
    b.process(SF, "/system/bin/surfaceflinger").thread(SF, SF, "surfaceflinger");
    b.process(APP, PACKAGE).thread(APP, APP, PACKAGE).thread(RENDER, APP, "RenderThread");
    for (i, &tid) in BUSY.iter().enumerate() {
        b.process(tid, "busy").thread(tid, tid, "busy");
        let cpu = 2 + i as u32;
        for t in (T0 / MS - 2..T0 / MS + 3_020).map(|ms| ms * MS) {
            if hole && t > HOLE_FROM && t < HOLE_TO {
                continue;
            }
            match (t / MS) % 2 {
                0 => b.sched_switch(t, cpu, 0, "swapper", 0, tid, "busy"),
                _ => b.sched_switch(t, cpu, tid, "busy", 1, 0, "swapper"),
            }
        }
    }
    let main = (APP, COMM);
    for k in (0..=HOLE_FRAME).chain(AFTER..=LAST) {
        b.atrace_counter(v(k), SF, SF, "VSYNC-app", k % 2);
        b.atrace_counter(at(k, 0.2), SF, SF, LAYER, 1);
        if k == HOLE_FRAME {
            continue;
        }
        run(&mut b, 0, main, at(k, 0.5), at(k, 5.5), 1);
        b.slice(at(k, 1.0), 4 * MS, APP, APP, "Choreographer#doFrame");
        b.atrace_counter(at(k, 6.0), SF, SF, LAYER, 0);
    }
    let k = HOLE_FRAME;
    b.slice(at(k, 1.0), T0 + 2_012 * MS - at(k, 1.0), APP, APP, "Choreographer#doFrame");
    run(&mut b, 0, main, at(k, -1.0), at(k, 5.0), 1);
    run(&mut b, 1, (RENDER, "RenderThread"), T0 + 2_007 * MS, T0 + 2_011 * MS, 1);
    b.sched_waking(T0 + 2_009 * MS, 1, APP, COMM, 0);
    b.sched_switch(T0 + 2_010 * MS, 0, 0, "swapper", 0, APP, COMM);
    b.sched_switch(T0 + 2_012 * MS + 500 * US, 0, APP, COMM, 1, 0, "swapper");
    b.atrace_counter(T0 + 2_013 * MS, SF, SF, LAYER, 0);
    b
}

/// The trace written as `format` into `dir`.
fn write(dir: &Path, format: &str, hole: bool) -> PathBuf {
    let b = scenario(hole);
    let (name, bytes) = match format {
        "ftrace" => ("t.pftrace", b.build(&BuildOptions::default())),
        "compact" => ("t.pftrace", b.build(&BuildOptions { compact_sched: true, ..Default::default() })),
        _ => ("t.txt", b.systrace_text(&SystraceOptions::default()).into_bytes()),
    };
    let path = dir.join(format!("{format}-{hole}-{name}"));
    std::fs::write(&path, bytes).expect("write");
    path
}

fn analyze(path: &Path) -> Analysis {
    analysis::analyze(path, &Options::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const FORMATS: [&str; 3] = ["ftrace", "compact", "systrace"];

#[test]
fn a_half_second_with_no_event_on_any_cpu_is_a_hole_and_no_cause() {
    let dir = tempfile::tempdir().expect("tempdir");
    for format in FORMATS {
        let path = write(dir.path(), format, true);
        let a = analyze(&path);
        let m = &a.trace.meta;
        // Events every millisecond: the typical silence is under 1.1 ms,
        // so the threshold is the 100 ms floor.
        let hole = CaptureHole { from: HOLE_FROM, to: HOLE_TO, threshold: 100 * MS };
        assert_eq!(m.data_loss.holes, [hole], "{format}");
        let lost: Vec<_> = a.warnings.iter().filter(|w| w.severity == Severity::DataLoss).collect();
        assert_eq!(lost.len(), 1, "{format}: {:?}", a.warnings);
        assert_eq!(lost[0].code, WarningCode::CaptureHole);
        // Seconds from the trace's first event, the busy threads' switch at T0 − 2 ms.
        let want = "no CPU recorded any event between 1.508000 s and 2.008000 s (500.0 ms, over the 100.0 ms a hole must exceed in this trace): a hole in the capture; frames over it are flagged data_loss and their critical paths say no data";
        assert_eq!(lost[0].message, want, "{format}");

        // Only the frame over the hole is flagged.
        let app: Vec<_> = a.frames.rows.iter().filter(|r| r.pid == APP).collect();
        assert_eq!(app.len() as i64, HOLE_FRAME + 1 + LAST - AFTER + 1, "{format}");
        let flagged: Vec<i64> = app.iter().filter(|r| r.data_loss).map(|r| (r.ts - T0) / P).collect();
        assert_eq!(flagged, [HOLE_FRAME], "{format}");

        // Its path: running from the vsync to 5 ms, asleep to the hole,
        // no data for 500 ms, asleep to the wakeup (the RenderThread's, not
        // followed: the sleep began before the hole), runnable 1 ms, running.
        let row = app.iter().position(|r| r.data_loss).expect("the frame over the hole");
        let index = a.frames.rows.iter().position(|r| std::ptr::eq(r, app[row])).expect("row");
        let why = a.frames.why.iter().find(|w| w.frame_index == index).expect("the frame over the hole is explained");
        let segs: Vec<(i64, i64, PathState, Hop)> =
            why.critical_path.iter().map(|s| (s.ts, s.ts + s.dur, s.state, s.hop)).collect();
        let k = HOLE_FRAME;
        let want = [
            (v(k), at(k, 1.0), PathState::Running, Hop::Frame),
            (at(k, 1.0), at(k, 5.0), PathState::Running, Hop::Frame),
            (at(k, 5.0), HOLE_FROM, PathState::Sleeping, Hop::Frame),
            (HOLE_FROM, HOLE_TO, PathState::NoData, Hop::Frame),
            (HOLE_TO, T0 + 2_009 * MS, PathState::Sleeping, Hop::Frame),
            (T0 + 2_009 * MS, T0 + 2_010 * MS, PathState::Runnable, Hop::Frame),
            (T0 + 2_010 * MS, T0 + 2_012 * MS, PathState::Running, Hop::Frame),
        ];
        assert_eq!(segs, want, "{format}");
        // Running 1 + 4 + 2 ms; asleep 0.97 + 3 ms; no waker named.
        let name = if format == "systrace" { COMM } else { PACKAGE };
        let chain = format!(
            "no data 500.0 ms (a hole in the capture); {name} running 7.0 ms, runnable 1.0 ms, sleeping 4.0 ms"
        );
        assert_eq!(why.chain, chain, "{format}");
        // Nobody is blamed for the hole: the top blocker is the main
        // thread's doFrame, over 10.97 ms of the path with data.
        let top = app[row].top_blocker().expect("a top blocker");
        assert_eq!((top.tid, top.slice.as_deref()), (APP, Some("Choreographer#doFrame")));
        assert_eq!(top.ns, at(k, 5.0) - at(k, 1.0) + 2 * MS + (HOLE_FROM - at(k, 5.0)) + 3 * MS + MS);
    }
}

#[test]
fn the_same_trace_without_the_hole_has_no_data_loss_and_names_the_waker() {
    let dir = tempfile::tempdir().expect("tempdir");
    for format in FORMATS {
        let a = analyze(&write(dir.path(), format, false));
        assert_eq!(a.trace.meta.data_loss.holes, [], "{format}");
        assert!(a.warnings.iter().all(|w| w.severity != Severity::DataLoss), "{format}: {:?}", a.warnings);
        assert!(a.frames.rows.iter().all(|r| !r.data_loss), "{format}");
        // The long frame's sleep is the RenderThread's to end.
        let index = a.frames.rows.iter().position(|r| r.pid == APP && (r.ts - T0) / P == HOLE_FRAME).expect("frame");
        let why = a.frames.why.iter().find(|w| w.frame_index == index).expect("explained");
        assert!(why.critical_path.iter().any(|s| s.hop == Hop::Waker && s.tid == RENDER), "{format}");
        assert!(why.critical_path.iter().all(|s| s.state != PathState::NoData), "{format}");
    }
}

#[test]
fn a_systrace_app_named_by_its_cut_comm_takes_its_layers_package() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = analyze(&write(dir.path(), "systrace", false));
    // The kernel's comm names the process…
    let process = a.trace.processes.iter().find(|p| p.pid == APP).expect("app process");
    assert_eq!(process.name.as_deref(), Some(COMM));
    // …and the package its layer names, whose last 15 characters it is, names the app.
    let app = a.apps.iter().find(|s| s.pid == APP).expect("app summary");
    assert_eq!((app.process.as_deref(), app.process_source), (Some(PACKAGE), Some(NameSource::Layer)));
    let layer_rows: Vec<_> = a.presents.rows.iter().filter(|r| r.layer == LAYER).collect();
    assert!(!layer_rows.is_empty());
    assert!(layer_rows.iter().all(|r| r.process.as_deref() == Some(PACKAGE) && r.pid == Some(APP)));
    // `--app PACKAGE` finds it.
    let only = Options { filter: fpsan::metrics::AppFilter::Package(PACKAGE.into()), ..Options::default() };
    let filtered = analysis::analyze(&write(dir.path(), "systrace", false), &only).expect("analyze --app");
    assert_eq!(filtered.apps.iter().map(|s| s.pid).collect::<Vec<_>>(), [APP]);
}

#[test]
fn no_real_trace_has_a_hole() {
    // The real traces' longest silence is 1.0–2.2 times their typical one
    // (docs/limits.md): none comes near the rule.
    let Some(dir) = shared("traces") else { return };
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("traces") {
        let path = entry.expect("entry").path();
        if !path.is_file() || path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        let opened = analysis::open(&path, &analysis::frame_read_options(fpsan::sink::Sink::quiet())).expect("open");
        let m = &opened.trace.meta;
        assert_eq!(m.data_loss.holes, [], "{}", path.display());
        assert!(m.warnings.iter().all(|w| w.code != WarningCode::CaptureHole), "{}", path.display());
        checked += 1;
    }
    assert!(checked >= 15, "{checked}");
}
