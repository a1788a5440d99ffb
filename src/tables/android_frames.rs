//! PerfettoSQL module `android.frames.timeline` as trace_processor v58.2's
//! standard library defines it (its `android/frames/timeline.sql` and
//! `timeline_maxsdk28.sql`), over the same ids as fpsan's `slice`, `thread`
//! and `process` tables: `android_frames_choreographer_do_frame`,
//! `android_frames_draw_frame`, `android_frames_layers`, `android_frames`
//! (docs/report.md, "PerfettoSQL modules").
//!
//! The rules, read off the module's SQL:
//! - a frame slice is a slice on a thread's track whose name starts with
//!   `Choreographer#doFrame` / `DrawFrame`; its frame id is the second
//!   space-separated word read as SQLite's `CAST(… AS INT)` reads text, and
//!   0 or -1 drop it;
//! - a frame's layers join a doFrame and a DrawFrame of the same frame id
//!   and process, with every actual and expected FrameTimeline slice of that
//!   token in that process (or none); `ts`/`dur` are the actual slice's, else
//!   the doFrame's start to a DrawFrame's end of that frame id in any process
//!   (the module joins its fallback on the frame id alone); `upid` is the
//!   expected slice's (NULL without one); rows are distinct (the module's
//!   `UNION`);
//! - `android_frames` is the layers grouped by (frame id, upid);
//! - a trace without actual FrameTimeline slices gets the Android ≤ 9 rows:
//!   each `DrawFrame` of a process from its main thread's
//!   `Choreographer#doFrame` to the next one (or the trace's end), numbered
//!   from 1 in doFrame order.

use polars::prelude::*;
use rustc_hash::FxHashMap;

use super::perfetto::{self, SliceIds};
use super::TableBuilder;
use crate::model::{SliceId, Trace, TrackKind, Upid, Utid};
use crate::perfetto_sql::{cast_int, str_split};
use crate::startups::DisplayFrame;

/// The module's name in `INCLUDE PERFETTO MODULE`.
pub const MODULE: &str = "android.frames.timeline";

/// A `Choreographer#doFrame` or `DrawFrame` slice with the frame id its name gives.
struct FrameSlice {
    id: i64,
    slice: SliceId,
    frame_id: i64,
    utid: i64,
    upid: Option<i64>,
    ts: i64,
    dur: i64,
    /// Its thread is its process' main thread (tid = pid).
    main_thread: bool,
}

/// The slices on threads' tracks to which `frame_id` gives a frame id (from
/// the name), in id order.
fn thread_slices(trace: &Trace, ids: &SliceIds, frame_id: impl Fn(&str) -> Option<i64>) -> Vec<FrameSlice> {
    trace
        .slices
        .iter()
        .filter_map(|s| {
            let frame_id = frame_id(&s.name)?;
            let TrackKind::Thread { utid } = trace.tracks.get(s.track.index())?.kind else { return None };
            let thread = trace.thread(utid);
            let process = thread.upid.map(|u| trace.process(u));
            Some(FrameSlice {
                id: ids.slice(s.id)?,
                slice: s.id,
                frame_id,
                utid: perfetto::utid(utid),
                upid: thread.upid.map(perfetto::upid),
                ts: s.ts,
                dur: s.dur,
                main_thread: process.is_some_and(|p| p.pid == thread.tid),
            })
        })
        .collect()
}

/// The thread slices named `prefix…` with a frame id other than 0 and -1
/// (the module's `_get_frame_table_with_id`).
fn frame_slices(trace: &Trace, ids: &SliceIds, prefix: &str) -> Vec<FrameSlice> {
    thread_slices(trace, ids, |name| {
        if !name.starts_with(prefix) {
            return None;
        }
        let frame_id = cast_int(str_split(name, " ", 1)?);
        (frame_id != 0 && frame_id != -1).then_some(frame_id)
    })
}

