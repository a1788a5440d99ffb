//! One capture on one device: start perfetto, count down, wait until it has
//! exited, stop it early on Ctrl-C, pull the file, clean the device, check
//! the trace. [`DeviceGuard`] undoes everything done to the device (perfetto
//! running, the trace file, `persist.traced.enable`) on every path out,
//! errors and panics included.
//!
//! How perfetto is run: `adb shell perfetto --background -c - -o FILE` with
//! the binary TraceConfig on stdin, then polling `/proc/PID`.
//! - `-c -` (stdin): works from Android 9 to 16. A config file pushed to the
//!   device is not readable by perfetto on some versions (SELinux), and
//!   `--txt` is not meant for production and varies across versions.
//! - `--background`: perfetto detaches and prints its pid. The session then
//!   survives a USB glitch or an adb server restart; a foreground
//!   `adb shell perfetto` would get SIGHUP and lose the whole trace, and
//!   stopping it from the host (killing adb) does not reach perfetto reliably.
//!   With the pid we stop it the documented way, `kill -TERM PID`, which makes
//!   perfetto flush the buffers and finish the file.
//! - Polling `test -d /proc/PID && echo RUN || echo TERM` (as Perfetto's own
//!   record_android_trace does) rather than exit codes, which old adbd does
//!   not forward. The file is pulled only after perfetto has exited: with
//!   `write_into_file` off it is written at the very end, so an earlier pull
//!   gets a truncated trace.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::sink::Sink;

use super::adb::{Adb, ShellError, SHORT_TIMEOUT};
use super::check::{check_with, CheckedTrace};
use super::device::{self, SerialSource, TRACED_DEFAULT_ON_SDK, TRACED_PROP};
use super::launch::{self, Launch, Launched};
use super::refusal::Refusal;
use super::warning::{CaptureWarning, CaptureWarningCode as Code};
use super::{config, locate_adb, output_path, CaptureEnv, CaptureError, CaptureOutcome, CaptureRequest};

/// Where perfetto may write on every Android version it ships with (its
/// SELinux domain cannot write elsewhere on user builds).
pub const REMOTE_DIR: &str = "/data/misc/perfetto-traces";
/// Consecutive failed polls (adb errors) before giving up on the device.
const MAX_POLL_FAILURES: u32 = 10;
/// How long perfetto gets to exit after SIGTERM before SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(15);
const PULL_TIMEOUT: Duration = Duration::from_secs(600);

pub fn remote_path(app: &str, stamp: &str) -> String {
    format!("{REMOTE_DIR}/fpsan-{app}-{stamp}.pftrace")
}

pub fn perfetto_command(remote: &str) -> String {
    format!("perfetto --background -c - -o {remote}")
}

/// The pid `perfetto --background` prints: the last line that is a number
/// (linker warnings can come first on some builds).
pub fn parse_pid(stdout: &str) -> Option<u32> {
    stdout.lines().rev().find_map(|l| l.trim().parse::<u32>().ok()).filter(|&p| p > 0)
}

#[derive(Debug)]
pub enum Alive {
    Running,
    Exited,
    /// adb could not tell (device gone, adb error).
    Unknown(ShellError),
}

pub fn perfetto_alive(adb: &Adb, pid: u32) -> Alive {
    match adb.shell(&format!("test -d /proc/{pid} && echo RUN || echo TERM")) {
        Ok(out) => match out.stdout.trim() {
            "RUN" => Alive::Running,
            "TERM" => Alive::Exited,
            _ => Alive::Unknown(ShellError::Failed(out.detail())),
        },
        Err(e) => Alive::Unknown(e.into()),
    }
}

fn signal(adb: &Adb, pid: u32, sig: &str) -> Result<(), ShellError> {
    match adb.shell(&format!("kill -{sig} {pid}"))? {
        out if out.success() => Ok(()),
        out => Err(ShellError::Failed(out.detail())),
    }
}

