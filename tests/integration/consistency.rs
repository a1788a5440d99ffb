//! One truth in every output: for the demo, a Unity game, a Flutter app, a
//! video player, a launcher beside apps that only animate and a
//! FrameTimeline-only capture, every number and verdict the terminal table
//! and report.html show for an app equals `--format json`'s, and
//! summary.json is the JSON's apps. The HTML is read by its structure (the
//! cards' `data-key`, the summary's and the drop levels' table cells), never
//! by searching its prose.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tracegen::BuildOptions;
use tracegen::{renderers, screen};

use crate::util::{fpsan, shared, testdata};

/// The fixtures: (name, trace path), generated ones written into `dir`.
fn fixtures(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let mut out = vec![("demo", testdata("demo.pftrace"))];
    for (name, s) in [("game", renderers::game()), ("flutter", renderers::flutter()), ("video", renderers::video())] {
        let path = dir.join(format!("{name}.pftrace"));
        std::fs::write(&path, s.builder.build(&BuildOptions::default())).unwrap();
        out.push((name, path));
    }
    let path = dir.join("animators.pftrace");
    std::fs::write(&path, screen::launcher_and_background_animators().build(&BuildOptions::default())).unwrap();
    out.push(("animators", path));
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

/// The cells of the row `<tr id="ID" …>` of a section's table.
fn row_by_id(html: &str, id: &str) -> Vec<String> {
    let at = html.find(&format!("<tr id=\"{id}\"")).unwrap_or_else(|| panic!("a row {id}"));
    let end = at + html[at..].find("</tr>").expect("row end");
    html[at..end].split("<td").skip(1).map(|c| strip_tags(&format!("<td{c}"))).collect()
}

/// The terminal's line of an app in a table: its second cell is the pid.
fn terminal_row(table_out: &str, pid: i64) -> Vec<&str> {
    table_out
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some(&pid.to_string()))
        .unwrap_or_else(|| panic!("a terminal row for pid {pid}"))
        .split_whitespace()
        .collect()
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
            let verdict = app["green_alliance"]["verdict"].as_str().unwrap();
            let screen = &app["screen"];
            assert_eq!(verdict == "draws_nothing", screen["reached"] == 0, "{name} pid {pid}: {screen}");
            if verdict == "draws_nothing" {
                // Listed with its frames and CPU time, no summary row, no section.
                let row = terminal_row(&table_out, pid);
                assert_eq!(row[2], app["frames"].to_string(), "{name} pid {pid}: terminal frames");
                assert_eq!(row[3], format!("{:.1}", screen["cpu_time_ns"].as_f64().unwrap() / 1e6));
                let cells = row_by_id(&html, &format!("app-{pid}"));
                assert_eq!(count(&cells[2]), app["frames"].as_i64().unwrap(), "{name} pid {pid}: HTML frames");
                assert_eq!(cells[3], format!("{:.1} ms", screen["cpu_time_ns"].as_f64().unwrap() / 1e6));
                assert!(!html.contains(&format!("<section id=\"app-{pid}\">")), "{name} pid {pid}: no section");
                continue;
            }
            let h = &app["headline"];
            let presents = h["source"] == "presents";
            let (unit, dropped) = if presents { ("presents", "dropped vsyncs") } else { ("frames", "dropped frames") };
            // The terminal's summary row: fps, from, frames, dropped of the headline, and the verdict.
            let row = terminal_row(&table_out, pid);
            assert_eq!(row[2], fps1(&h["fps"]), "{name} pid {pid}: terminal fps");
            assert_eq!(row[3], if presents { "presents" } else { "doFrames" }, "{name} pid {pid}: terminal from");
            assert_eq!(row[4], h["frames"].to_string(), "{name} pid {pid}: terminal frames");
            assert_eq!(row[5], h["dropped"].to_string(), "{name} pid {pid}: terminal dropped");
            let min_fps = app["green_alliance"]["min_fps"].as_f64().unwrap();
            let verdict_cell = match verdict {
                "pass" => format!("pass (≥ {min_fps})"),
                "fail" => format!("FAIL (≥ {min_fps})"),
                "too_few_frames" => format!("too few frames (< {})", app["green_alliance"]["min_frames"]),
                other => panic!("{name} pid {pid}: verdict {other}"),
            };
            assert!(row.join(" ").ends_with(&verdict_cell), "{name} pid {pid}: terminal verdict {row:?}");
            // report.html: the cards, the summary and the drop levels.
            let s = section(&html, pid);
            assert_eq!(card(s, "fps"), fps1(&h["fps"]), "{name} pid {pid}: HTML fps card");
            let levels = &h["drop_level"];
            assert_eq!(count(&card(s, "frozen")), levels["FROZEN"].as_i64().unwrap(), "{name} pid {pid}: FROZEN card");
            assert_eq!(count(&card(s, "high")), levels["HIGH"].as_i64().unwrap(), "{name} pid {pid}: HIGH card");
            let want = match verdict {
                "pass" => "PASS",
                "fail" => "FAIL",
                _ => "too few frames",
            };
            assert_eq!(card(s, "green_alliance"), want, "{name} pid {pid}");
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
    assert!(chain.contains("cache_miss 22.5 ms"), "{chain}");
    assert!(chain.ends_with(") ← RenderThread tid 11412 230.7 ms"), "{chain}");
}

