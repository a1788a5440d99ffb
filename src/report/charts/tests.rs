//! Chart data checked exactly against hand-computed values, and every chart
//! rendered from a hand-made analysis (`report::fixture::two_apps`): valid
//! PNG, the planned size, real content (pixel variance, the palette colours
//! it must show, text drawn).

use super::data::*;
use super::*;
use crate::metrics::{self, AppFilter, Percentiles};
use crate::model::{PresentType, Trace};
use crate::report::fixture::{two_apps, Analysed};
use crate::testutil::{app_frame, I60 as I, MS};

/// A frame as `data` sees it, for the data tests.
fn frame(ts: i64, cost: i64) -> Frame {
    let d = cost / I;
    Frame {
        frame_index: 0,
        frame_id: None,
        ts,
        vsync_ts: Some(ts),
        interval_ns: I,
        do_frame_dur: cost,
        frame_cost_ns: cost,
        dropped_frames: d,
        level: crate::frames::DropLevel::from_dropped(d),
        segments: segments(Some(0), [None, None, None, Some(cost), None], cost, None),
        draw_end: None,
        render_offset_ns: None,
        actual_end: None,
        overrun_ns: None,
        present_type: None,
    }
}

/// The RenderThread's segment sits at its own time from the vsync: one that
/// ran inside the doFrame (the main thread waiting for it) does not lengthen
/// the bar; one that ran after it does, by its own end.
#[test]
fn render_thread_is_drawn_at_its_own_time() {
    // doFrame 0–392 ms from the vsync, RenderThread 58–386 ms (dbui 191623's shape).
    let mut f = frame(0, 392 * MS);
    f.segments[RENDER] = 328 * MS;
    f.render_offset_ns = Some(58 * MS);
    assert_eq!((f.render_start_ns(), f.total_ns()), (58 * MS, 392 * MS));
    // After the doFrame: 392 + 2 + 10 ms.
    f.render_offset_ns = Some(394 * MS);
    f.segments[RENDER] = 10 * MS;
    assert_eq!(f.total_ns(), 404 * MS);
    // No start known: after the main thread's segments, as before.
    f.render_offset_ns = None;
    assert_eq!((f.render_start_ns(), f.total_ns()), (392 * MS, 402 * MS));
}

// ---------------------------------------------------------------------------
// Data

#[test]
fn segments_clamp_and_fill() {
    let s = segments(Some(2 * MS), [Some(MS), None, None, Some(8 * MS), Some(MS / 2)], 12 * MS, Some(3 * MS));
    assert_eq!(s, [2 * MS, MS, 0, 0, 8 * MS, MS / 2, 12 * MS - MS - 8 * MS - MS / 2, 3 * MS]);
    // Negative jitter counts as 0; phases longer than doFrame leave no "other".
    let s = segments(Some(-5), [Some(10), None, None, Some(10), None], 15, None);
    assert_eq!(s, [0, 10, 0, 0, 10, 0, 0, 0]);
}

#[test]
fn app_frames_reads_the_rows() {
    let fx = two_apps();
    let f = app_frames(&fx.analysis.rows, 100);
    assert_eq!(f.len(), 40);
    assert!(f.windows(2).all(|w| w[0].ts < w[1].ts));
    let f10 = &f[10];
    assert_eq!(f10.frame_index, 10);
    assert_eq!(f10.frame_id, Some(1010));
    assert_eq!(f10.ts, 1_500_000_000);
    assert_eq!(f10.vsync_ts, Some(1_499_000_000));
    assert_eq!(f10.frame_cost_ns, 60 * MS);
    assert_eq!(f10.dropped_frames, 3);
    assert_eq!(f10.level, crate::frames::DropLevel::Normal);
    // jitter 1, input 0.5, animation 1, traversal 59 − 3 = 56, commit 1, other 59 − 58.5 = 0.5, RT 3.
    assert_eq!(f10.segments, [MS, MS / 2, MS, 0, 56 * MS, MS, MS / 2, 3 * MS]);
    assert_eq!(f10.segments[..RENDER].iter().sum::<i64>(), 60 * MS, "start jitter + doFrame");
    assert_eq!(f10.total_ns(), 63 * MS);
    assert_eq!(f10.draw_end, Some(1_500_000_000 + 59 * MS + 3 * MS));
    assert_eq!(f10.actual_end, None);
    let f20 = &f[20];
    assert_eq!(f20.actual_end, Some(2_000_000_000 + 199 * MS + 10 * MS));
    assert_eq!(f20.present_type, Some(PresentType::Late));
    assert_eq!(app_frames(&fx.analysis.rows, 200).len(), 5);
    assert!(app_frames(&fx.analysis.rows, 999).is_empty());
}

