//! Tables for `fpsan query`: the model as polars `DataFrame`s (`slice`,
//! `counter`, `thread`, `process`, `frame_timeline`) plus the analysis tables
//! (`frames`, `apps`), and running Polars SQL over them. Only the tables a
//! query names are built, so a query on `thread` stays fast on a big trace.

use std::collections::BTreeSet;

use polars::prelude::*;
use polars::sql::SQLContext;

use crate::frames::DropLevel;
use crate::metrics::AppSummary;
use crate::model::Trace;

/// Every table `fpsan query` knows.
pub const TABLES: [&str; 7] = [
    "slice",
    "counter",
    "thread",
    "process",
    "frame_timeline",
    "frames",
    "apps",
];

#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The SQL did not parse or refers to something that does not exist.
    #[error("SQL error: {0}")]
    Sql(String),
    #[error("cannot build table {table}: {message}")]
    Table { table: &'static str, message: String },
}

fn one_line(e: &PolarsError) -> String {
    e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The known tables a query mentions (a cheap word scan, not a parse: a name
/// in a string literal makes the table be built, which is harmless).
pub fn tables_in(sql: &str) -> BTreeSet<&'static str> {
    let words: BTreeSet<String> = sql
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    TABLES.iter().copied().filter(|t| words.contains(*t)).collect()
}

/// Whether the query needs the frame analysis (`frames` or `apps`).
pub fn needs_frames(sql: &str) -> bool {
    let t = tables_in(sql);
    t.contains("frames") || t.contains("apps")
}

fn name(n: &Option<crate::model::Name>) -> Option<String> {
    n.as_deref().map(str::to_string)
}

/// `slice(id, ts, dur, name, depth, parent_id, category, tid, pid,
/// thread_name, process_name, track, track_name)`.
pub fn slice_df(trace: &Trace) -> PolarsResult<DataFrame> {
    let n = trace.slices.len();
    let (mut id, mut ts, mut dur, mut nm, mut depth, mut parent, mut cat) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut tid, mut pid, mut tname, mut pname, mut track, mut track_name) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for s in &trace.slices {
        id.push(s.id.0 as i64);
        ts.push(s.ts);
        dur.push(s.dur);
        nm.push(s.name.to_string());
        depth.push(s.depth as i64);
        parent.push(s.parent.map(|p| p.0 as i64));
        cat.push(s.category.as_deref().map(str::to_string));
        let t = trace.tracks.get(s.track.index());
        let thread = t.and_then(|_| trace.track_thread(s.track));
        let process = t.and_then(|_| trace.track_process(s.track));
        tid.push(thread.map(|t| t.tid));
        tname.push(thread.and_then(|t| name(&t.name)));
        pid.push(process.map(|p| p.pid));
        pname.push(process.and_then(|p| name(&p.name)));
        track.push(s.track.0 as i64);
        track_name.push(t.and_then(|t| name(&t.name)));
    }
    DataFrame::new(
        n,
        vec![
            Column::new("id".into(), id),
            Column::new("ts".into(), ts),
            Column::new("dur".into(), dur),
            Column::new("name".into(), nm),
            Column::new("depth".into(), depth),
            Column::new("parent_id".into(), parent),
            Column::new("category".into(), cat),
            Column::new("tid".into(), tid),
            Column::new("pid".into(), pid),
            Column::new("thread_name".into(), tname),
            Column::new("process_name".into(), pname),
            Column::new("track".into(), track),
            Column::new("track_name".into(), track_name),
        ],
    )
}

/// `counter(ts, value, name, pid, tid, track)`: name is the counter track's name.
pub fn counter_df(trace: &Trace) -> PolarsResult<DataFrame> {
    let n = trace.counters.len();
    let (mut ts, mut value, mut nm, mut pid, mut tid, mut track) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for c in &trace.counters {
        ts.push(c.ts);
        value.push(c.value);
        let t = trace.tracks.get(c.track.index());
        nm.push(t.and_then(|t| name(&t.name)));
        pid.push(t.and_then(|_| trace.track_process(c.track)).map(|p| p.pid));
        tid.push(t.and_then(|_| trace.track_thread(c.track)).map(|t| t.tid));
        track.push(c.track.0 as i64);
    }
    DataFrame::new(
        n,
        vec![
            Column::new("ts".into(), ts),
            Column::new("value".into(), value),
            Column::new("name".into(), nm),
            Column::new("pid".into(), pid),
            Column::new("tid".into(), tid),
            Column::new("track".into(), track),
        ],
    )
}

