//! Flutter's frames rebuilt from the engine's own markers (docs/presents.md,
//! "Flutter frames"). A Flutter frame has three phases, like a doFrame and
//! its DrawFrames: the build (`Animator::BeginFrame` on the UI thread: the
//! framework's build, layout and paint, ending with `Animator::Render`), the
//! raster (`Rasterizer::DoDraw` on the raster thread; engines older than
//! DoDraw only have `GPURasterizer::Draw`) and the present (the raster
//! thread's `queueBuffer`, else its `eglSwapBuffers*` / `vkQueuePresentKHR`).
//! atrace keeps only the markers' names, not their `frame_number`
//! argument, so builds and rasters are paired by time (see [`pair`]).
//!
//! This lives with the presents, not the frames: it reads the same producer
//! slices as the `producer` source and judges frames on the display grid.

use std::collections::VecDeque;

use foldhash::{HashMap, HashSet};
use serde::Serialize;

use super::sources::{EGL_SWAP, QUEUE_BUFFER, VK_PRESENT};
use super::Grid;
use crate::frames::DropLevel;
use crate::model::{SliceId, Trace, TrackKind, Upid, Utid};
use crate::series::{self, Levels, Percentiles};

/// The UI thread's frame: the framework builds a layer tree inside it.
pub const BUILD: &str = "Animator::BeginFrame";
/// The raster thread's frame: one layer tree drawn and submitted.
pub const RASTER: &str = "Rasterizer::DoDraw";
/// The raster thread's task around [`RASTER`]; the raster marker of
/// engines that have no DoDraw (it also runs when the pipeline is empty,
/// so it is only read when DoDraw is absent).
pub const RASTER_OLD: &str = "GPURasterizer::Draw";
/// Traced inside a BeginFrame whose layer-tree pipeline was full: that
/// build produced nothing for the raster thread.
pub const PIPELINE_FULL: &str = "PipelineFull";
/// The engine's layer-tree pipeline holds this many built frames (the
/// Animator's `FramePipeline(2)` with separate platform and raster
/// threads); the raster thread takes them oldest first.
pub const PIPELINE_DEPTH: usize = 2;

/// One Flutter frame: a build, its raster and its present, each when seen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlutterFrame {
    pub process: Option<String>,
    pub pid: i32,
    /// The threads that ran the build and the raster.
    pub ui_tid: Option<i32>,
    pub raster_tid: Option<i32>,
    /// `Animator::BeginFrame`: start and duration; null for a raster no
    /// build can be paired with (a redraw of the last layer tree).
    pub build_ts: Option<i64>,
    pub build_dur: Option<i64>,
    /// `Rasterizer::DoDraw`: start and duration; null for a build never
    /// rastered (its layer tree was dropped or the trace ended first).
    pub raster_ts: Option<i64>,
    pub raster_dur: Option<i64>,
    /// End of the raster thread's first `queueBuffer` (else swap) from the
    /// raster's start to the next raster's: when the buffer was handed over.
    pub present_ts: Option<i64>,
    /// The display's period at the frame's first phase.
    pub vsync_period_ns: i64,
    /// `present_ts − build_ts`: build start to present.
    pub total_ns: Option<i64>,
    /// `total_ns / vsync_period_ns` (integer division, as a doFrame's
    /// `dropped_frames`); null without a total.
    pub dropped_vsyncs: Option<i64>,
    pub drop_level: DropLevel,
}

impl FlutterFrame {
    /// The frame's first phase, its place in time order.
    fn ts(&self) -> i64 {
        self.build_ts.or(self.raster_ts).unwrap_or(0)
    }
}

