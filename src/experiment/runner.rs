//! One run of a series, with its retries (docs/ab.md, "When a run fails"):
//! the device is prepared (the build installed, for `ab`), its state checked
//! and recorded, the trace captured and checked for frames of the app. A
//! failed attempt is recorded with its reason (its trace, if any, kept under
//! `failed/`) and retried up to a bound, after waiting for a device that
//! dropped to come back. Every attempt is written to runs.json at once, so
//! an experiment that stops for any reason keeps its record.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::analysis;
use crate::capture::adb::Adb;
use crate::capture::hygiene::Hygiene;
use crate::capture::identity::{self, LocalApk};
use crate::capture::manifest::{Manifest, RunRecord, RunStatus, SeriesKind};
use crate::capture::{session, CaptureEnv, CaptureError, CaptureRequest, CaptureWarning, CaptureWarningCode};
use crate::compare::Run;
use crate::sink::one_line;

use super::plan::Build;
use super::{ExperimentError, InstallError, Kept};

/// How long a device that dropped gets to come back before the experiment stops.
const DEVICE_RETURN: Duration = Duration::from_secs(60);

/// Where a series' traces go and how its runs are made.
pub(crate) struct Runner<'a> {
    pub env: &'a CaptureEnv,
    pub adb: &'a Adb,
    pub hygiene: &'a Hygiene<'a>,
    pub dir: PathBuf,
    /// secs, scenario, launch, activity, buffer: the same for every run.
    pub template: CaptureRequest,
    /// Attempts after the first.
    pub retries: u32,
    pub cool_down: Duration,
    pub manifest: Manifest,
    /// Runs made so far (all attempts), for the order column.
    attempts_made: usize,
}

/// What an experiment keeps of a finished run: the values a look may
/// decide on (the run's frames are read again by `compare` at the end).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// fps as `compare` computes it.
    pub fps: Option<f64>,
    /// The app's TTID, ms, when it started in the run.
    pub ttid_ms: Option<f64>,
}

/// How one run ended.
enum RunEnd {
    Done(Measured),
    /// Ctrl-C: the run was not finished.
    Interrupted,
    /// Every attempt failed; the last reason.
    Failed(String),
    /// The phone refused (the line says which switch to change); not retried.
    Refused(String),
}

