//! `report.html`: one self-contained page for review tickets. The charts are
//! inlined as base64 PNG `data:` URIs and the CSS is inline; there is no
//! script and no reference to anything outside the file, so it opens
//! anywhere, offline. The page is a minijinja template
//! (`templates/report.html`) rendered from a view model of preformatted
//! strings ([`view`], built by [`page`] and [`app`]): ms with one decimal,
//! fps with one decimal, percentages, counts with thousands separators.
//! This module renders and inlines; it also owns the offline check
//! ([`external_references`]).

use base64::Engine as _;
use minijinja::Environment;

use super::charts::{Chart, ChartsExporter};
use super::{Artifact, Exporter, Report, ReportError};

mod app;
mod page;
mod view;

use view::ChartView;

const TEMPLATE: &str = include_str!("../templates/report.html");

/// `charts/*.png` and `report.html`: the charts are drawn once, written by
/// the [`ChartsExporter`] and inlined in the page.
#[derive(Default)]
pub(crate) struct HtmlExporter {
    pub charts: ChartsExporter,
}

impl Exporter for HtmlExporter {
    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        let charts = self.charts.draw(report)?;
        let html = render_html(report, &charts)?;
        let mut out = ChartsExporter::artifacts(charts);
        out.push(Artifact {
            file_name: "report.html".into(),
            bytes: html.into_bytes(),
        });
        Ok(out)
    }
}

/// Render the page for `report` with already drawn `charts`.
pub(crate) fn render_html(report: &Report, charts: &[Chart]) -> Result<String, ReportError> {
    let mut env = Environment::new();
    // The `.html` name turns on HTML auto-escaping for every value.
    env.add_template("report.html", TEMPLATE)
        .map_err(|e| ReportError::Write(format!("report template: {e}")))?;
    let tmpl = env
        .get_template("report.html")
        .map_err(|e| ReportError::Write(e.to_string()))?;
    tmpl.render(page::page(report, charts))
        .map_err(|e| ReportError::Write(format!("report template: {e:#}")))
}

/// `c` inlined: its PNG as a `data:` URI.
fn chart_view(c: &Chart, title: String) -> ChartView {
    ChartView {
        title,
        file_name: c.file_name.clone(),
        width: c.width,
        height: c.height,
        src: format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&c.png)
        ),
    }
}

/// What in a page would make a browser fetch anything: a script, link,
/// frame or embedded object, CSS `url()` / `@import`, a refresh, or a
/// `src`/`href`/`action`/`poster` that is not a `data:` URI or an in-page
/// anchor. Empty for every report fpsan writes (it must open offline).
pub fn external_references(html: &str) -> Vec<String> {
    let lower = html.to_lowercase();
    let mut found: Vec<String> = [
        "<script",
        "<link",
        "<iframe",
        "<object",
        "<embed",
        "@import",
        "url(",
        "srcset",
        "http-equiv",
    ]
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
