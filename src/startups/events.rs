//! The startups the platform's events mark (`_android_startups_raw`), by
//! SDK: `launchingActivity#N` async slices joined to their
//! `launchingActivity#N:completed-TYPE:PKG` instants (33+,
//! `startups_minsdk33`), the spans between
//! `MetricsLogger:launchObserverNotifyIntentStarted` slices holding one
//! `launching: PKG` (29–32, `startups_minsdk29`), the `launching: PKG`
//! slices plus hot starts from `activityResume` (≤ 28, `startups_maxsdk28`).

use rustc_hash::FxHashMap;

use super::display::Frames;
use super::StartupType;
use crate::model::{Name, Slice, Trace, TrackKind, Utid};
use crate::perfetto_sql::cast_int;

const LAUNCHING_ACTIVITY: &str = "launchingActivity#";
const LAUNCHING: &str = "launching: ";
const INTENT_STARTED: &str = "MetricsLogger:launchObserverNotifyIntentStarted";
const LAUNCH_FINISHED: &str = "MetricsLogger:launchObserverNotifyActivityLaunchFinished";
const REPORT_FULLY_DRAWN: &str = "reportFullyDrawn";

/// The main-thread slices that say what the app had to do
/// (`_startup_indicator_slices`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Indicator {
    BindApplication,
    ActivityStart,
    ActivityResume,
}

impl Indicator {
    fn of(name: &str) -> Option<Indicator> {
        Some(match name {
            "bindApplication" => Indicator::BindApplication,
            "activityStart" => Indicator::ActivityStart,
            "activityResume" => Indicator::ActivityResume,
            _ => return None,
        })
    }
}

