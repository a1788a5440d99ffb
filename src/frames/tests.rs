//! Unit tests of `analyze` on hand-built traces (see `model::testutil`). Every
//! expected value is worked out in the comments.

use super::*;
use crate::model::testutil::TB;
use crate::model::{PresentType, SchedEvent, Waker};

const P: i64 = 16_666_667; // 60 Hz
const V0: i64 = 1_000_000_000;
const fn v(k: i64) -> i64 {
    V0 + k * P
}

/// Android 12+: ids, FrameTimeline, DrawFrames by id, two layers, two apps on
/// one vsync id, a resynced child, the commit correction, skipped frames.
fn android12() -> Trace {
    let mut b = TB::new();
    b.process(100, "com.app").thread(100, 100, "com.app").thread(101, 100, "RenderThread");
    b.process(200, "com.other").thread(200, 200, "com.other").thread(201, 200, "RenderThread");

    // F1, token 1: ts1 = v1 + 1 ms = 1_017_666_667, 10 ms; phases inside a
    // resynced child (Android 13+ layout).
    let ts1 = v(1) + 1_000_000;
    b.slice(100, ts1, 10_000_000, "Choreographer#doFrame 1")
        .slice(100, ts1, 9_500_000, "Choreographer#doFrame - resynced to 2 in 0.0ms")
        .slice(100, ts1, 500_000, "input")
        .slice(100, ts1 + 500_000, 1_000_000, "animation")
        .slice(100, ts1 + 1_500_000, 6_000_000, "traversal")
        .slice(100, ts1 + 8_000_000, 1_000_000, "commit")
        .slice(101, ts1 + 9_000_000, 4_000_000, "DrawFrames 1");
    b.expected_surface(100, 1, v(1), P).actual_surface(
        100,
        1,
        v(1),
        14_000_000,
        "com.app/Main#0",
        "None",
        PresentType::OnTime,
    );

    // F2, token 2: ts2 = v2 + 0.5 ms, only a traversal; two DrawFrames, two layers.
    let ts2 = v(2) + 500_000;
    b.slice(100, ts2, 8_000_000, "Choreographer#doFrame 2")
        .slice(100, ts2 + 1_000_000, 5_000_000, "traversal")
        .slice(101, ts2 + 7_000_000, 3_000_000, "DrawFrames 2")
        .slice(101, ts2 + 12_000_000, 2_000_000, "DrawFrames 2");
    b.expected_surface(100, 2, v(2), P)
        .actual_surface(100, 2, v(2), 20_000_000, "A#0", "App Deadline Missed", PresentType::Late)
        .actual_surface(100, 2, v(2), 10_000_000, "B#1", "None", PresentType::OnTime);

    // The other app drew the same vsync id 2.
    let o = v(2) + 2_000_000;
    b.slice(200, o, 5_000_000, "Choreographer#doFrame 2").slice(200, o + 1_000_000, 3_000_000, "traversal").slice(
        201,
        o + 4_000_000,
        2_000_000,
        "DrawFrames 2",
    );
    b.expected_surface(200, 2, v(2), P).actual_surface(
        200,
        2,
        v(2),
        12_000_000,
        "Other#0",
        "None",
        PresentType::OnTime,
    );

    // F3, token 3: starts 2 ms late, commit 40 ms in: the commit correction fires.
    let ts3 = v(3) + 2_000_000;
    b.slice(100, v(3) - 5_000_000, 6_000_000, "binder transaction") // 6 ms < 8 ms threshold
        .slice(100, ts3, 45_000_000, "Choreographer#doFrame 3")
        .slice(100, ts3, 1_000_000, "animation")
        .slice(100, ts3 + 1_000_000, 38_000_000, "traversal")
        .slice(100, ts3 + 2_000_000, 30_000_000, "draw")
        .slice(100, ts3 + 3_000_000, 20_000_000, "RV OnBindView")
        .slice(100, ts3 + 40_000_000, 4_000_000, "commit");
    b.expected_surface(100, 3, v(3), P);

    // F6, token 6: a 37 ms binder call after the vsync; starts 40 ms late.
    let ts6 = v(6) + 40_000_000;
    b.slice(100, v(6) + 1_000_000, 37_000_000, "binder transaction")
        .slice(100, ts6, 30_000_000, "Choreographer#doFrame 6")
        .slice(100, ts6, 20_000_000, "traversal")
        .slice(100, ts6 + 1_000_000, 5_000_000, "measure")
        .slice(100, ts6 + 25_000_000, 2_000_000, "commit")
        .slice(101, ts6 + 29_000_000, 10_000_000, "DrawFrames 6");
    b.expected_surface(100, 6, v(6), P).actual_surface(
        100,
        6,
        v(6),
        75_000_000,
        "com.app/Main#0",
        "App Deadline Missed",
        PresentType::Late,
    );
    b.sched(SchedEvent::SwitchIn { ts: v(6), tid: 100, cpu: 0 })
        .sched(SchedEvent::SwitchOut { ts: v(6) + 38_000_000, tid: 100, cpu: 0, prev_state: 1 })
        .sched(SchedEvent::Waking { ts: v(6) + 39_000_000, tid: 100, waker: Waker::NONE })
        .sched(SchedEvent::SwitchIn { ts: v(6) + 39_500_000, tid: 100, cpu: 1 })
        .sched(SchedEvent::SwitchOut { ts: ts6 + 30_000_000, tid: 100, cpu: 1, prev_state: 0 });
    b.build()
}

