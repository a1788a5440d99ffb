//! Command line: argument parsing (clap derive) and dispatch. The only place
//! that turns errors into one stderr line and an exit status, by their
//! [`ErrorKind`] ([`exit_code`]): 0 success, 1 unusable input or a file that
//! cannot be read or written, 2 usage error (clap's own, a flag's value, SQL
//! that does not run, a gate rule or `--keys` template that does not parse),
//! 3 a `compare --fail-if` gate tripped, 130 Ctrl-C.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};
use polars::prelude::PolarsError;

use crate::analysis::{self, AnalysisError, DEFAULT_BLOCKER_MS};
use crate::batch::BatchError;
use crate::capture::scenario::ScenarioError;
use crate::capture::CaptureError;
use crate::compare::CompareError;
use crate::error::ErrorKind;
use crate::experiment::ExperimentError;
use crate::frames::FrameOptions;
use crate::metrics::{AppFilter, Category, MetricsOptions};
use crate::model::Trace;
use crate::open::OpenError;
use crate::query::{self, QueryError};
use crate::read::{ReadError, ReadOptions};
use crate::report::{self, info, ExportManager, Report, ReportError, StdoutFormat};
use crate::sink::{one_line, Sink};

type Result<T = (), E = CliError> = std::result::Result<T, E>;

mod ab_args;
mod capture_args;
mod compare_args;
mod open_args;
mod value_enums;

pub use ab_args::AbArgs;
pub use capture_args::CaptureArgs;
pub use compare_args::CompareArgs;
pub use open_args::OpenArgs;

#[derive(Debug, Parser)]
#[command(name = "fpsan", version, about = "Measure and explain Android UI smoothness from Perfetto traces")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Rebuild every frame and report FPS, dropped frames and jank per app.
    Analyze(AnalyzeArgs),
    /// What a trace contains, without analysing frames: file and format, packets, time span,
    /// clocks, data sources, Android build, event counts, data loss, warnings, and each process
    /// with its threads, slices and doFrame / DrawFrame counts.
    Info(InfoArgs),
    /// Run Polars SQL over the trace's tables (`fpsan query --help` lists them).
    Query(QueryArgs),
    /// Record a trace of an app on a device over adb (`--analyze` analyses it).
    Capture(CaptureArgs),
    /// Compare before/after traces (files or directories of repeated runs): did the UI get smoother?
    Compare(CompareArgs),
    /// The before/after experiment on a device: install two APKs, run a scenario on each in turn
    /// (ABBA), capture every run, then compare them.
    Ab(AbArgs),
    /// Many traces into a Parquet lake (its tables: `fpsan batch --help`), partitioned by keys
    /// read from the paths or a manifest; incremental.
    Batch(BatchArgs),
    /// Open the trace in Perfetto UI: serve it on 127.0.0.1 and print the link that loads it
    /// (`--frame N` zooms to frame N); exits once the UI fetched it.
    Open(OpenArgs),
}

