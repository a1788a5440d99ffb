//! Per-app summaries of the frames table (SPEC §4), computed with polars: the
//! frames become a `DataFrame` ([`table::frames_df`]), the SQL in `queries/`
//! runs over it ([`sql`]), and this module turns the result rows into typed,
//! serialisable [`AppSummary`] values. Formulas and sources: docs/metrics.md.

use std::collections::{BTreeMap, HashMap};

use polars::prelude::{DataFrame, PolarsError};
use serde::Serialize;

use crate::frames::{DropLevel, FrameAnalysis, FrameRow, FrameWhy};
use crate::model::Trace;

pub mod scene;
pub mod sql;
pub mod table;

#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("summary query failed: {0}")]
    Polars(#[from] PolarsError),
}

/// App category for the Green Alliance verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    #[default]
    Normal,
    Game,
    Map,
    Video,
}

impl Category {
    /// Green Alliance minimum average FPS: 55 for ordinary apps, 25 for games,
    /// maps and video.
    pub fn green_alliance_min_fps(self) -> f64 {
        match self {
            Category::Normal => 55.0,
            Category::Game | Category::Map | Category::Video => 25.0,
        }
    }
}

#[derive(Debug, Clone)]
pub struct MetricsOptions {
    pub category: Category,
    /// Janky frames listed per app under "why".
    pub worst_frames: usize,
}

impl Default for MetricsOptions {
    fn default() -> Self {
        MetricsOptions {
            category: Category::Normal,
            worst_frames: 10,
        }
    }
}

/// Which apps to analyse (`--app` / `--pid`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppFilter {
    All,
    /// Exact process name, `PKG:sub` processes, or the kernel comm of a long
    /// package name (its last 15 characters).
    Package(String),
    Pid(i32),
}

impl std::fmt::Display for AppFilter {
    /// What the filter asks for, as the "no frames for …" error names it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppFilter::Package(p) => write!(f, "app {p}"),
            AppFilter::Pid(p) => write!(f, "pid {p}"),
            AppFilter::All => f.write_str("any app"),
        }
    }
}

impl AppFilter {
    pub fn matches(&self, process: Option<&str>, pid: i32) -> bool {
        match self {
            AppFilter::All => true,
            AppFilter::Pid(p) => *p == pid,
            AppFilter::Package(pkg) => process.is_some_and(|name| package_matches(name, pkg)),
        }
    }
}

/// `--app` matching: `name == pkg`, `name` starts with `pkg:`, or `name` is
/// the 15-character comm the kernel keeps for a longer package name.
pub fn package_matches(name: &str, pkg: &str) -> bool {
    if name == pkg || name.strip_prefix(pkg).is_some_and(|rest| rest.starts_with(':')) {
        return true;
    }
    let chars: Vec<char> = pkg.chars().collect();
    if chars.len() > 15 {
        let tail: String = chars[chars.len() - 15..].iter().collect();
        return name == tail;
    }
    false
}

/// Counts (or sums) per Matrix drop level, indexed by [`DropLevel`]; in JSON
/// an object keyed by the level names, smooth to frozen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Levels(pub [i64; 5]);

impl Levels {
    pub fn values(&self) -> [i64; 5] {
        self.0
    }
    /// (level, value), smooth to frozen.
    pub fn iter(&self) -> impl Iterator<Item = (DropLevel, i64)> + '_ {
        DropLevel::ALL.into_iter().zip(self.0)
    }
}

impl std::ops::Index<DropLevel> for Levels {
    type Output = i64;
    fn index(&self, l: DropLevel) -> &i64 {
        &self.0[l.index()]
    }
}

impl Serialize for Levels {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(5))?;
        for (level, v) in self.iter() {
            m.serialize_entry(level.as_str(), &v)?;
        }
        m.end()
    }
}

/// Nearest-rank percentiles (ns); null when no frame has the value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Percentiles {
    pub p50: Option<i64>,
    pub p90: Option<i64>,
    pub p95: Option<i64>,
    pub p99: Option<i64>,
    pub max: Option<i64>,
}