#[test]
fn android12_first_frame_every_column() {
    let a = analyze(&android12(), &FrameOptions::default());
    assert_eq!(a.rows.len(), 5);
    let r = &a.rows[0];
    let ts1 = 1_017_666_667;
    let want = FrameRow {
        process: Some("com.app".into()),
        pid: 100,
        tid: 100,
        thread: Some("com.app".into()),
        frame_id: Some(1),
        ts: ts1,
        do_frame_dur: 10_000_000,
        vsync_ts: Some(1_016_666_667), // v1: the expected surface start
        vsync_source: Some(crate::frames::VsyncSource::FrameTimeline),
        // Expected starts v1, v2, v3 are P apart (v6 is 3P = 50_000_001 away,
        // beyond the 50 ms plausibility bound), so I = P.
        frame_interval_ns: P,
        refresh_hz: 1e9 / P as f64,
        jitter_ns: Some(1_000_000),
        skipped_frames: 0,
        frame_time_ns: Some(1_016_666_667),
        // Phases are the children of the resynced child.
        input_dur: Some(500_000),
        animation_dur: Some(1_000_000),
        insets_animation_dur: None,
        traversal_dur: Some(6_000_000),
        commit_dur: Some(1_000_000),
        commit_ts: Some(ts1 + 8_000_000),
        commit_jitter_ns: Some(9_000_000), // 1_025_666_667 − 1_016_666_667
        commit_corrected: false,
        corrected_frame_time_ns: Some(1_016_666_667),
        frame_cost_ns: 11_000_000, // ts + 10 ms − v1
        dropped_frames: 0,
        drop_level: crate::frames::DropLevel::Best,
        draw_frame_ts: Some(ts1 + 9_000_000),
        draw_frame_dur: Some(4_000_000),
        draw_frame_count: 1,
        expected_ts: Some(1_016_666_667),
        expected_end: Some(1_033_333_334),
        actual_ts: Some(1_016_666_667),
        actual_end: Some(1_030_666_667), // v1 + 14 ms
        overrun_ns: Some(-2_666_667),    // 1_030_666_667 − 1_033_333_334
        jank_type: Some("None".into()),
        present_type: Some(PresentType::OnTime),
        jank_tag: None,
        jank_severity: None,
        present_delay_ms: None,
        layer_name: Some("com.app/Main#0".into()),
        layer_count: 1,
        app_vsync_delay: Some(0),
        cpu_time: Some(14_000_000), // 0 + 10 ms doFrame + 4 ms DrawFrames
        ui_time: Some(10_000_000),
        was_jank: None, // overrun ≤ 0 → NULL, as in android_frame_stats
        was_slow_frame: None,
        was_big_jank: None,
        was_huge_jank: None,
        interval_source: crate::frames::IntervalSource::FrameTimeline,
        perfetto_overrun_ns: Some(-2_666_667),
        data_loss: false,
        // The whole path by slice, most first, ties by name (no slice
        // first): [v1, ts1) 1 ms outside slices; input 0.5, animation 1,
        // traversal 6, commit 1; the resynced child's own 0.5 + 0.5 between
        // and after them; the doFrame's own last 0.5 ms. 11 ms in all, the
        // frame's cost.
        path_totals: [
            (Some("traversal"), 6_000_000),
            (None, 1_000_000),
            (Some("Choreographer#doFrame - resynced to 2 in 0.0ms"), 1_000_000),
            (Some("animation"), 1_000_000),
            (Some("commit"), 1_000_000),
            (Some("Choreographer#doFrame 1"), 500_000),
            (Some("input"), 500_000),
        ]
        .map(|(slice, ns)| critical_path::PathTotal {
            tid: 100,
            thread: Some("com.app".into()),
            slice: slice.map(Into::into),
            ns,
        })
        .to_vec(),
    };
    assert_eq!(r, &want);
    // Its critical path [v1, ts1 + 10 ms) has no scheduler data (tid 100's
    // starts at v6): the thread's own time by slice, traversal the longest.
    let top = r.top_blocker().map(|b| (b.tid, b.thread.as_deref(), b.slice.as_deref(), b.ns));
    assert_eq!(top, Some((100, Some("com.app"), Some("traversal"), 6_000_000)));
}

#[test]
fn android12_layers_draw_frames_and_two_apps() {
    let a = analyze(&android12(), &FrameOptions::default());
    // F2: ts2 = v2 + 0.5 ms = 1_033_833_334.
    let r = &a.rows[1];
    assert_eq!(
        (r.frame_id, r.ts, r.vsync_ts, r.jitter_ns),
        (Some(2), 1_033_833_334, Some(1_033_333_334), Some(500_000))
    );
    assert_eq!(
        (r.input_dur, r.animation_dur, r.insets_animation_dur, r.traversal_dur, r.commit_dur),
        (None, None, None, Some(5_000_000), None)
    );
    assert_eq!(
        (r.commit_ts, r.commit_jitter_ns, r.commit_corrected, r.corrected_frame_time_ns),
        (None, None, false, Some(1_033_333_334))
    );
    // Two DrawFrames 2 of pid 100: 3 ms + 2 ms, first at ts2 + 7 ms.
    assert_eq!((r.draw_frame_ts, r.draw_frame_dur, r.draw_frame_count), (Some(1_040_833_334), Some(5_000_000), 2));
    // Two layers: the first actual (A#0, 20 ms) is the frame's.
    assert_eq!((r.layer_name.as_deref(), r.layer_count), (Some("A#0"), 2));
    assert_eq!((r.jank_type.as_deref(), r.present_type), (Some("App Deadline Missed"), Some(PresentType::Late)));
    // overrun = (v2 + 20 ms) − v3 = 1_053_333_334 − 1_050_000_001.
    assert_eq!(
        (r.actual_end, r.expected_end, r.overrun_ns),
        (Some(1_053_333_334), Some(1_050_000_001), Some(3_333_333))
    );
    // cpu = 0 + 8 ms + 5 ms.
    assert_eq!((r.app_vsync_delay, r.cpu_time, r.ui_time), (Some(0), Some(13_000_000), Some(8_000_000)));
    assert_eq!((r.was_jank, r.was_slow_frame), (Some(true), None));

    // The other app, same id 2: its own DrawFrames and layer.
    let o = &a.rows[4];
    assert_eq!((o.pid, o.frame_id, o.ts, o.vsync_ts), (200, Some(2), 1_035_333_334, Some(1_033_333_334)));
    assert_eq!((o.draw_frame_ts, o.draw_frame_dur, o.draw_frame_count), (Some(1_039_333_334), Some(2_000_000), 1));
    assert_eq!((o.layer_name.as_deref(), o.layer_count, o.actual_end), (Some("Other#0"), 1, Some(1_045_333_334)));
    // Own surfaces: 1_045_333_334 − 1_050_000_001. trace_processor's overrun
    // matches the token alone and takes the first actual (com.app's A#0).
    // Its overrun is its own; the token-only value (and the was_jank
    // Perfetto derives from it) is com.app's.
    assert_eq!(o.overrun_ns, Some(-4_666_667));
    assert_eq!((o.perfetto_overrun_ns, o.was_jank), (Some(3_333_333), Some(true)));
    // cpu = 0 + 5 ms + 2 ms.
    assert_eq!((o.app_vsync_delay, o.cpu_time), (Some(0), Some(7_000_000)));
}