#[derive(Debug, Args)]
pub struct BatchArgs {
    /// Trace files (as `analyze` reads: Perfetto protobuf, systrace/atrace text or HTML) and
    /// directories (walked recursively).
    #[arg(required_unless_present = "manifest")]
    pub inputs: Vec<PathBuf>,
    /// The lake's folder (created, or added to).
    #[arg(short = 'o', long, value_name = "LAKE")]
    pub out: PathBuf,
    /// Key columns read from each path, e.g. '{build}/{device}/run-{run}' (docs/lake.md, Keys).
    #[arg(long, value_name = "TEMPLATE", conflicts_with = "manifest")]
    pub keys: Option<String>,
    /// A CSV or JSON file with one trace per row: `path` and any key columns.
    #[arg(long, value_name = "FILE", conflicts_with = "inputs")]
    pub manifest: Option<PathBuf>,
    /// Traces analysed at once (default: the cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Memory the analyses in flight may take together, in MB (default: half the available).
    #[arg(long, value_name = "MB")]
    pub memory_mb: Option<u64>,
}

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    #[arg(help = TRACE_HELP)]
    pub trace: PathBuf,
    /// Only this app: process name, its `PKG:sub` processes, or its 15-char comm; a process
    /// the trace does not name is matched by the package its layers name (`TX - PKG/…#N`).
    #[arg(long, conflicts_with = "pid")]
    pub app: Option<String>,
    /// Only this process id (when nothing matches, the error lists the apps with their pids).
    #[arg(long)]
    pub pid: Option<i32>,
    /// Also write into DIR: frames.parquet, frames.csv, presents.parquet, presents.csv,
    /// startups.parquet (with a startup), main_thread_blocks.parquet (with a main-thread slice), summary.json, report.html and charts/<app>-<pid>-<chart>.png (timeline, distribution,
    /// fps, drop-levels, janky; present and layer-presents when the trace has their data;
    /// charts/apps-drop-levels.png with several apps).
    #[arg(short = 'o', long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// What to print on stdout: table (the summary, drop levels, worst frames), json
    /// (summary.json's document with every frame) or csv (frames.csv).
    #[arg(long, value_enum, default_value_t = StdoutFormat::Table)]
    pub format: StdoutFormat,
    /// Force the display refresh rate instead of reading it from the trace.
    #[arg(long, value_name = "F", value_parser = positive_f64)]
    pub refresh_hz: Option<f64>,
    /// App category for the Green Alliance verdict (≥ 55 fps for apps, ≥ 25 for
    /// games, maps and video); detected from each app's renderer when not given.
    #[arg(long, value_enum)]
    pub category: Option<Category>,
    /// Main-thread slices at least this long before a frame's start are reported as blockers.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BLOCKER_MS, value_parser = non_negative_f64)]
    pub blocker_ms: f64,
    /// Analyse the whole trace, not only the window of a scenario `capture --drive` marked in it.
    #[arg(long)]
    pub whole_trace: bool,
    /// Where main-thread blocks' levels begin, e.g. `evil_method=500,block_canary=800`:
    /// frame_scale (frame intervals, default 3), evil_method (ms, 700), block_canary (1000),
    /// lag (2000), anr_risk (5000); the levels not named keep their defaults.
    #[arg(long, value_name = "LEVEL=N,…", default_value = "", hide_default_value = true)]
    pub block_levels: crate::blocks::Thresholds,
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    #[arg(help = TRACE_HELP)]
    pub trace: PathBuf,
    /// What to print on stdout: table (aligned text) or json (one document).
    #[arg(long, value_enum, default_value_t = InfoFormat::Table)]
    pub format: InfoFormat,
    /// The old spelling of `--format json`, kept for scripts.
    #[arg(long, hide = true, conflicts_with = "format")]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum InfoFormat {
    #[default]
    Table,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum QueryFormat {
    #[default]
    Table,
    Csv,
    Json,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["sql", "file"])))]