#[test]
fn worst_window_and_timeline() {
    let mut f: Vec<Frame> = (0..8).map(|k| frame(k * 20 * MS, 5 * MS)).collect();
    for (k, d) in [(2, 5), (5, 3), (6, 3)] {
        f[k].dropped_frames = d;
    }
    // Windows of 3: Σd = 5, 5, 5, 3, 6, 6 → the first 6, at 4.
    assert_eq!(worst_window(&f, 3), 4);
    // Equal Σd: the larger Σ cost wins.
    f[7].frame_cost_ns = 9 * MS;
    f[7].dropped_frames = 0;
    assert_eq!(worst_window(&f, 3), 5);
    assert_eq!(worst_window(&f, 8), 0);
    assert_eq!(worst_window(&f, 20), 0);

    let t = timeline(&f, 3);
    assert!(t.zoomed);
    assert_eq!((t.start, t.total_frames, t.bars.len()), (5, 8, 3));
    assert_eq!(t.bars[0].ts, 5 * 20 * MS);
    let t = timeline(&f, 8);
    assert!(!t.zoomed);
    assert_eq!((t.start, t.bars.len()), (0, 8));

    // The fixture app with 10 bars: frames 20 (d 11) and 25 (d 26) in the window,
    // all such windows cost the same, so the earliest: frames 16–25.
    let fx = two_apps();
    let t = timeline(&app_frames(&fx.analysis.rows, 100), 10);
    assert_eq!(t.start, 16);
}

#[test]
fn distribution_buckets_and_cdf() {
    // d = 0, 0, 1, 2, 8, 9, 23, 24, 41, 42, 100 → n = d + 1.
    let costs: Vec<i64> = [0i64, 0, 1, 2, 8, 9, 23, 24, 41, 42, 100].iter().map(|d| d * I + MS).collect();
    let f: Vec<Frame> = costs.iter().enumerate().map(|(k, &c)| frame(k as i64 * 1_000 * MS, c)).collect();
    let pct = Percentiles { p50: Some(7), p90: Some(8), p95: None, p99: Some(9), max: Some(10) };
    let d = distribution(&f, &pct);
    let got: Vec<(&str, i64)> = d.buckets.iter().map(|b| (b.label.as_str(), b.frames)).collect();
    assert_eq!(
        got,
        vec![
            ("1", 2),
            ("2", 1),
            ("3", 1),
            ("4", 0),
            ("5", 0),
            ("6", 0),
            ("7", 0),
            ("8", 0),
            ("9", 1),
            ("10–24", 2),
            ("25–42", 2),
            ("≥43", 2)
        ]
    );
    // One level per bucket.
    for b in &d.buckets {
        let lo = crate::frames::DropLevel::from_dropped(b.intervals - 1);
        let hi = crate::frames::DropLevel::from_dropped(b.last.unwrap_or(1000) - 1);
        assert_eq!(lo, hi, "{}", b.label);
    }
    assert_eq!(d.cdf.len(), 11);
    assert_eq!(d.cdf[0], (1.0, 1.0 / 11.0));
    assert_eq!(d.cdf[10], ((100 * I + MS) as f64 / 1e6, 1.0));
    assert_eq!((d.p50, d.p90, d.p99, d.max), (Some(7), Some(8), Some(9), Some(10)));
}

