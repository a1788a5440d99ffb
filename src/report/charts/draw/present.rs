//! Chart 6, FrameTimeline present intervals (top) and overrun (bottom): one
//! dot per frame with a FrameTimeline match, coloured by present type;
//! values beyond the scale sit at its top as triangles.

use plotters::prelude::*;

use super::{mesh_style, plot_frame, Heading, Plot, Ticks};
use crate::report::charts::data::{self, PresentData, PresentPoint};
use crate::report::charts::style::*;
use crate::report::format::{fmt_ms, ns_to_ms as ms};

/// Present intervals above, overrun below, on one time axis.
pub(crate) fn present(root: &Area, h: &Heading, d: &PresentData) -> DResult {
    let late = d.points.iter().filter(|p| p.overrun_ns.is_some_and(|o| o > 0)).count();
    let subtitle = format!(
        "{} frames with a FrameTimeline surface frame · {late} finished after their deadline (overrun > 0) · interval = present − previous present of back-to-back frames",
        d.points.len()
    );
    let mut legend = vec![item("present type:", Swatch::Caption)];
    legend.extend(data::PRESENT_CLASSES.iter().zip(PRESENT_COLORS).map(|(n, c)| item(*n, Swatch::Dot(c))));
    legend.push(item(format!("1× frame interval ({})", fmt_ms(d.interval_ns)), Swatch::Line(BUDGET_1X)));
    legend.push(item("2×", Swatch::Line(BUDGET_2X)));
    let plot = header(root, &h.title("FrameTimeline present intervals and overrun"), &subtitle, &[legend])?;
    let (_, ph) = plot.dim_in_pixel();
    let (top, bottom) = plot.split_vertically((ph as f64 * 0.52) as i32);

    let x0 = d.points.first().map(|p| p.t).unwrap_or(0.0);
    let x1 = d.points.last().map(|p| p.t).unwrap_or(1.0).max(x0 + 1e-3);
    let pad = (x1 - x0) * 0.01;
    let (x0, x1) = (x0 - pad, x1 + pad);
    intervals_panel(&top, d, x0, x1)?;
    overrun_panel(&bottom, d, x0, x1)
}

/// Present intervals with the 1× and 2× frame-interval lines.
fn intervals_panel(area: &Area, d: &PresentData, x0: f64, x1: f64) -> DResult {
    let i_ms = ms(d.interval_ns);
    let intervals: Vec<f64> = d.points.iter().filter_map(|p| p.interval_ns.map(ms)).collect();
    let ymax = data::y_cap(&intervals, i_ms);
    let mut chart = ChartBuilder::on(area)
        .margin_left(16)
        .margin_right(36)
        .margin_bottom(6)
        .x_label_area_size(40)
        .y_label_area_size(84)
        .build_cartesian_2d(x0..x1, 0f64..ymax)?;
    let (xt, yt) = (Ticks::new(x0, x1, 14), Ticks::new(0.0, ymax, 7));
    let xf = |v: &f64| xt.label(*v);
    let yf = |v: &f64| yt.label(*v);
    mesh_style(&mut chart)
        .x_labels(xt.n)
        .y_labels(yt.n)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .y_desc("present interval (ms)")
        .draw()?;
    chart.draw_series(std::iter::once(PathElement::new(vec![(x0, i_ms), (x1, i_ms)], BUDGET_1X.stroke_width(2))))?;
    chart.draw_series(DashedLineSeries::new(
        vec![(x0, 2.0 * i_ms), (x1, 2.0 * i_ms)],
        10,
        6,
        BUDGET_2X.stroke_width(2),
    ))?;
    points(&mut chart, d, |p| p.interval_ns, ymax)
}

/// Overrun (end − deadline) around a zero line.
fn overrun_panel(area: &Area, d: &PresentData, x0: f64, x1: f64) -> DResult {
    let i_ms = ms(d.interval_ns);
    let over: Vec<f64> = d.points.iter().filter_map(|p| p.overrun_ns.map(ms)).collect();
    let lo = over.iter().cloned().fold(-0.5 * i_ms, f64::min) * 1.1;
    let hi = data::y_cap(&over.iter().map(|v| v.max(0.0)).collect::<Vec<_>>(), i_ms);
    let mut chart = plot_frame(area).build_cartesian_2d(x0..x1, lo..hi)?;
    let (xt, yt) = (Ticks::new(x0, x1, 14), Ticks::new(lo, hi, 7));
    let xf = |v: &f64| xt.label(*v);
    let yf = |v: &f64| yt.label(*v);
    mesh_style(&mut chart)
        .x_labels(xt.n)
        .y_labels(yt.n)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc("present time since the trace start (s)")
        .y_desc("overrun: end − deadline (ms)")
        .draw()?;
    chart.draw_series(std::iter::once(PathElement::new(vec![(x0, 0.0), (x1, 0.0)], INK.stroke_width(1))))?;
    points(&mut chart, d, |p| p.overrun_ns, hi)
}

/// A dot per point with a `value` (ns), held under `cap` (ms); a triangle
/// at the top for the values above it.
fn points(chart: &mut Plot, d: &PresentData, value: impl Fn(&PresentPoint) -> Option<i64>, cap: f64) -> DResult {
    chart.draw_series(d.points.iter().filter_map(|p| {
        let v = ms(value(p)?);
        Some(Circle::new((p.t, v.min(cap * 0.985)), 4, PRESENT_COLORS[p.class].filled()))
    }))?;
    chart.draw_series(d.points.iter().filter_map(|p| {
        let v = ms(value(p)?);
        (v > cap).then(|| TriangleMarker::new((p.t, cap * 0.985), 7, PRESENT_COLORS[p.class].filled()))
    }))?;
    Ok(())
}
