//! Loading the two sides of a comparison: each side is a trace file (one
//! run) or a directory of traces (repeated runs, in name order, not
//! recursive). Every run goes through [`analysis::analyze`], the one entry
//! point `analyze` uses, in parallel, with one progress bar over all runs on
//! a terminal. A run that cannot be analysed is named in a warning and left
//! out; then the compared app is picked and each run is reduced to that app's
//! frames.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use polars::prelude::{BooleanChunked, DataFrame, NewChunkedArray};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::blocker_kinds::{self, BlockerKind};
use super::{CompareError, CompareRequest};
use crate::analysis::{self, Analysis};
use crate::frames::{FrameOptions, FrameRow};
use crate::metrics::AppFilter;
use crate::model::{Warning, WarningCode};
use crate::presents::{JudgedBy, LayerNames, NameSource, PresentAnalysis};
use crate::series::{Frame, Metric, Values};
use crate::sink::{one_line, Sink};

/// Which side of the comparison: the build of `ab`'s runs.
pub(crate) use crate::capture::manifest::Build as Side;

/// Both sides analysed, the app chosen, each run reduced to its frames;
/// with the warnings of the runs left out and of the sides' device states.
pub(crate) fn load_sides(a: &CompareRequest) -> Result<Sides, CompareError> {
    let sides =
        [(Side::Before, list_traces(Side::Before, &a.before)?), (Side::After, list_traces(Side::After, &a.after)?)];
    let opts = analysis::Options {
        frames: FrameOptions { refresh_hz: a.refresh_hz, ..analysis::Options::default().frames },
        // compare computes its metrics per run itself; the scenes come with the frames table.
        summaries: false,
        whole_trace: a.whole_trace,
        ..Default::default()
    };
    let (loaded, load_warnings) = load_all(sides, &opts, a.out.is_some(), a.sink);
    for (k, side) in [Side::Before, Side::After].into_iter().enumerate() {
        if loaded[k].is_empty() {
            let why = load_warnings.iter().map(|w| w.message.as_str()).collect::<Vec<_>>().join("; ");
            return Err(CompareError::NoUsableRun { side, why });
        }
    }
    let choice = match (&a.app, a.pids) {
        (Some(pkg), _) => AppChoice::Package(pkg.clone()),
        (None, Some((b, af))) => AppChoice::Pids(b, af),
        (None, None) => AppChoice::Auto,
    };
    let mut sides = select(&choice, loaded)?;
    sides.warnings.splice(0..0, load_warnings);
    sides.warnings.extend(
        manifest_warnings(&a.before, &a.after).into_iter().map(|m| Warning::new(WarningCode::DeviceStateDiffers, m)),
    );
    Ok(sides)
}

/// What the sides' runs.json (`ab`, `capture --runs`) say about their
/// device states; nothing when a side has none.
fn manifest_warnings(before: &Path, after: &Path) -> Vec<String> {
    use crate::capture::manifest::{side_warnings, Manifest, SeriesKind};
    let (Some(mb), Some(ma)) = (Manifest::find_for(before), Manifest::find_for(after)) else { return Vec::new() };
    let (Ok(b), Ok(a)) = (Manifest::read(&mb), Manifest::read(&ma)) else { return Vec::new() };
    // One `ab` experiment holds both sides; two `capture --runs` one each.
    let side = |m: &Manifest, path: &Path| {
        (m.kind == SeriesKind::Ab).then(|| path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string())
    };
    let (sb, sa) = (side(&b, before), side(&a, after));
    side_warnings(&b.ok_runs(sb.as_deref()).collect::<Vec<_>>(), &a.ok_runs(sa.as_deref()).collect::<Vec<_>>())
}

