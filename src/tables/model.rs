//! The model's tables as `fpsan query` offers them: `slice`, `counter`,
//! `thread`, `process` and `frame_timeline` (docs/report.md, "fpsan query").
//! `slice`, `counter`, `thread` and `process` have trace_processor's columns
//! and ids (`perfetto`), then fpsan's own.

use polars::prelude::*;

use super::perfetto::{self, SliceIds, IDLE};
use super::TableBuilder;
use crate::model::{Process, Slice, Thread, Trace, Track, TrackId};

/// A slice with the track, thread and process it is on, looked up once.
struct SliceRow<'t> {
    s: &'t Slice,
    track: Option<&'t Track>,
    thread: Option<&'t Thread>,
    process: Option<&'t Process>,
}

/// trace_processor's columns of `slice`, `counter` and `thread` (the first
/// columns of fpsan's).
pub const SLICE_PERFETTO: &[&str] = &["id", "ts", "dur", "name", "depth", "parent_id", "category", "track_id"];
pub const COUNTER_PERFETTO: &[&str] = &["id", "ts", "track_id", "value"];
pub const THREAD_PERFETTO: &[&str] = &["utid", "tid", "name", "upid"];

/// `slice(id, ts, dur, name, depth, parent_id, category, track_id, tid, pid,
/// thread_name, process_name, track, track_name)`: `track` is `track_id`'s
/// older name.
pub fn slice(trace: &Trace) -> PolarsResult<DataFrame> {
    let ids = SliceIds::of(trace);
    let rows: Vec<SliceRow> = trace
        .slices
        .iter()
        .map(|s| {
            let track = trace.tracks.get(s.track.index());
            SliceRow {
                s,
                track,
                thread: track.and_then(|_| trace.track_thread(s.track)),
                process: track.and_then(|_| trace.track_process(s.track)),
            }
        })
        .collect();
    TableBuilder::new(&rows)
        .col("id", |r| ids.slice(r.s.id))
        .col("ts", |r| r.s.ts)
        .col("dur", |r| r.s.dur)
        .col("name", |r| &*r.s.name)
        .col("depth", |r| r.s.depth as i64)
        .col("parent_id", |r| r.s.parent.and_then(|p| ids.slice(p)))
        .col("category", |r| r.s.category.as_deref())
        .col("track_id", |r| r.s.track.0 as i64)
        .col("tid", |r| r.thread.map(|t| t.tid))
        .col("pid", |r| r.process.map(|p| p.pid))
        .col("thread_name", |r| r.thread.and_then(|t| t.name.as_deref()))
        .col("process_name", |r| r.process.and_then(|p| p.name.as_deref()))
        .col("track", |r| r.s.track.0 as i64)
        .col("track_name", |r| r.track.and_then(|t| t.name.as_deref()))
        .build()
}

/// `counter(id, ts, track_id, value, name, pid, tid, track)`: name is the
/// counter track's name, `track` is `track_id`'s older name.
pub fn counter(trace: &Trace) -> PolarsResult<DataFrame> {
    let track = |track: TrackId| trace.tracks.get(track.index());
    let ids: Vec<i64> = (0..trace.counters.len() as i64).collect();
    TableBuilder::new(&trace.counters)
        .values("id", ids)
        .col("ts", |c| c.ts)
        .col("track_id", |c| c.track.0 as i64)
        .col("value", |c| c.value)
        .col("name", |c| track(c.track).and_then(|t| t.name.as_deref()))
        .col("pid", |c| track(c.track).and_then(|_| trace.track_process(c.track)).map(|p| p.pid))
        .col("tid", |c| track(c.track).and_then(|_| trace.track_thread(c.track)).map(|t| t.tid))
        .col("track", |c| c.track.0 as i64)
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
        .col("utid", |t| t.map_or(IDLE, |t| perfetto::utid(t.utid)))
        .col("tid", |t| t.map_or(0, |t| t.tid))
        .col("name", |t| t.map_or(swapper(trace), |t| t.name.as_deref()))
        .col("upid", |t| t.map_or(Some(IDLE), |t| process(t).map(|p| perfetto::upid(p.upid))))
        .col("pid", |t| t.map_or(Some(0), |t| process(t).map(|p| p.pid)))
        .build()
}

/// `process(upid, pid, name, cmdline, parent_pid, uid)`; upid 0 is the idle process.
pub fn process(trace: &Trace) -> PolarsResult<DataFrame> {
    let rows: Vec<Option<&Process>> = std::iter::once(None).chain(trace.processes.iter().map(Some)).collect();
    TableBuilder::new(&rows)
        .col("upid", |p| p.map_or(IDLE, |p| perfetto::upid(p.upid)))
        .col("pid", |p| p.map_or(0, |p| p.pid))
        .col("name", |p| p.and_then(|p| p.name.as_deref()))
        .col("cmdline", |p| p.and_then(|p| p.cmdline.as_deref()))
        .col("parent_pid", |p| p.and_then(|p| p.parent_pid))
        .col("uid", |p| p.and_then(|p| p.uid))
        .build()
}

/// `frame_timeline(kind, surface, token, display_frame_token, pid, layer_name,
/// ts, dur, jank_type, present_type, on_time_finish, gpu_composition,
/// prediction_type, jank_severity_type, jank_tag, present_delay_ms)`; kind is `expected` or `actual`,
/// surface is false for display frames.
pub fn frame_timeline(trace: &Trace) -> PolarsResult<DataFrame> {
    TableBuilder::new(&trace.frame_timeline)
        .col("kind", |t| if t.kind.is_actual() { "actual" } else { "expected" })
        .col("surface", |t| t.kind.is_surface())
        .col("token", |t| t.token)
        .col("display_frame_token", |t| t.display_frame_token)
        .col("pid", |t| t.pid)
        .col("layer_name", |t| t.layer_name.as_deref())
        .col("ts", |t| t.ts)
        .col("dur", |t| t.dur)
        .col("jank_type", |t| t.jank_type.as_deref())
        .col("present_type", |t| t.present_type.map(|p| p.as_str()))
        .col("on_time_finish", |t| t.on_time_finish)
        .col("gpu_composition", |t| t.gpu_composition)
        .col("prediction_type", |t| t.prediction_type.map(|p| p.as_str()))
        .col("jank_severity_type", |t| t.jank_severity_type.map(|s| s.as_str()))
        .col("jank_tag", |t| t.jank_tag.map(|s| s.as_str()))
        .col("present_delay_ms", |t| t.present_delay_ms)
        .build()
}
