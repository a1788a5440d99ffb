//! `fpsan capture`: record a Perfetto trace of one app on a device over adb,
//! handling the quirks that make captures fail silently (several devices,
//! unauthorized or offline devices, Android 9/10 with the tracing daemons
//! off, perfetto still writing when the file is pulled, a session that
//! recorded nothing). It either returns a checked trace file or an error that
//! says what went wrong and how to fix it, and it leaves nothing running and
//! no file behind on the device.
//!
//! Parts: `adb` (the one place commands run), `device` (which device, its
//! Android version, the app, traced), `config` (the TraceConfig and its text
//! form), `session` (start / wait / stop / pull / cleanup), `check` (is the
//! pulled file useful), `refusal` (what makers' ROMs refuse until a developer
//! switch is on, and which switch); for repeated runs `hygiene` (the device's
//! settings and state), `identity` (which APK is installed, by the best tool
//! the phone has), `thermal` (how hot it is, by the best source it has);
//! `warning` (what went wrong without spoiling the trace, by code).

pub(crate) mod adb;
pub mod check;
pub mod config;
mod device;
pub mod hygiene;
pub mod identity;
pub mod launch;
pub mod manifest;
pub mod refusal;
pub mod scenario;
pub(crate) mod session;
pub mod thermal;
pub mod warning;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::sink::Sink;

pub use check::{CheckedTrace, Loader, TraceFacts};
pub use warning::{CaptureWarning, CaptureWarningCode};

/// What `fpsan capture` is asked to do (the command line is `cli`'s).
#[derive(Debug, Clone)]
pub struct CaptureRequest {
    /// Package name of the app to trace (e.g. com.example.app).
    pub app: String,
    /// How long to trace, in seconds.
    pub secs: u32,
    /// Where to write the trace (default: PKG-<date>.pftrace; a directory
    /// gets that name inside it).
    pub out: Option<PathBuf>,
    /// Device serial (as in `adb devices`); default: ANDROID_SERIAL, or the only device.
    pub serial: Option<String>,
    /// Trace buffer size on the device, in MB (default: 5 MB per second, 16-256).
    pub buffer_mb: Option<u32>,
    /// Analyze the trace right after capturing it.
    pub analyze: bool,
    /// Print the TraceConfig and the perfetto command, touch no device.
    pub dry_run: bool,
    /// Steps to drive while tracing (`--drive`).
    pub drive: Option<scenario::Scenario>,
    /// How the app is started in the trace (`--launch`).
    pub launch: launch::Launch,
    /// The activity to start (`--activity`); default: the launcher's.
    pub activity: Option<String>,
}

/// A finished capture. `path` is the checked local trace; when `analyze` is
/// set the caller (cli) runs the analysis on it.
#[derive(Debug, Clone)]
pub struct CaptureOutcome {
    pub path: PathBuf,
    pub app: String,
    pub serial: String,
    pub sdk: u32,
    pub requested_secs: u32,
    /// Ctrl-C stopped the trace early.
    pub interrupted: bool,
    /// `--analyze` was asked for: hook for the caller.
    pub analyze: bool,
    pub trace: CheckedTrace,
    /// What `am start -W` reported, when `--launch` started the app.
    pub launched: Option<launch::Launched>,
    /// The app's process died while the scenario ran (a crash), and how.
    pub app_died: Option<String>,
    /// Things that went wrong but did not spoil the trace (already printed).
    pub warnings: Vec<CaptureWarning>,
}