/// One Flutter app's frames summarised.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlutterSummary {
    pub process: Option<String>,
    pub pid: i32,
    pub ui_tid: Option<i32>,
    pub ui_thread: Option<String>,
    pub raster_tid: Option<i32>,
    pub raster_thread: Option<String>,
    /// [`RASTER`] or [`RASTER_OLD`]: the marker the rasters were read from.
    pub raster_marker: &'static str,
    /// Rastered frames, those presented, builds never rastered and rasters
    /// without a build.
    pub frames: i64,
    pub presented: i64,
    pub builds_not_rastered: i64,
    pub rasters_without_build: i64,
    /// First and last present; `fps = (presented − 1) · 1e9 / (last − first)`,
    /// 0 with fewer than two ([`series::presents_fps_wall`]).
    pub first_present_ts: Option<i64>,
    pub last_present_ts: Option<i64>,
    pub fps: f64,
    /// Percentiles of `build_dur`, `raster_dur` and `total_ns` (nearest rank).
    pub build_ns: Percentiles,
    pub raster_ns: Percentiles,
    pub total_ns: Percentiles,
    /// Frames with `dropped_vsyncs ≥ 1` (build start to present longer than
    /// a vsync period), and their dropped vsyncs summed.
    pub jank_frames: i64,
    pub dropped_vsyncs: i64,
    /// Frames per drop level, and the vsyncs dropped per level.
    pub drop_level: Levels,
    pub drop_sum: Levels,
}

/// A slice that ended: start and duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub ts: i64,
    pub dur: i64,
}

impl Span {
    fn end(self) -> i64 {
        self.ts.saturating_add(self.dur)
    }
}

/// A build: its span, and whether it produced a layer tree (no `PipelineFull`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Build {
    pub span: Span,
    pub produced: bool,
}

/// One thread's Flutter markers, in start order.
#[derive(Default)]
struct Marks {
    builds: Vec<(SliceId, Span)>,
    rasters: Vec<Span>,
    old_rasters: Vec<Span>,
    queues: Vec<Span>,
    swaps: Vec<Span>,
}

/// Every Flutter frame of `trace` (by pid, then time) and each app's summary.
pub(crate) fn analyze(
    trace: &Trace,
    grid: Grid,
    window: Option<crate::frames::ScenarioWindow>,
) -> (Vec<FlutterFrame>, Vec<FlutterSummary>) {
    let (marks, full) = collect(trace);
    // Each process's threads with markers.
    let mut by_process: HashMap<Upid, Vec<(Utid, Marks)>> = HashMap::default();
    for (utid, m) in marks {
        if let Some(upid) = trace.thread(utid).upid {
            by_process.entry(upid).or_default().push((utid, m));
        }
    }
    let mut apps: Vec<(i32, Vec<FlutterFrame>, FlutterSummary)> = Vec::new();
    for (upid, threads) in by_process {
        if let Some((frames, summary)) = app_frames(trace, upid, threads, &full, grid, window) {
            apps.push((summary.pid, frames, summary));
        }
    }
    apps.sort_by_key(|a| a.0);
    let mut frames = Vec::new();
    let mut summaries = Vec::new();
    for (_, f, s) in apps {
        frames.extend(f);
        summaries.push(s);
    }
    (frames, summaries)
}

/// One pass over the slices: each thread's markers, and the BeginFrames
/// that hold a `PipelineFull`.
fn collect(trace: &Trace) -> (HashMap<Utid, Marks>, HashSet<SliceId>) {
    let mut marks: HashMap<Utid, Marks> = HashMap::default();
    let mut full: HashSet<SliceId> = HashSet::default();
    for s in &trace.slices {
        let name: &str = &s.name;
        let is_marker = matches!(name, BUILD | RASTER | RASTER_OLD | PIPELINE_FULL | QUEUE_BUFFER | VK_PRESENT)
            || name.starts_with(EGL_SWAP);
        if !is_marker {
            continue;
        }
        if name == PIPELINE_FULL {
            full.extend(s.parent);
            continue;
        }
        // Slices still open at the end of the trace have no phase to measure.
        if s.dur < 0 {
            continue;
        }
        let Some(TrackKind::Thread { utid }) = trace.tracks.get(s.track.index()).map(|t| &t.kind) else { continue };
        let m = marks.entry(*utid).or_default();
        let span = Span { ts: s.ts, dur: s.dur };
        match name {
            BUILD => m.builds.push((s.id, span)),
            RASTER => m.rasters.push(span),
            RASTER_OLD => m.old_rasters.push(span),
            QUEUE_BUFFER => m.queues.push(span),
            _ => m.swaps.push(span),
        }
    }
    (marks, full)
}

/// The thread of `threads` with the most of `count`'s markers (ties: the
/// lowest tid), when one has any.
fn busiest<'a>(
    trace: &Trace,
    threads: &'a [(Utid, Marks)],
    count: impl Fn(&Marks) -> usize,
) -> Option<&'a (Utid, Marks)> {
    threads
        .iter()
        .filter(|(_, m)| count(m) > 0)
        .max_by_key(|(u, m)| (count(m), std::cmp::Reverse(trace.thread(*u).tid)))
}

