//! Presented frames end to end, on the trace builder's renderer scenarios
//! (a Unity game, a Flutter app, a video player, an app drawing every second
//! or third vsync) in Perfetto and legacy systrace form, and on the real
//! FrameTimeline-only captures: each layer's presents, the app's renderer,
//! the headline fps and the Green Alliance category, against the
//! scenario's own ground truth.

use std::collections::BTreeMap;
use std::path::Path;

use fpsan::analysis::{self, Analysis, Options};
use fpsan::frames::IntervalSource;
use fpsan::metrics::{Category, CategorySource, HeadlineSource, Verdict};
use fpsan::presents::{PresentSource, RendererKind};
use tracegen::renderers::{self, RendererScenario};
use tracegen::systrace::SystraceOptions;
use tracegen::BuildOptions;

use crate::util::{fpsan, shared};

/// The scenario written in one form, analysed.
fn analysed(s: &RendererScenario, systrace: bool, dir: &Path) -> Analysis {
    let path = dir.join(if systrace { "t.txt" } else { "t.pftrace" });
    let bytes = if systrace {
        s.builder.systrace_text(&SystraceOptions::default()).into_bytes()
    } else {
        s.builder.build(&BuildOptions::default())
    };
    std::fs::write(&path, bytes).unwrap();
    analysis::analyze(&path, &Options::default()).expect("analysed")
}

/// The present times of the app's visible layer in that form: FrameTimeline
/// presents in Perfetto form, SurfaceFlinger's latches (to the microsecond
/// systrace prints) in systrace form.
fn expected_presents(s: &RendererScenario, systrace: bool) -> (PresentSource, Vec<i64>) {
    if systrace {
        (PresentSource::LayerCounter, s.expect.latch_ts.iter().map(|t| t / 1000 * 1000).collect())
    } else {
        (PresentSource::FrameTimeline, s.expect.present_ts.clone())
    }
}

/// Paced fps of presents at `ts` on a display of `period` that never idled:
/// the presents after the first over the vsyncs from the first to the last
/// (Σ (dropped + 1) of the intervals).
fn fps_of(ts: &[i64], period: i64) -> f64 {
    let vsyncs = (ts[ts.len() - 1] - ts[0] + period / 2) / period;
    1e9 * (ts.len() - 1) as f64 / (vsyncs * period) as f64
}

/// Each scenario in both forms: the visible layer's presents are exactly the
/// scenario's, with its PerfDog counts, on the 60 Hz grid.
#[test]
fn every_renderer_presents_its_layer_exactly() {
    let dir = tempfile::tempdir().unwrap();
    for (name, s) in renderers::all() {
        for systrace in [false, true] {
            let a = analysed(&s, systrace, dir.path());
            let e = &s.expect;
            let (source, want) = expected_presents(&s, systrace);
            let layer = a.presents.layers.iter().find(|l| l.layer == e.layer && l.pid == Some(e.pid));
            let layer = layer.unwrap_or_else(|| panic!("{name} (systrace {systrace}): no layer {}", e.layer));
            assert_eq!(layer.source, source, "{name}");
            let got: Vec<i64> =
                a.presents.rows.iter().filter(|r| r.layer == e.layer && r.pid == Some(e.pid)).map(|r| r.ts).collect();
            assert_eq!(got, want, "{name} (systrace {systrace})");
            assert_eq!(layer.fps, fps_of(&want, e.display_period_ns), "{name}");
            assert_eq!((layer.perfdog.jank, layer.perfdog.big_jank), (e.perfdog_jank, e.perfdog_big_jank), "{name}");
            assert_eq!(layer.refresh_hz, 1e9 / e.display_period_ns as f64, "{name}");
            let vsyncs: i64 = e.frames.windows(2).map(|w| w[1].latch_vsync - w[0].latch_vsync - 1).sum();
            assert_eq!(layer.dropped_vsyncs, vsyncs, "{name} (systrace {systrace})");
            if let Some(tid) = e.producer_tid {
                assert_eq!(layer.tid, Some(tid), "{name}: producer");
            }
        }
    }
}