/// `android_frames_choreographer_do_frame(id, frame_id, ui_thread_utid, upid, ts)`.
pub fn choreographer_do_frame(trace: &Trace) -> PolarsResult<DataFrame> {
    let rows = frame_slices(trace, &SliceIds::of(trace), "Choreographer#doFrame");
    TableBuilder::new(&rows)
        .col("id", "the slice's id", |r| r.id)
        .col("frame_id", "the frame's id (the vsync id)", |r| r.frame_id)
        .col("ui_thread_utid", "the UI thread", |r| r.utid)
        .col("upid", "the process' upid", |r| r.upid)
        .col("ts", "start", |r| r.ts)
        .build()
}

/// `android_frames_draw_frame(id, frame_id, render_thread_utid, upid)`.
pub fn draw_frame(trace: &Trace) -> PolarsResult<DataFrame> {
    let rows = frame_slices(trace, &SliceIds::of(trace), "DrawFrame");
    TableBuilder::new(&rows)
        .col("id", "the slice's id", |r| r.id)
        .col("frame_id", "the frame's id (the vsync id)", |r| r.frame_id)
        .col("render_thread_utid", "the RenderThread", |r| r.utid)
        .col("upid", "the process' upid", |r| r.upid)
        .build()
}

/// One row of `android_frames_layers`, its fields in the order of the
/// module's `UNION` (which sorts and deduplicates by them).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct LayerRow<'t> {
    frame_id: i64,
    ts: i64,
    dur: i64,
    do_frame_id: i64,
    draw_frame_id: i64,
    render_thread_utid: i64,
    ui_thread_utid: i64,
    upid: Option<i64>,
    process_name: Option<&'t str>,
    actual_frame_timeline_id: Option<i64>,
    expected_frame_timeline_id: Option<i64>,
    layer_id: Option<i64>,
    layer_name: Option<&'t str>,
    /// The model's slices of `draw_frame_id` and `do_frame_id` (last: they
    /// follow from those ids, so they change neither the order nor which
    /// rows are distinct).
    draw_frame: SliceId,
    do_frame: SliceId,
}

/// An actual FrameTimeline slice as the module reads it.
struct Actual<'t> {
    id: i64,
    ts: i64,
    dur: i64,
    layer_id: Option<i64>,
    layer_name: Option<&'t str>,
}

/// The layers' rows, sorted and distinct.
fn layer_rows(trace: &Trace) -> Vec<LayerRow<'_>> {
    let ids = SliceIds::of(trace);
    let do_frames = frame_slices(trace, &ids, "Choreographer#doFrame");
    let draw_frames = frame_slices(trace, &ids, "DrawFrame");
    // trace_processor's upid is fpsan's index plus one (`perfetto::upid`).
    let process_name = |upid: i64| {
        let index = usize::try_from(upid).ok()?.checked_sub(1)?;
        trace.processes.get(index).and_then(|p| p.name.as_deref())
    };
    let any_actual = trace.frame_timeline.iter().any(|f| f.kind.is_actual() && f.upid.is_some());
    let mut rows = if any_actual {
        frames_with_timeline(trace, &ids, &do_frames, &draw_frames, process_name)
    } else {
        frames_before_timeline(trace, &ids, process_name)
    };
    rows.sort_unstable();
    rows.dedup();
    rows
}

