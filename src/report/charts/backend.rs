//! The backend the charts draw on, one of two targets behind one type, so
//! each chart has one drawing function and the PNG file and the SVG inlined
//! in `report.html` are the same chart (docs/report.md, "`report.html`"):
//!
//! - a bitmap: plotters' `BitMapBackend` with its text drawing replaced.
//!   plotters 0.3.7's ab_glyph path places each glyph's ink box at the pen
//!   position (it drops the left side bearing and truncates the advance), so
//!   letters drift apart ("j itter", "doF rame"). Here text is laid out with
//!   ab_glyph properly — positioned glyphs with kerning, a common baseline,
//!   anti-aliased coverage — in the embedded font;
//! - SVG: plotters' `SVGBackend`, text as `<text>` (selectable, searchable)
//!   asking for DejaVu Sans by name ([`SVG_FAMILY`]), at the em size the
//!   bitmap's layout uses.
//!
//! Text is measured with the embedded font on both, so layout decisions
//! (legend wrapping, label boxes) are the same; every other primitive goes to
//! the plotters backend unchanged.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use plotters::prelude::{BitMapBackend, SVGBackend};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind, FontFamily,
    FontStyle, FontTransform,
};

/// DejaVu Sans (Bitstream Vera licence, see src/report/fonts/LICENSE): charts
/// must render text on machines without any system font.
pub(crate) const FONT_BYTES: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

fn font() -> Option<&'static FontRef<'static>> {
    static FONT: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(FONT_BYTES).ok()).as_ref()
}

/// One line of text laid out: positioned glyphs and the line's size in px.
struct Laid {
    glyphs: Vec<ab_glyph::Glyph>,
    width: f32,
    height: f32,
}

/// Lay `text` out on one line at pixel `size` (ab_glyph's scale: ascent −
/// descent = size), baseline at the ascent, starting at x = 0.
fn layout(f: &FontRef<'static>, size: f64, text: &str) -> Laid {
    let scale = PxScale::from(size as f32);
    let sf = f.as_scaled(scale);
    let ascent = sf.ascent();
    let mut x = 0.0f32;
    let mut prev = None;
    let mut glyphs = Vec::with_capacity(text.len());
    for c in text.chars() {
        let id = sf.glyph_id(c);
        if let Some(p) = prev {
            x += sf.kern(p, id);
        }
        glyphs.push(id.with_scale_and_position(scale, point(x, ascent)));
        x += sf.h_advance(id);
        prev = Some(id);
    }
    Laid { glyphs, width: x, height: ascent - sf.descent() }
}

/// The font the SVG asks for: the embedded one by name (installed with most
/// Linux desktops), then Verdana, its near twin in widths, then any sans.
/// Text is laid out with DejaVu Sans's widths, so a narrower fallback only
/// leaves a little more room; the PNG files render the exact font.
pub(crate) const SVG_FAMILY: &str = "DejaVu Sans,Bitstream Vera Sans,Verdana,sans-serif";

/// A text style as the SVG backend writes it: [`SVG_FAMILY`], and a size
/// that makes its `font-size` (plotters writes `size / 1.24`) the em size of
/// the bitmap's layout, whose `size` is ascent − descent.
struct SvgText<'a, T> {
    inner: &'a T,
    size: f64,
}

impl<T: BackendTextStyle> BackendTextStyle for SvgText<'_, T> {
    type FontError = T::FontError;
    fn color(&self) -> BackendColor {
        self.inner.color()
    }
    fn size(&self) -> f64 {
        self.size
    }
    fn transform(&self) -> FontTransform {
        self.inner.transform()
    }
    fn style(&self) -> FontStyle {
        self.inner.style()
    }
    fn anchor(&self) -> plotters_backend::text_anchor::Pos {
        self.inner.anchor()
    }
    fn family(&self) -> FontFamily<'_> {
        FontFamily::Name(SVG_FAMILY)
    }
    fn layout_box(&self, text: &str) -> Result<((i32, i32), (i32, i32)), Self::FontError> {
        self.inner.layout_box(text)
    }
    fn draw<E, DF: FnMut(i32, i32, BackendColor) -> Result<(), E>>(
        &self,
        text: &str,
        pos: BackendCoord,
        draw: DF,
    ) -> Result<Result<(), E>, Self::FontError> {
        self.inner.draw(text, pos, draw)
    }
}

/// `size` (ascent − descent, ab_glyph's scale) in the units plotters' SVG
/// backend divides by 1.24 to get `font-size` (the em size).
fn svg_size(f: &FontRef<'static>, size: f64) -> f64 {
    let em_per_height =
        f.units_per_em().map_or(1.0, |u| u as f64 / (f.ascent_unscaled() - f.descent_unscaled()) as f64);
    size * em_per_height * 1.24
}