/// `thread(utid, tid, pid, name)`.
pub fn thread_df(trace: &Trace) -> PolarsResult<DataFrame> {
    let n = trace.threads.len();
    let utid: Vec<i64> = trace.threads.iter().map(|t| t.utid.0 as i64).collect();
    let tid: Vec<i32> = trace.threads.iter().map(|t| t.tid).collect();
    let pid: Vec<Option<i32>> = trace
        .threads
        .iter()
        .map(|t| t.upid.and_then(|u| trace.processes.get(u.index())).map(|p| p.pid))
        .collect();
    let nm: Vec<Option<String>> = trace.threads.iter().map(|t| name(&t.name)).collect();
    DataFrame::new(
        n,
        vec![
            Column::new("utid".into(), utid),
            Column::new("tid".into(), tid),
            Column::new("pid".into(), pid),
            Column::new("name".into(), nm),
        ],
    )
}

/// `process(upid, pid, name, cmdline, parent_pid, uid)`.
pub fn process_df(trace: &Trace) -> PolarsResult<DataFrame> {
    let p = &trace.processes;
    DataFrame::new(
        p.len(),
        vec![
            Column::new("upid".into(), p.iter().map(|p| p.upid.0 as i64).collect::<Vec<_>>()),
            Column::new("pid".into(), p.iter().map(|p| p.pid).collect::<Vec<_>>()),
            Column::new("name".into(), p.iter().map(|p| name(&p.name)).collect::<Vec<_>>()),
            Column::new("cmdline".into(), p.iter().map(|p| name(&p.cmdline)).collect::<Vec<_>>()),
            Column::new("parent_pid".into(), p.iter().map(|p| p.parent_pid).collect::<Vec<_>>()),
            Column::new("uid".into(), p.iter().map(|p| p.uid).collect::<Vec<_>>()),
        ],
    )
}

/// `frame_timeline(kind, surface, token, display_frame_token, pid, layer_name,
/// ts, dur, jank_type, present_type, on_time_finish, gpu_composition,
/// prediction_type, jank_severity_type)`; kind is `expected` or `actual`,
/// surface is false for display frames.
pub fn frame_timeline_df(trace: &Trace) -> PolarsResult<DataFrame> {
    let f = &trace.frame_timeline;
    let s = |get: fn(&crate::model::TimelineSlice) -> &Option<crate::model::Name>| -> Vec<Option<String>> {
        f.iter().map(|t| name(get(t))).collect()
    };
    DataFrame::new(
        f.len(),
        vec![
            Column::new(
                "kind".into(),
                f.iter()
                    .map(|t| if t.kind.is_actual() { "actual" } else { "expected" })
                    .collect::<Vec<_>>(),
            ),
            Column::new(
                "surface".into(),
                f.iter().map(|t| t.kind.is_surface()).collect::<Vec<_>>(),
            ),
            Column::new("token".into(), f.iter().map(|t| t.token).collect::<Vec<_>>()),
            Column::new(
                "display_frame_token".into(),
                f.iter().map(|t| t.display_frame_token).collect::<Vec<_>>(),
            ),
            Column::new("pid".into(), f.iter().map(|t| t.pid).collect::<Vec<_>>()),
            Column::new("layer_name".into(), s(|t| &t.layer_name)),
            Column::new("ts".into(), f.iter().map(|t| t.ts).collect::<Vec<_>>()),
            Column::new("dur".into(), f.iter().map(|t| t.dur).collect::<Vec<_>>()),
            Column::new("jank_type".into(), s(|t| &t.jank_type)),
            Column::new("present_type".into(), s(|t| &t.present_type)),
            Column::new(
                "on_time_finish".into(),
                f.iter().map(|t| t.on_time_finish).collect::<Vec<_>>(),
            ),
            Column::new(
                "gpu_composition".into(),
                f.iter().map(|t| t.gpu_composition).collect::<Vec<_>>(),
            ),
            Column::new("prediction_type".into(), s(|t| &t.prediction_type)),
            Column::new("jank_severity_type".into(), s(|t| &t.jank_severity_type)),
        ],
    )
}

