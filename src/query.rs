//! `fpsan query`: the model as polars `DataFrame`s (`slice`, `counter`,
//! `thread`, `process`, `frame_timeline`) plus the analysis tables (`frames`,
//! `apps`), and running Polars SQL over them. Only the tables a query names
//! are built, so a query on `thread` stays fast on a big trace.

use std::collections::BTreeSet;

use polars::prelude::*;
use polars::sql::SQLContext;

use crate::frames::DropLevel;
use crate::metrics::table::TableBuilder;
use crate::metrics::AppSummary;
use crate::model::{Process, Slice, Thread, Trace, Track, TrackId};

/// Every table `fpsan query` knows.
const TABLES: [&str; 8] = ["slice", "counter", "thread", "process", "frame_timeline", "frames", "apps", "presents"];

#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The SQL did not parse or refers to something that does not exist.
    #[error("SQL error: {0}")]
    Sql(String),
    #[error("cannot build table {table}: {message}")]
    Table { table: &'static str, message: String },
}

impl QueryError {
    pub fn kind(&self) -> crate::error::ErrorKind {
        match self {
            QueryError::Sql(_) => crate::error::ErrorKind::Usage,
            QueryError::Table { .. } => crate::error::ErrorKind::Input,
        }
    }
}

fn one_line(e: &PolarsError) -> String {
    crate::sink::one_line(&e.to_string())
}

/// The known tables a query mentions (a cheap word scan, not a parse: a name
/// in a string literal makes the table be built, which is harmless).
fn tables_in(sql: &str) -> BTreeSet<&'static str> {
    let words: BTreeSet<String> = sql
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    TABLES.iter().copied().filter(|t| words.contains(*t)).collect()
}

/// Whether the query needs the analysis (`frames`, `apps` or `presents`).
pub fn needs_frames(sql: &str) -> bool {
    let t = tables_in(sql);
    t.contains("frames") || t.contains("apps") || t.contains("presents")
}

/// The analysis' tables, for a query that names one of them.
pub struct AnalysisTables {
    pub frames: DataFrame,
    pub apps: DataFrame,
    pub presents: DataFrame,
}

/// A slice with the track, thread and process it is on, looked up once.
struct SliceRow<'t> {
    s: &'t Slice,
    track: Option<&'t Track>,
    thread: Option<&'t Thread>,
    process: Option<&'t Process>,
}