/// The game: Java doFrames at 60 Hz, the render thread at 30 fps with a
/// 100 ms and a 200 ms hitch. Judged by its SurfaceView's presents, as a game.
#[test]
fn a_game_is_judged_by_its_surface_view_not_its_doframes() {
    let dir = tempfile::tempdir().unwrap();
    let s = renderers::game();
    for systrace in [false, true] {
        let a = analysed(&s, systrace, dir.path());
        let app = a.apps.iter().find(|x| x.pid == s.expect.pid).expect("the game has doFrames");
        assert_eq!(app.frames as usize, s.expect.doframes);
        assert!(app.fps > 59.0, "its doFrames run at the display rate: {}", app.fps);
        let r = app.renderer.as_ref().expect("renderer");
        assert_eq!(r.to_string(), "SurfaceView (Unity, GL)");
        let (_, want) = expected_presents(&s, systrace);
        assert_eq!(app.headline.source, HeadlineSource::Presents);
        assert_eq!(app.headline.layer.as_deref(), Some(s.expect.layer.as_str()));
        assert_eq!(app.headline.fps, fps_of(&want, s.expect.display_period_ns));
        let g = &app.green_alliance;
        assert_eq!((g.category, g.category_source, g.min_fps), (Category::Game, CategorySource::Detected, 25.0));
        assert_eq!((g.fps, g.verdict), (app.headline.fps, Verdict::Pass));
    }
}

#[test]
fn flutter_and_video_name_their_renderer_and_category() {
    let dir = tempfile::tempdir().unwrap();
    for (s, kind, category) in [
        (renderers::flutter(), RendererKind::Flutter, Category::App),
        (renderers::video(), RendererKind::Video, Category::Video),
    ] {
        for systrace in [false, true] {
            let a = analysed(&s, systrace, dir.path());
            let app = a.apps.iter().find(|x| x.pid == s.expect.pid).expect("doFrames");
            assert_eq!(app.renderer.as_ref().map(|r| r.kind), Some(kind));
            assert_eq!(app.headline.source, HeadlineSource::Presents);
            assert_eq!(app.headline.layer.as_deref(), Some(s.expect.layer.as_str()));
            assert_eq!(app.green_alliance.category, category);
        }
    }
}

/// An app drawing every second or third vsync of a 60 Hz panel, its
/// FrameTimeline starts sparse (and in one variant shifted off the grid):
/// every frame still has the panel's interval.
#[test]
fn sparse_drawing_keeps_the_panels_interval() {
    let dir = tempfile::tempdir().unwrap();
    for (s, drift) in [(renderers::sparse_drawing(), false), (renderers::sparse_drawing_offset_drift(), true)] {
        for systrace in [false, true] {
            let a = analysed(&s, systrace, dir.path());
            let rows: Vec<_> = a.frames.rows.iter().filter(|r| r.pid == s.expect.pid).collect();
            assert_eq!(rows.len(), s.expect.doframes);
            for r in &rows {
                assert_eq!(r.frame_interval_ns, s.expect.display_period_ns, "frame at {}", r.ts);
                // With the drift, FrameTimeline puts the frame's vsync up to
                // 10.2 ms earlier, which its cost then includes.
                if !drift {
                    assert_eq!(r.dropped_frames, 0, "frame at {}", r.ts);
                }
            }
            assert!(rows.iter().all(|r| r.interval_source != IntervalSource::Default));
        }
    }
}

