use super::sources::layer_package;
use super::*;
use crate::frames::DisplayGrid;
use crate::model::testutil::TB;
use crate::model::PresentType;
use crate::presents::IdleSpans;

const P60: i64 = 16_666_667;
const SF: i32 = 1000;
const GAME: i32 = 7000;
const GFX: i32 = 7011;
const LAYER: &str = "SurfaceView - com.example.game/com.unity3d.player.UnityPlayerActivity#0";

/// The presents of `trace` with no frames: where the grid measures no
/// period, 60 Hz.
fn presents_of(trace: &Trace) -> PresentAnalysis {
    analyze(trace, &crate::frames::FrameAnalysis { display: DisplayGrid::new(trace), ..Default::default() })
}

/// vsync `k` of a 60 Hz panel.
fn vsync(k: i64) -> i64 {
    1_000_000_000 + k * P60
}

/// A Unity game: doFrames on every vsync, its render thread queueing a
/// buffer every second vsync (k = 0, 2, …, 20), then a 6-vsync hitch
/// (k = 26), then every second vsync again up to k = 36; SurfaceFlinger
/// ticks `VSYNC-sf` on every vsync and latches each buffer 1 ms into the
/// vsync after its queue.
fn game() -> (Trace, Vec<i64>) {
    let mut b = TB::new();
    b.process(SF, "/system/bin/surfaceflinger").thread(SF, SF, "surfaceflinger");
    b.process(GAME, "com.example.game").thread(GAME, GAME, "com.example.game");
    b.thread(7010, GAME, "UnityMain").thread(GFX, GAME, "UnityGfxDeviceW").thread(7020, GAME, "RenderThread");
    for k in 0..40 {
        b.counter(SF, "VSYNC-sf", vsync(k), (k % 2) as f64);
        b.slice(GAME, vsync(k) + 300_000, 1_500_000, "Choreographer#doFrame");
    }
    let ks: Vec<i64> = (0..=20).step_by(2).chain((26..=36).step_by(2)).collect();
    let mut latches = Vec::new();
    for &k in &ks {
        let q = vsync(k) + 10_000_000;
        b.slice(GFX, q - 2_000_000, 2_000_000, "eglSwapBuffersWithDamageKHR");
        b.slice(GFX, q - 1_000_000, 1_000_000, "queueBuffer");
        b.counter(SF, LAYER, q, 1.0);
        let latch = vsync(k + 1) + 1_000_000;
        b.counter(SF, LAYER, latch, 0.0);
        latches.push(latch);
    }
    (b.build(), latches)
}

#[test]
fn a_games_surface_view_layer_presents_on_the_display_grid() {
    let (trace, latches) = game();
    let p = presents_of(&trace);
    // The layer counter's stream replaces the producer's; the render
    // thread is named as its producer.
    assert_eq!(p.layers.len(), 1, "{:?}", p.layers.iter().map(|l| &l.layer).collect::<Vec<_>>());
    let l = &p.layers[0];
    assert_eq!((l.layer.as_str(), l.source, l.pid), (LAYER, PresentSource::LayerCounter, Some(GAME)));
    assert_eq!((l.tid, l.thread.as_deref(), l.api), (Some(GFX), Some("UnityGfxDeviceW"), Some(GraphicsApi::Gl)));
    let ts: Vec<i64> = p.rows.iter().map(|r| r.ts).collect();
    assert_eq!(ts, latches);
    // 17 presents: 10 intervals of 2 vsyncs, one of 6, 5 of 2.
    let dropped: Vec<Option<i64>> = p.rows.iter().map(|r| r.dropped_vsyncs).collect();
    let mut want = vec![None];
    want.extend([Some(1); 10]);
    want.push(Some(5));
    want.extend([Some(1); 5]);
    assert_eq!(dropped, want);
    assert!(p.rows.iter().all(|r| r.vsync_period_ns == P60));
    assert_eq!((l.presents, l.dropped_vsyncs), (17, 10 + 5 + 5));
    // (17 − 1) presents over 36 vsyncs.
    assert_eq!(l.fps, 16.0 * 1e9 / (36 * P60) as f64);
    // Levels count the presents with an interval: 15 BEST, the hitch NORMAL.
    assert_eq!(l.drop_level[DropLevel::Best], 15);
    assert_eq!(l.drop_level[DropLevel::Normal], 1);
    // The 100 ms hitch: 3·100 > 2·(3·33.3) and 3·100 > 250 ms: a Jank, not a BigJank.
    assert_eq!((l.perfdog.jank, l.perfdog.big_jank), (1, 0));
    assert_eq!(l.perfdog.jank_time_ns, 6 * P60);
    assert_eq!(p.rows.iter().position(|r| r.perfdog_jank), Some(11));
    let r = &p.renderers[&GAME];
    assert_eq!((r.kind, r.engine, r.api), (RendererKind::SurfaceView, Some(Engine::Unity), Some(GraphicsApi::Gl)));
    assert_eq!(r.to_string(), "SurfaceView (Unity, GL)");
    assert_eq!(p.visible_layer(GAME).map(|l| l.layer.as_str()), Some(LAYER));
}

