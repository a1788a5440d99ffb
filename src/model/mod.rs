//! The typed trace model, pure data: processes, threads, tracks, slices,
//! counters, the SurfaceFlinger frame timeline, the scheduler events of the
//! frame threads and what was learned about the trace itself. It imports
//! nothing from the rest of the crate: `crate::import` builds it from the
//! reader's records, and everything downstream (frames, metrics, query,
//! report) reads it.
//!
//! Conventions follow trace_processor so results can be compared with it:
//! times are integer nanoseconds in trace time (BOOTTIME), a slice that never
//! ended has `dur == -1`, ids are indices into their table.

use std::sync::Arc;

#[cfg(test)]
pub(crate) mod testutil;
mod timeline;
mod warning;

pub use timeline::{JankSeverity, JankTag, PredictionType, PresentType};
pub use warning::{Severity, Warning, WarningCode};

/// The name the kernel keeps for an app process named `pkg`: its last 15
/// characters when longer (what a systrace, which knows processes only by
/// their threads, names the app).
pub fn package_comm(pkg: &str) -> &str {
    &pkg[pkg.char_indices().rev().nth(14).map_or(0, |(i, _)| i)..]
}

/// `ts` in seconds after `first` (a trace's first timestamp; 0 when unknown).
pub fn secs_from(first: Option<i64>, ts: i64) -> f64 {
    ts.saturating_sub(first.unwrap_or(0)) as f64 / 1e9
}

/// Interned, cheaply clonable string used for every name in the model.
pub type Name = Arc<str>;

/// The atrace counter `fpsan capture --drive` writes (on perfetto's process):
/// 1 when the scenario starts, 0 when it ends (docs/capture.md).
pub const SCENARIO_MARK: &str = "fpsan.scenario";

/// A row id of one table. Each table has its own type, so a thread id cannot
/// be used where a slice id is meant.
macro_rules! table_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $name {
            /// The row's position in its table.
            pub fn index(self) -> usize {
                self.0 as usize
            }
            /// The id of a row appended to a table of `len` rows.
            pub fn next_of(len: usize) -> Self {
                Self(len as u32)
            }
        }
    };
}

table_id!(
    /// Index into [`Trace::processes`] (trace_processor's `upid`).
    Upid
);
table_id!(
    /// Index into [`Trace::threads`] (trace_processor's `utid`).
    Utid
);
table_id!(
    /// Index into [`Trace::tracks`].
    TrackId
);
table_id!(
    /// Index into [`Trace::slices`].
    SliceId
);

#[derive(Debug, Clone, Default)]
pub struct Process {
    pub upid: Upid,
    pub pid: i32,
    /// Resolved like trace_processor: cmdline's first argument, else the
    /// process_tree/process_stats name, else the main thread's comm.
    pub name: Option<Name>,
    pub cmdline: Option<Name>,
    pub parent_pid: Option<i32>,
    pub uid: Option<i32>,
}

#[derive(Debug, Clone, Default)]
pub struct Thread {
    pub utid: Utid,
    pub tid: i32,
    pub upid: Option<Upid>,
    pub name: Option<Name>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TrackKind {
    /// Synchronous slices and instants of one thread.
    Thread {
        utid: Utid,
    },
    /// Async slices (`S`/`F`, `G`/`H`, `N`) of one process, one track per name.
    ProcessAsync {
        upid: Upid,
    },
    /// A counter owned by a process (atrace `C`, e.g. `VSYNC-app` in surfaceflinger).
    ProcessCounter {
        upid: Upid,
    },
    /// A counter owned by a thread (track_event counters on a thread track).
    ThreadCounter {
        utid: Utid,
    },
    /// Anything not attached to a process or thread.
    Global,
    GlobalCounter,
}

#[derive(Debug, Clone)]
pub struct Track {
    pub id: TrackId,
    pub name: Option<Name>,
    pub kind: TrackKind,
}

#[derive(Debug, Clone)]
pub struct Slice {
    pub id: SliceId,
    pub ts: i64,
    /// -1 when the slice had not ended by the end of the trace.
    pub dur: i64,
    pub name: Name,
    pub category: Option<Name>,
    pub track: TrackId,
    pub depth: u32,
    pub parent: Option<SliceId>,
}

impl Slice {
    /// End time, when the slice ended inside the trace.
    pub fn end(&self) -> Option<i64> {
        (self.dur >= 0).then(|| self.ts.saturating_add(self.dur))
    }
}

#[derive(Debug, Clone, Copy)]
pub struct CounterSample {
    pub ts: i64,
    pub value: f64,
    pub track: TrackId,
}

/// The four kinds of FrameTimeline slice trace_processor builds from
/// TracePacket field 76.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimelineKind {
    ExpectedDisplay,
    ActualDisplay,
    ExpectedSurface,
    ActualSurface,
}

