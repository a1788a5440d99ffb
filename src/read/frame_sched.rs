//! The frame threads' scheduler events, kept by the first pass. The "why" of
//! every frame needs its thread's Running/Runnable/Sleeping split, which
//! comes from that thread's sched_switch / sched_waking records; reading
//! them in a second pass decodes every ftrace bundle of the trace again
//! (0.5 s of 1.8 s on a 1 GB busy trace). So while the first pass decodes a
//! batch it also keeps the records of the threads known, when the batch
//! began, to run `Choreographer#doFrame` (atrace writers, and the threads of
//! TrackEvent tracks); a thread found later is kept from the batches begun
//! after that. The scheduler pass (`sched::collect`) takes a batch's kept
//! records when they cover every thread it is asked about and reads the
//! batch again otherwise, so what it returns never depends on when, or
//! whether, a thread was found here.

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use super::ftrace::Switch;
use super::records::{EventName, SchedRecord, TailBody};
use super::sched;
use super::slim;

/// `TrackEvent.Type` of a slice's beginning.
const TRACK_EVENT_BEGIN: i32 = 1;

/// The name every frame's slice begins with (`frames::select` decides which
/// of them are frames; keeping a few threads too many costs only memory).
pub const DO_FRAME: &str = "Choreographer#doFrame";

/// At most this many threads are kept; a hostile trace with a doFrame on
/// every thread gets the second pass for the rest.
const MAX_THREADS: usize = 256;
/// At most this many TrackEvent thread tracks are remembered.
const MAX_TRACKS: usize = 1 << 16;

/// A set of tids, tested once or twice per scheduler event: a 64-bit mask of
/// `tid % 64` turns most tids away before the binary search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TidFilter {
    mask: u64,
    tids: Vec<i32>,
}

impl TidFilter {
    pub fn new(tids: impl IntoIterator<Item = i32>) -> TidFilter {
        let mut tids: Vec<i32> = tids.into_iter().collect();
        tids.sort_unstable();
        tids.dedup();
        let mask = tids.iter().fold(0u64, |m, &t| m | 1 << (t as u32 % 64));
        TidFilter { mask, tids }
    }

    #[inline]
    pub fn contains(&self, tid: i32) -> bool {
        self.mask >> (tid as u32 % 64) & 1 != 0 && self.tids.binary_search(&tid).is_ok()
    }

    /// The tids, sorted.
    pub fn tids(&self) -> &[i32] {
        &self.tids
    }

    pub fn is_empty(&self) -> bool {
        self.tids.is_empty()
    }
}

/// What the decoding workers have found so far, shared between them.
#[derive(Debug, Default)]
pub struct Discovery {
    /// The threads whose records a batch begun now keeps.
    threads: Mutex<Arc<TidFilter>>,
    /// TrackEvent track uuid → the thread its descriptor names.
    thread_tracks: Mutex<FxHashMap<u64, i32>>,
}

impl Discovery {
    /// The collector of a batch about to be decoded.
    pub fn collector(self: &Arc<Self>) -> Collector {
        let wanted = self.threads.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Collector {
            discovery: self.clone(),
            wanted,
            records: Vec::new(),
            found: Vec::new(),
            tracks: Vec::new(),
            track_frames: Vec::new(),
        }
    }
}

/// One batch's share: the scheduler records of the threads known when it
/// began, and what it found for the batches after it.
#[derive(Debug)]
pub struct Collector {
    discovery: Arc<Discovery>,
    wanted: Arc<TidFilter>,
    records: Vec<SchedRecord>,
    /// doFrame writers not in `wanted`.
    found: Vec<i32>,
    /// (uuid, tid) of the thread track descriptors seen.
    tracks: Vec<(u64, i32)>,
    /// Track uuids of TrackEvent doFrames.
    track_frames: Vec<u64>,
}

/// A batch's kept records: every scheduler record of `threads` in the batch,
/// by (tid, timestamp, file order).
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    pub threads: Arc<TidFilter>,
    pub records: Vec<SchedRecord>,
}

