//! Parallel packet decoding. The framed packets are cut into batches of a few
//! MB; rayon decodes batches concurrently into [`Batch`]es of owned records.
//! Hot packets (ftrace bundles, FrameTimeline, track events) go through the zero-copy wire
//! scanner; long-tail packets through prost; in-stream compressed batches
//! (zlib field 50, zstd field 133) are inflated and decoded recursively.

use std::io::Read;
use std::sync::Arc;

use prost::Message;

use super::frame_sched::{Collector, Discovery};
use super::framing;
use super::ftrace;
use super::records::*;
use super::slim;
use super::timeline;
use super::wire::{Fields, Value};

pub const COMM_CACHE: usize = 4096;
/// Target size of one parallel batch.
const BATCH_BYTES: usize = 4 << 20;
/// One in-stream compressed batch never inflates past this (Perfetto writes
/// batches of well under 1 MB).
pub const MAX_INFLATED_PACKET: u64 = 256 << 20;
/// Compressed batches inside compressed batches are not written by Perfetto;
/// a little nesting is tolerated, deeper is treated as hostile.
const MAX_NESTING: u32 = 4;

/// All in-stream compressed batches of one trace together inflate to at most
/// this much plus [`INFLATE_RATIO`] times the trace's size, and never past
/// `source::MAX_INFLATED_FILE`. Real traces compress 5–15×; the budget stops
/// a nest of small bombs (each packet under [`MAX_INFLATED_PACKET`]) from
/// turning a few KB into hours of decompression.
pub const INFLATE_BUDGET_BASE: u64 = 1 << 30;
pub const INFLATE_RATIO: u64 = 64;

/// The shared in-stream inflation budget of one pass over a trace.
#[derive(Debug)]
pub struct InflateBudget(std::sync::atomic::AtomicI64);

impl InflateBudget {
    pub fn for_input(len: usize) -> std::sync::Arc<InflateBudget> {
        let total = INFLATE_BUDGET_BASE
            .saturating_add(INFLATE_RATIO.saturating_mul(len as u64))
            .min(super::source::MAX_INFLATED_FILE);
        std::sync::Arc::new(InflateBudget(std::sync::atomic::AtomicI64::new(total as i64)))
    }
    /// Unlimited (a systrace text batch has nothing to inflate).
    pub fn unlimited() -> std::sync::Arc<InflateBudget> {
        std::sync::Arc::new(InflateBudget(std::sync::atomic::AtomicI64::new(i64::MAX)))
    }
    pub fn exhausted(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed) < 0
    }
    /// Charge `n` inflated bytes; false once the budget is spent.
    pub fn charge(&self, n: usize) -> bool {
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        self.0.fetch_sub(n, std::sync::atomic::Ordering::Relaxed).saturating_sub(n) >= 0
    }
}

/// Batches decoded between releases of the mapped pages behind them: the
/// pages before the first unfinished batch are released each time that
/// point moves past another 2 batches of 4 MB, so the mapped file is
/// resident from about 8 MB behind the batches being decoded to the few
/// framed ahead of them. (8 batches kept 24 MB more resident on a 210 MB
/// trace, for no measurable speed.)
const WINDOW_BATCHES: usize = 2;

/// Batches framed but not yet taken by a decoding worker, at most. (4 kept
/// 6 MB more of the file resident on a 210 MB trace, for no measurable speed.)
const FRAMED_AHEAD: usize = 2;

