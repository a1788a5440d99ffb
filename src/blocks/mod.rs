//! Main-thread blocks: every stretch of a process' main thread spent in one
//! message or method, the trace-side BlockCanary and Matrix (docs/blocks.md).
//!
//! A block is a top-level slice of a main thread (tid = pid), as
//! trace_processor's `thread_slice` lists them (`is_main_thread`, depth 0).
//! Each gets its name standardized ([`names`]), a level by how long it held
//! the thread ([`Thresholds`]) and, where the frames stage has the thread's
//! scheduler states, its time by state.

pub mod names;
#[cfg(test)]
mod tests;

use crate::frames::{FrameAnalysis, FrameRow};
use crate::model::{Name, SliceId, Trace, TrackKind};

/// The refresh a block is measured against when its app drew no doFrame:
/// 60 Hz, the rate every Android display supports.
pub const FALLBACK_FRAME_INTERVAL_NS: i64 = 16_666_667;
/// A block is frame-scale from this many frame intervals of its app on.
pub const FRAME_SCALE_INTERVALS: i64 = 3;
/// Matrix's EvilMethodTracer threshold.
pub const EVIL_METHOD_NS: i64 = 700_000_000;
/// BlockCanary's default block threshold.
pub const BLOCK_CANARY_NS: i64 = 1_000_000_000;
/// Matrix's LAG threshold.
pub const LAG_NS: i64 = 2_000_000_000;
/// Android's input-dispatch ANR timeout: a main thread blocked this long
/// risks an ANR.
pub const ANR_RISK_NS: i64 = 5_000_000_000;

/// Where the levels begin (docs/blocks.md, "Levels").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    pub frame_scale_intervals: i64,
    pub evil_method_ns: i64,
    pub block_canary_ns: i64,
    pub lag_ns: i64,
    pub anr_risk_ns: i64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            frame_scale_intervals: FRAME_SCALE_INTERVALS,
            evil_method_ns: EVIL_METHOD_NS,
            block_canary_ns: BLOCK_CANARY_NS,
            lag_ns: LAG_NS,
            anr_risk_ns: ANR_RISK_NS,
        }
    }
}

impl Thresholds {
    /// The highest level `dur` reaches, for an app drawing every
    /// `frame_interval_ns`.
    pub fn level(&self, dur: i64, frame_interval_ns: i64) -> BlockLevel {
        [
            (self.anr_risk_ns, BlockLevel::AnrRisk),
            (self.lag_ns, BlockLevel::Lag),
            (self.block_canary_ns, BlockLevel::BlockCanary),
            (self.evil_method_ns, BlockLevel::EvilMethod),
            (self.frame_scale_intervals.saturating_mul(frame_interval_ns), BlockLevel::FrameScale),
        ]
        .into_iter()
        .find(|&(from, _)| dur >= from)
        .map_or(BlockLevel::Short, |(_, level)| level)
    }
}

/// How long a block held its thread, by the thresholds of the tools that
/// report such blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockLevel {
    /// Shorter than frame-scale.
    Short,
    /// At least `frame_scale_intervals` frame intervals.
    FrameScale,
    /// At least Matrix's evil-method threshold.
    EvilMethod,
    /// At least BlockCanary's threshold.
    BlockCanary,
    /// At least Matrix's LAG threshold.
    Lag,
    /// At least the ANR timeout.
    AnrRisk,
}

impl BlockLevel {
    pub const ALL: [BlockLevel; 6] = [
        BlockLevel::Short,
        BlockLevel::FrameScale,
        BlockLevel::EvilMethod,
        BlockLevel::BlockCanary,
        BlockLevel::Lag,
        BlockLevel::AnrRisk,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BlockLevel::Short => "short",
            BlockLevel::FrameScale => "frame_scale",
            BlockLevel::EvilMethod => "evil_method",
            BlockLevel::BlockCanary => "block_canary",
            BlockLevel::Lag => "lag",
            BlockLevel::AnrRisk => "anr_risk",
        }
    }
}

/// What a block is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    /// A top-level slice of the main thread.
    Slice,
}

impl BlockKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BlockKind::Slice => "slice",
        }
    }
}