/// Every slice the startup modules read, found in one pass over the slices.
#[derive(Default)]
pub(super) struct Index<'t> {
    /// `launchingActivity#N` with `dur > 0` and no `:` (`_startup_async_events`).
    launching_activity: Vec<&'t Slice>,
    /// `launchingActivity#…:completed…:…` instants, not `completed-same-process`.
    completed: Vec<&'t Slice>,
    /// Any slice named `launchingActivity#*:*` / `MetricsLogger:*` (the
    /// version's guess when the trace does not say its SDK).
    any_launching_activity_colon: bool,
    any_metrics_logger: bool,
    intents: Vec<i64>,
    finished: Vec<i64>,
    /// `launching: PKG` on a process track of system_server or of a process
    /// without a name (`_startup_events`).
    launching: Vec<&'t Slice>,
    /// Per thread, the starts of its indicator slices (on its own tracks), each by ts.
    indicators: FxHashMap<Utid, [Vec<i64>; 3]>,
    /// `activityResume` slices of a thread, with the thread (the ≤ 28 hot starts).
    resumes: Vec<(&'t Slice, Utid)>,
    /// `reportFullyDrawn*` slices on threads, by ts.
    pub(super) fully_drawn: Vec<(&'t Slice, Utid)>,
}

impl<'t> Index<'t> {
    pub fn of(trace: &'t Trace) -> Index<'t> {
        let mut ix = Index::default();
        for s in &trace.slices {
            let name: &str = &s.name;
            let thread = || match trace.tracks.get(s.track.index()).map(|t| &t.kind) {
                Some(TrackKind::Thread { utid }) => Some(*utid),
                _ => None,
            };
            if let Some(rest) = name.strip_prefix(LAUNCHING_ACTIVITY) {
                ix.any_launching_activity_colon |= rest.contains(':');
                if s.dur > 0 && !rest.contains(':') {
                    ix.launching_activity.push(s);
                } else if s.dur == 0 && is_completed(rest) {
                    ix.completed.push(s);
                }
            } else if name.starts_with("MetricsLogger:") {
                ix.any_metrics_logger = true;
                if name == INTENT_STARTED {
                    ix.intents.push(s.ts);
                } else if name == LAUNCH_FINISHED {
                    ix.finished.push(s.ts);
                }
            } else if name.starts_with(LAUNCHING) {
                if let Some(TrackKind::ProcessAsync { upid }) = trace.tracks.get(s.track.index()).map(|t| &t.kind) {
                    let process = trace.process(*upid).name.as_deref();
                    if process.is_none_or(|p| p == "system_server") {
                        ix.launching.push(s);
                    }
                }
            } else if name.starts_with(REPORT_FULLY_DRAWN) {
                if let Some(utid) = thread() {
                    ix.fully_drawn.push((s, utid));
                }
            } else if let Some(kind) = Indicator::of(name) {
                if let Some(utid) = thread() {
                    ix.indicators.entry(utid).or_default()[kind as usize].push(s.ts);
                    if kind == Indicator::ActivityResume {
                        ix.resumes.push((s, utid));
                    }
                }
            }
        }
        // The model's slices are by ts, so every list is too.
        ix
    }

    /// Whether any startup can be found (else nothing more is read).
    pub fn has_candidates(&self) -> bool {
        !self.launching_activity.is_empty() || !self.launching.is_empty() || !self.resumes.is_empty()
    }

    /// How many `kind` slices thread `utid` began in `[from, to)`.
    pub fn count(&self, utid: Utid, kind: Indicator, from: i64, to: i64) -> usize {
        self.indicators.get(&utid).map_or(0, |lists| {
            let l = &lists[kind as usize];
            l.partition_point(|&t| t < to).saturating_sub(l.partition_point(|&t| t < from))
        })
    }
}

/// `rest` (after `launchingActivity#`) matches `*:completed*:*` and not
/// `*:completed-same-process:*`.
fn is_completed(rest: &str) -> bool {
    let qualified = rest.find(":completed").is_some_and(|i| rest[i + ":completed".len()..].contains(':'));
    qualified && !rest.contains(":completed-same-process:")
}

/// One row of `_android_startups_raw`.
#[derive(Debug, Clone)]
pub(super) struct RawStartup {
    pub startup_id: i64,
    pub ts: i64,
    pub ts_end: i64,
    pub package: Name,
    pub startup_type: Option<StartupType>,
}

/// Which of the modules' paths the trace takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    MinSdk33,
    MinSdk29,
    MaxSdk28,
}

fn path(trace: &Trace, ix: &Index) -> Path {
    match trace.meta.android.sdk_version {
        Some(v) if v >= 33 => Path::MinSdk33,
        Some(v) if v >= 29 => Path::MinSdk29,
        Some(_) => Path::MaxSdk28,
        None if ix.any_launching_activity_colon => Path::MinSdk33,
        None if ix.any_metrics_logger => Path::MinSdk29,
        None => Path::MaxSdk28,
    }
}

/// The raw startups of the trace's path, in the modules' row order.
pub(super) fn raw_startups(trace: &Trace, ix: &Index, frames: &Frames) -> Vec<RawStartup> {
    match path(trace, ix) {
        Path::MinSdk33 => minsdk33(ix),
        Path::MinSdk29 => minsdk29(trace, ix),
        Path::MaxSdk28 => maxsdk28(trace, ix, frames),
    }
}

/// `launching: PKG`'s package (`str_split(name, ': ', 1)`).
fn launched_package(s: &Slice) -> Name {
    Name::from(s.name.split(": ").nth(1).unwrap_or_default())
}

/// Android 13+: each `launchingActivity#N` joined to its completion, one
/// startup per N (`android_startups` groups by the id; the first of each).
fn minsdk33(ix: &Index) -> Vec<RawStartup> {
    // (id, package, type) → the first completion's ts (`_startup_complete_events`).
    let mut completions: Vec<(i64, Name, Option<StartupType>)> = ix
        .completed
        .iter()
        .map(|s| {
            let rest = &s.name[LAUNCHING_ACTIVITY.len()..];
            let part = |i| rest.split(':').nth(i);
            let startup_type = match part(1) {
                Some("completed-hot") => Some(StartupType::Hot),
                Some("completed-warm") => Some(StartupType::Warm),
                Some("completed-cold") => Some(StartupType::Cold),
                _ => None,
            };
            (cast_int(part(0).unwrap_or_default()), Name::from(part(2).unwrap_or_default()), startup_type)
        })
        .collect();
    // SQLite's GROUP BY order: NULL types before any text, text by bytes.
    completions
        .sort_by(|a, b| (a.0, &a.1, a.2.map(StartupType::as_str)).cmp(&(b.0, &b.1, b.2.map(StartupType::as_str))));
    let mut first_completion: FxHashMap<i64, (Name, Option<StartupType>)> = FxHashMap::default();
    for (id, package, t) in completions {
        first_completion.entry(id).or_insert((package, t));
    }
    let mut seen = rustc_hash::FxHashSet::default();
    let mut rows: Vec<RawStartup> = ix
        .launching_activity
        .iter()
        .filter_map(|s| {
            let id = cast_int(&s.name[LAUNCHING_ACTIVITY.len()..]);
            let (package, startup_type) = first_completion.get(&id)?.clone();
            seen.insert(id).then(|| RawStartup {
                startup_id: id,
                ts: s.ts,
                ts_end: s.ts + s.dur,
                package,
                startup_type,
            })
        })
        .collect();
    rows.sort_by_key(|r| r.startup_id);
    rows
}

/// Android 10–12: the spans from one `launchObserverNotifyIntentStarted` to
/// the next (or the trace's end) that hold exactly one `launching: PKG`
/// start and a `launchObserverNotifyActivityLaunchFinished`; the startup runs
/// from the span's start to that slice's end.
fn minsdk29(trace: &Trace, ix: &Index) -> Vec<RawStartup> {
    let trace_end = trace.meta.last_ts.unwrap_or(i64::MAX);
    let mut intents = ix.intents.clone();
    intents.sort_unstable();
    let mut starts: Vec<(i64, usize)> = ix.launching.iter().enumerate().map(|(k, s)| (s.ts, k)).collect();
    starts.sort_unstable();
    // Items of a sorted list in [from, to].
    fn within<T>(sorted: &[T], key: impl Fn(&T) -> i64, from: i64, to: i64) -> &[T] {
        let a = sorted.partition_point(|x| key(x) < from);
        let b = sorted.partition_point(|x| key(x) <= to);
        &sorted[a..b.max(a)]
    }
    let mut rows = Vec::new();
    for (k, &ts) in intents.iter().enumerate() {
        let end = intents.get(k + 1).copied().unwrap_or(trace_end);
        let [(_, event)] = within(&starts, |s| s.0, ts, end) else { continue };
        if within(&ix.finished, |&t| t, ts, end).is_empty() {
            continue;
        }
        let le = ix.launching[*event];
        let le_end = le.ts + le.dur;
        if (ts..=end).contains(&le_end) {
            rows.push((ts, le_end, launched_package(le)));
        }
    }
    rows.into_iter()
        .enumerate()
        .map(|(id, (ts, ts_end, package))| RawStartup {
            startup_id: id as i64,
            ts,
            ts_end,
            package,
            startup_type: None,
        })
        .collect()
}

/// Android ≤ 9: each `launching: PKG` (warm or cold), plus each main-thread
/// `activityResume` outside them as a hot start ending with the first frame
/// after it (of any app: the module's `android_first_frame_after`).
fn maxsdk28(trace: &Trace, ix: &Index, frames: &Frames) -> Vec<RawStartup> {
    let mut rows: Vec<RawStartup> = ix
        .launching
        .iter()
        .map(|s| RawStartup {
            startup_id: 0,
            ts: s.ts,
            ts_end: s.ts + s.dur,
            package: launched_package(s),
            startup_type: None,
        })
        .collect();
    // The warm and cold startups by start, each with the latest end of those
    // begun by it: a resume at t is inside one iff that end reaches t.
    let mut warm_and_cold: Vec<(i64, i64)> = rows.iter().map(|r| (r.ts, r.ts_end)).collect();
    warm_and_cold.sort_unstable();
    let mut latest_end = i64::MIN;
    for w in &mut warm_and_cold {
        latest_end = latest_end.max(w.1);
        w.1 = latest_end;
    }
    for &(s, utid) in &ix.resumes {
        let thread = trace.thread(utid);
        let process = thread.upid.map(|u| trace.process(u));
        if process.is_none_or(|p| p.pid != thread.tid) {
            continue;
        }
        let begun = warm_and_cold.partition_point(|w| w.0 <= s.ts);
        if begun > 0 && warm_and_cold[begun - 1].1 >= s.ts {
            continue;
        }
        let Some(frame) = frames.first_after(s.ts) else { continue };
        let package = process.and_then(|p| p.name.clone()).or_else(|| thread.name.clone());
        rows.push(RawStartup {
            startup_id: 0,
            ts: s.ts,
            ts_end: frame.ts + frame.dur,
            package: package.unwrap_or_else(|| Name::from("unknown")),
            startup_type: Some(StartupType::Hot),
        });
    }
    rows.sort_by_key(|r| r.ts);
    for (id, r) in rows.iter_mut().enumerate() {
        r.startup_id = id as i64;
    }
    rows
}