#[test]
fn fps_idle_and_janky() {
    let fx = two_apps();
    let app = &fx.apps[0];
    assert_eq!(app.pid, 100);
    let frames = app_frames(&fx.analysis.rows, 100);
    // Frame 34 ends (RenderThread) at 1 s + 34·50 ms + 5 + 3 ms; frame 35's vsync is
    // 1 s + 35·50 ms + 300 ms − 1 ms: 341 ms without a frame pending.
    assert_eq!(idle_gaps(&frames), vec![(2_708_000_000, 3_049_000_000)]);
    let d = fps(app, &frames, 500_000_000);
    assert_eq!(d.idle, vec![(2.208, 2.549)]);
    // Janky frames 10, 20, 25 at 1.0, 1.5, 1.75 s after the trace start.
    use crate::frames::DropLevel::{High, Middle, Normal};
    assert_eq!(d.janky, vec![(1.0, Normal, 3), (1.5, Middle, 11), (1.75, High, 26)]);
    assert_eq!(d.refresh_hz, 1e9 / I as f64);
    assert_eq!(d.windows.len(), app.fps_wall_timeline.len());
    assert_eq!(d.windows[0], (0.5, 1.5, app.fps_wall_timeline[0].fps));
    // 20 frames start in the first second (50 ms apart).
    assert_eq!(app.fps_wall_timeline[0].frames, 20);

    // Exactly 100 ms of nothing pending is idle; 1 ns less is not.
    let mut a = frame(0, 5 * MS);
    a.draw_end = Some(10 * MS);
    let b = frame(110 * MS, 5 * MS);
    assert_eq!(idle_gaps(&[a.clone(), b]), vec![(10 * MS, 110 * MS)]);
    let c = frame(110 * MS - 1, 5 * MS);
    assert!(idle_gaps(&[a, c]).is_empty());
}

#[test]
fn drop_level_groups() {
    let fx = two_apps();
    let app = &fx.apps[0];
    let g = drop_levels(app, 7);
    // One scene holding every frame: only the total.
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].name, "all frames");
    assert_eq!(g[0].frames, 40);
    assert_eq!(g[0].counts, [37, 1, 1, 1, 0]);
    assert_eq!(g[0].sums, [0, 3, 11, 26, 0]);

    let mut many = app.clone();
    many.scenes = (0..5)
        .map(|k| metrics::SceneSummary {
            scene: format!("s{k}"),
            frames: 10 - k,
            first_ts: k,
            fps: 60.0,
            refresh_hz: 60.0,
            dropped_frames: k,
            drop_level: metrics::Levels([10 - k, 0, 0, 0, 0]),
            drop_sum: metrics::Levels([0, k, 0, 0, 0]),
            frame_cost_p90: None,
        })
        .collect();
    let g = drop_levels(&many, 4);
    let names: Vec<&str> = g.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, vec!["all frames", "s0", "s1", "3 other scenes"]);
    assert_eq!(g[3].frames, 8 + 7 + 6);
    assert_eq!(g[3].counts, [21, 0, 0, 0, 0]);
    assert_eq!(g[3].sums, [0, 2 + 3 + 4, 0, 0, 0]);

    let a = apps_drop_levels(&fx.apps.iter().collect::<Vec<_>>());
    assert_eq!(
        a.iter().map(|x| (x.name.as_str(), x.frames)).collect::<Vec<_>>(),
        vec![("com.example.app", 40), ("com.other", 5)]
    );
}

#[test]
fn janky_rows_follow_worst_frames() {
    let fx = two_apps();
    let app = &fx.apps[0];
    let frames = app_frames(&fx.analysis.rows, 100);
    let j = janky(app, &frames, 500_000_000);
    assert_eq!(j.janky_frames, 3);
    let got: Vec<(i64, f64, Option<&str>, Option<i64>)> = j
        .rows
        .iter()
        .map(|r| (r.frame.frame_index, r.t, r.dominant_phase.map(crate::frames::FramePart::as_str), r.longest_ns))
        .collect();
    assert_eq!(
        got,
        vec![
            (25, 1.75, Some("animation"), Some(449 * MS - 3 * MS - MS)),
            (20, 1.5, Some("traversal"), Some(199 * MS - 3 * MS - MS)),
            (10, 1.0, Some("traversal"), Some(59 * MS - 3 * MS - MS)),
        ]
    );
    assert_eq!(j.rows[0].longest_slice.as_deref(), Some("RV OnBindView 25"));
    assert_eq!(j.rows[0].jank_type.as_deref(), Some("App Deadline Missed"));
}

