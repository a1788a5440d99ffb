//! Every rendering of a comparison, each format one
//! [`Exporter`](crate::report::Exporter) over a [`CompareReport`], as
//! `analyze`'s formats are over its `Report`: the terminal table and
//! Markdown ([`text`]), the JSON document ([`json`]), `compare.html` with
//! the charts it inlines ([`html`], drawing through [`charts`]) and
//! `frames.parquet` ([`frames`]). `--out DIR` writes through an
//! [`ExportManager`] (each file staged, renamed into place once every
//! exporter has succeeded). The words the formats share are [`words`]'s.

use std::path::{Path, PathBuf};

use super::comparison::{Comparison, IndicativeGates};
use super::gate::GateRule;
use super::runs::Run;
use crate::report::{ExportManager, Exporter, ReportError};

mod charts;
mod frames;
pub(super) mod html;
pub(super) mod json;
pub(super) mod text;
pub(super) mod words;

pub(crate) use words::ci_label;

/// `--format` of `fpsan compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompareFormat {
    #[default]
    Table,
    Json,
    Markdown,
}

/// What every exporter of `compare` renders: the comparison, and the runs it
/// was made of (the charts draw their frames, frames.parquet holds them).
pub(crate) struct CompareReport<'a> {
    pub comparison: &'a Comparison,
    pub runs: &'a [Vec<Run>; 2],
}

/// The comparison rendered: what `Outcome` carries, less the timings.
pub(super) struct Presented {
    pub stdout: Vec<u8>,
    pub markdown: String,
    /// Lines for stderr, after the ones of loading.
    pub notes: Vec<String>,
    pub tripped: Vec<String>,
    pub written: Vec<PathBuf>,
}

/// An exporter of `compare`'s, over a comparison of any lifetime.
type CompareExporter = dyn for<'a> Exporter<CompareReport<'a>>;

/// The exporter of a `--format` on stdout.
fn stdout_exporter(format: CompareFormat, color: bool) -> Box<CompareExporter> {
    match format {
        CompareFormat::Table => Box::new(text::TableExporter { color }),
        CompareFormat::Json => Box::new(json::JsonExporter),
        CompareFormat::Markdown => Box::new(text::MarkdownExporter),
    }
}

/// `compare.html` with `charts/compare-*.png`, `compare.json`, `frames.parquet`.
fn out_manager() -> ExportManager<CompareExporter> {
    let mut m: ExportManager<CompareExporter> = ExportManager::new();
    m.add(Box::new(html::HtmlExporter));
    m.add(Box::new(json::JsonExporter));
    m.add(Box::new(frames::FramesExporter));
    m
}

/// How `compare` was asked to show its result (`CompareRequest`'s `format`, `color`, `out`).
pub(super) struct Show<'a> {
    pub format: CompareFormat,
    pub color: bool,
    pub out: Option<&'a Path>,
}

/// Write `--out`, render the output for stdout and the Markdown, and say on
/// stderr what the output does not: the files written, the warnings under
/// JSON, the gates an indicative comparison did not check, the tripped gates.
pub(super) fn present(r: &CompareReport, rules: &[GateRule], how: &Show) -> Result<Presented, ReportError> {
    let c = r.comparison;
    let mut notes = Vec::new();
    let mut written = Vec::new();
    if let Some(dir) = how.out {
        written = out_manager().write(dir, r)?;
        notes.push(format!("wrote {} files to {}", written.len(), dir.display()));
    }
    if how.format == CompareFormat::Json {
        // The table and Markdown list the warnings; JSON keeps stdout for the document.
        notes.extend(c.warnings.iter().map(|w| w.line()));
    }
    let stdout = stdout_exporter(how.format, how.color).export(r)?.into_iter().flat_map(|a| a.bytes).collect();
    if c.indicative && !rules.is_empty() && c.settings.indicative_gates == IndicativeGates::Pass {
        let (b, af) = c.run_counts();
        notes.push(format!(
            "gates not checked: the comparison is indicative ({b} vs {af} runs; a test needs {} a side at alpha {}); \
             record more runs, or pass --indicative-gates fail to fail closed",
            c.min_runs_per_side, c.settings.alpha
        ));
    }
    let tripped = (c.gates.iter().zip(rules))
        .filter(|(g, _)| g.tripped)
        .map(|(g, rule)| words::tripped_line(c, rule, g))
        .collect();
    Ok(Presented { stdout, markdown: text::markdown(c), notes, tripped, written })
}
