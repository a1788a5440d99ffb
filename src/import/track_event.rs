//! Track events → slice and counter operations: each event's track resolved
//! through its track descriptor (thread, process or global; counter tracks;
//! descriptors that refuse to merge with the thread's atrace track), its
//! timestamp converted to trace time.

use foldhash::HashMap;

use super::atrace::Ops;
use super::clock::TraceClocks;
use super::counters::CounterOp;
use super::identity::Identity;
use super::slices::{SliceOp, Timed};
use super::tracks::Tracks;
use crate::model::{Name, TraceMeta, TrackId, TrackKind, Warning, WarningCode};
use crate::read::records::{Batch, Categories, EventName, TailBody, TailPacket, TrackEventKind};
use crate::read::slim::TrackDescriptor;

/// A track event as the replay left it (see `packets`), before its
/// timestamp is converted and its track resolved.
struct PendingTrackEvent {
    ts: i64,
    clock: u32,
    seq: u32,
    order: u64,
    track_uuid: Option<u64>,
    kind: TrackEventKind,
    name: Option<Name>,
    category: Option<Name>,
    value: f64,
}

impl PendingTrackEvent {
    /// The track event of a replayed tail packet (its names moved out), if
    /// it is a dated one.
    fn take(p: &mut TailPacket) -> Option<PendingTrackEvent> {
        let TailBody::TrackEvent(te) = &mut p.body else { return None };
        let (Some(ts), Some(clock)) = (p.ts, p.clock) else { return None };
        let name = match std::mem::replace(&mut te.name, EventName::None) {
            EventName::Inline(n) => Some(n),
            _ => None,
        };
        let category = match std::mem::replace(&mut te.categories, Categories::None) {
            Categories::Inline(c) => Some(c),
            _ => None,
        };
        Some(PendingTrackEvent {
            ts: ts as i64,
            clock,
            seq: p.seq,
            order: p.order,
            track_uuid: te.track_uuid,
            kind: te.kind,
            name,
            category,
            value: te.value,
        })
    }
}

pub(crate) struct TrackEventImporter<'a> {
    pub(crate) descriptors: &'a HashMap<u64, TrackDescriptor>,
    /// The unnamed child tracks' names: their first event's (see [`first_event_names`]).
    pub(crate) first_names: HashMap<u64, Option<Name>>,
    pub(crate) clocks: &'a mut TraceClocks,
    pub(crate) id: &'a mut Identity,
    pub(crate) tracks: &'a mut Tracks,
}