#[test]
fn android12_commit_correction_and_skipped_frames() {
    let a = analyze(&android12(), &FrameOptions::default());
    // F3: v3 = 1_050_000_001, ts3 = 1_052_000_001, jitter 2 ms < I.
    let r = &a.rows[2];
    assert_eq!((r.jitter_ns, r.skipped_frames, r.frame_time_ns), (Some(2_000_000), 0, Some(1_050_000_001)));
    // commit at ts3 + 40 ms = 1_092_000_001; commit jitter 42 ms ≥ 2·I = 33_333_334:
    // corrected = 1_092_000_001 − (42_000_000 % P + P) = 1_092_000_001 − (8_666_666 + 16_666_667)
    //           = 1_066_666_668.
    assert_eq!((r.commit_ts, r.commit_jitter_ns, r.commit_corrected), (Some(1_092_000_001), Some(42_000_000), true));
    assert_eq!(r.corrected_frame_time_ns, Some(1_066_666_668));
    // cost = 2 + 45 = 47 ms; 47_000_000 / P = 2.
    assert_eq!((r.frame_cost_ns, r.dropped_frames, r.drop_level.as_str()), (47_000_000, 2, "BEST"));
    // No DrawFrames 3, no actual: Perfetto has no app_vsync_delay; cpu falls back to ui + 5 ms.
    assert_eq!((r.draw_frame_count, r.draw_frame_dur, r.actual_ts, r.layer_count), (0, None, None, 0));
    assert_eq!(
        (r.app_vsync_delay, r.cpu_time, r.ui_time, r.perfetto_overrun_ns, r.was_jank),
        (None, Some(50_000_000), Some(45_000_000), None, None)
    );
    assert_eq!(r.overrun_ns, None);

    // F6: v6 = 1_100_000_002, ts6 = v6 + 40 ms = 1_140_000_002.
    let r = &a.rows[3];
    // skipped = 40_000_000 / P = 2; frame time = ts6 − 40_000_000 % P = ts6 − 6_666_666.
    assert_eq!((r.jitter_ns, r.skipped_frames, r.frame_time_ns), (Some(40_000_000), 2, Some(1_133_333_336)));
    // commit jitter = 1_165_000_002 − 1_133_333_336 = 31_666_666 < 2·I: not corrected.
    assert_eq!(
        (r.commit_jitter_ns, r.commit_corrected, r.corrected_frame_time_ns),
        (Some(31_666_666), false, Some(1_133_333_336))
    );
    // cost = 40 + 30 = 70 ms; 70_000_000 / P = 4 → NORMAL.
    assert_eq!((r.frame_cost_ns, r.dropped_frames, r.drop_level.as_str()), (70_000_000, 4, "NORMAL"));
    // overrun = (v6 + 75 ms) − v7 = 1_175_000_002 − 1_116_666_669; cpu = 0 + 30 + 10 ms.
    assert_eq!(
        (r.overrun_ns, r.cpu_time, r.was_jank, r.was_slow_frame, r.was_big_jank),
        (Some(58_333_333), Some(40_000_000), Some(true), Some(true), None)
    );
    assert_eq!(r.perfetto_overrun_ns, Some(58_333_333));
}

#[test]
fn android12_why_and_quality() {
    let a = analyze(&android12(), &FrameOptions::default());
    assert_eq!(a.why.len(), 2);
    let w = &a.why[0];
    // F3: jitter 2, animation 1, traversal 38, commit 4, other 45 − 43 = 2 (ms).
    assert_eq!((w.frame_index, w.dominant_phase.as_str(), w.dominant_phase_ns), (2, "traversal", 38_000_000));
    assert_eq!((w.longest_slice.as_deref(), w.longest_slice_ns), (Some("draw"), Some(30_000_000)));
    assert!(w.blockers.is_empty()); // the 6 ms binder call is under the threshold
                                    // Sched data exists but none for tid 100 before v6: nothing known.
    assert_eq!(w.thread_state, Some(ThreadStateSplit::default()));
    let w = &a.why[1];
    assert_eq!((w.frame_index, w.dominant_phase.as_str(), w.dominant_phase_ns), (3, "start_jitter", 40_000_000));
    assert_eq!((w.longest_slice.as_deref(), w.longest_slice_ns), (Some("measure"), Some(5_000_000)));
    assert_eq!(
        w.blockers,
        vec![Blocker { name: "binder transaction".into(), ts: 1_101_000_002, dur: 37_000_000, delay_ns: 37_000_000 }]
    );
    // [v6, v6 + 70 ms): running 38 + 30.5, sleeping 1, runnable 0.5 (ms).
    assert_eq!(
        w.thread_state,
        Some(ThreadStateSplit { running_ns: 68_500_000, runnable_ns: 500_000, sleeping_ns: 1_000_000, blocked_ns: 0 })
    );
    let q = &a.quality;
    assert_eq!(q.vsync_sources, BTreeMap::from([("frame_timeline".to_string(), 5)]));
    assert_eq!(q.interval_sources, BTreeMap::from([("frame_timeline".to_string(), 5)]));
    assert_eq!((q.without_render_thread, q.without_timeline, q.cut_by_trace_bounds), (1, 1, 0));
    // The frame threads and their RenderThreads.
    assert_eq!(frame_threads(&android12()), vec![100, 101, 200, 201]);
}

