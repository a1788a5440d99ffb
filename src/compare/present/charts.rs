//! The PNG charts of `compare --out`: the frame-cost CDF of both sides on a
//! log axis with P50/P90/P99 marked, drop-level rates per 1000 frames side by
//! side, fps per run as a strip plot, and fps_wall over time for the first
//! run of each side. Drawn with the report's chart kit, so they look like
//! `analyze`'s charts; the HTML exporter draws them and writes them too.

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use crate::compare::comparison::Comparison;
use crate::compare::runs::Run;
use crate::frames::DropLevel;
use crate::report::charts::kit::{
    anchored, header, item, label_on_white, mesh_style, plot_frame, render_png, tint, Area, DResult, Swatch, Ticks,
    FPS_LINE, INK, LEVEL_COLORS, MUTED, NOTE_PX,
};
use crate::report::format::fmt_ms_tick;
use crate::report::{Artifact, ReportError};
use crate::series::Frame;

/// Grey for "before", the report's blue for "after".
const BEFORE: RGBColor = RGBColor(140, 140, 140);
const AFTER: RGBColor = FPS_LINE;
const W: u32 = 1600;
const H: u32 = 900;

/// One drawn chart.
#[derive(Debug, Clone)]
pub(crate) struct CompareChart {
    /// `charts/compare-cdf.png`.
    pub file_name: String,
    pub title: String,
    pub png: Vec<u8>,
}

/// The charts as `charts/compare-*.png` artefacts.
pub(super) fn artifacts(charts: Vec<CompareChart>) -> Vec<Artifact> {
    charts.into_iter().map(|ch| Artifact { file_name: ch.file_name, bytes: ch.png }).collect()
}

/// Every chart, drawn in parallel.
pub(super) fn draw(c: &Comparison, runs: &[Vec<Run>; 2]) -> Result<Vec<CompareChart>, ReportError> {
    use rayon::prelude::*;
    type Draw<'a> = Box<dyn Fn(&Area) -> DResult + Send + Sync + 'a>;
    let jobs: Vec<(&str, &str, Draw)> = vec![
        ("cdf", "Frame cost CDF, before vs after", Box::new(|a: &Area| cdf(a, c, runs))),
        ("drop-levels", "Drop-level rates per 1000 frames", Box::new(|a: &Area| levels(a, c, runs))),
        ("fps-runs", "fps per run", Box::new(|a: &Area| fps_runs(a, c))),
        ("fps-wall", "fps_wall over time, first run of each side", Box::new(|a: &Area| fps_wall(a, c, runs))),
    ];
    jobs.into_par_iter()
        .map(|(slug, title, draw)| {
            let file_name = format!("charts/compare-{slug}.png");
            let png = render_png(W, H, |root| draw(root))
                .map_err(|e| ReportError::Write(format!("cannot draw {file_name}: {e}")))?;
            Ok(CompareChart { file_name, title: title.to_string(), png })
        })
        .collect()
}

fn pooled(runs: &[Run]) -> impl Iterator<Item = &Frame> {
    runs.iter().flat_map(|r| r.frames.iter())
}

fn subtitle(c: &Comparison) -> String {
    let (b, a) = c.run_counts();
    format!("{} · before: {b} run(s), after: {a} run(s)", c.app)
}

/// Sorted frame costs (ms) and their CDF points, thinned to at most 2000.
fn cdf_points(runs: &[Run]) -> (Vec<f64>, Vec<(f64, f64)>) {
    let mut costs: Vec<f64> = pooled(runs).map(|f| (f.cost_ns as f64 / 1e6).max(0.01)).collect();
    costs.sort_by(f64::total_cmp);
    let n = costs.len();
    let step = (n / 2000).max(1);
    let mut pts: Vec<(f64, f64)> = (0..n).step_by(step).map(|i| (costs[i], (i + 1) as f64 / n as f64)).collect();
    if let Some(&last) = costs.last() {
        pts.push((last, 1.0));
    }
    (costs, pts)
}

/// Nearest-rank percentile, as the table prints it.
fn nearest_rank(sorted: &[f64], q: f64) -> f64 {
    crate::compare::stats::quantile::quantile_nearest_rank(&mut sorted.to_vec(), q)
}

