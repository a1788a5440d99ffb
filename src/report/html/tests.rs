//! The page's numbers as exact strings for a small hand-made analysis,
//! escaping and self-containment of the rendered HTML, and the chart
//! fixture's page.

use super::page::page;
use super::*;
use crate::frames::{FrameWhy, ThreadStateSplit};
use crate::metrics::AppFilter;
use crate::model::Trace;
use crate::report::charts::{self, ChartKind, ChartOptions};
use crate::report::fixture::{two_apps, Analysed};
use crate::testutil::{app_frame, MS};

/// com.a: 4 frames 100 ms apart from 1 s at 60 Hz costing 5, 5, 60, 5 ms;
/// and an app whose name needs escaping.
fn small() -> Analysed {
    let mut trace = Trace::default();
    trace.meta.path = "t.pftrace".into();
    trace.meta.file_size = 1536;
    trace.meta.first_ts = Some(0);
    trace.meta.last_ts = Some(2_500_000_000);
    trace.meta.android.build_fingerprint = Some("google/tokay/tokay:15/AP4A/123:user/release-keys".into());
    trace.meta.data_sources = vec![crate::model::DataSource::Ftrace, crate::model::DataSource::Atrace];
    trace.meta.data_loss.chunks_discarded = 1234;
    trace.meta.data_loss.unmatched_ends = 2;
    trace.meta.cut_at_start = 3;
    trace.meta.complete_from = Some(500_000_000);
    let mut rows: Vec<_> = [5, 5, 60, 5]
        .iter()
        .enumerate()
        .map(|(k, c)| app_frame(1, "com.a", 1_000_000_000 + k as i64 * 100 * MS, c * MS, k as i64))
        .collect();
    // A data loss touches the janky frame.
    rows[2].data_loss = true;
    rows.push(app_frame(2, "<b>evil</b>", 1_000_000_000, 5 * MS, 0));
    let why = vec![FrameWhy {
        frame_index: 2,
        dominant_phase: crate::frames::FramePart::StartJitter,
        dominant_phase_ns: 40 * MS,
        longest_slice: Some("inflate".into()),
        longest_slice_ns: Some(12_340_000),
        blockers: vec![
            crate::frames::Blocker { name: "GC".into(), ts: 0, dur: 9 * MS, delay_ns: 9 * MS },
            // Began 32.5 ms before the vsync: it delayed the start by 6.2 ms.
            crate::frames::Blocker { name: "binder".into(), ts: 0, dur: 38_700_000, delay_ns: 6_200_000 },
        ],
        thread_state: Some(ThreadStateSplit {
            running_ns: 20 * MS,
            runnable_ns: 5 * MS,
            sleeping_ns: 30 * MS,
            blocked_ns: 4 * MS,
        }),
        critical_path: Vec::new(),
        chain: String::new(),
    }];
    Analysed::new(trace, rows, why, &AppFilter::All).with_warnings(&["the trace lost data"])
}

fn with_small<T>(f: impl FnOnce(&Report) -> T) -> T {
    f(&small().report())
}

