//! Main-thread blocks: every stretch of a process' main thread spent in one
//! message or method, the trace-side BlockCanary and Matrix (docs/blocks.md).
//!
//! A block is a top-level slice of a main thread (tid = pid), as
//! trace_processor's `thread_slice` lists them (`is_main_thread`, depth 0),
//! or a stretch of the thread's busy time with no slice open ([`untraced`]).
//! Each gets its name standardized ([`names`]), a level by how long it held
//! the thread ([`Thresholds`]), what it held up ([`explain`]) and, where the
//! frames stage has the thread's scheduler states, its time by state; those
//! of frame-scale and longer, why ([`BlockWhy`]).

pub mod explain;
pub mod names;
pub mod summary;
#[cfg(test)]
mod tests;
mod untraced;

use rayon::prelude::*;

use crate::frames::{FrameAnalysis, FrameRow};
use crate::model::{Name, SliceId, Trace, TrackId, TrackKind};
pub use explain::{BlockWhy, SlowMethod};

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

impl std::str::FromStr for Thresholds {
    type Err = String;

    /// `frame_scale=N,evil_method=MS,block_canary=MS,lag=MS,anr_risk=MS`, any
    /// of them (the others keep their defaults): frame-scale in frame
    /// intervals, the others in ms, each a whole number, the four times in
    /// increasing order (`analyze --block-levels`).
    fn from_str(text: &str) -> Result<Thresholds, String> {
        let mut t = Thresholds::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) = part.split_once('=').ok_or_else(|| format!("`{part}` is not LEVEL=VALUE"))?;
            let value: i64 = value
                .trim()
                .parse()
                .ok()
                .filter(|&v| v > 0)
                .ok_or_else(|| format!("`{part}`: the value must be a whole number above 0"))?;
            let ms = value.saturating_mul(1_000_000);
            match name.trim() {
                "frame_scale" => t.frame_scale_intervals = value,
                "evil_method" => t.evil_method_ns = ms,
                "block_canary" => t.block_canary_ns = ms,
                "lag" => t.lag_ns = ms,
                "anr_risk" => t.anr_risk_ns = ms,
                other => {
                    return Err(format!(
                        "unknown level `{other}`: the levels are frame_scale (frame intervals), evil_method, block_canary, lag and anr_risk (ms)"
                    ))
                }
            }
        }
        let times = [t.evil_method_ns, t.block_canary_ns, t.lag_ns, t.anr_risk_ns];
        if times.windows(2).any(|w| w[0] > w[1]) {
            return Err("evil_method ≤ block_canary ≤ lag ≤ anr_risk must hold".to_string());
        }
        Ok(t)
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
    /// Busy time of the main thread (running, runnable or in D) with no
    /// slice open: a Looper message of an app that traces none.
    Untraced,
}

impl BlockKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BlockKind::Slice => "slice",
            BlockKind::Untraced => "untraced",
        }
    }
}

/// The name of an untraced block, which has no slice to name it.
pub const UNTRACED_NAME: &str = "(no slice)";

/// One block of a main thread.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Block {
    pub ts: i64,
    /// -1 when its slice had not ended by the trace's end (as trace_processor).
    pub dur: i64,
    pub pid: i32,
    pub tid: i32,
    pub process: Option<Name>,
    pub kind: BlockKind,
    /// The slice, for `kind = slice` (JSON `slice_id`, the table's).
    #[serde(rename = "slice_id", serialize_with = "slice_id")]
    pub slice: Option<SliceId>,
    /// The slice's name ([`UNTRACED_NAME`] for an untraced block).
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
    /// The app's vsyncs inside the block; None while `dur` is unknown.
    pub vsyncs: Option<i64>,
    /// The app's frames due during the block (their vsync inside it) that
    /// began after it; None while `dur` is unknown.
    pub frames_delayed: Option<i64>,
    /// The vsyncs Choreographer skipped before those frames (Σ of their
    /// `skipped_frames`); None while `dur` is unknown.
    pub frames_dropped: Option<i64>,
    /// Why it took its time; for the blocks of frame-scale and longer an
    /// output shows ([`BlockAnalysis::explain`]).
    pub why: Option<BlockWhy>,
}