/// One analysed trace, reduced to what `compare` keeps (the decoded trace
/// itself is dropped at once: ten large runs must not stay in memory).
#[derive(Debug)]
pub(crate) struct Loaded {
    pub path: PathBuf,
    /// Every frame of every app.
    pub rows: Vec<FrameRow>,
    /// Scene of each row (`(unknown)` when the frame has none).
    pub scenes: Vec<String>,
    /// Each counted jank CUJ: its `J<NAME>` and its frames (indices into `rows`).
    pub cujs: Vec<(String, Vec<usize>)>,
    /// The apps the trace names only by their layers (`rows` keep the
    /// trace's own names): an app's name is `names.name(process, pid)`, as in `analyze`.
    pub names: LayerNames,
    /// Per pid judged by its layer's presents rather than by its doFrames
    /// (`PresentAnalysis::judged_layer`, `analyze`'s headline rule): a
    /// renderer other than its views draws it, or it has no doFrames.
    pub presented: BTreeMap<i32, Presented>,
    pub fingerprint: Option<String>,
    pub device: Option<String>,
    /// The frames table of every app, kept only for `frames.parquet`.
    pub frames_df: Option<DataFrame>,
    /// Every app's startups, by `startup_id`.
    pub startups: Vec<RunStartup>,
    /// Every process' main-thread blocks in a few numbers, by pid.
    pub blocks: Vec<crate::blocks::summary::BlockSummary>,
    /// Every app's input summary, by pid (docs/input.md).
    pub input: Vec<crate::input::InputSummary>,
    pub warnings: Vec<Warning>,
}

/// An app startup of a run, what `compare` compares of it
/// (docs/compare.md, "Startups").
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunStartup {
    pub package: String,
    /// Its process (TTID's), when it has one.
    pub pid: Option<i32>,
    pub startup_type: Option<crate::startups::StartupType>,
    pub dur_ns: i64,
    pub ttid_ns: Option<i64>,
    pub ttfd_ns: Option<i64>,
    /// Its breakdown (docs/startups.md, "Why it was slow"): the time before
    /// the app's main thread began, then each milestone's duration, by
    /// milestone name; empty when it was not explained.
    pub parts: Vec<(&'static str, i64)>,
}

/// A quantity compared on its own (a startup metric, a breakdown part, a
/// block metric) and its value on each run of each side: None where the run
/// does not define it (left out of the sample).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PerRun<M> {
    pub metric: M,
    pub before: Vec<Option<f64>>,
    pub after: Vec<Option<f64>>,
}

impl<M> PerRun<M> {
    /// `metric`'s values, kept when some run of each side defines it (else
    /// there is nothing to compare).
    pub(crate) fn defined(metric: M, before: Vec<Option<f64>>, after: Vec<Option<f64>>) -> Option<PerRun<M>> {
        (before.iter().any(Option::is_some) && after.iter().any(Option::is_some)).then_some(PerRun {
            metric,
            before,
            after,
        })
    }
}

/// A secondary metric of the app read off each run on its own (a block
/// metric, an input metric): lower is better, its own test at alpha.
pub(crate) trait RunMetric: Copy {
    /// Its JSON name, the one `--fail-if` rules use.
    fn name(self) -> &'static str;
    fn unit(self) -> &'static str;
    /// Its value on `run`; None where the run does not define it.
    fn of(self, run: &Run) -> Option<f64>;
}

/// Each of `metrics` on each run, those some run of each side defines.
pub(crate) fn per_run<M: RunMetric>(metrics: &[M], before: &[Run], after: &[Run]) -> Vec<PerRun<M>> {
    let values = |runs: &[Run], m: M| -> Vec<Option<f64>> { runs.iter().map(|r| m.of(r)).collect() };
    metrics.iter().filter_map(|&m| PerRun::defined(m, values(before, m), values(after, m))).collect()
}

/// An app of one trace judged by the presents of one of its layers.
#[derive(Debug)]
pub(crate) struct Presented {
    /// The app's name: the process's, else the package its layers name.
    pub name: Option<String>,
    pub layer: String,
    pub why: JudgedBy,
    /// The layer's presents, the first (which has no interval) included.
    pub presents: i64,
    /// The presents with an interval, as frames.
    pub frames: Vec<Frame>,
}

