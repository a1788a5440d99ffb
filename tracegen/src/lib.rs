//! Synthetic Perfetto traces shaped like real Android ones, for tests, the
//! demo trace and benchmarks.
//!
//! [`TraceBuilder`] collects events (atrace prints, sched, FrameTimeline,
//! track events, process tree) and [`TraceBuilder::build`] serialises them as
//! a `perfetto.protos.Trace` the way a device writes it: ftrace in per-CPU
//! `FtraceEventBundle`s on their own packet sequences, bundles of different
//! CPUs interleaved so the file is not in global time order, optional
//! `compact_sched`, optional zlib/zstd compressed packet batches, a clock
//! snapshot and the process tree up front.
//!
//! The encoder ([`pb`], [`encode`]) is deliberately independent of the
//! project's decoder (`fpsan::read`): field numbers were taken from
//! Perfetto's `.proto` files and are listed in [`encode::field`].
//! [`systrace`] writes the same events as legacy systrace text, `.ctrace`
//! or HTML. [`scenarios`] holds the demo scroll and the streaming `busy_phone`
//! generator; [`renderers`] apps whose content is not drawn by the View
//! hierarchy at the display rate (a game, Flutter, video, sparse drawing);
//! [`screen`] a launcher on screen beside apps that only animate.

pub mod ab_runs;
mod encode;
pub mod input;
mod pb;
pub mod renderers;
pub mod scenarios;
pub mod screen;
pub mod startups;
pub mod systrace;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

pub use encode::StreamEncoder;

/// Offset of CLOCK_MONOTONIC behind BOOTTIME in the clock snapshot (time the
/// device spent suspended since boot).
pub const MONOTONIC_BEHIND_BOOTTIME_NS: i64 = 2_500_000_000;
/// CLOCK_REALTIME minus BOOTTIME in the clock snapshot (2023-11-14T22:13:20Z
/// at boot).
pub const REALTIME_MINUS_BOOTTIME_NS: i64 = 1_700_000_000_000_000_000;

/// Kernel scheduler priority written for every task (nice 0).
pub const DEFAULT_PRIO: i32 = 120;

/// How batches of packets are compressed inside the trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    #[default]
    None,
    /// `TracePacket.compressed_packets` (field 50), zlib stream.
    Zlib,
    /// `TracePacket.zstd_compressed_packets` (field 133), one zstd frame.
    Zstd,
}

/// How [`TraceBuilder::build`] lays the events out.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Ftrace events go to `cpu = tid % cpus` unless given explicitly (sched_*).
    pub cpus: u32,
    /// Events per `FtraceEventBundle` (per CPU); bundles of different CPUs are
    /// written interleaved, so the file is not in global time order.
    pub events_per_bundle: usize,
    pub compression: Compression,
    /// Write sched_switch/sched_waking as `FtraceEventBundle.compact_sched`.
    pub compact_sched: bool,
    /// Emit a ClockSnapshot (BOOTTIME, MONOTONIC, REALTIME).
    pub clock_snapshot: bool,
    /// Emit a TracingServiceEvent `tracing_started` packet at that ts.
    pub tracing_started: Option<i64>,
    /// Set `previous_bundle_end_timestamp` on each CPU's first bundle to the
    /// timestamp of its first event.
    pub first_bundle_previous_end: bool,
    /// Number of `trusted_packet_sequence_id`s the non-ftrace producers
    /// (service, probes, SurfaceFlinger, app threads) are spread over; ftrace
    /// of each CPU always has its own sequence after those.
    pub sequences: u32,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            cpus: 4,
            events_per_bundle: 64,
            compression: Compression::None,
            compact_sched: false,
            clock_snapshot: true,
            tracing_started: None,
            first_bundle_previous_end: false,
            sequences: 1,
        }
    }
}

/// Fields of a FrameTimeline actual surface/display frame start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActualFrame {
    pub token: i64,
    pub display_frame_token: i64,
    pub pid: i32,
    pub layer: String,
    /// `FrameTimelineEvent.PresentType` (1 on time, 2 late, 3 early, 4 dropped).
    pub present_type: i32,
    pub on_time_finish: bool,
    pub gpu_composition: bool,
    /// `FrameTimelineEvent.JankType` bitmask (1 none, 64 app deadline missed,
    /// 128 buffer stuffing, ...).
    pub jank_type: i32,
    /// `FrameTimelineEvent.PredictionType` (1 valid, 2 expired).
    pub prediction_type: i32,
    /// `FrameTimelineEvent.JankSeverityType` (1 none, 2 partial, 3 full);
    /// 0 leaves the field out, as builds before it.
    pub jank_severity_type: i32,
    /// `present_delay_millis` in µs (written as float ms); 0 leaves it out.
    pub present_delay_us: i64,
}

