//! The words every rendering of a comparison shares, each written once: the
//! headline, the note of an indicative comparison, the cells of a metric's
//! row (values by unit, Δ, the interval, p, the verdict cell), the legend,
//! how the overall word and a row are shaded, and the stderr line of a
//! tripped gate. [`words`] gathers what the table, Markdown and HTML all
//! show, so each format only lays it out.

use crate::compare::comparison::{
    zero_both, BlockerResult, Comparison, Family, GateResult, IndicativeGates, MetricResult, Settings,
};
use crate::compare::gate::GateRule;
use crate::compare::stats::decision::RUNS_NEEDED_CAP;
use crate::compare::stats::Verdict;
use crate::report::format::{shorten_head, NONE};

/// The interval's name at the settings' confidence: "95% CI", "90% CI",
/// "99.5% CI" (also in `ab`'s look lines).
pub(crate) fn ci_label(s: &Settings) -> String {
    let pct = format!("{:.3}", s.confidence * 100.0);
    format!("{}% CI", pct.trim_end_matches('0').trim_end_matches('.'))
}

/// How a value of `unit` is printed (without sign).
fn decimals(unit: &str) -> usize {
    match unit {
        "frames" => 0,
        "fps" | "ms" => 1,
        _ => 2,
    }
}

pub(super) fn value(v: Option<f64>, unit: &str) -> String {
    v.map_or(NONE.into(), |v| format!("{v:.*}", decimals(unit)))
}

fn signed(v: Option<f64>, unit: &str) -> String {
    v.map_or(NONE.into(), |v| format!("{v:+.*}", decimals(unit)))
}

fn pct(v: Option<f64>) -> String {
    v.map_or(NONE.into(), |v| format!("{v:+.1}%"))
}

fn ci(m: &MetricResult) -> String {
    m.ci.map_or(NONE.into(), |c| format!("[{}, {}]", signed(Some(c[0]), m.unit), signed(Some(c[1]), m.unit)))
}

/// The p the verdict used: adjusted in the headline's hierarchy (marked `*`).
fn p(m: &MetricResult) -> String {
    let mark = if m.family == Family::Headline { "*" } else { "" };
    m.p_adjusted.map_or(NONE.into(), |p| format!("{p:.3}{mark}"))
}

fn label(m: &MetricResult) -> String {
    let unit = match m.unit {
        "frames" | "fps" => String::new(),
        u => format!(" ({u})"),
    };
    format!("{}{unit}", m.metric)
}

/// The verdict a row is shaded by; None (neutral) when [`zero_both`]: no
/// test can call that `same` (±`--min-change`% of 0 is no margin at all), so
/// the table, Markdown and HTML say what happened instead, and compare.json
/// keeps the test's verdict beside `zero_both`.
fn shade(m: &MetricResult) -> Option<Verdict> {
    (!zero_both(m)).then_some(m.verdict)
}

/// `better ↑`, `inconclusive ? (≈12 runs)`, `no change (0 both)`.
pub(crate) fn verdict_cell(m: &MetricResult) -> String {
    if zero_both(m) {
        return "no change (0 both)".into();
    }
    let v = m.verdict;
    let needed = match m.runs_needed {
        Some(n) if n > RUNS_NEEDED_CAP => format!(" (>{RUNS_NEEDED_CAP} runs)"),
        Some(n) => format!(" (≈{n} runs)"),
        None => String::new(),
    };
    format!("{} {}{needed}", v.word(), v.symbol())
}

/// The verdict the overall word stands for (see `comparison::overall`):
/// `mixed` and `no clear change` read as inconclusive.
pub(super) fn overall_verdict(c: &Comparison) -> Verdict {
    match c.overall() {
        "smoother" | "faster start" | "better" => Verdict::Better,
        "less smooth" | "slower start" | "worse" => Verdict::Worse,
        "no change" => Verdict::Same,
        "indicative" => Verdict::Indicative,
        _ => Verdict::Inconclusive,
    }
}

/// `fps 28.1 → 50.4 (+79%)`.
fn headline_part(c: &Comparison, name: &str, what: &str, unit: &str) -> Option<String> {
    let m = c.metric(name)?;
    let change = match (name, m.delta_pct) {
        ("jank_pct", _) | (_, None) => String::new(),
        (_, Some(d)) => format!(" ({d:+.0}%)"),
    };
    let v = |x: Option<f64>| x.map_or(NONE.into(), |x| format!("{x:.1}"));
    // "12.5% → 1.7%", "41.2 → 16.3 ms".
    let (each, end) = if unit == "%" { ("%", "") } else { ("", unit) };
    Some(format!("{what} {}{each} → {}{each}{end}{change}", v(m.before), v(m.after)))
}

/// `com.example.app: smoother — fps 28.1 → 50.4 (+79%), … (3 vs 3 runs)`.
fn headline(c: &Comparison) -> String {
    use super::super::comparison::DecideOn;
    let frames = [
        headline_part(c, "fps", "fps", ""),
        headline_part(c, "frame_cost_p90", "frame cost P90", " ms"),
        headline_part(c, "jank_pct", "janky frames", "%"),
    ];
    let ttid = headline_part(c, "startup_ttid", "TTID", " ms");
    let parts: Vec<String> = match c.settings.decide_on {
        DecideOn::Frames => frames.into_iter().flatten().collect(),
        DecideOn::Startup => [ttid].into_iter().chain(frames).flatten().collect(),
        DecideOn::Both => frames.into_iter().chain([ttid]).flatten().collect(),
    };
    let (b, a) = c.run_counts();
    format!("{}: {} — {}  ({b} vs {a} runs)", c.app, c.overall(), parts.join(", "))
}