/// `--category` overrides the renderer's category, and says so.
#[test]
fn the_category_given_wins_and_is_printed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.pftrace");
    std::fs::write(&path, renderers::game().builder.build(&BuildOptions::default())).unwrap();
    let out = fpsan().arg("analyze").arg(&path).args(["--app", "com.example.game"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert!(text.contains("renderer       SurfaceView (Unity, GL)"), "{text}");
    assert!(text.contains("green alliance pass (≥ 25, game detected"), "{text}");
    let out = fpsan().arg("analyze").arg(&path).args(["--category", "app", "--format", "json"]).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let game = json["apps"].as_array().unwrap().iter().find(|a| a["pid"] == 7000).unwrap();
    assert_eq!(game["green_alliance"]["category"], "app");
    assert_eq!(game["green_alliance"]["category_source"], "given");
    assert_eq!(game["green_alliance"]["min_fps"], 55.0);
    assert_eq!(game["green_alliance"]["verdict"], "fail");
}

/// The two real captures that have FrameTimeline but no doFrame: presents
/// per layer, and exit 0.
#[test]
fn frame_timeline_only_captures_give_presents() {
    for (name, layers_min, busiest) in [
        ("real-pixel7pro-android13-nowinandroid-frametimeline-only.pftrace", 10, 738),
        ("real-emulator-android12-frametimeline-sched.pftrace", 7, 58),
    ] {
        let Some(path) = shared(&format!("traces/{name}")) else { return };
        let out = fpsan().arg("analyze").arg(&path).args(["--format", "json"]).output().unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let layers = json["presents"]["layers"].as_array().unwrap();
        assert!(layers.len() >= layers_min, "{name}: {} layers", layers.len());
        assert!(layers.iter().all(|l| l["source"] == "frame_timeline"));
        let most = layers.iter().map(|l| l["presents"].as_i64().unwrap()).max().unwrap();
        assert_eq!(most, busiest, "{name}");
        let rows = json["presents"]["rows"].as_array().unwrap();
        assert_eq!(rows.len() as i64, layers.iter().map(|l| l["presents"].as_i64().unwrap()).sum::<i64>());
    }
}

/// The Flutter scenario's frames from the engine's markers, by hand from
/// its parameters: a frame at every vsync `k` in 0..=150 but the three after
/// the slow ones; `Animator::BeginFrame` 4 ms from vsync + 1 ms,
/// `Rasterizer::DoDraw` from vsync + 6 ms (5 ms, 25 ms for the slow ones),
/// its `queueBuffer` ending 0.5 ms before the raster. Each raster pairs
/// with its own build (no build waits behind a slow raster: the vsync
/// after one starts none). Totals: 9.5 ms, or 29.5 ms (one vsync dropped)
/// for the slow frames. Systrace form: the same, from microsecond stamps.
#[test]
fn flutter_frames_are_rebuilt_from_the_engines_markers() {
    use renderers::{
        vsync_ts, DISPLAY_PERIOD_NS, FLUTTER_BUILD_AFTER_VSYNC_NS, FLUTTER_BUILD_NS,
        FLUTTER_QUEUE_END_BEFORE_RASTER_END_NS, FLUTTER_RASTER_AFTER_VSYNC_NS, FLUTTER_RASTER_NS, FLUTTER_RASTER_TID,
        FLUTTER_SLOW_FRAMES, FLUTTER_SLOW_RASTER_NS, FLUTTER_UI_TID, LAST_FRAME_VSYNC,
    };
    let ks: Vec<i64> = (0..=LAST_FRAME_VSYNC).filter(|k| !FLUTTER_SLOW_FRAMES.contains(&(k - 1))).collect();
    assert_eq!(ks.len(), 148);
    let dir = tempfile::tempdir().unwrap();
    let s = renderers::flutter();
    for systrace in [false, true] {
        let a = analysed(&s, systrace, dir.path());
        let v = |k: i64| if systrace { vsync_ts(k) / 1000 * 1000 } else { vsync_ts(k) };
        let f: Vec<_> = a.presents.flutter.iter().filter(|f| f.pid == s.expect.pid).collect();
        assert_eq!(f.len(), ks.len(), "systrace {systrace}");
        let mut presents = Vec::new();
        for (f, &k) in f.iter().zip(&ks) {
            let slow = FLUTTER_SLOW_FRAMES.contains(&k);
            let raster_dur = if slow { FLUTTER_SLOW_RASTER_NS } else { FLUTTER_RASTER_NS };
            let build_ts = v(k) + FLUTTER_BUILD_AFTER_VSYNC_NS;
            let raster_ts = v(k) + FLUTTER_RASTER_AFTER_VSYNC_NS;
            let present = raster_ts + raster_dur - FLUTTER_QUEUE_END_BEFORE_RASTER_END_NS;
            let total = if slow { 29_500_000 } else { 9_500_000 };
            assert_eq!(present - build_ts, total);
            let got = (f.build_ts, f.build_dur, f.raster_ts, f.raster_dur, f.present_ts, f.total_ns);
            let want =
                (Some(build_ts), Some(FLUTTER_BUILD_NS), Some(raster_ts), Some(raster_dur), Some(present), Some(total));
            assert_eq!(got, want, "frame at vsync {k} (systrace {systrace})");
            assert_eq!(f.dropped_vsyncs, Some(if slow { 1 } else { 0 }), "frame at vsync {k}");
            assert_eq!(f.vsync_period_ns, DISPLAY_PERIOD_NS);
            assert_eq!((f.ui_tid, f.raster_tid), (Some(FLUTTER_UI_TID), Some(FLUTTER_RASTER_TID)));
            presents.push(present);
        }
        // The presents are the scenario's own queueBuffer ends.
        let queues: Vec<i64> = s.expect.queue_ts.iter().map(|&t| if systrace { t / 1000 * 1000 } else { t }).collect();
        assert_eq!(presents, queues);
        let late: Vec<i64> = f.iter().zip(&ks).filter(|(f, _)| f.dropped_vsyncs >= Some(1)).map(|(_, &k)| k).collect();
        assert_eq!(late, FLUTTER_SLOW_FRAMES);

        assert_eq!(a.presents.flutter_apps.len(), 1);
        let app = &a.presents.flutter_apps[0];
        assert_eq!(
            (app.pid, app.ui_thread.as_deref(), app.raster_thread.as_deref()),
            (s.expect.pid, Some("1.ui"), Some("1.raster"))
        );
        assert_eq!((app.frames, app.presented, app.builds_not_rastered, app.rasters_without_build), (148, 148, 0, 0));
        // 147 intervals over vsync 0 → vsync 150, exactly 2.5 s in both forms.
        assert_eq!(app.last_present_ts.zip(app.first_present_ts).map(|(l, f)| l - f), Some(2_500_000_000));
        // Flutter's fps is its presents per second of wall time.
        assert_eq!(app.fps, (presents.len() - 1) as f64 * 1e9 / 2_500_000_000.0);
        assert_eq!(
            (app.build_ns.p50, app.build_ns.p90, app.build_ns.max),
            (Some(4_000_000), Some(4_000_000), Some(4_000_000))
        );
        assert_eq!(
            (app.raster_ns.p50, app.raster_ns.p90, app.raster_ns.max),
            (Some(5_000_000), Some(5_000_000), Some(25_000_000))
        );
        assert_eq!((app.total_ns.p50, app.total_ns.max), (Some(9_500_000), Some(29_500_000)));
        assert_eq!((app.jank_frames, app.dropped_vsyncs), (3, 3));
    }
    // No other scenario has Flutter frames.
    for (name, s) in renderers::all().into_iter().filter(|(n, _)| *n != "flutter") {
        let a = analysed(&s, false, dir.path());
        assert!(a.presents.flutter.is_empty() && a.presents.flutter_apps.is_empty(), "{name}");
    }
}

/// The terminal shows a "flutter frames" block for the Flutter app; the
/// JSON has `presents.flutter` (and with the frames `presents.flutter_frames`).
#[test]
fn flutter_frames_are_printed_and_in_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flutter.pftrace");
    std::fs::write(&path, renderers::flutter().builder.build(&BuildOptions::default())).unwrap();
    let out = fpsan().arg("analyze").arg(&path).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("flutter frames (engine markers: Animator::BeginFrame → Rasterizer::DoDraw → present)"),
        "{text}"
    );
    let line = text.lines().find(|l| l.contains("com.example.flutter") && l.contains("1.raster")).expect(&text);
    assert!(line.contains("1.ui 7110") && line.contains("148") && line.contains("58.8"), "{line}");
    let out = fpsan().arg("analyze").arg(&path).args(["--format", "json"]).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let app = &json["presents"]["flutter"][0];
    assert_eq!(
        (app["pid"].as_i64(), app["frames"].as_i64(), app["jank_frames"].as_i64()),
        (Some(7100), Some(148), Some(3))
    );
    assert_eq!(app["raster_marker"], "Rasterizer::DoDraw");
    let frames = json["presents"]["flutter_frames"].as_array().unwrap();
    assert_eq!(frames.len(), 148);
    assert_eq!(frames[0]["total_ns"], 9_500_000);
    assert_eq!((frames[0]["drop_level"].as_str(), frames[0]["dropped_vsyncs"].as_i64()), (Some("BEST"), Some(0)));
}

