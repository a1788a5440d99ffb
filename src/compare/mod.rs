//! `fpsan compare BEFORE AFTER`: did a change make the UI smoother, by how
//! much, and can the runs tell? Wiring only: [`runs`] loads both sides
//! through the one analysis entry point, [`comparison`] computes each run's
//! metrics ([`metrics`]), the tests, intervals and verdicts on the per-run
//! values ([`stats`]), warnings and gates ([`gate`]), [`render`] prints,
//! [`out`] writes `--out DIR`. Formulas and sources: docs/compare.md.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

mod charts;
mod comparison;
mod gate;
mod html;
mod metrics;
mod out;
mod render;
mod runs;
pub(crate) mod stats;
#[cfg(test)]
mod tests;

pub use render::CompareFormat;

use crate::analysis;
use crate::frames::FrameOptions;
use comparison::Settings;
pub use comparison::{Comparison, IndicativeGates};
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
}

/// Why `compare` did not finish with status 0.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// The command line (a rule that does not parse, an unknown metric): exit 2.
    #[error("{0}")]
    Usage(String),
    /// The input is unusable (a side with no usable run, the app missing): exit 1.
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
    #[error("cannot write to stdout: {0}")]
    Stdout(std::io::Error),
    /// At least one `--fail-if` rule tripped: exit 3 (the output was printed).
    #[error(transparent)]
    Gate(#[from] GateTripped),
}

/// `--fail-if` rules that tripped, one stderr line each.
#[derive(Debug, thiserror::Error)]
#[error("{}", lines.join("; "))]
pub struct GateTripped {
    pub lines: Vec<String>,
}

/// Wall time of the phases of one `compare` (the benchmark prints them).
#[derive(Debug, Clone, Copy, Default)]
pub struct Timings {
    /// Reading and analysing every run (in parallel).
    pub load: std::time::Duration,
    /// Per-run metrics, tests, intervals, verdicts, warnings and gates.
    pub compare: std::time::Duration,
    /// Printing and `--out`.
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
/// `app` (matched as `analyze --app` matches). The error is one line.
pub fn load_run(path: &Path, opts: &analysis::Options, app: &str) -> Result<Run, String> {
    runs::load_run(path, opts, app)
}

/// What `fpsan compare` computes from runs already loaded, without reading
/// or printing anything (the calibration program, the bindings). A rule that
/// does not parse is [`CompareError::Usage`].
pub fn compare_runs(
    app: &str,
    before: Vec<Run>,
    after: Vec<Run>,
    o: &CompareOptions,
) -> Result<Comparison, CompareError> {
    let rules = parse_rules(&o.fail_if)?;
    let sides = runs::Sides { app: app.to_owned(), runs: [before, after], chosen_note: None, warnings: Vec::new() };
    let settings = Settings::new(o.alpha, o.min_change_pct, o.indicative_gates);
    Ok(comparison::compare(&sides, &rules, &settings))
}

fn parse_rules(texts: &[String]) -> Result<Vec<gate::GateRule>, CompareError> {
    let (all, descriptive) = (metrics::gateable(), metrics::descriptive_names());
    let gateable = gate::Gateable { all: &all, descriptive: &descriptive };
    texts
        .iter()
        .map(|r| gate::parse_rule(r, gateable))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| CompareError::Usage(e.to_string()))
}

/// Run `fpsan compare`.
pub fn run(a: &CompareRequest) -> Result<(), CompareError> {
    run_timed(a).map(|_| ())
}

/// [`run`], returning how long each phase took.
pub fn run_timed(a: &CompareRequest) -> Result<Timings, CompareError> {
    let rules = parse_rules(&a.fail_if)?;
    let started = std::time::Instant::now();
    let sides = load_sides(a)?;
    let load = started.elapsed();
    let settings = Settings::new(a.alpha, a.min_change_pct, a.indicative_gates);
    let c = comparison::compare(&sides, &rules, &settings);
    let compare = started.elapsed() - load;
    if let Some(dir) = &a.out {
        let written = out::write(dir, &c, &sides)?;
        eprintln!("fpsan: wrote {} files to {}", written.len(), dir.display());
    }
    print(a.format, &c)?;
    let output = started.elapsed() - load - compare;
    if c.indicative && !rules.is_empty() && a.indicative_gates == IndicativeGates::Pass {
        let (b, af) = c.run_counts();
        eprintln!(
            "fpsan: gates not checked: the comparison is indicative ({b} vs {af} runs; a test needs {} a side at alpha {}); \
             record more runs, or pass --indicative-gates fail to fail closed",
            c.min_runs_per_side, a.alpha
        );
    }
    let tripped: Vec<String> = (c.gates.iter().zip(&rules))
        .filter(|(g, _)| g.tripped)
        .map(|(g, r)| comparison::tripped_line(&c, r, g))
        .collect();
    if tripped.is_empty() {
        Ok(Timings { load, compare, output })
    } else {
        Err(GateTripped { lines: tripped }.into())
    }
}

/// Both sides analysed, the app chosen, each run reduced to its frames.
fn load_sides(a: &CompareRequest) -> Result<runs::Sides, CompareError> {
    let sides = [
        (Side::Before, runs::list_traces(Side::Before, &a.before)?),
        (Side::After, runs::list_traces(Side::After, &a.after)?),
    ];
    let opts = analysis::Options {
        frames: FrameOptions { refresh_hz: a.refresh_hz, ..analysis::Options::default().frames },
        // compare computes its metrics per run itself; the scenes come with the frames table.
        summaries: false,
        ..Default::default()
    };
    let progress = std::io::stderr().is_terminal();
    let (loaded, load_warnings) = runs::load_all(sides, &opts, a.out.is_some(), progress);
    for (k, side) in [Side::Before, Side::After].into_iter().enumerate() {
        if loaded[k].is_empty() {
            let why = load_warnings.join("; ");
            return Err(CompareError::Input(format!("the {} side has no usable run: {why}", side.name())));
        }
    }
    let choice = match (&a.app, a.pids) {
        (Some(pkg), _) => AppChoice::Package(pkg.clone()),
        (None, Some((b, af))) => AppChoice::Pids(b, af),
        (None, None) => AppChoice::Auto,
    };
    let mut sides = runs::select(&choice, loaded)?;
    sides.warnings.splice(0..0, load_warnings);
    if let Some(note) = &sides.chosen_note {
        eprintln!("fpsan: {note}");
    }
    Ok(sides)
}

fn print(format: CompareFormat, c: &Comparison) -> Result<(), CompareError> {
    let bytes = match format {
        CompareFormat::Table => render::table(c, std::io::stdout().is_terminal()).into_bytes(),
        CompareFormat::Markdown => render::markdown(c).into_bytes(),
        CompareFormat::Json => {
            for w in &c.warnings {
                eprintln!("fpsan: warning: {w}");
            }
            render::json(c).map_err(|e| CompareError::Report(crate::report::ReportError::from(e)))?
        }
    };
    let mut out = std::io::stdout().lock();
    out.write_all(&bytes).and_then(|_| out.flush()).map_err(CompareError::Stdout)
}
