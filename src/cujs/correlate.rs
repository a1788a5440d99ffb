//! Which slices ran inside each frame of a CUJ, per thread set: Perfetto's
//! `android_jank_correlate_frame_slice` (metrics/sql/android/jank), read as
//! its tables read the trace (docs/cujs.md).
//!
//! A CUJ's app frames (`_android_jank_cuj_frame`) are its doFrames whose
//! DrawFrame signalled a GPU completion fence and whose vsync FrameTimeline
//! has an actual frame for; its SurfaceFlinger frames
//! (`_android_jank_cuj_sf_frame`) are the SF vsyncs its app frames were
//! composed in. Each thread set gives every frame one or more boundaries
//! (its `*_frame_boundary` table); a slice of the set's threads that
//! overlaps a boundary counts for the part inside it.

use std::collections::{BTreeMap, BTreeSet};

use foldhash::HashMap;

use super::{is_app_jank, is_sf_jank, Cuj};
use crate::frames::{FrameAnalysis, FrameRow};
use crate::model::{JankTag, Name, Slice, SliceId, TimelineKind, TimelineSlice, Trace, TrackId, TrackKind, Upid, Utid};
use crate::perfetto_sql::cast_int;

/// A start and an end (ns).
pub type Span = (i64, i64);

/// What FrameTimeline's tables assume a frame was given without an
/// expected frame (`COALESCE(..., 16600000)`).
const DEFAULT_DUR_EXPECTED: i64 = 16_600_000;

/// The thread sets of Perfetto's `android_jank_cuj_table_set`, each with its
/// slices, its frame boundaries and its frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadSet {
    /// The CUJ's UI thread; boundaries `_android_jank_cuj_main_thread_frame_boundary`.
    MainThread,
    /// The app's `RenderThread`s; `_android_jank_cuj_render_thread_frame_boundary`.
    RenderThread,
    /// Every thread of the app (JIT pool, binder threads, …); the boundary is
    /// the app frame itself (`_android_jank_cuj_frame`).
    AppThreads,
    /// Every thread of SurfaceFlinger; the boundary is the SF frame itself.
    SfThreads,
    /// SurfaceFlinger's main thread; `_android_jank_cuj_sf_main_thread_frame_boundary`.
    SfMainThread,
    /// SurfaceFlinger's `RenderEngine`; `_android_jank_cuj_sf_render_engine_frame_boundary`.
    SfRenderEngine,
}

impl ThreadSet {
    /// The set by the name Perfetto's table set gives it.
    pub fn from_perfetto(name: &str) -> Option<ThreadSet> {
        Some(match name {
            "MainThread" => ThreadSet::MainThread,
            "RenderThread" => ThreadSet::RenderThread,
            "App threads" => ThreadSet::AppThreads,
            "SF threads" => ThreadSet::SfThreads,
            "SF MainThread" => ThreadSet::SfMainThread,
            "SF RenderEngine" => ThreadSet::SfRenderEngine,
            _ => return None,
        })
    }
    /// SurfaceFlinger's sets count SF frames; the others app frames.
    pub fn is_sf(self) -> bool {
        matches!(self, ThreadSet::SfThreads | ThreadSet::SfMainThread | ThreadSet::SfRenderEngine)
    }
}

/// One row of `_android_jank_cuj_frame`: an app frame of the CUJ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppFrame {
    /// 1-based among the doFrames that drew (a GPU completion fence), by
    /// vsync; numbered before frames without an actual frame are dropped.
    pub frame_number: i64,
    pub vsync: i64,
    /// The main-thread frame start (`_android_jank_cuj_main_thread_frame_boundary.ts`).
    pub ts: i64,
    pub ts_do_frame_start: i64,
    /// The latest end of its actual frames (`ts_end_actual`).
    pub ts_end: i64,
    /// From its actual frames' jank types (None when none has one).
    pub app_missed: Option<bool>,
    pub sf_missed: Option<bool>,
    pub dur_expected: i64,
}

/// One row of `_android_jank_cuj_sf_frame`: a SurfaceFlinger frame that
/// composed one of the CUJ's app frames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SfFrame {
    /// 1-based by SF vsync.
    pub frame_number: i64,
    pub vsync: i64,
    /// The SF expected display frame's start.
    pub ts: i64,
    /// The first main-thread slice of the frame (commit, or onMessageInvalidate).
    pub ts_main_thread_start: i64,
    /// The end of the frame's main-thread work (composite, or onMessageInvalidate).
    pub ts_end: i64,
    /// Its actual display frame tagged `Self Jank`.
    pub sf_missed: Option<bool>,
    pub dur_expected: i64,
}

