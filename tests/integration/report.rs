//! `--out DIR`'s charts and `report.html` through the public API on a
//! hand-made analysis: the files written (and only those), overwrite and
//! unwritable-directory behaviour, and a real browser: Debian's headless
//! `chromium` renders report.html to a screenshot (not blank, chart colours
//! present) while its NetLog proves the page fetched nothing. Then the same
//! on the demo trace through the binary, and the size budget of a real
//! trace's page. Browser parts skip with a printed reason when chromium is
//! absent, the real trace when `../shared` is.

use std::path::{Path, PathBuf};
use std::process::Command;

use fpsan::frames::{FrameAnalysis, FrameRow, FrameWhy};
use fpsan::metrics::{self, AppFilter, MetricsOptions};
use fpsan::model::{PresentType, Trace};
use fpsan::report::{ExportManager, Report, ReportError};

use crate::util::{fpsan, testdata};

const I: i64 = 16_666_667;
const MS: i64 = 1_000_000;

/// 60 frames of `com.example.app` 50 ms apart, three of them janky, with
/// phases, RenderThread and FrameTimeline.
fn analysis() -> (Trace, FrameAnalysis) {
    let mut trace = Trace::default();
    trace.meta.path = "hand-made.pftrace".into();
    trace.meta.first_ts = Some(0);
    trace.meta.last_ts = Some(4_000_000_000);
    trace.meta.android.sdk_version = Some(35);
    let rows: Vec<FrameRow> = (0..60i64)
        .map(|k| {
            let ts = 500_000_000 + k * 50 * MS;
            let cost = match k {
                12 => 70 * MS,
                30 => 250 * MS,
                45 => 760 * MS,
                _ => 7 * MS,
            };
            let dur = cost - MS;
            let d = cost / I;
            FrameRow {
                process: Some("com.example.app".into()),
                pid: 321,
                tid: 321,
                frame_id: Some(5000 + k),
                ts,
                do_frame_dur: dur,
                vsync_ts: Some(ts - MS),
                vsync_source: Some(fpsan::frames::VsyncSource::FrameTimeline),
                frame_interval_ns: I,
                refresh_hz: 1e9 / I as f64,
                jitter_ns: Some(MS),
                animation_dur: Some(MS),
                traversal_dur: Some(dur - 2 * MS),
                commit_dur: Some(MS / 2),
                frame_cost_ns: cost,
                dropped_frames: d,
                drop_level: fpsan::frames::DropLevel::from_dropped(d),
                draw_frame_ts: Some(ts + dur),
                draw_frame_dur: Some(4 * MS),
                draw_frame_count: 1,
                expected_end: Some(ts - MS + 2 * I),
                actual_end: Some(ts + dur + 12 * MS),
                overrun_ns: Some(dur + 13 * MS - 2 * I),
                present_type: Some(if dur + 13 * MS > 2 * I { PresentType::Late } else { PresentType::OnTime }),
                jank_type: Some(if d > 0 { "App Deadline Missed" } else { "None" }.into()),
                layer_name: Some("com.example.app/com.example.app.MainActivity#0".into()),
                layer_count: 1,
                ..Default::default()
            }
        })
        .collect();
    let why = [12usize, 30, 45]
        .iter()
        .map(|&i| FrameWhy {
            frame_index: i,
            dominant_phase: fpsan::frames::FramePart::Phase(fpsan::frames::Phase::Traversal),
            dominant_phase_ns: rows[i].traversal_dur.unwrap(),
            longest_slice: Some("RecyclerView OnLayout".into()),
            longest_slice_ns: Some(rows[i].traversal_dur.unwrap() - MS),
            blockers: vec![],
            thread_state: None,
            critical_path: Vec::new(),
            chain: String::new(),
        })
        .collect();
    let display = fpsan::frames::DisplayGrid::new(&trace);
    let mut frames = FrameAnalysis::default();
    (frames.rows, frames.why, frames.display) = (rows, why, display);
    (trace, frames)
}