/// A block's slice as the `slice_id` the table has.
fn slice_id<S: serde::Serializer>(slice: &Option<SliceId>, s: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&slice.map(|id| id.0), s)
}

impl Block {
    /// Whether it reaches frame-scale: a block the outputs list and count.
    pub fn counts(&self) -> bool {
        self.level.is_some_and(|l| l >= BlockLevel::FrameScale)
    }

    /// The (thread, slice) that held most of its critical path.
    pub fn cause(&self) -> Option<&crate::frames::critical_path::PathTotal> {
        self.why.as_ref().and_then(|w| w.causes.first())
    }

    /// The slices of one name with the most self time inside it.
    pub fn top_method(&self) -> Option<&SlowMethod> {
        self.why.as_ref().and_then(|w| w.methods.first())
    }
}

/// Every main thread's blocks.
#[derive(Debug, Clone, Default)]
pub struct BlockAnalysis {
    /// By (ts, slice id), untraced blocks after a slice's at the same ts.
    pub blocks: Vec<Block>,
    /// The time they were looked for in, ns: the trace's span, or the
    /// driven scenario's window ([`BlockAnalysis::restrict`]).
    pub span_ns: i64,
}

impl BlockAnalysis {
    /// Keep the blocks that start inside `window`, over its length.
    pub fn restrict(&mut self, window: crate::frames::ScenarioWindow, trace: &Trace) {
        self.blocks.retain(|b| window.contains(b.ts));
        let (first, last) = (trace.meta.first_ts.unwrap_or(0), trace.meta.last_ts.unwrap_or(0));
        self.span_ns = (window.end_ns.min(last) - window.start_ns.max(first)).max(0);
    }

    /// Each process' blocks in a few numbers.
    pub fn summaries(&self) -> Vec<summary::BlockSummary> {
        summary::summarize(&self.blocks, self.span_ns)
    }

    /// The summaries the outputs list: the processes with a block of
    /// frame-scale or longer (`compare` reads every process', for its zeros).
    pub fn listed(&self) -> Vec<summary::BlockSummary> {
        self.summaries().into_iter().filter(|s| s.blocks > 0).collect()
    }
}

/// A main thread's process, for the slices of its thread tracks.
struct MainThread {
    pid: i32,
    process: Option<Name>,
}

/// The blocks of every main thread of `trace`, in one pass over its slices;
/// `frames` gives each app's frame clock, the scheduler states and the
/// critical paths.
pub fn analyze(trace: &Trace, frames: &FrameAnalysis, thresholds: &Thresholds) -> BlockAnalysis {
    let mains: Vec<Option<MainThread>> = trace
        .tracks
        .iter()
        .map(|t| {
            let TrackKind::Thread { utid } = t.kind else { return None };
            let process = trace.process(trace.main_thread_of(utid)?);
            Some(MainThread { pid: process.pid, process: process.name.clone() })
        })
        .collect();
    // Each distinct name is standardized once.
    let mut standard = foldhash::HashMap::<Name, Name>::default();
    let mut blocks: Vec<Block> = trace
        .slices
        .iter()
        .filter(|s| s.depth == 0)
        .filter_map(|s| {
            let main = mains.get(s.track.index())?.as_ref()?;
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
                ..Block::unmeasured()
            })
        })
        .collect();
    blocks.extend(untraced::blocks(trace, frames, thresholds, &mains_by_pid(&mains, trace)));
    // Each block's split and what it held up read only the frames stage's
    // indexes: side by side (the presents stage beside this one may be done first).
    blocks.par_iter_mut().for_each(|b| measure(frames, thresholds, b));
    blocks.sort_unstable_by_key(|b| (b.ts, b.slice.is_none(), b.slice.map(|s| s.0), b.pid));
    BlockAnalysis { blocks, span_ns: trace.span_ns() }
}