/// One row of a `*_frame_boundary` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    pub vsync: i64,
    /// The thread the boundary was measured on (None for the frame tables).
    pub utid: Option<Utid>,
    pub ts: i64,
    pub ts_end: i64,
}

/// A CUJ's frames and every boundary the thread sets need.
#[derive(Debug, Clone, Default)]
pub struct CujFrames {
    pub cuj_id: usize,
    pub app: Vec<AppFrame>,
    pub sf: Vec<SfFrame>,
    /// Per doFrame, by vsync.
    pub main_thread: Vec<Bound>,
    /// Per (RenderThread, vsync), by vsync.
    pub render_thread: Vec<Bound>,
    /// Per SF main-thread frame, by vsync.
    pub sf_main_thread: Vec<Bound>,
    /// Per RenderEngine drawLayers, by vsync.
    pub render_engine: Vec<Bound>,
    /// The thread of the doFrames.
    pub main_thread_utid: Option<Utid>,
    /// `_android_jank_cuj_main_thread_cuj_boundary`.
    pub main_thread_boundary: Option<Span>,
    /// `_android_jank_cuj_render_thread_cuj_boundary`, per RenderThread.
    pub render_thread_boundaries: Vec<(Utid, Span)>,
    /// `_android_jank_cuj_boundary`: the app slices a CUJ looks at.
    pub app_boundary: Option<Span>,
    /// `_android_jank_cuj_sf_boundary` (= the SF main-thread CUJ boundary).
    pub sf_boundary: Option<Span>,
    upid: Option<Upid>,
}

/// One row of `<prefix>_slice_in_frame_agg`: the matching slices inside
/// one frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameSlices {
    pub frame_number: i64,
    pub vsync: i64,
    pub dur_expected: i64,
    /// None for SF frames.
    pub app_missed: Option<bool>,
    pub sf_missed: Option<bool>,
    /// The slices' time inside the frame's boundaries.
    pub slice_dur_sum: i64,
    pub slice_dur_max: i64,
}

impl FrameSlices {
    /// `slice_dur_div_frame_dur_expected`; None when no frame was expected
    /// (SQLite's division by zero).
    pub fn share_of_expected(&self) -> Option<f64> {
        (self.dur_expected != 0).then(|| self.slice_dur_sum as f64 / self.dur_expected as f64)
    }
}

/// SurfaceFlinger's threads and the main-thread slices that name an SF vsync.
struct Sf {
    upid: Upid,
    main: Option<Utid>,
    render_engine: Vec<Utid>,
    /// `commit <vsync>`, `composite <vsync>`, `onMessageInvalidate <vsync>`.
    roots: HashMap<i64, Vec<(Root, SliceId)>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    Commit,
    Composite,
    OnMessageInvalidate,
}

/// The DrawFrames of one vsync on one RenderThread: the first `postAndWait`
/// of its doFrames, the first DrawFrame start, the earliest end of the
/// DrawFrame before each (-1 for the CUJ's first), the last DrawFrame end.
struct DrawGroup {
    post_and_wait: Option<i64>,
    start: i64,
    prev_end: i64,
    end: i64,
}

/// What the frame slices of a trace are looked up in, built once.
pub struct Correlator<'a> {
    trace: &'a Trace,
    rows: &'a [FrameRow],
    threads_of: HashMap<Upid, Vec<Utid>>,
    tracks_of: HashMap<Utid, Vec<TrackId>>,
    /// Per thread track: the running maximum slice end, in track order, so
    /// the slices overlapping a span are found by binary search.
    max_end: HashMap<TrackId, Vec<i64>>,
    actual_by_token: HashMap<i64, Vec<&'a TimelineSlice>>,
    expected: HashMap<(Upid, i64), Vec<&'a TimelineSlice>>,
    /// Each CUJ process's actual surface frames, by token.
    app_actual: HashMap<Upid, Vec<&'a TimelineSlice>>,
    /// FrameTimeline's flows: (app, app vsync) → SF vsyncs.
    app_to_sf: HashMap<(Upid, i64), Vec<i64>>,
    /// Per (CUJ process, vsync): the DrawFrame slices of its RenderThreads.
    draw_frames: HashMap<(Upid, i64), Vec<(Utid, SliceId)>>,
    sf: Option<Sf>,
}

