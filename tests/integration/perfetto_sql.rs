//! PerfettoSQL run unchanged: trace_processor's own diff-test queries
//! (`../shared/conformance`, each case's `query.sql`) through `fpsan query`'s
//! path (`fpsan::query::run` over the trace as the command reads it), their
//! rows compared with trace_processor's (`expected.csv` or `expected.out`) cell by cell. The
//! cases that must pass are named, so the test cannot pass on none; a query
//! without ORDER BY is compared as a multiset (SQL gives its rows no order).

use std::path::Path;

use polars::prelude::{AnyValue, DataFrame};

use crate::conformance::{parse_expected, Row, NULL};
use crate::util::shared;

/// The cases whose `query.sql` fpsan runs unchanged with trace_processor's rows.
const MUST_PASS: &[&str] = &[
    "AtraceErrorHandling__bad_print_systrace_list_slices",
    "AtraceErrorHandling__bad_print_textproto_list_slices",
    "AtraceErrorHandling__instant_async_atrace_instant_async",
    "AtraceErrorHandling__instant_atrace_instant_with_thread",
    "Atrace__android_b2b_async_begin_list_slices",
    "Atrace__async_track_atrace_process_track_slices",
    "Atrace__cpus_header_removal",
    "Atrace__cpus_header_with_digits_only",
    "Atrace__hex_preempt_count",
    "Atrace__process_track_slices_android_async_slice",
    "Atrace__regex_pattern_no_gap_after_irq_flags",
    "GraphicsParser__actual_frame_timeline_events",
    "GraphicsParser__display_power_mode_change",
    "GraphicsParser__expected_frame_timeline_events",
    "Parsing__kernel_dpu_tmw_counter_process_counter_and_track",
    "Parsing__kernel_tmw_counter_process_counter_and_track",
    "Parsing__slice_mdss_tracing_mark_write",
    "ProcessTracking__process_tracking_reused_thread_print",
    "ProcessTracking__slice_with_pid_sde_tracing_mark_write",
    "TrackEvent__track_event_with_atrace_separate_tracks",
];

/// The SQL of a case: its `query.sql` without the `[FILE …]` / `[METRIC …]`
/// note some have as their first line (not SQL: see the cases' README).
fn query_of(dir: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(dir.join("query.sql")).map_err(|e| e.to_string())?;
    let mut lines = text.lines().skip_while(|l| l.trim().is_empty()).peekable();
    if lines.peek().is_some_and(|l| l.trim_start().starts_with('[')) {
        lines.next();
    }
    Ok(lines.collect::<Vec<_>>().join("\n"))
}

/// A cell the way trace_processor prints it: integers and text as they are,
/// doubles with six decimals, booleans as 1/0, NULL as `[NULL]`.
fn cell(v: AnyValue) -> String {
    match v {
        AnyValue::Null => NULL.to_string(),
        AnyValue::Boolean(b) => i64::from(b).to_string(),
        AnyValue::String(s) => s.to_string(),
        AnyValue::StringOwned(s) => s.to_string(),
        AnyValue::Float64(f) => format!("{f:.6}"),
        AnyValue::Float32(f) => format!("{f:.6}"),
        v => v.to_string(),
    }
}

fn rows(df: &DataFrame) -> Result<Vec<Row>, String> {
    (0..df.height())
        .map(|i| df.columns().iter().map(|c| c.get(i).map(cell).map_err(|e| e.to_string())).collect())
        .collect()
}

/// What fpsan gives for one case, or why it differs from trace_processor.
fn check(dir: &Path) -> Result<(), String> {
    let sql = query_of(dir)?;
    let trace_path =
        ["trace.pftrace", "trace.systrace"].iter().map(|f| dir.join(f)).find(|p| p.is_file()).ok_or("no trace file")?;
    let mut trace = fpsan::analysis::load(&trace_path, &fpsan::read::ReadOptions::default())
        .map_err(|e| format!("decode failed: {e}"))?;
    if fpsan::query::needs_sched(&sql) {
        fpsan::query::load_sched(&trace_path, &mut trace).map_err(|e| e.to_string())?;
    }
    let df = fpsan::query::run(&trace, None, &sql).map_err(|e| e.to_string())?;
    let expected_path =
        ["expected.csv", "expected.out"].iter().map(|f| dir.join(f)).find(|p| p.is_file()).ok_or("no expected rows")?;
    let (header, mut expected) = parse_expected(&expected_path)?;
    let names: Vec<String> = df.get_column_names().iter().map(|n| n.to_string()).collect();
    if names != header {
        return Err(format!("columns {names:?}, trace_processor's {header:?}"));
    }
    let mut got = rows(&df)?;
    if !sql.to_ascii_uppercase().contains("ORDER BY") {
        got.sort();
        expected.sort();
    }
    if got != expected {
        let show = |r: &[Row]| r.iter().map(|r| format!("      {}", r.join(","))).collect::<Vec<_>>().join("\n");
        return Err(format!("rows differ\n    expected:\n{}\n    fpsan:\n{}", show(&expected), show(&got)));
    }
    Ok(())
}

#[test]
fn trace_processor_queries_run_unchanged() {
    let Some(root) = shared("conformance") else { return };
    let mut failed = Vec::new();
    for name in MUST_PASS {
        match check(&root.join(name)) {
            Ok(()) => println!("  PASS {name}"),
            Err(why) => failed.push(format!("{name}: {why}")),
        }
    }
    for f in &failed {
        println!("  FAIL {f}");
    }
    println!("perfetto_sql: {} of {} queries unchanged", MUST_PASS.len() - failed.len(), MUST_PASS.len());
    assert!(failed.is_empty(), "{} PerfettoSQL queries differ from trace_processor (see above)", failed.len());
}