impl<'a> Runner<'a> {
    /// A series of `kind` into `dir`, its runs.json
    /// started from the request and the device.
    pub fn new(
        env: &'a CaptureEnv,
        adb: &'a Adb,
        hygiene: &'a Hygiene<'a>,
        dir: PathBuf,
        template: CaptureRequest,
        kind: SeriesKind,
    ) -> Runner<'a> {
        let manifest = Manifest {
            fpsan_version: env!("CARGO_PKG_VERSION").into(),
            kind,
            app: template.app.clone(),
            serial: adb.serial().unwrap_or_default().into(),
            scenario: template.drive.as_ref().map(|s| s.to_string()),
            launch: template.launch.as_str().into(),
            secs: template.secs,
            settings_changed: hygiene.changed().iter().map(|s| s.to_string()).collect(),
            settings_not_set: hygiene.not_set().to_vec(),
            ..Default::default()
        };
        Runner {
            env,
            adb,
            hygiene,
            dir,
            template,
            retries: 2,
            cool_down: Duration::from_secs(300),
            manifest,
            attempts_made: 0,
        }
    }

    fn stopped(&self) -> bool {
        self.env.stop.load(Ordering::SeqCst)
    }

    /// Settings the phone refused to change (recorded in runs.json): the
    /// series runs with them as they are only when `allowed`
    /// (`--allow-dirty-device`), with a warning; else it stops before its
    /// first run, saying which switch to turn on.
    pub fn check_settings(&mut self, allowed: bool) -> Result<(), ExperimentError> {
        let Some(refusal) = self.hygiene.refusal() else { return Ok(()) };
        let settings = self
            .manifest
            .settings_not_set
            .iter()
            .map(|s| format!("{} at {}", s.name, s.value))
            .collect::<Vec<_>>()
            .join(", ");
        if allowed {
            let line = format!(
                "--allow-dirty-device: the runs go on with {settings}, which the phone refused to change ({})",
                refusal.code()
            );
            self.env.sink.warn(None, &line);
            return Ok(());
        }
        let refused = ExperimentError::DirtyDevice { refusal, settings };
        self.manifest.stopped = Some(refused.to_string());
        self.save();
        Err(refused)
    }

    pub fn save(&self) {
        if let Err(e) = self.manifest.write(&self.dir) {
            self.env.sink.warn(None, &format!("cannot write {}/runs.json: {e}", self.dir.display()));
        }
    }

    /// Run number `run` of `side` (None: `capture --runs`), with retries:
    /// its fps (as `compare` computes it; None when undefined), or why the
    /// series stops here, recorded in runs.json; `kept` is what the series
    /// has finished so far. `prepare` puts the device in shape first
    /// (installs the build) and returns the local APK the installed one must
    /// be, if any.
    pub fn run(
        &mut self,
        side: Option<Build>,
        run: usize,
        kept: Kept,
        prepare: &mut dyn FnMut(&Adb) -> Result<Option<LocalApk>, InstallError>,
    ) -> Result<Measured, ExperimentError> {
        let dir = self.dir.clone();
        match self.run_with_retries(side, run, prepare) {
            RunEnd::Done(measured) => Ok(measured),
            RunEnd::Interrupted => {
                self.manifest.interrupted = true;
                Err(ExperimentError::Interrupted { kept, dir })
            }
            RunEnd::Refused(line) => {
                let refused = ExperimentError::Refused { line, kept, dir };
                self.manifest.stopped = Some(refused.to_string());
                Err(refused)
            }
            RunEnd::Failed(why) => {
                let attempts = self.retries + 1;
                let stopped = ExperimentError::Stopped { side, run, attempts, why, kept, dir };
                self.manifest.stopped = Some(stopped.to_string());
                Err(stopped)
            }
        }
    }

    /// The attempts of one run, each written to runs.json as it ends,
    /// until one succeeds, Ctrl-C comes or the retries are spent.
    fn run_with_retries(
        &mut self,
        side: Option<Build>,
        run: usize,
        prepare: &mut dyn FnMut(&Adb) -> Result<Option<LocalApk>, InstallError>,
    ) -> RunEnd {
        let mut last = String::new();
        for attempt in 1..=self.retries + 1 {
            if self.stopped() {
                return RunEnd::Interrupted;
            }
            let started = Instant::now();
            self.attempts_made += 1;
            let mut record = RunRecord {
                order: self.attempts_made,
                side,
                run,
                attempt,
                started: chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
                ..Default::default()
            };
            let result = self.attempt(side, run, &mut record, prepare);
            record.seconds = (started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
            let label = run_label(side, run);
            match result {
                Ok(r) => {
                    record.status = RunStatus::Ok;
                    record.fps = r.value(crate::series::Metric::Fps);
                    record.ttid_ms = r.ttid_ms();
                    let fps = record.fps.map_or_else(|| "no fps".to_string(), |v| format!("{v:.1} fps"));
                    let ttid = record.ttid_ms.map_or_else(String::new, |v| format!(", TTID {v:.1} ms"));
                    self.env.sink.info(None, &format!("{label}: {fps}{ttid} ({:.0} s)", record.seconds));
                    let measured = Measured { fps: record.fps, ttid_ms: record.ttid_ms };
                    self.manifest.runs.push(record);
                    self.save();
                    return RunEnd::Done(measured);
                }
                Err(Attempt::Interrupted) => {
                    record.status = RunStatus::Interrupted;
                    record.reason = Some("Ctrl-C".into());
                    self.manifest.runs.push(record);
                    self.save();
                    return RunEnd::Interrupted;
                }
                Err(Attempt::Refused(line)) => {
                    record.status = RunStatus::Failed;
                    record.reason = Some(line.clone());
                    self.manifest.runs.push(record);
                    self.save();
                    return RunEnd::Refused(line);
                }
                Err(Attempt::Failed(why)) => {
                    record.status = RunStatus::Failed;
                    record.reason = Some(why.clone());
                    self.env.sink.warn(None, &format!("{label}, attempt {attempt} failed: {why}"));
                    self.manifest.runs.push(record);
                    self.save();
                    last = why;
                    if let Err(gone) = self.wait_for_device() {
                        return RunEnd::Failed(gone.to_string());
                    }
                }
            }
        }
        RunEnd::Failed(last)
    }

    fn attempt(
        &self,
        side: Option<Build>,
        run: usize,
        record: &mut RunRecord,
        prepare: &mut dyn FnMut(&Adb) -> Result<Option<LocalApk>, InstallError>,
    ) -> Result<Run, Attempt> {
        let app = self.template.app.clone();
        let expected = prepare(self.adb).map_err(|e| match e {
            InstallError::Refused(r) => Attempt::Refused(r.to_string()),
            e => Attempt::Failed(e.to_string()),
        })?;
        let device =
            self.hygiene.before_run(&app, self.cool_down, self.env.poll * 10, &self.env.stop).map_err(Attempt::from)?;
        record.device = device;
        if record.device.throttled {
            let message = format!(
                "still throttling (thermal status {}) after {:.0} s of cool-down",
                record.device.thermal_status.unwrap_or(0),
                record.device.cooled_down_s
            );
            record.warnings.push(CaptureWarning::new(CaptureWarningCode::StillThrottling, message));
        }
        if let Some(local) = expected {
            let build = side.map_or("intended", Build::name);
            let device = &record.device;
            match identity::check(device.apk_sha256.as_deref(), device.apk_identity.as_ref(), &local) {
                identity::Check::Same => {}
                // A weaker check that passes is not proof: said in the run's record.
                identity::Check::SameSize => record.warnings.push(CaptureWarning::new(
                    CaptureWarningCode::ApkCheckedBySize,
                    format!(
                        "the installed APK was checked only by its size ({} bytes) and recorded with its versionCode {}: \
                         no hash tool on the phone",
                        local.size_bytes,
                        device.version_code.as_deref().unwrap_or("unknown")
                    ),
                )),
                identity::Check::Differs(what) => {
                    return Err(Attempt::Failed(format!("the installed APK is not the {build} build ({what})")))
                }
                identity::Check::Unknown => {
                    return Err(Attempt::Failed(format!(
                        "the installed APK could not be identified (`pm path` or every tool failed), so it may not be the {build} build"
                    )))
                }
            }
        }
        let relative = trace_name(side, run);
        let path = self.dir.join(&relative);
        let request =
            CaptureRequest { out: Some(path.clone()), analyze: false, dry_run: false, ..self.template.clone() };
        let outcome = session::capture(&request, self.env).map_err(Attempt::from)?;
        record.launch_state = outcome.launched.as_ref().and_then(|l| l.state.clone());
        record.launch_total_ms = outcome.launched.as_ref().and_then(|l| l.total_ms);
        record.warnings.extend(outcome.warnings.iter().cloned());
        let mut failed = |why: String| {
            record.trace = self.keep_failed(&path, side, run, record.attempt);
            why
        };
        if outcome.interrupted {
            failed(String::new());
            return Err(Attempt::Interrupted);
        }
        if let Some(died) = &outcome.app_died {
            return Err(Attempt::Failed(failed(died.clone())));
        }
        let opts = analysis::Options { summaries: false, ..Default::default() };
        match crate::compare::load_run(&path, &opts, &app) {
            Ok(r) => {
                record.trace = Some(relative);
                Ok(r)
            }
            Err(why) => Err(Attempt::Failed(failed(one_line(&why.to_string())))),
        }
    }

    /// Move a failed attempt's trace under `failed/` (out of the side's
    /// directory, which `compare` reads); its new relative path.
    fn keep_failed(&self, path: &Path, side: Option<Build>, run: usize, attempt: u32) -> Option<String> {
        if !path.is_file() {
            return None;
        }
        let side = side.map_or("run", Build::name);
        let relative = format!("failed/{side}-run-{run:02}-attempt-{attempt}.pftrace");
        let target = self.dir.join(&relative);
        std::fs::create_dir_all(target.parent()?).ok()?;
        std::fs::rename(path, &target).ok()?;
        Some(relative)
    }

    /// After a failure: if the device dropped, wait (bounded) for it.
    fn wait_for_device(&self) -> Result<(), DeviceGone> {
        let serial = self.adb.serial().unwrap_or_default().to_string();
        let until = Instant::now() + DEVICE_RETURN;
        loop {
            let back = session::connect(Some(&serial), self.env).is_ok();
            if back {
                return Ok(());
            }
            if Instant::now() >= until || self.stopped() {
                return Err(DeviceGone { serial });
            }
            std::thread::sleep(self.env.poll * 5);
        }
    }
}

