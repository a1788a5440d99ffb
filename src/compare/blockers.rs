//! Which blockers grew between builds (docs/compare.md, "Blockers"): per run,
//! the app's critical-path time per blocker kind, a (thread, slice) whose
//! run-specific numbers are generalised (`blocker_kinds::kind_of`) so that runs of one
//! build agree; then the kinds worth comparing and their per-run values.
//! The test, interval and verdict are `comparison`'s, as for any metric.

use std::collections::{BTreeMap, BTreeSet};

use super::blocker_kinds::BlockerKind;
use super::runs::Run;

/// At most this many kinds are compared: those with the most time over both sides.
pub(crate) const MAX_KINDS: usize = 8;
/// A kind is compared only when one side's runs spend at least this on it,
/// on average (ms per frame): less is noise in a table of what grew.
pub(crate) const MIN_MS_PER_FRAME: f64 = 0.1;

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