#[test]
fn numbers_for_people() {
    let p = with_small(|r| page(r, &[]));
    let a = &p.apps[0];
    assert_eq!((a.name.as_str(), a.pid, a.refresh.as_str()), ("com.a", 1, "60 Hz"));
    // paced = (1 + 1 + 4 + 1) · 16 666 667 ns → 4 / 0.116 666 669 s = 34.29 fps.
    assert_eq!(a.fps, "34.3");
    // wall = 300 ms + I = 316.67 ms → 4 / 0.316 666 667 s = 12.63 fps.
    assert_eq!(a.fps_from, "doFrames, paced · fps_wall 12.6");
    // 4 frames: too few for a verdict (docs/metrics.md, "Verdict").
    assert_eq!((a.verdict_class.as_str(), a.verdict.as_str()), ("none", "too few frames"));
    assert_eq!(a.verdict_rule, "Green Alliance needs ≥ 30 frames: 4 frames");
    assert_eq!((a.frozen_text.as_str(), a.high_text.as_str()), ("0", "0"));
    assert_eq!(a.janky, "1 of 4 frames dropped ≥ 3 frames");
    let summary: Vec<(&str, &str)> = a.summary.iter().map(|f| (f.label.as_str(), f.value.as_str())).collect();
    assert_eq!(
        summary,
        vec![
            ("fps", "34.3"),
            ("judged on", "the doFrames of the Java main thread"),
            ("frames", "4"),
            ("dropped frames", "3"),
            ("refresh rate", "60 Hz"),
            ("fps_wall", "12.6"),
            ("frame interval", "16.7 ms"),
            ("wall time", "316.7 ms"),
            ("vsync time used (Σ (d+1)·I)", "116.7 ms"),
            ("scenes", "1"),
        ]
    );
    let levels: Vec<(&str, &str, &str, &str)> =
        a.levels.iter().map(|l| (l.name.as_str(), l.frames.as_str(), l.share.as_str(), l.dropped.as_str())).collect();
    assert_eq!(
        levels,
        vec![
            ("BEST", "3", "75.0%", "0"),
            ("NORMAL", "1", "25.0%", "3"),
            ("MIDDLE", "0", "0.0%", "0"),
            ("HIGH", "0", "0.0%", "0"),
            ("FROZEN", "0", "0.0%", "0"),
        ]
    );
    assert_eq!((a.levels_total.frames.as_str(), a.levels_total.share.as_str()), ("4", "100.0%"));
    // Nearest rank over 5, 5, 5, 60 ms (doFrame: 1 ms less each).
    assert_eq!(a.percentiles[0].values, ["5.0 ms", "60.0 ms", "60.0 ms", "60.0 ms", "60.0 ms"]);
    assert_eq!(a.percentiles[1].values, ["4.0 ms", "59.0 ms", "59.0 ms", "59.0 ms", "59.0 ms"]);
    assert_eq!(a.percentiles[2].values, ["–", "–", "–", "–", "–"]);
    let vitals = &a.vocabularies[2];
    assert_eq!(vitals.name, "Android vitals");
    assert_eq!(vitals.fields[0].value, "1 (25.0%)");
    assert_eq!(vitals.fields[1].value, "0 (0.00%)");
    assert_eq!(a.vocabularies[0].fields[0].value, "0 (needs FrameTimeline)");
    let w = &a.worst[0];
    assert_eq!(
        (w.at.as_str(), w.frame_id.as_str(), w.cost.as_str(), w.dropped.as_str(), w.level.as_str()),
        ("1.200 s", "1002", "60.0 ms", "3", "NORMAL")
    );
    assert_eq!(w.phase, "start jitter 40.0 ms");
    assert_eq!(w.longest, "inflate (12.3 ms)");
    assert_eq!(w.thread_state, "Running 20.0 ms · Runnable 5.0 ms · Sleeping 30.0 ms · Blocked 4.0 ms");
    assert_eq!(w.blockers, "GC (9.0 ms); binder (6.2 ms of 38.7 ms)");
    assert!(w.data_loss && a.worst_data_loss, "the frame a loss touches is greyed");
    assert_eq!(a.scenes[0].scene, "com.a/.MainActivity");
    assert_eq!(a.scenes[0].levels, ["3", "1", "0", "0", "0"]);

    let header: Vec<(&str, &str)> = p.header.iter().map(|f| (f.label.as_str(), f.value.as_str())).collect();
    assert_eq!(
        header,
        vec![
            ("trace", "t.pftrace"),
            ("file", "1.5 kB, plain"),
            ("build", "google/tokay/tokay:15/AP4A/123:user/release-keys"),
            ("Android", "Android 15"),
            ("apps", "com.a (pid 1), <b>evil</b> (pid 2)"),
            ("refresh rates", "60 Hz"),
            ("duration", "2.5 s"),
            ("fpsan", env!("CARGO_PKG_VERSION")),
        ]
    );
    let q: Vec<(&str, &str)> = p.quality.iter().map(|f| (f.label.as_str(), f.value.as_str())).collect();
    assert!(q.contains(&("data sources", "ftrace, atrace")), "{q:?}");
    assert!(q.contains(&("data loss", "unmatched_ends 2")), "{q:?}");
    assert!(q.contains(&("frames touched by data loss (greyed)", "1")), "{q:?}");
    // trace_processor grades discarded chunks information.
    assert!(q.contains(&("buffer counters (information)", "chunks_discarded 1,234")), "{q:?}");
    let cut = "3 slice ends have no begin: the trace starts mid-slice (ftrace events before 0.500000 s, before tracing started or before every CPU's buffer was valid, are dropped as trace_processor drops them); not data loss";
    assert!(q.contains(&("slice ends without a begin", cut)), "{q:?}");
    assert!(q.contains(&("vsync sources (all frames)", "–")), "{q:?}");
}

