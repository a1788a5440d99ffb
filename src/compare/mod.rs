//! `fpsan compare BEFORE AFTER`: did a change make the UI smoother, by how
//! much, and can the runs tell? Wiring only: [`runs`] loads both sides
//! through the one analysis entry point, [`comparison`] computes each run's
//! metrics (`crate::series`, the one definition), the tests, intervals and verdicts on the per-run
//! values ([`stats`]), warnings and gates ([`gate`]), [`render`] prints,
//! [`out`] writes `--out DIR`. Formulas and sources: docs/compare.md.

use std::path::{Path, PathBuf};

mod charts;
pub(crate) mod comparison;
mod gate;
mod html;
mod out;
mod render;
mod runs;
pub(crate) mod stats;
#[cfg(test)]
mod tests;

pub use render::CompareFormat;

use crate::analysis;
use crate::frames::FrameOptions;
use crate::model::{Warning, WarningCode};
use comparison::Settings;
pub use comparison::{Comparison, IndicativeGates};
pub use gate::RuleError;
pub use runs::Run;
use runs::{AppChoice, Side};
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
    /// The apps with frames on each side (the ten with most).
    #[error("no app has frames on both sides; before: {before}; after: {after}")]
    NoCommonApp { before: String, after: String },
    #[error("{app} has no frames on the {} side; apps there: {apps}", side.name())]
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
    let names =
        |keep: &dyn Fn(Metric) -> bool| Metric::ALL.into_iter().filter(|&m| keep(m)).map(Metric::name).collect();
    (names(&|m| m.direction() != Direction::Neutral), names(&|m| m.role() == Role::Descriptive))
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

/// Run `fpsan compare`: load, compare, write `--out`, render the output.
/// Nothing is printed here; `cli` prints the [`Outcome`].
pub fn run(a: &CompareRequest) -> Result<Outcome, CompareError> {
    let rules = parse_rules(&a.fail_if)?;
    let started = std::time::Instant::now();
    let mut notes = Vec::new();
    let sides = load_sides(a, &mut notes)?;
    let load = started.elapsed();
    let settings = Settings::new(a.alpha, a.min_change_pct, a.indicative_gates);
    let c = comparison::compare(&sides, &rules, &settings);
    let compare = started.elapsed() - load;
    let mut written = Vec::new();
    if let Some(dir) = &a.out {
        written = out::write(dir, &c, &sides)?;
        notes.push(format!("wrote {} files to {}", written.len(), dir.display()));
    }
    if a.format == CompareFormat::Json {
        // The table and Markdown list the warnings; JSON keeps stdout for the document.
        notes.extend(c.warnings.iter().map(|w| w.line()));
    }
    let stdout = match a.format {
        CompareFormat::Table => render::table(&c, a.color).into_bytes(),
        CompareFormat::Markdown => render::markdown(&c).into_bytes(),
        CompareFormat::Json => render::json(&c).map_err(|e| CompareError::Report(e.into()))?,
    };
    let output = started.elapsed() - load - compare;
    if c.indicative && !rules.is_empty() && a.indicative_gates == IndicativeGates::Pass {
        let (b, af) = c.run_counts();
        notes.push(format!(
            "gates not checked: the comparison is indicative ({b} vs {af} runs; a test needs {} a side at alpha {}); \
             record more runs, or pass --indicative-gates fail to fail closed",
            c.min_runs_per_side, a.alpha
        ));
    }
    let tripped = (c.gates.iter().zip(&rules))
        .filter(|(g, _)| g.tripped)
        .map(|(g, r)| comparison::tripped_line(&c, r, g))
        .collect();
    let markdown = render::markdown(&c);
    Ok(Outcome { stdout, markdown, notes, tripped, written, timings: Timings { load, compare, output } })
}

/// What the sides' runs.json (`ab`, `capture --runs`) say about their
/// device states; nothing when a side has none.
fn manifest_warnings(before: &Path, after: &Path) -> Vec<String> {
    use crate::capture::manifest::{side_warnings, Manifest, SeriesKind};
    let (Some(mb), Some(ma)) = (Manifest::find_for(before), Manifest::find_for(after)) else { return Vec::new() };
    let (Ok(b), Ok(a)) = (Manifest::read(&mb), Manifest::read(&ma)) else { return Vec::new() };
    // One `ab` experiment holds both sides; two `capture --runs` one each.
    let side = |m: &Manifest, path: &Path| {
        (m.kind == SeriesKind::Ab).then(|| path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string())
    };
    let (sb, sa) = (side(&b, before), side(&a, after));
    side_warnings(&b.ok_runs(sb.as_deref()).collect::<Vec<_>>(), &a.ok_runs(sa.as_deref()).collect::<Vec<_>>())
}

/// Both sides analysed, the app chosen, each run reduced to its frames.
fn load_sides(a: &CompareRequest, notes: &mut Vec<String>) -> Result<runs::Sides, CompareError> {
    let sides = [
        (Side::Before, runs::list_traces(Side::Before, &a.before)?),
        (Side::After, runs::list_traces(Side::After, &a.after)?),
    ];
    let opts = analysis::Options {
        frames: FrameOptions { refresh_hz: a.refresh_hz, ..analysis::Options::default().frames },
        // compare computes its metrics per run itself; the scenes come with the frames table.
        summaries: false,
        whole_trace: a.whole_trace,
        ..Default::default()
    };
    let (loaded, load_warnings) = runs::load_all(sides, &opts, a.out.is_some(), a.sink);
    for (k, side) in [Side::Before, Side::After].into_iter().enumerate() {
        if loaded[k].is_empty() {
            let why = load_warnings.iter().map(|w| w.message.as_str()).collect::<Vec<_>>().join("; ");
            return Err(CompareError::NoUsableRun { side, why });
        }
    }
    let choice = match (&a.app, a.pids) {
        (Some(pkg), _) => AppChoice::Package(pkg.clone()),
        (None, Some((b, af))) => AppChoice::Pids(b, af),
        (None, None) => AppChoice::Auto,
    };
    let mut sides = runs::select(&choice, loaded)?;
    sides.warnings.splice(0..0, load_warnings);
    sides.warnings.extend(
        manifest_warnings(&a.before, &a.after).into_iter().map(|m| Warning::new(WarningCode::DeviceStateDiffers, m)),
    );
    notes.extend(sides.notes.iter().cloned());
    Ok(sides)
}
