//! `fpsan ab` and `fpsan capture --runs`: repeated runs on a device
//! (docs/ab.md). Wiring only: [`plan`] orders the builds, [`runner`] makes
//! each run (hygiene, capture, check, retries, runs.json), the sequential
//! design of `--until-decided` lives with the statistics
//! (`compare::stats::sequential`), and the verdict is `compare`'s.

pub mod plan;
mod runner;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::capture::adb::{Adb, ShellError, SHORT_TIMEOUT};
use crate::capture::hygiene::Hygiene;
use crate::capture::identity::LocalApk;
use crate::capture::manifest::{BuildRecord, LookRecord, LookVerdict, SeriesKind};
use crate::capture::refusal::Refusal;
use crate::capture::{self, session, CaptureEnv, CaptureError, CaptureRequest};
use crate::compare::comparison::{primary_head_name, primary_result, DecideOn, IndicativeGates, Settings};
use crate::compare::stats::sequential::Design;
use crate::compare::{CompareError, CompareRequest, Outcome, Verdict};
use plan::{Build, Order, Plan};
use runner::Runner;

/// How the app is compiled after each install (Macrobenchmark's
/// CompilationMode), so both builds run in the same state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compile {
    /// As `adb install` left it (recorded, not changed).
    #[default]
    Ignore,
    /// `cmd package compile --reset`: no AOT code (interpreted and JIT).
    None,
    /// `-m speed-profile`: the code its profile names (a baseline profile).
    Partial,
    /// `-m speed`: all of it.
    Full,
}

impl Compile {
    fn command(self, app: &str) -> Option<String> {
        match self {
            Compile::Ignore => None,
            Compile::None => Some(format!("cmd package compile --reset {app}")),
            Compile::Partial => Some(format!("cmd package compile -f -m speed-profile {app}")),
            Compile::Full => Some(format!("cmd package compile -f -m speed {app}")),
        }
    }
}

/// What `fpsan ab` is asked to do (the command line is `cli`'s).
#[derive(Debug, Clone)]
pub struct AbRequest {
    /// The app, the scenario, the launch, the trace length, the device: as
    /// `capture` takes them (its `out` is ignored).
    pub capture: CaptureRequest,
    pub before_apk: PathBuf,
    pub after_apk: PathBuf,
    /// Runs a side (`--until-decided`: at the first look; default: the
    /// fewest the first look can decide on).
    pub runs: Option<usize>,
    pub order: Order,
    pub seed: u64,
    pub until_decided: bool,
    /// Runs a side at most with `--until-decided`.
    pub max_runs: usize,
    pub out: PathBuf,
    pub retries: u32,
    pub cool_down: Duration,
    pub compile: Compile,
    /// Run even when the phone refused to set the hygiene settings (they
    /// keep their values, recorded in runs.json).
    pub allow_dirty_device: bool,
    /// compare's options (`before`, `after`, `out` and `app` are set here).
    pub compare: CompareRequest,
}

/// Default runs a side without `--until-decided`.
pub const DEFAULT_RUNS: usize = 10;

