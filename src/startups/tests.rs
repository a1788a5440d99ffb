//! The startup rules on hand-made models (the SDK paths end to end, against
//! trace_processor too, are in tests/integration/startups.rs).

use super::*;
use crate::model::testutil::TB;

const MS: i64 = 1_000_000;

/// system_server (pid 1) and an app (pid 50, RenderThread 51) whose main
/// thread ran `slices` (name, from ms, to ms).
fn app(slices: &[(&str, i64, i64)]) -> TB {
    let mut tb = TB::new();
    tb.process(1, "system_server").thread(1, 1, "system_server");
    tb.process(50, "com.app").thread(50, 50, "com.app").thread(51, 50, "RenderThread");
    for &(name, from, to) in slices {
        tb.slice(50, from * MS, (to - from) * MS, name);
    }
    tb
}

/// One frame of the app from `ts` ms to the end of its DrawFrame, which starts at `draw` ms.
fn frame(trace: &Trace, frame_id: i64, ts: i64, draw: i64) -> DisplayFrame {
    let draw = trace.slices.iter().find(|s| &*s.name == "DrawFrame" && s.ts == draw * MS).expect("its DrawFrame");
    let upid = trace.processes.iter().find(|p| p.pid == 50).map(|p| p.upid);
    let ui_thread = trace.threads.iter().find(|t| t.tid == 50).unwrap().utid;
    let dur = draw.ts + draw.dur - ts * MS;
    // The startups do not read the doFrame.
    DisplayFrame { frame_id, ts: ts * MS, dur, upid, ui_thread, draw_frame: draw.id, do_frame: draw.id }
}

fn with_sdk(mut trace: Trace, sdk: u64) -> Trace {
    trace.meta.android.sdk_version = Some(sdk);
    trace
}

#[test]
fn a_completion_names_the_type_and_an_untyped_one_falls_back_to_the_main_thread() {
    let mut tb = app(&[("activityStart", 110, 120), ("activityResume", 120, 130)]);
    tb.slice(51, 140 * MS, 10 * MS, "DrawFrame");
    tb.async_slice(1, "launchingActivity#7", 100 * MS, 100 * MS, "launchingActivity#7");
    tb.async_slice(1, "done", 200 * MS, 0, "launchingActivity#7:completed:com.app");
    // Same process: not a completion; #8 has no other and is no startup.
    tb.async_slice(1, "launchingActivity#8", 300 * MS, 10 * MS, "launchingActivity#8");
    tb.async_slice(1, "done", 310 * MS, 0, "launchingActivity#8:completed-same-process:com.app");
    let trace = with_sdk(tb.build(), 34);
    let got = analyze(&trace, || vec![frame(&trace, 9, 140, 140)]).startups;
    assert_eq!(got.len(), 1, "{got:?}");
    let s = &got[0];
    assert_eq!((s.id, s.ts, s.dur, &*s.package), (7, 100 * MS, 100 * MS, "com.app"));
    // activityStart and activityResume, no bindApplication: warm.
    assert_eq!(s.startup_type, Some(StartupType::Warm));
    assert_eq!(s.ttid, Some(Display { dur: 50 * MS, frame_id: 9 }));
    assert_eq!(s.ttfd, None);
}

