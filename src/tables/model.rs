//! The model's tables as `fpsan query` offers them: `slice`, `counter`,
//! `thread`, `process` and `frame_timeline` (docs/report.md, "fpsan query").
//! `slice`, `counter`, `thread` and `process` have trace_processor's columns
//! and ids (`perfetto`), then fpsan's own.

use std::borrow::Cow;

use polars::prelude::*;

use super::perfetto::{self, SliceIds, TimelineTracks, IDLE};
use super::TableBuilder;
use crate::model::{Process, Thread, Trace, TrackId};

/// A row of `slice`: a model slice or a FrameTimeline slice, with the
/// track, thread and process it is on, looked up once.
struct SliceRow<'t> {
    id: Option<i64>,
    ts: i64,
    dur: i64,
    name: Cow<'t, str>,
    depth: i64,
    parent_id: Option<i64>,
    category: Option<&'t str>,
    track_id: Option<i64>,
    track_name: Option<&'t str>,
    thread: Option<&'t Thread>,
    process: Option<&'t Process>,
}

/// trace_processor's columns of `slice`, `counter` and `thread` (the first
/// columns of fpsan's).
pub const SLICE_PERFETTO: &[&str] = &["id", "ts", "dur", "name", "depth", "parent_id", "category", "track_id"];
pub const COUNTER_PERFETTO: &[&str] = &["id", "ts", "track_id", "value"];
pub const THREAD_PERFETTO: &[&str] = &["utid", "tid", "name", "upid"];

/// `slice(id, ts, dur, name, depth, parent_id, category, track_id, tid, pid,
/// thread_name, process_name, track, track_name)`, in id order: the model's
/// slices and, as trace_processor lists them, the FrameTimeline slices (name:
/// the frame's token; depth 0 on their process' `Expected Timeline` or
/// `Actual Timeline` track). `track` is `track_id`'s older name.
pub fn slice(trace: &Trace) -> PolarsResult<DataFrame> {
    let ids = SliceIds::of(trace);
    let model = trace.slices.iter().map(|s| {
        let track = trace.tracks.get(s.track.index());
        SliceRow {
            id: ids.slice(s.id),
            ts: s.ts,
            dur: s.dur,
            name: Cow::Borrowed(&*s.name),
            depth: i64::from(s.depth),
            parent_id: s.parent.and_then(|p| ids.slice(p)),
            category: s.category.as_deref(),
            track_id: Some(i64::from(s.track.0)),
            track_name: track.and_then(|t| t.name.as_deref()),
            thread: track.and_then(|_| trace.track_thread(s.track)),
            process: track.and_then(|_| trace.track_process(s.track)),
        }
    });
    let tracks = TimelineTracks::of(trace);
    let timeline = trace.frame_timeline.iter().enumerate().map(|(i, f)| SliceRow {
        id: ids.timeline(i),
        ts: f.ts,
        dur: f.dur,
        name: Cow::Owned(f.token.to_string()),
        depth: 0,
        parent_id: None,
        category: None,
        track_id: tracks.of_slice(i),
        track_name: tracks.of_slice(i).map(|_| TimelineTracks::name(f.kind.is_actual())),
        thread: None,
        process: f.upid.map(|u| trace.process(u)),
    });
    // Both are in id order: merge them.
    let mut rows: Vec<SliceRow> = Vec::with_capacity(trace.slices.len() + trace.frame_timeline.len());
    let (mut model, mut timeline) = (model.peekable(), timeline.peekable());
    while let Some(next) = match (model.peek(), timeline.peek()) {
        (Some(m), Some(t)) if t.id < m.id => timeline.next(),
        (Some(_), _) => model.next(),
        (None, _) => timeline.next(),
    } {
        rows.push(next);
    }
    TableBuilder::new(&rows)
        .col("id", "the slice's id: slices and FrameTimeline slices numbered together in start order", |r| r.id)
        .col("ts", "start", |r| r.ts)
        .col("dur", "duration; -1 for a slice that had not ended by the end of the trace", |r| r.dur)
        .col("name", "the slice's name (a FrameTimeline slice's: the frame's token as text)", |r| r.name.as_ref())
        .col("depth", "nesting depth on its track (0 for a FrameTimeline slice)", |r| r.depth)
        .col("parent_id", "the enclosing slice's id", |r| r.parent_id)
        .col("category", "the slice's category", |r| r.category)
        .col("track_id", "its track's id (joins the track tables)", |r| r.track_id)
        .col("tid", "fpsan's: its thread's tid", |r| r.thread.map(|t| t.tid))
        .col("pid", "fpsan's: its process' pid", |r| r.process.map(|p| p.pid))
        .col("thread_name", "fpsan's: its thread's name", |r| r.thread.and_then(|t| t.name.as_deref()))
        .col("process_name", "fpsan's: its process' name", |r| r.process.and_then(|p| p.name.as_deref()))
        .col("track", "fpsan's: = `track_id`", |r| r.track_id)
        .col(
            "track_name",
            "fpsan's: its track's name (`Expected Timeline` or `Actual Timeline` for a FrameTimeline slice)",
            |r| r.track_name,
        )
        .build()
}

