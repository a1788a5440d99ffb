//! Serialises a [`TraceBuilder`]'s events as `perfetto.protos.Trace` bytes.
//!
//! [`StreamEncoder`] keeps everything that must stay consistent across the
//! windows of a streaming generator (which sequences already started, interned
//! names per sequence, the task running on each CPU, which CPUs wrote their
//! first bundle), so `busy_phone` can emit a gigabyte window by window while
//! `TraceBuilder::build` is just one window.
//!
//! Layout, like a device trace: the process tree, clock snapshot, service
//! event and system info come first; then "units" (one per-CPU ftrace bundle,
//! or a run of packets of one other producer) ordered by the time their
//! producer would have committed them (their last timestamp). Units of
//! different CPUs therefore overlap in time and the file is not globally
//! sorted.

use std::collections::{HashMap, HashSet};
use std::io::Write as _;

use super::pb::Writer;
use super::{
    BuildOptions, Compression, FtKind, FtraceEv, FtraceRec, OtherEv, OtherRec, Print, Stream, TraceBuilder,
    DEFAULT_PRIO, MONOTONIC_BEHIND_BOOTTIME_NS, REALTIME_MINUS_BOOTTIME_NS,
};

/// Field numbers, from Perfetto's protos/perfetto/trace/**/*.proto.
pub mod field {
    /// `Trace.packet`.
    pub const TRACE_PACKET: u32 = 1;

    // TracePacket (trace_packet.proto)
    pub const PKT_FTRACE_EVENTS: u32 = 1;
    pub const PKT_PROCESS_TREE: u32 = 2;
    pub const PKT_CLOCK_SNAPSHOT: u32 = 6;
    pub const PKT_TIMESTAMP: u32 = 8;
    pub const PKT_TRUSTED_PACKET_SEQUENCE_ID: u32 = 10;
    pub const PKT_TRACK_EVENT: u32 = 11;
    pub const PKT_INTERNED_DATA: u32 = 12;
    pub const PKT_SEQUENCE_FLAGS: u32 = 13;
    pub const PKT_SYSTEM_INFO: u32 = 45;
    pub const PKT_COMPRESSED_PACKETS: u32 = 50;
    pub const PKT_TRACK_DESCRIPTOR: u32 = 60;
    pub const PKT_SERVICE_EVENT: u32 = 69;
    pub const PKT_FRAME_TIMELINE_EVENT: u32 = 76;
    pub const PKT_FIRST_PACKET_ON_SEQUENCE: u32 = 87;
    /// Added in Perfetto v58 (not in the 0.51 proto copy).
    pub const PKT_ZSTD_COMPRESSED_PACKETS: u32 = 133;

    /// `TracePacket.SequenceFlags`.
    pub const SEQ_INCREMENTAL_STATE_CLEARED: u64 = 1;
    pub const SEQ_NEEDS_INCREMENTAL_STATE: u64 = 2;

    // FtraceEventBundle (ftrace/ftrace_event_bundle.proto)
    pub const BUNDLE_CPU: u32 = 1;
    pub const BUNDLE_EVENT: u32 = 2;
    pub const BUNDLE_COMPACT_SCHED: u32 = 4;
    pub const BUNDLE_PREVIOUS_BUNDLE_END_TIMESTAMP: u32 = 10;

    // FtraceEventBundle.CompactSched
    pub const CS_SWITCH_TIMESTAMP: u32 = 1;
    pub const CS_SWITCH_PREV_STATE: u32 = 2;
    pub const CS_SWITCH_NEXT_PID: u32 = 3;
    pub const CS_SWITCH_NEXT_PRIO: u32 = 4;
    pub const CS_INTERN_TABLE: u32 = 5;
    pub const CS_SWITCH_NEXT_COMM_INDEX: u32 = 6;
    pub const CS_WAKING_TIMESTAMP: u32 = 7;
    pub const CS_WAKING_PID: u32 = 8;
    pub const CS_WAKING_TARGET_CPU: u32 = 9;
    pub const CS_WAKING_PRIO: u32 = 10;
    pub const CS_WAKING_COMM_INDEX: u32 = 11;
    pub const CS_WAKING_COMMON_FLAGS: u32 = 12;

    // FtraceEvent (ftrace/ftrace_event.proto)
    pub const FE_TIMESTAMP: u32 = 1;
    pub const FE_PID: u32 = 2;
    pub const FE_PRINT: u32 = 3;
    pub const FE_SCHED_SWITCH: u32 = 4;
    pub const FE_SCHED_WAKING: u32 = 20;
    pub const FE_TASK_RENAME: u32 = 236;

