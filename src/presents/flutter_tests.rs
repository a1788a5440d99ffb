//! Flutter frames on hand-built slices: the pairing of builds and rasters
//! (pipelined frames, a raster with no build, builds never rastered), the
//! present of each raster, and the per-app summary.

use super::flutter::{pair, present_ends, Build, Span, BUILD, PIPELINE_FULL, RASTER, RASTER_OLD};
use super::*;
use crate::frames::DisplayGrid;
use crate::model::testutil::TB;

const MS: i64 = 1_000_000;
const P60: i64 = 16_666_667;
const APP: i32 = 100;
const UI: i32 = 110;
const RASTER_TID: i32 = 111;

fn presents_of(trace: &Trace) -> PresentAnalysis {
    analyze(trace, &crate::frames::FrameAnalysis { display: DisplayGrid::new(trace), ..Default::default() })
}

fn app() -> TB {
    let mut b = TB::new();
    b.process(APP, "com.example.flutter")
        .thread(APP, APP, "example.flutter")
        .thread(UI, APP, "1.ui")
        .thread(RASTER_TID, APP, "1.raster");
    b
}

fn build(ts: i64, dur: i64) -> Build {
    Build { span: Span { ts, dur }, produced: true }
}

fn span(ts: i64, dur: i64) -> Span {
    Span { ts, dur }
}

#[test]
fn each_raster_takes_the_oldest_build_waiting_in_the_pipeline() {
    // B0 is rastered by a 30 ms R0; B1 and B2 end while it runs, so both
    // wait: R1 takes B1 (the oldest), R2 takes B2.
    let builds = [build(0, 4 * MS), build(17 * MS, 4 * MS), build(33 * MS, 4 * MS)];
    let rasters = [span(5 * MS, 30 * MS), span(36 * MS, 5 * MS), span(42 * MS, 5 * MS)];
    assert_eq!(pair(&builds, &rasters), [(Some(0), Some(0)), (Some(1), Some(1)), (Some(2), Some(2))]);
}

#[test]
fn a_raster_that_finds_the_pipeline_empty_has_no_build() {
    // R0 starts before B0 has ended; R1 redraws with nothing new built.
    let builds = [build(0, 4 * MS)];
    let rasters = [span(2 * MS, 5 * MS), span(8 * MS, 5 * MS), span(20 * MS, 5 * MS)];
    assert_eq!(pair(&builds, &rasters), [(None, Some(0)), (Some(0), Some(1)), (None, Some(2))]);
}

#[test]
fn builds_never_rastered_keep_their_row() {
    // B1 produced nothing (PipelineFull); B2, B3 and B4 all end before R1:
    // the pipeline holds two, so B2 is pushed out and R1 takes B3; B5 ends
    // after the last raster.
    let mut builds = vec![build(0, 4 * MS), build(17 * MS, MS), build(20 * MS, MS)];
    builds[1].produced = false;
    builds.extend([build(22 * MS, MS), build(24 * MS, MS), build(60 * MS, MS)]);
    let rasters = [span(5 * MS, 5 * MS), span(30 * MS, 5 * MS)];
    assert_eq!(
        pair(&builds, &rasters),
        [(Some(0), Some(0)), (Some(1), None), (Some(2), None), (Some(3), Some(1)), (Some(4), None), (Some(5), None)]
    );
    assert_eq!(pair(&builds, &[]).len(), 6);
    assert_eq!(pair(&[], &rasters), [(None, Some(0)), (None, Some(1))]);
}

#[test]
fn a_rasters_present_is_its_first_queue_buffer_else_its_first_swap() {
    let rasters = [span(0, 10 * MS), span(20 * MS, 10 * MS), span(40 * MS, 10 * MS), span(60 * MS, 10 * MS)];
    // R0: swap and queueBuffer inside: the queue. R1: only a swap. R2:
    // nothing. R3: a queueBuffer after its end (no raster after it).
    let queues = [span(8 * MS, MS), span(75 * MS, MS)];
    let swaps = [span(7 * MS, 2 * MS), span(27 * MS, 2 * MS)];
    assert_eq!(present_ends(&rasters, &queues, &swaps), [Some(9 * MS), Some(29 * MS), None, Some(76 * MS)]);
}

