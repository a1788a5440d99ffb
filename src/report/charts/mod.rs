//! Charts for `--out DIR` (`charts/*.png`) and the HTML report (SVG): per app
//! the frame timeline, the frame cost distribution, FPS over time, drop
//! levels per scene, the janky frames with their why, when the trace has
//! FrameTimeline, present intervals and overrun, and when a layer of the app
//! presented buffers, that layer's present intervals (one layer per app: the
//! one its headline fps comes from, else its busiest); plus drop levels per
//! app when there are several apps. [`data`] computes the numbers, [`draw`] draws them
//! with plotters on a [`backend`] that is a bitmap (text in the embedded
//! DejaVu Sans of [`style`]) for the PNG files, or SVG for `report.html`; this
//! module plans the charts, draws each on both and encodes the PNGs (in
//! parallel), names the files and owns the [`ChartsExporter`].

use rayon::prelude::*;

use super::format::{app_name, app_slug, fmt_hz};
use super::{Artifact, Exporter, Report, ReportError};
use crate::metrics::{AppSummary, HeadlineSource};

mod backend;
pub(crate) mod data;
mod draw;
pub(crate) mod kit;
mod style;

use data::Frame;
use draw::Heading;

/// Which chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ChartKind {
    Timeline,
    Distribution,
    Fps,
    DropLevels,
    Janky,
    Present,
    /// The present intervals of one of the app's layers (`data::shown_layer`).
    LayerPresents,
    /// Drop levels of every app side by side.
    AppsDropLevels,
    /// Each input event's end-to-end and handling latency (docs/input.md).
    Input,
}

impl ChartKind {
    /// File name part.
    pub(crate) fn slug(self) -> &'static str {
        match self {
            ChartKind::Timeline => "timeline",
            ChartKind::Distribution => "distribution",
            ChartKind::Fps => "fps",
            ChartKind::DropLevels => "drop-levels",
            ChartKind::Janky => "janky",
            ChartKind::Present => "present",
            ChartKind::LayerPresents => "layer-presents",
            ChartKind::AppsDropLevels => "apps-drop-levels",
            ChartKind::Input => "input",
        }
    }
    /// What the chart shows, for headings and alt text.
    pub(crate) fn label(self) -> &'static str {
        match self {
            ChartKind::Timeline => "Frame timeline",
            ChartKind::Distribution => "Frame cost distribution",
            ChartKind::Fps => "FPS over time",
            ChartKind::DropLevels => "Drop levels per scene",
            ChartKind::Janky => "Janky frames and why",
            ChartKind::Present => "FrameTimeline present intervals and overrun",
            ChartKind::LayerPresents => "Layer presents: present-to-present interval",
            ChartKind::AppsDropLevels => "Drop levels per app",
            ChartKind::Input => "Input latency",
        }
    }
}

/// One rendered chart.
#[derive(Debug, Clone)]
pub(crate) struct Chart {
    pub kind: ChartKind,
    /// The app's pid; None for charts over all apps.
    pub pid: Option<i32>,
    /// Path inside `--out DIR`, e.g. `charts/com.example-4242-timeline.png`.
    pub file_name: String,
    pub width: u32,
    pub height: u32,
    pub png: Vec<u8>,
    /// The same chart as an SVG document (`report.html` inlines whichever
    /// of the two is smaller, see `html::inline_charts`).
    pub svg: String,
}

#[derive(Debug, Clone)]
pub(crate) struct ChartOptions {
    /// Apps that get their own charts (the first ones in report order that drew).
    pub max_apps: usize,
    /// Bars on the frame timeline; longer traces show the worst window.
    pub max_bars: usize,
    /// Rows of the drop-level chart (the app, then its largest scenes).
    pub max_level_groups: usize,
    pub width: u32,
    pub height: u32,
}

impl Default for ChartOptions {
    fn default() -> Self {
        ChartOptions { max_apps: 6, max_bars: 120, max_level_groups: 7, width: 1600, height: 900 }
    }
}

/// Encode an RGB buffer as PNG.
pub(crate) fn encode_png(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::with_capacity(rgb.len() / 8);
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Fast);
    let mut w = enc.write_header()?;
    w.write_image_data(rgb)?;
    w.finish()?;
    Ok(out)
}