/// Why `ab` or `capture --runs` did not finish.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    #[error("--runs and --max-runs must be at least 1 and 2")]
    RunCounts,
    #[error("--runs needs --out DIR")]
    RunsNeedOut,
    #[error("--max-runs {max_runs} is too few for --until-decided at alpha {alpha}: raise it")]
    TooFewRuns { max_runs: usize, alpha: f64 },
    #[error("--{} {}: {source}: give the APK file of that build", build.name(), path.display())]
    Apk { build: Build, path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Capture(#[from] CaptureError),
    /// A run failed every attempt (`why`: the last reason), or the device went away: the
    /// finished runs are kept.
    #[error("{} failed {attempts} times (last: {why}); {kept} kept in {}", runner::run_label(*side, *run), dir.display())]
    Stopped { side: Option<Build>, run: usize, attempts: u32, why: String, kept: Kept, dir: PathBuf },
    /// The phone refused a command until a developer switch is changed (an
    /// install, a scenario step): retrying cannot help.
    #[error("{line}{}", kept_suffix(*kept, dir))]
    Refused { line: String, kept: Kept, dir: PathBuf },
    /// The phone refused the hygiene settings and `--allow-dirty-device` was not given.
    #[error("{refusal} (or pass --allow-dirty-device to run with {settings})")]
    DirtyDevice { refusal: Refusal, settings: String },
    /// Ctrl-C: the finished runs are kept, the device restored.
    #[error("interrupted: {kept} kept in {}", dir.display())]
    Interrupted { kept: Kept, dir: PathBuf },
    #[error(transparent)]
    Compare(#[from] CompareError),
    #[error("cannot write to {}: it already holds an experiment (runs.json): choose another --out", path.display())]
    OutTaken { path: PathBuf },
    #[error("cannot write to {}: {source}", path.display())]
    Output { path: PathBuf, source: std::io::Error },
}

impl ExperimentError {
    pub fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            // An `--out` with an experiment in it is the user's choice of folder, as a flag's value.
            ExperimentError::RunCounts
            | ExperimentError::RunsNeedOut
            | ExperimentError::TooFewRuns { .. }
            | ExperimentError::OutTaken { .. } => ErrorKind::Usage,
            ExperimentError::Apk { .. } | ExperimentError::Output { .. } => ErrorKind::Io,
            ExperimentError::Stopped { .. } | ExperimentError::Refused { .. } | ExperimentError::DirtyDevice { .. } => {
                ErrorKind::Input
            }
            ExperimentError::Interrupted { .. } => ErrorKind::Interrupted,
            ExperimentError::Capture(e) => e.kind(),
            ExperimentError::Compare(e) => e.kind(),
        }
    }
}

/// The finished runs an experiment that ended early kept: per build (`ab`),
/// or in all (`capture --runs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    Sides([usize; 2]),
    Runs(usize),
}

impl std::fmt::Display for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Kept::Sides([before, after]) => write!(f, "{before} before and {after} after runs"),
            Kept::Runs(n) => write!(f, "{n} runs"),
        }
    }
}

/// `; 3 before and 2 after runs kept in DIR`, or nothing when no run was finished.
fn kept_suffix(kept: Kept, dir: &Path) -> String {
    match kept {
        Kept::Sides([0, 0]) | Kept::Runs(0) => String::new(),
        _ => format!("; {kept} kept in {}", dir.display()),
    }
}

/// What `ab` produced: compare's outcome (stdout, notes, tripped gates), and
/// where everything is.
#[derive(Debug)]
pub struct AbOutcome {
    pub dir: PathBuf,
    pub compare: Outcome,
    /// The level of the final verdict (`--alpha`, or the last look's).
    pub alpha: f64,
    pub runs_per_side: [usize; 2],
}

fn output_dir(dir: &Path) -> Result<(), ExperimentError> {
    if dir.join(capture::manifest::FILE_NAME).exists() {
        return Err(ExperimentError::OutTaken { path: dir.to_path_buf() });
    }
    std::fs::create_dir_all(dir).map_err(|source| ExperimentError::Output { path: dir.to_path_buf(), source })
}

/// `fpsan ab` in a given environment (the CLI passes the real one, with Ctrl-C).
pub fn ab(req: &AbRequest, env: &CaptureEnv) -> Result<AbOutcome, ExperimentError> {
    check_request(req)?;
    let builds = hash_builds(req, env)?;
    let design = plan_looks(req)?;
    make_dirs(&req.out)?;
    let adb = session::connect(req.capture.serial.as_deref(), env)?;
    let hygiene = Hygiene::begin(&adb, env.sink)?;
    let mut experiment = Experiment::new(req, env, &adb, &hygiene, builds);
    experiment.runner.check_settings(req.allow_dirty_device)?;
    let ran = experiment.run_pairs(design);
    let (alpha, runs_per_side) = experiment.finish();
    // The device's settings back (Hygiene's drop) before compare reads the runs.
    drop(hygiene);
    ran?;
    compare_sides(req, alpha, runs_per_side)
}