pub struct QueryArgs {
    #[arg(help = TRACE_HELP)]
    pub trace: PathBuf,
    /// The SQL to run.
    pub sql: Option<String>,
    /// Read the SQL from a file (e.g. queries/app_summary.sql).
    #[arg(long, short = 'f', value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// What to print on stdout: table (aligned text), csv (with a header row) or json (an
    /// array of one object per row).
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

/// What every TRACE argument takes (the reader sniffs the format, not the name).
const TRACE_HELP: &str = "The trace file: Perfetto protobuf (plain, gzip or zstd) or a systrace/atrace \
capture (text, .ctrace or HTML; plain or gzip)";

/// A flag's value outside what it takes; clap prints it after the flag's
/// name and exits 2.
#[derive(Debug, thiserror::Error)]
#[error("expected {expected}, got `{got}`")]
pub struct BadValue {
    expected: &'static str,
    got: String,
}

/// `s` as a number that `ok` accepts, else [`BadValue`] saying `expected`.
fn number(s: &str, expected: &'static str, ok: impl Fn(f64) -> bool) -> Result<f64, BadValue> {
    s.parse::<f64>().ok().filter(|&v| ok(v)).ok_or_else(|| BadValue { expected, got: s.to_string() })
}

fn positive_f64(s: &str) -> Result<f64, BadValue> {
    number(s, "a positive number", |v| v.is_finite() && v > 0.0)
}

fn non_negative_f64(s: &str) -> Result<f64, BadValue> {
    number(s, "a number ≥ 0", |v| v.is_finite() && v >= 0.0)
}

/// Why a command failed: the library's typed errors as they are, and the
/// command line's own. Its [`kind`](CliError::kind) is the exit status.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The reader's error, with what to do about it.
    #[error("{0}; {hint}", hint = read_hint(.0))]
    Read(ReadError),
    #[error(transparent)]
    Analysis(AnalysisError),
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error(transparent)]
    Report(#[from] ReportError),
    #[error(transparent)]
    Table(#[from] PolarsError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Compare(#[from] CompareError),
    #[error(transparent)]
    Experiment(#[from] ExperimentError),
    #[error(transparent)]
    Capture(#[from] CaptureError),
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error(transparent)]
    Batch(#[from] BatchError),
    #[error(transparent)]
    Open(OpenError),
    #[error("give the SQL or --file FILE")]
    NoSql,
    #[error("cannot read SQL file {}: {source}", path.display())]
    SqlFile { path: PathBuf, source: std::io::Error },
    #[error("cannot read {}: {source}", path.display())]
    StepFile { path: PathBuf, source: std::io::Error },
    #[error("cannot write to stdout: {0}")]
    Stdout(#[source] std::io::Error),
    #[error("no trace could be analysed: see the errors above")]
    NoTraceAnalysed,
    /// `compare --fail-if` rules that tripped, one stderr line each (after
    /// the output was printed).
    #[error("{}", .0.join("; "))]
    GateTripped(Vec<String>),
}

impl CliError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            CliError::Read(e) => e.kind(),
            CliError::Analysis(e) => e.kind(),
            CliError::Query(e) => e.kind(),
            CliError::Report(e) => e.kind(),
            CliError::Compare(e) => e.kind(),
            CliError::Experiment(e) => e.kind(),
            CliError::Capture(e) => e.kind(),
            CliError::Scenario(e) => e.kind(),
            CliError::Batch(e) => e.kind(),
            CliError::Open(e) => e.kind(),
            CliError::NoSql => ErrorKind::Usage,
            CliError::Table(_) | CliError::NoTraceAnalysed => ErrorKind::Input,
            CliError::Json(_) | CliError::SqlFile { .. } | CliError::StepFile { .. } | CliError::Stdout(_) => {
                ErrorKind::Io
            }
            CliError::GateTripped(_) => ErrorKind::Gate,
        }
    }
}

/// The reader's errors keep their own hint.
impl From<AnalysisError> for CliError {
    fn from(e: AnalysisError) -> Self {
        match e {
            AnalysisError::Read(e) => CliError::Read(e),
            other => CliError::Analysis(other),
        }
    }
}

/// The reader's and the analysis' errors keep their own hints.
impl From<OpenError> for CliError {
    fn from(e: OpenError) -> Self {
        match e {
            OpenError::Read(e) => CliError::Read(e),
            OpenError::Analysis(e) => e.into(),
            other => CliError::Open(other),
        }
    }
}

impl From<ReadError> for CliError {
    fn from(e: ReadError) -> Self {
        CliError::Read(e)
    }
}

/// The exit status of each kind of failure (README, "Exit status").
pub fn exit_code(kind: ErrorKind) -> i32 {
    match kind {
        ErrorKind::Usage => 2,
        ErrorKind::Input | ErrorKind::Io => 1,
        ErrorKind::Gate => 3,
        ErrorKind::Interrupted => 130,
    }
}

/// The command line: [`Cli`], with the help texts that list tables read
/// from the registry (`tables::Table`), so they never drift from it.
pub fn command() -> clap::Command {
    use crate::tables::Table;
    use clap::CommandFactory;
    Cli::command()
        .mut_subcommand("query", |c| {
            c.after_help(format!("Tables: {} (columns: docs/report.md, \"fpsan query\")", query::tables_listed()))
        })
        .mut_subcommand("batch", |c| {
            c.after_help(format!("The lake's tables: {} (columns: docs/lake.md)", Table::names(Table::in_lake)))
        })
}

/// Parse `args` (the program's name first) as [`command`] reads them.
pub fn parse_from<I: IntoIterator<Item = T>, T: Into<std::ffi::OsString> + Clone>(args: I) -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    command().try_get_matches_from(args).and_then(|m| Cli::from_arg_matches(&m))
}

