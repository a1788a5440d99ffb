//! Apps the trace names only by their layers (docs/presents.md, "Apps named
//! by their layers"). A capture without process names (no `process_tree`,
//! Perfetto's FrameTimeline-only config) still carries each app's package
//! in its layer names (`TX - PKG/ACTIVITY#N`): that package names the app
//! in every output and is what `--app` matches, unless the process has a
//! name of its own.

use std::collections::BTreeMap;

use foldhash::{HashMap, HashSet};
use serde::Serialize;

use super::sources::{layer_package, Stream};
use super::PresentSource;
use crate::model::Trace;

/// Where an app's name was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NameSource {
    /// The trace's name for the process.
    Process,
    /// The package its layers name; the trace has no name for the process.
    Layer,
}

impl NameSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Process => "process",
            Self::Layer => "layer",
        }
    }

    /// What an output says beside a name that is not the process's own.
    pub fn note(self) -> Option<&'static str> {
        match self {
            Self::Process => None,
            Self::Layer => Some("named by its layer"),
        }
    }
}

/// The packages the layers of unnamed processes name: pid → package.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LayerNames(BTreeMap<i32, String>);

impl LayerNames {
    /// For each pid that no process of `trace` names, the package its
    /// layers (FrameTimeline and SurfaceFlinger's, not producing threads)
    /// name, starting windows left out (the system draws an app's splash
    /// screen: on the Pixel 7 Pro capture the process presenting `Splash
    /// Screen PKG` also presents `StatusBar`); when they name several, the
    /// one with the most presents (ties: the first in name order).
    pub(crate) fn of(trace: &Trace, streams: &[Stream]) -> LayerNames {
        let named: HashSet<i32> = trace.processes.iter().filter(|p| p.name.is_some()).map(|p| p.pid).collect();
        let mut presents: HashMap<(i32, &str), usize> = HashMap::default();
        for s in streams {
            let Some(pid) = s.pid.filter(|pid| !named.contains(pid)) else { continue };
            if s.source == PresentSource::Producer {
                continue;
            }
            if let Some(pkg) = layer_package(&s.layer).and_then(|p| p.drawn_by()) {
                *presents.entry((pid, pkg)).or_default() += s.presents.len();
            }
        }
        let mut best: BTreeMap<i32, (usize, &str)> = BTreeMap::new();
        for ((pid, pkg), n) in presents {
            let slot = best.entry(pid).or_insert((n, pkg));
            if (n, std::cmp::Reverse(pkg)) > (slot.0, std::cmp::Reverse(slot.1)) {
                *slot = (n, pkg);
            }
        }
        LayerNames(best.into_iter().map(|(pid, (_, pkg))| (pid, pkg.to_string())).collect())
    }

    /// The package naming `pid`, when only its layers name it.
    pub fn get(&self, pid: i32) -> Option<&str> {
        self.0.get(&pid).map(String::as_str)
    }

    /// The name of app `pid` whose process the trace calls `process`: that
    /// name, else the package its layers name.
    pub fn resolve<'a>(&'a self, process: Option<&'a str>, pid: i32) -> Option<(&'a str, NameSource)> {
        match process {
            Some(p) => Some((p, NameSource::Process)),
            None => self.get(pid).map(|pkg| (pkg, NameSource::Layer)),
        }
    }

    /// [`Self::resolve`]'s name alone.
    pub fn name<'a>(&'a self, process: Option<&'a str>, pid: i32) -> Option<&'a str> {
        self.resolve(process, pid).map(|(n, _)| n)
    }

    /// (pid, package), by pid.
    pub fn iter(&self) -> impl Iterator<Item = (i32, &str)> {
        self.0.iter().map(|(&pid, pkg)| (pid, pkg.as_str()))
    }
}