#[test]
fn without_surfaceflinger_the_producer_thread_is_the_stream() {
    let (mut trace, _) = game();
    // Drop SurfaceFlinger's counters: only the render thread's queues remain.
    trace.counters.clear();
    let p = presents_of(&trace);
    assert_eq!(p.layers.len(), 1);
    let l = &p.layers[0];
    assert_eq!((l.source, l.layer.as_str(), l.tid), (PresentSource::Producer, "UnityGfxDeviceW", Some(GFX)));
    assert_eq!(l.presents, 17);
    // No vsync source: the fallback period.
    assert!(p.rows.iter().all(|r| r.vsync_period_ns == P60));
    assert_eq!(p.visible_layer(GAME).map(|l| l.tid), Some(Some(GFX)));
}

#[test]
fn frame_timeline_presents_leave_dropped_frames_out_and_win_over_the_counter() {
    let mut b = TB::new();
    b.process(SF, "/system/bin/surfaceflinger").process(100, "com.example.app");
    let layer = "com.example.app/com.example.app.Main#0";
    for k in 0..6 {
        let present = if k == 3 { PresentType::Dropped } else { PresentType::OnTime };
        let jank = if k == 4 { "App Deadline Missed, Buffer Stuffing" } else { "None" };
        b.actual_surface(100, 10 + k, vsync(k), 2 * P60, layer, jank, present);
        b.counter(SF, layer, vsync(k) + 1, 1.0).counter(SF, layer, vsync(k) + 2, 0.0);
    }
    let p = presents_of(&b.build());
    assert_eq!(p.layers.len(), 1);
    let l = &p.layers[0];
    assert_eq!((l.source, l.presents), (PresentSource::FrameTimeline, 5));
    let ids: Vec<Option<i64>> = p.rows.iter().map(|r| r.frame_id).collect();
    assert_eq!(ids, [Some(10), Some(11), Some(12), Some(14), Some(15)]);
    assert_eq!(p.rows[0].ts, vsync(0) + 2 * P60);
    assert_eq!(p.rows[3].dropped_vsyncs, Some(1));
    // FrameTimeline's verdict is over every actual frame, the dropped one too.
    assert_eq!(l.timeline.timeline_frames, 6);
    assert_eq!(l.timeline.jank_types.get("Buffer Stuffing"), Some(&1));
    assert_eq!(l.timeline.jank_types.get("None"), Some(&5));
    assert_eq!(p.timeline[&100], l.timeline);
}

const APP: i32 = 100;
const APP_LAYER: &str = "TX - com.example.app/com.example.app.Main#0";

/// The verdict a generated actual frame carries, as the importer reads it.
fn tag_of(jank: &str) -> crate::model::JankTag {
    use crate::model::JankTag;
    match jank {
        "None" => JankTag::NoJank,
        "Buffer Stuffing" => JankTag::BufferStuffing,
        "Dropped Frame" => JankTag::DroppedFrame,
        _ => JankTag::SelfJank,
    }
}