/// Draw with `f` on a white `width`×`height` bitmap and return the PNG.
pub(crate) fn render_png(
    width: u32,
    height: u32,
    f: impl FnOnce(&style::Area) -> style::DResult,
) -> style::DResult<Vec<u8>> {
    style::register_font()?;
    let mut buf = vec![255u8; width as usize * height as usize * 3];
    {
        use plotters::prelude::*;
        let root = backend::ChartBackend::with_buffer(&mut buf, (width, height)).into_drawing_area();
        f(&root)?;
        root.present()?;
    }
    Ok(encode_png(&buf, width, height)?)
}

/// Draw with `f` on a `width`×`height` SVG (white background, as the PNG)
/// and return the document.
pub(crate) fn render_svg(
    width: u32,
    height: u32,
    f: impl FnOnce(&style::Area) -> style::DResult,
) -> style::DResult<String> {
    use plotters::prelude::*;
    let mut out = String::new();
    {
        let root = backend::ChartBackend::with_string(&mut out, (width, height)).into_drawing_area();
        root.fill(&WHITE)?;
        f(&root)?;
        root.present()?;
    }
    Ok(out)
}

/// A chart to draw: everything it needs, computed up front.
enum Job {
    Timeline(Heading, data::TimelineData, i64),
    Distribution(Heading, data::Distribution, i64),
    Fps(Heading, data::FpsData),
    Levels(String, Vec<data::LevelGroup>),
    Janky(Heading, data::JankyData),
    Present(Heading, data::PresentData),
    LayerPresents(Heading, Box<data::LayerPresentsData>),
    Input(Heading, Box<data::InputData>),
}

struct Planned {
    kind: ChartKind,
    pid: Option<i32>,
    file_name: String,
    width: u32,
    height: u32,
    job: Job,
}

impl Planned {
    fn render(self) -> Result<Chart, ReportError> {
        let draw = |root: &style::Area| match &self.job {
            Job::Timeline(h, d, origin) => draw::timeline(root, h, d, *origin),
            Job::Distribution(h, d, i) => draw::distribution(root, h, d, *i),
            Job::Fps(h, d) => draw::fps(root, h, d),
            Job::Levels(title, groups) => draw::drop_levels(root, title, groups),
            Job::Janky(h, d) => draw::janky(root, h, d),
            Job::Present(h, d) => draw::present(root, h, d),
            Job::LayerPresents(h, d) => draw::layer_presents(root, h, d),
            Job::Input(h, d) => draw::input(root, h, d),
        };
        let failed = |e: style::DrawError| ReportError::Write(format!("cannot draw {}: {e}", self.file_name));
        let png = render_png(self.width, self.height, draw).map_err(failed)?;
        let svg = render_svg(self.width, self.height, draw).map_err(failed)?;
        Ok(Chart {
            kind: self.kind,
            pid: self.pid,
            file_name: self.file_name,
            width: self.width,
            height: self.height,
            png,
            svg,
        })
    }
}

/// One chart of app `app`, `o.width` wide, in `charts/<app>-<pid>-<kind>.png`.
fn planned(app: &AppSummary, o: &ChartOptions, kind: ChartKind, height: u32, job: Job) -> Planned {
    let file_name = format!("charts/{}-{}.png", app_slug(app), kind.slug());
    Planned { kind, pid: Some(app.pid), file_name, width: o.width, height, job }
}

