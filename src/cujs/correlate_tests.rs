//! `correlate` tests.
//!
//! `correlate` on a tiny hand-built trace: one CUJ of SystemUI with three
//! doFrames (vsyncs 1, 2, 3), SurfaceFlinger composing them in display
//! frames 101, 102, 103. Every expected value is worked out in the comments
//! (times in ms after `B`).

use super::correlate::{Bound, Correlator, CujFrames, FrameSlices, ThreadSet};
use crate::frames::{analyze as frames_analyze, FrameAnalysis, FrameOptions};
use crate::model::testutil::TB;
use crate::model::{JankTag, PresentType, Slice, SliceId, TimelineKind, Trace, Track, TrackId, TrackKind};

const MS: i64 = 1_000_000;
const B: i64 = 100 * MS;
/// `B + ms` in ns (half milliseconds allowed).
fn t(ms: f64) -> i64 {
    B + (ms * MS as f64) as i64
}
fn d(ms: f64) -> i64 {
    (ms * MS as f64) as i64
}

const APP: i32 = 1000;
const RT: i32 = 1001;
const JIT: i32 = 1002;
const SF: i32 = 50;
const RE: i32 = 51;

fn trace() -> Trace {
    let mut b = TB::new();
    b.process(APP, "com.android.systemui")
        .thread(APP, APP, "com.android.systemui")
        .thread(RT, APP, "RenderThread")
        .thread(JIT, APP, "Jit thread pool");
    b.process(SF, "/system/bin/surfaceflinger").thread(SF, SF, "surfaceflinger").thread(RE, SF, "RenderEngine");

    // vsync 1: expected [0, 16], actual [1, 20] (App Deadline Missed).
    // doFrame [2, 8] with a postAndWait at 6; DrawFrames [7, 12] signalled a fence.
    b.slice(APP, t(0.5), d(1.0), "binder transaction")
        .slice(APP, t(2.0), d(6.0), "Choreographer#doFrame 1")
        .slice(APP, t(3.0), d(1.0), "binder transaction")
        .slice(APP, t(6.0), d(1.0), "postAndWait")
        .slice(RT, t(7.0), d(5.0), "DrawFrames 1")
        .slice(RT, t(9.0), d(1.0), "flush layers")
        .slice(RT, t(11.0), d(0.5), "GPU completion fence 11 has signaled");
    b.expected_surface(APP, 1, t(0.0), d(16.0)).actual_surface(
        APP,
        1,
        t(1.0),
        d(19.0),
        "L#0",
        "App Deadline Missed",
        PresentType::Late,
    );
    // vsync 2: doFrame [20, 30]; its DrawFrames [29, 35] signalled no fence,
    // so it is no app frame (and takes no frame number).
    b.slice(APP, t(20.0), d(10.0), "Choreographer#doFrame 2").slice(RT, t(29.0), d(6.0), "DrawFrames 2");
    b.expected_surface(APP, 2, t(16.0), d(16.0)).actual_surface(
        APP,
        2,
        t(16.0),
        d(24.0),
        "L#0",
        "None",
        PresentType::OnTime,
    );
    // vsync 3: expected [33, 49], actual [45, 60]; the doFrame [40, 50]
    // starts more than 1 ms before the actual frame, so its boundary starts
    // at the doFrame. postAndWait at 47, DrawFrames [48, 55] with a fence.
    b.slice(APP, t(40.0), d(10.0), "Choreographer#doFrame 3")
        .slice(APP, t(41.0), d(2.0), "binder transaction")
        .slice(APP, t(47.0), d(1.0), "postAndWait")
        .slice(RT, t(48.0), d(7.0), "DrawFrames 3")
        .slice(RT, t(54.0), d(0.5), "GPU completion fence 31 has signaled");
    b.expected_surface(APP, 3, t(33.0), d(16.0)).actual_surface(
        APP,
        3,
        t(45.0),
        d(15.0),
        "L#0",
        "None",
        PresentType::OnTime,
    );
    // The JIT pool: two compilations across frames, one other slice.
    b.slice(JIT, t(15.0), d(30.0), "JIT compiling a")
        .slice(JIT, t(46.0), d(1.0), "Lock contention on Jit code cache")
        .slice(JIT, t(58.0), d(12.0), "JIT compiling b");

    // SurfaceFlinger. 101: expected [20, 36], commit [22, 23], composite
    // [24, 30] holding composeSurfaces [25, 29]; RenderEngine drawLayers
    // [26, 28] with a shader compile inside and one before it.
    b.expected_display(SF, 101, t(20.0), d(16.0)).actual_display(SF, 101, t(20.0), d(16.0));
    b.slice(SF, t(10.0), d(11.5), "sf binder")
        .slice(SF, t(22.0), d(1.0), "commit 101")
        .slice(SF, t(24.0), d(6.0), "composite 101")
        .slice(SF, t(25.0), d(4.0), "composeSurfaces")
        .slice(RE, t(24.5), d(1.0), "shader compile")
        .slice(RE, t(26.0), d(2.0), "REThreaded::drawLayers")
        .slice(RE, t(26.5), d(1.0), "shader compile");
    // 102: no main-thread work, so no SF frame.
    b.expected_display(SF, 102, t(36.0), d(16.0)).actual_display(SF, 102, t(36.0), d(16.0));
    // 103: expected [60, 76], onMessageInvalidate [62, 70], Self Jank.
    b.expected_display(SF, 103, t(60.0), d(16.0)).actual_display(SF, 103, t(60.0), d(30.0));
    b.slice(SF, t(62.0), d(8.0), "onMessageInvalidate 103").slice(SF, t(69.0), d(6.0), "sf binder");
    let mut trace = b.build();

    for f in &mut trace.frame_timeline {
        match f.kind {
            TimelineKind::ActualSurface => f.display_frame_token = Some(100 + f.token),
            TimelineKind::ActualDisplay => {
                f.jank_tag = Some(if f.token == 103 { JankTag::SelfJank } else { JankTag::NoJank })
            }
            _ => {}
        }
    }
    // The CUJ slice [0, 100] on an async track of the app (no markers: it
    // counts, being longer than 4 ms).
    let upid = trace.processes[0].upid;
    let track = TrackId::next_of(trace.tracks.len());
    trace.tracks.push(Track { id: track, name: Some("J<TEST>".into()), kind: TrackKind::ProcessAsync { upid } });
    trace.slices.push(Slice {
        id: SliceId::next_of(trace.slices.len()),
        ts: t(0.0),
        dur: d(100.0),
        name: "J<TEST>".into(),
        category: None,
        track,
        depth: 0,
        parent: None,
    });
    trace
}

