use super::*;
use crate::frames::critical_path::{Hop, PathSegment, PathState};
use crate::frames::{FrameOptions, VsyncSource};
use crate::input::InputAnalysis;
use crate::model::testutil::TB;
use crate::model::{PresentType, SchedEvent, Waker};
use crate::testutil::{frame, MS};

/// 60 Hz, as the trace's `VSYNC-app` ticks.
const P: i64 = 16_666_667;
const T: i64 = 1_000_000_000;
const APP: i32 = 100;
const RT: i32 = 120;
const BINDER: i32 = 130;
const SF: i32 = 50;
const LAYER: &str = "com.example.app/com.example.app.MainActivity#0";

fn vsync(k: i64) -> i64 {
    T + k * P
}

/// Frame A (vsync id 1001) on vsync 2: doFrame 1 ms after it for 40 ms
/// (traversal, inflate, a 10 µs slice inside), DrawFrames 0.5 ms after it
/// for 5 ms, presented 60 ms after the vsync; frame B (1002) on vsync 6,
/// 5 ms. Around them on the main thread a slice open since vsync 0 and a
/// 10 µs one; a binder thread's reply (30 µs) and a 10 µs slice;
/// SurfaceFlinger's composite (2 ms) and a 5 µs commit; `VSYNC-app` on
/// every vsync; the main thread's scheduler states.
fn trace() -> crate::model::Trace {
    let mut b = TB::new();
    b.process(SF, "/system/bin/surfaceflinger").thread(SF, SF, "surfaceflinger");
    b.process(APP, "com.example.app").thread(APP, APP, "com.example.app");
    b.thread(RT, APP, "RenderThread").thread(BINDER, APP, "binder:100_1");
    for k in 0..20 {
        b.counter(SF, "VSYNC-app", vsync(k), (k % 2) as f64);
    }
    let a = vsync(2) + MS;
    b.slice(APP, T, P + 5 * MS, "long_open")
        .slice(APP, vsync(2) + MS / 5, 10_000, "tiny_outer")
        .slice(APP, a, 40 * MS, "Choreographer#doFrame 1001")
        .slice(APP, a + MS, 36 * MS, "traversal")
        .slice(APP, a + 2 * MS, 20 * MS, "inflate")
        .slice(APP, a + 29 * MS, 10_000, "tiny_inner")
        .slice(APP, vsync(6) + MS, 5 * MS, "Choreographer#doFrame 1002");
    b.slice(RT, a + 40 * MS + MS / 2, 5 * MS, "DrawFrames 1001").slice(
        RT,
        a + 41 * MS + MS / 2,
        2 * MS,
        "shader_compile",
    );
    b.slice(BINDER, a + 10 * MS, 30_000, "binder reply").slice(BINDER, a + 39 * MS, 10_000, "other_tiny");
    b.slice(SF, vsync(5) + MS, 2 * MS, "composite 1001").slice(SF, vsync(5) + 4 * MS, 5_000, "commit");
    b.expected_surface(APP, 1001, vsync(2), P).actual_surface(
        APP,
        1001,
        vsync(2),
        60 * MS,
        LAYER,
        "App Deadline Missed",
        PresentType::Late,
    );
    b.expected_surface(APP, 1002, vsync(6), P).actual_surface(
        APP,
        1002,
        vsync(6),
        20 * MS,
        LAYER,
        "None",
        PresentType::OnTime,
    );
    let t = vsync(2);
    b.sched(SchedEvent::SwitchIn { ts: t, tid: APP, cpu: 0 })
        .sched(SchedEvent::SwitchOut { ts: t + 20 * MS, tid: APP, cpu: 0, prev_state: 1 })
        .sched(SchedEvent::Waking { ts: t + 25 * MS, tid: APP, waker: Waker::NONE })
        .sched(SchedEvent::SwitchIn { ts: t + 26 * MS, tid: APP, cpu: 1 })
        .sched(SchedEvent::SwitchOut { ts: t + 41 * MS, tid: APP, cpu: 1, prev_state: 2 });
    b.build()
}

/// The analysis of [`trace`]; frame A's critical path is given by hand
/// (main thread in `inflate` for 10 ms, then the binder thread's reply).
fn analysed(trace: &crate::model::Trace) -> (FrameAnalysis, PresentAnalysis, usize) {
    let mut fa = crate::frames::analyze(trace, &FrameOptions::default());
    let a = fa.rows.iter().position(|r| r.frame_id == Some(1001)).expect("frame A");
    let r = &fa.rows[a];
    // What the windows below are computed from.
    assert_eq!(
        (r.vsync_ts, r.vsync_source, r.frame_interval_ns),
        (Some(vsync(2)), Some(VsyncSource::FrameTimeline), P)
    );
    assert_eq!(
        (r.dropped_frames, r.draw_frame_ts, r.actual_end),
        (2, Some(vsync(2) + 41 * MS + MS / 2), Some(vsync(2) + 60 * MS))
    );
    let seg = |ts, dur, tid, thread: &str, slice: &str, hop, depth| PathSegment {
        ts,
        dur,
        tid,
        pid: Some(APP),
        thread: Some(thread.into()),
        slice: Some(slice.into()),
        slice_id: None,
        state: PathState::Running,
        hop,
        depth,
    };
    let why = fa.why.iter_mut().find(|w| w.frame_index == a).expect("frame A is janky");
    why.critical_path = vec![
        seg(vsync(2) + MS, 10 * MS, APP, "com.example.app", "inflate", Hop::Frame, 0),
        seg(vsync(2) + 11 * MS, 30_000, BINDER, "binder:100_1", "binder reply", Hop::Binder, 1),
    ];
    let presents = crate::presents::analyze(trace, &fa);
    (fa, presents, a)
}

