//! `compare.html`: one self-contained page like `report.html` (inline CSS,
//! charts as base64 PNG `data:` URIs, no script, nothing fetched): verdict
//! cards, the tables, the charts, the runs. A minijinja template
//! (`templates/compare.html`) over a view model of preformatted strings.

use base64::Engine as _;
use minijinja::Environment;
use serde::Serialize;

use super::charts::CompareChart;
use super::comparison::{verdict_word, Comparison, MetricResult};
use super::render::{headline, indicative_note, overall, verdict_cell};
use super::stats::Verdict;
use crate::report::ReportError;

const TEMPLATE: &str = include_str!("templates/compare.html");

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
    value: String,
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
    resamples: usize,
    seed: u64,
    min_change: String,
}

fn class(v: Verdict) -> &'static str {
    verdict_word(v)
}

fn num(v: Option<f64>, decimals: usize, signed: bool) -> String {
    match v {
        Some(v) if signed => format!("{v:+.decimals$}"),
        Some(v) => format!("{v:.decimals$}"),
        None => "–".into(),
    }
}

fn decimals(unit: &str) -> usize {
    match unit {
        "frames" => 0,
        "fps" | "ms" => 1,
        _ => 2,
    }
}

fn row(m: &MetricResult) -> Row {
    let d = decimals(m.unit);
    let unit = match m.unit {
        "frames" | "fps" => String::new(),
        u => format!(" ({u})"),
    };
    Row {
        metric: format!("{}{unit}", m.metric),
        before: num(m.before, d, false),
        after: num(m.after, d, false),
        delta: num(m.delta, d, true),
        delta_pct: m.delta_pct.map_or("–".into(), |p| format!("{p:+.1}%")),
        ci: m.ci95.map_or("–".into(), |c| {
            format!("[{}, {}]", num(Some(c[0]), d, true), num(Some(c[1]), d, true))
        }),
        p: m.p_value.map_or("–".into(), |p| format!("{p:.3}")),
        verdict: verdict_cell(m.verdict),
        class: class(m.verdict),
    }
}

fn card(c: &Comparison, name: &str, label: &'static str, unit: &str) -> Option<Card> {
    let m = c.metric(name)?;
    let d = decimals(m.unit);
    Some(Card {
        label,
        before: format!("{}{unit}", num(m.before, d, false)),
        after: format!("{}{unit}", num(m.after, d, false)),
        change: m
            .delta_pct
            .map_or_else(|| format!("Δ {}", num(m.delta, d, true)), |p| format!("{p:+.1}%")),
        verdict: verdict_cell(m.verdict),
        class: class(m.verdict),
    })
}

fn page(c: &Comparison, charts: &[CompareChart], alpha: f64, seed: u64, min_change: f64, resamples: usize) -> Page {
    let (b, a) = c.run_counts();
    let mut tables = vec![Table {
        title: format!("{} ({b} vs {a} runs)", c.app),
        rows: c.metrics.iter().map(row).collect(),
    }];
    tables.extend(c.scenes.iter().map(|s| Table {
        title: format!("scene {}", s.scene),
        rows: s.metrics.iter().map(row).collect(),
    }));
    let runs = [("before", &c.before), ("after", &c.after)]
        .into_iter()
        .flat_map(|(side, s)| {
            s.runs.iter().map(move |r| RunView {
                side,
                trace: r.trace.clone(),
                frames: r.frames,
                fps: num(r.fps, 1, false),
                hz: r.refresh_hz.map_or("–".into(), |h| format!("{h:.0} Hz")),
            })
        })
        .collect();
    let b64 = base64::engine::general_purpose::STANDARD;
    Page {
        fpsan_version: c.fpsan_version,
        title: format!("{}: before vs after", c.app),
        runs_line: format!("{b} run(s) before, {a} run(s) after"),
        headline: headline(c),
        overall_class: match overall(c) {
            "smoother" => "better",
            "less smooth" => "worse",
            "no change" => "same",
            _ => "inconclusive",
        },
        indicative: indicative_note(c),
        cards: [
            card(c, "fps", "fps (Matrix, paced)", ""),
            card(c, "frame_cost_p90", "frame cost P90", " ms"),
            card(c, "jank_pct", "janky frames (≥ 1 dropped)", "%"),
            card(c, "frozen_per_1000", "FROZEN frames per 1000", ""),
        ]
        .into_iter()
        .flatten()
        .collect(),
        gates: c
            .gates
            .iter()
            .map(|g| GateView {
                rule: g.rule.clone(),
                tripped: g.tripped,
                value: num(g.value, 3, false),
            })
            .collect(),
        warnings: c.warnings.clone(),
        tables,
        ci_label: format!("{:.0}% CI", (1.0 - alpha) * 100.0),
        charts: charts
            .iter()
            .map(|ch| ChartView {
                title: ch.title.clone(),
                file: ch.file_name.clone(),
                src: format!("data:image/png;base64,{}", b64.encode(&ch.png)),
            })
            .collect(),
        runs,
        resamples,
        seed,
        min_change: format!("{min_change}"),
    }
}

/// The page, HTML-escaped by minijinja (the template's `.html` name turns auto-escaping on).
pub(crate) fn render(
    c: &Comparison,
    charts: &[CompareChart],
    alpha: f64,
    seed: u64,
    min_change: f64,
    resamples: usize,
) -> Result<String, ReportError> {
    let mut env = Environment::new();
    env.add_template("compare.html", TEMPLATE)
        .map_err(|e| ReportError::Write(format!("compare template: {e}")))?;
    let tmpl = env
        .get_template("compare.html")
        .map_err(|e| ReportError::Write(e.to_string()))?;
    tmpl.render(page(c, charts, alpha, seed, min_change, resamples))
        .map_err(|e| ReportError::Write(format!("compare template: {e:#}")))
}
