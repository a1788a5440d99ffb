//! One truth in every output: for the demo, a Unity game, a Flutter app, a
//! video player and a FrameTimeline-only capture, every number the terminal
//! table and report.html show for an app equals `--format json`'s, and
//! summary.json is the JSON's apps. The HTML is read by its structure (the
//! cards' `data-key`, the summary's and the drop levels' table cells), never
//! by searching its prose.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tracegen::renderers;
use tracegen::BuildOptions;

use crate::util::{fpsan, shared, testdata};

/// The fixtures: (name, trace path), generated ones written into `dir`.
fn fixtures(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let mut out = vec![("demo", testdata("demo.pftrace"))];
    for (name, s) in [("game", renderers::game()), ("flutter", renderers::flutter()), ("video", renderers::video())] {
        let path = dir.join(format!("{name}.pftrace"));
        std::fs::write(&path, s.builder.build(&BuildOptions::default())).unwrap();
        out.push((name, path));
    }
    if let Some(p) = shared("traces/real-pixel7pro-android13-nowinandroid-frametimeline-only.pftrace") {
        out.push(("frametimeline-only", p));
    }
    out
}

fn run(args: &[&str], trace: &Path) -> std::process::Output {
    let out = fpsan().arg("analyze").arg(trace).args(args).output().unwrap();
    assert!(out.status.success(), "{}: {}", trace.display(), String::from_utf8_lossy(&out.stderr));
    out
}

/// One decimal, as every output prints an fps.
fn fps1(v: &Value) -> String {
    format!("{:.1}", v.as_f64().expect("an fps"))
}

/// The text between `open` (whose end is found from `from`) and the next `close`.
fn inner<'a>(html: &'a str, from: usize, close: &str) -> (&'a str, usize) {
    let start = html[from..].find('>').map(|k| from + k + 1).expect("a tag's end");
    let end = html[start..].find(close).map(|k| start + k).expect(close);
    (&html[start..end], end)
}

/// An app's `<section id="app-PID">`.
fn section(html: &str, pid: i64) -> &str {
    let open = format!("<section id=\"app-{pid}\">");
    let start = html.find(&open).unwrap_or_else(|| panic!("report.html has a section for pid {pid}"));
    let end = html[start..].find("</section>").map(|k| start + k).expect("section end");
    &html[start..end]
}

/// A verdict card's value (`<div class="card" data-key="KEY">…<div class="v">V</div>`).
fn card(section: &str, key: &str) -> String {
    let at = section.find(&format!("data-key=\"{key}\"")).unwrap_or_else(|| panic!("card {key}"));
    let v = at + section[at..].find("<div class=\"v\">").expect("value");
    inner(section, v, "</div>").0.to_string()
}

/// The rows of the first `<table class="CLASS">` of a section: its cells' text per row.
fn table(section: &str, class: &str) -> Vec<Vec<String>> {
    let at = section.find(&format!("<table class=\"{class}\"")).unwrap_or_else(|| panic!("table {class}"));
    let end = at + section[at..].find("</table>").expect("table end");
    let body = &section[at..end];
    body.split("<tr")
        .skip(1)
        .map(|row| {
            let mut cells = Vec::new();
            let mut rest = row;
            while let Some(k) = rest.find(['<']).filter(|_| rest.contains("</t")) {
                let tag = &rest[k..];
                if tag.starts_with("<td") || tag.starts_with("<th") {
                    let close = if tag.starts_with("<td") { "</td>" } else { "</th>" };
                    let (text, end) = inner(rest, k, close);
                    cells.push(strip_tags(text));
                    rest = &rest[end + close.len()..];
                } else {
                    rest = &rest[k + 1..];
                }
            }
            cells
        })
        .collect()
}

fn strip_tags(s: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.trim().to_string()
}

/// The label → value rows of a jank vocabulary's card (`<strong>NAME</strong>` then its table).
fn vocabulary(section: &str, name: &str) -> Vec<(String, String)> {
    let at = section.find(&format!("<strong>{name}</strong>")).unwrap_or_else(|| panic!("vocabulary {name}"));
    let end = at + section[at..].find("</table>").expect("its table's end");
    section[at..end]
        .split("<tr>")
        .skip(1)
        .map(|row| {
            let cells: Vec<String> = row.split("</td>").map(strip_tags).filter(|c| !c.is_empty()).collect();
            (cells[0].clone(), cells.get(1).cloned().unwrap_or_default())
        })
        .collect()
}