/// The layers' rows of a trace with FrameTimeline (the module's `frames_sdk_after_28`).
fn frames_with_timeline<'t>(
    trace: &'t Trace,
    ids: &SliceIds,
    do_frames: &[FrameSlice],
    draw_frames: &[FrameSlice],
    process_name: impl Fn(i64) -> Option<&'t str>,
) -> Vec<LayerRow<'t>> {
    // DrawFrames by (frame id, upid); a NULL upid joins nothing.
    let mut draws: FxHashMap<(i64, i64), Vec<&FrameSlice>> = FxHashMap::default();
    for w in draw_frames {
        if let Some(upid) = w.upid {
            draws.entry((w.frame_id, upid)).or_default().push(w);
        }
    }
    let pairs: Vec<(&FrameSlice, &FrameSlice, i64)> = do_frames
        .iter()
        .filter_map(|d| Some((d, d.upid?)))
        .flat_map(|(d, upid)| draws.get(&(d.frame_id, upid)).into_iter().flatten().map(move |w| (d, *w, upid)))
        .collect();
    // The fallback (ts, dur) of every pair, by frame id alone.
    let mut fallback: FxHashMap<i64, Vec<(i64, i64)>> = FxHashMap::default();
    for (d, w, _) in &pairs {
        fallback.entry(d.frame_id).or_default().push((d.ts, w.ts + w.dur - d.ts));
    }
    for v in fallback.values_mut() {
        v.sort_unstable();
        v.dedup();
    }
    let mut actual: FxHashMap<(i64, i64), Vec<Actual>> = FxHashMap::default();
    let mut expected: FxHashMap<(i64, i64), Vec<i64>> = FxHashMap::default();
    for (i, f) in trace.frame_timeline.iter().enumerate() {
        let (Some(upid), Some(id)) = (f.upid.map(perfetto::upid), ids.timeline(i)) else { continue };
        if f.kind.is_actual() {
            let layer_name = f.layer_name.as_deref();
            let layer_id = layer_name.and_then(|l| str_split(l, "#", 1)).map(cast_int);
            actual.entry((f.token, upid)).or_default().push(Actual { id, ts: f.ts, dur: f.dur, layer_id, layer_name });
        } else {
            expected.entry((f.token, upid)).or_default().push(id);
        }
    }
    let mut rows = Vec::new();
    for (d, w, upid) in pairs {
        let key = (d.frame_id, upid);
        let row = |ts, dur, act: Option<&Actual<'t>>, exp: Option<i64>| LayerRow {
            frame_id: d.frame_id,
            ts,
            dur,
            do_frame_id: d.id,
            draw_frame_id: w.id,
            render_thread_utid: w.utid,
            ui_thread_utid: d.utid,
            upid: exp.map(|_| upid),
            process_name: process_name(upid),
            actual_frame_timeline_id: act.map(|a| a.id),
            expected_frame_timeline_id: exp,
            layer_id: act.and_then(|a| a.layer_id),
            layer_name: act.and_then(|a| a.layer_name),
            draw_frame: w.slice,
            do_frame: d.slice,
        };
        let exps: Vec<Option<i64>> = match expected.get(&key) {
            Some(e) => e.iter().copied().map(Some).collect(),
            None => vec![None],
        };
        for exp in exps {
            match actual.get(&key) {
                Some(acts) => rows.extend(acts.iter().map(|a| row(a.ts, a.dur, Some(a), exp))),
                None => rows.extend(fallback[&d.frame_id].iter().map(|&(ts, dur)| row(ts, dur, None, exp))),
            }
        }
    }
    rows
}

/// The layers' rows of a trace without FrameTimeline (`_frames_maxsdk_28`):
/// each `DrawFrame` of a process between its main thread's
/// `Choreographer#doFrame` and the next (or the trace's end).
fn frames_before_timeline<'t>(
    trace: &'t Trace,
    ids: &SliceIds,
    process_name: impl Fn(i64) -> Option<&'t str>,
) -> Vec<LayerRow<'t>> {
    let named = |name: &str| -> Vec<FrameSlice> {
        thread_slices(trace, ids, |n| (n == name).then_some(0)).into_iter().filter(|s| s.upid.is_some()).collect()
    };
    let mut do_frames: Vec<FrameSlice> = named("Choreographer#doFrame").into_iter().filter(|s| s.main_thread).collect();
    do_frames.sort_by_key(|d| (d.upid, d.ts, d.id));
    let mut draws: FxHashMap<i64, Vec<FrameSlice>> = FxHashMap::default();
    for w in named("DrawFrame") {
        draws.entry(w.upid.unwrap_or_default()).or_default().push(w);
    }
    for v in draws.values_mut() {
        v.sort_by_key(|w| (w.ts, w.id));
    }
    let trace_end = trace.meta.last_ts.unwrap_or(i64::MAX);
    // (doFrame, its DrawFrames), each process' doFrames by start.
    let mut frames: Vec<(&FrameSlice, &[FrameSlice])> = Vec::new();
    for (k, d) in do_frames.iter().enumerate() {
        let upid = d.upid.unwrap_or_default();
        let next = do_frames.get(k + 1).filter(|n| n.upid == d.upid).map_or(trace_end, |n| n.ts);
        let of_process = draws.get(&upid).map_or(&[][..], Vec::as_slice);
        let from = of_process.partition_point(|w| w.ts < d.ts);
        let to = of_process.partition_point(|w| w.ts < next);
        if from < to {
            frames.push((d, &of_process[from..to]));
        }
    }
    frames.sort_by_key(|(d, _)| (d.ts, d.id));
    let mut rows = Vec::new();
    for (d, ws) in frames {
        let end = ws.iter().map(|w| w.ts + w.dur).max().unwrap_or(d.ts);
        for w in ws {
            rows.push(LayerRow {
                frame_id: rows.len() as i64 + 1,
                ts: d.ts,
                dur: end - d.ts,
                do_frame_id: d.id,
                draw_frame_id: w.id,
                render_thread_utid: w.utid,
                ui_thread_utid: d.utid,
                upid: d.upid,
                process_name: process_name(d.upid.unwrap_or_default()),
                actual_frame_timeline_id: None,
                expected_frame_timeline_id: None,
                layer_id: None,
                layer_name: None,
                draw_frame: w.slice,
                do_frame: d.slice,
            });
        }
    }
    rows
}