/// Frame and decode at once: a framing thread cuts the packets into the
/// batches [`batch_ranges`] makes (the same ones, in the same order) and hands
/// each to the decoding workers as soon as it is complete, at most
/// [`FRAMED_AHEAD`] ahead of them; the pages the framing touched are
/// faulted in once and released by the decode (every [`WINDOW_BATCHES`]
/// finished batches).
/// Returns the framing and the batches in file order.
pub fn frame_and_decode(
    data: &[u8],
    discovery: Option<&Arc<Discovery>>,
    on_progress: &(dyn Fn(u64) + Sync),
    done_before: &(dyn Fn(usize) + Sync),
) -> (framing::Framing, Vec<Batch>) {
    use std::sync::mpsc;
    use std::sync::Mutex;
    let budget = InflateBudget::for_input(data.len());
    let (tx, rx) = mpsc::sync_channel::<(usize, Vec<(usize, usize)>)>(FRAMED_AHEAD);
    let rx = Mutex::new(rx);
    // (decoded batches by index, end offset of each finished batch by index,
    // first unfinished batch, windows released)
    let state = Mutex::new((Vec::<Option<Batch>>::new(), Vec::<Option<usize>>::new(), 0usize, 0usize));
    let work = || {
        let mut sizes = BatchSizes::default();
        loop {
            let job = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
            let Ok((i, packets)) = job else { break };
            let mut ctx = Ctx::new(i as u64);
            ctx.inflate_budget = budget.clone();
            ctx.collect = discovery.map(Discovery::collector);
            sizes.reserve(&mut ctx);
            for &(s, e) in &packets {
                ctx.packet(&data[s..e], 0);
            }
            if let (Some(first), Some(last)) = (packets.first(), packets.last()) {
                on_progress((last.1 - first.0) as u64);
            }
            let batch = ctx.finish();
            sizes = BatchSizes::of(&batch);
            let end = packets.last().map_or(0, |p| p.1);
            let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
            let (batches, ends, prefix, released) = &mut *st;
            if batches.len() <= i {
                batches.resize_with(i + 1, || None);
                ends.resize(i + 1, None);
            }
            batches[i] = Some(batch);
            ends[i] = Some(end);
            let mut release = None;
            while let Some(Some(e)) = ends.get(*prefix) {
                release = Some(*e);
                *prefix += 1;
            }
            if let Some(e) = release {
                if *prefix / WINDOW_BATCHES > *released {
                    *released = *prefix / WINDOW_BATCHES;
                    done_before(e);
                }
            }
        }
    };
    let framing = std::thread::scope(|scope| {
        let framer = scope.spawn(move || {
            let (mut start, mut bytes, mut index) = (0usize, 0usize, 0usize);
            let mut on_packet = |packets: &[(usize, usize)]| {
                let (s, e) = packets[packets.len() - 1];
                bytes += e - s;
                if bytes >= BATCH_BYTES {
                    let _ = tx.send((index, packets[start..].to_vec()));
                    index += 1;
                    start = packets.len();
                    bytes = 0;
                }
            };
            let framing = framing::frame_streaming(data, &|_| {}, &mut on_packet);
            if start < framing.packets.len() {
                let _ = tx.send((index, framing.packets[start..].to_vec()));
            }
            framing
        });
        let workers = rayon::current_num_threads().max(1);
        rayon::scope(|s| {
            for _ in 0..workers {
                s.spawn(|_| work());
            }
        });
        framer.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
    });
    let (batches, ends, ..) = state.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(Some(e)) = ends.last() {
        done_before(*e);
    }
    (framing, batches.into_iter().map(|b| b.expect("every batch decoded")).collect())
}

/// How many records of each kind a worker's last batch held: the next batch,
/// cut from the same stretch of the trace, reserves that much and a quarter
/// more up front. Grown by doubling instead, each vector was copied into
/// fresh pages once or twice on the way (a batch's records are a few hundred
/// KB, above the mmap threshold, see `crate::memory`). Capacity reserved but
/// not used costs address space, not memory.
#[derive(Debug, Default, Clone, Copy)]
struct BatchSizes {
    atrace: usize,
    timeline: usize,
    tail: usize,
    bundles: usize,
    kept: usize,
}

impl BatchSizes {
    fn of(batch: &Batch) -> BatchSizes {
        BatchSizes {
            atrace: batch.atrace.len(),
            timeline: batch.timeline.len(),
            tail: batch.tail.len(),
            bundles: batch.bundles.len(),
            kept: batch.kept_sched.as_ref().map_or(0, |k| k.records.len()),
        }
    }

    fn reserve(&self, ctx: &mut Ctx) {
        let more = |n: usize| n + n / 4;
        ctx.batch.atrace.reserve(more(self.atrace));
        ctx.batch.timeline.reserve(more(self.timeline));
        ctx.batch.tail.reserve(more(self.tail));
        ctx.batch.bundles.reserve(more(self.bundles));
        if let Some(c) = &mut ctx.collect {
            c.reserve(more(self.kept));
        }
    }
}

/// The packets of each batch [`frame_and_decode`] makes, in order.
pub(crate) fn batch_ranges(packets: &[(usize, usize)]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut bytes = 0;
    for (i, &(s, e)) in packets.iter().enumerate() {
        bytes += e - s;
        if bytes >= BATCH_BYTES {
            out.push(start..i + 1);
            start = i + 1;
            bytes = 0;
        }
    }
    if start < packets.len() {
        out.push(start..packets.len());
    }
    out
}

/// Decoding state for one batch.
pub struct Ctx {
    pub batch: Batch,
    pub interner: Interner,
    next_order: u64,
    /// Direct-mapped cache of tids whose comm this batch already recorded. A
    /// comm only changes through task_rename (handled separately), so once is
    /// enough; a collision merely repeats the (idempotent) recording. This
    /// keeps the per-event cost of sched data to one array probe.
    pub comm_seen: Box<[i32; COMM_CACHE]>,
    /// Shared by every batch of the trace (see [`InflateBudget`]).
    pub inflate_budget: std::sync::Arc<InflateBudget>,
    /// Direct-mapped cache of the tids already in `sched_tids` (as
    /// `tid as u32 + 1`, 0 = empty), so a tid costs one array probe.
    sched_seen: Box<[u64; COMM_CACHE]>,
    sched_tids: Vec<i32>,
    /// Something the scheduler pass may read differently was seen.
    pub sched_unknown: bool,
    /// Reused by `ftrace::bundle`: the byte ranges of one bundle's events.
    pub event_scratch: Vec<(usize, usize)>,
    /// Keeps the frame threads' scheduler records (see `read::frame_sched`).
    pub collect: Option<Collector>,
}

