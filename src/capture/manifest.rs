//! `runs.json`: the record of a series of runs (`capture --runs`, `ab`;
//! docs/ab.md, "runs.json"): every attempt in the order it ran, with its
//! side, trace, device state, launch report and, for a failed one, why.
//! `compare` reads it to warn when the sides differ in device state.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::hygiene::{DeviceState, SettingNotSet};
use super::warning::CaptureWarning;

pub const FILE_NAME: &str = "runs.json";

/// Which command made the series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeriesKind {
    Ab,
    #[default]
    Capture,
}

/// One of the two builds of `ab`: the side of a run and of an APK.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Build {
    Before,
    After,
}

impl Build {
    pub fn name(self) -> &'static str {
        match self {
            Build::Before => "before",
            Build::After => "after",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// How an attempt ended (an attempt not yet known to be ok counts as failed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Ok,
    #[default]
    Failed,
    Interrupted,
}

/// What a look of `--until-decided` concluded about fps (compare's verdict;
/// indicative counts as inconclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LookVerdict {
    Better,
    Worse,
    Same,
    Inconclusive,
}

/// Why a runs.json could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path} is not a runs.json fpsan wrote: {source}")]
    Parse { path: PathBuf, source: serde_json::Error },
}

/// The whole record.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Manifest {
    pub fpsan_version: String,
    pub kind: SeriesKind,
    pub app: String,
    pub serial: String,
    /// The order of the builds: `abba`, or `shuffle` with its seed.
    pub order: Option<String>,
    pub seed: Option<u64>,
    /// The scenario's steps, one per line, as given.
    pub scenario: Option<String>,
    pub launch: String,
    pub secs: u32,
    /// The APK files given for each side (`ab`).
    pub builds: Vec<BuildRecord>,
    /// Every attempt, in the order it ran.
    pub runs: Vec<RunRecord>,
    /// The looks of `--until-decided`, in order.
    pub looks: Vec<LookRecord>,
    /// Ctrl-C stopped the experiment.
    pub interrupted: bool,
    /// Why the experiment stopped before its end (a run that failed every
    /// attempt, a device that did not come back).
    pub stopped: Option<String>,
    /// Settings changed for the runs and put back afterwards.
    pub settings_changed: Vec<String>,
    /// Settings the phone refused to change (they keep their value for the
    /// runs, with `--allow-dirty-device`); absent from older records.
    #[serde(default)]
    pub settings_not_set: Vec<SettingNotSet>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BuildRecord {
    pub side: Build,
    pub apk: String,
    /// SHA-256 of the local APK file.
    pub sha256: String,
    /// MD5 and size of the local APK file, for a phone that cannot give the
    /// installed APK's SHA-256 (absent from older records).
    #[serde(default)]
    pub md5: Option<String>,
    #[serde(default)]
    pub size_bytes: Option<u64>,
}

/// One attempt at one run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    /// 1-based position in the experiment's order.
    pub order: usize,
    /// None for `capture --runs`.
    pub side: Option<Build>,
    /// The run's number within its side (run-NN).
    pub run: usize,
    pub attempt: u32,
    pub status: RunStatus,
    pub reason: Option<String>,
    /// The trace, relative to the manifest's directory (a failed attempt's
    /// trace, when one was pulled, is kept under `failed/`).
    pub trace: Option<String>,
    /// Local time the attempt started, RFC 3339.
    pub started: String,
    pub seconds: f64,
    pub device: DeviceState,
    pub launch_state: Option<String>,
    pub launch_total_ms: Option<u64>,
    /// The headline value of the run (`ab`): fps as `compare` computes it.
    pub fps: Option<f64>,
    /// The app's TTID in the run, ms, when it started in it (`compare`'s
    /// `startup_ttid`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttid_ms: Option<f64>,
    /// The capture's warnings and the run's own (docs/capture.md, "Warning codes").
    pub warnings: Vec<CaptureWarning>,
}

impl RunRecord {
    pub fn ok(&self) -> bool {
        self.status == RunStatus::Ok
    }
}

/// One look of `--until-decided`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LookRecord {
    pub runs_per_side: [usize; 2],
    /// The nominal level the look tests at (the alpha spent on it).
    pub alpha: f64,
    pub verdict: LookVerdict,
    /// What the look decided on: `fps`, or `startup_ttid` (docs/ab.md).
    #[serde(default = "fps_name")]
    pub metric: String,
    /// The interval of its change after − before.
    #[serde(alias = "fps_delta_ci")]
    pub delta_ci: Option<[f64; 2]>,
    pub runs_needed: Option<usize>,
}

fn fps_name() -> String {
    "fps".into()
}