impl TimelineKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TimelineKind::ExpectedDisplay => "expected_display",
            TimelineKind::ActualDisplay => "actual_display",
            TimelineKind::ExpectedSurface => "expected_surface",
            TimelineKind::ActualSurface => "actual_surface",
        }
    }
    pub fn is_surface(self) -> bool {
        matches!(self, TimelineKind::ExpectedSurface | TimelineKind::ActualSurface)
    }
    pub fn is_actual(self) -> bool {
        matches!(self, TimelineKind::ActualDisplay | TimelineKind::ActualSurface)
    }
}

/// One FrameTimeline slice, with trace_processor's strings for the enums.
#[derive(Debug, Clone)]
pub struct TimelineSlice {
    pub kind: TimelineKind,
    pub ts: i64,
    /// -1 when no FrameEnd arrived for the cookie.
    pub dur: i64,
    /// The vsync id (surface frames: the app's `Choreographer#doFrame <id>`).
    pub token: i64,
    /// Surface frames: the display frame they were composited into.
    pub display_frame_token: Option<i64>,
    pub pid: i32,
    pub upid: Option<Upid>,
    pub layer_name: Option<Name>,
    /// Actual frames only: e.g. `"App Deadline Missed, Buffer Stuffing"`, `"None"`.
    pub jank_type: Option<Name>,
    /// Actual frames only.
    pub present_type: Option<PresentType>,
    pub on_time_finish: Option<bool>,
    pub gpu_composition: Option<bool>,
    /// Actual frames only.
    pub prediction_type: Option<PredictionType>,
    /// Actual frames only.
    pub jank_severity_type: Option<JankSeverity>,
    /// Actual frames only: trace_processor's summary of the jank type:
    /// `"Self Jank"`, `"Other Jank"`, `"Dropped Frame"`, `"Buffer Stuffing"`,
    /// `"SurfaceFlinger Stuffing"`, `"Non-perceivable Jank"`, `"No Jank"` or
    /// `"Unspecified"` (see `import::timeline::jank_tag`).
    pub jank_tag: Option<JankTag>,
    /// Actual frames of newer SurfaceFlinger builds: how late the frame
    /// was presented, in ms (`present_delay_millis`).
    pub present_delay_ms: Option<f64>,
}

/// A scheduler event kept for the threads the analysis asked about (the
/// scheduler pass of `analysis::frames_of`): the main threads'
/// Running/Runnable/Sleeping split needs only those.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedEvent {
    /// The thread got a CPU (255 stands for any CPU past 254).
    SwitchIn { ts: i64, tid: i32, cpu: u8 },
    /// The thread left a CPU in kernel state `prev_state` (its low 16 bits;
    /// 0 = preempted, still runnable).
    SwitchOut { ts: i64, tid: i32, cpu: u8, prev_state: u16 },
    /// The thread was woken (sched_waking / sched_wakeup) by `waker`.
    Waking { ts: i64, tid: i32, waker: Waker },
}

/// The thread that issued a wakeup: sched_waking's common pid (the task
/// running where `try_to_wake_up` was called; in compact_sched, which does not
/// store it, the task the CPU's switch column says was running then), as
/// trace_processor's `thread_state.waker_utid`. Three bytes, so that a waking
/// record stays 16 bytes: Linux tids stop at 2^22 (`PID_MAX_LIMIT`).
/// Unknown, or a tid past 2^24 − 2, is [`Waker::NONE`]; tid 0 is the idle
/// task (a wakeup from an interrupt taken while the CPU idled).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Waker([u8; 3]);

impl Waker {
    pub const NONE: Waker = Waker([0xFF; 3]);

    pub fn of(tid: Option<i32>) -> Waker {
        match tid {
            Some(t) if (0..0xFF_FFFF).contains(&t) => {
                let b = (t as u32).to_le_bytes();
                Waker([b[0], b[1], b[2]])
            }
            _ => Waker::NONE,
        }
    }

    pub fn tid(self) -> Option<i32> {
        (self != Waker::NONE).then(|| i32::from_le_bytes([self.0[0], self.0[1], self.0[2], 0]))
    }
}

