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
            // A parent not listed (yet) is a process of its own, numbered
            // before its child, with its main thread, as trace_processor's
            // ProcessTracker makes it (pid 0 is the swapper's, upid 0).
            if let Some(ppid) = pr.ppid.filter(|&p| p > 0 && p != pid && !id.knows_process(p)) {
                id.thread_in(ppid, ppid);
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Upid;
    use crate::read::records::TrackEventKind;

    fn packet(order: u64, seq: u32, ts: Option<u64>, body: TailBody) -> TailPacket {
        TailPacket {
            order,
            seq,
            ts,
            clock: None,
            incremental_state_cleared: false,
            defaults: None,
            interned: None,
            body,
        }
    }

    fn event(kind: TrackEventKind, name: EventName, categories: Categories) -> TailBody {
        TailBody::TrackEvent(TrackEventRec { kind, track_uuid: None, name, categories, value: 0.0 })
    }

    fn interned(names: &[(u64, &str)], categories: &[(u64, &str)]) -> Option<Box<slim::InternedData>> {
        Some(Box::new(slim::InternedData {
            event_names: names.iter().map(|&(i, n)| slim::EventName { iid: Some(i), name: Some(n.into()) }).collect(),
            event_categories: categories
                .iter()
                .map(|&(i, n)| slim::EventCategory { iid: Some(i), name: Some(n.into()) })
                .collect(),
        }))
    }

    fn run(packets: Vec<TailPacket>) -> (Replay, Batch, Identity, TraceMeta, Vec<DataSource>) {
        let mut batches = [Batch { tail: packets, ..Default::default() }];
        let (mut id, mut meta, mut sources) = (Identity::default(), TraceMeta::default(), Sources::default());
        let replay = replay(&mut batches, &mut id, &mut meta, &mut sources);
        let [batch] = batches;
        (replay, batch, id, meta, sources.finish())
    }

    /// A replayed track event's name, categories and track: resolved, or
    /// none (an iid its sequence did not intern is no name).
    fn resolved(p: &TailPacket) -> (Option<&str>, Option<&str>, Option<u64>) {
        let TailBody::TrackEvent(te) = &p.body else { panic!("not a track event: {p:?}") };
        let name = match &te.name {
            EventName::Inline(n) => Some(&**n),
            EventName::None => None,
            EventName::Interned(iid) => panic!("iid {iid} left unresolved"),
        };
        let categories = match &te.categories {
            Categories::Inline(c) => Some(&**c),
            Categories::None => None,
            other => panic!("categories left unresolved: {other:?}"),
        };
        (name, categories, te.track_uuid)
    }

    #[test]
    fn interned_names_belong_to_their_sequence_until_its_state_is_cleared() {
        use TrackEventKind::*;
        let mut p1 = packet(
            1,
            1,
            Some(100),
            event(SliceBegin, EventName::Interned(1), Categories::InternedList(Box::new([1, 2, 9]))),
        );
        p1.interned = interned(&[(1, "draw")], &[(1, "gfx"), (2, "view")]);
        p1.defaults = Some(slim::TracePacketDefaults {
            timestamp_clock_id: None,
            track_event_defaults: Some(slim::TrackEventDefaults { track_uuid: Some(77) }),
        });
        // Sequence 2 interned nothing: the same iids name nothing there.
        let mut p2 = packet(2, 2, Some(110), event(Instant, EventName::Interned(1), Categories::Interned(1)));
        if let TailBody::TrackEvent(te) = &mut p2.body {
            te.track_uuid = Some(5);
        }
        // Cleared, then interned anew: iid 1 is another name, iid 2 no category.
        let mut p3 = packet(3, 1, Some(120), event(SliceEnd, EventName::Interned(1), Categories::Interned(2)));
        p3.incremental_state_cleared = true;
        p3.interned = interned(&[(1, "measure")], &[]);
        // Cleared and nothing interned: an inline name stays, the iid is lost;
        // the defaults (not incremental state) still give the track.
        let mut p4 =
            packet(4, 1, Some(130), event(Counter, EventName::Interned(1), Categories::Inline("inline".into())));
        p4.incremental_state_cleared = true;
        let p5 = packet(5, 1, Some(140), event(Instant, EventName::Inline("own".into()), Categories::None));
        let (replay, batch, _, meta, sources) = run(vec![p1, p2, p3, p4, p5]);
        assert_eq!(
            batch.tail.iter().map(resolved).collect::<Vec<_>>(),
            [
                // An interned list joins the categories it knows.
                (Some("draw"), Some("gfx,view"), Some(77)),
                (None, None, Some(5)),
                (Some("measure"), None, Some(77)),
                (None, Some("inline"), Some(77)),
                (Some("own"), None, Some(77)),
            ]
        );
        assert_eq!((replay.track_events, replay.track_event_counters), (5, 1));
        // BOOTTIME (no clock given): folded into the bounds, nothing queued.
        assert_eq!((replay.boottime_bounds, replay.packet_times.len()), (Some((100, 140)), 0));
        assert_eq!(sources, [DataSource::TrackEvent]);
        assert!(meta.warnings.is_empty(), "{:?}", meta.warnings);
    }

    #[test]
    fn incremental_clocks_sum_per_sequence_and_defaults_name_the_clock() {
        use TrackEventKind::*;
        let clock = |id, ts, incremental, mult| slim::clock_snapshot::Clock {
            clock_id: Some(id),
            timestamp: Some(ts),
            is_incremental: Some(incremental),
            unit_multiplier_ns: mult,
        };
        // Sequence 3: clock 64 counts µs from 1000 at BOOTTIME 5000, incrementally.
        let snapshot = packet(
            1,
            3,
            None,
            TailBody::ClockSnapshot(slim::ClockSnapshot {
                clocks: vec![clock(6, 5000, false, None), clock(64, 1000, true, Some(1000))],
                primary_trace_clock: None,
            }),
        );
        let mut first = packet(2, 3, Some(10), event(SliceBegin, EventName::None, Categories::None));
        first.defaults = Some(slim::TracePacketDefaults { timestamp_clock_id: Some(64), track_event_defaults: None });
        let second = packet(3, 3, Some(5), event(SliceEnd, EventName::None, Categories::None));
        // Sequence 4: clock 64 is not incremental there, and not related to BOOTTIME.
        let mut other = packet(4, 4, Some(50), event(Instant, EventName::None, Categories::None));
        other.clock = Some(64);
        let started = packet(
            5,
            4,
            Some(400),
            TailBody::ServiceEvent(slim::TracingServiceEvent { tracing_started: Some(true), ..Default::default() }),
        );
        let undated = packet(6, 4, None, event(Instant, EventName::None, Categories::None));
        let (mut replay, batch, _, meta, sources) = run(vec![snapshot, first, second, other, started, undated]);
        // The track events' timestamps are left summed, with the clock they are in.
        let times: Vec<_> = batch.tail.iter().map(|p| (p.ts, p.clock)).collect();
        assert_eq!(
            times,
            [
                (None, None),
                (Some(1010), Some(64)),
                (Some(1015), Some(64)),
                (Some(50), Some(64)),
                (Some(400), None),
                (None, None)
            ]
        );
        assert_eq!(replay.packet_times, [(1010, 64, 3), (1015, 64, 3), (50, 64, 4)]);
        assert_eq!((replay.boottime_bounds, replay.tracing_started), (Some((400, 400)), Some((400, 6, 4))));
        assert_eq!(replay.clocks.seq_default.get(&3), Some(&64));
        assert_eq!(replay.clocks.seq_default.len(), 1);
        assert_eq!(replay.clocks.boottime_of(64, 3, 1015), Some(5000 + 15 * 1000));
        assert_eq!(replay.clocks.boottime_of(64, 4, 50), None);
        assert_eq!(replay.track_events, 3);
        assert_eq!(meta.clocks, [6, 64]);
        assert_eq!(sources, [DataSource::ClockSnapshot, DataSource::TrackEvent]);
        assert_eq!(meta.warnings.len(), 1);
        assert_eq!(meta.warnings[0].code, WarningCode::TrackEventsUndated);
        assert_eq!(meta.warnings[0].message, "1 track events had no timestamp and were skipped");
    }

    #[test]
    fn processes_threads_and_descriptors_name_by_priority() {
        use slim::process_tree::{Process, Thread};
        let tree = slim::ProcessTree {
            processes: vec![
                Process {
                    pid: Some(10),
                    ppid: Some(1),
                    cmdline: vec!["/system/bin/surfaceflinger".into(), "--x".into()],
                    uid: Some(1000),
                    cmdline_is_comm: None,
                },
                Process {
                    pid: Some(20),
                    cmdline: vec!["app".into()],
                    cmdline_is_comm: Some(true),
                    ..Default::default()
                },
            ],
            threads: vec![
                Thread { tid: Some(21), name: Some("RenderThread".into()), tgid: Some(20) },
                Thread { tid: Some(30), name: Some(String::new()), tgid: None },
            ],
        };
        let stats = slim::ProcessStats {
            processes: vec![slim::process_stats::Process {
                pid: Some(40),
                threads: vec![slim::process_stats::Thread { tid: Some(41) }],
            }],
        };
        let descriptor = |uuid, process: Option<(i32, &str)>, thread: Option<(i32, i32, &str)>| {
            TailBody::TrackDescriptor(Box::new(slim::TrackDescriptor {
                uuid,
                process: process.map(|(pid, name)| slim::ProcessDescriptor {
                    pid: Some(pid),
                    process_name: Some(name.into()),
                    cmdline: Vec::new(),
                }),
                thread: thread.map(|(pid, tid, name)| slim::ThreadDescriptor {
                    pid: Some(pid),
                    tid: Some(tid),
                    thread_name: Some(name.into()),
                }),
                ..Default::default()
            }))
        };
        let (replay, _, id, _, sources) = run(vec![
            packet(1, 1, Some(10), TailBody::ProcessTree(tree)),
            packet(2, 1, Some(20), TailBody::ProcessStats(stats)),
            // A cmdline's name outranks a descriptor's; a comm-like one does not.
            packet(3, 2, Some(30), descriptor(Some(5), Some((10, "sf")), None)),
            packet(4, 2, Some(40), descriptor(Some(6), Some((20, "com.example.app")), None)),
            // A descriptor's thread name outranks the process tree's.
            packet(5, 2, Some(50), descriptor(Some(7), None, Some((20, 21, "hwuiTask")))),
            // No uuid: ignored whole, its process too.
            packet(6, 2, Some(60), descriptor(None, Some((50, "late")), None)),
        ]);
        let processes: Vec<_> = id
            .processes
            .iter()
            .map(|p| (p.pid, p.name.as_deref(), p.cmdline.as_deref(), p.parent_pid, p.uid))
            .collect();
        assert_eq!(
            processes,
            [
                // surfaceflinger's parent, not listed: a process of its own, before it (trace_processor's order).
                (1, None, None, None, None),
                (10, Some("/system/bin/surfaceflinger"), Some("/system/bin/surfaceflinger --x"), Some(1), Some(1000)),
                (20, Some("com.example.app"), None, None, None),
                (40, None, None, None, None),
            ]
        );
        let threads: Vec<_> = id.threads.iter().map(|t| (t.tid, t.upid, t.name.as_deref())).collect();
        assert_eq!(
            threads,
            [
                // The unlisted parent's main thread.
                (1, Some(Upid(0)), None),
                (10, Some(Upid(1)), None),
                (20, Some(Upid(2)), None),
                (21, Some(Upid(2)), Some("hwuiTask")),
                (30, None, None),
                (41, Some(Upid(3)), None),
            ]
        );
        let mut uuids: Vec<u64> = replay.descriptors.keys().copied().collect();
        uuids.sort_unstable();
        assert_eq!(uuids, [5, 6, 7]);
        assert_eq!(sources, [DataSource::ProcessTree, DataSource::ProcessStats]);
    }

    #[test]
    fn system_info_and_the_services_stats_fill_the_meta() {
        use slim::ftrace_stats::FtraceCpuStats;
        use slim::trace_stats::BufferStats;
        let buffer = |discarded, overwritten, patches_failed, loss| BufferStats {
            chunks_discarded: Some(discarded),
            chunks_overwritten: Some(overwritten),
            patches_failed: Some(patches_failed),
            abi_violations: Some(1),
            trace_writer_packet_loss: Some(loss),
            bytes_overwritten: None,
        };
        let trace_stats = slim::TraceStats {
            buffer_stats: vec![buffer(2, 1, 0, 4), buffer(3, 4, 5, 0)],
            // The service's refused commits: informational, not a buffer's discards.
            chunks_discarded: Some(100),
            patches_discarded: Some(6),
            invalid_packets: None,
            flushes_failed: Some(7),
            final_flush_outcome: Some(FINAL_FLUSH_FAILED),
        };
        let ftrace = |phase, overruns: &[u64], errors: Option<&str>| {
            TailBody::FtraceStats(slim::FtraceStats {
                phase: Some(phase),
                cpu_stats: overruns
                    .iter()
                    .map(|&o| FtraceCpuStats { overrun: Some(o), ..Default::default() })
                    .collect(),
                atrace_errors: errors.map(Into::into),
            })
        };
        let info = slim::SystemInfo {
            android_build_fingerprint: Some("google/panther/panther:14".into()),
            android_sdk_version: Some(34),
            android_soc_model: Some("Tensor G2".into()),
            ..Default::default()
        };
        let primary = slim::ClockSnapshot { clocks: Vec::new(), primary_trace_clock: Some(1) };
        let (_, _, _, meta, sources) = run(vec![
            packet(1, 1, None, TailBody::SystemInfo(Box::new(info))),
            // The start of the trace (phase 1), then its end (phase 2), then a
            // start again: the end's totals win.
            packet(2, 1, None, ftrace(1, &[3, 4], Some("atrace: no categories"))),
            packet(3, 1, None, ftrace(2, &[10], Some(""))),
            packet(4, 1, None, ftrace(1, &[99], None)),
            packet(5, 1, None, TailBody::TraceStats(trace_stats)),
            packet(6, 1, None, TailBody::ClockSnapshot(primary)),
        ]);
        let a = &meta.android;
        assert_eq!(
            (a.build_fingerprint.as_deref(), a.sdk_version, a.device.as_deref()),
            (Some("google/panther/panther:14"), Some(34), Some("Tensor G2"))
        );
        let dl = &meta.data_loss;
        assert_eq!(dl.ftrace_overrun, 10);
        assert_eq!((dl.chunks_discarded, dl.trace_buffer_overruns, dl.patches_discarded), (5, 5, 6));
        assert_eq!((dl.patches_failed, dl.abi_violations, dl.trace_writer_packet_loss), (5, 2, 4));
        assert_eq!((dl.flushes_failed, dl.final_flush_failed), (7, 1));
        assert_eq!(sources, [DataSource::SystemInfo, DataSource::ClockSnapshot]);
        // Reported in BOOTTIME whatever the trace's primary clock.
        assert_eq!(meta.trace_clock, BOOTTIME);
        let warnings: Vec<_> = meta.warnings.iter().map(|w| (w.code, w.message.as_str())).collect();
        assert_eq!(
            warnings,
            [
                (WarningCode::AtraceErrors, "atrace reported errors while tracing: atrace: no categories"),
                (
                    WarningCode::TraceClockNotBoottime,
                    "the trace's primary clock is 1, not BOOTTIME; fpsan reports BOOTTIME times"
                ),
            ]
        );
    }
}