/// `apps`: one row per app summary, the scalar metrics as columns.
pub fn apps_df(apps: &[AppSummary]) -> PolarsResult<DataFrame> {
    let i = |f: fn(&AppSummary) -> i64| apps.iter().map(f).collect::<Vec<i64>>();
    let o = |f: fn(&AppSummary) -> Option<i64>| apps.iter().map(f).collect::<Vec<Option<i64>>>();
    let x = |f: fn(&AppSummary) -> f64| apps.iter().map(f).collect::<Vec<f64>>();
    let mut cols = vec![
        Column::new("pid".into(), apps.iter().map(|a| a.pid).collect::<Vec<_>>()),
        Column::new(
            "process".into(),
            apps.iter().map(|a| a.process.clone()).collect::<Vec<_>>(),
        ),
        Column::new("frames".into(), i(|a| a.frames)),
        Column::new("fps".into(), x(|a| a.fps)),
        Column::new("fps_wall".into(), x(|a| a.fps_wall)),
        Column::new("refresh_hz".into(), x(|a| a.refresh_hz)),
        Column::new("dropped_frames".into(), i(|a| a.dropped_frames)),
    ];
    for (k, level) in DropLevel::ALL.iter().enumerate() {
        let l = level.as_str().to_lowercase();
        cols.push(Column::new(
            format!("{l}_frames").into(),
            apps.iter().map(|a| a.drop_level.values()[k]).collect::<Vec<_>>(),
        ));
        cols.push(Column::new(
            format!("{l}_dropped").into(),
            apps.iter().map(|a| a.drop_sum.values()[k]).collect::<Vec<_>>(),
        ));
    }
    cols.extend([
        Column::new("frame_cost_p50".into(), o(|a| a.frame_cost_ns.p50)),
        Column::new("frame_cost_p90".into(), o(|a| a.frame_cost_ns.p90)),
        Column::new("frame_cost_p95".into(), o(|a| a.frame_cost_ns.p95)),
        Column::new("frame_cost_p99".into(), o(|a| a.frame_cost_ns.p99)),
        Column::new("frame_cost_max".into(), o(|a| a.frame_cost_ns.max)),
        Column::new("do_frame_dur_p50".into(), o(|a| a.do_frame_dur.p50)),
        Column::new("do_frame_dur_p90".into(), o(|a| a.do_frame_dur.p90)),
        Column::new("do_frame_dur_p99".into(), o(|a| a.do_frame_dur.p99)),
        Column::new("overrun_p50".into(), o(|a| a.overrun_ns.p50)),
        Column::new("overrun_p90".into(), o(|a| a.overrun_ns.p90)),
        Column::new("overrun_p99".into(), o(|a| a.overrun_ns.p99)),
        Column::new("perfetto_jank".into(), i(|a| a.jank.perfetto.jank)),
        Column::new("perfetto_big_jank".into(), i(|a| a.jank.perfetto.big_jank)),
        Column::new("perfetto_huge_jank".into(), i(|a| a.jank.perfetto.huge_jank)),
        Column::new("vitals_slow".into(), i(|a| a.jank.vitals.slow)),
        Column::new("vitals_frozen".into(), i(|a| a.jank.vitals.frozen)),
        Column::new("perfdog_jank".into(), i(|a| a.jank.perfdog.jank)),
        Column::new("perfdog_big_jank".into(), i(|a| a.jank.perfdog.big_jank)),
        Column::new("perfdog_stutter".into(), x(|a| a.jank.perfdog.stutter)),
        Column::new(
            "skipped_frame_events".into(),
            i(|a| a.jank.choreographer.skipped_frame_events),
        ),
        Column::new(
            "green_alliance_pass".into(),
            apps.iter().map(|a| a.green_alliance.pass).collect::<Vec<_>>(),
        ),
    ]);
    DataFrame::new(apps.len(), cols)
}

