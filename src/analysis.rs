//! The one analysis entry point. Every command that analyses a trace
//! (`analyze`, `query`, `capture --analyze`, `compare`), the benchmark and
//! the fuzz target call these functions, so the wiring of the stages and the
//! defaults exist once: open → read → import → scheduler pass for the frame
//! threads → frames → (with the `analysis` feature) summaries.

use std::path::{Path, PathBuf};

use crate::blocks::{self, BlockAnalysis};
use crate::cujs::{self, CujAnalysis};
use crate::frames::{self, FrameAnalysis, FrameOptions};
use crate::import;
use crate::model::{Trace, Warning, WarningCode};
use crate::presents::{self, PresentAnalysis};
use crate::read::{self, ReadError, ReadOptions, SchedPass, Source};
use crate::sink::Sink;

/// Main-thread slices at least this long before a frame's start are blockers
/// (the trace-side BlockCanary), unless `--blocker-ms` says otherwise.
pub const DEFAULT_BLOCKER_MS: f64 = 8.0;

/// `--blocker-ms` as the frames stage wants it.
pub fn blocker_threshold_ns(blocker_ms: f64) -> i64 {
    (blocker_ms * 1e6).round() as i64
}

/// What to analyse and how.
#[derive(Debug, Clone)]
pub struct Options {
    pub frames: FrameOptions,
    /// Where progress bars go.
    pub sink: Sink,
    /// A trace without frames (or without frames of the chosen apps) is an
    /// error; `query` turns this off and runs its SQL over empty tables.
    pub require_frames: bool,
    /// Analyse the whole trace even when it marks a driven scenario's window
    /// (docs/capture.md, "The scenario's window").
    pub whole_trace: bool,
    /// Where main-thread blocks' levels begin (docs/blocks.md, "Levels").
    pub blocks: blocks::Thresholds,
    #[cfg(feature = "analysis")]
    pub filter: crate::metrics::AppFilter,
    #[cfg(feature = "analysis")]
    pub metrics: crate::metrics::MetricsOptions,
    /// Compute the per-app summaries (`Analysis::apps`); `compare`, which
    /// computes its own metrics per run, turns this off.
    #[cfg(feature = "analysis")]
    pub summaries: bool,
    /// Build the frames and presents tables (`Analysis::row_tables`) and
    /// every frame's path totals, which only they and
    /// `compare` read (the `blocker_*` columns, `compare`'s blockers):
    /// `analyze` printing its table turns this off.
    #[cfg(feature = "analysis")]
    pub tables: bool,
    /// Build the frame timeline's lanes (`Analysis::lanes`, for
    /// `report.html`; docs/report.md, "Frame timeline"): `analyze --out`.
    #[cfg(feature = "analysis")]
    pub lanes: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            frames: FrameOptions { refresh_hz: None, blocker_threshold_ns: blocker_threshold_ns(DEFAULT_BLOCKER_MS) },
            sink: Sink::quiet(),
            require_frames: true,
            whole_trace: false,
            blocks: blocks::Thresholds::default(),
            #[cfg(feature = "analysis")]
            filter: crate::metrics::AppFilter::All,
            #[cfg(feature = "analysis")]
            metrics: crate::metrics::MetricsOptions::default(),
            #[cfg(feature = "analysis")]
            summaries: true,
            #[cfg(feature = "analysis")]
            tables: true,
            #[cfg(feature = "analysis")]
            lanes: false,
        }
    }
}

/// A trace and every frame rebuilt from it (no summaries: this part needs no
/// polars, so the fuzz target runs it).
#[derive(Debug)]
pub struct TraceFrames {
    pub trace: Trace,
    pub frames: FrameAnalysis,
    /// What every layer presented, and every app's renderer.
    pub presents: PresentAnalysis,
    /// The jank CUJs (`J<NAME>` interactions) and their frames.
    pub cujs: CujAnalysis,
    /// Every main thread's blocks (docs/blocks.md).
    pub blocks: BlockAnalysis,
    /// The reader's warnings, and what rebuilding the frames noticed.
    pub warnings: Vec<Warning>,
    /// How many scheduler records the scheduler pass kept for the frames
    /// stage: a work count the speed guard checks (`examples/guard.rs`).
    pub sched_records: usize,
}

