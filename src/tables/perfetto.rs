//! trace_processor's ids and its track and FrameTimeline tables, so that a
//! PerfettoSQL query runs unchanged in `fpsan query` (docs/report.md,
//! "fpsan query"): `track`, `thread_track`, `process_track`,
//! `counter_track`, `process_counter_track`, `thread_counter_track`,
//! `actual_frame_timeline_slice`, `expected_frame_timeline_slice`.
//!
//! Ids join the way trace_processor's do:
//! - `upid` / `utid` are fpsan's plus one: trace_processor reserves 0 for the
//!   idle process (pid 0) and its swapper thread (tid 0), which the `process`
//!   and `thread` tables show as their first row;
//! - slice ids count the FrameTimeline slices too, as trace_processor keeps
//!   both in one slice table, numbered in start order (at equal starts the
//!   FrameTimeline slice first, as trace_processor numbers the demo trace),
//!   so `slice.id` and the FrameTimeline tables' `id` never collide;
//! - track ids are the model's, then one `Expected Timeline` and one `Actual
//!   Timeline` track per process with FrameTimeline slices, in the order they
//!   first appear. They join `slice.track_id` and `counter.track_id`; their
//!   numbers are not trace_processor's.

use polars::prelude::*;

use super::TableBuilder;
use crate::model::{SliceId, TimelineSlice, Trace, Track, TrackKind, Upid, Utid};

/// trace_processor's `upid` of a process.
pub fn upid(u: Upid) -> i64 {
    i64::from(u.0) + 1
}

/// trace_processor's `utid` of a thread.
pub fn utid(u: Utid) -> i64 {
    i64::from(u.0) + 1
}

/// The id of the idle process and of its swapper thread (`upid` 0, `utid` 0).
pub const IDLE: i64 = 0;

/// trace_processor's slice ids of the model's slices and of its FrameTimeline
/// slices: both start-ordered lists merged, the FrameTimeline slice first at
/// equal starts. Every id is used once whatever the order of the inputs.
pub struct SliceIds {
    slices: Vec<i64>,
    timeline: Vec<i64>,
}

impl SliceIds {
    pub fn of(trace: &Trace) -> SliceIds {
        let (s, f) = (&trace.slices, &trace.frame_timeline);
        let mut slices = Vec::with_capacity(s.len());
        let mut timeline = Vec::with_capacity(f.len());
        let (mut i, mut j) = (0, 0);
        while i < s.len() || j < f.len() {
            let next = (slices.len() + timeline.len()) as i64;
            if j == f.len() || (i < s.len() && s[i].ts < f[j].ts) {
                slices.push(next);
                i += 1;
            } else {
                timeline.push(next);
                j += 1;
            }
        }
        SliceIds { slices, timeline }
    }

    /// The id of a model slice.
    pub fn slice(&self, id: SliceId) -> Option<i64> {
        self.slices.get(id.index()).copied()
    }

    /// The id of `trace.frame_timeline[index]`.
    pub fn timeline(&self, index: usize) -> Option<i64> {
        self.timeline.get(index).copied()
    }
}

/// The track of each FrameTimeline slice: per process, one `Expected
/// Timeline` and one `Actual Timeline` track (trace_processor's names),
/// numbered after the model's tracks. A slice whose process is unknown has none.
pub struct TimelineTracks {
    /// (id, upid, actual), in id order.
    tracks: Vec<(i64, Upid, bool)>,
    /// Per FrameTimeline slice, its track id.
    of_slice: Vec<Option<i64>>,
}

impl TimelineTracks {
    pub const EXPECTED: &'static str = "Expected Timeline";
    pub const ACTUAL: &'static str = "Actual Timeline";

    pub fn of(trace: &Trace) -> TimelineTracks {
        let first = trace.tracks.len() as i64;
        let mut tracks: Vec<(i64, Upid, bool)> = Vec::new();
        let mut index = rustc_hash::FxHashMap::default();
        let of_slice = trace
            .frame_timeline
            .iter()
            .map(|f| {
                let key = (f.upid?, f.kind.is_actual());
                Some(*index.entry(key).or_insert_with(|| {
                    let id = first + tracks.len() as i64;
                    tracks.push((id, key.0, key.1));
                    id
                }))
            })
            .collect();
        TimelineTracks { tracks, of_slice }
    }

