//! Slices (trace_processor's SliceTracker): begin/end/instant operations from
//! atrace and track events, ordered by (timestamp, file order), run through a
//! stack per track; legacy async slices keyed by (process, name, cookie).

use foldhash::{HashMap, HashSet};

use rayon::slice::ParallelSliceMut;
use rustc_hash::FxHashMap;

use crate::model::{DataLoss, Name, Slice, SliceId, TrackId, Upid};

/// Slices nest at most this deep on one track; deeper begins are dropped and
/// counted, as trace_processor does (`SliceTracker::kMaxDepth`).
pub const MAX_SLICE_DEPTH: usize = 512;

/// An async slice's identity: Android's legacy async slices are keyed by
/// (process, name, cookie).
pub(crate) type AsyncKey = (Upid, Name, i64);

/// A slice operation, from atrace or track_event.
pub(crate) enum SliceOp {
    Begin { track: TrackId, name: Name, category: Option<Name> },
    End { track: TrackId },
    Instant { track: TrackId, name: Name, category: Option<Name> },
    // Keys boxed: the async operations are few, and inline they made every
    // operation 72 bytes instead of 56 (a 1 GB trace has 600,000 of them).
    AsyncBegin { track: TrackId, key: Box<AsyncKey>, name: Name },
    AsyncEnd { key: Box<AsyncKey> },
}

/// An operation at (ts, file order): the sort key trace_processor's sorter uses.
pub(crate) struct Timed<T> {
    pub(crate) ts: i64,
    pub(crate) order: u64,
    pub(crate) op: T,
}

const _: () = assert!(std::mem::size_of::<Timed<SliceOp>>() == 56);

/// Slice operations in (timestamp, file order), trace_processor's sorter
/// order.
pub(crate) struct SortedOps(Vec<Timed<SliceOp>>);

impl SortedOps {
    pub(crate) fn sort(mut ops: Vec<Timed<SliceOp>>) -> SortedOps {
        // (ts, order) is unique, so the parallel unstable sort is deterministic.
        ops.par_sort_unstable_by_key(|o| (o.ts, o.order));
        SortedOps(ops)
    }
}

/// Build the slices from two sorted runs of operations (atrace's and the
/// track events', sorted separately so the first sorts while the second is
/// made), applied merged in (ts, order) order. Slices too deep are dropped
/// and counted (the returned number). An end with nothing open is one of two
/// things:
/// * on a track that has had no begin yet, the trace started in the middle
///   of that slice (a ring buffer's cut start, normal in every legacy
///   systrace): counted in `cut_at_start`, information, not loss;
/// * after the track's first begin, its begin was lost (or the app's
///   begins and ends do not pair): counted in `loss.unmatched_ends`.
pub(crate) fn build(runs: [SortedOps; 2], loss: &mut DataLoss, cut_at_start: &mut u64) -> (Vec<Slice>, u64) {
    let [SortedOps(a), SortedOps(b)] = runs;
    let mut t = SliceTracker { slices: Vec::with_capacity((a.len() + b.len()) / 2), ..Default::default() };
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if (y.ts, y.order) < (x.ts, x.order) => b.next(),
            (Some(_), _) => a.next(),
            (None, _) => b.next(),
        };
        let Some(o) = next else { break };
        t.apply(o.ts, o.op, loss);
    }
    *cut_at_start += t.cut_at_start;
    (t.slices, t.too_deep)
}

#[derive(Default)]
struct SliceTracker {
    slices: Vec<Slice>,
    /// One stack per track that has had a begin.
    stacks: FxHashMap<TrackId, Vec<SliceId>>,
    open_async: HashMap<AsyncKey, SliceId>,
    /// (process, name) of the async slices that have had a begin.
    async_begun: HashSet<(Upid, Name)>,
    too_deep: u64,
    cut_at_start: u64,
}

impl SliceTracker {
    fn apply(&mut self, ts: i64, op: SliceOp, loss: &mut DataLoss) {
        match op {
            SliceOp::Begin { track, name, category } => self.open(ts, track, name, category, true),
            // An instant (dur 0) does not stay open.
            SliceOp::Instant { track, name, category } => self.open(ts, track, name, category, false),
            SliceOp::End { track } => match self.stacks.get_mut(&track).map(|s| s.pop()) {
                Some(Some(sid)) => self.close(sid, ts),
                Some(None) => loss.unmatched_ends += 1,
                None => self.cut_at_start += 1,
            },
            SliceOp::AsyncBegin { track, key, name } => {
                let key = *key;
                // Android's legacy async slices do not nest: a second S for the
                // same cookie while one is open is ignored (trace_processor's
                // BeginLegacyUnnestable).
                if self.open_async.contains_key(&key) {
                    return;
                }
                let id = self.push(Slice {
                    id: SliceId(0),
                    ts,
                    dur: -1,
                    name,
                    category: None,
                    track,
                    depth: 0,
                    parent: None,
                });
                self.async_begun.insert((key.0, key.1.clone()));
                self.open_async.insert(key, id);
            }
            SliceOp::AsyncEnd { key } => match self.open_async.remove(&*key) {
                Some(sid) => self.close(sid, ts),
                None if self.async_begun.contains(&(key.0, key.1)) => loss.unmatched_ends += 1,
                None => self.cut_at_start += 1,
            },
        }
    }