/// How every analysis that rebuilds frames reads a trace: the scheduler
/// records of the frame threads and of the RenderThreads (the threads
/// `frames::frame_threads` asks the scheduler pass for) are kept while decoding.
pub fn frame_read_options(sink: Sink) -> ReadOptions {
    ReadOptions { sink, keep_sched_of_slices: &[frames::DO_FRAME, frames::DRAW_FRAME] }
}

/// Read an opened trace and import it into the model; the scheduler pass
/// for it comes with it, the records of the threads the first pass found
/// to begin frames read beside the import (`SchedPass::prefetch`), which
/// leaves them nothing to wait for once the frames stage names its threads.
pub fn decode(source: &Source, opts: &ReadOptions) -> Result<(Trace, SchedPass), ReadError> {
    let (decoded, mut sched) = read::decode(source, opts)?;
    let (trace, ()) = rayon::join(|| import::import(decoded), || sched.prefetch(source));
    if trace.meta.packets == 0 && trace.slices.is_empty() && trace.meta.ftrace_events == 0 {
        return Err(ReadError::NotATrace { path: source.path.clone(), why: "no trace events found".to_string() });
    }
    Ok((trace, sched))
}

/// An opened, read and imported trace file; the source stays open for the
/// scheduler pass.
pub struct Opened {
    pub source: Source,
    pub sched: SchedPass,
    pub trace: Trace,
}

/// Open, read and import a trace file (what `info` and `query` without frame
/// tables need).
pub fn open(path: &Path, opts: &ReadOptions) -> Result<Opened, ReadError> {
    let source = Source::open(path)?;
    let (trace, sched) = decode(&source, opts)?;
    Ok(Opened { source, sched, trace })
}

/// Open, read and import a trace file.
pub fn load(path: &Path, opts: &ReadOptions) -> Result<Trace, ReadError> {
    Ok(open(path, opts)?.trace)
}

/// Rebuild every frame of an opened trace, with the scheduler pass for the
/// frame threads (the "why" needs their Running/Runnable/Sleeping split).
pub fn frames_of(opened: Opened, opts: &Options) -> TraceFrames {
    frames_explained(opened, opts, frames::Whys::Janky)
}

/// [`frames_of`], with the janky frames explained as `whys` says.
fn frames_explained(opened: Opened, opts: &Options, whys: frames::Whys) -> TraceFrames {
    let Opened { source, mut sched, trace } = opened;
    let mut warnings = trace.meta.warnings.clone();
    // The scheduler pass runs beside the rows' reconstruction.
    let mut sched_records = 0;
    let frames = frames::analyze_with(&trace, &opts.frames, whys, |tids| {
        let kept = import::sched_events(sched.threads(&source, tids));
        sched_records = kept.iter().map(Vec::len).sum();
        kept
    });
    if frames.quality.repeated_ids > 0 {
        warnings.push(Warning::new(WarningCode::RepeatedVsyncIds, format!(
            "{} frames share their vsync id with another frame of the same process ({} ids repeat, up to {} times each: joined captures or a reboot inside the trace?); each was matched to the RenderThread and FrameTimeline data nearest to it in time",
            frames.quality.repeated_ids, frames.quality.repeated_id_values, frames.quality.max_id_uses
        )));
    }
    let mut frames = frames;
    let window = if opts.whole_trace { None } else { frames::scenario_window(&trace) };
    if let Some(w) = window {
        let all = frames.rows.len();
        frames.restrict(w);
        let at = |ns: i64| (ns - trace.meta.first_ts.unwrap_or(0)) as f64 / 1e9;
        let end = if w.end_ns == i64::MAX { "the trace's end".to_string() } else { format!("{:.3} s", at(w.end_ns)) };
        warnings.push(Warning::new(WarningCode::ScenarioWindow, format!(
            "analysed the driven scenario's window, {:.3} s to {end} into the trace (its {} marks): {} of {all} frames; --whole-trace analyses them all",
            at(w.start_ns), crate::model::SCENARIO_MARK, frames.rows.len()
        )));
    }
    // Three stages that read the frames and not each other: side by side.
    let (presents, (cujs, mut blocks)) = rayon::join(
        || presents::analyze_in(&trace, &frames, window),
        || (cujs::analyze(&trace, &frames), blocks::analyze(&trace, &frames, &opts.blocks)),
    );
    if let Some(w) = window {
        blocks.restrict(w, &trace);
    }
    if whys == frames::Whys::Janky {
        blocks.explain(&trace, &frames, None);
    }
    TraceFrames { trace, frames, presents, cujs, blocks, warnings, sched_records }
}

