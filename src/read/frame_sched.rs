//! The frame threads' scheduler events, kept by the first pass. The "why" of
//! every frame needs its thread's Running/Runnable/Sleeping split, which
//! comes from that thread's sched_switch / sched_waking records; reading
//! them in a second pass decodes every ftrace bundle of the trace again
//! (a large share of a busy trace's analysis). So while the first pass decodes a
//! batch it also keeps the records of the threads known, when the batch
//! began, to begin a slice named as the caller says (`analysis` says
//! `Choreographer#doFrame` and `DrawFrame`, the frame threads and their
//! RenderThreads: atrace writers, and the threads of TrackEvent
//! tracks); a thread found later is kept from the batches begun
//! after that. The scheduler pass (`sched::collect`) takes a batch's kept
//! records when they cover every thread it is asked about and reads the
//! batch again otherwise, so what it returns never depends on when, or
//! whether, a thread was found here.

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use super::records::{EarlyWaking, EventName, Kept, SchedRecord, TailBody, TidFilter, TrackEventKind, Waker};
use super::slim;
use super::thread_records::{sort_by_thread_then_time, switch_records, waking_record};

/// At most this many threads are kept, whichever prefix found them; a
/// hostile trace with a doFrame on every thread gets the second pass for
/// the rest.
const MAX_THREADS: usize = 256;
/// At most this many TrackEvent thread tracks are remembered.
const MAX_TRACKS: usize = 1 << 16;

/// What the decoding workers have found so far, shared between them.
#[derive(Debug)]
pub struct Discovery {
    /// A thread that begins a slice whose name starts with one of these is
    /// kept (keeping a few threads too many costs only memory).
    slice_prefixes: &'static [&'static str],
    /// The threads whose records a batch begun now keeps.
    threads: Mutex<Arc<TidFilter>>,
    /// TrackEvent track uuid → the thread its descriptor names.
    thread_tracks: Mutex<FxHashMap<u64, i32>>,
}

impl Discovery {
    /// Keep the threads that begin slices named `slice_prefixes[k]…`.
    pub fn new(slice_prefixes: &'static [&'static str]) -> Arc<Discovery> {
        Arc::new(Discovery { slice_prefixes, threads: Default::default(), thread_tracks: Default::default() })
    }

    /// Whether a slice named `name` makes its thread kept.
    #[inline]
    fn keeps(&self, name: &str) -> bool {
        self.slice_prefixes.iter().any(|p| name.starts_with(p))
    }

    /// Every thread found so far, sorted.
    pub fn found(&self) -> Vec<i32> {
        self.threads.lock().unwrap_or_else(|e| e.into_inner()).tids().to_vec()
    }

    /// The collector of a batch about to be decoded.
    pub fn collector(self: &Arc<Self>) -> Collector {
        let wanted = self.threads.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Collector {
            discovery: self.clone(),
            wanted,
            records: Vec::new(),
            early: Vec::new(),
            found: Vec::new(),
            tracks: Vec::new(),
            track_frames: Vec::new(),
        }
    }
}

/// One batch's share: the scheduler records of the threads known when it
/// began, and what it found for the batches after it.
#[derive(Debug)]
pub struct Collector {
    discovery: Arc<Discovery>,
    wanted: Arc<TidFilter>,
    records: Vec<SchedRecord>,
    /// The compact_sched wakings of `records` before their bundle's first switch.
    early: Vec<EarlyWaking>,
    /// doFrame writers not in `wanted`.
    found: Vec<i32>,
    /// (uuid, tid) of the thread track descriptors seen.
    tracks: Vec<(u64, i32)>,
    /// Track uuids of TrackEvent doFrames.
    track_frames: Vec<u64>,
}

impl Collector {
    /// A sched_switch at `ts` on `cpu`, its (prev_pid, prev_state, next_pid).
    #[inline]
    pub(crate) fn switch(&mut self, ts: i64, cpu: u32, switch: (i32, i64, i32)) {
        switch_records(&self.wanted, ts, cpu, switch, &mut self.records);
    }

    /// A sched_waking / sched_wakeup of `pid` at `ts` by `waker` (the
    /// event's common pid).
    #[inline]
    pub(crate) fn waking(&mut self, ts: i64, pid: i32, waker: Option<i32>) {
        waking_record(&self.wanted, ts, pid, || Waker::of(waker), &mut self.records);
    }

