//! `fpsan compare BEFORE AFTER`: did a change make the UI smoother, by how
//! much, and can the runs tell? Wiring only: [`runs`] loads both sides
//! through the one analysis entry point, [`comparison`] computes each run's
//! metrics (`crate::series`, the one definition) and its blocker kinds' critical-path time
//! ([`blockers`]), the tests, intervals and verdicts on the per-run
//! values ([`stats`]), warnings and gates ([`gate`]), and [`present`]
//! renders the result: stdout, `--out DIR`, the lines for stderr.
//! Formulas and sources: docs/compare.md.

use std::path::{Path, PathBuf};

mod blocker_kinds;
mod blockers;
mod blocks;
pub(crate) mod comparison;
mod gate;
mod input;
mod present;
mod runs;
mod startups;
pub(crate) mod stats;
#[cfg(test)]
mod tests;

pub(crate) use present::ci_label;
pub use present::CompareFormat;

use crate::analysis;
use comparison::Settings;
pub use comparison::{Comparison, DecideOn, IndicativeGates};
pub use gate::RuleError;
pub use runs::Run;
use runs::Side;
pub use stats::Verdict;

/// What `fpsan compare` is asked to do (the command line is `cli`'s; its
/// options are documented in docs/compare.md).
#[derive(Debug, Clone)]
pub struct CompareRequest {
    /// The "before" trace file, or a directory of repeated runs.
    pub before: PathBuf,
    /// The "after" trace file, or a directory of repeated runs.
    pub after: PathBuf,
    /// The app to compare (as `analyze --app` matches); None: the app with most frames on both sides.
    pub app: Option<String>,
    /// The app's process ids on each side, instead of `app`.
    pub pids: Option<(i32, i32)>,
    /// Also write compare.html, charts/*.png, compare.json and frames.parquet there.
    pub out: Option<PathBuf>,
    pub format: CompareFormat,
    /// `--fail-if` rules.
    pub fail_if: Vec<String>,
    pub alpha: f64,
    pub min_change_pct: f64,
    /// Force the display refresh rate instead of reading it from the traces.
    pub refresh_hz: Option<f64>,
    pub indicative_gates: IndicativeGates,
    /// What the headline decides on: the frames, the startup, or both.
    pub decide_on: DecideOn,
    /// Compare whole traces, not the scenario windows `capture --drive` marked.
    pub whole_trace: bool,
    /// Colour the table (a terminal).
    pub color: bool,
    /// Where the progress bar over the runs goes.
    pub sink: crate::sink::Sink,
}

/// Why `compare` (or [`load_run`]) did not finish.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A `--fail-if` rule that does not parse or names an unknown metric.
    #[error(transparent)]
    Rule(#[from] RuleError),
    #[error("{} side {}: {source}", side.name(), path.display())]
    SideUnreadable { side: Side, path: PathBuf, source: std::io::Error },
    #[error("{} side {}: the directory holds no trace files", side.name(), path.display())]
    NoTraceFiles { side: Side, path: PathBuf },
    /// Every run of the side was left out; `why` joins their warnings.
    #[error("the {} side has no usable run: {why}", side.name())]
    NoUsableRun { side: Side, why: String },
    /// The apps with frames or judged presents on each side (the ten with most).
    #[error("no app has frames or presents on both sides; before: {before}; after: {after}")]
    NoCommonApp { before: String, after: String },
    #[error("{app} has no frames or presents on the {} side; apps there: {apps}", side.name())]
    AppMissing { app: String, side: Side, apps: String },
    /// The one run [`load_run`] was given could not be analysed.
    #[error(transparent)]
    Analysis(#[from] analysis::AnalysisError),
    #[error("{path} has no frames of {app}")]
    NoFramesOfApp { path: PathBuf, app: String },
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
}

impl CompareError {
    pub fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            CompareError::Rule(_) => ErrorKind::Usage,
            // A side that cannot be listed is an input the comparison cannot use, as one that holds no run.
            CompareError::SideUnreadable { .. }
            | CompareError::NoTraceFiles { .. }
            | CompareError::NoUsableRun { .. }
            | CompareError::NoCommonApp { .. }
            | CompareError::AppMissing { .. }
            | CompareError::NoFramesOfApp { .. } => ErrorKind::Input,
            CompareError::Analysis(e) => e.kind(),
            CompareError::Report(e) => e.kind(),
        }
    }
}