#[test]
fn present_intervals() {
    // Vsyncs at 0, I, 2I (back to back), then 500 ms later (after idle), then a
    // frame whose vsync came before the previous present (it was waiting).
    let mut f: Vec<Frame> = [0, I, 2 * I, 500 * MS, 500 * MS + 40 * MS].iter().map(|&ts| frame(ts, 5 * MS)).collect();
    let ends = [20 * MS, 37 * MS, 54 * MS, 520 * MS, 600 * MS];
    for (k, e) in ends.iter().enumerate() {
        f[k].actual_end = Some(*e);
        f[k].overrun_ns = Some(k as i64 * MS - 2 * MS);
    }
    f[4].vsync_ts = Some(510 * MS);
    f[1].present_type = Some(PresentType::Late);
    f[2].present_type = Some(PresentType::OnTime);
    f[3].present_type = Some(PresentType::Unknown);
    let mut with_none = f.clone();
    with_none.push(frame(900 * MS, 5 * MS));
    let p = present(&with_none, I, 0).unwrap();
    assert_eq!(p.interval_ns, I);
    let got: Vec<(Option<i64>, Option<i64>, usize)> =
        p.points.iter().map(|x| (x.interval_ns, x.overrun_ns, x.class)).collect();
    assert_eq!(
        got,
        vec![
            (None, Some(-2 * MS), 4),
            (Some(17 * MS), Some(-MS), 1),
            (Some(17 * MS), Some(0), 0),
            (None, Some(MS), 4),
            (Some(80 * MS), Some(2 * MS), 4),
        ]
    );
    assert_eq!(p.points[3].t, 0.52);
    assert!(present(&[frame(0, MS)], I, 0).is_none());
}

#[test]
fn scales_and_labels() {
    // 9 frames of 10 ms and one of 700 ms at 60 Hz: P90 = 10 → cap max(66.7, 15) = 66.7 ms.
    let mut v = vec![10.0; 9];
    v.push(700.0);
    let i = I as f64 / 1e6;
    assert!((y_cap(&v, i) - 4.0 * i * 1.08).abs() < 1e-9);
    // All small: at least 2.2 × I so the 2× line shows.
    assert!((y_cap(&[1.0, 2.0], i) - 2.2 * i * 1.08).abs() < 1e-9);
    // Nothing clipped when the largest is within the cap.
    assert!((y_cap(&[50.0, 60.0], i) - 60.0 * 1.08).abs() < 1e-9);
    assert_eq!(y_cap(&[], 0.0), 1.08);

    let mut f = vec![frame(0, MS), frame(1, MS), frame(2, MS)];
    assert_eq!(refresh_label(&f, 0.0), "60 Hz");
    assert_eq!(common_interval(&f), I);
    f[2].interval_ns = 8_333_333;
    assert_eq!(refresh_label(&f, 0.0), "60/120 Hz");
    assert_eq!(common_interval(&f), I);
    f[1].interval_ns = 8_333_333;
    assert_eq!(common_interval(&f), 8_333_333);
    assert_eq!(refresh_label(&[], 90.0), "90 Hz");
    assert_eq!(present_class(Some(PresentType::Dropped)), 3);
    assert_eq!(present_class(Some(PresentType::Unknown)), 4);
    assert_eq!(present_class(None), 4);
}

/// The labels of the ticks plotters draws on `lo..hi` with at most `n` labels.
fn tick_labels(lo: f64, hi: f64, n: usize) -> Vec<String> {
    use plotters::coord::ranged1d::Ranged;
    let ticks = super::draw::Ticks::new(lo, hi, n);
    plotters::coord::types::RangedCoordf64::from(lo..hi).key_points(n).iter().map(|&v| ticks.label(v)).collect()
}

