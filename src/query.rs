//! `fpsan query`: Polars SQL over fpsan's tables (`crate::tables`): the
//! model's (`slice`, `counter`, `thread`, `process`, `frame_timeline`) and
//! the analysis' (`frames`, `presents`, `flutter_frames`, `apps`, `scenes`).
//! Only the tables a query names are built, so a query on `thread` stays
//! fast on a big trace.

use std::collections::BTreeSet;

use polars::prelude::*;
use polars::sql::SQLContext;

use crate::model::Trace;
use crate::tables::{AnalysisTables, Table};

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
fn tables_in(sql: &str) -> BTreeSet<Table> {
    let words: BTreeSet<String> = sql
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    Table::ALL.into_iter().filter(|t| words.contains(t.name())).collect()
}

/// Whether the query needs the analysis (names one of its tables).
pub fn needs_frames(sql: &str) -> bool {
    tables_in(sql).iter().any(|t| t.of_analysis())
}

/// Run `sql` over the tables it mentions. The analysis' tables must be given
/// when the query names one of them (see [`needs_frames`]).
pub fn run(trace: &Trace, analysis: Option<&AnalysisTables>, sql: &str) -> Result<DataFrame, QueryError> {
    let mut ctx = SQLContext::new();
    for table in tables_in(sql) {
        let df = match (table.of_trace(trace), analysis.and_then(|a| a.get(table))) {
            (Some(built), _) => built.map_err(|e| QueryError::Table { table: table.name(), message: one_line(&e) })?,
            (None, Some(df)) => df.clone(),
            (None, None) => continue,
        };
        ctx.register(table.name(), df.lazy());
    }
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
        assert_eq!(t.into_iter().collect::<Vec<_>>(), [Table::Slice, Table::Thread, Table::Frames]);
        assert!(!needs_frames("select * from frame_timeline"));
        assert!(needs_frames("select * from apps"));
        assert!(needs_frames("select * from flutter_frames"));
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