/// The integer after the first space (`CAST(STR_SPLIT(name, ' ', 1) AS INTEGER)`).
fn vsync_from_name(name: &str) -> Option<i64> {
    name.split(' ').nth(1).map(cast_int)
}

fn slice_end(s: &Slice) -> i64 {
    s.ts + s.dur
}

/// The slice and the span overlap, ends included (the `*_slice` tables' join).
fn touches(s: &Slice, (ts, ts_end): Span) -> bool {
    slice_end(s) >= ts && s.ts <= ts_end
}

fn span_of(bounds: impl Iterator<Item = Span>) -> Option<Span> {
    bounds.reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
}

/// The rows of a by-vsync list with this vsync.
fn with_vsync(bounds: &[Bound], vsync: i64) -> &[Bound] {
    let from = bounds.partition_point(|b| b.vsync < vsync);
    let to = bounds.partition_point(|b| b.vsync <= vsync);
    &bounds[from..to.max(from)]
}

/// OR of booleans where NULL is ignored (SQL `MAX` over 0/1/NULL).
fn max_bool(acc: Option<bool>, v: Option<bool>) -> Option<bool> {
    match (acc, v) {
        (Some(a), Some(b)) => Some(a || b),
        (a, b) => a.or(b),
    }
}

impl<'a> Correlator<'a> {
    /// Indexes the processes of `cujs` and SurfaceFlinger.
    pub fn new(trace: &'a Trace, frames: &'a FrameAnalysis, cujs: &[Cuj]) -> Self {
        let mut upids: Vec<Upid> = cujs.iter().map(|c| c.upid).collect();
        upids.sort();
        upids.dedup();
        let mut c = Correlator {
            trace,
            rows: &frames.rows,
            threads_of: HashMap::default(),
            tracks_of: HashMap::default(),
            max_end: HashMap::default(),
            actual_by_token: HashMap::default(),
            expected: HashMap::default(),
            app_actual: HashMap::default(),
            app_to_sf: HashMap::default(),
            draw_frames: HashMap::default(),
            sf: None,
        };
        c.index_threads();
        c.sf = c.find_sf();
        let mut wanted = upids.clone();
        wanted.extend(c.sf.as_ref().map(|s| s.upid));
        c.index_tracks(&wanted);
        c.index_timeline(&upids);
        c.index_draw_frames(&upids);
        c
    }

    fn index_threads(&mut self) {
        for t in &self.trace.threads {
            if let Some(u) = t.upid {
                self.threads_of.entry(u).or_default().push(t.utid);
            }
        }
        for tr in &self.trace.tracks {
            if let TrackKind::Thread { utid } = tr.kind {
                self.tracks_of.entry(utid).or_default().push(tr.id);
            }
        }
    }

    fn thread_named(&self, upid: Upid, name: &str) -> Vec<Utid> {
        let threads = self.threads_of.get(&upid).map_or(&[][..], Vec::as_slice);
        threads.iter().copied().filter(|&u| self.trace.thread(u).name.as_deref() == Some(name)).collect()
    }

    /// The process's main thread (`thread.is_main_thread`: tid = pid).
    fn main_thread_of(&self, upid: Upid) -> Option<Utid> {
        let pid = self.trace.process(upid).pid;
        let threads = self.threads_of.get(&upid)?;
        threads.iter().copied().find(|&u| self.trace.thread(u).tid == pid)
    }

    /// `_android_sf_process` (the first `/system/bin/surfaceflinger`), its
    /// main and RenderEngine threads, and its main thread's frame slices.
    fn find_sf(&self) -> Option<Sf> {
        let upid = self.trace.processes.iter().find(|p| p.name.as_deref() == Some("/system/bin/surfaceflinger"))?.upid;
        let main = self.main_thread_of(upid);
        let mut roots: HashMap<i64, Vec<(Root, SliceId)>> = HashMap::default();
        for &track in main.and_then(|m| self.tracks_of.get(&m)).map_or(&[][..], Vec::as_slice) {
            for &id in self.trace.track_slices(track) {
                let s = self.trace.slice(id);
                let kind = if s.name.starts_with("commit ") {
                    Root::Commit
                } else if s.name.starts_with("composite ") {
                    Root::Composite
                } else if s.name.starts_with("onMessageInvalidate ") {
                    Root::OnMessageInvalidate
                } else {
                    continue;
                };
                if let (true, Some(v)) = (s.dur > 0, vsync_from_name(&s.name)) {
                    roots.entry(v).or_default().push((kind, id));
                }
            }
        }
        Some(Sf { upid, main, render_engine: self.thread_named(upid, "RenderEngine"), roots })
    }