/// What an experiment decides on unless told (`--decide-on`): a cold
/// launch without a scenario on the app's TTID (as a Macrobenchmark startup
/// test does), with one on its frames and its TTID, anything else on its
/// frames (docs/ab.md, "What is decided").
pub fn default_decision(launch: crate::capture::launch::Launch, driven: bool) -> DecideOn {
    use crate::capture::launch::Launch;
    match (launch, driven) {
        (Launch::Cold, false) => DecideOn::Startup,
        (Launch::Cold, true) => DecideOn::Both,
        _ => DecideOn::Frames,
    }
}

/// The checks that need neither the APKs nor the device.
fn check_request(req: &AbRequest) -> Result<(), ExperimentError> {
    capture::validate(&req.capture)?;
    if req.max_runs < 2 || req.runs.is_some_and(|r| r == 0) {
        return Err(ExperimentError::RunCounts);
    }
    Ok(())
}

/// Each build's APK and SHA-256, which each run checks on the device (the
/// same hash twice is worth a warning: the builds cannot differ).
fn hash_builds(req: &AbRequest, env: &CaptureEnv) -> Result<Vec<BuildRecord>, ExperimentError> {
    let mut builds = Vec::new();
    for (build, apk) in [(Build::Before, &req.before_apk), (Build::After, &req.after_apk)] {
        let local =
            LocalApk::of(apk).map_err(|source| ExperimentError::Apk { build, path: apk.to_path_buf(), source })?;
        builds.push(BuildRecord {
            side: build,
            apk: apk.display().to_string(),
            sha256: local.sha256,
            md5: Some(local.md5),
            size_bytes: Some(local.size_bytes),
        });
    }
    if builds[0].sha256 == builds[1].sha256 {
        env.sink.warn(None, "--before and --after are the same APK (same SHA-256): expect `same`");
    }
    Ok(builds)
}

/// `--until-decided`'s looks (`--runs` is then the runs before the first),
/// or none: every planned run is made.
fn plan_looks(req: &AbRequest) -> Result<Option<Design>, ExperimentError> {
    if !req.until_decided {
        return Ok(None);
    }
    let at_least = req.runs.unwrap_or(2);
    Design::new(req.compare.alpha, at_least, req.max_runs)
        .map(Some)
        .ok_or(ExperimentError::TooFewRuns { max_runs: req.max_runs, alpha: req.compare.alpha })
}

/// The experiment's directory, and in it one for each build's traces (the
/// two sides `compare` reads).
fn make_dirs(dir: &Path) -> Result<(), ExperimentError> {
    output_dir(dir)?;
    for b in [Build::Before, Build::After] {
        std::fs::create_dir_all(dir.join(b.name()))
            .map_err(|source| ExperimentError::Output { path: dir.to_path_buf(), source })?;
    }
    Ok(())
}

/// The finished runs compared (`--alpha`: the last look's level), the
/// verdict written beside them.
fn compare_sides(req: &AbRequest, alpha: f64, runs_per_side: [usize; 2]) -> Result<AbOutcome, ExperimentError> {
    let compare = CompareRequest {
        before: req.out.join("before"),
        after: req.out.join("after"),
        app: Some(req.capture.app.clone()),
        pids: None,
        out: Some(req.out.clone()),
        alpha,
        ..req.compare.clone()
    };
    let outcome = crate::compare::run(&compare)?;
    Ok(AbOutcome { dir: req.out.clone(), compare: outcome, alpha, runs_per_side })
}

/// An `ab` experiment on the device, run after run.
struct Experiment<'a> {
    req: &'a AbRequest,
    runner: Runner<'a>,
    /// The build on the device (`None` at first and after a failed install).
    installed: Option<Build>,
    /// Each finished run's value of what the looks decide on (fps, or TTID
    /// when the experiment decides on the startup), per build.
    done: [Vec<Option<f64>>; 2],
    /// The level of the final verdict: `--alpha`, or the last look's.
    alpha: f64,
}