/// The terminal's lines of app `pid`'s block (from its heading to the next blank line).
fn terminal_block(table_out: &str, pid: i64) -> Vec<&str> {
    let heading = format!("(pid {pid}");
    table_out
        .lines()
        .skip_while(|l| !l.contains(&heading) || l.starts_with(' '))
        .take_while(|l| !l.is_empty())
        .collect()
}

/// FrameTimeline's verdict on app `pid` reads the same in the terminal, the
/// JSON and report.html: actual frames, janky ones, each jank type; and no
/// output says no frame dropped one while FrameTimeline counts janky frames.
fn same_frame_timeline_verdict(name: &str, app: &Value, table_out: &str, section: &str) {
    let pid = app["pid"].as_i64().unwrap();
    let j = &app["jank"];
    let (frames, janky) = (j["frame_timeline_frames"].as_i64().unwrap(), j["frame_timeline_janky"].as_i64().unwrap());
    let types = j["frame_timeline"].as_object().unwrap();
    let card = vocabulary(section, "FrameTimeline");
    let value = |label: &str| card.iter().find(|(l, _)| l == label).map(|(_, v)| v.clone());
    let terminal = terminal_block(table_out, pid).into_iter().find(|l| l.starts_with("  FrameTimeline  "));
    if frames == 0 {
        assert!(value("actual frames").unwrap().starts_with('0'), "{name} pid {pid}: {card:?}");
        assert_eq!(terminal, None, "{name} pid {pid}");
        return;
    }
    assert_eq!(count(&value("actual frames").unwrap()), frames, "{name} pid {pid}: HTML actual frames");
    assert_eq!(count(&value("janky").unwrap()), janky, "{name} pid {pid}: HTML janky");
    for (t, n) in types {
        assert_eq!(count(&value(t).unwrap()), n.as_i64().unwrap(), "{name} pid {pid}: HTML {t}");
    }
    let pairs: Vec<String> = types.iter().map(|(t, n)| format!("{t} {n}")).collect();
    let want = format!("  FrameTimeline  {janky} janky of {frames} actual frames: {}", pairs.join(", "));
    assert_eq!(terminal, Some(want.as_str()), "{name} pid {pid}: terminal FrameTimeline line");
    if janky > 0 {
        assert!(!section.contains("No frame dropped a frame"), "{name} pid {pid}");
        assert!(!section.contains("No doFrame dropped a frame.</p>"), "{name} pid {pid}: the note names FrameTimeline");
    }
}

/// A number as the HTML formats counts (thousands separated by a thin space or comma).
fn count(s: &str) -> i64 {
    s.chars().filter(char::is_ascii_digit).collect::<String>().parse().unwrap_or_else(|_| panic!("a count: {s}"))
}