impl std::fmt::Debug for Waker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.tid() {
            Some(t) => write!(f, "Waker({t})"),
            None => f.write_str("Waker(?)"),
        }
    }
}

// The same size as `read::records::SchedRecord`, so that the conversion
// reuses its vectors.
const _: () = assert!(std::mem::size_of::<SchedEvent>() == 16);

impl SchedEvent {
    pub fn ts(&self) -> i64 {
        match *self {
            SchedEvent::SwitchIn { ts, .. } | SchedEvent::SwitchOut { ts, .. } | SchedEvent::Waking { ts, .. } => ts,
        }
    }
    pub fn tid(&self) -> i32 {
        match *self {
            SchedEvent::SwitchIn { tid, .. } | SchedEvent::SwitchOut { tid, .. } | SchedEvent::Waking { tid, .. } => {
                tid
            }
        }
    }
}

/// Facts about the trace as a whole, for `info` and the data-quality section.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct TraceMeta {
    pub path: String,
    pub file_size: u64,
    /// How the trace was stored.
    pub container: Container,
    /// Top-level packets plus the packets inside compressed batches.
    pub packets: u64,
    pub compressed_batches: u64,
    pub first_ts: Option<i64>,
    pub last_ts: Option<i64>,
    /// Clock ids seen on packets or in clock snapshots (6 = BOOTTIME).
    pub clocks: Vec<u32>,
    pub trace_clock: u32,
    /// Data sources present, by what was found, in the order first found.
    pub data_sources: Vec<DataSource>,
    pub ftrace_events: u64,
    pub atrace_events: u64,
    pub atrace_malformed: u64,
    pub frame_timeline_events: u64,
    pub sched_events: u64,
    pub data_loss: DataLoss,
    /// Slice ends with nothing open that no loss the trace reports can
    /// explain: the trace started in the middle of those slices, as a ring
    /// buffer does (each CPU's buffer starts at its own time, see
    /// `complete_from`). Information, not data loss (see
    /// `DataLoss::unmatched_ends` and docs/limits.md).
    pub cut_at_start: u64,
    /// Where every CPU's ftrace data has started: the latest first event
    /// of a CPU in a systrace capture (`cpu_starts` say which are late); the
    /// start of valid ftrace data in a Perfetto trace (its events before are
    /// dropped, `DataLoss::events_before_start`).
    pub complete_from: Option<i64>,
    /// Each CPU's first event in a systrace capture, and the events its
    /// kernel buffer reported lost before it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cpu_starts: Vec<CpuStart>,
    /// The slice ends with nothing open that a reported loss explains (one
    /// per `DataLoss::unmatched_ends`), for the frames it touches.
    #[serde(skip)]
    pub lost_begins: Vec<LostBegin>,
    pub android: AndroidInfo,
    /// What a systrace HTML report's metadata block says about the capture.
    pub capture: CaptureInfo,
    pub tracing_started_ts: Option<i64>,
    pub warnings: Vec<Warning>,
}

/// A kind of data a trace was found to hold (named in `info`, JSON and the
/// report as [`DataSource::as_str`] says).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DataSource {
    Ftrace,
    Sched,
    CompactSched,
    Atrace,
    FrameTimeline,
    TrackEvent,
    ClockSnapshot,
    ProcessTree,
    ProcessStats,
    SystemInfo,
}

impl DataSource {
    pub fn as_str(self) -> &'static str {
        match self {
            DataSource::Ftrace => "ftrace",
            DataSource::Sched => "sched",
            DataSource::CompactSched => "compact_sched",
            DataSource::Atrace => "atrace",
            DataSource::FrameTimeline => "frame_timeline",
            DataSource::TrackEvent => "track_event",
            DataSource::ClockSnapshot => "clock_snapshot",
            DataSource::ProcessTree => "process_tree",
            DataSource::ProcessStats => "process_stats",
            DataSource::SystemInfo => "system_info",
        }
    }

    /// Names joined with ", " (`info`, the report).
    pub fn list(sources: &[DataSource]) -> String {
        sources.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
    }
}

/// How a trace file was stored: a Perfetto protobuf trace (whole-file
/// compression undone) or a legacy systrace capture. Named in `info`, the
/// report and JSON as [`Container::as_str`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum Container {
    #[default]
    #[serde(rename = "plain")]
    Plain,
    #[serde(rename = "gzip")]
    Gzip,
    #[serde(rename = "zstd")]
    Zstd,
    /// atrace / ftrace text.
    #[serde(rename = "systrace text")]
    SystraceText,
    /// `TRACE:` then a zlib stream (`atrace -z`, `traceconv ctrace`).
    #[serde(rename = "systrace ctrace")]
    SystraceCtrace,
    /// A systrace HTML report.
    #[serde(rename = "systrace html")]
    SystraceHtml,
}