impl<'a> Experiment<'a> {
    /// runs.json begins with the design: the order, its seed, the builds.
    fn new(
        req: &'a AbRequest,
        env: &'a CaptureEnv,
        adb: &'a Adb,
        hygiene: &'a Hygiene<'a>,
        builds: Vec<BuildRecord>,
    ) -> Experiment<'a> {
        let mut runner = Runner::new(env, adb, hygiene, req.out.clone(), req.capture.clone(), SeriesKind::Ab);
        runner.manifest.order = Some(req.order.as_str().into());
        runner.manifest.seed = (req.order == Order::Shuffle).then_some(req.seed);
        runner.manifest.builds = builds;
        runner.retries = req.retries;
        runner.cool_down = req.cool_down;
        Experiment { req, runner, installed: None, done: [Vec::new(), Vec::new()], alpha: req.compare.alpha }
    }

    /// The pairs of runs, each in the plan's order, until the planned
    /// number (`--max-runs` with looks) or a look that decides. Err: why
    /// the experiment stopped early (recorded in runs.json).
    fn run_pairs(&mut self, design: Option<Design>) -> Result<(), ExperimentError> {
        let pairs = design.map_or(self.req.runs.unwrap_or(DEFAULT_RUNS), |d| d.max);
        let mut plan = Plan::new(self.req.order, self.req.seed);
        for _ in 0..pairs {
            for build in plan.next_pair() {
                self.run(build)?;
            }
            if design.is_some_and(|d| self.look_decides(&d)) {
                break;
            }
        }
        Ok(())
    }

    /// The next run of `build`, installing it first when the device holds
    /// the other one (or an install failed).
    fn run(&mut self, build: Build) -> Result<(), ExperimentError> {
        let req = self.req;
        let number = self.done[build.index()].len() + 1;
        let kept = Kept::Sides([self.done[0].len(), self.done[1].len()]);
        let record = &self.runner.manifest.builds[build.index()];
        let local = LocalApk {
            sha256: record.sha256.clone(),
            md5: record.md5.clone().unwrap_or_default(),
            size_bytes: record.size_bytes.unwrap_or_default(),
        };
        let apk = if build == Build::Before { &req.before_apk } else { &req.after_apk };
        let installed = &mut self.installed;
        let mut prepare = |adb: &Adb| {
            if *installed != Some(build) {
                *installed = None;
                install(adb, apk, &req.capture.app, req.compile)?;
                *installed = Some(build);
            }
            Ok(Some(local.clone()))
        };
        let measured = self.runner.run(Some(build), number, kept, &mut prepare)?;
        let value = match req.compare.decide_on {
            DecideOn::Startup => measured.ttid_ms,
            DecideOn::Frames | DecideOn::Both => measured.fps,
        };
        self.done[build.index()].push(value);
        Ok(())
    }

    /// With both sides at the design's first look or beyond: look (its line
    /// shown, its record saved) and tell whether it decided.
    fn look_decides(&mut self, design: &Design) -> bool {
        let n = self.done[0].len().min(self.done[1].len());
        if n < design.first {
            return false;
        }
        let s = Settings::new(design.level(n), self.req.compare.min_change_pct, IndicativeGates::Pass)
            .deciding_on(self.req.compare.decide_on);
        let (record, line) = look(&self.done, &s, n, design.max);
        self.runner.env.sink.info(None, &line);
        let decided = record.verdict != LookVerdict::Inconclusive;
        self.alpha = record.alpha;
        self.runner.manifest.looks.push(record);
        self.runner.save();
        decided
    }

    /// runs.json as the experiment ended; the final level and the runs a side.
    fn finish(self) -> (f64, [usize; 2]) {
        self.runner.save();
        (self.alpha, [self.done[0].len(), self.done[1].len()])
    }
}