/// Why perfetto may still be running after fpsan tried to stop it.
#[derive(Debug, thiserror::Error)]
enum StopError {
    #[error(transparent)]
    Shell(#[from] ShellError),
    #[error("it ignored SIGTERM and SIGKILL")]
    Ignored,
}

/// perfetto's own explanation from the device log: the last error logged
/// by our perfetto process, else the last error from any perfetto process
/// (traced, traced_probes), else our process's last warning.
pub fn perfetto_reason(adb: &Adb, pid: Option<u32>) -> Option<String> {
    let out = adb.exec(&["logcat", "-d", "-s", "perfetto"], None, SHORT_TIMEOUT).ok()?;
    parse_logcat_reason(&out.stdout, pid)
}

/// See [`perfetto_reason`]. Understands `threadtime` (the default:
/// `MM-DD HH:MM:SS.mmm PID TID L TAG: msg`) and `brief` (`L/TAG( PID): msg`).
pub fn parse_logcat_reason(text: &str, pid: Option<u32>) -> Option<String> {
    let mut mine_err = None;
    let mut any_err = None;
    let mut mine_warn = None;
    for line in text.lines() {
        let Some((level, line_pid, msg)) = parse_logcat_line(line) else { continue };
        let mine = pid.is_some() && line_pid == pid;
        match level {
            'E' | 'F' => {
                if mine {
                    mine_err = Some(msg.clone());
                }
                any_err = Some(msg);
            }
            'W' if mine => mine_warn = Some(msg),
            _ => {}
        }
    }
    mine_err.or(any_err).or(mine_warn)
}

fn parse_logcat_line(line: &str) -> Option<(char, Option<u32>, String)> {
    let line = line.trim_end_matches('\r');
    let bytes = line.as_bytes();
    let (level, pid, rest) = if bytes.len() > 2 && bytes[1] == b'/' && bytes[0].is_ascii_uppercase() {
        // brief: E/perfetto( 1234): msg
        let open = line.find('(')?;
        let close = line[open..].find("):")? + open;
        (bytes[0] as char, line[open + 1..close].trim().parse().ok(), &line[close + 2..])
    } else {
        let mut rest = line;
        let mut fields = Vec::with_capacity(5);
        for _ in 0..5 {
            rest = rest.trim_start();
            let end = rest.find(char::is_whitespace)?;
            fields.push(&rest[..end]);
            rest = &rest[end..];
        }
        let level = fields[4].chars().next().filter(|_| fields[4].len() == 1)?;
        let (_tag, msg) = rest.split_once(':')?;
        (level, fields[2].parse().ok(), msg)
    };
    let mut msg = rest.trim();
    // Drop perfetto's `file.cc:123 ` source location.
    if let Some((first, after)) = msg.split_once(' ') {
        if first
            .rsplit_once(':')
            .is_some_and(|(file, n)| file.ends_with(".cc") && n.chars().all(|c| c.is_ascii_digit()))
        {
            msg = after.trim_start();
        }
    }
    if msg.is_empty() {
        return None;
    }
    let mut msg: String = msg.chars().take(300).collect();
    msg = msg.replace('\t', " ");
    Some((level, pid, msg))
}

/// Undo what the capture did to the device. Call [`DeviceGuard::cleanup`] on
/// the normal path; `Drop` runs it on every other path.
pub struct DeviceGuard<'a> {
    adb: &'a Adb,
    /// perfetto may still be running.
    pub pid: Option<u32>,
    /// The trace file may exist on the device.
    pub remote: Option<String>,
    /// Value to put back into `persist.traced.enable`.
    pub restore_traced: Option<String>,
    step: Duration,
    /// `cleanup` has run; `Drop` has nothing left to do.
    cleaned: bool,
    /// Where `Drop` reports what it could not clean up.
    sink: Sink,
}

impl<'a> DeviceGuard<'a> {
    pub fn new(adb: &'a Adb, step: Duration, sink: Sink) -> DeviceGuard<'a> {
        DeviceGuard { adb, pid: None, remote: None, restore_traced: None, step, cleaned: false, sink }
    }

    fn serial(&self) -> &str {
        self.adb.serial().unwrap_or("the device")
    }

    /// Stop perfetto, delete the file, restore the property. Returns what
    /// could not be done, each with the command that does it by hand.
    pub fn cleanup(&mut self) -> Vec<CaptureWarning> {
        self.cleaned = true;
        let mut problems = Vec::new();
        if let Some(pid) = self.pid.take() {
            if let Err(why) = self.stop_perfetto(pid) {
                let message = format!(
                    "perfetto (pid {pid}) may still be running on {s} ({why}): stop it with `adb -s {s} shell kill {pid}`",
                    s = self.serial()
                );
                problems.push(CaptureWarning::new(Code::PerfettoLeftRunning, message));
            }
        }
        if let Some(remote) = self.remote.clone() {
            match self.adb.shell(&format!("rm -f {remote}")) {
                Ok(out) if out.success() => self.remote = None,
                Ok(out) => problems.push(self.left_behind(&remote, &out.detail())),
                Err(e) => problems.push(self.left_behind(&remote, &e.to_string())),
            }
        }
        if let Some(value) = self.restore_traced.take() {
            if let Err(e) = device::setprop(self.adb, TRACED_PROP, &value) {
                let message = format!(
                    "could not restore {TRACED_PROP}={value} on {s} ({e}): run `adb -s {s} shell setprop {TRACED_PROP} {value}`",
                    s = self.serial()
                );
                problems.push(CaptureWarning::new(Code::TracedNotRestored, message));
            }
        }
        problems
    }

    fn left_behind(&self, remote: &str, why: &str) -> CaptureWarning {
        let message = format!(
            "could not delete {remote} on {s} ({why}): run `adb -s {s} shell rm -f {remote}`",
            s = self.serial()
        );
        CaptureWarning::new(Code::TraceLeftOnDevice, message)
    }

    /// SIGTERM (perfetto finishes the file), then SIGKILL if it lingers.
    /// Gives up at the first adb failure: a device that is gone would
    /// otherwise cost a timeout per attempt.
    fn stop_perfetto(&self, pid: u32) -> Result<(), StopError> {
        match perfetto_alive(self.adb, pid) {
            Alive::Exited => return Ok(()),
            Alive::Unknown(why) => return Err(why.into()),
            Alive::Running => {}
        }
        signal(self.adb, pid, "TERM")?;
        for _ in 0..20 {
            std::thread::sleep(self.step);
            match perfetto_alive(self.adb, pid) {
                Alive::Exited => return Ok(()),
                Alive::Unknown(why) => return Err(why.into()),
                Alive::Running => {}
            }
        }
        let _ = signal(self.adb, pid, "KILL");
        match perfetto_alive(self.adb, pid) {
            Alive::Exited => Ok(()),
            Alive::Running => Err(StopError::Ignored),
            Alive::Unknown(why) => Err(why.into()),
        }
    }
}

impl Drop for DeviceGuard<'_> {
    fn drop(&mut self) {
        if self.cleaned {
            return;
        }
        for problem in self.cleanup() {
            self.sink.warn(None, &problem.message);
        }
    }
}