/// An app with FrameTimeline and no doFrames, on a 60 Hz panel: frames due
/// (expected end) and presented (actual end) at vsyncs
/// 0–4 (on time), 40 (on time after 600 ms of asking for nothing), 41 (on
/// time), due 80 presented 83 (3 late, after an idle span), due 84
/// presented 86 (2 late, right after the previous), and a dropped frame due
/// at 90 that presented nothing.
fn idle_and_late() -> Trace {
    let mut b = TB::new();
    b.process(APP, "com.example.app");
    let frames: [(i64, i64, &str); 9] = [
        (0, 0, "None"),
        (1, 1, "None"),
        (2, 2, "None"),
        (3, 3, "None"),
        (4, 4, "None"),
        (40, 40, "None"),
        (41, 41, "None"),
        (80, 83, "App Deadline Missed"),
        (84, 86, "App Deadline Missed, Buffer Stuffing"),
    ];
    for (token, &(due, presented, jank)) in frames.iter().enumerate() {
        let token = token as i64;
        let present = if due == presented { PresentType::OnTime } else { PresentType::Late };
        b.expected_surface(APP, token, vsync(due) - 2 * P60, 2 * P60);
        b.actual_surface(
            APP,
            token,
            vsync(due) - 2 * P60,
            vsync(presented) - vsync(due) + 2 * P60,
            APP_LAYER,
            jank,
            present,
        );
    }
    b.expected_surface(APP, 99, vsync(90) - 2 * P60, 2 * P60);
    b.actual_surface(APP, 99, vsync(90) - 2 * P60, 2 * P60, APP_LAYER, "Dropped Frame", PresentType::Dropped);
    let mut trace = b.build();
    for f in &mut trace.frame_timeline {
        f.jank_tag = f.jank_type.as_deref().map(tag_of);
    }
    trace
}

#[test]
fn idle_spans_drop_nothing_and_a_late_present_drops_its_own_vsyncs() {
    let p = presents_of(&idle_and_late());
    assert_eq!(p.layers.len(), 1);
    let l = &p.layers[0];
    let due: Vec<Option<i64>> = p.rows.iter().map(|r| r.due_ts).collect();
    assert_eq!(due, [0, 1, 2, 3, 4, 40, 41, 80, 84].map(|k| Some(vsync(k))));
    // The interval since the previous present is 36 vsyncs before vsync 40
    // and 42 before vsync 83; the app asked for nothing until one vsync
    // before each frame was due: idle 35 and 38 vsyncs.
    let idle: Vec<Option<i64>> = p.rows.iter().map(|r| r.idle_ns).collect();
    let mut want = vec![None, Some(0), Some(0), Some(0), Some(0), Some(35 * P60), Some(0), Some(38 * P60), Some(0)];
    assert_eq!(idle, want);
    let dropped: Vec<Option<i64>> = p.rows.iter().map(|r| r.dropped_vsyncs).collect();
    want = vec![None, Some(0), Some(0), Some(0), Some(0), Some(0), Some(0), Some(3), Some(2)];
    assert_eq!(dropped, want);
    let frame_time: Vec<Option<i64>> = p.rows.iter().map(|r| r.frame_time_ns).collect();
    let v = |k: i64| Some(vsync(k) - vsync(0));
    assert_eq!(frame_time, [None, v(1), v(1), v(1), v(1), v(1), v(1), v(4), v(3)]);
    assert_eq!(l.idle, IdleSpans { count: 2, total_ns: 73 * P60 });
    assert_eq!(l.dropped_vsyncs, 5);
    // 7 BEST (0 dropped), the 3-vsync present NORMAL; 2 is BEST.
    assert_eq!(l.drop_level.values(), [7, 1, 0, 0, 0]);
    // Paced: 8 presents over (8 + 5) vsyncs; wall: 8 over 86 vsyncs.
    assert_eq!(l.fps, 8e9 / (13 * P60) as f64);
    assert_eq!(l.fps_wall, 8e9 / (vsync(86) - vsync(0)) as f64);
    // PerfDog on frame times: the longest is 4 vsyncs (66.7 ms), no Jank.
    assert_eq!((l.perfdog.jank, l.perfdog.total_time_ns), (0, 13 * P60));
    // FrameTimeline's verdict: all 10 actual frames, the dropped one too.
    let t = &l.timeline;
    assert_eq!((t.timeline_frames, t.timeline_janky), (10, 3));
    let types: Vec<(&str, i64)> = t.jank_types.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(types, [("App Deadline Missed", 2), ("Buffer Stuffing", 1), ("Dropped Frame", 1), ("None", 7)]);
    let tags: Vec<(&str, i64)> = t.jank_tags.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(tags, [("Dropped Frame", 1), ("No Jank", 7), ("Self Jank", 2)]);
}