fn setup() -> (Trace, FrameAnalysis) {
    let trace = trace();
    let frames = frames_analyze(&trace, &FrameOptions::default());
    (trace, frames)
}

fn frames_of(trace: &Trace, frames: &FrameAnalysis) -> (Vec<super::Cuj>, CujFrames) {
    let cujs = super::analyze(trace, frames).cujs;
    assert_eq!(cujs.len(), 1);
    let f = Correlator::new(trace, frames, &cujs).frames(&cujs[0]);
    (cujs, f)
}

fn bound(vsync: i64, ts: f64, ts_end: f64) -> (i64, i64, i64) {
    (vsync, t(ts), t(ts_end))
}
fn spans(bounds: &[Bound]) -> Vec<(i64, i64, i64)> {
    bounds.iter().map(|b| (b.vsync, b.ts, b.ts_end)).collect()
}

#[test]
fn app_frames_and_their_boundaries() {
    let (trace, frames) = setup();
    let (_, f) = frames_of(&trace, &frames);
    // Main thread: vsync 1 from its expected start 0 (the doFrame at 2 is
    // within 1 ms of the actual start 1); vsync 2 from the previous doFrame
    // end 8 or its expected start 16, the later; vsync 3 from its doFrame.
    assert_eq!(spans(&f.main_thread), vec![bound(1, 0.0, 8.0), bound(2, 16.0, 30.0), bound(3, 40.0, 50.0)]);
    assert_eq!(f.main_thread_boundary, Some((t(0.0), t(50.0))));
    // Frames: vsync 2 drew nothing, so vsync 3 is frame 2. A frame ends with
    // its actual frame; vsync 1 missed (App Deadline Missed).
    let got: Vec<_> = f.app.iter().map(|a| (a.frame_number, a.vsync, a.ts, a.ts_end, a.app_missed)).collect();
    assert_eq!(got, vec![(1, 1, t(0.0), t(20.0), Some(true)), (2, 3, t(40.0), t(60.0), Some(false))]);
    assert!(f.app.iter().all(|a| a.dur_expected == d(16.0) && a.sf_missed == Some(false)));
    // RenderThread: DrawFrame ends 12, 35, 55 in vsync order; vsync 1 from
    // its postAndWait 6 (before the DrawFrame at 7); vsync 3 from its
    // postAndWait 47 (after the previous DrawFrame's end 35); vsync 2 has
    // no postAndWait.
    assert_eq!(spans(&f.render_thread), vec![bound(1, 6.0, 12.0), bound(3, 47.0, 55.0)]);
    // The app's CUJ boundary ends with the last vsync's actual frame.
    assert_eq!(f.app_boundary, Some((t(0.0), t(60.0))));
}