    /// The track id of `trace.frame_timeline[index]`.
    pub fn of_slice(&self, index: usize) -> Option<i64> {
        self.of_slice.get(index).copied().flatten()
    }

    pub fn name(actual: bool) -> &'static str {
        if actual {
            Self::ACTUAL
        } else {
            Self::EXPECTED
        }
    }
}

/// What a table row says about one track: the model's or a FrameTimeline one.
struct TrackRow<'t> {
    id: i64,
    name: Option<&'t str>,
    kind: RowKind,
}

#[derive(Clone, Copy)]
enum RowKind {
    ThreadSlices(Utid),
    ProcessSlices(Upid),
    ThreadCounter(Utid),
    ProcessCounter(Upid),
    GlobalSlices,
    GlobalCounter,
}

impl RowKind {
    fn of(kind: &TrackKind) -> RowKind {
        match *kind {
            TrackKind::Thread { utid } => RowKind::ThreadSlices(utid),
            TrackKind::ProcessAsync { upid } => RowKind::ProcessSlices(upid),
            TrackKind::ThreadCounter { utid } => RowKind::ThreadCounter(utid),
            TrackKind::ProcessCounter { upid } => RowKind::ProcessCounter(upid),
            TrackKind::Global => RowKind::GlobalSlices,
            TrackKind::GlobalCounter => RowKind::GlobalCounter,
        }
    }
    fn utid(self) -> Option<i64> {
        match self {
            RowKind::ThreadSlices(u) | RowKind::ThreadCounter(u) => Some(utid(u)),
            _ => None,
        }
    }
    fn upid(self) -> Option<i64> {
        match self {
            RowKind::ProcessSlices(u) | RowKind::ProcessCounter(u) => Some(upid(u)),
            _ => None,
        }
    }
    fn is_counter(self) -> bool {
        matches!(self, RowKind::ThreadCounter(_) | RowKind::ProcessCounter(_) | RowKind::GlobalCounter)
    }
}

/// Every track, the model's then the FrameTimeline ones.
fn track_rows(trace: &Trace) -> Vec<TrackRow<'_>> {
    let model = trace.tracks.iter().map(|t: &Track| TrackRow {
        id: i64::from(t.id.0),
        name: t.name.as_deref(),
        kind: RowKind::of(&t.kind),
    });
    let timeline = TimelineTracks::of(trace).tracks.into_iter().map(|(id, upid, actual)| TrackRow {
        id,
        name: Some(TimelineTracks::name(actual)),
        kind: RowKind::ProcessSlices(upid),
    });
    model.chain(timeline).collect()
}

/// A track's owner column (`utid` or `upid`) from its kind.
type Owner = fn(RowKind) -> Option<i64>;

/// The tracks `keep` selects, as `(id, name)` and the column `extra` names
/// (`utid`, `upid` or none) from the row's kind.
fn tracks(trace: &Trace, keep: impl Fn(RowKind) -> bool, extra: Option<(&str, Owner)>) -> PolarsResult<DataFrame> {
    let rows: Vec<TrackRow> = track_rows(trace).into_iter().filter(|r| keep(r.kind)).collect();
    let b = TableBuilder::new(&rows)
        .col(
            "id",
            "the track's id (fpsan's tracks, then the FrameTimeline tracks in the order they first appear)",
            |r| r.id,
        )
        .col("name", "the track's name", |r| r.name);
    match extra {
        Some((name, f)) => {
            b.col(name, "the owner of the track (its thread's utid or its process' upid)", move |r| f(r.kind))
        }
        None => b,
    }
    .build()
}

/// `track(id, name)`: every track.
pub fn track(trace: &Trace) -> PolarsResult<DataFrame> {
    tracks(trace, |_| true, None)
}

/// `thread_track(id, name, utid)`: the threads' slice tracks.
pub fn thread_track(trace: &Trace) -> PolarsResult<DataFrame> {
    tracks(trace, |k| matches!(k, RowKind::ThreadSlices(_)), Some(("utid", RowKind::utid)))
}