#[test]
fn the_sdk_29_span_needs_one_launch_and_a_finish() {
    let mut tb = app(&[("bindApplication", 20, 40), ("activityStart", 40, 50), ("activityResume", 50, 60)]);
    tb.slice(1, 10 * MS, MS, "MetricsLogger:launchObserverNotifyIntentStarted");
    tb.async_slice(1, "launching: com.app", 12 * MS, 70 * MS, "launching: com.app");
    tb.slice(1, 90 * MS, MS, "MetricsLogger:launchObserverNotifyActivityLaunchFinished");
    // A second intent whose span holds two launches: no startup.
    tb.slice(1, 200 * MS, MS, "MetricsLogger:launchObserverNotifyIntentStarted");
    tb.async_slice(1, "launching: a", 210 * MS, 5 * MS, "launching: com.a");
    tb.async_slice(1, "launching: b", 220 * MS, 5 * MS, "launching: com.b");
    tb.slice(1, 230 * MS, MS, "MetricsLogger:launchObserverNotifyActivityLaunchFinished");
    let trace = with_sdk(tb.build(), 30);
    let got = analyze(&trace, Vec::new).startups;
    assert_eq!(got.len(), 1, "{got:?}");
    let s = &got[0];
    // From the intent to the launch's end; cold by the main thread.
    assert_eq!((s.id, s.ts, s.ts_end, s.startup_type), (0, 10 * MS, 82 * MS, Some(StartupType::Cold)));
    assert_eq!((s.ttid, s.ttfd), (None, None));
}

#[test]
fn a_trace_without_launch_events_asks_for_no_frames() {
    let trace = with_sdk(app(&[("activityStart", 1, 2)]).build(), 34);
    let got = analyze(&trace, || panic!("frames read without a startup"));
    assert!(got.startups.is_empty());
}

#[test]
fn ttfd_is_the_first_frame_ending_after_report_fully_drawn() {
    let mut tb = app(&[("activityResume", 110, 120), ("reportFullyDrawn", 165, 166)]);
    for (ts, dur) in [(130, 10), (160, 10), (180, 10)] {
        tb.slice(51, ts * MS, dur * MS, "DrawFrame");
    }
    tb.async_slice(1, "launchingActivity#1", 100 * MS, 50 * MS, "launchingActivity#1");
    tb.async_slice(1, "done", 150 * MS, 0, "launchingActivity#1:completed-hot:com.app");
    let trace = with_sdk(tb.build(), 33);
    // Frames from 125, 155 (ending at 170, after the report at 165) and 175.
    let frames = vec![frame(&trace, 1, 125, 130), frame(&trace, 2, 155, 160), frame(&trace, 3, 175, 180)];
    let s = analyze(&trace, || frames).startups.remove(0);
    assert_eq!(s.startup_type, Some(StartupType::Hot));
    assert_eq!(s.ttid, Some(Display { dur: 40 * MS, frame_id: 1 }));
    assert_eq!(s.ttfd, Some(Display { dur: 70 * MS, frame_id: 2 }));
}

