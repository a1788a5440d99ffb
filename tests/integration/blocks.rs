//! Main-thread blocks (docs/blocks.md) against trace_processor v58.2: on
//! every real trace in `../shared/traces`, the slice blocks of at least
//! 100 ms equal `thread_slice`'s top-level main-thread slices (ts, dur, tid,
//! pid, name and the standardized name), and the standardized name equals
//! `android_standardize_slice_name` on every slice name trace_processor
//! lists. A generated trace checks the levels against hand-computed truth.

use std::path::{Path, PathBuf};

use fpsan::analysis::{self, Options};
use fpsan::blocks::{names, Block, BlockKind, BlockLevel};

use crate::util::{fpsan, real_traces, shared, trace_processor_rows};

const MS: i64 = 1_000_000;

/// trace_processor's main-thread top-level slices of at least 100 ms.
const THREAD_SLICE_SQL: &str = "INCLUDE PERFETTO MODULE slices.with_context;
INCLUDE PERFETTO MODULE android.slices;
SELECT ts, dur, tid, pid, name, android_standardize_slice_name(name) FROM thread_slice
WHERE is_main_thread AND depth = 0 AND dur >= 100e6 ORDER BY ts, id";

/// Every distinct slice name and what trace_processor makes of it.
const NAMES_SQL: &str = "INCLUDE PERFETTO MODULE android.slices;
SELECT DISTINCT name, android_standardize_slice_name(name) FROM slice WHERE name IS NOT NULL";

/// fpsan's blocks of the whole trace.
fn blocks_of(trace: &Path) -> Vec<Block> {
    let opts = Options { whole_trace: true, ..Options::default() };
    let opened = analysis::open(trace, &analysis::frame_read_options(opts.sink)).expect("read");
    analysis::frames_of(opened, &opts).blocks.blocks
}

/// Rows as trace_processor's CSV gives them, header dropped.
fn rows(blocks: &[Block]) -> Vec<Vec<String>> {
    blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Slice && b.dur >= 100 * MS)
        .map(|b| {
            vec![
                b.ts.to_string(),
                b.dur.to_string(),
                b.tid.to_string(),
                b.pid.to_string(),
                b.name.to_string(),
                b.standard_name.to_string(),
            ]
        })
        .collect()
}

#[test]
fn slice_blocks_equal_trace_processors_thread_slice_on_every_real_trace() {
    let Some(traces) = real_traces() else { return };
    assert!(traces.len() >= 15, "{} traces", traces.len());
    let mut compared = 0;
    for trace in &traces {
        let Some(tp) = trace_processor_rows(trace, THREAD_SLICE_SQL) else { return };
        let ours = rows(&blocks_of(trace));
        assert_eq!(ours, tp[1..].to_vec(), "{}", trace.display());
        compared += ours.len();
    }
    // Not a vacuous equality: the startup and database traces hold 9.
    assert!(compared >= 9, "{compared} blocks compared");
}

#[test]
fn the_database_on_the_ui_thread_is_two_blocks() {
    let Some(trace) = shared("traces/real-android16-db-ui-thread-before.pftrace") else { return };
    let blocks = blocks_of(&trace);
    let long: Vec<(&str, i64, Option<BlockLevel>)> =
        blocks.iter().filter(|b| b.dur >= 100 * MS && b.pid == 11377).map(|b| (&*b.name, b.dur, b.level)).collect();
    // trace_processor: inflate 100.548494 ms, openAndQueryOnUiThread
    // 328.290218 ms, then a 388 ms doFrame; the app draws at 60 Hz, so each
    // is at least three frame intervals.
    assert_eq!(
        long,
        [
            ("inflate", 100_548_494, Some(BlockLevel::FrameScale)),
            ("openAndQueryOnUiThread", 328_290_218, Some(BlockLevel::FrameScale)),
            ("Choreographer#doFrame 191623", 388_020_398, Some(BlockLevel::FrameScale)),
        ]
    );
    let db = blocks.iter().find(|b| &*b.name == "openAndQueryOnUiThread").unwrap();
    // The UI thread's scheduler states cover the block (it draws frames).
    let split = [db.cpu_ns, db.runnable_ns, db.sleeping_ns, db.io_ns];
    assert!(split.iter().all(Option::is_some), "{split:?}");
    assert_eq!(split.iter().flatten().sum::<i64>(), db.dur, "{split:?}");
}

#[test]
fn the_table_is_in_query() {
    let Some(trace) = shared("traces/real-android16-db-ui-thread-before.pftrace") else { return };
    let out = fpsan()
        .arg("query")
        .arg(&trace)
        .args(["--format", "csv"])
        .arg("SELECT ts, dur, name, kind, level FROM main_thread_blocks WHERE pid = 11377 AND dur >= 100000000 ORDER BY ts")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "ts,dur,name,kind,level",
            "19528581475191,100548494,inflate,slice,frame_scale",
            "19528696632101,328290218,openAndQueryOnUiThread,slice,frame_scale",
            "19529068515458,388020398,Choreographer#doFrame 191623,slice,frame_scale",
        ]
    );
}

