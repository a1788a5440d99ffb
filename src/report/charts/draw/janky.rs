//! Chart 5, janky frames and why: the app's worst frames, worst first, each
//! a horizontal bar of its phases with its cost, and under it why it was
//! late (dominant phase, longest slice, FrameTimeline jank type).

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::{budget_legend, mesh_style, segment_legend, Heading, Plot, Ticks};
use crate::report::charts::data::{JankyData, JankyRow, RENDER};
use crate::report::charts::style::*;
use crate::report::format::{fmt_ms, ns_to_ms as ms, part_words, shorten_head};

/// Height of the janky-frames chart for `rows` rows.
pub(crate) fn janky_height(rows: usize) -> u32 {
    (260 + 78 * rows as u32).max(520)
}

/// The worst janky frames: phase breakdown and why.
pub(crate) fn janky(root: &Area, h: &Heading, d: &JankyData) -> DResult {
    let r = d.rows.len();
    let subtitle = format!(
        "the {r} worst of {} janky frames (≥ 1 dropped frame), worst first · cost = vsync → doFrame end; upper band main thread, lower band RenderThread at its own time · below each bar: why",
        d.janky_frames
    );
    let interval = d.rows.iter().map(|x| x.frame.interval_ns).min().unwrap_or(0);
    let plot =
        header(root, &h.title("Janky frames and why"), &subtitle, &[segment_legend(), budget_legend(interval, "")])?;
    let xmax = d.rows.iter().map(|x| ms(x.frame.total_ns())).fold(ms(2 * interval), f64::max) * 1.12;
    let mut chart = axes(&plot, xmax, r)?;
    let line = |m: i64| {
        let x = ms(m * interval);
        vec![(x, 0.0), (x, r as f64)]
    };
    chart.draw_series(std::iter::once(PathElement::new(line(1), BUDGET_1X.stroke_width(2))))?;
    chart.draw_series(std::iter::once(DashedPathElement::new(line(2), 10, 6, BUDGET_2X.stroke_width(2))))?;
    let right_edge = chart.backend_coord(&(xmax, 0.0)).0;
    for (i, row) in d.rows.iter().enumerate() {
        // Row i spans y = r − i − 0.1 (top) down to 0.42 below it.
        let top = (r - i) as f64 - 0.1;
        let bottom = top - 0.42;
        let end = bar(&mut chart, row, top, bottom)?;
        cost_label(root, &chart, row, (end, (top + bottom) / 2.0), right_edge)?;
        why_label(root, &chart, row, bottom)?;
        row_label(root, &chart, row, i + 1, (top + bottom) / 2.0)?;
        if i > 0 {
            let y = (r - i) as f64;
            chart.draw_series(std::iter::once(PathElement::new(vec![(0.0, y), (xmax, y)], GRID.stroke_width(1))))?;
        }
    }
    Ok(())
}

/// ms from the vsync across; the rows carry their own labels.
fn axes<'a, 'b>(plot: &'a Area<'b>, xmax: f64, rows: usize) -> DResult<Plot<'a, 'b>> {
    let mut chart = ChartBuilder::on(plot)
        .margin_left(16)
        .margin_right(36)
        .margin_bottom(12)
        .x_label_area_size(62)
        .y_label_area_size(190)
        .build_cartesian_2d(0f64..xmax, 0f64..rows.max(1) as f64)?;
    let xt = Ticks::new(0.0, xmax, 12);
    let xf = |v: &f64| xt.label(*v);
    let yf = |_: &f64| String::new();
    mesh_style(&mut chart)
        .disable_y_mesh()
        .x_labels(xt.n)
        .y_labels(0)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc("ms from the frame's vsync")
        .draw()?;
    Ok(chart)
}

/// The main thread's segments left to right in the bar's upper band, the
/// RenderThread's at its own time in the lower band (both on the frame's
/// axis, from its vsync); returns where the bar ends (ms).
fn bar(chart: &mut Plot, row: &JankyRow, top: f64, bottom: f64) -> DResult<f64> {
    let split = bottom + (top - bottom) * 0.38;
    let mut x = 0.0;
    let mut rects = Vec::new();
    for (s, &v) in row.frame.segments[..RENDER].iter().enumerate() {
        if v > 0 {
            rects.push(Rectangle::new([(x, split), (x + ms(v), top)], SEGMENT_COLORS[s].filled()));
            x += ms(v);
        }
    }
    let rt = row.frame.segments[RENDER];
    if rt > 0 {
        let at = ms(row.frame.render_start_ns());
        rects.push(Rectangle::new([(at, bottom), (at + ms(rt), split)], SEGMENT_COLORS[RENDER].filled()));
    }
    chart.draw_series(rects)?;
    Ok(ms(row.frame.total_ns()))
}