/// Entry point: returns the process exit status.
pub fn main() -> i32 {
    crate::memory::fix_mmap_threshold();
    let cli = match parse_from(std::env::args_os()) {
        Ok(c) => c,
        Err(e) => {
            // Help and version go to stdout with status 0; errors to stderr with 2.
            let _ = e.print();
            return e.exit_code();
        }
    };
    // A bug must not print a backtrace: one line and status 1.
    std::panic::set_hook(Box::new(|p| {
        let msg = p
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let at = p.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("fpsan: internal error: {}{at}; please report it", one_line(&msg));
    }));
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(Ok(())) => 0,
        Ok(Err(e)) if is_broken_pipe(&e) => 0,
        Ok(Err(CliError::GateTripped(lines))) => {
            for line in &lines {
                eprintln!("fpsan: {}", one_line(line));
            }
            exit_code(ErrorKind::Gate)
        }
        Ok(Err(e)) => {
            eprintln!("fpsan: {}", error_line(&e));
            exit_code(e.kind())
        }
        Err(_) => 1,
    }
}

/// An error and its sources, outermost first.
fn chain(e: &CliError) -> impl Iterator<Item = &(dyn std::error::Error + 'static)> {
    std::iter::successors(Some(e as &(dyn std::error::Error + 'static)), |&c| c.source())
}

/// The error and its causes on one line, each cause once (typed errors often
/// already show their source in their own message).
fn error_line(e: &CliError) -> String {
    let mut msg = String::new();
    for cause in chain(e) {
        let text = one_line(&cause.to_string());
        if !msg.contains(&text) {
            if !msg.is_empty() {
                msg.push_str(": ");
            }
            msg.push_str(&text);
        }
    }
    msg
}

fn is_broken_pipe(e: &CliError) -> bool {
    chain(e).any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

/// Dispatch a parsed command line.
pub fn run(cli: Cli) -> Result {
    match cli.command {
        Command::Analyze(a) => analyze(&a),
        Command::Info(a) => info_cmd(&a),
        Command::Query(a) => query_cmd(&a),
        Command::Capture(a) => capture_cmd(&a),
        Command::Compare(a) => compare_cmd(&a),
        Command::Ab(a) => ab_cmd(&a),
        Command::Batch(a) => batch_cmd(&a),
        Command::Open(a) => open_cmd(&a),
    }
}

/// `compare`: the comparison, then its gates.
fn compare_cmd(a: &CompareArgs) -> Result {
    use crate::compare::CompareRequest;
    let request =
        CompareRequest { color: std::io::stdout().is_terminal(), sink: Sink::stderr(), ..CompareRequest::from(a) };
    finish_compare(crate::compare::run(&request)?)
}

/// Print compare's notes and output; its tripped gates are the error.
fn finish_compare(outcome: crate::compare::Outcome) -> Result {
    for note in &outcome.notes {
        eprintln!("fpsan: {}", one_line(note));
    }
    print_stdout(&outcome.stdout)?;
    if outcome.tripped.is_empty() {
        Ok(())
    } else {
        Err(CliError::GateTripped(outcome.tripped))
    }
}

/// `ab`: the experiment, then compare's output and gates. Ctrl-C is exit
/// 130 after the finished runs were kept and the device restored.
fn ab_cmd(a: &AbArgs) -> Result {
    let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S").to_string();
    let mut request = a.request(&stamp)?;
    request.compare.color = std::io::stdout().is_terminal();
    request.compare.sink = Sink::stderr();
    let outcome =
        crate::capture::with_ctrlc(analysis::trace_facts, Sink::stderr(), |env| crate::experiment::ab(&request, env))?;
    eprintln!(
        "fpsan: {} before and {} after runs in {} (runs.json, compare.html); verdict at alpha {}",
        outcome.runs_per_side[0],
        outcome.runs_per_side[1],
        outcome.dir.display(),
        outcome.alpha
    );
    finish_compare(outcome.compare)
}

/// `batch`: a summary line on stderr; failed traces are rows of the lake,
/// not errors (exit 0), unless every trace failed.
fn batch_cmd(a: &BatchArgs) -> Result {
    crate::memory::raise_mmap_threshold();
    let request = crate::batch::BatchRequest {
        inputs: a.inputs.clone(),
        out: a.out.clone(),
        keys: a.keys.clone(),
        manifest: a.manifest.clone(),
        jobs: a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
        memory_mb: a.memory_mb,
        sink: Sink::stderr(),
    };
    let done = crate::batch::run(&request)?;
    eprintln!(
        "fpsan: {} traces: {} analysed, {} already in the lake, {} failed (rows in {}/traces)",
        done.traces,
        done.analysed,
        done.skipped,
        done.failed,
        a.out.display()
    );
    if done.failed == done.traces {
        return Err(CliError::NoTraceAnalysed);
    }
    Ok(())
}

/// `open`: the link on stdout, then the trace served until Perfetto UI
/// fetched it (each request a line on stderr); Ctrl-C stops it.
fn open_cmd(a: &OpenArgs) -> Result {
    use crate::open;
    let server = open::TraceServer::bind(&a.trace, a.port)?;
    let frame = a.frame.map(|k| open::frame_span(&a.trace, k, a.whole_trace, Sink::stderr())).transpose()?;
    let link = open::deep_link(&server.url(), server.port(), frame.as_ref());
    // Before the link is out: from then on Ctrl-C stops the server cleanly.
    let stopper = server.stopper();
    if let Err(e) = ctrlc::set_handler(move || stopper.stop()) {
        eprintln!("fpsan: warning: cannot catch Ctrl-C ({e})");
    }
    print_stdout(format!("{link}\n").as_bytes())?;
    if let Some(f) = &frame {
        for w in &f.warnings {
            warn(w);
        }
        eprintln!("fpsan: {}", one_line(&f.describe()));
    }
    if let Some(note) = open::port_note(server.port()) {
        eprintln!("fpsan: note: {}", one_line(&note));
    }
    let until = if a.keep_serving { "until Ctrl-C" } else { "until Perfetto UI fetched it" };
    eprintln!("fpsan: serving {} at {} {until}", a.trace.display(), server.url());
    if a.browser {
        if let Err(e) = open::launch_browser(&link) {
            eprintln!("fpsan: warning: cannot open a browser ({e}); open the link above in one");
        }
    }
    server.serve(a.keep_serving, |answered| eprintln!("fpsan: {}", one_line(&answered.to_string())))?;
    Ok(())
}

/// `capture` prints the pulled trace's path (or, with `--dry-run`, the
/// config it would send); `--analyze` then runs
/// `analyze` on it for the captured app.
fn capture_cmd(a: &CaptureArgs) -> Result {
    let mut request: crate::capture::CaptureRequest = a.into();
    request.drive = a.scenario()?;
    if a.dry_run {
        return print_stdout(crate::capture::dry_run_text(&request)?.as_bytes());
    }
    if let Some(runs) = a.runs {
        let dir = crate::capture::with_ctrlc(analysis::trace_facts, Sink::stderr(), |env| {
            crate::experiment::capture_runs(&request, runs as usize, a.allow_dirty_device, env)
        })?;
        return print_stdout(format!("{}\n", dir.display()).as_bytes());
    }
    let Some(outcome) = crate::capture::run(&request, analysis::trace_facts, Sink::stderr())? else { return Ok(()) };
    print_stdout(format!("{}\n", outcome.path.display()).as_bytes())?;
    if !outcome.analyze {
        return Ok(());
    }
    analyze(&AnalyzeArgs {
        trace: outcome.path,
        app: Some(outcome.app),
        pid: None,
        out: None,
        format: StdoutFormat::Table,
        refresh_hz: None,
        category: None,
        blocker_ms: DEFAULT_BLOCKER_MS,
        whole_trace: false,
        block_levels: Default::default(),
    })
}

/// What to do about the reader's error.
fn read_hint(e: &ReadError) -> &'static str {
    match e {
        ReadError::Io { .. } => "check the path",
        ReadError::IsDirectory { .. } => "give the trace file inside it",
        ReadError::Empty { .. } | ReadError::NotATrace { .. } => {
            "give a Perfetto trace (.pftrace, .perfetto-trace) or a systrace capture (.html, .txt, .ctrace), e.g. one recorded with `fpsan capture --app PKG`"
        }
        ReadError::Corrupt { .. } => "the file is damaged; record the trace again",
        ReadError::Packed { packing, .. } => packing.how(),
    }
}

/// The analysis options every command starts from.
fn base_options() -> analysis::Options {
    analysis::Options { sink: Sink::stderr(), ..Default::default() }
}

fn open(path: &Path) -> Result<Trace> {
    Ok(analysis::load(path, &ReadOptions { sink: Sink::stderr(), ..Default::default() })?)
}

fn print_stdout(bytes: &[u8]) -> Result {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).and_then(|_| out.flush()).map_err(CliError::Stdout)
}

/// A warning about the trace on stderr, named by its severity
/// (`note:`, `warning:`, `data loss:`).
fn warn(w: &crate::model::Warning) {
    eprintln!("fpsan: {}", one_line(&w.line()));
}

fn analyze(a: &AnalyzeArgs) -> Result {
    let filter = match (&a.app, a.pid) {
        (Some(pkg), _) => AppFilter::Package(pkg.clone()),
        (None, Some(pid)) => AppFilter::Pid(pid),
        (None, None) => AppFilter::All,
    };
    let opts = analysis::Options {
        frames: FrameOptions {
            refresh_hz: a.refresh_hz,
            blocker_threshold_ns: analysis::blocker_threshold_ns(a.blocker_ms),
        },
        filter,
        metrics: MetricsOptions { category: a.category, ..Default::default() },
        whole_trace: a.whole_trace,
        blocks: a.block_levels,
        // The frame timeline is for report.html only; the printed table
        // shows neither the frames nor the presents table.
        lanes: a.out.is_some(),
        tables: a.out.is_some() || a.format != StdoutFormat::Table,
        ..base_options()
    };
    let mut done = analysis::analyze(&a.trace, &opts)?;
    for w in &done.warnings {
        warn(w);
    }
    // The report reads the trace's facts, not the model's slices. With
    // `--out` the model is freed before the exporters allocate, so it peaks
    // no higher than the analysis itself; without, nothing allocates after
    // this but the printed report and the process then exits, so it is left
    // to the kernel (freeing it block by block is measurable on large traces).
    let model = done.take_model();
    if a.out.is_some() {
        drop(model);
    } else {
        crate::memory::leave_to_exit(model);
    }
    let report = Report::of(&done);
    if let Some(dir) = &a.out {
        let written = ExportManager::default().write(dir, &report)?;
        eprintln!("fpsan: wrote {} files to {}", written.len(), dir.display());
    }
    let out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = report::write_stdout(a.format, &report, out);
    // The frames, their paths and tables are left to the exit as the model
    // is: freeing them block by block took ~10 ms on a 210 MB trace.
    crate::memory::leave_to_exit(done);
    Ok(written?)
}

fn info_cmd(a: &InfoArgs) -> Result {
    let trace = open(&a.trace)?;
    let i = info::info(&trace);
    // Nothing needs the model any more: the kernel takes it back at exit
    // faster than freeing it block by block.
    crate::memory::leave_to_exit(trace);
    if a.json || a.format == InfoFormat::Json {
        let mut bytes = serde_json::to_vec_pretty(&i)?;
        bytes.push(b'\n');
        print_stdout(&bytes)
    } else {
        for w in &i.warnings {
            warn(w);
        }
        print_stdout(info::render_text(&i).as_bytes())
    }
}

fn query_cmd(a: &QueryArgs) -> Result {
    let sql = match (&a.sql, &a.file) {
        (Some(s), _) => s.clone(),
        (None, Some(f)) => {
            std::fs::read_to_string(f).map_err(|source| CliError::SqlFile { path: f.clone(), source })?
        }
        (None, None) => return Err(CliError::NoSql),
    };
    let (mut trace, tables) = if query::needs_frames(&sql) {
        let opts = analysis::Options { require_frames: false, ..base_options() };
        let done = analysis::analyze(&a.trace, &opts)?;
        let tables = done.tables()?;
        (done.trace, Some(tables))
    } else {
        (open(&a.trace)?, None)
    };
    if query::needs_sched(&sql) {
        query::load_sched(&a.trace, &mut trace)?;
    }
    let result = query::run(&trace, tables.as_ref(), &sql)?;
    let bytes = match a.format {
        // Rounded for reading (docs/report.md, "fpsan query"); CSV and JSON keep every digit.
        QueryFormat::Table => report::cells::df_text(&query::rounded_for_display(result)?)?.into_bytes(),
        QueryFormat::Csv => {
            let mut b = Vec::new();
            report::cells::write_csv(&result, &mut b)?;
            b
        }
        QueryFormat::Json => {
            let mut b = serde_json::to_vec(&report::cells::json_rows(&result)?)?;
            b.push(b'\n');
            b
        }
    };
    print_stdout(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_line_shows_each_cause_once() {
        let io = std::io::Error::new(std::io::ErrorKind::AlreadyExists, "File exists");
        let e: CliError = ReportError::OutDir { path: PathBuf::from("/tmp/x"), source: io }.into();
        assert_eq!(error_line(&e), "cannot create output directory /tmp/x: File exists");
        let io = std::io::Error::other("outer\nsecond line");
        let e = CliError::SqlFile { path: PathBuf::from("q.sql"), source: io };
        assert_eq!(error_line(&e), "cannot read SQL file q.sql: outer second line");
    }

    #[test]
    fn kinds_map_to_exit_codes() {
        use crate::batch::lake::LakeError;
        let codes = [ErrorKind::Usage, ErrorKind::Input, ErrorKind::Io, ErrorKind::Gate, ErrorKind::Interrupted];
        assert_eq!(codes.map(exit_code), [2, 1, 1, 3, 130]);
        let cannot_create =
            |path: &str| LakeError::Create { path: path.into(), source: std::io::ErrorKind::PermissionDenied.into() };
        let cases: [(CliError, i32); 10] = [
            (BatchError::Lake(cannot_create("/proc/x")).into(), 1),
            (BatchError::Keys(crate::batch::keys::KeyTemplate::parse("{a}{b}").unwrap_err()).into(), 2),
            (QueryError::Sql("no such table".into()).into(), 2),
            (ReadError::Empty { path: "t".into() }.into(), 1),
            (ExperimentError::Interrupted { kept: crate::experiment::Kept::Runs(1), dir: "d".into() }.into(), 130),
            (CliError::GateTripped(vec!["fps".into()]), 3),
            (OpenError::PortInUse { port: 9001 }.into(), 1),
            (OpenError::FrameOutOfRange { index: 9, frames: 2 }.into(), 2),
            (OpenError::Interrupted.into(), 130),
            (OpenError::Read(ReadError::Empty { path: "t".into() }).into(), 1),
        ];
        for (e, code) in cases {
            assert_eq!(exit_code(e.kind()), code, "{e}");
        }
    }

    #[test]
    fn command_line_parses() {
        let c = Cli::try_parse_from(["fpsan", "analyze", "t.pftrace", "--app", "com.a", "--format", "json"]).unwrap();
        match c.command {
            Command::Analyze(a) => {
                assert_eq!(a.app.as_deref(), Some("com.a"));
                assert_eq!(a.format, StdoutFormat::Json);
                assert_eq!(a.category, None);
                assert_eq!(a.blocker_ms, 8.0);
            }
            _ => panic!("not analyze"),
        }
        let e = Cli::try_parse_from(["fpsan", "analyze", "t", "--refresh-hz", "-5"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        let c = Cli::try_parse_from(["fpsan", "query", "t", "--file", "q.sql", "--format", "csv"]).unwrap();
        assert!(matches!(c.command, Command::Query(QueryArgs { format: QueryFormat::Csv, .. })));
        assert!(Cli::try_parse_from(["fpsan", "query", "t", "SELECT 1", "--file", "q.sql"]).is_err());
        let c = Cli::try_parse_from(["fpsan", "open", "t.pftrace", "--frame", "3"]).unwrap();
        let Command::Open(o) = c.command else { panic!("not open") };
        assert_eq!((o.frame, o.port, o.keep_serving, o.browser, o.whole_trace), (Some(3), 9001, false, false, false));
        // --whole-trace only counts frames for --frame.
        assert!(Cli::try_parse_from(["fpsan", "open", "t", "--whole-trace"]).is_err());
        assert!(Cli::try_parse_from(["fpsan", "open", "t", "--port", "65536"]).is_err());
    }
}
