//! `fpsan query`: Polars SQL over fpsan's tables (`crate::tables`): the
//! model's (`slice`, `counter`, `thread`, `process`, `frame_timeline`),
//! trace_processor's over the same data (`track`, `thread_track`,
//! `process_track`, `counter_track`, `actual_frame_timeline_slice`, …,
//! `sched`, `thread_state`) and the analysis' (`frames`, `presents`,
//! `flutter_frames`, `main_thread_blocks`, `apps`, `scenes`). Only the tables a query names are
//! built, so a query on `thread` stays fast on a big trace. docs/report.md
//! says which PerfettoSQL runs unchanged.

use std::collections::BTreeSet;
use std::path::Path;

use polars::prelude::*;
use polars::sql::SQLContext;

use crate::model::Trace;
use crate::read::{ReadError, Source};
use crate::tables::{AnalysisTables, Table};

mod glob;
mod lex;
mod modules;
mod names;

#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The SQL did not parse or refers to something that does not exist.
    #[error("SQL error: {0}")]
    Sql(String),
    /// PerfettoSQL that only trace_processor runs (its modules, its own
    /// statements), with what fpsan offers instead.
    #[error("{0}")]
    PerfettoOnly(String),
    #[error("cannot build table {table}: {message}")]
    Table { table: &'static str, message: String },
}

impl QueryError {
    pub fn kind(&self) -> crate::error::ErrorKind {
        match self {
            QueryError::Sql(_) | QueryError::PerfettoOnly(_) => crate::error::ErrorKind::Usage,
            QueryError::Table { .. } => crate::error::ErrorKind::Input,
        }
    }
}

fn one_line(e: &PolarsError) -> String {
    crate::sink::one_line(&e.to_string())
}

/// The words of `sql` outside quoted text and comments, lowercased, dotted
/// names whole (`slice.name`, `android.frames.timeline`): a cheap scan, not
/// a parse.
pub(crate) fn code_words(sql: &str) -> Vec<String> {
    let b = sql.as_bytes();
    let mut code = String::with_capacity(sql.len());
    let mut i = 0;
    while i < b.len() {
        let skip_to = if b[i] == b'\'' || b[i] == b'"' {
            b[i + 1..].iter().position(|&c| c == b[i]).map_or(b.len(), |k| i + k + 2)
        } else if b[i..].starts_with(b"--") {
            b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |k| i + k)
        } else if b[i..].starts_with(b"/*") {
            sql[i + 2..].find("*/").map_or(b.len(), |k| i + k + 4)
        } else {
            let word = b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.';
            code.push(if word { b[i].to_ascii_lowercase() as char } else { ' ' });
            i += 1;
            continue;
        };
        code.push(' ');
        i = skip_to.min(b.len());
    }
    code.split_ascii_whitespace().map(str::to_string).collect()
}

/// The known tables a query mentions (a table named only in quoted text or
/// a comment is not built).
fn tables_in(sql: &str) -> BTreeSet<Table> {
    // Module names (`android.frames.timeline`) are not tables.
    let sql = modules::included(sql).map_or(sql, |(_, query)| query);
    let words: BTreeSet<String> = code_words(sql).iter().flat_map(|w| w.split('.')).map(str::to_string).collect();
    Table::ALL.into_iter().filter(|t| t.in_query() && words.contains(t.name())).collect()
}

/// Whether the query needs the analysis (names one of its tables).
pub fn needs_frames(sql: &str) -> bool {
    tables_in(sql).iter().any(|t| t.of_analysis())
}

/// Whether the query needs every thread's scheduler events (names `sched` or
/// `thread_state`): see [`load_sched`].
pub fn needs_sched(sql: &str) -> bool {
    tables_in(sql).iter().any(|t| t.of_sched())
}

/// Read the scheduler events of every thread of `trace` (and of the swapper,
/// tid 0) from the trace file into `trace.sched`, for `sched` and
/// `thread_state`. The first read of a trace keeps none of them (they are
/// its bulkiest data); this second read keeps 16 bytes per event.
pub fn load_sched(path: &Path, trace: &mut Trace) -> Result<(), ReadError> {
    let source = Source::open(path)?;
    let tids: Vec<i32> = std::iter::once(0).chain(trace.threads.iter().map(|t| t.tid)).collect();
    trace.sched = crate::import::sched_events(crate::read::sched_for_threads(&source, &tids)?);
    Ok(())
}

