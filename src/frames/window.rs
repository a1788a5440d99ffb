//! The scenario's window (docs/capture.md, "The scenario's window"): a
//! capture that drives a scenario writes the atrace counter
//! [`SCENARIO_MARK`] (on perfetto's process), 1 when the scenario's first step
//! starts and 0 when its last step ends. Analysis then looks at the frames of
//! the interaction, not at the launch before it or the idle tail after it.

use crate::model::{Trace, SCENARIO_MARK};

use super::FrameAnalysis;

/// Trace time from the scenario's start to its end (half-open).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScenarioWindow {
    pub start_ns: i64,
    pub end_ns: i64,
}

impl ScenarioWindow {
    pub fn contains(&self, ts: i64) -> bool {
        (self.start_ns..self.end_ns).contains(&ts)
    }
}

/// The first marked window: from the first sample ≥ 1 to the next sample of
/// 0 on the same track (the trace's end when the scenario was cut short).
pub fn scenario_window(trace: &Trace) -> Option<ScenarioWindow> {
    // A set: a hostile trace may name any number of tracks so.
    let marked: foldhash::HashSet<_> =
        trace.tracks.iter().filter(|t| t.name.as_deref() == Some(SCENARIO_MARK)).map(|t| t.id).collect();
    if marked.is_empty() {
        return None;
    }
    let mut start: Option<(i64, _)> = None;
    for c in trace.counters.iter().filter(|c| marked.contains(&c.track)) {
        match start {
            None if c.value >= 1.0 => start = Some((c.ts, c.track)),
            Some((s, track)) if c.track == track && c.value == 0.0 => {
                return Some(ScenarioWindow { start_ns: s, end_ns: c.ts });
            }
            _ => {}
        }
    }
    start.map(|(s, _)| ScenarioWindow { start_ns: s, end_ns: i64::MAX })
}

impl FrameAnalysis {
    /// Keep the frames that start inside `w` (their `why` entries, and what
    /// explaining them later needs, follow).
    pub fn restrict(&mut self, w: ScenarioWindow) {
        let mut new_index = vec![usize::MAX; self.rows.len()];
        let mut kept = 0;
        for (i, r) in self.rows.iter().enumerate() {
            if w.contains(r.ts) {
                new_index[i] = kept;
                kept += 1;
            }
        }
        if let Some(ex) = &mut self.explainer {
            let mut row = 0..;
            ex.rows.retain(|_| row.next().is_some_and(|i| new_index[i] != usize::MAX));
        }
        self.rows.retain(|r| w.contains(r.ts));
        self.why.retain_mut(|y| {
            y.frame_index = new_index[y.frame_index];
            y.frame_index != usize::MAX
        });
    }
}