/// The facts `capture` checks a pulled trace for (its loader).
pub fn trace_facts(path: &Path) -> Result<crate::capture::TraceFacts, ReadError> {
    let trace = load(path, &ReadOptions::default())?;
    Ok(crate::capture::TraceFacts {
        packets: trace.meta.packets,
        span_ns: trace.span_ns(),
        data_sources: trace.meta.data_sources.clone(),
        processes: trace.processes.iter().map(|p| (p.pid, p.name.as_deref().map(str::to_string))).collect(),
    })
}

/// Why a trace gave nothing to summarise.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("no frames in {}: it has no Choreographer#doFrame slices and no presented buffers (FrameTimeline, SurfaceFlinger layer counters or queueBuffer); record with atrace categories gfx and view, the frametimeline data source and the app in atrace_apps (`fpsan capture --app PKG`)", path.display())]
    NoFrames { path: PathBuf },
    #[error("no frames or presents for {asked} in {}; the apps it has: {apps}; pass one of their names to --app, or a pid to --pid", path.display())]
    NoFramesForApp { path: PathBuf, asked: String, apps: String },
    /// A table could not be built (polars refused its columns).
    #[cfg(feature = "analysis")]
    #[error("table: {0}")]
    Table(#[from] polars::prelude::PolarsError),
}

impl AnalysisError {
    pub fn kind(&self) -> crate::error::ErrorKind {
        match self {
            AnalysisError::Read(e) => e.kind(),
            _ => crate::error::ErrorKind::Input,
        }
    }
}

/// The full analysis of one trace: frames, the frames table of the chosen
/// apps, and their summaries.
#[cfg(feature = "analysis")]
#[derive(Debug)]
pub struct Analysis {
    pub trace: Trace,
    pub frames: FrameAnalysis,
    /// The frames and presents tables; None when `Options::tables` is off.
    pub row_tables: Option<RowTables>,
    /// The presents of the layers of the apps `Options::filter` keeps.
    pub presents: PresentAnalysis,
    /// The jank CUJs of the apps `Options::filter` keeps.
    pub cujs: CujAnalysis,
    /// The startups of the apps `Options::filter` keeps.
    pub startups: crate::startups::StartupAnalysis,
    /// The main-thread blocks of the apps `Options::filter` keeps.
    pub blocks: BlockAnalysis,
    /// The input events, gestures and input summaries of the apps
    /// `Options::filter` keeps (docs/input.md).
    pub input: crate::input::InputAnalysis,
    /// Per-app summaries; empty when `Options::summaries` is off.
    pub apps: Vec<crate::metrics::AppSummary>,
    /// The frame timeline's lanes of the frames that matter; None unless
    /// `Options::lanes` asked for them.
    pub lanes: Option<crate::lanes::Lanes>,
    pub warnings: Vec<Warning>,
    /// `TraceFrames::sched_records`.
    pub sched_records: usize,
}