    /// The running maximum end of each thread track of these processes.
    fn index_tracks(&mut self, upids: &[Upid]) {
        for u in upids {
            for utid in self.threads_of.get(u).into_iter().flatten() {
                for &track in self.tracks_of.get(utid).into_iter().flatten() {
                    let mut m = i64::MIN;
                    let ends = self
                        .trace
                        .track_slices(track)
                        .iter()
                        .map(|&id| {
                            let s = self.trace.slice(id);
                            if s.dur > 0 {
                                m = m.max(slice_end(s));
                            }
                            m
                        })
                        .collect();
                    self.max_end.insert(track, ends);
                }
            }
        }
    }

    /// FrameTimeline by token, and the flows trace_processor draws from an
    /// app's actual surface frame to the SF display frame that composed it:
    /// to the first display frame with its display token parsed after it.
    fn index_timeline(&mut self, upids: &[Upid]) {
        let mut pending: HashMap<i64, Vec<&'a TimelineSlice>> = HashMap::default();
        let sf = self.sf.as_ref().map(|s| s.upid);
        let trace = self.trace;
        for t in &trace.frame_timeline {
            if t.kind.is_actual() {
                self.actual_by_token.entry(t.token).or_default().push(t);
            } else if let Some(u) = t.upid {
                self.expected.entry((u, t.token)).or_default().push(t);
            }
            match t.kind {
                TimelineKind::ActualSurface => {
                    if let Some(d) = t.display_frame_token {
                        pending.entry(d).or_default().push(t);
                    }
                    if let Some(u) = t.upid.filter(|u| upids.contains(u)) {
                        self.app_actual.entry(u).or_default().push(t);
                    }
                }
                TimelineKind::ActualDisplay => {
                    for s in pending.remove(&t.token).unwrap_or_default() {
                        if let (Some(app), true) = (s.upid, t.upid.is_some() && t.upid == sf) {
                            self.app_to_sf.entry((app, s.token)).or_default().push(t.token);
                        }
                    }
                }
                _ => {}
            }
        }
        for v in self.app_actual.values_mut() {
            v.sort_by_key(|t| t.token);
        }
    }

    /// `_android_jank_cuj_draw_frame_slice`: `DrawFrame*` slices of the
    /// processes' RenderThreads, by the vsync in their name.
    fn index_draw_frames(&mut self, upids: &[Upid]) {
        for &u in upids {
            for utid in self.thread_named(u, "RenderThread") {
                for &track in self.tracks_of.get(&utid).into_iter().flatten() {
                    for &id in self.trace.track_slices(track) {
                        let s = self.trace.slice(id);
                        if s.dur <= 0 || !s.name.starts_with("DrawFrame") {
                            continue;
                        }
                        if let Some(v) = vsync_from_name(&s.name) {
                            self.draw_frames.entry((u, v)).or_default().push((utid, id));
                        }
                    }
                }
            }
        }
    }

    /// The slices of `track` with a duration that strictly overlap `span`
    /// (`android_jank_cuj_slice_overlaps`), by binary search.
    fn overlapping(&self, track: TrackId, (ts, ts_end): Span) -> impl Iterator<Item = &'a Slice> + '_ {
        let ids = self.trace.track_slices(track);
        let ends = self.max_end.get(&track).map_or(&[][..], Vec::as_slice);
        let from = ends.partition_point(|&e| e <= ts);
        let to = ids.partition_point(|&id| self.trace.slice(id).ts < ts_end);
        let trace = self.trace;
        ids[from.min(to)..to]
            .iter()
            .map(move |&id| trace.slice(id))
            .filter(move |s| s.dur > 0 && s.ts < ts_end && slice_end(s) > ts)
    }

    fn tracks(&self, utid: Utid) -> &[TrackId] {
        self.tracks_of.get(&utid).map_or(&[], Vec::as_slice)
    }