/// One run of the compared app: its frames and the facts of its trace.
#[derive(Debug, Clone)]
pub struct Run {
    /// The trace file, as given.
    pub(crate) trace: String,
    pub(crate) frames: Vec<Frame>,
    /// Scene names, indexed by `Frame::scene`.
    pub(crate) scene_names: Vec<String>,
    /// The app's jank CUJ instances: `J<NAME>` and their frames (indices
    /// into `frames`); compared as scenes named by the CUJ.
    pub(crate) cujs: Vec<(String, Vec<u32>)>,
    /// The layer whose presents are the run's frames, and why, when the app
    /// is judged by what it presented rather than by its doFrames.
    pub(crate) presents_layer: Option<(String, JudgedBy)>,
    /// From the first frame's start to max(ts + I): `analyze`'s fps_wall span.
    pub(crate) wall_ns: i64,
    pub(crate) first_ts: i64,
    pub(crate) fingerprint: Option<String>,
    pub(crate) device: Option<String>,
    /// The app's rows of the frames table (with `--out`).
    pub(crate) frames_df: Option<DataFrame>,
    /// Critical-path time per blocker kind over the app's doFrames, ns
    /// (`blocker_kinds::run_totals`); None when the run is judged by its layer's
    /// presents, which have no critical path.
    pub(crate) blockers: Option<BTreeMap<BlockerKind, i64>>,
    /// The app's first startup in the run, if it started in it.
    pub(crate) startup: Option<RunStartup>,
    /// The app's main-thread blocks in a few numbers; None when its main
    /// thread has none (docs/compare.md, "Main-thread blocks").
    pub(crate) blocks: Option<crate::blocks::summary::BlockSummary>,
    /// The app's input summary; None when it received no input
    /// (docs/compare.md, "Input").
    pub(crate) input: Option<crate::input::InputSummary>,
}

impl Run {
    /// One of `compare`'s metrics (by its JSON name) on this run alone; None when undefined.
    pub fn value(&self, metric: Metric) -> Option<f64> {
        let v = self.values()[metric];
        v.is_finite().then_some(v)
    }

    /// The app's TTID in this run, ms (`startup_ttid`), when it started in it.
    pub fn ttid_ms(&self) -> Option<f64> {
        self.startup.as_ref()?.ttid_ns.map(|ns| ns as f64 / 1e6)
    }

    /// Every metric over the run's frames.
    pub(crate) fn values(&self) -> Values {
        let frames: Vec<&Frame> = self.frames.iter().collect();
        Values::of(&frames, Some(self.wall_ns))
    }
}

/// How the compared app is chosen.
#[derive(Debug, Clone)]
pub(crate) enum AppChoice {
    /// `--app`: the same matching as `analyze --app`.
    Package(String),
    /// `--pid-before N --pid-after M`.
    Pids(i32, i32),
    /// The app with the most frames among those on both sides.
    Auto,
}

/// The trace files of one side: the file itself, or a directory's regular
/// files (hidden ones excepted) in name order.
pub(crate) fn list_traces(side: Side, path: &Path) -> Result<Vec<PathBuf>, CompareError> {
    let unreadable = |source| CompareError::SideUnreadable { side, path: path.to_path_buf(), source };
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(unreadable)?
        .filter_map(Result::ok)
        // Hidden files, and the runs.json of `capture --runs`, are not runs.
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            !name.starts_with('.') && name != crate::capture::manifest::FILE_NAME
        })
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink()))
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(CompareError::NoTraceFiles { side, path: path.to_path_buf() });
    }
    Ok(files)
}

/// Analyse every run of both sides, one run per core at a time. Failures
/// come back as warnings, in run order.
///
/// The runs are shared out to plain threads, not to a rayon parallel
/// iterator: each analysis is itself parallel (rayon), and a rayon worker
/// that waits inside one analysis steals and starts another on the same
/// stack, so hundreds of runs nested that way overflowed it. Plain threads
/// block instead, and at most one analysis per core is alive at a time.
pub(crate) fn load_all(
    sides: [(Side, Vec<PathBuf>); 2],
    opts: &analysis::Options,
    keep_df: bool,
    sink: Sink,
) -> ([Vec<Loaded>; 2], Vec<Warning>) {
    let jobs: Vec<(Side, PathBuf)> =
        sides.into_iter().flat_map(|(side, paths)| paths.into_iter().map(move |p| (side, p))).collect();
    let bar = sink.bar(jobs.len() as u64, "analysing runs {bar:30} {pos}/{len} {elapsed}");
    let load = |(side, path): &(Side, PathBuf)| {
        let r = analysis::analyze(path, opts).map(|a| reduce(path, a, keep_df)).map_err(|e| {
            let message = format!("{} run {} left out: {}", side.name(), path.display(), one_line(&e.to_string()));
            Warning::new(WarningCode::RunLeftOut, message)
        });
        bar.inc(1);
        r
    };
    let results = each_on_a_core(&jobs, load);
    bar.finish_and_clear();
    let mut out: [Vec<Loaded>; 2] = [Vec::new(), Vec::new()];
    let mut warnings = Vec::new();
    for ((side, _), r) in jobs.iter().zip(results) {
        match r {
            Ok(l) => out[side.index()].push(l),
            Err(w) => warnings.push(w),
        }
    }
    (out, warnings)
}

