//! The look shared by every chart: the embedded font, colours (drop levels,
//! frame phases, present types), text sizes, and the header every chart
//! starts with (title, subtitle, legend rows drawn outside the plot so they
//! never cover data).

use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, TextStyle};

use super::backend::{ChartBackend, FONT_BYTES};

/// The family name every chart asks for.
pub(crate) const FAMILY: &str = "sans-serif";

pub(crate) type Area<'a> = DrawingArea<ChartBackend<'a>, Shift>;
pub(crate) type DrawError = Box<dyn std::error::Error + Send + Sync>;
pub(crate) type DResult<T = ()> = Result<T, DrawError>;

/// The embedded font did not load (a build that shipped a broken font file).
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("the embedded chart font is not a valid font")]
pub(crate) struct FontError;

/// Register the embedded font once per process under [`FAMILY`].
pub(crate) fn register_font() -> Result<(), FontError> {
    static DONE: OnceLock<Result<(), FontError>> = OnceLock::new();
    *DONE.get_or_init(|| plotters::style::register_font(FAMILY, FontStyle::Normal, FONT_BYTES).map_err(|_| FontError))
}

pub(crate) const INK: RGBColor = RGBColor(33, 33, 33);
pub(crate) const MUTED: RGBColor = RGBColor(100, 100, 100);
pub(crate) const GRID: RGBColor = RGBColor(225, 225, 225);
/// Idle periods: grey at [`IDLE_ALPHA`] over whatever is below.
pub(crate) const IDLE_SHADE: RGBColor = RGBColor(120, 120, 120);
pub(crate) const IDLE_ALPHA: f64 = 0.22;
pub(crate) const BUDGET_1X: RGBColor = RGBColor(46, 125, 50);
pub(crate) const BUDGET_2X: RGBColor = RGBColor(198, 40, 40);
pub(crate) const FPS_LINE: RGBColor = RGBColor(31, 119, 180);
pub(crate) const REFRESH: RGBColor = RGBColor(46, 125, 50);

/// Drop levels BEST … FROZEN: green to purple, darker as it gets worse.
pub(crate) const LEVEL_COLORS: [RGBColor; 5] = [
    RGBColor(67, 160, 71),
    RGBColor(249, 168, 37),
    RGBColor(239, 108, 0),
    RGBColor(211, 47, 47),
    RGBColor(106, 27, 154),
];

/// Bar segments (see `data::SEGMENTS`): Tableau-like, distinct from the level colours.
pub(crate) const SEGMENT_COLORS: [RGBColor; 8] = [
    RGBColor(186, 176, 172), // start jitter
    RGBColor(176, 122, 161), // input
    RGBColor(78, 121, 167),  // animation
    RGBColor(118, 183, 178), // insets animation
    RGBColor(242, 142, 43),  // traversal
    RGBColor(237, 201, 72),  // commit
    RGBColor(215, 215, 215), // other doFrame work
    RGBColor(156, 117, 95),  // RenderThread
];

/// `data::PRESENT_CLASSES`.
pub(crate) const PRESENT_COLORS: [RGBColor; 5] = [
    RGBColor(67, 160, 71),
    RGBColor(211, 47, 47),
    RGBColor(31, 119, 180),
    RGBColor(33, 33, 33),
    RGBColor(150, 150, 150),
];

/// `c` at opacity `a` over white, as a plain colour (legend swatches match the fill).
pub(crate) fn tint(c: RGBColor, a: f64) -> RGBColor {
    let mix = |v: u8| (v as f64 * a + 255.0 * (1.0 - a)).round() as u8;
    RGBColor(mix(c.0), mix(c.1), mix(c.2))
}

pub(crate) const TITLE_PX: u32 = 30;
pub(crate) const SUBTITLE_PX: u32 = 19;
pub(crate) const LEGEND_PX: u32 = 19;
pub(crate) const AXIS_DESC_PX: u32 = 21;
pub(crate) const TICK_PX: u32 = 18;
pub(crate) const NOTE_PX: u32 = 16;