/// A device that dropped and did not come back in time.
#[derive(Debug, thiserror::Error)]
#[error("device {serial} did not come back within {} s: check the USB cable and `adb devices`", DEVICE_RETURN.as_secs())]
struct DeviceGone {
    serial: String,
}

/// How an attempt went wrong; a failure's reason goes into runs.json as written.
enum Attempt {
    Interrupted,
    Failed(String),
    /// The phone refused: the line says which switch to change.
    Refused(String),
}

impl From<CaptureError> for Attempt {
    fn from(e: CaptureError) -> Attempt {
        match e {
            CaptureError::Cancelled => Attempt::Interrupted,
            CaptureError::Refused { .. } => Attempt::Refused(e.to_string()),
            e => Attempt::Failed(e.to_string()),
        }
    }
}

/// `before run 3`, or `run 3` for `capture --runs`.
pub(crate) fn run_label(side: Option<Build>, run: usize) -> String {
    match side {
        Some(s) => format!("{} run {run}", s.name()),
        None => format!("run {run}"),
    }
}

/// `before/run-01.pftrace`, or `run-01.pftrace` for `capture --runs`.
pub(crate) fn trace_name(side: Option<Build>, run: usize) -> String {
    match side {
        Some(s) => format!("{}/run-{run:02}.pftrace", s.name()),
        None => format!("run-{run:02}.pftrace"),
    }
}
