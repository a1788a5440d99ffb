//! Untraced blocks (docs/blocks.md, "Untraced blocks"): an app that opens
//! no slice for a Looper message still keeps its main thread busy through
//! it. Such a stretch is the thread's busy time (running, runnable or in D:
//! anything but asleep, which is where Looper waits for its next message)
//! with no top-level slice of the thread open, listed from frame-scale on.

use super::{explain, Block, BlockKind, Thresholds};
use crate::frames::FrameAnalysis;
use crate::frames::State;
use crate::model::{Name, TrackId};

/// The untraced blocks of every main thread with scheduler data
/// (`mains`: pid, process name, thread tracks), by thread then time.
pub(super) fn blocks(
    trace: &crate::model::Trace,
    frames: &FrameAnalysis,
    thresholds: &Thresholds,
    mains: &[(i32, Option<&Name>, Vec<TrackId>)],
) -> Vec<Block> {
    let Some(trace_end) = trace.meta.last_ts else { return Vec::new() };
    let mut out = Vec::new();
    for (pid, process, tracks) in mains {
        if !frames.sched.knows(*pid) {
            continue;
        }
        let mut traced: Vec<(i64, i64)> = tracks
            .iter()
            .flat_map(|&t| trace.track_slices(t))
            .map(|&id| trace.slice(id))
            .filter(|s| s.depth == 0)
            .map(|s| (s.ts, s.end().unwrap_or(trace_end)))
            .collect();
        traced.sort_unstable();
        let app = super::app_rows(&frames.rows, *pid);
        let long_enough = |ts: i64, dur: i64| {
            dur >= thresholds.frame_scale_intervals.saturating_mul(explain::clock_at(app, ts).interval_ns)
        };
        // Only the gaps between the thread's slices are read: no frame
        // starts inside one (a doFrame is a slice), so its clock is one, and
        // a gap too short to hold a block is skipped unread.
        for (from, to) in gaps(&traced, trace_end) {
            if from != i64::MIN && !long_enough(from, to - from) {
                continue;
            }
            for (ts, end) in busy_stretches(frames.sched.states(*pid, from, to)) {
                if !long_enough(ts, end - ts) {
                    continue;
                }
                out.push(Block {
                    ts,
                    dur: end - ts,
                    pid: *pid,
                    tid: *pid,
                    process: process.cloned(),
                    kind: BlockKind::Untraced,
                    ..Block::unmeasured()
                });
            }
        }
    }
    out
}

/// The maximal stretches of a thread's states (in time order) in which it
/// was not asleep, as they come.
pub(super) fn busy_stretches(states: impl Iterator<Item = (i64, i64, State)>) -> impl Iterator<Item = (i64, i64)> {
    let mut states = states.filter(|s| s.2 != State::Sleeping).peekable();
    std::iter::from_fn(move || {
        let (a, mut b, _) = states.next()?;
        while let Some(&(next, end, _)) = states.peek() {
            if next != b {
                break;
            }
            b = end;
            states.next();
        }
        Some((a, b))
    })
}

/// The stretches of time before `end` that no span of `traced` (sorted by
/// start; spans of several tracks may overlap) covers, from `i64::MIN`.
pub(super) fn gaps(traced: &[(i64, i64)], end: i64) -> impl Iterator<Item = (i64, i64)> + '_ {
    let mut from = i64::MIN;
    let mut spans = traced.iter().copied().chain(std::iter::once((end, end)));
    std::iter::from_fn(move || loop {
        let (s, e) = spans.next()?;
        let gap = (from, s.min(end));
        from = from.max(e);
        if gap.1 > gap.0 {
            return Some(gap);
        }
    })
}