/// Countdown and status through the command's sink (drawn only when it is
/// interactive; warnings always).
struct Ui {
    sink: Sink,
    bar: Option<ProgressBar>,
}

impl Ui {
    fn new(sink: Sink) -> Ui {
        Ui { sink, bar: None }
    }

    fn info(&self, msg: &str) {
        self.sink.info(self.bar.as_ref(), msg);
    }

    fn warn(&self, msg: &str) {
        self.sink.warn(self.bar.as_ref(), msg);
    }

    fn countdown(&mut self, app: &str, secs: u32) {
        let bar =
            self.sink.bar(u64::from(secs), "{spinner} tracing {msg} {pos}/{len} s [{wide_bar}] (Ctrl-C stops early)");
        bar.set_style(bar.style().progress_chars("=> "));
        bar.set_message(app.to_string());
        if self.sink.is_interactive() {
            bar.enable_steady_tick(Duration::from_millis(120));
        }
        self.bar = Some(bar);
    }

    fn tick(&self, elapsed: Duration) {
        if let Some(bar) = &self.bar {
            let len = bar.length().unwrap_or(0);
            bar.set_position(elapsed.as_secs().min(len));
        }
    }

    /// Switch the bar to a spinner with a message (waiting, stopping, pulling).
    fn phase(&mut self, msg: &str) {
        let sink = self.sink;
        let bar = self.bar.get_or_insert_with(|| sink.spinner());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(msg.to_string());
        bar.reset_elapsed();
    }

