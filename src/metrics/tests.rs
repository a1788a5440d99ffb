//! Hand-computed checks of every summary metric (docs/metrics.md).

use super::sql_examples;
use super::*;
use crate::frames::{FrameAnalysis, FrameRow, FrameWhy};
use crate::testutil::frame;

const MS: i64 = 1_000_000;
const I60: i64 = 16_666_667;
const I120: i64 = 8_333_333;

fn df_of(rows: &[FrameRow], scenes: &[Option<&str>]) -> polars::prelude::DataFrame {
    let analysis = FrameAnalysis { rows: rows.to_vec(), ..Default::default() };
    let idx: Vec<usize> = (0..rows.len()).collect();
    let sc: Vec<Option<String>> =
        if scenes.is_empty() { vec![None; rows.len()] } else { scenes.iter().map(|s| s.map(String::from)).collect() };
    crate::tables::frames(&analysis, &idx, &sc).unwrap()
}

/// The `frame_timeline` table of `trace`, as `fpsan query` has it.
fn timeline_table(trace: &crate::model::Trace) -> polars::prelude::DataFrame {
    crate::tables::Table::FrameTimeline.of_trace(trace).expect("a model table").expect("built")
}

/// The summaries of `rows` (their scenes `scenes`, or none), checked against
/// the SQL examples in `queries/` over the same frames table.
fn summarize_with(
    rows: &[FrameRow],
    scenes: &[Option<&str>],
    why: &[FrameWhy],
    opts: &MetricsOptions,
) -> Vec<AppSummary> {
    let analysis = FrameAnalysis { rows: rows.to_vec(), why: why.to_vec(), ..Default::default() };
    let indices: Vec<usize> = (0..rows.len()).collect();
    let sc: Vec<Option<String>> =
        if scenes.is_empty() { vec![None; rows.len()] } else { scenes.iter().map(|s| s.map(String::from)).collect() };
    let apps = summarize(&analysis, &indices, &sc, &Default::default(), opts);
    let no_timeline = timeline_table(&crate::model::Trace::default());
    sql_examples::agree(&df_of(rows, scenes), &no_timeline, &apps);
    apps
}

