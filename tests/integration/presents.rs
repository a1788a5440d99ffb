//! Presented frames end to end, on the trace builder's renderer scenarios
//! (a Unity game, a Flutter app, a video player, an app drawing every second
//! or third vsync) in Perfetto and legacy systrace form, and on the real
//! FrameTimeline-only captures: each layer's presents, the app's renderer,
//! the headline fps and the Green Alliance category, against the
//! scenario's own ground truth.

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

fn fps_of(ts: &[i64]) -> f64 {
    (ts.len() - 1) as f64 * 1e9 / (ts[ts.len() - 1] - ts[0]) as f64
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
            assert_eq!(layer.fps, fps_of(&want), "{name}");
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
        assert_eq!(app.headline.fps, fps_of(&want));
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
        assert_eq!(app.fps, fps_of(&presents));
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
    let fps = format!("{:.1}", fps_of(want));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    // The layer's name cut to 60 characters in the middle; whole in the tooltip ('/' escaped).
    let row = format!(
        r#"<tr class="shown"><td title="{}">SurfaceView - com.example.gam…d.player.UnityPlayerActivity#0</td><td>frame_timeline</td><td class="num">{}</td><td class="num">{fps}</td><td class="num">60 Hz</td>"#,
        s.expect.layer.replace('/', "&#x2f;"),
        want.len()
    );
    assert!(html.contains(&row), "no row {row}");
    assert!(html.contains(&format!("<strong>{fps} fps</strong> from the presents of SurfaceView")));
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
    // first, over the time from the first to the last.
    let ts = &s.expect.present_ts;
    let want = 1e9 * (ts.len() - 1) as f64 / (ts[ts.len() - 1] - ts[0]) as f64;
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
