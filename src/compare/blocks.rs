//! Main-thread blocks between builds (docs/compare.md, "Main-thread
//! blocks"): each run's blocks of frame-scale and longer on the compared
//! app's main thread, per minute and as time per minute, and its longest
//! block, from the one summary every output shows
//! (`blocks::summary::BlockSummary`). The test, interval and verdict are
//! `comparison`'s, as for any metric of the app.

use super::runs::{per_run, PerRun, Run, RunMetric};
use crate::blocks::summary::BlockSummary;

/// What `compare` reads of a run's blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockMetric {
    /// Blocks of frame-scale and longer per minute.
    PerMin,
    /// Their time per minute, ms.
    BlockedPerMin,
    /// The longest block, ms.
    Longest,
}

impl BlockMetric {
    pub(crate) const ALL: [BlockMetric; 3] = [BlockMetric::PerMin, BlockMetric::BlockedPerMin, BlockMetric::Longest];

    /// Its value on one run's summary.
    fn value(self, s: &BlockSummary) -> Option<f64> {
        match self {
            BlockMetric::PerMin => s.blocks_per_min,
            BlockMetric::BlockedPerMin => s.blocked_ms_per_min,
            BlockMetric::Longest => s.longest_ns.map(|ns| ns as f64 / 1e6),
        }
    }
}

impl RunMetric for BlockMetric {
    fn name(self) -> &'static str {
        match self {
            BlockMetric::PerMin => "blocks_per_min",
            BlockMetric::BlockedPerMin => "blocked_ms_per_min",
            BlockMetric::Longest => "longest_block_ms",
        }
    }

    fn unit(self) -> &'static str {
        match self {
            BlockMetric::PerMin => "per min",
            BlockMetric::BlockedPerMin => "ms per min",
            BlockMetric::Longest => "ms",
        }
    }

    /// None: the run's app has no main-thread block, or the value is undefined.
    fn of(self, run: &Run) -> Option<f64> {
        self.value(run.blocks.as_ref()?)
    }
}

/// The block metrics defined on at least one run of each side, each on each run.
pub(crate) fn samples(before: &[Run], after: &[Run]) -> Vec<PerRun<BlockMetric>> {
    per_run(&BlockMetric::ALL, before, after)
}

#[cfg(test)]
#[path = "blocks_tests.rs"]
mod tests;