const T0: i64 = 2_000_000_000;
const fn t(k: i64) -> i64 {
    T0 + k * P
}

/// Android 10–11: no ids, SurfaceFlinger VSYNC-app edges, DrawFrame by time.
fn android11() -> Trace {
    let mut b = TB::new();
    b.process(50, "/system/bin/surfaceflinger").thread(50, 50, "surfaceflinger");
    b.process(300, "com.legacy").thread(300, 300, "com.legacy").thread(301, 300, "RenderThread");
    // Edges for k = 0..=5 and 9..=20: nobody asked for vsync in between.
    for k in (0..=5).chain(9..=20) {
        b.counter(50, "VSYNC-app", t(k), (k % 2) as f64);
    }
    let g1 = t(2) + 800_000;
    b.slice(300, g1, 6_000_000, "Choreographer#doFrame")
        .slice(300, g1, 1_000_000, "input")
        .slice(300, g1 + 1_000_000, 4_000_000, "traversal")
        .slice(300, g1 + 5_500_000, 400_000, "commit")
        .slice(301, g1 + 5_000_000, 3_000_000, "DrawFrame")
        .slice(301, g1 + 12_000_000, 1_000_000, "DrawFrame");
    let g2 = t(5) + 40_000_000;
    b.slice(300, g2, 10_000_000, "Choreographer#doFrame")
        .slice(300, g2, 6_000_000, "traversal")
        .slice(300, g2 + 7_000_000, 2_000_000, "commit")
        .slice(301, g2 + 9_000_000, 4_000_000, "DrawFrame");
    // A jitterNanos sample too: VSYNC-app is preferred.
    b.counter(300, "jitterNanos", g2 + 7_000_000 - 1000, 13_665_666.0);
    b.build()
}

#[test]
fn android11_vsync_app_and_draw_frame_by_time() {
    let a = analyze(&android11(), &FrameOptions::default());
    assert_eq!(a.rows.len(), 2);
    let r = &a.rows[0];
    // G1 = t2 + 0.8 ms = 2_034_133_334; the latest edge before it is t2.
    assert_eq!(
        (r.frame_id, r.vsync_ts, r.vsync_source.map(|v| v.as_str())),
        (None, Some(2_033_333_334), Some("vsync_app"))
    );
    assert_eq!((r.frame_interval_ns, r.interval_source.as_str(), r.jitter_ns), (P, "vsync_app", Some(800_000)));
    assert_eq!(
        (r.input_dur, r.traversal_dur, r.commit_dur, r.commit_jitter_ns),
        (Some(1_000_000), Some(4_000_000), Some(400_000), Some(6_300_000))
    );
    // Both DrawFrames start in [G1, G2): 3 + 1 ms.
    assert_eq!((r.draw_frame_ts, r.draw_frame_dur, r.draw_frame_count), (Some(2_039_133_334), Some(4_000_000), 2));
    // No id: every Perfetto column is NULL, as in its stdlib.
    assert_eq!(
        (r.app_vsync_delay, r.cpu_time, r.ui_time, r.perfetto_overrun_ns, r.was_jank),
        (None, None, None, None, None)
    );
    assert_eq!(r.overrun_ns, None);
    assert_eq!((r.expected_ts, r.actual_ts, r.layer_count), (None, None, 0));

    let r = &a.rows[1];
    // G2 = t5 + 40 ms = 2_123_333_335; no edge in (t5, G2] → t5 delivered it.
    assert_eq!((r.vsync_ts, r.jitter_ns, r.skipped_frames), (Some(2_083_333_335), Some(40_000_000), 2));
    // frame time = G2 − 40_000_000 % P = G2 − 6_666_666; commit at G2 + 7 ms:
    // 2_130_333_335 − 2_116_666_669 = 13_666_666.
    assert_eq!(
        (r.frame_time_ns, r.commit_jitter_ns, r.commit_corrected),
        (Some(2_116_666_669), Some(13_666_666), false)
    );
    // cost = 40 + 10 = 50 ms; 50_000_000 / P = 2 (3·P = 50_000_001).
    assert_eq!((r.frame_cost_ns, r.dropped_frames), (50_000_000, 2));
    assert_eq!((r.draw_frame_ts, r.draw_frame_count), (Some(2_132_333_335), 1));
    assert_eq!(a.why.len(), 1);
    assert_eq!((a.why[0].frame_index, a.why[0].dominant_phase.as_str()), (1, "start_jitter"));
    assert_eq!(a.why[0].thread_state, None); // no sched data
    assert_eq!(a.quality.vsync_sources, BTreeMap::from([("vsync_app".to_string(), 2)]));
    assert_eq!(a.quality.without_timeline, 2);
}

const T5: i64 = 5_000_000_000;

