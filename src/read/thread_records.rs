//! A chosen few threads' scheduler records (`SchedRecord`): made from a
//! sched_switch or sched_waking by every reader (both passes over a protobuf
//! trace, systrace text), sorted by (thread, time) a batch at a time while
//! small, and gathered into one vector per thread ([`ThreadBuckets`]).

use rayon::prelude::*;

use super::records::{SchedRecord, TidFilter, Waker};

/// Scheduler records, given in file order a run at a time, gathered into one
/// vector per wanted thread, each by (timestamp, file order). A run (a batch
/// the first pass kept, or a window read again) is sorted by (tid,
/// timestamp) on its own, while small; its share of each thread is then
/// merged onto that thread's vector. Runs overlap in time only where one
/// ends and the next begins (each CPU's events come in time order), so a
/// merge touches a short tail of the vector. A merge that would reach far
/// back gives up: the thread's records are then sorted once at the end.
/// (One stable sort of all of a thread's records at the end was most of
/// the pass's time on a busy trace.)
pub struct ThreadBuckets {
    /// The wanted tids, sorted: bucket `k` holds `tids[k]`'s records.
    tids: Vec<i32>,
    buckets: Vec<Bucket>,
    /// Reused by the merges.
    scratch: Vec<SchedRecord>,
}

#[derive(Debug, Clone)]
struct Bucket {
    records: Vec<SchedRecord>,
    /// `records` is by (timestamp, file order); when false, it is in file
    /// order and is sorted at the end.
    sorted: bool,
}

impl ThreadBuckets {
    pub fn new(tids: &[i32]) -> ThreadBuckets {
        let mut sorted = tids.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let bucket = Bucket { records: Vec::new(), sorted: true };
        ThreadBuckets { buckets: vec![bucket; sorted.len()], tids: sorted, scratch: Vec::new() }
    }

    /// Room for `n` more records of `tid`.
    pub fn reserve(&mut self, tid: i32, n: usize) {
        if let Ok(k) = self.tids.binary_search(&tid) {
            self.buckets[k].records.reserve(n);
        }
    }

    /// The next records in file order; those of threads not asked for are dropped.
    pub fn add(&mut self, mut records: Vec<SchedRecord>) {
        sort_by_thread_then_time(&self.tids, &mut records);
        self.add_sorted(&records);
    }

    /// The next records in file order, already sorted (stably) by (tid, timestamp).
    pub fn add_sorted(&mut self, records: &[SchedRecord]) {
        for run in records.chunk_by(|a, b| a.tid() == b.tid()) {
            if let Ok(k) = self.tids.binary_search(&run[0].tid()) {
                append_run(&mut self.buckets[k], run, &mut self.scratch);
            }
        }
    }

    /// Every thread that has records, by tid, each by (timestamp, file order).
    pub fn finish(mut self) -> Vec<Vec<SchedRecord>> {
        self.buckets.retain(|b| !b.records.is_empty());
        self.buckets.par_iter_mut().filter(|b| !b.sorted).for_each(|b| b.records.par_sort_by_key(SchedRecord::ts));
        self.buckets.into_iter().map(|b| b.records).collect()
    }
}

/// Put `run` (one thread's records, by timestamp, after all of `bucket`'s in
/// file order) onto `bucket`.
fn append_run(bucket: &mut Bucket, run: &[SchedRecord], scratch: &mut Vec<SchedRecord>) {
    let records = &mut bucket.records;
    let Some(first) = run.first().map(SchedRecord::ts) else { return };
    if !bucket.sorted || records.last().is_none_or(|last| last.ts() <= first) {
        records.extend_from_slice(run);
        return;
    }
    // Records at `first` already there came earlier in the file: they stay first.
    let from = records.partition_point(|r| r.ts() <= first);
    if records.len() - from > 4 * run.len() + 64 {
        bucket.sorted = false;
        records.extend_from_slice(run);
        return;
    }
    scratch.clear();
    scratch.extend_from_slice(&records[from..]);
    records.extend_from_slice(run);
    merge(scratch, run, &mut records[from..]);
}

/// At most this many records go through [`sort_by_thread_then_time`]'s
/// buffer (4 MB; a batch holds tens of thousands), which stays allocated.
const SORT_BUFFER_MAX: usize = 1 << 18;