impl Manifest {
    /// Write `DIR/runs.json` (through a temporary file, so a reader never
    /// sees half of it).
    pub fn write(&self, dir: &Path) -> std::io::Result<PathBuf> {
        let path = dir.join(FILE_NAME);
        let tmp = dir.join(".runs.json.tmp");
        let mut bytes = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, &path)?;
        Ok(path)
    }

    pub fn read(path: &Path) -> Result<Manifest, ManifestError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| ManifestError::Read { path: path.to_path_buf(), source })?;
        serde_json::from_str(&text).map_err(|source| ManifestError::Parse { path: path.to_path_buf(), source })
    }

    /// The manifest describing a side given to `compare`: `SIDE/runs.json`
    /// (`capture --runs`) or `SIDE/../runs.json` (`ab`).
    pub fn find_for(side: &Path) -> Option<PathBuf> {
        if !side.is_dir() {
            return None;
        }
        [side.join(FILE_NAME), side.parent().map(|p| p.join(FILE_NAME)).unwrap_or_default()]
            .into_iter()
            .find(|p| p.is_file())
    }

    /// The successful runs of one side (`None`: every run, for `capture --runs`).
    pub fn ok_runs<'a>(&'a self, side: Option<&'a str>) -> impl Iterator<Item = &'a RunRecord> + 'a {
        self.runs.iter().filter(move |r| r.ok() && (side.is_none() || r.side.map(Build::name) == side))
    }
}

/// Warnings about two sides' device states, for `compare`: throttled runs
/// on one side only, several versions within a side, the same APK on both
/// sides, different compilation states.
pub fn side_warnings(before: &[&RunRecord], after: &[&RunRecord]) -> Vec<String> {
    let mut out = Vec::new();
    let throttled = |runs: &[&RunRecord]| runs.iter().filter(|r| r.device.throttled).count();
    let (tb, ta) = (throttled(before), throttled(after));
    if (tb == 0) != (ta == 0) {
        let (side, n, of) = if tb > 0 { ("before", tb, before.len()) } else { ("after", ta, after.len()) };
        out.push(format!(
            "{n} of {of} {side} runs started on a throttling device and none of the other side's: a thermal difference may explain part of the change"
        ));
    }
    let distinct = |runs: &[&RunRecord], f: &dyn Fn(&RunRecord) -> Option<String>| {
        let mut v: Vec<String> = runs.iter().filter_map(|r| f(r)).collect();
        v.sort();
        v.dedup();
        v
    };
    let hash = |r: &RunRecord| r.device.apk_sha256.clone();
    let version = |r: &RunRecord| {
        Some(format!(
            "{} ({})",
            r.device.version_name.clone().unwrap_or_default(),
            r.device.version_code.clone().unwrap_or_default()
        ))
        .filter(|_| r.device.version_code.is_some() || r.device.version_name.is_some())
    };
    let compile = |r: &RunRecord| r.device.compile_status.clone();
    for (side, runs) in [("before", before), ("after", after)] {
        let h = distinct(runs, &hash);
        if h.len() > 1 {
            let v = distinct(runs, &version).join(", ");
            out.push(format!(
                "the {side} runs ran {} different APKs (versions {v}): one side should be one build",
                h.len()
            ));
        }
    }
    let (hb, ha) = (distinct(before, &hash), distinct(after, &hash));
    if !hb.is_empty() && hb == ha {
        out.push("before and after ran the same APK (same SHA-256): the build did not change".to_string());
    }
    let (cb, ca) = (distinct(before, &compile), distinct(after, &compile));
    if !cb.is_empty() && !ca.is_empty() && cb != ca {
        out.push(format!(
            "the sides ran compiled differently (before {}, after {}): pass --compile to ab to make them alike",
            cb.join("/"),
            ca.join("/")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(side: Build, sha: &str, throttled: bool, compile: &str) -> RunRecord {
        RunRecord {
            side: Some(side),
            status: RunStatus::Ok,
            device: DeviceState {
                apk_sha256: Some(sha.into()),
                throttled,
                compile_status: Some(compile.into()),
                version_code: Some("1".into()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn warns_on_device_differences() {
        let b = [run(Build::Before, "aa", false, "speed"), run(Build::Before, "aa", false, "speed")];
        let a = [run(Build::After, "bb", true, "speed"), run(Build::After, "bb", false, "speed")];
        let w = side_warnings(&b.iter().collect::<Vec<_>>(), &a.iter().collect::<Vec<_>>());
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("1 of 2 after runs started on a throttling device"), "{w:?}");

        let a = [run(Build::After, "aa", false, "verify"), run(Build::After, "cc", false, "verify")];
        let w = side_warnings(&b.iter().collect::<Vec<_>>(), &a.iter().collect::<Vec<_>>());
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].starts_with("the after runs ran 2 different APKs"), "{w:?}");
        assert!(w[1].starts_with("the sides ran compiled differently (before speed, after verify)"), "{w:?}");

        let a = [run(Build::After, "aa", false, "speed")];
        let w = side_warnings(&b.iter().collect::<Vec<_>>(), &a.iter().collect::<Vec<_>>());
        assert_eq!(w, vec!["before and after ran the same APK (same SHA-256): the build did not change".to_string()]);
    }
}