#[test]
fn tick_labels_tell_neighbours_apart() {
    // A 0.14 s axis ticks every 0.02 s: one decimal (`2.4 2.4 2.4 2.4 2.5`) would repeat labels.
    assert_eq!(tick_labels(2.38, 2.52, 14), ["2.38", "2.40", "2.42", "2.44", "2.46", "2.48", "2.50", "2.52"]);
    // Round steps carry no noise digits; whole numbers no decimals.
    assert_eq!(tick_labels(0.0, 66.7, 10), ["0", "10", "20", "30", "40", "50", "60"]);
    assert_eq!(tick_labels(0.0, 1.08, 7), ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
    assert_eq!(tick_labels(12.0, 13.0, 5), ["12.0", "12.5", "13.0"]);
    // Around zero: no `-0.0` from the step's rounding error (plotters' float steps leave out -0.3).
    assert_eq!(tick_labels(-0.3, 0.3, 7), ["-0.2", "-0.1", "0.0", "0.1", "0.2", "0.3"]);
    assert_eq!(super::draw::Ticks::new(-0.3, 0.3, 7).label(-5.551e-17), "0.0");
}

/// The labels of the ticks plotters draws on the CDF's log axis `lo..hi`
/// (12 wanted, as the chart asks), the unlabelled ones left out (plotters
/// gives each power of ten twice, at one place: once here).
fn log_tick_labels(lo: f64, hi: f64) -> Vec<String> {
    use plotters::prelude::{IntoLogRange, LogCoord, Ranged};
    let ticks = super::draw::LogTicks::new(lo, hi);
    let axis: LogCoord<f64> = (lo..hi).log_scale().into();
    let mut labels: Vec<String> =
        axis.key_points(12).iter().map(|&v| ticks.label(v)).filter(|l| !l.is_empty()).collect();
    labels.dedup();
    labels
}

#[test]
fn log_tick_labels_never_crowd() {
    // Costs from under 1 ms: plotters ticks 1, 2, …, 9, 10, 20, …; all labelled, `5.0 6.07.0 8.0 9.010` ran together.
    assert_eq!(log_tick_labels(0.42, 13.0), ["1.0", "2.0", "5.0", "10"]);
    assert_eq!(log_tick_labels(0.9, 60.0), ["1.0", "2.0", "5.0", "10", "20", "50"]);
    assert_eq!(log_tick_labels(2.1, 78.0), ["10", "20", "50"]);
    // From two decades plotters ticks the powers of ten only, all labelled.
    assert_eq!(log_tick_labels(0.7, 300.0), ["1.0", "10", "100"]);
    assert_eq!(log_tick_labels(0.1, 2000.0), ["1.0", "10", "100", "1000"]);
    // Under a decade, 3 and 7 too.
    let ticks = super::draw::LogTicks::new(4.2, 13.0);
    let labels: Vec<String> = [5.0, 6.0, 7.0, 8.0, 9.0, 10.0].iter().map(|&v| ticks.label(v)).collect();
    assert_eq!(labels, ["5.0", "", "7.0", "", "", "10"]);
    // Neighbours at least 0.146 decade apart, on every span.
    for (lo, hi) in [(0.42, 13.0), (0.9, 60.0), (2.1, 78.0), (0.7, 300.0), (0.1, 2000.0), (1.2, 9.9)] {
        let at: Vec<f64> = log_tick_labels(lo, hi).iter().map(|l| l.parse::<f64>().unwrap().log10()).collect();
        assert!(at.windows(2).all(|w| w[1] - w[0] > 0.146), "{lo}..{hi}: {at:?}");
    }
}

// ---------------------------------------------------------------------------
// Rendering

fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let dec = png::Decoder::new(png_bytes);
    let mut reader = dec.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG data");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

fn pixels(rgb: &[u8]) -> impl Iterator<Item = (u8, u8, u8)> + '_ {
    rgb.chunks_exact(3).map(|p| (p[0], p[1], p[2]))
}

fn has_color(rgb: &[u8], c: plotters::style::RGBColor, at_least: usize) -> bool {
    pixels(rgb).filter(|&p| p == (c.0, c.1, c.2)).count() >= at_least
}

/// Variance of the grey level: a blank or flat image is ~0.
fn variance(rgb: &[u8]) -> f64 {
    let g: Vec<f64> = pixels(rgb).map(|(r, g, b)| (r as f64 + g as f64 + b as f64) / 3.0).collect();
    let mean = g.iter().sum::<f64>() / g.len() as f64;
    g.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / g.len() as f64
}