thread_local! {
    /// The second buffer of [`sort_by_thread_then_time`] and of
    /// [`merge_columns`] (neither runs inside the other), one per thread
    /// (the decoding workers, the scheduler pass): reused from bundle to
    /// bundle and batch to batch, its pages are not fresh each time.
    static SORT_BUFFER: std::cell::RefCell<Vec<SchedRecord>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Sort records of the threads `tids` (sorted), given in file order, by
/// (tid, timestamp, file order), as a stable sort on (tid, timestamp) would.
/// A thread's records are a few dozen runs already in time order (one per
/// bundle and column), so a stable counting sort on the thread and a
/// bottom-up merge of each thread's runs replace the general sort (several
/// times more CPU on a busy trace's batches; `benches/readers.rs` times the decode).
pub(crate) fn sort_by_thread_then_time(tids: &[i32], records: &mut [SchedRecord]) {
    let ranks: Option<Vec<u32>> = (records.len() <= SORT_BUFFER_MAX)
        .then(|| records.iter().map(|r| tids.binary_search(&r.tid()).ok().map(|k| k as u32)).collect())
        .flatten();
    let Some(ranks) = ranks else {
        // More records than the buffer should keep (a whole systrace file's
        // at once), or records of other threads: the plain sort.
        records.sort_by_key(|r| (r.tid(), r.ts()));
        return;
    };
    let mut bounds = vec![0usize; tids.len() + 1];
    for &k in &ranks {
        bounds[k as usize + 1] += 1;
    }
    for k in 1..bounds.len() {
        bounds[k] += bounds[k - 1];
    }
    SORT_BUFFER.with_borrow_mut(|buffer| {
        buffer.clear();
        buffer.resize(records.len(), SchedRecord::Waking { ts: 0, tid: 0, waker: Waker::NONE });
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

/// A compact_sched bundle's records: `records[..mid]` from its switch
/// column, `records[mid..]` from its waking column. When each is in time
/// order (as the kernel writes them) they are merged into one run by time,
/// switches first on ties (file order), which is where the stable sort on
/// (tid, timestamp) puts them too. A thread's records in a batch are then
/// about one run per CPU it ran on instead of two per bundle, and
/// [`sort_by_thread_then_time`] merges a few runs instead of hundreds.
pub(crate) fn merge_columns(records: &mut [SchedRecord], mid: usize) {
    let (switches, wakings) = records.split_at(mid);
    if switches.is_empty()
        || wakings.is_empty()
        || switches.last().map(SchedRecord::ts) <= wakings.first().map(SchedRecord::ts)
        || !switches.is_sorted_by_key(SchedRecord::ts)
        || !wakings.is_sorted_by_key(SchedRecord::ts)
    {
        return;
    }
    SORT_BUFFER.with_borrow_mut(|copy| {
        copy.clear();
        copy.extend_from_slice(records);
        let (switches, wakings) = copy.split_at(mid);
        merge(switches, wakings, records);
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

/// Merge two runs sorted by timestamp into `out` (as long as both), the
/// left run first on ties.
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

/// The records of a sched_switch at `ts` on `cpu`, from its (prev_pid,
/// prev_state, next_pid): every reader of sched_switch (both passes over a
/// Perfetto trace, systrace text) makes them here.
#[inline(always)]
pub(crate) fn switch_records(
    wanted: &TidFilter,
    ts: i64,
    cpu: u32,
    (prev_pid, prev_state, next_pid): (i32, i64, i32),
    out: &mut Vec<SchedRecord>,
) {
    if wanted.contains(prev_pid) {
        out.push(SchedRecord::switch_out(ts, prev_pid, cpu, prev_state));
    }
    if wanted.contains(next_pid) {
        out.push(SchedRecord::switch_in(ts, next_pid, cpu));
    }
}

/// The record of a sched_waking / sched_wakeup of `pid` at `ts`, by the
/// task `waker` says (asked only for a wanted thread: compact_sched finds it
/// in the bundle's switch column, see `CompactRecords`).
#[inline(always)]
pub(crate) fn waking_record(
    wanted: &TidFilter,
    ts: i64,
    pid: i32,
    waker: impl FnOnce() -> Waker,
    out: &mut Vec<SchedRecord>,
) {
    if wanted.contains(pid) {
        out.push(SchedRecord::Waking { ts, tid: pid, waker: waker() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record((tid, ts, kind): (i32, i64, u8)) -> SchedRecord {
        match kind {
            0 => SchedRecord::switch_in(ts, tid, 1),
            1 => SchedRecord::switch_out(ts, tid, 2, 1),
            _ => SchedRecord::Waking { ts, tid, waker: Waker::NONE },
        }
    }

    proptest::proptest! {
        /// The batches' sort is the stable sort on (tid, timestamp),
        /// whatever the runs (each chunk comes in time order, as a bundle's
        /// events do), ties and thread mix.
        #[test]
        fn sorting_by_thread_then_time_is_the_stable_sort(
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
            sort_by_thread_then_time(&[0, 1, 2], &mut got);
            proptest::prop_assert_eq!(got, want);
        }

        /// A bundle's two columns merged into one run change nothing the
        /// sort returns; columns not in time order are left as they are.
        #[test]
        fn merging_a_bundles_columns_keeps_the_stable_sort(
            switches in proptest::collection::vec((0i32..3, 0i64..60, 0u8..2), 0..40),
            wakings in proptest::collection::vec(0i32..3, 0..40),
            waking_times in proptest::collection::vec(0i64..60, 40),
            sorted in proptest::bool::ANY,
        ) {
            let mut switches = switches;
            let mut waking_times = waking_times;
            if sorted {
                switches.sort_by_key(|c| c.1);
                waking_times.sort_unstable();
            }
            let mut records: Vec<SchedRecord> = switches.into_iter().map(record).collect();
            let mid = records.len();
            records.extend(wakings.iter().zip(&waking_times).map(|(&tid, &ts)| record((tid, ts, 2))));
            let mut want = records.clone();
            want.sort_by_key(|r| (r.tid(), r.ts()));
            let mut merged = records.clone();
            merge_columns(&mut merged, mid);
            if sorted {
                proptest::prop_assert!(merged.is_sorted_by_key(SchedRecord::ts));
            }
            sort_by_thread_then_time(&[0, 1, 2], &mut merged);
            proptest::prop_assert_eq!(merged, want);
        }
    }

    #[test]
    fn records_of_other_threads_take_the_plain_sort() {
        let mut got: Vec<SchedRecord> = [(9, 5, 2), (1, 7, 0), (9, 1, 1), (1, 7, 2)].into_iter().map(record).collect();
        sort_by_thread_then_time(&[1], &mut got);
        let want: Vec<SchedRecord> = [(1, 7, 0), (1, 7, 2), (9, 1, 1), (9, 5, 2)].into_iter().map(record).collect();
        assert_eq!(got, want);
    }

    /// On a busy trace the first pass finds the three apps' main threads (two
    /// atrace writers and one TrackEvent track) in its first batches, so the
    /// later ones keep their records; the scheduler pass takes those and must
    /// return exactly what reading the file again returns.

    #[test]
    fn thread_buckets_sort_each_thread_by_time_keeping_file_order_at_ties() {
        let (a, b) = (20, 10);
        let sw_in = |ts, tid| SchedRecord::SwitchIn { ts, tid, cpu: 0 };
        let wake = |ts, tid| SchedRecord::Waking { ts, tid, waker: Waker::NONE };
        let mut threads = ThreadBuckets::new(&[a, b, a, 30]);
        threads.add(vec![sw_in(50, a), wake(40, b), wake(50, a)]);
        // Merged into a's tail (the 50s came first in the file, so stay first).
        threads.add(vec![wake(60, a), sw_in(50, a), sw_in(10, b), wake(99, 7), sw_in(45, b)]);
        // By tid (10, 20); tid 7 was not asked for, tid 30 has none.
        assert_eq!(
            threads.finish(),
            vec![
                vec![sw_in(10, b), wake(40, b), sw_in(45, b)],
                vec![sw_in(50, a), wake(50, a), sw_in(50, a), wake(60, a)],
            ]
        );
    }

    proptest::proptest! {
        /// Whatever the runs (overlapping a little, a lot, or not at all),
        /// the result is each thread's records stably sorted by timestamp.
        #[test]
        fn thread_buckets_equal_one_stable_sort(
            runs in proptest::collection::vec(
                proptest::collection::vec((0i32..3, 0i64..400, 0u8..4), 0..60), 0..12),
            drift in 0i64..50,
        ) {
            let mut threads = ThreadBuckets::new(&[0, 1]);
            let mut all = Vec::new();
            for (k, run) in runs.iter().enumerate() {
                // Later runs tend to later times, as batches do.
                let records: Vec<SchedRecord> = run
                    .iter()
                    .map(|&(tid, ts, cpu)| SchedRecord::SwitchIn { ts: ts + drift * k as i64, tid, cpu })
                    .collect();
                all.extend_from_slice(&records);
                threads.add(records);
            }
            let mut want = Vec::new();
            for tid in [0, 1] {
                let mut mine: Vec<SchedRecord> = all.iter().copied().filter(|r| r.tid() == tid).collect();
                mine.sort_by_key(SchedRecord::ts);
                if !mine.is_empty() {
                    want.push(mine);
                }
            }
            proptest::prop_assert_eq!(threads.finish(), want);
        }
    }
}
