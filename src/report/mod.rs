//! Outputs of `fpsan analyze`. Every output format is one [`Exporter`]
//! (hyperfine's design): it turns the [`Report`] into named byte buffers.
//! The trait and the [`ExportManager`] are generic over what is exported,
//! so `compare` renders its comparison through them too.
//! The terminal table, `--format json` and `--format csv` are exporters whose
//! single artefact goes to stdout; `--out DIR` runs the [`ExportManager`]'s
//! exporters and writes their artefacts there (`frames.parquet`,
//! `frames.csv`, `summary.json`, `charts/*.png` and `report.html`), one
//! exporter per format: [`parquet`], [`csv`], [`json`], [`charts`] and
//! [`html`] (which draws through the charts exporter, so the charts are drawn
//! once), and [`table`] for the terminal. Numbers are formatted for people in
//! [`format`] only; [`cells`] turns tables into plain cells for the writers
//! that do not go through polars; [`info`] is `fpsan info`.

use std::path::{Path, PathBuf};

use polars::prelude::{DataFrame, PolarsError};

use crate::frames::FrameQuality;
use crate::metrics::AppSummary;
use crate::model::TraceMeta;

pub mod cells;
pub(crate) mod charts;
mod csv;
pub(crate) mod format;
pub mod html;
pub mod info;
mod json;
mod parquet;
pub(crate) use parquet::parquet_bytes;
pub use parquet::record_batch;
mod table;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot write {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("cannot create output directory {path}: {source}")]
    OutDir { path: PathBuf, source: std::io::Error },
    #[error("cannot build the table: {0}")]
    Polars(#[from] PolarsError),
    #[error("cannot encode output: {0}")]
    Write(String),
    #[error("cannot write to stdout: {0}")]
    Stdout(#[source] std::io::Error),
    /// A caller's mistake, not the input's: an output that shows the tables
    /// from an analysis told not to make them.
    #[error("the {0} table was not made: the analysis was run without its tables")]
    NoTable(&'static str),
}

impl ReportError {
    pub fn kind(&self) -> crate::error::ErrorKind {
        match self {
            // A table this input cannot make.
            ReportError::Polars(_) | ReportError::NoTable(_) => crate::error::ErrorKind::Input,
            ReportError::Io { .. } | ReportError::OutDir { .. } | ReportError::Write(_) | ReportError::Stdout(_) => {
                crate::error::ErrorKind::Io
            }
        }
    }
}

impl From<::csv::Error> for ReportError {
    fn from(e: ::csv::Error) -> Self {
        ReportError::Write(e.to_string())
    }
}

impl From<serde_json::Error> for ReportError {
    fn from(e: serde_json::Error) -> Self {
        ReportError::Write(e.to_string())
    }
}

/// Everything an exporter may show.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    pub meta: &'a TraceMeta,
    pub span_ns: i64,
    /// Apps in report order: the app that reached the screen most first,
    /// apps that draw nothing last (`metrics::summarize`).
    pub apps: &'a [AppSummary],
    /// The frames table of those apps (`tables::frames`); None when the
    /// analysis made no tables (`analysis::Options::tables`: the printed
    /// table shows none).
    pub frames: Option<&'a DataFrame>,
    /// Every frame of the trace (`FrameAnalysis::rows`; the table's
    /// `frame_index` is an index into it): the charts read their app's here.
    pub rows: &'a [crate::frames::FrameRow],
    /// The presents of the reported apps' layers (all layers without `--app`)
    /// and their renderers.
    pub presents: &'a crate::presents::PresentAnalysis,
    /// Those presents as the presents table; None as `frames`.
    pub presents_table: Option<&'a DataFrame>,
    /// Whole-trace reconstruction quality.
    pub quality: &'a FrameQuality,
    /// Trace warnings followed by analysis warnings.
    pub warnings: &'a [crate::model::Warning],
    /// The frame timeline's lanes (`report.html`'s "Frame timeline"); None
    /// when the analysis did not build them.
    pub lanes: Option<&'a crate::lanes::Lanes>,
    /// The reported apps' startups (docs/startups.md).
    pub startups: &'a [crate::startups::Startup],
    /// The reported apps' main-thread blocks (docs/blocks.md).
    pub blocks: &'a crate::blocks::BlockAnalysis,
    /// The reported apps' input events, gestures and summaries (docs/input.md).
    pub input: &'a crate::input::InputAnalysis,
}

impl<'a> Report<'a> {
    /// The report of a whole analysis (what `analyze --out` writes).
    pub fn of(a: &'a crate::analysis::Analysis) -> Report<'a> {
        Report {
            meta: &a.trace.meta,
            span_ns: a.trace.span_ns(),
            apps: &a.apps,
            frames: a.row_tables.as_ref().map(|t| &t.frames),
            rows: &a.frames.rows,
            presents: &a.presents,
            presents_table: a.row_tables.as_ref().map(|t| &t.presents),
            quality: &a.frames.quality,
            warnings: &a.warnings,
            lanes: a.lanes.as_ref(),
            startups: &a.startups.startups,
            blocks: &a.blocks,
            input: &a.input,
        }
    }
}

impl<'a> Report<'a> {
    /// The frames table, which an exporter showing it needs.
    pub(crate) fn frames_table(&self) -> Result<&'a DataFrame, ReportError> {
        self.frames.ok_or(ReportError::NoTable("frames"))
    }

    /// The presents table, which an exporter showing it needs.
    pub(crate) fn presents_table(&self) -> Result<&'a DataFrame, ReportError> {
        self.presents_table.ok_or(ReportError::NoTable("presents"))
    }

    /// The apps something of which reached the screen, in report order:
    /// each gets its summary, charts and details.
    pub(crate) fn drawing_apps(&self) -> impl Iterator<Item = &'a AppSummary> {
        self.apps.iter().filter(|a| !a.screen.draws_nothing())
    }

    /// The apps that animate but draw nothing (docs/metrics.md, "What
    /// reached the screen"): listed with their frames and CPU time only.
    pub(crate) fn animating_apps(&self) -> impl Iterator<Item = &'a AppSummary> {
        self.apps.iter().filter(|a| a.screen.draws_nothing())
    }

    /// Where times on the HTML page and the charts start: the trace start,
    /// else the first frame of any app (0 without apps).
    pub(crate) fn origin_ts(&self) -> i64 {
        self.meta.first_ts.unwrap_or_else(|| self.apps.iter().map(|a| a.first_ts).min().unwrap_or(0))
    }
}

