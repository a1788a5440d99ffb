//! What a block did to the app and why it took its time (docs/blocks.md,
//! "What a block held up" and "Why it was long"): the vsyncs it covered and
//! the frames it held back, the critical path through other threads (the
//! walk frames use), and the nested slices with the most self time.

use serde::Serialize;

use crate::frames::critical_path::{self, PathIndex, PathTotal};
use crate::frames::FrameRow;
use crate::model::{Name, Slice, SliceId, Trace};

/// How many of the critical path's parts, and of the slow methods, a block names.
pub const CAUSES: usize = 3;

/// An app's frame clock at a block: its refresh interval and a vsync of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Clock {
    pub interval_ns: i64,
    /// A vsync timestamp of the app near the block, when its frames give one.
    pub anchor: Option<i64>,
}

/// The frame clock of `pid`'s app at `ts`: that of its last doFrame starting
/// by `ts`, else of its first; 60 Hz without doFrames. `app` are the app's
/// rows, ordered by ts.
pub(super) fn clock_at(app: &[FrameRow], ts: i64) -> Clock {
    let by = app.partition_point(|r| r.ts <= ts);
    match app.get(by.saturating_sub(1)) {
        Some(r) => Clock { interval_ns: r.frame_interval_ns, anchor: r.vsync_ts },
        None => Clock { interval_ns: super::FALLBACK_FRAME_INTERVAL_NS, anchor: None },
    }
}

/// The app's vsyncs inside `[ts, end)`: the ticks of its clock there, or
/// with no vsync to place them, the whole intervals the block spans.
pub(super) fn vsyncs(clock: Clock, ts: i64, end: i64) -> i64 {
    let i = clock.interval_ns.max(1);
    match clock.anchor {
        // The number of k with anchor + k·i in [ts, end).
        Some(a) => {
            let ceil = |x: i64| -(-x).div_euclid(i);
            (ceil(end - a) - ceil(ts - a)).max(0)
        }
        None => (end - ts).max(0) / i,
    }
}

/// What a block held up: the app's frames due during it that began only
/// after it, and the vsyncs Choreographer skipped before them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct HeldUp {
    pub frames_delayed: i64,
    /// Σ of those frames' `skipped_frames`.
    pub frames_dropped: i64,
}

/// At most this many frames after a block are looked at: Choreographer runs
/// one doFrame for every vsync it missed, so one or two are held up.
const FRAMES_LOOKED_AT: usize = 8;

/// The app's frames (`app`, by ts) whose vsync fell in `[ts, end)` and that
/// began at or after `end`.
pub(super) fn held_up(app: &[FrameRow], ts: i64, end: i64) -> HeldUp {
    let after = app.partition_point(|r| r.ts < end);
    let mut out = HeldUp::default();
    for r in app[after..].iter().take(FRAMES_LOOKED_AT) {
        match r.vsync_ts {
            Some(v) if v >= end => break,
            Some(v) if v >= ts => {
                out.frames_delayed += 1;
                out.frames_dropped += r.skipped_frames;
            }
            _ => {}
        }
    }
    out
}

/// Why a block took its time; made for the blocks that reach frame-scale.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct BlockWhy {
    /// The critical path over the block in one line, from the main thread
    /// to what it waited on (docs/frames.md, "Critical path"); None without
    /// scheduler data for the thread.
    pub chain: Option<String>,
    /// The (thread, slice) parts that held most of that path, most first
    /// ([`CAUSES`] of them).
    pub causes: Vec<PathTotal>,
    /// The slices inside the block (itself included) with the most self
    /// time, by name, most first ([`CAUSES`] of them): Matrix's evil methods.
    pub methods: Vec<SlowMethod>,
}

/// Slices of one name inside a block and their self time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SlowMethod {
    pub name: Name,
    /// Their time minus that of the slices directly inside them, ns.
    pub self_ns: i64,
    /// How many slices of the name.
    pub count: i64,
}

/// The critical path of the main thread `tid` over `[ts, end)`: its chain
/// and largest parts.
pub(super) fn path_why(paths: &PathIndex, trace: &Trace, tid: i32, ts: i64, end: i64) -> (String, Vec<PathTotal>) {
    let path = paths.path(tid, ts, end);
    let mut causes = critical_path::totals(&path, trace);
    causes.truncate(CAUSES);
    (paths.chain(&path), causes)
}

/// The slow methods of the block that is slice `block`, in time linear in
/// the slices inside it (`Trace::descendants`).
pub(super) fn methods(trace: &Trace, block: SliceId) -> Vec<SlowMethod> {
    let top = trace.slice(block);
    if top.end().is_none() {
        return Vec::new();
    }
    let inside: Vec<&Slice> = std::iter::once(top).chain(trace.descendants(block)).collect();
    // Each slice's own time: its duration less its children's.
    let mut own: foldhash::HashMap<SliceId, i64> = inside.iter().map(|s| (s.id, s.dur.max(0))).collect();
    for s in &inside {
        if let Some(parent) = s.parent.and_then(|p| own.get_mut(&p)) {
            *parent -= s.dur.max(0);
        }
    }
    let mut by_name: foldhash::HashMap<&Name, (i64, i64)> = Default::default();
    for s in &inside {
        let e = by_name.entry(&s.name).or_default();
        e.0 += own[&s.id].max(0);
        e.1 += 1;
    }
    let mut out: Vec<SlowMethod> =
        by_name.into_iter().map(|(name, (self_ns, count))| SlowMethod { name: name.clone(), self_ns, count }).collect();
    // Most self time first; ties by name, so the order is deterministic.
    out.sort_by(|a, b| b.self_ns.cmp(&a.self_ns).then_with(|| a.name.cmp(&b.name)));
    out.truncate(CAUSES);
    out
}