/// PerfettoSQL that only trace_processor runs, found before Polars reads the
/// query, with what to do instead.
fn perfetto_only(sql: &str) -> Option<String> {
    let words = code_words(sql);
    let at = |k: usize, w: &str| words.get(k).is_some_and(|x| x == w);
    for (k, word) in words.iter().enumerate() {
        if at(k, "include") && at(k + 1, "perfetto") && at(k + 2, "module") {
            return Some(
                "INCLUDE PERFETTO MODULE goes before the query (INCLUDE PERFETTO MODULE x.y; SELECT …)".to_string(),
            );
        }
        if at(k, "create") && at(k + 1, "perfetto") {
            return Some(
                "CREATE PERFETTO TABLE/VIEW/FUNCTION/MACRO is PerfettoSQL's own statement; fpsan query runs one \
                 SELECT (use WITH name AS (SELECT …) for a named subquery)"
                    .to_string(),
            );
        }
        if ["span_join", "span_left_join", "span_outer_join"].contains(&word.as_str()) {
            return Some(format!(
                "{}: trace_processor's SPAN_JOIN tables are not available in fpsan query; join on overlapping \
                 intervals instead (a.ts < b.ts + b.dur AND b.ts < a.ts + a.dur)",
                word.to_ascii_uppercase()
            ));
        }
    }
    None
}

/// Run `sql` over the tables it mentions. The analysis' tables must be given
/// when the query names one of them (see [`needs_frames`]); `trace.sched`
/// must hold every thread's events when it names `sched` or `thread_state`
/// (see [`load_sched`]).
pub fn run(trace: &Trace, analysis: Option<&AnalysisTables>, sql: &str) -> Result<DataFrame, QueryError> {
    let (modules, sql) = modules::included(sql)?;
    if let Some(why) = perfetto_only(sql) {
        return Err(QueryError::PerfettoOnly(why));
    }
    let mut tables = Vec::new();
    for table in tables_in(sql) {
        if let Some(module) = table.module().filter(|m| !modules.contains(m)) {
            return Err(QueryError::PerfettoOnly(format!(
                "{} is a table of PerfettoSQL module {module}: begin the query with INCLUDE PERFETTO MODULE {module};",
                table.name()
            )));
        }
        let df = match (table.of_trace(trace), analysis.and_then(|a| a.get(table))) {
            (Some(built), _) => built.map_err(|e| QueryError::Table { table: table.name(), message: one_line(&e) })?,
            (None, Some(df)) => df.clone(),
            (None, None) => continue,
        };
        tables.push((table, df));
    }
    let polars_sql = expand_exponents(&glob::to_regexp(&names::aliased(sql))?);
    match execute(&tables, &polars_sql, false) {
        // A column both sides of a join have only because of fpsan's own
        // columns (`slice.pid`, `thread.pid`, `counter.name`, …): run it as
        // trace_processor would, over its columns alone.
        Err(e) if is_ambiguous(&e) && tables.iter().any(|(t, _)| t.perfetto_columns().is_some()) => {
            execute(&tables, &polars_sql, true).map_err(|_| QueryError::Sql(explained(&one_line(&e))))
        }
        r => r.map_err(|e| QueryError::Sql(explained(&one_line(&e)))),
    }
}

/// Run `sql` over `tables`; `perfetto_columns`: the tables trace_processor
/// also has with its columns only.
fn execute(tables: &[(Table, DataFrame)], sql: &str, perfetto_columns: bool) -> PolarsResult<DataFrame> {
    let mut ctx = SQLContext::new();
    for (table, df) in tables {
        let df = match table.perfetto_columns() {
            Some(cols) if perfetto_columns => df.select(cols.iter().copied())?,
            _ => df.clone(),
        };
        ctx.register(table.name(), df.lazy());
    }
    ctx.execute(sql).and_then(|lf| lf.collect())
}

fn is_ambiguous(e: &PolarsError) -> bool {
    e.to_string().contains("ambiguous reference to column")
}

/// The tables `fpsan query` has, from the registry: "slice, counter, …,
/// scenes (and those of INCLUDE PERFETTO MODULE android.frames.timeline:
/// android_frames_choreographer_do_frame, …)", as its help and its
/// unknown-table error list them.
pub fn tables_listed() -> String {
    let modules: Vec<String> = modules::PROVIDED
        .iter()
        .map(|&m| format!("INCLUDE PERFETTO MODULE {m}: {}", Table::names(|t| t.module() == Some(m))))
        .collect();
    format!("{} (and those of {})", Table::names(|t| t.in_query() && t.module().is_none()), modules.join("; "))
}

