//! The frames of a CUJ, as Perfetto's `android.cujs` modules count them
//! (docs/cujs.md): its doFrames, its vsync range, the main thread's frame
//! boundaries, the frames of its layer, and FrameTimeline's verdict on each
//! vsync in the range.

use std::collections::BTreeMap;

use foldhash::HashMap;

use super::markers::CujSlice;
use super::TimelineCounts;
use crate::frames::{FrameAnalysis, FrameRow};
use crate::model::{Name, TimelineSlice, Trace, Upid};

/// FrameTimeline's slices looked up by (process, token) and by token.
pub(crate) struct TimelineIndex<'a> {
    /// Actual surface frames per (upid, token).
    actual: HashMap<(Upid, i64), Vec<&'a TimelineSlice>>,
    /// Expected surface frames with a duration, per (upid, token).
    expected: HashMap<(Upid, i64), Vec<&'a TimelineSlice>>,
    /// Every actual frame with a duration (surface and display), by token.
    actual_by_token: Vec<&'a TimelineSlice>,
}

impl<'a> TimelineIndex<'a> {
    /// Only the processes that have CUJs are indexed per process.
    pub(crate) fn new(trace: &'a Trace, upids: &[Upid]) -> Self {
        let mut ix =
            TimelineIndex { actual: HashMap::default(), expected: HashMap::default(), actual_by_token: Vec::new() };
        for t in &trace.frame_timeline {
            if t.kind.is_actual() && t.dur > 0 {
                ix.actual_by_token.push(t);
            }
            let Some(upid) = t.upid.filter(|u| upids.contains(u)) else { continue };
            if !t.kind.is_surface() {
                continue;
            }
            if t.kind.is_actual() {
                ix.actual.entry((upid, t.token)).or_default().push(t);
            } else if t.dur > 0 {
                ix.expected.entry((upid, t.token)).or_default().push(t);
            }
        }
        ix.actual_by_token.sort_by_key(|t| t.token);
        ix
    }

    fn actual(&self, upid: Upid, token: i64) -> &[&'a TimelineSlice] {
        self.actual.get(&(upid, token)).map_or(&[], Vec::as_slice)
    }
    fn expected(&self, upid: Upid, token: i64) -> Option<&'a TimelineSlice> {
        self.expected.get(&(upid, token)).and_then(|v| v.first().copied())
    }
    fn actual_in(&self, lo: i64, hi: i64) -> &[&'a TimelineSlice] {
        let from = self.actual_by_token.partition_point(|t| t.token < lo);
        let to = self.actual_by_token.partition_point(|t| t.token <= hi);
        &self.actual_by_token[from..to.max(from)]
    }
}

/// The doFrames of each process, by start (indices into the frame rows),
/// with the running maximum of their ends, so the frames that reach into a
/// CUJ are found by binary search instead of a scan from the trace start.
pub(crate) struct DoFrames<'a> {
    rows: &'a [FrameRow],
    by_pid: HashMap<i32, (Vec<usize>, Vec<i64>)>,
}

/// The latest a frame row reaches: its doFrame, DrawFrame or actual frame end.
fn reach(r: &FrameRow) -> i64 {
    let draw_end = r.draw_frame_ts.zip(r.draw_frame_dur).map_or(i64::MIN, |(t, d)| t + d);
    do_frame_end(r).max(draw_end).max(r.actual_end.unwrap_or(i64::MIN))
}

impl<'a> DoFrames<'a> {
    pub(crate) fn new(frames: &'a FrameAnalysis, pids: &[i32]) -> Self {
        let mut by_pid: HashMap<i32, (Vec<usize>, Vec<i64>)> = HashMap::default();
        for (i, r) in frames.rows.iter().enumerate() {
            if pids.contains(&r.pid) {
                by_pid.entry(r.pid).or_default().0.push(i);
            }
        }
        for (idx, max_reach) in by_pid.values_mut() {
            idx.sort_by_key(|&i| frames.rows[i].ts);
            let mut m = i64::MIN;
            *max_reach = idx
                .iter()
                .map(|&i| {
                    m = m.max(reach(&frames.rows[i]));
                    m
                })
                .collect();
        }
        DoFrames { rows: &frames.rows, by_pid }
    }
    pub(crate) fn row(&self, i: usize) -> &'a FrameRow {
        &self.rows[i]
    }
    /// The rows of `pid` that start by `until` and may reach `from`: every
    /// row before the first whose running maximum reach is `from` ends earlier.
    fn overlapping(&self, pid: i32, from: i64, until: i64) -> impl Iterator<Item = usize> + '_ {
        let (idx, max_reach) = self.by_pid.get(&pid).map_or((&[][..], &[][..]), |(i, m)| (i.as_slice(), m.as_slice()));
        let lo = max_reach.partition_point(|&m| m < from);
        let hi = idx.partition_point(|&i| self.rows[i].ts <= until);
        idx[lo.min(hi)..hi].iter().copied()
    }
}

