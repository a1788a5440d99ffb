//! `compare.html`: one self-contained page like `report.html` (inline CSS,
//! charts as base64 PNG `data:` URIs, no script, nothing fetched): verdict
//! cards, the tables, the charts, the runs. A minijinja template
//! (`templates/compare.html`) over a view model of preformatted strings.

use base64::Engine as _;
use minijinja::Environment;
use serde::Serialize;

use super::charts::{self, CompareChart};
use super::words::{self, ci_label, overall_verdict, value, words};
use super::CompareReport;
use crate::compare::comparison::Comparison;
use crate::compare::stats::Verdict;
use crate::report::format::{fmt_hz, NONE};
use crate::report::{Artifact, Exporter, ReportError};

const TEMPLATE: &str = include_str!("templates/compare.html");

/// `charts/compare-*.png` and `compare.html`: the charts are drawn once,
/// written as files and inlined in the page.
pub(super) struct HtmlExporter;

impl Exporter<CompareReport<'_>> for HtmlExporter {
    fn export(&self, r: &CompareReport) -> Result<Vec<Artifact>, ReportError> {
        let drawn = charts::draw(r.comparison, r.runs)?;
        let page = render(r.comparison, &drawn)?;
        let mut out = charts::artifacts(drawn);
        out.push(Artifact { file_name: "compare.html".into(), bytes: page.into_bytes() });
        Ok(out)
    }
}

#[derive(Serialize)]
struct Card {
    label: &'static str,
    before: String,
    after: String,
    change: String,
    verdict: String,
    class: &'static str,
}

#[derive(Serialize)]
struct Row {
    metric: String,
    before: String,
    after: String,
    delta: String,
    delta_pct: String,
    ci: String,
    p: String,
    verdict: String,
    class: &'static str,
}

#[derive(Serialize)]
struct Table {
    title: String,
    /// The header of the first column.
    first: &'static str,
    rows: Vec<Row>,
}

#[derive(Serialize)]
struct ChartView {
    title: String,
    file: String,
    src: String,
}

#[derive(Serialize)]
struct RunView {
    side: &'static str,
    trace: String,
    frames: usize,
    fps: String,
    hz: String,
}

#[derive(Serialize)]
struct GateView {
    rule: String,
    tripped: bool,
    state: &'static str,
    value: String,
    reason: String,
}

#[derive(Serialize)]
struct Page {
    fpsan_version: &'static str,
    title: String,
    runs_line: String,
    headline: String,
    overall_class: &'static str,
    indicative: Option<String>,
    cards: Vec<Card>,
    gates: Vec<GateView>,
    warnings: Vec<String>,
    tables: Vec<Table>,
    ci_label: String,
    charts: Vec<ChartView>,
    runs: Vec<RunView>,
    alpha: String,
    min_change: String,
    min_runs: usize,
}

/// The CSS class of a verdict cell: the verdict's word, or `neutral`.
fn class(shade: Option<Verdict>) -> &'static str {
    shade.map_or("neutral", Verdict::word)
}

fn row(r: words::Row) -> Row {
    let [metric, before, after, delta, delta_pct, ci, p, verdict] = r.cells;
    Row { metric, before, after, delta, delta_pct, ci, p, verdict, class: class(r.shade) }
}

/// The card of one of the app's metrics: its row's words.
fn card(app: &words::Table, name: &str, label: &'static str, unit: &str) -> Option<Card> {
    let r = app.rows.iter().find(|r| r.metric == name)?;
    let [_, before, after, delta, delta_pct, _, _, verdict] = &r.cells;
    Some(Card {
        label,
        before: format!("{before}{unit}"),
        after: format!("{after}{unit}"),
        // Without a Δ% (the before side is 0), the change in the metric's unit.
        change: if delta_pct == NONE { format!("Δ {delta}") } else { delta_pct.clone() },
        verdict: verdict.clone(),
        class: class(r.shade),
    })
}

fn page(c: &Comparison, charts: &[CompareChart]) -> Page {
    let (b, a) = c.run_counts();
    let w = words(c);
    let cards = [
        ("fps", "fps (Matrix, paced)", ""),
        ("frame_cost_p90", "frame cost P90", " ms"),
        ("jank_pct", "janky frames (≥ 1 dropped)", "%"),
        ("frozen_per_1000", "FROZEN frames per 1000", ""),
    ]
    .into_iter()
    .filter_map(|(name, label, unit)| card(&w.tables[0], name, label, unit))
    .collect();
    let tables = w
        .tables
        .into_iter()
        .map(|t| Table { title: t.title, first: t.first, rows: t.rows.into_iter().map(row).collect() })
        .collect();
    let runs = [("before", &c.before), ("after", &c.after)]
        .into_iter()
        .flat_map(|(side, s)| {
            s.runs.iter().map(move |r| RunView {
                side,
                trace: r.trace.clone(),
                frames: r.frames,
                fps: value(r.fps, "fps"),
                hz: r.refresh_hz.map_or(NONE.into(), fmt_hz),
            })
        })
        .collect();
    let b64 = base64::engine::general_purpose::STANDARD;
    Page {
        fpsan_version: c.fpsan_version,
        title: format!("{}: before vs after", c.app),
        runs_line: format!("{b} run(s) before, {a} run(s) after"),
        headline: w.headline,
        overall_class: overall_verdict(c).word(),
        indicative: w.indicative,
        cards,
        gates: c
            .gates
            .iter()
            .map(|g| GateView {
                rule: g.rule.clone(),
                tripped: g.tripped,
                state: g.status.label(),
                value: g.value.map_or(NONE.into(), |v| format!("{v:.3}")),
                reason: g.reason.clone().unwrap_or_default(),
            })
            .collect(),
        warnings: c.warnings.iter().map(|w| w.message.clone()).collect(),
        tables,
        ci_label: ci_label(&c.settings),
        charts: charts
            .iter()
            .map(|ch| ChartView {
                title: ch.title.clone(),
                file: ch.file_name.clone(),
                src: format!("data:image/png;base64,{}", b64.encode(&ch.png)),
            })
            .collect(),
        runs,
        alpha: format!("{}", c.settings.alpha),
        min_change: format!("{}", c.settings.min_change_pct),
        min_runs: c.min_runs_per_side,
    }
}

/// The page, HTML-escaped by minijinja (the template's `.html` name turns auto-escaping on).
pub(crate) fn render(c: &Comparison, charts: &[CompareChart]) -> Result<String, ReportError> {
    let mut env = Environment::new();
    env.add_template("compare.html", TEMPLATE).map_err(|e| ReportError::Write(format!("compare template: {e}")))?;
    let tmpl = env.get_template("compare.html").map_err(|e| ReportError::Write(e.to_string()))?;
    tmpl.render(page(c, charts)).map_err(|e| ReportError::Write(format!("compare template: {e:#}")))
}
