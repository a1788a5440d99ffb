//! The model's tables as `fpsan query` offers them: `slice`, `counter`,
//! `thread`, `process` and `frame_timeline` (docs/report.md, "fpsan query").

use polars::prelude::*;

use super::TableBuilder;
use crate::model::{Process, Slice, Thread, Trace, Track, TrackId};

/// A slice with the track, thread and process it is on, looked up once.
struct SliceRow<'t> {
    s: &'t Slice,
    track: Option<&'t Track>,
    thread: Option<&'t Thread>,
    process: Option<&'t Process>,
}

/// `slice(id, ts, dur, name, depth, parent_id, category, tid, pid,
/// thread_name, process_name, track, track_name)`.
pub fn slice(trace: &Trace) -> PolarsResult<DataFrame> {
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
        .col("id", |r| r.s.id.0 as i64)
        .col("ts", |r| r.s.ts)
        .col("dur", |r| r.s.dur)
        .col("name", |r| &*r.s.name)
        .col("depth", |r| r.s.depth as i64)
        .col("parent_id", |r| r.s.parent.map(|p| p.0 as i64))
        .col("category", |r| r.s.category.as_deref())
        .col("tid", |r| r.thread.map(|t| t.tid))
        .col("pid", |r| r.process.map(|p| p.pid))
        .col("thread_name", |r| r.thread.and_then(|t| t.name.as_deref()))
        .col("process_name", |r| r.process.and_then(|p| p.name.as_deref()))
        .col("track", |r| r.s.track.0 as i64)
        .col("track_name", |r| r.track.and_then(|t| t.name.as_deref()))
        .build()
}

/// `counter(ts, value, name, pid, tid, track)`: name is the counter track's name.
pub fn counter(trace: &Trace) -> PolarsResult<DataFrame> {
    let track = |track: TrackId| trace.tracks.get(track.index());
    TableBuilder::new(&trace.counters)
        .col("ts", |c| c.ts)
        .col("value", |c| c.value)
        .col("name", |c| track(c.track).and_then(|t| t.name.as_deref()))
        .col("pid", |c| track(c.track).and_then(|_| trace.track_process(c.track)).map(|p| p.pid))
        .col("tid", |c| track(c.track).and_then(|_| trace.track_thread(c.track)).map(|t| t.tid))
        .col("track", |c| c.track.0 as i64)
        .build()
}

/// `thread(utid, tid, pid, name)`.
pub fn thread(trace: &Trace) -> PolarsResult<DataFrame> {
    TableBuilder::new(&trace.threads)
        .col("utid", |t| t.utid.0 as i64)
        .col("tid", |t| t.tid)
        .col("pid", |t| t.upid.and_then(|u| trace.processes.get(u.index())).map(|p| p.pid))
        .col("name", |t| t.name.as_deref())
        .build()
}

/// `process(upid, pid, name, cmdline, parent_pid, uid)`.
pub fn process(trace: &Trace) -> PolarsResult<DataFrame> {
    TableBuilder::new(&trace.processes)
        .col("upid", |p| p.upid.0 as i64)
        .col("pid", |p| p.pid)
        .col("name", |p| p.name.as_deref())
        .col("cmdline", |p| p.cmdline.as_deref())
        .col("parent_pid", |p| p.parent_pid)
        .col("uid", |p| p.uid)
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