    fn open(&mut self, ts: i64, track: TrackId, name: Name, category: Option<Name>, stays_open: bool) {
        let stack = self.stacks.entry(track).or_default();
        // trace_processor drops a slice that would nest deeper than its
        // kMaxDepth (stat slice_max_depth_exceeded); a hostile trace of
        // unmatched B lines is then bounded per thread.
        if stack.len() >= MAX_SLICE_DEPTH {
            self.too_deep += 1;
            return;
        }
        let (depth, parent) = (stack.len() as u32, stack.last().copied());
        let dur = if stays_open { -1 } else { 0 };
        let id = self.push(Slice { id: SliceId(0), ts, dur, name, category, track, depth, parent });
        if stays_open {
            self.stacks.entry(track).or_default().push(id);
        }
    }

    fn push(&mut self, mut s: Slice) -> SliceId {
        s.id = SliceId::next_of(self.slices.len());
        let id = s.id;
        self.slices.push(s);
        id
    }

    fn close(&mut self, sid: SliceId, ts: i64) {
        let s = &mut self.slices[sid.index()];
        // Ops are sorted, so this is ≥ 0; timestamps are input data and may
        // sit at the i64 limits, hence saturating.
        s.dur = ts.saturating_sub(s.ts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ts: i64, order: u64, op: SliceOp) -> Timed<SliceOp> {
        Timed { ts, order, op }
    }
    fn begin(track: u32, name: &str) -> SliceOp {
        SliceOp::Begin { track: TrackId(track), name: name.into(), category: None }
    }
    fn end(track: u32) -> SliceOp {
        SliceOp::End { track: TrackId(track) }
    }
    fn one_run(ops: Vec<Timed<SliceOp>>) -> [SortedOps; 2] {
        [SortedOps::sort(ops), SortedOps::sort(Vec::new())]
    }

    #[test]
    fn stacks_nest_per_track_in_time_order() {
        // Given out of order: the sort by (ts, order) restores B a, B b, E, E.
        let ops = vec![at(30, 4, end(0)), at(10, 1, begin(0, "a")), at(20, 3, end(0)), at(15, 2, begin(0, "b"))];
        let mut loss = DataLoss::default();
        let (s, deep) = build(one_run(ops), &mut loss, &mut 0);
        assert_eq!(deep, 0);
        assert_eq!(
            s.iter().map(|s| (&*s.name, s.ts, s.dur, s.depth, s.parent)).collect::<Vec<_>>(),
            [("a", 10, 20, 0, None), ("b", 15, 5, 1, Some(SliceId(0)))]
        );
        assert_eq!(loss.unmatched_ends, 0);
        // The same operations split between atrace's run and the track
        // events' run, each out of order: merged, the same slices.
        let atrace = || vec![at(30, 4, end(0)), at(10, 1, begin(0, "a"))];
        let track_events = || vec![at(20, 3, end(0)), at(15, 2, begin(0, "b"))];
        for [x, y] in [[atrace(), track_events()], [track_events(), atrace()]] {
            let (merged, _) = build([SortedOps::sort(x), SortedOps::sort(y)], &mut DataLoss::default(), &mut 0);
            assert_eq!(
                merged.iter().map(|s| (&*s.name, s.ts, s.dur, s.depth)).collect::<Vec<_>>(),
                [("a", 10, 20, 0), ("b", 15, 5, 1)]
            );
        }
    }

    #[test]
    fn an_end_before_the_tracks_first_begin_is_the_cut_start_not_loss() {
        let (mut loss, mut cut) = (DataLoss::default(), 0);
        let ops = vec![at(5, 1, end(3)), at(6, 2, begin(3, "x")), at(7, 3, end(3)), at(8, 4, end(3)), at(9, 5, end(4))];
        let (s, _) = build(one_run(ops), &mut loss, &mut cut);
        // Track 3: the first E is the cut start, the last one lost its B.
        // Track 4 never had a B: cut start too.
        assert_eq!((s.len(), s[0].dur, loss.unmatched_ends, cut), (1, 1, 1, 2));
    }

    #[test]
    fn an_async_end_before_any_begin_of_its_name_is_the_cut_start() {
        let key = |cookie| -> AsyncKey { (Upid(0), "load".into(), cookie) };
        let ops = vec![
            at(1, 1, SliceOp::AsyncEnd { key: key(1).into() }),
            at(2, 2, SliceOp::AsyncBegin { track: TrackId(1), key: key(2).into(), name: "load".into() }),
            at(3, 3, SliceOp::AsyncEnd { key: key(2).into() }),
            at(4, 4, SliceOp::AsyncEnd { key: key(3).into() }),
        ];
        let (mut loss, mut cut) = (DataLoss::default(), 0);
        build(one_run(ops), &mut loss, &mut cut);
        assert_eq!((loss.unmatched_ends, cut), (1, 1));
    }

    #[test]
    fn too_deep_begins_are_dropped() {
        let ops: Vec<_> = (0..MAX_SLICE_DEPTH as i64 + 3).map(|k| at(k, k as u64, begin(0, "x"))).collect();
        let (s, deep) = build(one_run(ops), &mut DataLoss::default(), &mut 0);
        assert_eq!((s.len(), deep), (MAX_SLICE_DEPTH, 3));
    }

    #[test]
    fn async_slices_ignore_a_second_begin_of_an_open_cookie() {
        let key: AsyncKey = (Upid(0), "load".into(), 7);
        let ops = vec![
            at(1, 1, SliceOp::AsyncBegin { track: TrackId(1), key: key.clone().into(), name: "load".into() }),
            at(2, 2, SliceOp::AsyncBegin { track: TrackId(1), key: key.clone().into(), name: "load".into() }),
            at(9, 3, SliceOp::AsyncEnd { key: key.into() }),
        ];
        let (s, _) = build(one_run(ops), &mut DataLoss::default(), &mut 0);
        assert_eq!(s.iter().map(|s| (s.ts, s.dur)).collect::<Vec<_>>(), [(1, 8)]);
    }
}
