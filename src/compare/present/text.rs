//! What `compare` prints: a one-line headline, then a benchstat-like table
//! per app and scene (metric, before, after, Δ, Δ%, CI, p, verdict), as
//! aligned text (colour on a terminal only) or GitHub Markdown; then the
//! legend, the gates and the warnings.

use super::words::{overall_verdict, words, Table};
use super::CompareReport;
use crate::compare::comparison::Comparison;
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
/// each row, coloured by its shade.
fn text_table(out: &mut String, head: &[String; 8], t: &Table, color: bool) {
    let rows: Vec<Vec<String>> = t.rows.iter().map(|r| r.cells.to_vec()).collect();
    let lines = aligned_lines(&header(head, t), &rows, &RIGHT);
    out.push_str(&t.title);
    out.push('\n');
    out.push_str(&lines[0]);
    out.push('\n');
    for (line, row) in lines[1..].iter().zip(&t.rows) {
        match row.shade {
            Some(v) if color => {
                // The verdict ends the line, unpadded: colour that end.
                let (front, verdict) = line.split_at(line.len() - row.cells[7].len());
                out.push_str(&format!("{front}{}{verdict}\x1b[0m", colour(v)));
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
}

/// The header of `t`: the shared one, its first column named by the table.
fn header(head: &[String; 8], t: &Table) -> [String; 8] {
    let mut h = head.clone();
    h[0] = t.first.to_string();
    h
}

/// The terminal table.
pub(crate) fn table(c: &Comparison, color: bool) -> String {
    let w = words(c);
    let mut out = String::new();
    if color {
        // The headline is green, red, or yellow for anything else.
        let v = match overall_verdict(c) {
            v @ (Verdict::Better | Verdict::Worse) => v,
            _ => Verdict::Inconclusive,
        };
        out.push_str(&format!("\x1b[1m{}{}\x1b[0m\n", colour(v), w.headline));
    } else {
        out.push_str(&w.headline);
        out.push('\n');
    }
    if let Some(n) = &w.indicative {
        out.push_str(n);
        out.push('\n');
    }
    for t in &w.tables {
        out.push('\n');
        text_table(&mut out, &w.head, t, color);
    }
    out.push('\n');
    out.push_str(&w.legend);
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

fn md_table(out: &mut String, head: &[String; 8], t: &Table) {
    out.push_str(&format!("\n#### {}\n\n", md_escape(&t.title)));
    out.push_str(&format!("| {} |\n", header(head, t).join(" | ")));
    out.push_str("|---|---:|---:|---:|---:|---|---:|---|\n");
    for r in &t.rows {
        let c = r.cells.clone().map(|s| md_escape(&s));
        out.push_str(&format!("| `{}` | {} |\n", c[0], c[1..].join(" | ")));
    }
}

/// GitHub-flavoured Markdown for a review ticket or pull-request comment.
pub(crate) fn markdown(c: &Comparison) -> String {
    let w = words(c);
    let mut out = format!("**{}**\n", md_escape(&w.headline));
    if let Some(n) = &w.indicative {
        out.push_str(&format!("\n_{n}_\n"));
    }
    for t in &w.tables {
        md_table(&mut out, &w.head, t);
    }
    out.push_str(&format!("\n_{}_\n", md_escape(&w.legend)));
    gates_and_warnings(&mut out, c, "#### ", "- ");
    out
}