/// The line that says the comparison only describes, and what its gates do
/// then (`--indicative-gates`: not checked, or every one trips).
fn indicative_note(c: &Comparison) -> Option<String> {
    let (b, a) = c.run_counts();
    let gates = match c.settings.indicative_gates {
        IndicativeGates::Fail if !c.gates.is_empty() => {
            "no verdict is given and every --fail-if gate trips (--indicative-gates fail)"
        }
        _ => "no verdict is given and no gate is checked",
    };
    c.indicative.then(|| {
        format!(
            "indicative: {b} vs {a} runs cannot show a change at alpha {} (a test needs {} runs a side); \
             these numbers describe the captures, {gates}",
            c.settings.alpha, c.min_runs_per_side
        )
    })
}

/// The line under the table that says how to read it.
fn legend(c: &Comparison) -> String {
    format!(
        "before/after: median run; {}: of the shift after − before over the runs; \
         p: Mann–Whitney on per-run values (* adjusted: fps first, then Holm); verdict at alpha {}, min change {}%",
        ci_label(&c.settings),
        c.settings.alpha,
        c.settings.min_change_pct
    )
}

/// A metric's row: metric, before, after, Δ, Δ%, interval, p, verdict.
fn cells(m: &MetricResult) -> [String; 8] {
    [
        label(m),
        value(m.before, m.unit),
        value(m.after, m.unit),
        signed(m.delta, m.unit),
        pct(m.delta_pct),
        ci(m),
        p(m),
        verdict_cell(m),
    ]
}

/// The blockers' table title: what its values are.
pub(crate) const BLOCKERS_TITLE: &str = "blockers: critical-path time per frame, ms (exploratory)";

/// The tables cut a blocker's kind to this many characters (a slice name can
/// be a whole `relayoutWindow#…` parameter list); compare.json keeps it whole.
pub(crate) const KIND_CHARS: usize = 60;

/// A blocker kind's row: its kind (`thread / slice`) where a metric has its name; the unit is the table's.
fn blocker_row(b: &BlockerResult) -> Row {
    let mut cells = cells(&b.result);
    cells[0] = shorten_head(&b.kind, KIND_CHARS);
    Row { metric: b.result.metric, cells, shade: shade(&b.result) }
}

/// One row of a table: its metric, its [`cells`] and how its verdict is [`shade`]d.
pub(super) struct Row {
    pub metric: &'static str,
    pub cells: [String; 8],
    pub shade: Option<Verdict>,
}

/// The app's table, a scene's, or the blockers'.
pub(super) struct Table {
    pub title: String,
    /// The header of its first column: `metric`, or `blocker` (the kind, `thread / slice`).
    pub first: &'static str,
    pub rows: Vec<Row>,
}

/// What the table, Markdown and HTML all show, in words.
pub(super) struct Words {
    pub headline: String,
    pub indicative: Option<String>,
    /// The tables' header: metric, before, after, Δ, Δ%, the interval (`95% CI`), p, verdict.
    pub head: [String; 8],
    /// The app's table, then each scene's, then the blockers' (when the runs have any).
    pub tables: Vec<Table>,
    pub legend: String,
}

pub(super) fn words(c: &Comparison) -> Words {
    let table = |title: String, metrics: &[MetricResult]| Table {
        title,
        first: "metric",
        rows: metrics.iter().map(|m| Row { metric: m.metric, cells: cells(m), shade: shade(m) }).collect(),
    };
    let (b, a) = c.run_counts();
    let mut tables = vec![table(format!("{} ({b} vs {a} runs)", c.app), &c.metrics)];
    tables.extend(c.scenes.iter().map(|s| table(format!("scene {} (exploratory)", s.scene), &s.metrics)));
    if !c.blockers.is_empty() {
        tables.push(Table {
            title: BLOCKERS_TITLE.into(),
            first: "blocker",
            rows: c.blockers.iter().map(blocker_row).collect(),
        });
    }
    Words {
        headline: headline(c),
        indicative: indicative_note(c),
        head: ["metric", "before", "after", "Δ", "Δ%", &ci_label(&c.settings), "p", "verdict"].map(String::from),
        tables,
        legend: legend(c),
    }
}

/// The stderr line of a tripped rule: the rule, the values, the interval.
pub(crate) fn tripped_line(c: &Comparison, rule: &GateRule, gate: &GateResult) -> String {
    let f = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.3}"));
    let Some(m) = c.metric(&rule.metric) else {
        return format!("gate tripped: {}", rule.text);
    };
    if let Some(reason) = &gate.reason {
        return format!("gate tripped: {}: {reason}", rule.text);
    }
    format!(
        "gate tripped: {}: {}.{} = {} ({} {}); {} {} → {} (Δ {}, Δ% {}), {} {}, p (Holm over the gates) {}, verdict {}",
        rule.text,
        m.metric,
        rule.field.as_str(),
        f(gate.value),
        rule.op.as_str(),
        rule.threshold,
        m.metric,
        f(m.before),
        f(m.after),
        f(m.delta),
        f(m.delta_pct),
        ci_label(&c.settings),
        m.ci.map_or("n/a".into(), |c| format!("[{:.3}, {:.3}]", c[0], c[1])),
        f(gate.p_adjusted),
        m.verdict.word()
    )
}