/// Only Choreographer's jitterNanos counter: no timeline, no VSYNC-app.
fn jitter_only() -> Trace {
    let mut b = TB::new();
    b.process(400, "com.jit").thread(400, 400, "com.jit");
    let lat = [1_200_000, 900_000, 1_500_000, 1_000_000, 2_000_000, 1_100_000, 900_000, 1_300_000];
    for (k, l) in lat.iter().enumerate() {
        let vs = T5 + k as i64 * P;
        let ts = vs + l;
        b.slice(400, ts, 5_000_000, "Choreographer#doFrame").slice(400, ts, 3_000_000, "traversal");
        if k != 4 {
            let commit = ts + 3_500_000;
            b.slice(400, commit, 1_000_000, "commit");
            // Written just before the commit slice: now − frameTime.
            b.counter(400, "jitterNanos", commit - 1000, (commit - 1000 - vs) as f64);
        }
    }
    b.build()
}

#[test]
fn jitter_counter_then_estimated_grid() {
    let a = analyze(&jitter_only(), &FrameOptions::default());
    assert_eq!(a.rows.len(), 8);
    // Starts are P ± ≤ 1 ms apart: the doFrame grid gives I = P (snapped, 5 % noise).
    assert!(a.rows.iter().all(|r| r.frame_interval_ns == P && r.interval_source.as_str() == "do_frame_grid"));
    let r = &a.rows[1];
    // vsync = sample ts − value = the true vsync T5 + P.
    assert_eq!(
        (r.vsync_ts, r.vsync_source.map(|v| v.as_str()), r.jitter_ns),
        (Some(T5 + P), Some("jitter_counter"), Some(900_000))
    );
    // Frame 4 has no commit, hence no counter: the fitted grid. The earliest
    // start offset in the window is 0.9 ms after the vsync, so the grid sits at
    // vsync + 0.9 ms: vsync = T5 + 4P + 0.9 ms and jitter = 2 − 0.9 = 1.1 ms.
    let r = &a.rows[4];
    assert_eq!(
        (r.vsync_ts, r.vsync_source.map(|v| v.as_str()), r.jitter_ns),
        (Some(T5 + 4 * P + 900_000), Some("estimated"), Some(1_100_000))
    );
    assert_eq!(
        a.quality.vsync_sources,
        BTreeMap::from([("estimated".to_string(), 1), ("jitter_counter".to_string(), 7)])
    );
}

#[test]
fn no_vsync_source_at_all() {
    let mut b = TB::new();
    b.process(600, "com.lonely").thread(600, 600, "com.lonely");
    b.slice(600, 1_000, 40_000_000, "Choreographer#doFrame");
    let a = analyze(&b.build(), &FrameOptions::default());
    let r = &a.rows[0];
    // Nothing measures I: the fallback 60 Hz, counted as `default`.
    assert_eq!(
        (r.vsync_ts, r.vsync_source, r.frame_interval_ns, r.interval_source.as_str()),
        (None, None, P, "default")
    );
    // cost = do_frame_dur; 40_000_000 / P = 2.
    assert_eq!((r.jitter_ns, r.frame_time_ns, r.frame_cost_ns, r.dropped_frames), (None, None, 40_000_000, 2));
    assert_eq!(a.why[0].dominant_phase.as_str(), "other");
    assert!(a.why[0].blockers.is_empty());
    assert_eq!(a.quality.vsync_sources, BTreeMap::from([("none".to_string(), 1)]));
    assert_eq!(a.quality.interval_sources, BTreeMap::from([("default".to_string(), 1)]));
}

const P90: i64 = 11_111_111;
const P120: i64 = 8_333_333;

/// VSYNC-app at 90 Hz (edges 0..=19) then 120 Hz (edges 20..=49).
fn rate_switch() -> (Trace, Vec<i64>) {
    let mut b = TB::new();
    b.process(50, "/system/bin/surfaceflinger").thread(50, 50, "surfaceflinger");
    b.process(700, "com.fast").thread(700, 700, "com.fast");
    let mut e = vec![3_000_000_000i64];
    for k in 1..50 {
        let step = if k < 20 { P90 } else { P120 };
        e.push(e[k - 1] + step);
    }
    for (k, &x) in e.iter().enumerate() {
        b.counter(50, "VSYNC-app", x, (k % 2) as f64);
    }
    for k in [5usize, 12, 19, 20, 30] {
        b.slice(700, e[k] + 1_000_000, 5_000_000, "Choreographer#doFrame");
    }
    b.slice(700, e[40] + 1_000_000, 20_000_000, "Choreographer#doFrame");
    (b.build(), e)
}

#[test]
fn ninety_then_hundred_twenty_hz() {
    let (tr, e) = rate_switch();
    let a = analyze(&tr, &FrameOptions::default());
    let got: Vec<i64> = a.rows.iter().map(|r| r.frame_interval_ns).collect();
    assert_eq!(got, vec![P90, P90, P90, P120, P120, P120]);
    assert!(a.rows.iter().all(|r| r.jitter_ns == Some(1_000_000)));
    assert_eq!(a.rows[5].vsync_ts, Some(e[40]));
    // At 120 Hz: cost 21 ms; 21_000_000 / 8_333_333 = 2.
    assert_eq!((a.rows[5].frame_cost_ns, a.rows[5].dropped_frames), (21_000_000, 2));
    assert!((a.rows[0].refresh_hz - 90.0).abs() < 1e-3 && (a.rows[5].refresh_hz - 120.0).abs() < 1e-3);

    // --refresh-hz 60 overrides every frame: 21 ms / 16_666_667 = 1.
    let a = analyze(&tr, &FrameOptions { refresh_hz: Some(60.0), ..Default::default() });
    assert!(a.rows.iter().all(|r| r.frame_interval_ns == P && r.interval_source.as_str() == "override"));
    assert_eq!(a.rows[5].dropped_frames, 1);
    assert_eq!(a.quality.interval_sources, BTreeMap::from([("override".to_string(), 6)]));
}