impl TrackEventImporter<'_> {
    /// Turn the replayed track events of `batches` (`events` of them,
    /// `counters` of those counters) into operations, freeing the batches'
    /// tail packets; events whose track is unknown are skipped with one
    /// warning.
    pub(crate) fn run(
        &mut self,
        batches: &mut [Batch],
        events: usize,
        counters: usize,
        meta: &mut TraceMeta,
        ops: &mut Ops,
    ) {
        let mut without_track = 0u64;
        self.first_names = first_event_names(batches, self.descriptors);
        // Reserved once, as atrace's operations are: growing by doubling
        // would copy them and leave up to half unused.
        ops.slices.reserve(events.saturating_sub(counters));
        ops.counters.reserve(counters);
        for b in batches.iter_mut() {
            for p in &mut b.tail {
                if let Some(te) = PendingTrackEvent::take(p) {
                    self.event(te, meta, ops, &mut without_track);
                }
            }
            b.tail = Vec::new();
        }
        if without_track > 0 {
            let message = format!("{without_track} track events named no known track and were skipped");
            meta.warnings.push(Warning::new(WarningCode::TrackEventsWithoutTrack, message));
        }
    }

    /// One track event's operation.
    fn event(&mut self, te: PendingTrackEvent, meta: &mut TraceMeta, ops: &mut Ops, without_track: &mut u64) {
        let Some(ts) = self.clocks.boottime_of(te.clock, te.seq, te.ts) else { return };
        meta.see_ts(ts);
        let Some(desc) = te.track_uuid.and_then(|u| self.descriptors.get(&u)) else {
            *without_track += 1;
            return;
        };
        let track = self.track(desc, &te);
        let name = te.name.unwrap_or_else(|| Name::from(""));
        let op = match te.kind {
            TrackEventKind::SliceBegin => SliceOp::Begin { track, name, category: te.category },
            TrackEventKind::SliceEnd => SliceOp::End { track },
            TrackEventKind::Instant => SliceOp::Instant { track, name, category: te.category },
            TrackEventKind::Counter => {
                ops.counters.push(Timed { ts, order: te.order, op: CounterOp { track, value: te.value } });
                return;
            }
            TrackEventKind::Unspecified => return,
        };
        ops.slices.push(Timed { ts, order: te.order, op });
    }

    /// The track an event lands on: its descriptor's thread, else its (or its
    /// parent's) process, else a global track; counters on counter tracks.
    fn track(&mut self, desc: &TrackDescriptor, te: &PendingTrackEvent) -> TrackId {
        let own = desc.name.clone().or(desc.static_name.clone()).or(desc.atrace_name.clone());
        let name = match (own, te.track_uuid) {
            (Some(n), _) => Some(Name::from(n.as_str())),
            (None, Some(uuid)) => self.first_names.get(&uuid).cloned().flatten(),
            (None, None) => None,
        };
        let owner_thread = desc.thread.as_ref().and_then(|t| Some((t.pid?, t.tid?)));
        let owner_pid = desc.process.as_ref().and_then(|p| p.pid).or_else(|| {
            let parent = desc.parent_uuid.and_then(|pu| self.descriptors.get(&pu));
            parent.and_then(|p| p.process.as_ref()).and_then(|p| p.pid)
        });
        let is_counter = desc.counter.is_some() || te.kind == TrackEventKind::Counter;
        match (owner_thread, owner_pid, is_counter) {
            (Some((pid, tid)), _, true) => {
                let utid = self.id.thread_in(tid, pid);
                self.tracks.get(TrackKind::ThreadCounter { utid }, name)
            }
            (None, Some(pid), true) => {
                let upid = self.id.process(pid);
                self.tracks.get(TrackKind::ProcessCounter { upid }, name)
            }
            (None, None, true) => self.tracks.get(TrackKind::GlobalCounter, name),
            (Some((pid, tid)), _, false) => {
                let utid = self.id.thread_in(tid, pid);
                match te.track_uuid {
                    Some(uuid) if desc.disallow_merging_with_system_tracks == Some(true) => {
                        self.tracks.unmerged(uuid, TrackKind::Thread { utid }, name)
                    }
                    _ => self.tracks.thread(utid),
                }
            }
            (None, Some(pid), false) => {
                let upid = self.id.process(pid);
                self.tracks.get(TrackKind::ProcessAsync { upid }, name)
            }
            (None, None, false) => self.tracks.get(TrackKind::Global, name),
        }
    }
}

/// trace_processor names a track that has a parent but no name of its own
/// after the first event on it in time order (an `FT#…` marker track of a
/// CUJ is named `J<NAME>` by its CUJ slice, which Perfetto's CUJ tables
/// rely on); an end event, which has no name, leaves it unnamed.
fn first_event_names(batches: &[Batch], descriptors: &HashMap<u64, TrackDescriptor>) -> HashMap<u64, Option<Name>> {
    let mut first: HashMap<u64, ((i64, u64), Option<Name>)> = HashMap::default();
    for p in batches.iter().flat_map(|b| &b.tail) {
        let TailBody::TrackEvent(te) = &p.body else { continue };
        let (Some(uuid), Some(ts)) = (te.track_uuid, p.ts) else { continue };
        let Some(desc) = descriptors.get(&uuid) else { continue };
        if desc.parent_uuid.is_none() || desc.name.is_some() || desc.static_name.is_some() || desc.atrace_name.is_some()
        {
            continue;
        }
        let key = (ts as i64, p.order);
        let name = match &te.name {
            EventName::Inline(n) => Some(n.clone()),
            _ => None,
        };
        let e = first.entry(uuid).or_insert((key, name.clone()));
        if key < e.0 {
            *e = (key, name);
        }
    }
    first.into_iter().map(|(uuid, (_, name))| (uuid, name)).collect()
}
