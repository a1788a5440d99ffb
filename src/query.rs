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
    let sql = expand_exponents(sql);
    ctx.execute(&sql).and_then(|lf| lf.collect()).map_err(|e| QueryError::Sql(explained(&one_line(&e))))
}

/// Polars' message, with what to do where a PerfettoSQL habit is the cause:
/// a table it does not have (the tables there are), `percentile_cont`.
fn explained(message: &str) -> String {
    let lower = message.to_ascii_lowercase();
    if lower.contains("relation") && lower.contains("not found") {
        let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
        format!("{message}; the tables are {}", names.join(", "))
    } else if lower.contains("percentile_cont") || lower.contains("percentile_disc") {
        format!("{message}; use QUANTILE_CONT(column, 0.9) or QUANTILE_DISC(column, 0.9)")
    } else {
        message.to_string()
    }
}

/// `16e6` as `16000000.0`: Polars SQL does not read a float literal with an
/// exponent, PerfettoSQL (SQLite) does. Quoted text and identifiers such as
/// `t1e5` are left alone.
fn expand_exponents(sql: &str) -> String {
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\'' || c == b'"' {
            // A quoted string or identifier, to its closing quote (doubled quotes stay inside).
            let mut j = i + 1;
            while j < b.len() && b[j] != c {
                j += 1;
            }
            let end = (j + 1).min(b.len());
            out.push_str(&sql[i..end]);
            i = end;
            continue;
        }
        let starts_word = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'.');
        if c.is_ascii_digit() && starts_word {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.') {
                j += 1;
            }
            let mantissa_end = j;
            if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
                let mut k = j + 1;
                if k < b.len() && (b[k] == b'+' || b[k] == b'-') {
                    k += 1;
                }
                let digits = k;
                while k < b.len() && b[k].is_ascii_digit() {
                    k += 1;
                }
                let ends_word = k == b.len() || !(b[k].is_ascii_alphanumeric() || b[k] == b'_');
                if k > digits && ends_word {
                    if let Ok(v) = sql[i..k].parse::<f64>() {
                        out.push_str(&format!("{v:?}"));
                        i = k;
                        continue;
                    }
                }
            }
            out.push_str(&sql[i..mantissa_end]);
            i = mantissa_end;
            continue;
        }
        // Whole UTF-8 characters: copy up to the next byte that can start a token.
        let next = (i + 1..b.len()).find(|&k| sql.is_char_boundary(k)).unwrap_or(b.len());
        out.push_str(&sql[i..next]);
        i = next;
    }
    out
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
    fn exponent_literals_are_read_as_perfetto_sql_reads_them() {
        assert_eq!(
            expand_exponents("select * from slice where dur > 16e6"),
            "select * from slice where dur > 16000000.0"
        );
        assert_eq!(expand_exponents("x < 1.5E-3 and y = 2e+2"), "x < 0.0015 and y = 200.0");
        // Text, identifiers and plain numbers stay as they are.
        assert_eq!(
            expand_exponents("select 't 16e6', t1e5, \"c2e3\", 42, 3.5 from «x»"),
            "select 't 16e6', t1e5, \"c2e3\", 42, 3.5 from «x»"
        );
        let t = trace();
        let df = run(&t, None, "SELECT id FROM slice WHERE dur > 1e0 ORDER BY id").unwrap();
        assert_eq!(df.height(), run(&t, None, "SELECT id FROM slice WHERE dur > 1 ORDER BY id").unwrap().height());
    }

    #[test]
    fn unknown_tables_and_percentile_cont_say_what_to_do() {
        let e = run(&trace(), None, "SELECT * FROM thread_track").unwrap_err().to_string();
        assert!(e.contains("the tables are slice, counter, thread, process, frame_timeline, frames"), "{e}");
        let e = run(&trace(), None, "SELECT percentile_cont(dur, 0.5) FROM slice").unwrap_err().to_string();
        assert!(e.contains("use QUANTILE_CONT(column, 0.9)"), "{e}");
    }

    #[test]
    fn sql_errors_are_one_line() {
        let e = run(&trace(), None, "SELEC nonsense FROM slice").unwrap_err();
        assert!(matches!(e, QueryError::Sql(_)));
        assert!(!e.to_string().contains('\n'));
        assert!(run(&trace(), None, "SELECT * FROM nowhere").is_err());
    }
}
