//! CUJs on a hand-built trace; every expected value worked out by hand from
//! the trace below (the rules: docs/cujs.md).

use super::*;
use crate::frames::{analyze as frames_analyze, FrameOptions};
use crate::model::testutil::TB;
use crate::model::PresentType;

const MS: i64 = 1_000_000;
const SYSUI: i32 = 1000;
const UI: i32 = 1001;
const RT: i32 = 1002;
const APP: i32 = 2000;
const SHADE: &str = "TX - NotificationShade#3";

/// SystemUI with its UI thread 1001 drawing frames 100..=104 (doFrame at
/// 10 + 16k ms for 5 ms, DrawFrames 3 ms later on RenderThread), main
/// thread 1000 drawing frames 200 and 201 (105 and 121 ms, 5 ms) without
/// FrameTimeline, and three CUJs:
/// - `J<SHADE_EXPAND>` 9..89 ms on UI thread 1001, layer 3, vsyncs 101..=103,
///   ended (`FT#endVsync`);
/// - `J<CANCELED_ONE>` 50..60 ms, canceled;
/// - `J<LEGACY>` 100..140 ms with no markers at all (an older build).
///
/// FrameTimeline: frame 100+k expected at 9 + 16k ms for 16 ms, actual on
/// the shade layer at the same start for 16 ms, except frame 102 (30 ms,
/// App Deadline Missed); frame 103 also drew the status bar layer with a
/// SurfaceFlinger Scheduling jank. A third-party app's `J<X>` is not read.
fn trace() -> crate::model::Trace {
    let mut b = TB::new();
    b.process(SYSUI, "com.android.systemui")
        .thread(SYSUI, SYSUI, "ndroid.systemui")
        .thread(UI, SYSUI, "SysUiBg")
        .thread(RT, SYSUI, "RenderThread")
        .process(APP, "com.example.app")
        .thread(APP, APP, "com.example.app");
    for k in 0..5 {
        let (id, ts) = (100 + k, 10 * MS + 16 * MS * k);
        b.slice(UI, ts, 5 * MS, &format!("Choreographer#doFrame {id}"));
        b.slice(RT, ts + 5 * MS, 3 * MS, &format!("DrawFrames {id}"));
        let start = ts - MS;
        b.expected_surface(SYSUI, id, start, 16 * MS);
        let (dur, jank) = if id == 102 { (30 * MS, "App Deadline Missed") } else { (16 * MS, "None") };
        b.actual_surface(SYSUI, id, start, dur, SHADE, jank, PresentType::OnTime);
        if id == 103 {
            b.actual_surface(
                SYSUI,
                id,
                start,
                16 * MS,
                "TX - StatusBar#5",
                "SurfaceFlinger Scheduling",
                PresentType::OnTime,
            );
        }
    }
    for (id, ts) in [(200, 105 * MS), (201, 121 * MS)] {
        b.slice(SYSUI, ts, 5 * MS, &format!("Choreographer#doFrame {id}"));
        b.slice(RT, ts + 5 * MS, 3 * MS, &format!("DrawFrames {id}"));
    }
    let shade = "J<SHADE_EXPAND>";
    b.async_slice(SYSUI, shade, 9 * MS, 80 * MS, shade)
        .slice(UI, 9 * MS + 1, 0, &format!("{shade}#UIThread"))
        .async_slice(SYSUI, shade, 9 * MS + 2, 0, "FT#beginVsync#101")
        .async_slice(SYSUI, shade, 9 * MS + 3, 0, "FT#layerId#3")
        .async_slice(SYSUI, shade, 88 * MS, 0, "FT#endVsync#103");
    b.async_slice(SYSUI, "J<CANCELED_ONE>", 50 * MS, 10 * MS, "J<CANCELED_ONE>").async_slice(
        SYSUI,
        "J<CANCELED_ONE>",
        55 * MS,
        0,
        "FT#cancel#0",
    );
    b.async_slice(SYSUI, "J<LEGACY>", 100 * MS, 40 * MS, "J<LEGACY>");
    b.async_slice(APP, "J<X>", 10 * MS, 50 * MS, "J<X>");
    b.build()
}

fn cujs() -> (crate::model::Trace, Vec<Cuj>, crate::frames::FrameAnalysis) {
    let t = trace();
    let frames = frames_analyze(&t, &FrameOptions::default());
    let cujs = analyze(&t, &frames).cujs;
    (t, cujs, frames)
}

