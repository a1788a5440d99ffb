//! Which frames a data loss the trace reports touches (the `data_loss`
//! column, docs/frames.md): a gap in the kernel's ftrace data or a hole in
//! the capture overlapping the frame, or a slice end of the frame's process
//! whose begin a reported loss took, inside the frame
//! (`TraceMeta::lost_begins`, docs/limits.md).

use foldhash::HashMap;

use super::select::Candidate;
use super::FrameRow;
use crate::model::{Trace, TrackKind, Upid, Utid};

/// The gaps and the lost begins' ends, indexed for frame spans.
pub(crate) struct LossIndex {
    /// Gap and hole starts in order, with the latest end up to each one.
    gap_from: Vec<i64>,
    reach: Vec<i64>,
    /// Sorted ends of lost begins, per process (per thread where the
    /// thread has no process).
    by_process: HashMap<Upid, Vec<i64>>,
    by_thread: HashMap<Utid, Vec<i64>>,
}

impl LossIndex {
    pub(crate) fn new(trace: &Trace) -> LossIndex {
        let dl = &trace.meta.data_loss;
        let holes = dl.holes.iter().map(|h| (h.from, h.to));
        let mut gaps: Vec<(i64, i64)> = dl.gaps.iter().map(|g| (g.from, g.to)).chain(holes).collect();
        gaps.sort_unstable();
        let mut reach = Vec::with_capacity(gaps.len());
        for &(_, to) in &gaps {
            reach.push(reach.last().map_or(to, |&r: &i64| r.max(to)));
        }
        let mut by_process: HashMap<Upid, Vec<i64>> = HashMap::default();
        let mut by_thread: HashMap<Utid, Vec<i64>> = HashMap::default();
        for l in &trace.meta.lost_begins {
            let Some(track) = trace.tracks.get(l.track.index()) else { continue };
            match track.kind {
                TrackKind::ProcessAsync { upid } => by_process.entry(upid).or_default().push(l.ts),
                TrackKind::Thread { utid } => match trace.threads.get(utid.index()).and_then(|t| t.upid) {
                    Some(upid) => by_process.entry(upid).or_default().push(l.ts),
                    None => by_thread.entry(utid).or_default().push(l.ts),
                },
                _ => {}
            }
        }
        for v in by_process.values_mut().chain(by_thread.values_mut()) {
            v.sort_unstable();
        }
        LossIndex { gap_from: gaps.into_iter().map(|g| g.0).collect(), reach, by_process, by_thread }
    }

    /// Whether a loss touches frame `c` with row `r`: a gap or a hole
    /// overlaps its span, or a lost begin's end of its process lies in it.
    pub(crate) fn touches(&self, c: &Candidate, r: &FrameRow) -> bool {
        let (from, to) = span(r);
        // The gaps starting before the span ends; one of them reaches into it?
        let before_end = self.gap_from.partition_point(|&f| f < to);
        if before_end > 0 && self.reach[before_end - 1] > from {
            return true;
        }
        let ends = match c.upid {
            Some(u) => self.by_process.get(&u),
            None => self.by_thread.get(&c.utid),
        };
        ends.is_some_and(|e| {
            let i = e.partition_point(|&t| t < from);
            e.get(i).is_some_and(|&t| t <= to)
        })
    }
}

/// A frame's span in the trace: from its vsync (its doFrame start when
/// that is earlier or unknown) to the end of its doFrame or of its
/// RenderThread work, whichever is later.
fn span(r: &FrameRow) -> (i64, i64) {
    let from = r.vsync_ts.map_or(r.ts, |v| v.min(r.ts));
    let do_frame_end = r.ts.saturating_add(r.do_frame_dur);
    let draw_end = match (r.draw_frame_ts, r.draw_frame_dur) {
        (Some(t), Some(d)) => t.saturating_add(d),
        _ => do_frame_end,
    };
    (from, do_frame_end.max(draw_end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testutil::TB;
    use crate::model::{LossCause, LossGap, LostBegin, SliceId};

    fn candidate(upid: Option<Upid>, utid: Utid) -> Candidate {
        Candidate { slice: SliceId(0), ts: 0, dur: 0, utid, upid, tid: 0, pid: 0, frame_id: None }
    }
    fn row(vsync: Option<i64>, ts: i64, dur: i64, draw: Option<(i64, i64)>) -> FrameRow {
        FrameRow {
            vsync_ts: vsync,
            ts,
            do_frame_dur: dur,
            draw_frame_ts: draw.map(|d| d.0),
            draw_frame_dur: draw.map(|d| d.1),
            ..Default::default()
        }
    }

    #[test]
    fn a_frame_is_touched_by_an_overlapping_gap_or_a_lost_begin_of_its_process() {
        let mut t = TB::new().process(10, "app").thread(10, 10, "app").thread(11, 10, "RenderThread").build();
        t.meta.data_loss.gaps = vec![
            LossGap { cpu: 0, from: 100, to: 120, events: Some(1) },
            LossGap { cpu: 1, from: 105, to: 300, events: None },
        ];
        // A lost begin on RenderThread's track, ending at 500.
        let render =
            t.tracks.iter().find(|k| matches!(k.kind, TrackKind::Thread { utid } if t.threads[utid.index()].tid == 11));
        let render = render.expect("RenderThread's track").id;
        t.meta.lost_begins = vec![LostBegin { ts: 500, track: render, cause: LossCause::Gap(1) }];
        let ix = LossIndex::new(&t);
        let app = t.threads.iter().find(|th| th.tid == 10).expect("app");
        let c = candidate(app.upid, app.utid);
        // [vsync 290, doFrame end 310]: the second gap reaches 300.
        assert!(ix.touches(&c, &row(Some(290), 295, 15, None)));
        // [300, 320]: both gaps ended by then (the second at 300, exclusive).
        assert!(!ix.touches(&c, &row(None, 300, 20, None)));
        // [400, 450] with its DrawFrame to 500: the lost begin's end is in it.
        assert!(ix.touches(&c, &row(Some(400), 410, 20, Some((440, 60)))));
        // The same frame without the DrawFrame ends at 430.
        assert!(!ix.touches(&c, &row(Some(400), 410, 20, None)));
        // Another process's frame at 500 is not touched.
        assert!(!ix.touches(&candidate(None, Utid(99)), &row(None, 490, 20, None)));
        // Before every gap.
        assert!(!ix.touches(&c, &row(Some(50), 60, 30, None)));
        // A hole in the capture touches the frames over it, of any process.
        t.meta.data_loss.holes = vec![crate::model::CaptureHole { from: 1_000, to: 1_500, threshold: 100 }];
        let ix = LossIndex::new(&t);
        assert!(ix.touches(&candidate(None, Utid(99)), &row(Some(1_490), 1_495, 20, None)));
        assert!(!ix.touches(&candidate(None, Utid(99)), &row(Some(1_500), 1_505, 20, None)));
        assert!(ix.touches(&c, &row(Some(290), 295, 15, None)), "the gaps still count");
    }
}