#[test]
fn terminal_json_and_html_show_the_same_numbers_per_app() {
    let dir = tempfile::tempdir().unwrap();
    for (name, trace) in fixtures(dir.path()) {
        let json: Value = serde_json::from_slice(&run(&["--format", "json"], &trace).stdout).unwrap();
        let table_out = String::from_utf8(run(&[], &trace).stdout).unwrap();
        let out_dir = dir.path().join(format!("out-{name}"));
        run(&["--out", out_dir.to_str().unwrap()], &trace);
        let summary: Value = serde_json::from_slice(&std::fs::read(out_dir.join("summary.json")).unwrap()).unwrap();
        let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
        let apps = json["apps"].as_array().unwrap();
        assert!(!apps.is_empty(), "{name}: apps");
        assert_eq!(summary["apps"], json["apps"], "{name}: summary.json's apps are the JSON's");
        for app in apps {
            let pid = app["pid"].as_i64().unwrap();
            let h = &app["headline"];
            let presents = h["source"] == "presents";
            let (unit, dropped) = if presents { ("presents", "dropped vsyncs") } else { ("frames", "dropped frames") };
            // The terminal's summary row: fps, from, frames, dropped of the headline.
            let row: Vec<&str> = table_out
                .lines()
                .find(|l| l.split_whitespace().nth(1) == Some(&pid.to_string()))
                .unwrap_or_else(|| panic!("{name}: a terminal row for pid {pid}"))
                .split_whitespace()
                .collect();
            assert_eq!(row[2], fps1(&h["fps"]), "{name} pid {pid}: terminal fps");
            assert_eq!(row[3], if presents { "presents" } else { "doFrames" }, "{name} pid {pid}: terminal from");
            assert_eq!(row[4], h["frames"].to_string(), "{name} pid {pid}: terminal frames");
            assert_eq!(row[5], h["dropped"].to_string(), "{name} pid {pid}: terminal dropped");
            // report.html: the cards, the summary and the drop levels.
            let s = section(&html, pid);
            assert_eq!(card(s, "fps"), fps1(&h["fps"]), "{name} pid {pid}: HTML fps card");
            let levels = &h["drop_level"];
            assert_eq!(count(&card(s, "frozen")), levels["FROZEN"].as_i64().unwrap(), "{name} pid {pid}: FROZEN card");
            assert_eq!(count(&card(s, "high")), levels["HIGH"].as_i64().unwrap(), "{name} pid {pid}: HIGH card");
            let pass = app["green_alliance"]["pass"].as_bool().unwrap();
            assert_eq!(card(s, "green_alliance"), if pass { "PASS" } else { "FAIL" }, "{name} pid {pid}");
            let kv = table(s, "kv");
            let field = |label: &str| {
                kv.iter()
                    .find(|r| r.first().map(String::as_str) == Some(label))
                    .and_then(|r| r.get(1).cloned())
                    .unwrap_or_else(|| panic!("{name} pid {pid}: summary field {label}"))
            };
            assert_eq!(field("fps"), fps1(&h["fps"]), "{name} pid {pid}: HTML summary fps");
            assert_eq!(count(&field(unit)), h["frames"].as_i64().unwrap(), "{name} pid {pid}: HTML {unit}");
            assert_eq!(count(&field(dropped)), h["dropped"].as_i64().unwrap(), "{name} pid {pid}: HTML {dropped}");
            if presents && app["frames"].as_i64().unwrap() > 0 {
                assert_eq!(field("main thread fps (paced)"), fps1(&app["fps"]), "{name} pid {pid}: main thread fps");
                assert_eq!(count(&field("main thread doFrames")), app["frames"].as_i64().unwrap());
            }
            let level_rows = table(s, "levels");
            for level in ["BEST", "NORMAL", "MIDDLE", "HIGH", "FROZEN"] {
                let r = level_rows.iter().find(|r| r[0] == level).unwrap_or_else(|| panic!("{name}: level {level}"));
                assert_eq!(count(&r[1]), levels[level].as_i64().unwrap(), "{name} pid {pid}: HTML {level}");
                assert_eq!(count(&r[3]), h["drop_sum"][level].as_i64().unwrap(), "{name} pid {pid}: HTML {level} sum");
            }
            same_frame_timeline_verdict(name, app, &table_out, s);
            // PerfDog is read on the app's layer when it has one: the same
            // numbers as that layer's row.
            if let Some(layer) = app["jank"]["perfdog_layer"].as_str() {
                let l = json["presents"]["layers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|l| l["layer"] == layer && l["pid"] == pid)
                    .unwrap_or_else(|| panic!("{name}: layer {layer}"));
                assert_eq!(app["jank"]["perfdog"], l["perfdog"], "{name} pid {pid}: PerfDog is its layer's");
            }
        }
    }
}

/// The Unity game is judged by its SurfaceView's presents everywhere: about
/// 30 fps (its doFrames run at 60), with its hitches' dropped vsyncs; and
/// the FrameTimeline-only capture gets an app row judged by its layer.
#[test]
fn a_game_and_a_timeline_only_app_are_judged_by_their_presents() {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("game.pftrace");
    std::fs::write(&game, renderers::game().builder.build(&BuildOptions::default())).unwrap();
    let json: Value = serde_json::from_slice(&run(&["--format", "json"], &game).stdout).unwrap();
    let app = json["apps"].as_array().unwrap().iter().find(|a| a["pid"] == renderers::GAME_PID).unwrap();
    let h = &app["headline"];
    assert_eq!(h["source"], "presents");
    assert_eq!(h["layer"], renderers::GAME_LAYER);
    // Presents at vsyncs 0, 2, …, 60, 66, …, 120, 132, …, 150: 68 intervals;
    // the gaps of 6 and 12 vsyncs drop 5 (NORMAL) and 11 (MIDDLE) vsyncs,
    // the 66 others one each (BEST): 82 dropped, 68 presents in 150 vsyncs.
    let fps = h["fps"].as_f64().unwrap();
    assert!((fps - 68.0 / 2.5).abs() < 0.05, "{fps}");
    assert!(app["fps"].as_f64().unwrap() > 55.0, "its doFrames run at 60");
    assert_eq!((h["frames"].as_i64(), h["dropped"].as_i64()), (Some(68), Some(82)), "{h}");
    assert_eq!(h["drop_level"], serde_json::json!({"BEST": 66, "NORMAL": 1, "MIDDLE": 1, "HIGH": 0, "FROZEN": 0}));
    let Some(ft_only) = shared("traces/real-pixel7pro-android13-nowinandroid-frametimeline-only.pftrace") else {
        return;
    };
    let json: Value = serde_json::from_slice(&run(&["--format", "json"], &ft_only).stdout).unwrap();
    let app = json["apps"].as_array().unwrap().iter().find(|a| a["pid"] == 9305).expect("an app row for pid 9305");
    assert_eq!(app["frames"], 0);
    assert_eq!(app["headline"]["source"], "presents");
    assert_eq!(app["headline"]["frames"], 737, "738 presents, 737 intervals");
    // Its report has its FPS and layer-presents charts.
    let out = dir.path().join("ft-only");
    run(&["--out", out.to_str().unwrap()], &ft_only);
    let charts: Vec<String> = std::fs::read_dir(out.join("charts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("-9305-"))
        .collect();
    assert!(charts.iter().any(|n| n.ends_with("-9305-fps.png")), "{charts:?}");
    assert!(charts.iter().any(|n| n.ends_with("-9305-layer-presents.png")), "{charts:?}");
}

/// Flutter's engine frames are a table like the others: `fpsan query` over
/// `flutter_frames` has the JSON's frames, column for column.
#[test]
fn flutter_frames_are_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flutter.pftrace");
    std::fs::write(&path, renderers::flutter().builder.build(&BuildOptions::default())).unwrap();
    let json: Value = serde_json::from_slice(&run(&["--format", "json"], &path).stdout).unwrap();
    let frames = json["presents"]["flutter_frames"].as_array().expect("the JSON's Flutter frames");
    assert!(frames.len() > 100, "{}", frames.len());
    let out = fpsan()
        .arg("query")
        .arg(&path)
        .arg("SELECT pid, build_ts, raster_ts, present_ts, total_ns, dropped_vsyncs, drop_level FROM flutter_frames")
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), frames.len());
    for (r, f) in rows.iter().zip(frames) {
        for key in ["pid", "build_ts", "raster_ts", "present_ts", "total_ns", "dropped_vsyncs", "drop_level"] {
            assert_eq!(r[key], f[key], "{key}");
        }
    }
}

