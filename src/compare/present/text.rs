//! What `compare` prints: a one-line headline, then a benchstat-like table
//! per app and scene (metric, before, after, Δ, Δ%, CI, p, verdict), as
//! aligned text (colour on a terminal only) or GitHub Markdown; then the
//! legend, the gates and the warnings.

use super::words::{app_title, cells, headline, indicative_note, legend, overall_verdict, scene_title, shade, table_head};
use super::CompareReport;
use crate::compare::comparison::{Comparison, MetricResult};
use crate::compare::stats::Verdict;
use crate::report::{cells::aligned_lines, Artifact, Exporter, ReportError};

/// `--format table`: the aligned text table, coloured on a terminal.
pub(super) struct TableExporter {
    pub color: bool,
}

impl Exporter<CompareReport<'_>> for TableExporter {
    fn export(&self, r: &CompareReport) -> Result<Vec<Artifact>, ReportError> {
        Ok(vec![Artifact { file_name: "compare.txt".into(), bytes: table(r.comparison, self.color).into_bytes() }])
    }
}

/// `--format markdown`.
pub(super) struct MarkdownExporter;

impl Exporter<CompareReport<'_>> for MarkdownExporter {
    fn export(&self, r: &CompareReport) -> Result<Vec<Artifact>, ReportError> {
        Ok(vec![Artifact { file_name: "compare.md".into(), bytes: markdown(r.comparison).into_bytes() }])
    }
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

/// Text left, numbers right.
const RIGHT: [bool; 8] = [false, true, true, true, true, false, false, false];

/// One aligned text table under its title; the verdict, the last cell of
/// each row, coloured by [`shade`].
fn text_table(out: &mut String, head: &[String; 8], title: &str, metrics: &[MetricResult], color: bool) {
    let rows: Vec<Vec<String>> = metrics.iter().map(|m| cells(m).to_vec()).collect();
    let lines = aligned_lines(head, &rows, &RIGHT);
    out.push_str(title);
    out.push('\n');
    out.push_str(&lines[0]);
    out.push('\n');
    for ((line, row), m) in lines[1..].iter().zip(&rows).zip(metrics) {
        match shade(m) {
            Some(v) if color => {
                // The verdict ends the line, unpadded: colour that end.
                let (front, verdict) = line.split_at(line.len() - row[7].len());
                out.push_str(&format!("{front}{}{verdict}\x1b[0m", colour(v)));
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
}

/// The terminal table.
pub(crate) fn table(c: &Comparison, color: bool) -> String {
    let mut out = String::new();
    let head = headline(c);
    if color {
        // The headline is green, red, or yellow for anything else.
        let v = match overall_verdict(c) {
            v @ (Verdict::Better | Verdict::Worse) => v,
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
    let head = table_head(c);
    text_table(&mut out, &head, &app_title(c), &c.metrics, color);
    for s in &c.scenes {
        out.push('\n');
        text_table(&mut out, &head, &scene_title(&s.scene), &s.metrics, color);
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
    let head = table_head(c);
    md_table(&mut out, &head, &app_title(c), &c.metrics);
    for s in &c.scenes {
        md_table(&mut out, &head, &scene_title(&s.scene), &s.metrics);
    }
    out.push_str(&format!("\n_{}_\n", md_escape(&legend(c))));
    gates_and_warnings(&mut out, c, "#### ", "- ");
    out
}