    // PrintFtraceEvent (ftrace/ftrace.proto)
    pub const PRINT_BUF: u32 = 2;

    // SchedSwitchFtraceEvent (ftrace/sched.proto)
    pub const SW_PREV_COMM: u32 = 1;
    pub const SW_PREV_PID: u32 = 2;
    pub const SW_PREV_PRIO: u32 = 3;
    pub const SW_PREV_STATE: u32 = 4;
    pub const SW_NEXT_COMM: u32 = 5;
    pub const SW_NEXT_PID: u32 = 6;
    pub const SW_NEXT_PRIO: u32 = 7;

    // SchedWakingFtraceEvent (ftrace/sched.proto)
    pub const WK_COMM: u32 = 1;
    pub const WK_PID: u32 = 2;
    pub const WK_PRIO: u32 = 3;
    pub const WK_SUCCESS: u32 = 4;
    pub const WK_TARGET_CPU: u32 = 5;

    // TaskRenameFtraceEvent (ftrace/task.proto)
    pub const RN_PID: u32 = 1;
    pub const RN_OLDCOMM: u32 = 2;
    pub const RN_NEWCOMM: u32 = 3;

    // ProcessTree (ps/process_tree.proto)
    pub const PT_PROCESSES: u32 = 1;
    pub const PT_THREADS: u32 = 2;
    pub const PT_PROC_PID: u32 = 1;
    pub const PT_PROC_PPID: u32 = 2;
    pub const PT_PROC_CMDLINE: u32 = 3;
    pub const PT_THREAD_TID: u32 = 1;
    pub const PT_THREAD_NAME: u32 = 2;
    pub const PT_THREAD_TGID: u32 = 3;

    // ClockSnapshot (clock_snapshot.proto)
    pub const CS_CLOCKS: u32 = 1;
    pub const CLOCK_ID: u32 = 1;
    pub const CLOCK_TIMESTAMP: u32 = 2;
    pub const BUILTIN_CLOCK_REALTIME: u64 = 1;
    pub const BUILTIN_CLOCK_MONOTONIC: u64 = 3;
    pub const BUILTIN_CLOCK_BOOTTIME: u64 = 6;

    // TracingServiceEvent (perfetto/tracing_service_event.proto)
    pub const SVC_TRACING_STARTED: u32 = 2;

    // SystemInfo (common/system_info.proto)
    pub const SI_ANDROID_BUILD_FINGERPRINT: u32 = 2;
    pub const SI_ANDROID_SDK_VERSION: u32 = 5;

    // FrameTimelineEvent (android/frame_timeline_event.proto)
    pub const FT_EXPECTED_DISPLAY_FRAME_START: u32 = 1;
    pub const FT_ACTUAL_DISPLAY_FRAME_START: u32 = 2;
    pub const FT_EXPECTED_SURFACE_FRAME_START: u32 = 3;
    pub const FT_ACTUAL_SURFACE_FRAME_START: u32 = 4;
    pub const FT_FRAME_END: u32 = 5;
    // ExpectedSurfaceFrameStart / ActualSurfaceFrameStart
    pub const FTS_COOKIE: u32 = 1;
    pub const FTS_TOKEN: u32 = 2;
    pub const FTS_DISPLAY_FRAME_TOKEN: u32 = 3;
    pub const FTS_PID: u32 = 4;
    pub const FTS_LAYER_NAME: u32 = 5;
    pub const FTS_PRESENT_TYPE: u32 = 6;
    pub const FTS_ON_TIME_FINISH: u32 = 7;
    pub const FTS_GPU_COMPOSITION: u32 = 8;
    pub const FTS_JANK_TYPE: u32 = 9;
    pub const FTS_PREDICTION_TYPE: u32 = 10;
    pub const FTS_IS_BUFFER: u32 = 11;
    pub const FTS_JANK_SEVERITY_TYPE: u32 = 12;
    pub const FTS_PRESENT_DELAY_MILLIS: u32 = 13;
    // ExpectedDisplayFrameStart / ActualDisplayFrameStart
    pub const FTD_COOKIE: u32 = 1;
    pub const FTD_TOKEN: u32 = 2;
    pub const FTD_PID: u32 = 3;
    pub const FTD_PRESENT_TYPE: u32 = 4;
    pub const FTD_ON_TIME_FINISH: u32 = 5;
    pub const FTD_GPU_COMPOSITION: u32 = 6;
    pub const FTD_JANK_TYPE: u32 = 7;
    pub const FTD_PREDICTION_TYPE: u32 = 8;
    pub const FTD_JANK_SEVERITY_TYPE: u32 = 9;
    pub const FTD_PRESENT_DELAY_MILLIS: u32 = 10;
    // FrameEnd
    pub const FTE_COOKIE: u32 = 1;

