//! Slices (trace_processor's SliceTracker): begin/end/instant operations from
//! atrace and track events, ordered by (timestamp, file order), run through a
//! stack per track; legacy async slices keyed by (process, name, cookie).

use foldhash::HashMap;

use rayon::slice::ParallelSliceMut;
use rustc_hash::FxHashMap;

use super::loss::Explain;
use crate::model::{LostBegin, Name, Slice, SliceId, TrackId, Upid};

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

/// What the slice tracker made of the ends with nothing open.
#[derive(Debug, Default)]
pub(crate) struct Unmatched {
    /// Ends no reported loss explains: the capture started mid-slice.
    pub(crate) cut_at_start: u64,
    /// Ends a reported loss explains (their begins were lost).
    pub(crate) lost: Vec<LostBegin>,
}

/// Build the slices from two sorted runs of operations (atrace's, from
/// ftrace, and the track events', sorted separately so the first sorts
/// while the second is made), applied merged in (ts, order) order. Slices
/// too deep are dropped and counted (the returned number); their ends, when
/// they find nothing open, are theirs. Any other end with nothing open is
/// the capture's start unless `explain` finds a reported loss that could
/// have taken its begin (docs/limits.md, "Slice ends without a begin").
pub(crate) fn build(runs: [SortedOps; 2], explain: &Explain, unmatched: &mut Unmatched) -> (Vec<Slice>, u64) {
    let [SortedOps(a), SortedOps(b)] = runs;
    let mut t = SliceTracker { slices: Vec::with_capacity((a.len() + b.len()) / 2), ..Default::default() };
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let (next, from_ftrace) = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if (y.ts, y.order) < (x.ts, x.order) => (b.next(), false),
            (Some(_), _) => (a.next(), true),
            (None, _) => (b.next(), false),
        };
        let Some(o) = next else { break };
        match t.apply(o.ts, o.op) {
            None => {}
            Some(Unpaired::Start) => unmatched.cut_at_start += 1,
            Some(Unpaired::On(track)) => match explain.cause(o.ts, o.order, from_ftrace) {
                Some(cause) => unmatched.lost.push(LostBegin { ts: o.ts, track, cause }),
                None => unmatched.cut_at_start += 1,
            },
        }
    }
    (t.slices, t.too_deep)
}

/// An end with nothing open.
enum Unpaired {
    /// An async end whose name has had no begin: the process's slices of
    /// that name start after it, so it is the capture's start.
    Start,
    /// An end on this track.
    On(TrackId),
}

#[derive(Default)]
struct SliceTracker {
    slices: Vec<Slice>,
    /// One stack per track that has had a begin.
    stacks: FxHashMap<TrackId, Vec<SliceId>>,
    open_async: HashMap<AsyncKey, SliceId>,
    /// (process, name) of the async slices that have had a begin, and their track.
    async_begun: HashMap<(Upid, Name), TrackId>,
    too_deep: u64,
    /// Per track, begins dropped too deep whose ends have not come yet.
    too_deep_open: FxHashMap<TrackId, u64>,
}