/// The tables with a row per frame and per present.
#[cfg(feature = "analysis")]
#[derive(Debug, Clone)]
pub struct RowTables {
    /// The frames of the apps `Options::filter` keeps, with their scenes.
    pub frames: polars::prelude::DataFrame,
    /// The presents of the layers of the apps `Options::filter` keeps.
    pub presents: polars::prelude::DataFrame,
}

#[cfg(feature = "analysis")]
impl Analysis {
    /// Take the model out (its slices, counters, scheduler records: most of
    /// the memory), keeping its facts (`trace.meta`), which is all a report
    /// reads of it; the caller frees it, or leaves it to the process' exit.
    pub fn take_model(&mut self) -> Trace {
        let meta = self.trace.meta.clone();
        std::mem::replace(&mut self.trace, Trace { meta, ..Default::default() })
    }

    /// Its tables, the ones `--out`, `batch` (the lake), `fpsan query`,
    /// Python and Spark hand out: the frames and presents tables as analysed
    /// (the apps it kept), its Flutter frames, and its summaries'. The
    /// analysis owns them (`tables` defines them and reads no `Analysis`).
    /// An analysis run without them (`Options::tables` off) has none: an error.
    pub fn tables(&self) -> polars::prelude::PolarsResult<crate::tables::AnalysisTables> {
        use crate::tables;
        let Some(rows) = &self.row_tables else {
            polars::prelude::polars_bail!(ComputeError: "the analysis was run without its tables (Options::tables)");
        };
        Ok(tables::AnalysisTables {
            frames: rows.frames.clone(),
            presents: rows.presents.clone(),
            flutter_frames: tables::flutter_frames(&self.presents.flutter)?,
            main_thread_blocks: tables::main_thread_blocks(&self.blocks.blocks)?,
            apps: tables::apps(&self.apps)?,
            scenes: tables::scenes(&self.apps)?,
            startups: tables::startups::startups(&self.startups.startups)?,
            input_events: tables::input::input_events(&self.input.events)?,
        })
    }
}

/// Traces from this size on have the allocator's free pages handed back
/// between the frames and the summaries.
#[cfg(feature = "analysis")]
const TRIM_AFTER_BYTES: u64 = 64 << 20;

/// Analyse the trace at `path`: the entry point of `analyze`, `query`,
/// `capture --analyze` and `compare`.
#[cfg(feature = "analysis")]
pub fn analyze(path: &Path, opts: &Options) -> Result<Analysis, AnalysisError> {
    // The janky frames an output shows are explained once the summaries
    // have chosen them (`summarize`).
    let frames = frames_explained(open(path, &frame_read_options(opts.sink))?, opts, frames::Whys::Asked);
    // Worth it where the decoder's freed blocks are many; for a small trace
    // the trim (which walks every heap under its lock) costs more than it
    // gives back, and `batch` runs hundreds side by side.
    if frames.trace.meta.file_size >= TRIM_AFTER_BYTES {
        crate::memory::release_freed();
    }
    summarize(path, frames, opts)
}