/// Why a capture failed. Every message is one line that says what to do.
#[derive(thiserror::Error, Debug)]
pub enum CaptureError {
    #[error("invalid capture arguments: {0}")]
    BadArgs(String),
    #[error("'{app}' is not an Android package name: pass the app's package, e.g. --app com.example.app (list them with `adb shell pm list packages`)")]
    BadPackage { app: String },
    #[error("adb not found ({looked}): install it (Debian/Ubuntu: `sudo apt install adb`; other systems: Android SDK platform-tools from https://developer.android.com/tools/releases/platform-tools) or set ADB=/path/to/adb")]
    AdbNotFound { looked: String },
    #[error("`{cmd}` failed: {detail}")]
    AdbFailed { cmd: String, detail: String },
    #[error("`{cmd}` did not finish within {secs} s: check the USB connection and `adb devices` (restart adb with `adb kill-server` if it hangs)")]
    AdbTimeout { cmd: String, secs: u64 },
    #[error("no Android device found: connect one over USB with USB debugging on (Settings > Developer options) or use `adb connect HOST:PORT`, then check `adb devices`")]
    NoDevice,
    #[error("device {serial} is unauthorized: unlock it and accept the \"Allow USB debugging?\" prompt (no prompt? Developer options > Revoke USB debugging authorizations, then replug)")]
    Unauthorized { serial: String },
    #[error(
        "device {serial} is offline: replug the USB cable or run `adb reconnect offline`, then check `adb devices`"
    )]
    Offline { serial: String },
    #[error("no permission to open device {serial} over USB: install the udev rules (Debian/Ubuntu: `sudo apt install android-sdk-platform-tools-common`), join the plugdev group, then replug")]
    NoPermissions { serial: String },
    #[error("device {serial} is in state '{state}', not running Android: boot it normally and check `adb devices`")]
    DeviceState { serial: String, state: String },
    #[error("several devices are connected ({serials}): choose one with --serial SERIAL or ANDROID_SERIAL=SERIAL")]
    SeveralDevices { serials: String },
    #[error(
        "device {serial} (from {from}) is not connected; adb sees: {connected}; check the serial with `adb devices`"
    )]
    SerialNotFound { serial: String, from: &'static str, connected: String },
    #[error("the device reports SDK level '{value}' (getprop ro.build.version.sdk): wait until it has finished booting and retry")]
    BadSdk { value: String },
    #[error("the device runs Android SDK {sdk}, which has no perfetto (it ships with Android 9, SDK 28): use a device with Android 9 or newer")]
    TooOld { sdk: u32 },
    #[error("package {app} is not installed on {serial}: check the name with `adb -s {serial} shell pm list packages {app}`")]
    AppNotInstalled { app: String, serial: String },
    #[error("the tracing service did not start on {serial} after `setprop persist.traced.enable 1`: reboot the device and retry")]
    TracedNotRunning { serial: String },
    #[error("perfetto did not start on {serial}: {detail}{}", reason_text(.reason))]
    PerfettoStart { serial: String, detail: String, reason: Option<String> },
    #[error("perfetto (pid {pid}) on {serial} did not exit {secs} s after being told to stop: reboot the device if tracing stays stuck")]
    PerfettoStuck { serial: String, pid: u32, secs: u64 },
    #[error("lost contact with {serial} while tracing ({detail}): check the USB cable and `adb devices`, then capture again")]
    DeviceLost { serial: String, detail: String },
    #[error("could not pull the trace from {serial}: {detail}; {hint}")]
    Pull { serial: String, detail: String, hint: String },
    #[error("cannot write the trace to {path}: {detail}: choose another -o FILE")]
    Output { path: PathBuf, detail: String },
    #[error("the screen of {serial} stays locked: remove the PIN/pattern lock for the experiment (Settings > Security > Screen lock: None)")]
    ScreenLocked { serial: String },
    /// The phone refused a command until a developer switch is changed: no
    /// retry helps. `during` says which command.
    #[error("{during}: {refusal}")]
    Refused { during: String, refusal: refusal::Refusal },
    #[error("capture cancelled (Ctrl-C) before tracing started; nothing was changed on the device")]
    Cancelled,
    #[error("the trace {path} is almost empty ({size_bytes} bytes, {packets} packets, no ftrace data): perfetto recorded nothing{}", reason_text(.reason))]
    EmptyTrace { path: PathBuf, size_bytes: u64, packets: u64, reason: Option<String> },
    #[error("the trace {path} has no process named {app} ({processes} processes recorded): start the app before capturing (e.g. `adb shell monkey -p {app} 1`) and keep it on screen{}", reason_text(.reason))]
    AppNotInTrace { path: PathBuf, app: String, size_bytes: u64, processes: usize, reason: Option<String> },
    #[error("the trace {path} is not usable ({detail}){}", reason_text(.reason))]
    Unreadable { path: PathBuf, detail: String, reason: Option<String> },
}

impl CaptureError {
    pub fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            CaptureError::BadArgs(_) | CaptureError::BadPackage { .. } => ErrorKind::Usage,
            CaptureError::Output { .. } => ErrorKind::Io,
            CaptureError::Cancelled => ErrorKind::Interrupted,
            // The device, adb or what perfetto recorded.
            _ => ErrorKind::Input,
        }
    }
}

fn reason_text(reason: &Option<String>) -> String {
    match reason {
        Some(r) => format!("; perfetto says: {r}"),
        None => "; `adb logcat -d -s perfetto` shows no error from perfetto".to_string(),
    }
}