/// `--out` on the game (Perfetto form): report.html's Presents section
/// lists its SurfaceView layer first with its presents' fps, and its
/// layer-presents chart is written and inlined.
#[test]
fn the_game_report_shows_its_layer_presents() {
    let dir = tempfile::tempdir().unwrap();
    let s = renderers::game();
    let path = dir.path().join("game.pftrace");
    std::fs::write(&path, s.builder.build(&BuildOptions::default())).unwrap();
    let out = dir.path().join("out");
    let run = fpsan().arg("analyze").arg(&path).arg("--out").arg(&out).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));

    let want = &s.expect.present_ts;
    // The scenario's own present times give the fps (every_renderer_presents_its_layer_exactly
    // checks the analysis against them to the bit); the page prints it with one decimal.
    let fps = format!("{:.1}", fps_of(want, s.expect.display_period_ns));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    // The layer's name cut to 60 characters in the middle; whole in the tooltip ('/' escaped).
    let row = format!(
        r#"<tr class="shown"><td title="{}">SurfaceView - com.example.gam…d.player.UnityPlayerActivity#0</td><td>frame_timeline</td><td class="num">{}</td><td class="num">{fps}</td><td class="num">60 Hz</td>"#,
        s.expect.layer.replace('/', "&#x2f;"),
        want.len()
    );
    assert!(html.contains(&row), "no row {row}");
    assert!(html.contains(&format!("<strong>{fps} fps (paced)</strong> from the presents of SurfaceView")));
    assert!(
        html.contains("<tr><th>renderer</th><td>SurfaceView (Unity, GL) <small>(thread UnityMain)</small></td></tr>")
    );

    let chart = out.join(format!("charts/{}-{}-layer-presents.png", renderers::GAME_PACKAGE, s.expect.pid));
    let png = std::fs::read(&chart).unwrap_or_else(|e| panic!("{}: {e}", chart.display()));
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    // minijinja escapes the file name's '/'.
    assert!(html.contains("(charts&#x2f;com.example.game-7000-layer-presents.png)</figcaption>"));
}