impl Ctx {
    pub fn new(batch_index: u64) -> Ctx {
        Ctx {
            batch: Batch::default(),
            interner: Interner::default(),
            next_order: batch_index << 40,
            comm_seen: Box::new([0; COMM_CACHE]),
            inflate_budget: InflateBudget::unlimited(),
            sched_seen: Box::new([0; COMM_CACHE]),
            sched_tids: Vec::new(),
            sched_unknown: false,
            event_scratch: Vec::new(),
            collect: None,
        }
    }

    /// The decoded batch, with the interner's statistics.
    pub fn finish(mut self) -> Batch {
        self.batch.names_truncated = self.interner.truncated;
        let kept = self.collect.take().map(Collector::finish);
        if !self.sched_unknown && self.batch.malformed_packets == 0 {
            let mut tids = std::mem::take(&mut self.sched_tids);
            tids.sort_unstable();
            tids.dedup();
            self.batch.sched_tids = Some(tids);
            self.batch.kept_sched = kept;
        }
        self.batch
    }

    /// A tid a scheduler event of this batch names (see `Batch::sched_tids`).
    #[inline]
    pub fn sched_tid(&mut self, tid: i32) {
        let key = u64::from(tid as u32) + 1;
        let slot = &mut self.sched_seen[tid as u32 as usize % COMM_CACHE];
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

    #[inline]
    pub fn order(&mut self) -> u64 {
        self.next_order += 1;
        self.next_order
    }

    /// Decode one TracePacket.
    pub fn packet(&mut self, buf: &[u8], depth: u32) {
        self.batch.packets += 1;
        let mut ts: Option<u64> = None;
        let mut clock: Option<u32> = None;
        let mut seq = 0u32;
        let mut incremental_state_cleared = false;
        let mut dropped_before = false;
        let mut first_on_sequence = false;
        let mut defaults: Option<&[u8]> = None;
        let mut interned: Option<&[u8]> = None;
        let mut payload: Option<(u32, &[u8])> = None;
        // Ftrace bundles and compressed batches: the scheduler pass reads
        // every one of them, this pass only the packet's last payload.
        let mut sched_fields = 0u32;
        for field in Fields::new(buf) {
            let (num, value) = match field {
                Ok(f) => f,
                Err(e) => {
                    self.malformed(format!("malformed packet: {e}"));
                    return;
                }
            };
            match num {
                8 => ts = Some(value.as_u64()),
                58 => clock = Some(value.as_u64() as u32),
                10 => seq = value.as_u64() as u32,
                13 => incremental_state_cleared |= value.as_u64() & 1 != 0,
                41 => incremental_state_cleared |= value.as_bool(),
                42 => dropped_before = value.as_bool(),
                87 => first_on_sequence = value.as_bool(),
                59 => defaults = Some(value.bytes()),
                12 => interned = Some(value.bytes()),
                1 | 76 | 50 | 133 | 2 | 9 | 6 | 11 | 60 | 45 | 35 | 34 | 69 => {
                    sched_fields += u32::from(matches!(num, 1 | 50 | 133));
                    if let Value::Bytes(b) = value {
                        payload = Some((num, b));
                    }
                }
                _ => {}
            }
        }
        if sched_fields > 1 || (sched_fields == 1 && !matches!(payload, Some((1 | 50 | 133, _)))) {
            self.sched_unknown = true;
        }
        // Every sequence's first packet says "previous packet dropped"; only a
        // later one means data was lost (trace_processor ignores the first).
        let order = self.order();
        self.batch.sequence_first.entry(seq).or_insert(order);
        if dropped_before && !first_on_sequence {
            self.batch.dropped_at.push((seq, order));
        }
        let clock_ref = ClockRef { explicit: clock, seq };
        if let Some(c) = clock {
            if !self.batch.clocks_seen.contains(&c) {
                self.batch.clocks_seen.push(c);
            }
        }
        let tail_body = match payload {
            Some((1, b)) => {
                ftrace::bundle(self, b);
                None
            }
            Some((76, b)) => {
                if let Some(ts) = ts {
                    timeline::event(self, b, ts as i64, clock_ref);
                }
                None
            }
            Some((50, b)) => {
                self.compressed(b, depth, Codec::Zlib);
                None
            }
            Some((133, b)) => {
                self.compressed(b, depth, Codec::Zstd);
                None
            }
            Some((11, b)) => match super::track_event::decode(self, b) {
                Ok(te) => Some(TailBody::TrackEvent(te)),
                Err(e) => {
                    self.malformed(format!("malformed packet (field 11): {e}"));
                    None
                }
            },
            Some((num, b)) => match self.tail_body(num, b) {
                Ok(body) => Some(body),
                Err(e) => {
                    self.malformed(format!("malformed packet (field {num}): {e}"));
                    None
                }
            },
            None => Some(TailBody::None),
        };
        // Packets that carry sequence state (defaults, interning) must reach the
        // sequential pass even without a body of interest.
        let body = match tail_body {
            Some(b) => b,
            None if defaults.is_some() || interned.is_some() => TailBody::None,
            None => return,
        };
        if matches!(body, TailBody::None) && defaults.is_none() && interned.is_none() && !incremental_state_cleared {
            return;
        }
        let defaults = defaults.and_then(|b| slim::TracePacketDefaults::decode(b).ok());
        let interned = interned.and_then(|b| slim::InternedData::decode(b).ok()).map(Box::new);
        if let Some(c) = &mut self.collect {
            c.tail_packet(&body, interned.as_deref());
        }
        let order = self.order();
        self.batch.tail.push(TailPacket { order, seq, ts, clock, incremental_state_cleared, defaults, interned, body });
    }

    fn tail_body(&mut self, num: u32, b: &[u8]) -> Result<TailBody, prost::DecodeError> {
        Ok(match num {
            2 => TailBody::ProcessTree(slim::ProcessTree::decode(b)?),
            9 => TailBody::ProcessStats(slim::ProcessStats::decode(b)?),
            6 => TailBody::ClockSnapshot(slim::ClockSnapshot::decode(b)?),
            60 => TailBody::TrackDescriptor(Box::new(slim::TrackDescriptor::decode(b)?)),
            45 => TailBody::SystemInfo(Box::new(slim::SystemInfo::decode(b)?)),
            35 => TailBody::TraceStats(slim::TraceStats::decode(b)?),
            34 => TailBody::FtraceStats(slim::FtraceStats::decode(b)?),
            69 => TailBody::ServiceEvent(slim::TracingServiceEvent::decode(b)?),
            _ => TailBody::None,
        })
    }

    fn compressed(&mut self, b: &[u8], depth: u32, codec: Codec) {
        self.batch.compressed_batches += 1;
        if depth >= MAX_NESTING {
            self.malformed(format!("compressed packets nested deeper than {MAX_NESTING} levels were skipped"));
            return;
        }
        if self.inflate_budget.exhausted() {
            self.malformed(budget_message());
            return;
        }
        let inflated = match inflate_packet(b, codec) {
            Ok(v) => v,
            Err(why) => {
                self.malformed(why);
                return;
            }
        };
        if !self.inflate_budget.charge(inflated.len()) {
            self.malformed(budget_message());
            return;
        }
        let inner = framing::frame(&inflated);
        if let Some(why) = &inner.stop_reason {
            self.malformed(format!("inside a compressed batch: {why}"));
        }
        for &(s, e) in &inner.packets {
            self.packet(&inflated[s..e], depth + 1);
        }
    }

    pub fn malformed(&mut self, why: String) {
        self.batch.malformed_packets += 1;
        // Keep the first few distinct reasons; the count says the rest.
        if self.batch.errors.len() < 8 && !self.batch.errors.contains(&why) {
            self.batch.errors.push(why);
        }
    }
}

pub fn budget_message() -> String {
    format!(
        "in-stream compressed batches inflate to more than {} GiB + {INFLATE_RATIO}x the trace size in total (decompression bomb?); the rest were skipped",
        INFLATE_BUDGET_BASE >> 30
    )
}

#[derive(Clone, Copy)]
enum Codec {
    Zlib,
    Zstd,
}

fn inflate_packet(b: &[u8], codec: Codec) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(b.len() * 4);
    let res = match codec {
        Codec::Zlib => flate2::read::ZlibDecoder::new(b).take(MAX_INFLATED_PACKET + 1).read_to_end(&mut out),
        Codec::Zstd => match zstd::stream::read::Decoder::with_buffer(b) {
            Ok(d) => d.take(MAX_INFLATED_PACKET + 1).read_to_end(&mut out),
            Err(e) => Err(e),
        },
    };
    let name = match codec {
        Codec::Zlib => "zlib",
        Codec::Zstd => "zstd",
    };
    if let Err(e) = res {
        return Err(format!("a {name} compressed batch is corrupt ({e}); its packets were skipped"));
    }
    if out.len() as u64 > MAX_INFLATED_PACKET {
        return Err(format!(
            "a {name} compressed batch inflates past {} MiB (decompression bomb?); skipped",
            MAX_INFLATED_PACKET >> 20
        ));
    }
    Ok(out)
}