/// Everything a capture takes from its surroundings, so that tests (and
/// embedders) can run several captures side by side.
#[derive(Debug, Clone)]
pub struct CaptureEnv {
    /// The adb program; `None`: `$ADB`, else `adb` on PATH.
    pub adb: Option<PathBuf>,
    /// `ANDROID_SERIAL`, used when `--serial` is absent.
    pub android_serial: Option<String>,
    /// Set by Ctrl-C (see [`request_stop`]): stop tracing, keep what was recorded.
    pub stop: Arc<AtomicBool>,
    /// Where the countdown, progress and messages go.
    pub sink: Sink,
    /// How often the device is asked whether perfetto is still running.
    pub poll: Duration,
    /// Local time stamp for file names, `YYYYmmdd-HHMMSS`.
    pub stamp: String,
    pub loader: Loader,
}

impl CaptureEnv {
    /// The real environment: process env, the clock, the Ctrl-C handler;
    /// `loader` reads the pulled trace, `sink` shows the progress.
    pub fn from_process(loader: Loader, sink: Sink) -> CaptureEnv {
        CaptureEnv {
            adb: None,
            android_serial: std::env::var("ANDROID_SERIAL").ok().filter(|s| !s.is_empty()),
            stop: install_ctrlc(sink),
            sink,
            poll: Duration::from_secs(1),
            stamp: chrono::Local::now().format("%Y%m%d-%H%M%S").to_string(),
            loader,
        }
    }

    /// A quiet environment with its own stop flag (tests, embedding).
    pub fn detached(adb: PathBuf, stamp: &str, loader: Loader) -> CaptureEnv {
        CaptureEnv {
            adb: Some(adb),
            android_serial: None,
            stop: Arc::new(AtomicBool::new(false)),
            sink: Sink::quiet(),
            poll: Duration::from_millis(100),
            stamp: stamp.to_string(),
            loader,
        }
    }
}

/// What the Ctrl-C handler does: ask the running capture to stop tracing.
/// The capture then sends SIGTERM to perfetto (which flushes and finishes the
/// file), waits for it to exit, and pulls and checks what was recorded.
pub fn request_stop(flag: &AtomicBool) {
    flag.store(true, Ordering::SeqCst);
}

static STOP_FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
/// True while `run` is capturing; outside that window Ctrl-C exits as usual
/// (e.g. during `--analyze`).
static CAPTURING: AtomicBool = AtomicBool::new(false);

fn install_ctrlc(sink: Sink) -> Arc<AtomicBool> {
    let flag = STOP_FLAG
        .get_or_init(|| {
            let flag = Arc::new(AtomicBool::new(false));
            let for_handler = flag.clone();
            let installed = ctrlc::set_handler(move || {
                if CAPTURING.load(Ordering::SeqCst) {
                    request_stop(&for_handler);
                } else {
                    std::process::exit(130);
                }
            });
            if let Err(e) = installed {
                let why = format!("cannot catch Ctrl-C ({e}); interrupting will leave perfetto running on the device");
                sink.warn(None, &why);
            }
            flag
        })
        .clone();
    flag.store(false, Ordering::SeqCst);
    flag
}

/// `fpsan capture`: what was captured, `None` for `--dry-run` (whose
/// output is [`dry_run_text`]). `loader` reads the pulled trace for the
/// check; the countdown and messages go to `sink`; the caller prints the
/// trace's path.
pub fn run(args: &CaptureRequest, loader: Loader, sink: Sink) -> Result<Option<CaptureOutcome>, CaptureError> {
    if args.dry_run {
        return Ok(None);
    }
    with_ctrlc(loader, sink, |env| run_with(args, env))
}

/// Run `f` in the real environment ([`CaptureEnv::from_process`]) with
/// Ctrl-C asking it to stop through `env.stop` instead of ending the
/// process, so that it can stop perfetto and restore the device.
pub fn with_ctrlc<T>(loader: Loader, sink: Sink, f: impl FnOnce(&CaptureEnv) -> T) -> T {
    let env = CaptureEnv::from_process(loader, sink);
    struct Capturing;
    impl Drop for Capturing {
        fn drop(&mut self) {
            CAPTURING.store(false, Ordering::SeqCst);
        }
    }
    CAPTURING.store(true, Ordering::SeqCst);
    let _capturing = Capturing;
    f(&env)
}

/// [`run`] in a given environment (no Ctrl-C handler).
pub fn run_with(args: &CaptureRequest, env: &CaptureEnv) -> Result<Option<CaptureOutcome>, CaptureError> {
    validate(args)?;
    if args.dry_run {
        return Ok(None);
    }
    session::capture(args, env).map(Some)
}

