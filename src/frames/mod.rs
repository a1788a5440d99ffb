//! Frame reconstruction: one [`FrameRow`] per `Choreographer#doFrame` slice,
//! from vsync to commit and on to RenderThread and the display. Every column,
//! its formula and its source: docs/frames.md.

/// One row of the frames table. Field names are the column names of
/// docs/frames.md (the product contract's frames table).
/// Times are ns in trace time; `Option` is SQL NULL.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct FrameRow {
    pub process: Option<String>,
    pub pid: i32,
    pub tid: i32,
    pub thread: Option<String>,
    /// Android 12+ vsync id from `Choreographer#doFrame <id>`.
    pub frame_id: Option<i64>,
    pub ts: i64,
    pub do_frame_dur: i64,
    pub vsync_ts: Option<i64>,
    pub vsync_source: Option<VsyncSource>,
    pub frame_interval_ns: i64,
    pub refresh_hz: f64,
    pub jitter_ns: Option<i64>,
    pub skipped_frames: i64,
    pub frame_time_ns: Option<i64>,
    pub input_dur: Option<i64>,
    pub animation_dur: Option<i64>,
    pub insets_animation_dur: Option<i64>,
    pub traversal_dur: Option<i64>,
    pub commit_dur: Option<i64>,
    pub commit_ts: Option<i64>,
    pub commit_jitter_ns: Option<i64>,
    pub commit_corrected: bool,
    pub corrected_frame_time_ns: Option<i64>,
    pub frame_cost_ns: i64,
    pub dropped_frames: i64,
    pub drop_level: DropLevel,
    pub draw_frame_ts: Option<i64>,
    pub draw_frame_dur: Option<i64>,
    pub draw_frame_count: i64,
    pub expected_ts: Option<i64>,
    pub expected_end: Option<i64>,
    pub actual_ts: Option<i64>,
    pub actual_end: Option<i64>,
    /// `actual_end − expected_end` of the app's own surface frame (same pid,
    /// token = frame_id), as docs/frames.md defines it.
    pub overrun_ns: Option<i64>,
    pub jank_type: Option<String>,
    pub present_type: Option<crate::model::PresentType>,
    /// Perfetto's summary of `jank_type`: `Self Jank` is the app's own (buffer
    /// stuffing, display-off and SurfaceFlinger's jank are not).
    pub jank_tag: Option<crate::model::JankTag>,
    pub jank_severity: Option<crate::model::JankSeverity>,
    /// Newer builds: how late SurfaceFlinger presented the frame, ms.
    pub present_delay_ms: Option<f64>,
    pub layer_name: Option<String>,
    /// Number of actual surface frames (layers) sharing this frame's token and pid.
    pub layer_count: i64,
    pub app_vsync_delay: Option<i64>,
    pub cpu_time: Option<i64>,
    pub ui_time: Option<i64>,
    pub was_jank: Option<bool>,
    pub was_slow_frame: Option<bool>,
    pub was_big_jank: Option<bool>,
    pub was_huge_jank: Option<bool>,
    /// Where `frame_interval_ns` came from.
    pub interval_source: IntervalSource,
    /// trace_processor's `android_frames_overrun.overrun`, joined on the
    /// token only: when apps share a vsync id (Android 12+ gives every app of
    /// one vsync the same token) it can be another app's overrun. The
    /// `was_*` flags are computed from it, as Perfetto does.
    pub perfetto_overrun_ns: Option<i64>,
    /// A data loss the trace reports touches the frame (docs/frames.md).
    pub data_loss: bool,
    /// Every (thread, slice) on the frame's critical path with its time
    /// there, most first (`critical_path::totals`): not a column; the first
    /// is the `blocker_*` columns ([`FrameRow::top_blocker`]), `compare`
    /// sums them per run (docs/compare.md, "Blockers").
    #[serde(skip)]
    pub path_totals: Vec<critical_path::PathTotal>,
}

impl FrameRow {
    /// The (thread, slice) that took most of the frame's critical path
    /// (docs/frames.md, "Critical path"): the frames table's `blocker_*`
    /// columns; None without one.
    pub fn top_blocker(&self) -> Option<&critical_path::PathTotal> {
        self.path_totals.first()
    }

    /// Sets the columns derived from the frame's start, duration, vsync,
    /// interval and commit (Choreographer's arithmetic, `phases::timing`).
    fn retime(&mut self) {
        let t = phases::timing(self.ts, self.do_frame_dur, self.vsync_ts, self.frame_interval_ns, self.commit_ts);
        self.jitter_ns = t.jitter_ns;
        self.skipped_frames = t.skipped_frames;
        self.frame_time_ns = t.frame_time_ns;
        self.commit_jitter_ns = t.commit_jitter_ns;
        self.commit_corrected = t.commit_corrected;
        self.corrected_frame_time_ns = t.corrected_frame_time_ns;
        self.frame_cost_ns = t.frame_cost_ns;
        self.dropped_frames = t.dropped_frames;
        self.drop_level = t.drop_level;
    }
}

use std::collections::BTreeMap;

use foldhash::{HashMap, HashSet};

