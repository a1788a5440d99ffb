//! Atrace records → slice and counter operations, resolving the writing
//! thread and its process (trace_processor's SystraceParser after the
//! tokenizer): `B`/`E`/`I` on the thread's track, `C` on a process counter
//! track, `S`/`F` and `G`/`H`/`N` on process async tracks.

use super::counters::CounterOp;
use super::identity::Identity;
use super::slices::{SliceOp, Timed};
use super::tracks::Tracks;
use crate::model::{TraceMeta, TrackId, TrackKind};
use crate::read::records::{AtraceOp, Batch, TrackNames};

/// The operations the importers hand to the slice and counter trackers.
#[derive(Default)]
pub(crate) struct Ops {
    pub(crate) slices: Vec<Timed<SliceOp>>,
    pub(crate) counters: Vec<Timed<CounterOp>>,
}

/// Turn every atrace record at or after `valid_from` into operations; the
/// ones before it are counted as `events_before_start`. The batches' atrace
/// records are moved out.
pub(crate) fn ops(
    batches: &mut [Batch],
    valid_from: Option<i64>,
    id: &mut Identity,
    tracks: &mut Tracks,
    meta: &mut TraceMeta,
    ops: &mut Ops,
) {
    let mut dropped = 0u64;
    let mut last = LastTrack::default();
    // Sized once: growing by doubling would leave up to half unused.
    let counters: usize = batches.iter().map(|b| b.atrace_counters).sum();
    let total: usize = batches.iter().map(|b| b.atrace.len()).sum();
    ops.slices.reserve(total.saturating_sub(counters));
    ops.counters.reserve(counters);
    // Each batch's records are dropped as soon as they are operations, so
    // the two never both take their full size. Their names move into the
    // operations; the records are read in place (not moved out one by one).
    for b in batches.iter_mut() {
        for rec in &mut b.atrace {
            let (ts, order, tid) = (rec.ts, rec.order, rec.tid);
            if valid_from.is_some_and(|v| ts < v) {
                dropped += 1;
                continue;
            }
            let op = std::mem::replace(&mut rec.op, AtraceOp::End { tgid: 0 });
            meta.atrace_events += 1;
            if let AtraceOp::Counter { tgid, name, value } = op {
                let upid = id.process(tgid as i32);
                let track = tracks.get(TrackKind::ProcessCounter { upid }, Some(name));
                ops.counters.push(Timed { ts, order, op: CounterOp { track, value } });
                continue;
            }
            // With no tgid, only a thread seen before can have a slice open: an
            // end on a thread never seen is the trace's cut start (see slices::build).
            if matches!(op, AtraceOp::End { tgid: 0 }) && id.known_thread(tid).is_none() {
                meta.cut_at_start += 1;
                continue;
            }
            if let Some(op) = slice_op(tid, op, id, tracks, &mut last) {
                ops.slices.push(Timed { ts, order, op });
            }
        }
        b.atrace = Vec::new();
    }
    meta.data_loss.events_before_start = dropped;
}

/// The writing thread's track (`tgid` 0: the thread's process is not known).
fn thread_track(tid: i32, tgid: u32, id: &mut Identity, tracks: &mut Tracks) -> TrackId {
    let utid = if tgid == 0 { id.thread(tid) } else { id.thread_in(tid, tgid as i32) };
    tracks.thread(utid)
}

/// [`thread_track`] of the previous record, reused when the next one has the
/// same (tid, tgid): a second lookup would change nothing and return the
/// same track (only a lookup with another tgid for the tid can, and that
/// replaces the cached key).
#[derive(Default)]
struct LastTrack(Option<((i32, u32), TrackId)>);

impl LastTrack {
    fn get(&mut self, tid: i32, tgid: u32, id: &mut Identity, tracks: &mut Tracks) -> TrackId {
        match self.0 {
            Some((key, track)) if key == (tid, tgid) => track,
            _ => {
                let track = thread_track(tid, tgid, id, tracks);
                self.0 = Some(((tid, tgid), track));
                track
            }
        }
    }
}