/// One look of `--until-decided`: the verdict of the headline's first metric
/// (fps, or TTID when the experiment decides on the startup) at the look's
/// level (`s.alpha`), and a progress line.
fn look(done: &[Vec<Option<f64>>; 2], s: &Settings, n: usize, max: usize) -> (LookRecord, String) {
    let values = |runs: &[Option<f64>]| runs.iter().flatten().copied().collect::<Vec<f64>>();
    let (alpha, metric) = (s.alpha, primary_head_name(s.decide_on));
    let r = primary_result(&values(&done[0]), &values(&done[1]), s);
    let ci = r.ci.map_or_else(|| "no interval yet".to_string(), |[lo, hi]| format!("[{lo:+.2}, {hi:+.2}]"));
    let needed = match (r.verdict, r.runs_needed) {
        (Verdict::Inconclusive | Verdict::Indicative, Some(k)) => {
            format!("; about {} more runs a side likely needed", k.saturating_sub(n).min(max - n))
        }
        _ => String::new(),
    };
    let line = format!(
        "look at {n} runs a side (of at most {max}): {metric} change {:+.2}, {} {ci} at alpha {alpha:.4}: {}{needed}",
        r.delta.unwrap_or(f64::NAN),
        crate::compare::ci_label(s),
        r.verdict.word()
    );
    let verdict = match r.verdict {
        Verdict::Better => LookVerdict::Better,
        Verdict::Worse => LookVerdict::Worse,
        Verdict::Same => LookVerdict::Same,
        Verdict::Inconclusive | Verdict::Indicative | Verdict::Descriptive => LookVerdict::Inconclusive,
    };
    let record = LookRecord {
        runs_per_side: [done[0].len(), done[1].len()],
        alpha,
        verdict,
        metric: metric.into(),
        delta_ci: r.ci,
        runs_needed: r.runs_needed,
    };
    (record, line)
}

/// Why a build could not be put on the device: the attempt's reason.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InstallError {
    #[error("installing {apk} failed: {source}")]
    Install { apk: String, source: ShellError },
    #[error("`{cmd}` failed: {source}")]
    Compile { cmd: String, source: ShellError },
    /// The phone refused it until a switch is changed: not worth a retry.
    #[error("{0}")]
    Refused(Refusal),
}

/// `adb install -r -d APK`, then the compile mode.
fn install(adb: &Adb, apk: &Path, app: &str, compile: Compile) -> Result<(), InstallError> {
    let path = apk.to_string_lossy();
    let failed = |source: ShellError| InstallError::Install { apk: path.to_string(), source };
    let out = adb.exec(&["install", "-r", "-d", &path], None, SHORT_TIMEOUT * 10).map_err(|e| failed(e.into()))?;
    if let Some(refusal) = Refusal::of(&out) {
        return Err(InstallError::Refused(refusal));
    }
    if !out.success() || !out.stdout.contains("Success") {
        return Err(failed(ShellError::Failed(out.detail())));
    }
    if let Some(cmd) = compile.command(app) {
        let out = adb.shell(&cmd).map_err(|e| InstallError::Compile { cmd: cmd.clone(), source: e.into() })?;
        if let Some(refusal) = Refusal::of(&out) {
            return Err(InstallError::Refused(refusal));
        }
        if !out.success() {
            return Err(InstallError::Compile { cmd, source: ShellError::Failed(out.detail()) });
        }
    }
    Ok(())
}

/// `fpsan capture --runs N --out DIR`: N runs of the installed build into
/// DIR (run-01.pftrace …, runs.json), a side for `compare`.
/// `allow_dirty_device`: as `ab`'s.
pub fn capture_runs(
    req: &CaptureRequest,
    runs: usize,
    allow_dirty_device: bool,
    env: &CaptureEnv,
) -> Result<PathBuf, ExperimentError> {
    capture::validate(req)?;
    let dir = req.out.clone().ok_or(ExperimentError::RunsNeedOut)?;
    output_dir(&dir)?;
    let adb = session::connect(req.serial.as_deref(), env)?;
    let hygiene = Hygiene::begin(&adb, env.sink)?;
    let mut runner = Runner::new(env, &adb, &hygiene, dir.clone(), req.clone(), SeriesKind::Capture);
    runner.check_settings(allow_dirty_device)?;
    let ran = (1..=runs).try_for_each(|k| runner.run(None, k, Kept::Runs(k - 1), &mut |_| Ok(None)).map(drop));
    runner.save();
    ran.map(|()| dir)
}