impl Container {
    pub fn as_str(self) -> &'static str {
        match self {
            Container::Plain => "plain",
            Container::Gzip => "gzip",
            Container::Zstd => "zstd",
            Container::SystraceText => "systrace text",
            Container::SystraceCtrace => "systrace ctrace",
            Container::SystraceHtml => "systrace html",
        }
    }

    /// A legacy systrace capture: ftrace lines, no packets.
    pub fn is_systrace(self) -> bool {
        matches!(self, Container::SystraceText | Container::SystraceCtrace | Container::SystraceHtml)
    }
}

impl std::fmt::Display for Container {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TraceMeta {
    /// A legacy systrace capture (text, `.ctrace`, HTML): it has ftrace
    /// lines, no packets.
    pub fn is_systrace(&self) -> bool {
        self.container.is_systrace()
    }

    /// What the trace is made of, counted: `12 packets` or `1042 ftrace lines`.
    pub fn records(&self) -> String {
        if self.is_systrace() {
            format!("{} ftrace lines", self.ftrace_events)
        } else {
            format!("{} packets", self.packets)
        }
    }

    /// `ts` in seconds from the trace's first timestamp, as warnings and
    /// `info` give times.
    pub fn secs_in(&self, ts: i64) -> f64 {
        secs_from(self.first_ts, ts)
    }

    /// Widen the trace's time bounds to include `ts`.
    pub fn see_ts(&mut self, ts: i64) {
        self.first_ts = Some(self.first_ts.map_or(ts, |m| m.min(ts)));
        self.last_ts = Some(self.last_ts.map_or(ts, |m| m.max(ts)));
    }
}

/// What the trace says it lost, and the counters trace_processor grades as
/// information beside them (docs/report.md says which is which).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct DataLoss {
    /// Sequences that reported `previous_packet_dropped` (data loss).
    pub packets_dropped_sequences: u64,
    /// Ftrace bundles flagged `lost_events`: the kernel overwrote events
    /// between two reads (data loss).
    pub ftrace_lost_event_bundles: u64,
    /// Events the `CPU:n [LOST m EVENTS]` notes of a systrace capture say
    /// were lost after the CPU's data had started (data loss; the notes
    /// before a CPU's first event are its start, `CpuStart::lost_before`).
    pub ftrace_lost_events: u64,
    /// ftrace_stats' overrun at the end of the trace (information).
    pub ftrace_overrun: u64,
    /// Chunks a ring buffer overwrote (trace_stats; information).
    pub trace_buffer_overruns: u64,
    /// Chunks a full DISCARD-policy buffer dropped (trace_stats buffer_stats;
    /// information).
    pub chunks_discarded: u64,
    /// Patches the service refused (information).
    pub patches_discarded: u64,
    /// Bytes at the end of the file that did not form a whole packet (data loss).
    pub truncated_bytes: u64,
    /// Slice ends with nothing open that a reported loss could explain (its
    /// begin was lost; data loss). The others are `TraceMeta::cut_at_start`.
    pub unmatched_ends: u64,
    /// Ftrace events before `tracing_started` or before every CPU's buffer
    /// was valid, dropped (information).
    pub events_before_start: u64,
    /// Where the kernel lost ftrace events, in time order (data loss).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<LossGap>,
    /// Where no CPU recorded any event for far longer than usual, in time
    /// order (data loss; docs/limits.md, "Capture holes").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub holes: Vec<CaptureHole>,
    /// Records the kernel's perf ring buffers lost, by CPU (trace_processor's
    /// `perf_cpu_lost_records`, data loss). No position: not known whose.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub perf_lost_records: Vec<CpuCount>,
    /// The tracing service's own data-loss counters in `trace_stats`, each
    /// trace_processor's stat of the same name with `traced_buf_` or
    /// `traced_` before it (data loss): patches to chunks that failed,
    /// writers' ABI violations, packets a writer lost, flushes that failed,
    /// and 1 when the final flush failed. Left out of JSON when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub patches_failed: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub abi_violations: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub trace_writer_packet_loss: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub flushes_failed: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub final_flush_failed: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A count for one CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CpuCount {
    pub cpu: u32,
    pub count: u64,
}

