//! When a frame started and what rate the panel ran at (docs/frames.md,
//! "Input-started frames", "Why"; docs/presents.md, "Display grid"), on
//! generated traces whose truth is worked out by hand: a frame a touch
//! started, a frame held by a binder call across its vsync, SurfaceFlinger
//! composing every other vsync of a 90 Hz panel, and an emulator's jittery
//! 60 Hz vsync.

use fpsan::analysis::{self, Analysis, Options};
use fpsan::frames::{FrameRow, IntervalSource, VsyncSource};
use tracegen::systrace::SystraceOptions;
use tracegen::{ActualFrame, BuildOptions, TraceBuilder};

const US: i64 = 1_000;
const MS: i64 = 1_000_000;
/// 60 Hz in whole microseconds (systrace text prints µs).
const P: i64 = 16_667 * US;
const T0: i64 = 100_000 * MS;
const SF: i32 = 600;
/// SurfaceFlinger's thread that delivers the app vsync.
const SF_APP: i32 = 610;
const SYSTEM: i32 = 1000;
const INPUT: i32 = 1005;
const BINDER: i32 = 1010;
const APP: i32 = 4000;
const APP_COMM: &str = "example.launch";

fn v(k: i64) -> i64 {
    T0 + k * P
}

/// `ms` (fractional) after `v(k)`.
fn at(k: i64, ms: f64) -> i64 {
    v(k) + (ms * 1e6).round() as i64
}

/// `tid` runs on `cpu` over `[from, to)`, then switches out in `out_state`.
fn run(b: &mut TraceBuilder, cpu: u32, (tid, comm): (i32, &str), from: i64, to: i64, out_state: i64) {
    b.sched_switch(from, cpu, 0, "swapper", 0, tid, comm);
    b.sched_switch(to, cpu, tid, comm, out_state, 0, "swapper");
}

/// Two frames of a launcher, with `VSYNC-app` ticking only while some app
/// asks for vsync (v0–v2, v5–v12):
///
/// 1. The touch. The main thread sleeps from v1 + 2 ms; no vsync wakes it at
///    v2. InputDispatcher (CPU 2) wakes it at v2 + 10 ms; it handles the
///    input (`deliverInputEvent`, 10.2–12 ms) and sleeps; SurfaceFlinger's
///    `app` thread wakes it at v3 + 6 ms and its doFrame runs v3 + 6.2 ms,
///    3 ms (22.87 ms after v2, the latest `VSYNC-app` edge before it).
/// 2. A late frame. The main thread enters a `binder transaction` at
///    v6 − 2 ms (14 ms long), sleeps in it from v6 − 1 ms; the binder thread
///    (CPU 2) wakes it at v6 + 11.5 ms; its doFrame runs v6 + 13 ms, 8 ms.
fn launcher() -> TraceBuilder {
    let mut b = TraceBuilder::new();
    b.process(SF, "/system/bin/surfaceflinger").thread(SF, SF, "surfaceflinger").thread(SF_APP, SF, "app");
    b.process(SYSTEM, "system_server").thread(INPUT, SYSTEM, "InputDispatcher").thread(BINDER, SYSTEM, "binder:1000_1");
    b.process(APP, "com.example.launcher").thread(APP, APP, APP_COMM);
    for k in (0..=2).chain(5..=12) {
        b.atrace_counter(v(k), SF, SF, "VSYNC-app", k % 2);
    }
    let main = (APP, APP_COMM);
    const S: i64 = 1;

    // 1. The touch.
    run(&mut b, 0, main, at(1, 0.0), at(1, 2.0), S);
    run(&mut b, 2, (INPUT, "InputDispatcher"), at(2, 9.5), at(2, 10.5), S);
    b.sched_waking(at(2, 10.0), 2, APP, APP_COMM, 0);
    b.slice(at(2, 10.2), at(2, 12.0) - at(2, 10.2), APP, APP, "deliverInputEvent src=0x1002 eventTimeNano=0 id=0x1");
    run(&mut b, 0, main, at(2, 10.1), at(2, 12.1), S);
    run(&mut b, 3, (SF_APP, "app"), at(3, 5.9), at(3, 6.05), S);
    b.sched_waking(at(3, 6.0), 3, APP, APP_COMM, 0);
    b.slice(at(3, 6.2), 3 * MS, APP, APP, "Choreographer#doFrame 1");
    b.slice(at(3, 6.3), 2 * MS, APP, APP, "traversal");
    run(&mut b, 0, main, at(3, 6.1), at(3, 9.5), S);

    // 2. The late frame.
    b.slice(at(6, -2.0), 14 * MS, APP, APP, "binder transaction");
    run(&mut b, 0, main, at(6, -3.0), at(6, -1.0), S);
    run(&mut b, 2, (BINDER, "binder:1000_1"), at(6, 1.0), at(6, 11.6), S);
    b.sched_waking(at(6, 11.5), 2, APP, APP_COMM, 0);
    b.slice(at(6, 13.0), 8 * MS, APP, APP, "Choreographer#doFrame 2");
    b.slice(at(6, 13.5), 7 * MS, APP, APP, "traversal");
    run(&mut b, 0, main, at(6, 11.7), at(6, 22.0), S);
    b
}

