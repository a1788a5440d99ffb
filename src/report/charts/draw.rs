//! Drawing: one function per chart, from its [`data`] values onto a bitmap
//! area with plotters. Layout rules: title, subtitle and legend above the
//! plot (never over data); axes say what and in which unit; values that
//! would squash the rest (a 700 ms frame among 10 ms ones) are clipped at a
//! readable scale and labelled with their real value.

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::backend::ChartBackend;
use super::data::{self, Distribution, FpsData, Frame, JankyData, LevelGroup, PresentData, TimelineData, SEGMENTS};
use super::style::*;
use crate::frames::DropLevel;
use crate::report::format::{
    fmt_fps, fmt_hz, fmt_ms, fmt_ms_tick, fmt_opt_ms, fmt_secs_tick, ns_to_ms as ms, part_words, shorten, shorten_head,
};

/// What every title says: the app and its refresh rate.
#[derive(Debug, Clone)]
pub struct Heading {
    pub app: String,
    pub refresh: String,
}

impl Heading {
    fn title(&self, what: &str) -> String {
        format!("{} · {} — {what}", self.app, self.refresh)
    }
}

/// ", per frame" when the frames ran at several intervals (the budget lines step).
fn per_frame(frames: &[Frame]) -> &'static str {
    match frames.first() {
        Some(f) if frames.iter().any(|g| g.interval_ns != f.interval_ns) => " most often; per frame",
        _ => "",
    }
}

fn level_legend(prefix: &str) -> Vec<LegendItem> {
    let mut v = vec![item(prefix, Swatch::Caption)];
    v.extend(
        DropLevel::ALL
            .iter()
            .zip(LEVEL_COLORS)
            .map(|(l, c)| item(l.as_str(), Swatch::Box(c))),
    );
    v
}

fn mesh_style<'a, 'b, X, Y>(
    chart: &'b mut ChartContext<'a, ChartBackend<'a>, Cartesian2d<X, Y>>,
) -> plotters::chart::MeshStyle<'a, 'b, X, Y, ChartBackend<'a>>
where
    X: plotters::coord::ranged1d::Ranged<ValueType = f64> + plotters::coord::ranged1d::ValueFormatter<f64>,
    Y: plotters::coord::ranged1d::Ranged<ValueType = f64> + plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let mut m = chart.configure_mesh();
    m.bold_line_style(GRID)
        .light_line_style(WHITE)
        .axis_style(MUTED)
        .axis_desc_style(text(AXIS_DESC_PX, &INK))
        .label_style(text(TICK_PX, &INK));
    m
}

// ---------------------------------------------------------------------------

