//! `report.html`: one self-contained page for review tickets. The charts are
//! inlined as base64 PNG `data:` URIs and the CSS is inline; there is no
//! script and no reference to anything outside the file, so it opens
//! anywhere, offline. The page is a minijinja template
//! (`templates/report.html`) rendered from a view model of preformatted
//! strings ([`view`], built by [`page`], [`app`] and [`presents`]): ms with one decimal,
//! fps with one decimal, percentages, counts with thousands separators.
//! This module renders and inlines; it also owns the offline check
//! ([`external_references`]).

use base64::Engine as _;
use minijinja::Environment;

use super::charts::{Chart, ChartsExporter};
use super::{Artifact, Exporter, Report, ReportError};

mod app;
mod page;
mod presents;
mod view;

use view::ChartView;

const TEMPLATE: &str = include_str!("../templates/report.html");

/// `charts/*.png` and `report.html`: the charts are drawn once, written by
/// the [`ChartsExporter`] and inlined in the page.
#[derive(Default)]
pub(crate) struct HtmlExporter {
    pub charts: ChartsExporter,
}

impl Exporter<Report<'_>> for HtmlExporter {
    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        let charts = self.charts.draw(report)?;
        let html = render_html(report, &charts)?;
        let mut out = ChartsExporter::artifacts(charts);
        out.push(Artifact { file_name: "report.html".into(), bytes: html.into_bytes() });
        Ok(out)
    }
}

/// Render the page for `report` with already drawn `charts`.
pub(crate) fn render_html(report: &Report, charts: &[Chart]) -> Result<String, ReportError> {
    let mut env = Environment::new();
    // The `.html` name turns on HTML auto-escaping for every value.
    env.add_template("report.html", TEMPLATE).map_err(|e| ReportError::Write(format!("report template: {e}")))?;
    let tmpl = env.get_template("report.html").map_err(|e| ReportError::Write(e.to_string()))?;
    let page =
        tmpl.render(page::page(report, charts)).map_err(|e| ReportError::Write(format!("report template: {e:#}")))?;
    Ok(inline_charts(&page, charts))
}

/// What the template first gets as a chart's `src`: this and the chart's
/// index. The PNGs are base64-encoded straight into the finished page by
/// [`inline_charts`], so their text exists once, not also in the view model
/// and in the template engine's copy of it (on a 200 MB trace, 15 MB less
/// at the report's peak).
const CHART_SRC: &str = "fpsan-chart:";

/// `c`, the `index`-th chart, as the page shows it.
fn chart_view(index: usize, c: &Chart) -> ChartView {
    ChartView {
        title: c.kind.label().to_string(),
        file_name: c.file_name.clone(),
        width: c.width,
        height: c.height,
        src: format!("{CHART_SRC}{index}"),
    }
}

/// `page` with each `src="fpsan-chart:N"` replaced by chart N's PNG as a
/// `data:` URI. Only the template writes `src="`: every value in the page is
/// escaped (a `"` becomes `&quot;`), so no app or thread name can forge it.
fn inline_charts(page: &str, charts: &[Chart]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD;
    let marker = format!("src=\"{CHART_SRC}");
    let images: usize = charts.iter().map(|c| c.png.len().div_ceil(3) * 4 + 32).sum();
    let mut out = String::with_capacity(page.len() + images);
    let mut rest = page;
    while let Some(at) = rest.find(&marker) {
        let after = &rest[at + marker.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let chart = after[..digits].parse::<usize>().ok().and_then(|i| charts.get(i));
        let Some(chart) = chart.filter(|_| after[digits..].starts_with('"')) else {
            // Not one of ours (cannot happen: see above); kept as it is.
            out.push_str(&rest[..at + marker.len()]);
            rest = after;
            continue;
        };
        out.push_str(&rest[..at]);
        out.push_str("src=\"data:image/png;base64,");
        b64.encode_string(&chart.png, &mut out);
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// What in a page would make a browser fetch anything: a script, link,
/// frame or embedded object, CSS `url()` / `@import`, a refresh, or a
/// `src`/`href`/`action`/`poster` that is not a `data:` URI or an in-page
/// anchor. Empty for every report fpsan writes (it must open offline).
pub fn external_references(html: &str) -> Vec<String> {
    let lower = html.to_lowercase();
    let mut found: Vec<String> =
        ["<script", "<link", "<iframe", "<object", "<embed", "@import", "url(", "srcset", "http-equiv"]
            .into_iter()
            .filter(|bad| lower.contains(bad))
            .map(String::from)
            .collect();
    for attr in ["src=", "href=", "action=", "poster="] {
        for part in lower.split(attr).skip(1) {
            let v = part.trim_start_matches(['"', '\'']);
            if !(v.starts_with("data:") || v.starts_with('#')) {
                let end = part.char_indices().nth(60).map_or(part.len(), |(i, _)| i);
                found.push(format!("{attr}{}", &part[..end]));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests;