/// Wall time of the phases of one `compare` (the benchmark prints them).
#[derive(Debug, Clone, Copy, Default)]
pub struct Timings {
    /// Reading and analysing every run (in parallel).
    pub load: std::time::Duration,
    /// Per-run metrics, tests, intervals, verdicts, warnings and gates.
    pub compare: std::time::Duration,
    /// `--out` and rendering the output.
    pub output: std::time::Duration,
}

/// The knobs of a comparison made in memory ([`compare_runs`]).
#[derive(Debug, Clone)]
pub struct CompareOptions {
    pub alpha: f64,
    pub min_change_pct: f64,
    pub indicative_gates: IndicativeGates,
    /// `--fail-if` rules.
    pub fail_if: Vec<String>,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            alpha: 0.05,
            min_change_pct: 2.0,
            indicative_gates: IndicativeGates::Pass,
            fail_if: Vec::new(),
        }
    }
}

/// One run of a side: analyse the trace at `path` and keep the frames of
/// `app` (matched as `analyze --app` matches).
pub fn load_run(path: &Path, opts: &analysis::Options, app: &str) -> Result<Run, CompareError> {
    runs::load_run(path, opts, app)
}

/// What `fpsan compare` computes from runs already loaded, without reading
/// or printing anything (the calibration program, the bindings). A rule that
/// does not parse is [`CompareError::Rule`].
pub fn compare_runs(
    app: &str,
    before: Vec<Run>,
    after: Vec<Run>,
    o: &CompareOptions,
) -> Result<Comparison, CompareError> {
    let rules = parse_rules(&o.fail_if)?;
    let sides = runs::Sides { app: app.to_owned(), runs: [before, after], notes: Vec::new(), warnings: Vec::new() };
    let settings = Settings::new(o.alpha, o.min_change_pct, o.indicative_gates);
    Ok(comparison::compare(&sides, &rules, &settings))
}

fn parse_rules(texts: &[String]) -> Result<Vec<gate::GateRule>, CompareError> {
    let (all, descriptive) = gate_names();
    let gateable = gate::Gateable { all: &all, descriptive: &descriptive };
    texts.iter().map(|r| gate::parse_rule(r, gateable)).collect::<Result<Vec<_>, _>>().map_err(CompareError::Rule)
}

/// The metrics a gate rule may name (all but the frame count), and those
/// that never carry a verdict.
fn gate_names() -> (Vec<&'static str>, Vec<&'static str>) {
    use crate::series::{Direction, Metric, Role};
    let names = |keep: &dyn Fn(Metric) -> bool| -> Vec<&'static str> {
        Metric::ALL.into_iter().filter(|&m| keep(m)).map(Metric::name).collect()
    };
    let mut all = names(&|m| m.direction() != Direction::Neutral);
    all.extend(startups::StartupMetric::ALL.map(startups::StartupMetric::name));
    (all, names(&|m| m.role() == Role::Descriptive))
}

/// What `fpsan compare` produced, for `cli` to print: the output, the lines
/// for stderr (in order, without the `fpsan: ` prefix), the tripped gates.
#[derive(Debug)]
pub struct Outcome {
    pub stdout: Vec<u8>,
    /// The Markdown rendering whatever `format` was (the Python bindings
    /// show it in a notebook); the JSON document is `stdout` with `--format json`.
    pub markdown: String,
    pub notes: Vec<String>,
    /// One line per tripped `--fail-if` rule: exit status 3 after printing.
    pub tripped: Vec<String>,
    /// The files `out` was given (none without it).
    pub written: Vec<PathBuf>,
    pub timings: Timings,
}

/// Run `fpsan compare`: load, compare, present (`--out`, the output, the
/// lines for stderr). Nothing is printed here; `cli` prints the [`Outcome`].
pub fn run(a: &CompareRequest) -> Result<Outcome, CompareError> {
    let rules = parse_rules(&a.fail_if)?;
    let started = std::time::Instant::now();
    let sides = runs::load_sides(a)?;
    let load = started.elapsed();
    let settings = Settings::new(a.alpha, a.min_change_pct, a.indicative_gates).deciding_on(a.decide_on);
    let c = comparison::compare(&sides, &rules, &settings);
    let compare = started.elapsed() - load;
    let report = present::CompareReport { comparison: &c, runs: &sides.runs };
    let how = present::Show { format: a.format, color: a.color, out: a.out.as_deref() };
    let done = present::present(&report, &rules, &how)?;
    let output = started.elapsed() - load - compare;
    let notes = sides.notes.into_iter().chain(done.notes).collect();
    Ok(Outcome {
        stdout: done.stdout,
        markdown: done.markdown,
        notes,
        tripped: done.tripped,
        written: done.written,
        timings: Timings { load, compare, output },
    })
}