/// Polars' message, with what to do where a PerfettoSQL habit is the cause:
/// a table it does not have (the tables there are), `percentile_cont`,
/// trace_processor's `args`.
fn explained(message: &str) -> String {
    let lower = message.to_ascii_lowercase();
    if lower.contains("relation") && lower.contains("not found") {
        format!("{message}; the tables are {}", tables_listed())
    } else if lower.contains("percentile_cont") || lower.contains("percentile_disc") {
        format!("{message}; use QUANTILE_CONT(column, 0.9) or QUANTILE_DISC(column, 0.9)")
    } else if let Some(renamed) = renamed_by_join(message) {
        // Polars renames a right-hand column the left side also has to
        // `name:table`, then fails to find it by its qualified name (GROUP BY).
        format!(
            "column {renamed} not found (Polars cannot GROUP BY a qualified column that the other side of a \
             join also has, e.g. thread.name after slice): group by its SELECT alias (SELECT thread.name AS \
             thread_name … GROUP BY thread_name)"
        )
    } else if lower.contains("extract_arg") {
        format!("{message}; fpsan keeps no args table (trace_processor's arg sets)")
    } else {
        message.to_string()
    }
}

/// `table.column` when Polars' message is that it could not find `column:table`.
fn renamed_by_join(message: &str) -> Option<String> {
    let rest = &message[message.find("unable to find column \"")? + "unable to find column \"".len()..];
    let (column, table) = rest[..rest.find('"')?].split_once(':')?;
    Some(format!("{table}.{column}"))
}

/// `df` with its floats rounded for a terminal (`fpsan query`'s table
/// format; CSV and JSON keep every digit): see [`round_for_display`].
pub fn rounded_for_display(mut df: DataFrame) -> PolarsResult<DataFrame> {
    let floats: Vec<PlSmallStr> =
        df.columns().iter().filter(|c| c.dtype().is_float()).map(|c| c.name().clone()).collect();
    for name in floats {
        let col = df.column(&name)?.cast(&DataType::Float64)?;
        let values: Float64Chunked =
            col.as_materialized_series().f64()?.iter().map(|v| v.map(round_for_display)).collect();
        df.with_column(values.with_name(name).into_column())?;
    }
    Ok(df)
}

