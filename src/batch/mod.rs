//! `fpsan batch INPUTS... --out LAKE`: many traces into a Parquet lake
//! (docs/lake.md). Each trace goes through the one analysis entry point,
//! several at a time within a memory budget ([`budget`]); its tables are
//! written under the key columns' Hive partitions ([`lake`]); a trace already
//! in the lake (same content hash) is skipped, a trace that fails is a
//! `traces` row with its error, never the end of the batch.

mod budget;
pub mod keys;
pub mod lake;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use polars::prelude::{Column, DataFrame, PolarsError};

use crate::analysis::{self, Analysis, AnalysisError};
use crate::error::ErrorKind;
use crate::sink::Sink;
use crate::tables::{Table, TraceRow, TraceStatus};
use keys::{Input, KeyError, KeyTemplate};
use lake::{Lake, LakeError};

/// Columns every table has or that tables already use: not usable as key names.
pub const RESERVED_COLUMNS: &[&str] = &["trace_id", "path", "pid", "process", "frames", "status", "error", "ts"];

/// What `fpsan batch` is asked to do.
#[derive(Debug, Clone)]
pub struct BatchRequest {
    /// Trace files and directories (walked recursively; hidden files skipped).
    pub inputs: Vec<PathBuf>,
    pub out: PathBuf,
    /// `--keys '{build}/{device}/{run}'`.
    pub keys: Option<String>,
    /// `--manifest FILE` (CSV or JSON), instead of inputs.
    pub manifest: Option<PathBuf>,
    /// Traces analysed at once (default: the cores).
    pub jobs: usize,
    /// Memory the analyses in flight may take together, in MB (default:
    /// half the available memory).
    pub memory_mb: Option<u64>,
    pub sink: Sink,
}

/// What a batch did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchOutcome {
    pub traces: usize,
    pub analysed: usize,
    pub skipped: usize,
    pub failed: usize,
}

/// Why a batch did not run: its request is unusable. A trace that fails
/// is a row of the lake, not this.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    #[error("no trace files in the inputs")]
    NoTraces,
    #[error("{}: no such file or directory", path.display())]
    NoInput { path: PathBuf },
    #[error(transparent)]
    Keys(#[from] KeyError),
    #[error(transparent)]
    Lake(#[from] LakeError),
}

impl BatchError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            BatchError::NoTraces => ErrorKind::Input,
            BatchError::NoInput { .. } => ErrorKind::Io,
            BatchError::Keys(e) => e.kind(),
            BatchError::Lake(e) => e.kind(),
        }
    }
}

