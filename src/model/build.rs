//! Builds the [`Trace`] model from decoded batches, like trace_processor's
//! sort-then-parse stage: the long-tail packets are replayed in file order
//! per sequence (clocks, defaults, interning, track descriptors); ftrace
//! before the trace's valid start is dropped; slice and counter events are
//! sorted by (timestamp, file order) and run through per-track stacks.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use super::clock::{ClockConverter, BOOTTIME};
use super::*;
use crate::read::records::*;
use crate::read::slim;

/// Slices nest at most this deep on one track; deeper begins are dropped and
/// counted, as trace_processor does (`SliceTracker::kMaxDepth`).
pub const MAX_SLICE_DEPTH: usize = 512;

/// Thread-name sources, lowest first (trace_processor's ThreadNamePriority).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum NamePriority {
    Ftrace = 1,
    ProcessTree = 2,
    TrackDescriptor = 4,
}

/// Process and thread identity (pid/tid → upid/utid), names by priority.
#[derive(Default)]
struct Identity {
    processes: Vec<Process>,
    threads: Vec<Thread>,
    thread_name_rank: Vec<(NamePriority, i64)>,
    process_name_from_cmdline: Vec<bool>,
    pid_map: FxHashMap<i32, Upid>,
    tid_map: FxHashMap<i32, Utid>,
}

impl Identity {
    fn process(&mut self, pid: i32) -> Upid {
        if let Some(&u) = self.pid_map.get(&pid) {
            return u;
        }
        let upid = self.processes.len() as Upid;
        self.processes.push(Process { upid, pid, ..Default::default() });
        self.process_name_from_cmdline.push(false);
        self.pid_map.insert(pid, upid);
        upid
    }

    fn thread(&mut self, tid: i32) -> Utid {
        if let Some(&u) = self.tid_map.get(&tid) {
            return u;
        }
        self.new_thread(tid)
    }

    /// A new thread for `tid`, which from now on resolves to it.
    fn new_thread(&mut self, tid: i32) -> Utid {
        let utid = self.threads.len() as Utid;
        self.threads.push(Thread { utid, tid, ..Default::default() });
        self.thread_name_rank.push((NamePriority::Ftrace, i64::MIN));
        self.tid_map.insert(tid, utid);
        // A thread whose tid is a known pid is that process's main thread.
        if let Some(&upid) = self.pid_map.get(&tid) {
            self.threads[utid as usize].upid = Some(upid);
        }
        utid
    }

    /// `tid` runs in process `pid` (trace_processor's UpdateThread): a tid
    /// already known in another process was reused by the kernel, so it is a
    /// new thread (the old one keeps its slices and name).
    fn thread_in(&mut self, tid: i32, pid: i32) -> Utid {
        let upid = self.process(pid);
        let mut utid = self.thread(tid);
        if self.threads[utid as usize].upid.is_some_and(|u| u != upid) {
            utid = self.new_thread(tid);
        }
        self.threads[utid as usize].upid = Some(upid);
        utid
    }

    fn name_thread(&mut self, utid: Utid, name: Name, prio: NamePriority, ts: i64) {
        let rank = &mut self.thread_name_rank[utid as usize];
        let t = &mut self.threads[utid as usize];
        if t.name.is_none() || prio > rank.0 || (prio == rank.0 && ts >= rank.1) {
            t.name = Some(name);
            *rank = (prio, ts);
        }
    }

    fn set_cmdline(&mut self, upid: Upid, cmdline: &[String]) {
        let Some(argv0) = cmdline.first().filter(|s| !s.is_empty()) else { return };
        let p = &mut self.processes[upid as usize];
        p.name = Some(Name::from(argv0.as_str()));
        p.cmdline = Some(Name::from(cmdline.join(" ").as_str()));
        self.process_name_from_cmdline[upid as usize] = true;
    }

    /// Processes without a cmdline take their main thread's name.
    fn finish(&mut self) {
        for upid in 0..self.processes.len() {
            if self.process_name_from_cmdline[upid] {
                continue;
            }
            let pid = self.processes[upid].pid;
            if let Some(&utid) = self.tid_map.get(&pid) {
                if let Some(n) = &self.threads[utid as usize].name {
                    self.processes[upid].name = Some(n.clone());
                }
            }
        }
    }
}

#[derive(Default)]
struct Tracks {
    tracks: Vec<Track>,
    map: HashMap<(TrackKind, Option<Name>), TrackId>,
    unmerged: HashMap<u64, TrackId>,
}

impl Tracks {
    fn get(&mut self, kind: TrackKind, name: Option<Name>) -> TrackId {
        let key = (kind.clone(), name.clone());
        if let Some(&id) = self.map.get(&key) {
            return id;
        }
        let id = self.tracks.len() as TrackId;
        self.tracks.push(Track { id, name, kind });
        self.map.insert(key, id);
        id
    }
    fn thread(&mut self, utid: Utid) -> TrackId {
        self.get(TrackKind::Thread { utid }, None)
    }
    /// A track of its own for a track descriptor that asked not to be merged
    /// with the system (atrace) track of its thread.
    fn unmerged(&mut self, uuid: u64, kind: TrackKind, name: Option<Name>) -> TrackId {
        if let Some(&id) = self.unmerged.get(&uuid) {
            return id;
        }
        let id = self.tracks.len() as TrackId;
        self.tracks.push(Track { id, name, kind });
        self.unmerged.insert(uuid, id);
        id
    }
}