    // TrackDescriptor / ThreadDescriptor (track_event/*.proto)
    pub const TD_UUID: u32 = 1;
    pub const TD_THREAD: u32 = 4;
    pub const THD_PID: u32 = 1;
    pub const THD_TID: u32 = 2;
    pub const THD_THREAD_NAME: u32 = 5;

    // TrackEvent (track_event/track_event.proto)
    pub const TE_TYPE: u32 = 9;
    pub const TE_NAME_IID: u32 = 10;
    pub const TE_TRACK_UUID: u32 = 11;
    pub const TE_TYPE_SLICE_BEGIN: u64 = 1;
    pub const TE_TYPE_SLICE_END: u64 = 2;

    // InternedData / EventName (interned_data/interned_data.proto, track_event.proto)
    pub const ID_EVENT_NAMES: u32 = 2;
    pub const EN_IID: u32 = 1;
    pub const EN_NAME: u32 = 2;
}

use field::*;

/// Packets per compressed batch, and the uncompressed size that also ends a
/// batch (Perfetto's service compresses what it reads in bounded chunks).
const BATCH_MAX_PACKETS: usize = 64;
const BATCH_MAX_BYTES: usize = 256 * 1024;

/// Track uuid the builder gives the thread track of (pid, tid).
pub fn thread_track_uuid(pid: i32, tid: i32) -> u64 {
    (1u64 << 63) | (u64::from(pid as u32) << 32) | u64::from(tid as u32)
}

/// Producer index 0 is the tracing service, 1 traced_probes (process tree),
/// 2 SurfaceFlinger; app threads writing track events follow.
const PRODUCER_SERVICE: usize = 0;
const PRODUCER_PROBES: usize = 1;
const PRODUCER_SURFACEFLINGER: usize = 2;

#[derive(Default)]
struct SeqState {
    started: bool,
    incremental_cleared: bool,
    event_names: HashMap<String, u64>,
}

/// A contiguous run of packets that one producer commits together.
enum UnitBody {
    /// Indices into the window's per-CPU sorted ftrace list.
    Bundle { cpu: u32, range: std::ops::Range<usize>, prev_end: Option<i64> },
    /// Indices into the window's per-producer packet list.
    Others { producer: usize, range: std::ops::Range<usize> },
}

struct Unit {
    key: i64,
    order: usize,
    body: UnitBody,
}

/// Encodes windows of events into one continuous trace. See the module docs.
pub struct StreamEncoder {
    opts: BuildOptions,
    started: bool,
    seqs: HashMap<u32, SeqState>,
    producers: HashMap<Stream, usize>,
    producer_keys: HashMap<usize, i64>,
    cpu_current: HashMap<u32, i32>,
    cpu_bundled: HashSet<u32>,
    described: HashSet<Stream>,
    batch: Writer,
    batch_packets: usize,
    scratch: String,
}

impl StreamEncoder {
    pub fn new(mut opts: BuildOptions) -> Self {
        // Zero would make every modulo below meaningless; treat it as one.
        opts.cpus = opts.cpus.max(1);
        opts.sequences = opts.sequences.max(1);
        opts.events_per_bundle = opts.events_per_bundle.max(1);
        Self {
            opts,
            started: false,
            seqs: HashMap::new(),
            producers: HashMap::new(),
            producer_keys: HashMap::new(),
            cpu_current: HashMap::new(),
            cpu_bundled: HashSet::new(),
            described: HashSet::new(),
            batch: Writer::with_capacity(64 * 1024),
            batch_packets: 0,
            scratch: String::new(),
        }
    }

    /// Switches between compact_sched and plain sched events for the
    /// following windows (real traces use one; benchmarks mix both).
    pub fn set_compact_sched(&mut self, on: bool) {
        self.opts.compact_sched = on;
    }

    /// Sequence id of a non-ftrace producer.
    fn producer_seq(&self, producer: usize) -> u32 {
        1 + (producer as u32 % self.opts.sequences)
    }

    /// Sequence id of one CPU's ftrace data (after all producer sequences).
    pub fn cpu_seq(&self, cpu: u32) -> u32 {
        self.opts.sequences + 1 + cpu
    }

    fn producer_of(&mut self, s: Stream) -> usize {
        let n = self.producers.len();
        match s {
            Stream::SurfaceFlinger => PRODUCER_SURFACEFLINGER,
            Stream::Thread { .. } => *self.producers.entry(s).or_insert(3 + n),
        }
    }

