//! Apps the trace names only by their layers (docs/presents.md, "Apps named
//! by their layers"). A capture without process names (no `process_tree`,
//! Perfetto's FrameTimeline-only config) still carries each app's package
//! in its layer names (`TX - PKG/ACTIVITY#N`): that package names the app
//! in every output and is what `--app` matches, unless the process has a
//! name of its own. A systrace knows an app's process only by the kernel's
//! comm, the package's last 15 characters (`splayingbitmaps`): where its
//! layers name the package the comm was cut from, that package names it.

use std::collections::BTreeMap;

use foldhash::HashMap;
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
    /// The package its layers name; the trace has no name for the process,
    /// or only the kernel's comm cut from that package (its last 15
    /// characters).
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

/// The packages the layers of unnamed processes name (or of processes
/// named by a comm cut from that package): pid → package.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LayerNames(BTreeMap<i32, String>);

impl LayerNames {
    /// For each pid that no process of `trace` names, the package its
    /// layers (FrameTimeline and SurfaceFlinger's, not producing threads)
    /// name, starting windows left out (the system draws an app's splash
    /// screen: on the Pixel 7 Pro capture the process presenting `Splash
    /// Screen PKG` also presents `StatusBar`); when they name several, the
    /// one with the most presents (ties: the first in name order). A pid
    /// whose process is named by the comm cut from one of its layers'
    /// packages takes that package the same way.
    pub(crate) fn of(trace: &Trace, streams: &[Stream]) -> LayerNames {
        let mut named: HashMap<i32, &str> = HashMap::default();
        for p in &trace.processes {
            if let Some(n) = p.name.as_deref() {
                named.entry(p.pid).or_insert(n);
            }
        }
        let mut presents: HashMap<(i32, &str), usize> = HashMap::default();
        for s in streams {
            let Some(pid) = s.pid else { continue };
            if s.source == PresentSource::Producer {
                continue;
            }
            let Some(pkg) = layer_package(&s.layer).and_then(|p| p.drawn_by()) else { continue };
            if named.get(&pid).is_none_or(|&name| is_cut_comm(name, pkg)) {
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

    /// The package naming `pid`, when only its layers name it in full.
    pub fn get(&self, pid: i32) -> Option<&str> {
        self.0.get(&pid).map(String::as_str)
    }

    /// The name of app `pid` whose process the trace calls `process`: that
    /// name, else (or when it is the comm cut from it) the package its
    /// layers name.
    pub fn resolve<'a>(&'a self, process: Option<&'a str>, pid: i32) -> Option<(&'a str, NameSource)> {
        match (process, self.get(pid)) {
            (Some(p), Some(pkg)) if !is_cut_comm(p, pkg) => Some((p, NameSource::Process)),
            (_, Some(pkg)) => Some((pkg, NameSource::Layer)),
            (p, None) => p.map(|p| (p, NameSource::Process)),
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

/// `name` is the kernel's comm of a process named `pkg`: its last 15
/// characters, shorter than the package.
fn is_cut_comm(name: &str, pkg: &str) -> bool {
    name.len() < pkg.len() && name == crate::model::package_comm(pkg)
}