/// One app's frames: its busiest BeginFrame thread is the UI thread, its
/// busiest DoDraw (else `GPURasterizer::Draw`) thread the raster thread
/// (one engine per process; with the UI thread merged into the platform
/// thread, BeginFrame runs on the main thread, which this still finds).
fn app_frames(
    trace: &Trace,
    upid: Upid,
    threads: Vec<(Utid, Marks)>,
    full: &HashSet<SliceId>,
    grid: Grid,
    window: Option<crate::frames::ScenarioWindow>,
) -> Option<(Vec<FlutterFrame>, FlutterSummary)> {
    let ui = busiest(trace, &threads, |m| m.builds.len());
    let has_do_draw = threads.iter().any(|(_, m)| !m.rasters.is_empty());
    let raster_marker = if has_do_draw { RASTER } else { RASTER_OLD };
    let raster = if has_do_draw {
        busiest(trace, &threads, |m| m.rasters.len())
    } else {
        busiest(trace, &threads, |m| m.old_rasters.len())
    };
    if ui.is_none() && raster.is_none() {
        return None;
    }
    let builds: Vec<Build> = ui.map_or_else(Vec::new, |(_, m)| {
        m.builds.iter().map(|&(id, span)| Build { span, produced: !full.contains(&id) }).collect()
    });
    let rasters: &[Span] = match raster {
        Some((_, m)) if has_do_draw => &m.rasters,
        Some((_, m)) => &m.old_rasters,
        None => &[],
    };
    let presents = raster.map_or_else(Vec::new, |(_, m)| present_ends(rasters, &m.queues, &m.swaps));
    let process = trace.process(upid);
    let name = process.name.as_deref().map(str::to_string);
    let tid_name = |t: Option<&(Utid, Marks)>| {
        let th = t.map(|(u, _)| trace.thread(*u));
        (th.map(|t| t.tid), th.and_then(|t| t.name.as_deref().map(str::to_string)))
    };
    let (ui_tid, ui_thread) = tid_name(ui);
    let (raster_tid, raster_thread) = tid_name(raster);
    let mut frames: Vec<FlutterFrame> = pair(&builds, rasters)
        .into_iter()
        .map(|(b, r)| {
            let build = b.map(|i| builds[i].span);
            let present_ts = r.and_then(|i| presents[i]);
            let first = build.or(r.map(|i| rasters[i])).map_or(0, |s| s.ts);
            let vsync_period_ns = grid.display.period_at(first, grid.fallback);
            let total_ns = build.zip(present_ts).map(|(b, p)| p - b.ts);
            let dropped_vsyncs = total_ns.map(|t| (t / vsync_period_ns.max(1)).max(0));
            FlutterFrame {
                process: name.clone(),
                pid: process.pid,
                ui_tid: build.and(ui_tid),
                raster_tid: r.and(raster_tid),
                build_ts: build.map(|s| s.ts),
                build_dur: build.map(|s| s.dur),
                raster_ts: r.map(|i| rasters[i].ts),
                raster_dur: r.map(|i| rasters[i].dur),
                present_ts,
                vsync_period_ns,
                total_ns,
                dropped_vsyncs,
                drop_level: DropLevel::from_dropped(dropped_vsyncs.unwrap_or(0)),
            }
        })
        .collect();
    // `pair` emits in the order frames leave the pipeline; the table is by time.
    frames.sort_by_key(FlutterFrame::ts);
    // A driven scenario's window keeps the frames that start in it, as it
    // keeps doFrames and presents (docs/capture.md, "The scenario's window").
    if let Some(w) = window {
        frames.retain(|f| w.contains(f.ts()));
        if frames.is_empty() {
            return None;
        }
    }
    let summary =
        summarize(&frames, name, process.pid, (ui_tid, ui_thread), (raster_tid, raster_thread), raster_marker);
    Some((frames, summary))
}

