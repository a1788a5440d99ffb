//! `fpsan._fpsan`: the extension module under the `fpsan` Python package
//! (docs/python.md). Each function runs the same library entry point as the
//! command line (`analysis::analyze`, `query::run`, `compare::run`) with the
//! GIL released, turns its tables into Arrow record batches (the Parquet
//! files' types) handed out through the Arrow C stream interface, and its
//! errors into the package's exceptions with the command line's one-line
//! messages. The Python side (`fpsan/__init__.py`) wraps the results.

use std::ffi::CString;
use std::path::PathBuf;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};

use fpsan::analysis::{self, AnalysisError};
use fpsan::error::ErrorKind;
use fpsan::metrics::AppFilter;
use fpsan::sink::one_line;

create_exception!(_fpsan, FpsanError, PyException, "Every error fpsan raises.");
create_exception!(
    _fpsan,
    TraceError,
    FpsanError,
    "The file is not a trace fpsan can read, or it is damaged beyond use."
);
create_exception!(_fpsan, NoFramesError, FpsanError, "The trace has no frames (of the app asked for).");
create_exception!(
    _fpsan,
    UsageError,
    FpsanError,
    "An argument is wrong: SQL that does not run, a gate rule that does not parse, a bad alpha or refresh_hz."
);

/// Which exception an error becomes; errors cross the GIL-free sections as
/// `(Kind, message)` and are raised once the GIL is held again.
enum Kind {
    Trace,
    NoFrames,
    Usage,
    Other,
}

type Failure = (Kind, String);

fn raise((kind, msg): Failure) -> PyErr {
    let msg = one_line(&msg);
    match kind {
        Kind::Trace => TraceError::new_err(msg),
        Kind::NoFrames => NoFramesError::new_err(msg),
        Kind::Usage => UsageError::new_err(msg),
        Kind::Other => FpsanError::new_err(msg),
    }
}

fn analysis_failure(e: AnalysisError) -> Failure {
    let kind = match e {
        AnalysisError::Read(_) => Kind::Trace,
        AnalysisError::NoFrames { .. } | AnalysisError::NoFramesForApp { .. } => Kind::NoFrames,
        _ => Kind::Other,
    };
    (kind, e.to_string())
}

/// A library error's class by its kind: what the command line exits 2 for
/// is a `UsageError`, an unusable input `input`, the rest `FpsanError`.
fn failure(kind: ErrorKind, input: Kind, e: impl std::fmt::Display) -> Failure {
    let kind = match kind {
        ErrorKind::Usage => Kind::Usage,
        ErrorKind::Input => input,
        ErrorKind::Io | ErrorKind::Gate | ErrorKind::Interrupted => Kind::Other,
    };
    (kind, e.to_string())
}

fn other(e: impl std::fmt::Display) -> Failure {
    (Kind::Other, e.to_string())
}

/// A table: record batches with one schema, given to any Arrow consumer
/// (pyarrow, polars, pandas through pyarrow, duckdb) by `__arrow_c_stream__`
/// without a copy, as often as asked.
#[pyclass(module = "fpsan._fpsan", frozen)]
struct Table {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

#[pymethods]
impl Table {
    /// The Arrow PyCapsule stream protocol. `requested_schema` is accepted
    /// and ignored: the table has one schema.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let batches: Vec<Result<RecordBatch, ArrowError>> = self.batches.iter().cloned().map(Ok).collect();
        let reader = RecordBatchIterator::new(batches, self.schema.clone());
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        let name = CString::new("arrow_array_stream").expect("no NUL");
        PyCapsule::new(py, stream, Some(name))
    }

    /// Rows in all batches.
    fn __len__(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// The column names, in order.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.schema.fields().iter().map(|f| f.name().clone()).collect()
    }

    fn __repr__(&self) -> String {
        format!("<fpsan table: {} rows × {} columns>", self.__len__(), self.schema.fields().len())
    }

    /// The table as a `pyarrow.Table` (needs pyarrow).
    fn to_arrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("pyarrow")?.call_method1("table", (slf,))
    }

    /// The table as a pandas DataFrame (needs pyarrow and pandas).
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::to_arrow(slf)?.call_method0("to_pandas")
    }

    /// The table as a polars DataFrame (needs polars).
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("polars")?.call_method1("DataFrame", (slf,))
    }
}