/// Pixel 6a (60 Hz panel, Android 13), Macrobenchmark warm start: 30 frames
/// on FrameTimeline's 60 Hz grid; SurfaceFlinger's `VSYNC-app` and
/// `VSYNC-sf` toggle only when a callback is asked for, 13 samples each in
/// the whole trace, the first two 10.6 ms apart (a phase adjustment).
#[test]
fn sparse_vsync_toggles_are_no_refresh_rate() {
    let mut b = TB::new();
    b.process(50, "/system/bin/surfaceflinger").thread(50, 50, "surfaceflinger");
    b.process(100, "com.app").thread(100, 100, "com.app");
    for k in 0..30 {
        b.slice(100, v(k) + 1_000_000, 6_000_000, &format!("Choreographer#doFrame {}", k + 1));
        b.expected_surface(100, k + 1, v(k), P);
    }
    // v(0) − 1 ms and 10.6 ms later, then one toggle every 120 ms (beyond
    // the 4–50 ms spacings a period is read from).
    let mut toggles = vec![V0 - 1_000_000, V0 + 9_600_000];
    toggles.extend((1..12).map(|k| V0 + 9_600_000 + k * 120_000_000));
    for (i, &t) in toggles.iter().enumerate() {
        b.counter(50, "VSYNC-app", t, (i % 2) as f64).counter(50, "VSYNC-sf", t + 500_000, (i % 2) as f64);
    }
    let a = analyze(&b.build(), &FrameOptions::default());
    assert_eq!(a.rows.len(), 30);
    // Every frame on the panel's 60 Hz; before, the frames within 500 ms of
    // the 10.6 ms spacing took 10_416_667 (96 Hz) from `display_vsync`.
    assert!(
        a.rows.iter().all(|r| r.frame_interval_ns == P),
        "{:?}",
        a.rows.iter().map(|r| r.frame_interval_ns).collect::<Vec<_>>()
    );
    assert_eq!(a.quality.interval_sources, BTreeMap::from([("frame_timeline".to_string(), 30)]));
    assert!(a.rows.iter().all(|r| r.dropped_frames == 0));
}

#[test]
fn cut_by_trace_bounds_and_markers() {
    let mut b = TB::new();
    b.process(800, "com.cut").thread(800, 800, "com.cut");
    // The doFrame open at trace start left only its traversal child.
    b.slice(800, 10, 5_000_000, "traversal")
        .slice(800, 20_000_000, 0, "Choreographer#doFrame 6") // zero-length marker
        .slice(800, 30_000_000, 8_000_000, "Choreographer#doFrame 7")
        .slice(800, 50_000_000, -1, "Choreographer#doFrame 8"); // never ended
    let a = analyze(&b.build(), &FrameOptions::default());
    assert_eq!(a.rows.iter().map(|r| r.frame_id).collect::<Vec<_>>(), vec![Some(7)]);
    assert_eq!(a.quality.cut_by_trace_bounds, 2);
}

#[test]
fn perfetto_overrun_reads_display_frames_with_the_same_number() {
    // trace_processor's android_frames_overrun groups FrameTimeline slices by
    // name only: an app frame with no actual surface frame takes the overrun
    // of a SurfaceFlinger display frame that carries the same number (frame
    // 160 of its android_jank_cuj trace).
    let mut b = TB::new();
    b.process(1000, "com.android.systemui").thread(1000, 1000, "ui").thread(1555, 1000, "RenderThread");
    b.process(1050, "/system/bin/surfaceflinger");
    b.slice(1000, 800_000_000, 2_000_000, "Choreographer#doFrame 160").slice(
        1555,
        801_000_000,
        1_000_000,
        "DrawFrames 160",
    );
    b.expected_surface(1000, 160, 800_000_000, 20_000_000);
    b.expected_display(1050, 160, 1_070_000_000, 16_000_000).actual_display(1050, 160, 1_070_000_000, 16_000_000);
    let a = analyze(&b.build(), &FrameOptions::default());
    let r = &a.rows[0];
    // 1_086_000_000 − 820_000_000 (the first expected slice is the surface one).
    assert_eq!((r.perfetto_overrun_ns, r.overrun_ns, r.actual_ts), (Some(266_000_000), None, None));
    // No actual of the app → no app_vsync_delay; cpu = 2 ms + 5 ms.
    assert_eq!((r.app_vsync_delay, r.cpu_time, r.ui_time), (None, Some(7_000_000), Some(2_000_000)));
    assert_eq!((r.was_jank, r.was_slow_frame), (Some(true), None));
}