    fn done(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Ui {
    fn drop(&mut self) {
        self.done();
    }
}

/// How the wait for perfetto ended.
struct Waited {
    /// Ctrl-C stopped it.
    interrupted: bool,
    /// perfetto exited on its own before the duration was over.
    early: Option<Duration>,
}

/// What running a scenario did.
struct Driven {
    steps: usize,
    ran: usize,
    elapsed: Duration,
    /// The first step that failed (the scenario stops there), and why.
    failed: Option<CaptureWarning>,
    /// The step the phone refused (the scenario stops there, and the
    /// capture fails: its trace does not hold the scenario).
    refused: Option<CaptureError>,
    /// `wait-idle` steps that ran out of time (the scenario went on).
    not_idle: Vec<CaptureWarning>,
    cancelled: bool,
}

impl Driven {
    /// A line for the user, and the warnings worth keeping.
    fn describe(&self, secs: u32) -> (String, Vec<CaptureWarning>) {
        let line =
            format!("drove the scenario: {} of {} steps in {:.1} s", self.ran, self.steps, self.elapsed.as_secs_f64());
        let mut warnings: Vec<CaptureWarning> = self.not_idle.iter().chain(&self.failed).cloned().collect();
        if self.cancelled {
            let message = format!("the scenario was interrupted after {} of {} steps", self.ran, self.steps);
            warnings.push(CaptureWarning::new(Code::ScenarioInterrupted, message));
        }
        if self.elapsed > Duration::from_secs(u64::from(secs)) {
            let message = format!(
                "the scenario took {:.1} s, longer than the {secs} s traced: its end is not in the trace (raise --secs)",
                self.elapsed.as_secs_f64()
            );
            warnings.push(CaptureWarning::new(Code::ScenarioTooLong, message));
        }
        (line, warnings)
    }
}

/// Run the scenario's steps in order, with the same timing every run: each
/// command as one `adb shell` call, each sleep on the host (in short slices,
/// so Ctrl-C stops it at once). A failing step ends the scenario.
fn drive(adb: &Adb, s: &super::scenario::Scenario, app: &str, env: &CaptureEnv) -> Driven {
    use super::scenario::Step;
    let start = std::time::Instant::now();
    let mut out = Driven {
        steps: s.steps.len(),
        ran: 0,
        elapsed: Duration::ZERO,
        failed: None,
        refused: None,
        not_idle: Vec::new(),
        cancelled: false,
    };
    for (k, step) in s.steps.iter().enumerate() {
        if env.stop.load(Ordering::SeqCst) {
            out.cancelled = true;
            break;
        }
        match step {
            Step::Sleep(d) => {
                let until = std::time::Instant::now() + *d;
                while let Some(left) = until.checked_duration_since(std::time::Instant::now()).filter(|l| !l.is_zero())
                {
                    if env.stop.load(Ordering::SeqCst) {
                        break;
                    }
                    std::thread::sleep(left.min(Duration::from_millis(50)));
                }
            }
            Step::WaitIdle(limit) => {
                if let Some(why) = wait_idle(adb, app, *limit, env) {
                    let message = format!("scenario step {} (`wait-idle`): {why}", k + 1);
                    out.not_idle.push(CaptureWarning::new(Code::NotIdle, message));
                }
            }
            Step::Shell(words) => {
                let mut argv: Vec<&str> = vec!["shell"];
                argv.extend(words.iter().map(String::as_str));
                let failed = match adb.exec(&argv, None, SHORT_TIMEOUT) {
                    Ok(o) => match Refusal::of(&o) {
                        Some(refusal) => {
                            let during = format!("scenario step {} (`{}`)", k + 1, words.join(" "));
                            out.refused = Some(CaptureError::Refused { during, refusal });
                            break;
                        }
                        None if o.success() => None,
                        None => Some(o.detail()),
                    },
                    Err(e) => Some(e.to_string()),
                };
                if let Some(why) = failed {
                    let message = format!("scenario step {} (`{}`) failed: {}", k + 1, words.join(" "), why);
                    out.failed = Some(CaptureWarning::new(Code::StepFailed, message));
                    break;
                }
            }
        }
        out.ran += 1;
    }
    out.elapsed = start.elapsed();
    out
}

/// How long the app's frame count must stand still for `wait-idle`.
const IDLE_QUIET: Duration = Duration::from_secs(1);
const IDLE_POLL: Duration = Duration::from_millis(200);

/// `wait-idle`: poll the app's `Total frames rendered` (`dumpsys gfxinfo`,
/// what HWUI has drawn) until it stands still for [`IDLE_QUIET`], at most
/// `limit`. Returns why it stopped waiting early, if it did.
fn wait_idle(adb: &Adb, app: &str, limit: Duration, env: &CaptureEnv) -> Option<String> {
    let start = Instant::now();
    let mut last: Option<u64> = None;
    let mut since = start;
    loop {
        if env.stop.load(Ordering::SeqCst) {
            return None;
        }
        let out = adb.shell(&format!("dumpsys gfxinfo {app}")).ok()?;
        let Some(count) =
            out.stdout.lines().find_map(|l| l.trim().strip_prefix("Total frames rendered:")?.trim().parse().ok())
        else {
            return Some(format!("`dumpsys gfxinfo {app}` shows no frame count (is the app running?); not waited"));
        };
        let now = Instant::now();
        if last != Some(count) {
            last = Some(count);
            since = now;
        } else if now - since >= IDLE_QUIET {
            return None;
        }
        if now - start >= limit {
            return Some(format!("{app} was still drawing after {:.1} s; the scenario went on", limit.as_secs_f64()));
        }
        std::thread::sleep(IDLE_POLL);
    }
}

/// `adb pull`, once more after a pause if it fails (a USB link that drops
/// usually comes back within a second or two), but not for a file that is
/// not there. The error is the first failure's: later ones are its
/// consequences ("device not found").
fn pull(adb: &Adb, remote: &str, part: &Path, pause: Duration) -> Result<(), ShellError> {
    let local = part.to_string_lossy().into_owned();
    let once = || {
        let failure = match adb.exec(&["pull", remote, &local], None, PULL_TIMEOUT) {
            Ok(out) if out.success() && part.is_file() => return Ok(()),
            Ok(out) => ShellError::Failed(out.detail()),
            Err(e) => e.into(),
        };
        let _ = std::fs::remove_file(part);
        Err(failure)
    };
    match once() {
        Err(first) if !is_missing(&first) => {
            std::thread::sleep(pause);
            once().map_err(|_| first)
        }
        done => done,
    }
}

/// adb's words for a remote file that is not there.
fn is_missing(failure: &ShellError) -> bool {
    failure.to_string().contains("No such file")
}

fn part_path(local: &Path) -> PathBuf {
    let mut name = local.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}

/// Fail before tracing, not after, when the output cannot be written.
fn prepare_output(local: &Path) -> Result<(), CaptureError> {
    let err = |detail: String| CaptureError::Output { path: local.to_path_buf(), detail };
    if local.to_str().is_none() {
        return Err(err("the path is not valid UTF-8".into()));
    }
    let parent = match local.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(err(format!("directory {} does not exist", parent.display())));
    }
    let part = part_path(local);
    std::fs::File::create(&part).map_err(|e| err(e.to_string()))?;
    let _ = std::fs::remove_file(&part);
    Ok(())
}

/// The device to use (`--serial`, else ANDROID_SERIAL, else the only one),
/// checked usable. The handle names it on every later command, so that a
/// second device plugged in meanwhile changes nothing.
pub(crate) fn connect(serial: Option<&str>, env: &CaptureEnv) -> Result<Adb, CaptureError> {
    let program = match &env.adb {
        Some(p) => p.clone(),
        None => locate_adb()?,
    };
    let devices = device::list_devices(&Adb::new(program.clone()))?;
    let wanted = match (serial, &env.android_serial) {
        (Some(s), _) => Some((s, SerialSource::Flag)),
        (None, Some(s)) => Some((s.as_str(), SerialSource::Env)),
        (None, None) => None,
    };
    let serial = device::select_device(&devices, wanted)?;
    Ok(Adb::new(program).with_serial(&serial))
}

/// The whole capture, as the steps below take it (device checks included).
/// Each step that changes the device tells `session.guard`, which undoes
/// it on every path out.
pub(crate) fn capture(args: &CaptureRequest, env: &CaptureEnv) -> Result<CaptureOutcome, CaptureError> {
    let local = output_path(args.out.as_deref(), &args.app, &env.stamp);
    prepare_output(&local)?;
    let adb = connect(args.serial.as_deref(), env)?;
    let mut session = Session::new(args, env, &adb);
    let sdk = session.check_device()?;
    let component = session.prepare_launch()?;
    session.prepare_tracing(sdk)?;
    let tracing = session.start_perfetto()?;
    let launched = session.launch_app(component.as_deref());
    let app_died = session.drive_scenario(tracing.pid)?;
    let waited = session.wait_for_trace(&tracing)?;
    session.pull_and_clean_up(&tracing, &local)?;
    let trace = session.check_trace(&local, tracing.pid)?;
    session.report(&local, &trace, &waited);
    Ok(CaptureOutcome {
        path: local,
        app: args.app.clone(),
        serial: session.serial,
        sdk,
        requested_secs: args.secs,
        interrupted: waited.interrupted,
        analyze: args.analyze,
        trace,
        launched,
        app_died,
        warnings: session.warnings,
    })
}

/// One capture on a connected device: what the steps share.
struct Session<'a> {
    args: &'a CaptureRequest,
    env: &'a CaptureEnv,
    adb: &'a Adb,
    serial: String,
    /// Undoes what the steps did to the device. Declared before `ui`, so
    /// that on an early return it cleans up while the status line stands.
    guard: DeviceGuard<'a>,
    ui: Ui,
    /// The launch's and the scenario's warnings, then the cleanup's, then
    /// the trace's.
    warnings: Vec<CaptureWarning>,
}