/// `compare` judges a game by what it presented, not by its Java doFrames:
/// each run's fps is the layer's presents per second, the headline fps
/// `analyze` shows, and stderr says so.
#[test]
fn compare_judges_a_game_by_its_layer_presents() {
    let dir = tempfile::tempdir().unwrap();
    let s = renderers::game();
    let path = dir.path().join("game.pftrace");
    std::fs::write(&path, s.builder.build(&BuildOptions::default())).unwrap();
    let run = fpsan::compare::load_run(&path, &Options::default(), renderers::GAME_PACKAGE).expect("run");
    // By hand from the scenario's present times: the presents after the
    // first, over the vsyncs from the first to the last (paced; no idle).
    let want = fps_of(&s.expect.present_ts, s.expect.display_period_ns);
    let got = run.value(fpsan::series::Metric::Fps).expect("fps");
    assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    let a = analysis::analyze(&path, &Options::default()).unwrap();
    let app = a.apps.iter().find(|x| x.pid == s.expect.pid).unwrap();
    assert_eq!(got, app.headline.fps, "compare's fps is analyze's headline");
    assert!((want - 30.0).abs() < 3.0, "the game presents at about 30 fps, not its doFrames' 60: {want}");
    let out = fpsan().arg("compare").arg(&path).arg(&path).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!("judging {} by the presents of its layer {}", renderers::GAME_PACKAGE, s.expect.layer)),
        "{err}"
    );
}

/// trace_processor v58.2's FrameTimeline verdict per app, run once on each
/// capture; the constants below are its output, row for row (the test
/// checks them against a live run too, where trace_processor is at hand).
const PER_APP_SQL: &str = "select p.pid, a.jank_type, count(*) n \
    from actual_frame_timeline_slice a join process p using(upid) \
    where a.layer_name is not null group by 1,2 order by 1,2";
/// The same per layer: its actual frames and the janky ones.
const PER_LAYER_SQL: &str = "select p.pid, a.layer_name, count(*) frames, \
    sum(a.jank_tag not in ('No Jank','Unspecified','Non-perceivable Jank')) janky \
    from actual_frame_timeline_slice a join process p using(upid) \
    where a.layer_name is not null group by 1,2 order by 1,2";

