//! The batch under construction: what every decoder (protobuf packets,
//! ftrace bundles, FrameTimeline, track events, systrace text) writes its
//! records into, and the only thing they share. It gives each record its
//! place in file order, interns names, keeps each thread's newest kernel
//! name, and notes what the scheduler pass will need (the tids its events
//! name, the frame threads' records: `read::frame_sched`).

use super::atrace::{self, AtracePoint, ParseOutcome};
use super::busy::BusyBins;
use super::frame_sched::Collector;
use super::records::{AtraceOp, AtraceRec, Batch, CommRec, Interner, TrackNames};

/// Slots of the direct-mapped tid caches.
const TID_CACHE: usize = 4096;

/// One batch of records being decoded, by one worker.
pub struct BatchBuilder {
    pub batch: Batch,
    pub interner: Interner,
    next_order: u64,
    /// Direct-mapped cache of tids whose comm this batch already recorded. A
    /// comm only changes through task_rename (handled separately), so once is
    /// enough; a collision merely repeats the (idempotent) recording. This
    /// keeps the per-event cost of sched data to one array probe.
    comm_seen: Box<[i32; TID_CACHE]>,
    /// Direct-mapped cache of the tids already in `sched_tids` (as
    /// `tid as u32 + 1`, 0 = empty), so a tid costs one array probe.
    sched_seen: Box<[u64; TID_CACHE]>,
    sched_tids: Vec<i32>,
    /// Something the scheduler pass may read differently was seen: it must
    /// read this batch whatever it looks for.
    pub sched_unknown: bool,
    /// Keeps the frame threads' scheduler records (see `read::frame_sched`).
    pub collect: Option<Collector>,
    /// Where the batch's kernel events fall (see `read::busy`).
    pub busy: BusyBins,
}

impl BatchBuilder {
    /// The builder of the batch with this index (records are ordered by
    /// batch, then by their place in it).
    pub fn new(batch_index: u64) -> BatchBuilder {
        BatchBuilder {
            batch: Batch::default(),
            interner: Interner::default(),
            next_order: batch_index << 40,
            comm_seen: Box::new([0; TID_CACHE]),
            sched_seen: Box::new([0; TID_CACHE]),
            sched_tids: Vec::new(),
            sched_unknown: false,
            collect: None,
            busy: BusyBins::default(),
        }
    }

    /// The decoded batch, with the interner's statistics.
    pub fn finish(mut self) -> Batch {
        self.batch.names_truncated = self.interner.truncated;
        let kept = self.collect.take().map(Collector::finish);
        self.batch.busy = std::mem::take(&mut self.busy).finish();
        if !self.sched_unknown && self.batch.malformed_packets == 0 {
            let mut tids = std::mem::take(&mut self.sched_tids);
            tids.sort_unstable();
            tids.dedup();
            self.batch.sched_tids = Some(tids);
            self.batch.kept_sched = kept;
        }
        self.batch
    }

    /// The next place in file order.
    #[inline]
    pub fn order(&mut self) -> u64 {
        self.next_order += 1;
        self.next_order
    }

    /// Damage: the packet or event is skipped, and counted.
    pub fn malformed(&mut self, why: String) {
        self.batch.malformed_packets += 1;
        // Keep the first few distinct reasons; the count says the rest.
        if self.batch.errors.len() < 8 && !self.batch.errors.contains(&why) {
            self.batch.errors.push(why);
        }
    }

    /// A tid a scheduler event of this batch names (see `Batch::sched_tids`).
    #[inline]
    pub fn sched_tid(&mut self, tid: i32) {
        let key = u64::from(tid as u32) + 1;
        let slot = &mut self.sched_seen[tid as u32 as usize % TID_CACHE];
        if *slot != key {
            *slot = key;
            self.sched_tids.push(tid);
        }
    }

    /// An atrace record of thread `tid`, next in file order.
    pub fn push_atrace(&mut self, ts: i64, tid: i32, op: AtraceOp) {
        if let (Some(c), AtraceOp::Begin { name, .. }) = (&mut self.collect, &op) {
            c.atrace_begin(tid, name);
        }
        self.batch.atrace_counters += usize::from(matches!(op, AtraceOp::Counter { .. }));
        let order = self.order();
        self.batch.atrace.push(AtraceRec { ts, order, tid, op });
    }

    /// A userspace atrace write (a `print` event, or a systrace text line).
    pub fn atrace_text(&mut self, ts: i64, tid: i32, text: &str) {
        match atrace::parse(text) {
            ParseOutcome::Point(p) => {
                let op = self.intern_point(p);
                self.push_atrace(ts, tid, op);
            }
            ParseOutcome::Ignored => {}
            ParseOutcome::Malformed => self.batch.atrace_malformed += 1,
        }
    }

    fn intern_point(&mut self, p: AtracePoint<'_>) -> AtraceOp {
        let mut i = |s: &str| self.interner.intern(s);
        match p {
            AtracePoint::Begin { tgid, name } => AtraceOp::Begin { tgid, name: i(name) },
            AtracePoint::End { tgid } => AtraceOp::End { tgid },
            AtracePoint::Counter { tgid, name, value } => {
                AtraceOp::Counter { tgid, name: i(name), value: value as f64 }
            }
            AtracePoint::AsyncBegin { tgid, name, cookie } => AtraceOp::AsyncBegin { tgid, name: i(name), cookie },
            AtracePoint::AsyncEnd { tgid, name, cookie } => AtraceOp::AsyncEnd { tgid, name: i(name), cookie },
            AtracePoint::Instant { tgid, name } => AtraceOp::Instant { tgid, name: i(name) },
            AtracePoint::TrackInstant { tgid, track, name } => {
                AtraceOp::TrackInstant { tgid, names: Box::new(TrackNames { track: i(track), name: i(name) }) }
            }
            AtracePoint::TrackBegin { tgid, track, name, cookie } => {
                AtraceOp::TrackBegin { tgid, names: Box::new(TrackNames { track: i(track), name: i(name) }), cookie }
            }
            AtracePoint::TrackEnd { tgid, track, cookie } => AtraceOp::TrackEnd { tgid, track: i(track), cookie },
        }
    }

    /// A kernel comm of a hot event: recorded once per tid per batch (the
    /// direct-mapped cache, see `comm_seen`), through [`Self::newest_comm`].
    #[inline]
    pub fn comm(&mut self, ts: i64, tid: i32, name: &[u8]) {
        if tid <= 0 || name.is_empty() {
            return;
        }
        let slot = &mut self.comm_seen[tid as usize % TID_CACHE];
        if *slot == tid {
            return;
        }
        *slot = tid;
        self.newest_comm(ts, tid, name);
    }

    /// Record `name` as `tid`'s kernel name unless a newer one is known.
    pub fn newest_comm(&mut self, ts: i64, tid: i32, name: &[u8]) {
        if tid <= 0 || name.is_empty() {
            return;
        }
        match self.batch.comms.get_mut(&tid) {
            Some(c) if ts >= c.ts => {
                if c.name.as_bytes() != name {
                    c.name = self.interner.intern_bytes(name);
                }
                c.ts = ts;
            }
            Some(_) => {}
            None => {
                let name = self.interner.intern_bytes(name);
                self.batch.comms.insert(tid, CommRec { ts, name });
            }
        }
    }

    /// A task_rename: the thread's new name from `ts` on.
    pub fn rename(&mut self, ts: i64, tid: i32, name: &[u8]) {
        let name = self.interner.intern_bytes(name);
        let order = self.order();
        self.batch.renames.push((ts, order, tid, name));
    }
}
