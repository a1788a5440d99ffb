//! What went wrong during a capture, or one of `ab`'s runs, without spoiling
//! its trace. Each warning has a stable code (what a program matches on;
//! listed in docs/capture.md, "Warning codes") and a message for people,
//! printed and stored as it is.

use serde::{Deserialize, Serialize};

/// What a capture warning is about. The codes (`serde` names) are stable: a
/// new kind of warning gets a new code, an existing code keeps its meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptureWarningCode {
    /// `--launch cold` without root: the page cache was not dropped.
    PageCacheKept,
    /// `--launch`'s `am start -W` did not start the activity; the trace went on.
    LaunchFailed,
    /// The scenario's window could not be marked in the trace.
    WindowNotMarked,
    /// A `wait-idle` step stopped waiting: the app still drew at its bound,
    /// or its frame count could not be read.
    NotIdle,
    /// A scenario step failed; the scenario stopped there.
    StepFailed,
    /// Ctrl-C interrupted the scenario.
    ScenarioInterrupted,
    /// The scenario ran longer than the trace: its end is not in it.
    ScenarioTooLong,
    /// The app's process died (or restarted) during the scenario.
    AppDied,
    /// perfetto stopped before the duration asked: the trace is shorter.
    TraceShort,
    /// Cleanup: perfetto may still be running on the device.
    PerfettoLeftRunning,
    /// Cleanup: the trace file could not be deleted from the device.
    TraceLeftOnDevice,
    /// Cleanup: `persist.traced.enable` could not be put back.
    TracedNotRestored,
    // A run's own warnings (`ab`, `capture --runs`), in runs.json.
    /// The device still throttled when the cool-down ran out.
    StillThrottling,
    /// The installed APK was identified by its size alone (no hash tool on the phone).
    ApkCheckedBySize,
}

/// One capture warning: its code and its message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureWarning {
    pub code: CaptureWarningCode,
    pub message: String,
}

impl CaptureWarning {
    pub fn new(code: CaptureWarningCode, message: impl Into<String>) -> CaptureWarning {
        CaptureWarning { code, message: message.into() }
    }
}

impl std::fmt::Display for CaptureWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/capture.md's table lists every code, once, in the enum's order.
    #[test]
    fn every_code_is_documented() {
        let doc = include_str!("../../docs/capture.md");
        let section = &doc[doc.find("## Warning codes").expect("docs/capture.md has a \"Warning codes\" section")..];
        let documented: Vec<CaptureWarningCode> = section
            .lines()
            .skip(1)
            .take_while(|l| !l.starts_with("## "))
            .filter(|l| l.starts_with("| `"))
            .map(|l| {
                let code = l.split('`').nth(1).unwrap();
                serde_json::from_value(serde_json::json!(code)).unwrap_or_else(|e| panic!("{code}: {e}"))
            })
            .collect();
        let source = include_str!("warning.rs");
        let body = &source[source.find("pub enum CaptureWarningCode {").unwrap()..];
        let body = &body[..body.find("\n}").unwrap()];
        let variants: Vec<CaptureWarningCode> = body
            .lines()
            .map(str::trim)
            .filter(|l| l.ends_with(',') && !l.starts_with("//"))
            .map(|l| serde_json::from_value(serde_json::json!(to_snake(l.trim_end_matches(',')))).unwrap())
            .collect();
        assert_eq!(documented, variants);
    }

    fn to_snake(camel: &str) -> String {
        let mut out = String::new();
        for (i, c) in camel.chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    }

    /// JSON (runs.json) carries the code and the message.
    #[test]
    fn serialises_as_code_and_message() {
        let w = CaptureWarning::new(CaptureWarningCode::PageCacheKept, "not dropped");
        let json = serde_json::to_value(&w).unwrap();
        assert_eq!(json, serde_json::json!({"code": "page_cache_kept", "message": "not dropped"}));
        assert_eq!(serde_json::from_value::<CaptureWarning>(json).unwrap(), w);
        assert_eq!(w.to_string(), "not dropped");
    }
}