/// `real-pixel7pro-android13-nowinandroid-frametimeline-only`: trace_processor's [`PER_APP_SQL`].
const NOWINANDROID_TYPES: &[(i32, &str, i64)] = &[
    (1265, "None", 228),
    (4586, "Buffer Stuffing", 2),
    (4586, "None", 65),
    (9305, "App Deadline Missed", 11),
    (9305, "App Deadline Missed, Buffer Stuffing", 5),
    (9305, "Buffer Stuffing", 45),
    (9305, "None", 678),
    (13407, "App Deadline Missed", 1),
    (13407, "None", 33),
];

/// `real-pixel7pro-android13-nowinandroid-frametimeline-only`: trace_processor's [`PER_LAYER_SQL`].
const NOWINANDROID_LAYERS: &[(i32, &str, i64, i64)] = &[
    (1265, "TX - Surface(name=651bde6 Splash Screen com.google.samples.apps.nowinandroid.demo)/@0x3174ef4 - animation-leash of window_animation#50016", 18, 0),
    (1265, "TX - Surface(name=8d1f382 com.google.samples.apps.nowinandroid.demo/com.google.samples.apps.nowinandroid.MainActivity)/@0x42c2fdf - animation-leash of starting_reveal#50014", 32, 0),
    (1265, "TX - Surface(name=Task=16090)/@0x9b71fa2 - animation-leash of app_transition#50005", 59, 0),
    (1265, "TX - Surface(name=Task=16098)/@0xc3386c3 - animation-leash of app_transition#50004", 59, 0),
    (1265, "TX - Surface(name=WindowToken{2e93408 type=2019 android.os.BinderProxy@2875bfa})/@0xe430c5 - animation-leash of token_transform#50006", 20, 0),
    (1265, "TX - Surface(name=WindowToken{2e93408 type=2019 android.os.BinderProxy@2875bfa})/@0xe430c5 - animation-leash of token_transform#50013", 40, 0),
    (4586, "TX - com.android.settings/com.android.settings.applications.InstalledAppDetails#49984", 67, 2),
    (9305, "TX - com.google.samples.apps.nowinandroid.demo/com.google.samples.apps.nowinandroid.MainActivity#50010", 739, 61),
    (13407, "TX - Splash Screen com.google.samples.apps.nowinandroid.demo#50003", 33, 1),
    (13407, "TX - StatusBar#38004", 1, 0),
];

/// `real-emulator-android12-frametimeline-sched`: trace_processor's [`PER_APP_SQL`].
const EMULATOR_A12_TYPES: &[(i32, &str, i64)] = &[
    (582, "Prediction Error, App Deadline Missed", 8),
    (980, "App Deadline Missed, SurfaceFlinger Stuffing", 1),
    (980, "Buffer Stuffing", 2),
    (980, "None", 1),
    (980, "Prediction Error", 19),
    (980, "Prediction Error, App Deadline Missed", 9),
    (980, "Prediction Error, App Deadline Missed, Buffer Stuffing", 4),
    (980, "Prediction Error, Buffer Stuffing", 16),
    (980, "SurfaceFlinger CPU Deadline Missed", 2),
    (980, "SurfaceFlinger CPU Deadline Missed, Buffer Stuffing", 1),
    (980, "Unknown Jank", 8),
    (1323, "Buffer Stuffing", 2),
    (1323, "Prediction Error, App Deadline Missed", 2),
    (1323, "Prediction Error, App Deadline Missed, Buffer Stuffing", 1),
    (1323, "Prediction Error, Buffer Stuffing", 4),
    (2262, "SurfaceFlinger CPU Deadline Missed, App Deadline Missed", 1),
    (4692, "App Deadline Missed, SurfaceFlinger Stuffing", 1),
    (4692, "Buffer Stuffing", 1),
    (4692, "Prediction Error, App Deadline Missed, Buffer Stuffing", 2),
    (4692, "Prediction Error, Buffer Stuffing", 1),
    (4692, "SurfaceFlinger CPU Deadline Missed, App Deadline Missed, Buffer Stuffing", 1),
];

