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
        let busy = busy_stretches(frames.sched.states(*pid, i64::MIN, trace_end));
        for (ts, end) in outside(&busy, &traced) {
            let clock = explain::clock_at(app, ts);
            if end - ts < thresholds.frame_scale_intervals.saturating_mul(clock.interval_ns) {
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
    out
}

/// The maximal stretches of a thread's states (in time order) in which it
/// was not asleep.
pub(super) fn busy_stretches(states: impl Iterator<Item = (i64, i64, State)>) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::new();
    for (a, b, st) in states {
        if st == State::Sleeping {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.1 == a => last.1 = b,
            _ => out.push((a, b)),
        }
    }
    out
}

/// The parts of `busy` that no span of `traced` covers; both sorted by
/// start, `busy`'s disjoint. Linear in the two (after `traced` is merged).
pub(super) fn outside(busy: &[(i64, i64)], traced: &[(i64, i64)]) -> Vec<(i64, i64)> {
    // Spans of several tracks may overlap: their union, disjoint and by start.
    let mut union: Vec<(i64, i64)> = Vec::with_capacity(traced.len());
    for &(s, e) in traced {
        match union.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => union.push((s, e)),
        }
    }
    let mut out = Vec::new();
    let mut k = 0;
    for &(a, b) in busy {
        // Spans ended by this stretch's start cover none of it, nor of the later ones.
        while k < union.len() && union[k].1 <= a {
            k += 1;
        }
        let mut at = a;
        for &(s, e) in union[k..].iter().take_while(|&&(s, _)| s < b) {
            if s > at {
                out.push((at, s));
            }
            at = at.max(e);
        }
        if at < b {
            out.push((at, b));
        }
    }
    out
}