/// A lane's slices decoded: (start, duration, depth, name), µs from the window start.
fn slices(l: &Lanes, lane: &Lane) -> Vec<(i64, i64, i64, String)> {
    let mut t = 0;
    lane.slices
        .chunks(4)
        .map(|c| {
            t += c[0];
            (t, c[1], c[2], l.strings[c[3] as usize].clone())
        })
        .collect()
}

fn s(t: i64, d: i64, depth: i64, name: &str) -> (i64, i64, i64, String) {
    (t, d, depth, name.to_string())
}

#[test]
fn a_janky_frames_window_and_lanes() {
    let trace = trace();
    let (fa, presents, a) = analysed(&trace);
    let lanes = build(&trace, &fa, &presents, &InputAnalysis::default(), &[(a, 0)], DEFAULT_BUDGET_BYTES);
    assert_eq!((lanes.frames.len(), lanes.wanted, lanes.left_out), (1, 1, 0));
    let f = &lanes.frames[0];
    // The window: one interval before the vsync to one after the present
    // (60 ms after the vsync): vsync(1) to vsync(3) + 60 ms, 93 333 334 ns.
    assert_eq!((f.t0_ns, f.len), (vsync(1), 93_333));
    assert_eq!((f.frame_index, f.frame_id, f.tier, f.dropped_frames), (a, Some(1001), 0, 2));
    assert_eq!(lanes.strings[f.app as usize], "com.example.app");
    // vsync(2) − vsync(1) = 16 666 667 ns → 16 667 µs, and so on.
    assert_eq!(f.vsync, Some(16_667));
    assert_eq!(f.do_frame, [17_667, 40_000]);
    assert_eq!(f.draw, Some([58_167, 5_000]));
    assert_eq!(f.expected, Some([16_667, 16_666]));
    assert_eq!(f.actual, Some([16_667, 60_000]));
    // VSYNC-app at vsync(1) … vsync(6): 0, 16 667, 33 333, 50 000, 66 667, 83 333 µs.
    assert_eq!((f.ticks.as_slice(), f.ticks_from), (&[0, 16_667, 16_666, 16_667, 16_667, 16_666][..], "vsync_app"));
    // Frame A's present; frame B's (vsync(6) + 20 ms) is after the window.
    assert_eq!(lanes.strings[f.layer.unwrap() as usize], LAYER);
    assert_eq!(f.presents, vec![Present { at: 76_667, frame_id: Some(1001) }]);

    let kinds: Vec<(LaneKind, i32)> = f.lanes.iter().map(|l| (l.kind, l.tid)).collect();
    assert_eq!(
        kinds,
        vec![
            (LaneKind::Main, APP),
            (LaneKind::RenderThread, RT),
            (LaneKind::Path, BINDER),
            (LaneKind::SurfaceFlinger, SF)
        ]
    );
    let names: Vec<&str> = f.lanes.iter().map(|l| lanes.strings[l.name as usize].as_str()).collect();
    assert_eq!(names, ["com.example.app", "RenderThread", "binder:100_1", "surfaceflinger"]);
    // The window is 93 333 334 ns: slices under 46 666 ns are left out
    // (tiny_outer), but not the doFrame's own (tiny_inner); long_open,
    // open at the window's start, starts there.
    let main = &f.lanes[0];
    assert_eq!(
        slices(&lanes, main),
        vec![
            s(0, 5_000, 0, "long_open"),
            s(17_667, 40_000, 0, "Choreographer#doFrame 1001"),
            s(18_667, 36_000, 1, "traversal"),
            s(19_667, 20_000, 2, "inflate"),
            s(46_667, 10, 2, "tiny_inner"),
            s(84_333, 5_000, 0, "Choreographer#doFrame 1002"),
        ]
    );
    assert_eq!(main.dropped, 1);
    // Running from vsync(2) for 20 ms, sleeping 5, runnable 1, running 15,
    // then blocked (D) to the window's end (93 333 − 57 667).
    assert_eq!(main.states, vec![16_667, 0, 20_000, 2, 5_000, 1, 1_000, 0, 15_000, 3, 35_666]);
    let rt = &f.lanes[1];
    assert_eq!(slices(&lanes, rt), vec![s(58_167, 5_000, 0, "DrawFrames 1001"), s(59_167, 2_000, 1, "shader_compile")]);
    assert!(rt.states.is_empty(), "no scheduler data for the RenderThread");
    // The 30 µs reply is on the critical path: kept; the other 10 µs slice is not.
    let binder = &f.lanes[2];
    assert_eq!((slices(&lanes, binder), binder.dropped), (vec![s(27_667, 30, 0, "binder reply")], 1));
    let sf = &f.lanes[3];
    assert_eq!((slices(&lanes, sf), sf.dropped), (vec![s(67_667, 2_000, 0, "composite 1001")], 1));

    // The path: 7 integers per segment, starts as deltas.
    let id = |n: &str| lanes.strings.iter().position(|x| x == n).unwrap() as i64;
    assert_eq!(
        f.path,
        vec![
            17_667,
            10_000,
            APP as i64,
            id("inflate"),
            0,
            0,
            0,
            10_000,
            30,
            BINDER as i64,
            id("binder reply"),
            0,
            3,
            1
        ]
    );
    // The size it reports is the JSON the page embeds.
    assert_eq!(lanes.bytes, serde_json::to_string(&lanes).unwrap().replace('<', "\\u003c").len());
}