/// The `--dry-run` output: the text-proto TraceConfig with a header saying
/// how it is sent.
pub fn dry_run_text(args: &CaptureRequest) -> Result<String, CaptureError> {
    validate(args)?;
    let config = config::build(&args.app, args.secs, args.buffer_mb);
    let bytes = config::encode(&config);
    let remote = session::remote_path(&args.app, "<time>");
    let mut out = String::new();
    out.push_str("# fpsan capture --dry-run: nothing was run on a device.\n");
    out.push_str(&format!("# This TraceConfig is sent binary-encoded ({} bytes) on stdin to:\n", bytes.len()));
    out.push_str(&format!("#   adb -s SERIAL shell {}\n", session::perfetto_command(&remote)));
    out.push_str(&config::render_text(&config));
    Ok(out)
}

/// Checks that need no device. The package name goes into device shell
/// command lines, so it is held to Android's package-name alphabet.
pub fn validate(args: &CaptureRequest) -> Result<(), CaptureError> {
    if !is_package_name(&args.app) {
        return Err(CaptureError::BadPackage { app: args.app.clone() });
    }
    // The activity goes into a device shell line (`am start -n …`): only a
    // component's alphabet (`.Main`, `pkg/.ui.Main`) may pass.
    if let Some(a) = &args.activity {
        let ok = !a.is_empty()
            && a.chars().all(|c| c.is_ascii_alphanumeric() || "._/".contains(c))
            && a.matches('/').count() <= 1;
        if !ok {
            return Err(CaptureError::BadArgs(format!(
                "--activity {a:?} is not an activity name: use .MainActivity or com.example.app/.MainActivity"
            )));
        }
    }
    if !(1..=86_400).contains(&args.secs) {
        return Err(CaptureError::BadArgs(format!("--secs {} is out of range: use 1 to 86400", args.secs)));
    }
    if let Some(mb) = args.buffer_mb {
        if !(1..=4096).contains(&mb) {
            return Err(CaptureError::BadArgs(format!("--buffer-mb {mb} is out of range: use 1 to 4096")));
        }
    }
    if let Some(serial) = &args.serial {
        if serial.is_empty() || serial.starts_with('-') {
            return Err(CaptureError::BadArgs(format!(
                "--serial '{serial}' is not a device serial: see `adb devices`"
            )));
        }
    }
    Ok(())
}

/// `segment(.segment)*`, each a letter or `_` then letters, digits, `_`.
pub fn is_package_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && name.split('.').all(|seg| {
            let mut chars = seg.chars();
            matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// Where the local trace goes: `-o FILE`, `-o DIR/PKG-<stamp>.pftrace`, or
/// `PKG-<stamp>.pftrace` in the current directory.
pub fn output_path(out: Option<&Path>, app: &str, stamp: &str) -> PathBuf {
    let name = format!("{app}-{stamp}.pftrace");
    match out {
        None => PathBuf::from(name),
        Some(p) if p.is_dir() => p.join(name),
        Some(p) => p.to_path_buf(),
    }
}

/// `$ADB`/PATH lookup with the process environment.
pub fn locate_adb() -> Result<PathBuf, CaptureError> {
    adb::Adb::locate(std::env::var_os("ADB"), std::env::var_os("PATH").or_else(|| Some(OsString::new())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names() {
        for ok in ["com.example.app", "android", "com.a_b.c1", "_x.y"] {
            assert!(is_package_name(ok), "{ok}");
        }
        for bad in ["", "com..a", ".com", "com.", "1com.a", "com.a;rm -rf /", "com.a b", "com.a$(x)", "com.a:remote"] {
            assert!(!is_package_name(bad), "{bad}");
        }
    }

    #[test]
    fn output_paths() {
        assert_eq!(output_path(None, "com.a", "20261123-101500"), PathBuf::from("com.a-20261123-101500.pftrace"));
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(output_path(Some(dir.path()), "com.a", "S"), dir.path().join("com.a-S.pftrace"));
        assert_eq!(output_path(Some(Path::new("x/t.pftrace")), "com.a", "S"), PathBuf::from("x/t.pftrace"));
    }

    #[test]
    fn errors_are_one_line() {
        let e = CaptureError::EmptyTrace {
            path: "t.pftrace".into(),
            size_bytes: 412,
            packets: 3,
            reason: Some("x".into()),
        };
        assert_eq!(
            e.to_string(),
            "the trace t.pftrace is almost empty (412 bytes, 3 packets, no ftrace data): perfetto recorded nothing; perfetto says: x"
        );
        assert!(!CaptureError::AdbNotFound { looked: "PATH".into() }.to_string().contains('\n'));
    }
}