/// The builder's trace as ftrace events, compact_sched and systrace text,
/// each analysed.
fn analysed(b: &TraceBuilder, dir: &std::path::Path) -> Vec<(&'static str, Analysis)> {
    let compact = BuildOptions { compact_sched: true, ..Default::default() };
    let files: [(&str, Vec<u8>); 3] = [
        ("ftrace.pftrace", b.build(&BuildOptions::default())),
        ("compact.pftrace", b.build(&compact)),
        ("systrace.txt", b.systrace_text(&SystraceOptions::default()).into_bytes()),
    ];
    files
        .into_iter()
        .map(|(name, bytes)| {
            let path = dir.join(name);
            std::fs::write(&path, bytes).expect("write trace");
            (name, analysis::analyze(&path, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}")))
        })
        .collect()
}

fn frame(a: &Analysis, id: i64) -> (usize, &FrameRow) {
    a.frames.rows.iter().enumerate().find(|(_, r)| r.frame_id == Some(id)).expect("the frame")
}

/// `VSYNC-app` ticks at 60 Hz near both frames: I = 16 666 667 ns.
const I60: i64 = 16_666_667;

#[test]
fn a_frame_a_touch_started_is_measured_from_the_touch() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, a) in analysed(&launcher(), dir.path()) {
        let (_, r) = frame(&a, 1);
        assert_eq!(r.frame_interval_ns, I60, "{name}");
        // Woken by InputDispatcher at v2 + 10 ms, after the edge v2 it slept
        // through: jitter = (v3 + 6.2) − (v2 + 10) = 16.667 + 6.2 − 10 =
        // 12.867 ms, under one interval; cost 12.867 + 3 = 15.867 ms < I:
        // nothing skipped or dropped. (From v2: jitter 22.867 ms, 1 skipped,
        // cost 25.867 ms, 1 dropped.)
        assert_eq!((r.vsync_ts, r.vsync_source), (Some(at(2, 10.0)), Some(VsyncSource::InputWakeup)), "{name}");
        assert_eq!(
            (r.jitter_ns, r.skipped_frames, r.frame_time_ns),
            (Some(12_867_000), 0, Some(at(2, 10.0))),
            "{name}"
        );
        assert_eq!((r.frame_cost_ns, r.dropped_frames, r.drop_level.as_str()), (15_867_000, 0, "BEST"), "{name}");
        assert!(a.frames.why.iter().all(|w| a.frames.rows[w.frame_index].frame_id != Some(1)), "{name}: not janky");
        assert_eq!(a.frames.quality.vsync_sources.get("input_wakeup"), Some(&1), "{name}");
    }
}

#[test]
fn a_frame_held_across_its_vsync_stays_late_and_its_blocker_counts_from_the_vsync() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, a) in analysed(&launcher(), dir.path()) {
        let (i, r) = frame(&a, 2);
        // Asleep at v6 inside a binder call, woken by the binder thread:
        // the vsync stays v6. Jitter 13 ms; cost 13 + 8 = 21 ms: 1 dropped.
        assert_eq!((r.vsync_ts, r.vsync_source), (Some(v(6)), Some(VsyncSource::VsyncApp)), "{name}");
        assert_eq!((r.jitter_ns, r.frame_cost_ns, r.dropped_frames), (Some(13 * MS), 21 * MS, 1), "{name}");
        let w = a.frames.why.iter().find(|w| w.frame_index == i).expect("janky");
        // The binder call ran v6 − 2 ms … v6 + 12 ms (14 ms): it held the
        // frame's wait (v6 … v6 + 13 ms) for its last 12 ms.
        let b: Vec<(&str, i64, i64, i64)> =
            w.blockers.iter().map(|b| (b.name.as_str(), b.ts, b.dur, b.delay_ns)).collect();
        assert_eq!(b, vec![("binder transaction", at(6, -2.0), 14 * MS, 12 * MS)], "{name}");
        assert_eq!(a.frames.quality.vsync_sources.get("vsync_app"), Some(&1), "{name}");
    }
}

/// A 90 Hz panel in whole microseconds.
const P90: i64 = 11_111 * US;
const I90: i64 = 11_111_111;
const SYSUI: i32 = 2000;
const STATUS_BAR: &str = "StatusBar#0";