#[test]
fn every_chart_renders() {
    let fx = two_apps();
    let charts = render_charts(&fx.report(), &ChartOptions::default()).unwrap();
    let names: Vec<&str> = charts.iter().map(|c| c.file_name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "charts/com.example.app-100-timeline.png",
            "charts/com.example.app-100-distribution.png",
            "charts/com.example.app-100-fps.png",
            "charts/com.example.app-100-drop-levels.png",
            "charts/com.example.app-100-janky.png",
            "charts/com.example.app-100-present.png",
            "charts/com.other-200-timeline.png",
            "charts/com.other-200-distribution.png",
            "charts/com.other-200-fps.png",
            "charts/com.other-200-drop-levels.png",
            "charts/apps-drop-levels.png",
        ]
    );
    for c in &charts {
        let (w, h, rgb) = decode(&c.png);
        assert_eq!((w, h), (c.width, c.height), "{}", c.file_name);
        assert_eq!(w, 1600);
        assert!(h >= 520, "{}: {h}", c.file_name);
        assert!(variance(&rgb) > 200.0, "{}: variance {}", c.file_name, variance(&rgb));
        // The title is drawn: dark text pixels in the top band.
        let title_band = &rgb[..(w * 50 * 3) as usize];
        assert!(pixels(title_band).filter(|&(r, g, b)| r < 90 && g < 90 && b < 90).count() > 300, "{}", c.file_name);
        // Mostly white background, not a blur of colour.
        let white = pixels(&rgb).filter(|&p| p == (255, 255, 255)).count();
        assert!(white * 3 > (w * h) as usize, "{}", c.file_name);
    }
    let get = |kind: ChartKind, pid: i32| charts.iter().find(|c| c.kind == kind && c.pid == Some(pid)).unwrap();
    let (_, _, tl) = decode(&get(ChartKind::Timeline, 100).png);
    // The drop-level strip (BEST and HIGH frames) and the traversal and RenderThread segments.
    // (The legend holds ~320 px of each colour; the thresholds need the data.)
    for (c, n) in [
        (style::LEVEL_COLORS[0], 5000),
        (style::LEVEL_COLORS[3], 800),
        (style::SEGMENT_COLORS[4], 5000),
        (style::SEGMENT_COLORS[7], 5000),
    ] {
        assert!(has_color(&tl, c, n), "timeline lacks {c:?}");
    }
    let (_, _, fp) = decode(&get(ChartKind::Fps, 100).png);
    assert!(has_color(&fp, style::FPS_LINE, 500));
    assert!(has_color(&fp, style::tint(style::FPS_LINE, 0.35), 5000));
    let (_, _, ds) = decode(&get(ChartKind::Distribution, 100).png);
    for k in [0, 1, 2, 3] {
        assert!(has_color(&ds, style::LEVEL_COLORS[k], 100), "histogram lacks level {k}");
    }
    let (_, _, pr) = decode(&get(ChartKind::Present, 100).png);
    assert!(has_color(&pr, style::PRESENT_COLORS[1], 50));
    let (_, _, jk) = decode(&get(ChartKind::Janky, 100).png);
    assert!(has_color(&jk, style::SEGMENT_COLORS[4], 5000), "traversal segments");
}

#[test]
fn embedded_font_measures_text() {
    let png = render_png(300, 80, |root| {
        let (w, h) = root.estimate_text_size("Frame timeline", &style::text(20, &style::INK))?;
        assert!((120..200).contains(&w), "{w}");
        assert!((18..30).contains(&h), "{h}");
        root.draw_text("Frame timeline", &style::text(20, &style::INK), (10, 10))?;
        Ok(())
    })
    .unwrap();
    let (_, _, rgb) = decode(&png);
    assert!(pixels(&rgb).any(|(r, _, _)| r < 60));
}

