//! Chart 3, FPS over time: wall-time FPS per 1 s window against the refresh
//! rate, idle gaps shaded, janky frames as dots coloured by drop level.

use plotters::prelude::*;

use super::{time_axes, Heading, Plot};
use crate::frames::DropLevel;
use crate::report::charts::data::{self, FpsData};
use crate::report::charts::style::*;
use crate::report::format::fmt_hz;

/// Wall-time FPS per 1 s window, refresh rate, idle gaps, janky frames.
pub(crate) fn fps(root: &Area, h: &Heading, d: &FpsData) -> DResult {
    let plot = header(root, &h.title("FPS over time"), &d.caption, &legend(d))?;

    let x0 = d.windows.first().map(|w| w.0).unwrap_or(d.span.0).min(d.span.0);
    let x1 = d.windows.last().map(|w| w.1).unwrap_or(d.span.1).max(d.span.1).max(x0 + 1e-3);
    // A little room so a marker at the very start or end is not cut in half.
    let pad = (x1 - x0) * 0.012;
    let (x0, x1) = (x0 - pad, x1 + pad);
    let top_fps = d.windows.iter().map(|w| w.2).fold(d.refresh_hz, f64::max);
    let ymax = (top_fps * 1.16).max(10.0);
    let mut chart = time_axes(&plot, (x0, x1), (ymax, 10), ("time since the trace start (s)", "frames per second"))?;
    series(&mut chart, d, x0, x1, ymax)?;
    janky_marks(&mut chart, d, ymax)
}

/// Two rows: the series, then the janky-frame dots by level.
fn legend(d: &FpsData) -> [Vec<LegendItem>; 2] {
    let series = vec![
        item("fps_wall: frames in each 1 s window", Swatch::Box(tint(FPS_LINE, 0.35))),
        item(format!("refresh rate {}", fmt_hz(d.refresh_hz)), Swatch::Line(REFRESH)),
        item(
            format!("idle: no frame pending for ≥ {} ms", data::IDLE_GAP_NS / 1_000_000),
            Swatch::Box(tint(IDLE_SHADE, IDLE_ALPHA)),
        ),
    ];
    let mut marks = vec![item("janky frame, by drop level:", Swatch::Caption)];
    marks.extend(DropLevel::ALL.iter().zip(LEVEL_COLORS).map(|(l, c)| item(l.as_str(), Swatch::Dot(c))));
    [series, marks]
}

/// The per-window fill, idle shading over it, the FPS line and the refresh rate.
fn series(chart: &mut Plot, d: &FpsData, x0: f64, x1: f64, ymax: f64) -> DResult {
    chart.draw_series(
        d.windows.iter().map(|&(a, b, f)| Rectangle::new([(a, 0.0), (b, f)], tint(FPS_LINE, 0.35).filled())),
    )?;
    // Idle on top of the fill, translucent, so it reads over the whole height.
    chart.draw_series(
        d.idle
            .iter()
            .map(|&(a, b)| Rectangle::new([(a.max(x0), 0.0), (b.min(x1), ymax)], IDLE_SHADE.mix(IDLE_ALPHA).filled())),
    )?;
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
    Ok(())
}

/// A dot per janky frame in the band above the refresh rate, worse levels
/// larger and drawn last.
fn janky_marks(chart: &mut Plot, d: &FpsData, ymax: f64) -> DResult {
    let band = d.refresh_hz + (ymax - d.refresh_hz) * 0.5;
    let mut janky: Vec<&(f64, DropLevel, i64)> = d.janky.iter().collect();
    janky.sort_by_key(|j| j.1);
    chart.draw_series(janky.iter().map(|&&(t, level, _)| {
        Circle::new((t, band), 5 + level.index() as u32, LEVEL_COLORS[level.index()].mix(0.9).filled())
    }))?;
    Ok(())
}