/// Chart 1: One stacked bar per frame with the 1× / 2× budget and a drop-level strip.
pub fn timeline(root: &Area, h: &Heading, d: &TimelineData, origin_ts: i64) -> DResult {
    let n = d.bars.len();
    let (t0, t1) = match (d.bars.first(), d.bars.last()) {
        (Some(a), Some(b)) => (ms(a.ts - origin_ts) / 1e3, ms(b.ts - origin_ts) / 1e3),
        _ => (0.0, 0.0),
    };
    let subtitle = if d.zoomed {
        format!(
            "frames {}–{} of {} ({:.2}–{:.2} s): the {n}-frame window with the most dropped frames",
            d.start + 1,
            d.start + n,
            d.total_frames,
            t0,
            t1
        )
    } else {
        format!(
            "all {} frames, {:.2}–{:.2} s; bar = vsync → end of the frame's work",
            d.total_frames, t0, t1
        )
    };
    let interval = data::common_interval(&d.bars);
    let mut segs: Vec<LegendItem> = SEGMENTS
        .iter()
        .zip(SEGMENT_COLORS)
        .map(|(s, c)| item(*s, Swatch::Box(c)))
        .collect();
    segs.insert(0, item("bar:", Swatch::Caption));
    let mut row2 = vec![
        item(
            format!("1× frame interval ({}{})", fmt_ms(interval), per_frame(&d.bars)),
            Swatch::Line(BUDGET_1X),
        ),
        item(format!("2× ({})", fmt_ms(2 * interval)), Swatch::Line(BUDGET_2X)),
    ];
    row2.extend(level_legend("strip under each bar = drop level:"));
    let plot = header(root, &h.title("Frame timeline"), &subtitle, &[segs, row2])?;

    let totals: Vec<f64> = d.bars.iter().map(|f| ms(f.total_ns())).collect();
    let ymax = data::y_cap(&totals, ms(interval));
    let strip = ymax * 0.07;
    // Bar of the k-th shown frame sits at x = its frame number (1-based), so ticks are round numbers.
    let first = (d.start + 1) as f64;
    let mut chart = ChartBuilder::on(&plot)
        .margin_left(16)
        .margin_right(36)
        .margin_top(22)
        .margin_bottom(12)
        .x_label_area_size(62)
        .y_label_area_size(84)
        // At least 24 slots, so a handful of frames are bars, not walls.
        .build_cartesian_2d(first - 0.6..first + n.max(24) as f64 - 0.4, -strip..ymax)?;
    let xf = |v: &f64| {
        let k = v.round();
        if (v - k).abs() < 1e-6 && k >= first && k < first + n as f64 {
            format!("{k:.0}")
        } else {
            String::new()
        }
    };
    let yf = |v: &f64| if *v < 0.0 { String::new() } else { fmt_ms_tick(*v) };
    mesh_style(&mut chart)
        .disable_x_mesh()
        .x_labels(16)
        .y_labels(10)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc("frame number (in the app's frame order)")
        .y_desc("ms from the frame's vsync")
        .draw()?;

    let half = if n > 60 { 0.42 } else { 0.36 };
    let mut rects = Vec::with_capacity(n * 8);
    for (k, f) in d.bars.iter().enumerate() {
        let x = first + k as f64;
        let mut y = 0.0;
        for (s, &v) in f.segments.iter().enumerate() {
            if v <= 0 {
                continue;
            }
            let y1 = y + ms(v);
            if y < ymax {
                rects.push(Rectangle::new(
                    [(x - half, y), (x + half, y1.min(ymax))],
                    SEGMENT_COLORS[s].filled(),
                ));
            }
            y = y1;
        }
        rects.push(Rectangle::new(
            [(x - 0.5, -strip * 0.9), (x + 0.5, -strip * 0.25)],
            LEVEL_COLORS[f.level.index()].filled(),
        ));
    }
    chart.draw_series(rects)?;

    // Budget lines follow each frame's own interval (refresh-rate changes show as steps).
    let budget = |m: i64| -> Vec<(f64, f64)> {
        d.bars
            .iter()
            .enumerate()
            .flat_map(|(k, f)| {
                let y = ms(m * f.interval_ns);
                [(first + k as f64 - 0.5, y), (first + k as f64 + 0.5, y)]
            })
            .collect()
    };
    chart.draw_series(LineSeries::new(budget(1), BUDGET_1X.stroke_width(2)))?;
    chart.draw_series(DashedLineSeries::new(budget(2), 10, 6, BUDGET_2X.stroke_width(2)))?;

    // Bars taller than the scale: a break mark and the real value.
    let px_per_bar = plot.dim_in_pixel().0 as f64 / n.max(24) as f64;
    let min_gap = (58.0 / px_per_bar).ceil() as usize;
    let mut last_label: Option<usize> = None;
    for (k, f) in d.bars.iter().enumerate() {
        let total = ms(f.total_ns());
        if total <= ymax {
            continue;
        }
        let x = first + k as f64;
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x - half - 0.05, ymax * 0.955), (x + half + 0.05, ymax * 0.965)],
            WHITE.filled(),
        )))?;
        if last_label.is_none_or(|l| k - l >= min_gap) {
            let (px, py) = chart.backend_coord(&(x, ymax));
            root.draw_text(
                &format!("{total:.0} ms"),
                &anchored(NOTE_PX, &INK, HPos::Center, VPos::Bottom),
                (px, py - 3),
            )?;
            last_label = Some(k);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------

/// Chart 2: Histogram in vsync intervals (left, log scale: a handful of bad frames
/// stay visible next to thousands of good ones) and the CDF of frame cost
/// (right, log ms: the fast bulk and the slowest frame on one axis) with
/// P50/P90/P99 marked.
pub fn distribution(root: &Area, h: &Heading, d: &Distribution, interval_ns: i64) -> DResult {
    let total: i64 = d.buckets.iter().map(|b| b.frames).sum();
    let subtitle = format!(
        "{total} frames · frame cost = vsync → end of doFrame · P50 {} · P90 {} · P99 {} · max {}",
        fmt_opt_ms(d.p50),
        fmt_opt_ms(d.p90),
        fmt_opt_ms(d.p99),
        fmt_opt_ms(d.max)
    );
    let mut legend = level_legend("histogram bars by drop level:");
    legend.push(item("CDF", Swatch::Line(FPS_LINE)));
    legend.push(item(
        format!("1 interval ({})", fmt_ms(interval_ns)),
        Swatch::Line(BUDGET_1X),
    ));
    let plot = header(root, &h.title("Frame cost distribution"), &subtitle, &[legend])?;
    let (w, _) = plot.dim_in_pixel();
    let (left, right) = plot.split_horizontally((w as f64 * 0.47) as i32);

    // Histogram.
    let nb = d.buckets.len();
    let top = d.buckets.iter().map(|b| b.frames).max().unwrap_or(1).max(1) as f64;
    let mut hist = ChartBuilder::on(&left)
        .margin_left(16)
        .margin_right(24)
        .margin_top(16)
        .margin_bottom(12)
        .x_label_area_size(62)
        .y_label_area_size(84)
        .build_cartesian_2d(-0.6f64..(nb as f64 - 0.4), (0.5f64..top * 2.5).log_scale())?;
    let labels: Vec<String> = d.buckets.iter().map(|b| b.label.clone()).collect();
    let xf = |v: &f64| {
        let k = v.round();
        if (v - k).abs() < 1e-6 && k >= 0.0 {
            labels.get(k as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let yf = |v: &f64| {
        if *v >= 1.0 {
            format!("{v:.0}")
        } else {
            String::new()
        }
    };
    mesh_style(&mut hist)
        .disable_x_mesh()
        .x_labels(nb + 1)
        .y_labels(8)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc("vsync intervals the frame took (dropped frames + 1)")
        .y_desc("frames (log scale)")
        .draw()?;
    hist.draw_series(
        d.buckets
            .iter()
            .enumerate()
            .filter(|(_, b)| b.frames > 0)
            .map(|(k, b)| {
                let level = DropLevel::from_dropped(b.intervals - 1).index();
                Rectangle::new(
                    [(k as f64 - 0.38, 0.5), (k as f64 + 0.38, b.frames as f64)],
                    LEVEL_COLORS[level].filled(),
                )
            }),
    )?;
    for (k, b) in d.buckets.iter().enumerate() {
        let (px, py) = hist.backend_coord(&(k as f64, (b.frames as f64).max(0.5)));
        root.draw_text(
            &b.frames.to_string(),
            &anchored(NOTE_PX, &INK, HPos::Center, VPos::Bottom),
            (px, py - 4),
        )?;
    }

    // CDF on a log ms axis.
    let i_ms = ms(interval_ns);
    let cost_min = d.cdf.first().map(|p| p.0).unwrap_or(i_ms);
    let cost_max = d.cdf.last().map(|p| p.0).unwrap_or(i_ms);
    let lo = (cost_min.min(i_ms) * 0.7).max(0.1);
    let hi = cost_max.max(2.0 * i_ms) * 1.3;
    let mut cdf = ChartBuilder::on(&right)
        .margin_left(16)
        .margin_right(36)
        .margin_top(16)
        .margin_bottom(12)
        .x_label_area_size(62)
        .y_label_area_size(84)
        .build_cartesian_2d((lo..hi).log_scale(), 0f64..100.0)?;
    let xfm = |v: &f64| fmt_ms_tick(*v);
    let yfp = |v: &f64| format!("{v:.0}%");
    mesh_style(&mut cdf)
        .x_labels(12)
        .y_labels(11)
        .x_label_formatter(&xfm)
        .y_label_formatter(&yfp)
        .x_desc("frame cost (ms, log scale)")
        .y_desc("frames at or below (%)")
        .draw()?;
    cdf.draw_series(std::iter::once(PathElement::new(
        vec![(i_ms, 0.0), (i_ms, 100.0)],
        BUDGET_1X.stroke_width(2),
    )))?;
    let marks = [
        ("P50", d.p50, RGBColor(90, 90, 90)),
        ("P90", d.p90, LEVEL_COLORS[2]),
        ("P99", d.p99, LEVEL_COLORS[3]),
    ];
    for (_, v, c) in &marks {
        if let Some(v) = v {
            let x = ms(*v).clamp(lo, hi);
            cdf.draw_series(std::iter::once(DashedPathElement::new(
                vec![(x, 0.0), (x, 100.0)],
                8,
                5,
                c.stroke_width(2),
            )))?;
        }
    }
    let mut steps = vec![(lo, 0.0)];
    let mut prev = 0.0;
    for &(c, f) in &d.cdf {
        let c = c.clamp(lo, hi);
        steps.push((c, prev * 100.0));
        steps.push((c, f * 100.0));
        prev = f;
    }
    steps.push((hi, prev * 100.0));
    cdf.draw_series(LineSeries::new(steps, FPS_LINE.stroke_width(3)))?;
    // Labels last, on a white box, so no line crosses them.
    let right_edge = cdf.backend_coord(&(hi, 0.0)).0;
    for (k, (name, v, c)) in marks.iter().enumerate() {
        let Some(v) = v else { continue };
        let x = ms(*v).clamp(lo, hi);
        let (px, py) = cdf.backend_coord(&(x, 56.0 - 14.0 * k as f64));
        let label = format!("{name} {}", fmt_ms(*v));
        let style = anchored(NOTE_PX + 1, c, HPos::Left, VPos::Center);
        let (tw, _) = root.estimate_text_size(&label, &style)?;
        // Keep the label inside the plot: flip to the left of the line near the right edge.
        let flip = px + 8 + tw as i32 > right_edge;
        let (tx, style, x_lo, x_hi) = if flip {
            (
                px - 6,
                anchored(NOTE_PX + 1, c, HPos::Right, VPos::Center),
                px - 10 - tw as i32,
                px - 3,
            )
        } else {
            (px + 6, style, px + 3, px + 10 + tw as i32)
        };
        root.draw(&Rectangle::new(
            [(x_lo, py - 12), (x_hi, py + 12)],
            WHITE.mix(0.9).filled(),
        ))?;
        root.draw_text(&label, &style, (tx, py))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------

/// Chart 3: Wall-time FPS per 1 s window, refresh rate, idle gaps, janky frames.
pub fn fps(root: &Area, h: &Heading, d: &FpsData, summary_fps: f64, fps_wall: f64) -> DResult {
    let subtitle = format!(
        "fps {} (paced) · fps_wall {} over {:.1} s of wall time · {} janky frames (≥ 1 dropped frame)",
        fmt_fps(summary_fps),
        fmt_fps(fps_wall),
        d.span.1 - d.span.0,
        d.janky.len()
    );
    let legend = vec![
        item("fps_wall: frames in each 1 s window", Swatch::Box(tint(FPS_LINE, 0.35))),
        item(format!("refresh rate {}", fmt_hz(d.refresh_hz)), Swatch::Line(REFRESH)),
        item(
            format!("idle: no frame pending for ≥ {} ms", data::IDLE_GAP_NS / 1_000_000),
            Swatch::Box(tint(IDLE_SHADE, IDLE_ALPHA)),
        ),
    ];
    let mut marks = vec![item("janky frame, by drop level:", Swatch::Caption)];
    marks.extend(
        DropLevel::ALL
            .iter()
            .zip(LEVEL_COLORS)
            .map(|(l, c)| item(l.as_str(), Swatch::Dot(c))),
    );
    let plot = header(root, &h.title("FPS over time"), &subtitle, &[legend, marks])?;

    let x0 = d.windows.first().map(|w| w.0).unwrap_or(d.span.0).min(d.span.0);
    let x1 = d
        .windows
        .last()
        .map(|w| w.1)
        .unwrap_or(d.span.1)
        .max(d.span.1)
        .max(x0 + 1e-3);
    // A little room so a marker at the very start or end is not cut in half.
    let pad = (x1 - x0) * 0.012;
    let (x0, x1) = (x0 - pad, x1 + pad);
    let top_fps = d.windows.iter().map(|w| w.2).fold(d.refresh_hz, f64::max);
    let ymax = (top_fps * 1.16).max(10.0);
    let mut chart = ChartBuilder::on(&plot)
        .margin_left(16)
        .margin_right(36)
        .margin_bottom(12)
        .x_label_area_size(62)
        .y_label_area_size(84)
        .build_cartesian_2d(x0..x1, 0f64..ymax)?;
    let xf = |v: &f64| fmt_secs_tick(*v, x1 - x0);
    let yf = |v: &f64| format!("{v:.0}");
    mesh_style(&mut chart)
        .x_labels(14)
        .y_labels(10)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc("time since the trace start (s)")
        .y_desc("frames per second")
        .draw()?;
    chart.draw_series(
        d.windows
            .iter()
            .map(|&(a, b, f)| Rectangle::new([(a, 0.0), (b, f)], tint(FPS_LINE, 0.35).filled())),
    )?;
    // Idle on top of the fill, translucent, so it reads over the whole height.
    chart.draw_series(d.idle.iter().map(|&(a, b)| {
        Rectangle::new(
            [(a.max(x0), 0.0), (b.min(x1), ymax)],
            IDLE_SHADE.mix(IDLE_ALPHA).filled(),
        )
    }))?;
    chart.draw_series(LineSeries::new(
        d.windows.iter().flat_map(|&(a, b, f)| [(a, f), (b, f)]),
        FPS_LINE.stroke_width(3),
    ))?;
    chart.draw_series(DashedLineSeries::new(
        vec![(x0, d.refresh_hz), (x1, d.refresh_hz)],
        12,
        6,
        REFRESH.stroke_width(2),
    ))?;
    let band = d.refresh_hz + (ymax - d.refresh_hz) * 0.5;
    let mut janky: Vec<&(f64, DropLevel, i64)> = d.janky.iter().collect();
    janky.sort_by_key(|j| j.1);
    chart.draw_series(janky.iter().map(|&&(t, level, _)| {
        Circle::new(
            (t, band),
            5 + level.index() as u32,
            LEVEL_COLORS[level.index()].mix(0.9).filled(),
        )
    }))?;
    Ok(())
}

// ---------------------------------------------------------------------------

/// Rows of horizontal bars: per group, one bar per drop level.
fn level_panel(root: &Area, area: &Area, groups: &[LevelGroup], sums: bool, names: bool, what: &str) -> DResult {
    let g = groups.len();
    let values = |gr: &LevelGroup| if sums { gr.sums } else { gr.counts };
    let vmax = groups.iter().flat_map(values).max().unwrap_or(0).max(1) as f64;
    let mut chart = ChartBuilder::on(area)
        .margin_left(16)
        .margin_right(30)
        .margin_bottom(12)
        .x_label_area_size(62)
        .y_label_area_size(if names { 340 } else { 12 })
        .build_cartesian_2d(0f64..vmax * 1.2, 0f64..g as f64)?;
    let xf = |v: &f64| format!("{v:.0}");
    let yf = |_: &f64| String::new();
    mesh_style(&mut chart)
        .disable_y_mesh()
        .x_labels(8)
        .y_labels(0)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc(what)
        .draw()?;
    let bar = 0.84 / 5.0;
    for (gi, gr) in groups.iter().enumerate() {
        let top = (g - gi) as f64 - 0.08;
        let vals = values(gr);
        chart.draw_series(vals.iter().enumerate().map(|(k, &v)| {
            let y1 = top - k as f64 * bar;
            Rectangle::new([(0.0, y1 - bar * 0.86), (v as f64, y1)], LEVEL_COLORS[k].filled())
        }))?;
        for (k, &v) in vals.iter().enumerate() {
            let yc = top - (k as f64 + 0.43) * bar;
            let (px, py) = chart.backend_coord(&(v as f64, yc));
            let color = if v == 0 { MUTED } else { INK };
            root.draw_text(
                &v.to_string(),
                &anchored(NOTE_PX, &color, HPos::Left, VPos::Center),
                (px + 5, py),
            )?;
        }
        if gi > 0 {
            let y = (g - gi) as f64;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(0.0, y), (vmax * 1.2, y)],
                GRID.stroke_width(1),
            )))?;
        }
        if names {
            let (px, py) = chart.backend_coord(&(0.0, (g - gi) as f64 - 0.5));
            let style = anchored(TICK_PX, &INK, HPos::Right, VPos::Center);
            root.draw_text(&shorten(&gr.name, 34), &style, (px - 12, py - 10))?;
            root.draw_text(
                &format!("{} frames", gr.frames),
                &anchored(NOTE_PX, &MUTED, HPos::Right, VPos::Center),
                (px - 12, py + 12),
            )?;
        }
    }
    Ok(())
}

/// Height of a drop-level chart for `groups` rows.
pub fn levels_height(groups: usize) -> u32 {
    (250 + 125 * groups as u32).max(560)
}

/// Chart 4: Frames and dropped frames per drop level, per group (app and scenes, or apps).
pub fn drop_levels(root: &Area, title: &str, groups: &[LevelGroup]) -> DResult {
    let subtitle =
        "Matrix levels by the frame's dropped frames d: BEST < 3 · NORMAL 3–8 · MIDDLE 9–23 · HIGH 24–41 · FROZEN ≥ 42";
    let plot = header(root, title, subtitle, &[level_legend("bars:")])?;
    let (w, _) = plot.dim_in_pixel();
    let (left, right) = plot.split_horizontally((w as f64 * 0.58) as i32);
    level_panel(root, &left, groups, false, true, "frames per level")?;
    level_panel(root, &right, groups, true, false, "dropped frames per level (dropSum)")?;
    Ok(())
}

// ---------------------------------------------------------------------------

/// Height of the janky-frames chart for `rows` rows.
pub fn janky_height(rows: usize) -> u32 {
    (260 + 78 * rows as u32).max(520)
}

/// Chart 5: The worst janky frames: phase breakdown and why.
pub fn janky(root: &Area, h: &Heading, d: &JankyData) -> DResult {
    let r = d.rows.len();
    let subtitle = format!(
        "the {r} worst of {} janky frames (≥ 1 dropped frame), worst first · cost = vsync → doFrame end; RenderThread drawn after it · below each bar: why",
        d.janky_frames
    );
    let segs: Vec<LegendItem> = SEGMENTS
        .iter()
        .zip(SEGMENT_COLORS)
        .map(|(s, c)| item(*s, Swatch::Box(c)))
        .collect();
    let interval = d.rows.iter().map(|x| x.frame.interval_ns).min().unwrap_or(0);
    let budget = vec![
        item(
            format!("1× frame interval ({})", fmt_ms(interval)),
            Swatch::Line(BUDGET_1X),
        ),
        item(format!("2× ({})", fmt_ms(2 * interval)), Swatch::Line(BUDGET_2X)),
    ];
    let plot = header(root, &h.title("Janky frames and why"), &subtitle, &[segs, budget])?;
    let xmax = d
        .rows
        .iter()
        .map(|x| ms(x.frame.total_ns()))
        .fold(ms(2 * interval), f64::max)
        * 1.12;
    let mut chart = ChartBuilder::on(&plot)
        .margin_left(16)
        .margin_right(36)
        .margin_bottom(12)
        .x_label_area_size(62)
        .y_label_area_size(190)
        .build_cartesian_2d(0f64..xmax, 0f64..r.max(1) as f64)?;
    let xf = |v: &f64| fmt_ms_tick(*v);
    let yf = |_: &f64| String::new();
    mesh_style(&mut chart)
        .disable_y_mesh()
        .x_labels(12)
        .y_labels(0)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc("ms from the frame's vsync")
        .draw()?;
    let line = |m: i64| {
        let x = ms(m * interval);
        vec![(x, 0.0), (x, r as f64)]
    };
    chart.draw_series(std::iter::once(PathElement::new(line(1), BUDGET_1X.stroke_width(2))))?;
    chart.draw_series(std::iter::once(DashedPathElement::new(
        line(2),
        10,
        6,
        BUDGET_2X.stroke_width(2),
    )))?;
    let right_edge = chart.backend_coord(&(xmax, 0.0)).0;
    for (i, row) in d.rows.iter().enumerate() {
        let top = (r - i) as f64 - 0.1;
        let bottom = top - 0.42;
        let f: &Frame = &row.frame;
        let mut x = 0.0;
        let mut rects = Vec::new();
        for (s, &v) in f.segments.iter().enumerate() {
            if v > 0 {
                rects.push(Rectangle::new(
                    [(x, bottom), (x + ms(v), top)],
                    SEGMENT_COLORS[s].filled(),
                ));
                x += ms(v);
            }
        }
        chart.draw_series(rects)?;
        let (px, py) = chart.backend_coord(&(x, (top + bottom) / 2.0));
        let total = format!(
            "cost {} · {} dropped ({})",
            fmt_ms(f.frame_cost_ns),
            f.dropped_frames,
            f.level
        );
        let style = anchored(NOTE_PX, &INK, HPos::Left, VPos::Center);
        let (tw, th) = root.estimate_text_size(&total, &style)?;
        if px + 8 + tw as i32 > right_edge {
            // No room after the bar: inside it, right-aligned, on a white box.
            root.draw(&Rectangle::new(
                [
                    (px - tw as i32 - 12, py - th as i32 / 2 - 3),
                    (px - 4, py + th as i32 / 2 + 3),
                ],
                WHITE.mix(0.9).filled(),
            ))?;
            root.draw_text(
                &total,
                &anchored(NOTE_PX, &INK, HPos::Right, VPos::Center),
                (px - 8, py),
            )?;
        } else {
            root.draw_text(&total, &style, (px + 6, py))?;
        }
        let why = why_line(row);
        let (qx, qy) = chart.backend_coord(&(0.0, bottom - 0.22));
        let why_style = anchored(NOTE_PX + 1, &INK, HPos::Left, VPos::Center);
        let (ww, wh) = root.estimate_text_size(&why, &why_style)?;
        root.draw(&Rectangle::new(
            [
                (qx + 1, qy - wh as i32 / 2 - 2),
                (qx + 8 + ww as i32, qy + wh as i32 / 2 + 2),
            ],
            WHITE.mix(0.9).filled(),
        ))?;
        root.draw_text(&why, &why_style, (qx + 4, qy))?;
        // Row label: rank and time, with the level colour.
        let (lx, ly) = chart.backend_coord(&(0.0, (top + bottom) / 2.0));
        root.draw(&Rectangle::new(
            [(lx - 184, ly - 9), (lx - 170, ly + 9)],
            LEVEL_COLORS[f.level.index()].filled(),
        ))?;
        root.draw_text(
            &format!("#{} at {:.3} s", i + 1, row.t),
            &anchored(TICK_PX, &INK, HPos::Left, VPos::Center),
            (lx - 164, ly),
        )?;
        if let Some(id) = f.frame_id {
            root.draw_text(
                &format!("vsync {id}"),
                &anchored(NOTE_PX, &MUTED, HPos::Left, VPos::Center),
                (lx - 164, ly + 20),
            )?;
        }
        if i > 0 {
            let y = (r - i) as f64;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(0.0, y), (xmax, y)],
                GRID.stroke_width(1),
            )))?;
        }
    }
    Ok(())
}

