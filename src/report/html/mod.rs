//! `report.html`: one self-contained page for review tickets. The charts are
//! inlined as SVG elements, or as base64 PNG `data:` URIs where that is
//! smaller ([`Inline`]), and the CSS is inline; its one script (the frame
//! timeline's, `templates/timeline.js`) and that script's data (the
//! analysis' lanes as a JSON block, [`timeline`]) are inline too, and nothing
//! refers to anything outside the file, so it opens anywhere, offline. The
//! page is a minijinja template (`templates/report.html`) rendered from a
//! view model of preformatted strings ([`view`], built by [`page`], [`app`],
//! [`presents`] and [`timeline`]): ms with one decimal, fps with one decimal,
//! percentages, counts with thousands separators. This module renders and
//! inlines; it also owns the offline check ([`external_references`]).

use base64::Engine as _;
use minijinja::Environment;

use super::charts::{Chart, ChartsExporter};
use super::{Artifact, Exporter, Report, ReportError};

mod app;
mod page;
mod presents;
mod timeline;
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
    Ok(timeline::splice_data(inline_charts(&page, charts), report)?)
}

/// What the template first gets as a chart's `src`: this and the chart's
/// index. The charts are spliced straight into the finished page by
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

/// How a chart is inlined: its SVG (text selectable and searchable, and far
/// smaller for lines and bars), unless its base64 PNG is smaller (a scatter
/// of thousands of dots), so the page stays within its size budget
/// (docs/report.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inline {
    Svg,
    Png,
}

impl Inline {
    pub(crate) fn of(c: &Chart) -> Inline {
        if c.svg.len() <= c.png.len().div_ceil(3) * 4 {
            Inline::Svg
        } else {
            Inline::Png
        }
    }
}

