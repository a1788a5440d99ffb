//! `sched` and `thread_state` through `fpsan query`, row for row against
//! trace_processor v58.2: a generated compact_sched schedule whose switches
//! and wakings cross bundle boundaries (the truth worked out by hand, and
//! trace_processor's rows equal to it), the same schedule decoded with one
//! and with two workers, and every real trace in `../shared/traces`.

use std::collections::HashMap;
use std::path::Path;

use tracegen::systrace::SystraceOptions;
use tracegen::{BuildOptions, TraceBuilder};

use crate::util::{fpsan, real_traces, shared, trace_processor_rows};

const MS: i64 = 1_000_000;
const A: i32 = 100;
const B: i32 = 101;
const C: i32 = 200;

/// `sched` as (ts, cpu, tid, dur, end_state), in trace_processor's words.
const SCHED_SQL: &str = "select s.ts, s.cpu, t.tid, s.dur, s.end_state from sched s join thread t using (utid) \
                         order by s.ts, s.cpu";
/// `thread_state` as (ts, dur, tid, state, cpu, waker's tid).
const STATE_SQL: &str = "select s.ts, s.dur, t.tid, s.state, s.cpu, w.tid as waker from thread_state s \
                         join thread t using (utid) left join thread w on w.utid = s.waker_utid order by s.ts, t.tid";

/// CPU 0 runs A and B, CPU 1 runs C; two events per bundle, so the bundles
/// of CPU 0 are [1, 2], [3, 4], [5, 6], [7] ms and those of CPU 1 are
/// [1.5, 2.5], [5.5, 8] ms.
fn schedule() -> TraceBuilder {
    const S: i64 = 1;
    const D: i64 = 2;
    const X: i64 = 16;
    let mut b = TraceBuilder::new();
    b.process(A, "com.example.app").thread(A, A, "com.example.app").thread(B, A, "RenderThread");
    b.process(C, "bgd").thread(C, C, "bgd");
    b.sched_switch(MS, 0, 0, "swapper/0", 0, A, "com.example.app");
    b.sched_waking(3 * MS / 2, 1, C, "bgd", 1);
    b.sched_switch(2 * MS, 0, A, "com.example.app", S, B, "RenderThread");
    b.sched_switch(5 * MS / 2, 1, 0, "swapper/1", 0, C, "bgd");
    b.sched_waking(3 * MS, 0, A, "com.example.app", 0);
    b.sched_switch(4 * MS, 0, B, "RenderThread", D, A, "com.example.app");
    b.sched_switch(5 * MS, 0, A, "com.example.app", 0, 0, "swapper/0");
    b.sched_waking(11 * MS / 2, 1, B, "RenderThread", 0);
    b.sched_switch(6 * MS, 0, 0, "swapper/0", 0, B, "RenderThread");
    b.sched_switch(7 * MS, 0, B, "RenderThread", X, 0, "swapper/0");
    b.sched_switch(8 * MS, 1, C, "bgd", S, 0, "swapper/1");
    b
}

fn compact_options() -> BuildOptions {
    BuildOptions { cpus: 2, events_per_bundle: 2, compact_sched: true, ..BuildOptions::default() }
}

/// `fpsan query`'s rows for `sql` on `trace` (header first; NULL empty).
fn fpsan_rows(trace: &Path, sql: &str, workers: Option<usize>) -> Vec<Vec<String>> {
    let mut cmd = fpsan();
    if let Some(n) = workers {
        cmd.env("RAYON_NUM_THREADS", n.to_string());
    }
    let out = cmd.arg("query").arg(trace).arg(sql).args(["--format", "csv"]).output().expect("query");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(&out.stdout[..]);
    reader.records().map(|r| r.expect("csv").iter().map(str::to_owned).collect()).collect()
}

