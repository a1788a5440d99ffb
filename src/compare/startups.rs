//! Startups between builds (docs/compare.md, "Startups"): each run's first
//! startup of the compared app, of the type most of the runs' startups have,
//! gives its TTID, TTFD and duration in ms. The test, interval and verdict
//! are `comparison`'s, as for any metric of the app.

use std::collections::BTreeMap;

use super::runs::{PerRun, Run, RunStartup};
use crate::model::{Warning, WarningCode};
use crate::startups::{StartupType, BEFORE_APP};

/// What `compare` reads of a startup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StartupMetric {
    /// Time to initial display.
    Ttid,
    /// Time to full display (`reportFullyDrawn`).
    Ttfd,
    /// The startup's own duration (`android_startups.dur`).
    Duration,
}

impl StartupMetric {
    pub(crate) const ALL: [StartupMetric; 3] = [StartupMetric::Ttid, StartupMetric::Ttfd, StartupMetric::Duration];

    /// Its JSON name, the one `--fail-if` rules use.
    pub(crate) fn name(self) -> &'static str {
        match self {
            StartupMetric::Ttid => "startup_ttid",
            StartupMetric::Ttfd => "startup_ttfd",
            StartupMetric::Duration => "startup_dur",
        }
    }

    /// Its value on one startup, ms.
    fn of(self, s: &RunStartup) -> Option<f64> {
        let ns = match self {
            StartupMetric::Ttid => s.ttid_ns,
            StartupMetric::Ttfd => s.ttfd_ns,
            StartupMetric::Duration => Some(s.dur_ns),
        };
        ns.map(|v| v as f64 / 1e6)
    }
}

/// Each breakdown part compared, by its name in [`RunStartup::parts`], and
/// its metric's name.
const PARTS: [(&str, &str); 5] = [
    (BEFORE_APP, "startup_before_app"),
    ("bindApplication", "startup_bind_application"),
    ("activityStart", "startup_activity_start"),
    ("activityResume", "startup_activity_resume"),
    ("Choreographer#doFrame", "startup_first_do_frame"),
];

/// The startup metrics defined on at least one run of each side, and a
/// warning when the runs' startups are of several types (only those of the
/// most common type are compared: a cold start against a warm one measures
/// the device's caches, not the build).
pub(crate) fn samples(before: &[Run], after: &[Run]) -> (Samples, Option<Warning>) {
    let all = || before.iter().chain(after).filter_map(|r| r.startup.as_ref());
    let mut types: BTreeMap<Option<StartupType>, usize> = BTreeMap::new();
    for s in all() {
        *types.entry(s.startup_type).or_default() += 1;
    }
    // The most runs; ties: cold, warm, hot, then untyped.
    let preference = |t: Option<StartupType>| match t {
        Some(StartupType::Cold) => 3,
        Some(StartupType::Warm) => 2,
        Some(StartupType::Hot) => 1,
        None => 0,
    };
    let Some(kept) = types.iter().max_by_key(|(t, n)| (**n, preference(**t))).map(|(t, _)| *t) else {
        return (Samples::default(), None);
    };
    let warning = (types.len() > 1).then(|| {
        let name = |t: &Option<StartupType>| t.map_or("untyped", |t| t.as_str());
        let counts: Vec<String> = types.iter().map(|(t, n)| format!("{} {n}", name(t))).collect();
        Warning::new(
            WarningCode::StartupTypesDiffer,
            format!(
                "the runs' startups are of several types ({}): the {} ones are compared",
                counts.join(", "),
                name(&kept)
            ),
        )
    });
    let values = |runs: &[Run], m: StartupMetric| -> Vec<Option<f64>> {
        runs.iter().map(|r| r.startup.as_ref().filter(|s| s.startup_type == kept).and_then(|s| m.of(s))).collect()
    };
    let samples = StartupMetric::ALL
        .into_iter()
        .filter_map(|metric| PerRun::defined(metric, values(before, metric), values(after, metric)))
        .collect();
    let part = |runs: &[Run], name: &str| -> Vec<Option<f64>> {
        runs.iter()
            .map(|r| {
                let s = r.startup.as_ref().filter(|s| s.startup_type == kept)?;
                s.parts.iter().find(|p| p.0 == name).map(|p| p.1 as f64 / 1e6)
            })
            .collect()
    };
    let parts = PARTS
        .into_iter()
        .filter_map(|(name, metric)| PerRun::defined(metric, part(before, name), part(after, name)))
        .collect();
    (Samples { metrics: samples, parts }, warning)
}

/// What [`samples`] finds to compare: each value on each run of each side
/// (None: the run has no startup of the compared type, or the startup no
/// such value).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Samples {
    /// TTID, TTFD, duration.
    pub metrics: Vec<PerRun<StartupMetric>>,
    /// The breakdown's parts (ms), by metric name: exploratory, for finding what grew.
    pub parts: Vec<PerRun<&'static str>>,
}

#[cfg(test)]
#[path = "startups_tests.rs"]
mod tests;