#[test]
fn frames_from_the_engines_markers_with_their_phases() {
    let v = |k: i64| 1_000_000_000 + k * P60;
    let mut b = app();
    // Frame 0: on time. Frame 1: a 25 ms raster. Frame 2: pipelined behind
    // it (its build ends before the long raster does). Frame 3: a raster
    // with no present. Then a build the trace ends before rastering.
    for k in 0..3 {
        b.slice(UI, v(k) + MS, 4 * MS, BUILD);
    }
    b.slice(RASTER_TID, v(0) + 6 * MS, 5 * MS, RASTER);
    b.slice(RASTER_TID, v(0) + 10 * MS, 500_000, "queueBuffer");
    b.slice(RASTER_TID, v(1) + 6 * MS, 25 * MS, RASTER);
    b.slice(RASTER_TID, v(1) + 29 * MS, 500_000, "queueBuffer");
    let r2 = v(1) + 32 * MS;
    b.slice(RASTER_TID, r2, 5 * MS, RASTER);
    b.slice(RASTER_TID, r2 + 3 * MS, 1_500_000, "eglSwapBuffersWithDamageKHR");
    b.slice(RASTER_TID, r2 + 3_500_000, 500_000, "queueBuffer");
    b.slice(UI, v(4) + MS, 4 * MS, BUILD);
    b.slice(RASTER_TID, v(4) + 6 * MS, 5 * MS, RASTER);
    b.slice(UI, v(5) + MS, 4 * MS, BUILD);
    let p = presents_of(&b.build());
    let f = &p.flutter;
    assert_eq!(f.len(), 5, "{f:#?}");
    assert!(f.iter().all(|f| f.pid == APP && f.vsync_period_ns == P60));
    let builds: Vec<Option<i64>> = f.iter().map(|f| f.build_ts).collect();
    assert_eq!(builds, [Some(v(0) + MS), Some(v(1) + MS), Some(v(2) + MS), Some(v(4) + MS), Some(v(5) + MS)]);
    let rasters: Vec<Option<i64>> = f.iter().map(|f| f.raster_ts).collect();
    assert_eq!(rasters, [Some(v(0) + 6 * MS), Some(v(1) + 6 * MS), Some(r2), Some(v(4) + 6 * MS), None]);
    let presents: Vec<Option<i64>> = f.iter().map(|f| f.present_ts).collect();
    assert_eq!(presents, [Some(v(0) + 10_500_000), Some(v(1) + 29_500_000), Some(r2 + 4 * MS), None, None]);
    // Totals from build start: 9.5 ms; 28.5 ms (one vsync dropped); frame 2
    // waited for the long raster: r2 + 4 ms − (v(2) + 1 ms) = 18.3 ms.
    let totals: Vec<Option<i64>> = f.iter().map(|f| f.total_ns).collect();
    let t2 = r2 + 4 * MS - (v(2) + MS);
    assert_eq!(totals, [Some(9_500_000), Some(28_500_000), Some(t2), None, None]);
    let dropped: Vec<Option<i64>> = f.iter().map(|f| f.dropped_vsyncs).collect();
    assert_eq!(dropped, [Some(0), Some(1), Some(t2 / P60), None, None]);
    assert_eq!(t2 / P60, 1);
    assert_eq!((f[0].ui_tid, f[0].raster_tid), (Some(UI), Some(RASTER_TID)));
    assert_eq!((f[4].ui_tid, f[4].raster_tid), (Some(UI), None));
    assert_eq!(f[1].build_dur, Some(4 * MS));
    assert_eq!(f[1].raster_dur, Some(25 * MS));

    assert_eq!(p.flutter_apps.len(), 1);
    let s = &p.flutter_apps[0];
    assert_eq!((s.ui_thread.as_deref(), s.raster_thread.as_deref()), (Some("1.ui"), Some("1.raster")));
    assert_eq!(s.raster_marker, RASTER);
    assert_eq!((s.frames, s.presented, s.builds_not_rastered, s.rasters_without_build), (4, 3, 1, 0));
    assert_eq!((s.first_present_ts, s.last_present_ts), (Some(v(0) + 10_500_000), Some(r2 + 4 * MS)));
    assert_eq!(s.fps, 2.0 * 1e9 / (r2 + 4 * MS - v(0) - 10_500_000) as f64);
    assert_eq!((s.jank_frames, s.dropped_vsyncs), (2, 2));
    assert_eq!((s.build_ns.p50, s.build_ns.max), (Some(4 * MS), Some(4 * MS)));
    assert_eq!((s.raster_ns.p50, s.raster_ns.max), (Some(5 * MS), Some(25 * MS)));
    assert_eq!(s.total_ns.p50, Some(t2.min(28_500_000)));
    assert_eq!(s.drop_level[DropLevel::Best], 3);
}