    /// `_android_jank_cuj_frame_timeline` for one vsync: the actual frames
    /// with that token (of the CUJ's layer when it has one), any process.
    fn frame_timeline(&self, vsync: i64, layer: Option<&Name>) -> Option<(Option<bool>, Option<bool>, i64, i64)> {
        let actual: Vec<&TimelineSlice> = self
            .actual_by_token
            .get(&vsync)
            .into_iter()
            .flatten()
            .copied()
            .filter(|t| t.dur > 0 && layer.is_none_or(|l| t.layer_name.as_ref() == Some(l)))
            .collect();
        let ts_end = actual.iter().map(|t| t.ts + t.dur).max()?;
        let (mut app, mut sf) = (None, None);
        for t in &actual {
            let jank = t.jank_type.as_deref();
            app = max_bool(app, jank.map(is_app_jank));
            sf = max_bool(sf, jank.map(is_sf_jank));
        }
        let dur_expected = actual
            .iter()
            .filter_map(|t| t.upid)
            .flat_map(|u| self.expected.get(&(u, vsync)).into_iter().flatten())
            .map(|e| e.dur)
            .max()
            .unwrap_or(DEFAULT_DUR_EXPECTED);
        Some((app, sf, ts_end, dur_expected))
    }

    /// A DrawFrame drew when a GPU completion fence was signalled inside it
    /// (`_android_jank_cuj_gpu_completion_fence`).
    fn drew(&self, draw: SliceId) -> bool {
        self.trace.descendants(draw).iter().any(|s| s.name.contains("GPU completion fence"))
    }

    /// The doFrame slice of a frame row on its thread.
    fn do_frame_slice(&self, utid: Utid, row: &FrameRow) -> Option<SliceId> {
        self.tracks(utid)
            .iter()
            .flat_map(|&track| {
                let ids = self.trace.track_slices(track);
                let from = ids.partition_point(|&id| self.trace.slice(id).ts < row.ts);
                ids[from..].iter().map(|&id| self.trace.slice(id)).take_while(|s| s.ts == row.ts)
            })
            .filter(|s| s.name.starts_with("Choreographer#doFrame"))
            .min_by_key(|s| s.depth)
            .map(|s| s.id)
    }

    /// The first `postAndWait` inside a frame row's doFrame.
    fn post_and_wait(&self, utid: Option<Utid>, row: &FrameRow) -> Option<i64> {
        let id = self.do_frame_slice(utid?, row)?;
        self.trace.descendants(id).iter().filter(|s| &*s.name == "postAndWait").map(|s| s.ts).min()
    }

    /// Every frame and boundary of a CUJ (empty when it is not counted).
    pub fn frames(&self, cuj: &Cuj) -> CujFrames {
        let mut f = CujFrames { cuj_id: cuj.id, upid: Some(cuj.upid), ..Default::default() };
        if !cuj.counted || cuj.frames.is_empty() {
            return f;
        }
        f.main_thread_utid = cuj.ui_thread.or_else(|| self.main_thread_of(cuj.upid));
        f.main_thread_boundary = cuj.boundary;
        self.app_frames(cuj, &mut f);
        self.render_thread_bounds(cuj, &mut f);
        f.app_boundary = self.app_boundary(cuj);
        self.sf_frames(cuj, &mut f);
        f
    }

    /// `_android_jank_cuj_frame` and the main-thread boundaries.
    fn app_frames(&self, cuj: &Cuj, f: &mut CujFrames) {
        let mut number = 0;
        for (k, &i) in cuj.frames.iter().enumerate() {
            let row = &self.rows[i];
            let (Some(vsync), Some(&(ts, ts_end))) = (row.frame_id, cuj.frame_boundaries.get(k)) else { continue };
            f.main_thread.push(Bound { vsync, utid: f.main_thread_utid, ts, ts_end });
            let draws = self.draw_frames.get(&(cuj.upid, vsync)).map_or(&[][..], Vec::as_slice);
            if !draws.iter().any(|&(_, d)| self.drew(d)) {
                continue;
            }
            number += 1;
            let Some((app_missed, sf_missed, end_actual, dur_expected)) =
                self.frame_timeline(vsync, cuj.layer_name.as_ref())
            else {
                continue;
            };
            f.app.push(AppFrame {
                frame_number: number,
                vsync,
                ts,
                ts_do_frame_start: row.ts,
                ts_end: end_actual,
                app_missed,
                sf_missed,
                dur_expected,
            });
        }
    }