fn write_out(dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let (trace, a) = analysis();
    let presents = fpsan::presents::analyze(&trace, &a);
    let (kept, scenes) = metrics::kept_frames(&trace, &a, &AppFilter::All, &presents.names);
    let frames = fpsan::tables::frames(&a, &kept, &scenes).unwrap();
    let presents_table = fpsan::tables::presents(&presents.rows).unwrap();
    let apps = metrics::summarize(&a, &kept, &scenes, &presents, &MetricsOptions::default());
    let report = Report {
        meta: &trace.meta,
        span_ns: trace.span_ns(),
        apps: &apps,
        frames: Some(&frames),
        rows: &a.rows,
        presents: &presents,
        presents_table: Some(&presents_table),
        quality: &a.quality,
        warnings: &[],
        lanes: None,
        startups: &[],
        blocks: &fpsan::blocks::BlockAnalysis::default(),
        input: &fpsan::input::InputAnalysis::default(),
    };
    ExportManager::default().write(dir, &report)
}

fn is_png(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.starts_with(b"\x89PNG\r\n\x1a\n"))
}

#[test]
fn out_dir_has_charts_and_html() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let written = write_out(&out).unwrap();
    let rel: Vec<String> =
        written.iter().map(|p| p.strip_prefix(&out).unwrap().to_string_lossy().into_owned()).collect();
    for kind in ["timeline", "distribution", "fps", "drop-levels", "janky", "present"] {
        let name = format!("charts/com.example.app-321-{kind}.png");
        assert!(rel.contains(&name), "{name} missing from {rel:?}");
        assert!(is_png(&out.join(&name)), "{name}");
    }
    assert!(rel.contains(&"report.html".to_string()));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_eq!(inlined_charts(&html), 6);
    assert_eq!(fpsan::report::html::external_references(&html), Vec::<String>::new());
}