/// `real-emulator-android12-frametimeline-sched`: trace_processor's [`PER_LAYER_SQL`].
const EMULATOR_A12_LAYERS: &[(i32, &str, i64, i64)] = &[
    (582, "TX - Surface(name=Task=1)/@0x50aef49 - animation-leash of app_transition#0", 4, 4),
    (582, "TX - Surface(name=Task=14)/@0x5a6dc5d - animation-leash of app_transition#0", 4, 4),
    (980, "TX - NavigationBar0#0", 59, 58),
    (980, "TX - StatusBar#0", 4, 4),
    (
        1323,
        "TX - com.google.android.apps.nexuslauncher/com.google.android.apps.nexuslauncher.NexusLauncherActivity#1",
        9,
        9,
    ),
    (
        2262,
        "TX - com.google.android.apps.nexuslauncher/com.google.android.apps.nexuslauncher.NexusLauncherActivity#0",
        1,
        1,
    ),
    (4692, "TX - com.android.chrome/com.google.android.apps.chrome.Main#0", 6, 6),
];

/// `real-android16-app-startup-after`: trace_processor's [`PER_APP_SQL`].
const A16_STARTUP_TYPES: &[(i32, &str, i64)] = &[
    (949, "None", 2),
    (949, "Prediction Error", 61),
    (949, "Prediction Error, Buffer Stuffing", 30),
    (1431, "None", 1),
    (1431, "Prediction Error", 10),
    (1431, "Prediction Error, App Deadline Missed", 3),
    (1431, "Prediction Error, Buffer Stuffing", 26),
    (1915, "None", 1),
    (1915, "Prediction Error", 14),
    (6835, "App Deadline Missed", 1),
    (6835, "App Deadline Missed, Buffer Stuffing", 1),
    (6835, "Prediction Error, Buffer Stuffing", 13),
    (7406, "Prediction Error, App Deadline Missed", 1),
    (7406, "Prediction Error, App Deadline Missed, Buffer Stuffing", 1),
];

/// `real-android16-app-startup-after`: trace_processor's [`PER_LAYER_SQL`].
const A16_STARTUP_LAYERS: &[(i32, &str, i64, i64)] = &[
    (949, "TX - Surface(name=163ebae Splash Screen com.example.perfetto.startup#208)/@0x25cd2ef - animation-leash of window_animation#221", 10, 10),
    (949, "TX - Surface(name=3825b1 com.example.perfetto.startup/com.example.perfetto.startup.StartupActivity#215)/@0x8d2abf6 - animation-leash of starting_reveal#219", 21, 21),
    (949, "TX - Task=12#167", 31, 30),
    (949, "TX - Task=14#206", 31, 30),
    (1431, "TX - Splash Screen com.example.perfetto.startup#209", 22, 22),
    (1431, "TX - StatusBar#73", 18, 17),
    (1915, "TX - Taskbar#80", 15, 14),
    (6835, "TX - com.example.perfetto.jank/com.example.perfetto.jank.JankActivity#199", 15, 15),
    (7406, "TX - com.example.perfetto.startup/com.example.perfetto.startup.StartupActivity#216", 2, 2),
];