/// The chart backend (see the module doc).
pub(crate) enum ChartBackend<'a> {
    Bitmap(BitMapBackend<'a>),
    Svg(SVGBackend<'a>),
}

impl<'a> ChartBackend<'a> {
    pub(crate) fn with_buffer(buf: &'a mut [u8], size: (u32, u32)) -> Self {
        ChartBackend::Bitmap(BitMapBackend::with_buffer(buf, size))
    }
    pub(crate) fn with_string(buf: &'a mut String, size: (u32, u32)) -> Self {
        ChartBackend::Svg(SVGBackend::with_string(buf, size))
    }
}

type BitmapError = <BitMapBackend<'static> as DrawingBackend>::ErrorType;

/// What either target can fail with.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BackendError {
    #[error("{0}")]
    Bitmap(BitmapError),
    #[error("{0}")]
    Svg(std::io::Error),
}

type Res = Result<(), DrawingErrorKind<BackendError>>;

fn lift<E: std::error::Error + Send + Sync>(
    r: Result<(), DrawingErrorKind<E>>,
    wrap: impl FnOnce(E) -> BackendError,
) -> Res {
    r.map_err(|e| match e {
        DrawingErrorKind::DrawingError(e) => DrawingErrorKind::DrawingError(wrap(e)),
        DrawingErrorKind::FontError(f) => DrawingErrorKind::FontError(f),
    })
}

/// Call `$call` on whichever backend this is.
macro_rules! both {
    ($self:expr, $b:ident => $call:expr) => {
        match $self {
            ChartBackend::Bitmap($b) => lift($call, BackendError::Bitmap),
            ChartBackend::Svg($b) => lift($call, BackendError::Svg),
        }
    };
}

impl DrawingBackend for ChartBackend<'_> {
    type ErrorType = BackendError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            ChartBackend::Bitmap(b) => b.get_size(),
            ChartBackend::Svg(b) => b.get_size(),
        }
    }
    fn ensure_prepared(&mut self) -> Res {
        both!(self, b => b.ensure_prepared())
    }
    fn present(&mut self) -> Res {
        both!(self, b => b.present())
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Res {
        both!(self, b => b.draw_pixel(point, color))
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Res {
        both!(self, b => b.draw_line(from, to, style))
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Res {
        both!(self, b => b.draw_rect(upper_left, bottom_right, style, fill))
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Res {
        both!(self, b => b.draw_path(path, style))
    }
    fn draw_circle<S: BackendStyle>(&mut self, center: BackendCoord, radius: u32, style: &S, fill: bool) -> Res {
        both!(self, b => b.draw_circle(center, radius, style, fill))
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, vert: I, style: &S) -> Res {
        both!(self, b => b.fill_polygon(vert, style))
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Res {
        both!(self, b => b.blit_bitmap(pos, size, src))
    }

    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        let f = font().ok_or_else(|| DrawingErrorKind::FontError("no chart font".into()))?;
        let l = layout(f, style.size(), text);
        Ok((l.width.ceil() as u32, l.height.ceil() as u32))
    }

    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, style: &T, pos: BackendCoord) -> Res {
        let color = style.color();
        if color.alpha == 0.0 || text.is_empty() {
            return Ok(());
        }
        let f = font().ok_or_else(|| DrawingErrorKind::FontError("no chart font".into()))?;
        match self {
            ChartBackend::Bitmap(b) => lift(draw_glyphs(b, f, text, style, pos), BackendError::Bitmap),
            ChartBackend::Svg(b) => {
                let svg = SvgText { inner: style, size: svg_size(f, style.size()) };
                lift(b.draw_text(text, &svg, pos), BackendError::Svg)
            }
        }
    }
}

/// `text` laid out by [`layout`] and drawn pixel by pixel on the bitmap.
fn draw_glyphs<T: BackendTextStyle>(
    bitmap: &mut BitMapBackend,
    f: &FontRef<'static>,
    text: &str,
    style: &T,
    pos: BackendCoord,
) -> Result<(), DrawingErrorKind<BitmapError>> {
    let color = style.color();
    let l = layout(f, style.size(), text);
    let (w, h) = (l.width.round() as i32, l.height.round() as i32);
    let anchor = style.anchor();
    let dx = match anchor.h_pos {
        HPos::Left => 0,
        HPos::Right => -w,
        HPos::Center => -w / 2,
    };
    let dy = match anchor.v_pos {
        VPos::Top => 0,
        VPos::Center => -h / 2,
        VPos::Bottom => -h,
    };
    let trans = style.transform();
    let (bw, bh) = bitmap.get_size();
    let mut result = Ok(());
    for g in l.glyphs {
        let Some(outline) = f.outline_glyph(g) else {
            continue;
        };
        let b = outline.px_bounds();
        outline.draw(|gx, gy, cov| {
            if result.is_err() || cov <= 0.0 {
                return;
            }
            let (x, y) = trans.transform(b.min.x as i32 + gx as i32 + dx, b.min.y as i32 + gy as i32 + dy);
            let (x, y) = (pos.0 + x, pos.1 + y);
            if x >= 0 && y >= 0 && x < bw as i32 && y < bh as i32 {
                let c = BackendColor { alpha: color.alpha * cov.min(1.0) as f64, rgb: color.rgb };
                result = bitmap.draw_pixel((x, y), c);
            }
        });
        std::mem::replace(&mut result, Ok(()))?;
    }
    Ok(())
}