fn plan_app(report: &Report, app: &AppSummary, frames: &[Frame], origin_ts: i64, o: &ChartOptions) -> Vec<Planned> {
    let h = Heading { app: app_name(app), refresh: data::refresh_label(frames, app.refresh_hz) };
    // The doFrame charts of an app judged by its presents say whose frames
    // they show: the Java main thread's, not what reached the screen.
    let main = match app.headline.source {
        HeadlineSource::Frames => h.clone(),
        HeadlineSource::Presents => Heading { app: format!("{} · Java main thread", h.app), ..h.clone() },
    };
    let mut out = Vec::new();
    let mut push = |kind: ChartKind, height: u32, job: Job| out.push(planned(app, o, kind, height, job));
    push(ChartKind::Timeline, o.height, Job::Timeline(main.clone(), data::timeline(frames, o.max_bars), origin_ts));
    push(
        ChartKind::Distribution,
        o.height * 8 / 9,
        Job::Distribution(main.clone(), data::distribution(frames, &app.frame_cost_ns), app.frame_interval_ns),
    );
    // The FPS chart shows the series the app is judged by (its headline).
    let layer = data::shown_layer(report.presents, app.pid);
    let fps = match (app.headline.source, layer) {
        (HeadlineSource::Presents, Some(k)) => data::presents_fps(app, report.presents, k, origin_ts),
        _ => data::fps(app, frames, origin_ts),
    };
    push(ChartKind::Fps, o.height * 7 / 9, Job::Fps(h.clone(), fps));
    let groups = data::drop_levels(app, o.max_level_groups);
    push(
        ChartKind::DropLevels,
        draw::levels_height(groups.len()),
        Job::Levels(format!("{} · {} — Drop levels per scene", main.app, main.refresh), groups),
    );
    let janky = data::janky(app, frames, origin_ts);
    if !janky.rows.is_empty() {
        push(ChartKind::Janky, draw::janky_height(janky.rows.len()), Job::Janky(main.clone(), janky));
    }
    if let Some(p) = data::present(frames, app.frame_interval_ns, origin_ts) {
        push(ChartKind::Present, o.height, Job::Present(main, p));
    }
    // One layer per app keeps the charts bounded however many layers (animation
    // leashes, overlays) the app has; the HTML table lists the others.
    if let Some(d) = layer.and_then(|k| data::layer_presents(report.presents, k, origin_ts)) {
        let h = Heading { app: h.app.clone(), refresh: fmt_hz(d.layer.refresh_hz) };
        push(ChartKind::LayerPresents, o.height * 7 / 9, Job::LayerPresents(h.clone(), Box::new(d)));
    }
    if let Some(d) = data::input(report.input, app.pid, app.frame_interval_ns, origin_ts) {
        push(ChartKind::Input, o.height * 7 / 9, Job::Input(h, Box::new(d)));
    }
    out
}

/// The charts of an app known only by its layer's presents (no doFrames):
/// its FPS over time and its layer's present intervals.
fn plan_presents_only(report: &Report, app: &AppSummary, origin_ts: i64, o: &ChartOptions) -> Vec<Planned> {
    let Some(k) = data::shown_layer(report.presents, app.pid) else { return Vec::new() };
    let Some(d) = data::layer_presents(report.presents, k, origin_ts) else { return Vec::new() };
    let h = Heading { app: app_name(app), refresh: fmt_hz(d.layer.refresh_hz) };
    let fps = data::presents_fps(app, report.presents, k, origin_ts);
    vec![
        planned(app, o, ChartKind::Fps, o.height * 7 / 9, Job::Fps(h.clone(), fps)),
        planned(app, o, ChartKind::LayerPresents, o.height * 7 / 9, Job::LayerPresents(h, Box::new(d))),
    ]
}

/// Render every chart of the report (see the module doc), in report order.
pub(crate) fn render_charts(report: &Report, o: &ChartOptions) -> Result<Vec<Chart>, ReportError> {
    let origin_ts = report.origin_ts();
    let mut plan = Vec::new();
    // Apps that draw nothing get no charts: nothing of them was on the screen.
    let drawing: Vec<&AppSummary> = report.drawing_apps().collect();
    for &app in drawing.iter().take(o.max_apps) {
        let frames = data::app_frames(report.rows, app.pid);
        if frames.is_empty() {
            plan.extend(plan_presents_only(report, app, origin_ts, o));
        } else {
            plan.extend(plan_app(report, app, &frames, origin_ts, o));
        }
    }
    if drawing.len() > 1 {
        let groups = data::apps_drop_levels(&drawing);
        plan.push(Planned {
            kind: ChartKind::AppsDropLevels,
            pid: None,
            file_name: format!("charts/{}.png", ChartKind::AppsDropLevels.slug()),
            width: o.width,
            height: draw::levels_height(groups.len()),
            job: Job::Levels("All apps — Drop levels per app".into(), groups),
        });
    }
    plan.into_par_iter().map(Planned::render).collect()
}

/// `charts/*.png`. The HTML exporter draws through it too, so the charts
/// are drawn once for both the files and the page.
#[derive(Default)]
pub(crate) struct ChartsExporter {
    pub options: ChartOptions,
}

impl ChartsExporter {
    /// Draw every chart of the report ([`render_charts`]).
    pub(crate) fn draw(&self, report: &Report) -> Result<Vec<Chart>, ReportError> {
        render_charts(report, &self.options)
    }

    /// The charts as `charts/*.png` artefacts, in report order.
    pub(crate) fn artifacts(charts: Vec<Chart>) -> Vec<Artifact> {
        charts.into_iter().map(|c| Artifact { file_name: c.file_name, bytes: c.png }).collect()
    }
}

impl Exporter<Report<'_>> for ChartsExporter {
    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        Ok(Self::artifacts(self.draw(report)?))
    }
}

#[cfg(test)]
pub(crate) mod tests;
