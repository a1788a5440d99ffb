//! The bitmap backend the charts draw on: plotters' `BitMapBackend` with its
//! text drawing replaced. plotters 0.3.7's ab_glyph path places each glyph's
//! ink box at the pen position (it drops the left side bearing and truncates
//! the advance), so letters drift apart ("j itter", "doF rame"). Here text is
//! laid out with ab_glyph properly — positioned glyphs with kerning, a common
//! baseline, anti-aliased coverage — in the embedded font, and every other
//! primitive goes to `BitMapBackend` unchanged.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use plotters::prelude::BitMapBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind};

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

/// `BitMapBackend` with correct text (see the module doc).
pub(crate) struct ChartBackend<'a> {
    inner: BitMapBackend<'a>,
}

impl<'a> ChartBackend<'a> {
    pub(crate) fn with_buffer(buf: &'a mut [u8], size: (u32, u32)) -> Self {
        ChartBackend { inner: BitMapBackend::with_buffer(buf, size) }
    }
}

type Res<E> = Result<(), DrawingErrorKind<E>>;
type BitmapError = <BitMapBackend<'static> as DrawingBackend>::ErrorType;

impl DrawingBackend for ChartBackend<'_> {
    type ErrorType = BitmapError;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Res<Self::ErrorType> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Res<Self::ErrorType> {
        self.inner.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Res<Self::ErrorType> {
        self.inner.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Res<Self::ErrorType> {
        self.inner.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Res<Self::ErrorType> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Res<Self::ErrorType> {
        self.inner.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Res<Self::ErrorType> {
        self.inner.draw_circle(center, radius, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Res<Self::ErrorType> {
        self.inner.fill_polygon(vert, style)
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Res<Self::ErrorType> {
        self.inner.blit_bitmap(pos, size, src)
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

    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, style: &T, pos: BackendCoord) -> Res<Self::ErrorType> {
        let color = style.color();
        if color.alpha == 0.0 || text.is_empty() {
            return Ok(());
        }
        let f = font().ok_or_else(|| DrawingErrorKind::FontError("no chart font".into()))?;
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
        let (bw, bh) = self.get_size();
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
                    result = self.inner.draw_pixel((x, y), c);
                }
            });
            std::mem::replace(&mut result, Ok(()))?;
        }
        Ok(())
    }
}
