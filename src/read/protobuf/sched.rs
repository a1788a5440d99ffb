//! The second pass: scheduler events (sched_switch, sched_waking,
//! task_newtask, compact_sched) for a chosen set of threads, e.g. the main
//! threads whose frames are analysed. Reading them only on demand keeps the
//! first pass (and `fpsan info`) free of the trace's bulkiest data.

use rayon::prelude::*;

use super::compact_sched::{note_last, CompactRecords, CompactSched, RunningTasks, Want};
use super::framing::{self, Framing};
use super::ftrace::{self, ev};
use super::wire::{Fields, Value};
use super::MAX_NESTING;
use crate::read::compact_stitch::CompactStitch;
use crate::read::inflate::{self, Codec, InflateBudget};
use crate::read::records::{CompactEdge, EarlyWaking, Kept, SchedRecord, TidFilter, Waker};
use crate::read::thread_records::{switch_records, waking_record, ThreadBuckets};

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
    /// Every compact_sched bundle's edges, in file order (for the stitch,
    /// whichever batches this pass reads).
    pub edges: Vec<CompactEdge>,
}

/// What a scan finds: the records, and what the stitch across compact_sched
/// bundles needs (the bundles' edges only when asked: with a first pass,
/// its own are used).
#[derive(Default)]
struct Found {
    records: Vec<SchedRecord>,
    early: Vec<EarlyWaking>,
    edges: Option<Vec<CompactEdge>>,
}

impl Found {
    fn new(edges: bool) -> Found {
        Found { edges: edges.then(Vec::new), ..Found::default() }
    }
}

/// `done_before(offset)` is called as the scan moves past each window so a
/// memory-mapped caller can keep its resident set small (see `Source::release_before`).
/// `first_pass` is the first pass's framing of `data` and what it learned of
/// each batch, when it has them: then the batches that name none of `tids`
/// are skipped, and those whose kept records cover every one of `tids` they
/// name are not read again. The records go to `threads` in file order; the
/// stitch across compact_sched bundles is returned.
pub fn collect(
    data: &[u8],
    first_pass: Option<(&Framing, &mut [BatchSched])>,
    tids: &[i32],
    done_before: &dyn Fn(usize),
    threads: &mut ThreadBuckets,
) -> CompactStitch {
    let wanted = TidFilter::new(tids.iter().copied());
    let budget = InflateBudget::for_input(data.len());
    let scan = |packets: &[(usize, usize)], threads: &mut ThreadBuckets, stitch: &mut CompactStitch| {
        scan_packets(data, packets, &wanted, &budget, done_before, threads, stitch)
    };
    let mut stitch = CompactStitch::default();
    let batches = match first_pass {
        Some((f, batches)) if batches.last().is_some_and(|b| b.end == f.packets.len()) => (f, batches),
        Some((f, _)) => {
            scan(&f.packets, threads, &mut stitch);
            return stitch;
        }
        None => {
            scan(&framing::frame_releasing(data, done_before).packets, threads, &mut stitch);
            return stitch;
        }
    };
    let (framing, batches) = batches;
    // Every bundle's edges, from the first pass: the batches skipped here
    // carry the CPUs' tasks across too.
    stitch.edges = batches.iter().flat_map(|b| b.edges.iter().copied()).collect();
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
            Some(Kept { records, early, .. }) => {
                scan(&std::mem::take(&mut pending), threads, &mut stitch);
                threads.add_sorted(&records);
                stitch.early.extend(early);
            }
            None => pending.extend_from_slice(packets),
        }
    }
    scan(&pending, threads, &mut stitch);
    stitch
}