/// Run `sql` over the tables it mentions. `frames` / `apps` must be given when
/// the query names them (see [`needs_frames`]).
pub fn run(
    trace: &Trace,
    frames: Option<&DataFrame>,
    apps: Option<&DataFrame>,
    sql: &str,
) -> Result<DataFrame, QueryError> {
    let ctx = SQLContext::new();
    for table in tables_in(sql) {
        let df = match table {
            "slice" => slice_df(trace),
            "counter" => counter_df(trace),
            "thread" => thread_df(trace),
            "process" => process_df(trace),
            "frame_timeline" => frame_timeline_df(trace),
            "frames" => match frames {
                Some(f) => Ok(f.clone()),
                None => continue,
            },
            "apps" => match apps {
                Some(a) => Ok(a.clone()),
                None => continue,
            },
            _ => continue,
        }
        .map_err(|e| QueryError::Table {
            table,
            message: one_line(&e),
        })?;
        ctx.register(table, df.lazy());
    }
    let mut ctx = ctx;
    ctx.execute(sql)
        .and_then(|lf| lf.collect())
        .map_err(|e| QueryError::Sql(one_line(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        CounterSample, Process, Slice, SliceId, Thread, TimelineKind, TimelineSlice, Track, TrackId, TrackKind, Upid, Utid,
    };
    use std::sync::Arc;

    fn trace() -> Trace {
        let mut t = Trace::default();
        t.processes = vec![Process {
            upid: Upid(0),
            pid: 42,
            name: Some(Arc::from("com.a")),
            ..Default::default()
        }];
        t.threads = vec![
            Thread {
                utid: Utid(0),
                tid: 42,
                upid: Some(Upid(0)),
                name: Some(Arc::from("com.a")),
            },
            Thread {
                utid: Utid(1),
                tid: 43,
                upid: Some(Upid(0)),
                name: Some(Arc::from("RenderThread")),
            },
        ];
        t.tracks = vec![
            Track {
                id: TrackId(0),
                name: None,
                kind: TrackKind::Thread { utid: Utid(0) },
            },
            Track {
                id: TrackId(1),
                name: None,
                kind: TrackKind::Thread { utid: Utid(1) },
            },
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
            CounterSample {
                ts: 90,
                value: 1.0,
                track: TrackId(2),
            },
            CounterSample {
                ts: 106,
                value: 0.0,
                track: TrackId(2),
            },
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
            present_type: Some(Arc::from("On-time Present")),
            on_time_finish: Some(true),
            gpu_composition: Some(false),
            prediction_type: Some(Arc::from("Valid Prediction")),
            jank_severity_type: None,
            jank_tag: Some(Arc::from("No Jank")),
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
        let c = run(
            &t,
            None,
            None,
            "SELECT name, pid, SUM(value) AS v FROM counter GROUP BY name, pid",
        )
        .unwrap();
        assert_eq!(c.height(), 1);
        assert_eq!(c.column("v").unwrap().f64().unwrap().get(0), Some(1.0));
        let th = run(&t, None, None, "SELECT tid FROM thread WHERE pid = 42 ORDER BY tid").unwrap();
        assert_eq!(th.height(), 2);
        let p = run(&t, None, None, "SELECT name FROM process").unwrap();
        assert_eq!(p.column("name").unwrap().str().unwrap().get(0), Some("com.a"));
        let ft = run(
            &t,
            None,
            None,
            "SELECT kind, surface, token, jank_type FROM frame_timeline",
        )
        .unwrap();
        assert_eq!(ft.column("kind").unwrap().str().unwrap().get(0), Some("actual"));
        assert_eq!(ft.column("surface").unwrap().bool().unwrap().get(0), Some(true));
    }

    #[test]
    fn sql_errors_are_one_line() {
        let e = run(&trace(), None, None, "SELEC nonsense FROM slice").unwrap_err();
        assert!(matches!(e, QueryError::Sql(_)));
        assert!(!e.to_string().contains('\n'));
        assert!(run(&trace(), None, None, "SELECT * FROM nowhere").is_err());
    }
}