use rayon::prelude::*;

pub mod critical_path;
mod display_grid;
mod input_start;
pub(crate) mod interval;
mod labels;
mod loss;
mod perfetto_compat;
mod phases;
mod render_thread;
mod sched_index;
mod select;
#[cfg(test)]
mod tests;
mod timeline;
mod vsync;
mod why;
mod window;

pub use display_grid::DisplayGrid;
pub use interval::period_of_hz;
pub use labels::{DropLevel, FramePart, IntervalSource, PerPhase, Phase, VsyncSource};
pub use render_thread::render_threads;
pub use sched_index::{SchedIndex, State};
pub use select::{DO_FRAME, DRAW_FRAME};
/// The `VSYNC-app` ticks, for the report's frame timeline (`lanes`).
pub(crate) use vsync::CounterIndex;
pub use window::{scenario_window, ScenarioWindow};

use crate::model::{SchedEvent, Trace};

/// Knobs for reconstruction.
#[derive(Debug, Clone)]
pub struct FrameOptions {
    /// `--refresh-hz`: force the frame interval instead of reading it from the trace.
    pub refresh_hz: Option<f64>,
    /// Main-thread slices at least this long that ran between a frame's vsync and
    /// its doFrame start are reported as blockers (trace-side BlockCanary).
    pub blocker_threshold_ns: i64,
}

impl Default for FrameOptions {
    fn default() -> Self {
        FrameOptions { refresh_hz: None, blocker_threshold_ns: 8_000_000 }
    }
}

/// A main-thread slice that delayed a frame's start.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Blocker {
    pub name: String,
    pub ts: i64,
    /// The whole slice (it may have begun before the frame's vsync).
    pub dur: i64,
    /// The part of the slice inside the frame's wait, vsync to doFrame
    /// start: how much it delayed the start ("delayed start by").
    pub delay_ns: i64,
}

/// Time the frame's thread spent in each scheduler state inside the frame
/// (vsync to doFrame end), from sched_switch / sched_waking.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ThreadStateSplit {
    pub running_ns: i64,
    pub runnable_ns: i64,
    pub sleeping_ns: i64,
    /// Uninterruptible sleep (D state: I/O, locks in the kernel).
    pub blocked_ns: i64,
}

/// Why a janky frame was late.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FrameWhy {
    /// Index into `FrameAnalysis::rows`.
    pub frame_index: usize,
    /// The part of the frame that took longest (named `dominant_phase` in the outputs).
    pub dominant_phase: FramePart,
    pub dominant_phase_ns: i64,
    /// Longest descendant slice of the doFrame (any depth), if any.
    pub longest_slice: Option<String>,
    pub longest_slice_ns: Option<i64>,
    pub blockers: Vec<Blocker>,
    pub thread_state: Option<ThreadStateSplit>,
    /// The frame's critical path, vsync to end, in time order; its
    /// durations add up to the frame's cost (docs/frames.md, "Critical path").
    pub critical_path: Vec<critical_path::PathSegment>,
    /// The path in one line (`critical_path::PathIndex::chain`).
    pub chain: String,
}

/// What the reconstruction could and could not match, for the data-quality section.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct FrameQuality {
    /// Frames per `vsync_source` (`frame_timeline`, `vsync_app`, `jitter_counter`, `estimated`, `none`).
    pub vsync_sources: BTreeMap<String, u64>,
    /// Frames per interval source (`override`, `frame_timeline`, `vsync_app`, `do_frame_grid`, `default`).
    pub interval_sources: BTreeMap<String, u64>,
    pub without_render_thread: u64,
    pub without_timeline: u64,
    /// doFrame slices cut by the trace start or end (not turned into frames).
    pub cut_by_trace_bounds: u64,
    /// Frames whose vsync id another doFrame of the same process also has
    /// (reported as a warning; each was matched within its own time window).
    #[serde(skip)]
    pub repeated_ids: u64,
    /// How many distinct (process, vsync id) pairs repeat.
    #[serde(skip)]
    pub repeated_id_values: u64,
    /// The most doFrames any one repeated (process, vsync id) has.
    #[serde(skip)]
    pub max_id_uses: u64,
}

#[derive(Debug, Clone, Default)]
pub struct FrameAnalysis {
    /// Ordered by (pid, ts).
    pub rows: Vec<FrameRow>,
    /// One entry per janky frame (dropped_frames ≥ 1), by frame index; with
    /// [`Whys::Asked`], only those [`FrameAnalysis::explain_frames`] was asked for.
    pub why: Vec<FrameWhy>,
    pub quality: FrameQuality,
    /// The display's vsync grid the intervals were checked against (the
    /// presents stage puts its intervals on it too).
    pub display: DisplayGrid,
    /// The scheduler states of the frame threads and their RenderThreads
    /// ([`frame_threads`]), for the report's frame timeline.
    pub sched: SchedIndex,
    /// What explaining a janky frame later ([`Whys::Asked`]) and walking
    /// other windows' paths ([`FrameAnalysis::path_totals`]) need; None for
    /// an analysis made by hand.
    pub(crate) explainer: Option<Explainer>,
}

