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
        let mut uncovered = Uncovered::new(&traced);
        for (a, b) in busy_stretches(frames.sched.states(*pid, i64::MIN, trace_end)) {
            uncovered.pieces(a, b, |ts, end| {
                let clock = explain::clock_at(app, ts);
                if end - ts < thresholds.frame_scale_intervals.saturating_mul(clock.interval_ns) {
                    return;
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
            });
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

/// What no span of a thread's slices covers, asked stretch by stretch in
/// time order: linear in the stretches and the spans.
pub(super) struct Uncovered {
    /// The spans' union: disjoint, by start.
    union: Vec<(i64, i64)>,
    /// The first span not ended before the last stretch asked about.
    next: usize,
}

impl Uncovered {
    /// Over `traced`, sorted by start (spans of several tracks may overlap).
    pub(super) fn new(traced: &[(i64, i64)]) -> Uncovered {
        let mut union: Vec<(i64, i64)> = Vec::with_capacity(traced.len());
        for &(s, e) in traced {
            match union.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => union.push((s, e)),
            }
        }
        Uncovered { union, next: 0 }
    }

    /// Each part of `[a, b)` no span covers, to `emit`; `a` at or after the
    /// last stretch's end.
    pub(super) fn pieces(&mut self, a: i64, b: i64, mut emit: impl FnMut(i64, i64)) {
        // Spans ended by this stretch's start cover none of it, nor of the later ones.
        while self.union.get(self.next).is_some_and(|s| s.1 <= a) {
            self.next += 1;
        }
        let mut at = a;
        for &(s, e) in self.union[self.next..].iter().take_while(|&&(s, _)| s < b) {
            if s > at {
                emit(at, s);
            }
            at = at.max(e);
        }
        if at < b {
            emit(at, b);
        }
    }
}

/// Every part of the stretches `busy` that no span of `traced` covers.
#[cfg(test)]
pub(super) fn outside(busy: &[(i64, i64)], traced: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut uncovered = Uncovered::new(traced);
    let mut out = Vec::new();
    for &(a, b) in busy {
        uncovered.pieces(a, b, |x, y| out.push((x, y)));
    }
    out
}