/// Summaries of rebuilt frames, for the apps `opts.filter` keeps.
#[cfg(feature = "analysis")]
fn summarize(path: &Path, tf: TraceFrames, opts: &Options) -> Result<Analysis, AnalysisError> {
    use crate::metrics;
    let TraceFrames { trace, mut frames, presents, mut cujs, mut blocks, warnings, sched_records } = tf;
    let filter = &opts.filter;
    // An app the trace does not name is matched by the package its layers
    // name (docs/presents.md, "Apps named by their layers"); the presents'
    // rows already carry it as their `process`.
    let names = presents.names.clone();
    let named = |process: Option<&str>, pid: i32| filter.matches(names.name(process, pid), pid);
    if opts.require_frames {
        if frames.rows.is_empty() && presents.rows.is_empty() {
            return Err(AnalysisError::NoFrames { path: path.to_path_buf() });
        }
        let matched = frames.rows.iter().any(|r| named(r.process.as_deref(), r.pid))
            || presents.rows.iter().any(|r| r.pid.is_some_and(|pid| filter.matches(r.process.as_deref(), pid)));
        if !matched {
            return Err(AnalysisError::NoFramesForApp {
                path: path.to_path_buf(),
                asked: filter.to_string(),
                apps: apps_in(&frames.rows, &presents, MAX_APPS_LISTED),
            });
        }
    }
    let presents = keep_apps(presents, filter, &trace);
    cujs.cujs.retain(|c| named(c.process.as_deref(), c.pid));
    // `android_frames`' rows, made once if the startups or the input events ask.
    let display = std::cell::OnceCell::new();
    let display_frames = || display.get_or_init(|| crate::tables::android_frames::display_frames(&trace)).clone();
    let mut startups = crate::startups::analyze(&trace, display_frames);
    startups.startups.retain(|s| filter.matches(Some(&s.package), s.upid.map_or(0, |u| trace.process(u).pid)));
    crate::startups::explain(&trace, &frames, &mut startups.startups);
    blocks.blocks.retain(|b| named(b.process.as_deref(), b.pid));
    let mut input = crate::input::analyze(&trace, &frames.display, display_frames);
    input.retain(named);
    let mut warnings = warnings;
    if input.rows_left_out > 0 {
        let message = format!(
            "{} input event rows left out: the trace repeats input channels and seqs past {} rows per message (docs/input.md)",
            input.rows_left_out,
            crate::input::events::MAX_ROWS_PER_MESSAGE
        );
        warnings.push(Warning::new(WarningCode::InputRowsLeftOut, message));
    }
    // The blocks an output shows, explained: every one of frame-scale for
    // the tables and the JSON, the longest for the printed table.
    blocks.explain(&trace, &frames, (!opts.tables).then_some(crate::blocks::summary::LONGEST));
    let (kept, scenes) = metrics::kept_frames(&trace, &frames, filter, &names);
    if opts.tables {
        frames.total_paths(&trace);
    }
    // The tables and the summaries read the same frames, not each other.
    let (tables, mut apps) = rayon::join(
        || -> polars::prelude::PolarsResult<_> {
            if !opts.tables {
                return Ok(None);
            }
            Ok(Some(RowTables {
                frames: crate::tables::frames(&frames, &kept, &scenes)?,
                presents: crate::tables::presents(&presents.rows)?,
            }))
        },
        || {
            if !opts.summaries {
                return Vec::new();
            }
            let mut apps = metrics::summarize(&frames, &kept, &scenes, &presents, &opts.metrics);
            metrics::attach_cujs(&mut apps, &frames, &cujs);
            apps
        },
    );
    let tables = tables?;
    // The janky frames an output shows, explained now: each app's worst
    // frames, and for the frame timeline every janky frame it may draw.
    let worst = apps.iter().flat_map(|a| a.worst_frames.iter().map(|w| w.frame_index));
    let timeline: &[usize] = if opts.lanes { &kept } else { &[] };
    frames.explain_frames(&trace, worst.chain(timeline.iter().copied()).collect::<Vec<_>>());
    for w in apps.iter_mut().flat_map(|a| a.worst_frames.iter_mut()) {
        w.why = frames.why_of(w.frame_index).cloned();
    }
    // Built here, while the model is still there: the report is written
    // after `take_model` frees it.
    let lanes = opts.lanes.then(|| {
        use crate::lanes;
        let listed: Vec<usize> = apps.iter().flat_map(|a| a.worst_frames.iter().map(|w| w.frame_index)).collect();
        let want = lanes::Wanted { kept: &kept, listed: &listed, per_app: opts.metrics.worst_frames };
        lanes::build(
            &trace,
            &frames,
            &presents,
            &input,
            &lanes::wanted(&frames.rows, &want),
            lanes::DEFAULT_BUDGET_BYTES,
        )
    });
    Ok(Analysis {
        trace,
        frames,
        row_tables: tables,
        presents,
        cujs,
        startups,
        blocks,
        input,
        apps,
        lanes,
        warnings,
        sched_records,
    })
}