#[test]
fn a_scenario_window_keeps_the_frames_that_start_in_it() {
    let v = |k: i64| 1_000_000_000 + k * P60;
    let mut b = app();
    // Six on-time frames, one a vsync.
    for k in 0..6 {
        b.slice(UI, v(k) + MS, 4 * MS, BUILD);
        b.slice(RASTER_TID, v(k) + 6 * MS, 5 * MS, RASTER);
        b.slice(RASTER_TID, v(k) + 10 * MS, 500_000, "queueBuffer");
    }
    let trace = b.build();
    let frames = crate::frames::FrameAnalysis { display: DisplayGrid::new(&trace), ..Default::default() };
    // The window [v(2), v(4)): the builds at v(2) + 1 ms and v(3) + 1 ms.
    let w = crate::frames::ScenarioWindow { start_ns: v(2), end_ns: v(4) };
    let p = analyze_in(&trace, &frames, Some(w));
    let builds: Vec<Option<i64>> = p.flutter.iter().map(|f| f.build_ts).collect();
    assert_eq!(builds, [Some(v(2) + MS), Some(v(3) + MS)]);
    let s = &p.flutter_apps[0];
    assert_eq!((s.frames, s.presented), (2, 2));
    // One interval between the two presents: exactly one vsync.
    assert_eq!((s.first_present_ts, s.last_present_ts), (Some(v(2) + 10_500_000), Some(v(3) + 10_500_000)));
    assert_eq!(s.fps, 1e9 / P60 as f64);
    // A window holding one frame: one present, no interval, fps 0 (docs/presents.md).
    let one = crate::frames::ScenarioWindow { start_ns: v(2), end_ns: v(3) };
    let s = &analyze_in(&trace, &frames, Some(one)).flutter_apps[0];
    assert_eq!((s.presented, s.fps), (1, 0.0));
    assert_eq!(s.drop_level.values(), [1, 0, 0, 0, 0]);
    // A window without any of its frames: no Flutter app at all.
    let empty = crate::frames::ScenarioWindow { start_ns: v(7), end_ns: v(9) };
    let p = analyze_in(&trace, &frames, Some(empty));
    assert!(p.flutter.is_empty() && p.flutter_apps.is_empty());
}

#[test]
fn a_build_whose_pipeline_was_full_is_not_rastered() {
    let mut b = app();
    b.slice(UI, 0, 4 * MS, BUILD);
    b.slice(UI, 10 * MS, 2 * MS, BUILD);
    b.slice(UI, 10 * MS + 100_000, 50_000, PIPELINE_FULL);
    b.slice(RASTER_TID, 13 * MS, 5 * MS, RASTER);
    let p = presents_of(&b.build());
    let pairs: Vec<(Option<i64>, Option<i64>)> = p.flutter.iter().map(|f| (f.build_ts, f.raster_ts)).collect();
    assert_eq!(pairs, [(Some(0), Some(13 * MS)), (Some(10 * MS), None)]);
}

#[test]
fn old_engines_raster_in_gpu_rasterizer_draw_and_other_apps_have_no_flutter_frames() {
    let mut b = app();
    b.process(200, "com.example.view").thread(200, 200, "com.example.view").thread(210, 200, "RenderThread");
    b.slice(200, 0, 4 * MS, "Choreographer#doFrame 1");
    b.slice(210, 4 * MS, 2 * MS, "queueBuffer");
    b.slice(UI, 0, 4 * MS, BUILD);
    b.slice(RASTER_TID, 5 * MS, 5 * MS, RASTER_OLD);
    b.slice(RASTER_TID, 9 * MS, 500_000, "vkQueuePresentKHR");
    let p = presents_of(&b.build());
    assert_eq!(p.flutter_apps.len(), 1);
    assert_eq!((p.flutter_apps[0].pid, p.flutter_apps[0].raster_marker), (APP, RASTER_OLD));
    assert_eq!(p.flutter.len(), 1);
    assert_eq!((p.flutter[0].present_ts, p.flutter[0].total_ns), (Some(9_500_000), Some(9_500_000)));
}

#[test]
fn slices_still_open_at_the_end_and_empty_traces_do_not_panic() {
    let mut b = app();
    b.slice(UI, 0, -1, BUILD);
    b.slice(RASTER_TID, 5 * MS, -1, RASTER);
    let p = presents_of(&b.build());
    assert!(p.flutter.is_empty() && p.flutter_apps.is_empty());
    let p = presents_of(&TB::new().build());
    assert!(p.flutter.is_empty());
}