/// Index into the builder's string table.
pub(crate) type Sym = u32;

/// An atrace `print` payload kept in parts so it is formatted only when encoded.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Print {
    Begin { pid: i32, name: Sym },
    End { pid: i32 },
    Counter { pid: i32, name: Sym, value: i64 },
    AsyncBegin { pid: i32, name: Sym, cookie: i64 },
    AsyncEnd { pid: i32, name: Sym, cookie: i64 },
    Raw(Sym),
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum FtraceEv {
    Print(Print),
    Switch { prev_tid: i32, prev_comm: Sym, prev_state: i64, next_tid: i32, next_comm: Sym },
    Waking { tid: i32, comm: Sym, target_cpu: u32 },
    Rename { tid: i32, old: Sym, new: Sym },
}

/// One ftrace event. `cpu == None` means "tid % cpus" decided at build time;
/// `pid == None` means "the task running on that CPU" (sched_waking's common pid).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FtraceRec {
    pub ts: i64,
    pub cpu: Option<u32>,
    pub tid: i32,
    pub pid: Option<i32>,
    pub ev: FtraceEv,
}

/// Which producer writes a non-ftrace packet; each producer is one packet
/// sequence (before `BuildOptions::sequences` folds them together).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Stream {
    SurfaceFlinger,
    Thread { pid: i32, tid: i32 },
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum FtKind {
    ExpectedSurface { token: i64, display_frame_token: i64, pid: i32, layer: Sym },
    ActualSurface { f: ActualFields, layer: Sym },
    ExpectedDisplay { token: i64, pid: i32 },
    ActualDisplay { f: ActualFields },
    End,
}