/// One 1 s window of wall time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FpsWindow {
    pub start_ts: i64,
    /// Window length in seconds (1, except the last window, cut at the wall end).
    pub seconds: f64,
    pub frames: i64,
    pub fps: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PerfettoJank {
    /// Frames that have Perfetto's per-frame metrics (a FrameTimeline match).
    pub frames_with_data: i64,
    pub jank: i64,
    pub slow: i64,
    pub big_jank: i64,
    pub huge_jank: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Vitals {
    /// frame_cost_ns > 0.96·I (16 ms at 60 Hz, scaled to the frame interval).
    pub slow: i64,
    /// frame_cost_ns > 700 ms.
    pub frozen: i64,
    pub slow_pct: f64,
    pub frozen_pct: f64,
    /// Play Console's bad-behaviour thresholds: > 50 % slow, > 0.1 % frozen.
    pub excessive_slow: bool,
    pub excessive_frozen: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PerfDog {
    pub jank: i64,
    pub big_jank: i64,
    pub jank_time_ns: i64,
    pub total_time_ns: i64,
    /// jank_time_ns / total_time_ns.
    pub stutter: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Choreographer {
    /// Frames with skipped_frames ≥ 30 (Choreographer logs "Skipped N frames!").
    pub skipped_frame_events: i64,
    /// Σ skipped_frames over those events.
    pub skipped_frames: i64,
    pub max_skipped_frames: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GreenAlliance {
    pub category: Category,
    pub min_fps: f64,
    pub fps: f64,
    pub pass: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Jank {
    pub perfetto: PerfettoJank,
    /// FrameTimeline jank type → frames ("A, B" counts for A and for B).
    pub frame_timeline: BTreeMap<String, i64>,
    pub vitals: Vitals,
    pub perfdog: PerfDog,
    pub choreographer: Choreographer,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SceneSummary {
    pub scene: String,
    pub frames: i64,
    pub first_ts: i64,
    pub fps: f64,
    pub refresh_hz: f64,
    pub dropped_frames: i64,
    pub drop_level: Levels,
    pub drop_sum: Levels,
    pub frame_cost_p90: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorstFrame {
    /// Index in the whole-trace frames table.
    pub frame_index: usize,
    pub ts: i64,
    pub frame_id: Option<i64>,
    pub scene: Option<String>,
    pub frame_cost_ns: i64,
    pub dropped_frames: i64,
    pub drop_level: DropLevel,
    pub do_frame_dur: i64,
    pub jank_type: Option<String>,
    pub why: Option<FrameWhy>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AppQuality {
    /// Frames per vsync source (`none` when there was no vsync).
    pub vsync_sources: BTreeMap<String, i64>,
    pub without_render_thread: i64,
    pub without_timeline: i64,
}

/// The per-app summary (SPEC §4). The first fields are the fixed JSON keys.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AppSummary {
    pub pid: i32,
    pub process: Option<String>,
    pub frames: i64,
    pub fps: f64,
    pub fps_wall: f64,
    pub refresh_hz: f64,
    pub drop_level: Levels,
    pub drop_sum: Levels,
    pub dropped_frames: i64,
    /// Smallest frame interval the app ran at.
    pub frame_interval_ns: i64,
    /// Σ (dropped_frames + 1)·I: the vsync time the frames took.
    pub paced_ns: i64,
    pub first_ts: i64,
    /// max(ts + I): where the app's wall time ends.
    pub wall_end_ts: i64,
    pub frame_cost_ns: Percentiles,
    pub do_frame_dur: Percentiles,
    pub overrun_ns: Percentiles,
    pub jank: Jank,
    pub green_alliance: GreenAlliance,
    pub fps_wall_timeline: Vec<FpsWindow>,
    pub scenes: Vec<SceneSummary>,
    pub worst_frames: Vec<WorstFrame>,
    pub quality: AppQuality,
}

/// Green Alliance verdict: the app's average FPS (`fps`) against the
/// category's minimum (≥ 55, or ≥ 25 for games, maps and video).
pub fn green_alliance(category: Category, fps: f64) -> GreenAlliance {
    let min_fps = category.green_alliance_min_fps();
    GreenAlliance {
        category,
        min_fps,
        fps,
        pass: fps >= min_fps,
    }
}

/// The frames of `analysis` kept by `filter`, as the frames table (with scenes).
pub fn frames_table(trace: &Trace, analysis: &FrameAnalysis, filter: &AppFilter) -> Result<DataFrame, MetricsError> {
    let (indices, rows): (Vec<usize>, Vec<&FrameRow>) = analysis
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| filter.matches(r.process.as_deref(), r.pid))
        .unzip();
    let scenes = scene::assign(trace, &rows);
    Ok(table::frames_df(&rows, &indices, &scenes)?)
}

/// Fold per-group rows of a query result into a map keyed by pid.
fn by_pid<T>(pids: &[Option<i64>], values: impl IntoIterator<Item = T>) -> HashMap<i32, Vec<T>> {
    let mut m: HashMap<i32, Vec<T>> = HashMap::new();
    for (pid, v) in pids.iter().zip(values) {
        if let Some(pid) = pid {
            m.entry(*pid as i32).or_default().push(v);
        }
    }
    m
}

fn levels(df: &DataFrame, suffix: &str) -> Result<Vec<Levels>, MetricsError> {
    let cols = DropLevel::ALL
        .iter()
        .map(|l| sql::i64s(df, &format!("{}_{suffix}", l.as_str().to_lowercase())))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((0..df.height())
        .map(|i| {
            let mut v = [0i64; 5];
            for (k, c) in cols.iter().enumerate() {
                v[k] = c[i].unwrap_or(0);
            }
            Levels(v)
        })
        .collect())
}

/// The 1 s wall-time windows of one app: window k covers
/// [first_ts + k·1 s, first_ts + (k+1)·1 s) cut at `wall_end_ts`.
pub fn fps_windows(first_ts: i64, wall_end_ts: i64, counts: &[(i64, i64)]) -> Vec<FpsWindow> {
    const SEC: i64 = 1_000_000_000;
    let span = (wall_end_ts - first_ts).max(0);
    let n = (span + SEC - 1) / SEC;
    let count: HashMap<i64, i64> = counts.iter().copied().collect();
    (0..n)
        .map(|k| {
            let start = first_ts + k * SEC;
            let end = (start + SEC).min(wall_end_ts);
            let seconds = (end - start) as f64 / 1e9;
            let frames = count.get(&k).copied().unwrap_or(0);
            FpsWindow {
                start_ts: start,
                seconds,
                frames,
                fps: frames as f64 / seconds,
            }
        })
        .collect()
}

/// Summaries of every app in the frames table, most frames first.
pub fn summarize(frames: &DataFrame, why: &[FrameWhy], opts: &MetricsOptions) -> Result<Vec<AppSummary>, MetricsError> {
    let mut q = sql::FramesSql::new(frames);

    // Per-app rows.
    let apps = q.run(sql::APP_SUMMARY)?;
    let a_pid = sql::i64s(&apps, "pid")?;
    let a_process = sql::strs(&apps, "process")?;
    let col = |name: &str| sql::i64s(&apps, name);
    let (a_frames, a_min_i, a_paced, a_first, a_end, a_dropped) = (
        col("frames")?,
        col("min_frame_interval_ns")?,
        col("paced_ns")?,
        col("first_ts")?,
        col("wall_end_ts")?,
        col("dropped_frames")?,
    );
    let a_fps = sql::f64s(&apps, "fps")?;
    let a_hz = sql::f64s(&apps, "refresh_hz")?;
    let a_level = levels(&apps, "frames")?;
    let a_sum = levels(&apps, "dropped")?;
    let (sk_events, sk_frames, sk_max) = (
        col("skipped_frame_events")?,
        col("skipped_frames_in_events")?,
        col("max_skipped_frames")?,
    );
    let (pf_frames, pf_jank, pf_slow, pf_big, pf_huge) = (
        col("perfetto_frames")?,
        col("perfetto_jank")?,
        col("perfetto_slow")?,
        col("perfetto_big_jank")?,
        col("perfetto_huge_jank")?,
    );
    let (v_slow, v_frozen) = (col("vitals_slow")?, col("vitals_frozen")?);
    let (q_no_rt, q_no_tl) = (col("without_render_thread")?, col("without_timeline")?);

    // Percentiles.
    let pct = q.run(sql::PERCENTILES)?;
    let pct_pid = sql::i64s(&pct, "pid")?;
    let mut pct_cols: HashMap<String, Vec<Option<i64>>> = HashMap::new();
    for base in ["frame_cost", "do_frame_dur", "overrun_ns"] {
        for p in ["p50", "p90", "p95", "p99", "max"] {
            let name = format!("{base}_{p}");
            pct_cols.insert(name.clone(), sql::i64s(&pct, &name)?);
        }
    }
    let pct_row: HashMap<i32, usize> = pct_pid
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|p| (p as i32, i)))
        .collect();
    let percentiles = |pid: i32, base: &str| -> Percentiles {
        let Some(&i) = pct_row.get(&pid) else {
            return Percentiles::default();
        };
        let g = |p: &str| pct_cols[&format!("{base}_{p}")][i];
        Percentiles {
            p50: g("p50"),
            p90: g("p90"),
            p95: g("p95"),
            p99: g("p99"),
            max: g("max"),
        }
    };

    // Wall-time windows.
    let fw = q.run(sql::FPS_WALL)?;
    let windows = by_pid(
        &sql::i64s(&fw, "pid")?,
        sql::i64s(&fw, "window")?
            .into_iter()
            .zip(sql::i64s(&fw, "frames")?)
            .map(|(w, f)| (w.unwrap_or(0), f.unwrap_or(0))),
    );

    // FrameTimeline jank types.
    let jt = q.run(sql::JANK_TYPES)?;
    let jank_types = by_pid(
        &sql::i64s(&jt, "pid")?,
        sql::strs(&jt, "jank")?.into_iter().zip(sql::i64s(&jt, "frames")?),
    );

    // Vsync sources.
    let vs = q.run(sql::VSYNC_SOURCES)?;
    let vsync = by_pid(
        &sql::i64s(&vs, "pid")?,
        sql::strs(&vs, "vsync_source")?
            .into_iter()
            .zip(sql::i64s(&vs, "frames")?),
    );

    // PerfDog.
    let pd = q.run(sql::PERFDOG)?;
    let mut perfdog: HashMap<i32, PerfDog> = HashMap::new();
    {
        let (pids, j, bj, jt_ns, tt_ns) = (
            sql::i64s(&pd, "pid")?,
            sql::i64s(&pd, "jank")?,
            sql::i64s(&pd, "big_jank")?,
            sql::i64s(&pd, "jank_time_ns")?,
            sql::i64s(&pd, "total_time_ns")?,
        );
        for i in 0..pd.height() {
            let Some(pid) = pids[i] else { continue };
            let (jank_time_ns, total_time_ns) = (jt_ns[i].unwrap_or(0), tt_ns[i].unwrap_or(0));
            perfdog.insert(
                pid as i32,
                PerfDog {
                    jank: j[i].unwrap_or(0),
                    big_jank: bj[i].unwrap_or(0),
                    jank_time_ns,
                    total_time_ns,
                    stutter: if total_time_ns > 0 {
                        jank_time_ns as f64 / total_time_ns as f64
                    } else {
                        0.0
                    },
                },
            );
        }
    }

    // Scenes.
    let sc = q.run(sql::SCENES)?;
    let (sc_name, sc_frames, sc_first, sc_dropped, sc_p90) = (
        sql::strs(&sc, "scene")?,
        sql::i64s(&sc, "frames")?,
        sql::i64s(&sc, "first_ts")?,
        sql::i64s(&sc, "dropped_frames")?,
        sql::i64s(&sc, "frame_cost_p90")?,
    );
    let (sc_fps, sc_hz) = (sql::f64s(&sc, "fps")?, sql::f64s(&sc, "refresh_hz")?);
    let (sc_level, sc_sum) = (levels(&sc, "frames")?, levels(&sc, "dropped")?);
    let scenes = by_pid(
        &sql::i64s(&sc, "pid")?,
        (0..sc.height()).map(|i| SceneSummary {
            scene: sc_name[i].clone().unwrap_or_default(),
            frames: sc_frames[i].unwrap_or(0),
            first_ts: sc_first[i].unwrap_or(0),
            fps: sc_fps[i].unwrap_or(0.0),
            refresh_hz: sc_hz[i].unwrap_or(0.0),
            dropped_frames: sc_dropped[i].unwrap_or(0),
            drop_level: sc_level[i],
            drop_sum: sc_sum[i],
            frame_cost_p90: sc_p90[i],
        }),
    );

    // Worst frames with their why.
    let wf = q.run(sql::WORST_FRAMES)?;
    let why_by_index: HashMap<usize, &FrameWhy> = why.iter().map(|w| (w.frame_index, w)).collect();
    let (w_idx, w_ts, w_id, w_scene, w_cost, w_drop, w_level, w_dur, w_jank) = (
        sql::i64s(&wf, "frame_index")?,
        sql::i64s(&wf, "ts")?,
        sql::i64s(&wf, "frame_id")?,
        sql::strs(&wf, "scene")?,
        sql::i64s(&wf, "frame_cost_ns")?,
        sql::i64s(&wf, "dropped_frames")?,
        sql::strs(&wf, "drop_level")?,
        sql::i64s(&wf, "do_frame_dur")?,
        sql::strs(&wf, "jank_type")?,
    );
    let mut worst = by_pid(
        &sql::i64s(&wf, "pid")?,
        (0..wf.height()).map(|i| {
            let frame_index = w_idx[i].unwrap_or(0) as usize;
            WorstFrame {
                frame_index,
                ts: w_ts[i].unwrap_or(0),
                frame_id: w_id[i],
                scene: w_scene[i].clone(),
                frame_cost_ns: w_cost[i].unwrap_or(0),
                dropped_frames: w_drop[i].unwrap_or(0),
                drop_level: w_level[i].as_deref().and_then(DropLevel::parse).unwrap_or_default(),
                do_frame_dur: w_dur[i].unwrap_or(0),
                jank_type: w_jank[i].clone(),
                why: why_by_index.get(&frame_index).map(|w| (*w).clone()),
            }
        }),
    );

    let mut out = Vec::with_capacity(apps.height());
    for i in 0..apps.height() {
        let Some(pid) = a_pid[i].map(|p| p as i32) else {
            continue;
        };
        let frames = a_frames[i].unwrap_or(0);
        let fps = a_fps[i].unwrap_or(0.0);
        let (first_ts, wall_end_ts) = (a_first[i].unwrap_or(0), a_end[i].unwrap_or(0));
        let timeline = fps_windows(
            first_ts,
            wall_end_ts,
            windows.get(&pid).map(Vec::as_slice).unwrap_or(&[]),
        );
        let wall_s = (wall_end_ts - first_ts) as f64 / 1e9;
        let fps_wall = if wall_s > 0.0 { frames as f64 / wall_s } else { 0.0 };
        let (slow, frozen) = (v_slow[i].unwrap_or(0), v_frozen[i].unwrap_or(0));
        let pct_of = |n: i64| {
            if frames > 0 {
                100.0 * n as f64 / frames as f64
            } else {
                0.0
            }
        };
        let mut worst_frames = worst.remove(&pid).unwrap_or_default();
        worst_frames.truncate(opts.worst_frames);
        out.push(AppSummary {
            pid,
            process: a_process[i].clone(),
            frames,
            fps,
            fps_wall,
            refresh_hz: a_hz[i].unwrap_or(0.0),
            drop_level: a_level[i],
            drop_sum: a_sum[i],
            dropped_frames: a_dropped[i].unwrap_or(0),
            frame_interval_ns: a_min_i[i].unwrap_or(0),
            paced_ns: a_paced[i].unwrap_or(0),
            first_ts,
            wall_end_ts,
            frame_cost_ns: percentiles(pid, "frame_cost"),
            do_frame_dur: percentiles(pid, "do_frame_dur"),
            overrun_ns: percentiles(pid, "overrun_ns"),
            jank: Jank {
                perfetto: PerfettoJank {
                    frames_with_data: pf_frames[i].unwrap_or(0),
                    jank: pf_jank[i].unwrap_or(0),
                    slow: pf_slow[i].unwrap_or(0),
                    big_jank: pf_big[i].unwrap_or(0),
                    huge_jank: pf_huge[i].unwrap_or(0),
                },
                frame_timeline: jank_types
                    .get(&pid)
                    .map(|v| {
                        v.iter()
                            .filter_map(|(k, n)| Some((k.clone()?, n.unwrap_or(0))))
                            .collect()
                    })
                    .unwrap_or_default(),
                vitals: Vitals {
                    slow,
                    frozen,
                    slow_pct: pct_of(slow),
                    frozen_pct: pct_of(frozen),
                    excessive_slow: pct_of(slow) > 50.0,
                    excessive_frozen: pct_of(frozen) > 0.1,
                },
                perfdog: perfdog.remove(&pid).unwrap_or_default(),
                choreographer: Choreographer {
                    skipped_frame_events: sk_events[i].unwrap_or(0),
                    skipped_frames: sk_frames[i].unwrap_or(0),
                    max_skipped_frames: sk_max[i].unwrap_or(0),
                },
            },
            green_alliance: green_alliance(opts.category, fps),
            fps_wall_timeline: timeline,
            scenes: scenes.get(&pid).cloned().unwrap_or_default(),
            worst_frames,
            quality: AppQuality {
                vsync_sources: vsync
                    .get(&pid)
                    .map(|v| {
                        v.iter()
                            .filter_map(|(k, n)| Some((k.clone()?, n.unwrap_or(0))))
                            .collect()
                    })
                    .unwrap_or_default(),
                without_render_thread: q_no_rt[i].unwrap_or(0),
                without_timeline: q_no_tl[i].unwrap_or(0),
            },
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