fn cdf(root: &Area, c: &Comparison, runs: &[Vec<Run>; 2]) -> DResult {
    let sides = [cdf_points(&runs[0]), cdf_points(&runs[1])];
    let legend = vec![
        item("before", Swatch::Line(BEFORE)),
        item("after", Swatch::Line(AFTER)),
        item("dashed: P50 / P90 / P99 of each side", Swatch::Caption),
    ];
    let plot = header(root, "Frame cost CDF (vsync → end of commit)", &subtitle(c), &[legend])?;
    let all = sides.iter().flat_map(|s| s.0.iter().copied());
    let (lo, hi) = all.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (lo, hi) = if lo.is_finite() { ((lo * 0.8).max(0.05), (hi * 1.25).max(lo * 2.0)) } else { (0.1, 100.0) };
    let mut chart = plot_frame(&plot).build_cartesian_2d((lo..hi).log_scale(), 0f64..1.02)?;
    mesh_style(&mut chart)
        .x_label_formatter(&|v: &f64| fmt_ms_tick(*v))
        .y_label_formatter(&|v: &f64| format!("{:.0}%", v * 100.0))
        .x_desc("frame cost (ms, log scale)")
        .y_desc("frames at or below")
        .draw()?;
    const MARKS: [(f64, &str); 3] = [(0.5, "P50"), (0.9, "P90"), (0.99, "P99")];
    let marks: Vec<[f64; 3]> = sides.iter().map(|(costs, _)| MARKS.map(|(q, _)| nearest_rank(costs, q))).collect();
    // Both curves first: a label drawn before the other side's curve would be crossed by it.
    for (k, (_, pts)) in sides.iter().enumerate() {
        let color = if k == 0 { BEFORE } else { AFTER };
        chart.draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(3)))?;
    }
    for k in 0..sides.len() {
        let color = if k == 0 { BEFORE } else { AFTER };
        for (m, (q, name)) in MARKS.into_iter().enumerate() {
            let v = marks[k][m];
            if !v.is_finite() {
                continue;
            }
            chart.draw_series(std::iter::once(DashedPathElement::new(
                vec![(v, 0.0), (v, q)],
                8,
                5,
                color.stroke_width(2),
            )))?;
            let (px, py) = chart.backend_coord(&(v, q));
            let side = if k == 0 { "before" } else { "after" };
            // Labels point away from the other side's mark at the same
            // quantile, so the two never run into each other.
            let other = marks.get(1 - k).map_or(f64::NAN, |o| o[m]);
            // Left of the other side's mark when smaller; on a tie or no other mark, before goes left.
            let left = match v.partial_cmp(&other) {
                Some(std::cmp::Ordering::Less) => true,
                Some(std::cmp::Ordering::Greater) => false,
                Some(std::cmp::Ordering::Equal) | None => k == 0,
            };
            let h = if left { HPos::Right } else { HPos::Left };
            // On white: the label sits where its own side's curve passes.
            label_on_white(root, &format!("{side} {name} {v:.1} ms"), NOTE_PX, &color, h, (px, py))?;
        }
    }
    Ok(())
}

/// Frames per 1000 at each drop level above BEST, per side.
fn level_rates(runs: &[Run]) -> [f64; 4] {
    let mut counts = [0usize; 5];
    let mut n = 0usize;
    for f in pooled(runs) {
        counts[DropLevel::from_dropped(f.dropped).index()] += 1;
        n += 1;
    }
    let rate = |k: usize| {
        if n == 0 {
            0.0
        } else {
            1000.0 * counts[k] as f64 / n as f64
        }
    };
    [rate(1), rate(2), rate(3), rate(4)]
}

fn levels(root: &Area, c: &Comparison, runs: &[Vec<Run>; 2]) -> DResult {
    let rates = [level_rates(&runs[0]), level_rates(&runs[1])];
    let legend = vec![
        item("pale bar: before", Swatch::Box(tint(MUTED, 0.35))),
        item("solid bar: after (colour = drop level)", Swatch::Box(MUTED)),
    ];
    let plot = header(root, "Drop levels per 1000 frames (Matrix levels)", &subtitle(c), &[legend])?;
    let top = rates.iter().flatten().fold(1.0f64, |a, &b| a.max(b)) * 1.2;
    let mut chart = plot_frame(&plot).build_cartesian_2d(-0.6f64..3.6, 0f64..top)?;
    let names = ["NORMAL (3–8)", "MIDDLE (9–23)", "HIGH (24–41)", "FROZEN (≥ 42)"];
    let xf = |v: &f64| {
        let k = v.round();
        if (v - k).abs() < 1e-6 && (0.0..4.0).contains(&k) {
            names[k as usize].to_string()
        } else {
            String::new()
        }
    };
    let yt = Ticks::new(0.0, top, 11);
    let yf = |v: &f64| yt.label(*v);
    mesh_style(&mut chart)
        .disable_x_mesh()
        .x_labels(5)
        .y_labels(yt.n)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc("drop level (dropped frames per frame)")
        .y_desc("frames per 1000 frames")
        .draw()?;
    for (side, r) in rates.iter().enumerate() {
        for (k, &v) in r.iter().enumerate() {
            let color = LEVEL_COLORS[k + 1];
            let (x0, x1) =
                if side == 0 { (k as f64 - 0.38, k as f64 - 0.02) } else { (k as f64 + 0.02, k as f64 + 0.38) };
            let fill = if side == 0 { tint(color, 0.35) } else { color };
            chart.draw_series(std::iter::once(Rectangle::new([(x0, 0.0), (x1, v)], fill.filled())))?;
            let (px, py) = chart.backend_coord(&((x0 + x1) / 2.0, v));
            let label = format!("{} {v:.1}", if side == 0 { "before" } else { "after" });
            root.draw_text(&label, &anchored(NOTE_PX, &INK, HPos::Center, VPos::Bottom), (px, py - 4))?;
        }
    }
    Ok(())
}