#[test]
fn a_present_is_a_frame_of_its_layers_series_and_one_present_has_no_rate() {
    let trace = idle_and_late();
    let p = presents_of(&trace);
    // The first present has no interval: no frame.
    assert_eq!(p.rows[0].series_frame(), None);
    // Due at 80, presented at 83 after an idle span: a frame time of 4
    // vsyncs, 3 of them dropped, on the 60 Hz grid.
    let f = p.rows[7].series_frame().expect("a frame");
    assert_eq!((f.ts, f.cost_ns, f.dropped, f.interval_ns), (vsync(83), vsync(4) - vsync(0), 3, P60));
    assert_eq!(f.refresh_hz, 1e9 / P60 as f64);
    // A window holding the present at 40 alone: a layer of one present has
    // no interval and no wall time, so 0 fps and 0 fps_wall (docs/presents.md).
    let frames = crate::frames::FrameAnalysis { display: DisplayGrid::new(&trace), ..Default::default() };
    let w = crate::frames::ScenarioWindow { start_ns: vsync(40), end_ns: vsync(41) };
    let p = analyze_in(&trace, &frames, Some(w));
    assert_eq!(p.layers.len(), 1);
    let l = &p.layers[0];
    assert_eq!((l.presents, l.fps, l.fps_wall), (1, 0.0, 0.0));
    assert_eq!((l.drop_level, l.dropped_vsyncs), (Levels::default(), 0));
}

#[test]
fn without_frame_timeline_the_doframe_that_asked_sets_the_deadline() {
    // The same app drawing through RenderThread's queueBuffer, no
    // FrameTimeline: doFrames at vsyncs 0–4, 40, 41 and 80 (the last one
    // 40 ms long), each frame queued 8 ms after its vsync, the last 4 vsyncs
    // and 1 ms after its own (vsync 84 + 1 ms).
    let mut b = TB::new();
    b.process(APP, "com.example.app").thread(APP + 1, APP, "RenderThread");
    let mut rows = Vec::new();
    let mut queues = Vec::new();
    for k in [0, 1, 2, 3, 4, 40, 41, 80] {
        let dur = if k == 80 { 40 * crate::testutil::MS } else { 2 * crate::testutil::MS };
        rows.push(crate::testutil::frame(APP, vsync(k), P60, dur));
        let queue = if k == 80 { vsync(84) + 1_000_000 } else { vsync(k) + 8_000_000 };
        b.slice(APP + 1, queue - 500_000, 500_000, "queueBuffer");
        queues.push(queue);
    }
    let trace = b.build();
    let frames = crate::frames::FrameAnalysis { display: DisplayGrid::new(&trace), rows, ..Default::default() };
    let p = analyze(&trace, &frames);
    assert_eq!(p.layers.len(), 1);
    assert_eq!(p.layers[0].source, PresentSource::Producer);
    assert_eq!(p.rows.iter().map(|r| r.ts).collect::<Vec<_>>(), queues);
    // Each present was due one vsync after its doFrame's.
    let due: Vec<Option<i64>> = p.rows.iter().map(|r| r.due_ts).collect();
    assert_eq!(
        due,
        [
            None,
            Some(vsync(2)),
            Some(vsync(3)),
            Some(vsync(4)),
            Some(vsync(5)),
            Some(vsync(41)),
            Some(vsync(42)),
            Some(vsync(81))
        ]
    );
    // Idle from the previous queue (vsync 4 + 8 ms) to the vsync before the
    // frame's due time or its queue, whichever is earlier: vsync 40 + 8 ms
    // − 1 vsync, and vsync 80.
    let idle: Vec<Option<i64>> = p.rows.iter().map(|r| r.idle_ns).collect();
    assert_eq!(
        idle,
        [None, Some(0), Some(0), Some(0), Some(0), Some(35 * P60), Some(0), Some(vsync(80) - vsync(41) - 8_000_000)]
    );
    let dropped: Vec<Option<i64>> = p.rows.iter().map(|r| r.dropped_vsyncs).collect();
    // The last: from vsync 80 to vsync 84 + 1 ms, 4 vsyncs: 3 dropped.
    assert_eq!(dropped, [None, Some(0), Some(0), Some(0), Some(0), Some(0), Some(0), Some(3)]);
    assert_eq!(p.layers[0].idle.count, 2);
    // Without a doFrame in the app, nothing says when a frame was asked
    // for: every vsync since the previous present counts.
    let p = presents_of(&trace);
    let dropped: Vec<Option<i64>> = p.rows.iter().map(|r| r.dropped_vsyncs).collect();
    assert_eq!(dropped, [None, Some(0), Some(0), Some(0), Some(0), Some(35), Some(0), Some(42)]);
    assert_eq!(p.layers[0].idle, IdleSpans::default());
}