/// A slice or counter operation, from atrace or track_event.
enum OpKind {
    Begin { track: TrackId, name: Name, category: Option<Name> },
    End { track: TrackId },
    Instant { track: TrackId, name: Name, category: Option<Name> },
    AsyncBegin { track: TrackId, key: (Upid, Name, i64), name: Name },
    AsyncEnd { key: (Upid, Name, i64) },
    Counter { track: TrackId, value: f64 },
}

struct Op {
    ts: i64,
    order: u64,
    kind: OpKind,
}

/// A track_event before its timestamp is converted and its track resolved.
struct PendingTrackEvent {
    ts: i64,
    clock: u32,
    seq: u32,
    order: u64,
    track_uuid: Option<u64>,
    kind: i32,
    name: Option<Name>,
    category: Option<Name>,
    value: f64,
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

pub fn build(batches: Vec<Batch>, mut meta: TraceMeta) -> Trace {
    let mut id = Identity::default();
    let mut tracks = Tracks::default();
    let mut clocks = ClockConverter::default();
    let mut sources: Vec<&'static str> = Vec::new();
    let add_source = |s: &'static str, sources: &mut Vec<&'static str>| {
        if !sources.contains(&s) {
            sources.push(s)
        }
    };

    // ---- 1. batch statistics -------------------------------------------------
    let mut malformed_packets = 0u64;
    let mut names_truncated = 0u64;
    let mut errors: Vec<String> = Vec::new();
    for b in &batches {
        names_truncated += b.names_truncated;
        meta.packets += b.packets;
        meta.compressed_batches += b.compressed_batches;
        meta.ftrace_events += b.ftrace_events;
        meta.sched_events += b.sched_events;
        meta.atrace_malformed += b.atrace_malformed;
        meta.data_loss.ftrace_lost_event_bundles += b.bundles.iter().filter(|x| x.lost_events).count() as u64;
        malformed_packets += b.malformed_packets;
        for e in &b.errors {
            if errors.len() < 8 && !errors.contains(e) {
                errors.push(e.clone());
            }
        }
        for &c in &b.clocks_seen {
            if !meta.clocks.contains(&c) {
                meta.clocks.push(c);
            }
        }
        if b.ftrace_events > 0 || b.compact_sched {
            add_source("ftrace", &mut sources);
        }
        if b.sched_events > 0 {
            add_source("sched", &mut sources);
        }
        if b.compact_sched {
            add_source("compact_sched", &mut sources);
        }
        if !b.atrace.is_empty() {
            add_source("atrace", &mut sources);
        }
        if !b.timeline.is_empty() {
            add_source("frame_timeline", &mut sources);
        }
        if let Some(t) = b.min_ts {
            meta.first_ts = Some(meta.first_ts.map_or(t, |m| m.min(t)));
        }
        if let Some(t) = b.max_ts {
            meta.last_ts = Some(meta.last_ts.map_or(t, |m| m.max(t)));
        }
    }
    let mut sequence_first: HashMap<u32, u64> = HashMap::new();
    for b in &batches {
        for (&seq, &o) in &b.sequence_first {
            let e = sequence_first.entry(seq).or_insert(o);
            *e = (*e).min(o);
        }
    }
    meta.data_loss.packets_dropped_sequences = batches
        .iter()
        .flat_map(|b| &b.dropped_at)
        .filter(|(seq, o)| sequence_first.get(seq).is_some_and(|f| o > f))
        .count() as u64;
    if names_truncated > 0 {
        meta.warnings.push(format!(
            "{names_truncated} names longer than {} bytes were cut to that length",
            crate::read::records::MAX_NAME_BYTES
        ));
    }
    if malformed_packets > 0 {
        meta.warnings.push(format!("{malformed_packets} malformed packets or events were skipped: {}", errors.join("; ")));
    }

    // ---- 2. long-tail packets, in file order per sequence ---------------------
    let mut seqs: HashMap<u32, SequenceState> = HashMap::new();
    let mut descriptors: HashMap<u64, slim::TrackDescriptor> = HashMap::new();
    let mut pending_te: Vec<PendingTrackEvent> = Vec::new();
    let mut tracing_started: Option<(i64, u32, u32)> = None;
    let mut trace_clock = BOOTTIME;
    let mut undated_track_events = 0u64;
    // Every dated packet counts toward the trace's bounds, as in trace_processor.
    let mut packet_times: Vec<(i64, u32, u32)> = Vec::new();
    for b in &batches {
        for p in &b.tail {
            let st = seqs.entry(p.seq).or_default();
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
            if let Some(t) = ts {
                packet_times.push((t, clock, p.seq));
            }
            match &p.body {
                TailBody::ClockSnapshot(cs) => {
                    add_source("clock_snapshot", &mut sources);
                    let list: Vec<(u32, i64, i64)> = cs
                        .clocks
                        .iter()
                        .filter_map(|c| Some((c.clock_id?, c.timestamp? as i64, c.unit_multiplier_ns.unwrap_or(1) as i64)))
                        .collect();
                    for c in &cs.clocks {
                        if let (Some(cid), Some(t)) = (c.clock_id, c.timestamp) {
                            if c.is_incremental.unwrap_or(false) {
                                if !st.incremental_clocks.contains(&cid) {
                                    st.incremental_clocks.push(cid);
                                }
                                st.clock_values.insert(cid, t as i64);
                            }
                            if !meta.clocks.contains(&cid) {
                                meta.clocks.push(cid);
                            }
                        }
                    }
                    clocks.add_snapshot(p.seq, &list);
                    if let Some(primary) = cs.primary_trace_clock {
                        trace_clock = primary;
                    }
                }
                TailBody::ProcessTree(pt) => {
                    add_source("process_tree", &mut sources);
                    let pts = ts.unwrap_or(0);
                    for pr in &pt.processes {
                        let Some(pid) = pr.pid else { continue };
                        let upid = id.process(pid);
                        id.processes[upid as usize].parent_pid = pr.ppid;
                        id.processes[upid as usize].uid = pr.uid;
                        if pr.cmdline_is_comm.unwrap_or(false) {
                            if let Some(c) = pr.cmdline.first() {
                                id.processes[upid as usize].name = Some(Name::from(c.as_str()));
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
                            id.name_thread(utid, Name::from(n), NamePriority::ProcessTree, pts);
                        }
                    }
                }
                TailBody::ProcessStats(ps) => {
                    add_source("process_stats", &mut sources);
                    for pr in &ps.processes {
                        if let Some(pid) = pr.pid {
                            id.process(pid);
                            for th in &pr.threads {
                                if let Some(tid) = th.tid {
                                    id.thread_in(tid, pid);
                                }
                            }
                        }
                    }
                }
                TailBody::SystemInfo(si) => {
                    add_source("system_info", &mut sources);
                    meta.android.build_fingerprint = si.android_build_fingerprint.clone();
                    meta.android.sdk_version = si.android_sdk_version;
                    meta.android.device = si.android_device_manufacturer.clone().or(si.android_soc_model.clone());
                }
                TailBody::TraceStats(ts) => {
                    let dl = &mut meta.data_loss;
                    // Only the per-buffer count (FillPolicy DISCARD) is lost data; the
                    // top-level chunks_discarded counts commits the service refused
                    // (e.g. a wrong buffer id) and is informational in trace_processor.
                    dl.chunks_discarded = ts.buffer_stats.iter().map(|b| b.chunks_discarded.unwrap_or(0)).sum();
                    dl.patches_discarded = ts.patches_discarded.unwrap_or(0);
                    dl.trace_buffer_overruns = ts.buffer_stats.iter().map(|b| b.chunks_overwritten.unwrap_or(0)).sum();
                }
                TailBody::FtraceStats(fs) => {
                    // phase 2 = END_OF_TRACE: the totals for the whole trace.
                    if fs.phase == Some(2) || meta.data_loss.ftrace_overrun == 0 {
                        meta.data_loss.ftrace_overrun = fs.cpu_stats.iter().map(|c| c.overrun.unwrap_or(0)).sum();
                    }
                    if let Some(err) = fs.atrace_errors.as_deref().filter(|e| !e.is_empty()) {
                        meta.warnings.push(format!("atrace reported errors while tracing: {err}"));
                    }
                }
                TailBody::ServiceEvent(se) => {
                    if se.tracing_started.unwrap_or(false) {
                        if let Some(t) = ts {
                            tracing_started = Some((t, clock, p.seq));
                        }
                    }
                }
                TailBody::TrackDescriptor(td) => {
                    if let Some(uuid) = td.uuid {
                        if let Some(pd) = &td.process {
                            if let Some(pid) = pd.pid {
                                let upid = id.process(pid);
                                if let Some(n) = pd.process_name.as_deref().filter(|n| !n.is_empty()) {
                                    if !id.process_name_from_cmdline[upid as usize] {
                                        id.processes[upid as usize].name = Some(Name::from(n));
                                    }
                                } else if !pd.cmdline.is_empty() {
                                    id.set_cmdline(upid, &pd.cmdline);
                                }
                            }
                        }
                        if let Some(thd) = &td.thread {
                            if let (Some(pid), Some(tid)) = (thd.pid, thd.tid) {
                                let utid = id.thread_in(tid, pid);
                                if let Some(n) = thd.thread_name.as_deref().filter(|n| !n.is_empty()) {
                                    id.name_thread(utid, Name::from(n), NamePriority::TrackDescriptor, ts.unwrap_or(0));
                                }
                            }
                        }
                        descriptors.insert(uuid, td.clone());
                    }
                }
                TailBody::TrackEvent(te) => {
                    add_source("track_event", &mut sources);
                    let Some(ts) = ts else {
                        undated_track_events += 1;
                        continue;
                    };
                    let name = te
                        .name
                        .as_deref()
                        .map(Name::from)
                        .or_else(|| te.name_iid.and_then(|iid| st.names.get(&iid).cloned()));
                    let category = if !te.categories.is_empty() {
                        Some(Name::from(te.categories.join(",").as_str()))
                    } else {
                        let cats: Vec<&str> =
                            te.category_iids.iter().filter_map(|i| st.categories.get(i).map(|n| &**n)).collect();
                        (!cats.is_empty()).then(|| Name::from(cats.join(",").as_str()))
                    };
                    let value = te.double_counter_value.unwrap_or(te.counter_value.unwrap_or(0) as f64);
                    pending_te.push(PendingTrackEvent {
                        ts,
                        clock,
                        seq: p.seq,
                        order: p.order,
                        track_uuid: te.track_uuid.or(st.default_track),
                        kind: te.r#type.unwrap_or(0),
                        name,
                        category,
                        value,
                    });
                }
                TailBody::None => {}
            }
        }
    }
    clocks.finish();
    if undated_track_events > 0 {
        meta.warnings.push(format!("{undated_track_events} track events had no timestamp and were skipped"));
    }
    if trace_clock != BOOTTIME {
        meta.warnings.push(format!(
            "the trace's primary clock is {trace_clock}, not BOOTTIME; fpsan reports BOOTTIME times"
        ));
    }
    meta.trace_clock = BOOTTIME;
    meta.clocks.sort_unstable();

    let seq_clock = |seqs: &HashMap<u32, SequenceState>, c: ClockRef| {
        c.explicit.or_else(|| seqs.get(&c.seq).and_then(|s| s.default_clock)).unwrap_or(BOOTTIME)
    };
    let mut unconvertible = 0u64;
    let mut convert = |clock: u32, seq: u32, ts: i64| -> Option<i64> {
        let r = clocks.to_boottime(clock, seq, ts);
        if r.is_none() {
            unconvertible += 1;
        }
        r
    };

    // ---- 3. the valid start of ftrace data ------------------------------------
    let mut first_bundle: HashMap<u32, (u64, Option<i64>)> = HashMap::new();
    for b in &batches {
        for bi in &b.bundles {
            let e = first_bundle.entry(bi.cpu).or_insert((bi.order, bi.previous_bundle_end));
            if bi.order < e.0 {
                *e = (bi.order, bi.previous_bundle_end);
            }
        }
    }
    let crop = first_bundle.values().filter_map(|v| v.1).max();
    for (t, c, s) in packet_times {
        if let Some(ts) = convert(c, s, t) {
            meta.first_ts = Some(meta.first_ts.map_or(ts, |m| m.min(ts)));
            meta.last_ts = Some(meta.last_ts.map_or(ts, |m| m.max(ts)));
        }
    }
    let started = tracing_started.and_then(|(t, c, s)| convert(c, s, t as i64));
    meta.tracing_started_ts = started;
    let valid_from = match (crop, started) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };

    // ---- 4. atrace → identity and ops ----------------------------------------
    let mut ops: Vec<Op> = Vec::new();
    let mut counter_ops: Vec<Op> = Vec::new();
    let mut dropped = 0u64;
    for b in &batches {
        for r in &b.atrace {
            if valid_from.is_some_and(|v| r.ts < v) {
                dropped += 1;
                continue;
            }
            meta.atrace_events += 1;
            let thread_track = |id: &mut Identity, tracks: &mut Tracks, tgid: u32| {
                let utid = if tgid == 0 { id.thread(r.tid) } else { id.thread_in(r.tid, tgid as i32) };
                tracks.thread(utid)
            };
            let kind = match &r.op {
                AtraceOp::Begin { tgid, name } => {
                    OpKind::Begin { track: thread_track(&mut id, &mut tracks, *tgid), name: name.clone(), category: None }
                }
                AtraceOp::End { tgid } => {
                    // With no tgid, only a thread seen before can have a slice open.
                    if *tgid == 0 && !id.tid_map.contains_key(&r.tid) {
                        meta.data_loss.unmatched_ends += 1;
                        continue;
                    }
                    OpKind::End { track: thread_track(&mut id, &mut tracks, *tgid) }
                }
                AtraceOp::Instant { tgid, name } => {
                    OpKind::Instant { track: thread_track(&mut id, &mut tracks, *tgid), name: name.clone(), category: None }
                }
                AtraceOp::Counter { tgid, name, value } => {
                    let upid = id.process(*tgid as i32);
                    let track = tracks.get(TrackKind::ProcessCounter { upid }, Some(name.clone()));
                    counter_ops.push(Op { ts: r.ts, order: r.order, kind: OpKind::Counter { track, value: *value } });
                    continue;
                }
                AtraceOp::AsyncBegin { tgid, name, cookie } | AtraceOp::TrackBegin { tgid, track: name, cookie, .. } => {
                    let upid = id.process(*tgid as i32);
                    let slice_name = match &r.op {
                        AtraceOp::TrackBegin { name, .. } => name.clone(),
                        _ => name.clone(),
                    };
                    let track = tracks.get(TrackKind::ProcessAsync { upid }, Some(name.clone()));
                    OpKind::AsyncBegin { track, key: (upid, name.clone(), *cookie), name: slice_name }
                }
                AtraceOp::AsyncEnd { tgid, name, cookie } | AtraceOp::TrackEnd { tgid, track: name, cookie } => {
                    let upid = id.process(*tgid as i32);
                    OpKind::AsyncEnd { key: (upid, name.clone(), *cookie) }
                }
                AtraceOp::TrackInstant { tgid, track, name } => {
                    let upid = id.process(*tgid as i32);
                    id.thread(r.tid);
                    let track = tracks.get(TrackKind::ProcessAsync { upid }, Some(track.clone()));
                    OpKind::Instant { track, name: name.clone(), category: None }
                }
            };
            ops.push(Op { ts: r.ts, order: r.order, kind });
        }
    }
    meta.data_loss.events_before_start = dropped;

    // ---- 5. track events → ops ------------------------------------------------
    let mut te_without_track = 0u64;
    for te in pending_te {
        let Some(ts) = convert(te.clock, te.seq, te.ts) else { continue };
        meta.first_ts = Some(meta.first_ts.map_or(ts, |m| m.min(ts)));
        meta.last_ts = Some(meta.last_ts.map_or(ts, |m| m.max(ts)));
        let desc = te.track_uuid.and_then(|u| descriptors.get(&u));
        let Some(desc) = desc else {
            te_without_track += 1;
            continue;
        };
        let desc_name = desc.name.clone().or(desc.static_name.clone()).or(desc.atrace_name.clone()).map(|n| Name::from(n.as_str()));
        let owner_thread = desc.thread.as_ref().and_then(|t| Some((t.pid?, t.tid?)));
        let owner_pid = desc.process.as_ref().and_then(|p| p.pid).or_else(|| {
            desc.parent_uuid.and_then(|pu| descriptors.get(&pu)).and_then(|p| p.process.as_ref()).and_then(|p| p.pid)
        });
        let track = if desc.counter.is_some() || te.kind == 4 {
            match (owner_thread, owner_pid) {
                (Some((pid, tid)), _) => {
                    let utid = id.thread_in(tid, pid);
                    tracks.get(TrackKind::ThreadCounter { utid }, desc_name)
                }
                (None, Some(pid)) => {
                    let upid = id.process(pid);
                    tracks.get(TrackKind::ProcessCounter { upid }, desc_name)
                }
                _ => tracks.get(TrackKind::GlobalCounter, desc_name),
            }
        } else {
            match (owner_thread, owner_pid) {
                (Some((pid, tid)), _) => {
                    let utid = id.thread_in(tid, pid);
                    match te.track_uuid {
                        Some(uuid) if desc.disallow_merging_with_system_tracks == Some(true) => {
                            tracks.unmerged(uuid, TrackKind::Thread { utid }, desc_name)
                        }
                        _ => tracks.thread(utid),
                    }
                }
                (None, Some(pid)) => {
                    let upid = id.process(pid);
                    tracks.get(TrackKind::ProcessAsync { upid }, desc_name)
                }
                _ => tracks.get(TrackKind::Global, desc_name),
            }
        };
        let name = te.name.unwrap_or_else(|| Name::from(""));
        let kind = match te.kind {
            1 => OpKind::Begin { track, name, category: te.category },
            2 => OpKind::End { track },
            3 => OpKind::Instant { track, name, category: te.category },
            4 => {
                counter_ops.push(Op { ts, order: te.order, kind: OpKind::Counter { track, value: te.value } });
                continue;
            }
            _ => continue,
        };
        ops.push(Op { ts, order: te.order, kind });
    }
    if te_without_track > 0 {
        meta.warnings.push(format!("{te_without_track} track events named no known track and were skipped"));
    }

    // ---- 6. slices: sort by (ts, file order), run the stacks ------------------
    ops.sort_unstable_by_key(|o| (o.ts, o.order));
    let mut slices: Vec<Slice> = Vec::with_capacity(ops.len() / 2);
    let mut stacks: FxHashMap<TrackId, Vec<SliceId>> = FxHashMap::default();
    let mut open_async: HashMap<(Upid, Name, i64), SliceId> = HashMap::new();
    let mut too_deep = 0u64;
    for op in ops {
        let is_begin = matches!(op.kind, OpKind::Begin { .. });
        match op.kind {
            // A begin stays open on its track's stack; an instant (dur 0) does not.
            OpKind::Begin { track, name, category } | OpKind::Instant { track, name, category } => {
                let stack = stacks.entry(track).or_default();
                // trace_processor drops a slice that would nest deeper than its
                // kMaxDepth (stat slice_max_depth_exceeded); a hostile trace of
                // unmatched B lines is then bounded per thread.
                if stack.len() >= MAX_SLICE_DEPTH {
                    too_deep += 1;
                    continue;
                }
                let id = slices.len() as SliceId;
                slices.push(Slice {
                    id,
                    ts: op.ts,
                    dur: if is_begin { -1 } else { 0 },
                    name,
                    category,
                    track,
                    depth: stack.len() as u32,
                    parent: stack.last().copied(),
                });
                if is_begin {
                    stack.push(id);
                }
            }
            OpKind::End { track } => match stacks.get_mut(&track).and_then(|s| s.pop()) {
                Some(sid) => {
                    let s = &mut slices[sid as usize];
                    // Ops are sorted, so this is ≥ 0; timestamps are input data
                    // and may sit at the i64 limits, hence saturating.
                    s.dur = op.ts.saturating_sub(s.ts);
                }
                None => meta.data_loss.unmatched_ends += 1,
            },
            OpKind::AsyncBegin { track, key, name } => {
                // Android's legacy async slices do not nest: a second S for the
                // same cookie while one is open is ignored (trace_processor's
                // BeginLegacyUnnestable).
                if open_async.contains_key(&key) {
                    continue;
                }
                let id = slices.len() as SliceId;
                slices.push(Slice { id, ts: op.ts, dur: -1, name, category: None, track, depth: 0, parent: None });
                open_async.insert(key, id);
            }
            OpKind::AsyncEnd { key } => match open_async.remove(&key) {
                Some(sid) => {
                    let s = &mut slices[sid as usize];
                    s.dur = op.ts.saturating_sub(s.ts);
                }
                None => meta.data_loss.unmatched_ends += 1,
            },
            OpKind::Counter { .. } => {}
        }
    }

    if too_deep > 0 {
        meta.warnings.push(format!(
            "{too_deep} slices nested deeper than {MAX_SLICE_DEPTH} levels on one thread or track were dropped (unmatched B events?)"
        ));
    }

    // ---- 7. counters ----------------------------------------------------------
    counter_ops.sort_unstable_by_key(|o| (o.ts, o.order));
    let counters = counter_ops
        .into_iter()
        .filter_map(|o| match o.kind {
            OpKind::Counter { track, value } => Some(CounterSample { ts: o.ts, value, track }),
            _ => None,
        })
        .collect();

    // ---- 8. thread names from the kernel ---------------------------------------
    let mut comms: FxHashMap<i32, (i64, Name)> = FxHashMap::default();
    for b in &batches {
        for (&tid, c) in &b.comms {
            let e = comms.entry(tid).or_insert((c.ts, c.name.clone()));
            if c.ts >= e.0 {
                *e = (c.ts, c.name.clone());
            }
        }
    }
    for (tid, (ts, name)) in comms {
        // Only threads the analysis can see (slices, process tree) are kept;
        // the kernel's full thread list would dwarf the model on a busy phone.
        if let Some(&utid) = id.tid_map.get(&tid) {
            id.name_thread(utid, name, NamePriority::Ftrace, ts);
        }
    }
    let mut renames: Vec<&(i64, u64, i32, Name)> = batches.iter().flat_map(|b| &b.renames).collect();
    renames.sort_unstable_by_key(|r| (r.0, r.1));
    for (ts, _, tid, name) in renames {
        if let Some(&utid) = id.tid_map.get(tid) {
            id.name_thread(utid, name.clone(), NamePriority::Ftrace, ts.saturating_add(1));
        }
    }

    // ---- 9. FrameTimeline ----------------------------------------------------------
    let frame_timeline = build_timeline(&batches, &mut id, &mut meta, |c, ts| {
        let clock = seq_clock(&seqs, c);
        convert(clock, c.seq, ts)
    });
    if unconvertible > 0 {
        meta.warnings.push(format!(
            "{unconvertible} timestamps were in a clock no clock snapshot relates to BOOTTIME and were skipped"
        ));
    }
    for s in &frame_timeline {
        let end = if s.dur >= 0 { s.ts + s.dur } else { s.ts };
        meta.first_ts = Some(meta.first_ts.map_or(s.ts, |m| m.min(s.ts)));
        meta.last_ts = Some(meta.last_ts.map_or(end, |m| m.max(end)));
    }

    id.finish();
    meta.data_sources = sources.iter().map(|s| s.to_string()).collect();
    if meta.data_loss.packets_dropped_sequences > 0 {
        meta.warnings.push(format!(
            "{} times a writer reported that packets before it were lost (previous_packet_dropped)",
            meta.data_loss.packets_dropped_sequences
        ));
    }
    if meta.data_loss.chunks_discarded > 0 || meta.data_loss.trace_buffer_overruns > 0 {
        meta.warnings.push(format!(
            "the trace buffer lost data: {} chunks discarded, {} chunks overwritten",
            meta.data_loss.chunks_discarded, meta.data_loss.trace_buffer_overruns
        ));
    }
    if meta.data_loss.ftrace_lost_event_bundles > 0 || meta.data_loss.ftrace_overrun > 0 {
        meta.warnings.push(format!(
            "the kernel ftrace buffer overran: {} bundles flagged lost events, {} events overwritten; slices may be missing",
            meta.data_loss.ftrace_lost_event_bundles, meta.data_loss.ftrace_overrun
        ));
    }
    Trace {
        meta,
        processes: id.processes,
        threads: id.threads,
        tracks: tracks.tracks,
        slices,
        counters,
        frame_timeline,
        sched: Vec::new(),
    }
}

/// FrameTimelineEvent.JankType bits (frame_timeline_event.proto; 2048 and up
/// arrived with Android 16/17).
pub mod jank_bits {
    pub const UNSPECIFIED: i32 = 0;
    pub const NONE: i32 = 1;
    pub const SF_SCHEDULING: i32 = 2;
    pub const PREDICTION_ERROR: i32 = 4;
    pub const DISPLAY_HAL: i32 = 8;
    pub const SF_CPU_DEADLINE_MISSED: i32 = 16;
    pub const SF_GPU_DEADLINE_MISSED: i32 = 32;
    pub const APP_DEADLINE_MISSED: i32 = 64;
    pub const BUFFER_STUFFING: i32 = 128;
    pub const UNKNOWN: i32 = 256;
    pub const SF_STUFFING: i32 = 512;
    pub const DROPPED: i32 = 1024;
    pub const NON_ANIMATING: i32 = 2048;
    pub const APP_RESYNCED_JITTER: i32 = 4096;
    pub const DISPLAY_NOT_ON: i32 = 8192;
    pub const DISPLAY_MODE_CHANGE_IN_PROGRESS: i32 = 16384;
    pub const DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS: i32 = 32768;
}

/// trace_processor's strings for the JankType bitmask, in its order (which
/// is not bit order: "App Resynced Jitter" follows "App Deadline Missed").
pub fn jank_type_string(jank: i32) -> String {
    use jank_bits::*;
    match jank {
        UNSPECIFIED => return "Unspecified".into(),
        NONE => return "None".into(),
        _ => {}
    }
    const REASONS: &[(i32, &str)] = &[
        (SF_SCHEDULING, "SurfaceFlinger Scheduling"),
        (PREDICTION_ERROR, "Prediction Error"),
        (DISPLAY_HAL, "Display HAL"),
        (SF_CPU_DEADLINE_MISSED, "SurfaceFlinger CPU Deadline Missed"),
        (SF_GPU_DEADLINE_MISSED, "SurfaceFlinger GPU Deadline Missed"),
        (APP_DEADLINE_MISSED, "App Deadline Missed"),
        (APP_RESYNCED_JITTER, "App Resynced Jitter"),
        (BUFFER_STUFFING, "Buffer Stuffing"),
        (UNKNOWN, "Unknown Jank"),
        (SF_STUFFING, "SurfaceFlinger Stuffing"),
        (DROPPED, "Dropped Frame"),
        (NON_ANIMATING, "Non Animating"),
        (DISPLAY_NOT_ON, "Display not ON"),
        (DISPLAY_MODE_CHANGE_IN_PROGRESS, "ModeChange in progress"),
        (DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS, "PowerModeChange in progress"),
    ];
    REASONS.iter().filter(|(b, _)| jank & b != 0).map(|(_, s)| *s).collect::<Vec<_>>().join(", ")
}

/// SurfaceFlinger-side causes: "Self Jank" on a display frame, "Other Jank"
/// on the app's surface frame (trace_processor's DisplayFrameJanky).
fn display_frame_janky(jank: i32) -> bool {
    use jank_bits::*;
    jank != UNSPECIFIED
        && jank != NONE
        && jank & (SF_SCHEDULING | PREDICTION_ERROR | DISPLAY_HAL | SF_CPU_DEADLINE_MISSED | SF_GPU_DEADLINE_MISSED) != 0
}

/// App-side causes (trace_processor's SurfaceFrameJanky).
fn surface_frame_janky(jank: i32) -> bool {
    use jank_bits::*;
    jank != UNSPECIFIED && jank != NONE && jank & (APP_DEADLINE_MISSED | APP_RESYNCED_JITTER | UNKNOWN) != 0
}

/// Only display-state / non-animating bits: SurfaceFlinger reports them, but
/// the user could not have seen a jank.
fn non_perceivable(jank: i32) -> bool {
    use jank_bits::*;
    const MASK: i32 =
        NON_ANIMATING | DISPLAY_NOT_ON | DISPLAY_MODE_CHANGE_IN_PROGRESS | DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS;
    jank & MASK != 0 && jank & !MASK == 0
}

/// trace_processor's `jank_tag` of an actual frame (CalculateDisplayFrameJankTag /
/// CalculateSurfaceFrameJankTag in frame_timeline_event_parser.cc). The
/// display-state bits of Android 16+ are "Non-perceivable Jank", as in
/// Perfetto's display_power_mode_change diff test.
pub fn jank_tag(kind: TimelineKind, jank: i32, present_type: Option<i32>) -> &'static str {
    use jank_bits::*;
    if jank == UNSPECIFIED {
        return "Unspecified";
    }
    if kind.is_surface() {
        if surface_frame_janky(jank) {
            "Self Jank"
        } else if display_frame_janky(jank) {
            "Other Jank"
        } else if jank == BUFFER_STUFFING {
            "Buffer Stuffing"
        } else if present_type == Some(4) {
            // PRESENT_DROPPED
            "Dropped Frame"
        } else if non_perceivable(jank) {
            "Non-perceivable Jank"
        } else {
            "No Jank"
        }
    } else if display_frame_janky(jank) {
        "Self Jank"
    } else if jank == SF_STUFFING {
        "SurfaceFlinger Stuffing"
    } else if jank == DROPPED {
        "Dropped Frame"
    } else if non_perceivable(jank) {
        "Non-perceivable Jank"
    } else {
        "No Jank"
    }
}