/// What of each frame's critical path is made while the frames are rebuilt:
/// every janky frame's [`FrameWhy`] (its full path, chain, blockers and
/// scheduler split) and every frame's path totals (`FrameRow::path_totals`,
/// its top blocker), or neither until an output asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whys {
    /// Both, for every frame.
    Janky,
    /// Neither: the whys an output shows (the worst frames, the timeline's)
    /// are asked for later ([`FrameAnalysis::explain_frames`]), and the
    /// path totals when a table or `compare` needs them
    /// ([`FrameAnalysis::total_paths`]). Explaining every janky frame was
    /// most of the frames stage on a busy trace, for a few dozen shown; the
    /// totals were a tenth of `analyze`'s time, for columns its printed
    /// table does not show.
    Asked,
}

/// What [`FrameAnalysis::explain_frames`] needs besides the trace and the
/// scheduler index: the indexes built for the paths, and each row's doFrame
/// and phases, by row.
#[derive(Debug, Clone)]
pub(crate) struct Explainer {
    top: why::TopLevel,
    paths: critical_path::PathThreads,
    blocker_threshold_ns: i64,
    rows: Vec<(model::SliceId, labels::PerPhase<Option<i64>>)>,
    /// Every row has its path totals ([`FrameAnalysis::total_paths`]).
    totalled: bool,
}

impl Explainer {
    /// What explaining and walking paths read, over `trace` and `sched`.
    fn context<'a>(&'a self, trace: &'a Trace, sched: &'a SchedIndex) -> why::WhyContext<'a> {
        why::WhyContext {
            trace,
            top: &self.top,
            sched,
            paths: critical_path::PathIndex::new(trace, sched, &self.paths),
            blocker_threshold_ns: self.blocker_threshold_ns,
        }
    }

    /// Row `index` (`row`) as the why-analysis reads a frame.
    fn frame<'a>(&'a self, index: usize, row: &FrameRow) -> why::Frame<'a> {
        let (do_frame, phases) = &self.rows[index];
        why::Frame {
            index,
            do_frame: *do_frame,
            tid: row.tid,
            vsync_ts: row.vsync_ts,
            jitter_ns: row.jitter_ns,
            phases,
        }
    }
}

impl FrameAnalysis {
    /// Explain the janky frames among `frames` (row indices) that have no
    /// [`FrameWhy`] yet ([`Whys::Asked`]; others have them all already).
    pub fn explain_frames(&mut self, trace: &Trace, frames: impl IntoIterator<Item = usize>) {
        let Some(ex) = &self.explainer else { return };
        let explained: HashSet<usize> = self.why.iter().map(|w| w.frame_index).collect();
        let mut todo: Vec<usize> = frames
            .into_iter()
            .filter(|&i| self.rows.get(i).is_some_and(|r| r.dropped_frames >= 1) && !explained.contains(&i))
            .collect();
        todo.sort_unstable();
        todo.dedup();
        let ctx = ex.context(trace, &self.sched);
        let rows = &self.rows;
        let new: Vec<FrameWhy> = todo
            .into_par_iter()
            .map(|index| {
                let f = ex.frame(index, &rows[index]);
                ctx.explain(&f, ctx.critical_path(&f))
            })
            .collect();
        self.why.extend(new);
        self.why.sort_by_key(|w| w.frame_index);
    }

    /// Give every row its path's totals (`FrameRow::path_totals`) if
    /// [`Whys::Asked`] left them to be asked for; once.
    pub fn total_paths(&mut self, trace: &Trace) {
        let Some(ex) = self.explainer.as_mut().filter(|ex| !ex.totalled) else { return };
        let ctx = ex.context(trace, &self.sched);
        self.rows.par_iter_mut().enumerate().for_each(|(index, row)| {
            row.path_totals = ctx.critical_path_totals(&ex.frame(index, row));
        });
        ex.totalled = true;
    }

    /// The critical path's totals of thread `tid` over `[from, to)`, walked
    /// as a frame's is (any window: a startup's, docs/startups.md); empty
    /// for an analysis made by hand, without the indexes.
    pub fn path_totals(&self, trace: &Trace, tid: i32, from: i64, to: i64) -> Vec<critical_path::PathTotal> {
        self.path_index(trace).map_or_else(Vec::new, |paths| paths.totals(tid, from, to))
    }

    /// What walks the critical path of a frame thread over any window (a
    /// main-thread block's, docs/blocks.md); None for an analysis made by
    /// hand, without the indexes.
    pub fn path_index<'a>(&'a self, trace: &'a Trace) -> Option<critical_path::PathIndex<'a>> {
        self.explainer.as_ref().map(|ex| critical_path::PathIndex::new(trace, &self.sched, &ex.paths))
    }

    /// The [`FrameWhy`] of row `index`, if it has one.
    pub fn why_of(&self, index: usize) -> Option<&FrameWhy> {
        self.why.binary_search_by_key(&index, |w| w.frame_index).ok().map(|i| &self.why[i])
    }
}

