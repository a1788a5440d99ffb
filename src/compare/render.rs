//! What `compare` prints: a one-line headline, then a benchstat-like table
//! per app and scene (metric, before, after, Δ, Δ%, CI, p, verdict), as
//! aligned text (colour on a terminal only), GitHub Markdown, or the JSON
//! document.

use super::comparison::{Comparison, Family, MetricResult};
use super::stats::decision::RUNS_NEEDED_CAP;
use super::stats::Verdict;

/// `--format` of `fpsan compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompareFormat {
    #[default]
    Table,
    Json,
    Markdown,
}

/// How a value of `unit` is printed (without sign).
fn decimals(unit: &str) -> usize {
    match unit {
        "frames" => 0,
        "fps" | "ms" => 1,
        _ => 2,
    }
}

pub(crate) fn value(v: Option<f64>, unit: &str) -> String {
    v.map_or("–".into(), |v| format!("{v:.*}", decimals(unit)))
}

pub(crate) fn signed(v: Option<f64>, unit: &str) -> String {
    v.map_or("–".into(), |v| format!("{v:+.*}", decimals(unit)))
}

fn pct(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{v:+.1}%"))
}

fn ci(m: &MetricResult) -> String {
    m.ci.map_or("–".into(), |c| format!("[{}, {}]", signed(Some(c[0]), m.unit), signed(Some(c[1]), m.unit)))
}

/// The p the verdict used: adjusted in the headline's hierarchy (marked `*`).
fn p(m: &MetricResult) -> String {
    let mark = if m.family == Family::Headline { "*" } else { "" };
    m.p_adjusted.map_or("–".into(), |p| format!("{p:.3}{mark}"))
}

fn label(m: &MetricResult) -> String {
    let unit = match m.unit {
        "frames" | "fps" => String::new(),
        u => format!(" ({u})"),
    };
    format!("{}{unit}", m.metric)
}

/// Every run of both sides is 0 (FROZEN frames of two smooth builds). No
/// test can call that `same` (±`--min-change`% of 0 is no margin at all), so
/// the JSON keeps the test's verdict; the table, Markdown and HTML say what
/// happened instead: nothing changed.
pub(crate) fn zero_both(m: &MetricResult) -> bool {
    m.before == Some(0.0)
        && m.after == Some(0.0)
        && m.before_runs.iter().chain(&m.after_runs).flatten().all(|&v| v == 0.0)
}

/// The verdict a row is coloured by; None (neutral) when [`zero_both`].
pub(crate) fn shade(m: &MetricResult) -> Option<Verdict> {
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

/// The overall word (see `comparison::overall`).
pub(crate) fn overall(c: &Comparison) -> &'static str {
    c.overall
}

/// `fps 28.1 → 50.4 (+79%)`.
fn headline_part(c: &Comparison, name: &str, what: &str, unit: &str) -> Option<String> {
    let m = c.metric(name)?;
    let change = match (name, m.delta_pct) {
        ("jank_pct", _) | (_, None) => String::new(),
        (_, Some(d)) => format!(" ({d:+.0}%)"),
    };
    let v = |x: Option<f64>| x.map_or("–".into(), |x| format!("{x:.1}"));
    // "12.5% → 1.7%", "41.2 → 16.3 ms".
    let (each, end) = if unit == "%" { ("%", "") } else { ("", unit) };
    Some(format!("{what} {}{each} → {}{each}{end}{change}", v(m.before), v(m.after)))
}

/// `com.example.app: smoother — fps 28.1 → 50.4 (+79%), … (3 vs 3 runs)`.
pub(crate) fn headline(c: &Comparison) -> String {
    let parts: Vec<String> = [
        headline_part(c, "fps", "fps", ""),
        headline_part(c, "frame_cost_p90", "frame cost P90", " ms"),
        headline_part(c, "jank_pct", "janky frames", "%"),
    ]
    .into_iter()
    .flatten()
    .collect();
    let (b, a) = c.run_counts();
    format!("{}: {} — {}  ({b} vs {a} runs)", c.app, overall(c), parts.join(", "))
}

/// The line that says the comparison only describes.
pub(crate) fn indicative_note(c: &Comparison) -> Option<String> {
    let (b, a) = c.run_counts();
    c.indicative.then(|| {
        format!(
            "indicative: {b} vs {a} runs cannot show a change at alpha {} (a test needs {} runs a side); \
             these numbers describe the captures, no verdict is given and no gate is checked",
            c.settings.alpha, c.min_runs_per_side
        )
    })
}

/// The line under the table that says how to read it.
fn legend(c: &Comparison) -> String {
    format!(
        "before/after: median run; {}: of the shift after − before over the runs; \
         p: Mann–Whitney on per-run values (* adjusted: fps first, then Holm); verdict at alpha {}, min change {}%",
        c.settings.ci_label(),
        c.settings.alpha,
        c.settings.min_change_pct
    )
}