/// `cost 60.0 ms · 3 dropped (NORMAL)` after the bar ending at `at`, or
/// inside it when there is no room before `right_edge`.
fn cost_label(root: &Area, chart: &Plot, row: &JankyRow, at: (f64, f64), right_edge: i32) -> DResult {
    let f = &row.frame;
    let (px, py) = chart.backend_coord(&at);
    let total = format!("cost {} · {} dropped ({})", fmt_ms(f.frame_cost_ns), f.dropped_frames, f.level);
    let style = anchored(NOTE_PX, &INK, HPos::Left, VPos::Center);
    let (tw, th) = root.estimate_text_size(&total, &style)?;
    if px + 8 + tw as i32 > right_edge {
        // No room after the bar: inside it, right-aligned, on a white box.
        root.draw(&Rectangle::new(
            [(px - tw as i32 - 12, py - th as i32 / 2 - 3), (px - 4, py + th as i32 / 2 + 3)],
            WHITE.mix(0.9).filled(),
        ))?;
        root.draw_text(&total, &anchored(NOTE_PX, &INK, HPos::Right, VPos::Center), (px - 8, py))?;
    } else {
        root.draw_text(&total, &style, (px + 6, py))?;
    }
    Ok(())
}

/// [`why_line`] under the bar, on a white box.
fn why_label(root: &Area, chart: &Plot, row: &JankyRow, bottom: f64) -> DResult {
    let why = why_line(row);
    let (qx, qy) = chart.backend_coord(&(0.0, bottom - 0.22));
    let why_style = anchored(NOTE_PX + 1, &INK, HPos::Left, VPos::Center);
    let (ww, wh) = root.estimate_text_size(&why, &why_style)?;
    root.draw(&Rectangle::new(
        [(qx + 1, qy - wh as i32 / 2 - 2), (qx + 8 + ww as i32, qy + wh as i32 / 2 + 2)],
        WHITE.mix(0.9).filled(),
    ))?;
    root.draw_text(&why, &why_style, (qx + 4, qy))?;
    Ok(())
}

/// Left of the row at height `y`: the level colour, rank and time, and the vsync id.
fn row_label(root: &Area, chart: &Plot, row: &JankyRow, rank: usize, y: f64) -> DResult {
    let f = &row.frame;
    let (lx, ly) = chart.backend_coord(&(0.0, y));
    root.draw(&Rectangle::new([(lx - 184, ly - 9), (lx - 170, ly + 9)], LEVEL_COLORS[f.level.index()].filled()))?;
    root.draw_text(
        &format!("#{rank} at {:.3} s", row.t),
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
    Ok(())
}

/// "dominant: traversal 45.0 ms · longest slice: inflate 40.0 ms · FrameTimeline: App Deadline Missed".
/// `text` without its parenthesised asides (the chain's slice lists), which
/// a chart line has no room for.
fn without_asides(text: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn why_line(row: &JankyRow) -> String {
    let mut parts = Vec::new();
    match (&row.dominant_phase, row.dominant_ns) {
        (Some(p), Some(ns)) => parts.push(format!("dominant: {} {}", part_words(*p), fmt_ms(ns))),
        _ => parts.push("no why recorded".to_string()),
    }
    match &row.waited_on {
        Some(on) => parts.push(format!("waited on {}", shorten_head(&without_asides(on), 80))),
        None => {
            if let (Some(s), Some(ns)) = (&row.longest_slice, row.longest_ns) {
                parts.push(format!("longest slice: {} {}", shorten_head(s, 64), fmt_ms(ns)));
            }
        }
    }
    if let Some(j) = &row.jank_type {
        if j != "None" {
            parts.push(format!("FrameTimeline: {j}"));
        }
    }
    parts.join(" · ")
}