impl Collector {
    /// A sched_switch at `ts` on `cpu`.
    #[inline]
    pub(super) fn switch(&mut self, ts: i64, cpu: u32, sw: &Switch) {
        sched::switch_records(&self.wanted, ts, cpu, (sw.prev_pid, sw.prev_state, sw.next_pid), &mut self.records);
    }

    /// A sched_waking / sched_wakeup of `pid` at `ts`.
    #[inline]
    pub(super) fn waking(&mut self, ts: i64, pid: i32) {
        sched::waking_record(&self.wanted, ts, pid, &mut self.records);
    }

    /// Room for `n` records.
    pub(super) fn reserve(&mut self, n: usize) {
        self.records.reserve(n);
    }

    /// Where a compact_sched's records go, unless no thread is kept.
    pub(super) fn compact_target(&mut self) -> Option<(&TidFilter, &mut Vec<SchedRecord>)> {
        (!self.wanted.is_empty()).then_some((&*self.wanted, &mut self.records))
    }

    /// An atrace slice begun by `tid`.
    #[inline]
    pub fn atrace_begin(&mut self, tid: i32, name: &str) {
        // Bounded: a batch of doFrames on a million threads stays linear.
        if self.found.len() < MAX_THREADS
            && name.starts_with(DO_FRAME)
            && !self.wanted.contains(tid)
            && !self.found.contains(&tid)
        {
            self.found.push(tid);
        }
    }

    /// A long-tail packet: a thread track's descriptor, or a TrackEvent
    /// (its name interned in the same packet, as the Perfetto SDK does with
    /// each new name; names interned earlier are not looked up).
    pub fn tail_packet(&mut self, body: &TailBody, interned: Option<&slim::InternedData>) {
        match body {
            TailBody::TrackDescriptor(d) => {
                if let (Some(uuid), Some(tid)) = (d.uuid, d.thread.as_ref().and_then(|t| t.tid)) {
                    self.thread_track(uuid, tid);
                }
            }
            TailBody::TrackEvent(te) if te.kind == TRACK_EVENT_BEGIN => {
                let name = match &te.name {
                    EventName::Inline(n) => Some(&**n),
                    EventName::Interned(iid) => interned
                        .and_then(|i| i.event_names.iter().find(|n| n.iid == Some(*iid)))
                        .and_then(|n| n.name.as_deref()),
                    EventName::None => None,
                };
                if let (Some(uuid), Some(name)) = (te.track_uuid, name) {
                    self.track_event_begin(uuid, name);
                }
            }
            _ => {}
        }
    }

    fn thread_track(&mut self, uuid: u64, tid: i32) {
        self.tracks.push((uuid, tid));
    }

    /// A TrackEvent slice begun on track `uuid`.
    fn track_event_begin(&mut self, uuid: u64, name: &str) {
        if self.track_frames.len() < MAX_THREADS && name.starts_with(DO_FRAME) && !self.track_frames.contains(&uuid) {
            self.track_frames.push(uuid);
        }
    }

    /// Hand what this batch found to the batches after it; the kept records.
    pub fn finish(mut self) -> Kept {
        if !self.tracks.is_empty() || !self.track_frames.is_empty() {
            let mut tracks = self.discovery.thread_tracks.lock().unwrap_or_else(|e| e.into_inner());
            for &(uuid, tid) in &self.tracks {
                if tracks.len() < MAX_TRACKS || tracks.contains_key(&uuid) {
                    tracks.insert(uuid, tid);
                }
            }
            for uuid in &self.track_frames {
                match tracks.get(uuid) {
                    Some(&tid) if !self.wanted.contains(tid) && !self.found.contains(&tid) => self.found.push(tid),
                    _ => {}
                }
            }
        }
        if !self.found.is_empty() {
            let mut threads = self.discovery.threads.lock().unwrap_or_else(|e| e.into_inner());
            let room = MAX_THREADS.saturating_sub(threads.tids.len());
            let new: Vec<i32> = self.found.iter().copied().filter(|&t| !threads.contains(t)).take(room).collect();
            if !new.is_empty() {
                *threads = Arc::new(TidFilter::new(threads.tids.iter().copied().chain(new)));
            }
        }
        // Sorted here, while small and in this core's cache, so that the
        // scheduler pass only merges.
        sort_kept(&self.wanted, &mut self.records);
        Kept { threads: self.wanted, records: self.records }
    }
}