fn do_frame_end(r: &FrameRow) -> i64 {
    r.ts + r.do_frame_dur
}

/// `_android_jank_cuj_do_frames`: the doFrames on the CUJ's UI thread (its
/// main thread without a `#UIThread` marker) that overlap the CUJ slice and
/// have a vsync id inside the marked vsync range, in vsync order.
pub(crate) fn do_frames(c: &CujSlice, trace: &Trace, pid: i32, rows: &DoFrames) -> Vec<usize> {
    let ui_tid = c.ui_thread.map(|u| trace.thread(u).tid);
    let mut out: Vec<usize> = rows
        .overlapping(pid, c.ts, c.ts_end)
        .filter(|&i| {
            let r = rows.row(i);
            let on_thread = match ui_tid {
                Some(tid) => r.tid == tid,
                None => r.tid == pid,
            };
            let Some(vsync) = r.frame_id else { return false };
            on_thread
                && do_frame_end(r) >= c.ts
                && vsync > 0
                && c.begin_vsync.is_none_or(|b| vsync >= b)
                && c.end_vsync.is_none_or(|e| vsync <= e)
        })
        .collect();
    out.sort_by_key(|&i| rows.row(i).frame_id);
    out
}

/// `_android_jank_cuj_main_thread_frame_boundary`, one span per doFrame (in
/// the order given): from the frame's expected start (or the previous
/// doFrame's end when later) to its doFrame's end. A frame's expected start
/// counts only when its actual frames agree with its doFrame (the doFrame
/// starts no more than 1 ms before them and before they end), else the
/// doFrame's start does. The CUJ's boundary
/// (`_android_jank_cuj_main_thread_cuj_boundary`) spans them all.
pub(crate) fn main_thread_frame_boundaries(
    upid: Upid,
    do_frames: &[usize],
    (vmin, vmax): (i64, i64),
    rows: &DoFrames,
    tl: &TimelineIndex,
) -> Vec<(i64, i64)> {
    let mut prev_end = -1;
    let mut bounds = Vec::with_capacity(do_frames.len());
    for &i in do_frames {
        let r = rows.row(i);
        let vsync = r.frame_id.unwrap_or_default();
        let expected_start = (vmin..=vmax).contains(&vsync).then(|| tl.expected(upid, vsync)).flatten().and_then(|e| {
            let actual = tl.actual(upid, vsync);
            let a_min = actual.iter().map(|a| a.ts).min()?;
            let a_end = actual.iter().map(|a| a.ts + a.dur).max()?;
            (r.ts >= a_min - 1_000_000 && r.ts <= a_end).then_some(e.ts)
        });
        let ts = expected_start.map_or(r.ts, |e| e.max(prev_end));
        let end = do_frame_end(r);
        bounds.push((ts, end));
        prev_end = end;
    }
    bounds
}

/// One row of Perfetto's `android_frames_layers` inside a CUJ: a doFrame
/// with its DrawFrame and one of its actual surface frames.
#[derive(Debug, Clone)]
struct LayerFrame<'a> {
    frame_id: i64,
    row: usize,
    layer_id: i64,
    layer_name: Option<&'a Name>,
    ts: i64,
}

/// The number between the layer name's first and second `#` (trace_processor's
/// `layer_id`): `TX - NotificationShade#0` → 0.
fn layer_id(layer_name: &str) -> Option<i64> {
    let rest = &layer_name[layer_name.find('#')? + 1..];
    Some(crate::perfetto_sql::cast_int(rest.split('#').next().unwrap_or_default()))
}

/// `_all_frames_in_cuj`: the frames of the CUJ's UI thread, one per layer,
/// with a vsync id in the marked range that start or end inside the CUJ
/// slice. Without a `#UIThread` marker or a marked vsync range there are none.
fn layer_frames<'a>(
    c: &CujSlice,
    trace: &Trace,
    pid: i32,
    rows: &DoFrames,
    tl: &TimelineIndex<'a>,
) -> Vec<LayerFrame<'a>> {
    let (Some(ui), Some(begin), Some(end)) = (c.ui_thread, c.begin_vsync, c.end_vsync) else {
        return Vec::new();
    };
    let ui_tid = trace.thread(ui).tid;
    let mut out = Vec::new();
    for i in rows.overlapping(pid, c.ts, c.ts_end) {
        let r = rows.row(i);
        let Some(frame_id) = r.frame_id else { continue };
        if r.tid != ui_tid || r.draw_frame_count == 0 || frame_id < begin || frame_id > end {
            continue;
        }
        for a in tl.actual(c.upid, frame_id) {
            let Some(layer_id) = a.layer_name.as_deref().and_then(layer_id) else { continue };
            let (ts, ts_end) = if a.dur >= 0 {
                (a.ts, a.ts + a.dur)
            } else {
                let draw_end = r.draw_frame_ts.zip(r.draw_frame_dur).map_or(do_frame_end(r), |(t, d)| t + d);
                (r.ts, draw_end)
            };
            let inside = |t: i64| t >= c.ts && t <= c.ts_end;
            if inside(ts) || inside(ts_end) {
                out.push(LayerFrame { frame_id, row: i, layer_id, layer_name: a.layer_name.as_ref(), ts });
            }
        }
    }
    out
}

