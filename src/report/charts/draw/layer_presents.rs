//! Chart 7, a layer's presents, as PerfDog's FrameTime chart shows a game:
//! one dot per present at its present-to-present interval, coloured by the
//! vsyncs it dropped (drop level), PerfDog's Jank and BigJank ringed, the
//! display's vsync period as the reference line (it steps where the rate
//! changed) and PerfDog's 83.3 ms and 125 ms floors when they are on the
//! scale. Values beyond the scale sit at its top as triangles, with their
//! value.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::{level_legend, time_axes, Heading, Plot};
use crate::report::charts::data::{self, LayerPresentsData, PERFDOG_BIG_JANK_NS, PERFDOG_JANK_NS};
use crate::report::charts::style::*;
use crate::report::format::{fmt_fps, fmt_hz, fmt_ms, fmt_small_pct, ns_to_ms as ms};

/// Layer names run to 200 characters; the subtitle shows this many.
const LAYER_CHARS: usize = 70;

/// Present intervals of one layer over time.
pub(crate) fn layer_presents(root: &Area, h: &Heading, d: &LayerPresentsData) -> DResult {
    let l = &d.layer;
    let subtitle = format!(
        "{} ({}) · {} presents · {} fps at {} · {} dropped vsyncs · PerfDog Jank {} · BigJank {} · Stutter {}",
        crate::report::format::shorten_middle(&l.layer, LAYER_CHARS),
        l.source.as_str(),
        l.presents,
        fmt_fps(l.fps),
        fmt_hz(l.refresh_hz),
        l.dropped_vsyncs,
        l.perfdog.jank,
        l.perfdog.big_jank,
        fmt_small_pct(100.0 * l.perfdog.stutter)
    );
    let plot = header(root, &h.title("Presents (present-to-present interval)"), &subtitle, &legend(d))?;

    let x0 = d.points.first().map(|p| p.t).unwrap_or(0.0);
    let x1 = d.points.last().map(|p| p.t).unwrap_or(1.0).max(x0 + 1e-3);
    let pad = (x1 - x0) * 0.01;
    let (x0, x1) = (x0 - pad, x1 + pad);
    let values: Vec<f64> = d.points.iter().map(|p| ms(p.interval_ns)).collect();
    let ymax = data::layer_y_cap(&values, ms(d.vsync_ns));
    let descs = ("present time since the trace start (s)", "present interval (ms)");
    let mut chart = time_axes(&plot, (x0, x1), (ymax, 8), descs)?;
    reference_lines(&mut chart, d, x0, x1, ymax)?;
    points(&mut chart, d, ymax)?;
    clipped_labels(root, &mut chart, d, ymax)
}

/// Two rows: the reference lines, then the dots by level and the rings.
fn legend(d: &LayerPresentsData) -> [Vec<LegendItem>; 2] {
    let lines = vec![
        item(format!("vsync period ({})", fmt_ms(d.vsync_ns)), Swatch::Line(BUDGET_1X)),
        item("PerfDog Jank floor (83.3 ms)", Swatch::Line(MUTED)),
        item("BigJank floor (125 ms)", Swatch::Line(BUDGET_2X)),
        item("ringed: PerfDog Jank (black), BigJank (red)", Swatch::Caption),
    ];
    [lines, level_legend("present, by dropped vsyncs:")]
}

/// The vsync period stepping with the display rate, and PerfDog's floors
/// when the scale reaches them.
fn reference_lines(chart: &mut Plot, d: &LayerPresentsData, x0: f64, x1: f64, ymax: f64) -> DResult {
    let mut steps: Vec<(f64, f64)> = Vec::new();
    for p in &d.points {
        let v = ms(p.vsync_period_ns);
        match steps.last() {
            Some(&(_, last)) if last == v => {}
            Some(&(_, last)) => steps.extend([(p.t, last), (p.t, v)]),
            None => steps.extend([(x0, v), (p.t, v)]),
        }
    }
    if let Some(&(_, last)) = steps.last() {
        steps.push((x1, last));
    }
    chart.draw_series(std::iter::once(PathElement::new(steps, BUDGET_1X.stroke_width(2))))?;
    for (ns, color) in [(PERFDOG_JANK_NS, MUTED), (PERFDOG_BIG_JANK_NS, BUDGET_2X)] {
        let y = ms(ns);
        if y < ymax {
            chart.draw_series(DashedLineSeries::new(vec![(x0, y), (x1, y)], 10, 6, color.stroke_width(2)))?;
        }
    }
    Ok(())
}

/// A dot per present in its level's colour (worse levels drawn last), held
/// under the scale; a triangle at the top for the values above it; a ring
/// around PerfDog's Jank (black) and BigJank (red).
fn points(chart: &mut Plot, d: &LayerPresentsData, ymax: f64) -> DResult {
    let top = ymax * 0.985;
    let mut order: Vec<&data::LayerPoint> = d.points.iter().collect();
    order.sort_by_key(|p| p.level);
    chart.draw_series(order.iter().map(|p| {
        let v = ms(p.interval_ns);
        Circle::new((p.t, v.min(top)), 4, LEVEL_COLORS[p.level.index()].filled())
    }))?;
    chart.draw_series(
        d.points
            .iter()
            .filter(|p| ms(p.interval_ns) > ymax)
            .map(|p| TriangleMarker::new((p.t, top), 7, LEVEL_COLORS[p.level.index()].filled())),
    )?;
    chart.draw_series(d.points.iter().filter(|p| p.perfdog_jank || p.perfdog_big_jank).map(|p| {
        let color = if p.perfdog_big_jank { BUDGET_2X } else { INK };
        Circle::new((p.t, ms(p.interval_ns).min(top)), 10, color.stroke_width(2))
    }))?;
    Ok(())
}

/// The real value of the presents above the scale (labels at least 58 px
/// apart, so a long stall of many clipped presents stays readable).
fn clipped_labels(root: &Area, chart: &mut Plot, d: &LayerPresentsData, ymax: f64) -> DResult {
    let mut last_px: Option<i32> = None;
    for p in d.points.iter().filter(|p| ms(p.interval_ns) > ymax) {
        let (px, py) = chart.backend_coord(&(p.t, ymax * 0.985));
        if last_px.is_none_or(|l| px - l >= 58) {
            root.draw_text(
                &format!("{:.0} ms", ms(p.interval_ns)),
                &anchored(NOTE_PX, &INK, HPos::Center, VPos::Top),
                (px, py + 10),
            )?;
            last_px = Some(px);
        }
    }
    Ok(())
}
