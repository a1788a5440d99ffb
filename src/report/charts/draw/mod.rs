//! Drawing: one file per chart (or family of charts), from its [`data`]
//! values onto a bitmap area with plotters; this module holds what they
//! share (the title, legends, axis style). Layout rules: title, subtitle and
//! legend above the plot (never over data); axes say what and in which unit;
//! values that would squash the rest (a 700 ms frame among 10 ms ones) are
//! clipped at a readable scale and labelled with their real value. Each
//! chart function reads top to bottom as legend, axes, series, annotations.
//!
//! [`data`]: super::data

use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::backend::ChartBackend;
use super::data::SEGMENTS;
use super::style::*;
use crate::frames::DropLevel;
use crate::report::format::{fmt_ms, fmt_ms_tick};

mod distribution;
mod fps;
mod input;
mod janky;
mod layer_presents;
mod levels;
mod present;
mod timeline;

pub(crate) use distribution::distribution;
pub(crate) use fps::fps;
pub(crate) use input::input;
pub(crate) use janky::{janky, janky_height};
pub(crate) use layer_presents::layer_presents;
pub(crate) use levels::{drop_levels, levels_height};
pub(crate) use present::present;
pub(crate) use timeline::timeline;

/// A plot with linear f64 axes.
type Linear = Cartesian2d<RangedCoordf64, RangedCoordf64>;

/// A plot on an area borrowed for `'a` of a bitmap borrowed for `'b`.
type Plot<'a, 'b, C = Linear> = ChartContext<'a, ChartBackend<'b>, C>;

/// Seconds across (`x0..x1`), a value up from 0 to `ymax` in `y_ticks`
/// steps, each axis described: the frame of every chart over the trace's time.
fn time_axes<'a, 'b>(
    plot: &'a Area<'b>,
    (x0, x1): (f64, f64),
    (ymax, y_ticks): (f64, usize),
    (x_desc, y_desc): (&str, &str),
) -> DResult<Plot<'a, 'b>> {
    let mut chart = plot_frame(plot).build_cartesian_2d(x0..x1, 0f64..ymax)?;
    let (xt, yt) = (Ticks::new(x0, x1, 14), Ticks::new(0.0, ymax, y_ticks));
    let xf = |v: &f64| xt.label(*v);
    let yf = |v: &f64| yt.label(*v);
    mesh_style(&mut chart)
        .x_labels(xt.n)
        .y_labels(yt.n)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc(x_desc)
        .y_desc(y_desc)
        .draw()?;
    Ok(chart)
}

/// What every title says: the app and its refresh rate.
#[derive(Debug, Clone)]
pub(crate) struct Heading {
    pub app: String,
    pub refresh: String,
}

impl Heading {
    fn title(&self, what: &str) -> String {
        format!("{} · {} — {what}", self.app, self.refresh)
    }
}

/// `prefix` and a box per drop level, in the level colours.
fn level_legend(prefix: &str) -> Vec<LegendItem> {
    let mut v = vec![item(prefix, Swatch::Caption)];
    v.extend(DropLevel::ALL.iter().zip(LEVEL_COLORS).map(|(l, c)| item(l.as_str(), Swatch::Box(c))));
    v
}

/// A box per bar segment ([`SEGMENTS`]), in the segment colours.
fn segment_legend() -> Vec<LegendItem> {
    SEGMENTS.iter().zip(SEGMENT_COLORS).map(|(s, c)| item(*s, Swatch::Box(c))).collect()
}

/// The 1× and 2× frame-interval lines; `note` follows the 1× interval.
fn budget_legend(interval_ns: i64, note: &str) -> Vec<LegendItem> {
    vec![
        item(format!("1× frame interval ({}{note})", fmt_ms(interval_ns)), Swatch::Line(BUDGET_1X)),
        item(format!("2× ({})", fmt_ms(2 * interval_ns)), Swatch::Line(BUDGET_2X)),
    ]
}