/// `process_track(id, name, upid)`: the processes' slice tracks (async
/// slices, FrameTimeline).
pub fn process_track(trace: &Trace) -> PolarsResult<DataFrame> {
    tracks(trace, |k| matches!(k, RowKind::ProcessSlices(_)), Some(("upid", RowKind::upid)))
}

/// `counter_track(id, name)`: every counter track.
pub fn counter_track(trace: &Trace) -> PolarsResult<DataFrame> {
    tracks(trace, RowKind::is_counter, None)
}

/// `process_counter_track(id, name, upid)`.
pub fn process_counter_track(trace: &Trace) -> PolarsResult<DataFrame> {
    tracks(trace, |k| matches!(k, RowKind::ProcessCounter(_)), Some(("upid", RowKind::upid)))
}

/// `thread_counter_track(id, name, utid)`.
pub fn thread_counter_track(trace: &Trace) -> PolarsResult<DataFrame> {
    tracks(trace, |k| matches!(k, RowKind::ThreadCounter(_)), Some(("utid", RowKind::utid)))
}

/// A FrameTimeline slice with its ids.
struct TimelineRow<'t> {
    f: &'t TimelineSlice,
    id: Option<i64>,
    track_id: Option<i64>,
}

fn timeline_rows(trace: &Trace, actual: bool) -> Vec<TimelineRow<'_>> {
    let ids = SliceIds::of(trace);
    let tracks = TimelineTracks::of(trace);
    trace
        .frame_timeline
        .iter()
        .enumerate()
        .filter(|(_, f)| f.kind.is_actual() == actual)
        .map(|(i, f)| TimelineRow { f, id: ids.timeline(i), track_id: tracks.of_slice(i) })
        .collect()
}

/// The columns both FrameTimeline tables have: trace_processor's `name` is
/// the frame's token (the display frame's or the surface frame's), and a
/// surface frame names the display frame it went into.
fn timeline_columns<'r, 't>(rows: &'r [TimelineRow<'t>]) -> TableBuilder<'r, TimelineRow<'t>> {
    TableBuilder::new(rows)
        .col("id", "its id among the slices (`slice.id`)", |r| r.id)
        .col("ts", "start", |r| r.f.ts)
        .col("dur", "duration", |r| r.f.dur)
        .col("track_id", "its track's id (its process' `Expected Timeline` or `Actual Timeline` track)", |r| r.track_id)
        .col("name", "the frame's token as text", |r| r.f.token.to_string())
        .col("display_frame_token", "the display frame a surface frame went into", |r| r.f.display_frame_token)
        .col("surface_frame_token", "the surface frame's token (NULL for a display frame)", |r| {
            r.f.kind.is_surface().then_some(r.f.token)
        })
        .col("upid", "its process' upid", |r| r.f.upid.map(upid))
        .col("layer_name", "its layer", |r| r.f.layer_name.as_deref())
}

/// `expected_frame_timeline_slice(id, ts, dur, track_id, name,
/// display_frame_token, surface_frame_token, upid, layer_name)`.
pub fn expected_frame_timeline_slice(trace: &Trace) -> PolarsResult<DataFrame> {
    timeline_columns(&timeline_rows(trace, false)).build()
}