/// One file (or stdout document) produced by an exporter.
#[derive(Debug, Clone, PartialEq)]
pub struct Artifact {
    /// File name inside `--out DIR`.
    pub file_name: String,
    pub bytes: Vec<u8>,
}

/// One output format of `R`: `analyze`'s [`Report`], or another command's
/// input (`compare`'s comparison with its runs).
pub trait Exporter<R> {
    /// Render `input`. Stdout formats return exactly one artefact.
    fn export(&self, input: &R) -> Result<Vec<Artifact>, ReportError>;
}

/// The exporter for a `--format` value on stdout.
pub(crate) fn stdout_exporter<'a>(format: StdoutFormat) -> Box<dyn Exporter<Report<'a>>> {
    match format {
        StdoutFormat::Table => Box::new(table::TableExporter),
        StdoutFormat::Json => Box::new(json::JsonExporter { file_name: "summary.json", include_frames: true }),
        StdoutFormat::Csv => Box::new(csv::CsvExporter { presents: false }),
    }
}

/// `--format` of `fpsan analyze`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StdoutFormat {
    #[default]
    Table,
    Json,
    Csv,
}

/// Render `report` for stdout.
pub fn render_stdout(format: StdoutFormat, report: &Report) -> Result<Vec<u8>, ReportError> {
    let artifacts = stdout_exporter(format).export(report)?;
    Ok(artifacts.into_iter().flat_map(|a| a.bytes).collect())
}

/// Write `report` for stdout into `w`. JSON is written as it is serialised, so
/// a trace with many frames never holds its whole document in memory.
pub fn write_stdout<W: std::io::Write>(format: StdoutFormat, report: &Report, mut w: W) -> Result<(), ReportError> {
    match format {
        StdoutFormat::Json => json::write(report, true, &mut w)?,
        other => w.write_all(&render_stdout(other, report)?).map_err(ReportError::Stdout)?,
    }
    w.flush().map_err(ReportError::Stdout)
}