/// The slice operation of thread `tid`'s record `op` (`None` for a counter).
fn slice_op(tid: i32, op: AtraceOp, id: &mut Identity, tracks: &mut Tracks, last: &mut LastTrack) -> Option<SliceOp> {
    Some(match op {
        AtraceOp::Begin { tgid, name } => {
            SliceOp::Begin { track: last.get(tid, tgid, id, tracks), name, category: None }
        }
        AtraceOp::End { tgid } => SliceOp::End { track: last.get(tid, tgid, id, tracks) },
        AtraceOp::Instant { tgid, name } => {
            SliceOp::Instant { track: last.get(tid, tgid, id, tracks), name, category: None }
        }
        AtraceOp::AsyncBegin { tgid, name, cookie } => {
            let upid = id.process(tgid as i32);
            let track = tracks.get(TrackKind::ProcessAsync { upid }, Some(name.clone()));
            SliceOp::AsyncBegin { track, key: Box::new((upid, name.clone(), cookie)), name }
        }
        AtraceOp::TrackBegin { tgid, names, cookie } => {
            let TrackNames { track: track_name, name } = *names;
            let upid = id.process(tgid as i32);
            let track = tracks.get(TrackKind::ProcessAsync { upid }, Some(track_name.clone()));
            SliceOp::AsyncBegin { track, key: Box::new((upid, track_name, cookie)), name }
        }
        AtraceOp::AsyncEnd { tgid, name, cookie } | AtraceOp::TrackEnd { tgid, track: name, cookie } => {
            let upid = id.process(tgid as i32);
            SliceOp::AsyncEnd { key: Box::new((upid, name, cookie)) }
        }
        AtraceOp::TrackInstant { tgid, names } => {
            let TrackNames { track, name } = *names;
            let upid = id.process(tgid as i32);
            id.thread(tid);
            let track = tracks.get(TrackKind::ProcessAsync { upid }, Some(track));
            SliceOp::Instant { track, name, category: None }
        }
        AtraceOp::Counter { .. } => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Name;
    use crate::read::records::AtraceRec;

    fn rec(ts: i64, tid: i32, op: AtraceOp) -> AtraceRec {
        AtraceRec { ts, order: ts as u64, tid, op }
    }

    #[test]
    fn records_become_operations_on_the_right_tracks() {
        let n = |s: &str| Name::from(s);
        let b = Batch {
            atrace: vec![
                rec(1, 11, AtraceOp::Begin { tgid: 10, name: n("doFrame") }),
                rec(2, 11, AtraceOp::Counter { tgid: 10, name: n("jitter"), value: 5.0 }),
                rec(3, 11, AtraceOp::End { tgid: 10 }),
                // An end without tgid from a thread never seen: the trace's cut start.
                rec(4, 99, AtraceOp::End { tgid: 0 }),
                rec(5, 12, AtraceOp::AsyncBegin { tgid: 10, name: n("load"), cookie: 3 }),
            ],
            ..Default::default()
        };
        let (mut id, mut tracks, mut meta, mut ops_out) =
            (Identity::default(), Tracks::default(), TraceMeta::default(), Ops::default());
        ops(&mut [b], Some(2), &mut id, &mut tracks, &mut meta, &mut ops_out);
        // ts 1 is before the valid start.
        assert_eq!((meta.data_loss.events_before_start, meta.atrace_events), (1, 4));
        assert_eq!((meta.data_loss.unmatched_ends, meta.cut_at_start), (0, 1));
        assert_eq!(ops_out.counters.len(), 1);
        assert_eq!(ops_out.slices.len(), 2);
        assert!(matches!(ops_out.slices[0].op, SliceOp::End { .. }));
        assert!(matches!(&ops_out.slices[1].op, SliceOp::AsyncBegin { key, .. } if key.2 == 3));
        let tracks = tracks.finish();
        assert!(matches!(tracks[0].kind, TrackKind::ProcessCounter { .. }));
        assert_eq!(id.known_thread(11).map(|u| id.threads[u.index()].upid), Some(Some(id.process(10))));
    }
}