/// [`ActualFrame`] without its layer string (which lives in the string table).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ActualFields {
    pub token: i64,
    pub display_frame_token: i64,
    pub pid: i32,
    pub present_type: i32,
    pub on_time_finish: bool,
    pub gpu_composition: bool,
    pub jank_type: i32,
    pub prediction_type: i32,
    pub jank_severity_type: i32,
    pub present_delay_us: i64,
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum OtherEv {
    FrameTimeline { cookie: i64, kind: FtKind },
    SliceBegin { name: Sym },
    SliceEnd,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct OtherRec {
    pub ts: i64,
    pub stream: Stream,
    pub ev: OtherEv,
}

#[derive(Debug, Clone)]
pub(crate) struct ProcessInfo {
    pub pid: i32,
    pub name: String,
}

#[derive(Debug, Clone)]
pub(crate) struct ThreadInfo {
    pub tid: i32,
    pub pid: i32,
    pub name: String,
}

/// Accumulates events and serialises them as a Perfetto trace.
#[derive(Debug, Clone, Default)]
pub struct TraceBuilder {
    pub(crate) strings: Vec<String>,
    string_ids: HashMap<String, Sym>,
    pub(crate) processes: Vec<ProcessInfo>,
    pub(crate) threads: Vec<ThreadInfo>,
    pub(crate) system_info: Option<(String, u64)>,
    pub(crate) ftrace: Vec<FtraceRec>,
    pub(crate) others: Vec<OtherRec>,
    next_cookie: i64,
}

impl TraceBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    pub(crate) fn sym(&mut self, s: &str) -> Sym {
        if let Some(&id) = self.string_ids.get(s) {
            return id;
        }
        let id = self.strings.len() as Sym;
        self.strings.push(s.to_owned());
        self.string_ids.insert(s.to_owned(), id);
        id
    }

    pub(crate) fn str(&self, s: Sym) -> &str {
        &self.strings[s as usize]
    }

    /// A process_tree Process with `cmdline = [name]`.
    pub fn process(&mut self, pid: i32, name: &str) -> &mut Self {
        self.processes.push(ProcessInfo { pid, name: name.to_owned() });
        self
    }

    /// A process_tree Thread (tid, tgid, name).
    pub fn thread(&mut self, tid: i32, pid: i32, name: &str) -> &mut Self {
        self.threads.push(ThreadInfo { tid, pid, name: name.to_owned() });
        self
    }

    /// A SystemInfo packet with the Android build fingerprint and SDK level.
    pub fn system_info(&mut self, fingerprint: &str, sdk: u64) -> &mut Self {
        self.system_info = Some((fingerprint.to_owned(), sdk));
        self
    }

    fn print(&mut self, ts: i64, tid: i32, p: Print) {
        self.ftrace.push(FtraceRec { ts, cpu: None, tid, pid: Some(tid), ev: FtraceEv::Print(p) });
    }

    /// ftrace print `B|pid|name\n`.
    pub fn atrace_begin(&mut self, ts: i64, tid: i32, pid: i32, name: &str) {
        let name = self.sym(name);
        self.print(ts, tid, Print::Begin { pid, name });
    }

    /// ftrace print `E|pid\n`.
    pub fn atrace_end(&mut self, ts: i64, tid: i32, pid: i32) {
        self.print(ts, tid, Print::End { pid });
    }

    /// ftrace print `C|pid|name|value\n`.
    pub fn atrace_counter(&mut self, ts: i64, tid: i32, pid: i32, name: &str, value: i64) {
        let name = self.sym(name);
        self.print(ts, tid, Print::Counter { pid, name, value });
    }

    /// ftrace print `S|pid|name|cookie\n`.
    pub fn atrace_async_begin(&mut self, ts: i64, tid: i32, pid: i32, name: &str, cookie: i64) {
        let name = self.sym(name);
        self.print(ts, tid, Print::AsyncBegin { pid, name, cookie });
    }

    /// ftrace print `F|pid|name|cookie\n`.
    pub fn atrace_async_end(&mut self, ts: i64, tid: i32, pid: i32, name: &str, cookie: i64) {
        let name = self.sym(name);
        self.print(ts, tid, Print::AsyncEnd { pid, name, cookie });
    }

    /// Any print payload, verbatim (no newline added).
    pub fn atrace_raw(&mut self, ts: i64, tid: i32, buf: &str) {
        let s = self.sym(buf);
        self.print(ts, tid, Print::Raw(s));
    }

    /// An atrace slice: `B` at `ts` and `E` at `ts + dur`.
    pub fn slice(&mut self, ts: i64, dur: i64, tid: i32, pid: i32, name: &str) {
        self.atrace_begin(ts, tid, pid, name);
        self.atrace_end(ts + dur, tid, pid);
    }

    /// sched_switch on `cpu` (common pid = prev_tid, prio 120 both sides).
    #[allow(clippy::too_many_arguments)]
    pub fn sched_switch(
        &mut self,
        ts: i64,
        cpu: u32,
        prev_tid: i32,
        prev_comm: &str,
        prev_state: i64,
        next_tid: i32,
        next_comm: &str,
    ) {
        let prev_comm = self.sym(prev_comm);
        let next_comm = self.sym(next_comm);
        self.ftrace.push(FtraceRec {
            ts,
            cpu: Some(cpu),
            tid: prev_tid,
            pid: Some(prev_tid),
            ev: FtraceEv::Switch { prev_tid, prev_comm, prev_state, next_tid, next_comm },
        });
    }

    /// sched_waking of `tid` recorded on `cpu` (the waker's CPU); the event's
    /// common pid is whatever task the builder's own sched_switch events say
    /// runs on `cpu` at `ts` (0 when unknown).
    pub fn sched_waking(&mut self, ts: i64, cpu: u32, tid: i32, comm: &str, target_cpu: u32) {
        let comm = self.sym(comm);
        self.ftrace.push(FtraceRec {
            ts,
            cpu: Some(cpu),
            tid,
            pid: None,
            ev: FtraceEv::Waking { tid, comm, target_cpu },
        });
    }

    /// task_rename of `tid` (recorded on `tid % cpus`, common pid = tid).
    pub fn task_rename(&mut self, ts: i64, tid: i32, old: &str, new: &str) {
        let old = self.sym(old);
        let new = self.sym(new);
        self.ftrace.push(FtraceRec { ts, cpu: None, tid, pid: Some(tid), ev: FtraceEv::Rename { tid, old, new } });
    }

    fn frame_timeline(&mut self, ts: i64, end: Option<i64>, kind: FtKind) {
        self.next_cookie += 1;
        let cookie = self.next_cookie;
        self.others.push(OtherRec { ts, stream: Stream::SurfaceFlinger, ev: OtherEv::FrameTimeline { cookie, kind } });
        if let Some(end) = end {
            self.others.push(OtherRec {
                ts: end,
                stream: Stream::SurfaceFlinger,
                ev: OtherEv::FrameTimeline { cookie, kind: FtKind::End },
            });
        }
    }

    /// FrameTimeline ExpectedSurfaceFrameStart at `ts` (+ FrameEnd at `end`).
    pub fn expected_surface_frame(
        &mut self,
        ts: i64,
        end: Option<i64>,
        token: i64,
        display_frame_token: i64,
        pid: i32,
        layer: &str,
    ) {
        let layer = self.sym(layer);
        self.frame_timeline(ts, end, FtKind::ExpectedSurface { token, display_frame_token, pid, layer });
    }

    /// FrameTimeline ActualSurfaceFrameStart at `ts` (+ FrameEnd at `end`).
    pub fn actual_surface_frame(&mut self, ts: i64, end: Option<i64>, f: ActualFrame) {
        let layer = self.sym(&f.layer);
        self.frame_timeline(ts, end, FtKind::ActualSurface { f: ActualFields::from(&f), layer });
    }

    /// FrameTimeline ExpectedDisplayFrameStart at `ts` (+ FrameEnd at `end`).
    pub fn expected_display_frame(&mut self, ts: i64, end: Option<i64>, token: i64, pid: i32) {
        self.frame_timeline(ts, end, FtKind::ExpectedDisplay { token, pid });
    }

    /// FrameTimeline ActualDisplayFrameStart at `ts` (+ FrameEnd at `end`);
    /// `f.layer` and `f.display_frame_token` are not part of that message.
    pub fn actual_display_frame(&mut self, ts: i64, end: Option<i64>, f: ActualFrame) {
        self.frame_timeline(ts, end, FtKind::ActualDisplay { f: ActualFields::from(&f) });
    }

    /// A TrackEvent slice on the thread track of (pid, tid): SLICE_BEGIN at
    /// `ts`, SLICE_END at `ts + dur`, names interned per packet sequence.
    pub fn track_event_slice(&mut self, ts: i64, dur: i64, pid: i32, tid: i32, name: &str) {
        let name = self.sym(name);
        let stream = Stream::Thread { pid, tid };
        self.others.push(OtherRec { ts, stream, ev: OtherEv::SliceBegin { name } });
        self.others.push(OtherRec { ts: ts + dur, stream, ev: OtherEv::SliceEnd });
    }

    /// A lone TrackEvent SLICE_BEGIN (for streaming generators whose end
    /// falls in a later window).
    pub(crate) fn track_event_begin(&mut self, ts: i64, pid: i32, tid: i32, name: &str) {
        let name = self.sym(name);
        self.others.push(OtherRec { ts, stream: Stream::Thread { pid, tid }, ev: OtherEv::SliceBegin { name } });
    }

    /// A lone TrackEvent SLICE_END closing the innermost slice of the thread.
    pub(crate) fn track_event_end(&mut self, ts: i64, pid: i32, tid: i32) {
        self.others.push(OtherRec { ts, stream: Stream::Thread { pid, tid }, ev: OtherEv::SliceEnd });
    }

    /// The serialized `Trace`.
    pub fn build(&self, opts: &BuildOptions) -> Vec<u8> {
        let mut enc = StreamEncoder::new(opts.clone());
        let mut out = Vec::new();
        enc.write_window(self, &mut out);
        out
    }

    /// Smallest timestamp of any event, if there is one.
    pub(crate) fn min_ts(&self) -> Option<i64> {
        let a = self.ftrace.iter().map(|r| r.ts).min();
        let b = self.others.iter().map(|r| r.ts).min();
        match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Drops the events (and the strings only they referenced) but keeps
    /// processes, threads and the cookie counter, so a streaming generator can
    /// reuse the builder per window with bounded memory.
    pub(crate) fn clear_events(&mut self) {
        self.ftrace.clear();
        self.others.clear();
        self.strings.clear();
        self.string_ids.clear();
    }

    /// Name of a thread registered with [`TraceBuilder::thread`].
    pub(crate) fn thread_name(&self, tid: i32) -> Option<&str> {
        self.threads.iter().find(|t| t.tid == tid).map(|t| t.name.as_str())
    }
}

impl From<&ActualFrame> for ActualFields {
    fn from(f: &ActualFrame) -> Self {
        Self {
            token: f.token,
            display_frame_token: f.display_frame_token,
            pid: f.pid,
            present_type: f.present_type,
            on_time_finish: f.on_time_finish,
            gpu_composition: f.gpu_composition,
            jank_type: f.jank_type,
            prediction_type: f.prediction_type,
            jank_severity_type: f.jank_severity_type,
            present_delay_us: f.present_delay_us,
        }
    }
}