/// The critical path's chain (docs/frames.md) is one string: the JSON's
/// worst frames carry it, the terminal's worst-frames table ends each row
/// with it and report.html puts it under each worst-frames row. On the dbui
/// trace, frame 191623 waited on its RenderThread's `DrawFrames 191623`.
#[test]
fn the_critical_path_chain_is_the_same_in_every_output() {
    let Some(trace) = shared("traces/real-android16-db-ui-thread-before.pftrace") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let app = ["--app", "com.example.perfetto.dbui"];
    let json: Value = serde_json::from_slice(&run(&[&app[..], &["--format", "json"]].concat(), &trace).stdout).unwrap();
    let table_out = String::from_utf8(run(&app, &trace).stdout).unwrap();
    let out = dir.path().join("out");
    run(&[&app[..], &["--out", out.to_str().unwrap()]].concat(), &trace);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let worst = json["apps"][0]["worst_frames"].as_array().unwrap();
    assert_eq!(worst.len(), 2);
    for w in worst {
        let chain = w["why"]["chain"].as_str().unwrap();
        assert!(!chain.is_empty());
        let id = w["frame_id"].to_string();
        let row = table_out
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(id.as_str()))
            .unwrap_or_else(|| panic!("a terminal row for frame {id}"));
        assert!(row.trim_end().ends_with(chain), "terminal row of {id}: {row}");
        let escaped = chain.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
        assert!(html.contains(&format!("waited on: {escaped}</td>")), "report.html's line for {id}");
    }
    let chain = worst[0]["why"]["chain"].as_str().unwrap();
    // The main thread slept in postAndWait until its RenderThread (11393) woke it; that one slept 230.7 ms in
    // `Drawing` until the process's other RenderThread (11412) woke it.
    assert!(
        chain.starts_with("e.perfetto.dbui waited 327.4 ms in postAndWait ← RenderThread DrawFrames 191623 327.4 ms ("),
        "{chain}"
    );
    assert!(chain.contains("shader_compile 24.5 ms"), "{chain}");
    assert!(chain.ends_with(") ← RenderThread tid 11412 230.7 ms"), "{chain}");
}