/// Perfetto's own `android_jank_cuj` test trace (the Frames__* conformance
/// cases), rebuilt from its generator's numbers: 15 systemui frames with
/// multiple DrawFrames, multiple layers, a missing actual timeline slice and
/// vsync delay. Expected values are trace_processor's output (expected.csv of
/// android_frame_stats, android_cpu_time_per_frame,
/// android_app_vsync_delay_per_frame, android_frames).
#[test]
fn perfetto_jank_cuj_reference() {
    const M: i64 = 1_000_000;
    let mut b = TB::new();
    b.process(1000, "com.android.systemui").thread(1000, 1000, "com.android.systemui").thread(
        1555,
        1000,
        "RenderThread",
    );
    b.process(1050, "/system/bin/surfaceflinger").thread(1050, 1050, "surfaceflinger");
    // (vsync, doFrame start, end, DrawFrames start, end)
    let frames: [(i64, i64, i64, i64, i64); 15] = [
        (10, 0, 5 * M, 4 * M, 5 * M),
        (20, 20 * M, 23 * M, 22 * M, 26 * M),
        (30, 30 * M, 33 * M, 31 * M, 50 * M),
        (40, 40 * M, 53 * M, 52 * M, 59 * M),
        (60, 70 * M, 80 * M, 78 * M, 87 * M),
        (90, 100 * M, 115 * M, 102 * M, 104 * M),
        (100, 200 * M, 215 * M, 202 * M, 204 * M),
        (110, 300 * M, 315 * M, 302 * M, 304 * M),
        (120, 400 * M, 415 * M, 402 * M, 404 * M),
        (130, 550 * M, 555 * M, 552 * M, 556 * M),
        (140, 608_500_000, 610 * M, 609 * M, 626 * M),
        (145, 655 * M, 675 * M, 657 * M, 660 * M),
        (150, 700 * M, 702 * M, 701_200_000, 715 * M),
        (160, 800 * M, 802 * M, 801 * M, 802 * M),
        (1000, 1100 * M, 1200 * M, 1150 * M, 1300 * M),
    ];
    for (vs, d0, d1, r0, r1) in frames {
        b.slice(1000, d0, d1 - d0, &format!("Choreographer#doFrame {vs}"))
            .slice(1555, r0, r1 - r0, &format!("DrawFrames {vs}"))
            .slice(1555, r1 - 100, 99, "GPU completion fence has signaled");
        if vs == 10 {
            b.slice(1000, d0, d1 - d0, "Choreographer#doFrame - resynced to 11 in 0.0s");
        }
    }
    b.slice(1555, 108 * M, 6 * M, "DrawFrames 90").slice(1555, 208 * M, 6 * M, "DrawFrames 100");
    b.slice(1000, 9 * M, 10 * M, "binder transaction").slice(1000, 500 * M, 49_500_000, "binder transaction").slice(
        1000,
        600 * M,
        8_049_000,
        "binder transaction",
    );
    // Display frames of SurfaceFlinger: token 100 + app token.
    for (tok, ts, exp, act) in [
        (10, 1000 * M, 16 * M, 16 * M),
        (20, 1016 * M, 20 * M, 10 * M),
        (30, 1032 * M, 16 * M, 16 * M),
        (40, 1048 * M, 16 * M, 16 * M),
        (60, 1070 * M, 16 * M, 16 * M),
        (90, 1100 * M, 16 * M, 16 * M),
        (100, 1200 * M, 16 * M, 32 * M),
    ] {
        b.expected_display(1050, 100 + tok, ts, exp).actual_display(1050, 100 + tok, ts, act);
    }
    let exp_start = [0, 8, 30, 40, 70, 100, 200, 300, 400, 500, 600, 650, 700, 800, 1100];
    for (k, (vs, ..)) in frames.iter().enumerate() {
        b.expected_surface(1000, *vs, exp_start[k] * M, if *vs == 10 { 16 * M } else { 20 * M });
    }
    let l = "TX - NotificationShade#0";
    for (tok, ts, dur, layer) in [
        (10, 0, 16 * M, l),
        (20, 8 * M, 28 * M, l),
        (30, 30 * M, 25 * M, l),
        (40, 40 * M, 40 * M, l),
        (60, 70 * M, 10 * M, l),
        (60, 70 * M, 20 * M, l),
        (90, 100 * M, 23 * M, l),
        (100, 200 * M, 22 * M, l),
        (110, 300 * M, 61 * M, l),
        (110, 300 * M, 80 * M, "TX - JankyLayer#1"),
        (120, 400 * M, 61 * M, l),
        (130, 500 * M, 2 * M, l),
        (130, 550 * M, 6 * M, l),
        (140, 608_600_000, 17 * M, l),
        (145, 650 * M, 20 * M, l),
        (150, 700_500_000, 14_500_000, l),
        (1000, 1100 * M, 500 * M, l),
    ] {
        b.actual_surface(1000, tok, ts, dur, layer, "None", PresentType::OnTime);
    }
    let a = analyze(&b.build(), &FrameOptions::default());
    assert_eq!(a.rows.len(), 15);
    // frame_id, overrun, cpu_time, ui_time, jank, slow, big, huge, app_vsync_delay, draw dur, draw count
    type Want = (i64, i64, i64, i64, [bool; 4], Option<i64>, i64, i64);
    let want: [Want; 15] = [
        (10, 0, 6 * M, 5 * M, [false; 4], Some(0), M, 1),
        (20, 8 * M, 7 * M, 3 * M, [true, false, false, false], Some(0), 4 * M, 1),
        (30, 5 * M, 22 * M, 3 * M, [true, true, false, false], Some(0), 19 * M, 1),
        (40, 20 * M, 20 * M, 13 * M, [true, false, false, false], Some(0), 7 * M, 1),
        (60, -10 * M, 19 * M, 10 * M, [false; 4], Some(0), 9 * M, 1),
        (90, 3 * M, 23 * M, 15 * M, [true, true, false, false], Some(0), 8 * M, 2),
        (100, 2 * M, 23 * M, 15 * M, [true, true, false, false], Some(0), 8 * M, 2),
        (110, 41 * M, 17 * M, 15 * M, [true, false, false, false], Some(0), 2 * M, 1),
        (120, 41 * M, 17 * M, 15 * M, [true, false, false, false], Some(0), 2 * M, 1),
        (130, -18 * M, 9 * M, 5 * M, [false; 4], Some(0), 4 * M, 1),
        (140, 5_600_000, 27_100_000, 1_500_000, [true, true, false, false], Some(8_600_000), 17 * M, 1),
        (145, 0, 23 * M, 20 * M, [false, true, false, false], Some(0), 3 * M, 1),
        (150, -5 * M, 16_300_000, 2 * M, [false; 4], Some(500_000), 13_800_000, 1),
        (160, 266 * M, 7 * M, 2 * M, [true, false, false, false], None, M, 1),
        (1000, 480 * M, 250 * M, 100 * M, [true; 4], Some(0), 150 * M, 1),
    ];
    let t = |b: bool| b.then_some(true);
    for (r, w) in a.rows.iter().zip(want) {
        let (id, overrun, cpu, ui, flags, delay, draw, count) = w;
        assert_eq!(r.frame_id, Some(id));
        assert_eq!((r.perfetto_overrun_ns, r.cpu_time, r.ui_time), (Some(overrun), Some(cpu), Some(ui)), "frame {id}");
        assert_eq!([r.was_jank, r.was_slow_frame, r.was_big_jank, r.was_huge_jank], flags.map(t), "frame {id}");
        assert_eq!((r.app_vsync_delay, r.draw_frame_dur, r.draw_frame_count), (delay, Some(draw), count), "frame {id}");
    }
    // Layers: 60, 110 and 130 have two actual surface frames; 160 none.
    let lc: Vec<i64> = a.rows.iter().map(|r| r.layer_count).collect();
    assert_eq!(lc, vec![1, 1, 1, 1, 2, 1, 1, 2, 1, 2, 1, 1, 1, 0, 1]);
    // Frame 130 started 50 ms after its vsync, held by a 49.5 ms binder call.
    let i130 = 9;
    let w = a.why.iter().find(|w| w.frame_index == i130).expect("130 is janky");
    assert_eq!(
        w.blockers,
        vec![Blocker { name: "binder transaction".into(), ts: 500 * M, dur: 49_500_000, delay_ns: 49_500_000 }]
    );
    assert_eq!(w.dominant_phase.as_str(), "start_jitter");
}