/// trace_processor's rows for `sql` on `trace`, NULL written as fpsan's CSV
/// writes it (empty); `None` where `../shared` is absent.
fn tp_rows(trace: &Path, sql: &str) -> Option<Vec<Vec<String>>> {
    let rows = trace_processor_rows(trace, sql)?;
    Some(
        rows.into_iter()
            .map(|r| r.into_iter().map(|c| if c == "[NULL]" { String::new() } else { c }).collect())
            .collect(),
    )
}

/// The rows as text lines, header left out.
fn lines(rows: &[Vec<String>]) -> Vec<String> {
    rows.iter().skip(1).map(|r| r.join(",")).collect()
}

#[test]
fn compact_sched_carries_each_cpus_task_across_its_bundles() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = dir.path().join("compact.pftrace");
    std::fs::write(&trace, schedule().build(&compact_options())).expect("write");
    // CPU 0's first switch (1 ms, to A) and CPU 1's (2.5 ms, to C) switch
    // out a task no bundle names: no row (trace_processor's
    // compact_sched_switch_skipped). B's run from 2 ms ends at 4 ms, the
    // first switch of CPU 0's second bundle, whose switched-out task is the
    // first bundle's last (B); so do A's at 5 ms and B's at 7 ms (X: dead).
    let sched = [
        "2000000,0,101,2000000,D",
        "4000000,0,100,1000000,R",
        "5000000,0,0,1000000,R",
        "6000000,0,101,1000000,X",
        "7000000,0,0,-1,",
        "8000000,1,0,-1,",
    ];
    assert_eq!(lines(&fpsan_rows(&trace, SCHED_SQL, None)), sched);
    // A's waking at 3 ms opens CPU 0's second bundle: its waker is the
    // task CPU 0's first bundle left running (B). B's at 5.5 ms opens CPU
    // 1's second bundle: woken by C. C's at 1.5 ms came before any switch
    // of CPU 1: dropped (compact_sched_waking_skipped); C is first seen
    // switched out, asleep, at 8 ms.
    let states = [
        "2000000,1000000,100,S,,",
        "2000000,2000000,101,Running,0,",
        "3000000,1000000,100,R,,101",
        "4000000,1000000,100,Running,0,",
        "4000000,1500000,101,D,,",
        "5000000,-1,100,R,,",
        "5500000,500000,101,R,,200",
        "6000000,1000000,101,Running,0,",
        "7000000,-1,101,X,,",
        "8000000,-1,200,S,,",
    ];
    assert_eq!(lines(&fpsan_rows(&trace, STATE_SQL, None)), states);
    // trace_processor gives the same rows.
    let Some(tp_sched) = tp_rows(&trace, SCHED_SQL) else { return };
    assert_eq!(lines(&tp_sched), sched);
    assert_eq!(lines(&tp_rows(&trace, STATE_SQL).expect("trace_processor")), states);
}

#[test]
fn the_stitched_tables_are_the_same_whatever_the_number_of_workers() {
    // Many bundles per CPU (three events each), over several decode batches.
    let mut b = TraceBuilder::new();
    b.process(A, "com.example.app").thread(A, A, "com.example.app").thread(B, A, "RenderThread");
    let tasks = [(0, "swapper"), (A, "com.example.app"), (B, "RenderThread")];
    for cpu in 0..4u32 {
        let mut running = 0usize;
        for k in 0..20_000i64 {
            let next = (running + 1 + (k as usize + cpu as usize) % 2) % 3;
            let ts = MS + k * 10_000 + i64::from(cpu) * 1_000;
            let (prev, prev_comm) = tasks[running];
            let (tid, comm) = tasks[next];
            if k % 5 == 0 {
                b.sched_waking(ts - 500, cpu, tid, comm, cpu);
            }
            b.sched_switch(ts, cpu, prev, prev_comm, k % 3, tid, comm);
            running = next;
        }
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = dir.path().join("many.pftrace");
    let opts = BuildOptions { events_per_bundle: 3, ..compact_options() };
    std::fs::write(&trace, b.build(&BuildOptions { cpus: 4, ..opts })).expect("write");
    for sql in [SCHED_SQL, STATE_SQL] {
        let one = fpsan_rows(&trace, sql, Some(1));
        assert!(one.len() > 50_000, "{} rows", one.len());
        assert_eq!(fpsan_rows(&trace, sql, Some(2)), one, "{sql}");
    }
}

#[test]
fn the_same_schedule_gives_trace_processors_rows_in_every_encoding() {
    let dir = tempfile::tempdir().expect("tempdir");
    let b = schedule();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        path
    };
    let traces = [
        write("plain.pftrace", &b.build(&BuildOptions { cpus: 2, events_per_bundle: 2, ..BuildOptions::default() })),
        write("sched.txt", b.systrace_text(&SystraceOptions::default()).as_bytes()),
    ];
    for trace in &traces {
        for sql in [SCHED_SQL, STATE_SQL] {
            let Some(tp) = tp_rows(trace, sql) else { return };
            assert_eq!(lines(&fpsan_rows(trace, sql, None)), lines(&tp), "{} {sql}", trace.display());
        }
    }
}