/// Thread ids whose scheduler data the frames use: those that ran
/// `Choreographer#doFrame`, and the RenderThreads (threads that ran a
/// `DrawFrame…` slice) of their processes — the "why" splits the first's
/// time by state and follows a frame's critical path through both. Load it
/// with `read::sched_for_threads` into `Trace::sched` before calling [`analyze`].
pub fn frame_threads(trace: &Trace) -> Vec<i32> {
    threads_of(&select::select(trace), &render_threads(trace))
}

/// The frame threads of `sel` and the RenderThreads (of `renderers`) of
/// their processes.
fn threads_of(sel: &select::Selection, renderers: &[(i32, i32)]) -> Vec<i32> {
    let mut tids: Vec<i32> = sel.frames.iter().map(|c| c.tid).collect();
    let pids: HashSet<i32> = sel.frames.iter().map(|c| c.pid).collect();
    tids.extend(renderers.iter().filter(|(pid, _)| pids.contains(pid)).map(|&(_, tid)| tid));
    tids.sort_unstable();
    tids.dedup();
    tids
}

/// A FrameTimeline lookup must find a vsync sample this close to the frame.
const SERIES_MAX_DIST: i64 = 500_000_000;
/// The interval when nothing in the trace gives one (counted as `default`).
const FALLBACK_INTERVAL: i64 = 16_666_667;
/// How far back the `VSYNC-app` edge of a thread's first frame may be.
const FIRST_EDGE_LOOKBACK: i64 = 1_000_000_000;

/// The time span whose RenderThread and FrameTimeline data belong to a
/// frame. A vsync id names one frame of one process, so normally the span is
/// the whole trace. When the id repeats in the process (two captures joined,
/// a reboot inside the trace, a hand-made or hostile trace), each doFrame
/// with that id takes what lies nearer to it than to the id's other doFrames:
/// the span between the midpoints to its neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Window {
    from: i64,
    until: i64,
}

impl Window {
    const ALL: Window = Window { from: i64::MIN, until: i64::MAX };

    /// The items of `sorted` (ordered by `ts`) that start in `[from, until)`.
    pub(crate) fn of<T>(self, sorted: &[T], ts: impl Fn(&T) -> i64) -> &[T] {
        if self == Window::ALL {
            return sorted;
        }
        let lo = sorted.partition_point(|x| ts(x) < self.from);
        let hi = sorted.partition_point(|x| ts(x) < self.until).max(lo);
        &sorted[lo..hi]
    }
}

/// How often vsync ids repeat within a process.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Repeats {
    /// Frames sharing their (pid, id) with another frame.
    frames: u64,
    /// Distinct (pid, id) pairs that repeat.
    ids: u64,
    /// The most frames one (pid, id) has.
    max_uses: u64,
}

/// Windows of every frame: [`Window::ALL`] unless its (pid, id) repeats.
/// Returns them and how often ids repeat.
fn id_windows(frames: &[select::Candidate]) -> (Vec<Window>, Repeats) {
    // (pid, id, frame) sorted: each id's frames together, in selection
    // order, which is start order (a map of vectors allocated once per frame).
    let mut same: Vec<(i32, i64, usize)> =
        frames.iter().enumerate().filter_map(|(k, c)| Some((c.pid, c.frame_id?, k))).collect();
    same.sort_unstable();
    let mut windows = vec![Window::ALL; frames.len()];
    let mut repeated = Repeats::default();
    let mid = |a: i64, b: i64| a + (b - a) / 2;
    for group in same.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)).filter(|g| g.len() > 1) {
        repeated.frames += group.len() as u64;
        repeated.ids += 1;
        repeated.max_uses = repeated.max_uses.max(group.len() as u64);
        for (j, &(_, _, k)) in group.iter().enumerate() {
            let ts = frames[k].ts;
            let from = if j > 0 { mid(frames[group[j - 1].2].ts, ts) } else { i64::MIN };
            let until = group.get(j + 1).map_or(i64::MAX, |&(_, _, n)| mid(ts, frames[n].ts));
            windows[k] = Window { from, until };
        }
    }
    (windows, repeated)
}

/// The trace's indexes every pass looks frames up in, built once.
struct Indexes<'a> {
    trace: &'a Trace,
    frames: &'a [select::Candidate],
    tl: timeline::TimelineIndex,
    draws: render_thread::DrawIndex,
    counters: vsync::CounterIndex,
    /// Frames per thread, in start order (selection order is slice order = ts).
    by_thread: Vec<Vec<usize>>,
    windows: Vec<Window>,
    /// Each frame's own FrameTimeline surface frames.
    surfaces: Vec<Option<timeline::SurfaceMatch>>,
    display: DisplayGrid,
}

