//! The second pass: scheduler events (sched_switch, sched_waking,
//! sched_wakeup, compact_sched) for a chosen set of threads, e.g. the main
//! threads whose frames are analysed. Reading them only on demand keeps the
//! first pass (and `fpsan info`) free of the trace's bulkiest data.

use std::io::Read;

use rayon::prelude::*;

use super::compact_sched::{self, CompactSched, Want};
use super::decode::{InflateBudget, MAX_INFLATED_PACKET};
use super::frame_sched::{Kept, TidFilter};
use super::framing;
use super::ftrace::{self, ev};
use super::records::SchedRecord;
use super::wire::{Fields, Value};

/// Packets scanned in parallel before the mapped pages behind them are
/// released: at most this many, spanning at most [`WINDOW_BYTES`].
const WINDOW_PACKETS: usize = 64 * 1024;
const WINDOW_BYTES: usize = 32 << 20;

/// What the first pass learned of one of its batches, for this pass.
#[derive(Debug)]
pub struct BatchSched {
    /// The end of the batch's packets (an index into the framing's packets).
    pub end: usize,
    /// Every tid the batch's scheduler events name (sorted), or `None`: the
    /// batch must be read whatever is looked for (see `Batch::sched_tids`).
    pub tids: Option<Vec<i32>>,
    /// The records the first pass kept (see `read::frame_sched`); taken by
    /// the first scheduler pass that uses them.
    pub kept: Option<Kept>,
}

/// `done_before(offset)` is called as the scan moves past each window so a
/// memory-mapped caller can keep its resident set small (see `Source::release_before`).
/// `first_pass` is the first pass's framing of `data` and what it learned of
/// each batch, when it has them: then the batches that name none of `tids`
/// are skipped, and those whose kept records cover every one of `tids` they
/// name are not read again. The records go to `threads` in file order.
pub fn collect(
    data: &[u8],
    first_pass: Option<(&framing::Framing, &mut [BatchSched])>,
    tids: &[i32],
    done_before: &dyn Fn(usize),
    threads: &mut ThreadBuckets,
) {
    let wanted = TidFilter::new(tids.iter().copied());
    let budget = InflateBudget::for_input(data.len());
    let scan = |packets: &[(usize, usize)], threads: &mut ThreadBuckets| {
        scan_packets(data, packets, &wanted, &budget, done_before, threads)
    };
    let batches = match first_pass {
        Some((f, batches)) if batches.last().is_some_and(|b| b.end == f.packets.len()) => (f, batches),
        Some((f, _)) => return scan(&f.packets, threads),
        None => return scan(&framing::frame_releasing(data, done_before).packets, threads),
    };
    let (framing, batches) = batches;
    for k in batches.iter().filter_map(|b| b.kept.as_ref()) {
        for &tid in wanted.tids() {
            let lo = k.records.partition_point(|r| r.tid() < tid);
            let hi = k.records.partition_point(|r| r.tid() <= tid);
            threads.reserve(tid, hi - lo);
        }
    }
    // Runs of batches to read are scanned together, in windows; kept records
    // go to `threads` between them, so every thread's records stay in file order.
    let mut pending: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for b in batches {
        let packets = &framing.packets[start.min(b.end)..b.end];
        start = b.end;
        let named = |t: &i32| b.tids.as_ref().is_none_or(|named| named.binary_search(t).is_ok());
        if !wanted.tids().iter().any(named) {
            continue;
        }
        let covered = b.tids.is_some()
            && b.kept
                .as_ref()
                .is_some_and(|k| wanted.tids().iter().filter(|t| named(t)).all(|&t| k.threads.contains(t)));
        match b.kept.take().filter(|_| covered) {
            Some(Kept { records, .. }) => {
                scan(&std::mem::take(&mut pending), threads);
                threads.add_sorted(&records);
            }
            None => pending.extend_from_slice(packets),
        }
    }
    scan(&pending, threads);
}