/// How many of trace_processor's rows fpsan gives too (as multisets).
fn equal_rows(tp: &[String], ours: &[String]) -> usize {
    let mut left: HashMap<&str, usize> = HashMap::new();
    for r in ours {
        *left.entry(r.as_str()).or_default() += 1;
    }
    tp.iter()
        .filter(|r| match left.get_mut(r.as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        })
        .count()
}

#[test]
fn sched_and_thread_state_equal_trace_processors_on_every_real_trace() {
    let Some(traces) = real_traces() else { return };
    assert!(traces.len() >= 15, "{} traces", traces.len());
    let mut failures = Vec::new();
    for trace in &traces {
        for (table, sql) in [("sched", SCHED_SQL), ("thread_state", STATE_SQL)] {
            let Some(tp) = tp_rows(trace, sql) else { return };
            let (tp, ours) = (lines(&tp), lines(&fpsan_rows(trace, sql, None)));
            let equal = equal_rows(&tp, &ours);
            let name = trace.file_name().unwrap().to_string_lossy();
            println!("{name} {table}: trace_processor {} rows, fpsan {}, equal {equal}", tp.len(), ours.len());
            // ≥ 99.9% of trace_processor's rows, and fpsan no more than 0.1% more.
            if equal * 1000 < tp.len() * 999 || ours.len() * 1000 > tp.len() * 1001 {
                failures.push(format!("{name} {table}: {equal} of {} equal, fpsan {}", tp.len(), ours.len()));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_startup_threads_short_run_ends_in_sleep() {
    let Some(trace) = shared("traces/real-android16-app-startup-after.pftrace") else { return };
    // Tid 1591 runs 0.32 ms from 17391701176190 and goes to sleep; before the
    // stitch its run ended only at its next switch-in, 17.25 ms later.
    let sql = "select s.ts, s.dur, s.end_state from sched s join thread t using (utid) \
               where t.tid = 1591 and s.ts = 17391701176190";
    let Some(tp) = tp_rows(&trace, sql) else { return };
    let ours = fpsan_rows(&trace, sql, None);
    assert_eq!(lines(&ours), lines(&tp));
    assert_eq!(lines(&ours), ["17391701176190,321628,S"]);
}

#[test]
fn frame_84264s_chain_names_the_render_thread_that_woke_its_main_thread() {
    use fpsan::analysis::{self, Options};
    let Some(trace) = shared("traces/real-android16-app-startup-after.pftrace") else { return };
    let a = analysis::analyze(&trace, &Options::default()).expect("analyze");
    let i = a.frames.rows.iter().position(|r| r.frame_id == Some(84264)).expect("frame 84264");
    let why = a.frames.why.iter().find(|w| w.frame_index == i).expect("its why");
    // Its main thread slept in postAndWait until its RenderThread woke it
    // (before the stitch: "running 19.1 ms (postAndWait …)").
    println!("{}", why.chain);
    assert!(why.chain.contains("← RenderThread"), "{}", why.chain);
    assert!(!why.chain.contains("running 19.1 ms"), "{}", why.chain);
}