/// `counter(id, ts, track_id, value, name, pid, tid, track)`: name is the
/// counter track's name, `track` is `track_id`'s older name.
pub fn counter(trace: &Trace) -> PolarsResult<DataFrame> {
    let track = |track: TrackId| trace.tracks.get(track.index());
    let ids: Vec<i64> = (0..trace.counters.len() as i64).collect();
    TableBuilder::new(&trace.counters)
        .values("id", "the counter value's id", ids)
        .col("ts", "time of the value", |c| c.ts)
        .col("track_id", "its counter track's id", |c| c.track.0 as i64)
        .col("value", "the value", |c| c.value)
        .col("name", "fpsan's: the counter track's name", |c| track(c.track).and_then(|t| t.name.as_deref()))
        .col("pid", "fpsan's: the track's process' pid", |c| {
            track(c.track).and_then(|_| trace.track_process(c.track)).map(|p| p.pid)
        })
        .col("tid", "fpsan's: the track's thread's tid", |c| {
            track(c.track).and_then(|_| trace.track_thread(c.track)).map(|t| t.tid)
        })
        .col("track", "fpsan's: = `track_id`", |c| c.track.0 as i64)
        .build()
}

/// The first row of `thread` and `process`: trace_processor's idle process
/// (pid 0) and its swapper thread (tid 0), named `swapper` when the trace has
/// kernel (ftrace) data, as trace_processor names it then.
fn swapper(trace: &Trace) -> Option<&'static str> {
    (trace.meta.ftrace_events > 0).then_some("swapper")
}

/// `thread(utid, tid, name, upid, pid)`; utid 0 is the swapper thread.
pub fn thread(trace: &Trace) -> PolarsResult<DataFrame> {
    let rows: Vec<Option<&Thread>> = std::iter::once(None).chain(trace.threads.iter().map(Some)).collect();
    let process = |t: &Thread| t.upid.and_then(|u| trace.processes.get(u.index()));
    TableBuilder::new(&rows)
        .col(
            "utid",
            "the thread's id: 0 is the idle process' swapper thread (tid 0), every other fpsan's index plus one",
            |t| t.map_or(IDLE, |t| perfetto::utid(t.utid)),
        )
        .col("tid", "the kernel's thread id", |t| t.map_or(0, |t| t.tid))
        .col("name", "the thread's name (`swapper` for utid 0 when the trace has ftrace data)", |t| {
            t.map_or(swapper(trace), |t| t.name.as_deref())
        })
        .col("upid", "its process' upid", |t| t.map_or(Some(IDLE), |t| process(t).map(|p| perfetto::upid(p.upid))))
        .col("pid", "fpsan's: its process' pid", |t| t.map_or(Some(0), |t| process(t).map(|p| p.pid)))
        .build()
}

/// `process(upid, pid, name, cmdline, parent_pid, uid)`; upid 0 is the idle process.
pub fn process(trace: &Trace) -> PolarsResult<DataFrame> {
    let rows: Vec<Option<&Process>> = std::iter::once(None).chain(trace.processes.iter().map(Some)).collect();
    TableBuilder::new(&rows)
        .col("upid", "the process' id: 0 is the idle process (pid 0), every other fpsan's index plus one", |p| {
            p.map_or(IDLE, |p| perfetto::upid(p.upid))
        })
        .col("pid", "the kernel's process id", |p| p.map_or(0, |p| p.pid))
        .col("name", "the process' name", |p| p.and_then(|p| p.name.as_deref()))
        .col("cmdline", "its command line", |p| p.and_then(|p| p.cmdline.as_deref()))
        .col("parent_pid", "fpsan's: its parent's pid", |p| p.and_then(|p| p.parent_pid))
        .col("uid", "its Android user id", |p| p.and_then(|p| p.uid))
        .build()
}

/// `frame_timeline(kind, surface, token, display_frame_token, pid, layer_name,
/// ts, dur, jank_type, present_type, on_time_finish, gpu_composition,
/// prediction_type, jank_severity_type, jank_tag, present_delay_ms)`; kind is `expected` or `actual`,
/// surface is false for display frames.
pub fn frame_timeline(trace: &Trace) -> PolarsResult<DataFrame> {
    TableBuilder::new(&trace.frame_timeline)
        .col("kind", "`expected` or `actual`", |t| if t.kind.is_actual() { "actual" } else { "expected" })
        .col("surface", "false for display frames", |t| t.kind.is_surface())
        .col("token", "the frame's token (vsync id)", |t| t.token)
        .col("display_frame_token", "the display frame a surface frame went into", |t| t.display_frame_token)
        .col("pid", "the frame's process", |t| t.pid)
        .col("layer_name", "its layer", |t| t.layer_name.as_deref())
        .col("ts", "start", |t| t.ts)
        .col("dur", "duration", |t| t.dur)
        .col("jank_type", "FrameTimeline's jank type, as trace_processor writes it", |t| t.jank_type.as_deref())
        .col("present_type", "FrameTimeline's present type", |t| t.present_type.map(|p| p.as_str()))
        .col("on_time_finish", "the app finished on time", |t| t.on_time_finish)
        .col("gpu_composition", "composed by the GPU", |t| t.gpu_composition)
        .col("prediction_type", "FrameTimeline's prediction type", |t| t.prediction_type.map(|p| p.as_str()))
        .col(
            "jank_severity_type",
            "`None`, `Partial`, `Full`; `Unknown` when the field is absent on a janky frame",
            |t| t.jank_severity_type.map(|s| s.as_str()),
        )
        .col("jank_tag", "trace_processor's `jank_tag` (its summary of the jank type)", |t| {
            t.jank_tag.map(|s| s.as_str())
        })
        .col("present_delay_ms", "`present_delay_millis` of newer SurfaceFlinger builds (null when absent)", |t| {
            t.present_delay_ms
        })
        .build()
}
