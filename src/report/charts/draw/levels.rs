//! Chart 4, drop levels: per group (the app and its largest scenes, or
//! every app) the frames (left) and dropped frames (right) of each Matrix
//! level as horizontal bars.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::{level_legend, mesh_style};
use crate::report::charts::data::LevelGroup;
use crate::report::charts::style::*;
use crate::report::format::shorten;

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
            root.draw_text(&v.to_string(), &anchored(NOTE_PX, &color, HPos::Left, VPos::Center), (px + 5, py))?;
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
pub(crate) fn levels_height(groups: usize) -> u32 {
    (250 + 125 * groups as u32).max(560)
}

/// Chart 4: Frames and dropped frames per drop level, per group (app and scenes, or apps).
pub(crate) fn drop_levels(root: &Area, title: &str, groups: &[LevelGroup]) -> DResult {
    let subtitle =
        "Matrix levels by the frame's dropped frames d: BEST < 3 · NORMAL 3–8 · MIDDLE 9–23 · HIGH 24–41 · FROZEN ≥ 42";
    let plot = header(root, title, subtitle, &[level_legend("bars:")])?;
    let (w, _) = plot.dim_in_pixel();
    let (left, right) = plot.split_horizontally((w as f64 * 0.58) as i32);
    level_panel(root, &left, groups, false, true, "frames per level")?;
    level_panel(root, &right, groups, true, false, "dropped frames per level (dropSum)")?;
    Ok(())
}