thread_local! {
    /// [`sort_kept`]'s second buffer, one per decoding worker: reused from
    /// batch to batch, its pages are not fresh each time.
    static SORT_BUFFER: std::cell::RefCell<Vec<SchedRecord>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Sort a batch's kept records (all of `threads`, in file order) by (tid,
/// timestamp, file order), as a stable sort on (tid, timestamp) would. A
/// thread's records are a few dozen runs already in time order (one per
/// bundle and column), so a stable counting sort on the thread and a
/// bottom-up merge of each thread's runs replace the general sort, which
/// was 0.14 s of CPU on the 1 GB busy trace.
fn sort_kept(threads: &TidFilter, records: &mut [SchedRecord]) {
    let ranks: Option<Vec<u32>> = records.iter().map(|r| threads.tids.binary_search(&r.tid()).ok().map(|k| k as u32)).collect();
    let Some(ranks) = ranks else {
        // Only records of `threads` are kept; anything else is sorted the plain way.
        records.sort_by_key(|r| (r.tid(), r.ts()));
        return;
    };
    let mut bounds = vec![0usize; threads.tids.len() + 1];
    for &k in &ranks {
        bounds[k as usize + 1] += 1;
    }
    for k in 1..bounds.len() {
        bounds[k] += bounds[k - 1];
    }
    SORT_BUFFER.with_borrow_mut(|buffer| {
        buffer.clear();
        buffer.resize(records.len(), SchedRecord::Waking { ts: 0, tid: 0 });
        let mut next = bounds.clone();
        for (r, &k) in records.iter().zip(&ranks) {
            buffer[next[k as usize]] = *r;
            next[k as usize] += 1;
        }
        for w in bounds.windows(2) {
            merge_runs_by_time(&mut buffer[w[0]..w[1]], &mut records[w[0]..w[1]]);
        }
    });
}

/// Sort `from` (records of one thread in file order) stably by timestamp
/// into `to`, merging its ascending runs pairwise, bottom-up; `from` is
/// left in any order.
fn merge_runs_by_time(from: &mut [SchedRecord], to: &mut [SchedRecord]) {
    let len = from.len();
    // Run k is starts[k]..starts[k + 1].
    let mut starts: Vec<usize> = std::iter::once(0)
        .chain((1..len).filter(|&i| from[i].ts() < from[i - 1].ts()))
        .chain(std::iter::once(len))
        .collect();
    let (mut src, mut dst) = (from, to);
    let mut result_in_to = false;
    while starts.len() > 2 {
        let runs = starts.len() - 1;
        let mut merged = Vec::with_capacity(runs / 2 + 2);
        for k in (0..runs).step_by(2) {
            let (lo, mid, hi) = (starts[k], starts[k + 1], starts[(k + 2).min(runs)]);
            merge(&src[lo..mid], &src[mid..hi], &mut dst[lo..hi]);
            merged.push(lo);
        }
        merged.push(len);
        starts = merged;
        std::mem::swap(&mut src, &mut dst);
        result_in_to = !result_in_to;
    }
    if !result_in_to {
        dst.copy_from_slice(src);
    }
}

/// Merge two runs sorted by timestamp into `out`, the left run first on ties.
fn merge(left: &[SchedRecord], right: &[SchedRecord], out: &mut [SchedRecord]) {
    let (mut i, mut j) = (0, 0);
    for slot in out.iter_mut() {
        if j == right.len() || (i < left.len() && left[i].ts() <= right[j].ts()) {
            *slot = left[i];
            i += 1;
        } else {
            *slot = right[j];
            j += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record((tid, ts, kind): (i32, i64, u8)) -> SchedRecord {
        match kind {
            0 => SchedRecord::switch_in(ts, tid, 1),
            1 => SchedRecord::switch_out(ts, tid, 2, 1),
            _ => SchedRecord::Waking { ts, tid },
        }
    }

    proptest::proptest! {
        /// The kept records' sort is the stable sort on (tid, timestamp),
        /// whatever the runs (each chunk comes in time order, as a bundle's
        /// events do), ties and thread mix.
        #[test]
        fn sort_kept_is_the_stable_sort_by_thread_and_time(
            chunks in proptest::collection::vec(
                proptest::collection::vec((0i32..3, 0i64..60, 0u8..3), 0..40), 0..12),
        ) {
            let mut records = Vec::new();
            for mut chunk in chunks {
                chunk.sort_by_key(|c| c.1);
                records.extend(chunk.into_iter().map(record));
            }
            let mut want = records.clone();
            want.sort_by_key(|r| (r.tid(), r.ts()));
            let mut got = records.clone();
            sort_kept(&TidFilter::new(0..3), &mut got);
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn sort_kept_sorts_records_of_other_threads_the_plain_way() {
        let mut got: Vec<SchedRecord> = [(9, 5, 2), (1, 7, 0), (9, 1, 1), (1, 7, 2)].into_iter().map(record).collect();
        sort_kept(&TidFilter::new([1]), &mut got);
        let want: Vec<SchedRecord> = [(1, 7, 0), (1, 7, 2), (9, 1, 1), (9, 5, 2)].into_iter().map(record).collect();
        assert_eq!(got, want);
    }

    /// A hostile batch with a doFrame on each of 200 000 threads: the
    /// search stays linear and at most 256 threads are kept.
    #[test]
    fn a_doframe_on_every_thread_keeps_256_threads() {
        let discovery = Arc::new(Discovery::default());
        let mut c = discovery.collector();
        for tid in 0..200_000 {
            c.atrace_begin(tid, "Choreographer#doFrame 1");
            c.thread_track(tid as u64, tid);
            c.track_event_begin(tid as u64, "Choreographer#doFrame 2");
        }
        c.finish();
        assert_eq!(discovery.collector().finish().threads.tids(), (0..256).collect::<Vec<_>>());
    }

    #[test]
    fn tid_filter_holds_exactly_its_tids() {
        let f = TidFilter::new([70, 6, -3, 6]);
        assert_eq!(f.tids(), [-3, 6, 70]);
        assert!(f.contains(6) && f.contains(70) && f.contains(-3));
        // 134 shares 6's mask bit; 7 does not.
        assert!(!f.contains(134) && !f.contains(7) && !f.contains(0));
        assert!(TidFilter::default().is_empty() && !TidFilter::default().contains(0));
    }

    #[test]
    fn threads_found_by_a_batch_are_kept_by_the_batches_begun_after_it() {
        let discovery = Arc::new(Discovery::default());
        let mut first = discovery.collector();
        let concurrent = discovery.collector();
        first.atrace_begin(10, "Choreographer#doFrame 5");
        first.atrace_begin(11, "traversal");
        first.thread_track(0xabc, 20);
        first.track_event_begin(0xabc, "Choreographer#doFrame 6");
        first.track_event_begin(0xdef, "Choreographer#doFrame 7");
        assert!(first.finish().threads.is_empty());
        assert!(concurrent.finish().threads.is_empty());
        let mut later = discovery.collector();
        // The descriptor came in an earlier batch.
        later.track_event_begin(0xdef, "Choreographer#doFrame 8");
        assert_eq!(later.finish().threads.tids(), [10, 20]);
        let mut last = discovery.collector();
        last.thread_track(0xdef, 30);
        assert_eq!(last.finish().threads.tids(), [10, 20]);
        assert_eq!(discovery.collector().finish().threads.tids(), [10, 20]);
    }
}