#[test]
fn sf_frames_and_their_boundaries() {
    let (trace, frames) = setup();
    let (_, f) = frames_of(&trace, &frames);
    // 101: expected start 20 to composite end 30; 103: 60 to
    // onMessageInvalidate's end 70; 102 has no main-thread work.
    assert_eq!(spans(&f.sf_main_thread), vec![bound(101, 20.0, 30.0), bound(103, 60.0, 70.0)]);
    let got: Vec<_> = f.sf.iter().map(|s| (s.frame_number, s.vsync, s.ts_main_thread_start, s.sf_missed)).collect();
    assert_eq!(got, vec![(1, 101, t(22.0), Some(false)), (2, 103, t(62.0), Some(true))]);
    // RenderEngine: composeSurfaces start 25 to drawLayers end 28.
    assert_eq!(spans(&f.render_engine), vec![bound(101, 25.0, 28.0)]);
    assert_eq!(f.sf_boundary, Some((t(20.0), t(70.0))));
}

fn agg(frame_number: i64, vsync: i64, app: Option<bool>, sf: Option<bool>, sum: f64, max: f64) -> FrameSlices {
    FrameSlices {
        frame_number,
        vsync,
        dur_expected: d(16.0),
        app_missed: app,
        sf_missed: sf,
        slice_dur_sum: d(sum),
        slice_dur_max: d(max),
    }
}

#[test]
fn slices_are_clipped_to_each_sets_frame_boundaries() {
    let (trace, frames) = setup();
    let (cujs, f) = frames_of(&trace, &frames);
    let c = Correlator::new(&trace, &frames, &cujs);
    // Main thread: binders [0.5, 1.5] and [3, 4] in [0, 8]; [41, 43] in [40, 50].
    assert_eq!(
        c.correlate(&f, ThreadSet::MainThread, |n| n == "binder transaction"),
        vec![agg(1, 1, Some(true), Some(false), 2.0, 1.0), agg(2, 3, Some(false), Some(false), 2.0, 2.0)]
    );
    // App threads: frames [0, 20] and [40, 60]. JIT a [15, 45] gives 5 to
    // each; JIT b [58, 70] 2 to the second; the lock contention is not asked for.
    assert_eq!(
        c.correlate(&f, ThreadSet::AppThreads, |n| n.starts_with("JIT compiling")),
        vec![agg(1, 1, Some(true), Some(false), 5.0, 5.0), agg(2, 3, Some(false), Some(false), 7.0, 5.0)]
    );
    // RenderThread: flush layers [9, 10] inside [6, 12].
    assert_eq!(
        c.correlate(&f, ThreadSet::RenderThread, |n| n == "flush layers"),
        vec![agg(1, 1, Some(true), Some(false), 1.0, 1.0)]
    );
    // SF main thread: sf binder [10, 21.5] → [20, 21.5]; [69, 75] → [69, 70].
    assert_eq!(
        c.correlate(&f, ThreadSet::SfMainThread, |n| n == "sf binder"),
        vec![agg(1, 101, None, Some(false), 1.5, 1.5), agg(2, 103, None, Some(true), 1.0, 1.0)]
    );
    // RenderEngine [25, 28]: shader compiles [24.5, 25.5] → 0.5 and [26.5, 27.5] → 1.
    assert_eq!(
        c.correlate(&f, ThreadSet::SfRenderEngine, |n| n == "shader compile"),
        vec![agg(1, 101, None, Some(false), 1.5, 1.0)]
    );
    // SF threads: the SF frame [60, 70] holds sf binder's [69, 70] (and
    // [20, 30] its [20, 21.5]).
    assert_eq!(
        c.correlate(&f, ThreadSet::SfThreads, |n| n == "sf binder"),
        vec![agg(1, 101, None, Some(false), 1.5, 1.5), agg(2, 103, None, Some(true), 1.0, 1.0)]
    );
}

#[test]
fn no_surfaceflinger_no_sf_frames() {
    let (mut trace, _) = setup();
    trace.processes[1].name = Some("other".into());
    let frames = frames_analyze(&trace, &FrameOptions::default());
    let (cujs, f) = frames_of(&trace, &frames);
    assert!(f.sf.is_empty() && f.sf_boundary.is_none());
    let c = Correlator::new(&trace, &frames, &cujs);
    assert!(c.correlate(&f, ThreadSet::SfMainThread, |_| true).is_empty());
    assert_eq!(f.app.len(), 2);
}
