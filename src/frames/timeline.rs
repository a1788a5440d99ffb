//! SurfaceFlinger FrameTimeline lookups: the app's own expected/actual surface
//! frames by (pid, token), and trace_processor's token-only view (all four
//! kinds, every process) that its `android_frames_overrun` table reads.

use std::collections::HashMap;

use crate::model::{TimelineKind, TimelineSlice, Trace};

#[derive(Debug, Default, Clone)]
pub struct SurfaceMatch {
    /// First expected surface frame (index into `Trace::frame_timeline`).
    pub expected: Option<usize>,
    /// Actual surface frames, one per layer, in timeline order (trace_processor
    /// slice id order).
    pub actuals: Vec<usize>,
}

#[derive(Debug, Default)]
pub struct TimelineIndex {
    by_pid_token: HashMap<(i32, i64), SurfaceMatch>,
    /// token -> first actual slice of any kind / process (min slice id).
    first_actual: HashMap<i64, usize>,
    /// token -> first expected slice of any kind / process.
    first_expected: HashMap<i64, usize>,
    /// Any actual slice at all (trace_processor's `after_28` switch).
    pub has_actual: bool,
}

impl TimelineIndex {
    pub fn new(trace: &Trace) -> TimelineIndex {
        let mut ix = TimelineIndex::default();
        for (i, t) in trace.frame_timeline.iter().enumerate() {
            if t.kind.is_actual() {
                ix.has_actual = true;
                ix.first_actual.entry(t.token).or_insert(i);
            } else {
                ix.first_expected.entry(t.token).or_insert(i);
            }
            match t.kind {
                TimelineKind::ExpectedSurface => {
                    ix.by_pid_token.entry((t.pid, t.token)).or_default().expected.get_or_insert(i);
                }
                TimelineKind::ActualSurface => {
                    ix.by_pid_token.entry((t.pid, t.token)).or_default().actuals.push(i);
                }
                _ => {}
            }
        }
        ix
    }

    pub fn surface(&self, pid: i32, token: i64) -> Option<&SurfaceMatch> {
        self.by_pid_token.get(&(pid, token))
    }

    /// trace_processor's `android_frames_overrun.overrun` for a token:
    /// `(ts + dur)` of the first actual slice named `token` minus `(ts + dur)`
    /// of the first expected one, across every process and both surface and
    /// display frames (its `_frame_id_count_in_*_timeline` tables group by name
    /// only). NULL unless both exist.
    pub fn perfetto_overrun(&self, tl: &[TimelineSlice], token: i64) -> Option<i64> {
        let a = &tl[*self.first_actual.get(&token)?];
        let e = &tl[*self.first_expected.get(&token)?];
        Some((a.ts + a.dur) - (e.ts + e.dur))
    }
}
