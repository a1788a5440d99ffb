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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::counters;
    use crate::import::loss::Explain;
    use crate::import::slices::{self, SortedOps, Unmatched};
    use crate::model::{Upid, Utid};
    use crate::read::records::TrackEventRec;
    use crate::read::slim::{CounterDescriptor, ProcessDescriptor, ThreadDescriptor};
    use TrackEventKind::*;

    /// A track event as `packets` leaves it: its timestamp summed, its
    /// clock resolved (BOOTTIME), its name and category inline.
    fn ev(order: u64, ts: u64, uuid: u64, kind: TrackEventKind, name: Option<&str>) -> TailPacket {
        let name = name.map_or(EventName::None, |n| EventName::Inline(n.into()));
        let categories = if order == 1 { Categories::Inline("gfx".into()) } else { Categories::None };
        let value = order as f64 / 2.0;
        TailPacket {
            order,
            seq: 1,
            ts: Some(ts),
            clock: Some(6),
            incremental_state_cleared: false,
            defaults: None,
            interned: None,
            body: TailBody::TrackEvent(TrackEventRec { kind, track_uuid: Some(uuid), name, categories, value }),
        }
    }

    fn thread(pid: i32, tid: i32) -> Option<ThreadDescriptor> {
        Some(ThreadDescriptor { pid: Some(pid), tid: Some(tid), thread_name: None })
    }
    fn process(pid: i32) -> Option<ProcessDescriptor> {
        Some(ProcessDescriptor { pid: Some(pid), ..Default::default() })
    }

    /// Every kind of track an event can land on, app pid 10, its thread 11.
    fn descriptors() -> HashMap<u64, TrackDescriptor> {
        let d = |uuid, f: &dyn Fn(&mut TrackDescriptor)| {
            let mut d = TrackDescriptor { uuid: Some(uuid), ..Default::default() };
            f(&mut d);
            (uuid, d)
        };
        [
            // The thread's own track: merged with its atrace slices.
            d(1, &|d| d.thread = thread(10, 11)),
            // A thread's track that refuses the merge: a track of its own, named.
            d(2, &|d| {
                d.thread = thread(10, 11);
                d.name = Some("async-ish".into());
                d.disallow_merging_with_system_tracks = Some(true);
            }),
            d(3, &|d| {
                d.process = process(10);
                d.name = Some("Process track".into());
            }),
            d(4, &|d| {
                d.process = process(10);
                d.static_name = Some("mem".into());
                d.counter = Some(CounterDescriptor::default());
            }),
            d(5, &|d| d.name = Some("global".into())),
            // Children of the process track without names of their own: named
            // by their first event in time, an end leaving it unnamed.
            d(6, &|d| d.parent_uuid = Some(3)),
            d(7, &|d| {
                d.atrace_name = Some("gc".into());
                d.counter = Some(CounterDescriptor::default());
            }),
            d(8, &|d| d.parent_uuid = Some(3)),
        ]
        .into_iter()
        .collect()
    }

    #[test]
    fn events_become_slices_and_counters_on_their_descriptors_tracks() {
        let mut unconvertible = ev(15, 50, 1, SliceBegin, Some("realtime"));
        unconvertible.clock = Some(1);
        let tail = vec![
            ev(1, 100, 1, SliceBegin, Some("outer")),
            ev(2, 110, 1, SliceBegin, Some("inner")),
            ev(3, 120, 1, SliceEnd, None),
            ev(4, 130, 1, Instant, Some("tick")),
            ev(5, 150, 1, SliceEnd, None),
            // Nothing open any more: an end the capture's start explains.
            ev(6, 160, 1, SliceEnd, None),
            ev(7, 105, 2, SliceBegin, Some("own")),
            ev(8, 125, 2, SliceEnd, None),
            ev(9, 200, 4, Counter, None),
            ev(10, 190, 4, Counter, None),
            // No descriptor of that uuid: skipped, with a warning.
            ev(11, 300, 99, SliceBegin, Some("lost")),
            ev(12, 400, 6, SliceBegin, Some("doFrame")),
            ev(13, 410, 6, SliceEnd, None),
            ev(14, 500, 5, Instant, Some("g")),
            // In a clock no snapshot relates to BOOTTIME: skipped, counted.
            unconvertible,
            // A type this reader does not know: skipped.
            ev(16, 510, 1, Unspecified, Some("?")),
            ev(17, 600, 7, Counter, None),
            ev(18, 700, 3, SliceBegin, Some("proc-slice")),
            ev(19, 800, 8, SliceEnd, None),
            ev(20, 810, 8, SliceBegin, Some("later")),
            // Later in the file, first in time on track 6: its name names the track.
            ev(21, 380, 6, Instant, Some("J<FOO>")),
        ];
        let mut batches = [Batch { tail, ..Default::default() }];
        let descriptors = descriptors();
        let (mut clocks, mut id, mut tracks) = (TraceClocks::default(), Identity::default(), Tracks::default());
        let (mut meta, mut ops) = (TraceMeta::default(), Ops::default());
        TrackEventImporter {
            descriptors: &descriptors,
            first_names: Default::default(),
            clocks: &mut clocks,
            id: &mut id,
            tracks: &mut tracks,
        }
        .run(&mut batches, 21, 3, &mut meta, &mut ops);
        assert!(batches[0].tail.is_empty());

        let (upid, utid) = (Upid(0), Utid(0));
        let tracks: Vec<_> =
            tracks.finish().into_iter().map(|t| (t.id.0, t.kind, t.name.map(|n| n.to_string()))).collect();
        let named = |s: &str| Some(s.to_string());
        assert_eq!(
            tracks,
            [
                (0, TrackKind::Thread { utid }, None),
                (1, TrackKind::Thread { utid }, named("async-ish")),
                (2, TrackKind::ProcessCounter { upid }, named("mem")),
                (3, TrackKind::ProcessAsync { upid }, named("J<FOO>")),
                (4, TrackKind::Global, named("global")),
                (5, TrackKind::GlobalCounter, named("gc")),
                (6, TrackKind::ProcessAsync { upid }, named("Process track")),
                (7, TrackKind::ProcessAsync { upid }, None),
            ]
        );
        assert_eq!(id.processes.iter().map(|p| p.pid).collect::<Vec<_>>(), [10]);
        assert_eq!(id.threads.iter().map(|t| (t.tid, t.upid)).collect::<Vec<_>>(), [(11, Some(upid))]);

        let counters = counters::build(std::mem::take(&mut ops.counters));
        assert_eq!(
            counters.iter().map(|c| (c.ts, c.value, c.track.0)).collect::<Vec<_>>(),
            [(190, 5.0, 2), (200, 4.5, 2), (600, 8.5, 5)]
        );

        let mut unmatched = Unmatched::default();
        let no_loss = Explain { gaps: &[], first_drop: None };
        let runs = [SortedOps::sort(Vec::new()), SortedOps::sort(std::mem::take(&mut ops.slices))];
        let (slices, too_deep) = slices::build(runs, &no_loss, &mut unmatched);
        assert_eq!(too_deep, 0);
        let rows: Vec<_> = slices
            .iter()
            .map(|s| (s.id.0, s.ts, s.dur, &*s.name, s.category.as_deref(), s.track.0, s.depth, s.parent.map(|p| p.0)))
            .collect();
        assert_eq!(
            rows,
            [
                (0, 100, 50, "outer", Some("gfx"), 0, 0, None),
                (1, 105, 20, "own", None, 1, 0, None),
                (2, 110, 10, "inner", None, 0, 1, Some(0)),
                // An instant: dur 0, inside the slice open on its track.
                (3, 130, 0, "tick", None, 0, 1, Some(0)),
                (4, 380, 0, "J<FOO>", None, 3, 0, None),
                (5, 400, 10, "doFrame", None, 3, 0, None),
                (6, 500, 0, "g", None, 4, 0, None),
                // Never ended: -1.
                (7, 700, -1, "proc-slice", None, 6, 0, None),
                (8, 810, -1, "later", None, 7, 0, None),
            ]
        );
        // The end at 160 on the thread and the end at 800 on track 7.
        assert_eq!((unmatched.cut_at_start, unmatched.lost.len()), (2, 0));

        assert_eq!((meta.first_ts, meta.last_ts), (Some(100), Some(810)));
        assert_eq!(clocks.unconvertible, 1);
        let warnings: Vec<_> = meta.warnings.iter().map(|w| (w.code, w.message.as_str())).collect();
        assert_eq!(
            warnings,
            [(WarningCode::TrackEventsWithoutTrack, "1 track events named no known track and were skipped")]
        );
    }
}