impl<'a> Indexes<'a> {
    fn new(trace: &'a Trace, frames: &'a [select::Candidate], windows: Vec<Window>) -> Self {
        let mut slot: HashMap<model::Utid, usize> = HashMap::default();
        let mut by_thread: Vec<Vec<usize>> = Vec::new();
        for (k, c) in frames.iter().enumerate() {
            let t = *slot.entry(c.utid).or_insert_with(|| {
                by_thread.push(Vec::new());
                by_thread.len() - 1
            });
            by_thread[t].push(k);
        }
        // Each index is one pass over its own table: build them side by side.
        let ((tl, display), (draws, counters)) = rayon::join(
            || rayon::join(|| timeline::TimelineIndex::new(trace), || DisplayGrid::new(trace)),
            || rayon::join(|| render_thread::DrawIndex::new(trace), || vsync::CounterIndex::new(trace)),
        );
        let surfaces = frames
            .par_iter()
            .zip(&windows)
            .map(|(c, &w)| c.frame_id.and_then(|id| tl.surface(&trace.frame_timeline, c.pid, id, w)))
            .collect();
        Indexes { trace, frames, tl, draws, counters, by_thread, windows, surfaces, display }
    }

    /// The app's own FrameTimeline surface frames of frame `k`.
    fn surface(&self, k: usize) -> Option<&timeline::SurfaceMatch> {
        self.surfaces[k].as_ref()
    }
}

/// Frames per parallel work item of the per-frame passes.
const ROW_CHUNK: usize = 2048;

impl FrameQuality {
    /// Adds the per-frame tallies of `q` (sources, frames without
    /// RenderThread or timeline data) to these.
    fn add_counts(&mut self, q: FrameQuality) {
        for (k, n) in q.vsync_sources {
            *self.vsync_sources.entry(k).or_default() += n;
        }
        for (k, n) in q.interval_sources {
            *self.interval_sources.entry(k).or_default() += n;
        }
        self.without_render_thread += q.without_render_thread;
        self.without_timeline += q.without_timeline;
    }
}

/// Rebuild every frame of every app in the trace.
pub fn analyze(trace: &Trace, opts: &FrameOptions) -> FrameAnalysis {
    rebuild(trace, opts, Whys::Janky, |_| sched_index::SchedIndex::new(&trace.sched))
}

/// [`analyze`], with the frame threads' scheduler events from `load_sched`
/// (given [`frame_threads`]) instead of `Trace::sched`: the load runs beside
/// the reconstruction of the rows, which does not need it, and its events
/// are dropped once indexed.
pub fn analyze_with(
    trace: &Trace,
    opts: &FrameOptions,
    whys: Whys,
    load_sched: impl FnOnce(&[i32]) -> Vec<Vec<SchedEvent>> + Send,
) -> FrameAnalysis {
    rebuild(trace, opts, whys, |tids| sched_index::SchedIndex::of_threads(load_sched(tids)))
}

fn rebuild(
    trace: &Trace,
    opts: &FrameOptions,
    whys: Whys,
    sched: impl FnOnce(&[i32]) -> sched_index::SchedIndex + Send,
) -> FrameAnalysis {
    let sel = select::select(trace);
    let renderers = render_threads(trace);
    let tids = threads_of(&sel, &renderers);
    // The frame threads' top-level slices (for the blockers) are gathered
    // beside the scheduler pass, which is done before the rows.
    let tracks: HashSet<model::TrackId> = sel.frames.iter().map(|c| trace.slice(c.slice).track).collect();
    let ((sched, (top, path_threads)), built) = rayon::join(
        || (sched(&tids), (why::TopLevel::new(trace, &tracks), critical_path::PathThreads::new(trace, &renderers))),
        || rows(trace, &sel, opts),
    );
    let mut built = built;
    input_started(&mut built, &sched);
    let explainer = Explainer {
        blocker_threshold_ns: opts.blocker_threshold_ns,
        rows: built.order.iter().map(|&k| (built.ix.frames[k].slice, built.phases_of[k].dur)).collect(),
        top,
        paths: path_threads,
        totalled: whys == Whys::Janky,
    };
    let Rows { ix, mut rows, quality, .. } = built;
    let why = match whys {
        Whys::Asked => Vec::new(),
        Whys::Janky => explain(&mut rows, &explainer, &explainer.context(trace, &sched)),
    };
    FrameAnalysis { rows, why, quality, display: ix.display, sched, explainer: Some(explainer) }
}

/// Every frame's row, with what `explain` needs of the way there.
struct Rows<'t> {
    ix: Indexes<'t>,
    /// Ordered by (pid, ts).
    rows: Vec<FrameRow>,
    /// `order[i]` is the frame (index into the selection) of `rows[i]`.
    order: Vec<usize>,
    /// Each frame's phases, by frame.
    phases_of: Vec<phases::Phases>,
    quality: FrameQuality,
    loss: loss::LossIndex,
}