/// Builds paired with rasters, in one pass: `(build, raster)` indexes; a
/// build never rastered has no raster, a raster no build can be paired
/// with has no build.
///
/// The rule is the engine's pipeline (`Animator` → `FramePipeline` →
/// `Rasterizer::Draw`): a build that produced a layer tree enters the
/// pipeline when it ends; a raster takes the oldest build in it that ended
/// before the raster started. The pipeline holds [`PIPELINE_DEPTH`] builds:
/// a build pushed out by newer ones, one that produced nothing
/// (`PipelineFull`), and those left when the rasters end are never
/// rastered. Both lists are in start order (one thread each); rasters that
/// find the pipeline empty drew the last layer tree again.
pub(crate) fn pair(builds: &[Build], rasters: &[Span]) -> Vec<(Option<usize>, Option<usize>)> {
    let mut out = Vec::with_capacity(builds.len().max(rasters.len()));
    let mut pipeline: VecDeque<usize> = VecDeque::with_capacity(PIPELINE_DEPTH + 1);
    let mut next = 0;
    for (r, raster) in rasters.iter().enumerate() {
        while next < builds.len() && builds[next].span.end() <= raster.ts {
            if builds[next].produced {
                pipeline.push_back(next);
                if pipeline.len() > PIPELINE_DEPTH {
                    out.extend(pipeline.pop_front().map(|b| (Some(b), None)));
                }
            } else {
                out.push((Some(next), None));
            }
            next += 1;
        }
        out.push((pipeline.pop_front(), Some(r)));
    }
    out.extend(pipeline.into_iter().map(|b| (Some(b), None)));
    out.extend((next..builds.len()).map(|b| (Some(b), None)));
    out
}

/// Each raster's present: the end of the first `queueBuffer` that starts
/// from the raster's start to the next raster's (the buffer it handed
/// over), else of the first swap there. One pass over each sorted list.
pub(crate) fn present_ends(rasters: &[Span], queues: &[Span], swaps: &[Span]) -> Vec<Option<i64>> {
    /// The end of the first slice of `list` starting in `[from, to)`; `at`
    /// walks forward only (the windows come in order).
    fn first_in(list: &[Span], at: &mut usize, from: i64, to: i64) -> Option<i64> {
        while *at < list.len() && list[*at].ts < from {
            *at += 1;
        }
        list.get(*at).filter(|s| s.ts < to).map(|s| s.end())
    }
    let (mut q, mut s) = (0, 0);
    rasters
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let to = rasters.get(i + 1).map_or(i64::MAX, |n| n.ts);
            let queue = first_in(queues, &mut q, r.ts, to);
            let swap = first_in(swaps, &mut s, r.ts, to);
            queue.or(swap)
        })
        .collect()
}

fn summarize(
    frames: &[FlutterFrame],
    process: Option<String>,
    pid: i32,
    (ui_tid, ui_thread): (Option<i32>, Option<String>),
    (raster_tid, raster_thread): (Option<i32>, Option<String>),
    raster_marker: &'static str,
) -> FlutterSummary {
    let mut presents: Vec<i64> = frames.iter().filter_map(|f| f.present_ts).collect();
    presents.sort_unstable();
    let (first, last) = (presents.first().copied(), presents.last().copied());
    let (drop_level, drop_sum) = series::drop_levels_of(frames.iter().filter_map(|f| f.dropped_vsyncs));
    let count = |p: fn(&FlutterFrame) -> bool| frames.iter().filter(|f| p(f)).count() as i64;
    FlutterSummary {
        process,
        pid,
        ui_tid,
        ui_thread,
        raster_tid,
        raster_thread,
        raster_marker,
        frames: count(|f| f.raster_ts.is_some()),
        presented: presents.len() as i64,
        builds_not_rastered: count(|f| f.build_ts.is_some() && f.raster_ts.is_none()),
        rasters_without_build: count(|f| f.raster_ts.is_some() && f.build_ts.is_none()),
        first_present_ts: first,
        last_present_ts: last,
        fps: series::presents_fps_wall(presents.len() as i64, first.unwrap_or(0), last.unwrap_or(0)),
        build_ns: Percentiles::of(frames.iter().filter_map(|f| f.build_dur).collect()),
        raster_ns: Percentiles::of(frames.iter().filter_map(|f| f.raster_dur).collect()),
        total_ns: Percentiles::of(frames.iter().filter_map(|f| f.total_ns).collect()),
        jank_frames: count(|f| f.dropped_vsyncs.is_some_and(|d| d >= 1)),
        dropped_vsyncs: frames.iter().filter_map(|f| f.dropped_vsyncs).sum(),
        drop_level,
        drop_sum,
    }
}