#[test]
fn without_a_critical_path_the_lanes_are_the_frames_threads() {
    let trace = trace();
    let (mut fa, presents, a) = analysed(&trace);
    for w in &mut fa.why {
        w.critical_path.clear();
    }
    let lanes = build(&trace, &fa, &presents, &InputAnalysis::default(), &[(a, 0)], DEFAULT_BUDGET_BYTES);
    let f = &lanes.frames[0];
    let kinds: Vec<LaneKind> = f.lanes.iter().map(|l| l.kind).collect();
    assert_eq!(kinds, [LaneKind::Main, LaneKind::RenderThread, LaneKind::SurfaceFlinger]);
    assert!(f.path.is_empty());
}

#[test]
fn the_budget_leaves_out_what_does_not_fit() {
    let trace = trace();
    let (fa, presents, a) = analysed(&trace);
    let b = fa.rows.iter().position(|r| r.frame_id == Some(1002)).unwrap();
    let want = [(a, 0), (b, 2)];
    let all = build(&trace, &fa, &presents, &InputAnalysis::default(), &want, DEFAULT_BUDGET_BYTES);
    assert_eq!((all.frames.len(), all.left_out, all.wanted_janky, all.left_out_janky), (2, 0, 1, 0));
    // The budget is part of the data: with a budget of these digits the
    // data takes `exact` bytes. Exactly that room: both fit; a byte less:
    // the first fits and the second does not (they are tried in order).
    let exact = build(&trace, &fa, &presents, &InputAnalysis::default(), &want, all.bytes).bytes;
    let fits = build(&trace, &fa, &presents, &InputAnalysis::default(), &want, exact);
    assert_eq!((fits.frames.len(), fits.bytes), (2, exact));
    let tight = build(&trace, &fa, &presents, &InputAnalysis::default(), &want, exact - 1);
    assert_eq!(tight.frames.iter().map(|f| f.frame_index).collect::<Vec<_>>(), vec![a]);
    assert_eq!((tight.left_out, tight.left_out_janky), (1, 0));
    assert!(tight.bytes < exact, "{} ≥ {exact}", tight.bytes);
    // No room at all: both out, counted, and the names they would have added gone.
    let none = build(&trace, &fa, &presents, &InputAnalysis::default(), &want, 100);
    assert_eq!((none.frames.len(), none.left_out, none.left_out_janky, none.strings.len()), (0, 2, 1, 0));
}

#[test]
fn wanted_frames_listed_then_janky_then_each_apps_costliest() {
    let rows = vec![
        frame(1, 0, 16 * MS, 50 * MS),        // 0: janky
        frame(1, 100 * MS, 16 * MS, 20 * MS), // 1: janky, listed
        frame(1, 200 * MS, 16 * MS, 10 * MS), // 2
        frame(1, 300 * MS, 16 * MS, 12 * MS), // 3
        frame(1, 400 * MS, 16 * MS, 5 * MS),  // 4
        frame(2, 0, 16 * MS, 8 * MS),         // 5
        frame(2, 100 * MS, 16 * MS, 9 * MS),  // 6
        frame(3, 0, 16 * MS, 40 * MS),        // 7: janky, not kept
    ];
    let kept: Vec<usize> = (0..7).collect();
    let w = wanted(&rows, &Wanted { kept: &kept, listed: &[1], per_app: 3 });
    // App 1 has two janky frames, so one smooth one joins (its costliest, 3);
    // app 2 none, so its three costliest (it has two).
    assert_eq!(w, vec![(1, 0), (0, 1), (3, 2), (6, 2), (5, 2)]);
}
