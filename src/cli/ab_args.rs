//! The command line of `fpsan ab` (docs/ab.md), turned into the library's
//! [`AbRequest`].

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::capture_args::scenario_of;
use super::compare_args::CompareOptionArgs;
use super::CliError;
use crate::capture::launch::Launch;
use crate::capture::CaptureRequest;
use crate::compare::CompareRequest;
use crate::experiment::plan::Order;
use crate::experiment::{AbRequest, Compile};

/// `fpsan ab` arguments.
#[derive(Args, Debug, Clone)]
pub struct AbArgs {
    /// Package name of the app (both APKs install it).
    #[arg(long, value_name = "PKG")]
    pub app: String,
    /// The APK of the build before the change.
    #[arg(long, value_name = "APK")]
    pub before: PathBuf,
    /// The APK of the build after the change.
    #[arg(long, value_name = "APK")]
    pub after: PathBuf,
    /// Runs of each build (with --until-decided: runs a side before the first look).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: Option<u32>,
    /// The builds' order, pair after pair: abba (A B, B A, …) or shuffle (seeded).
    #[arg(long, value_enum, default_value = "abba")]
    pub order: Order,
    /// Seed of --order shuffle (recorded in runs.json).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The scenario, as `capture --drive`: a step file or `;`-separated steps (repeatable).
    #[arg(long, value_name = "FILE|STEPS")]
    pub drive: Vec<String>,
    /// The app's state when each run starts (as `capture --launch`).
    #[arg(long, value_enum, default_value = "cold")]
    pub launch: Launch,
    /// The activity --launch starts; default: the launcher's.
    #[arg(long, value_name = "NAME")]
    pub activity: Option<String>,
    /// How long each run traces, in seconds.
    #[arg(long, default_value_t = 20, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=86_400))]
    pub secs: u32,
    /// Keep adding pairs of runs until the fps verdict is decided (alpha spent across the looks).
    #[arg(long)]
    pub until_decided: bool,
    /// Runs a side at most with --until-decided.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub max_runs: u32,
    /// Where the runs, runs.json and compare's outputs go (default: ab-<date>).
    #[arg(short = 'o', long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Device serial (as in `adb devices`); default: ANDROID_SERIAL, or the only device.
    #[arg(long, value_name = "SERIAL")]
    pub serial: Option<String>,
    /// Trace buffer size on the device, in MB.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub buffer_mb: Option<u32>,
    /// Attempts after a run's first failure before the experiment stops.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub retries: u32,
    /// Longest wait, in seconds, for a throttling device to cool down before a run.
    #[arg(long, default_value_t = 300, value_name = "SECS")]
    pub cool_down: u64,
    /// Compile the app after each install as Macrobenchmark's modes: none, partial (speed-profile), full (speed), ignore.
    #[arg(long, value_enum, default_value = "ignore")]
    pub compile: Compile,
    /// Run even when the phone refuses to set the animation scales or stay-awake (they keep their values, recorded in runs.json).
    #[arg(long)]
    pub allow_dirty_device: bool,
    #[command(flatten)]
    pub compare: CompareOptionArgs,
}

impl AbArgs {
    pub fn request(&self, stamp: &str) -> Result<AbRequest, CliError> {
        let capture = CaptureRequest {
            app: self.app.clone(),
            secs: self.secs,
            out: None,
            serial: self.serial.clone(),
            buffer_mb: self.buffer_mb,
            analyze: false,
            dry_run: false,
            drive: scenario_of(&self.drive)?,
            launch: self.launch,
            activity: self.activity.clone(),
        };
        let out = self.out.clone().unwrap_or_else(|| PathBuf::from(format!("ab-{stamp}")));
        let decide_on = self
            .compare
            .decide_on
            .unwrap_or_else(|| crate::experiment::default_decision(capture.launch, capture.drive.is_some()));
        let compare = CompareRequest {
            before: out.join("before"),
            after: out.join("after"),
            app: Some(self.app.clone()),
            pids: None,
            out: Some(out.clone()),
            decide_on,
            ..self.compare.request()
        };
        Ok(AbRequest {
            capture,
            before_apk: self.before.clone(),
            after_apk: self.after.clone(),
            runs: self.runs.map(|r| r as usize),
            order: self.order,
            seed: self.seed,
            until_decided: self.until_decided,
            max_runs: self.max_runs as usize,
            out,
            retries: self.retries,
            cool_down: Duration::from_secs(self.cool_down),
            compile: self.compile,
            allow_dirty_device: self.allow_dirty_device,
            compare,
        })
    }
}