/// A hole in the capture: no CPU has an ftrace event after `from` and
/// before `to` (the events either side), far longer than the trace's usual
/// silences (docs/limits.md, "Capture holes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CaptureHole {
    pub from: i64,
    pub to: i64,
    /// The silence a hole must exceed in this trace (ns): the rule's
    /// threshold, for the warning and programs.
    pub threshold: i64,
}

/// A stretch of one CPU's ftrace data that the kernel lost: after its event
/// at `from`, before its event at `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct LossGap {
    pub cpu: u32,
    pub from: i64,
    pub to: i64,
    /// How many events, where the trace says (a systrace note does; a
    /// Perfetto bundle's flag does not).
    pub events: Option<u64>,
}

/// Where one CPU's data starts in a systrace capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CpuStart {
    pub cpu: u32,
    /// Its first event.
    pub ts: i64,
    /// Events a `CPU:n [LOST m EVENTS]` note before that event says the
    /// buffer had already lost (its wrapped start).
    pub lost_before: u64,
}

/// A slice end with nothing open, explained by a loss the trace reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LostBegin {
    pub ts: i64,
    pub track: TrackId,
    pub cause: LossCause,
}

/// What lost a begin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossCause {
    /// The gap `DataLoss::gaps[i]`.
    Gap(usize),
    /// A writer's dropped packets (`previous_packet_dropped`).
    PacketsDropped,
}

/// What a systrace HTML report's JSON block says about the capture: the
/// systrace controller's or Chrome's metadata (docs/report.md, "info").
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct CaptureInfo {
    /// The command that recorded it: systrace's argv, or Chrome's `command_line`.
    pub command_line: Option<String>,
    /// `clock-domain` (`SYSTRACE` from systrace's controller).
    pub clock_domain: Option<String>,
    /// Chrome's `trace-capture-datetime` (UTC).
    pub capture_time: Option<String>,
    /// Chrome's `os-name` and `os-version`.
    pub os: Option<String>,
}

impl CaptureInfo {
    pub fn is_empty(&self) -> bool {
        *self == CaptureInfo::default()
    }

    /// Take the facts `other` has and these do not (the first block wins).
    pub fn fill_from(&mut self, other: CaptureInfo) {
        let CaptureInfo { command_line, clock_domain, capture_time, os } = other;
        self.command_line = self.command_line.take().or(command_line);
        self.clock_domain = self.clock_domain.take().or(clock_domain);
        self.capture_time = self.capture_time.take().or(capture_time);
        self.os = self.os.take().or(os);
    }
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct AndroidInfo {
    pub build_fingerprint: Option<String>,
    pub sdk_version: Option<u64>,
    pub device: Option<String>,
}

/// The decoded trace.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    pub meta: TraceMeta,
    pub processes: Vec<Process>,
    pub threads: Vec<Thread>,
    pub tracks: Vec<Track>,
    /// Ordered by (ts, arrival): a parent always comes before its children.
    pub slices: Vec<Slice>,
    /// Ordered by (ts, arrival).
    pub counters: Vec<CounterSample>,
    /// Ordered by (ts, arrival).
    pub frame_timeline: Vec<TimelineSlice>,
    /// Only for the threads requested, by whoever calls `frames::analyze`
    /// (`analysis::frames_of` hands the scheduler pass's events to the
    /// frames directly instead): one vector per thread, each by ts.
    pub sched: Vec<Vec<SchedEvent>>,
    /// Each track's slices in start order, built on the first call of
    /// [`Trace::children`] or [`Trace::descendants`] (so `slices` must not
    /// change after that).
    pub by_track: TrackSlices,
}

/// Per track, the ids of its slices in `Trace::slices` order (built once, on
/// first use: see [`Trace::by_track`]).
#[derive(Clone, Default)]
pub struct TrackSlices(std::sync::OnceLock<Vec<Vec<SliceId>>>);

impl std::fmt::Debug for TrackSlices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() { "TrackSlices(built)" } else { "TrackSlices(not built)" })
    }
}

