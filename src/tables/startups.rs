//! Startups (docs/startups.md): the analysis' `startups` table (one row per
//! startup) and the PerfettoSQL modules `android.startup.startups`
//! (`android_startups`) and `android.startup.time_to_display`
//! (`android_startup_time_to_display`) with trace_processor v58.2's columns,
//! all from the one `startups` stage.

use polars::prelude::*;

use super::{android_frames, perfetto, TableBuilder};
use crate::model::Trace;
use crate::startups::{self, Startup, StartupAnalysis};

/// The modules' names in `INCLUDE PERFETTO MODULE`.
pub const MODULE_STARTUPS: &str = "android.startup.startups";
pub const MODULE_TIME_TO_DISPLAY: &str = "android.startup.time_to_display";

/// Every startup of `trace` (the modules see the whole trace, as trace_processor does).
fn of_trace(trace: &Trace) -> StartupAnalysis {
    startups::analyze(trace, || android_frames::display_frames(trace))
}

/// The columns `android_startups` and the `startups` table share.
fn startup_columns(rows: &[Startup]) -> TableBuilder<'_, Startup> {
    TableBuilder::new(rows)
        .col("startup_id", "the startup's id: N of `launchingActivity#N` (SDK 33+), else 0, 1, … by start (docs/startups.md, \"Where a startup is\")", |s| s.id)
        .col("ts", "the startup's start, ns", |s| s.ts)
        .col("ts_end", "the startup's end, ns", |s| s.ts_end)
        .col("dur", "`ts_end - ts`, ns", |s| s.dur)
        .col("package", "the package started", |s| &*s.package)
        .col("startup_type", "`cold`, `warm` or `hot`: the event's, else the fallback from bindApplication / activityStart / activityResume; NULL with no such process", |s| s.startup_type.map(|t| t.as_str()))
}

/// `startups(startup_id, ts, ts_end, dur, package, startup_type,
/// time_to_initial_display, time_to_full_display, ttid_frame_id, ttfd_frame_id,
/// cause_tid, cause_thread, cause_slice, cause_ns)`: trace_processor's columns,
/// then the startup's largest cause (its `why`).
pub fn startups(rows: &[Startup]) -> PolarsResult<DataFrame> {
    fn cause(s: &Startup) -> Option<&crate::frames::critical_path::PathTotal> {
        s.why.as_ref().and_then(|w| w.causes.first())
    }
    startup_columns(rows)
        .col("time_to_initial_display", "TTID: from the start to the end of the first frame's first DrawFrame, ns; NULL when no frame fits (docs/startups.md, \"Time to display\")", |s| s.ttid.map(|d| d.dur))
        .col("time_to_full_display", "TTFD: from the start to the end of the first frame after `reportFullyDrawn`, ns; NULL without it", |s| s.ttfd.map(|d| d.dur))
        .col("ttid_frame_id", "the `android_frames` frame id TTID ends at", |s| s.ttid.map(|d| d.frame_id))
        .col("ttfd_frame_id", "the `android_frames` frame id TTFD ends at", |s| s.ttfd.map(|d| d.frame_id))
        .col("cause_tid", "the (thread, slice) that held the most of the startup's critical path to TTID (docs/startups.md, \"Why it was slow\"): the thread's tid; NULL when the startup was not explained", |s| cause(s).map(|c| c.tid))
        .col("cause_thread", "that thread's name", |s| cause(s).and_then(|c| c.thread.as_deref()))
        .col("cause_slice", "the deepest slice it was in (NULL between slices)", |s| cause(s).and_then(|c| c.slice.as_deref()))
        .col("cause_ns", "its time on the path, ns", |s| cause(s).map(|c| c.ns))
        .build()
}

/// `android_startups(startup_id, ts, ts_end, dur, package, startup_type)`.
pub fn android_startups(trace: &Trace) -> PolarsResult<DataFrame> {
    startup_columns(&of_trace(trace).startups).build()
}

/// `android_startup_time_to_display(startup_id, time_to_initial_display,
/// time_to_full_display, ttid_frame_id, ttfd_frame_id, upid)`.
pub fn time_to_display(trace: &Trace) -> PolarsResult<DataFrame> {
    let a = of_trace(trace);
    TableBuilder::new(&a.startups)
        .col("startup_id", "the startup's id: N of `launchingActivity#N` (SDK 33+), else 0, 1, … by start (docs/startups.md, \"Where a startup is\")", |s| s.id)
        .col("time_to_initial_display", "TTID: from the start to the end of the first frame's first DrawFrame, ns; NULL when no frame fits (docs/startups.md, \"Time to display\")", |s| s.ttid.map(|d| d.dur))
        .col("time_to_full_display", "TTFD: from the start to the end of the first frame after `reportFullyDrawn`, ns; NULL without it", |s| s.ttfd.map(|d| d.dur))
        .col("ttid_frame_id", "the `android_frames` frame id TTID ends at", |s| s.ttid.map(|d| d.frame_id))
        .col("ttfd_frame_id", "the `android_frames` frame id TTFD ends at", |s| s.ttfd.map(|d| d.frame_id))
        .col("upid", "the process TTID was measured in (trace_processor's upid)", |s| s.upid.map(perfetto::upid))
        .build()
}