/// Read `packets` for `wanted`'s records, in parallel windows.
fn scan_packets(
    data: &[u8],
    packets: &[(usize, usize)],
    wanted: &TidFilter,
    budget: &InflateBudget,
    done_before: &dyn Fn(usize),
    threads: &mut ThreadBuckets,
) {
    let mut rest = packets;
    while !rest.is_empty() {
        let first = rest[0].0;
        let n = rest[..rest.len().min(WINDOW_PACKETS)].partition_point(|p| p.1 - first <= WINDOW_BYTES).max(1);
        let (window, tail) = rest.split_at(n);
        rest = tail;
        let found: Vec<SchedRecord> = window
            .par_chunks(1024)
            .map(|chunk| {
                let (mut out, mut events) = (Vec::new(), Vec::new());
                for &(s, e) in chunk {
                    packet(&data[s..e], wanted, &mut out, &mut events, 0, budget);
                }
                out
            })
            .flatten_iter()
            .collect();
        threads.add(found);
        if let Some(last) = window.last() {
            done_before(last.1);
        }
    }
}

/// Scheduler records, given in file order a run at a time, gathered into one
/// vector per wanted thread, each by (timestamp, file order). A run (a batch
/// the first pass kept, or a window read again) is sorted by (tid,
/// timestamp) on its own, while small; its share of each thread is then
/// merged onto that thread's vector. Runs overlap in time only where one
/// ends and the next begins (each CPU's events come in time order), so a
/// merge touches a short tail of the vector. A merge that would reach far
/// back gives up: the thread's records are then sorted once at the end.
/// (One stable sort of all of a thread's records at the end took 0.13 s of
/// the 0.24 s pass on a 1 GB trace.)
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
/// bottom-up merge of each thread's runs replace the general sort, which
/// took 0.14 s of CPU for the batches of the 1 GB busy trace.
pub(super) fn sort_by_thread_then_time(tids: &[i32], records: &mut [SchedRecord]) {
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

/// A compact_sched bundle's records: `records[..mid]` from its switch
/// column, `records[mid..]` from its waking column. When each is in time
/// order (as the kernel writes them) they are merged into one run by time,
/// switches first on ties (file order), which is where the stable sort on
/// (tid, timestamp) puts them too. A thread's records in a batch are then
/// about one run per CPU it ran on instead of two per bundle, and
/// [`sort_by_thread_then_time`] merges a few runs instead of hundreds.
fn merge_columns(records: &mut [SchedRecord], mid: usize) {
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

/// `events` is scratch space for [`bundle`].
fn packet(
    buf: &[u8],
    wanted: &TidFilter,
    out: &mut Vec<SchedRecord>,
    events: &mut Vec<(usize, usize)>,
    depth: u32,
    budget: &InflateBudget,
) {
    let mut fields = Fields::new(buf);
    while let Some(Ok((num, v))) = fields.next() {
        match (num, v) {
            (1, Value::Bytes(b)) => bundle(b, wanted, out, events),
            (50, Value::Bytes(b)) | (133, Value::Bytes(b)) if depth < 4 && !budget.exhausted() => {
                let mut inflated = Vec::new();
                let ok = if num == 50 {
                    flate2::read::ZlibDecoder::new(b).take(MAX_INFLATED_PACKET).read_to_end(&mut inflated).is_ok()
                } else {
                    zstd::stream::read::Decoder::with_buffer(b)
                        .and_then(|d| d.take(MAX_INFLATED_PACKET).read_to_end(&mut inflated))
                        .is_ok()
                };
                if ok && budget.charge(inflated.len()) {
                    for &(s, e) in &framing::frame(&inflated).packets {
                        packet(&inflated[s..e], wanted, out, events, depth + 1, budget);
                    }
                }
            }
            _ => {}
        }
    }
}

fn bundle(b: &[u8], wanted: &TidFilter, out: &mut Vec<SchedRecord>, events: &mut Vec<(usize, usize)>) {
    let Ok(h) = super::ftrace::scan_bundle(b, events) else { return };
    for &(s, e) in events.iter() {
        event(&b[s..e], h.cpu, wanted, out);
    }
    if let Some(cs) = h.compact_sched {
        compact(cs, h.cpu, wanted, out);
    }
}

pub(super) fn event(e: &[u8], cpu: u32, wanted: &TidFilter, out: &mut Vec<SchedRecord>) {
    // The last scheduler payload counts (the first pass takes the last
    // payload of any kind, and notes when the two differ).
    let (ts, payload) = match ftrace::canonical_event(e) {
        Some((ts, _, num, p)) => (ts, Some((num, p))),
        None => {
            let (mut ts, mut payload) = (0i64, None);
            let mut fields = Fields::new(e);
            while let Some(Ok((num, v))) = fields.next() {
                match (num, v) {
                    (1, v) => ts = v.as_i64(),
                    (num, Value::Bytes(p)) if ftrace::is_sched(num) => payload = Some((num, p)),
                    _ => {}
                }
            }
            (ts, payload)
        }
    };
    match payload {
        Some((ev::SCHED_SWITCH, p)) => {
            let sw = ftrace::switch_fields(p);
            switch_records(wanted, ts, cpu, (sw.prev_pid, sw.prev_state, sw.next_pid), out);
        }
        Some((ev::SCHED_WAKING | ev::SCHED_WAKEUP | ev::SCHED_WAKEUP_NEW, p)) => {
            waking_record(wanted, ts, ftrace::waking_fields(p).pid, out);
        }
        _ => {}
    }
}

/// The records of a sched_switch at `ts` on `cpu`, from its (prev_pid,
/// prev_state, next_pid): every reader of sched_switch (both passes over a
/// Perfetto trace, systrace text) makes them here.
#[inline(always)]
pub(super) fn switch_records(
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

/// The record of a sched_waking / sched_wakeup of `pid` at `ts`.
#[inline(always)]
pub(super) fn waking_record(wanted: &TidFilter, ts: i64, pid: i32, out: &mut Vec<SchedRecord>) {
    if wanted.contains(pid) {
        out.push(SchedRecord::Waking { ts, tid: pid });
    }
}

pub(super) fn compact(b: &[u8], cpu: u32, wanted: &TidFilter, out: &mut Vec<SchedRecord>) {
    let cs = CompactSched::parse(b);
    // Most bundles hold none of the wanted threads: a look at the pid
    // columns alone says so, before any timestamp is summed. (A switched-out
    // thread is an earlier switch's next_pid, so no wanted next_pid means no
    // wanted record at all.)
    let (switches, wakings) = cs.pids_wanted(|p| wanted.contains(p));
    let mut records = CompactRecords::new(cpu, out.len());
    let want = Want { prev_state: true, comm: false };
    for s in cs.switches(want).take_while(|_| switches) {
        records.switch(wanted, &s, out);
    }
    records.wakings_begin(out);
    for w in cs.wakings(want).take_while(|_| wakings) {
        records.waking(wanted, &w, out);
    }
    records.finish(out);
}

/// The records of one compact_sched, its switches then its wakings, as both
/// passes make them. Each column is read up to its first event that lacks a
/// field (the first pass marks such a bundle malformed).
pub(super) struct CompactRecords {
    cpu: u32,
    /// compact_sched omits prev_pid: the thread switched out is the previous
    /// switch's next_pid on this CPU (unknown for the bundle's first switch).
    prev: Option<i32>,
    switches_whole: bool,
    wakings_whole: bool,
    /// Where this bundle's switch records, then its waking records, begin in `out`.
    switches_at: usize,
    wakings_at: usize,
}

impl CompactRecords {
    /// The records of a bundle of `cpu`, pushed onto `out` from `out_len` on.
    pub(super) fn new(cpu: u32, out_len: usize) -> CompactRecords {
        CompactRecords {
            cpu,
            prev: None,
            switches_whole: true,
            wakings_whole: true,
            switches_at: out_len,
            wakings_at: out_len,
        }
    }

    /// The switch column is done; the waking column's records come next.
    pub(super) fn wakings_begin(&mut self, out: &[SchedRecord]) {
        self.wakings_at = out.len();
    }

    /// Both columns are done: their records become one run by time (see
    /// [`merge_columns`]).
    pub(super) fn finish(&self, out: &mut [SchedRecord]) {
        merge_columns(&mut out[self.switches_at..], self.wakings_at - self.switches_at);
    }

    /// The next switch of the column (read with `Want::prev_state`).
    #[inline(always)]
    pub(super) fn switch(&mut self, wanted: &TidFilter, s: &compact_sched::Switch, out: &mut Vec<SchedRecord>) {
        let (true, Some(state), Some(next)) = (self.switches_whole, s.prev_state, s.next_pid) else {
            self.switches_whole = false;
            return;
        };
        if let Some(p) = self.prev.filter(|&p| wanted.contains(p)) {
            out.push(SchedRecord::switch_out(s.ts, p, self.cpu, state));
        }
        if wanted.contains(next) {
            out.push(SchedRecord::switch_in(s.ts, next, self.cpu));
        }
        self.prev = Some(next);
    }

    /// The next waking of the column.
    #[inline(always)]
    pub(super) fn waking(&mut self, wanted: &TidFilter, w: &compact_sched::Waking, out: &mut Vec<SchedRecord>) {
        let (true, Some(pid)) = (self.wakings_whole, w.pid) else {
            self.wakings_whole = false;
            return;
        };
        waking_record(wanted, w.ts, pid, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::{self, ReadOptions, Source};
    use crate::tracegen::scenarios;

    fn record((tid, ts, kind): (i32, i64, u8)) -> SchedRecord {
        match kind {
            0 => SchedRecord::switch_in(ts, tid, 1),
            1 => SchedRecord::switch_out(ts, tid, 2, 1),
            _ => SchedRecord::Waking { ts, tid },
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
    fn kept_records_cover_the_frame_threads_and_equal_a_full_scan() {
        let mut bytes = Vec::new();
        scenarios::busy_phone(&mut bytes, 32 << 20).expect("generate");
        let main_threads = [5001, 5101, 5201];
        let source = Source::from_bytes("busy.pftrace", bytes.clone()).expect("source");
        read::decode(&source, &ReadOptions { frame_sched: true, ..Default::default() }).expect("decode");
        let covered = |map: &[BatchSched]| {
            map.iter().filter(|b| b.kept.as_ref().is_some_and(|k| k.threads.tids() == main_threads)).count()
        };
        let batches = source.sched_map.lock().expect("lock").len();
        let kept_threads: Vec<_> = source
            .sched_map
            .lock()
            .expect("lock")
            .iter()
            .map(|b| b.kept.as_ref().map(|k| k.threads.tids().to_vec()))
            .collect();
        assert!(batches >= 5 && covered(&source.sched_map.lock().expect("lock")) >= batches - 3, "{kept_threads:?}");
        let kept = read::sched_for_threads(&source, &main_threads).expect("sched");
        assert_eq!(covered(&source.sched_map.lock().expect("lock")), 0, "taken by the pass that used them");
        let again = read::sched_for_threads(&source, &main_threads).expect("sched");
        let fresh = read::sched_for_threads(&Source::from_bytes("busy.pftrace", bytes).expect("source"), &main_threads);
        assert_eq!(kept.len(), 3);
        assert!(kept.iter().all(|t| t.len() > 1000));
        assert_eq!(kept, again);
        assert_eq!(kept, fresh.expect("sched"));
    }

    #[test]
    fn thread_buckets_sort_each_thread_by_time_keeping_file_order_at_ties() {
        let (a, b) = (20, 10);
        let sw_in = |ts, tid| SchedRecord::SwitchIn { ts, tid, cpu: 0 };
        let wake = |ts, tid| SchedRecord::Waking { ts, tid };
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