/// `work` on every job, on as many threads as there are cores, results in
/// job order.
fn each_on_a_core<J: Sync, R: Send>(jobs: &[J], work: impl Fn(&J) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(jobs.len()).max(1);
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                std::thread::Builder::new()
                    // The main thread's size: an analysis was written for it.
                    .stack_size(8 << 20)
                    .spawn_scoped(scope, || {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(job) = jobs.get(i) else { break };
                            mine.push((i, work(job)));
                        }
                        mine
                    })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| match w {
                Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(_) => Vec::new(),
            })
            .collect()
    });
    // A thread that could not be spawned left its share: do it here.
    let mut seen = vec![false; jobs.len()];
    for (i, _) in &done {
        seen[*i] = true;
    }
    for (i, job) in jobs.iter().enumerate().filter(|(i, _)| !seen[*i]) {
        done.push((i, work(job)));
    }
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// Analyse one trace and keep the frames of `app` (matched as `analyze --app`
/// matches).
pub(crate) fn load_run(path: &Path, opts: &analysis::Options, app: &str) -> Result<Run, CompareError> {
    let opts = analysis::Options { summaries: false, ..opts.clone() };
    let a = analysis::analyze(path, &opts)?;
    let loaded = reduce(path, a, false);
    app_run(&loaded, &Matcher::Filter(AppFilter::Package(app.to_owned())))
        .ok_or_else(|| CompareError::NoFramesOfApp { path: path.to_path_buf(), app: app.to_owned() })
}

/// Keep the frames, their scenes and the trace facts; drop the trace.
fn reduce(path: &Path, a: Analysis, keep_df: bool) -> Loaded {
    let scenes = crate::metrics::frame_scenes(&a.trace, &a.frames)
        .into_iter()
        .map(|s| s.unwrap_or_else(|| "(unknown)".into()))
        .collect();
    let android = a.trace.meta.android.clone();
    let cujs = a.cujs.cujs.iter().filter(|c| c.counted).map(|c| (c.slice_name.to_string(), c.frames.clone())).collect();
    let with_do_frames: HashSet<i32> = a.frames.rows.iter().map(|r| r.pid).collect();
    let presented = presented_apps(&a.presents, &with_do_frames);
    Loaded {
        path: path.to_path_buf(),
        rows: a.frames.rows,
        scenes,
        cujs,
        names: a.presents.names.clone(),
        presented,
        fingerprint: android.build_fingerprint,
        device: android.device,
        frames_df: a.row_tables.filter(|_| keep_df).map(|t| t.frames),
        startups: a
            .startups
            .startups
            .iter()
            .map(|st| RunStartup {
                package: st.package.to_string(),
                pid: st.upid.map(|u| a.trace.process(u).pid),
                startup_type: st.startup_type,
                dur_ns: st.dur,
                ttid_ns: st.ttid.map(|d| d.dur),
                ttfd_ns: st.ttfd.map(|d| d.dur),
                parts: st.why.as_ref().map_or_else(Vec::new, |w| {
                    std::iter::once((crate::startups::BEFORE_APP, w.before_app_ns))
                        .chain(w.milestones.iter().map(|m| (m.name, m.dur_ns)))
                        .collect()
                }),
            })
            .collect(),
        blocks: a.blocks.summaries(),
        input: a.input.apps.clone(),
        warnings: a.warnings,
    }
}

/// The apps judged by a layer's presents, with those presents as frames.
fn presented_apps(p: &PresentAnalysis, with_do_frames: &HashSet<i32>) -> BTreeMap<i32, Presented> {
    let pids: BTreeSet<i32> = p.renderers.keys().copied().chain(p.layers.iter().filter_map(|l| l.pid)).collect();
    let mut out = BTreeMap::new();
    for pid in pids {
        let Some((l, why)) = p.judged_layer(pid, with_do_frames.contains(&pid)) else { continue };
        let app = Presented {
            name: l.process.clone(),
            layer: l.layer.clone(),
            why,
            presents: l.presents,
            frames: Vec::new(),
        };
        out.insert(pid, (l.source, app));
    }
    if out.is_empty() {
        return BTreeMap::new();
    }
    // One pass over the rows for every such app, however many there are.
    for r in &p.rows {
        let Some((source, app)) = r.pid.and_then(|pid| out.get_mut(&pid)) else { continue };
        if r.source == *source && r.layer == app.layer {
            app.frames.extend(r.series_frame());
        }
    }
    out.into_iter().map(|(pid, (_, app))| (pid, app)).collect()
}