/// A launcher on screen (120 drawn frames at 90 Hz, none late) beside two
/// apps that only animate (330 and 200 doFrames with nothing but
/// `animation`) and a SystemUI that drew 3 frames (tracegen::screen): the
/// launcher is listed first and passes, SystemUI has too few frames for a
/// verdict, the animators come last as "animates, draws nothing" with their
/// frame counts and CPU time (the weather app's from the scheduler: 330 ×
/// 1.4 ms; the clock's, without scheduler data, its doFrames' 200 × 2 ms),
/// and report.html is titled by the launcher.
#[test]
fn apps_that_draw_nothing_get_no_verdict_and_come_last() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("animators.pftrace");
    std::fs::write(&trace, screen::launcher_and_background_animators().build(&BuildOptions::default())).unwrap();
    let json: Value = serde_json::from_slice(&run(&["--format", "json"], &trace).stdout).unwrap();
    let apps = json["apps"].as_array().unwrap();
    let got: Vec<(i64, &str, i64, i64, &str)> = apps
        .iter()
        .map(|a| {
            (
                a["pid"].as_i64().unwrap(),
                a["process"].as_str().unwrap(),
                a["frames"].as_i64().unwrap(),
                a["screen"]["reached"].as_i64().unwrap(),
                a["green_alliance"]["verdict"].as_str().unwrap(),
            )
        })
        .collect();
    let (launcher, systemui, weather, clock) = (screen::LAUNCHER, screen::SYSTEMUI, screen::WEATHER, screen::CLOCK);
    assert_eq!(
        got,
        [
            (launcher.pid.into(), launcher.package, 120, 120, "pass"),
            (systemui.pid.into(), systemui.package, 3, 3, "too_few_frames"),
            (weather.pid.into(), weather.package, 330, 0, "draws_nothing"),
            (clock.pid.into(), clock.package, 200, 0, "draws_nothing"),
        ]
    );
    assert_eq!((apps[0]["headline"]["frames"].as_i64(), apps[0]["headline"]["dropped"].as_i64()), (Some(120), Some(0)));
    assert_eq!(fps1(&apps[0]["headline"]["fps"]), "90.0");
    assert_eq!(apps[1]["green_alliance"]["min_frames"], 30);
    let cpu = |a: &Value| (a["screen"]["cpu_time_ns"].as_i64().unwrap(), a["screen"]["cpu_time_source"].clone());
    assert_eq!(cpu(&apps[2]), (462_000_000, Value::from("running")));
    assert_eq!(cpu(&apps[3]), (400_000_000, Value::from("do_frame")));
    assert_eq!(
        (apps[2]["screen"]["drawn_frames"].as_i64(), apps[2]["screen"]["layer_presents"].as_i64()),
        (Some(0), Some(0))
    );

    // The terminal: the summary table holds the two apps that drew, the launcher first;
    // the animators are listed under "animates, draws nothing".
    let table_out = String::from_utf8(run(&[], &trace).stdout).unwrap();
    let lines: Vec<&str> = table_out.lines().collect();
    let header = lines.iter().position(|l| l.starts_with("app ")).expect("the summary table");
    assert_eq!(terminal_row(&table_out, launcher.pid.into())[0], launcher.package);
    assert!(lines[header + 2].starts_with(launcher.package), "{table_out}");
    assert!(lines[header + 3].starts_with(systemui.package), "{table_out}");
    assert!(lines[header + 3].ends_with("too few frames (< 30)"), "{table_out}");
    assert!(table_out.contains("\nanimates, draws nothing (no traversal, DrawFrame or present: no FPS verdict)\n"));
    assert_eq!(terminal_row(&table_out, weather.pid.into())[..4], [weather.package, "3000", "330", "462.0"]);
    assert_eq!(terminal_row(&table_out, clock.pid.into())[..4], [clock.package, "3100", "200", "400.0"]);
    assert!(table_out.contains("  green alliance too few frames: 3 frames, a verdict needs 30 (≥ 55"), "{table_out}");
    assert!(!table_out.contains(&format!("\n{} (pid", weather.package)), "no details block for an animator");

    // report.html: titled by the launcher; no section, card or chart for the animators.
    let out = dir.path().join("out");
    run(&["--out", out.to_str().unwrap()], &trace);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<title>fpsan report: com.android.launcher3</title>"));
    assert!(html.contains("<h1>fpsan report: com.android.launcher3</h1>"));
    assert_eq!(card(section(&html, systemui.pid.into()), "green_alliance"), "too few frames");
    assert_eq!(card(section(&html, launcher.pid.into()), "green_alliance"), "PASS");
    assert_eq!(
        row_by_id(&html, "app-3000"),
        [weather.package, "3000", "330", "462.0 ms", "running, from the scheduler"]
    );
    assert_eq!(
        row_by_id(&html, "app-3100"),
        [clock.package, "3100", "200", "400.0 ms", "doFrame wall time: no scheduler data"]
    );
    let charts: Vec<String> = std::fs::read_dir(out.join("charts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(charts.iter().any(|c| c.starts_with("com.android.launcher3-2000-")), "{charts:?}");
    assert!(!charts.iter().any(|c| c.contains("-3000-") || c.contains("-3100-")), "{charts:?}");
}