/// `slice(id, ts, dur, name, depth, parent_id, category, tid, pid,
/// thread_name, process_name, track, track_name)`.
fn slice_df(trace: &Trace) -> PolarsResult<DataFrame> {
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
fn counter_df(trace: &Trace) -> PolarsResult<DataFrame> {
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
fn thread_df(trace: &Trace) -> PolarsResult<DataFrame> {
    TableBuilder::new(&trace.threads)
        .col("utid", |t| t.utid.0 as i64)
        .col("tid", |t| t.tid)
        .col("pid", |t| t.upid.and_then(|u| trace.processes.get(u.index())).map(|p| p.pid))
        .col("name", |t| t.name.as_deref())
        .build()
}

/// `process(upid, pid, name, cmdline, parent_pid, uid)`.
fn process_df(trace: &Trace) -> PolarsResult<DataFrame> {
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
fn frame_timeline_df(trace: &Trace) -> PolarsResult<DataFrame> {
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

/// `apps`: one row per app summary, the scalar metrics as columns.
pub fn apps_df(apps: &[AppSummary]) -> PolarsResult<DataFrame> {
    let mut b = TableBuilder::new(apps)
        .col("pid", |a| a.pid)
        .col("process", |a| a.process.as_deref())
        .col("frames", |a| a.frames)
        .col("fps", |a| a.fps)
        .col("fps_wall", |a| a.fps_wall)
        .col("refresh_hz", |a| a.refresh_hz)
        .col("dropped_frames", |a| a.dropped_frames);
    for level in DropLevel::ALL {
        let l = level.as_str().to_lowercase();
        b = b
            .col(&format!("{l}_frames"), move |a| a.drop_level[level])
            .col(&format!("{l}_dropped"), move |a| a.drop_sum[level]);
    }
    b.col("frame_cost_p50", |a| a.frame_cost_ns.p50)
        .col("frame_cost_p90", |a| a.frame_cost_ns.p90)
        .col("frame_cost_p95", |a| a.frame_cost_ns.p95)
        .col("frame_cost_p99", |a| a.frame_cost_ns.p99)
        .col("frame_cost_max", |a| a.frame_cost_ns.max)
        .col("do_frame_dur_p50", |a| a.do_frame_dur.p50)
        .col("do_frame_dur_p90", |a| a.do_frame_dur.p90)
        .col("do_frame_dur_p99", |a| a.do_frame_dur.p99)
        .col("overrun_p50", |a| a.overrun_ns.p50)
        .col("overrun_p90", |a| a.overrun_ns.p90)
        .col("overrun_p99", |a| a.overrun_ns.p99)
        .col("perfetto_jank", |a| a.jank.perfetto.jank)
        .col("perfetto_big_jank", |a| a.jank.perfetto.big_jank)
        .col("perfetto_huge_jank", |a| a.jank.perfetto.huge_jank)
        .col("vitals_slow", |a| a.jank.vitals.slow)
        .col("vitals_frozen", |a| a.jank.vitals.frozen)
        .col("perfdog_jank", |a| a.jank.perfdog.jank)
        .col("perfdog_big_jank", |a| a.jank.perfdog.big_jank)
        .col("perfdog_stutter", |a| a.jank.perfdog.stutter)
        .col("skipped_frame_events", |a| a.jank.choreographer.skipped_frame_events)
        .col("green_alliance_pass", |a| a.green_alliance.pass)
        // The headline series (docs/metrics.md, "Headline"): what every
        // output shows first; the columns above are the doFrames'.
        .col("headline_fps", |a| a.headline.fps)
        .col("headline_source", |a| a.headline.source.as_str())
        .col("headline_layer", |a| a.headline.layer.as_deref())
        .col("headline_frames", |a| a.headline.frames)
        .col("headline_dropped", |a| a.headline.dropped)
        .col("headline_refresh_hz", |a| a.headline.refresh_hz)
        .col("headline_frame_time_p50", |a| a.headline.frame_time_ns.p50)
        .col("headline_frame_time_p90", |a| a.headline.frame_time_ns.p90)
        .col("headline_frame_time_p99", |a| a.headline.frame_time_ns.p99)
        .col("perfdog_layer", |a| a.jank.perfdog_layer.as_deref())
        .build()
}

/// `scenes`: one row per scene of each app summary (docs/metrics.md, Scenes).
pub fn scenes_df(apps: &[AppSummary]) -> PolarsResult<DataFrame> {
    let rows: Vec<(&AppSummary, &crate::metrics::SceneSummary)> =
        apps.iter().flat_map(|a| a.scenes.iter().map(move |s| (a, s))).collect();
    let mut b = TableBuilder::new(&rows)
        .col("pid", |r| r.0.pid)
        .col("process", |r| r.0.process.as_deref())
        .col("scene", |r| r.1.scene.as_str())
        .col("frames", |r| r.1.frames)
        .col("first_ts", |r| r.1.first_ts)
        .col("fps", |r| r.1.fps)
        .col("refresh_hz", |r| r.1.refresh_hz)
        .col("dropped_frames", |r| r.1.dropped_frames);
    for level in DropLevel::ALL {
        let l = level.as_str().to_lowercase();
        b = b
            .col(&format!("{l}_frames"), move |r| r.1.drop_level[level])
            .col(&format!("{l}_dropped"), move |r| r.1.drop_sum[level]);
    }
    b.col("frame_cost_p90", |r| r.1.frame_cost_p90).build()
}

/// Run `sql` over the tables it mentions. The analysis' tables must be given
/// when the query names one of them (see [`needs_frames`]).
pub fn run(trace: &Trace, analysis: Option<&AnalysisTables>, sql: &str) -> Result<DataFrame, QueryError> {
    let ctx = SQLContext::new();
    for table in tables_in(sql) {
        let df = match table {
            "slice" => slice_df(trace),
            "counter" => counter_df(trace),
            "thread" => thread_df(trace),
            "process" => process_df(trace),
            "frame_timeline" => frame_timeline_df(trace),
            "frames" | "apps" | "presents" => match analysis {
                Some(a) => Ok(match table {
                    "frames" => a.frames.clone(),
                    "apps" => a.apps.clone(),
                    _ => a.presents.clone(),
                }),
                None => continue,
            },
            _ => continue,
        }
        .map_err(|e| QueryError::Table { table, message: one_line(&e) })?;
        ctx.register(table, df.lazy());
    }
    let mut ctx = ctx;
    ctx.execute(sql).and_then(|lf| lf.collect()).map_err(|e| QueryError::Sql(one_line(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        CounterSample, Process, Slice, SliceId, Thread, TimelineKind, TimelineSlice, Track, TrackId, TrackKind, Upid,
        Utid,
    };
    use std::sync::Arc;

    fn trace() -> Trace {
        let mut t = Trace {
            processes: vec![Process { upid: Upid(0), pid: 42, name: Some(Arc::from("com.a")), ..Default::default() }],
            threads: vec![
                Thread { utid: Utid(0), tid: 42, upid: Some(Upid(0)), name: Some(Arc::from("com.a")) },
                Thread { utid: Utid(1), tid: 43, upid: Some(Upid(0)), name: Some(Arc::from("RenderThread")) },
            ],
            ..Default::default()
        };
        t.tracks = vec![
            Track { id: TrackId(0), name: None, kind: TrackKind::Thread { utid: Utid(0) } },
            Track { id: TrackId(1), name: None, kind: TrackKind::Thread { utid: Utid(1) } },
            Track {
                id: TrackId(2),
                name: Some(Arc::from("VSYNC-app")),
                kind: TrackKind::ProcessCounter { upid: Upid(0) },
            },
        ];
        let sl = |id: u32, ts: i64, dur: i64, n: &str, track: u32, depth: u32, parent: Option<u32>| Slice {
            id: SliceId(id),
            ts,
            dur,
            name: Arc::from(n),
            category: None,
            track: TrackId(track),
            depth,
            parent: parent.map(SliceId),
        };
        t.slices = vec![
            sl(0, 100, 50, "Choreographer#doFrame 7", 0, 0, None),
            sl(1, 110, 30, "traversal", 0, 1, Some(0)),
            sl(2, 160, 20, "DrawFrames 7", 1, 0, None),
        ];
        t.counters = vec![
            CounterSample { ts: 90, value: 1.0, track: TrackId(2) },
            CounterSample { ts: 106, value: 0.0, track: TrackId(2) },
        ];
        t.frame_timeline = vec![TimelineSlice {
            kind: TimelineKind::ActualSurface,
            ts: 95,
            dur: 100,
            token: 7,
            display_frame_token: Some(9),
            pid: 42,
            upid: Some(Upid(0)),
            layer_name: Some(Arc::from("com.a/com.a.Main#0")),
            jank_type: Some(Arc::from("None")),
            present_type: Some(crate::model::PresentType::OnTime),
            on_time_finish: Some(true),
            gpu_composition: Some(false),
            prediction_type: Some(crate::model::PredictionType::Valid),
            jank_severity_type: None,
            jank_tag: Some(crate::model::JankTag::NoJank),
            present_delay_ms: None,
        }];
        t
    }

    #[test]
    fn table_names_are_found_cheaply() {
        let t = tables_in("select name, count(*) from SLICE join thread using(tid) -- frames\n");
        assert_eq!(t.into_iter().collect::<Vec<_>>(), ["frames", "slice", "thread"]);
        assert!(!needs_frames("select * from frame_timeline"));
        assert!(needs_frames("select * from apps"));
    }

    #[test]
    fn slices_with_thread_and_process() {
        let df = run(
            &trace(),
            None,
            "SELECT id, name, depth, parent_id, tid, pid, thread_name, process_name FROM slice ORDER BY id",
        )
        .unwrap();
        assert_eq!(df.height(), 3);
        let tids: Vec<Option<i32>> = df.column("tid").unwrap().i32().unwrap().iter().collect();
        assert_eq!(tids, [Some(42), Some(42), Some(43)]);
        let parents: Vec<Option<i64>> = df.column("parent_id").unwrap().i64().unwrap().iter().collect();
        assert_eq!(parents, [None, Some(0), None]);
        let tn: Vec<Option<&str>> = df.column("thread_name").unwrap().str().unwrap().iter().collect();
        assert_eq!(tn, [Some("com.a"), Some("com.a"), Some("RenderThread")]);
    }

    #[test]
    fn counters_threads_processes_timeline() {
        let t = trace();
        let c = run(&t, None, "SELECT name, pid, SUM(value) AS v FROM counter GROUP BY name, pid").unwrap();
        assert_eq!(c.height(), 1);
        assert_eq!(c.column("v").unwrap().f64().unwrap().get(0), Some(1.0));
        let th = run(&t, None, "SELECT tid FROM thread WHERE pid = 42 ORDER BY tid").unwrap();
        assert_eq!(th.height(), 2);
        let p = run(&t, None, "SELECT name FROM process").unwrap();
        assert_eq!(p.column("name").unwrap().str().unwrap().get(0), Some("com.a"));
        let ft = run(&t, None, "SELECT kind, surface, token, jank_type FROM frame_timeline").unwrap();
        assert_eq!(ft.column("kind").unwrap().str().unwrap().get(0), Some("actual"));
        assert_eq!(ft.column("surface").unwrap().bool().unwrap().get(0), Some(true));
    }

    #[test]
    fn sql_errors_are_one_line() {
        let e = run(&trace(), None, "SELEC nonsense FROM slice").unwrap_err();
        assert!(matches!(e, QueryError::Sql(_)));
        assert!(!e.to_string().contains('\n'));
        assert!(run(&trace(), None, "SELECT * FROM nowhere").is_err());
    }
}
