//! The drawing kit of charts made outside the report (`compare`'s), so they
//! look like `analyze`'s: a white bitmap encoded as PNG, the header with its
//! legend, the plot frame, axes and tick labels, the colours and text sizes.
//! It only hands on what [`super::style`], [`super::draw`] and
//! [`super::render_png`] define; the report's own chart plans stay private.

pub(crate) use super::draw::{mesh_style, plot_frame, Ticks};
pub(crate) use super::render_png;
pub(crate) use super::style::{
    anchored, header, item, label_on_white, tint, Area, DResult, Swatch, FPS_LINE, INK, LEVEL_COLORS, MUTED, NOTE_PX,
};
