//! Which blockers grew between builds (docs/compare.md, "Blockers"): per run,
//! the app's critical-path time per blocker kind, a (thread, slice) whose
//! run-specific numbers are generalised ([`kind_of`]) so that runs of one
//! build agree; then the kinds worth comparing and their per-run values.
//! The test, interval and verdict are `comparison`'s, as for any metric.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::runs::Run;
use crate::frames::FrameRow;

/// At most this many kinds are compared: those with the most time over both sides.
pub(crate) const MAX_KINDS: usize = 8;
/// A kind is compared only when one side's runs spend at least this on it,
/// on average (ms per frame): less is noise in a table of what grew.
pub(crate) const MIN_MS_PER_FRAME: f64 = 0.1;

/// A blocker kind: a (thread, slice) with its run-specific numbers generalised
/// ([`kind_of`]). None: the thread has no name in the trace, or the time was
/// spent outside any slice.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub(crate) struct BlockerKind {
    pub thread: Option<String>,
    pub slice: Option<String>,
}

impl BlockerKind {
    /// `binder:* / binder reply`, `RenderThread / DrawFrames`, `com.example.app / (no slice)`.
    pub(crate) fn label(&self) -> String {
        format!("{} / {}", self.thread.as_deref().unwrap_or("?"), self.slice.as_deref().unwrap_or("(no slice)"))
    }
}

/// The kind of time spent on `thread` in `slice`: the one rule that makes
/// runs of one build agree (docs/compare.md, "Blockers").
///
/// - Thread: each run of digits, with the `_digits` groups right after it,
///   becomes `*`: `binder:11377_2` → `binder:*`, `Thread-12` → `Thread-*`,
///   `pool-3-thread-1` → `pool-*-thread-*`, `hwuiTask1` → `hwuiTask*`
///   (thread pools number their threads, binder threads carry the pid).
/// - Slice: the numbers that end the name, each a whitespace-separated
///   token of digits (with `.`, `,`, `+`, `-`), are dropped: `DrawFrames
///   191623` → `DrawFrames`, `Choreographer#doFrame 12` →
///   `Choreographer#doFrame`, `Drawing 0.00 0.00 720.00 1280.00` → `Drawing`
///   (vsync ids and sizes); numbers inside the name stay. A name that is
///   only numbers becomes `*`.
pub(crate) fn kind_of(thread: Option<&str>, slice: Option<&str>) -> BlockerKind {
    let thread = thread.map(|t| {
        let mut out = String::with_capacity(t.len());
        let mut chars = t.chars().peekable();
        while let Some(c) = chars.next() {
            if !c.is_ascii_digit() {
                out.push(c);
                continue;
            }
            // The rest of the digits, then each `_digits` group.
            loop {
                while chars.next_if(char::is_ascii_digit).is_some() {}
                let mut ahead = chars.clone();
                if ahead.next() == Some('_') && ahead.peek().is_some_and(char::is_ascii_digit) {
                    chars.next();
                } else {
                    break;
                }
            }
            out.push('*');
        }
        out
    });
    let slice = slice.map(|s| {
        let is_number = |w: &str| {
            w.chars().any(|c| c.is_ascii_digit()) && w.chars().all(|c| c.is_ascii_digit() || ".,+-".contains(c))
        };
        let mut rest = s.trim_end();
        while !rest.is_empty() {
            let (head, last) = rest.rsplit_once(char::is_whitespace).unwrap_or(("", rest));
            if !is_number(last) {
                break;
            }
            rest = head.trim_end();
        }
        if rest.is_empty() {
            "*".to_string()
        } else {
            rest.to_string()
        }
    });
    BlockerKind { thread, slice }
}

/// One run's critical-path time per kind (ns), summed over `rows`, the
/// app's doFrames: every (thread, slice) of each frame's path
/// (`FrameRow::path_totals`), not only its top blocker.
pub(crate) fn run_totals<'a>(rows: impl IntoIterator<Item = &'a FrameRow>) -> BTreeMap<BlockerKind, i64> {
    let mut out: BTreeMap<BlockerKind, i64> = BTreeMap::new();
    for r in rows {
        for t in &r.path_totals {
            *out.entry(kind_of(t.thread.as_deref(), t.slice.as_deref())).or_default() += t.ns;
        }
    }
    out
}

/// One kind to compare and its value on each run of each side.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sample {
    pub kind: BlockerKind,
    /// ms per frame, run by run; 0 in a run without the kind.
    pub before: Vec<f64>,
    pub after: Vec<f64>,
}

/// A run's time in `kind` per frame of the app, ms: the convention of the
/// other per-run rates (per frame, so runs of different length compare).
fn ms_per_frame(run: &Run, totals: &BTreeMap<BlockerKind, i64>, kind: &BlockerKind) -> f64 {
    totals.get(kind).copied().unwrap_or(0) as f64 / run.frames.len().max(1) as f64 / 1e6
}

/// The kinds worth comparing, most time first: at most [`MAX_KINDS`], ranked
/// by the sum of the two sides' mean per-run values, each with one side's
/// mean at least [`MIN_MS_PER_FRAME`]. None when a run has no critical paths
/// (an app judged by its layer's presents).
pub(crate) fn samples(before: &[Run], after: &[Run]) -> Vec<Sample> {
    fn totals(runs: &[Run]) -> Option<Vec<&BTreeMap<BlockerKind, i64>>> {
        runs.iter().map(|r| r.blockers.as_ref()).collect()
    }
    let (Some(tb), Some(ta)) = (totals(before), totals(after)) else { return Vec::new() };
    let kinds: BTreeSet<&BlockerKind> = tb.iter().chain(&ta).flat_map(|t| t.keys()).collect();
    let values = |runs: &[Run], totals: &[&BTreeMap<BlockerKind, i64>], kind: &BlockerKind| -> Vec<f64> {
        runs.iter().zip(totals).map(|(r, t)| ms_per_frame(r, t, kind)).collect()
    };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let mut ranked: Vec<(f64, Sample)> = kinds
        .into_iter()
        .filter_map(|kind| {
            let (b, a) = (values(before, &tb, kind), values(after, &ta, kind));
            let (mb, ma) = (mean(&b), mean(&a));
            (mb.max(ma) >= MIN_MS_PER_FRAME).then(|| (mb + ma, Sample { kind: kind.clone(), before: b, after: a }))
        })
        .collect();
    // Most time first; ties in kind order (the set's), so the output is deterministic.
    ranked.sort_by(|x, y| y.0.total_cmp(&x.0));
    ranked.into_iter().take(MAX_KINDS).map(|(_, s)| s).collect()
}

#[cfg(test)]
#[path = "blockers_tests.rs"]
mod tests;