/// What a side holds of one app (by name), over all its runs.
#[derive(Debug, Default)]
struct Tally {
    pids: BTreeSet<i32>,
    /// Its name is not the process's own: its layers name it.
    by_layer: bool,
    do_frames: usize,
    /// Presents of the layers it is judged by.
    presents: i64,
    /// The frames `compare` would compare: each run's doFrames, or the
    /// presents of its judged layer when it is judged by them.
    compared: usize,
}

/// The key an app is chosen by: its name, else `pid N`.
fn app_key(name: Option<&str>, pid: i32) -> String {
    name.map_or_else(|| format!("pid {pid}"), str::to_string)
}

/// A side's apps with frames or judged presents, by name.
fn apps_of(runs: &[Loaded]) -> BTreeMap<String, Tally> {
    let mut apps: BTreeMap<String, Tally> = BTreeMap::new();
    for r in runs {
        for row in &r.rows {
            let named = r.names.resolve(row.process.as_deref(), row.pid);
            let t = apps.entry(app_key(named.map(|(n, _)| n), row.pid)).or_default();
            t.pids.insert(row.pid);
            t.by_layer |= named.is_some_and(|(_, source)| source == NameSource::Layer);
            t.do_frames += 1;
            t.compared += usize::from(!r.presented.contains_key(&row.pid));
        }
        for (&pid, p) in &r.presented {
            let t = apps.entry(app_key(p.name.as_deref(), pid)).or_default();
            t.pids.insert(pid);
            t.by_layer |= p.name.is_some() && r.names.get(pid).is_some();
            t.presents += p.presents;
            t.compared += p.frames.len();
        }
    }
    apps.retain(|_, t| t.compared > 0);
    apps
}

/// "a (pid 1, 30 frames), b (pid 2, named by its layer, 738 presents), ? (pids
/// 3, 4, 59 presents), … and 2 more": the shape of `analyze`'s no-match line,
/// over the side's runs: the ten apps with the most frames compared.
fn list_apps(apps: &BTreeMap<String, Tally>) -> String {
    const LISTED: usize = 10;
    const PIDS: usize = 3;
    let mut v: Vec<(&String, &Tally)> = apps.iter().collect();
    v.sort_by(|a, b| b.1.compared.cmp(&a.1.compared).then(a.0.cmp(b.0)));
    if v.is_empty() {
        return "none".into();
    }
    let mut listed: Vec<String> = v
        .iter()
        .take(LISTED)
        .map(|(key, t)| {
            let pids: Vec<String> = t.pids.iter().take(PIDS).map(i32::to_string).collect();
            let more = if t.pids.len() > PIDS { ", …" } else { "" };
            let s = if t.pids.len() > 1 { "s" } else { "" };
            let mut about = vec![format!("pid{s} {}{more}", pids.join(", "))];
            about.extend(t.by_layer.then(|| NameSource::Layer.note()).flatten().map(str::to_string));
            if t.do_frames > 0 {
                about.push(format!("{} frames", t.do_frames));
            }
            if t.presents > 0 {
                about.push(format!("{} presents", t.presents));
            }
            // An app without a name is keyed `pid N`; it is listed as `analyze` lists it.
            let name = if key.starts_with("pid ") { "?" } else { key.as_str() };
            format!("{name} ({})", about.join(", "))
        })
        .collect();
    if v.len() > LISTED {
        listed.push(format!("… and {} more", v.len() - LISTED));
    }
    listed.join(", ")
}

/// What selects the app's frames in one side's runs.
#[derive(Debug, Clone)]
enum Matcher {
    Filter(AppFilter),
    Exact(String),
}

impl Matcher {
    /// Whether app `pid`, named `name` (the process's, else its layers' package), is the one.
    fn matches(&self, name: Option<&str>, pid: i32) -> bool {
        match self {
            Matcher::Filter(f) => f.matches(name, pid),
            Matcher::Exact(key) => app_key(name, pid) == *key,
        }
    }
}