/// One block of a main thread.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub ts: i64,
    /// -1 when its slice had not ended by the trace's end (as trace_processor).
    pub dur: i64,
    pub pid: i32,
    pub tid: i32,
    pub process: Option<Name>,
    pub kind: BlockKind,
    /// The slice, for `kind = slice`.
    pub slice: Option<SliceId>,
    /// The slice's name.
    pub name: Name,
    /// `name` as trace_processor's `android_standardize_slice_name` gives it.
    pub standard_name: Name,
    /// The app's frame interval the level was measured against.
    pub frame_interval_ns: i64,
    /// None while `dur` is unknown.
    pub level: Option<BlockLevel>,
    /// The thread's time by scheduler state over the block; None without
    /// the thread's scheduler data.
    pub cpu_ns: Option<i64>,
    pub runnable_ns: Option<i64>,
    pub sleeping_ns: Option<i64>,
    /// Uninterruptible sleep (D state: I/O, locks in the kernel).
    pub io_ns: Option<i64>,
}

/// Every main thread's blocks.
#[derive(Debug, Clone, Default)]
pub struct BlockAnalysis {
    /// By (ts, slice id).
    pub blocks: Vec<Block>,
}

/// A main thread's process, for the slices of its thread tracks.
struct MainThread {
    pid: i32,
    process: Option<Name>,
}

/// The blocks of every main thread of `trace`, in one pass over its slices;
/// `frames` gives each app's frame interval and the scheduler states.
pub fn analyze(trace: &Trace, frames: &FrameAnalysis, thresholds: &Thresholds) -> BlockAnalysis {
    let mains: Vec<Option<MainThread>> = trace
        .tracks
        .iter()
        .map(|t| {
            let TrackKind::Thread { utid } = t.kind else { return None };
            let thread = trace.threads.get(utid.index())?;
            let process = trace.processes.get(thread.upid?.index())?;
            (process.pid == thread.tid).then(|| MainThread { pid: process.pid, process: process.name.clone() })
        })
        .collect();
    // Each distinct name is standardized once.
    let mut standard = foldhash::HashMap::<Name, Name>::default();
    let blocks = trace
        .slices
        .iter()
        .filter(|s| s.depth == 0)
        .filter_map(|s| {
            let main = mains.get(s.track.index())?.as_ref()?;
            let frame_interval_ns = frame_interval_at(&frames.rows, main.pid, s.ts);
            let split = s.end().and_then(|end| frames.sched.split(main.pid, s.ts, end));
            let standard_name = standard
                .entry(s.name.clone())
                .or_insert_with(|| match names::standardize(&s.name) {
                    std::borrow::Cow::Borrowed(same) if *same == *s.name => s.name.clone(),
                    other => Name::from(other.as_ref()),
                })
                .clone();
            Some(Block {
                ts: s.ts,
                dur: s.dur,
                pid: main.pid,
                tid: main.pid,
                process: main.process.clone(),
                kind: BlockKind::Slice,
                slice: Some(s.id),
                name: s.name.clone(),
                standard_name,
                frame_interval_ns,
                level: (s.dur >= 0).then(|| thresholds.level(s.dur, frame_interval_ns)),
                cpu_ns: split.as_ref().map(|x| x.running_ns),
                runnable_ns: split.as_ref().map(|x| x.runnable_ns),
                sleeping_ns: split.as_ref().map(|x| x.sleeping_ns),
                io_ns: split.as_ref().map(|x| x.blocked_ns),
            })
        })
        .collect();
    BlockAnalysis { blocks }
}

/// The frame interval of `pid`'s app at `ts`: that of its last doFrame
/// starting by `ts`, else of its first; [`FALLBACK_FRAME_INTERVAL_NS`]
/// without doFrames. `rows` are ordered by (pid, ts).
fn frame_interval_at(rows: &[FrameRow], pid: i32, ts: i64) -> i64 {
    let from = rows.partition_point(|r| r.pid < pid);
    let to = rows.partition_point(|r| r.pid <= pid);
    let app = &rows[from..to];
    let by = app.partition_point(|r| r.ts <= ts);
    app.get(by.saturating_sub(1)).map_or(FALLBACK_FRAME_INTERVAL_NS, |r| r.frame_interval_ns)
}
