//! The command line of `fpsan compare` (docs/compare.md), turned into the
//! library's [`CompareRequest`].

use std::path::PathBuf;

use clap::Args;

use super::{non_negative_f64, number, positive_f64, BadValue};
use crate::compare::{CompareFormat, CompareRequest, DecideOn, IndicativeGates};

/// `fpsan compare` arguments.
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// The "before" trace file (any format `analyze` reads: Perfetto protobuf, systrace/atrace
    /// text or HTML), or a directory of repeated runs.
    pub before: PathBuf,
    /// The "after" trace file, or a directory of repeated runs.
    pub after: PathBuf,
    /// The app to compare (same matching as `analyze --app`); default: the app with most frames on both sides.
    #[arg(long, conflicts_with_all = ["pid_before", "pid_after"])]
    pub app: Option<String>,
    /// The app's process id in the "before" runs.
    #[arg(long, value_name = "N", requires = "pid_after")]
    pub pid_before: Option<i32>,
    /// The app's process id in the "after" runs.
    #[arg(long, value_name = "M", requires = "pid_before")]
    pub pid_after: Option<i32>,
    /// Also write into DIR: compare.html, compare.json, frames.parquet (every run's frames)
    /// and charts/compare-{cdf,drop-levels,fps-runs,fps-wall}.png.
    #[arg(short = 'o', long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub options: CompareOptionArgs,
}

/// compare's options that `ab` takes too.
#[derive(Debug, Clone, Args)]
pub struct CompareOptionArgs {
    /// What to print on stdout: table (aligned text), json (compare.json's document) or markdown.
    #[arg(long, value_enum, default_value_t = CompareFormat::Table)]
    pub format: CompareFormat,
    /// CI gate `METRIC.FIELD OP NUMBER` (FIELD: after, delta, delta_pct; OP: <, <=, >, >=); exit 3 when one trips.
    #[arg(long = "fail-if", value_name = "RULE")]
    pub fail_if: Vec<String>,
    /// Significance level of every test (family-wise over the headline and over the gates); intervals are 1 − alpha.
    #[arg(long, default_value_t = 0.05, value_parser = alpha)]
    pub alpha: f64,
    /// Smallest change (% of before) reported as better or worse; within ± it is "same".
    #[arg(long, value_name = "PCT", default_value_t = 2.0, value_parser = non_negative_f64)]
    pub min_change: f64,
    /// Force the display refresh rate instead of reading it from the traces.
    #[arg(long, value_name = "F", value_parser = positive_f64)]
    pub refresh_hz: Option<f64>,
    /// With too few runs for a test (indicative): `pass` leaves the gates unchecked, `fail` trips them all (fail closed).
    #[arg(long, value_enum, default_value_t = IndicativeGates::Pass)]
    pub indicative_gates: IndicativeGates,
    /// Compare whole traces, not only the windows of the scenario `capture --drive` marked in them.
    #[arg(long)]
    pub whole_trace: bool,
    /// What the headline decides on: frames (fps, frame cost P90, janky frames), startup (the app's TTID) or both;
    /// default: frames (`ab --launch cold`: startup without --drive, both with it).
    #[arg(long, value_enum)]
    pub decide_on: Option<DecideOn>,
}

fn alpha(s: &str) -> Result<f64, BadValue> {
    number(s, "a number between 0 and 1", |v| v > 0.0 && v < 1.0)
}

impl CompareOptionArgs {
    /// A request with these options; the sides, app and `--out` are the caller's.
    pub fn request(&self) -> CompareRequest {
        CompareRequest {
            before: PathBuf::new(),
            after: PathBuf::new(),
            app: None,
            pids: None,
            out: None,
            format: self.format,
            fail_if: self.fail_if.clone(),
            alpha: self.alpha,
            min_change_pct: self.min_change,
            refresh_hz: self.refresh_hz,
            indicative_gates: self.indicative_gates,
            decide_on: self.decide_on.unwrap_or_default(),
            whole_trace: self.whole_trace,
            color: false,
            sink: crate::sink::Sink::quiet(),
        }
    }
}

impl From<&CompareArgs> for CompareRequest {
    fn from(a: &CompareArgs) -> Self {
        CompareRequest {
            before: a.before.clone(),
            after: a.after.clone(),
            app: a.app.clone(),
            pids: a.pid_before.zip(a.pid_after),
            out: a.out.clone(),
            ..a.options.request()
        }
    }
}