/// The layer of a CUJ (`android_jank_cuj_layer_name`): the marked layer's
/// name, or without a marker the one layer every frame drew, if there was
/// exactly one per frame.
fn layer_name(c: &CujSlice, frames: &[LayerFrame]) -> Option<Name> {
    match c.layer_id {
        Some(id) => frames.iter().filter(|f| f.layer_id == id).filter_map(|f| f.layer_name).max().cloned(),
        None => {
            let mut per_frame: BTreeMap<i64, Vec<&Name>> = BTreeMap::new();
            for f in frames {
                if let Some(n) = f.layer_name {
                    let v = per_frame.entry(f.frame_id).or_default();
                    if !v.contains(&n) {
                        v.push(n);
                    }
                }
            }
            if per_frame.values().all(|v| v.len() == 1) {
                per_frame.values().flatten().max().map(|n| (*n).clone())
            } else {
                None
            }
        }
    }
}

/// What the frames of a CUJ's layer give: its layer name and the span from
/// the first frame's expected start to the last frame's doFrame end
/// (`android_sysui_jank_cujs`).
pub(crate) struct LayerSpan {
    pub layer_name: Option<Name>,
    /// None without frames; the start is None when neither end frame has an
    /// expected surface frame.
    pub span: Option<(Option<i64>, i64)>,
}

pub(crate) fn layer_span(c: &CujSlice, trace: &Trace, pid: i32, rows: &DoFrames, tl: &TimelineIndex) -> LayerSpan {
    let frames = layer_frames(c, trace, pid, rows, tl);
    let layer_name = layer_name(c, &frames);
    // Distinct frames by id: (first start, doFrame row).
    let mut distinct: BTreeMap<i64, (i64, usize)> = BTreeMap::new();
    for f in &frames {
        let e = distinct.entry(f.frame_id).or_insert((f.ts, f.row));
        e.0 = e.0.min(f.ts);
    }
    let mut ordered: Vec<(i64, i64, usize)> = distinct.into_iter().map(|(id, (ts, row))| (ts, id, row)).collect();
    ordered.sort();
    let span = match (ordered.first(), ordered.last()) {
        (Some(first), Some(last)) => {
            let ends = [first, last];
            let start = ends.iter().filter_map(|&&(_, id, _)| tl.expected(c.upid, id).map(|e| e.ts)).min();
            let end = ends.iter().map(|&&(_, _, row)| do_frame_end(rows.row(row))).max().unwrap_or_default();
            Some((start, end))
        }
        _ => None,
    };
    LayerSpan { layer_name, span }
}

/// `_android_jank_cuj_frame_timeline` summed: the vsyncs in the range that
/// have an actual frame (of the CUJ's layer when it has one), and how many
/// of them the app or SurfaceFlinger missed; None when no vsync has one.
pub(crate) fn timeline_counts(
    (vmin, vmax): (i64, i64),
    layer: Option<&Name>,
    tl: &TimelineIndex,
) -> Option<TimelineCounts> {
    let mut per_vsync: BTreeMap<i64, (bool, bool)> = BTreeMap::new();
    for t in tl.actual_in(vmin, vmax) {
        if layer.is_some_and(|l| t.layer_name.as_ref() != Some(l)) {
            continue;
        }
        let jank = t.jank_type.as_deref().unwrap_or_default();
        let e = per_vsync.entry(t.token).or_default();
        e.0 |= is_app_jank(jank);
        e.1 |= is_sf_jank(jank);
    }
    (!per_vsync.is_empty()).then(|| TimelineCounts {
        frames: per_vsync.len() as i64,
        missed_app_frames: per_vsync.values().filter(|v| v.0).count() as i64,
        missed_sf_frames: per_vsync.values().filter(|v| v.1).count() as i64,
    })
}

/// Perfetto's `android_is_app_jank_type`.
pub(crate) fn is_app_jank(jank_type: &str) -> bool {
    jank_type.contains("App Deadline Missed") || jank_type.contains("App Resynced Jitter")
}

/// Perfetto's `android_is_sf_jank_type`.
pub(crate) fn is_sf_jank(jank_type: &str) -> bool {
    [
        "SurfaceFlinger CPU Deadline Missed",
        "SurfaceFlinger GPU Deadline Missed",
        "SurfaceFlinger Scheduling",
        "Prediction Error",
        "Display HAL",
    ]
    .iter()
    .any(|k| jank_type.contains(k))
}