#[test]
fn a_short_span_without_a_request_is_pacing_not_idle() {
    // Due every other vsync and presented on time (a 30 fps app on a 60 Hz
    // panel): one vsync without a request each time, not idle; each present
    // dropped the vsync between, as the user saw.
    let mut b = TB::new();
    b.process(APP, "com.example.app");
    for k in 0..6 {
        b.expected_surface(APP, k, vsync(2 * k) - P60, P60);
        b.actual_surface(APP, k, vsync(2 * k) - P60, P60, APP_LAYER, "None", PresentType::OnTime);
    }
    let p = presents_of(&b.build());
    assert!(p.rows.iter().skip(1).all(|r| r.idle_ns == Some(0) && r.dropped_vsyncs == Some(1)));
    assert_eq!(p.layers[0].fps, 5e9 / (10 * P60) as f64);
}

#[test]
fn perfdog_flags_by_the_mean_of_the_previous_three() {
    let ms = 1_000_000;
    // 3·90 > 2·(30+30+30) and 3·90 > 250: Jank. 130 after (30, 30, 90):
    // 3·130 = 390 > 2·150 = 300 and > 125 ms: Jank and BigJank. 84 after
    // (30, 90, 130): 252 < 500: none.
    let (d, flags) = perfdog(&[30 * ms, 30 * ms, 30 * ms, 90 * ms, 30 * ms, 130 * ms, 84 * ms]);
    assert_eq!(
        flags,
        [(false, false), (false, false), (false, false), (true, false), (false, false), (true, true), (false, false)]
    );
    assert_eq!((d.jank, d.big_jank, d.jank_time_ns, d.total_time_ns), (2, 1, 220 * ms, 424 * ms));
    // 83.33 ms exactly is not over: 3·83_333_333 = 249_999_999.
    let (d, _) = perfdog(&[10 * ms, 10 * ms, 10 * ms, 83_333_333]);
    assert_eq!(d.jank, 0);
}

#[test]
fn layer_names_name_their_package() {
    const NIA: &str = "com.google.samples.apps.nowinandroid.demo";
    fn app(layer: &str) -> Option<(&str, Option<&str>)> {
        layer_package(layer).map(|p| (p.package, p.drawn_by()))
    }
    let drawn = |pkg| Some((pkg, Some(pkg)));
    assert_eq!(app(LAYER), drawn("com.example.game"));
    assert_eq!(app("SurfaceView[com.a.b/com.a.b.Main](BLAST)#12"), drawn("com.a.b"));
    assert_eq!(app("com.a.b/com.a.b.Main#0"), drawn("com.a.b"));
    // FrameTimeline's BLAST transaction layers, as the Pixel 7 Pro capture names them.
    assert_eq!(app(&format!("TX - {NIA}/com.google.samples.apps.nowinandroid.MainActivity#50010")), drawn(NIA));
    assert_eq!(app("TX - SurfaceView - com.a.b/com.a.b.Main#7"), drawn("com.a.b"));
    // A starting window names its app, but the system draws it.
    assert_eq!(app(&format!("Splash Screen {NIA}#50015")), Some((NIA, None)));
    assert_eq!(app(&format!("TX - Splash Screen {NIA}#50003")), Some((NIA, None)));
    // System layers name no package.
    for system in [
        "StatusBar#0",
        "StatusBar#5",
        "TX - StatusBar#38004",
        "TX - NotificationShade#0",
        "TX - Surface(name=Task=1)/@0x50aef49 - animation-leash of app_transition#0",
        "TX - Surface(name=8d1f382 com.a.b/com.a.b.Main)/@0x42c2fdf - animation-leash of starting_reveal#50014",
        "Wallpaper BBQ wrapper#0",
        "Splash Screen #3",
        "TX - comA/Main#0",
        "com..b/Main#0",
        "1com.a/Main#0",
        "(unnamed layer)",
    ] {
        assert_eq!(layer_package(system), None, "{system}");
    }
}

/// pid 200 has no name, a layer of its package and a system layer; pid 300
/// is named `com.example.named` and presents a layer of another package:
/// the process's own name wins for its pid; pid 400, unnamed, presents
/// only the bare app's splash screen, which names no process.
fn unnamed_app() -> Trace {
    let mut b = TB::new();
    b.process(300, "com.example.named");
    for k in 0..4 {
        b.actual_surface(
            200,
            10 + k,
            vsync(k),
            P60,
            "TX - com.example.bare/com.example.bare.Main#50010",
            "None",
            PresentType::OnTime,
        );
        b.actual_surface(
            300,
            20 + k,
            vsync(k),
            P60,
            "TX - com.example.other/com.example.other.Main#4",
            "None",
            PresentType::OnTime,
        );
    }
    b.actual_surface(200, 31, vsync(9), P60, "TX - NotificationShade#0", "None", PresentType::OnTime);
    // pid 400 (unnamed: SystemUI) draws the bare app's splash screen.
    for k in 0..5 {
        b.actual_surface(
            400,
            40 + k,
            vsync(k),
            P60,
            "TX - Splash Screen com.example.bare#50011",
            "None",
            PresentType::OnTime,
        );
    }
    b.build()
}