/// A float as the terminal shows it: two decimals from 1 up
/// (170.66666999999998 → 170.67), three significant digits below 1
/// (0.0123456 → 0.0123); 0, non-finite values and magnitudes from 10^15 up
/// (no decimals left to drop) or below 10^-300 stay as they are.
pub fn round_for_display(v: f64) -> f64 {
    let a = v.abs();
    if !v.is_finite() || !(1e-300..1e15).contains(&a) {
        return v;
    }
    let decimals = if a >= 1.0 { 2 } else { 2 - a.log10().floor() as i32 };
    let scale = 10f64.powi(decimals);
    let r = (v * scale).round() / scale;
    if r.is_finite() {
        r
    } else {
        v
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
    use crate::tables::text_rows as rows;
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
        assert_eq!(t.into_iter().collect::<Vec<_>>(), [Table::Slice, Table::Thread]);
        // Names in quoted text and comments are not tables; thread_track is one word.
        let t = tables_in("select 'apps' /* scenes */, \"x\" from thread_track join sched using (utid)");
        assert_eq!(t.into_iter().collect::<Vec<_>>(), [Table::ThreadTrack, Table::Sched]);
        assert!(needs_sched("SELECT * FROM thread_state"));
        assert!(!needs_sched("SELECT * FROM thread"));
        assert!(!needs_frames("select * from frame_timeline"));
        assert!(needs_frames("select * from apps"));
        assert!(needs_frames("select * from flutter_frames"));
    }

    #[test]
    fn slices_with_thread_and_process() {
        let df = run(
            &trace(),
            None,
            "SELECT id, name, depth, parent_id, tid, pid, thread_name, process_name, track_name FROM slice ORDER BY id",
        )
        .unwrap();
        // trace_processor's rows: the FrameTimeline slice at 95 is id 0, named by its token, on its
        // process' Actual Timeline track.
        assert_eq!(
            rows(&df),
            cells(&[
                &["0", "7", "0", "null", "null", "42", "null", "com.a", "Actual Timeline"],
                &["1", "Choreographer#doFrame 7", "0", "null", "42", "42", "com.a", "com.a", "null"],
                &["2", "traversal", "1", "1", "42", "42", "com.a", "com.a", "null"],
                &["3", "DrawFrames 7", "0", "null", "43", "42", "RenderThread", "com.a", "null"],
            ])
        );
        // The FrameTimeline slice joins its track as trace_processor's does.
        let q = "SELECT s.id, t.name FROM slice s JOIN process_track t ON s.track_id = t.id";
        assert_eq!(rows(&run(&trace(), None, q).unwrap()), cells(&[&["0", "Actual Timeline"]]));
    }

    #[test]
    fn counters_threads_processes_timeline() {
        let t = trace();
        let c = run(&t, None, "SELECT name, pid, SUM(value) AS v FROM counter GROUP BY name, pid").unwrap();
        assert_eq!(c.height(), 1);
        assert_eq!(c.column("v").unwrap().f64().unwrap().get(0), Some(1.0));
        let th = run(&t, None, "SELECT tid FROM thread WHERE pid = 42 ORDER BY tid").unwrap();
        assert_eq!(th.height(), 2);
        let p = run(&t, None, "SELECT name FROM process WHERE pid = 42").unwrap();
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
        let e = run(&trace(), None, "SELECT * FROM raw").unwrap_err().to_string();
        assert!(
            e.contains("the tables are slice, counter, thread, process, frame_timeline, track, thread_track"),
            "{e}"
        );
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

    fn cells(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter().map(|r| r.iter().map(|c| c.to_string()).collect()).collect()
    }

    #[test]
    fn thread_and_process_have_trace_processors_ids() {
        let t = trace();
        let th = run(&t, None, "SELECT utid, tid, name, upid FROM thread ORDER BY utid").unwrap();
        // utid 0 / upid 0: the swapper thread and idle process (unnamed: no ftrace data here).
        assert_eq!(
            rows(&th),
            cells(&[&["0", "0", "null", "0"], &["1", "42", "com.a", "1"], &["2", "43", "RenderThread", "1"]])
        );
        let p = run(&t, None, "SELECT upid, pid, name FROM process ORDER BY upid").unwrap();
        assert_eq!(rows(&p), cells(&[&["0", "0", "null"], &["1", "42", "com.a"]]));
        let j = run(
            &t,
            None,
            "SELECT tid, process.name AS pname FROM thread JOIN process USING (upid) WHERE tid > 0 ORDER BY tid",
        )
        .unwrap();
        assert_eq!(rows(&j), cells(&[&["42", "com.a"], &["43", "com.a"]]));
    }

    #[test]
    fn perfetto_track_joins_run_unchanged() {
        let t = trace();
        let q = "SELECT thread.name AS thread_name, s.name, s.ts FROM slice s \
                 JOIN thread_track ON s.track_id = thread_track.id JOIN thread USING (utid) ORDER BY s.ts";
        assert_eq!(
            rows(&run(&t, None, q).unwrap()),
            cells(&[
                &["com.a", "Choreographer#doFrame 7", "100"],
                &["com.a", "traversal", "110"],
                &["RenderThread", "DrawFrames 7", "160"]
            ])
        );
        // The model's tracks 0-2, then the FrameTimeline track of upid 1.
        assert_eq!(rows(&run(&t, None, "SELECT id, name FROM track").unwrap()).len(), 4);
        assert_eq!(
            rows(&run(&t, None, "SELECT id, utid FROM thread_track").unwrap()),
            cells(&[&["0", "1"], &["1", "2"]])
        );
        assert_eq!(
            rows(&run(&t, None, "SELECT id, name, upid FROM process_track").unwrap()),
            cells(&[&["3", "Actual Timeline", "1"]])
        );
        assert_eq!(rows(&run(&t, None, "SELECT id, name FROM counter_track").unwrap()), cells(&[&["2", "VSYNC-app"]]));
        let q = "SELECT c.id, ts, value, pct.name, pid FROM counter c \
                 JOIN process_counter_track pct ON c.track_id = pct.id JOIN process USING (upid) ORDER BY ts";
        assert_eq!(
            rows(&run(&t, None, q).unwrap()),
            cells(&[&["0", "90", "1.0", "VSYNC-app", "42"], &["1", "106", "0.0", "VSYNC-app", "42"]])
        );
        assert_eq!(run(&t, None, "SELECT * FROM thread_counter_track").unwrap().height(), 0);
    }

    #[test]
    fn frame_timeline_tables_have_trace_processors_columns() {
        let t = trace();
        let q = "SELECT id, ts, dur, track_id, name, display_frame_token, surface_frame_token, upid, layer_name, \
                 present_type, on_time_finish, gpu_composition, jank_type, jank_severity_type, prediction_type, jank_tag \
                 FROM actual_frame_timeline_slice";
        assert_eq!(
            rows(&run(&t, None, q).unwrap()),
            cells(&[&[
                "0",
                "95",
                "100",
                "3",
                "7",
                "9",
                "7",
                "1",
                "com.a/com.a.Main#0",
                "On-time Present",
                "1",
                "0",
                "None",
                "null",
                "Valid Prediction",
                "No Jank"
            ]])
        );
        assert_eq!(run(&t, None, "SELECT * FROM expected_frame_timeline_slice").unwrap().height(), 0);
        // trace_processor's own query for the actual timeline, unchanged.
        let q = "SELECT ts, dur, process.pid, display_frame_token, surface_frame_token, layer_name \
                 FROM (SELECT t.*, process_track.name AS track_name FROM \
                   process_track LEFT JOIN actual_frame_timeline_slice t ON process_track.id = t.track_id) s \
                 JOIN process USING(upid) WHERE s.track_name = 'Actual Timeline' ORDER BY ts;";
        assert_eq!(rows(&run(&t, None, q).unwrap()), cells(&[&["95", "100", "42", "9", "7", "com.a/com.a.Main#0"]]));
    }

    #[test]
    fn floats_are_rounded_for_the_terminal_only_by_the_stated_rule() {
        assert_eq!(round_for_display(170.66666999999998).to_string(), "170.67");
        assert_eq!(round_for_display(-16.666666).to_string(), "-16.67");
        assert_eq!(round_for_display(0.0123456).to_string(), "0.0123");
        assert_eq!(round_for_display(0.5).to_string(), "0.5");
        assert_eq!(round_for_display(2.0).to_string(), "2");
        assert_eq!(round_for_display(1.5e15), 1.5e15);
        assert_eq!(round_for_display(0.0), 0.0);
        assert!(round_for_display(f64::NAN).is_nan());
        assert_eq!(round_for_display(f64::INFINITY), f64::INFINITY);
        let df = DataFrame::new(
            2,
            vec![
                Column::new("f".into(), [Some(170.66666999999998f64), None]),
                Column::new("n".into(), [123456789i64, 7]),
            ],
        )
        .unwrap();
        let r = rounded_for_display(df).unwrap();
        assert_eq!(rows(&r), cells(&[&["170.67", "123456789"], &["null", "7"]]));
    }

    #[test]
    fn group_by_a_renamed_qualified_column_says_to_use_the_alias() {
        let t = trace();
        let from = "FROM slice JOIN thread_track ON slice.track_id = thread_track.id JOIN thread USING (utid)";
        let by_alias = format!("SELECT thread.name AS tname, COUNT(*) AS n {from} GROUP BY tname ORDER BY n DESC");
        let df = run(&t, None, &by_alias).unwrap();
        assert_eq!(rows(&df), cells(&[&["com.a", "2"], &["RenderThread", "1"]]));
        let qualified = format!("SELECT thread.name AS tname, COUNT(*) AS n {from} GROUP BY thread.name");
        match run(&t, None, &qualified) {
            // Polars 0.55 fails here; a later Polars may not.
            Err(e) => assert!(
                e.to_string().starts_with("SQL error: column thread.name not found (Polars cannot GROUP BY"),
                "{e}"
            ),
            Ok(df) => assert_eq!(df.height(), 2),
        }
    }

    #[test]
    fn perfetto_only_statements_say_what_to_do() {
        let e = run(&trace(), None, "INCLUDE PERFETTO MODULE android.binder;\nSELECT * FROM android_binder_txns")
            .unwrap_err();
        assert!(matches!(e, QueryError::PerfettoOnly(_)));
        assert!(
            e.to_string().starts_with(
                "INCLUDE PERFETTO MODULE android.binder: module android.binder is not provided by fpsan; provided: \
                 android.frames.timeline ("
            ),
            "{e}"
        );
        let e = run(&trace(), None, "SELECT 1 AS x FROM process; INCLUDE PERFETTO MODULE android.frames.timeline")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "INCLUDE PERFETTO MODULE goes before the query (INCLUDE PERFETTO MODULE x.y; SELECT …)");
        let e = run(&trace(), None, "SELECT * FROM android_frames").unwrap_err().to_string();
        assert_eq!(
            e,
            "android_frames is a table of PerfettoSQL module android.frames.timeline: begin the query with \
             INCLUDE PERFETTO MODULE android.frames.timeline;"
        );
        let e = run(&trace(), None, "CREATE PERFETTO TABLE x AS SELECT 1").unwrap_err().to_string();
        assert!(e.contains("WITH name AS"), "{e}");
        let e = run(&trace(), None, "CREATE VIRTUAL TABLE sp USING SPAN_JOIN(a, b)").unwrap_err().to_string();
        assert!(e.starts_with("SPAN_JOIN: "), "{e}");
        // In a comment or quoted text it is not a statement.
        let df = run(&trace(), None, "-- INCLUDE PERFETTO MODULE x\nSELECT 'span_join' AS s FROM process").unwrap();
        assert_eq!(df.height(), 2);
    }

    #[test]
    fn an_included_module_gives_its_tables() {
        // The frame 7: doFrame id 1 on utid 1, DrawFrames id 3 on utid 2, the actual slice id 0; no
        // expected slice, so upid is NULL (the module takes it from the expected slice).
        let q = "INCLUDE PERFETTO MODULE android.frames.timeline;\n\
                 SELECT frame_id, ts, dur, do_frame_id, draw_frame_id, actual_frame_timeline_id, \
                 expected_frame_timeline_id, render_thread_utid, ui_thread_utid, actual_frame_timeline_count, \
                 draw_frame_count, upid, process_name FROM android_frames";
        assert_eq!(
            rows(&run(&trace(), None, q).unwrap()),
            cells(&[&["7", "95", "100", "1", "3", "0", "null", "2", "1", "1", "1", "null", "com.a"]])
        );
        // Naming the module's table does not build the analysis' `frames`.
        assert!(!needs_frames(q));
    }

    #[test]
    fn unaliased_expressions_are_named_as_written() {
        let t = trace();
        let df = run(
            &t,
            None,
            "SELECT count(*), COUNT(*) AS n, max(dur) - min(dur), name FROM slice GROUP BY name ORDER BY name",
        )
        .unwrap();
        let names: Vec<&str> = df.get_column_names().iter().map(|c| c.as_str()).collect();
        assert_eq!(names, ["count(*)", "n", "max(dur) - min(dur)", "name"]);
        let df = run(&t, None, "SELECT s.name, s.dur / 1e1 FROM slice s WHERE s.depth = 1").unwrap();
        assert_eq!(df.get_column_names().iter().map(|c| c.as_str()).collect::<Vec<_>>(), ["name", "s.dur / 1e1"]);
        assert_eq!(rows(&df), cells(&[&["traversal", "3.0"]]));
    }

    #[test]
    fn glob_matches_as_sqlite_does() {
        let t = trace();
        let names =
            |q: &str| -> Vec<String> { rows(&run(&t, None, q).unwrap()).into_iter().map(|r| r[0].clone()).collect() };
        assert_eq!(names("SELECT name FROM slice WHERE name GLOB 'Draw*' ORDER BY id"), ["DrawFrames 7"]);
        // Case-sensitive, `?` one character, sets and ranges, negation.
        assert!(names("SELECT name FROM slice WHERE name GLOB 'draw*'").is_empty());
        assert_eq!(names("SELECT name FROM slice WHERE name GLOB '*Frame? [0-9]' ORDER BY id"), ["DrawFrames 7"]);
        assert_eq!(
            names("SELECT name FROM slice WHERE name GLOB '[^C]*' AND depth = 0 ORDER BY id"),
            ["7", "DrawFrames 7"]
        );
        assert_eq!(
            names("SELECT name FROM slice WHERE name NOT GLOB '*#*' ORDER BY id"),
            ["7", "traversal", "DrawFrames 7"]
        );
        // Regex characters in the pattern are themselves.
        assert_eq!(
            names("SELECT name FROM slice WHERE name GLOB 'Choreographer#doFrame ?' ORDER BY id"),
            ["Choreographer#doFrame 7"]
        );
        assert!(names("SELECT name FROM slice WHERE name GLOB 'Choreographer.doFrame*'").is_empty());
    }
}