#[test]
fn platform_cujs_in_start_order_with_their_markers() {
    let (t, cujs, _) = cujs();
    let names: Vec<&str> = cujs.iter().map(|c| &*c.slice_name).collect();
    assert_eq!(names, ["J<SHADE_EXPAND>", "J<CANCELED_ONE>", "J<LEGACY>"]);
    assert_eq!(cujs.iter().map(|c| c.id).collect::<Vec<_>>(), [1, 2, 3]);
    let shade = &cujs[0];
    assert_eq!(shade.name(), "SHADE_EXPAND");
    assert_eq!(shade.state, Some(CujState::Completed));
    assert_eq!(shade.ui_thread.map(|u| t.thread(u).tid), Some(UI));
    assert_eq!((shade.layer_id, shade.begin_vsync, shade.end_vsync), (Some(3), Some(101), Some(103)));
    assert!(shade.counted);
    let canceled = &cujs[1];
    assert_eq!((canceled.state, canceled.counted), (Some(CujState::Canceled), false));
    assert!(canceled.frames.is_empty() && canceled.timeline.is_none());
    let legacy = &cujs[2];
    assert_eq!((legacy.state, legacy.counted), (None, true), "no markers, longer than 4 ms: counted");
}

#[test]
fn frames_boundaries_layer_and_timeline_of_a_marked_cuj() {
    let (_, cujs, frames) = cujs();
    let shade = &cujs[0];
    // doFrames 101..=103 on the UI thread: 100 and 104 are outside the marked vsyncs.
    let ids: Vec<i64> = shade.frames.iter().map(|&i| frames.rows[i].frame_id.unwrap()).collect();
    assert_eq!(ids, [101, 102, 103]);
    assert_eq!(shade.vsyncs, Some((101, 103)));
    // Frame 101: expected start 25 ms (its actual frame 25..41 ms holds the
    // doFrame's 26 ms start); frames 102 and 103 start at their expected
    // 41 and 57 ms, after the previous doFrame ends (31, 47 ms); the last
    // doFrame ends at 58 + 5 = 63 ms.
    assert_eq!(shade.boundary, Some((25 * MS, 63 * MS)));
    assert_eq!(shade.span(), (25 * MS, 63 * MS));
    assert_eq!(shade.layer_name.as_deref(), Some(SHADE), "the layer the marker names");
    // First layer frame 101 expected at 25 ms, last 103's doFrame ends at 63 ms.
    assert_eq!(shade.layer_span, Some((Some(25 * MS), 63 * MS)));
    // On the shade layer: 101, 102 (App Deadline Missed), 103; the status
    // bar's SurfaceFlinger jank is another layer's.
    assert_eq!(shade.timeline, Some(TimelineCounts { frames: 3, missed_app_frames: 1, missed_sf_frames: 0 }));
}

#[test]
fn an_unmarked_cuj_uses_the_main_thread_and_its_doframes() {
    let (_, cujs, frames) = cujs();
    let legacy = &cujs[2];
    let ids: Vec<i64> = legacy.frames.iter().map(|&i| frames.rows[i].frame_id.unwrap()).collect();
    assert_eq!(ids, [200, 201]);
    assert_eq!(legacy.vsyncs, Some((200, 201)));
    // No FrameTimeline: from the first doFrame's start to the last one's end.
    assert_eq!(legacy.boundary, Some((105 * MS, 126 * MS)));
    assert_eq!(legacy.timeline, None);
    // Without a `#UIThread` marker and a marked vsync range it has no layer frames.
    assert_eq!((legacy.layer_name.as_deref(), legacy.layer_span), (None, None));
}

#[test]
fn a_trace_without_cujs_has_none() {
    let mut b = TB::new();
    b.process(1, "com.android.systemui").thread(1, 1, "main").slice(1, 0, MS, "Choreographer#doFrame 1");
    let t = b.build();
    assert!(analyze(&t, &frames_analyze(&t, &FrameOptions::default())).cujs.is_empty());
}

#[test]
fn cuj_names_are_cut_like_perfettos() {
    assert_eq!(cuj_name("J<SHADE_ROW_EXPAND>"), "SHADE_ROW_EXPAND");
    assert_eq!(cuj_name("J<"), "");
}
