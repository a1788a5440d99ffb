//! Perfetto protobuf traces. A framing thread finds the top-level packets
//! without copying and cuts them into batches of a few MB; rayon workers
//! decode the batches concurrently, each into its own `BatchBuilder`. Hot
//! packets (ftrace bundles, FrameTimeline, track events) go through the
//! zero-copy wire scanner; long-tail packets through prost; in-stream
//! compressed batches (zlib field 50, zstd field 133) are inflated and
//! decoded recursively. The scheduler pass (`sched`) reads the ftrace
//! bundles again, for a few threads, skipping what the first pass says it
//! need not read.

mod compact_sched;
pub mod framing;
mod ftrace;
mod sched;
mod timeline;
mod track_event;
mod wire;

use std::sync::Arc;

use prost::Message;

use super::batch::BatchBuilder;
use super::compact_stitch::CompactStitch;
use super::error::ReadError;
use super::format::{Decoded, Format, ReadOptions, SchedPass, SchedScan, SourceFacts};
use super::frame_sched::Discovery;
use super::inflate::{self, Codec, InflateBudget};
use super::records::{Batch, ClockRef, TailBody, TailPacket};
use super::slim;
use super::source::{Compression, Source};
use super::thread_records::ThreadBuckets;
use crate::model::{Container, Warning, WarningCode};
use framing::Framing;
use sched::BatchSched;
use wire::{Fields, Value};

/// Target size of one parallel batch.
const BATCH_BYTES: usize = 4 << 20;
/// Target size of each of the first batches, one per decoding worker. They
/// begin before any frame thread is known, so the scheduler pass reads
/// them again (`frame_sched`); small, the first of them finds the frame
/// threads early and the batches after it keep their records. (At 4 MB the
/// two read again were most of the scheduler pass on a 210 MB busy trace.)
const FIRST_BATCH_BYTES: usize = 256 << 10;
/// How many of the first batches are small: as many as workers start at once.
const FIRST_BATCHES: usize = 2;

/// Target size of batch `index`.
fn batch_bytes(index: usize) -> usize {
    if index < FIRST_BATCHES {
        FIRST_BATCH_BYTES
    } else {
        BATCH_BYTES
    }
}
/// Compressed batches inside compressed batches are not written by Perfetto;
/// a little nesting is tolerated, deeper is treated as hostile.
const MAX_NESTING: u32 = 4;

/// Perfetto protobuf traces (`Trace` messages), as an input format.
pub struct Protobuf;

impl Format for Protobuf {
    fn sniff(&self, data: &[u8]) -> bool {
        // Trace.packet (field 1, length-delimited) always comes first.
        data.first() == Some(&0x0a)
    }

    fn decode(&self, source: &Source, opts: &ReadOptions) -> Result<(Decoded, SchedPass), ReadError> {
        let (decoded, pass) = first_pass(source, opts)?;
        Ok((decoded, SchedPass::new(Box::new(pass))))
    }

    fn sched_pass(&self) -> SchedPass {
        SchedPass::new(Box::new(SchedPackets { first_pass: None, found: Vec::new() }))
    }
}

/// The first pass, and the scheduler pass that follows it.
fn first_pass(source: &Source, opts: &ReadOptions) -> Result<(Decoded, SchedPackets), ReadError> {
    let data = source.data();
    let container = match source.compression {
        Compression::None => Container::Plain,
        Compression::Gzip => Container::Gzip,
        Compression::Zstd => Container::Zstd,
    };
    let mut facts = SourceFacts::of(source, container);
    // Framing and decoding overlap (see `frame_and_decode`); a file
    // without packets is refused before anything else is reported.
    let bar = opts.sink.bar(data.len() as u64, "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}");
    bar.set_message("decoding");
    let discovery = (!opts.keep_sched_of_slices.is_empty()).then(|| Discovery::new(opts.keep_sched_of_slices));
    let on_progress = |n| bar.inc(n);
    let (framing, mut batches) =
        frame_and_decode(data, discovery.as_ref(), &on_progress, &|offset| source.release_before(offset));
    bar.finish_and_clear();
    if framing.packets.is_empty() {
        let why = framing.stop_reason.unwrap_or_else(|| "it contains no packets".to_string());
        return Err(ReadError::NotATrace { path: source.path.clone(), why });
    }
    if source.compressed_truncated {
        let message = format!(
            "the {container} stream ends early: the file was cut (interrupted pull?); {} bytes inflated and were analysed, the rest is lost",
            data.len()
        );
        facts.warnings.push(Warning::new(WarningCode::StreamCut, message));
    }
    if let Some(why) = &framing.stop_reason {
        facts.truncated_bytes = framing.trailing_bytes as u64;
        let pct = framing.trailing_bytes as f64 * 100.0 / data.len() as f64;
        let message = format!(
            "{why}; the last {} bytes ({pct:.1}% of the trace) were not decoded, the analysis covers what came before",
            framing.trailing_bytes
        );
        facts.warnings.push(Warning::new(WarningCode::TraceTruncated, message));
    }
    let ends = batch_ranges(&framing.packets).into_iter().map(|r| r.end);
    let plan = ends
        .zip(&mut batches)
        .map(|(end, b)| BatchSched {
            end,
            tids: b.sched_tids.take(),
            kept: b.kept_sched.take(),
            edges: std::mem::take(&mut b.compact_edges),
        })
        .collect();
    let found = discovery.map(|d| d.found()).unwrap_or_default();
    Ok((Decoded { batches, source: facts }, SchedPackets { first_pass: Some((framing, plan)), found }))
}