pub(crate) fn text(size: u32, color: &RGBColor) -> TextStyle<'static> {
    (FAMILY, size).into_font().color(color)
}

pub(crate) fn anchored(size: u32, color: &RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    text(size, color).pos(Pos::new(h, v))
}

/// `label` beside `at` (left of it for `HPos::Right`, right of it for
/// `HPos::Left`, 6 px away, vertically centred) on a white box, so it reads
/// over the curves and grid lines it sits on.
pub(crate) fn label_on_white(
    root: &Area,
    label: &str,
    size: u32,
    color: &RGBColor,
    h: HPos,
    at: (i32, i32),
) -> DResult {
    let style = anchored(size, color, h, VPos::Center);
    let (tw, th) = root.estimate_text_size(label, &style)?;
    let (tw, half) = (tw as i32, th as i32 / 2 + 3);
    let (tx, x_lo) = match h {
        HPos::Right => (at.0 - 6, at.0 - 10 - tw),
        HPos::Left | HPos::Center => (at.0 + 6, at.0 + 3),
    };
    root.draw(&Rectangle::new([(x_lo, at.1 - half), (x_lo + tw + 7, at.1 + half)], WHITE.mix(0.9).filled()))?;
    root.draw_text(label, &style, (tx, at.1))?;
    Ok(())
}

/// How a legend entry is drawn.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Swatch {
    Box(RGBColor),
    Line(RGBColor),
    Dot(RGBColor),
    /// A plain caption between entries ("drop level:").
    Caption,
}

pub(crate) struct LegendItem {
    pub label: String,
    pub swatch: Swatch,
}

pub(crate) fn item(label: impl Into<String>, swatch: Swatch) -> LegendItem {
    LegendItem { label: label.into(), swatch }
}

const PAD_X: i32 = 28;

/// Draw the title, the subtitle and the legend rows at the top of `root`;
/// return the area left for the plot.
pub(crate) fn header<'a>(
    root: &Area<'a>,
    title: &str,
    subtitle: &str,
    legend: &[Vec<LegendItem>],
) -> DResult<Area<'a>> {
    let (w, _) = root.dim_in_pixel();
    let mut y = 14;
    root.draw_text(title, &text(TITLE_PX, &INK), (PAD_X, y))?;
    y += TITLE_PX as i32 + 10;
    if !subtitle.is_empty() {
        root.draw_text(subtitle, &text(SUBTITLE_PX, &MUTED), (PAD_X, y))?;
        y += SUBTITLE_PX as i32 + 12;
    }
    for row in legend {
        y += legend_row(root, row, y, w as i32 - PAD_X)?;
    }
    y += 6;
    Ok(root.clone().split_vertically(y).1)
}

/// One legend row starting at `y`, wrapping at `max_x`; returns the height used.
fn legend_row(root: &Area, items: &[LegendItem], y0: i32, max_x: i32) -> DResult<i32> {
    let style = text(LEGEND_PX, &INK);
    let line_h = LEGEND_PX as i32 + 12;
    let (mut x, mut y) = (PAD_X, y0);
    for it in items {
        let (tw, _) = root.estimate_text_size(&it.label, &style)?;
        let sw = if matches!(it.swatch, Swatch::Caption) { 0 } else { 30 };
        let need = sw + tw as i32 + 26;
        if x + need > max_x && x > PAD_X {
            x = PAD_X;
            y += line_h;
        }
        let cy = y + LEGEND_PX as i32 / 2 + 1;
        match it.swatch {
            Swatch::Box(c) => root.draw(&Rectangle::new([(x, cy - 8), (x + 20, cy + 8)], c.filled()))?,
            Swatch::Line(c) => root.draw(&PathElement::new(vec![(x, cy), (x + 22, cy)], c.stroke_width(3)))?,
            Swatch::Dot(c) => root.draw(&Circle::new((x + 10, cy), 6, c.filled()))?,
            Swatch::Caption => {}
        }
        root.draw_text(&it.label, &style, (x + sw, y))?;
        x += need;
    }
    Ok(y - y0 + line_h)
}