/// perfetto, recording.
struct Tracing {
    pid: u32,
    /// The trace file on the device.
    remote: String,
    /// When perfetto started: the countdown runs from here, so the launch
    /// and the scenario take part of the time traced.
    since: Instant,
}

impl<'a> Session<'a> {
    fn new(args: &'a CaptureRequest, env: &'a CaptureEnv, adb: &'a Adb) -> Session<'a> {
        Session {
            args,
            env,
            adb,
            serial: adb.serial().unwrap_or_default().to_string(),
            guard: DeviceGuard::new(adb, env.poll.max(Duration::from_millis(50)), env.sink),
            ui: Ui::new(env.sink),
            warnings: Vec::new(),
        }
    }

    /// The device's SDK level (too old for perfetto is an error), and the
    /// app installed: what can fail before anything on the device changes.
    fn check_device(&self) -> Result<u32, CaptureError> {
        let sdk = device::sdk_level(self.adb)?;
        device::check_installed(self.adb, &self.args.app)?;
        Ok(sdk)
    }

    /// The component `--launch` starts (`--activity`, else the launcher's),
    /// with the app put in the launch's start state now, before tracing, so
    /// that the trace holds the launch itself. `None` without `--launch`.
    fn prepare_launch(&mut self) -> Result<Option<String>, CaptureError> {
        let app = self.args.app.as_str();
        let component = match (self.args.launch, &self.args.activity) {
            (Launch::None, _) => return Ok(None),
            (_, Some(a)) if a.contains('/') => a.clone(),
            (_, Some(a)) => format!("{app}/{a}"),
            (_, None) => launch::launcher_activity(self.adb, app)?,
        };
        self.warnings.extend(launch::prepare(self.adb, self.args.launch, app, &component)?);
        Ok(Some(component))
    }

    /// Android 9 and 10 ship with the tracing service off
    /// (`persist.traced.enable`): switch it on; the guard switches it back.
    fn prepare_tracing(&mut self, sdk: u32) -> Result<(), CaptureError> {
        if sdk >= TRACED_DEFAULT_ON_SDK {
            return Ok(());
        }
        self.guard.restore_traced = device::enable_traced(self.adb, self.env.poll)?;
        if self.guard.restore_traced.is_some() {
            self.ui.info(&format!(
                "enabled the tracing service on {} (Android 9/10); it is switched back afterwards",
                self.serial
            ));
        }
        Ok(())
    }

    /// Start perfetto in the background with the TraceConfig on stdin (the
    /// module's notes say why), unless Ctrl-C came first, and start the
    /// countdown. The guard learns of the file before perfetto starts (it
    /// creates the file before anything can fail on its side), of the pid
    /// as soon as it is known.
    fn start_perfetto(&mut self) -> Result<Tracing, CaptureError> {
        if self.env.stop.load(Ordering::SeqCst) {
            return Err(CaptureError::Cancelled);
        }
        let args = self.args;
        let config = config::encode(&config::build(&args.app, args.secs, args.buffer_mb));
        let remote = remote_path(&args.app, &self.env.stamp);
        self.guard.remote = Some(remote.clone());
        let started = self.adb.exec(&["shell", &perfetto_command(&remote)], Some(&config), SHORT_TIMEOUT)?;
        let pid = match (started.success(), parse_pid(&started.stdout)) {
            (true, Some(pid)) => pid,
            _ => {
                let reason = perfetto_reason(self.adb, None);
                return Err(CaptureError::PerfettoStart {
                    serial: self.serial.clone(),
                    detail: started.detail(),
                    reason,
                });
            }
        };
        self.guard.pid = Some(pid);
        let since = Instant::now();
        self.ui.countdown(&args.app, args.secs);
        Ok(Tracing { pid, remote, since })
    }

    /// Start the app inside the trace (`--launch`) and keep what `am start
    /// -W` reported. A start that fails is a warning: the trace goes on.
    fn launch_app(&mut self, component: Option<&str>) -> Option<Launched> {
        let component = component?;
        match launch::start(self.adb, component) {
            Ok(launched) => {
                let state = launched.state.as_deref().unwrap_or("launch state not reported");
                let total = launched
                    .total_ms
                    .map_or_else(|| "no TotalTime".to_string(), |ms| format!("{ms} ms to its first frame"));
                self.ui.info(&format!(
                    "started {component} ({} launch asked): {state}, {total}",
                    self.args.launch.as_str()
                ));
                Some(launched)
            }
            Err(why) => {
                let message = format!("starting {component} failed: {why}");
                self.warnings.push(CaptureWarning::new(Code::LaunchFailed, message));
                None
            }
        }
    }

    /// Drive `--drive`'s scenario between two marks in the trace (its
    /// window for the analysis), and tell how the app died meanwhile, if it
    /// did (a crash spoils the run). A step the phone refused fails the
    /// capture: the trace would not hold the scenario (the guard stops
    /// perfetto and deletes its file).
    fn drive_scenario(&mut self, pid: u32) -> Result<Option<String>, CaptureError> {
        let args = self.args;
        let Some(scenario) = args.drive.as_ref() else { return Ok(None) };
        let app = args.app.as_str();
        let alive_before = app_pids(self.adb, app);
        // Marked on perfetto's process, which lives through the whole trace
        // (the app may not run yet): one counter track for both ends.
        let unmarked = |e: ShellError| {
            let message =
                format!("could not mark the scenario's window in the trace ({e}): analysis covers the whole trace");
            CaptureWarning::new(Code::WindowNotMarked, message)
        };
        self.warnings.extend(mark_window(self.adb, pid, 1).err().map(unmarked));
        let mut ran = drive(self.adb, scenario, app, self.env);
        if let Some(refused) = ran.refused.take() {
            return Err(refused);
        }
        self.warnings.extend(mark_window(self.adb, pid, 0).err().map(unmarked));
        let (line, warnings) = ran.describe(args.secs);
        self.ui.info(&line);
        self.warnings.extend(warnings);
        let alive_after = app_pids(self.adb, app);
        if alive_before.is_empty() || alive_after == alive_before {
            return Ok(None);
        }
        let died = match alive_after.is_empty() {
            true => format!("{app} (pid {alive_before}) died during the scenario"),
            false => format!("{app} (pid {alive_before}) died during the scenario and restarted as pid {alive_after}"),
        };
        self.warnings.push(CaptureWarning::new(Code::AppDied, format!("{died}: a crash? see `adb logcat -b crash`")));
        Ok(Some(died))
    }

    /// Count down while perfetto records (since it started), on Ctrl-C send
    /// it SIGTERM, and return once it has exited: only then is the file
    /// whole (see the module's notes). Once it has exited the guard has no
    /// process left to stop.
    fn wait_for_trace(&mut self, tracing: &Tracing) -> Result<Waited, CaptureError> {
        let (adb, pid, env) = (self.adb, tracing.pid, self.env);
        let duration = Duration::from_secs(u64::from(self.args.secs));
        // Writing the buffer out takes a while for big buffers on slow flash.
        let main_mb = config::buffer_mb(self.args.secs, self.args.buffer_mb);
        let finish_grace = Duration::from_secs(30 + u64::from(main_mb) / 10);
        let mut term_sent: Option<Instant> = None;
        let mut interrupted = false;
        let mut failures = 0u32;
        let mut counting = true;
        let mut next_poll = tracing.since + env.poll;
        loop {
            let now = Instant::now();
            let elapsed = now - tracing.since;
            if term_sent.is_none() && env.stop.load(Ordering::SeqCst) {
                interrupted = true;
                self.ui.phase("stopping: perfetto is writing what it recorded");
                if let Err(why) = signal(adb, pid, "TERM") {
                    self.ui.warn(&format!("could not send SIGTERM to perfetto ({why})"));
                }
                term_sent = Some(now);
                next_poll = now;
            }
            if term_sent.is_none() && elapsed >= duration + finish_grace {
                self.ui.warn(&format!(
                    "perfetto is still running {} s after the end of the trace; stopping it",
                    finish_grace.as_secs()
                ));
                let _ = signal(adb, pid, "TERM");
                term_sent = Some(now);
            }
            if let Some(sent) = term_sent {
                if now >= sent + TERM_GRACE {
                    let _ = signal(adb, pid, "KILL");
                    let serial = self.serial.clone();
                    return Err(CaptureError::PerfettoStuck { serial, pid, secs: TERM_GRACE.as_secs() });
                }
            }
            if counting && elapsed >= duration && !interrupted {
                counting = false;
                self.ui.phase("waiting for perfetto to finish writing the trace");
            }
            if now >= next_poll {
                match perfetto_alive(adb, pid) {
                    Alive::Running => failures = 0,
                    Alive::Exited => {
                        self.guard.pid = None;
                        let early = (!interrupted && elapsed + Duration::from_secs(1) < duration).then_some(elapsed);
                        return Ok(Waited { interrupted, early });
                    }
                    Alive::Unknown(detail) => {
                        failures += 1;
                        if failures >= MAX_POLL_FAILURES {
                            let serial = self.serial.clone();
                            return Err(CaptureError::DeviceLost { serial, detail: detail.to_string() });
                        }
                    }
                }
                next_poll = Instant::now() + env.poll;
            }
            if counting {
                self.ui.tick(elapsed);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Pull the finished file, then clean the device whatever the pull
    /// gave, and only then fail on a failed pull: its message says whether
    /// the trace is still on the device. The pull lands in `.part`, renamed
    /// to `local` once whole.
    fn pull_and_clean_up(&mut self, tracing: &Tracing, local: &Path) -> Result<(), CaptureError> {
        let part = part_path(local);
        self.ui.phase("pulling the trace");
        let pulled = pull(self.adb, &tracing.remote, &part, self.env.poll * 2);
        self.clean_up();
        if let Err(failure) = pulled {
            return Err(self.pull_failed(&failure, tracing, local));
        }
        std::fs::rename(&part, local)
            .map_err(|e| CaptureError::Output { path: local.to_path_buf(), detail: e.to_string() })
    }

    /// Undo what the capture did to the device (the guard has nothing left
    /// to do after it), end the status line, and show the warnings so far
    /// with what the cleanup could not do last.
    fn clean_up(&mut self) {
        let problems = self.guard.cleanup();
        self.warnings.extend(problems);
        self.ui.done();
        for w in &self.warnings {
            self.ui.warn(&w.message);
        }
    }

    /// A pull that failed: perfetto wrote no file (with its reason from the
    /// device log), or the link failed (with how to get the trace back).
    fn pull_failed(&self, failure: &ShellError, tracing: &Tracing, local: &Path) -> CaptureError {
        let (serial, remote) = (self.serial.clone(), &tracing.remote);
        if is_missing(failure) {
            let reason = perfetto_reason(self.adb, Some(tracing.pid));
            return CaptureError::PerfettoStart {
                serial,
                detail: format!("it exited without writing {remote}"),
                reason,
            };
        }
        let hint = if self.guard.remote.is_some() {
            format!(
                "the trace is still on the device: once it is back, run `adb -s {serial} pull {remote} {}` and `adb -s {serial} shell rm -f {remote}`",
                local.display()
            )
        } else {
            "the device copy was removed; check the USB cable and capture again".to_string()
        };
        CaptureError::Pull { serial, detail: failure.to_string(), hint }
    }

    /// Read the pulled trace: is it useful (ftrace data, the app's
    /// process)? If not, say why, with perfetto's own reason if it logged one.
    fn check_trace(&self, local: &Path, pid: u32) -> Result<CheckedTrace, CaptureError> {
        let app = self.args.app.as_str();
        check_with(local, app, self.env.loader)
            .map_err(|failure| failure.into_error(local, app, perfetto_reason(self.adb, Some(pid))))
    }

    /// Warn if perfetto stopped before the time asked, and say what was written.
    fn report(&mut self, local: &Path, trace: &CheckedTrace, waited: &Waited) {
        if let Some(early) = waited.early {
            let message = format!(
                "perfetto stopped after {:.1} s of the {} s asked; the trace is shorter",
                early.as_secs_f64(),
                self.args.secs
            );
            self.ui.warn(&message);
            self.warnings.push(CaptureWarning::new(Code::TraceShort, message));
        }
        self.ui.info(&format!(
            "wrote {} ({:.1} MB, {:.1} s, {} packets, {} pid {})",
            local.display(),
            trace.size_bytes as f64 / 1e6,
            trace.span_ns as f64 / 1e9,
            trace.packets,
            self.args.app,
            trace.app_pids.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(",")
        ));
    }
}

/// Write the scenario's mark (docs/capture.md, "The scenario's window"):
/// the atrace counter `C|PID|fpsan.scenario|VALUE` into ftrace's
/// trace_marker, which atrace makes writable by every process (tracefs at
/// /sys/kernel/tracing from Android 10, under debugfs before).
fn mark_window(adb: &Adb, pid: u32, value: u8) -> Result<(), ShellError> {
    let text = format!("C|{pid}|{}|{value}", crate::model::SCENARIO_MARK);
    let cmd = format!(
        "echo '{text}' > /sys/kernel/tracing/trace_marker 2>/dev/null || echo '{text}' > /sys/kernel/debug/tracing/trace_marker"
    );
    match adb.shell(&cmd)? {
        o if o.success() => Ok(()),
        o => Err(ShellError::Failed(o.detail())),
    }
}

/// The app's process ids (`pidof`), empty when it is not running.
fn app_pids(adb: &Adb, app: &str) -> String {
    adb.shell(&format!("pidof {app}")).map(|o| o.stdout.trim().to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pid_is_the_last_number() {
        assert_eq!(parse_pid("12345\n"), Some(12345));
        assert_eq!(parse_pid("WARNING: linker: unused DT entry\n  4321 \r\n"), Some(4321));
        assert_eq!(parse_pid(""), None);
        assert_eq!(parse_pid("0\n"), None);
    }

    #[test]
    fn logcat_reason_prefers_our_process() {
        let log = "--------- beginning of main\n\
            11-23 10:14:00.000   900   900 E perfetto: perfetto_cmd.cc:50 old failure\n\
            11-23 10:15:00.100  4321  4321 I perfetto: perfetto_cmd.cc:1166 Connected to the Perfetto traced service, TTL: 2s\n\
            11-23 10:15:00.102  4321  4321 E perfetto: perfetto_cmd.cc:1214 Failed to allocate tracing buffers\n\
            11-23 10:15:00.200   777   780 E perfetto: service.cc:12 later, other pid\n";
        assert_eq!(parse_logcat_reason(log, Some(4321)).as_deref(), Some("Failed to allocate tracing buffers"));
        assert_eq!(parse_logcat_reason(log, Some(1)).as_deref(), Some("later, other pid"));
        assert_eq!(parse_logcat_reason("--------- beginning of main\n", Some(1)), None);
        let brief = "W/perfetto( 4321): perfetto_cmd.cc:10 buffer small\nI/perfetto( 4321): fine\n";
        assert_eq!(parse_logcat_reason(brief, Some(4321)).as_deref(), Some("buffer small"));
    }
}