/// Read `packets` for `wanted`'s records, in parallel windows; their early
/// wakings, and their bundles' edges unless `stitch` has them already, go
/// to `stitch`.
fn scan_packets(
    data: &[u8],
    packets: &[(usize, usize)],
    wanted: &TidFilter,
    budget: &InflateBudget,
    done_before: &dyn Fn(usize),
    threads: &mut ThreadBuckets,
    stitch: &mut CompactStitch,
) {
    let edges = stitch.edges.is_empty();
    let mut rest = packets;
    while !rest.is_empty() {
        let first = rest[0].0;
        let n = rest[..rest.len().min(WINDOW_PACKETS)].partition_point(|p| p.1 - first <= WINDOW_BYTES).max(1);
        let (window, tail) = rest.split_at(n);
        rest = tail;
        let found: Vec<Found> = window
            .par_chunks(1024)
            .map(|chunk| {
                let (mut found, mut events) = (Found::new(edges), Vec::new());
                for &(s, e) in chunk {
                    packet(&data[s..e], wanted, &mut found, &mut events, 0, budget);
                }
                found
            })
            .collect();
        let mut records = Vec::with_capacity(found.iter().map(|f| f.records.len()).sum());
        for f in found {
            records.extend(f.records);
            stitch.early.extend(f.early);
            stitch.edges.extend(f.edges.into_iter().flatten());
        }
        threads.add(records);
        if let Some(last) = window.last() {
            done_before(last.1);
        }
    }
}

fn packet(
    buf: &[u8],
    wanted: &TidFilter,
    found: &mut Found,
    events: &mut Vec<(usize, usize)>,
    depth: u32,
    budget: &InflateBudget,
) {
    let mut fields = Fields::new(buf);
    while let Some(Ok((num, v))) = fields.next() {
        match (num, v) {
            (1, Value::Bytes(b)) => bundle(b, wanted, found, events),
            (50, Value::Bytes(b)) | (133, Value::Bytes(b)) if depth < MAX_NESTING && !budget.exhausted() => {
                let codec = if num == 50 { Codec::Zlib } else { Codec::Zstd };
                // The first pass skipped what does not inflate; so does this one.
                if let Some(inflated) = inflate::packet(b, codec).ok().filter(|v| budget.charge(v.len())) {
                    for &(s, e) in &framing::frame(&inflated).packets {
                        packet(&inflated[s..e], wanted, found, events, depth + 1, budget);
                    }
                }
            }
            _ => {}
        }
    }
}

fn bundle(b: &[u8], wanted: &TidFilter, found: &mut Found, events: &mut Vec<(usize, usize)>) {
    let Ok(h) = ftrace::scan_bundle(b, events) else { return };
    for &(s, e) in events.iter() {
        event(&b[s..e], h.cpu, wanted, &mut found.records);
    }
    if let Some(cs) = h.compact_sched {
        compact(cs, h.cpu, wanted, found);
    }
}

pub(super) fn event(e: &[u8], cpu: u32, wanted: &TidFilter, out: &mut Vec<SchedRecord>) {
    // The last scheduler payload counts (the first pass takes the last
    // payload of any kind, and notes when the two differ). The common pid
    // is a waking's waker (unknown when absent, as in the first pass).
    let (ts, common_pid, payload) = match ftrace::canonical_event(e) {
        Some((ts, pid, num, p)) => (ts, Some(pid), Some((num, p))),
        None => {
            let (mut ts, mut pid, mut payload) = (0i64, None, None);
            let mut fields = Fields::new(e);
            while let Some(Ok((num, v))) = fields.next() {
                match (num, v) {
                    (1, v) => ts = v.as_i64(),
                    (2, v) => pid = Some(v.as_i32()),
                    (num, Value::Bytes(p)) if ftrace::is_sched(num) => payload = Some((num, p)),
                    _ => {}
                }
            }
            (ts, pid, payload)
        }
    };
    match payload {
        Some((ev::SCHED_SWITCH, p)) => {
            let sw = ftrace::switch_fields(p);
            switch_records(wanted, ts, cpu, (sw.prev_pid, sw.prev_state, sw.next_pid), out);
        }
        Some((ev::SCHED_WAKING, p)) => {
            waking_record(wanted, ts, ftrace::waking_fields(p).pid, || Waker::of(common_pid), out);
        }
        Some((ev::TASK_NEWTASK, p)) => {
            let pid = ftrace::newtask_fields(p).pid;
            if pid != 0 {
                waking_record(wanted, ts, pid, || Waker::of(common_pid), out);
            }
        }
        _ => {}
    }
}