fn rows<'t>(trace: &'t Trace, sel: &'t select::Selection, opts: &FrameOptions) -> Rows<'t> {
    let (windows, repeats) = id_windows(&sel.frames);
    let ix = Indexes::new(trace, &sel.frames, windows);
    let intervals = intervals(&ix, opts);
    let (vsyncs, phases_of) = vsyncs(&ix, &intervals);
    let next_start = next_legacy_starts(&ix);
    let mut quality = FrameQuality {
        cut_by_trace_bounds: sel.cut_by_trace_bounds,
        repeated_ids: repeats.frames,
        repeated_id_values: repeats.ids,
        max_id_uses: repeats.max_uses,
        ..Default::default()
    };
    // Rows are ordered by (pid, ts) (stable, so nested doFrames keep slice
    // order) and independent: each core fills chunks of the one output
    // vector in that order, with a tally per chunk.
    let frames = &sel.frames;
    let mut order: Vec<usize> = (0..frames.len()).collect();
    order.sort_by_key(|&k| (frames[k].pid, frames[k].ts));
    let mut rows: Vec<FrameRow> = vec![FrameRow::default(); frames.len()];
    let loss = loss::LossIndex::new(trace);
    let tallies: Vec<FrameQuality> = rows
        .par_chunks_mut(ROW_CHUNK)
        .zip(order.par_chunks(ROW_CHUNK))
        .map(|(out, ks)| {
            let mut q = FrameQuality::default();
            for (o, &k) in out.iter_mut().zip(ks) {
                *o = row(&ix, k, intervals[k], vsyncs[k], &phases_of[k], next_start[k], &mut q);
                o.data_loss = loss.touches(&frames[k], o);
            }
            q
        })
        .collect();
    for q in tallies {
        quality.add_counts(q);
    }
    Rows { ix, rows, order, phases_of, quality, loss }
}

/// Frames a touch started (docs/frames.md, "Input-started frames"): their
/// vsync moves to the input dispatcher's wakeup of their thread, and their
/// timing columns and data loss follow it. Needs the scheduler data, which
/// is read beside the rows.
fn input_started(built: &mut Rows, sched: &SchedIndex) {
    let starts = input_start::InputStarts::new(built.ix.trace);
    if starts.is_empty() || !sched.has_data {
        return;
    }
    let Rows { ix, rows, order, quality, loss, .. } = built;
    let moved: Vec<Option<VsyncSource>> = rows
        .par_iter_mut()
        .zip(order.par_iter())
        .with_min_len(ROW_CHUNK)
        .map(|(r, &k)| {
            let was = r.vsync_source?;
            let woken = starts.request(sched, r.tid, r.vsync_ts?, r.ts)?;
            r.vsync_ts = Some(woken);
            r.vsync_source = Some(VsyncSource::InputWakeup);
            r.retime();
            r.data_loss = loss.touches(&ix.frames[k], r);
            Some(was)
        })
        .collect();
    for was in moved.into_iter().flatten() {
        let n = quality.vsync_sources.entry(was.as_str().to_string()).or_default();
        *n = n.saturating_sub(1);
        if *n == 0 {
            quality.vsync_sources.remove(was.as_str());
        }
        *quality.vsync_sources.entry(VsyncSource::InputWakeup.as_str().to_string()).or_default() += 1;
    }
}

/// The most common frame interval of `rows` (the shorter of two as common),
/// else 60 Hz: what to assume where nothing in the trace measures one.
pub fn common_interval(rows: &[FrameRow]) -> i64 {
    most_common(rows.iter().map(|r| r.frame_interval_ns)).unwrap_or(FALLBACK_INTERVAL)
}

/// The most common of `periods`, the shorter of two as common.
fn most_common(periods: impl Iterator<Item = i64>) -> Option<i64> {
    let mut counts: HashMap<i64, usize> = HashMap::default();
    for p in periods {
        *counts.entry(p).or_default() += 1;
    }
    counts.into_iter().max_by_key(|&(p, c)| (c, std::cmp::Reverse(p))).map(|x| x.0)
}

