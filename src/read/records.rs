//! What the parallel decode hands to `crate::import`: per-batch records in
//! file order, each with an `order` key (batch index, then position) so the
//! importer can sort by (timestamp, file order) exactly as trace_processor does.

use rustc_hash::FxHashMap;

use std::sync::Arc;

use super::slim;
pub use crate::model::Waker;

/// Interned, cheaply clonable string (the model's `Name` is the same type).
pub type Name = Arc<str>;

/// An atrace point (from `print`, a kernel `*_tracing_mark_write` or a
/// systrace text line), already parsed; names interned.
#[derive(Debug, Clone)]
pub enum AtraceOp {
    Begin { tgid: u32, name: Name },
    End { tgid: u32 },
    Counter { tgid: u32, name: Name, value: f64 },
    AsyncBegin { tgid: u32, name: Name, cookie: i64 },
    AsyncEnd { tgid: u32, name: Name, cookie: i64 },
    Instant { tgid: u32, name: Name },
    // The two names of the rare track events are boxed: inline they made
    // every record (673,000 on the 1 GB bench trace) 72 bytes instead of 56.
    TrackInstant { tgid: u32, names: Box<TrackNames> },
    TrackBegin { tgid: u32, names: Box<TrackNames>, cookie: i64 },
    TrackEnd { tgid: u32, track: Name, cookie: i64 },
}

/// A track event's track and slice names (atrace `N` and `G`).
#[derive(Debug, Clone)]
pub struct TrackNames {
    pub track: Name,
    pub name: Name,
}

#[derive(Debug, Clone)]
pub struct AtraceRec {
    /// Ftrace clock (BOOTTIME unless the bundle says otherwise).
    pub ts: i64,
    pub order: u64,
    /// The writing thread (ftrace event `pid`).
    pub tid: i32,
    pub op: AtraceOp,
}

const _: () = assert!(std::mem::size_of::<AtraceRec>() == 56);

/// Which FrameTimelineEvent start a record is (its field in the event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimelineStart {
    ExpectedDisplay,
    ActualDisplay,
    ExpectedSurface,
    ActualSurface,
}

/// A FrameTimeline start or end event (TracePacket field 76).
#[derive(Debug, Clone)]
pub enum TimelineEvent {
    Start {
        start: TimelineStart,
        cookie: i64,
        token: Option<i64>,
        display_frame_token: Option<i64>,
        pid: Option<i32>,
        layer_name: Option<Name>,
        present_type: Option<i32>,
        on_time_finish: bool,
        gpu_composition: bool,
        jank_type: i32,
        prediction_type: Option<i32>,
        jank_severity_type: Option<i32>,
        /// `present_delay_millis` (newer SurfaceFlinger builds).
        present_delay_ms: Option<f32>,
    },
    End {
        cookie: i64,
    },
}

#[derive(Debug, Clone)]
pub struct TimelineRec {
    /// Packet timestamp in `clock` (SurfaceFlinger writes MONOTONIC).
    pub ts: i64,
    pub clock: ClockRef,
    pub order: u64,
    pub event: TimelineEvent,
}

/// Which clock a packet timestamp is in: an explicit id, or "the sequence's
/// default" (resolved once all TracePacketDefaults are known).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockRef {
    pub explicit: Option<u32>,
    pub seq: u32,
}

/// A thread name seen by the kernel (sched_switch, compact_sched, task
/// events) or a process-level source; the newest per tid wins within a rank.
#[derive(Debug, Clone)]
pub struct CommRec {
    pub ts: i64,
    pub name: Name,
}

/// A scheduler event of a thread the scheduler pass was asked about. 16
/// bytes: a busy trace has millions of them (4 M for three threads in 1 GB).
/// `cpu` stops at 255 (no phone has more CPUs); `prev_state` keeps the
/// kernel's low 16 bits, which hold every task state any kernel reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedRecord {
    /// The thread got a CPU.
    SwitchIn { ts: i64, tid: i32, cpu: u8 },
    /// The thread left a CPU in kernel state `prev_state` (0 = preempted, still runnable).
    SwitchOut { ts: i64, tid: i32, cpu: u8, prev_state: u16 },
    /// The thread was woken (sched_waking / sched_wakeup) by `waker`.
    Waking { ts: i64, tid: i32, waker: Waker },
}

