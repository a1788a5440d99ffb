//! Chart 1, the frame timeline: one stacked bar per frame (start jitter, the
//! doFrame phases, RenderThread) with the 1× / 2× budget and a drop-level
//! strip under each bar; bars taller than the scale are cut and labelled.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::{budget_legend, level_legend, mesh_style, plot_frame, segment_legend, Heading, Plot, Ticks};
use crate::report::charts::data::{self, Frame, TimelineData, RENDER};
use crate::report::charts::style::*;
use crate::report::format::ns_to_ms as ms;

/// Where the bars sit: the k-th shown frame at x = `first` + k (its 1-based
/// frame number, so ticks are round numbers), `half` a bar's half width,
/// the y axis from −`strip` (the level strip) to `ymax`.
struct Scale {
    first: f64,
    half: f64,
    strip: f64,
    ymax: f64,
}

/// One stacked bar per frame with the 1× / 2× budget and a drop-level strip.
pub(crate) fn timeline(root: &Area, h: &Heading, d: &TimelineData, origin_ts: i64) -> DResult {
    let n = d.bars.len();
    let interval = data::common_interval(&d.bars);
    let mut segments = segment_legend();
    segments.insert(0, item("bar:", Swatch::Caption));
    let mut row2 = budget_legend(interval, per_frame(&d.bars));
    row2.extend(level_legend("strip under each bar = drop level:"));
    let plot = header(root, &h.title("Frame timeline"), &subtitle(d, origin_ts), &[segments, row2])?;

    let totals: Vec<f64> = d.bars.iter().map(|f| ms(f.total_ns())).collect();
    let ymax = data::y_cap(&totals, ms(interval));
    let s = Scale { first: (d.start + 1) as f64, half: if n > 60 { 0.42 } else { 0.36 }, strip: ymax * 0.07, ymax };
    let mut chart = axes(&plot, n, &s)?;
    bars(&mut chart, &d.bars, &s)?;
    budget_lines(&mut chart, &d.bars, &s)?;
    clipped_labels(root, &plot, &mut chart, &d.bars, &s)
}

/// Which frames are shown, and when.
fn subtitle(d: &TimelineData, origin_ts: i64) -> String {
    let n = d.bars.len();
    let (t0, t1) = match (d.bars.first(), d.bars.last()) {
        (Some(a), Some(b)) => (ms(a.ts - origin_ts) / 1e3, ms(b.ts - origin_ts) / 1e3),
        _ => (0.0, 0.0),
    };
    if d.zoomed {
        format!(
            "frames {}–{} of {} ({:.2}–{:.2} s): the {n}-frame window with the most dropped frames",
            d.start + 1,
            d.start + n,
            d.total_frames,
            t0,
            t1
        )
    } else {
        format!("all {} frames, {:.2}–{:.2} s; bar = vsync → end of the frame's work, RenderThread at its own time on the right", d.total_frames, t0, t1)
    }
}

/// " most often; per frame" when the frames ran at several intervals (the budget lines step).
fn per_frame(frames: &[Frame]) -> &'static str {
    match frames.first() {
        Some(f) if frames.iter().any(|g| g.interval_ns != f.interval_ns) => " most often; per frame",
        _ => "",
    }
}

/// Frame numbers across, ms from the vsync up; at least 24 slots, so a
/// handful of frames are bars, not walls.
fn axes<'a, 'b>(plot: &'a Area<'b>, n: usize, s: &Scale) -> DResult<Plot<'a, 'b>> {
    let first = s.first;
    let mut chart = plot_frame(plot)
        .margin_top(22)
        .build_cartesian_2d(first - 0.6..first + n.max(24) as f64 - 0.4, -s.strip..s.ymax)?;
    let xf = |v: &f64| {
        let k = v.round();
        if (v - k).abs() < 1e-6 && k >= first && k < first + n as f64 {
            format!("{k:.0}")
        } else {
            String::new()
        }
    };
    let yt = Ticks::new(-s.strip, s.ymax, 10);
    let yf = |v: &f64| if *v < 0.0 { String::new() } else { yt.label(*v) };
    mesh_style(&mut chart)
        .disable_x_mesh()
        .x_labels(16)
        .y_labels(yt.n)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc("frame number (in the app's frame order)")
        .y_desc("ms from the frame's vsync")
        .draw()?;
    Ok(chart)
}

/// The stacked segments of each bar (cut at the top of the scale): the main
/// thread's in its left part, the RenderThread's beside them at its own
/// time from the vsync; and its drop-level strip.
fn bars(chart: &mut Plot, frames: &[Frame], s: &Scale) -> DResult {
    let mut rects = Vec::with_capacity(frames.len() * 8);
    for (k, f) in frames.iter().enumerate() {
        let x = s.first + k as f64;
        let split = x + s.half * 0.3;
        let mut y = 0.0;
        for (seg, &v) in f.segments[..RENDER].iter().enumerate() {
            if v <= 0 {
                continue;
            }
            let y1 = y + ms(v);
            if y < s.ymax {
                rects.push(Rectangle::new([(x - s.half, y), (split, y1.min(s.ymax))], SEGMENT_COLORS[seg].filled()));
            }
            y = y1;
        }
        let (at, rt) = (ms(f.render_start_ns()), ms(f.segments[RENDER]));
        if rt > 0.0 && at < s.ymax {
            rects.push(Rectangle::new(
                [(split, at), (x + s.half, (at + rt).min(s.ymax))],
                SEGMENT_COLORS[RENDER].filled(),
            ));
        }
        rects.push(Rectangle::new(
            [(x - 0.5, -s.strip * 0.9), (x + 0.5, -s.strip * 0.25)],
            LEVEL_COLORS[f.level.index()].filled(),
        ));
    }
    chart.draw_series(rects)?;
    Ok(())
}

/// Budget lines follow each frame's own interval (refresh-rate changes show as steps).
fn budget_lines(chart: &mut Plot, frames: &[Frame], s: &Scale) -> DResult {
    let budget = |m: i64| -> Vec<(f64, f64)> {
        frames
            .iter()
            .enumerate()
            .flat_map(|(k, f)| {
                let y = ms(m * f.interval_ns);
                [(s.first + k as f64 - 0.5, y), (s.first + k as f64 + 0.5, y)]
            })
            .collect()
    };
    chart.draw_series(LineSeries::new(budget(1), BUDGET_1X.stroke_width(2)))?;
    chart.draw_series(DashedLineSeries::new(budget(2), 10, 6, BUDGET_2X.stroke_width(2)))?;
    Ok(())
}

/// Bars taller than the scale: a break mark and the real value (labels at
/// least ~58 px apart).
fn clipped_labels(root: &Area, plot: &Area, chart: &mut Plot, frames: &[Frame], s: &Scale) -> DResult {
    let px_per_bar = plot.dim_in_pixel().0 as f64 / frames.len().max(24) as f64;
    let min_gap = (58.0 / px_per_bar).ceil() as usize;
    let mut last_label: Option<usize> = None;
    for (k, f) in frames.iter().enumerate() {
        let total = ms(f.total_ns());
        if total <= s.ymax {
            continue;
        }
        let x = s.first + k as f64;
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x - s.half - 0.05, s.ymax * 0.955), (x + s.half + 0.05, s.ymax * 0.965)],
            WHITE.filled(),
        )))?;
        if last_label.is_none_or(|l| k - l >= min_gap) {
            let (px, py) = chart.backend_coord(&(x, s.ymax));
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