#[test]
fn page_is_escaped_and_self_contained() {
    let (html, charts) = with_small(|r| {
        let charts = charts::render_charts(r, &ChartOptions::default()).unwrap();
        (render_html(r, &charts).unwrap(), charts)
    });
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains(
        r#"<div class="k">FPS</div><div class="v">34.3</div><div class="s">doFrames, paced · fps_wall 12.6</div>"#
    ));
    assert!(html.contains(
        r#"<tr><td><span class="lv lv-best"></span>BEST</td><td class="num">3</td><td class="num">75.0%</td><td class="num">0</td></tr>"#
    ));
    assert!(html.contains(r#"<div class="card none" data-key="green_alliance"><div class="k">Green Alliance</div><div class="v">too few frames</div>"#));
    assert!(html.contains("Android 15") && html.contains("the trace lost data"));
    // The one worst frame a data loss touches is greyed, and the page says why.
    assert_eq!(html.matches(r#"<tr class="data-loss""#).count(), 1);
    assert!(html.contains("Greyed rows: a data loss the trace reports touches the frame"));
    // Text from the trace is escaped.
    assert!(!html.contains("<b>evil"), "unescaped app name");
    assert!(html.contains("&lt;b&gt;evil"));
    assert_each_chart_once(&html, &charts);
    assert_eq!(external_references(&html), Vec::<String>::new());
    assert!(!html.contains("http://") && !html.contains("https://"));
    // Without lanes, no frame timeline and no script.
    assert!(!html.contains("<script") && !html.contains(r#"<section id="frame-timeline">"#));
}

#[test]
fn a_vocabulary_card_wraps_a_phrase_instead_of_clipping_it() {
    let html = with_small(|r| render_html(r, &charts::render_charts(r, &ChartOptions::default()).unwrap()).unwrap());
    // The FrameTimeline card's value is a phrase in a right-aligned number cell ...
    assert!(html.contains(r#"<tr><td>frames with data</td><td class="num">0 (needs FrameTimeline)</td></tr>"#));
    // ... which number cells keep on one line everywhere but in these cards, whose grid
    // column (210 px at least) is narrower than label and phrase together.
    assert!(
        html.contains("td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }")
    );
    assert!(html.contains(".vocab .card { min-width: 0; }"));
    assert!(html.contains(".vocab .card td.num { white-space: normal; overflow-wrap: anywhere; }"));
}

/// Lanes for `small()`'s janky frame (index 2) with a slice name that would
/// end the data block and inject markup if it were written as it is; two
/// more frames wanted and left out.
fn small_lanes() -> crate::lanes::Lanes {
    use crate::lanes::*;
    Lanes {
        strings: vec!["com.a".into(), "main".into(), "inflate</script><img src=x>".into()],
        states: STATES.to_vec(),
        hops: HOPS.to_vec(),
        frames: vec![FrameLanes {
            frame_index: 2,
            pid: 1,
            frame_id: Some(1002),
            dropped_frames: 3,
            drop_level: crate::frames::DropLevel::Normal,
            frame_cost_ns: 60 * MS,
            frame_interval_ns: 16_666_667,
            t0_ns: 1_200_000_000,
            len: 95_000,
            vsync: Some(16_667),
            do_frame: [17_667, 59_000],
            ticks: vec![0, 16_667],
            ticks_from: "grid",
            lanes: vec![Lane {
                kind: LaneKind::Main,
                name: 1,
                tid: 1,
                pid: Some(1),
                slices: vec![17_667, 40_000, 0, 2],
                states: vec![17_667, 0, 20_000],
                dropped: 0,
            }],
            ..Default::default()
        }],
        wanted: 3,
        wanted_janky: 1,
        left_out: 2,
        left_out_janky: 0,
        budget_bytes: DEFAULT_BUDGET_BYTES,
        bytes: 1234,
    }
}

#[test]
fn frame_timeline_section_data_and_links() {
    let fx = small();
    let lanes = small_lanes();
    let r = Report { lanes: Some(&lanes), ..fx.report() };
    let html = render_html(&r, &[]).unwrap();
    assert!(html.contains(r#"<section id="frame-timeline">"#));
    assert!(html.contains(
        "Lanes for 1 frames: 1 of the 1 janky frames; 1.2 kB of data. 2 frames (0 of them janky) were left out to keep the data within its 3.0 MB budget"
    ));
    // The worst frame's row links to its lanes.
    assert!(html.contains(r#" data-frame="2"><td class="num">1</td>"#));
    assert!(html.contains(r##"<td><a href="#frame=2">lanes</a></td></tr>"##));
    // The data block: the lanes and the page's origin, no `<` inside.
    let open = r#"<script type="application/json" id="tl-data">"#;
    let start = html.find(open).unwrap() + open.len();
    let block = &html[start..start + html[start..].find("</script>").unwrap()];
    assert!(!block.contains('<'), "{block}");
    let data: serde_json::Value = serde_json::from_str(block).unwrap();
    assert_eq!(data["origin_ns"], 0);
    assert_eq!(data["lanes"], serde_json::to_value(&lanes).unwrap());
    assert_eq!(data["lanes"]["strings"][2], "inflate</script><img src=x>");
    // The data block and the one script; nothing fetched.
    assert_eq!(html.matches("<script").count(), 2);
    assert!(!super::timeline::SCRIPT.contains("</script"));
    assert_eq!(external_references(&html), Vec::<String>::new());
    assert!(!html.contains("http://") && !html.contains("https://"));
}

/// Every chart of `charts` is in `html` exactly once, as [`Inline::of`]
/// chooses: its SVG (well-formed) or its PNG (decodable), and nothing else
/// is inlined.
fn assert_each_chart_once(html: &str, charts: &[Chart]) {
    let svgs = html.matches(r#"<svg role="img""#).count();
    let pngs = html.matches(r#"<img src="data:image/png;base64,"#).count();
    assert_eq!(svgs + pngs, charts.len(), "{svgs} SVG + {pngs} PNG");
    let b64 = base64::engine::general_purpose::STANDARD;
    for c in charts {
        match Inline::of(c) {
            Inline::Svg => {
                // The document minus `<svg` and its xmlns, as inline_charts writes it.
                let body = c.svg.trim_start_matches("<svg").replacen(r#" xmlns="http://www.w3.org/2000/svg""#, "", 1);
                assert_eq!(html.matches(&body).count(), 1, "{}", c.file_name);
                assert_well_formed(&c.svg);
            }
            Inline::Png => {
                let uri = format!("data:image/png;base64,{}", b64.encode(&c.png));
                assert_eq!(html.matches(&uri).count(), 1, "{}", c.file_name);
                assert_eq!(&c.png[..8], b"\x89PNG\r\n\x1a\n");
            }
        }
    }
    for part in html.split(r#"src="data:image/png;base64,"#).skip(1) {
        let png = b64.decode(&part[..part.find('"').unwrap()]).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }
}

/// `svg` is one element whose tags nest properly and whose text has no raw `<`.
fn assert_well_formed(svg: &str) {
    let mut open: Vec<&str> = Vec::new();
    let mut rest = svg;
    while let Some(at) = rest.find('<') {
        let end = rest[at..].find('>').expect("tag not closed") + at;
        let tag = &rest[at + 1..end];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(open.pop(), Some(name), "</{name}> closes another tag");
        } else if !tag.ends_with('/') {
            open.push(tag.split([' ', '\n']).next().unwrap());
        }
        rest = &rest[end + 1..];
        if open.is_empty() {
            assert!(rest.trim().is_empty(), "text after the root element");
        }
    }
    assert!(open.is_empty(), "unclosed {open:?}");
    assert!(svg.starts_with("<svg "));
}

#[test]
fn external_references_are_found() {
    let page = |body: &str| format!("<!DOCTYPE html><html><body>{body}</body></html>");
    // What the page inlines passes.
    let inline = page(
        r##"<a href="#app-1">a</a><img src="data:image/png;base64,AA=="><svg role="img" viewBox="0 0 1 1"><text>http</text></svg>"##,
    );
    assert_eq!(external_references(&inline), Vec::<String>::new());
    let found = |body: &str| external_references(&page(body));
    let script = found(r#"<script src="https://cdn.example/x.js"></script>"#);
    assert!(script.iter().any(|f| f.starts_with(r#"src="https://cdn.example"#)), "{script:?}");
    // An inline script passes unless it loads or sends something.
    assert_eq!(found("<script>document.title = 'x';</script>"), Vec::<String>::new());
    assert_eq!(found("<script>fetch('/a')</script>"), vec!["script: fetch("]);
    assert_eq!(found("<script>var i = new Image(); i.src = 'x';</script>"), vec!["script: .src"]);
    assert_eq!(found(r#"<script type="module">1</script>"#), vec![r#"module script <script type="module">"#]);
    // A JSON data block is data: names in it are not references.
    assert_eq!(
        found(r#"<script type="application/json">{"n": "loadUrl(https://x) src=http://y"}</script>"#),
        Vec::<String>::new()
    );
    // Markup after a script is still read.
    assert!(found(r#"<script>1</script><img src="http://z/a.png">"#).iter().any(|f| f.starts_with(r#"src="http://z"#)));
    assert!(found(r#"<img src="http://example.com/a.png">"#)
        .iter()
        .any(|f| f.starts_with(r#"src="http://example.com"#)));
    assert!(found(r#"<a href='https://example.com'>x</a>"#).iter().any(|f| f.starts_with("href='https://example.com")));
}

#[test]
fn fixture_page_renders() {
    let fx = two_apps();
    let r = fx.report();
    let charts = charts::render_charts(&r, &ChartOptions::default()).unwrap();
    let p = page(&r, &charts);
    assert_eq!(p.apps.len(), 2);
    assert_eq!(p.apps[0].charts.len(), 6);
    assert_eq!(p.apps[1].charts.len(), 4);
    assert_eq!(p.overview_charts.len(), 1);
    assert_eq!(p.header.iter().find(|f| f.label == "device").unwrap().value, "Pixel 9");
    assert_eq!(p.header.iter().find(|f| f.label == "Android").unwrap().value, "Android 16 (API 36)");
    assert_eq!(p.apps[0].high_text, "1");
    let html = render_html(&r, &charts).unwrap();
    assert_eq!(external_references(&html), Vec::<String>::new());
    assert!(html.contains(r##"<nav><a href="#app-100">com.example.app</a><a href="#app-200">com.other</a></nav>"##));
}

#[test]
fn charts_are_spliced_only_where_the_template_put_them() {
    let chart = |png: &[u8], svg: &str| Chart {
        kind: ChartKind::Fps,
        pid: None,
        file_name: "charts/x.png".into(),
        width: 1,
        height: 1,
        png: png.to_vec(),
        svg: svg.into(),
    };
    // Chart 0's SVG (63 bytes) is longer than its PNG in base64 (8), chart
    // 1's (64 bytes) shorter than its (88): PNG, then SVG.
    let svg = r#"<svg width="1" height="1" xmlns="http://www.w3.org/2000/svg">"#;
    let charts = [chart(b"zero", &format!("{svg}</svg>")), chart(&[b'x'; 64], &format!("{svg}<g/></svg>"))];
    assert_eq!((Inline::of(&charts[0]), Inline::of(&charts[1])), (Inline::Png, Inline::Svg));
    let page = r#"<img src="fpsan-chart:1" width="1" alt="a &gt; b"><p>fpsan-chart:0</p><img src="fpsan-chart:7"><img src="fpsan-chart:0" alt="z">"#;
    assert_eq!(
        inline_charts(page, &charts),
        r#"<svg role="img" aria-label="a &gt; b" width="1" height="1"><g/></svg><p>fpsan-chart:0</p><img src="fpsan-chart:7"><img src="data:image/png;base64,emVybw==" alt="z">"#
    );
}

#[test]
fn game_presents_section() {
    use crate::report::fixture::{game, GAME_LAYER, GAME_VIEW_LAYER};
    let fx = game();
    let r = fx.report();
    let charts = charts::render_charts(&r, &ChartOptions::default()).unwrap();
    let p = page(&r, &charts);
    let s = &p.apps[0].presents;
    assert_eq!((s.renderer.as_str(), s.evidence.as_str()), ("SurfaceView (Unity)", "thread UnityMain"));
    // 17 intervals over 44 vsyncs, none idle: 17 / 0.733 s, paced.
    assert_eq!(s.headline, "23.2 fps (paced)");
    assert_eq!(s.headline_from, format!("the presents of {GAME_LAYER}"));
    assert!(
        s.reason.starts_with(&format!("SurfaceView (Unity) draws the app's content: 18 presents of {GAME_LAYER}")),
        "{}",
        s.reason
    );
    let rows: Vec<Vec<&str>> = s
        .layers
        .iter()
        .map(|l| {
            vec![
                l.layer.as_str(),
                if l.shown { "shown" } else { "" },
                l.source.as_str(),
                l.presents.as_str(),
                l.fps.as_str(),
                l.refresh.as_str(),
                l.dropped.as_str(),
                l.jank.as_str(),
                l.big_jank.as_str(),
                l.stutter.as_str(),
                l.p50.as_str(),
                l.p90.as_str(),
                l.p99.as_str(),
            ]
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            // Stutter: 14 of 44 vsyncs in janks; P50/P90/P99 at ranks 9, 16, 17 of 17 intervals.
            vec![
                GAME_LAYER,
                "shown",
                "layer_counter",
                "18",
                "23.2",
                "60 Hz",
                "27",
                "2",
                "1",
                "31.82%",
                "33.3 ms",
                "100.0 ms",
                "133.3 ms"
            ],
            // Presents after vsyncs 6, 8, 10: 2 intervals over 4 vsyncs.
            vec![
                GAME_VIEW_LAYER,
                "",
                "layer_counter",
                "3",
                "30.0",
                "60 Hz",
                "2",
                "0",
                "0",
                "0.00%",
                "33.3 ms",
                "33.3 ms",
                "33.3 ms"
            ],
        ]
    );
    assert_eq!(s.more_layers, "");
    let files: Vec<&str> = s.charts.iter().map(|c| c.file_name.as_str()).collect();
    assert_eq!(files, vec!["charts/com.example.app-100-layer-presents.png"]);
    // The frame charts stay in the app's chart list, the layer's is in the section only.
    assert_eq!(p.apps[0].charts.len(), 5);
    assert!(p.apps[0].charts.iter().all(|c| !c.file_name.ends_with("layer-presents.png")));

    let html = render_html(&r, &charts).unwrap();
    let esc = |s: &str| s.replace('/', "&#x2f;");
    let row = format!(
        r#"<tr class="shown"><td title="{0}">{0}</td><td>layer_counter</td><td class="num">18</td><td class="num">23.2</td><td class="num">60 Hz</td><td class="num">27</td><td class="num">none</td><td class="num">2</td><td class="num">1</td><td class="num">31.82%</td><td class="num">33.3 ms</td><td class="num">100.0 ms</td><td class="num">133.3 ms</td></tr>"#,
        esc(GAME_LAYER)
    );
    assert!(html.contains(&row), "{}", &html[html.find("<h3>Presents").unwrap()..][..3000]);
    assert!(html
        .contains("<tr><th>headline fps</th><td><strong>23.2 fps (paced)</strong> from the presents of SurfaceView"));
    // Every chart once, the layer's included.
    assert_each_chart_once(&html, &charts);
    assert_eq!(external_references(&html), Vec::<String>::new());
}

#[test]
fn layer_table_is_bounded_and_apps_without_layers_say_so() {
    use crate::report::fixture::game;
    let mut fx = game();
    let extra = fx.presents.layers[0].clone();
    for k in 0..20 {
        fx.presents.layers.push(crate::presents::LayerSummary {
            layer: format!("leash#{k}"),
            presents: 2,
            ..extra.clone()
        });
    }
    let p = page(&fx.report(), &[]);
    let s = &p.apps[0].presents;
    assert_eq!(s.layers.len(), super::presents::MAX_LAYER_ROWS);
    assert!(s.layers[0].shown && s.layers[1..].iter().all(|l| !l.shown));
    assert_eq!(s.more_layers, "10 more layers with fewer presents: see presents.csv");

    // No layer, no renderer: the doFrames' fps, and the page says there is no layer.
    let fx = two_apps();
    let r = fx.report();
    let p = page(&r, &[]);
    let s = &p.apps[0].presents;
    assert_eq!((s.renderer.as_str(), s.headline_from.as_str()), ("–", "its doFrames"));
    assert!(s.layers.is_empty() && s.charts.is_empty());
    let html = render_html(&r, &[]).unwrap();
    assert!(html.contains("<p>No layer of this app presented buffers in the trace"));
}