#[test]
fn standardized_names_equal_trace_processors_on_every_real_trace() {
    let Some(traces) = real_traces() else { return };
    let mut checked = 0;
    for trace in &traces {
        let Some(tp) = trace_processor_rows(trace, NAMES_SQL) else { return };
        for row in &tp[1..] {
            assert_eq!(names::standardize(&row[0]), row[1].as_str(), "{:?} in {}", row[0], trace.display());
        }
        checked += tp.len() - 1;
    }
    assert!(checked >= 1000, "{checked} names");
}

const APP: i32 = 500;
const WORKER: i32 = 501;
const IDLE: i32 = 0;

/// App 500 draws `Choreographer#doFrame k` at k × 16.67 ms (k = 1..=5, 4 ms
/// each), then its main thread runs, 1 s apart:
/// - 1 s `openDatabase` 800 ms, with a nested `query` 700 ms (not a block);
///   its scheduler states: running 1.0–1.3 s, in D (I/O) to 1.5 s, woken,
///   runnable to 1.6 s, running to its end at 1.8 s, then asleep;
/// - 3 s `android.os.Handler: com.example.Poller$1` 20 ms;
/// - 4 s `inflate` 60 ms; 5 s `b` 1.2 s; 7 s `c` 2.5 s; 10 s `d` 6 s.
///
/// Its worker's 3 s slice is no block. The frame interval is 60 Hz's or
/// 120 Hz's (whatever the frames stage finds), and every duration was
/// chosen to land on the same level under both (3 × 8.33 = 25 ms,
/// 3 × 16.67 = 50 ms).
fn generated(dir: &Path) -> PathBuf {
    use tracegen::{BuildOptions, TraceBuilder};
    let mut b = TraceBuilder::new();
    b.process(APP, "com.example.blocks").thread(APP, APP, "example.blocks").thread(WORKER, APP, "worker");
    for k in 1..=5i64 {
        b.slice(k * 16_666_667, 4 * MS, APP, APP, &format!("Choreographer#doFrame {k}"));
    }
    b.slice(1_000 * MS, 800 * MS, APP, APP, "openDatabase");
    b.slice(1_050 * MS, 700 * MS, APP, APP, "query");
    b.slice(3_000 * MS, 20 * MS, APP, APP, "android.os.Handler: com.example.Poller$1");
    b.slice(4_000 * MS, 60 * MS, APP, APP, "inflate");
    b.slice(5_000 * MS, 1_200 * MS, APP, APP, "b");
    b.slice(7_000 * MS, 2_500 * MS, APP, APP, "c");
    b.slice(10_000 * MS, 6_000 * MS, APP, APP, "d");
    b.slice(0, 3_000 * MS, WORKER, APP, "work");
    b.sched_switch(1_000 * MS, 0, IDLE, "swapper/0", 0, APP, "example.blocks");
    b.sched_switch(1_300 * MS, 0, APP, "example.blocks", 2, IDLE, "swapper/0");
    b.sched_waking(1_500 * MS, 1, APP, "example.blocks", 0);
    b.sched_switch(1_600 * MS, 0, IDLE, "swapper/0", 0, APP, "example.blocks");
    b.sched_switch(1_800 * MS, 0, APP, "example.blocks", 1, IDLE, "swapper/0");
    let path = dir.join("blocks.pftrace");
    std::fs::write(&path, b.build(&BuildOptions::default())).expect("write");
    path
}

#[test]
fn generated_blocks_with_hand_computed_levels_and_split() {
    let dir = tempfile::tempdir().unwrap();
    let blocks = blocks_of(&generated(dir.path()));
    let got: Vec<(i64, i64, &str, &str, Option<BlockLevel>)> = blocks
        .iter()
        .filter(|b| !b.name.starts_with("Choreographer#doFrame"))
        .map(|b| (b.ts, b.dur, &*b.name, &*b.standard_name, b.level))
        .collect();
    use BlockLevel::*;
    assert_eq!(
        got,
        [
            (1_000 * MS, 800 * MS, "openDatabase", "openDatabase", Some(EvilMethod)),
            (
                3_000 * MS,
                20 * MS,
                "android.os.Handler: com.example.Poller$1",
                "Handler: com.example.Poller",
                Some(Short)
            ),
            (4_000 * MS, 60 * MS, "inflate", "inflate", Some(FrameScale)),
            (5_000 * MS, 1_200 * MS, "b", "b", Some(BlockCanary)),
            (7_000 * MS, 2_500 * MS, "c", "c", Some(Lag)),
            (10_000 * MS, 6_000 * MS, "d", "d", Some(AnrRisk)),
        ]
    );
    assert_eq!(blocks.iter().filter(|b| b.name.starts_with("Choreographer#doFrame")).count(), 5);
    assert!(blocks.iter().all(|b| b.pid == APP && b.tid == APP && b.process.as_deref() == Some("com.example.blocks")));
    let db = &blocks.iter().find(|b| &*b.name == "openDatabase").unwrap();
    // Running 300 + 200 ms, D 200 ms, runnable 100 ms.
    assert_eq!(
        (db.cpu_ns, db.runnable_ns, db.sleeping_ns, db.io_ns),
        (Some(500 * MS), Some(100 * MS), Some(0), Some(200 * MS))
    );
}