impl Trace {
    pub fn thread(&self, utid: Utid) -> &Thread {
        &self.threads[utid.index()]
    }
    pub fn process(&self, upid: Upid) -> &Process {
        &self.processes[upid.index()]
    }
    pub fn slice(&self, id: SliceId) -> &Slice {
        &self.slices[id.index()]
    }
    pub fn track(&self, id: TrackId) -> &Track {
        &self.tracks[id.index()]
    }
    /// The thread owning a thread track, if `track` is one.
    pub fn track_thread(&self, track: TrackId) -> Option<&Thread> {
        match self.track(track).kind {
            TrackKind::Thread { utid } | TrackKind::ThreadCounter { utid } => Some(self.thread(utid)),
            _ => None,
        }
    }
    /// The process whose main thread `utid` is (its tid is the process'
    /// pid: trace_processor's `is_main_thread`), if it is one.
    pub fn main_thread_of(&self, utid: Utid) -> Option<Upid> {
        let thread = self.threads.get(utid.index())?;
        thread.upid.filter(|u| self.processes.get(u.index()).is_some_and(|p| p.pid == thread.tid))
    }
    /// The process owning `track`, directly or through its thread.
    pub fn track_process(&self, track: TrackId) -> Option<&Process> {
        match self.track(track).kind {
            TrackKind::ProcessAsync { upid } | TrackKind::ProcessCounter { upid } => Some(self.process(upid)),
            TrackKind::Thread { utid } | TrackKind::ThreadCounter { utid } => {
                self.thread(utid).upid.map(|u| self.process(u))
            }
            TrackKind::Global | TrackKind::GlobalCounter => None,
        }
    }
    /// Trace span in ns (last - first timestamp seen).
    pub fn span_ns(&self) -> i64 {
        match (self.meta.first_ts, self.meta.last_ts) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => 0,
        }
    }
    /// The slices of `track` in start order (ids ascending).
    pub fn track_slices(&self, track: TrackId) -> &[SliceId] {
        let all = self.by_track.0.get_or_init(|| {
            let mut v: Vec<Vec<SliceId>> = vec![Vec::new(); self.tracks.len()];
            for s in &self.slices {
                if let Some(l) = v.get_mut(s.track.index()) {
                    l.push(s.id);
                } else {
                    // A slice on a track the table does not have (hand-made traces).
                    v.resize(s.track.index() + 1, Vec::new());
                    v[s.track.index()].push(s.id);
                }
            }
            v
        });
        all.get(track.index()).map_or(&[], Vec::as_slice)
    }
    /// The slices of `id`'s track that follow it in start order and start
    /// no later than its end. Every descendant is among them (a child is on
    /// its parent's track); on a thread track, where slices nest, they are
    /// exactly its descendants plus those starting at its very end.
    fn after_on_track(&self, id: SliceId) -> impl Iterator<Item = &Slice> + '_ {
        let parent = self.slice(id);
        let end = parent.end().unwrap_or(i64::MAX);
        let on_track = self.track_slices(parent.track);
        let from = on_track.partition_point(|&s| s <= id);
        on_track[from..].iter().map(move |&s| self.slice(s)).take_while(move |s| s.ts <= end)
    }
    /// The slices of `track` open at `t` (begun by `t`, not ended by it),
    /// outermost first: the last slice begun by `t` and those of its
    /// ancestors still open (slices of a thread track nest, so every slice
    /// open at `t` is among them); O(log n + depth).
    pub fn open_at(&self, track: TrackId, t: i64) -> smallvec::SmallVec<[SliceId; 8]> {
        let ids = self.track_slices(track);
        let k = ids.partition_point(|&i| self.slice(i).ts <= t);
        let mut chain: smallvec::SmallVec<[SliceId; 8]> = smallvec::SmallVec::new();
        let mut cur = k.checked_sub(1).map(|k| ids[k]);
        while let Some(id) = cur {
            let s = self.slice(id);
            if s.end().is_none_or(|e| e > t) {
                chain.push(id);
            }
            cur = s.parent;
        }
        chain.reverse();
        chain
    }
    /// Direct children of a slice, in start order: O(log n) to find the
    /// slice in its track, then O(slices of its track inside it).
    pub fn children(&self, id: SliceId) -> impl Iterator<Item = &Slice> + '_ {
        self.after_on_track(id).filter(move |s| s.parent == Some(id))
    }
    /// All descendants of a slice (children, grandchildren, ...), in start
    /// order; same bound as [`Trace::children`].
    pub fn descendants(&self, id: SliceId) -> Vec<&Slice> {
        let depth = self.slice(id).depth;
        let mut inside = rustc_hash::FxHashSet::default();
        inside.insert(id);
        let mut out = Vec::new();
        for s in self.after_on_track(id) {
            if s.depth > depth && s.parent.is_some_and(|p| inside.contains(&p)) {
                inside.insert(s.id);
                out.push(s);
            }
        }
        out
    }
}