impl BlockAnalysis {
    /// Give the blocks of frame-scale and longer that have none their why
    /// ([`BlockWhy`]): all of them, or only the `longest` n of them (the
    /// ones the printed table shows: a path walk each, like a janky
    /// frame's, is not made for blocks no output shows).
    pub fn explain(&mut self, trace: &Trace, frames: &FrameAnalysis, longest: Option<usize>) {
        let mut chosen: Vec<usize> = (0..self.blocks.len()).filter(|&i| self.blocks[i].counts()).collect();
        if let Some(n) = longest {
            let blocks = &self.blocks;
            chosen.sort_by(|&a, &b| summary::longest_first(&blocks[a], &blocks[b]));
            chosen.truncate(n);
        }
        chosen.retain(|&i| self.blocks[i].why.is_none());
        let paths = frames.path_index(trace);
        let blocks = &self.blocks;
        let whys: Vec<(usize, BlockWhy)> = chosen
            .into_par_iter()
            .map(|i| {
                let b = &blocks[i];
                let (chain, causes) = match &paths {
                    Some(p) if frames.sched.knows(b.tid) => {
                        let (chain, causes) = explain::path_why(p, trace, b.tid, b.ts, b.ts + b.dur);
                        (Some(chain), causes)
                    }
                    _ => (None, Vec::new()),
                };
                let methods = b.slice.map_or_else(Vec::new, |id| explain::methods(trace, id));
                (i, BlockWhy { chain, causes, methods })
            })
            .collect();
        for (i, why) in whys {
            self.blocks[i].why = Some(why);
        }
    }
}

/// Each main thread's process (by pid) and its thread tracks, by pid.
fn mains_by_pid<'a>(mains: &'a [Option<MainThread>], trace: &Trace) -> Vec<(i32, Option<&'a Name>, Vec<TrackId>)> {
    let mut by_pid: std::collections::BTreeMap<i32, (Option<&Name>, Vec<TrackId>)> = Default::default();
    for (t, main) in trace.tracks.iter().zip(mains) {
        let Some(main) = main else { continue };
        by_pid.entry(main.pid).or_insert_with(|| (main.process.as_ref(), Vec::new())).1.push(t.id);
    }
    by_pid.into_iter().map(|(pid, (process, tracks))| (pid, process, tracks)).collect()
}

impl Block {
    /// A block before [`measure`] fills in what its thread and app say.
    fn unmeasured() -> Block {
        Block {
            ts: 0,
            dur: -1,
            pid: 0,
            tid: 0,
            process: None,
            kind: BlockKind::Slice,
            slice: None,
            name: Name::from(UNTRACED_NAME),
            standard_name: Name::from(UNTRACED_NAME),
            frame_interval_ns: FALLBACK_FRAME_INTERVAL_NS,
            level: None,
            cpu_ns: None,
            runnable_ns: None,
            sleeping_ns: None,
            io_ns: None,
            vsyncs: None,
            frames_delayed: None,
            frames_dropped: None,
            why: None,
        }
    }
}

/// Give `b` its level, scheduler split and what it held up.
fn measure(frames: &FrameAnalysis, thresholds: &Thresholds, b: &mut Block) {
    let app = app_rows(&frames.rows, b.pid);
    let clock = explain::clock_at(app, b.ts);
    b.frame_interval_ns = clock.interval_ns;
    if b.dur < 0 {
        return;
    }
    let end = b.ts + b.dur;
    b.level = Some(thresholds.level(b.dur, clock.interval_ns));
    if let Some(split) = frames.sched.split(b.tid, b.ts, end) {
        b.cpu_ns = Some(split.running_ns);
        b.runnable_ns = Some(split.runnable_ns);
        b.sleeping_ns = Some(split.sleeping_ns);
        b.io_ns = Some(split.blocked_ns);
    }
    let held = explain::held_up(app, b.ts, end);
    b.vsyncs = Some(explain::vsyncs(clock, b.ts, end));
    b.frames_delayed = Some(held.frames_delayed);
    b.frames_dropped = Some(held.frames_dropped);
}

/// `pid`'s rows of `rows` (ordered by (pid, ts)).
fn app_rows(rows: &[FrameRow], pid: i32) -> &[FrameRow] {
    let from = rows.partition_point(|r| r.pid < pid);
    let to = rows.partition_point(|r| r.pid <= pid);
    &rows[from..to]
}