fn summarize_rows(rows: &[FrameRow]) -> Vec<AppSummary> {
    summarize_with(rows, &[], &[], &MetricsOptions::default())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn fps_is_frames_over_paced_vsyncs() {
    // dropped [0, 1, 0] at 60 Hz: Σ(d+1)·I = 4·16_666_667 = 66_666_668 ns.
    let rows = [frame(1, 0, I60, 5 * MS), frame(1, 20 * MS, I60, 20 * MS), frame(1, 50 * MS, I60, 3 * MS)];
    let s = &summarize_rows(&rows)[0];
    assert_eq!(s.frames, 3);
    assert_eq!(s.paced_ns, 66_666_668);
    assert_eq!(s.dropped_frames, 1);
    assert!(close(s.fps, 3e9 / 66_666_668.0), "{}", s.fps);
    assert!(close(s.refresh_hz, 1e9 / I60 as f64));
}

#[test]
fn fps_is_capped_at_the_refresh_rate() {
    // A rounded refresh_hz (60) below 1e9/I (60.0000024 for I = 16_666_666).
    let mut rows = vec![frame(1, 0, 16_666_666, MS), frame(1, 17 * MS, 16_666_666, MS)];
    for r in &mut rows {
        r.refresh_hz = 60.0;
    }
    let s = &summarize_rows(&rows)[0];
    assert_eq!(s.fps, 60.0);
}

#[test]
fn fps_with_mixed_intervals() {
    // 120 Hz dropped 1 (2·8_333_333) + 60 Hz dropped 0 + 120 Hz dropped 0 = 41_666_666 ns.
    let rows = [frame(1, 0, I120, 9 * MS), frame(1, 30 * MS, I60, 2 * MS), frame(1, 60 * MS, I120, 2 * MS)];
    let s = &summarize_rows(&rows)[0];
    assert_eq!(s.paced_ns, 41_666_666);
    assert!(close(s.fps, 3e9 / 41_666_666.0), "{}", s.fps);
    assert!(close(s.refresh_hz, 1e9 / I120 as f64));
    assert_eq!(s.frame_interval_ns, I120);
}

#[test]
fn drop_levels_at_the_boundaries() {
    let i = 10 * MS;
    let rows: Vec<FrameRow> = [0, 2, 3, 8, 9, 23, 24, 41, 42]
        .iter()
        .enumerate()
        .map(|(k, &d)| frame(1, k as i64 * 1000 * MS, i, d * i + 5))
        .collect();
    assert_eq!(
        rows.iter().map(|r| r.drop_level.as_str()).collect::<Vec<_>>(),
        ["BEST", "BEST", "NORMAL", "NORMAL", "MIDDLE", "MIDDLE", "HIGH", "HIGH", "FROZEN"]
    );
    let s = &summarize_rows(&rows)[0];
    assert_eq!(s.drop_level, Levels([2, 2, 2, 2, 1]));
    assert_eq!(s.drop_sum, Levels([2, 11, 32, 65, 42]));
    assert_eq!(s.dropped_frames, 152);
}

#[test]
fn nearest_rank_percentiles() {
    let costs = [5, 1, 9, 3, 7, 2, 8, 4, 10, 6];
    let mut rows: Vec<FrameRow> =
        costs.iter().enumerate().map(|(k, &c)| frame(1, k as i64 * 100 * MS, I60, c * MS)).collect();
    // overrun: non-null values sorted [-3, 4, 10] (n = 3).
    for (r, o) in rows.iter_mut().zip([Some(-3), None, Some(4), Some(10)]) {
        r.overrun_ns = o.map(|v| v * MS);
    }
    let s = &summarize_rows(&rows)[0];
    // n = 10: ranks ceil(5) = 5, ceil(9) = 9, ceil(9.5) = 10, ceil(9.9) = 10.
    assert_eq!(
        s.frame_cost_ns,
        Percentiles {
            p50: Some(5 * MS),
            p90: Some(9 * MS),
            p95: Some(10 * MS),
            p99: Some(10 * MS),
            max: Some(10 * MS)
        }
    );
    assert_eq!(s.do_frame_dur, s.frame_cost_ns);
    // n = 3: ranks ceil(1.5) = 2, ceil(2.7) = 3, 3, 3.
    assert_eq!(
        s.overrun_ns,
        Percentiles {
            p50: Some(4 * MS),
            p90: Some(10 * MS),
            p95: Some(10 * MS),
            p99: Some(10 * MS),
            max: Some(10 * MS)
        }
    );
}

#[test]
fn percentile_ranks_on_20_values() {
    // 1..=20 ms: P50 rank 10, P90 rank 18, P95 rank 19, P99 rank 20.
    let rows: Vec<FrameRow> = (1..=20).map(|c| frame(1, c * 100 * MS, I60, c * MS)).collect();
    let s = &summarize_rows(&rows)[0];
    assert_eq!(
        s.frame_cost_ns,
        Percentiles {
            p50: Some(10 * MS),
            p90: Some(18 * MS),
            p95: Some(19 * MS),
            p99: Some(20 * MS),
            max: Some(20 * MS)
        }
    );
    // Overrun all null: null percentiles.
    assert_eq!(s.overrun_ns, Percentiles::default());
}

#[test]
fn fps_wall_windows() {
    let i = 10 * MS;
    let rows: Vec<FrameRow> = [0, 500, 900, 1200, 2500].iter().map(|&t| frame(1, t * MS, i, MS)).collect();
    let s = &summarize_rows(&rows)[0];
    // wall end = 2500 ms + 10 ms; windows [0,1) [1,2) [2,2.51).
    assert_eq!(s.wall_end_ts, 2510 * MS);
    let tl = &s.fps_wall_timeline;
    assert_eq!(tl.len(), 3);
    assert_eq!((tl[0].start_ts, tl[0].frames, tl[0].seconds, tl[0].fps), (0, 3, 1.0, 3.0));
    assert_eq!((tl[1].start_ts, tl[1].frames, tl[1].fps), (1000 * MS, 1, 1.0));
    assert_eq!((tl[2].start_ts, tl[2].frames), (2000 * MS, 1));
    assert!(close(tl[2].seconds, 0.51));
    assert!(close(tl[2].fps, 1.0 / 0.51));
    assert!(close(s.fps_wall, 5.0 / 2.51));
}

#[test]
fn fps_windows_with_an_empty_window() {
    let w = fps_windows(100, 100 + 3_000_000_000, &[(0, 60), (2, 30)]);
    assert_eq!(w.iter().map(|w| w.frames).collect::<Vec<_>>(), [60, 0, 30]);
    assert_eq!(w.iter().map(|w| w.fps).collect::<Vec<_>>(), [60.0, 0.0, 30.0]);
    assert!(fps_windows(5, 5, &[]).is_empty());
}

#[test]
fn perfdog_jank_bigjank_stutter() {
    // (vsync ms, present ms) → frame time = present − max(prev present, vsync):
    // 30, 20, 20, 20, 100 (Jank: > 2·60/3 and > 83.33), 20, 150 (Jank + BigJank), 10.
    let fr = [(0, 30), (20, 50), (40, 70), (60, 90), (80, 190), (180, 210), (1000, 1150), (1160, 1170)];
    let rows: Vec<FrameRow> = fr
        .iter()
        .map(|&(v, p)| {
            let mut r = frame(1, v * MS + MS, I60, 2 * MS);
            r.vsync_ts = Some(v * MS);
            r.actual_end = Some(p * MS);
            r
        })
        .collect();
    let s = &summarize_rows(&rows)[0];
    let pd = &s.jank.perfdog;
    assert_eq!((pd.jank, pd.big_jank), (2, 1));
    assert_eq!(pd.jank_time_ns, 250 * MS);
    assert_eq!(pd.total_time_ns, 370 * MS);
    assert!(close(pd.stutter, 250.0 / 370.0));
}

#[test]
fn perfdog_threshold_is_exactly_83_33_ms() {
    // Three 10 ms frames, then 83_333_333 ns (not > 250/3 ms) and 83_333_334 ns (>).
    let mk = |thr: i64| {
        let mut rows = Vec::new();
        let mut t = 0;
        for ft in [10 * MS, 10 * MS, 10 * MS, thr] {
            let mut r = frame(1, t, I60, MS);
            r.vsync_ts = Some(t);
            r.actual_end = Some(t + ft);
            t += ft;
            rows.push(r);
        }
        summarize_rows(&rows)[0].jank.perfdog.jank
    };
    assert_eq!(mk(83_333_333), 0);
    assert_eq!(mk(83_333_334), 1);
}

#[test]
fn perfdog_present_fallbacks() {
    // No timeline: RenderThread end, else doFrame end; no vsync: doFrame start.
    let mut a = frame(1, 0, I60, 10 * MS);
    a.vsync_ts = None;
    a.draw_frame_count = 0;
    let mut b = frame(1, 20 * MS, I60, 3 * MS);
    b.vsync_ts = Some(20 * MS);
    b.draw_frame_ts = Some(25 * MS);
    b.draw_frame_dur = Some(10 * MS);
    let s = &summarize_rows(&[a, b])[0];
    // 10 ms (0 → 10) + 15 ms (max(10, 20) → 35).
    assert_eq!(s.jank.perfdog.total_time_ns, 25 * MS);
    assert_eq!(s.quality.without_render_thread, 1);
}

#[test]
fn android_vitals_slow_and_frozen() {
    let rows = [
        frame(1, 0, I60, 16_000_000),           // 16 ms exactly at 60 Hz: not slow
        frame(1, 1000 * MS, I60, 16_000_001),   // slow
        frame(1, 2000 * MS, I120, 7_999_999),   // below 0.96·I at 120 Hz
        frame(1, 3000 * MS, I120, 8_000_000),   // slow
        frame(1, 4000 * MS, I60, 700 * MS),     // slow, not frozen
        frame(1, 5000 * MS, I60, 700 * MS + 1), // slow and frozen
    ];
    let v = &summarize_rows(&rows)[0].jank.vitals;
    assert_eq!((v.slow, v.frozen), (4, 1));
    assert!(close(v.slow_pct, 400.0 / 6.0));
    assert!(close(v.frozen_pct, 100.0 / 6.0));
    assert!(v.excessive_slow && v.excessive_frozen);
}

/// A [`Screen`] that drew `drawn` frames, for the verdict's tests.
fn drawn(drawn: i64) -> Screen {
    Screen {
        drawn_frames: drawn,
        layer_presents: 0,
        reached: drawn,
        cpu_time_ns: 0,
        cpu_time_source: CpuTimeSource::DoFrame,
    }
}

#[test]
fn green_alliance_thresholds() {
    let on_screen = drawn(MIN_VERDICT_FRAMES);
    let given = |c: Category, fps: f64| green_alliance(Some(c), None, fps, MIN_VERDICT_FRAMES, &on_screen).verdict;
    assert_eq!(given(Category::App, 55.0), Verdict::Pass);
    assert_eq!(given(Category::App, 54.99), Verdict::Fail);
    assert_eq!(given(Category::Game, 25.0), Verdict::Pass);
    assert_eq!(given(Category::Video, 24.9), Verdict::Fail);
    assert_eq!(given(Category::Map, 30.0), Verdict::Pass);
    let map = green_alliance(Some(Category::Map), None, 30.0, 40, &on_screen);
    assert_eq!((map.min_fps, map.category_source, map.min_frames), (25.0, CategorySource::Given, 30));
    // Detected: no renderer is an ordinary app; a SurfaceView a game.
    let detected = green_alliance(None, None, 30.0, 40, &on_screen);
    assert_eq!(
        (detected.category, detected.category_source, detected.min_fps),
        (Category::App, CategorySource::Detected, 55.0)
    );
    let unity = crate::presents::Renderer {
        kind: crate::presents::RendererKind::SurfaceView,
        engine: Some(crate::presents::Engine::Unity),
        api: None,
        evidence: "thread UnityMain".into(),
    };
    let game = green_alliance(None, Some(&unity), 30.0, 40, &on_screen);
    assert_eq!((game.category, game.min_fps, game.verdict), (Category::Game, 25.0, Verdict::Pass));
    assert!(game.reason.contains("SurfaceView (Unity)"), "{}", game.reason);
    // Through summarize: 30 frames at 60 Hz, one of them dropping one
    // → 30 / 31 · 60 = 58.1 fps; a game only needs 25. Then 1 s apart, each
    // dropping 2 of the 3 vsyncs of its 50 ms: 30 / 90 · 60 = 20 fps.
    let rows: Vec<FrameRow> = (0..30).map(|k| frame(1, k * 20 * MS, I60, if k == 5 { 20 * MS } else { MS })).collect();
    assert_eq!(summarize_rows(&rows)[0].green_alliance.verdict, Verdict::Pass);
    let slow: Vec<FrameRow> = (0..30).map(|k| frame(1, k * 1000 * MS, I60, 50 * MS)).collect();
    let normal = summarize_rows(&slow);
    assert!(close(normal[0].headline.fps, 30e9 / (90 * I60) as f64), "{}", normal[0].headline.fps);
    assert_eq!(normal[0].green_alliance.verdict, Verdict::Fail);
    let game = summarize_with(&slow, &[], &[], &MetricsOptions { category: Some(Category::Game), worst_frames: 10 });
    assert_eq!(game[0].green_alliance.verdict, Verdict::Fail);
    assert_eq!(game[0].green_alliance.category, Category::Game);
}

/// A verdict needs `MIN_VERDICT_FRAMES` frames of the headline series
/// (29 get none, 30 get one), and an app that drew nothing gets none however
/// many frames it ran; the order is what reached the screen.
#[test]
fn verdicts_need_frames_that_reached_the_screen() {
    assert_eq!(Verdict::of(&drawn(1), 29, 60.0, 55.0), Verdict::TooFewFrames);
    assert_eq!(Verdict::of(&drawn(1), 30, 60.0, 55.0), Verdict::Pass);
    assert_eq!(Verdict::of(&drawn(0), 500, 60.0, 55.0), Verdict::DrawsNothing);
    assert_eq!(Verdict::DrawsNothing.passed(), None);
    assert_eq!(Verdict::TooFewFrames.passed(), None);
    // App 1: 400 doFrames with only an animation callback (no traversal, no
    // DrawFrame, no present). App 2: 40 frames that drew through their
    // RenderThread only, app 3: 3 frames that ran a traversal only.
    let animate = |r: FrameRow| FrameRow { draw_frame_count: 0, animation_dur: Some(MS), ..r };
    let mut rows: Vec<FrameRow> = (0..400).map(|k| animate(frame(1, k * I60, I60, MS))).collect();
    rows.extend((0..40).map(|k| frame(2, k * I60, I60, MS)));
    rows.extend((0..3).map(|k| FrameRow { traversal_dur: Some(MS / 2), ..animate(frame(3, k * I60, I60, MS)) }));
    let apps = summarize_rows(&rows);
    let got: Vec<(i32, i64, i64, Verdict)> =
        apps.iter().map(|a| (a.pid, a.frames, a.screen.reached, a.green_alliance.verdict)).collect();
    assert_eq!(got, [(2, 40, 40, Verdict::Pass), (3, 3, 3, Verdict::TooFewFrames), (1, 400, 0, Verdict::DrawsNothing)]);
    // No scheduler data: the CPU time is the doFrames' wall time, 400 · 1 ms.
    let idle = &apps[2].screen;
    assert_eq!((idle.drawn_frames, idle.layer_presents), (0, 0));
    assert_eq!((idle.cpu_time_ns, idle.cpu_time_source), (400 * MS, CpuTimeSource::DoFrame));
    // With scheduler data for the thread: the time it ran inside its doFrames.
    // Frame [0, 10 ms): in before it, out (sleeping) at 4, woken 6, in 7,
    // out 20: 4 + 3 = 7 ms. Frame [100, 110 ms): in 105, out 108: 3 ms.
    use crate::model::{SchedEvent, Waker};
    let events = vec![
        SchedEvent::SwitchIn { ts: -5 * MS, tid: 1, cpu: 0 },
        SchedEvent::SwitchOut { ts: 4 * MS, tid: 1, cpu: 0, prev_state: 1 },
        SchedEvent::Waking { ts: 6 * MS, tid: 1, waker: Waker::NONE },
        SchedEvent::SwitchIn { ts: 7 * MS, tid: 1, cpu: 0 },
        SchedEvent::SwitchOut { ts: 20 * MS, tid: 1, cpu: 0, prev_state: 1 },
        SchedEvent::Waking { ts: 104 * MS, tid: 1, waker: Waker::NONE },
        SchedEvent::SwitchIn { ts: 105 * MS, tid: 1, cpu: 0 },
        SchedEvent::SwitchOut { ts: 108 * MS, tid: 1, cpu: 0, prev_state: 1 },
    ];
    let two = [animate(frame(1, 0, I60, 10 * MS)), animate(frame(1, 100 * MS, I60, 10 * MS))];
    let sched = crate::frames::SchedIndex::new([events]);
    let screen = Screen::of(1, &two.iter().collect::<Vec<_>>(), &Default::default(), &sched);
    assert_eq!((screen.cpu_time_ns, screen.cpu_time_source), (10 * MS, CpuTimeSource::Running));
    assert!(screen.draws_nothing());
    // A FrameTimeline present is a draw too.
    assert!(drew(&FrameRow { actual_ts: Some(5), ..animate(frame(1, 0, I60, MS)) }));
    assert!(!drew(&animate(frame(1, 0, I60, MS))));
}

#[test]
fn choreographer_and_perfetto_vocabularies() {
    let mut rows: Vec<FrameRow> = (0..4).map(|k| frame(1, k * 1000 * MS, I60, MS)).collect();
    for (r, s) in rows.iter_mut().zip([29, 30, 45, 0]) {
        r.skipped_frames = s;
    }
    // Perfetto's per-frame metrics exist where its (token-only) overrun does; its was_* flags
    // are true or NULL, never false (`iif(cond, 1, NULL)`).
    for (r, (j, overrun)) in
        rows.iter_mut().zip([(Some(true), Some(5)), (None, Some(-2)), (None, None), (Some(true), Some(9))])
    {
        r.was_jank = j;
        r.perfetto_overrun_ns = overrun;
    }
    rows[0].was_huge_jank = Some(true);
    for (r, t) in
        rows.iter_mut().zip([Some("App Deadline Missed, Buffer Stuffing"), Some("None"), Some("Buffer Stuffing"), None])
    {
        r.jank_type = t.map(String::from);
        r.actual_ts = t.map(|_| 1);
    }
    let s = &summarize_rows(&rows)[0];
    let c = &s.jank.choreographer;
    assert_eq!((c.skipped_frame_events, c.skipped_frames, c.max_skipped_frames), (2, 75, 45));
    let p = &s.jank.perfetto;
    assert_eq!((p.frames_with_data, p.jank, p.slow, p.big_jank, p.huge_jank), (3, 2, 0, 0, 1));
    // FrameTimeline's verdict is over the trace's actual surface frames
    // (presents::tests), not the matched doFrames': these frames have no trace.
    assert!(s.jank.frame_timeline.is_empty());
    assert_eq!(s.quality.without_timeline, 1);
}

#[test]
fn scenes_have_their_own_fps_and_levels() {
    let i = 10 * MS;
    let rows = [
        frame(1, 0, i, MS),             // A, dropped 0
        frame(1, 100 * MS, i, 35 * MS), // A, dropped 3 (NORMAL)
        frame(1, 200 * MS, i, MS),      // B
        frame(1, 300 * MS, i, MS),      // unknown
    ];
    let s = &summarize_with(&rows, &[Some("A"), Some("A"), Some("B"), None], &[], &MetricsOptions::default())[0];
    let names: Vec<&str> = s.scenes.iter().map(|s| s.scene.as_str()).collect();
    assert_eq!(names, ["A", "B", "(unknown)"]);
    let a = &s.scenes[0];
    assert_eq!((a.frames, a.dropped_frames, a.first_ts), (2, 3, 0));
    // 2 frames over (1 + 4)·10 ms = 40 fps (refresh 100 Hz).
    assert!(close(a.fps, 40.0));
    assert_eq!(a.drop_level, Levels([1, 1, 0, 0, 0]));
    assert_eq!(a.drop_sum, Levels([0, 3, 0, 0, 0]));
    assert_eq!(a.frame_cost_p90, Some(35 * MS));
    assert!(close(s.scenes[1].fps, 100.0));
}

#[test]
fn apps_most_frames_first_with_worst_frames_and_why() {
    let mut rows = vec![frame(7, 0, I60, MS), frame(7, 100 * MS, I60, 40 * MS)];
    rows.extend((0..3).map(|k| frame(3, k * 100 * MS, I60, (k + 1) * 20 * MS)));
    let why = FrameWhy {
        frame_index: 4,
        dominant_phase: crate::frames::FramePart::Phase(crate::frames::Phase::Traversal),
        dominant_phase_ns: 50 * MS,
        longest_slice: Some("RV OnBindView".into()),
        longest_slice_ns: Some(40 * MS),
        blockers: vec![],
        thread_state: None,
        critical_path: Vec::new(),
        chain: String::new(),
    };
    let apps =
        summarize_with(&rows, &[], std::slice::from_ref(&why), &MetricsOptions { category: None, worst_frames: 2 });
    assert_eq!(apps.iter().map(|a| (a.pid, a.frames)).collect::<Vec<_>>(), [(3, 3), (7, 2)]);
    assert_eq!(apps[0].process.as_deref(), Some("app3"));
    let w = &apps[0].worst_frames;
    assert_eq!(w.iter().map(|w| w.frame_index).collect::<Vec<_>>(), [4, 3]);
    assert_eq!(w[0].why.as_ref(), Some(&why));
    assert_eq!(w[0].frame_cost_ns, 60 * MS);
    assert_eq!(w[1].why, None);
    assert_eq!(apps[1].worst_frames.len(), 1);
    assert_eq!(apps[0].quality.vsync_sources.len(), 1);
}

#[test]
fn vsync_sources_counted() {
    let mut rows: Vec<FrameRow> = (0..3).map(|k| frame(1, k * 100 * MS, I60, MS)).collect();
    rows[0].vsync_source = Some(crate::frames::VsyncSource::FrameTimeline);
    rows[1].vsync_source = Some(crate::frames::VsyncSource::FrameTimeline);
    let s = &summarize_rows(&rows)[0];
    let v: Vec<(&str, i64)> = s.quality.vsync_sources.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(v, [("frame_timeline", 2), ("none", 1)]);
}

#[test]
fn empty_frames_table_has_no_apps() {
    assert!(summarize_rows(&[]).is_empty());
}

#[test]
fn app_filter_matching() {
    let pkg = AppFilter::Package("com.example.verylongname".into());
    assert!(pkg.matches(Some("com.example.verylongname"), 1));
    assert!(pkg.matches(Some("com.example.verylongname:remote"), 1));
    assert!(pkg.matches(Some("le.verylongname"), 1));
    assert!(!pkg.matches(Some("com.example.verylongname2"), 1));
    assert!(!pkg.matches(Some("com.example.very"), 1));
    assert!(!pkg.matches(None, 1));
    let short = AppFilter::Package("com.a".into());
    assert!(short.matches(Some("com.a"), 1));
    assert!(!short.matches(Some("m.a"), 1));
    assert!(AppFilter::Pid(9).matches(None, 9));
    assert!(!AppFilter::Pid(9).matches(Some("x"), 8));
}

/// The SQL examples agree with the summaries on the demo and on a generated
/// Unity game (doFrames of the main thread, presents of its SurfaceView).
#[test]
fn sql_examples_agree_on_real_analyses() {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("game.pftrace");
    let scenario = tracegen::renderers::game();
    std::fs::write(&game, scenario.builder.build(&tracegen::BuildOptions::default())).unwrap();
    let demo = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/demo.pftrace");
    for path in [demo, game] {
        let a = crate::analysis::analyze(&path, &crate::analysis::Options::default()).unwrap();
        assert!(a.apps.iter().any(|app| app.frames > 0), "{}", path.display());
        sql_examples::agree(&a.row_tables.as_ref().expect("tables").frames, &timeline_table(&a.trace), &a.apps);
    }
}
