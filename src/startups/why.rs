//! Why a startup took its time (docs/startups.md, "Why it was slow"): the
//! app's main thread milestones with its scheduler states over each, and the
//! critical path from the main thread's first slice to TTID's end, walked as
//! a frame's is (`FrameAnalysis::path_totals`), its largest (thread, slice)
//! parts first.

use serde::Serialize;

use super::Startup;
use crate::frames::critical_path::PathTotal;
use crate::frames::{FrameAnalysis, ThreadStateSplit};
use crate::model::{SliceId, Trace, TrackId, TrackKind};

/// The main-thread slices a startup goes through, in the order an
/// activity's launch runs them (the first of each inside the startup).
pub const MILESTONES: [&str; 4] = ["bindApplication", "activityStart", "activityResume", "Choreographer#doFrame"];

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
    for s in startups.iter_mut() {
        s.why = why(trace, frames, s);
    }
}

fn why(trace: &Trace, frames: &FrameAnalysis, s: &Startup) -> Option<StartupWhy> {
    let pid = trace.process(s.upid?).pid;
    let track = main_track(trace, s.upid?)?;
    let end = s.ts + s.ttid.map_or(s.dur, |d| d.dur);
    let ids = trace.track_slices(track);
    let inside = |id: &SliceId| (s.ts..end).contains(&trace.slice(*id).ts);
    let first = ids.iter().find(|&id| inside(id)).map(|&id| trace.slice(id).ts)?;
    let split = |from: i64, to: i64| frames.sched.split(pid, from, to);
    let milestones = MILESTONES
        .iter()
        .filter_map(|&name| {
            let id = ids.iter().copied().filter(|id| inside(id)).find(|&id| trace.slice(id).name.starts_with(name))?;
            let slice = trace.slice(id);
            // A slice still open at the trace's end runs to the end explained.
            let dur = if slice.dur < 0 { end - slice.ts } else { slice.dur };
            Some(Milestone { name, at_ns: slice.ts - s.ts, dur_ns: dur, thread_state: split(slice.ts, slice.ts + dur) })
        })
        .collect::<Vec<_>>();
    let mut milestones = milestones;
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

/// The main thread's track of process `upid` with the most slices.
fn main_track(trace: &Trace, upid: crate::model::Upid) -> Option<TrackId> {
    let pid = trace.process(upid).pid;
    trace
        .tracks
        .iter()
        .filter_map(|t| match t.kind {
            TrackKind::Thread { utid } => {
                let th = trace.thread(utid);
                (th.tid == pid && th.upid == Some(upid)).then_some(t.id)
            }
            _ => None,
        })
        .max_by_key(|&t| trace.track_slices(t).len())
}