/// `android_frames_layers(frame_id, ts, dur, ts_end, do_frame_id,
/// draw_frame_id, actual_frame_timeline_id, expected_frame_timeline_id,
/// render_thread_utid, ui_thread_utid, layer_id, layer_name, upid,
/// process_name)`.
pub fn layers(trace: &Trace) -> PolarsResult<DataFrame> {
    let rows = layer_rows(trace);
    TableBuilder::new(&rows)
        .col("frame_id", "the frame's id (the vsync id)", |r| r.frame_id)
        .col("ts", "start", |r| r.ts)
        .col("dur", "duration", |r| r.dur)
        .col("ts_end", "`ts + dur`", |r| r.ts + r.dur)
        .col("do_frame_id", "the `Choreographer#doFrame` slice's id", |r| r.do_frame_id)
        .col("draw_frame_id", "the `DrawFrame` slice's id", |r| r.draw_frame_id)
        .col("actual_frame_timeline_id", "the actual FrameTimeline slice's id", |r| r.actual_frame_timeline_id)
        .col("expected_frame_timeline_id", "the expected FrameTimeline slice's id", |r| r.expected_frame_timeline_id)
        .col("render_thread_utid", "the RenderThread", |r| r.render_thread_utid)
        .col("ui_thread_utid", "the UI thread", |r| r.ui_thread_utid)
        .col("layer_id", "the layer's id", |r| r.layer_id)
        .col("layer_name", "the layer's name", |r| r.layer_name)
        .col("upid", "the process' upid", |r| r.upid)
        .col("process_name", "the process' name", |r| r.process_name)
        .build()
}

/// One row of `android_frames`: a frame id's layers in one process.
struct FrameRow<'t> {
    first: LayerRow<'t>,
    /// The group's last layer row: SQLite's value of the module's bare
    /// (not aggregated) columns.
    last: LayerRow<'t>,
    ts: i64,
    dur: i64,
    do_frame_id: i64,
    draw_frame_id: i64,
    /// The model's slices of `draw_frame_id` and `do_frame_id`.
    draw_frame: SliceId,
    do_frame: SliceId,
    actual_frame_timeline_id: Option<i64>,
    actual_frame_timeline_count: i64,
    draw_frame_count: i64,
}