/// FrameTimeline's verdict, per app and per layer, equals trace_processor's
/// on three real captures: one without doFrames (every app judged by
/// presents), an Android 12 emulator and an Android 16 startup with doFrames.
#[test]
fn frame_timeline_verdict_is_trace_processors_per_app_and_layer() {
    for (name, types, layers) in [
        ("real-pixel7pro-android13-nowinandroid-frametimeline-only.pftrace", NOWINANDROID_TYPES, NOWINANDROID_LAYERS),
        ("real-emulator-android12-frametimeline-sched.pftrace", EMULATOR_A12_TYPES, EMULATOR_A12_LAYERS),
        ("real-android16-app-startup-after.pftrace", A16_STARTUP_TYPES, A16_STARTUP_LAYERS),
    ] {
        let Some(path) = shared(&format!("traces/{name}")) else { return };
        // The stored numbers are still trace_processor's.
        let live = |sql| crate::util::trace_processor_rows(&path, sql).map(|rows| rows[1..].to_vec());
        let stored: Vec<Vec<String>> =
            types.iter().map(|(p, t, n)| vec![p.to_string(), t.to_string(), n.to_string()]).collect();
        assert_eq!(live(PER_APP_SQL).unwrap_or_else(|| stored.clone()), stored, "{name}");
        let stored: Vec<Vec<String>> = layers
            .iter()
            .map(|(p, l, f, j)| vec![p.to_string(), l.to_string(), f.to_string(), j.to_string()])
            .collect();
        assert_eq!(live(PER_LAYER_SQL).unwrap_or_else(|| stored.clone()), stored, "{name}");
        let a = analysis::analyze(&path, &Options::default()).expect("analysed");
        // trace_processor's jank type strings split as fpsan counts them.
        let mut want: BTreeMap<i32, BTreeMap<String, i64>> = BTreeMap::new();
        for &(pid, jank_type, n) in types {
            for t in jank_type.split(", ") {
                *want.entry(pid).or_default().entry(t.to_string()).or_default() += n;
            }
        }
        let got: BTreeMap<i32, BTreeMap<String, i64>> =
            a.presents.timeline.iter().map(|(pid, v)| (*pid, v.jank_types.clone())).collect();
        assert_eq!(got, want, "{name}: jank types per app");
        for &(pid, layer, frames, janky) in layers {
            let l = a
                .presents
                .layers
                .iter()
                .find(|l| l.pid == Some(pid) && l.layer == layer && l.source == PresentSource::FrameTimeline)
                .unwrap_or_else(|| panic!("{name}: layer {layer} of {pid}"));
            assert_eq!((l.timeline.timeline_frames, l.timeline.timeline_janky), (frames, janky), "{name}: {layer}");
        }
        // Every app's summary carries its pid's verdict, judged by doFrames or presents.
        assert!(!a.apps.is_empty());
        for app in &a.apps {
            let v = a.presents.timeline.get(&app.pid).cloned().unwrap_or_default();
            assert_eq!(app.jank.frame_timeline, v.jank_types, "{name}: pid {}", app.pid);
            assert_eq!(app.jank.frame_timeline_janky, v.timeline_janky, "{name}: pid {}", app.pid);
        }
    }
}

/// The FrameTimeline-only Pixel 7 Pro capture: the app's three long gaps
/// are idle spans (its frames were due 403–551 ms after the previous
/// present), so nothing is FROZEN; its FrameTimeline verdict is trace_processor's
/// 61 janky frames of 739 (16 App Deadline Missed, 50 Buffer Stuffing).
#[test]
fn nowinandroid_idle_is_not_jank() {
    let Some(path) = shared("traces/real-pixel7pro-android13-nowinandroid-frametimeline-only.pftrace") else { return };
    let a = analysis::analyze(&path, &Options::default()).expect("analysed");
    let app = a.apps.iter().find(|a| a.pid == 9305).expect("pid 9305");
    let h = &app.headline;
    assert_eq!(h.source, HeadlineSource::Presents);
    assert_eq!(h.drop_level[fpsan::frames::DropLevel::Frozen], 0, "{h:?}");
    // The three long gaps (560, 532, 417 ms) and two shorter ones (257, 92 ms)
    // had spans longer than 83.33 ms with no frame asked for.
    assert_eq!(h.idle.count, 5, "{h:?}");
    let rows = a.presents.rows.iter().filter(|r| r.pid == Some(9305) && Some(r.layer.as_str()) == h.layer.as_deref());
    for r in rows.filter(|r| r.interval_ns.is_some_and(|i| i > 400_000_000)) {
        assert!(r.idle_ns.unwrap() > 400_000_000 && r.dropped_vsyncs.unwrap() <= 1, "{r:?}");
    }
    let j = &app.jank;
    assert_eq!((j.frame_timeline_frames, j.frame_timeline_janky), (739, 61));
    assert_eq!((j.frame_timeline["App Deadline Missed"], j.frame_timeline["Buffer Stuffing"]), (16, 50));
    // No present of the layer dropped more vsyncs than its lateness says:
    // at most 108 ms after its due time (13 vsyncs at 120 Hz).
    let layer = h.layer.as_deref().unwrap();
    let rows: Vec<_> = a.presents.rows.iter().filter(|r| r.pid == Some(9305) && r.layer == layer).collect();
    let late = rows.iter().filter_map(|r| Some(r.ts - r.due_ts?)).max().unwrap();
    assert_eq!(late, 108_012_905, "trace_processor: max(actual end − expected end)");
    assert!(rows.iter().filter_map(|r| r.dropped_vsyncs).all(|d| d <= 13));
}
