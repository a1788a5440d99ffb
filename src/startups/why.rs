//! Why a startup took its time (docs/startups.md, "Why it was slow"): the
//! app's main thread milestones with its scheduler states over each, and the
//! critical path from the main thread's first slice to TTID's end, walked as
//! a frame's is (`FrameAnalysis::path_totals`), its largest (thread, slice)
//! parts first.

use std::collections::HashMap;

use serde::Serialize;

use super::Startup;
use crate::frames::critical_path::PathTotal;
use crate::frames::{FrameAnalysis, ThreadStateSplit};
use crate::model::{Trace, TrackId, TrackKind, Upid};

/// The main-thread slices a startup goes through, in the order an
/// activity's launch runs them (the first of each inside the startup).
pub const MILESTONES: [&str; 4] = ["bindApplication", "activityStart", "activityResume", "Choreographer#doFrame"];

/// The part of a startup before its app's main thread began (`before_app_ns`),
/// as the outputs and `compare`'s breakdown name it.
pub const BEFORE_APP: &str = "before the app";

/// How many of the critical path's parts a startup names as its causes.
pub const CAUSES: usize = 3;

/// Why one startup took its time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StartupWhy {
    /// The app's main thread (its process' pid).
    pub main_tid: i32,
    /// From the startup's start to its app's main thread's first slice in
    /// it (for a cold start: the system's part, system_server and zygote's
    /// fork), ns.
    pub before_app_ns: i64,
    /// The end of what is explained: TTID's end, else the startup's, ns
    /// from its start.
    pub until_ns: i64,
    /// The main thread's milestones ([`MILESTONES`]) that began inside
    /// the startup, in time order.
    pub milestones: Vec<Milestone>,
    /// The main thread's scheduler states from its first slice to the end;
    /// None without scheduler data for it.
    pub main_thread: Option<ThreadStateSplit>,
    /// The (thread, slice) pairs that held most of the critical path from
    /// the main thread's first slice to the end ([`CAUSES`] of them, most
    /// first); empty without scheduler data.
    pub causes: Vec<PathTotal>,
    /// Tencent Matrix's StartupTracer costs, mapped to the nearest trace
    /// events; None without the milestones they start at.
    pub matrix: Option<MatrixCosts>,
}

/// Matrix's StartupTracer vocabulary for one startup (docs/startups.md,
/// "Matrix's vocabulary"): its clock starts when the app's code first runs
/// (`eggBrokenTime`, here `bindApplication`'s start) or, warm, when the
/// activity is launched (here `activityStart`'s, else `activityResume`'s,
/// start), and stops when the first activity takes window focus, right after
/// its first frame (here TTID's end).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatrixCosts {
    /// `applicationCost`: `bindApplication`'s duration (cold only).
    pub application_cost_ns: Option<i64>,
    /// `coldCost` (= `firstScreenCost` without splash activities): from
    /// `bindApplication`'s start to TTID's end (cold only).
    pub cold_cost_ns: Option<i64>,
    /// `warmCost`: from the activity's launch to TTID's end (warm and hot).
    pub warm_cost_ns: Option<i64>,
    /// Matrix's default threshold for this kind of start: 10 000 ms cold,
    /// 4 000 ms warm.
    pub threshold_ms: i64,
    /// The cost is over the threshold (Matrix would report it).
    pub over_threshold: bool,
}

/// Matrix's default thresholds (`TraceConfig`'s cold and warm startup
/// thresholds), ms.
pub const MATRIX_COLD_THRESHOLD_MS: i64 = 10_000;
pub const MATRIX_WARM_THRESHOLD_MS: i64 = 4_000;

