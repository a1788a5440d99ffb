//! The second pass: scheduler events (sched_switch, sched_waking,
//! sched_wakeup, compact_sched) for a chosen set of threads, e.g. the main
//! threads whose frames are analysed. Reading them only on demand keeps the
//! first pass (and `fpsan info`) free of the trace's bulkiest data.

use std::io::Read;

use rayon::prelude::*;

use super::decode::{InflateBudget, MAX_INFLATED_PACKET};
use super::framing;
use super::ftrace::{self, ev};
use super::wire::{Fields, Value};
use super::compact_sched::{CompactSched, Want};
use super::frame_sched::{Kept, TidFilter};
use super::records::SchedRecord;

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
            && b.kept.as_ref().is_some_and(|k| wanted.tids().iter().filter(|t| named(t)).all(|&t| k.threads.contains(t)));
        match b.kept.take().filter(|_| covered) {
            Some(Kept { mut records, .. }) => {
                scan(&std::mem::take(&mut pending), threads);
                records.retain(|r| wanted.contains(r.tid()));
                threads.add(records);
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
        let found: Vec<Vec<SchedRecord>> = window
            .par_chunks(1024)
            .map(|chunk| {
                let (mut out, mut events) = (Vec::new(), Vec::new());
                for &(s, e) in chunk {
                    packet(&data[s..e], wanted, &mut out, &mut events, 0, budget);
                }
                out
            })
            .collect();
        for chunk in found {
            threads.add(chunk);
        }
        if let Some(last) = window.last() {
            done_before(last.1);
        }
    }
}

/// Scheduler records, given in file order a chunk at a time, gathered into
/// one vector per wanted thread. Each record is copied once, into its
/// thread's vector, and each thread's are sorted on their own, in parallel:
/// one stable sort of every record by timestamp (then split by thread) took
/// 0.36 s of a 0.86 s pass on a 1 GB trace, and the copies between them
/// another 0.2 s.
pub struct ThreadBuckets {
    /// The wanted tids, sorted: bucket `k` holds `tids[k]`'s records.
    tids: Vec<i32>,
    /// One more bucket than `tids`, for records of no wanted thread (none
    /// are expected; they are kept rather than lost).
    buckets: Vec<Vec<SchedRecord>>,
}

impl ThreadBuckets {
    pub fn new(tids: &[i32]) -> ThreadBuckets {
        let mut sorted = tids.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        ThreadBuckets { buckets: vec![Vec::new(); sorted.len() + 1], tids: sorted }
    }

    /// The next records in file order.
    pub fn add(&mut self, records: Vec<SchedRecord>) {
        for r in records {
            let k = self.tids.binary_search(&r.tid()).unwrap_or(self.tids.len());
            self.buckets[k].push(r);
        }
    }

    /// Every thread that has records, by tid, each by (timestamp, file order).
    pub fn finish(mut self) -> Vec<Vec<SchedRecord>> {
        self.buckets.retain(|b| !b.is_empty());
        self.buckets.par_iter_mut().for_each(|b| b.par_sort_by_key(SchedRecord::ts));
        self.buckets
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
            if wanted.contains(sw.prev_pid) {
                out.push(SchedRecord::SwitchOut { ts, tid: sw.prev_pid, cpu, prev_state: sw.prev_state });
            }
            if wanted.contains(sw.next_pid) {
                out.push(SchedRecord::SwitchIn { ts, tid: sw.next_pid, cpu });
            }
        }
        Some((ev::SCHED_WAKING | ev::SCHED_WAKEUP | ev::SCHED_WAKEUP_NEW, p)) => {
            let pid = ftrace::waking_fields(p).pid;
            if wanted.contains(pid) {
                out.push(SchedRecord::Waking { ts, tid: pid });
            }
        }
        _ => {}
    }
}

pub(super) fn compact(b: &[u8], cpu: u32, wanted: &TidFilter, out: &mut Vec<SchedRecord>) {
    let cs = CompactSched::parse(b);
    // Most bundles hold none of the wanted threads: a look at the pid
    // columns alone says so, before any timestamp is summed. (A switched-out
    // thread is an earlier switch's next_pid, so no wanted next_pid means no
    // wanted record at all.)
    let (switches, wakings) = cs.pids_wanted(|p| wanted.contains(p));
    // compact_sched omits prev_pid: the thread switched out is the previous
    // switch's next_pid on this CPU (unknown for the bundle's first switch).
    let mut prev: Option<i32> = None;
    let want = Want { prev_state: true, comm: false };
    for s in cs.switches(want).take_while(|_| switches) {
        let (Some(state), Some(next)) = (s.prev_state, s.next_pid) else { break };
        if let Some(p) = prev.filter(|&p| wanted.contains(p)) {
            out.push(SchedRecord::SwitchOut { ts: s.ts, tid: p, cpu, prev_state: state });
        }
        if wanted.contains(next) {
            out.push(SchedRecord::SwitchIn { ts: s.ts, tid: next, cpu });
        }
        prev = Some(next);
    }
    for w in cs.wakings(want).take_while(|_| wakings) {
        let Some(pid) = w.pid else { break };
        if wanted.contains(pid) {
            out.push(SchedRecord::Waking { ts: w.ts, tid: pid });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::{self, ReadOptions, Source};
    use crate::tracegen::scenarios;

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
        let kept_threads: Vec<_> = source.sched_map.lock().expect("lock").iter().map(|b| b.kept.as_ref().map(|k| k.threads.tids().to_vec())).collect();
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
        threads.add(vec![sw_in(10, a), wake(99, 7), sw_in(45, b)]);
        // By tid (10, 20), then the record of no wanted thread; tid 30 has none.
        assert_eq!(
            threads.finish(),
            vec![
                vec![wake(40, b), sw_in(45, b)],
                vec![sw_in(10, a), sw_in(50, a), wake(50, a)],
                vec![wake(99, 7)],
            ]
        );
    }
}
