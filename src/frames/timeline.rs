//! SurfaceFlinger FrameTimeline lookups: the app's own expected/actual surface
//! frames by (pid, token), and trace_processor's token-only view (all four
//! kinds, every process) that its `android_frames_overrun` table reads. When
//! a token repeats within a process (concatenated captures, a reboot, a
//! hand-made trace), each doFrame takes only the surface frames inside its
//! own time window (see `frames::Window`), found by binary search.

use foldhash::HashMap;

use super::Window;
use crate::model::{TimelineKind, TimelineSlice, Trace};

#[derive(Debug, Default, Clone)]
pub struct SurfaceMatch {
    /// First expected surface frame (index into `Trace::frame_timeline`).
    pub expected: Option<usize>,
    /// Actual surface frames, one per layer, in timeline order (trace_processor
    /// slice id order).
    pub actuals: TimelineRefs,
}

/// Indices into `Trace::frame_timeline`, stored inline when there is one:
/// a (pid, token) nearly always has one surface frame of each kind, and a
/// heap block per frame costs an allocation and a free for every frame.
pub type TimelineRefs = smallvec::SmallVec<[usize; 1]>;

/// The surface frames of one (pid, token), each list in timeline (= time) order.
#[derive(Debug, Default)]
struct Surfaces {
    expected: TimelineRefs,
    actuals: TimelineRefs,
}

#[derive(Debug, Default)]
pub struct TimelineIndex {
    by_pid_token: HashMap<(i32, i64), Surfaces>,
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
                    ix.by_pid_token.entry((t.pid, t.token)).or_default().expected.push(i);
                }
                TimelineKind::ActualSurface => {
                    ix.by_pid_token.entry((t.pid, t.token)).or_default().actuals.push(i);
                }
                _ => {}
            }
        }
        ix
    }

    /// The app's surface frames of `token` that start inside `window`.
    pub fn surface(&self, tl: &[TimelineSlice], pid: i32, token: i64, window: Window) -> Option<SurfaceMatch> {
        let s = self.by_pid_token.get(&(pid, token))?;
        Some(SurfaceMatch {
            expected: window.of(&s.expected, |&i| tl[i].ts).first().copied(),
            actuals: window.of(&s.actuals, |&i| tl[i].ts).into(),
        })
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