/// "traversal 45.0 ms · longest slice: inflate 40.0 ms · App Deadline Missed".
pub fn why_line(row: &data::JankyRow) -> String {
    let mut parts = Vec::new();
    match (&row.dominant_phase, row.dominant_ns) {
        (Some(p), Some(ns)) => parts.push(format!("dominant: {} {}", part_words(*p), fmt_ms(ns))),
        _ => parts.push("no why recorded".to_string()),
    }
    if let (Some(s), Some(ns)) = (&row.longest_slice, row.longest_ns) {
        parts.push(format!("longest slice: {} {}", shorten_head(s, 64), fmt_ms(ns)));
    }
    if let Some(j) = &row.jank_type {
        if j != "None" {
            parts.push(format!("FrameTimeline: {j}"));
        }
    }
    parts.join(" · ")
}

// ---------------------------------------------------------------------------

/// Chart 6: FrameTimeline present intervals (top) and overrun (bottom).
pub fn present(root: &Area, h: &Heading, d: &PresentData) -> DResult {
    let late = d.points.iter().filter(|p| p.overrun_ns.is_some_and(|o| o > 0)).count();
    let subtitle = format!(
        "{} frames with a FrameTimeline surface frame · {late} finished after their deadline (overrun > 0) · interval = present − previous present of back-to-back frames",
        d.points.len()
    );
    let mut legend = vec![item("present type:", Swatch::Caption)];
    legend.extend(
        data::PRESENT_CLASSES
            .iter()
            .zip(PRESENT_COLORS)
            .map(|(n, c)| item(*n, Swatch::Dot(c))),
    );
    legend.push(item(
        format!("1× frame interval ({})", fmt_ms(d.interval_ns)),
        Swatch::Line(BUDGET_1X),
    ));
    legend.push(item("2×", Swatch::Line(BUDGET_2X)));
    let plot = header(
        root,
        &h.title("FrameTimeline present intervals and overrun"),
        &subtitle,
        &[legend],
    )?;
    let (_, ph) = plot.dim_in_pixel();
    let (top, bottom) = plot.split_vertically((ph as f64 * 0.52) as i32);

    let x0 = d.points.first().map(|p| p.t).unwrap_or(0.0);
    let x1 = d.points.last().map(|p| p.t).unwrap_or(1.0).max(x0 + 1e-3);
    let pad = (x1 - x0) * 0.01;
    let (x0, x1) = (x0 - pad, x1 + pad);
    let i_ms = ms(d.interval_ns);
    let xf = |v: &f64| fmt_secs_tick(*v, x1 - x0);

    let intervals: Vec<f64> = d.points.iter().filter_map(|p| p.interval_ns.map(ms)).collect();
    let ymax = data::y_cap(&intervals, i_ms);
    let mut c1 = ChartBuilder::on(&top)
        .margin_left(16)
        .margin_right(36)
        .margin_bottom(6)
        .x_label_area_size(40)
        .y_label_area_size(84)
        .build_cartesian_2d(x0..x1, 0f64..ymax)?;
    let yf = |v: &f64| fmt_ms_tick(*v);
    mesh_style(&mut c1)
        .x_labels(14)
        .y_labels(7)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .y_desc("present interval (ms)")
        .draw()?;
    c1.draw_series(std::iter::once(PathElement::new(
        vec![(x0, i_ms), (x1, i_ms)],
        BUDGET_1X.stroke_width(2),
    )))?;
    c1.draw_series(DashedLineSeries::new(
        vec![(x0, 2.0 * i_ms), (x1, 2.0 * i_ms)],
        10,
        6,
        BUDGET_2X.stroke_width(2),
    ))?;
    let capped = |v: f64, cap: f64| v.min(cap * 0.985);
    c1.draw_series(d.points.iter().filter_map(|p| {
        let v = ms(p.interval_ns?);
        Some(Circle::new((p.t, capped(v, ymax)), 4, PRESENT_COLORS[p.class].filled()))
    }))?;
    c1.draw_series(d.points.iter().filter_map(|p| {
        let v = ms(p.interval_ns?);
        (v > ymax).then(|| TriangleMarker::new((p.t, ymax * 0.985), 7, PRESENT_COLORS[p.class].filled()))
    }))?;

    let over: Vec<f64> = d.points.iter().filter_map(|p| p.overrun_ns.map(ms)).collect();
    let lo = over.iter().cloned().fold(-0.5 * i_ms, f64::min) * 1.1;
    let hi = data::y_cap(&over.iter().map(|v| v.max(0.0)).collect::<Vec<_>>(), i_ms);
    let mut c2 = ChartBuilder::on(&bottom)
        .margin_left(16)
        .margin_right(36)
        .margin_bottom(12)
        .x_label_area_size(62)
        .y_label_area_size(84)
        .build_cartesian_2d(x0..x1, lo..hi)?;
    mesh_style(&mut c2)
        .x_labels(14)
        .y_labels(7)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc("present time since the trace start (s)")
        .y_desc("overrun: end − deadline (ms)")
        .draw()?;
    c2.draw_series(std::iter::once(PathElement::new(
        vec![(x0, 0.0), (x1, 0.0)],
        INK.stroke_width(1),
    )))?;
    c2.draw_series(d.points.iter().filter_map(|p| {
        let v = ms(p.overrun_ns?);
        Some(Circle::new((p.t, capped(v, hi)), 4, PRESENT_COLORS[p.class].filled()))
    }))?;
    c2.draw_series(d.points.iter().filter_map(|p| {
        let v = ms(p.overrun_ns?);
        (v > hi).then(|| TriangleMarker::new((p.t, hi * 0.985), 7, PRESENT_COLORS[p.class].filled()))
    }))?;
    Ok(())
}