/// Pass 1: the interval of every frame, from the first source that has one:
/// `--refresh-hz`, FrameTimeline expected starts, `VSYNC-app` edges, the
/// thread's doFrame grid, each checked against the display's grid (see
/// the end); frames nothing measured take the trace's most common interval.
fn intervals(ix: &Indexes, opts: &FrameOptions) -> Vec<(i64, IntervalSource)> {
    let (trace, frames) = (ix.trace, ix.frames);
    // Every app's expected surface frame starts (exact app-vsync times, all
    // apps share the grid) and the VSYNC-app edges.
    let mut ft_starts: Vec<i64> =
        trace.frame_timeline.iter().filter(|t| t.kind == model::TimelineKind::ExpectedSurface).map(|t| t.ts).collect();
    ft_starts.sort_unstable();
    let ft_series = interval::PeriodSeries::new(ft_starts, interval::SeriesKind::FrameTimeline);
    let va_series = interval::PeriodSeries::new(ix.counters.vsync_app.clone(), interval::SeriesKind::Counter);
    let mut iv: Vec<Option<(i64, IntervalSource)>> = vec![None; frames.len()];
    // A rate above 1 GHz would round to a 0 ns interval: clamp to 1 ns.
    let forced = opts.refresh_hz.filter(|h| h.is_finite() && *h > 0.0).map(|h| interval::period_of_hz(h).max(1));
    for idxs in &ix.by_thread {
        let grid = interval::PeriodSeries::new(
            idxs.iter().map(|&k| frames[k].ts).collect(),
            interval::SeriesKind::DoFrameStarts,
        );
        let found: Vec<Option<(i64, IntervalSource)>> = idxs
            .par_iter()
            .with_min_len(ROW_CHUNK)
            .map(|&k| {
                let c = &frames[k];
                // Look the FrameTimeline series up at the frame's own vsync when known.
                let ft_t = ix.surface(k).and_then(|m| m.expected).map(|e| trace.frame_timeline[e].ts).unwrap_or(c.ts);
                if let Some(p) = forced {
                    Some((p, IntervalSource::Override))
                } else if let Some(p) = ft_series.at(ft_t, SERIES_MAX_DIST) {
                    Some((p, IntervalSource::FrameTimeline))
                } else if let Some(p) = va_series.at(c.ts, SERIES_MAX_DIST) {
                    Some((p, IntervalSource::VsyncApp))
                } else {
                    grid.at(c.ts, 0).map(|p| (p, IntervalSource::DoFrameGrid))
                }
            })
            .collect();
        for (&k, f) in idxs.iter().zip(found) {
            iv[k] = f;
        }
    }
    // One process's series is not the display's grid: where SurfaceFlinger's
    // vsync counters measure another period, they win; a period that is no
    // refresh rate, or a doFrame grid slower than the trace's common one
    // (drawing every second or third vsync), is no measurement.
    for (k, x) in iv.iter_mut().enumerate() {
        let Some((p, src)) = *x else { continue };
        if !matches!(src, IntervalSource::FrameTimeline | IntervalSource::DoFrameGrid) {
            continue;
        }
        match ix.display.counted_at(frames[k].ts) {
            Some(d) if d != p => *x = Some((d, IntervalSource::DisplayVsync)),
            Some(_) => {}
            None if !interval::is_standard(p) => *x = None,
            None => {}
        }
    }
    let common = most_common(iv.iter().flatten().map(|&(p, _)| p));
    let fallback = (common.unwrap_or(FALLBACK_INTERVAL), IntervalSource::Default);
    let sparse = |&(p, src): &(i64, IntervalSource)| src == IntervalSource::DoFrameGrid && p * 100 > fallback.0 * 115;
    iv.into_iter().map(|x| x.filter(|f| !sparse(f)).unwrap_or(fallback)).collect()
}

type Vsync = (Option<i64>, Option<VsyncSource>);

/// Pass 2: the vsync of every frame (docs/frames.md, "Which vsync a frame
/// belongs to"), and its callback phases.
fn vsyncs(ix: &Indexes, intervals: &[(i64, IntervalSource)]) -> (Vec<Vsync>, Vec<phases::Phases>) {
    let (trace, frames) = (ix.trace, ix.frames);
    let mut vs: Vec<Vsync> = vec![(None, None); frames.len()];
    let mut phases_of: Vec<phases::Phases> = vec![phases::Phases::default(); frames.len()];
    for idxs in &ix.by_thread {
        let starts: Vec<i64> = idxs.iter().map(|&k| frames[k].ts).collect();
        let ints: Vec<i64> = idxs.iter().map(|&k| intervals[k].0).collect();
        let found: Vec<(Vsync, phases::Phases)> = idxs
            .par_iter()
            .enumerate()
            .with_min_len(ROW_CHUNK)
            .map(|(j, &k)| {
                let c = &frames[k];
                let ph = phases::phases(trace, c.slice);
                let expected = ix.surface(k).and_then(|m| m.expected);
                let after = if j > 0 { starts[j - 1] } else { c.ts - FIRST_EDGE_LOOKBACK };
                let v = if let Some(e) = expected {
                    (Some(trace.frame_timeline[e].ts), Some(VsyncSource::FrameTimeline))
                } else if let Some(e) = ix.counters.vsync_app_edge(c.ts, after) {
                    (Some(e), Some(VsyncSource::VsyncApp))
                } else if let Some((t, j)) =
                    c.upid.zip(ph.commit_ts).and_then(|(u, ct)| ix.counters.jitter_sample(u, c.ts, ct))
                {
                    // Choreographer wrote now − frameTime: the (start-corrected) frame time.
                    (Some(t - j), Some(VsyncSource::JitterCounter))
                } else if let Some(v) = vsync::grid_vsync(&starts, &ints, j) {
                    (Some(v), Some(VsyncSource::Estimated))
                } else {
                    (None, None)
                };
                (v, ph)
            })
            .collect();
        for (&k, (v, ph)) in idxs.iter().zip(found) {
            vs[k] = v;
            phases_of[k] = ph;
        }
    }
    (vs, phases_of)
}

/// The next frame start per process, for the pre-12 DrawFrame rule: only
/// frames without an id take part, as in trace_processor's maxsdk28 table.
fn next_legacy_starts(ix: &Indexes) -> Vec<i64> {
    let frames = ix.frames;
    let mut next_start: Vec<i64> = vec![ix.trace.meta.last_ts.map(|t| t + 1).unwrap_or(i64::MAX); frames.len()];
    let mut by_pid: HashMap<i32, Vec<usize>> = HashMap::default();
    for (k, c) in frames.iter().enumerate() {
        if c.frame_id.is_none() {
            by_pid.entry(c.pid).or_default().push(k);
        }
    }
    for v in by_pid.values() {
        for w in v.windows(2) {
            next_start[w[0]] = frames[w[1]].ts;
        }
    }
    next_start
}