/// The app to compare, its display name, and the matcher of each side.
fn choose_app(choice: &AppChoice, loaded: &[Vec<Loaded>; 2]) -> Result<(String, [Matcher; 2]), CompareError> {
    match choice {
        AppChoice::Package(pkg) => {
            let m = Matcher::Filter(AppFilter::Package(pkg.clone()));
            Ok((pkg.clone(), [m.clone(), m]))
        }
        AppChoice::Pids(b, a) => {
            let ms = [Matcher::Filter(AppFilter::Pid(*b)), Matcher::Filter(AppFilter::Pid(*a))];
            let name = loaded[0]
                .iter()
                .find_map(|l| {
                    let by_rows = l.rows.iter().map(|row| l.names.name(row.process.as_deref(), row.pid));
                    by_rows.chain(l.presented.get(b).map(|p| p.name.as_deref())).find(Option::is_some).flatten()
                })
                .map_or_else(|| format!("pid {b} / pid {a}"), str::to_string);
            Ok((name, ms))
        }
        AppChoice::Auto => {
            let (b, a) = (apps_of(&loaded[0]), apps_of(&loaded[1]));
            let best = b
                .iter()
                .filter_map(|(name, n)| a.get(name).map(|m| (name, n.compared + m.compared)))
                .max_by(|x, y| x.1.cmp(&y.1).then(y.0.cmp(x.0)))
                .map(|(name, _)| name.clone());
            let Some(name) = best else {
                return Err(CompareError::NoCommonApp { before: list_apps(&b), after: list_apps(&a) });
            };
            let m = Matcher::Exact(name.clone());
            Ok((name, [m.clone(), m]))
        }
    }
}

/// The compared app and its runs, per side.
#[derive(Debug)]
pub(crate) struct Sides {
    pub app: String,
    /// `[before, after]`.
    pub runs: [Vec<Run>; 2],
    /// How the app was chosen ("comparing X: the app with ...") and what
    /// it is judged by, for stderr.
    pub notes: Vec<String>,
    pub warnings: Vec<Warning>,
}

/// Pick the app and keep its frames in each run; a side left without a run
/// of the app is an error naming the side and the apps it has.
pub(crate) fn select(choice: &AppChoice, loaded: [Vec<Loaded>; 2]) -> Result<Sides, CompareError> {
    let (app, matchers) = choose_app(choice, &loaded)?;
    let mut warnings = Vec::new();
    let mut runs: [Vec<Run>; 2] = [Vec::new(), Vec::new()];
    for (k, side) in [Side::Before, Side::After].into_iter().enumerate() {
        let apps = apps_of(&loaded[k]);
        for l in &loaded[k] {
            match app_run(l, &matchers[k]) {
                Some(run) => runs[k].push(run),
                None => {
                    let message = format!(
                        "{} run {} has no frames or presents of {app}; left out",
                        side.name(),
                        l.path.display()
                    );
                    warnings.push(Warning::new(WarningCode::RunWithoutApp, message));
                }
            }
        }
        if runs[k].is_empty() {
            return Err(CompareError::AppMissing { app, side, apps: list_apps(&apps) });
        }
        for l in &loaded[k] {
            // Each run's own warnings keep their codes, the run's path first in the message.
            let of_run = |w: &Warning| Warning::new(w.code, format!("{}: {}", l.path.display(), one_line(&w.message)));
            warnings.extend(l.warnings.iter().map(of_run));
        }
    }
    let mut notes: Vec<String> = matches!(choice, AppChoice::Auto)
        .then(|| format!("comparing {app}: the app with the most frames compared on both sides (choose with --app)"))
        .into_iter()
        .collect();
    judged_by(&app, &runs, &mut notes, &mut warnings);
    Ok(Sides { app, runs, notes, warnings })
}

