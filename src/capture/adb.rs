//! The `adb` runner: finds the adb program, builds every command line
//! (`adb [-s SERIAL] ...`) and runs it through one function, [`Adb::exec`],
//! which captures stdout, stderr and the exit status and enforces a timeout.
//! Everything fpsan does to a device goes through here, so the sequence of
//! invocations is what the fake-adb tests assert.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::CaptureError;

/// How long ordinary commands (getprop, pm, kill, rm, ...) may take. adb can
/// hang on a half-dead USB link; a bounded wait turns that into an error.
pub const SHORT_TIMEOUT: Duration = Duration::from_secs(30);

/// What one adb invocation produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdbOutput {
    /// Exit code; `None` when adb was killed by a signal.
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl AdbOutput {
    pub fn success(&self) -> bool {
        self.status == Some(0)
    }

    /// stderr (or stdout when stderr is empty) squeezed onto one line, for
    /// error messages.
    pub fn detail(&self) -> String {
        let text = if self.stderr.trim().is_empty() { &self.stdout } else { &self.stderr };
        let line = one_line(text);
        if line.is_empty() {
            match self.status {
                Some(code) => format!("exit status {code}"),
                None => "killed by a signal".to_string(),
            }
        } else {
            line
        }
    }
}

/// Why a command on the device did not do its job; its message goes into
/// a warning, or into the detail of the [`CaptureError`] it leads to.
#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    /// adb itself failed (not found, timed out, the device gone).
    #[error(transparent)]
    Adb(#[from] CaptureError),
    /// The command ran and failed: what it said, on one line.
    #[error("{0}")]
    Failed(String),
}

/// Join the non-empty lines of `text` with "; " so a message stays on one line.
pub fn one_line(text: &str) -> String {
    text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ")
}

/// A handle on the adb program, optionally bound to one device serial.
#[derive(Debug, Clone)]
pub struct Adb {
    program: PathBuf,
    serial: Option<String>,
}

impl Adb {
    pub fn new(program: PathBuf) -> Adb {
        Adb { program, serial: None }
    }

    /// Find adb: `$ADB` when set (it must exist), else the first `adb` on PATH.
    pub fn locate(adb_env: Option<OsString>, path_env: Option<OsString>) -> Result<PathBuf, CaptureError> {
        if let Some(adb) = adb_env.filter(|v| !v.is_empty()) {
            let path = PathBuf::from(&adb);
            if path.is_file() {
                return Ok(path);
            }
            // A bare name in $ADB ("adb-34") is looked up on PATH like a shell would.
            if path.components().count() == 1 {
                if let Some(found) = search_path(&adb, path_env.as_ref()) {
                    return Ok(found);
                }
            }
            return Err(CaptureError::AdbNotFound { looked: format!("$ADB={}", path.display()) });
        }
        search_path(&OsString::from("adb"), path_env.as_ref())
            .ok_or_else(|| CaptureError::AdbNotFound { looked: "PATH".to_string() })
    }

    /// The same adb, with every later command aimed at `serial`.
    pub fn with_serial(&self, serial: &str) -> Adb {
        Adb { program: self.program.clone(), serial: Some(serial.to_string()) }
    }

    pub fn serial(&self) -> Option<&str> {
        self.serial.as_deref()
    }

    /// The argument vector after the program name: `[-s SERIAL] args...`.
    pub fn command_line(&self, args: &[&str]) -> Vec<String> {
        let mut line = Vec::with_capacity(args.len() + 2);
        if let Some(serial) = &self.serial {
            line.push("-s".to_string());
            line.push(serial.clone());
        }
        line.extend(args.iter().map(|a| a.to_string()));
        line
    }

    /// `adb [-s SERIAL] shell CMD` (CMD is run by the device's sh).
    pub fn shell(&self, cmd: &str) -> Result<AdbOutput, CaptureError> {
        self.exec(&["shell", cmd], None, SHORT_TIMEOUT)
    }