/// `page` with each `<img src="fpsan-chart:N" …>` the template wrote replaced
/// by chart N: an inline `<svg>` labelled with the image's `alt`, or the
/// image with its PNG as a `data:` URI ([`Inline::of`]). Only the template
/// writes `src="`: every value in the page is escaped (a `"` becomes
/// `&quot;`, a `>` `&gt;`), so no app or thread name can forge the marker or
/// end the tag early.
fn inline_charts(page: &str, charts: &[Chart]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD;
    let marker = format!("<img src=\"{CHART_SRC}");
    let inlined: usize = charts
        .iter()
        .map(|c| match Inline::of(c) {
            Inline::Svg => c.svg.len() + 64,
            Inline::Png => c.png.len().div_ceil(3) * 4 + 32,
        })
        .sum();
    let mut out = String::with_capacity(page.len() + inlined);
    let mut rest = page;
    while let Some(at) = rest.find(&marker) {
        let after = &rest[at + marker.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let chart = after[..digits].parse::<usize>().ok().and_then(|i| charts.get(i));
        let tag_end = after.find('>');
        let (Some(chart), Some(tag_end)) = (chart.filter(|_| after[digits..].starts_with('"')), tag_end) else {
            // Not one of ours (cannot happen: see above); kept as it is.
            out.push_str(&rest[..at + marker.len()]);
            rest = after;
            continue;
        };
        out.push_str(&rest[..at]);
        // The tag's other attributes (width, height, alt), escaped by the template.
        let attrs = &after[digits + 1..tag_end];
        match Inline::of(chart) {
            Inline::Svg => push_svg(&mut out, &chart.svg, attrs),
            Inline::Png => {
                out.push_str("<img src=\"data:image/png;base64,");
                b64.encode_string(&chart.png, &mut out);
                out.push('"');
                out.push_str(attrs);
                out.push('>');
            }
        }
        rest = &after[tag_end + 1..];
    }
    out.push_str(rest);
    out
}

/// `svg` (a document from plotters' SVG backend, `<svg width=… height=…
/// viewBox=… xmlns=…>…`) as an element of the page, named by the image
/// tag's `alt` for screen readers. HTML needs no `xmlns`, and the page keeps
/// no URL that is not its own.
fn push_svg(out: &mut String, svg: &str, img_attrs: &str) {
    let alt = img_attrs.split_once("alt=\"").and_then(|(_, v)| v.split_once('"')).map_or("", |(v, _)| v);
    let body = svg.trim_start_matches("<svg");
    let body = body.replacen(r#" xmlns="http://www.w3.org/2000/svg""#, "", 1);
    out.push_str("<svg role=\"img\" aria-label=\"");
    out.push_str(alt);
    out.push('"');
    out.push_str(&body);
}

/// What in a page would make a browser fetch anything: a link, frame or
/// embedded object, CSS `url()` / `@import`, a refresh, a
/// `src`/`href`/`action`/`poster` that is not a `data:` URI or an in-page
/// anchor (an external `<script src>` among them), a module script, or
/// inside a script a call that loads or sends ([`SCRIPT_NETWORK`]). A JSON
/// data block (`<script type="application/json">`) is data the page never
/// runs, and its text is not read as markup (a slice named `url(…)` is a
/// name). Empty for every report fpsan writes (it must open offline).
pub fn external_references(html: &str) -> Vec<String> {
    let lower = html.to_lowercase();
    let (markup, scripts) = split_scripts(&lower);
    let mut found: Vec<String> = ["<link", "<iframe", "<object", "<embed", "@import", "url(", "srcset", "http-equiv"]
        .into_iter()
        .filter(|bad| markup.contains(bad))
        .map(String::from)
        .collect();
    found.extend(attribute_references(&markup));
    for (tag, body) in scripts {
        if tag.contains("module") {
            found.push(format!("module script {}", shorten(tag)));
        }
        if tag.contains("application/json") {
            continue;
        }
        found.extend(SCRIPT_NETWORK.iter().filter(|api| body.contains(*api)).map(|api| format!("script: {api}")));
    }
    found
}

/// What in a script's text (lowercased) would load or send anything, or
/// write markup that could.
const SCRIPT_NETWORK: [&str; 18] = [
    "fetch(",
    "xmlhttprequest",
    "websocket",
    "eventsource",
    "sendbeacon",
    "import(",
    "importscripts",
    "worker(",
    "serviceworker",
    ".src",
    "href",
    "innerhtml",
    "outerhtml",
    "insertadjacenthtml",
    "document.write",
    "window.open",
    "location.assign",
    "location.replace",
];

/// `src=`, `href=`, `action=`, `poster=` values that are not `data:` or `#…`.
fn attribute_references(markup: &str) -> Vec<String> {
    let mut found = Vec::new();
    for attr in ["src=", "href=", "action=", "poster="] {
        for part in markup.split(attr).skip(1) {
            let v = part.trim_start_matches(['"', '\'']);
            if !(v.starts_with("data:") || v.starts_with('#')) {
                found.push(format!("{attr}{}", shorten(part)));
            }
        }
    }
    found
}

/// The first 60 characters of `s`.
fn shorten(s: &str) -> &str {
    s.char_indices().nth(60).map_or(s, |(i, _)| &s[..i])
}

/// `html` (lowercased) without the text of its `<script>` elements (their
/// tags stay), and each script's tag and text. A script without its end
/// runs to the end of the page, as a browser reads it.
fn split_scripts(html: &str) -> (String, Vec<(&str, &str)>) {
    let mut markup = String::with_capacity(html.len());
    let mut scripts = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find("<script") {
        let tag_end = rest[at..].find('>').map_or(rest.len(), |i| at + i + 1);
        markup.push_str(&rest[..tag_end]);
        let body_end = rest[tag_end..].find("</script").map_or(rest.len(), |i| tag_end + i);
        scripts.push((&rest[at..tag_end], &rest[tag_end..body_end]));
        rest = &rest[body_end..];
    }
    markup.push_str(rest);
    (markup, scripts)
}

#[cfg(test)]
mod tests;