/// The exporters run for `--out DIR`: trait objects `E` of [`Exporter`] over
/// one input, by default `analyze`'s [`Report`] (of any lifetime, so a
/// manager outlives the report it wrote).
pub struct ExportManager<E: ?Sized = dyn for<'a> Exporter<Report<'a>>> {
    exporters: Vec<Box<E>>,
}

impl Default for ExportManager {
    /// `frames.parquet`, `presents.parquet`, `frames.csv`, `presents.csv`,
    /// `summary.json`, `charts/*.png`, `report.html`.
    fn default() -> Self {
        let mut m = Self::new();
        m.add(Box::new(parquet::ParquetExporter));
        m.add(Box::new(csv::CsvExporter { presents: true }));
        m.add(Box::new(json::JsonExporter { file_name: "summary.json", include_frames: false }));
        m.add(Box::new(html::HtmlExporter::default()));
        m
    }
}

impl<E: ?Sized> ExportManager<E> {
    /// No exporter yet: [`ExportManager::add`] them.
    pub(crate) fn new() -> Self {
        ExportManager { exporters: Vec::new() }
    }

    pub(crate) fn add(&mut self, exporter: Box<E>) {
        self.exporters.push(exporter);
    }

    /// Render every artefact and write them into `dir` (created if needed).
    /// Only fpsan's own file names are written; other files in `dir` are left
    /// alone. Each exporter's files are written (under temporary names) as
    /// soon as it has rendered them, so one exporter's bytes are in memory at
    /// a time, not the whole report's; they take their real names only once
    /// every exporter has succeeded, so a failed run leaves neither half a
    /// file nor half a report under the real names.
    pub fn write<R>(&self, dir: &Path, input: &R) -> Result<Vec<PathBuf>, ReportError>
    where
        E: Exporter<R>,
    {
        std::fs::create_dir_all(dir).map_err(|source| ReportError::OutDir { path: dir.to_path_buf(), source })?;
        let mut staged = Staged::default();
        for e in &self.exporters {
            for a in e.export(input)? {
                staged.write(dir, &a.file_name, &a.bytes)?;
            }
        }
        staged.commit()
    }
}

/// Files written under temporary names beside their final ones; removed
/// again unless [`Staged::commit`] renames them into place.
#[derive(Default)]
struct Staged {
    /// (temporary path, final path)
    files: Vec<(PathBuf, PathBuf)>,
    /// The final paths in `files`: a name written twice keeps the last bytes.
    names: std::collections::HashSet<PathBuf>,
}

impl Staged {
    /// Write `bytes` as `dir/.NAME.fpsan-tmp` (`name` may be in a
    /// subfolder, `charts/x.png`, which is created).
    fn write(&mut self, dir: &Path, name: &str, bytes: &[u8]) -> Result<(), ReportError> {
        let path = dir.join(name);
        let parent = path.parent().unwrap_or(dir);
        if parent != dir {
            std::fs::create_dir_all(parent).map_err(|source| ReportError::Io { path: parent.to_path_buf(), source })?;
        }
        let base = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let tmp = parent.join(format!(".{base}.fpsan-tmp"));
        if self.names.insert(path.clone()) {
            self.files.push((tmp.clone(), path.clone()));
        }
        std::fs::write(&tmp, bytes).map_err(|source| ReportError::Io { path, source })
    }

    /// Give every staged file its real name.
    fn commit(mut self) -> Result<Vec<PathBuf>, ReportError> {
        let files = std::mem::take(&mut self.files);
        let mut done = Vec::with_capacity(files.len());
        for (i, (tmp, path)) in files.iter().enumerate() {
            if let Err(source) = std::fs::rename(tmp, path) {
                self.files = files[i..].to_vec();
                return Err(ReportError::Io { path: path.clone(), source });
            }
            done.push(path.clone());
        }
        Ok(done)
    }
}

impl Drop for Staged {
    /// A run that failed removes the files it staged.
    fn drop(&mut self) {
        for (tmp, _) in &self.files {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

#[cfg(test)]
pub(crate) mod fixture;
#[cfg(test)]
mod tests;