#[test]
fn long_trace_renders_fast_and_readable() {
    // 3 600 frames (a minute at 60 Hz): the timeline shows a window, not a blur.
    let mut rows = Vec::new();
    for k in 0..3600i64 {
        let cost = if k % 97 == 0 { 40 * MS } else { 7 * MS };
        rows.push(app_frame(7, "com.long", 1_000_000_000 + k * I, cost, k));
    }
    let mut trace = Trace::default();
    trace.meta.first_ts = Some(1_000_000_000);
    let long = Analysed::new(trace, rows, vec![], &AppFilter::All);
    let report = long.report();
    render_charts(&report, &ChartOptions::default()).unwrap(); // warm the font cache and thread pool
    let t = std::time::Instant::now();
    let charts = render_charts(&report, &ChartOptions::default()).unwrap();
    let took = t.elapsed();
    eprintln!("{} charts for 3600 frames in {took:?}", charts.len());
    assert!(took < std::time::Duration::from_secs(3), "{took:?}");
    let t = timeline(&app_frames(&long.analysis.rows, 7), ChartOptions::default().max_bars);
    assert!(t.zoomed);
    assert_eq!(t.bars.len(), 120);
}

// ---------------------------------------------------------------------------
// A layer's presents

/// Index of layer `name` in the fixture's presents.
fn layer_index(fx: &Analysed, name: &str) -> usize {
    fx.presents.layers.iter().position(|l| l.layer == name).unwrap_or_else(|| panic!("no layer {name}"))
}

#[test]
fn game_layer_presents_are_its_surface_views() {
    use crate::frames::DropLevel::{Best, Normal};
    use crate::report::fixture::{game, game_vsync, GAME_LAYER, GAME_QUEUES, GAME_VIEW_LAYER};
    let fx = game();
    let (sv, view) = (layer_index(&fx, GAME_LAYER), layer_index(&fx, GAME_VIEW_LAYER));
    let app = app_layers(&fx.presents, 100);
    assert_eq!(app.len(), 2);
    assert!(app.contains(&sv) && app.contains(&view));
    assert!(app_layers(&fx.presents, 200).is_empty());
    // The headline's layer (the SurfaceView), not the View layer.
    assert_eq!(fx.apps[0].headline.layer.as_deref(), Some(GAME_LAYER));
    assert_eq!(shown_layer(&fx.presents, 100), Some(sv));
    assert_eq!(shown_layer(&fx.presents, 200), None);

    let rows = layer_rows(&fx.presents, sv);
    let ts: Vec<i64> = rows.iter().map(|r| r.ts).collect();
    assert_eq!(ts, GAME_QUEUES.iter().map(|&k| game_vsync(k + 1) + MS).collect::<Vec<_>>());
    assert_eq!(layer_rows(&fx.presents, view).len(), 3);

    let d = layer_presents(&fx.presents, sv, game_vsync(0)).unwrap();
    assert_eq!(d.vsync_ns, I);
    assert_eq!((d.layer.layer.as_str(), d.layer.presents), (GAME_LAYER, 18));
    // 17 intervals: ten of 2 vsyncs, the 6-vsync hitch, three of 2, the 8-vsync hitch, two of 2.
    let got: Vec<(i64, crate::frames::DropLevel, bool, bool)> =
        d.points.iter().map(|p| (p.interval_ns, p.level, p.perfdog_jank, p.perfdog_big_jank)).collect();
    let mut want = vec![(2 * I, Best, false, false); 10];
    // 100 ms: 3·100 > 2·100 (the previous three) and > 250: a Jank; not > 125 ms.
    want.push((6 * I, Normal, true, false));
    want.extend([(2 * I, Best, false, false); 3]);
    // 133.3 ms: a Jank and a BigJank.
    want.push((8 * I, Normal, true, true));
    want.extend([(2 * I, Best, false, false); 2]);
    assert_eq!(got, want);
    assert!(d.points.iter().all(|p| p.vsync_period_ns == I));
    // The second present, 1 ms into vsync 3.
    assert_eq!(d.points[0].t, (3 * I + MS) as f64 / 1e9);
    assert_eq!(d.layer.fps, 17.0 * 1e9 / (44 * I) as f64);
    assert_eq!((d.layer.dropped_vsyncs, d.layer.perfdog.jank, d.layer.perfdog.big_jank), (15 + 5 + 7, 2, 1));
    assert_eq!(d.layer.perfdog.jank_time_ns, 14 * I);
    assert_eq!(
        (d.layer.interval_ns.p50, d.layer.interval_ns.p90, d.layer.interval_ns.p99),
        (Some(2 * I), Some(6 * I), Some(8 * I))
    );
}

