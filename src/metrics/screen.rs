//! What an app put on the screen: the one definition every output reads
//! (docs/metrics.md, "What reached the screen"). Which of its doFrames
//! drew ([`drew`]), what its busiest layer presented, its main thread's CPU
//! time over its doFrames, and from them the order apps are listed in and
//! whether an app gets an FPS verdict at all ([`Verdict`]).

use serde::Serialize;

use crate::frames::{FrameRow, SchedIndex};
use crate::presents::PresentAnalysis;

/// An FPS verdict needs at least this many frames in the app's headline
/// series (docs/metrics.md, "Verdict": why 30).
pub const MIN_VERDICT_FRAMES: i64 = 30;

/// Whether a doFrame drew something for the screen: it ran a `traversal`
/// (measure, layout, draw of its views), its RenderThread drew it (a
/// `DrawFrame` matched to it) or SurfaceFlinger presented a buffer of it (a
/// FrameTimeline actual surface frame of its vsync id). A doFrame with only
/// `input` or `animation` callbacks changed nothing on the screen.
pub fn drew(r: &FrameRow) -> bool {
    r.traversal_dur.is_some() || r.draw_frame_count > 0 || r.actual_ts.is_some()
}

/// What `Screen::cpu_time_ns` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CpuTimeSource {
    /// The time the scheduler had the doFrame's thread running inside its
    /// doFrames.
    Running,
    /// The doFrames' wall time: the trace has no scheduler data for (some
    /// of) the app's frame threads.
    DoFrame,
}

impl CpuTimeSource {
    /// Its JSON spelling; what the terminal and report.html say after the time.
    pub fn as_str(self) -> &'static str {
        match self {
            CpuTimeSource::Running => "running",
            CpuTimeSource::DoFrame => "do_frame",
        }
    }

    /// In words, after the time.
    pub fn label(self) -> &'static str {
        match self {
            CpuTimeSource::Running => "running, from the scheduler",
            CpuTimeSource::DoFrame => "doFrame wall time: no scheduler data",
        }
    }
}

/// What reached the screen from one app (`apps[].screen`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Screen {
    /// Its doFrames that drew ([`drew`]).
    pub drawn_frames: i64,
    /// The presents of its busiest layer (0 when no layer of it presented).
    pub layer_presents: i64,
    /// max(drawn_frames, layer_presents): apps are listed by it, most first;
    /// 0 means the app drew nothing.
    pub reached: i64,
    /// Its main thread's time over its doFrames ([`CpuTimeSource`]).
    pub cpu_time_ns: i64,
    pub cpu_time_source: CpuTimeSource,
}

impl Screen {
    /// App `pid`'s, from its doFrames `rows`, the layers of `presents` and
    /// the frame threads' scheduler states.
    pub fn of(pid: i32, rows: &[&FrameRow], presents: &PresentAnalysis, sched: &SchedIndex) -> Screen {
        let drawn_frames = rows.iter().filter(|r| drew(r)).count() as i64;
        let layer_presents = presents.layers_of(pid).iter().map(|l| l.presents).max().unwrap_or(0);
        let running = rows.iter().all(|r| sched.knows(r.tid)).then(|| {
            rows.iter()
                .map(|r| sched.split(r.tid, r.ts, r.ts + r.do_frame_dur.max(0)).map_or(0, |s| s.running_ns))
                .sum::<i64>()
        });
        let (cpu_time_ns, cpu_time_source) = match running {
            Some(ns) => (ns, CpuTimeSource::Running),
            None => (rows.iter().map(|r| r.do_frame_dur.max(0)).sum(), CpuTimeSource::DoFrame),
        };
        Screen { drawn_frames, layer_presents, reached: drawn_frames.max(layer_presents), cpu_time_ns, cpu_time_source }
    }

    /// Nothing of the app reached the screen: none of its doFrames drew and
    /// no layer of it presented a buffer. It animates (or handles input) and
    /// gets no FPS verdict.
    pub fn draws_nothing(&self) -> bool {
        self.reached == 0
    }
}

/// An app's FPS verdict (`apps[].green_alliance.verdict`; docs/metrics.md,
/// "Verdict").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Its headline fps meets the Green Alliance minimum.
    Pass,
    Fail,
    /// Its headline series has fewer than [`MIN_VERDICT_FRAMES`] frames.
    TooFewFrames,
    /// Nothing of it reached the screen ([`Screen::draws_nothing`]).
    DrawsNothing,
}

impl Verdict {
    /// The verdict of an app whose headline series has `frames` frames at
    /// `fps` against `min_fps`, given what reached the screen.
    pub fn of(screen: &Screen, frames: i64, fps: f64, min_fps: f64) -> Verdict {
        if screen.draws_nothing() {
            Verdict::DrawsNothing
        } else if frames < MIN_VERDICT_FRAMES {
            Verdict::TooFewFrames
        } else if fps >= min_fps {
            Verdict::Pass
        } else {
            Verdict::Fail
        }
    }

    /// Its JSON and table spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::TooFewFrames => "too_few_frames",
            Verdict::DrawsNothing => "draws_nothing",
        }
    }

    /// As the terminal and report.html write it.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "FAIL",
            Verdict::TooFewFrames => "too few frames",
            Verdict::DrawsNothing => "animates, draws nothing",
        }
    }

    /// Pass or fail; None without a verdict.
    pub fn passed(self) -> Option<bool> {
        match self {
            Verdict::Pass => Some(true),
            Verdict::Fail => Some(false),
            Verdict::TooFewFrames | Verdict::DrawsNothing => None,
        }
    }
}