    fn cpu_of(&self, r: &FtraceRec) -> u32 {
        r.cpu.unwrap_or_else(|| (r.tid as i64).rem_euclid(i64::from(self.opts.cpus)) as u32)
    }

    /// Streams one window: encodes `b`'s events (through the reused buffer
    /// `out`) to `w`, then drops them from `b`. Returns the bytes written.
    pub(crate) fn flush_window<W: std::io::Write>(
        &mut self,
        b: &mut TraceBuilder,
        out: &mut Vec<u8>,
        w: &mut W,
    ) -> std::io::Result<u64> {
        out.clear();
        self.write_window(b, out);
        b.clear_events();
        w.write_all(out)?;
        Ok(out.len() as u64)
    }

    /// Appends the encoding of all events of `b` to `out`. The first call also
    /// writes the process tree, clock snapshot, service event and system info.
    pub fn write_window(&mut self, b: &TraceBuilder, out: &mut Vec<u8>) {
        if !self.started {
            self.started = true;
            self.write_prelude(b, out);
        }

        // Ftrace: per CPU, in time order (the kernel ring buffer is per CPU and
        // ordered); the sort is stable so equal timestamps keep call order.
        let mut per_cpu: HashMap<u32, Vec<FtraceRec>> = HashMap::new();
        for r in &b.ftrace {
            per_cpu.entry(self.cpu_of(r)).or_default().push(*r);
        }
        let mut cpus: Vec<u32> = per_cpu.keys().copied().collect();
        cpus.sort_unstable();
        let mut units = Vec::new();
        for &cpu in &cpus {
            let evs = per_cpu.get_mut(&cpu).expect("cpu key from map");
            evs.sort_by_key(|r| r.ts);
            // Resolve sched_waking's common pid from the task switched in last.
            let cur = self.cpu_current.entry(cpu).or_insert(0);
            for r in evs.iter_mut() {
                match r.ev {
                    FtraceEv::Switch { next_tid, .. } => *cur = next_tid,
                    FtraceEv::Waking { .. } if r.pid.is_none() => r.pid = Some(*cur),
                    _ => {}
                }
            }
            let n = self.opts.events_per_bundle;
            let mut start = 0;
            while start < evs.len() {
                let end = (start + n).min(evs.len());
                let first_of_cpu = self.cpu_bundled.insert(cpu);
                let prev_end = (first_of_cpu && self.opts.first_bundle_previous_end).then(|| evs[start].ts);
                units.push(Unit {
                    key: evs[end - 1].ts,
                    order: units.len(),
                    body: UnitBody::Bundle { cpu, range: start..end, prev_end },
                });
                start = end;
            }
        }

        // Other producers: FrameTimeline keeps call order (SurfaceFlinger writes
        // a frame's packets when it is presented, not in start order); a
        // thread's track events are written as they happen, so by time.
        let mut per_producer: HashMap<usize, Vec<OtherRec>> = HashMap::new();
        for r in &b.others {
            let p = self.producer_of(r.stream);
            per_producer.entry(p).or_default().push(*r);
        }
        let mut producers: Vec<usize> = per_producer.keys().copied().collect();
        producers.sort_unstable();
        for &p in &producers {
            let recs = per_producer.get_mut(&p).expect("producer key from map");
            if p != PRODUCER_SURFACEFLINGER {
                recs.sort_by_key(|r| r.ts);
            }
            let n = self.opts.events_per_bundle;
            let mut start = 0;
            while start < recs.len() {
                let end = (start + n).min(recs.len());
                let last = recs[start..end].iter().map(|r| r.ts).max().unwrap_or(i64::MIN);
                // Keys never go backwards within a producer, so its packets stay
                // in order (interned names are defined before use).
                let key = self.producer_keys.entry(p).or_insert(i64::MIN);
                *key = (*key).max(last);
                units.push(Unit {
                    key: *key,
                    order: units.len(),
                    body: UnitBody::Others { producer: p, range: start..end },
                });
                start = end;
            }
        }

        units.sort_by_key(|u| (u.key, u.order));
        for u in &units {
            match &u.body {
                UnitBody::Bundle { cpu, range, prev_end } => {
                    let evs = &per_cpu[cpu][range.clone()];
                    self.write_bundle(b, *cpu, evs, *prev_end, out);
                }
                UnitBody::Others { producer, range } => {
                    for r in &per_producer[producer][range.clone()] {
                        self.write_other(b, *producer, r, out);
                    }
                }
            }
        }
        self.flush(out);
    }