/// Says what the runs are judged by when a renderer other than the app's
/// views draws it: a note when every run is judged by its layer's presents,
/// a warning when the runs disagree (the sides would not measure one thing).
fn judged_by(app: &str, runs: &[Vec<Run>; 2], notes: &mut Vec<String>, warnings: &mut Vec<Warning>) {
    let all: Vec<&Run> = runs.iter().flatten().collect();
    let by_presents = all.iter().filter(|r| r.presents_layer.is_some()).count();
    if by_presents == 0 {
        return;
    }
    if by_presents == all.len() {
        if let Some((layer, why)) = &all[0].presents_layer {
            notes.push(format!("judging {app} by the presents of its layer {layer}: {} (docs/presents.md)", why.why()));
        }
    } else {
        let count = |k: usize| runs[k].iter().filter(|r| r.presents_layer.is_some()).count();
        let message = format!(
            "{} of {} before runs and {} of {} after runs are judged by {app}'s layer presents, the rest by its doFrames: the sides do not measure the same thing",
            count(0),
            runs[0].len(),
            count(1),
            runs[1].len()
        );
        warnings.push(Warning::new(WarningCode::MixedFrameSources, message));
    }
}

/// The app's frames of one loaded trace, or None when it has none.
fn app_run(l: &Loaded, m: &Matcher) -> Option<Run> {
    let mut names: Vec<String> = Vec::new();
    // A trace may name thousands of layers: ids by hash, not by scanning the names.
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let mut frames = Vec::new();
    let mut keep = Vec::with_capacity(l.rows.len());
    // Each row's index among the app's frames.
    let mut frame_of_row: Vec<Option<u32>> = Vec::with_capacity(l.rows.len());
    for (row, scene) in l.rows.iter().zip(&l.scenes) {
        let matched = m.matches(l.names.name(row.process.as_deref(), row.pid), row.pid);
        keep.push(matched);
        frame_of_row.push(matched.then_some(frames.len() as u32));
        if !matched {
            continue;
        }
        let id = *ids.entry(scene).or_insert_with(|| {
            names.push(scene.clone());
            names.len() as u32 - 1
        });
        frames.push(Frame::from_row(row, id));
    }
    let cujs = l
        .cujs
        .iter()
        .map(|(name, rows)| {
            (name.clone(), rows.iter().filter_map(|&i| frame_of_row.get(i).copied().flatten()).collect())
        })
        .filter(|(_, f): &(String, Vec<u32>)| !f.is_empty())
        .collect();
    // An app judged by its layer's presents (its renderer draws its content,
    // or it has no doFrames): the pid of its first doFrame, else its pid
    // with the most presents.
    let pid = l.rows.iter().zip(&keep).find(|(_, k)| **k).map(|(r, _)| r.pid).or_else(|| {
        let matched = l.presented.iter().filter(|(&pid, p)| m.matches(p.name.as_deref(), pid));
        matched.max_by_key(|(&pid, p)| (p.frames.len(), std::cmp::Reverse(pid))).map(|(&pid, _)| pid)
    });
    let presents_layer = match pid.and_then(|pid| l.presented.get(&pid)) {
        Some(p) => {
            frames = p.frames.clone();
            names = vec![p.layer.clone()];
            Some((p.layer.clone(), p.why))
        }
        None => None,
    };
    let cujs = if presents_layer.is_some() { Vec::new() } else { cujs };
    let app_rows = l.rows.iter().zip(&keep).filter(|(_, k)| **k).map(|(r, _)| r);
    let blockers = presents_layer.is_none().then(|| blocker_kinds::run_totals(app_rows));
    let first_ts = frames.iter().map(|f| f.ts).min()?;
    let wall_end = frames.iter().map(|f| f.ts + f.interval_ns).max().unwrap_or(first_ts);
    let frames_df = l.frames_df.as_ref().and_then(|df| {
        // The frames table has every row of `rows`, in order (the filter was "all apps").
        (df.height() == keep.len()).then(|| df.filter(&BooleanChunked::from_slice("keep".into(), &keep)).ok())?
    });
    Some(Run {
        trace: l.path.display().to_string(),
        frames,
        scene_names: names,
        cujs,
        presents_layer,
        wall_ns: wall_end - first_ts,
        first_ts,
        fingerprint: l.fingerprint.clone(),
        device: l.device.clone(),
        frames_df,
        blockers,
        startup: l.startups.iter().find(|st| m.matches(Some(&st.package), st.pid.unwrap_or(i32::MIN))).cloned(),
        blocks: pid.and_then(|pid| l.blocks.iter().find(|b| b.pid == pid)).cloned(),
        input: pid.and_then(|pid| l.input.iter().find(|s| s.pid == pid)).cloned(),
    })
}