/// The margins and label areas of a full-width chart (the report's and
/// `compare`'s): room for the y description and ticks on the left, the x
/// description and ticks below.
pub(crate) fn plot_frame<'a, 'b>(area: &'a Area<'b>) -> ChartBuilder<'a, 'b, ChartBackend<'b>> {
    let mut b = ChartBuilder::on(area);
    b.margin_left(16).margin_right(36).margin_bottom(12).x_label_area_size(62).y_label_area_size(84);
    b
}

/// The tick labels of a linear axis: at most `n` of them, each with the
/// fewest decimals that show every tick plotters draws on that range exactly,
/// so neighbours never read the same (0.02 s apart on a 2.38–2.52 s axis:
/// `2.38 2.40 2.42`, not `2.4 2.4 2.4`) and round steps carry no noise digits.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ticks {
    pub n: usize,
    decimals: usize,
}

impl Ticks {
    /// More decimals than any axis of these charts needs (µs on a ms axis).
    const MAX_DECIMALS: usize = 4;

    pub(crate) fn new(lo: f64, hi: f64, n: usize) -> Ticks {
        let ticks = RangedCoordf64::from(lo..hi).key_points(n);
        let exact = |d: usize| {
            let scale = 10f64.powi(d as i32);
            ticks.iter().all(|t| ((t * scale).round() - t * scale).abs() < 1e-6)
        };
        let decimals = (0..Self::MAX_DECIMALS).find(|&d| exact(d)).unwrap_or(Self::MAX_DECIMALS);
        Ticks { n, decimals }
    }

    pub(crate) fn label(&self, v: f64) -> String {
        // Rounding noise below the decimals shown must not print `-0`.
        let v = if v.abs() < 0.5 * 10f64.powi(-(self.decimals as i32)) { 0.0 } else { v };
        format!("{v:.*}", self.decimals)
    }
}

/// The tick labels of a log axis (the CDF's frame cost). plotters ticks it at
/// every 1…9 × 10^k, which crowd the top of each decade into one another
/// (`5.0 6.07.0 8.0 9.010`); only some of those ticks are labelled, by the
/// axis' span: 1, 2, 3, 5, 7 × 10^k up to one decade, 1, 2, 5 × 10^k up to
/// three, the powers of ten beyond. Neighbouring labels are then at least
/// 0.146 decade apart, and at least a seventh of the axis below seven decades.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LogTicks {
    mantissas: &'static [f64],
}

impl LogTicks {
    pub(crate) fn new(lo: f64, hi: f64) -> LogTicks {
        let decades = (hi / lo).log10();
        let mantissas: &[f64] = if decades <= 1.0 {
            &[1.0, 2.0, 3.0, 5.0, 7.0]
        } else if decades <= 3.0 {
            &[1.0, 2.0, 5.0]
        } else {
            &[1.0]
        };
        LogTicks { mantissas }
    }

    /// `v`'s label, empty for a tick left unlabelled.
    pub(crate) fn label(&self, v: f64) -> String {
        if !(v > 0.0 && v.is_finite()) {
            return String::new();
        }
        let mantissa = v / 10f64.powf(v.log10().floor());
        let labelled = self.mantissas.iter().any(|m| (mantissa - m).abs() < 1e-6 || (mantissa - 10.0 * m).abs() < 1e-5);
        if labelled {
            fmt_ms_tick(v)
        } else {
            String::new()
        }
    }
}

/// The axes, grid and tick labels every chart shares.
pub(crate) fn mesh_style<'a, 'b, 'c, X, Y>(
    chart: &'b mut Plot<'a, 'c, Cartesian2d<X, Y>>,
) -> plotters::chart::MeshStyle<'a, 'b, X, Y, ChartBackend<'c>>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let mut m = chart.configure_mesh();
    m.bold_line_style(GRID)
        .light_line_style(WHITE)
        .axis_style(MUTED)
        .axis_desc_style(text(AXIS_DESC_PX, &INK))
        .label_style(text(TICK_PX, &INK));
    m
}