    fn write_prelude(&mut self, b: &TraceBuilder, out: &mut Vec<u8>) {
        let mut t0 = b.min_ts().unwrap_or(0);
        if let Some(ts) = self.opts.tracing_started {
            t0 = t0.min(ts);
        }
        let probes = self.producer_seq(PRODUCER_PROBES);
        let service = self.producer_seq(PRODUCER_SERVICE);
        if !b.processes.is_empty() || !b.threads.is_empty() {
            self.packet(probes, Some(t0), out, |p| {
                p.nested(PKT_PROCESS_TREE, |t| {
                    for pr in &b.processes {
                        t.nested(PT_PROCESSES, |m| {
                            m.int(PT_PROC_PID, i64::from(pr.pid));
                            // Apps are forked from zygote; everything hangs off init here.
                            m.int(PT_PROC_PPID, 1);
                            m.string(PT_PROC_CMDLINE, &pr.name);
                        });
                    }
                    for th in &b.threads {
                        t.nested(PT_THREADS, |m| {
                            m.int(PT_THREAD_TID, i64::from(th.tid));
                            m.string(PT_THREAD_NAME, &th.name);
                            m.int(PT_THREAD_TGID, i64::from(th.pid));
                        });
                    }
                });
            });
        }
        if self.opts.clock_snapshot {
            self.packet(service, Some(t0), out, |p| {
                p.nested(PKT_CLOCK_SNAPSHOT, |c| {
                    for (id, ts) in [
                        (BUILTIN_CLOCK_BOOTTIME, t0),
                        (BUILTIN_CLOCK_MONOTONIC, t0 - MONOTONIC_BEHIND_BOOTTIME_NS),
                        (BUILTIN_CLOCK_REALTIME, t0 + REALTIME_MINUS_BOOTTIME_NS),
                    ] {
                        c.nested(CS_CLOCKS, |k| {
                            k.uint(CLOCK_ID, id);
                            k.uint(CLOCK_TIMESTAMP, ts as u64);
                        });
                    }
                });
            });
        }
        if let Some(ts) = self.opts.tracing_started {
            self.packet(service, Some(ts), out, |p| {
                p.nested(PKT_SERVICE_EVENT, |e| e.bool(SVC_TRACING_STARTED, true));
            });
        }
        if let Some((fp, sdk)) = &b.system_info {
            self.packet(service, Some(t0), out, |p| {
                p.nested(PKT_SYSTEM_INFO, |s| {
                    s.string(SI_ANDROID_BUILD_FINGERPRINT, fp);
                    s.uint(SI_ANDROID_SDK_VERSION, *sdk);
                });
            });
        }
    }

    /// Writes one TracePacket on sequence `seq`; `f` adds the payload fields.
    fn packet(&mut self, seq: u32, ts: Option<i64>, out: &mut Vec<u8>, f: impl FnOnce(&mut Writer)) {
        let st = self.seqs.entry(seq).or_default();
        let first = !st.started;
        st.started = true;
        self.batch.nested(TRACE_PACKET, |p| {
            if let Some(ts) = ts {
                p.uint(PKT_TIMESTAMP, ts as u64);
            }
            f(p);
            p.uint(PKT_TRUSTED_PACKET_SEQUENCE_ID, u64::from(seq));
            if first {
                p.bool(PKT_FIRST_PACKET_ON_SEQUENCE, true);
            }
        });
        self.batch_packets += 1;
        if self.opts.compression != Compression::None
            && (self.batch_packets >= BATCH_MAX_PACKETS || self.batch.len() >= BATCH_MAX_BYTES)
        {
            self.flush(out);
        }
    }

    /// Moves the pending packets to `out`, compressed into one packet if asked.
    fn flush(&mut self, out: &mut Vec<u8>) {
        if self.batch.is_empty() {
            return;
        }
        let raw = &self.batch.buf;
        let (fieldno, data) = match self.opts.compression {
            Compression::None => {
                out.extend_from_slice(raw);
                self.batch.clear();
                self.batch_packets = 0;
                return;
            }
            Compression::Zlib => {
                let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
                // Writing to a Vec cannot fail.
                z.write_all(raw).expect("zlib into Vec");
                (PKT_COMPRESSED_PACKETS, z.finish().expect("zlib into Vec"))
            }
            Compression::Zstd => (PKT_ZSTD_COMPRESSED_PACKETS, zstd::bulk::compress(raw, 3).expect("zstd into Vec")),
        };
        let mut w = Writer { buf: std::mem::take(out) };
        w.nested(TRACE_PACKET, |p| p.bytes(fieldno, &data));
        *out = w.buf;
        self.batch.clear();
        self.batch_packets = 0;
    }