fn fps_runs(root: &Area, c: &Comparison) -> DResult {
    let values: [Vec<f64>; 2] = [&c.before, &c.after].map(|s| s.runs.iter().filter_map(|r| r.fps).collect());
    let medians = c.metric("fps").map(|m| [m.before, m.after]).unwrap_or([None, None]);
    let legend = vec![item("one dot per run", Swatch::Dot(INK)), item("bar: the side's median run", Swatch::Line(INK))];
    let plot = header(root, "fps per run (Matrix fps)", &subtitle(c), &[legend])?;
    let top = values.iter().flatten().fold(10.0f64, |a, &b| a.max(b)) * 1.15;
    let mut chart = plot_frame(&plot).build_cartesian_2d(-0.7f64..1.7, 0f64..top)?;
    let xf = |v: &f64| match v.round() as i64 {
        0 if (v - 0.0).abs() < 1e-6 => "before".to_string(),
        1 if (v - 1.0).abs() < 1e-6 => "after".to_string(),
        _ => String::new(),
    };
    let yt = Ticks::new(0.0, top, 11);
    let yf = |v: &f64| yt.label(*v);
    mesh_style(&mut chart)
        .disable_x_mesh()
        .x_labels(3)
        .y_labels(yt.n)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .y_desc("fps")
        .draw()?;
    for (side, vals) in values.iter().enumerate() {
        let color = if side == 0 { BEFORE } else { AFTER };
        let n = vals.len().max(1) as f64;
        // Spread the dots sideways in run order so equal values stay visible.
        chart.draw_series(vals.iter().enumerate().map(|(i, &v)| {
            let x = side as f64 + (i as f64 - (n - 1.0) / 2.0) * (0.5 / n);
            Circle::new((x, v), 9, color.filled())
        }))?;
        if let Some(p) = medians[side] {
            let x = side as f64;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x - 0.32, p), (x + 0.32, p)],
                INK.stroke_width(3),
            )))?;
            let (px, py) = chart.backend_coord(&(x + 0.34, p));
            root.draw_text(&format!("{p:.1}"), &anchored(NOTE_PX, &INK, HPos::Left, VPos::Center), (px, py))?;
        }
    }
    Ok(())
}

/// 1 s windows of a run (seconds since the run's first frame, fps).
fn wall_windows(run: &Run) -> Vec<(f64, f64, f64)> {
    let wall_end = run.first_ts + run.wall_ns;
    let mut counts: std::collections::BTreeMap<i64, i64> = std::collections::BTreeMap::new();
    for f in &run.frames {
        *counts.entry((f.ts - run.first_ts) / 1_000_000_000).or_insert(0) += 1;
    }
    let counts: Vec<(i64, i64)> = counts.into_iter().collect();
    crate::metrics::fps_windows(run.first_ts, wall_end, &counts)
        .iter()
        .map(|w| {
            let t0 = (w.start_ts - run.first_ts) as f64 / 1e9;
            (t0, t0 + w.seconds, w.fps)
        })
        .collect()
}

fn fps_wall(root: &Area, c: &Comparison, runs: &[Vec<Run>; 2]) -> DResult {
    let windows = [runs[0].first().map(wall_windows), runs[1].first().map(wall_windows)].map(Option::unwrap_or_default);
    let name = |k: usize| runs[k].first().map(|r| short_name(&r.trace)).unwrap_or_default();
    let legend = vec![
        item(format!("before: {}", name(0)), Swatch::Line(BEFORE)),
        item(format!("after: {}", name(1)), Swatch::Line(AFTER)),
    ];
    let plot = header(root, "fps_wall over time (frames in each 1 s window)", &subtitle(c), &[legend])?;
    let x1 = windows.iter().flatten().map(|w| w.1).fold(1.0f64, f64::max);
    let top = windows.iter().flatten().map(|w| w.2).fold(10.0f64, f64::max) * 1.15;
    let mut chart = plot_frame(&plot).build_cartesian_2d(0f64..x1, 0f64..top)?;
    let (xt, yt) = (Ticks::new(0.0, x1, 11), Ticks::new(0.0, top, 11));
    let (xf, yf) = (|v: &f64| xt.label(*v), |v: &f64| yt.label(*v));
    mesh_style(&mut chart)
        .x_labels(xt.n)
        .y_labels(yt.n)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc("seconds since the run's first frame")
        .y_desc("frames per second")
        .draw()?;
    for (k, w) in windows.iter().enumerate() {
        let color = if k == 0 { BEFORE } else { AFTER };
        let steps = w.iter().flat_map(|&(a, b, f)| [(a, f), (b, f)]);
        chart.draw_series(LineSeries::new(steps, color.stroke_width(3)))?;
    }
    Ok(())
}

/// The file name of a trace path.
fn short_name(path: &str) -> String {
    std::path::Path::new(path).file_name().map_or(path.to_string(), |n| n.to_string_lossy().into_owned())
}