#[test]
fn an_unnamed_process_is_named_by_its_layers_package() {
    let trace = unnamed_app();
    let p = presents_of(&trace);
    assert_eq!(p.names.iter().collect::<Vec<_>>(), [(200, "com.example.bare")]);
    assert_eq!(p.names.resolve(None, 200), Some(("com.example.bare", NameSource::Layer)));
    assert_eq!(p.names.resolve(Some("x.y"), 200), Some(("x.y", NameSource::Process)));
    assert_eq!((p.names.resolve(None, 300), p.names.resolve(None, 400)), (None, None));
    // Every layer of pid 200 carries the package, its system layer too; pid
    // 300's keep its process name; pid 400's have none.
    let by_layer: Vec<(Option<i32>, &str, Option<&str>)> =
        p.layers.iter().map(|l| (l.pid, l.layer.as_str(), l.process.as_deref())).collect();
    assert_eq!(
        by_layer,
        [
            (Some(200), "TX - NotificationShade#0", Some("com.example.bare")),
            (Some(200), "TX - com.example.bare/com.example.bare.Main#50010", Some("com.example.bare")),
            (Some(300), "TX - com.example.other/com.example.other.Main#4", Some("com.example.named")),
            (Some(400), "TX - Splash Screen com.example.bare#50011", None),
        ]
    );
    let named = |pid| match pid {
        Some(200) => Some("com.example.bare"),
        Some(300) => Some("com.example.named"),
        _ => None,
    };
    assert!(p.rows.iter().all(|r| r.process.as_deref() == named(r.pid)));
}

#[test]
fn several_packages_in_one_process_the_one_with_most_presents_names_it() {
    let mut b = TB::new();
    for k in 0..3 {
        b.actual_surface(200, k, vsync(k), P60, "b.pkg/b.pkg.Main#1", "None", PresentType::OnTime);
    }
    for k in 0..3 {
        b.actual_surface(200, 10 + k, vsync(k), P60, "a.pkg/a.pkg.Main#1", "None", PresentType::OnTime);
    }
    // A tie: the first in name order.
    assert_eq!(presents_of(&b.build()).names.get(200), Some("a.pkg"));
    b.actual_surface(200, 20, vsync(5), P60, "b.pkg/b.pkg.Main#1", "None", PresentType::OnTime);
    assert_eq!(presents_of(&b.build()).names.get(200), Some("b.pkg"));
}

#[test]
fn sparse_timeline_starts_off_the_grid_are_not_the_display_period() {
    // Expected surface frames on every 2nd or 3rd vsync, each shifted back
    // by 6.1 or 10.2 ms (SurfaceFlinger's work duration changing): spacings
    // of 22.8 and 26.9 ms, no standard rate. No counter ticks.
    let mut b = TB::new();
    b.process(100, "com.example.app");
    let mut k = 0;
    for j in 0..30 {
        let shift = if (j / 3) % 2 == 0 { 6_100_000 } else { 10_200_000 };
        b.expected_surface(100, j, vsync(k) - shift, P60);
        k += 2 + j % 2;
    }
    let trace = b.build();
    let grid = DisplayGrid::new(&trace);
    for f in &trace.frame_timeline {
        assert_eq!(grid.period_at(f.ts, P60), P60);
    }
}

#[test]
fn hardware_vsync_outranks_the_other_clocks() {
    let mut b = TB::new();
    b.process(SF, "/system/bin/surfaceflinger");
    let p90 = 11_111_111;
    for k in 0..20 {
        b.counter(SF, "HW_VSYNC_0", k * p90, (k % 2) as f64);
        b.counter(SF, "HW_VSYNC_ON_0", k * p90, 1.0);
        b.counter(SF, "VSYNC-sf", k * P60, (k % 2) as f64);
    }
    let grid = DisplayGrid::new(&b.build());
    assert_eq!(grid.period_at(100_000_000, P60), p90);
}