/// Why one trace failed: its `traces` row's `error`.
#[derive(Debug, thiserror::Error)]
enum TraceFailure {
    #[error("the path does not fit --keys ({})", keys.join(", "))]
    OffKeys { keys: Vec<String> },
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    #[error(transparent)]
    Table(#[from] PolarsError),
    #[error(transparent)]
    Lake(#[from] LakeError),
}

/// Run a batch; an unusable request (no inputs, a bad template, a lake
/// with other keys) is an error, a trace that fails is not.
pub fn run(req: &BatchRequest) -> Result<BatchOutcome, BatchError> {
    let (names, inputs) = collect(req)?;
    if inputs.is_empty() {
        return Err(BatchError::NoTraces);
    }
    let lake = Lake::open(&req.out, &names)?;
    let budget = budget::Budget::new(req.memory_mb.map_or_else(budget::default_bytes, |mb| mb << 20));
    let next = AtomicUsize::new(0);
    let counts = [AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0)];
    let bar = req.sink.bar(inputs.len() as u64, "{spinner} analysing traces {pos}/{len} [{wide_bar}] {eta}");
    std::thread::scope(|s| {
        for _ in 0..req.jobs.max(1) {
            s.spawn(|| {
                // Each worker analyses its traces on one thread of its own: a fleet is parallel across
                // traces, and an analysis fanned out over every core for a few MB costs more in
                // coordination than it saves (docs/lake.md, "Speed"). Large traces use every core.
                let own = rayon::ThreadPoolBuilder::new().num_threads(1).build().ok();
                loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(input) = inputs.get(k) else { break };
                    let size = std::fs::metadata(&input.path).map_or(0, |m| m.len());
                    let kind = match (&own, size < ALONE_BYTES) {
                        (Some(pool), true) => pool.install(|| one(&lake, &budget, input, size, req.sink)),
                        _ => one(&lake, &budget, input, size, req.sink),
                    };
                    counts[kind].fetch_add(1, Ordering::SeqCst);
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    let [analysed, skipped, failed] = counts.map(|c| c.into_inner());
    Ok(BatchOutcome { traces: inputs.len(), analysed, skipped, failed })
}

/// The inputs and the key names: from the manifest, or the files under the
/// inputs with the template's keys.
fn collect(req: &BatchRequest) -> Result<(Vec<String>, Vec<Input>), BatchError> {
    if let Some(m) = &req.manifest {
        return Ok(keys::read_manifest(m)?);
    }
    let template = req.keys.as_deref().map(KeyTemplate::parse).transpose()?;
    let mut files = Vec::new();
    for p in &req.inputs {
        if p.is_dir() {
            walk(p, &mut files);
        } else if p.is_file() {
            files.push(p.clone());
        } else {
            return Err(BatchError::NoInput { path: p.clone() });
        }
    }
    let names = template.as_ref().map(KeyTemplate::names).unwrap_or_default();
    let inputs = files
        .into_iter()
        .map(|path| {
            let keys = match &template {
                Some(t) => t.read(&path),
                None => Some(Vec::new()),
            };
            Input { path, keys }
        })
        .collect();
    Ok((names, inputs))
}

/// The files under `dir`, recursively, in name order; hidden ones (and
/// hidden folders) skipped.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> =
        entries.flatten().filter(|e| !e.file_name().to_string_lossy().starts_with('.')).map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            walk(&p, out);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

/// Traces this large are analysed on every core (and, by the memory budget,
/// beside few others); smaller ones on their worker's thread.
const ALONE_BYTES: u64 = 256 << 20;

const ANALYSED: usize = 0;
const SKIPPED: usize = 1;
const FAILED: usize = 2;

/// One trace: hash, skip or analyse, write its tables (the `traces` row last).
fn one(lake: &Lake, budget: &budget::Budget, input: &Input, size: u64, sink: Sink) -> usize {
    let trace_id = match content_id(&input.path) {
        Ok(h) => h,
        Err(e) => {
            sink.warn(None, &format!("{}: {e}", input.path.display()));
            return FAILED;
        }
    };
    // In the lake already, or the same content earlier in this batch.
    if !lake.claim(&trace_id) {
        return SKIPPED;
    }
    let mut row = TraceRow {
        trace_id: trace_id.clone(),
        path: input.path.display().to_string(),
        size_bytes: size,
        container: None,
        status: TraceStatus::Ok,
        error: None,
        frames: 0,
        apps: 0,
        warnings: 0,
        device: None,
        build_fingerprint: None,
        analyse_ms: 0.0,
        write_ms: 0.0,
    };
    let values = input.keys.as_deref();
    let started = Instant::now();
    let tables = if values.is_none() && !lake.keys().is_empty() {
        Err(TraceFailure::OffKeys { keys: lake.keys().to_vec() })
    } else {
        let _permit = budget.acquire(budget::cost_of(size));
        let opts = analysis::Options { require_frames: false, ..Default::default() };
        analysis::analyze(&input.path, &opts).map_err(TraceFailure::from).and_then(|a| Ok(tables_of(&a, &mut row)?))
    };
    row.analyse_ms = started.elapsed().as_secs_f64() * 1e3;
    let written = Instant::now();
    let result = tables.and_then(|mut tables| {
        tables.iter_mut().try_for_each(|(table, df)| {
            with_trace_id(df, &trace_id)?;
            Ok(lake.write(*table, values, &trace_id, df)?)
        })
    });
    row.write_ms = written.elapsed().as_secs_f64() * 1e3;
    if let Err(e) = result {
        let e = crate::sink::one_line(&e.to_string());
        sink.warn(None, &format!("{}: {e}", row.path));
        row.status = TraceStatus::Failed;
        row.error = Some(e);
    }
    let failed = row.status != TraceStatus::Ok;
    let recorded = crate::tables::traces(std::slice::from_ref(&row))
        .map_err(TraceFailure::from)
        .and_then(|df| Ok(lake.write(Table::Traces, values, &trace_id, &df)?));
    if let Err(e) = recorded {
        sink.warn(None, &format!("{}: {e}", row.path));
        return FAILED;
    }
    if failed {
        FAILED
    } else {
        ANALYSED
    }
}

/// A trace's id in the lake: the BLAKE3 hash of its bytes, hex.
pub fn content_id(path: &Path) -> std::io::Result<String> {
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(std::fs::File::open(path)?)?;
    Ok(hasher.finalize().to_hex().to_string())
}

/// The tables of one analysed trace, and its facts in `row`.
fn tables_of(a: &Analysis, row: &mut TraceRow) -> Result<Vec<(Table, DataFrame)>, PolarsError> {
    row.container = Some(a.trace.meta.container.as_str());
    row.frames = a.frames.rows.len() as i64;
    row.apps = a.apps.len() as i64;
    row.warnings = a.warnings.len() as i64;
    row.device = a.trace.meta.android.device.clone();
    row.build_fingerprint = a.trace.meta.android.build_fingerprint.clone();
    let tables = a.tables()?;
    Ok(tables.iter().map(|(t, df)| (t, df.clone())).collect())
}

/// `trace_id` as the first column (the join key between the tables).
fn with_trace_id(df: &mut DataFrame, trace_id: &str) -> Result<(), PolarsError> {
    let ids = Column::new("trace_id".into(), vec![trace_id; df.height()]);
    df.insert_column(0, ids).map(|_| ())
}