fn table(df: &polars::prelude::DataFrame) -> Result<Table, Failure> {
    let batch = fpsan::report::record_batch(df).map_err(other)?;
    Ok(Table { schema: batch.schema(), batches: vec![batch] })
}

/// `refresh_hz` as the command line takes `--refresh-hz`: a positive number, or None.
fn refresh(refresh_hz: Option<f64>) -> PyResult<Option<f64>> {
    match refresh_hz {
        Some(hz) if !(hz.is_finite() && hz > 0.0) => {
            Err(raise((Kind::Usage, format!("refresh_hz must be a positive number, got {hz}"))))
        }
        _ => Ok(refresh_hz),
    }
}

fn options(app: Option<String>, refresh_hz: Option<f64>, whole_trace: bool) -> PyResult<analysis::Options> {
    Ok(analysis::Options {
        frames: fpsan::frames::FrameOptions { refresh_hz: refresh(refresh_hz)?, ..analysis::Options::default().frames },
        filter: app.map_or(AppFilter::All, AppFilter::Package),
        whole_trace,
        ..Default::default()
    })
}

/// Analyse a trace: a dict of its tables (`frames`, `apps`, `scenes`,
/// `presents`), `warnings` and the trace's facts as `summary` (the JSON of
/// `analyze --format json`).
#[pyfunction]
#[pyo3(signature = (path, app=None, refresh_hz=None, whole_trace=false))]
fn analyze<'py>(
    py: Python<'py>,
    path: PathBuf,
    app: Option<String>,
    refresh_hz: Option<f64>,
    whole_trace: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let opts = options(app, refresh_hz, whole_trace)?;
    let (tables, warnings, summary) = py
        .allow_threads(|| -> Result<_, Failure> {
            let a = analysis::analyze(&path, &opts).map_err(analysis_failure)?;
            let all = a.tables().map_err(other)?;
            let mut summary = Vec::new();
            let report = fpsan::report::Report::of(&a);
            fpsan::report::write_stdout(fpsan::report::StdoutFormat::Json, &report, &mut summary).map_err(other)?;
            let tables: Vec<(&str, Table)> =
                all.iter().map(|(t, df)| Ok((t.name(), table(df)?))).collect::<Result<_, Failure>>()?;
            let warnings: Vec<String> = a.warnings.iter().map(|w| w.line()).collect();
            Ok((tables, warnings, String::from_utf8_lossy(&summary).into_owned()))
        })
        .map_err(raise)?;
    let d = PyDict::new(py);
    for (name, t) in tables {
        d.set_item(name, t)?;
    }
    d.set_item("warnings", warnings)?;
    d.set_item("summary_json", summary)?;
    Ok(d)
}

/// `analyze --out DIR`: frames and presents (Parquet, CSV), summary.json, charts, report.html;
/// returns the files written.
#[pyfunction]
#[pyo3(signature = (path, out_dir, app=None, refresh_hz=None, whole_trace=false))]
fn report(
    py: Python<'_>,
    path: PathBuf,
    out_dir: PathBuf,
    app: Option<String>,
    refresh_hz: Option<f64>,
    whole_trace: bool,
) -> PyResult<Vec<PathBuf>> {
    // report.html's frame timeline, as `analyze --out` builds it.
    let opts = analysis::Options { lanes: true, ..options(app, refresh_hz, whole_trace)? };
    py.allow_threads(|| -> Result<_, Failure> {
        let a = analysis::analyze(&path, &opts).map_err(analysis_failure)?;
        let report = fpsan::report::Report::of(&a);
        fpsan::report::ExportManager::default().write(&out_dir, &report).map_err(other)
    })
    .map_err(raise)
}

