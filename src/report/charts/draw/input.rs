//! The input latency chart (docs/input.md): one dot per input event the app
//! received, at its read, for its end-to-end latency (read to present) and
//! its handling (receipt to FINISHED); values beyond the scale sit at its
//! top as triangles.

use plotters::prelude::*;

use super::{time_axes, Heading, Plot};
use crate::report::charts::data::{self, InputData, InputPoint};
use crate::report::charts::style::*;
use crate::report::format::{fmt_opt_ms, ns_to_ms as ms};

/// End to end and handling, per event, over time.
pub(crate) fn input(root: &Area, h: &Heading, d: &InputData) -> DResult {
    let s = &d.summary;
    let subtitle = format!(
        "{} events · end to end (read → present) p50 {}, p90 {} · handling (receipt → FINISHED) p50 {}, p90 {}",
        d.points.len(),
        fmt_opt_ms(s.end_to_end_ns.p50),
        fmt_opt_ms(s.end_to_end_ns.p90),
        fmt_opt_ms(s.handling_ns.p50),
        fmt_opt_ms(s.handling_ns.p90),
    );
    let legend = vec![item("end to end", Swatch::Dot(FPS_LINE)), item("handling", Swatch::Dot(BUDGET_2X))];
    let plot = header(root, &h.title("Input latency"), &subtitle, &[legend])?;
    let x0 = d.points.iter().map(|p| p.t).fold(f64::INFINITY, f64::min);
    let x1 = d.points.iter().map(|p| p.t).fold(f64::NEG_INFINITY, f64::max).max(x0 + 1e-3);
    let pad = (x1 - x0) * 0.01;
    let (x0, x1) = (x0 - pad, x1 + pad);
    let values: Vec<f64> =
        d.points.iter().flat_map(|p| [p.end_to_end_ns.map(ms), Some(ms(p.handling_ns))]).flatten().collect();
    let ymax = data::y_cap(&values, ms(d.interval_ns));
    let descs = ("read by InputReader, since the trace start (s)", "latency (ms)");
    let mut chart = time_axes(&plot, (x0, x1), (ymax, 7), descs)?;
    dots(&mut chart, &d.points, |p| Some(p.handling_ns), BUDGET_2X, ymax)?;
    dots(&mut chart, &d.points, |p| p.end_to_end_ns, FPS_LINE, ymax)
}

/// A dot per point with a `value` (ns), held under `cap` (ms); a triangle at
/// the top for the values above it.
fn dots(
    chart: &mut Plot,
    points: &[InputPoint],
    value: impl Fn(&InputPoint) -> Option<i64>,
    color: RGBColor,
    cap: f64,
) -> DResult {
    let top = cap * 0.985;
    chart.draw_series(points.iter().filter_map(|p| {
        let v = ms(value(p)?);
        (v <= cap).then(|| Circle::new((p.t, v), 4, color.filled()))
    }))?;
    chart.draw_series(points.iter().filter_map(|p| {
        let v = ms(value(p)?);
        (v > cap).then(|| TriangleMarker::new((p.t, top), 7, color.filled()))
    }))?;
    Ok(())
}