/// Scale check (run with `--ignored --nocapture`): 200k frames, ~1.8M slices.
#[test]
#[ignore]
fn large_trace_timing() {
    let mut b = TB::new();
    b.process(100, "com.app").thread(100, 100, "com.app").thread(101, 100, "RenderThread");
    b.process(50, "/system/bin/surfaceflinger").thread(50, 50, "sf");
    let n = 200_000i64;
    for k in 0..n {
        let vs = V0 + k * P;
        let ts = vs + 1_000_000 + (k % 7) * 300_000;
        b.slice(100, ts, 6_000_000, &format!("Choreographer#doFrame {k}"));
        b.slice(100, ts, 500_000, "input").slice(100, ts + 600_000, 3_000_000, "traversal");
        b.slice(100, ts + 700_000, 1_000_000, "draw").slice(100, ts + 4_000_000, 500_000, "commit");
        b.slice(101, ts + 4_600_000, 3_000_000, &format!("DrawFrames {k}"));
        b.slice(50, vs, 1_000_000, "onMessageInvalidate");
        b.counter(50, "VSYNC-app", vs, (k % 2) as f64);
        b.expected_surface(100, k, vs, P).actual_surface(100, k, vs, 12_000_000, "L#0", "None", PresentType::OnTime);
    }
    let tr = b.build();
    let t0 = std::time::Instant::now();
    let a = analyze(&tr, &FrameOptions::default());
    eprintln!("{} slices, {} frames: analyze {:?}", tr.slices.len(), a.rows.len(), t0.elapsed());
    assert_eq!(a.rows.len() as i64, n);
}

#[test]
fn absurd_refresh_override_does_not_panic() {
    for hz in [1e12, -5.0, f64::NAN, 0.0] {
        let a = analyze(&android11(), &FrameOptions { refresh_hz: Some(hz), ..Default::default() });
        assert_eq!(a.rows.len(), 2);
        assert!(a.rows.iter().all(|r| r.frame_interval_ns > 0));
    }
}

/// One 3-frame recording (tokens 1–3) repeated three times, 10 s apart, as
/// when captures are joined: every frame takes only its own recording's
/// DrawFrames and surface frames. Recording r draws for (r + 1) ms and its
/// actual surface frames last (r + 11) ms.
#[test]
fn repeated_vsync_ids_match_within_their_own_recording() {
    const GAP: i64 = 10_000_000_000;
    const MS: i64 = 1_000_000;
    let mut b = TB::new();
    b.process(100, "com.app").thread(100, 100, "com.app").thread(101, 100, "RenderThread");
    for r in 0..3i64 {
        for token in 1..=3i64 {
            let vsync = v(token) + r * GAP;
            let ts = vsync + MS;
            b.slice(100, ts, 5 * MS, &format!("Choreographer#doFrame {token}")).slice(
                101,
                ts + 6 * MS,
                (r + 1) * MS,
                &format!("DrawFrames {token}"),
            );
            b.expected_surface(100, token, vsync, P).actual_surface(
                100,
                token,
                vsync,
                (r + 11) * MS,
                "com.app/Main#0",
                "None",
                PresentType::OnTime,
            );
        }
    }
    let a = analyze(&b.build(), &FrameOptions::default());
    assert_eq!(a.rows.len(), 9);
    assert_eq!((a.quality.repeated_ids, a.quality.repeated_id_values, a.quality.max_id_uses), (9, 3, 3));
    for (k, row) in a.rows.iter().enumerate() {
        let (r, token) = (k as i64 / 3, k as i64 % 3 + 1);
        let vsync = v(token) + r * GAP;
        assert_eq!(row.frame_id, Some(token));
        assert_eq!((row.vsync_ts, row.vsync_source), (Some(vsync), Some(VsyncSource::FrameTimeline)), "frame {k}");
        assert_eq!((row.draw_frame_count, row.draw_frame_dur), (1, Some((r + 1) * MS)), "frame {k}");
        assert_eq!(row.draw_frame_ts, Some(vsync + 7 * MS), "frame {k}");
        assert_eq!((row.layer_count, row.actual_end), (1, Some(vsync + (r + 11) * MS)), "frame {k}");
        assert_eq!(row.expected_end, Some(vsync + P), "frame {k}");
    }
}
