//! Holes in the capture (docs/limits.md, "Capture holes"): spans where no
//! CPU recorded any ftrace event for far longer than usual. A running
//! system switches tasks every few milliseconds, so with the scheduler
//! traced a silence of every CPU for half a second is data the capture
//! lost (a reader that stalled, a buffer dropped whole), not a system at
//! rest; no kernel note reports it.
//!
//! The silences come from the reader's busy bins (`read::busy`: the ~1 ms
//! bins holding kernel events, each with its first and last event), merged
//! over the batches: between two consecutive busy bins the trace is silent
//! from the first one's last event to the second one's first, exactly. The
//! trace's typical silence is the median, over its ~1 s windows, of each
//! window's longest silence; a hole is a silence longer than [`K`] times
//! that and at least [`FLOOR_NS`].

use crate::model::CaptureHole;
use crate::read::busy;
use crate::read::records::{Batch, BusyBin};

/// A hole is longer than this many typical silences…
pub(crate) const K: i64 = 20;
/// …and than this (100 ms: six frames at 60 Hz).
pub(crate) const FLOOR_NS: i64 = 100_000_000;
/// Windows of 2^10 bins (1.07 s) for the typical silence.
const WINDOW_SHIFT: u32 = 10;

/// The holes of a trace whose batches are `batches`; none without
/// scheduler events (`has_sched`: without them, silence means nothing).
pub(crate) fn holes(batches: &[Batch], has_sched: bool) -> Vec<CaptureHole> {
    if !has_sched {
        return Vec::new();
    }
    let bins: Vec<BusyBin> = batches.iter().flat_map(|b| b.busy.iter().copied()).collect();
    find(&busy::merge(bins))
}

/// The holes between `bins` (sorted, each once).
fn find(bins: &[BusyBin]) -> Vec<CaptureHole> {
    let silences = bins.windows(2).map(|w| (w[0].last, w[1].first, w[0].bin >> WINDOW_SHIFT));
    // Each window's longest silence (silences come in window order).
    let mut longest: Vec<i64> = Vec::new();
    let mut window = None;
    for (from, to, w) in silences.clone() {
        if window != Some(w) {
            window = Some(w);
            longest.push(0);
        }
        if let Some(l) = longest.last_mut() {
            *l = (*l).max(to - from);
        }
    }
    if longest.is_empty() {
        return Vec::new();
    }
    let k = (longest.len() - 1) / 2;
    let typical = *longest.select_nth_unstable(k).1;
    let threshold = typical.saturating_mul(K).max(FLOOR_NS);
    silences
        .filter(|&(from, to, _)| to - from > threshold)
        .map(|(from, to, _)| CaptureHole { from, to, threshold })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    /// One event every `step` ns over `[from, to)`, as busy bins.
    fn events(from: i64, to: i64, step: i64) -> Vec<BusyBin> {
        let mut b = busy::BusyBins::default();
        (from..to).step_by(step as usize).for_each(|t| b.see(t));
        b.finish()
    }

    #[test]
    fn a_silence_ten_times_the_typical_one_and_over_100_ms_is_a_hole() {
        // Events every 4 ms over 0..3 s, none between 1.2 s and 1.7 s
        // (the last at 1.196 s, the next at 1.7 s).
        let mut bins = events(0, 1_200 * MS, 4 * MS);
        bins.extend(events(1_700 * MS, 3_000 * MS, 4 * MS));
        let bins = busy::merge(bins);
        // Typical silence 4 ms: the threshold is max(80 ms, 100 ms).
        assert_eq!(find(&bins), [CaptureHole { from: 1_196 * MS, to: 1_700 * MS, threshold: FLOOR_NS }]);
        // Every 20 ms: the typical silence is 20 ms, the threshold 400 ms;
        // a 380 ms silence (1.18 s to 1.56 s) is not a hole, a 420 ms one is.
        let mut sparse = events(0, 1_200 * MS, 20 * MS);
        sparse.extend(events(1_560 * MS, 3_000 * MS, 20 * MS));
        assert_eq!(find(&busy::merge(sparse)), []);
        let mut sparse = events(0, 1_200 * MS, 20 * MS);
        sparse.extend(events(1_600 * MS, 3_000 * MS, 20 * MS));
        assert_eq!(find(&busy::merge(sparse)), [CaptureHole { from: 1_180 * MS, to: 1_600 * MS, threshold: 400 * MS }]);
        // One window: its longest silence is the typical one, never a hole.
        assert_eq!(find(&busy::merge([events(0, 100 * MS, 4 * MS), events(600 * MS, 700 * MS, 4 * MS)].concat())), []);
        assert_eq!(find(&[]), []);
    }
}