pub(crate) fn cells(m: &MetricResult) -> [String; 8] {
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

fn table_head(c: &Comparison) -> [String; 8] {
    ["metric", "before", "after", "Δ", "Δ%", &c.settings.ci_label(), "p", "verdict"].map(String::from)
}

fn colour(v: Verdict) -> &'static str {
    match v {
        Verdict::Better => "\x1b[32m",
        Verdict::Worse => "\x1b[31m",
        Verdict::Same => "\x1b[2m",
        Verdict::Inconclusive => "\x1b[33m",
        Verdict::Indicative | Verdict::Descriptive => "",
    }
}

/// One aligned text table.
fn text_table(out: &mut String, head: &[String; 8], title: &str, metrics: &[MetricResult], color: bool) {
    let rows: Vec<[String; 8]> = metrics.iter().map(cells).collect();
    let width =
        |k: usize| rows.iter().map(|r| r[k].chars().count()).chain([head[k].chars().count()]).max().unwrap_or(0);
    let widths: Vec<usize> = (0..8).map(width).collect();
    out.push_str(title);
    out.push('\n');
    let line = |cells: &[String], out: &mut String, verdict: Option<Verdict>| {
        for (k, c) in cells.iter().enumerate() {
            let pad = widths[k].saturating_sub(c.chars().count());
            let text = match (k, verdict) {
                (7, Some(v)) if color => format!("{}{c}\x1b[0m", colour(v)),
                _ => c.clone(),
            };
            // Text left, numbers right.
            if k == 0 || k >= 5 {
                out.push_str(&text);
                if k < 7 {
                    out.push_str(&" ".repeat(pad + 2));
                }
            } else {
                out.push_str(&" ".repeat(pad));
                out.push_str(&text);
                out.push_str("  ");
            }
        }
        out.push('\n');
    };
    line(head, out, None);
    for (r, m) in rows.iter().zip(metrics) {
        line(r, out, shade(m));
    }
}

/// The terminal table.
pub(crate) fn table(c: &Comparison, color: bool) -> String {
    let mut out = String::new();
    let head = headline(c);
    if color {
        let v = match overall(c) {
            "smoother" => Verdict::Better,
            "less smooth" => Verdict::Worse,
            _ => Verdict::Inconclusive,
        };
        out.push_str(&format!("\x1b[1m{}{head}\x1b[0m\n", colour(v)));
    } else {
        out.push_str(&head);
        out.push('\n');
    }
    if let Some(n) = indicative_note(c) {
        out.push_str(&n);
        out.push('\n');
    }
    out.push('\n');
    let (b, a) = c.run_counts();
    let head = table_head(c);
    text_table(&mut out, &head, &format!("{} ({b} vs {a} runs)", c.app), &c.metrics, color);
    for s in &c.scenes {
        out.push('\n');
        text_table(&mut out, &head, &format!("scene {} (exploratory)", s.scene), &s.metrics, color);
    }
    out.push('\n');
    out.push_str(&legend(c));
    out.push('\n');
    gates_and_warnings(&mut out, c, "", "  - ");
    out
}

fn gates_and_warnings(out: &mut String, c: &Comparison, heading: &str, bullet: &str) {
    if !c.gates.is_empty() {
        out.push_str(&format!("\n{heading}gates:\n"));
        for g in &c.gates {
            let state = g.status.label();
            let v = g.value.map_or("n/a".into(), |v| format!("{v:.3}"));
            let why = g.reason.as_ref().map_or(String::new(), |r| format!("; {r}"));
            out.push_str(&format!("{bullet}{state}: `{}` (value {v}{why})\n", g.rule));
        }
    }
    if !c.warnings.is_empty() {
        out.push_str(&format!("\n{heading}warnings:\n"));
        for w in &c.warnings {
            out.push_str(&format!("{bullet}{w}\n"));
        }
    }
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
}

fn md_table(out: &mut String, head: &[String; 8], title: &str, metrics: &[MetricResult]) {
    out.push_str(&format!("\n#### {}\n\n", md_escape(title)));
    out.push_str(&format!("| {} |\n", head.join(" | ")));
    out.push_str("|---|---:|---:|---:|---:|---|---:|---|\n");
    for m in metrics {
        let c = cells(m).map(|s| md_escape(&s));
        out.push_str(&format!("| `{}` | {} |\n", c[0], c[1..].join(" | ")));
    }
}

/// GitHub-flavoured Markdown for a review ticket or pull-request comment.
pub(crate) fn markdown(c: &Comparison) -> String {
    let mut out = format!("**{}**\n", md_escape(&headline(c)));
    if let Some(n) = indicative_note(c) {
        out.push_str(&format!("\n_{n}_\n"));
    }
    let (b, a) = c.run_counts();
    let head = table_head(c);
    md_table(&mut out, &head, &format!("{} ({b} vs {a} runs)", c.app), &c.metrics);
    for s in &c.scenes {
        md_table(&mut out, &head, &format!("scene {} (exploratory)", s.scene), &s.metrics);
    }
    out.push_str(&format!("\n_{}_\n", md_escape(&legend(c))));
    gates_and_warnings(&mut out, c, "#### ", "- ");
    out
}

/// The JSON document.
pub(crate) fn json(c: &Comparison) -> Result<Vec<u8>, serde_json::Error> {
    let mut b = serde_json::to_vec_pretty(c)?;
    b.push(b'\n');
    Ok(b)
}