/// SurfaceFlinger composes every other vsync of a 90 Hz panel: `VSYNC-sf`
/// toggles every 22.2 ms (45 Hz) while `VSYNC-app` ticks every 11.1 ms.
/// SystemUI's status bar presents every other vsync (FrameTimeline); an app
/// draws every vsync (doFrames with FrameTimeline expected frames).
fn half_rate_sf() -> TraceBuilder {
    let mut b = TraceBuilder::new();
    b.process(SF, "/system/bin/surfaceflinger").thread(SF, SF, "surfaceflinger");
    b.process(SYSUI, "com.android.systemui").thread(SYSUI, SYSUI, "ndroid.systemui");
    b.process(APP, "com.example.app").thread(APP, APP, "com.example.app");
    let vs = |k: i64| T0 + k * P90;
    for k in 0..60 {
        b.atrace_counter(vs(k), SF, SF, "VSYNC-app", k % 2);
        if k % 2 == 0 {
            b.atrace_counter(vs(k), SF, SF, "VSYNC-sf", (k / 2) % 2);
        }
    }
    for k in 1..50 {
        b.slice(vs(k) + 500 * US, 4 * MS, APP, APP, &format!("Choreographer#doFrame {k}"));
        b.expected_surface_frame(vs(k), Some(vs(k + 1)), k, k, APP, "com.example.app/Main#0");
        if k % 2 == 1 {
            b.actual_surface_frame(
                vs(k),
                Some(vs(k + 2)),
                ActualFrame {
                    token: 1000 + k,
                    display_frame_token: 1000 + k,
                    pid: SYSUI,
                    layer: STATUS_BAR.into(),
                    present_type: 1,
                    on_time_finish: true,
                    jank_type: 1,
                    prediction_type: 1,
                    ..Default::default()
                },
            );
        }
    }
    b
}

#[test]
fn the_panel_rate_is_the_fastest_vsync_counter_not_surfaceflingers_half_rate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.pftrace");
    std::fs::write(&path, half_rate_sf().build(&BuildOptions::default())).unwrap();
    let a = analysis::analyze(&path, &Options::default()).expect("analysed");
    // The app's frames: FrameTimeline's 11.111 ms spacing, which the
    // counters confirm (before: VSYNC-sf's 22.2 ms overruled it, 45 Hz).
    let rows: Vec<&FrameRow> = a.frames.rows.iter().filter(|r| r.pid == APP).collect();
    assert_eq!(rows.len(), 49);
    for r in &rows {
        assert_eq!((r.frame_interval_ns, r.interval_source), (I90, IntervalSource::FrameTimeline), "{}", r.ts);
    }
    // The status bar presents every other vsync on a 90 Hz panel: one
    // vsync dropped between presents, the layer's rate 90 Hz.
    let layer = a.presents.layers.iter().find(|l| l.layer == STATUS_BAR).expect("the status bar");
    assert_eq!(layer.refresh_hz, 1e9 / I90 as f64);
    let presents: Vec<_> = a.presents.rows.iter().filter(|r| r.layer == STATUS_BAR).collect();
    assert!(presents.iter().all(|r| r.vsync_period_ns == I90));
    assert!(presents.iter().skip(1).all(|r| r.dropped_vsyncs == Some(1)));
    let app = a.apps.iter().find(|s| s.pid == APP).expect("the app's summary");
    assert_eq!(app.refresh_hz, 1e9 / I90 as f64);
}

/// An emulator's 60 Hz vsync, `VSYNC-app` ticks 16–19 ms apart (µs), and an
/// app drawing on every tick.
fn jittery() -> TraceBuilder {
    let mut b = TraceBuilder::new();
    b.process(SF, "/system/bin/surfaceflinger").thread(SF, SF, "surfaceflinger");
    b.process(APP, "com.example.app").thread(APP, APP, "com.example.app");
    let deltas = [16_000, 18_200, 18_400, 17_800, 18_000, 16_900, 18_300, 19_000];
    let mut t = T0;
    for k in 0..120 {
        t += deltas[k % deltas.len()] * US;
        b.atrace_counter(t, SF, SF, "VSYNC-app", (k % 2) as i64);
        b.slice(t + 500 * US, 5 * MS, APP, APP, "Choreographer#doFrame");
    }
    b
}

#[test]
fn a_jittery_vsync_is_its_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.pftrace");
    std::fs::write(&path, jittery().build(&BuildOptions::default())).unwrap();
    let a = analysis::analyze(&path, &Options::default()).expect("analysed");
    assert_eq!(a.frames.rows.len(), 120);
    // Every frame on one rate, 60 Hz (measured from the ticks' spacing alone
    // the windows say 54.6–60 Hz).
    for r in &a.frames.rows {
        assert_eq!((r.frame_interval_ns, r.interval_source), (I60, IntervalSource::VsyncApp), "{}", r.ts);
    }
}