impl SliceTracker {
    /// Apply one operation; an end with nothing open (and no too-deep begin
    /// of its track to end) says so.
    fn apply(&mut self, ts: i64, op: SliceOp) -> Option<Unpaired> {
        match op {
            SliceOp::Begin { track, name, category } => self.open(ts, track, name, category, true),
            // An instant (dur 0) does not stay open.
            SliceOp::Instant { track, name, category } => self.open(ts, track, name, category, false),
            SliceOp::End { track } => match self.stacks.get_mut(&track).and_then(|s| s.pop()) {
                Some(sid) => self.close(sid, ts),
                None => return self.unmatched(track).map(Unpaired::On),
            },
            SliceOp::AsyncBegin { track, key, name } => {
                let key = *key;
                // Android's legacy async slices do not nest: a second S for the
                // same cookie while one is open is ignored (trace_processor's
                // BeginLegacyUnnestable).
                if self.open_async.contains_key(&key) {
                    return None;
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
                self.async_begun.insert((key.0, key.1.clone()), track);
                self.open_async.insert(key, id);
            }
            SliceOp::AsyncEnd { key } => match self.open_async.remove(&*key) {
                Some(sid) => self.close(sid, ts),
                None => {
                    return Some(match self.async_begun.get(&(key.0, key.1)) {
                        Some(&track) => Unpaired::On(track),
                        None => Unpaired::Start,
                    })
                }
            },
        }
        None
    }

    /// An end on `track` with nothing open: the end of a begin dropped too
    /// deep (`None`), else unmatched.
    fn unmatched(&mut self, track: TrackId) -> Option<TrackId> {
        match self.too_deep_open.get_mut(&track) {
            Some(n) if *n > 0 => {
                *n -= 1;
                None
            }
            _ => Some(track),
        }
    }

    fn open(&mut self, ts: i64, track: TrackId, name: Name, category: Option<Name>, stays_open: bool) {
        let stack = self.stacks.entry(track).or_default();
        // trace_processor drops a slice that would nest deeper than its
        // kMaxDepth (stat slice_max_depth_exceeded); a hostile trace of
        // unmatched B lines is then bounded per thread.
        if stack.len() >= MAX_SLICE_DEPTH {
            self.too_deep += 1;
            *self.too_deep_open.entry(track).or_default() += 1;
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
    use crate::model::{LossCause, LossGap};

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

    const NO_LOSS: Explain<'static> = Explain { gaps: &[], first_drop: None };

    fn run(runs: [SortedOps; 2], explain: &Explain) -> (Vec<Slice>, u64, Unmatched) {
        let mut u = Unmatched::default();
        let (s, deep) = build(runs, explain, &mut u);
        (s, deep, u)
    }

    #[test]
    fn stacks_nest_per_track_in_time_order() {
        // Given out of order: the sort by (ts, order) restores B a, B b, E, E.
        let ops = vec![at(30, 4, end(0)), at(10, 1, begin(0, "a")), at(20, 3, end(0)), at(15, 2, begin(0, "b"))];
        let (s, deep, u) = run(one_run(ops), &NO_LOSS);
        assert_eq!(deep, 0);
        assert_eq!(
            s.iter().map(|s| (&*s.name, s.ts, s.dur, s.depth, s.parent)).collect::<Vec<_>>(),
            [("a", 10, 20, 0, None), ("b", 15, 5, 1, Some(SliceId(0)))]
        );
        assert_eq!((u.cut_at_start, u.lost.len()), (0, 0));
        // The same operations split between atrace's run and the track
        // events' run, each out of order: merged, the same slices.
        let atrace = || vec![at(30, 4, end(0)), at(10, 1, begin(0, "a"))];
        let track_events = || vec![at(20, 3, end(0)), at(15, 2, begin(0, "b"))];
        for [x, y] in [[atrace(), track_events()], [track_events(), atrace()]] {
            let (merged, _, _) = run([SortedOps::sort(x), SortedOps::sort(y)], &NO_LOSS);
            assert_eq!(
                merged.iter().map(|s| (&*s.name, s.ts, s.dur, s.depth)).collect::<Vec<_>>(),
                [("a", 10, 20, 0), ("b", 15, 5, 1)]
            );
        }
    }

    #[test]
    fn an_end_with_nothing_open_is_the_start_unless_a_reported_loss_explains_it() {
        let ops =
            || vec![at(5, 1, end(3)), at(6, 2, begin(3, "x")), at(7, 3, end(3)), at(8, 4, end(3)), at(9, 5, end(4))];
        // No loss reported: every one is the capture's start, before or
        // after its track's first begin (a begin written on a CPU whose
        // buffer starts later is gone too).
        let (s, _, u) = run(one_run(ops()), &NO_LOSS);
        assert_eq!((s.len(), s[0].dur, u.cut_at_start, u.lost.len()), (1, 1, 3, 0));
        // A gap after 7: the ends at 8 and 9 could have lost their begins in it.
        let gaps = [LossGap { cpu: 0, from: 7, to: 8, events: Some(2) }];
        let (_, _, u) = run(one_run(ops()), &Explain { gaps: &gaps, first_drop: None });
        let gap = LossCause::Gap(0);
        let want =
            [LostBegin { ts: 8, track: TrackId(3), cause: gap }, LostBegin { ts: 9, track: TrackId(4), cause: gap }];
        assert_eq!((u.cut_at_start, &u.lost[..]), (1, &want[..]));
        // Track events are not ftrace: the gap explains none of theirs; a
        // packet dropped at file order 3 explains the ends after it.
        let (_, _, u) =
            run([SortedOps::sort(Vec::new()), SortedOps::sort(ops())], &Explain { gaps: &gaps, first_drop: Some(3) });
        let dropped = LossCause::PacketsDropped;
        let want = [
            LostBegin { ts: 8, track: TrackId(3), cause: dropped },
            LostBegin { ts: 9, track: TrackId(4), cause: dropped },
        ];
        assert_eq!((u.cut_at_start, &u.lost[..]), (1, &want[..]));
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
        // Even with a gap before it, the first end is the start; the last
        // one is on the name's track, after the gap.
        let gaps = [LossGap { cpu: 0, from: 0, to: 1, events: Some(1) }];
        let (_, _, u) = run(one_run(ops), &Explain { gaps: &gaps, first_drop: None });
        assert_eq!(
            (u.cut_at_start, &u.lost[..]),
            (1, &[LostBegin { ts: 4, track: TrackId(1), cause: LossCause::Gap(0) }][..])
        );
    }

    #[test]
    fn too_deep_begins_are_dropped_and_their_ends_are_theirs() {
        let n = MAX_SLICE_DEPTH as i64 + 3;
        let mut ops: Vec<_> = (0..n).map(|k| at(k, k as u64, begin(0, "x"))).collect();
        ops.extend((n..2 * n + 1).map(|k| at(k, k as u64, end(0))));
        let (s, deep, u) = run(one_run(ops), &NO_LOSS);
        assert_eq!((s.len(), deep), (MAX_SLICE_DEPTH, 3));
        // 512 ends close the kept slices, 3 end the dropped begins, 1 is unpaired.
        assert_eq!((u.cut_at_start, u.lost.len()), (1, 0));
    }

    #[test]
    fn async_slices_ignore_a_second_begin_of_an_open_cookie() {
        let key: AsyncKey = (Upid(0), "load".into(), 7);
        let ops = vec![
            at(1, 1, SliceOp::AsyncBegin { track: TrackId(1), key: key.clone().into(), name: "load".into() }),
            at(2, 2, SliceOp::AsyncBegin { track: TrackId(1), key: key.clone().into(), name: "load".into() }),
            at(9, 3, SliceOp::AsyncEnd { key: key.into() }),
        ];
        let (s, _, _) = run(one_run(ops), &NO_LOSS);
        assert_eq!(s.iter().map(|s| (s.ts, s.dur)).collect::<Vec<_>>(), [(1, 8)]);
    }
}
