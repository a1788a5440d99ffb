//! The command line of `fpsan capture`, turned into the library's
//! [`CaptureRequest`].

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::capture::scenario::Scenario;
use crate::capture::CaptureRequest;

/// `fpsan capture` arguments.
#[derive(Args, Debug, Clone)]
pub struct CaptureArgs {
    /// Package name of the app to trace (e.g. com.example.app).
    #[arg(long, value_name = "PKG")]
    pub app: String,
    /// How long to trace, in seconds.
    #[arg(long, default_value_t = 30, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=86_400))]
    pub secs: u32,
    /// Where to write the trace (default: PKG-<date>.pftrace; a directory
    /// gets that name inside it); with --runs, the directory of the runs.
    #[arg(short = 'o', long = "out", value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Device serial (as in `adb devices`); default: ANDROID_SERIAL, or the only device.
    #[arg(long, value_name = "SERIAL")]
    pub serial: Option<String>,
    /// Trace buffer size on the device, in MB (default: 5 MB per second, 16-256).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub buffer_mb: Option<u32>,
    /// Analyze the trace right after capturing it.
    #[arg(long)]
    pub analyze: bool,
    /// Print the TraceConfig and the perfetto command, touch no device.
    #[arg(long)]
    pub dry_run: bool,
    /// Drive a scenario while tracing: a step file, or steps separated by
    /// `;` (`input swipe 500 1500 500 300 300; sleep 1`); repeatable, run in
    /// order (docs/capture.md, "Driving a scenario").
    #[arg(long, value_name = "FILE|STEPS")]
    pub drive: Vec<String>,
    /// Start the app inside the trace from this state (Macrobenchmark's):
    /// cold (process killed first), warm (process alive, activity gone), hot
    /// (activity in the background), none (leave it as it is).
    #[arg(long, value_enum, default_value = "none")]
    pub launch: crate::capture::launch::Launch,
    /// The activity `--launch` starts (`.Main`, `pkg/.Main`); default: the launcher's.
    #[arg(long, value_name = "NAME")]
    pub activity: Option<String>,
    /// Capture N runs into the directory `--out` (run-01.pftrace …, runs.json), the device checked
    /// before each: a side for `compare`.
    #[arg(long, value_name = "N", requires = "out", conflicts_with_all = ["analyze", "dry_run"], value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: Option<u32>,
    /// With --runs: run even when the phone refuses to set the animation scales or stay-awake.
    #[arg(long, requires = "runs")]
    pub allow_dirty_device: bool,
}

impl CaptureArgs {
    /// The scenario of the `--drive` values.
    pub fn scenario(&self) -> Result<Option<Scenario>, CliError> {
        scenario_of(&self.drive)
    }
}

/// The scenario of `--drive` values: each a step file when one exists at
/// that path, else inline steps.
pub fn scenario_of(drive: &[String]) -> Result<Option<Scenario>, CliError> {
    if drive.is_empty() {
        return Ok(None);
    }
    let mut text = String::new();
    for d in drive {
        let p = std::path::Path::new(d);
        if p.is_file() {
            let t =
                std::fs::read_to_string(p).map_err(|source| CliError::StepFile { path: p.to_path_buf(), source })?;
            text.push_str(&t);
        } else {
            text.push_str(d);
        }
        text.push('\n');
    }
    Ok(Some(Scenario::parse(&text)?))
}

impl From<&CaptureArgs> for CaptureRequest {
    fn from(a: &CaptureArgs) -> Self {
        CaptureRequest {
            app: a.app.clone(),
            secs: a.secs,
            out: a.out.clone(),
            serial: a.serial.clone(),
            buffer_mb: a.buffer_mb,
            analyze: a.analyze,
            dry_run: a.dry_run,
            drive: None,
            launch: a.launch,
            activity: a.activity.clone(),
        }
    }
}