/// Pass 3: frame `k`'s row (docs/frames.md, column by column), counted in `quality`.
fn row(
    ix: &Indexes,
    k: usize,
    (i, isrc): (i64, IntervalSource),
    (vsync_ts, vsrc): Vsync,
    ph: &phases::Phases,
    next_start: i64,
    quality: &mut FrameQuality,
) -> FrameRow {
    let (trace, c) = (ix.trace, &ix.frames[k]);
    let draw = match c.frame_id {
        Some(id) => ix.draws.by_id(trace, c.pid, id, ix.windows[k]),
        None => ix.draws.by_time(trace, c.pid, c.ts, next_start),
    };
    let m = ix.surface(k);
    let expected = m.and_then(|m| m.expected).map(|e| &trace.frame_timeline[e]);
    let actual = m.and_then(|m| m.actuals.first()).map(|&a| &trace.frame_timeline[a]);
    let perfetto_overrun = c.frame_id.and_then(|id| ix.tl.perfetto_overrun(&trace.frame_timeline, id));
    let compat = perfetto_compat::compat(c.frame_id, c.dur, &draw, expected, actual, perfetto_overrun);
    *quality.vsync_sources.entry(VsyncSource::key(vsrc).to_string()).or_default() += 1;
    *quality.interval_sources.entry(isrc.as_str().to_string()).or_default() += 1;
    quality.without_render_thread += (draw.count == 0) as u64;
    quality.without_timeline += actual.is_none() as u64;
    let end = |s: &model::TimelineSlice| s.ts + s.dur;
    let name = |n: Option<&model::Name>| n.map(|n| n.to_string());
    let mut out = FrameRow {
        process: c.upid.and_then(|u| name(trace.process(u).name.as_ref())),
        pid: c.pid,
        tid: c.tid,
        thread: name(trace.thread(c.utid).name.as_ref()),
        frame_id: c.frame_id,
        ts: c.ts,
        do_frame_dur: c.dur,
        vsync_ts,
        vsync_source: vsrc,
        frame_interval_ns: i,
        refresh_hz: 1e9 / i as f64,
        input_dur: ph.dur[Phase::Input],
        animation_dur: ph.dur[Phase::Animation],
        insets_animation_dur: ph.dur[Phase::InsetsAnimation],
        traversal_dur: ph.dur[Phase::Traversal],
        commit_dur: ph.dur[Phase::Commit],
        commit_ts: ph.commit_ts,
        draw_frame_ts: draw.ts,
        draw_frame_dur: draw.dur,
        draw_frame_count: draw.count,
        expected_ts: expected.map(|e| e.ts),
        expected_end: expected.map(end),
        actual_ts: actual.map(|a| a.ts),
        actual_end: actual.map(end),
        overrun_ns: match (expected, actual) {
            (Some(e), Some(a)) => Some(end(a) - end(e)),
            _ => None,
        },
        jank_type: actual.and_then(|a| name(a.jank_type.as_ref())),
        present_type: actual.and_then(|a| a.present_type),
        jank_tag: actual.and_then(|a| a.jank_tag),
        jank_severity: actual.and_then(|a| a.jank_severity_type),
        present_delay_ms: actual.and_then(|a| a.present_delay_ms),
        layer_name: actual.and_then(|a| name(a.layer_name.as_ref())),
        layer_count: m.map(|m| m.actuals.len() as i64).unwrap_or(0),
        app_vsync_delay: compat.app_vsync_delay,
        cpu_time: compat.cpu_time,
        ui_time: compat.ui_time,
        was_jank: compat.was_jank,
        was_slow_frame: compat.was_slow_frame,
        was_big_jank: compat.was_big_jank,
        was_huge_jank: compat.was_huge_jank,
        interval_source: isrc,
        perfetto_overrun_ns: compat.overrun_ns,
        // Set by `rows` (loss::LossIndex), which sees the whole row.
        data_loss: false,
        // Set by `rebuild` from the critical path.
        path_totals: Vec::new(),
        // The timing columns: set by `retime` below.
        ..FrameRow::default()
    };
    out.retime();
    out
}

/// Every row's critical path totals (its time per (thread, slice), most
/// first), set on the row, and each janky row's why, in row order
/// ([`Whys::Janky`]).
fn explain(rows: &mut [FrameRow], ex: &Explainer, ctx: &why::WhyContext) -> Vec<FrameWhy> {
    // Each frame is explained on its own: in parallel, in row order.
    rows.par_iter_mut()
        .enumerate()
        .filter_map(|(index, row)| {
            let f = ex.frame(index, row);
            // A janky frame's whole path is shown (its why); of every other
            // frame only the totals are kept, so only they are made.
            if row.dropped_frames >= 1 {
                let path = ctx.critical_path(&f);
                row.path_totals = critical_path::totals(&path, ctx.trace);
                Some(ctx.explain(&f, path))
            } else {
                row.path_totals = ctx.critical_path_totals(&f);
                None
            }
        })
        .collect()
}

use crate::model;