    fn write_bundle(
        &mut self,
        b: &TraceBuilder,
        cpu: u32,
        evs: &[FtraceRec],
        prev_end: Option<i64>,
        out: &mut Vec<u8>,
    ) {
        let seq = self.cpu_seq(cpu);
        let compact = self.opts.compact_sched;
        let mut scratch = std::mem::take(&mut self.scratch);
        self.packet(seq, None, out, |p| {
            p.nested(PKT_FTRACE_EVENTS, |bw| {
                bw.uint(BUNDLE_CPU, u64::from(cpu));
                for r in evs {
                    let is_sched = matches!(r.ev, FtraceEv::Switch { .. } | FtraceEv::Waking { .. });
                    if compact && is_sched {
                        continue;
                    }
                    bw.nested(BUNDLE_EVENT, |e| {
                        e.uint(FE_TIMESTAMP, r.ts as u64);
                        e.uint(FE_PID, u64::from(r.pid.unwrap_or(0) as u32));
                        write_ftrace_payload(e, b, &r.ev, &mut scratch);
                    });
                }
                if compact && evs.iter().any(|r| matches!(r.ev, FtraceEv::Switch { .. } | FtraceEv::Waking { .. })) {
                    bw.nested(BUNDLE_COMPACT_SCHED, |c| write_compact_sched(c, b, evs));
                }
                if let Some(ts) = prev_end {
                    bw.uint(BUNDLE_PREVIOUS_BUNDLE_END_TIMESTAMP, ts as u64);
                }
            });
        });
        self.scratch = scratch;
    }