    /// `_android_jank_cuj_render_thread_frame_boundary`: per RenderThread and
    /// vsync, from the doFrame's first `postAndWait` (or the previous
    /// DrawFrame's end when later, but no later than the DrawFrame's start)
    /// to the last DrawFrame's end.
    fn render_thread_bounds(&self, cuj: &Cuj, f: &mut CujFrames) {
        // (vsync, draw start, draw end, thread, doFrame row) by (vsync, start).
        let mut draws: Vec<(i64, i64, i64, Utid, usize)> = Vec::new();
        for &i in &cuj.frames {
            let Some(vsync) = self.rows[i].frame_id else { continue };
            for &(utid, d) in self.draw_frames.get(&(cuj.upid, vsync)).into_iter().flatten() {
                let s = self.trace.slice(d);
                draws.push((vsync, s.ts, slice_end(s), utid, i));
            }
        }
        draws.sort_by_key(|d| (d.0, d.1));
        let mut groups: BTreeMap<(i64, Utid), DrawGroup> = BTreeMap::new();
        let mut prev_end = -1;
        for &(vsync, ts, end, utid, row) in &draws {
            let post_and_wait = self.post_and_wait(f.main_thread_utid, &self.rows[row]);
            let g = groups.entry((vsync, utid)).or_insert(DrawGroup { post_and_wait, start: ts, prev_end, end });
            g.post_and_wait = match (g.post_and_wait, post_and_wait) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            g.start = g.start.min(ts);
            g.prev_end = g.prev_end.min(prev_end);
            g.end = g.end.max(end);
            prev_end = end;
        }
        for ((vsync, utid), g) in groups {
            // Without a postAndWait the frame has no RenderThread boundary.
            let Some(pw) = g.post_and_wait else { continue };
            f.render_thread.push(Bound { vsync, utid: Some(utid), ts: pw.max(g.prev_end).min(g.start), ts_end: g.end });
        }
        let mut utids: Vec<Utid> = f.render_thread.iter().filter_map(|b| b.utid).collect();
        utids.sort();
        utids.dedup();
        f.render_thread_boundaries = utids
            .into_iter()
            .filter_map(|u| {
                let span = span_of(f.render_thread.iter().filter(|b| b.utid == Some(u)).map(|b| (b.ts, b.ts_end)))?;
                Some((u, span))
            })
            .collect();
    }

    /// `_android_jank_cuj_boundary`: from the main-thread CUJ start to the
    /// end of the last vsync's actual frame (else of the last doFrame or the
    /// CUJ slice, whichever is later).
    fn app_boundary(&self, cuj: &Cuj) -> Option<Span> {
        let (ts, _) = cuj.boundary?;
        let (_, vmax) = cuj.vsyncs?;
        let actual_end = self
            .actual_by_token
            .get(&vmax)
            .into_iter()
            .flatten()
            .filter(|t| t.upid == Some(cuj.upid))
            .map(|t| t.ts + t.dur)
            .max();
        let ts_end = actual_end.unwrap_or_else(|| {
            let last = cuj.frames.iter().map(|&i| self.rows[i].ts + self.rows[i].do_frame_dur).max();
            last.unwrap_or(i64::MIN).max(cuj.ts_end)
        });
        Some((ts, ts_end))
    }

    /// `_android_jank_cuj_sf_main_thread_frame_boundary` for one SF vsync:
    /// per commit × composite pair (commit start to composite end) and per
    /// onMessageInvalidate, from each SF expected frame's start.
    /// Returns (expected start, main-thread start, end).
    fn sf_main_thread_rows(&self, sf: &Sf, vsync: i64) -> Vec<(i64, i64, i64)> {
        let roots = sf.roots.get(&vsync).map_or(&[][..], Vec::as_slice);
        let of = |kind: Root| roots.iter().filter(move |r| r.0 == kind).map(|r| self.trace.slice(r.1));
        let mut work: Vec<Span> = Vec::new();
        for commit in of(Root::Commit) {
            work.extend(of(Root::Composite).map(|c| (commit.ts, slice_end(c))));
        }
        work.extend(of(Root::OnMessageInvalidate).map(|s| (s.ts, slice_end(s))));
        let expected = self.expected.get(&(sf.upid, vsync)).map_or(&[][..], Vec::as_slice);
        expected.iter().flat_map(|e| work.iter().map(|&(ts, end)| (e.ts, ts, end))).collect()
    }

    /// `_android_jank_cuj_sf_render_engine_frame_boundary`: per drawLayers
    /// on RenderEngine inside a composeSurfaces of the vsync's main-thread
    /// slices, from composeSurfaces' start to drawLayers' end.
    fn render_engine_rows(&self, sf: &Sf, vsync: i64, out: &mut Vec<Bound>) {
        for &(_, root) in sf.roots.get(&vsync).into_iter().flatten() {
            for cs in self.trace.descendants(root).into_iter().filter(|s| &*s.name == "composeSurfaces") {
                let cs_end = slice_end(cs);
                for &utid in &sf.render_engine {
                    for &track in self.tracks(utid) {
                        let ids = self.trace.track_slices(track);
                        let from = ids.partition_point(|&id| self.trace.slice(id).ts < cs.ts);
                        let draws = ids[from..].iter().map(|&id| self.trace.slice(id)).take_while(|s| s.ts <= cs_end);
                        for d in draws.filter(|d| d.dur > 0 && &*d.name == "REThreaded::drawLayers") {
                            if slice_end(d) <= cs_end {
                                out.push(Bound { vsync, utid: Some(utid), ts: cs.ts, ts_end: slice_end(d) });
                            }
                        }
                    }
                }
            }
        }
    }