const _: () = assert!(std::mem::size_of::<SchedRecord>() == 16);

impl SchedRecord {
    pub fn switch_in(ts: i64, tid: i32, cpu: u32) -> SchedRecord {
        SchedRecord::SwitchIn { ts, tid, cpu: u8::try_from(cpu).unwrap_or(u8::MAX) }
    }
    pub fn switch_out(ts: i64, tid: i32, cpu: u32, prev_state: i64) -> SchedRecord {
        // Truncation keeps the low bits, where the states are.
        SchedRecord::SwitchOut { ts, tid, cpu: u8::try_from(cpu).unwrap_or(u8::MAX), prev_state: prev_state as u16 }
    }
    pub fn ts(&self) -> i64 {
        match *self {
            SchedRecord::SwitchIn { ts, .. } | SchedRecord::SwitchOut { ts, .. } | SchedRecord::Waking { ts, .. } => ts,
        }
    }
    pub fn tid(&self) -> i32 {
        match *self {
            SchedRecord::SwitchIn { tid, .. }
            | SchedRecord::SwitchOut { tid, .. }
            | SchedRecord::Waking { tid, .. } => tid,
        }
    }
}

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

/// A batch's kept scheduler records (see `read::frame_sched`): every
/// scheduler record of `threads` in the batch, by (tid, timestamp, file order).
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    pub threads: Arc<TidFilter>,
    pub records: Vec<SchedRecord>,
    /// Those of the records' wakings that came before their compact_sched
    /// bundle's first switch (their waker is the stitch's to find).
    pub early: Vec<EarlyWaking>,
}

/// What one compact_sched bundle tells about the task running on its CPU
/// at its edges, for the stitch across the CPU's bundles
/// (`read::compact_stitch`): the bundle names the task each switch switches
/// in, never the one it switches out, which for the bundle's first switch is
/// the previous bundle's last task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactEdge {
    pub cpu: u32,
    /// The bundle's first switch, when its columns hold all of it.
    pub first: Option<FirstSwitch>,
    /// The bundle's last switch that names its task: (timestamp, task).
    pub last: Option<(i64, i32)>,
}

/// A compact_sched bundle's first switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstSwitch {
    pub ts: i64,
    /// The state the (unnamed) task switched out left in.
    pub prev_state: i64,
    pub next_pid: i32,
}

/// A wanted thread's compact_sched waking that came before its bundle's
/// first switch: the bundle does not know the task running then (the waker),
/// the CPU's earlier bundles do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EarlyWaking {
    pub cpu: u32,
    pub ts: i64,
    pub tid: i32,
}

/// Header facts of one ftrace bundle (for the valid-data start and data loss).
#[derive(Debug, Clone, Copy)]
pub struct BundleInfo {
    pub cpu: u32,
    pub order: u64,
    pub previous_bundle_end: Option<i64>,
    pub first_event_ts: Option<i64>,
    pub lost_events: bool,
}

/// A ~1 ms bin of time (`ts >> read::busy::BIN_SHIFT`) that holds kernel
/// events of some CPU, with the first and last of them (for the capture's
/// holes, `import::holes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BusyBin {
    pub bin: i64,
    pub first: i64,
    pub last: i64,
}

/// Legacy ftrace text: the first and last event timestamps of one CPU in a
/// batch (for where each CPU's ring buffer starts, and the edges of a gap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuSpan {
    pub cpu: u32,
    pub first: i64,
    pub last: i64,
}

/// Legacy ftrace text: a `CPU:n [LOST m EVENTS]` note. The kernel prints it
/// before the first event it still has after losing `events` of CPU `cpu`,
/// so they were lost between that CPU's event before the note (`after`) and
/// its event after it (`before`); either is `None` when it is not in the
/// same batch (the importer looks in the neighbouring batches).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LostNote {
    pub cpu: u32,
    pub events: u64,
    pub after: Option<i64>,
    pub before: Option<i64>,
}