#[test]
fn a_startup_is_explained_by_its_main_thread_and_the_path_to_its_first_frame() {
    use crate::frames::critical_path::PathTotal;
    use crate::frames::ThreadStateSplit;
    use crate::model::{SchedEvent, Waker};
    // The main thread binds (waiting 115–145 in `Init.slow` for a worker
    // that decodes meanwhile), starts, resumes and draws its first frame,
    // which RenderThread finishes at 190: TTID 90 ms.
    let mut tb = app(&[
        ("bindApplication", 110, 150),
        ("Init.slow", 115, 145),
        ("activityStart", 150, 160),
        ("activityResume", 160, 170),
        ("Choreographer#doFrame 1", 172, 180),
    ]);
    tb.thread(52, 50, "worker").slice(52, 115 * MS, 30 * MS, "decode");
    tb.slice(51, 180 * MS, 10 * MS, "DrawFrame");
    tb.async_slice(1, "launchingActivity#1", 100 * MS, 100 * MS, "launchingActivity#1");
    tb.async_slice(1, "done", 200 * MS, 0, "launchingActivity#1:completed-cold:com.app");
    tb.sched(SchedEvent::SwitchIn { ts: 110 * MS, tid: 50, cpu: 0 })
        .sched(SchedEvent::SwitchOut { ts: 115 * MS, tid: 50, cpu: 0, prev_state: 1 })
        .sched(SchedEvent::Waking { ts: 145 * MS, tid: 50, waker: Waker::of(Some(52)) })
        .sched(SchedEvent::SwitchIn { ts: 145 * MS, tid: 50, cpu: 0 })
        .sched(SchedEvent::SwitchOut { ts: 195 * MS, tid: 50, cpu: 0, prev_state: 0 });
    let trace = with_sdk(tb.build(), 34);
    let frames = crate::frames::analyze(&trace, &crate::frames::FrameOptions::default());
    let mut startups = analyze(&trace, || vec![frame(&trace, 1, 172, 180)]).startups;
    assert_eq!(startups[0].ttid, Some(Display { dur: 90 * MS, frame_id: 1 }));
    explain(&trace, &frames, &mut startups);
    let why = startups[0].why.clone().expect("explained");
    let split = |running: i64, sleeping: i64| {
        Some(ThreadStateSplit { running_ns: running * MS, sleeping_ns: sleeping * MS, ..Default::default() })
    };
    assert_eq!((why.before_app_ns, why.until_ns), (10 * MS, 90 * MS));
    let milestones: Vec<_> =
        why.milestones.iter().map(|m| (m.name, m.at_ns / MS, m.dur_ns / MS, m.thread_state.clone())).collect();
    assert_eq!(
        milestones,
        [
            ("bindApplication", 10, 40, split(10, 30)),
            ("activityStart", 50, 10, split(10, 0)),
            ("activityResume", 60, 10, split(10, 0)),
            ("Choreographer#doFrame", 72, 8, split(8, 0)),
        ]
    );
    // 110–190: running 5 + 45 ms, asleep 30.
    assert_eq!(why.main_thread, split(50, 30));
    let total = |tid: i32, thread: &str, slice: Option<&str>, ms: i64| PathTotal {
        tid,
        thread: Some(thread.into()),
        slice: slice.map(Into::into),
        ns: ms * MS,
    };
    // The worker's decode holds the sleep; the main thread outside its
    // slices (170–172, 180–190) comes next, then the ties of 10 ms by name.
    assert_eq!(
        why.causes,
        [
            total(52, "worker", Some("decode"), 30),
            total(50, "com.app", None, 12),
            total(50, "com.app", Some("activityResume"), 10),
        ]
    );
    // Matrix: bindApplication's 40 ms; from its start (10 ms in) to TTID's end (90).
    assert_eq!(
        why.matrix,
        Some(MatrixCosts {
            application_cost_ns: Some(40 * MS),
            cold_cost_ns: Some(80 * MS),
            warm_cost_ns: None,
            threshold_ms: 10_000,
            over_threshold: false,
        })
    );
}

#[test]
fn matrix_warm_cost_runs_from_the_launch_and_thresholds_flag_slow_starts() {
    let milestone =
        |name, at_ms: i64, dur_ms: i64| Milestone { name, at_ns: at_ms * MS, dur_ns: dur_ms * MS, thread_state: None };
    let warm = [milestone("activityStart", 100, 50), milestone("activityResume", 150, 50)];
    let costs = why::matrix_costs(false, &warm, 4_200 * MS).expect("warm");
    assert_eq!((costs.warm_cost_ns, costs.cold_cost_ns), (Some(4_100 * MS), None));
    assert_eq!((costs.threshold_ms, costs.over_threshold), (4_000, true));
    // Hot: no activityStart, from the resume.
    let hot = [milestone("activityResume", 20, 10)];
    assert_eq!(why::matrix_costs(false, &hot, 120 * MS).and_then(|c| c.warm_cost_ns), Some(100 * MS));
    // Cold without bindApplication: no Matrix cost.
    assert_eq!(why::matrix_costs(true, &warm, 4_200 * MS), None);
    // Exactly at the threshold is not over it.
    let bind = [milestone("bindApplication", 0, 1_000)];
    let costs = why::matrix_costs(true, &bind, 10_000 * MS).expect("cold");
    assert_eq!((costs.cold_cost_ns, costs.over_threshold), (Some(10_000 * MS), false));
}
