//! The long-tail packets, replayed in file order per sequence (trace_processor
//! keeps this state per sequence too): interned names, TracePacketDefaults,
//! incremental clocks, clock snapshots, process tree/stats, system info,
//! trace/ftrace stats, the tracing-started event, track descriptors, and the
//! track events (kept for later, once every descriptor and clock is known).

use foldhash::HashMap;

use super::clock::{is_boottime, TraceClocks, BOOTTIME};
use super::identity::{Identity, NamePriority};
use super::stats::Sources;
use crate::model::{DataSource, Name, TraceMeta, Warning, WarningCode};
use crate::read::records::{Batch, Categories, EventName, TailBody, TailPacket, TrackEventRec};
use crate::read::slim;

/// `TraceStats.FinalFlushOutcome.FINAL_FLUSH_FAILED`.
const FINAL_FLUSH_FAILED: u32 = 2;

/// What the replay learned, for the steps after it.
#[derive(Default)]
pub(crate) struct Replay {
    pub(crate) clocks: TraceClocks,
    pub(crate) descriptors: HashMap<u64, slim::TrackDescriptor>,
    /// How many dated track events the batches' tail packets hold, resolved
    /// in place for `track_event` (see [`Replayer::track_event`]).
    pub(crate) track_events: usize,
    /// How many of them are counters (a capacity hint for the operations,
    /// counted here so that no pass over the events is needed).
    pub(crate) track_event_counters: usize,
    /// (timestamp, clock, sequence) of the service's tracing-started event.
    pub(crate) tracing_started: Option<(i64, u32, u32)>,
    /// Every dated packet counts toward the trace's bounds, as in
    /// trace_processor: the earliest and latest of those in trace time
    /// already, and (timestamp, clock, sequence) of the others, converted
    /// once every clock snapshot is known.
    pub(crate) boottime_bounds: Option<(i64, i64)>,
    pub(crate) packet_times: Vec<(i64, u32, u32)>,
}

#[derive(Default)]
struct SequenceState {
    default_clock: Option<u32>,
    default_track: Option<u64>,
    names: HashMap<u64, Name>,
    categories: HashMap<u64, Name>,
    incremental_clocks: Vec<u32>,
    clock_values: HashMap<u32, i64>,
}

struct Replayer<'a> {
    id: &'a mut Identity,
    meta: &'a mut TraceMeta,
    sources: &'a mut Sources,
    seqs: HashMap<u32, SequenceState>,
    out: Replay,
    trace_clock: u32,
    undated_track_events: u64,
}

/// Replay every long-tail packet of `batches` in file order. The track
/// events stay where they are, resolved in place; `track_event` reads and
/// frees the tail packets.
pub(crate) fn replay(batches: &mut [Batch], id: &mut Identity, meta: &mut TraceMeta, sources: &mut Sources) -> Replay {
    let mut r = Replayer {
        id,
        meta,
        sources,
        seqs: HashMap::default(),
        out: Replay::default(),
        trace_clock: BOOTTIME,
        undated_track_events: 0,
    };
    // Replayed in place: a packet is large, and moving each out of its vector
    // was a sizeable share of this serial step.
    for b in batches.iter_mut() {
        for p in &mut b.tail {
            r.packet(p);
        }
    }
    r.finish()
}

