//! App startups as trace_processor v58.2's standard library defines them:
//! `android_startups` (module `android.startup.startups`, by the SDK's
//! events: `startups_minsdk33`, `startups_minsdk29`, `startups_maxsdk28`),
//! its type fallback (`android_startup_processes`) and
//! `android_startup_time_to_display` (module `android.startup.time_to_display`)
//! (docs/startups.md).
//!
//! [`events`] reads the startups the system_server's events mark (one pass
//! over the slices, indexing what every later step needs); [`processes`]
//! finds each startup's app processes and the type their main thread's
//! `bindApplication` / `activityStart` / `activityResume` give; [`display`]
//! finds the frames that end TTID and TTFD.

mod display;
mod events;
mod processes;
#[cfg(test)]
mod tests;
mod why;

pub use why::{
    explain, MatrixCosts, Milestone, StartupWhy, BEFORE_APP, CAUSES, MATRIX_COLD_THRESHOLD_MS,
    MATRIX_WARM_THRESHOLD_MS, MILESTONES,
};

use crate::model::{Name, SliceId, Trace, Upid, Utid};

/// How warm the app was (`startup_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StartupType {
    Cold,
    Warm,
    Hot,
}

impl StartupType {
    pub fn as_str(self) -> &'static str {
        match self {
            StartupType::Cold => "cold",
            StartupType::Warm => "warm",
            StartupType::Hot => "hot",
        }
    }
}

/// A frame as trace_processor's `android_frames` has it (module
/// `android.frames.timeline`): what TTID and TTFD read, and the input
/// events' frames (`crate::input`). The caller hands
/// them in `android_frames`' row order (by frame id, then upid, NULL first),
/// the order in which trace_processor's joins meet them.
#[derive(Debug, Clone)]
pub struct DisplayFrame {
    pub frame_id: i64,
    pub ts: i64,
    pub dur: i64,
    pub upid: Option<Upid>,
    pub ui_thread: Utid,
    /// The frame's first `DrawFrame` slice (`draw_frame_id`).
    pub draw_frame: SliceId,
    /// Its first `Choreographer#doFrame` slice (`do_frame_id`).
    pub do_frame: SliceId,
}

/// When a startup's app showed a frame: from the startup's start to the end
/// of that frame's `DrawFrame`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Display {
    pub dur: i64,
    /// The frame's `android_frames.frame_id`.
    pub frame_id: i64,
}

/// One startup (one row of `android_startups` and its
/// `android_startup_time_to_display`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Startup {
    /// `startup_id`: the `launchingActivity#N`'s N on Android 13+, else the
    /// startup's 0-based rank by start.
    #[serde(rename = "startup_id")]
    pub id: i64,
    pub ts: i64,
    pub ts_end: i64,
    /// `ts_end - ts`.
    pub dur: i64,
    pub package: Name,
    pub startup_type: Option<StartupType>,
    /// The process whose frame ended TTID (`android_startup_time_to_display.upid`).
    #[serde(skip)]
    pub upid: Option<Upid>,
    /// Time to initial display.
    pub ttid: Option<Display>,
    /// Time to full display.
    pub ttfd: Option<Display>,
    /// Why it took its time ([`explain`]); None until explained, or when
    /// its process has no main-thread slice inside it.
    pub why: Option<StartupWhy>,
}

/// Every startup of a trace, by `startup_id`.
#[derive(Debug, Clone, Default)]
pub struct StartupAnalysis {
    pub startups: Vec<Startup>,
}

/// The startups of `trace`. `frames` gives `android_frames`' rows; it is
/// called only when the trace has a startup candidate, so a trace without
/// one costs one pass over the slices' names.
pub fn analyze(trace: &Trace, frames: impl FnOnce() -> Vec<DisplayFrame>) -> StartupAnalysis {
    let index = events::Index::of(trace);
    if !index.has_candidates() {
        return StartupAnalysis::default();
    }
    let frames = display::Frames::new(frames());
    let raw = events::raw_startups(trace, &index, &frames);
    let procs = processes::startup_processes(trace, &index, &raw);
    let startups = processes::with_types(&raw, &procs)
        .into_iter()
        .map(|(r, startup_type)| {
            let upids = processes::upids(trace, &procs, r);
            let (upid, ttid) = frames.ttid(trace, r.ts, &upids).unzip();
            let ttfd = frames.ttfd(trace, &index.fully_drawn, r.ts, &upids);
            Startup {
                id: r.startup_id,
                ts: r.ts,
                ts_end: r.ts_end,
                dur: r.ts_end - r.ts,
                package: r.package.clone(),
                startup_type,
                upid,
                ttid,
                ttfd,
                why: None,
            }
        })
        .collect();
    StartupAnalysis { startups }
}
