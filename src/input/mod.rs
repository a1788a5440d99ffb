//! From finger to screen (docs/input.md): every input event's latency as
//! trace_processor's `android_input_events` defines it ([`events`]), the
//! touch gestures they form and the scroll jank the user felt in them
//! ([`gestures`]), and one summary per app ([`summary`]).

pub mod events;
pub mod gestures;
pub mod summary;
#[cfg(test)]
mod tests;

use crate::frames::DisplayGrid;
use crate::model::Trace;
use crate::startups::DisplayFrame;

pub use events::InputEvent;
pub use gestures::Gesture;
pub use summary::{InputSource, InputSummary};

/// A trace's input events, gestures and per-app summaries.
#[derive(Debug, Clone, Default)]
pub struct InputAnalysis {
    /// `android_input_events`' rows, in dispatch order.
    pub events: Vec<InputEvent>,
    /// Rows the row limit left out (a trace that repeats seqs on a channel).
    pub rows_left_out: usize,
    /// DOWN … UP on one channel, by process, channel and start.
    pub gestures: Vec<Gesture>,
    /// One per app that received input, by pid.
    pub apps: Vec<InputSummary>,
}

impl InputAnalysis {
    /// Keep the events, gestures and summaries of the apps `keep` (process
    /// name, pid) keeps.
    pub fn retain(&mut self, keep: impl Fn(Option<&str>, i32) -> bool) {
        self.events.retain(|e| keep(e.process_name.as_deref(), e.pid));
        self.gestures.retain(|g| keep(g.process.as_deref(), g.pid));
        self.apps.retain(|a| keep(a.process.as_deref(), a.pid));
    }
}

/// The input events of `trace`, their frames from `frames` (`android_frames`'
/// rows, asked for only when the trace delivers input), presents judged on
/// the display's vsync grid.
pub fn analyze(trace: &Trace, grid: &DisplayGrid, frames: impl FnOnce() -> Vec<DisplayFrame>) -> InputAnalysis {
    let found = events::Found::of(trace);
    if found.is_empty() {
        return InputAnalysis::default();
    }
    if !found.has_dispatches() {
        // deliverInputEvent alone: the summaries of older captures.
        return InputAnalysis { apps: summary::summaries(trace, &[], &[], &found), ..Default::default() };
    }
    let presents = events::Presents::of(trace);
    let (events, rows_left_out) = events::input_events(trace, &found, &frames(), &presents);
    let gestures = gestures::gestures(&events, &presents, grid);
    let apps = summary::summaries(trace, &events, &gestures, &found);
    InputAnalysis { events, rows_left_out, gestures, apps }
}