fn compact(b: &[u8], cpu: u32, wanted: &TidFilter, found: &mut Found) {
    let cs = CompactSched::parse(b);
    let out = &mut found.records;
    // Most bundles hold none of the wanted threads: a look at the pid
    // columns alone says so, before any timestamp is summed (unless the
    // bundle's edges are wanted). A switched-out thread is an earlier
    // switch's next_pid, or the previous bundle's (the stitch's), so no
    // wanted next_pid means no record of this bundle's switches.
    let (switches, wakings) = cs.pids_wanted(|p| wanted.contains(p));
    // The first pass notes no edge of a damaged bundle; neither does this one.
    let mut edge = found.edges.is_some().then(|| cs.edge(cpu)).filter(|_| !cs.malformed);
    let mut records = CompactRecords::new(cpu, out.len());
    let mut tasks = RunningTasks::new(&cs);
    let want = Want { prev_state: true, comm: false };
    if switches || edge.is_some() {
        // The wakings' wakers, if any is wanted, are noted on the way.
        for s in cs.switches(want) {
            records.switch(wanted, &s, out);
            if wakings {
                tasks.note(&s);
            }
            if let Some(e) = &mut edge {
                note_last(e, s.ts, s.next_pid);
            }
        }
        if wakings {
            tasks.noted();
        }
    }
    records.wakings_begin(out);
    for w in cs.wakings(want).take_while(|_| wakings) {
        records.waking(wanted, &mut tasks, &w, out, &mut found.early);
    }
    records.finish(out);
    if let (Some(edges), Some(e)) = (&mut found.edges, edge) {
        edges.push(e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::format::SchedScan;
    use crate::read::{self, Source};
    use tracegen::scenarios;

    #[test]
    fn a_wakings_waker_is_its_events_common_pid() {
        use perfetto_protos::ftrace_event::FtraceEvent;
        use perfetto_protos::sched::{SchedWakeupNewFtraceEvent, SchedWakingFtraceEvent};
        use perfetto_protos::task::TaskNewtaskFtraceEvent;
        use protobuf::Message;
        let mut waking = SchedWakingFtraceEvent::new();
        waking.set_comm("main".into());
        waking.set_pid(4242);
        waking.set_prio(120);
        waking.set_target_cpu(1);
        let waking_event = |ts: i64, common_pid: Option<u32>, flags: bool| {
            let mut e = FtraceEvent::new();
            e.set_timestamp(ts as u64);
            if let Some(p) = common_pid {
                e.set_pid(p);
            }
            if flags {
                e.set_common_flags(1);
            }
            e.set_sched_waking(waking.clone());
            e.write_to_bytes().expect("encodes")
        };
        let mut new_task = SchedWakeupNewFtraceEvent::new();
        new_task.set_comm("worker".into());
        new_task.set_pid(4300);
        let mut woken_new = FtraceEvent::new();
        woken_new.set_timestamp(5000);
        woken_new.set_pid(4242);
        woken_new.set_sched_wakeup_new(new_task);
        let mut task = TaskNewtaskFtraceEvent::new();
        task.set_pid(4301);
        task.set_comm("worker2".into());
        task.set_clone_flags(0x10000);
        let mut forked = FtraceEvent::new();
        forked.set_timestamp(6000);
        forked.set_pid(4242);
        forked.set_task_newtask(task);
        let events = [
            waking_event(1000, Some(4262), false),
            // common_flags after the pid: the general path.
            waking_event(2000, Some(4262), true),
            // From an interrupt on an idle CPU.
            waking_event(3000, Some(0), false),
            // No common pid at all: unknown, not the idle task.
            waking_event(4000, None, false),
            // As in trace_processor's thread states, sched_wakeup_new wakes
            // nothing: task_newtask makes the new task runnable, woken by
            // the task that made it.
            woken_new.write_to_bytes().expect("encodes"),
            forked.write_to_bytes().expect("encodes"),
        ];
        let (wanted, mut out) = (TidFilter::new([4242, 4300, 4301]), Vec::new());
        for e in &events {
            event(e, 1, &wanted, &mut out);
        }
        let record = |ts, tid, waker| SchedRecord::Waking { ts, tid, waker: Waker::of(waker) };
        assert_eq!(
            out,
            [
                record(1000, 4242, Some(4262)),
                record(2000, 4242, Some(4262)),
                record(3000, 4242, Some(0)),
                record(4000, 4242, None),
                record(6000, 4301, Some(4242)),
            ]
        );
    }

    #[test]
    fn kept_records_cover_the_frame_threads_and_equal_a_full_scan() {
        let mut bytes = Vec::new();
        scenarios::busy_phone(&mut bytes, 32 << 20).expect("generate");
        // The three apps' main threads and RenderThreads, in tid order.
        let main_threads = [5001, 5021, 5101, 5121, 5201, 5221];
        let source = Source::from_bytes("busy.pftrace", bytes.clone()).expect("source");
        let fresh = read::sched_for_threads(&Source::from_bytes("busy.pftrace", bytes).expect("source"), &main_threads)
            .expect("sched");
        assert_eq!(fresh.len(), 6);
        assert!(fresh.iter().all(|t| t.len() > 1000));
        // The wakings name their wakers (but those of a compact_sched bundle
        // before its first switch; the exact values are the readers' unit
        // tests'), and the comparisons below hold them equal in both passes.
        let wakings = || {
            fresh.iter().flatten().filter_map(|r| match r {
                SchedRecord::Waking { waker, .. } => Some(*waker),
                _ => None,
            })
        };
        let known = wakings().filter(|w| w.tid().is_some()).count();
        assert!(known > 1000 && known * 10 > wakings().count() * 9, "{known} of {}", wakings().count());
        let opts = crate::analysis::frame_read_options(crate::sink::Sink::quiet());
        let covered = |pass: &super::super::SchedPackets| {
            let (_, batches) = pass.first_pass.as_ref().expect("a first pass");
            batches.iter().filter(|b| b.kept.as_ref().is_some_and(|k| k.threads.tids() == main_threads)).count()
        };
        let threads = |pass: &mut super::super::SchedPackets| {
            let mut buckets = ThreadBuckets::new(&main_threads);
            let stitch = pass.scan(&source, &main_threads, &mut buckets);
            stitch.apply(&main_threads, buckets.finish())
        };
        // A batch keeps the threads found before it began, so how many
        // batches are covered depends on how the workers raced; with one
        // worker each batch begins after the one before it is finished, and
        // every batch after the first two (small, 256 KB: the first finds
        // some of the three apps, the second the rest) is covered.
        // With more workers only the answer is fixed.
        for workers in [1, 4] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(workers).build().expect("pool");
            let (_, mut pass) = pool.install(|| super::super::first_pass(&source, &opts)).expect("decode");
            let batches = pass.first_pass.as_ref().expect("a first pass").1.len();
            assert!(batches >= 5);
            if workers == 1 {
                assert_eq!(covered(&pass), batches - 2, "{batches} batches");
            }
            let kept = threads(&mut pass);
            assert_eq!(covered(&pass), 0, "taken by the pass that used them");
            assert_eq!(kept, fresh, "{workers} workers");
            assert_eq!(threads(&mut pass), fresh, "read again");
        }
    }

    /// The threads read ahead (`SchedPass::prefetch`, the frame threads the
    /// first pass found) answer as a pass asked afterwards does: for a
    /// subset of them, and with a thread it did not find (a background
    /// task, read then) among them.
    #[test]
    fn prefetched_threads_answer_as_the_pass_asked_afterwards() {
        let mut bytes = Vec::new();
        scenarios::busy_phone(&mut bytes, 8 << 20).expect("generate");
        let source = Source::from_bytes("busy.pftrace", bytes).expect("source");
        let opts = crate::analysis::frame_read_options(crate::sink::Sink::quiet());
        let found = super::super::first_pass(&source, &opts).expect("decode").1.found;
        assert_eq!(found, [5001, 5021, 5101, 5121, 5201, 5221]);
        for asked in [&[5101, 5001][..], &[5221, 1001, 5001], &[1001], &[]] {
            let (_, mut plain) = read::decode(&source, &opts).expect("decode");
            let (_, mut early) = read::decode(&source, &opts).expect("decode");
            early.prefetch(&source);
            let want = plain.threads(&source, asked);
            assert_eq!(early.threads(&source, asked), want, "{asked:?}");
            assert_eq!(want.len(), asked.len(), "{asked:?}: every thread asked has records");
        }
    }
}
