//! Chart 2, the frame cost distribution: a histogram in vsync intervals
//! (left, log scale: a handful of bad frames stay visible next to thousands
//! of good ones) and the CDF of frame cost (right, log ms: the fast bulk and
//! the slowest frame on one axis) with P50/P90/P99 marked.

use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::{level_legend, mesh_style, plot_frame, Heading, LogTicks, Plot};
use crate::frames::DropLevel;
use crate::report::charts::data::Distribution;
use crate::report::charts::style::*;
use crate::report::format::{fmt_ms, fmt_opt_ms, ns_to_ms as ms};

/// The CDF's axes: log ms across, % of frames up.
type CdfCoord = Cartesian2d<LogCoord<f64>, RangedCoordf64>;

/// A percentile marked on the CDF: name, value (ns), colour.
type Mark = (&'static str, Option<i64>, RGBColor);

/// Histogram and CDF side by side.
pub(crate) fn distribution(root: &Area, h: &Heading, d: &Distribution, interval_ns: i64) -> DResult {
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
    legend.push(item(format!("1 interval ({})", fmt_ms(interval_ns)), Swatch::Line(BUDGET_1X)));
    let plot = header(root, &h.title("Frame cost distribution"), &subtitle, &[legend])?;
    let (w, _) = plot.dim_in_pixel();
    let (left, right) = plot.split_horizontally((w as f64 * 0.47) as i32);
    histogram(root, &left, d)?;
    cdf(root, &right, d, interval_ns)
}

/// Frames per interval bucket, coloured by the bucket's drop level, with
/// the count above each bar.
fn histogram(root: &Area, area: &Area, d: &Distribution) -> DResult {
    let nb = d.buckets.len();
    let top = d.buckets.iter().map(|b| b.frames).max().unwrap_or(1).max(1) as f64;
    let mut hist = ChartBuilder::on(area)
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
        // A size smaller: the range buckets (`10–24 25–42`) would touch at the ticks' size.
        .x_label_style(text(NOTE_PX, &INK))
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc("vsync intervals the frame took (dropped frames + 1)")
        .y_desc("frames (log scale)")
        .draw()?;
    hist.draw_series(d.buckets.iter().enumerate().filter(|(_, b)| b.frames > 0).map(|(k, b)| {
        let level = DropLevel::from_dropped(b.intervals - 1).index();
        Rectangle::new([(k as f64 - 0.38, 0.5), (k as f64 + 0.38, b.frames as f64)], LEVEL_COLORS[level].filled())
    }))?;
    for (k, b) in d.buckets.iter().enumerate() {
        let (px, py) = hist.backend_coord(&(k as f64, (b.frames as f64).max(0.5)));
        root.draw_text(&b.frames.to_string(), &anchored(NOTE_PX, &INK, HPos::Center, VPos::Bottom), (px, py - 4))?;
    }
    Ok(())
}

/// The CDF of frame cost on a log ms axis from `lo` to `hi`, the 1-interval
/// line and the percentiles (dashed, labelled last so no line crosses them).
fn cdf(root: &Area, area: &Area, d: &Distribution, interval_ns: i64) -> DResult {
    let i_ms = ms(interval_ns);
    let cost_min = d.cdf.first().map(|p| p.0).unwrap_or(i_ms);
    let cost_max = d.cdf.last().map(|p| p.0).unwrap_or(i_ms);
    let lo = (cost_min.min(i_ms) * 0.7).max(0.1);
    let hi = cost_max.max(2.0 * i_ms) * 1.3;
    let mut chart = cdf_axes(area, lo, hi)?;
    chart
        .draw_series(std::iter::once(PathElement::new(vec![(i_ms, 0.0), (i_ms, 100.0)], BUDGET_1X.stroke_width(2))))?;
    let marks: [Mark; 3] =
        [("P50", d.p50, RGBColor(90, 90, 90)), ("P90", d.p90, LEVEL_COLORS[2]), ("P99", d.p99, LEVEL_COLORS[3])];
    for (_, v, c) in &marks {
        if let Some(v) = v {
            let x = ms(*v).clamp(lo, hi);
            chart.draw_series(std::iter::once(DashedPathElement::new(
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
    chart.draw_series(LineSeries::new(steps, FPS_LINE.stroke_width(3)))?;
    mark_labels(root, &chart, &marks, lo, hi)
}

fn cdf_axes<'a, 'b>(area: &'a Area<'b>, lo: f64, hi: f64) -> DResult<Plot<'a, 'b, CdfCoord>> {
    let mut chart = plot_frame(area).margin_top(16).build_cartesian_2d((lo..hi).log_scale(), 0f64..100.0)?;
    let ticks = LogTicks::new(lo, hi);
    let xf = |v: &f64| ticks.label(*v);
    let yf = |v: &f64| format!("{v:.0}%");
    mesh_style(&mut chart)
        .x_labels(12)
        .y_labels(11)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc("frame cost (ms, log scale)")
        .y_desc("frames at or below (%)")
        .draw()?;
    Ok(chart)
}

/// `P90 24.0 ms` beside each percentile line on a white box, flipped to the
/// left of the line near the right edge so it stays inside the plot.
fn mark_labels(root: &Area, chart: &Plot<CdfCoord>, marks: &[Mark], lo: f64, hi: f64) -> DResult {
    let right_edge = chart.backend_coord(&(hi, 0.0)).0;
    for (k, (name, v, c)) in marks.iter().enumerate() {
        let Some(v) = v else { continue };
        let x = ms(*v).clamp(lo, hi);
        let (px, py) = chart.backend_coord(&(x, 56.0 - 14.0 * k as f64));
        let label = format!("{name} {}", fmt_ms(*v));
        let (tw, _) = root.estimate_text_size(&label, &text(NOTE_PX + 1, c))?;
        let flip = px + 8 + tw as i32 > right_edge;
        label_on_white(root, &label, NOTE_PX + 1, c, if flip { HPos::Right } else { HPos::Left }, (px, py))?;
    }
    Ok(())
}
