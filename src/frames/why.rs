//! Why a frame dropped: the dominant part of its vsync-to-commit time, its
//! longest nested slice, the main-thread slices that ran between its vsync and
//! its start (the trace-side BlockCanary), the thread's scheduler-state
//! split over the frame (`sched_index`) and its critical path.

use foldhash::{HashMap, HashSet};

use super::labels::{FramePart, PerPhase, Phase};
use super::sched_index::SchedIndex;
use super::select::is_do_frame_name;
use super::{Blocker, FrameWhy};
use crate::model::{SliceId, Trace, TrackId};

/// Top-level slices of the frame threads' tracks, by ts, for the blocker search.
#[derive(Debug, Default, Clone)]
pub struct TopLevel {
    by_track: HashMap<TrackId, Vec<SliceId>>,
}

impl TopLevel {
    pub fn new(trace: &Trace, tracks: &HashSet<TrackId>) -> TopLevel {
        let mut by_track: HashMap<TrackId, Vec<SliceId>> = HashMap::default();
        for s in &trace.slices {
            if s.depth == 0 && tracks.contains(&s.track) {
                by_track.entry(s.track).or_default().push(s.id);
            }
        }
        TopLevel { by_track }
    }

    /// Finished top-level slices of `track`, at least `min_dur` long, that ended
    /// in `(vsync, start]` — they held the thread after the vsync and before
    /// the doFrame (the doFrame's own ancestors end later and are skipped).
    /// Each delayed the start by its part after the vsync: a slice that began
    /// before the vsync held the frame only from the vsync on.
    pub fn blockers(&self, trace: &Trace, track: TrackId, vsync: i64, start: i64, min_dur: i64) -> Vec<Blocker> {
        let Some(v) = self.by_track.get(&track) else { return Vec::new() };
        // Top-level slices of one track do not overlap: sorted by ts is sorted by end.
        let lo = v.partition_point(|&i| trace.slice(i).end().unwrap_or(i64::MAX) <= vsync);
        v[lo..]
            .iter()
            .map(|&i| trace.slice(i))
            .take_while(|s| s.ts < start)
            .filter(|s| s.dur >= min_dur && s.ts + s.dur <= start && !is_do_frame_name(&s.name))
            .map(|s| Blocker {
                name: s.name.to_string(),
                ts: s.ts,
                dur: s.dur,
                delay_ns: s.ts + s.dur - s.ts.max(vsync),
            })
            .collect()
    }
}

/// The dominant part of a frame's cost: Choreographer's start jitter, one of
/// the five phases, or `other` (doFrame time outside the phases). Ties go to
/// the earlier one in that order.
pub fn dominant(jitter: Option<i64>, phases: &PerPhase<Option<i64>>, do_frame_dur: i64) -> (FramePart, i64) {
    let mut in_phases = 0;
    let mut best = (FramePart::StartJitter, jitter.unwrap_or(0).max(0));
    for (phase, d) in phases.iter() {
        let Some(d) = d else { continue };
        in_phases += d;
        if d > best.1 {
            best = (FramePart::Phase(phase), d);
        }
    }
    let other = do_frame_dur - in_phases;
    if other > best.1 {
        best = (FramePart::Other, other);
    }
    best
}

/// The longest slice nested in the doFrame, other than its phase slices
/// themselves (those are `dominant_phase`) and nested doFrames.
pub fn longest_nested(trace: &Trace, do_frame: SliceId) -> Option<(String, i64)> {
    let phase_ids: smallvec::SmallVec<[SliceId; 8]> =
        super::phases::phase_slices(trace, do_frame).iter().map(|s| s.id).collect();
    let mut best: Option<(&str, i64)> = None;
    for s in trace.descendants(do_frame) {
        if s.dur < 0 || s.name.starts_with("Choreographer#doFrame") {
            continue;
        }
        if Phase::from_slice_name(&s.name).is_some() && phase_ids.contains(&s.id) {
            continue;
        }
        if best.is_none_or(|b| s.dur > b.1) {
            best = Some((&s.name, s.dur));
        }
    }
    best.map(|(n, d)| (n.to_string(), d))
}

/// What explaining a frame needs besides the frame: the trace and the
/// indexes built once per analysis.
pub struct WhyContext<'a> {
    pub trace: &'a Trace,
    pub top: &'a TopLevel,
    pub sched: &'a SchedIndex,
    pub paths: super::critical_path::PathIndex<'a>,
    /// Main-thread slices at least this long before the doFrame are blockers.
    pub blocker_threshold_ns: i64,
}

/// A frame to explain.
pub struct Frame<'a> {
    /// Its index in the frames table.
    pub index: usize,
    pub do_frame: SliceId,
    pub tid: i32,
    pub vsync_ts: Option<i64>,
    pub jitter_ns: Option<i64>,
    pub phases: &'a PerPhase<Option<i64>>,
}

impl WhyContext<'_> {
    /// The frame's critical path over its cost: from its vsync (its start
    /// without one) to its doFrame's end.
    pub fn critical_path(&self, f: &Frame) -> Vec<super::critical_path::PathSegment> {
        let (from, to) = self.path_window(f);
        self.paths.path(f.tid, from, to)
    }

    /// [`critical_path::totals`](super::critical_path::totals) of [`Self::critical_path`].
    pub fn critical_path_totals(&self, f: &Frame) -> Vec<super::critical_path::PathTotal> {
        let (from, to) = self.path_window(f);
        self.paths.totals(f.tid, from, to)
    }

    /// The window of a frame's critical path: from its vsync (its start
    /// without one) to its doFrame's end.
    fn path_window(&self, f: &Frame) -> (i64, i64) {
        let s = self.trace.slice(f.do_frame);
        (f.vsync_ts.unwrap_or(s.ts), s.end().unwrap_or(s.ts))
    }

    /// Why a janky frame was late, with its critical path.
    pub fn explain(&self, f: &Frame, critical_path: Vec<super::critical_path::PathSegment>) -> FrameWhy {
        let trace = self.trace;
        let s = trace.slice(f.do_frame);
        let (phase, phase_ns) = dominant(f.jitter_ns, f.phases, s.dur);
        let longest = longest_nested(trace, f.do_frame);
        let blockers = match f.vsync_ts {
            Some(v) if v < s.ts => self.top.blockers(trace, s.track, v, s.ts, self.blocker_threshold_ns),
            _ => Vec::new(),
        };
        let from = f.vsync_ts.unwrap_or(s.ts).min(s.ts);
        let thread_state = if self.sched.has_data { self.sched.split(f.tid, from, s.ts + s.dur) } else { None };
        FrameWhy {
            frame_index: f.index,
            dominant_phase: phase,
            dominant_phase_ns: phase_ns,
            longest_slice_ns: longest.as_ref().map(|x| x.1),
            longest_slice: longest.map(|x| x.0),
            blockers,
            thread_state,
            chain: self.paths.chain(&critical_path),
            critical_path,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dominant_part() {
        let mut ph = PerPhase::default();
        ph[Phase::Input] = Some(1);
        ph[Phase::Traversal] = Some(9);
        ph[Phase::Commit] = Some(2);
        assert_eq!(dominant(Some(5), &ph, 12), (FramePart::Phase(Phase::Traversal), 9));
        assert_eq!(dominant(Some(20), &ph, 12), (FramePart::StartJitter, 20));
        // 30 − (1 + 9 + 2) = 18 outside the phases.
        assert_eq!(dominant(Some(5), &ph, 30), (FramePart::Other, 18));
    }
}