    /// Run one adb command: the single place where fpsan talks to adb.
    ///
    /// adb runs in its own process group so that the terminal's Ctrl-C (sent
    /// to the whole foreground group) reaches only fpsan, which then stops
    /// perfetto cleanly instead of having its `adb pull` killed under it.
    pub fn exec(&self, args: &[&str], stdin: Option<&[u8]>, timeout: Duration) -> Result<AdbOutput, CaptureError> {
        let line = self.command_line(args);
        let shown = format!("adb {}", line.join(" "));
        let mut cmd = Command::new(&self.program);
        cmd.args(&line)
            .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = spawn_retrying_busy(&mut cmd).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
                CaptureError::AdbNotFound { looked: self.program.display().to_string() }
            }
            _ => CaptureError::AdbFailed { cmd: shown.clone(), detail: e.to_string() },
        })?;

        // Feed stdin and drain both pipes on threads: a child blocked on a full
        // pipe would otherwise never exit.
        let writer = match (child.stdin.take(), stdin) {
            (Some(mut pipe), Some(bytes)) => {
                let bytes = bytes.to_vec();
                Some(std::thread::spawn(move || {
                    // A child that exits without reading all of stdin is
                    // reported through its exit status, not a write error.
                    let _ = pipe.write_all(&bytes);
                }))
            }
            _ => None,
        };
        let out_reader = child.stdout.take().map(spawn_reader);
        let err_reader = child.stderr.take().map(spawn_reader);

        let deadline = Instant::now() + timeout;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() >= deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(CaptureError::AdbTimeout { cmd: shown, secs: timeout.as_secs() });
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Err(CaptureError::AdbFailed { cmd: shown, detail: e.to_string() }),
            }
        };
        if let Some(w) = writer {
            let _ = w.join();
        }
        let stdout = out_reader.map(|h| h.join().unwrap_or_default()).unwrap_or_default();
        let stderr = err_reader.map(|h| h.join().unwrap_or_default()).unwrap_or_default();
        Ok(AdbOutput {
            status: status.code(),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        })
    }
}

fn spawn_reader<R: Read + Send + 'static>(mut pipe: R) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = pipe.read_to_end(&mut buf);
        buf
    })
}

fn search_path(name: &OsString, path_env: Option<&OsString>) -> Option<PathBuf> {
    let path_env = path_env?;
    std::env::split_paths(path_env).map(|dir| dir.join(name)).find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// `spawn`, retried briefly on ETXTBSY: the program file is still open for
/// writing somewhere (adb being replaced by an SDK update, or a freshly
/// written script whose descriptor another thread's fork inherited for an
/// instant). The condition clears by itself within milliseconds.
fn spawn_retrying_busy(cmd: &mut Command) -> std::io::Result<std::process::Child> {
    const ETXTBSY: i32 = 26;
    let mut tries = 0;
    loop {
        match cmd.spawn() {
            Err(e) if e.raw_os_error() == Some(ETXTBSY) && tries < 20 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(25));
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_puts_serial_first() {
        let adb = Adb::new(PathBuf::from("adb"));
        assert_eq!(adb.command_line(&["devices"]), vec!["devices"]);
        let bound = adb.with_serial("R58M12");
        assert_eq!(
            bound.command_line(&["shell", "getprop ro.build.version.sdk"]),
            vec!["-s", "R58M12", "shell", "getprop ro.build.version.sdk"]
        );
    }

    #[test]
    fn locate_reports_what_was_searched() {
        let empty = tempfile::tempdir().unwrap();
        let err = Adb::locate(None, Some(empty.path().as_os_str().to_owned())).unwrap_err();
        assert!(matches!(err, CaptureError::AdbNotFound { ref looked } if looked == "PATH"));
        let err = Adb::locate(Some("/nonexistent/adb".into()), None).unwrap_err();
        assert!(matches!(err, CaptureError::AdbNotFound { ref looked } if looked == "$ADB=/nonexistent/adb"));
    }

    #[test]
    fn detail_is_one_line() {
        let out = AdbOutput { status: Some(1), stdout: String::new(), stderr: "error: a\n\nb\r\n".into() };
        assert_eq!(out.detail(), "error: a; b");
        let out = AdbOutput { status: Some(3), stdout: String::new(), stderr: String::new() };
        assert_eq!(out.detail(), "exit status 3");
    }
}