/// The layers, rows and renderers of the apps `filter` keeps.
#[cfg(feature = "analysis")]
fn keep_apps(mut p: PresentAnalysis, filter: &crate::metrics::AppFilter, trace: &Trace) -> PresentAnalysis {
    use crate::metrics::AppFilter;
    if *filter == AppFilter::All {
        return p;
    }
    let kept = |process: Option<&str>, pid: Option<i32>| pid.is_some_and(|pid| filter.matches(process, pid));
    p.rows.retain(|r| kept(r.process.as_deref(), r.pid));
    p.layers.retain(|l| kept(l.process.as_deref(), l.pid));
    p.flutter.retain(|f| kept(f.process.as_deref(), Some(f.pid)));
    p.flutter_apps.retain(|f| kept(f.process.as_deref(), Some(f.pid)));
    // Each pid's name: its first process's (one pass, not a search per pid),
    // else the package its layers name.
    let mut names: std::collections::HashMap<i32, Option<&str>> = std::collections::HashMap::new();
    for x in &trace.processes {
        names.entry(x.pid).or_insert(x.name.as_deref());
    }
    let layer_names = &p.names;
    let keep_pid = |pid: i32| filter.matches(layer_names.name(names.get(&pid).copied().flatten(), pid), pid);
    p.renderers.retain(|&pid, _| keep_pid(pid));
    p.timeline.retain(|&pid, _| keep_pid(pid));
    p
}

/// Apps the "no frames for …" error lists; the rest are counted.
#[cfg(feature = "analysis")]
const MAX_APPS_LISTED: usize = 10;

/// "a (pid 1, 30 frames), b (pid 2, named by its layer, 738 presents), … and
/// 3 more": the apps with frames or presents, named as their summaries are
/// (the process, else the package its layers name, else `?`), with their
/// doFrames and the presents of their busiest layer; most frames first, then
/// most presents, then by pid; `max` of them.
#[cfg(feature = "analysis")]
fn apps_in(rows: &[frames::FrameRow], presents: &PresentAnalysis, max: usize) -> String {
    use std::collections::BTreeMap;
    // pid → (the trace's name, doFrames, the busiest layer's presents).
    let mut apps: BTreeMap<i32, (Option<&str>, i64, i64)> = BTreeMap::new();
    for r in rows {
        let app = apps.entry(r.pid).or_default();
        app.0 = app.0.max(r.process.as_deref());
        app.1 += 1;
    }
    for l in &presents.layers {
        let Some(pid) = l.pid else { continue };
        let app = apps.entry(pid).or_default();
        if presents.names.get(pid).is_none() {
            app.0 = app.0.max(l.process.as_deref());
        }
        app.2 = app.2.max(l.presents);
    }
    let mut apps: Vec<(i32, Option<&str>, i64, i64)> =
        apps.into_iter().map(|(pid, (n, f, p))| (pid, n, f, p)).collect();
    apps.sort_by(|a, b| b.2.cmp(&a.2).then(b.3.cmp(&a.3)).then(a.0.cmp(&b.0)));
    if apps.is_empty() {
        return "none".to_string();
    }
    let mut listed: Vec<String> = apps
        .iter()
        .take(max)
        .map(|&(pid, process, frames, presents_n)| {
            let mut about = vec![format!("pid {pid}")];
            let named = presents.names.resolve(process, pid);
            about.extend(named.and_then(|(_, source)| source.note()).map(str::to_string));
            if frames > 0 {
                about.push(format!("{frames} frames"));
            }
            if presents_n > 0 {
                about.push(format!("{presents_n} presents"));
            }
            format!("{} ({})", named.map_or("?", |(name, _)| name), about.join(", "))
        })
        .collect();
    if apps.len() > max {
        listed.push(format!("… and {} more", apps.len() - max));
    }
    listed.join(", ")
}
