//! Each startup's app processes and the type they give
//! (`android_startup_processes`), and the processes TTID and TTFD look in
//! (`_startups_with_upid`).

use super::events::{Index, Indicator, RawStartup};
use super::StartupType;
use crate::model::{Process, Trace, Upid, Utid};

/// One row of `android_startup_processes`: a process of the startup's
/// package whose main thread resumed an activity during it.
#[derive(Debug, Clone)]
pub(super) struct StartupProcess {
    startup_id: i64,
    upid: Upid,
    startup_type: StartupType,
}

/// `android_process_metadata.process_name`: the cmdline where the name is
/// the kernel's 15-character cut of it, else the name.
fn process_name(p: &Process) -> Option<&str> {
    let name = p.name.as_deref()?;
    let cmdline = p.cmdline.as_deref();
    let cut = name.chars().count() == 15
        && cmdline.is_some_and(|c| matches!(c, "zygote" | "zygote64" | "<pre-initialized>") || c.ends_with(name));
    if cut {
        cmdline
    } else {
        Some(name)
    }
}

/// The processes of each startup's package (their name begins with it: the
/// module's rule for traces without the package list, which fpsan does not
/// read) whose main thread began an `activityResume` in `[ts, ts_end)`, in
/// (startup, upid) order; the type is the event's, else what the main
/// thread did: `bindApplication`, `activityStart` and `activityResume` make
/// it cold, the last two warm, `activityResume` alone hot.
pub(super) fn startup_processes(trace: &Trace, ix: &Index, raw: &[RawStartup]) -> Vec<StartupProcess> {
    let mut main_threads: Vec<Vec<Utid>> = vec![Vec::new(); trace.processes.len()];
    for t in &trace.threads {
        if let Some(u) = trace.main_thread_of(t.utid) {
            main_threads[u.index()].push(t.utid);
        }
    }
    let mut rows = Vec::new();
    for r in raw {
        for p in &trace.processes {
            if !process_name(p).is_some_and(|n| n.starts_with(&*r.package)) {
                continue;
            }
            for &utid in &main_threads[p.upid.index()] {
                let count = |kind| ix.count(utid, kind, r.ts, r.ts_end);
                let resumed = count(Indicator::ActivityResume) > 0;
                if !resumed {
                    continue;
                }
                let started = count(Indicator::ActivityStart) > 0;
                let bound = count(Indicator::BindApplication) > 0;
                let by_slices = match (bound, started) {
                    (true, true) => StartupType::Cold,
                    (_, true) => StartupType::Warm,
                    _ => StartupType::Hot,
                };
                let startup_type = r.startup_type.unwrap_or(by_slices);
                rows.push(StartupProcess { startup_id: r.startup_id, upid: p.upid, startup_type });
            }
        }
    }
    rows
}

/// Each startup with its type (`android_startups.startup_type`): the
/// event's, else the greatest (as text) of its processes'.
pub(super) fn with_types<'r>(
    raw: &'r [RawStartup],
    procs: &[StartupProcess],
) -> Vec<(&'r RawStartup, Option<StartupType>)> {
    raw.iter()
        .map(|r| {
            let of_processes = procs
                .iter()
                .filter(|p| p.startup_id == r.startup_id)
                .map(|p| p.startup_type)
                .max_by_key(|t| t.as_str());
            (r, r.startup_type.or(of_processes))
        })
        .collect()
}

/// The processes a startup's display times look in: its startup processes,
/// else those named exactly its package (`_startups_with_upid`'s fallback).
pub(super) fn upids(trace: &Trace, procs: &[StartupProcess], r: &RawStartup) -> Vec<Upid> {
    let mine: Vec<Upid> = procs.iter().filter(|p| p.startup_id == r.startup_id).map(|p| p.upid).collect();
    if !mine.is_empty() {
        return mine;
    }
    trace.processes.iter().filter(|p| p.name.as_deref() == Some(&*r.package)).map(|p| p.upid).collect()
}