/// A long-tail packet decoded with prost, kept in file order for the
/// sequential pass (interning, incremental clocks, defaults are per sequence).
#[derive(Debug, Clone)]
pub struct TailPacket {
    pub order: u64,
    pub seq: u32,
    pub ts: Option<u64>,
    pub clock: Option<u32>,
    pub incremental_state_cleared: bool,
    pub defaults: Option<slim::TracePacketDefaults>,
    /// Boxed: most packets carry none, and this keeps every tail packet small.
    pub interned: Option<Box<slim::InternedData>>,
    pub body: TailBody,
}

#[derive(Debug, Clone)]
pub enum TailBody {
    None,
    ProcessTree(slim::ProcessTree),
    ProcessStats(slim::ProcessStats),
    ClockSnapshot(slim::ClockSnapshot),
    // The rare large messages are boxed so the frequent track events set
    // the size of every tail packet.
    TrackDescriptor(Box<slim::TrackDescriptor>),
    TrackEvent(TrackEventRec),
    SystemInfo(Box<slim::SystemInfo>),
    TraceStats(slim::TraceStats),
    FtraceStats(slim::FtraceStats),
    ServiceEvent(slim::TracingServiceEvent),
}

/// A TrackEvent as `read::track_event` decodes it: names interned, the ones
/// given by iid left for the sequence's state to resolve.
#[derive(Debug, Clone)]
pub struct TrackEventRec {
    pub kind: TrackEventKind,
    pub track_uuid: Option<u64>,
    pub name: EventName,
    pub categories: Categories,
    /// `double_counter_value`, else `counter_value`, else 0.
    pub value: f64,
}

/// What a track event is (`TrackEvent.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackEventKind {
    /// Absent, 0, or a value this reader does not know: the event is skipped.
    Unspecified,
    SliceBegin,
    SliceEnd,
    Instant,
    Counter,
}

impl TrackEventKind {
    /// The kind of a `TrackEvent.type` value.
    pub fn from_type(value: i32) -> TrackEventKind {
        match value {
            1 => TrackEventKind::SliceBegin,
            2 => TrackEventKind::SliceEnd,
            3 => TrackEventKind::Instant,
            4 => TrackEventKind::Counter,
            _ => TrackEventKind::Unspecified,
        }
    }
}

/// A track event's name: its own string, or an iid of the sequence's
/// interned event names.
#[derive(Debug, Clone)]
pub enum EventName {
    None,
    Inline(Name),
    Interned(u64),
}

/// A track event's categories: its own strings (joined with ","), or iids
/// of the sequence's interned categories (one, the usual case, without an
/// allocation).
#[derive(Debug, Clone)]
pub enum Categories {
    None,
    Inline(Name),
    Interned(u64),
    InternedList(Box<[u64]>),
}