/// Polars SQL over the trace's tables (as `fpsan query`).
#[pyfunction]
fn query(py: Python<'_>, path: PathBuf, sql: String) -> PyResult<Table> {
    py.allow_threads(|| -> Result<Table, Failure> {
        let opts = analysis::Options { require_frames: false, ..Default::default() };
        let done = analysis::analyze(&path, &opts).map_err(analysis_failure)?;
        let tables = done.tables().map_err(other)?;
        let df = fpsan::query::run(&done.trace, Some(&tables), &sql).map_err(|e| failure(e.kind(), Kind::Other, e))?;
        table(&df)
    })
    .map_err(raise)
}

/// `fpsan compare BEFORE AFTER`: a dict with `json` (compare.json's text),
/// `markdown`, `tripped` (the gates' lines), `notes` and `written` (the
/// files: with `out_dir`, compare.html and the rest are written there).
#[pyfunction]
#[pyo3(signature = (before, after, app=None, fail_if=Vec::new(), alpha=0.05, min_change=2.0, refresh_hz=None, out_dir=None, whole_trace=false))]
#[allow(clippy::too_many_arguments)]
fn compare<'py>(
    py: Python<'py>,
    before: PathBuf,
    after: PathBuf,
    app: Option<String>,
    fail_if: Vec<String>,
    alpha: f64,
    min_change: f64,
    refresh_hz: Option<f64>,
    out_dir: Option<PathBuf>,
    whole_trace: bool,
) -> PyResult<Bound<'py, PyDict>> {
    use fpsan::compare::{CompareFormat, CompareRequest, IndicativeGates};
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(raise((Kind::Usage, format!("alpha must be between 0 and 1, got {alpha}"))));
    }
    let base = CompareRequest {
        before,
        after,
        app,
        pids: None,
        out: out_dir,
        format: CompareFormat::Json,
        fail_if,
        alpha,
        min_change_pct: min_change,
        refresh_hz: refresh(refresh_hz)?,
        indicative_gates: IndicativeGates::Pass,
        decide_on: fpsan::compare::DecideOn::Frames,
        whole_trace,
        color: false,
        sink: fpsan::sink::Sink::quiet(),
    };
    let done =
        py.allow_threads(|| fpsan::compare::run(&base)).map_err(|e| raise(failure(e.kind(), Kind::NoFrames, e)))?;
    let d = PyDict::new(py);
    d.set_item("json", String::from_utf8_lossy(&done.stdout).into_owned())?;
    d.set_item("markdown", done.markdown)?;
    d.set_item("tripped", done.tripped)?;
    d.set_item("notes", done.notes)?;
    d.set_item("written", done.written)?;
    Ok(d)
}

/// A trace's id in a lake written by `fpsan batch`: the BLAKE3 hash of its bytes.
#[pyfunction]
fn content_id(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    py.allow_threads(|| fpsan::batch::content_id(&path))
        .map_err(|e| raise((Kind::Trace, format!("{}: {e}", path.display()))))
}

/// The frames table with no rows: its columns and their types (the Spark
/// functions declare their output schema with it).
#[pyfunction]
fn frames_schema() -> PyResult<Table> {
    let empty = fpsan::tables::Table::Frames.empty().map_err(|e| raise(other(e)))?;
    table(&empty).map_err(raise)
}

#[pymodule]
fn _fpsan(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("FpsanError", m.py().get_type::<FpsanError>())?;
    m.add("TraceError", m.py().get_type::<TraceError>())?;
    m.add("NoFramesError", m.py().get_type::<NoFramesError>())?;
    m.add("UsageError", m.py().get_type::<UsageError>())?;
    m.add_class::<Table>()?;
    // The registry's lists (docs/python.md): every table `query` has, and the
    // ones an analysis gives (`Analysis`'s attributes, the lake's order).
    let names = |keep: fn(fpsan::tables::Table) -> bool| -> Vec<&'static str> {
        fpsan::tables::Table::ALL.into_iter().filter(|&t| keep(t)).map(|t| t.name()).collect()
    };
    m.add("TABLES", names(fpsan::tables::Table::in_query))?;
    m.add("ANALYSIS_TABLES", fpsan::tables::AnalysisTables::ALL.map(|t| t.name()).to_vec())?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(report, m)?)?;
    m.add_function(wrap_pyfunction!(query, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(content_id, m)?)?;
    m.add_function(wrap_pyfunction!(frames_schema, m)?)?;
    Ok(())
}