/// Charts inlined in a page: SVG elements and PNG `data:` images.
fn inlined_charts(html: &str) -> usize {
    html.matches(r#"<svg role="img""#).count() + html.matches(r#"<img src="data:image/png;base64,"#).count()
}

/// docs/report.md's size budget: the db-ui-thread-before trace's report.html
/// (33 charts, 8.8 MB when they were inlined as PNGs) at most 3 MB, every
/// chart inlined, nothing fetched from anywhere.
#[test]
fn real_trace_report_within_size_budget() {
    let Some(trace) = crate::util::shared("traces/real-android16-db-ui-thread-before.pftrace") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = std::time::Instant::now();
    let out = fpsan().arg("analyze").arg(&trace).arg("--out").arg(tmp.path()).output().unwrap();
    eprintln!("analyze --out on db-ui-thread-before: {:?}", t.elapsed());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(tmp.path().join("report.html")).unwrap();
    eprintln!("report.html: {} bytes", html.len());
    assert!(html.len() <= 3_000_000, "report.html is {} bytes, over the 3 MB budget", html.len());
    let pngs = std::fs::read_dir(tmp.path().join("charts")).unwrap().count();
    assert_eq!((inlined_charts(&html), pngs), (33, 33));
    assert_eq!(fpsan::report::html::external_references(&html), Vec::<String>::new());
    assert!(!html.contains("http://") && !html.contains("https://"));
    // The frame timeline has every janky frame of this small trace, the
    // dbui app's worst among them, and its worst-frames row links to it.
    let data = timeline_data(&html);
    assert_eq!(data["lanes"]["left_out"], 0);
    let frames = data["lanes"]["frames"].as_array().unwrap();
    let worst = frames.iter().find(|f| f["frame_id"] == 191623).expect("vsync 191623 has lanes");
    assert!(html.contains(&format!(r##"<a href="#frame={}">lanes</a>"##, worst["frame_index"])));
}

/// The frame timeline's data block of a report.html, parsed.
fn timeline_data(html: &str) -> serde_json::Value {
    let open = r#"<script type="application/json" id="tl-data">"#;
    let start = html.find(open).expect("a frame timeline data block") + open.len();
    let end = start + html[start..].find("</script>").expect("the block's end");
    serde_json::from_str(&html[start..end]).expect("JSON")
}

/// docs/report.md's budget on a busy phone: a 211 MB trace (tracegen's
/// `busy_phone`: three apps drawing at 60, 90 and 120 Hz for 36 s, about
/// 2 500 janky frames) gives a report.html of at most 10 MB, its frame
/// timeline within its own 3 MB budget, the frames that did not fit left
/// out and counted.
#[test]
fn busy_trace_report_within_size_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = tmp.path().join("busy.pftrace");
    let t = std::time::Instant::now();
    let mut w = std::io::BufWriter::new(std::fs::File::create(&trace).unwrap());
    let n = tracegen::scenarios::busy_phone(&mut w, 201 << 20).unwrap();
    std::io::Write::flush(&mut w).unwrap();
    drop(w);
    let generated = t.elapsed();
    assert!(n > 210_000_000, "{n} bytes");
    let out_dir = tmp.path().join("out");
    let t = std::time::Instant::now();
    let out = fpsan().arg("analyze").arg(&trace).arg("--out").arg(&out_dir).output().unwrap();
    eprintln!("busy_phone {n} bytes: generated in {generated:?}, analyze --out in {:?}", t.elapsed());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    eprintln!("report.html: {} bytes", html.len());
    assert!(html.len() <= 10_000_000, "report.html is {} bytes, over the 10 MB budget", html.len());
    let data = timeline_data(&html);
    let lanes = &data["lanes"];
    let bytes = lanes["bytes"].as_u64().unwrap();
    assert!(bytes <= fpsan::lanes::DEFAULT_BUDGET_BYTES as u64, "{bytes}");
    let shown = lanes["frames"].as_array().unwrap().len() as u64;
    let (wanted, left_out) = (lanes["wanted"].as_u64().unwrap(), lanes["left_out"].as_u64().unwrap());
    eprintln!("frame timeline: {shown} of {wanted} frames, {bytes} bytes");
    assert!(shown > 100 && left_out > 0 && shown + left_out == wanted, "{shown} + {left_out} ≠ {wanted}");
    assert_eq!(fpsan::report::html::external_references(&html), Vec::<String>::new());
}

#[test]
fn existing_dir_overwrites_only_fpsan_files() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_path_buf();
    std::fs::create_dir_all(out.join("charts")).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    std::fs::write(out.join("charts/my-sketch.png"), "mine too").unwrap();
    std::fs::write(out.join("report.html"), "stale").unwrap();
    std::fs::write(out.join("charts/com.example.app-321-fps.png"), "stale").unwrap();
    write_out(&out).unwrap();
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
    assert_eq!(std::fs::read_to_string(out.join("charts/my-sketch.png")).unwrap(), "mine too");
    assert!(std::fs::read_to_string(out.join("report.html")).unwrap().starts_with("<!DOCTYPE html>"));
    assert!(is_png(&out.join("charts/com.example.app-321-fps.png")));
    // No temporary files left behind.
    for d in [out.clone(), out.join("charts")] {
        for e in std::fs::read_dir(&d).unwrap() {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            assert!(!n.ends_with(".fpsan-tmp"), "{n}");
        }
    }
}

#[test]
fn unwritable_out_dir_is_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a_file");
    std::fs::write(&file, "x").unwrap();
    let err = write_out(&file.join("sub")).unwrap_err();
    assert!(matches!(err, ReportError::OutDir { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("a_file") && !msg.contains('\n'), "{msg}");
    // `charts` taken by a file: the charts cannot be written, one line naming it.
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("charts"), "a file").unwrap();
    let msg = write_out(&out).unwrap_err().to_string();
    assert!(msg.contains("charts") && !msg.contains('\n'), "{msg}");
}

// ---------------------------------------------------------------------------
// The browser

pub(crate) fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    eprintln!("skipped: chromium not found on PATH (apt-get install -y chromium)");
    None
}

/// What chromium did with a page: its screenshot and the URLs the page asked for.
pub(crate) struct Rendered {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
    pub page_requests: Vec<String>,
}

/// Render `html` headless into a 1280×`height` screenshot with a fresh profile,
/// recording a NetLog. Requests the page made are those whose site or
/// isolation key is the file:// page (chromium's own background requests,
/// e.g. update checks, have none).
pub(crate) fn render(chromium: &Path, html: &Path, height: u32) -> Rendered {
    let tmp = tempfile::tempdir().unwrap();
    let shot = tmp.path().join("shot.png");
    let netlog = tmp.path().join("netlog.json");
    let profile = tmp.path().join("profile");
    std::fs::create_dir(&profile).unwrap();
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--log-net-log={}", netlog.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("--window-size=1280,{height}"))
        .arg(format!("file://{}", html.display()))
        .output()
        .expect("run chromium");
    assert!(shot.is_file(), "no screenshot; chromium said: {}", String::from_utf8_lossy(&out.stderr));
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let channels = info.color_type.samples();
    let rgb: Vec<u8> = buf.chunks_exact(channels).flat_map(|p| [p[0], p[1], p[2]]).collect();

    let log: serde_json::Value = serde_json::from_slice(&std::fs::read(&netlog).unwrap()).expect("NetLog JSON");
    let mut page_requests = Vec::new();
    for e in log["events"].as_array().into_iter().flatten() {
        let p = &e["params"];
        let Some(url) = p["url"].as_str() else {
            continue;
        };
        let from_page = ["network_isolation_key", "site_for_cookies", "initiator"]
            .iter()
            .any(|k| p[*k].as_str().is_some_and(|v| v.contains("file://")));
        if from_page
            && !url.starts_with("file:")
            && !url.starts_with("data:")
            && !page_requests.iter().any(|u| u == url)
        {
            page_requests.push(url.to_string());
        }
    }
    Rendered { width: info.width, height: info.height, rgb, page_requests }
}

fn count_near(rgb: &[u8], c: (u8, u8, u8), tol: i32) -> usize {
    rgb.chunks_exact(3)
        .filter(|p| {
            (p[0] as i32 - c.0 as i32).abs() <= tol
                && (p[1] as i32 - c.1 as i32).abs() <= tol
                && (p[2] as i32 - c.2 as i32).abs() <= tol
        })
        .count()
}

fn check_rendered(r: &Rendered) {
    assert_eq!((r.width, r.height), (1280, 6000));
    assert!(r.page_requests.is_empty(), "the page fetched: {:?}", r.page_requests);
    let n = (r.width * r.height) as usize;
    let non_white = r.rgb.chunks_exact(3).filter(|p| p.iter().any(|&v| v < 235)).count();
    assert!(non_white > n / 20, "page looks blank: {non_white} of {n} pixels drawn");
    // The charts' colours: BEST green (level strip, histogram) and the traversal orange.
    assert!(count_near(&r.rgb, (67, 160, 71), 3) > 2_000, "no BEST green: charts not shown");
    assert!(count_near(&r.rgb, (242, 142, 43), 3) > 2_000, "no traversal orange: charts not shown");
}

#[test]
fn chromium_renders_the_report_offline() {
    let Some(chromium) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    write_out(tmp.path()).unwrap();

    // The detector works: a page with external references is caught.
    let canary = tmp.path().join("canary.html");
    std::fs::write(
        &canary,
        r#"<html><body><img src="http://fpsan-canary.invalid/a.png"><div style="background:url(https://fpsan-canary.invalid/b.png)">x</div></body></html>"#,
    )
    .unwrap();
    let c = render(&chromium, &canary, 600);
    assert!(c.page_requests.iter().any(|u| u.contains("fpsan-canary.invalid/a.png")), "{:?}", c.page_requests);

    let r = render(&chromium, &tmp.path().join("report.html"), 6000);
    check_rendered(&r);
}

#[test]
fn demo_trace_report_in_chromium() {
    let tmp = tempfile::tempdir().unwrap();
    let t = std::time::Instant::now();
    let out = fpsan().arg("analyze").arg(testdata("demo.pftrace")).arg("--out").arg(tmp.path()).output().unwrap();
    let took = t.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    eprintln!("analyze --out on the demo trace: {took:?}");
    for kind in ["timeline", "distribution", "fps", "drop-levels", "janky", "present", "layer-presents"] {
        assert!(is_png(&tmp.path().join(format!("charts/com.example.scroll-4242-{kind}.png"))), "{kind}");
    }
    let html = std::fs::read_to_string(tmp.path().join("report.html")).unwrap();
    assert_eq!(fpsan::report::html::external_references(&html), Vec::<String>::new());
    assert!(!html.contains("http://") && !html.contains("https://"));
    // Chart text is text in the page, not pixels (the SVG charts).
    assert!(html.contains(">\ncom.example.scroll · 60 Hz — Janky frames and why\n</text>"));
    assert!(html.contains("com.example.scroll"));
    let Some(chromium) = chromium() else { return };
    check_rendered(&render(&chromium, &tmp.path().join("report.html"), 6000));
}

/// Jank CUJs reach every output: on Perfetto's own CUJ test trace
/// (../shared/conformance), whose FrameTimeline counts trace_processor
/// computes (`android_jank_cuj_slice_summary`: J<FIRST_CUJ> 6 frames, 5
/// missed by the app, 1 by SurfaceFlinger; J<CANCELED> canceled), the
/// terminal, the JSON and the HTML show them.
#[test]
fn jank_cujs_in_the_terminal_json_and_html() {
    let Some(dir) = crate::util::shared("conformance/Frames__android_jank_cuj_slice_summary") else { return };
    let trace = dir.join("trace.pftrace");
    let out_dir = tempfile::tempdir().unwrap();
    let out = crate::util::fpsan()
        .arg("analyze")
        .arg(&trace)
        .args(["--format", "json", "--out"])
        .arg(out_dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let app = json["apps"].as_array().unwrap().iter().find(|a| a["process"] == "com.android.systemui").unwrap();
    let cujs = app["cujs"].as_array().unwrap();
    let first = cujs.iter().find(|c| c["cuj"] == "J<FIRST_CUJ>").unwrap();
    assert_eq!(
        (
            &first["instances"],
            &first["completed"],
            &first["timeline_frames"],
            &first["missed_app_frames"],
            &first["missed_sf_frames"]
        ),
        (
            &serde_json::json!(1),
            &serde_json::json!(1),
            &serde_json::json!(6),
            &serde_json::json!(5),
            &serde_json::json!(1)
        )
    );
    // trace_processor's boundary for it: ts 0, dur 115 ms.
    assert_eq!(first["dur_ns"], 115_000_000);
    let canceled = cujs.iter().find(|c| c["cuj"] == "J<CANCELED>").unwrap();
    assert_eq!((&canceled["canceled"], &canceled["frames"]), (&serde_json::json!(1), &serde_json::Value::Null));
    let html = std::fs::read_to_string(out_dir.path().join("report.html")).unwrap();
    assert!(html.contains("<h3>Jank CUJs</h3>"));
    assert!(html.contains("<td>J&lt;FIRST_CUJ&gt;</td><td>1 (1 completed, 0 canceled)</td><td class=\"num\">115.0 ms</td><td>app 5 · SF 1 of 6</td>"), "{html}");
    let text = crate::util::fpsan().arg("analyze").arg(&trace).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("  jank CUJs\n"), "{text}");
}