/// Everything decoded from one batch of packets.
#[derive(Debug, Default)]
pub struct Batch {
    pub packets: u64,
    pub compressed_batches: u64,
    pub atrace: Vec<AtraceRec>,
    /// How many of `atrace` are counters: the importer sizes its two
    /// operation vectors with it (a capacity hint, not read for anything else).
    pub atrace_counters: usize,
    pub atrace_malformed: u64,
    pub timeline: Vec<TimelineRec>,
    pub tail: Vec<TailPacket>,
    pub bundles: Vec<BundleInfo>,
    /// Every readable compact_sched bundle's edges, in file order (for the
    /// scheduler pass's stitch, `read::compact_stitch`).
    pub compact_edges: Vec<CompactEdge>,
    /// Legacy ftrace text: each CPU's first and last event in this batch.
    pub cpu_spans: Vec<CpuSpan>,
    /// Legacy ftrace text: its `CPU:n [LOST m EVENTS]` notes, in file order.
    pub lost_notes: Vec<LostNote>,
    /// The bins its kernel (ftrace) events fall in, sorted, each once.
    pub busy: Vec<BusyBin>,
    /// (cpu, records) of each perf sample packet reporting records the
    /// kernel lost (`PerfSample.kernel_records_lost`).
    pub perf_lost: Vec<(u32, u64)>,
    /// Newest kernel comm per tid in this batch.
    pub comms: FxHashMap<i32, CommRec>,
    /// tid → tgid learned from task_newtask (CLONE_THREAD) is not reliable;
    /// only comm changes are kept. Renames override sched comms.
    pub renames: Vec<(i64, u64, i32, Name)>,
    pub ftrace_events: u64,
    pub sched_events: u64,
    pub compact_sched: bool,
    /// (sequence, order) of packets flagged `previous_packet_dropped`.
    pub dropped_at: Vec<(u32, u64)>,
    /// Order of the first packet seen per sequence in this batch.
    pub sequence_first: foldhash::HashMap<u32, u64>,
    pub min_ts: Option<i64>,
    pub max_ts: Option<i64>,
    /// Packet timestamps in non-BOOTTIME clocks, converted after decode.
    pub foreign_ts: Vec<(i64, ClockRef)>,
    pub clocks_seen: Vec<u32>,
    /// Damage found while decoding this batch (one line each).
    pub errors: Vec<String>,
    pub malformed_packets: u64,
    /// Names cut to [`MAX_NAME_BYTES`].
    pub names_truncated: u64,
    /// Every tid the scheduler pass could report from this batch's packets
    /// (sorted, deduplicated), or `None` when the batch has damage or
    /// packets the two passes might read differently, so the scheduler pass
    /// must scan it whatever it looks for.
    pub sched_tids: Option<Vec<i32>>,
    /// The frame threads' scheduler records kept while decoding (see
    /// `read::frame_sched`); only with `sched_tids`.
    pub kept_sched: Option<Kept>,
}

impl Batch {
    #[inline]
    pub fn see_ts(&mut self, ts: i64) {
        self.min_ts = Some(self.min_ts.map_or(ts, |m| m.min(ts)));
        self.max_ts = Some(self.max_ts.map_or(ts, |m| m.max(ts)));
    }
}

/// Names from the kernel and atrace are cut to this many bytes (at a char
/// boundary). The kernel's `trace_marker` accepts at most 4096 bytes per
/// write, so no real trace is affected; a hostile one cannot make every
/// table, chart label and report line carry a megabyte-long name.
pub const MAX_NAME_BYTES: usize = 4096;

/// `s` cut to [`MAX_NAME_BYTES`] at a char boundary.
pub fn bounded_name(s: &str) -> &str {
    if s.len() <= MAX_NAME_BYTES {
        return s;
    }
    let mut end = MAX_NAME_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Per-batch string interner so repeated names share one allocation.
#[derive(Default)]
pub struct Interner {
    map: foldhash::HashMap<Box<str>, Name>,
    /// Names longer than [`MAX_NAME_BYTES`] that were cut.
    pub truncated: u64,
}

impl Interner {
    pub fn intern(&mut self, s: &str) -> Name {
        if s.len() > MAX_NAME_BYTES {
            self.truncated += 1;
        }
        let s = bounded_name(s);
        if let Some(n) = self.map.get(s) {
            return n.clone();
        }
        let n: Name = Name::from(s);
        self.map.insert(s.into(), n.clone());
        n
    }

    /// A name given as bytes (from the kernel or any process), invalid
    /// UTF-8 replaced.
    pub fn intern_bytes(&mut self, b: &[u8]) -> Name {
        self.intern(&String::from_utf8_lossy(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn sched_records_keep_the_states_low_bits_and_stop_the_cpu_at_255() {
        assert_eq!(SchedRecord::switch_in(5, 7, 3), SchedRecord::SwitchIn { ts: 5, tid: 7, cpu: 3 });
        assert_eq!(
            SchedRecord::switch_out(5, 7, 300, 0x1_0402),
            SchedRecord::SwitchOut { ts: 5, tid: 7, cpu: 255, prev_state: 0x0402 }
        );
    }
}