    fn write_other(&mut self, b: &TraceBuilder, producer: usize, r: &OtherRec, out: &mut Vec<u8>) {
        let seq = self.producer_seq(producer);
        match r.ev {
            OtherEv::FrameTimeline { cookie, kind } => {
                self.packet(seq, Some(r.ts), out, |p| {
                    p.nested(PKT_FRAME_TIMELINE_EVENT, |f| write_frame_timeline(f, b, cookie, &kind));
                });
            }
            OtherEv::SliceBegin { .. } | OtherEv::SliceEnd => {
                let Stream::Thread { pid, tid } = r.stream else { return };
                let uuid = thread_track_uuid(pid, tid);
                if self.described.insert(r.stream) {
                    let st = self.seqs.entry(seq).or_default();
                    let clear = !st.incremental_cleared;
                    if clear {
                        st.incremental_cleared = true;
                        st.event_names.clear();
                    }
                    let name = thread_name_at(b, tid, r.ts);
                    self.packet(seq, Some(r.ts), out, |p| {
                        if clear {
                            p.uint(PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
                        }
                        p.nested(PKT_TRACK_DESCRIPTOR, |t| {
                            t.uint(TD_UUID, uuid);
                            t.nested(TD_THREAD, |d| {
                                d.int(THD_PID, i64::from(pid));
                                d.int(THD_TID, i64::from(tid));
                                if let Some(n) = name {
                                    d.string(THD_THREAD_NAME, n);
                                }
                            });
                        });
                    });
                }
                let st = self.seqs.entry(seq).or_default();
                let mut new_name = None;
                let begin = match r.ev {
                    OtherEv::SliceBegin { name } => {
                        let s = b.str(name);
                        match st.event_names.get(s) {
                            Some(&iid) => Some(iid),
                            None => {
                                let iid = st.event_names.len() as u64 + 1;
                                st.event_names.insert(s.to_owned(), iid);
                                new_name = Some(s);
                                Some(iid)
                            }
                        }
                    }
                    _ => None,
                };
                self.packet(seq, Some(r.ts), out, |p| {
                    p.uint(PKT_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
                    if let (Some(s), Some(iid)) = (new_name, begin) {
                        p.nested(PKT_INTERNED_DATA, |i| {
                            i.nested(ID_EVENT_NAMES, |n| {
                                n.uint(EN_IID, iid);
                                n.string(EN_NAME, s);
                            });
                        });
                    }
                    p.nested(PKT_TRACK_EVENT, |t| {
                        match begin {
                            Some(iid) => {
                                t.uint(TE_TYPE, TE_TYPE_SLICE_BEGIN);
                                t.uint(TE_NAME_IID, iid);
                            }
                            None => t.uint(TE_TYPE, TE_TYPE_SLICE_END),
                        }
                        t.uint(TE_TRACK_UUID, uuid);
                    });
                });
            }
        }
    }
}

/// The thread's name at `ts` as the app would report it in its descriptor:
/// the newest task_rename up to `ts`, else the process-tree name.
fn thread_name_at(b: &TraceBuilder, tid: i32, ts: i64) -> Option<&str> {
    b.ftrace
        .iter()
        .filter_map(|r| match r.ev {
            FtraceEv::Rename { tid: t, new, .. } if t == tid && r.ts <= ts => Some((r.ts, new)),
            _ => None,
        })
        .max_by_key(|(t, _)| *t)
        .map(|(_, s)| b.str(s))
        .or_else(|| b.thread_name(tid))
}

/// The atrace text of a print event, with the trailing newline atrace writes.
fn format_print(p: &Print, b: &TraceBuilder, s: &mut String) {
    use std::fmt::Write as _;
    s.clear();
    // Writing into a String cannot fail.
    let _ = match *p {
        Print::Begin { pid, name } => writeln!(s, "B|{pid}|{}", b.str(name)),
        Print::End { pid } => writeln!(s, "E|{pid}"),
        Print::Counter { pid, name, value } => writeln!(s, "C|{pid}|{}|{value}", b.str(name)),
        Print::AsyncBegin { pid, name, cookie } => writeln!(s, "S|{pid}|{}|{cookie}", b.str(name)),
        Print::AsyncEnd { pid, name, cookie } => writeln!(s, "F|{pid}|{}|{cookie}", b.str(name)),
        Print::Raw(r) => {
            s.push_str(b.str(r));
            Ok(())
        }
    };
}

fn write_ftrace_payload(e: &mut Writer, b: &TraceBuilder, ev: &FtraceEv, scratch: &mut String) {
    match *ev {
        FtraceEv::Print(p) => {
            format_print(&p, b, scratch);
            e.nested(FE_PRINT, |m| m.string(PRINT_BUF, scratch));
        }
        FtraceEv::Switch { prev_tid, prev_comm, prev_state, next_tid, next_comm } => {
            e.nested(FE_SCHED_SWITCH, |m| {
                m.string(SW_PREV_COMM, b.str(prev_comm));
                m.int(SW_PREV_PID, i64::from(prev_tid));
                m.int(SW_PREV_PRIO, i64::from(DEFAULT_PRIO));
                m.int(SW_PREV_STATE, prev_state);
                m.string(SW_NEXT_COMM, b.str(next_comm));
                m.int(SW_NEXT_PID, i64::from(next_tid));
                m.int(SW_NEXT_PRIO, i64::from(DEFAULT_PRIO));
            });
        }
        FtraceEv::Waking { tid, comm, target_cpu } => {
            e.nested(FE_SCHED_WAKING, |m| {
                m.string(WK_COMM, b.str(comm));
                m.int(WK_PID, i64::from(tid));
                m.int(WK_PRIO, i64::from(DEFAULT_PRIO));
                m.int(WK_SUCCESS, 1);
                m.int(WK_TARGET_CPU, i64::from(target_cpu));
            });
        }
        FtraceEv::Rename { tid, old, new } => {
            e.nested(FE_TASK_RENAME, |m| {
                m.int(RN_PID, i64::from(tid));
                m.string(RN_OLDCOMM, b.str(old));
                m.string(RN_NEWCOMM, b.str(new));
            });
        }
    }
}

/// `FtraceEventBundle.CompactSched`: columns, timestamps delta-encoded
/// (first absolute), comms as indices into a per-bundle intern table.
fn write_compact_sched(c: &mut Writer, b: &TraceBuilder, evs: &[FtraceRec]) {
    let mut table: Vec<u32> = Vec::new();
    let mut index_of = |sym: u32| -> u64 {
        match table.iter().position(|&s| s == sym) {
            Some(i) => i as u64,
            None => {
                table.push(sym);
                (table.len() - 1) as u64
            }
        }
    };
    let mut sw_ts = Vec::new();
    let mut sw_state = Vec::new();
    let mut sw_pid = Vec::new();
    let mut sw_comm = Vec::new();
    let mut wk_ts = Vec::new();
    let mut wk_pid = Vec::new();
    let mut wk_cpu = Vec::new();
    let mut wk_comm = Vec::new();
    let (mut last_sw, mut last_wk) = (0i64, 0i64);
    for r in evs {
        match r.ev {
            FtraceEv::Switch { prev_state, next_tid, next_comm, .. } => {
                sw_ts.push((r.ts - last_sw) as u64);
                last_sw = r.ts;
                sw_state.push(prev_state);
                sw_pid.push(i64::from(next_tid));
                sw_comm.push(index_of(next_comm));
            }
            FtraceEv::Waking { tid, comm, target_cpu } => {
                wk_ts.push((r.ts - last_wk) as u64);
                last_wk = r.ts;
                wk_pid.push(i64::from(tid));
                wk_cpu.push(i64::from(target_cpu));
                wk_comm.push(index_of(comm));
            }
            _ => {}
        }
    }
    for s in &table {
        c.string(CS_INTERN_TABLE, b.str(*s));
    }
    let n_sw = sw_ts.len();
    c.packed_uint(CS_SWITCH_TIMESTAMP, sw_ts);
    c.packed_int(CS_SWITCH_PREV_STATE, sw_state);
    c.packed_int(CS_SWITCH_NEXT_PID, sw_pid);
    c.packed_int(CS_SWITCH_NEXT_PRIO, std::iter::repeat_n(i64::from(DEFAULT_PRIO), n_sw));
    c.packed_uint(CS_SWITCH_NEXT_COMM_INDEX, sw_comm);
    let n_wk = wk_ts.len();
    c.packed_uint(CS_WAKING_TIMESTAMP, wk_ts);
    c.packed_int(CS_WAKING_PID, wk_pid);
    c.packed_int(CS_WAKING_TARGET_CPU, wk_cpu);
    c.packed_int(CS_WAKING_PRIO, std::iter::repeat_n(i64::from(DEFAULT_PRIO), n_wk));
    c.packed_uint(CS_WAKING_COMM_INDEX, wk_comm);
    c.packed_uint(CS_WAKING_COMMON_FLAGS, std::iter::repeat_n(1u64, n_wk));
}

fn write_frame_timeline(f: &mut Writer, b: &TraceBuilder, cookie: i64, kind: &FtKind) {
    match *kind {
        FtKind::ExpectedSurface { token, display_frame_token, pid, layer } => {
            f.nested(FT_EXPECTED_SURFACE_FRAME_START, |m| {
                m.int(FTS_COOKIE, cookie);
                m.int(FTS_TOKEN, token);
                m.int(FTS_DISPLAY_FRAME_TOKEN, display_frame_token);
                m.int(FTS_PID, i64::from(pid));
                m.string(FTS_LAYER_NAME, b.str(layer));
            });
        }
        FtKind::ActualSurface { f: a, layer } => {
            f.nested(FT_ACTUAL_SURFACE_FRAME_START, |m| {
                m.int(FTS_COOKIE, cookie);
                m.int(FTS_TOKEN, a.token);
                m.int(FTS_DISPLAY_FRAME_TOKEN, a.display_frame_token);
                m.int(FTS_PID, i64::from(a.pid));
                m.string(FTS_LAYER_NAME, b.str(layer));
                m.int(FTS_PRESENT_TYPE, i64::from(a.present_type));
                m.bool(FTS_ON_TIME_FINISH, a.on_time_finish);
                m.bool(FTS_GPU_COMPOSITION, a.gpu_composition);
                m.int(FTS_JANK_TYPE, i64::from(a.jank_type));
                m.int(FTS_PREDICTION_TYPE, i64::from(a.prediction_type));
                m.bool(FTS_IS_BUFFER, true);
                if a.jank_severity_type != 0 {
                    m.int(FTS_JANK_SEVERITY_TYPE, i64::from(a.jank_severity_type));
                }
                if a.present_delay_us != 0 {
                    m.float(FTS_PRESENT_DELAY_MILLIS, a.present_delay_us as f32 / 1000.0);
                }
            });
        }
        FtKind::ExpectedDisplay { token, pid } => {
            f.nested(FT_EXPECTED_DISPLAY_FRAME_START, |m| {
                m.int(FTD_COOKIE, cookie);
                m.int(FTD_TOKEN, token);
                m.int(FTD_PID, i64::from(pid));
            });
        }
        FtKind::ActualDisplay { f: a } => {
            f.nested(FT_ACTUAL_DISPLAY_FRAME_START, |m| {
                m.int(FTD_COOKIE, cookie);
                m.int(FTD_TOKEN, a.token);
                m.int(FTD_PID, i64::from(a.pid));
                m.int(FTD_PRESENT_TYPE, i64::from(a.present_type));
                m.bool(FTD_ON_TIME_FINISH, a.on_time_finish);
                m.bool(FTD_GPU_COMPOSITION, a.gpu_composition);
                m.int(FTD_JANK_TYPE, i64::from(a.jank_type));
                m.int(FTD_PREDICTION_TYPE, i64::from(a.prediction_type));
                if a.jank_severity_type != 0 {
                    m.int(FTD_JANK_SEVERITY_TYPE, i64::from(a.jank_severity_type));
                }
                if a.present_delay_us != 0 {
                    m.float(FTD_PRESENT_DELAY_MILLIS, a.present_delay_us as f32 / 1000.0);
                }
            });
        }
        FtKind::End => {
            f.nested(FT_FRAME_END, |m| m.int(FTE_COOKIE, cookie));
        }
    }
}