    /// The display tokens of the CUJ's actual frames in its vsync range (of
    /// its layer when it has one): `android_jank_cuj_timeline_sf_frame`.
    fn composed_in(&self, cuj: &Cuj) -> BTreeSet<i64> {
        let Some((vmin, vmax)) = cuj.vsyncs else { return BTreeSet::new() };
        let actual = self.app_actual.get(&cuj.upid).map_or(&[][..], Vec::as_slice);
        let from = actual.partition_point(|t| t.token < vmin);
        let to = actual.partition_point(|t| t.token <= vmax);
        actual[from..to.max(from)]
            .iter()
            .filter(|t| cuj.layer_name.as_ref().is_none_or(|l| t.layer_name.as_ref() == Some(l)))
            .filter_map(|t| t.display_frame_token)
            .collect()
    }

    /// `_android_jank_cuj_sf_frame` with its main-thread and RenderEngine
    /// boundaries: the SF vsyncs the CUJ's doFrames flowed into.
    fn sf_frames(&self, cuj: &Cuj, f: &mut CujFrames) {
        let Some(sf) = &self.sf else { return };
        let sf_vsyncs: BTreeSet<i64> = cuj
            .frames
            .iter()
            .filter_map(|&i| self.rows[i].frame_id)
            .flat_map(|v| self.app_to_sf.get(&(cuj.upid, v)).into_iter().flatten().copied())
            .collect();
        let composed = self.composed_in(cuj);
        // DISTINCT rows: (vsync, ts, main start, end, sf_missed, dur_expected, jank type, present type).
        type Key = (i64, i64, i64, i64, Option<bool>, i64, Option<Name>, Option<&'static str>);
        let mut rows: Vec<Key> = Vec::new();
        for &vsync in &sf_vsyncs {
            let bounds = self.sf_main_thread_rows(sf, vsync);
            f.sf_main_thread.extend(bounds.iter().map(|&(ts, _, ts_end)| Bound { vsync, utid: sf.main, ts, ts_end }));
            self.render_engine_rows(sf, vsync, &mut f.render_engine);
            if !composed.contains(&vsync) {
                continue;
            }
            let displays = self.actual_by_token.get(&vsync).into_iter().flatten().filter(|t| t.upid == Some(sf.upid));
            for a in displays {
                let expected = self.expected.get(&(sf.upid, vsync)).map_or(&[][..], Vec::as_slice);
                let durs: Vec<i64> = if expected.is_empty() {
                    vec![DEFAULT_DUR_EXPECTED]
                } else {
                    expected.iter().map(|e| e.dur).collect()
                };
                let missed = a.jank_tag.map(|t| t == JankTag::SelfJank);
                for &(ts, main_start, ts_end) in &bounds {
                    for &dur in &durs {
                        let key = (
                            vsync,
                            ts,
                            main_start,
                            ts_end,
                            missed,
                            dur,
                            a.jank_type.clone(),
                            a.present_type.map(|p| p.as_str()),
                        );
                        if !rows.contains(&key) {
                            rows.push(key);
                        }
                    }
                }
            }
        }
        f.sf_boundary = span_of(f.sf_main_thread.iter().map(|b| (b.ts, b.ts_end)));
        f.sf = rows
            .into_iter()
            .enumerate()
            .map(|(k, (vsync, ts, ts_main_thread_start, ts_end, sf_missed, dur_expected, _, _))| SfFrame {
                frame_number: k as i64 + 1,
                vsync,
                ts,
                ts_main_thread_start,
                ts_end,
                sf_missed,
                dur_expected,
            })
            .collect();
    }

    /// The threads whose slices a set looks at (`android_jank_cuj_*_thread`).
    fn set_threads(&self, f: &CujFrames, set: ThreadSet) -> Vec<Utid> {
        let sf = self.sf.as_ref();
        match set {
            ThreadSet::MainThread => f.main_thread_utid.into_iter().collect(),
            ThreadSet::RenderThread => f.upid.map_or_else(Vec::new, |u| self.thread_named(u, "RenderThread")),
            ThreadSet::AppThreads => f.upid.and_then(|u| self.threads_of.get(&u)).cloned().unwrap_or_default(),
            ThreadSet::SfThreads => sf.and_then(|s| self.threads_of.get(&s.upid)).cloned().unwrap_or_default(),
            ThreadSet::SfMainThread => sf.and_then(|s| s.main).into_iter().collect(),
            ThreadSet::SfRenderEngine => sf.map(|s| s.render_engine.clone()).unwrap_or_default(),
        }
    }

    /// The set's `*_slice` table: the slices of its threads around the
    /// CUJ's boundary for that set (for RenderEngine, around any of its
    /// frame boundaries on the same thread).
    fn in_set_table(f: &CujFrames, set: ThreadSet, utid: Utid, s: &Slice, frame_bound: &Bound) -> bool {
        match set {
            ThreadSet::MainThread => f.main_thread_boundary.is_some_and(|b| touches(s, b)),
            ThreadSet::RenderThread => f.render_thread_boundaries.iter().any(|&(u, b)| u == utid && touches(s, b)),
            ThreadSet::AppThreads | ThreadSet::SfThreads => true,
            ThreadSet::SfMainThread => f.sf_boundary.is_some_and(|b| touches(s, b)),
            ThreadSet::SfRenderEngine => {
                frame_bound.utid == Some(utid)
                    || f.render_engine.iter().any(|b| b.utid == Some(utid) && touches(s, (b.ts, b.ts_end)))
            }
        }
    }

    /// Per frame of the set's kind (app or SF), by frame number, the slices
    /// of the set's threads whose name `wanted` keeps, clipped to the
    /// frame's boundaries: `android_jank_correlate_frame_slice` with the
    /// slices of `android_jank_cuj_slice` (app sets) or
    /// `android_jank_cuj_sf_slice` (SF sets). Frames without such a slice
    /// are left out.
    pub fn correlate(&self, f: &CujFrames, set: ThreadSet, wanted: impl Fn(&str) -> bool) -> Vec<FrameSlices> {
        let relevant = if set.is_sf() { f.sf_boundary } else { f.app_boundary };
        let Some(relevant) = relevant else { return Vec::new() };
        let frames: Vec<FrameSlices> = if set.is_sf() {
            f.sf.iter().map(|s| blank(s.frame_number, s.vsync, s.dur_expected, None, s.sf_missed)).collect()
        } else {
            f.app.iter().map(|a| blank(a.frame_number, a.vsync, a.dur_expected, a.app_missed, a.sf_missed)).collect()
        };
        let own: Vec<Bound> = if set.is_sf() {
            f.sf.iter().map(|s| Bound { vsync: s.vsync, utid: None, ts: s.ts, ts_end: s.ts_end }).collect()
        } else {
            f.app.iter().map(|a| Bound { vsync: a.vsync, utid: None, ts: a.ts, ts_end: a.ts_end }).collect()
        };
        let bounds: &[Bound] = match set {
            ThreadSet::MainThread => &f.main_thread,
            ThreadSet::RenderThread => &f.render_thread,
            ThreadSet::AppThreads | ThreadSet::SfThreads => &own,
            ThreadSet::SfMainThread => &f.sf_main_thread,
            ThreadSet::SfRenderEngine => &f.render_engine,
        };
        let threads = self.set_threads(f, set);
        let mut out = Vec::new();
        for mut frame in frames {
            let mut found = false;
            for b in with_vsync(bounds, frame.vsync) {
                for &utid in &threads {
                    for &track in self.tracks(utid) {
                        for s in self.overlapping(track, (b.ts, b.ts_end)) {
                            if !wanted(&s.name) || !touches(s, relevant) || !Self::in_set_table(f, set, utid, s, b) {
                                continue;
                            }
                            let d = slice_end(s).min(b.ts_end) - s.ts.max(b.ts);
                            frame.slice_dur_sum += d;
                            frame.slice_dur_max = if found { frame.slice_dur_max.max(d) } else { d };
                            found = true;
                        }
                    }
                }
            }
            if found {
                out.push(frame);
            }
        }
        out
    }
}

fn blank(frame_number: i64, vsync: i64, dur_expected: i64, app: Option<bool>, sf: Option<bool>) -> FrameSlices {
    FrameSlices {
        frame_number,
        vsync,
        dur_expected,
        app_missed: app,
        sf_missed: sf,
        slice_dur_sum: 0,
        slice_dur_max: 0,
    }
}
