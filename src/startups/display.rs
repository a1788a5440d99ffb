//! Time to initial and full display (`android_startup_time_to_display`): the
//! frames that end them, found in `android_frames` as trace_processor's
//! joins meet them (the first matching row in the table's order).

use rustc_hash::FxHashMap;

use super::{Display, DisplayFrame};
use crate::model::{Slice, Trace, Upid, Utid};

/// Frames keyed by a time, answering "the first frame (in row order) whose
/// key is at least t" in O(log n).
#[derive(Default)]
struct FirstFrom {
    /// (key, row), by key.
    keys: Vec<(i64, usize)>,
    /// For each position, the smallest row at or after it.
    first_row: Vec<usize>,
}

impl FirstFrom {
    fn new(mut keys: Vec<(i64, usize)>) -> FirstFrom {
        keys.sort_unstable();
        let mut first_row = vec![usize::MAX; keys.len()];
        let mut least = usize::MAX;
        for (k, &(_, row)) in keys.iter().enumerate().rev() {
            least = least.min(row);
            first_row[k] = least;
        }
        FirstFrom { keys, first_row }
    }

    fn first(&self, from: i64) -> Option<usize> {
        self.first_row.get(self.keys.partition_point(|&(k, _)| k < from)).copied()
    }
}

/// `android_frames`' rows, indexed for the startups' questions.
pub(super) struct Frames {
    rows: Vec<DisplayFrame>,
    /// Per process, by start (TTID: the first frame starting at or after the startup).
    by_process: FxHashMap<Upid, FirstFrom>,
    /// Per UI thread, by end (TTFD: the first frame ending after `reportFullyDrawn`).
    by_ui_thread: FxHashMap<Utid, FirstFrom>,
    /// Every row by (start, row): `android_first_frame_after`.
    by_start: Vec<(i64, usize)>,
}

impl Frames {
    pub fn new(rows: Vec<DisplayFrame>) -> Frames {
        let mut starts: FxHashMap<Upid, Vec<(i64, usize)>> = FxHashMap::default();
        let mut ends: FxHashMap<Utid, Vec<(i64, usize)>> = FxHashMap::default();
        for (k, f) in rows.iter().enumerate() {
            if let Some(u) = f.upid {
                starts.entry(u).or_default().push((f.ts, k));
            }
            ends.entry(f.ui_thread).or_default().push((f.ts + f.dur, k));
        }
        let mut by_start: Vec<(i64, usize)> = rows.iter().enumerate().map(|(k, f)| (f.ts, k)).collect();
        by_start.sort_unstable();
        Frames {
            by_process: starts.into_iter().map(|(u, v)| (u, FirstFrom::new(v))).collect(),
            by_ui_thread: ends.into_iter().map(|(u, v)| (u, FirstFrom::new(v))).collect(),
            by_start,
            rows,
        }
    }

    /// The earliest frame starting after `ts` (the first such row on a tie).
    pub fn first_after(&self, ts: i64) -> Option<&DisplayFrame> {
        let k = self.by_start.partition_point(|&(t, _)| t <= ts);
        self.by_start.get(k).map(|&(_, row)| &self.rows[row])
    }

    /// From `ts` to the end of `row`'s DrawFrame.
    fn display(&self, trace: &Trace, ts: i64, row: usize) -> Display {
        let f = &self.rows[row];
        let draw = trace.slice(f.draw_frame);
        Display { dur: draw.ts + draw.dur - ts, frame_id: f.frame_id }
    }

    /// TTID of a startup at `ts` whose processes are `upids`: the first
    /// frame of one of them (the first process with one) starting at or
    /// after `ts`, and that process.
    pub fn ttid(&self, trace: &Trace, ts: i64, upids: &[Upid]) -> Option<(Upid, Display)> {
        upids.iter().find_map(|u| {
            let row = self.by_process.get(u)?.first(ts)?;
            Some((*u, self.display(trace, ts, row)))
        })
    }

    /// TTFD: after the first `reportFullyDrawn*` slice (of `fully_drawn`,
    /// by start) its processes' main threads began at or after `ts`, the
    /// first frame of that thread ending after the slice's start.
    pub fn ttfd(&self, trace: &Trace, fully_drawn: &[(&Slice, Utid)], ts: i64, upids: &[Upid]) -> Option<Display> {
        let from = fully_drawn.partition_point(|(s, _)| s.ts < ts);
        let later = &fully_drawn[from..];
        let (report, utid) =
            upids.iter().find_map(|u| later.iter().find(|(_, utid)| trace.main_thread_of(*utid) == Some(*u)))?;
        let row = self.by_ui_thread.get(utid)?.first(report.ts.saturating_add(1))?;
        Some(self.display(trace, ts, row))
    }
}