/// `actual_frame_timeline_slice`: the expected table's columns, then
/// `present_type, on_time_finish, gpu_composition, jank_type,
/// jank_severity_type, prediction_type, jank_tag` (booleans as 0/1, as
/// trace_processor stores them).
pub fn actual_frame_timeline_slice(trace: &Trace) -> PolarsResult<DataFrame> {
    let as_int = |b: Option<bool>| b.map(i64::from);
    timeline_columns(&timeline_rows(trace, true))
        .col("present_type", "FrameTimeline's present type", |r| r.f.present_type.map(|p| p.as_str()))
        .col("on_time_finish", "the app finished on time (1/0)", move |r| as_int(r.f.on_time_finish))
        .col("gpu_composition", "composed by the GPU (1/0)", move |r| as_int(r.f.gpu_composition))
        .col("jank_type", "its jank type, as trace_processor writes it", |r| r.f.jank_type.as_deref())
        .col("jank_severity_type", "`None`, `Partial`, `Full`; `Unknown` when absent on a janky frame", |r| {
            r.f.jank_severity_type.map(|s| s.as_str())
        })
        .col("prediction_type", "FrameTimeline's prediction type", |r| r.f.prediction_type.map(|p| p.as_str()))
        .col("jank_tag", "trace_processor's `jank_tag` (its summary of the jank type)", |r| {
            r.f.jank_tag.map(|t| t.as_str())
        })
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testutil::TB;

    fn trace() -> Trace {
        TB::new()
            .process(10, "com.a")
            .thread(10, 10, "com.a")
            .process(20, "surfaceflinger")
            .thread(20, 20, "surfaceflinger")
            .slice(10, 100, 50, "Choreographer#doFrame 1")
            .slice(10, 110, 10, "traversal")
            .slice(20, 160, 5, "onMessageInvalidate")
            .expected_surface(10, 1, 95, 16)
            .actual_surface(10, 1, 110, 30, "L", "None", crate::model::PresentType::OnTime)
            .expected_display(20, 2, 110, 16)
            .build()
    }

    #[test]
    fn slice_ids_interleave_the_frame_timeline_in_start_order() {
        let t = trace();
        let ids = SliceIds::of(&t);
        // Starts: FT 95; slice 100; FT 110, 110, slice 110; slice 160 (FrameTimeline first at equal starts).
        let slices: Vec<_> = (0..3).map(|i| ids.slice(SliceId(i)).unwrap()).collect();
        let timeline: Vec<_> = (0..3).map(|i| ids.timeline(i).unwrap()).collect();
        assert_eq!((slices, timeline), (vec![1, 4, 5], vec![0, 2, 3]));
        assert_eq!((ids.slice(SliceId(3)), ids.timeline(3)), (None, None));
    }

    #[test]
    fn timeline_tracks_per_process_and_kind_after_the_models() {
        let t = trace();
        assert_eq!(t.tracks.len(), 2);
        let tt = TimelineTracks::of(&t);
        // FT order: expected (pid 10), actual (pid 10), expected display (pid 20).
        assert_eq!(tt.of_slice, [Some(2), Some(3), Some(4)]);
        let p = process_track(&t).unwrap();
        let names: Vec<_> = p.column("name").unwrap().str().unwrap().iter().flatten().collect();
        assert_eq!(names, ["Expected Timeline", "Actual Timeline", "Expected Timeline"]);
        let upids: Vec<_> = p.column("upid").unwrap().i64().unwrap().iter().flatten().collect();
        assert_eq!(upids, [1, 1, 2]);
        let th = thread_track(&t).unwrap();
        assert_eq!(th.get_column_names().iter().map(|n| n.as_str()).collect::<Vec<_>>(), ["id", "name", "utid"]);
        assert_eq!(th.column("utid").unwrap().i64().unwrap().iter().flatten().collect::<Vec<_>>(), [1, 2]);
        assert_eq!(track(&t).unwrap().height(), 5);
        assert_eq!(counter_track(&t).unwrap().height(), 0);
    }

    #[test]
    fn expected_timeline_rows_and_columns() {
        let e = expected_frame_timeline_slice(&trace()).unwrap();
        assert_eq!(
            e.get_column_names().iter().map(|n| n.as_str()).collect::<Vec<_>>(),
            ["id", "ts", "dur", "track_id", "name", "display_frame_token", "surface_frame_token", "upid", "layer_name"]
        );
        let col = |n: &str| e.column(n).unwrap().i64().unwrap().iter().collect::<Vec<_>>();
        assert_eq!(col("id"), [Some(0), Some(3)]);
        assert_eq!(col("track_id"), [Some(2), Some(4)]);
        assert_eq!(col("surface_frame_token"), [Some(1), None]);
        assert_eq!(col("upid"), [Some(1), Some(2)]);
        let names: Vec<_> = e.column("name").unwrap().str().unwrap().iter().flatten().collect();
        assert_eq!(names, ["1", "2"]);
    }
}