#[test]
fn layer_rows_never_borrow_another_layers() {
    use crate::report::fixture::{game, GAME_LAYER};
    let fx = game();
    let sv = layer_index(&fx, GAME_LAYER);
    assert!(layer_rows(&fx.presents, 99).is_empty());
    assert!(layer_presents(&fx.presents, 99, 0).is_none());
    // Rows that do not line up with the layers (one row missing before the layer, or all of its own).
    let mut p = fx.presents.clone();
    p.rows.remove(0);
    let k = if sv == 0 { 1 } else { sv };
    assert!(layer_rows(&p, k).is_empty());
    p.rows.clear();
    assert!(layer_rows(&p, sv).is_empty());
    // A layer with one present has no interval to draw.
    let mut one = fx.presents.clone();
    let first = one.layers[..sv].iter().map(|l| l.presents as usize).sum::<usize>();
    one.rows.drain(first + 1..first + 18);
    one.layers[sv].presents = 1;
    assert!(layer_presents(&one, sv, 0).is_none());
}

#[test]
fn layer_scale_keeps_perfdog_janks_at_their_height() {
    let i = I as f64 / 1e6;
    // 9 presents of 10 ms and a 700 ms stall: y_cap clips at 4 × I; this chart at 150 ms.
    let mut v = vec![10.0; 9];
    v.push(700.0);
    assert!((layer_y_cap(&v, i) - 150.0 * 1.08).abs() < 1e-9);
    // A 133 ms BigJank among 33 ms presents shows at its height.
    let mut v = vec![33.3; 16];
    v.push(133.3);
    assert!((layer_y_cap(&v, i) - 133.3 * 1.08).abs() < 1e-9);
    // Nothing clipped: as y_cap.
    assert_eq!(layer_y_cap(&[20.0, 30.0], i), y_cap(&[20.0, 30.0], i));
    assert_eq!(layer_y_cap(&[], 0.0), 1.08);
}

#[test]
fn game_charts_include_one_layer_presents_chart() {
    use crate::report::fixture::game;
    let mut fx = game();
    // Many more layers of the app: still one presents chart.
    let extra = fx.presents.layers[0].clone();
    for k in 0..30 {
        fx.presents.layers.push(crate::presents::LayerSummary {
            layer: format!("leash#{k}"),
            presents: 2,
            ..extra.clone()
        });
    }
    let charts = render_charts(&fx.report(), &ChartOptions::default()).unwrap();
    let names: Vec<&str> = charts.iter().map(|c| c.file_name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "charts/com.example.app-100-timeline.png",
            "charts/com.example.app-100-distribution.png",
            "charts/com.example.app-100-fps.png",
            "charts/com.example.app-100-drop-levels.png",
            "charts/com.example.app-100-present.png",
            "charts/com.example.app-100-layer-presents.png",
        ]
    );
    let c = charts.iter().find(|c| c.kind == ChartKind::LayerPresents).unwrap();
    assert_eq!((c.pid, c.width, c.height), (Some(100), 1600, 700));
    let (w, h, rgb) = decode(&c.png);
    assert_eq!((w, h), (1600, 700));
    assert!(variance(&rgb) > 200.0, "variance {}", variance(&rgb));
    let title_band = &rgb[..(w * 50 * 3) as usize];
    assert!(pixels(title_band).filter(|&(r, g, b)| r < 90 && g < 90 && b < 90).count() > 300);
    // 16 BEST dots beyond the legend's swatch, the two NORMAL ones (418
    // pixels measured: more than the swatch alone), the vsync line.
    for (color, n) in [(style::LEVEL_COLORS[0], 900), (style::LEVEL_COLORS[1], 300), (style::BUDGET_1X, 2500)] {
        assert!(
            has_color(&rgb, color, n),
            "{color:?}: {}",
            pixels(&rgb).filter(|&p| p == (color.0, color.1, color.2)).count()
        );
    }
}