    /// Room for `n` records.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.records.reserve(n);
    }

    /// Where a compact_sched's records (and its wakings before its first
    /// switch) go, unless no thread is kept.
    pub(crate) fn compact_target(&mut self) -> Option<(&TidFilter, &mut Vec<SchedRecord>, &mut Vec<EarlyWaking>)> {
        (!self.wanted.is_empty()).then_some((&*self.wanted, &mut self.records, &mut self.early))
    }

    /// An atrace slice begun by `tid`.
    #[inline]
    pub fn atrace_begin(&mut self, tid: i32, name: &str) {
        // Bounded: a batch of doFrames on a million threads stays linear.
        if self.found.len() < MAX_THREADS
            && self.discovery.keeps(name)
            && !self.wanted.contains(tid)
            && !self.found.contains(&tid)
        {
            self.found.push(tid);
        }
    }

    /// A long-tail packet: a thread track's descriptor, or a TrackEvent
    /// (its name interned in the same packet, as the Perfetto SDK does with
    /// each new name; names interned earlier are not looked up).
    pub fn tail_packet(&mut self, body: &TailBody, interned: Option<&slim::InternedData>) {
        match body {
            TailBody::TrackDescriptor(d) => {
                if let (Some(uuid), Some(tid)) = (d.uuid, d.thread.as_ref().and_then(|t| t.tid)) {
                    self.thread_track(uuid, tid);
                }
            }
            TailBody::TrackEvent(te) if te.kind == TrackEventKind::SliceBegin => {
                let name = match &te.name {
                    EventName::Inline(n) => Some(&**n),
                    EventName::Interned(iid) => interned
                        .and_then(|i| i.event_names.iter().find(|n| n.iid == Some(*iid)))
                        .and_then(|n| n.name.as_deref()),
                    EventName::None => None,
                };
                if let (Some(uuid), Some(name)) = (te.track_uuid, name) {
                    self.track_event_begin(uuid, name);
                }
            }
            _ => {}
        }
    }

    fn thread_track(&mut self, uuid: u64, tid: i32) {
        self.tracks.push((uuid, tid));
    }

    /// A TrackEvent slice begun on track `uuid`.
    fn track_event_begin(&mut self, uuid: u64, name: &str) {
        if self.track_frames.len() < MAX_THREADS && self.discovery.keeps(name) && !self.track_frames.contains(&uuid) {
            self.track_frames.push(uuid);
        }
    }

    /// Hand what this batch found to the batches after it; the kept records.
    pub fn finish(mut self) -> Kept {
        if !self.tracks.is_empty() || !self.track_frames.is_empty() {
            let mut tracks = self.discovery.thread_tracks.lock().unwrap_or_else(|e| e.into_inner());
            for &(uuid, tid) in &self.tracks {
                if tracks.len() < MAX_TRACKS || tracks.contains_key(&uuid) {
                    tracks.insert(uuid, tid);
                }
            }
            for uuid in &self.track_frames {
                match tracks.get(uuid) {
                    Some(&tid) if !self.wanted.contains(tid) && !self.found.contains(&tid) => self.found.push(tid),
                    _ => {}
                }
            }
        }
        if !self.found.is_empty() {
            let mut threads = self.discovery.threads.lock().unwrap_or_else(|e| e.into_inner());
            let room = MAX_THREADS.saturating_sub(threads.tids().len());
            let new: Vec<i32> = self.found.iter().copied().filter(|&t| !threads.contains(t)).take(room).collect();
            if !new.is_empty() {
                *threads = Arc::new(TidFilter::new(threads.tids().iter().copied().chain(new)));
            }
        }
        // Sorted here, while small and in this core's cache, so that the
        // scheduler pass only merges.
        sort_by_thread_then_time(self.wanted.tids(), &mut self.records);
        Kept { threads: self.wanted, records: self.records, early: self.early }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME_SLICES: &[&str] = &["Choreographer#doFrame", "DrawFrame"];

    /// A hostile batch with a doFrame or a DrawFrame on each of 200 000
    /// threads: the search stays linear and at most 256 threads are kept,
    /// whichever prefix found them.
    #[test]
    fn a_frame_slice_on_every_thread_keeps_256_threads() {
        let discovery = Discovery::new(FRAME_SLICES);
        let mut c = discovery.collector();
        for tid in 0..200_000 {
            let name = if tid % 2 == 0 { "DrawFrames 1" } else { "Choreographer#doFrame 1" };
            c.atrace_begin(tid, name);
            c.thread_track(tid as u64, tid);
            c.track_event_begin(tid as u64, name);
        }
        c.finish();
        assert_eq!(discovery.collector().finish().threads.tids(), (0..256).collect::<Vec<_>>());
    }

    #[test]
    fn threads_found_by_a_batch_are_kept_by_the_batches_begun_after_it() {
        let discovery = Discovery::new(FRAME_SLICES);
        let mut first = discovery.collector();
        let concurrent = discovery.collector();
        first.atrace_begin(10, "Choreographer#doFrame 5");
        first.atrace_begin(11, "traversal");
        first.atrace_begin(12, "DrawFrames 5");
        first.atrace_begin(13, "Draw");
        first.thread_track(0xabc, 20);
        first.track_event_begin(0xabc, "Choreographer#doFrame 6");
        first.track_event_begin(0xdef, "Choreographer#doFrame 7");
        assert!(first.finish().threads.is_empty());
        assert!(concurrent.finish().threads.is_empty());
        let mut later = discovery.collector();
        // The descriptor came in an earlier batch.
        later.track_event_begin(0xdef, "Choreographer#doFrame 8");
        assert_eq!(later.finish().threads.tids(), [10, 12, 20]);
        let mut last = discovery.collector();
        last.thread_track(0xdef, 30);
        assert_eq!(last.finish().threads.tids(), [10, 12, 20]);
        assert_eq!(discovery.collector().finish().threads.tids(), [10, 12, 20]);
    }
}
