//! Inside the doFrame: the five Choreographer callback phases (direct
//! children named `input`, `animation`, `insets_animation`, `traversal`,
//! `commit`) and Choreographer's own arithmetic on a frame: start jitter,
//! skipped frames, the start correction, the commit-phase correction, the
//! vsync-to-commit cost, dropped frames and Matrix's drop level.

use super::labels::{DropLevel, PerPhase, Phase};
use crate::model::{SliceId, Trace};

/// Summed durations of the direct phase children, `None` when a phase did not run.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Phases {
    pub dur: PerPhase<Option<i64>>,
    /// Start of the first direct `commit` child.
    pub commit_ts: Option<i64>,
}

pub fn phases(trace: &Trace, do_frame: SliceId) -> Phases {
    let mut p = Phases::default();
    for c in phase_slices(trace, do_frame) {
        let Some(phase) = Phase::from_slice_name(&c.name) else { continue };
        // An unfinished child (dur -1) cannot exist under a finished doFrame;
        // count it as 0 rather than poison the sum.
        let d = c.dur.max(0);
        p.dur[phase] = Some(p.dur[phase].unwrap_or(0) + d);
        if phase == Phase::Commit && p.commit_ts.is_none() {
            p.commit_ts = Some(c.ts);
        }
    }
    p
}

/// A doFrame's phase slices: a handful (the five callback phases and a few
/// others), kept on the stack; this runs twice per frame.
pub type PhaseSlices<'t> = smallvec::SmallVec<[&'t crate::model::Slice; 8]>;

/// The doFrame's direct children, where a direct `Choreographer#doFrame -
/// resynced to …` child is transparent: Android 13+ opens it inside doFrame
/// around the callbacks, so the phases are its children.
pub fn phase_slices(trace: &Trace, do_frame: SliceId) -> PhaseSlices<'_> {
    let mut out = PhaseSlices::new();
    for c in trace.children(do_frame) {
        if c.name.starts_with(super::select::DO_FRAME) && c.name.contains("resynced") {
            out.extend(trace.children(c.id));
        } else {
            out.push(c);
        }
    }
    out
}

/// The columns derived from a frame's timing (docs/frames.md, "Columns").
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Timing {
    pub jitter_ns: Option<i64>,
    pub skipped_frames: i64,
    pub frame_time_ns: Option<i64>,
    pub commit_jitter_ns: Option<i64>,
    pub commit_corrected: bool,
    pub corrected_frame_time_ns: Option<i64>,
    pub frame_cost_ns: i64,
    pub dropped_frames: i64,
    pub drop_level: DropLevel,
}

/// Choreographer's arithmetic, exactly as docs/frames.md writes it (`i` > 0).
pub fn timing(ts: i64, dur: i64, vsync_ts: Option<i64>, i: i64, commit_ts: Option<i64>) -> Timing {
    let jitter = vsync_ts.map(|v| ts - v);
    let (skipped, frame_time) = match (jitter, vsync_ts) {
        // Choreographer.doFrame: skippedFrames = jitter / I and
        // frameTime = startNanos - jitter % I when jitter >= I.
        (Some(j), Some(_)) if j >= i => (j / i, Some(ts - j % i)),
        (_, v) => (0, v),
    };
    let commit_jitter = match (commit_ts, frame_time) {
        (Some(c), Some(f)) => Some(c - f),
        _ => None,
    };
    // doCallbacks(CALLBACK_COMMIT): fires when now - frameTime >= 2·I.
    let corrected = commit_jitter.is_some_and(|j| j >= 2 * i);
    let corrected_ft = if corrected {
        let (c, j) = (commit_ts.unwrap_or_default(), commit_jitter.unwrap_or_default());
        Some(c - (j % i + i))
    } else {
        frame_time
    };
    let cost = match vsync_ts {
        Some(v) => ts + dur - v,
        None => dur,
    };
    let dropped = (cost / i).max(0);
    Timing {
        jitter_ns: jitter,
        skipped_frames: skipped,
        frame_time_ns: frame_time,
        commit_jitter_ns: commit_jitter,
        commit_corrected: corrected,
        corrected_frame_time_ns: corrected_ft,
        frame_cost_ns: cost,
        dropped_frames: dropped,
        drop_level: DropLevel::from_dropped(dropped),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const I: i64 = 16_666_667;

    #[test]
    fn on_time_frame() {
        // vsync 100 ms, start 101 ms, 10 ms long, commit at 108 ms.
        let t = timing(101_000_000, 10_000_000, Some(100_000_000), I, Some(108_000_000));
        assert_eq!(t.jitter_ns, Some(1_000_000));
        assert_eq!(t.skipped_frames, 0);
        assert_eq!(t.frame_time_ns, Some(100_000_000));
        assert_eq!(t.commit_jitter_ns, Some(8_000_000));
        assert!(!t.commit_corrected);
        assert_eq!(t.corrected_frame_time_ns, Some(100_000_000));
        // cost = 101 + 10 - 100 = 11 ms < I: nothing dropped.
        assert_eq!(t.frame_cost_ns, 11_000_000);
        assert_eq!((t.dropped_frames, t.drop_level), (0, DropLevel::Best));
    }

    #[test]
    fn skipped_and_commit_corrected() {
        // vsync 0, start 50 ms: jitter 50_000_000; 50_000_000 / 16_666_667
        // = 2 (2·I = 33_333_334, remainder 16_666_666).
        // frame time = 50_000_000 - 16_666_666 = 33_333_334.
        // commit at 80 ms: commit jitter = 80_000_000 - 33_333_334 = 46_666_666 ≥ 2·I
        // → corrected = 80_000_000 - (46_666_666 % I + I)
        //   = 80_000_000 - (13_333_332 + 16_666_667) = 50_000_001.
        // doFrame 40 ms → cost = 50 + 40 - 0 = 90 ms; 90_000_000 / I = 5 → NORMAL.
        let t = timing(50_000_000, 40_000_000, Some(0), I, Some(80_000_000));
        assert_eq!(t.jitter_ns, Some(50_000_000));
        assert_eq!(t.skipped_frames, 2);
        assert_eq!(t.frame_time_ns, Some(33_333_334));
        assert_eq!(t.commit_jitter_ns, Some(46_666_666));
        assert!(t.commit_corrected);
        assert_eq!(t.corrected_frame_time_ns, Some(50_000_001));
        assert_eq!(t.frame_cost_ns, 90_000_000);
        assert_eq!((t.dropped_frames, t.drop_level), (5, DropLevel::Normal));
    }

    #[test]
    fn no_vsync() {
        let t = timing(5, 30_000_000, None, I, Some(10));
        assert_eq!(t.jitter_ns, None);
        assert_eq!(t.frame_time_ns, None);
        assert_eq!(t.commit_jitter_ns, None);
        assert_eq!(t.frame_cost_ns, 30_000_000);
        assert_eq!(t.dropped_frames, 1);
    }
}