fn present_type_string(v: Option<i32>) -> &'static str {
    match v {
        Some(1) => "On-time Present",
        Some(2) => "Late Present",
        Some(3) => "Early Present",
        Some(4) => "Dropped Frame",
        Some(5) => "Unknown Present",
        _ => "Unspecified Present",
    }
}

fn prediction_type_string(v: Option<i32>) -> &'static str {
    match v {
        Some(1) => "Valid Prediction",
        Some(2) => "Expired Prediction",
        Some(3) => "Unknown Prediction",
        _ => "Unspecified Prediction",
    }
}

fn severity_string(v: Option<i32>, jank: i32) -> &'static str {
    match v {
        Some(1) => "None",
        Some(2) => "Partial",
        Some(3) => "Full",
        Some(_) => "Unknown",
        // Older traces have no severity: JANK_NONE means "None".
        None if jank == 1 => "None",
        None => "Unknown",
    }
}

fn build_timeline(
    batches: &[Batch],
    id: &mut Identity,
    meta: &mut TraceMeta,
    mut convert: impl FnMut(ClockRef, i64) -> Option<i64>,
) -> Vec<TimelineSlice> {
    // trace_processor ignores timestamps within 10 s of the i64 limits (b/185978397).
    const BAD_TS: i64 = i64::MAX - 10_000_000_000;
    let mut recs: Vec<(i64, u64, &TimelineEvent)> = Vec::new();
    for b in batches {
        for r in &b.timeline {
            meta.frame_timeline_events += 1;
            if r.ts.checked_abs().is_none_or(|a| a >= BAD_TS) {
                continue;
            }
            // Negative trace times are platform bugs trace_processor drops.
            if let Some(ts) = convert(r.clock, r.ts).filter(|&ts| ts >= 0) {
                recs.push((ts, r.order, &r.event));
            }
        }
    }
    recs.sort_unstable_by_key(|r| (r.0, r.1));
    let mut out: Vec<TimelineSlice> = Vec::new();
    let mut open: HashMap<i64, usize> = HashMap::new();
    let mut expected_surface_seen: std::collections::HashSet<(Upid, i64)> = std::collections::HashSet::new();
    let mut invalid = 0u64;
    for (ts, _, ev) in recs {
        match ev {
            TimelineEvent::Start {
                kind,
                cookie,
                token,
                display_frame_token,
                pid,
                layer_name,
                present_type,
                on_time_finish,
                gpu_composition,
                jank_type,
                prediction_type,
                jank_severity_type,
            } => {
                let (Some(token), Some(pid)) = (*token, *pid) else {
                    invalid += 1;
                    continue;
                };
                if kind.is_surface() && display_frame_token.is_none() {
                    invalid += 1;
                    continue;
                }
                let upid = id.process(pid);
                // One expected surface frame per (process, token): every layer of
                // the app shares the same expectation (trace_processor keeps the first).
                if *kind == TimelineKind::ExpectedSurface && !expected_surface_seen.insert((upid, token)) {
                    continue;
                }
                let actual = kind.is_actual();
                let n = |s: &str| Some(Name::from(s));
                open.insert(*cookie, out.len());
                out.push(TimelineSlice {
                    kind: *kind,
                    ts,
                    dur: -1,
                    token,
                    // Display frames are their own display frame (trace_processor's column).
                    display_frame_token: if kind.is_surface() { *display_frame_token } else { Some(token) },
                    pid,
                    upid: Some(upid),
                    layer_name: layer_name.clone(),
                    jank_type: actual.then(|| Name::from(jank_type_string(*jank_type).as_str())),
                    present_type: if actual { n(present_type_string(*present_type)) } else { None },
                    on_time_finish: actual.then_some(*on_time_finish),
                    gpu_composition: actual.then_some(*gpu_composition),
                    prediction_type: if actual { n(prediction_type_string(*prediction_type)) } else { None },
                    jank_severity_type: if actual { n(severity_string(*jank_severity_type, *jank_type)) } else { None },
                    jank_tag: if actual { n(jank_tag(*kind, *jank_type, *present_type)) } else { None },
                });
            }
            TimelineEvent::End { cookie } => {
                if let Some(i) = open.remove(cookie) {
                    out[i].dur = ts.saturating_sub(out[i].ts);
                }
            }
        }
    }
    if invalid > 0 {
        meta.warnings.push(format!("{invalid} FrameTimeline events lacked a token or pid and were skipped"));
    }
    out
}
