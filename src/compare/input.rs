//! Input latency between builds (docs/compare.md, "Input"): each run's
//! end-to-end p90, handling p90 and delayed-frame share of the compared
//! app, from the one summary every output shows
//! (`input::summary::InputSummary`). The test, interval and verdict are
//! `comparison`'s, as for any metric of the app.

use super::runs::{per_run, PerRun, Run, RunMetric};
use crate::input::InputSummary;

/// What `compare` reads of a run's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InputMetric {
    /// Read to present, p90, ms.
    EndToEndP90,
    /// Receipt to FINISHED, p90, ms.
    HandlingP90,
    /// The gestures' delayed frames, % of the presents judged.
    DelayedPct,
}

impl InputMetric {
    pub(crate) const ALL: [InputMetric; 3] =
        [InputMetric::EndToEndP90, InputMetric::HandlingP90, InputMetric::DelayedPct];

    /// Its value on one run's summary.
    fn value(self, s: &InputSummary) -> Option<f64> {
        let ms = |ns: Option<i64>| ns.map(|ns| ns as f64 / 1e6);
        match self {
            InputMetric::EndToEndP90 => ms(s.end_to_end_ns.p90),
            InputMetric::HandlingP90 => ms(s.handling_ns.p90),
            InputMetric::DelayedPct => s.delayed_pct,
        }
    }
}

impl RunMetric for InputMetric {
    fn name(self) -> &'static str {
        match self {
            InputMetric::EndToEndP90 => "input_e2e_p90_ms",
            InputMetric::HandlingP90 => "input_handling_p90_ms",
            InputMetric::DelayedPct => "input_delayed_pct",
        }
    }

    fn unit(self) -> &'static str {
        match self {
            InputMetric::EndToEndP90 | InputMetric::HandlingP90 => "ms",
            InputMetric::DelayedPct => "%",
        }
    }

    /// None: the run's app received no input, or the value is undefined.
    fn of(self, run: &Run) -> Option<f64> {
        self.value(run.input.as_ref()?)
    }
}

/// The input metrics defined on at least one run of each side, each on each run.
pub(crate) fn samples(before: &[Run], after: &[Run]) -> Vec<PerRun<InputMetric>> {
    per_run(&InputMetric::ALL, before, after)
}

#[cfg(test)]
#[path = "input_tests.rs"]
mod tests;