/// Matrix's costs from a startup's milestones and the end explained.
pub(super) fn matrix_costs(cold: bool, milestones: &[Milestone], until_ns: i64) -> Option<MatrixCosts> {
    let at = |name: &str| milestones.iter().find(|m| m.name == name);
    if cold {
        let bind = at("bindApplication")?;
        let cost = until_ns - bind.at_ns;
        return Some(MatrixCosts {
            application_cost_ns: Some(bind.dur_ns),
            cold_cost_ns: Some(cost),
            warm_cost_ns: None,
            threshold_ms: MATRIX_COLD_THRESHOLD_MS,
            over_threshold: cost > MATRIX_COLD_THRESHOLD_MS * 1_000_000,
        });
    }
    let launch = at("activityStart").or_else(|| at("activityResume"))?;
    let cost = until_ns - launch.at_ns;
    Some(MatrixCosts {
        application_cost_ns: None,
        cold_cost_ns: None,
        warm_cost_ns: Some(cost),
        threshold_ms: MATRIX_WARM_THRESHOLD_MS,
        over_threshold: cost > MATRIX_WARM_THRESHOLD_MS * 1_000_000,
    })
}

/// The first slice of a milestone's name on the main thread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Milestone {
    pub name: &'static str,
    /// Its start, ns from the startup's.
    pub at_ns: i64,
    pub dur_ns: i64,
    /// The main thread's states over it.
    pub thread_state: Option<ThreadStateSplit>,
}

/// Each startup's why, for those whose process (TTID's) has a main thread
/// with slices inside the startup.
pub fn explain(trace: &Trace, frames: &FrameAnalysis, startups: &mut [Startup]) {
    if startups.is_empty() {
        return;
    }
    let mains = main_tracks(trace);
    for s in startups.iter_mut() {
        s.why = s.upid.and_then(|u| mains.get(&u)).and_then(|&track| why(trace, frames, s, track));
    }
}

/// Startup `s`'s why; `track` is its process' main thread's.
fn why(trace: &Trace, frames: &FrameAnalysis, s: &Startup, track: TrackId) -> Option<StartupWhy> {
    let pid = trace.process(s.upid?).pid;
    let end = s.ts + s.ttid.map_or(s.dur, |d| d.dur);
    // The main thread's slices begun inside the startup (the track's are by start).
    let ids = trace.track_slices(track);
    let begun_before = |t: i64| ids.partition_point(|&id| trace.slice(id).ts < t);
    let inside = &ids[begun_before(s.ts)..begun_before(end)];
    let first = trace.slice(*inside.first()?).ts;
    let split = |from: i64, to: i64| frames.sched.split(pid, from, to);
    let mut milestones: Vec<Milestone> = MILESTONES
        .iter()
        .filter_map(|&name| {
            let slice = inside.iter().map(|&id| trace.slice(id)).find(|sl| sl.name.starts_with(name))?;
            // A slice still open at the trace's end runs to the end explained.
            let dur = if slice.dur < 0 { end - slice.ts } else { slice.dur };
            Some(Milestone { name, at_ns: slice.ts - s.ts, dur_ns: dur, thread_state: split(slice.ts, slice.ts + dur) })
        })
        .collect();
    milestones.sort_by_key(|m| m.at_ns);
    let mut causes = frames.path_totals(trace, pid, first, end);
    causes.truncate(CAUSES);
    let cold = s.startup_type == Some(super::StartupType::Cold);
    let matrix = matrix_costs(cold, &milestones, end - s.ts);
    Some(StartupWhy {
        matrix,
        main_tid: pid,
        before_app_ns: first - s.ts,
        until_ns: end - s.ts,
        milestones,
        main_thread: split(first, end),
        causes,
    })
}

/// Each process' main thread's track with the most slices, in one pass over
/// the tracks.
fn main_tracks(trace: &Trace) -> HashMap<Upid, TrackId> {
    let mut best: HashMap<Upid, (usize, TrackId)> = HashMap::new();
    for t in &trace.tracks {
        let TrackKind::Thread { utid } = t.kind else { continue };
        let Some(upid) = trace.main_thread_of(utid) else { continue };
        let slices = trace.track_slices(t.id).len();
        // Ties: the later track.
        let entry = best.entry(upid).or_insert((slices, t.id));
        if slices >= entry.0 {
            *entry = (slices, t.id);
        }
    }
    best.into_iter().map(|(u, (_, t))| (u, t)).collect()
}