/// The scheduler pass over a protobuf trace, with the first pass's framing
/// and what it learned of each of its batches, in order, when there was one.
struct SchedPackets {
    first_pass: Option<(Framing, Vec<BatchSched>)>,
    /// The threads the first pass found to begin frames.
    found: Vec<i32>,
}

impl SchedScan for SchedPackets {
    fn scan(&mut self, source: &Source, tids: &[i32], threads: &mut ThreadBuckets) -> CompactStitch {
        let first_pass = self.first_pass.as_mut().map(|(f, batches)| (&*f, batches.as_mut_slice()));
        sched::collect(source.data(), first_pass, tids, &|offset| source.release_before(offset), threads)
    }

    fn found_threads(&self) -> Vec<i32> {
        self.found.clone()
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
    let finished = Mutex::new(Finished::default());
    let work = || {
        let mut sizes = BatchSizes::default();
        let mut events = Vec::new();
        loop {
            let job = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
            let Ok((i, packets)) = job else { break };
            let mut builder = BatchBuilder::new(i as u64);
            builder.collect = discovery.map(Discovery::collector);
            sizes.reserve(&mut builder);
            let mut decoder = PacketDecoder { b: builder, budget: &budget, events: &mut events };
            for &(s, e) in &packets {
                decoder.packet(&data[s..e], 0);
            }
            if let (Some(first), Some(last)) = (packets.first(), packets.last()) {
                on_progress((last.1 - first.0) as u64);
            }
            let batch = decoder.b.finish();
            sizes = BatchSizes::of(&batch);
            let end = packets.last().map_or(0, |p| p.1);
            // Released under the lock, so the releases come in file order.
            let mut done = finished.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(offset) = done.add(i, batch, end) {
                done_before(offset);
            }
        }
    };
    let framing = std::thread::scope(|scope| {
        let framer = scope.spawn(move || {
            let (mut start, mut bytes, mut index) = (0usize, 0usize, 0usize);
            let mut on_packet = |packets: &[(usize, usize)]| {
                let (s, e) = packets[packets.len() - 1];
                bytes += e - s;
                if bytes >= batch_bytes(index) {
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
    let Finished { batches, ends, .. } = finished.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(Some(e)) = ends.last() {
        done_before(*e);
    }
    (framing, batches.into_iter().map(|b| b.expect("every batch decoded")).collect())
}

/// The batches the workers have finished, in any order.
#[derive(Default)]
struct Finished {
    /// Decoded batches by index.
    batches: Vec<Option<Batch>>,
    /// The end offset of each finished batch, by index.
    ends: Vec<Option<usize>>,
    /// The first unfinished batch.
    prefix: usize,
    /// Windows of [`WINDOW_BATCHES`] released so far.
    released: usize,
}

impl Finished {
    /// Batch `i`, ending at byte `end`, is done. Returns the offset the mapped
    /// pages can be released before, when a whole window more is done.
    fn add(&mut self, i: usize, batch: Batch, end: usize) -> Option<usize> {
        if self.batches.len() <= i {
            self.batches.resize_with(i + 1, || None);
            self.ends.resize(i + 1, None);
        }
        self.batches[i] = Some(batch);
        self.ends[i] = Some(end);
        let mut release = None;
        while let Some(Some(e)) = self.ends.get(self.prefix) {
            release = Some(*e);
            self.prefix += 1;
        }
        let window = self.prefix / WINDOW_BATCHES;
        let offset = release.filter(|_| window > self.released)?;
        self.released = window;
        Some(offset)
    }
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

    fn reserve(&self, ctx: &mut BatchBuilder) {
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
        if bytes >= batch_bytes(out.len()) {
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

/// Decodes packets into one batch.
struct PacketDecoder<'a> {
    b: BatchBuilder,
    /// Shared by every batch of the trace (see [`InflateBudget`]).
    budget: &'a InflateBudget,
    /// Reused by `ftrace::bundle`: the byte ranges of one bundle's events.
    events: &'a mut Vec<(usize, usize)>,
}

impl PacketDecoder<'_> {
    /// Decode one TracePacket.
    fn packet(&mut self, buf: &[u8], depth: u32) {
        self.b.batch.packets += 1;
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
                    self.b.malformed(format!("malformed packet: {e}"));
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
                1 | 76 | 50 | 133 | 2 | 9 | 6 | 11 | 60 | 45 | 35 | 34 | 69 | 66 => {
                    sched_fields += u32::from(matches!(num, 1 | 50 | 133));
                    if let Value::Bytes(b) = value {
                        payload = Some((num, b));
                    }
                }
                _ => {}
            }
        }
        if sched_fields > 1 || (sched_fields == 1 && !matches!(payload, Some((1 | 50 | 133, _)))) {
            self.b.sched_unknown = true;
        }
        // Every sequence's first packet says "previous packet dropped"; only a
        // later one means data was lost (trace_processor ignores the first).
        let order = self.b.order();
        self.b.batch.sequence_first.entry(seq).or_insert(order);
        if dropped_before && !first_on_sequence {
            self.b.batch.dropped_at.push((seq, order));
        }
        let clock_ref = ClockRef { explicit: clock, seq };
        if let Some(c) = clock {
            if !self.b.batch.clocks_seen.contains(&c) {
                self.b.batch.clocks_seen.push(c);
            }
        }
        let tail_body = match payload {
            Some((1, b)) => {
                ftrace::bundle(&mut self.b, b, self.events);
                None
            }
            Some((76, b)) => {
                if let Some(ts) = ts {
                    timeline::event(&mut self.b, b, ts as i64, clock_ref);
                }
                None
            }
            Some((50, b)) => {
                self.compressed(b, depth, Codec::Zlib);
                None
            }
            Some((66, b)) => {
                self.perf_sample(b);
                None
            }
            Some((133, b)) => {
                self.compressed(b, depth, Codec::Zstd);
                None
            }
            Some((11, b)) => match track_event::decode(&mut self.b, b) {
                Ok(te) => Some(TailBody::TrackEvent(te)),
                Err(e) => {
                    self.b.malformed(format!("malformed packet (field 11): {e}"));
                    None
                }
            },
            Some((num, b)) => match Self::tail_body(num, b) {
                Ok(body) => Some(body),
                Err(e) => {
                    self.b.malformed(format!("malformed packet (field {num}): {e}"));
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
        if let Some(c) = &mut self.b.collect {
            c.tail_packet(&body, interned.as_deref());
        }
        let order = self.b.order();
        self.b.batch.tail.push(TailPacket {
            order,
            seq,
            ts,
            clock,
            incremental_state_cleared,
            defaults,
            interned,
            body,
        });
    }

    /// A perf sample: only the records the kernel lost, when it says
    /// (`cpu` = 1, `kernel_records_lost` = 17; trace_processor's
    /// `perf_cpu_lost_records`, by CPU).
    fn perf_sample(&mut self, b: &[u8]) {
        let (mut cpu, mut lost) = (0u32, None);
        for f in Fields::new(b) {
            match f {
                Ok((1, v)) => cpu = v.as_u64() as u32,
                Ok((17, v)) => lost = Some(v.as_u64()),
                Ok(_) => {}
                Err(e) => return self.b.malformed(format!("malformed perf sample: {e}")),
            }
        }
        if let Some(n) = lost {
            self.b.batch.perf_lost.push((cpu, n));
        }
    }

    fn tail_body(num: u32, b: &[u8]) -> Result<TailBody, prost::DecodeError> {
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
        self.b.batch.compressed_batches += 1;
        if depth >= MAX_NESTING {
            self.b.malformed(format!("compressed packets nested deeper than {MAX_NESTING} levels were skipped"));
            return;
        }
        if self.budget.exhausted() {
            self.b.malformed(InflateBudget::spent_message());
            return;
        }
        let inflated = match inflate::packet(b, codec) {
            Ok(v) => v,
            Err(why) => {
                self.b.malformed(why.to_string());
                return;
            }
        };
        if !self.budget.charge(inflated.len()) {
            self.b.malformed(InflateBudget::spent_message());
            return;
        }
        let inner = framing::frame(&inflated);
        if let Some(why) = &inner.stop_reason {
            self.b.malformed(format!("inside a compressed batch: {why}"));
        }
        for &(s, e) in &inner.packets {
            self.packet(&inflated[s..e], depth + 1);
        }
    }
}
