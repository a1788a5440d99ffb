//! Starting the app the same way every run (`--launch`), in the start
//! states AndroidX Macrobenchmark defines (docs/capture.md, "Launching the app"):
//! - `cold`: the process is killed before tracing (`am force-stop`; the page
//!   cache is dropped too when adb runs as root), so the trace holds a
//!   process start;
//! - `warm`: the process lives but its activity is gone (started, then
//!   finished with BACK before tracing);
//! - `hot`: the activity lives in the background (started, then HOME);
//! - `none`: the app is left as it is and not started.
//!
//! For the first three, `am start -W` starts the launcher activity inside
//! the trace and its report (launch state, TotalTime, WaitTime) is kept.

use super::adb::{Adb, ShellError, SHORT_TIMEOUT};
use super::refusal::Refusal;
use super::warning::{CaptureWarning, CaptureWarningCode};
use super::CaptureError;

/// How the app is started in each run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Launch {
    Cold,
    Warm,
    Hot,
    #[default]
    None,
}

impl Launch {
    pub fn as_str(self) -> &'static str {
        match self {
            Launch::Cold => "cold",
            Launch::Warm => "warm",
            Launch::Hot => "hot",
            Launch::None => "none",
        }
    }
}

/// What `am start -W` reported.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Launched {
    pub component: String,
    /// `LaunchState:` (`COLD`, `WARM`, `HOT`, `RELAUNCH`, `UNKNOWN (0)`), Android 10+.
    pub state: Option<String>,
    /// `TotalTime:` in ms: intent to first frame of the activity.
    pub total_ms: Option<u64>,
    /// `WaitTime:` in ms: as TotalTime, plus the time `am` waited for the system.
    pub wait_ms: Option<u64>,
}

/// The activity a launcher would start: `cmd package resolve-activity
/// --brief` prints the match, then `pkg/.Activity` on its last line.
pub fn launcher_activity(adb: &Adb, app: &str) -> Result<String, CaptureError> {
    let cmd = format!(
        "cmd package resolve-activity --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER {app}"
    );
    let out = adb.shell(&cmd)?;
    out.stdout.lines().map(str::trim).rfind(|l| l.starts_with(app) && l.contains('/')).map(str::to_string).ok_or_else(
        || CaptureError::AdbFailed {
            cmd: format!("adb shell {cmd}"),
            detail: format!("{app} has no launcher activity: name one with --activity"),
        },
    )
}

/// Put the app in the state `launch` asks for, before tracing. Returns
/// what was not done and why (a warning each).
pub fn prepare(adb: &Adb, launch: Launch, app: &str, component: &str) -> Result<Vec<CaptureWarning>, CaptureError> {
    let mut warnings = Vec::new();
    let step = |cmd: &str| -> Result<(), CaptureError> {
        let out = adb.shell(cmd)?;
        if let Some(refusal) = Refusal::of(&out) {
            let during = format!("`{cmd}` (putting {app} in the {} state)", launch.as_str());
            return Err(CaptureError::Refused { during, refusal });
        }
        if out.success() {
            Ok(())
        } else {
            Err(CaptureError::AdbFailed { cmd: format!("adb shell {cmd}"), detail: out.detail() })
        }
    };
    match launch {
        Launch::None => {}
        Launch::Cold => {
            step(&format!("am force-stop {app}"))?;
            // Only root may drop the page cache; on a user build the app's
            // files may stay cached, which the warning says.
            let root = adb.shell("id -u")?.stdout.trim() == "0";
            if root {
                step("echo 3 > /proc/sys/vm/drop_caches")?;
            } else {
                warnings.push(CaptureWarning::new(
                    CaptureWarningCode::PageCacheKept,
                    "cold launch: the page cache was not dropped (adb is not root): the app's files may still be cached",
                ));
            }
        }
        Launch::Warm | Launch::Hot => {
            start(adb, component).map_err(|detail| CaptureError::AdbFailed {
                cmd: format!("adb shell am start -W -n {component}"),
                detail: format!("{detail} (starting the app before tracing)"),
            })?;
            // BACK finishes the activity (warm), HOME only hides it (hot).
            let key = if launch == Launch::Warm { 4 } else { 3 };
            step(&format!("input keyevent {key}"))?;
        }
    }
    Ok(warnings)
}

/// `am start -W -n COMPONENT`: starts the activity and waits for its first
/// frame. `am` prints errors on stdout and may still exit 0.
pub fn start(adb: &Adb, component: &str) -> Result<Launched, ShellError> {
    let out = adb.exec(&["shell", "am", "start", "-W", "-n", component], None, SHORT_TIMEOUT)?;
    // `Error type 3` then `Error: Activity class {…} does not exist.`: the
    // message is the `Error:` line.
    let lines = || out.stdout.lines().chain(out.stderr.lines()).map(str::trim);
    if let Some(err) = lines().find(|l| l.starts_with("Error:")).or_else(|| lines().find(|l| l.starts_with("Error"))) {
        return Err(ShellError::Failed(err.to_string()));
    }
    if !out.success() {
        return Err(ShellError::Failed(out.detail()));
    }
    Ok(parse_am_start(component, &out.stdout))
}

/// The fields of `am start -W`'s report.
pub fn parse_am_start(component: &str, stdout: &str) -> Launched {
    let field = |name: &str| {
        stdout.lines().find_map(|l| l.trim().strip_prefix(name).map(|v| v.trim().to_string())).filter(|v| !v.is_empty())
    };
    Launched {
        component: component.to_string(),
        state: field("LaunchState:"),
        total_ms: field("TotalTime:").and_then(|v| v.parse().ok()),
        wait_ms: field("WaitTime:").and_then(|v| v.parse().ok()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn am_start_report() {
        // Android 14's `am start -W` output.
        let out = "Starting: Intent { cmp=com.example.app/.MainActivity }\nStatus: ok\nLaunchState: COLD\nActivity: com.example.app/.MainActivity\nTotalTime: 412\nWaitTime: 415\nComplete\n";
        assert_eq!(
            parse_am_start("com.example.app/.MainActivity", out),
            Launched {
                component: "com.example.app/.MainActivity".into(),
                state: Some("COLD".into()),
                total_ms: Some(412),
                wait_ms: Some(415)
            }
        );
        // Android 9 has no LaunchState.
        let old = "Starting: Intent { cmp=a/.B }\nStatus: ok\nActivity: a/.B\nThisTime: 300\nTotalTime: 300\nWaitTime: 310\nComplete\n";
        let l = parse_am_start("a/.B", old);
        assert_eq!((l.state, l.total_ms, l.wait_ms), (None, Some(300), Some(310)));
    }
}
