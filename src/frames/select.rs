//! Which slices are frames: `Choreographer#doFrame` slices on thread tracks,
//! minus `… resynced …` slices and zero-length markers, plus the id parsing
//! trace_processor applies to `Choreographer#doFrame <id>` / `DrawFrames <id>`
//! names, and the count of doFrames cut by the trace bounds.

use foldhash::HashMap;

use crate::model::{Slice, SliceId, Trace, TrackKind, Upid, Utid};
use crate::perfetto_sql::cast_int;

pub const DO_FRAME: &str = "Choreographer#doFrame";
pub const DRAW_FRAME: &str = "DrawFrame";

/// The id trace_processor's `_get_frame_table_with_id` reads from a name:
/// `cast_int!(STR_SPLIT(name, ' ', 1))`, where 0 (not a number, e.g. the
/// `- resynced` slices) and -1 (invalid vsync id) mean "no id".
pub fn name_id(name: &str) -> Option<i64> {
    let piece = name.split(' ').nth(1)?;
    match cast_int(piece) {
        0 | -1 => None,
        v => Some(v),
    }
}

/// True for a `Choreographer#doFrame…` name that can be a frame (not resynced).
pub fn is_do_frame_name(name: &str) -> bool {
    name.starts_with(DO_FRAME) && !name.contains("resynced")
}

/// A doFrame slice chosen as a frame, with its owner resolved.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub slice: SliceId,
    pub ts: i64,
    pub dur: i64,
    pub utid: Utid,
    pub upid: Option<Upid>,
    pub tid: i32,
    pub pid: i32,
    pub frame_id: Option<i64>,
}

/// The frames of the trace and the doFrames that could not be frames because
/// the trace cut them.
#[derive(Debug, Default)]
pub struct Selection {
    /// In slice order (by ts).
    pub frames: Vec<Candidate>,
    pub cut_by_trace_bounds: u64,
}

fn thread_of(trace: &Trace, s: &Slice) -> Option<Utid> {
    match trace.track(s.track).kind {
        TrackKind::Thread { utid } => Some(utid),
        _ => None,
    }
}

/// One pass over the slices (in parallel chunks).
///
/// Cut by the trace end: a doFrame with `dur == -1` is excluded and counted.
/// Cut by the trace start: its `B` was never recorded, so no slice exists;
/// the only evidence left is its phase children that began inside the trace,
/// which become top-level slices. A top-level phase slice (`input`,
/// `animation`, `insets_animation`, `traversal`, `commit`) on a thread that
/// runs doFrames, starting before that thread's first doFrame, counts as one
/// cut frame (at most one per thread: only one doFrame can be open when the
/// trace starts).
pub fn select(trace: &Trace) -> Selection {
    use rayon::prelude::*;
    // Chunks of slices in parallel, joined in slice order: the candidates
    // concatenated, each thread's first doFrame and first orphan phase
    // taken from the earliest chunk that has one.
    let parts: Vec<Part> = trace.slices.par_chunks(SELECT_CHUNK).map(|slices| Part::of(trace, slices)).collect();
    let mut sel = Selection::default();
    // utid -> ts of the first doFrame (complete or cut) on that thread
    let mut first_do_frame: HashMap<Utid, i64> = HashMap::default();
    // utid -> ts of the first top-level phase slice on that thread
    let mut first_orphan_phase: HashMap<Utid, i64> = HashMap::default();
    for part in parts {
        sel.frames.extend(part.frames);
        sel.cut_by_trace_bounds += part.cut_by_trace_bounds;
        for (utid, ts) in part.first_do_frame {
            first_do_frame.entry(utid).or_insert(ts);
        }
        for (utid, ts) in part.first_orphan_phase {
            first_orphan_phase.entry(utid).or_insert(ts);
        }
    }
    for (utid, ts) in first_orphan_phase {
        if let Some(&first) = first_do_frame.get(&utid) {
            if ts < first {
                sel.cut_by_trace_bounds += 1;
            }
        }
    }
    sel
}

/// Slices per parallel work item of [`select`].
const SELECT_CHUNK: usize = 1 << 16;

/// What [`select`] finds in one chunk of slices.
#[derive(Default)]
struct Part {
    frames: Vec<Candidate>,
    cut_by_trace_bounds: u64,
    first_do_frame: HashMap<Utid, i64>,
    first_orphan_phase: HashMap<Utid, i64>,
}

impl Part {
    fn of(trace: &Trace, slices: &[Slice]) -> Part {
        let mut part = Part::default();
        for s in slices {
            // The names first: most slices are neither, and need no thread.
            let orphan_phase = s.depth == 0 && s.parent.is_none() && super::Phase::from_slice_name(&s.name).is_some();
            if !orphan_phase && !is_do_frame_name(&s.name) {
                continue;
            }
            let Some(utid) = thread_of(trace, s) else { continue };
            if orphan_phase {
                part.first_orphan_phase.entry(utid).or_insert(s.ts);
                continue;
            }
            part.first_do_frame.entry(utid).or_insert(s.ts);
            if s.dur < 0 {
                part.cut_by_trace_bounds += 1;
                continue;
            }
            if s.dur == 0 {
                continue; // a marker, not a frame
            }
            let th = trace.thread(utid);
            let pid = th.upid.map(|u| trace.process(u).pid).unwrap_or(th.tid);
            part.frames.push(Candidate {
                slice: s.id,
                ts: s.ts,
                dur: s.dur,
                utid,
                upid: th.upid,
                tid: th.tid,
                pid,
                frame_id: name_id(&s.name),
            });
        }
        part
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_from_names() {
        assert_eq!(name_id("Choreographer#doFrame 10"), Some(10));
        assert_eq!(name_id("Choreographer#doFrame 10 extra"), Some(10));
        assert_eq!(name_id("Choreographer#doFrame"), None);
        assert_eq!(name_id("Choreographer#doFrame - resynced to 11 in 0.0s"), None);
        assert_eq!(name_id("Choreographer#doFrame -1"), None);
        assert_eq!(name_id("DrawFrames 90"), Some(90));
        assert!(is_do_frame_name("Choreographer#doFrame 3"));
        assert!(!is_do_frame_name("Choreographer#doFrame - resynced to 4 in 0.0s"));
    }
}