impl Replayer<'_> {
    fn packet(&mut self, p: &mut TailPacket) {
        let st = self.seqs.entry(p.seq).or_default();
        sequence_state(st, p);
        let clock = p.clock.or(st.default_clock).unwrap_or(BOOTTIME);
        // Incremental clocks: the packet carries a delta from the previous value.
        let ts = p.ts.map(|raw| {
            let raw = raw as i64;
            if st.incremental_clocks.contains(&clock) {
                let v = st.clock_values.entry(clock).or_insert(0);
                *v = v.wrapping_add(raw);
                *v
            } else {
                raw
            }
        });
        match ts {
            // Most packets (every track event): fold them into the bounds
            // rather than queue each for conversion.
            Some(t) if is_boottime(clock) => {
                let b = self.out.boottime_bounds.get_or_insert((t, t));
                *b = (b.0.min(t), b.1.max(t));
            }
            Some(t) => self.out.packet_times.push((t, clock, p.seq)),
            None => {}
        }
        let seq = p.seq;
        match &mut p.body {
            TailBody::ClockSnapshot(cs) => self.clock_snapshot(seq, cs),
            TailBody::ProcessTree(pt) => self.process_tree(pt, ts.unwrap_or(0)),
            TailBody::ProcessStats(ps) => self.process_stats(ps),
            TailBody::SystemInfo(si) => self.system_info(si),
            TailBody::TraceStats(ts) => self.trace_stats(ts),
            TailBody::FtraceStats(fs) => self.ftrace_stats(fs),
            TailBody::ServiceEvent(se) => {
                if let (true, Some(t)) = (se.tracing_started.unwrap_or(false), ts) {
                    self.out.tracing_started = Some((t, clock, seq));
                }
            }
            TailBody::TrackDescriptor(td) => self.track_descriptor(std::mem::take(&mut **td), ts.unwrap_or(0)),
            TailBody::TrackEvent(te) => {
                self.sources.add(DataSource::TrackEvent);
                match ts {
                    Some(t) => {
                        self.track_event(seq, te);
                        // The timestamp with its increments summed, in the clock the sequence's defaults give.
                        (p.ts, p.clock) = (Some(t as u64), Some(clock));
                    }
                    None => self.undated_track_events += 1,
                }
            }
            TailBody::None => {}
        }
    }

    fn clock_snapshot(&mut self, seq: u32, cs: &slim::ClockSnapshot) {
        self.sources.add(DataSource::ClockSnapshot);
        let st = self.seqs.entry(seq).or_default();
        let list: Vec<(u32, i64, i64)> = cs
            .clocks
            .iter()
            .filter_map(|c| Some((c.clock_id?, c.timestamp? as i64, c.unit_multiplier_ns.unwrap_or(1) as i64)))
            .collect();
        for c in &cs.clocks {
            let (Some(cid), Some(t)) = (c.clock_id, c.timestamp) else { continue };
            if c.is_incremental.unwrap_or(false) {
                if !st.incremental_clocks.contains(&cid) {
                    st.incremental_clocks.push(cid);
                }
                st.clock_values.insert(cid, t as i64);
            }
            if !self.meta.clocks.contains(&cid) {
                self.meta.clocks.push(cid);
            }
        }
        self.out.clocks.converter.add_snapshot(seq, &list);
        if let Some(primary) = cs.primary_trace_clock {
            self.trace_clock = primary;
        }
    }

    fn process_tree(&mut self, pt: &slim::ProcessTree, ts: i64) {
        // A tree of threads alone is a systrace's tgid column, not a listing.
        if !pt.processes.is_empty() {
            self.sources.add(DataSource::ProcessTree);
        }
        let id = &mut *self.id;
        for pr in &pt.processes {
            let Some(pid) = pr.pid else { continue };
            let upid = id.process(pid);
            let p = id.process_mut(upid);
            p.parent_pid = pr.ppid;
            p.uid = pr.uid;
            if pr.cmdline_is_comm.unwrap_or(false) {
                if let Some(c) = pr.cmdline.first() {
                    id.process_mut(upid).name = Some(Name::from(c.as_str()));
                }
            } else {
                id.set_cmdline(upid, &pr.cmdline);
            }
            // The main thread belongs to its process.
            id.thread_in(pid, pid);
        }
        for th in &pt.threads {
            let Some(tid) = th.tid else { continue };
            let utid = match th.tgid {
                Some(tgid) => id.thread_in(tid, tgid),
                None => id.thread(tid),
            };
            if let Some(n) = th.name.as_deref().filter(|n| !n.is_empty()) {
                id.name_thread(utid, Name::from(n), NamePriority::ProcessTree, ts);
            }
        }
    }

    fn process_stats(&mut self, ps: &slim::ProcessStats) {
        self.sources.add(DataSource::ProcessStats);
        for pr in &ps.processes {
            let Some(pid) = pr.pid else { continue };
            self.id.process(pid);
            for tid in pr.threads.iter().filter_map(|th| th.tid) {
                self.id.thread_in(tid, pid);
            }
        }
    }

    fn system_info(&mut self, si: &slim::SystemInfo) {
        self.sources.add(DataSource::SystemInfo);
        let android = &mut self.meta.android;
        android.build_fingerprint = si.android_build_fingerprint.clone();
        android.sdk_version = si.android_sdk_version;
        android.device = si.android_device_manufacturer.clone().or(si.android_soc_model.clone());
    }

    fn trace_stats(&mut self, ts: &slim::TraceStats) {
        let dl = &mut self.meta.data_loss;
        // Only the per-buffer count (FillPolicy DISCARD) is lost data; the
        // top-level chunks_discarded counts commits the service refused
        // (e.g. a wrong buffer id) and is informational in trace_processor.
        dl.chunks_discarded = ts.buffer_stats.iter().map(|b| b.chunks_discarded.unwrap_or(0)).sum();
        dl.patches_discarded = ts.patches_discarded.unwrap_or(0);
        dl.trace_buffer_overruns = ts.buffer_stats.iter().map(|b| b.chunks_overwritten.unwrap_or(0)).sum();
        // Data loss, as trace_processor grades these.
        dl.patches_failed = ts.buffer_stats.iter().map(|b| b.patches_failed.unwrap_or(0)).sum();
        dl.abi_violations = ts.buffer_stats.iter().map(|b| b.abi_violations.unwrap_or(0)).sum();
        dl.trace_writer_packet_loss = ts.buffer_stats.iter().map(|b| b.trace_writer_packet_loss.unwrap_or(0)).sum();
        dl.flushes_failed = ts.flushes_failed.unwrap_or(0);
        dl.final_flush_failed = u64::from(ts.final_flush_outcome == Some(FINAL_FLUSH_FAILED));
    }

    fn ftrace_stats(&mut self, fs: &slim::FtraceStats) {
        // phase 2 = END_OF_TRACE: the totals for the whole trace.
        if fs.phase == Some(2) || self.meta.data_loss.ftrace_overrun == 0 {
            self.meta.data_loss.ftrace_overrun = fs.cpu_stats.iter().map(|c| c.overrun.unwrap_or(0)).sum();
        }
        if let Some(err) = fs.atrace_errors.as_deref().filter(|e| !e.is_empty()) {
            let message = format!("atrace reported errors while tracing: {err}");
            self.meta.warnings.push(Warning::new(WarningCode::AtraceErrors, message));
        }
    }

    fn track_descriptor(&mut self, td: slim::TrackDescriptor, ts: i64) {
        let Some(uuid) = td.uuid else { return };
        if let Some((pd, pid)) = td.process.as_ref().and_then(|pd| Some((pd, pd.pid?))) {
            let upid = self.id.process(pid);
            if let Some(n) = pd.process_name.as_deref().filter(|n| !n.is_empty()) {
                self.id.name_process_below_cmdline(upid, Name::from(n));
            } else if !pd.cmdline.is_empty() {
                self.id.set_cmdline(upid, &pd.cmdline);
            }
        }
        if let Some(thd) = &td.thread {
            if let (Some(pid), Some(tid)) = (thd.pid, thd.tid) {
                let utid = self.id.thread_in(tid, pid);
                if let Some(n) = thd.thread_name.as_deref().filter(|n| !n.is_empty()) {
                    self.id.name_thread(utid, Name::from(n), NamePriority::TrackDescriptor, ts);
                }
            }
        }
        self.out.descriptors.insert(uuid, td);
    }

    /// A dated track event's parts that depend on its sequence's state at
    /// this point, resolved in place: its name and categories (inline after
    /// this), its track (the sequence's default when it names none). Left in
    /// its packet, not copied out: copies would be fresh memory written by
    /// this serial step.
    fn track_event(&mut self, seq: u32, te: &mut TrackEventRec) {
        let st = self.seqs.entry(seq).or_default();
        te.name = match std::mem::replace(&mut te.name, EventName::None) {
            EventName::Interned(iid) => st.names.get(&iid).cloned().map_or(EventName::None, EventName::Inline),
            name => name,
        };
        te.categories = match std::mem::replace(&mut te.categories, Categories::None) {
            Categories::Interned(iid) => st.categories.get(&iid).cloned().map_or(Categories::None, Categories::Inline),
            Categories::InternedList(iids) => {
                let cats: Vec<&str> = iids.iter().filter_map(|i| st.categories.get(i).map(|n| &**n)).collect();
                if cats.is_empty() {
                    Categories::None
                } else {
                    Categories::Inline(Name::from(cats.join(",").as_str()))
                }
            }
            categories => categories,
        };
        te.track_uuid = te.track_uuid.or(st.default_track);
        self.out.track_events += 1;
        self.out.track_event_counters += usize::from(te.kind == crate::read::records::TrackEventKind::Counter);
    }

    fn finish(mut self) -> Replay {
        self.out.clocks.converter.finish();
        self.out.clocks.seq_default =
            self.seqs.iter().filter_map(|(&seq, st)| st.default_clock.map(|c| (seq, c))).collect();
        if self.undated_track_events > 0 {
            let n = self.undated_track_events;
            let message = format!("{n} track events had no timestamp and were skipped");
            self.meta.warnings.push(Warning::new(WarningCode::TrackEventsUndated, message));
        }
        if self.trace_clock != BOOTTIME {
            let message = format!(
                "the trace's primary clock is {}, not BOOTTIME; fpsan reports BOOTTIME times",
                self.trace_clock
            );
            self.meta.warnings.push(Warning::new(WarningCode::TraceClockNotBoottime, message));
        }
        self.meta.trace_clock = BOOTTIME;
        self.meta.clocks.sort_unstable();
        self.out
    }
}

/// The sequence state a packet changes before it is interpreted: cleared
/// incremental state, new defaults, new interned names.
fn sequence_state(st: &mut SequenceState, p: &TailPacket) {
    if p.incremental_state_cleared {
        st.names.clear();
        st.categories.clear();
    }
    if let Some(d) = &p.defaults {
        if let Some(c) = d.timestamp_clock_id {
            st.default_clock = Some(c);
        }
        if let Some(t) = d.track_event_defaults.as_ref().and_then(|t| t.track_uuid) {
            st.default_track = Some(t);
        }
    }
    if let Some(i) = &p.interned {
        for n in &i.event_names {
            if let (Some(iid), Some(name)) = (n.iid, &n.name) {
                st.names.insert(iid, Name::from(name.as_str()));
            }
        }
        for c in &i.event_categories {
            if let (Some(iid), Some(name)) = (c.iid, &c.name) {
                st.categories.insert(iid, Name::from(name.as_str()));
            }
        }
    }
}