/// The rows of `android_frames`, by frame id and upid (NULL first).
fn frame_rows(trace: &Trace) -> Vec<FrameRow<'_>> {
    let mut layers = layer_rows(trace);
    // GROUP BY frame_id, upid; a stable sort keeps each group's rows in the layers' order.
    layers.sort_by_key(|r| (r.frame_id, r.upid));
    layers
        .chunk_by(|a, b| (a.frame_id, a.upid) == (b.frame_id, b.upid))
        .map(|group| {
            let distinct = |mut v: Vec<i64>| {
                v.sort_unstable();
                v.dedup();
                v.len() as i64
            };
            let first_draw = group.iter().min_by_key(|r| r.draw_frame_id).unwrap_or(&group[0]);
            let first_do = group.iter().min_by_key(|r| r.do_frame_id).unwrap_or(&group[0]);
            FrameRow {
                first: group[0].clone(),
                last: group[group.len() - 1].clone(),
                ts: group.iter().map(|r| r.ts).min().unwrap_or_default(),
                dur: group.iter().map(|r| r.dur).max().unwrap_or_default(),
                do_frame_id: first_do.do_frame_id,
                do_frame: first_do.do_frame,
                draw_frame_id: first_draw.draw_frame_id,
                draw_frame: first_draw.draw_frame,
                actual_frame_timeline_id: group.iter().filter_map(|r| r.actual_frame_timeline_id).min(),
                actual_frame_timeline_count: distinct(
                    group.iter().filter_map(|r| r.actual_frame_timeline_id).collect(),
                ),
                draw_frame_count: distinct(group.iter().map(|r| r.draw_frame_id).collect()),
            }
        })
        .collect()
}

/// `android_frames(frame_id, ts, dur, do_frame_id, draw_frame_id,
/// actual_frame_timeline_id, expected_frame_timeline_id, render_thread_utid,
/// ui_thread_utid, actual_frame_timeline_count, expected_frame_timeline_count,
/// draw_frame_count, upid, process_name)`, by frame id and upid.
pub fn frames(trace: &Trace) -> PolarsResult<DataFrame> {
    let rows = frame_rows(trace);
    TableBuilder::new(&rows)
        .col("frame_id", "the frame's id (the vsync id)", |r| r.first.frame_id)
        .col("ts", "the actual FrameTimeline slice's start (else the doFrame's)", |r| r.ts)
        .col("dur", "its duration (else doFrame start to DrawFrame end)", |r| r.dur)
        .col("do_frame_id", "the `Choreographer#doFrame` slice's id", |r| r.do_frame_id)
        .col("draw_frame_id", "the `DrawFrame` slice's id", |r| r.draw_frame_id)
        .col("actual_frame_timeline_id", "the actual FrameTimeline slice's id", |r| r.actual_frame_timeline_id)
        .col("expected_frame_timeline_id", "the expected FrameTimeline slice's id", |r| {
            r.last.expected_frame_timeline_id
        })
        .col("render_thread_utid", "the RenderThread", |r| r.last.render_thread_utid)
        .col("ui_thread_utid", "the UI thread", |r| r.last.ui_thread_utid)
        .col("actual_frame_timeline_count", "actual FrameTimeline slices of the frame", |r| {
            r.actual_frame_timeline_count
        })
        // The module's constant: "always 1 for a given frame_id".
        .col("expected_frame_timeline_count", "expected FrameTimeline slices of the frame", |_| 1i64)
        .col("draw_frame_count", "`DrawFrame` slices of the frame", |r| r.draw_frame_count)
        .col("upid", "the process' upid; NULL for a frame without an expected FrameTimeline slice", |r| r.first.upid)
        .col("process_name", "the process' name", |r| r.last.process_name)
        .build()
}

/// `android_frames`' rows as the startups and the input events read them,
/// in the table's order.
pub fn display_frames(trace: &Trace) -> Vec<DisplayFrame> {
    // trace_processor's ids are the model's indices plus one (`perfetto::upid`, `perfetto::utid`).
    let index = |id: i64| u32::try_from(id - 1).ok();
    frame_rows(trace)
        .into_iter()
        .filter_map(|r| {
            Some(DisplayFrame {
                frame_id: r.first.frame_id,
                ts: r.ts,
                dur: r.dur,
                upid: r.first.upid.and_then(index).map(Upid),
                ui_thread: Utid(index(r.last.ui_thread_utid)?),
                draw_frame: r.draw_frame,
                do_frame: r.do_frame,
            })
        })
        .collect()
}
