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

const CAUSES_APP: i32 = 700;
const LOCK_OWNER: i32 = 701;
const GC: i32 = 702;
const SYSTEM: i32 = 800;
const BINDER: i32 = 801;
const MAIN_COMM: &str = "example.causes";

/// App 700 draws `Choreographer#doFrame k` at k × 16.67 ms (k = 1..=5, 4 ms
/// each) on its main thread (CPU 0), whose scheduler states fpsan keeps;
/// then one block of each kind, each ending with the main thread asleep:
/// - 1 s `getPackageInfo` 300 ms around a `binder transaction` of the same
///   span: the main thread runs 10 ms and sleeps; system_server's
///   `binder:800_1` (CPU 1) runs `binder reply` from 1.01 s to 1.29 s and wakes
///   it; it runs again from 1.2901 s (100 µs runnable) to the end;
/// - 2 s `syncState` 200 ms around `Lock contention on a monitor lock (owner
///   tid: 701)`: it runs 5 ms and sleeps until its worker 701, running
///   `heavyWork` from 1.9 s, wakes it at 2.19 s; it runs from 2.1901 s;
/// - 3 s `inflate` 150 ms around `WaitForGcToComplete`: it runs 2 ms, sleeps
///   until HeapTaskDaemon 702 (`CollectorTransition` from 2.95 s) wakes it at
///   3.14 s; it runs from 3.1401 s;
/// - 4 s `loadConfig` 100 ms: it runs 20 ms, waits in D (I/O) until 4.09 s
///   (woken from an interrupt: no thread), runs from 4.0901 s;
/// - 5 s: 80 ms of running with no slice open, an untraced block.
fn generated_causes(dir: &Path) -> PathBuf {
    use tracegen::{BuildOptions, TraceBuilder};
    const US: i64 = 1_000;
    let mut b = TraceBuilder::new();
    b.process(CAUSES_APP, "com.example.causes")
        .thread(CAUSES_APP, CAUSES_APP, MAIN_COMM)
        .thread(LOCK_OWNER, CAUSES_APP, "worker")
        .thread(GC, CAUSES_APP, "HeapTaskDaemon")
        .process(SYSTEM, "system_server")
        .thread(BINDER, SYSTEM, "binder:800_1");
    for k in 1..=5i64 {
        b.slice(k * 16_666_667, 4 * MS, CAUSES_APP, CAUSES_APP, &format!("Choreographer#doFrame {k}"));
    }
    let main = CAUSES_APP;
    // The main thread runs [from, sleep) and sleeps (S, or D when `io`); `waker` on CPU 1 runs
    // [waker_from, woken) in `waker_slice` and wakes it at `woken`; it runs from woken + 100 µs to `end`.
    let mut block = |from: i64, sleep: i64, io: bool, waker: Option<(i32, &str, &str, i64)>, woken: i64, end: i64| {
        b.sched_switch(from, 0, 0, "swapper/0", 0, main, MAIN_COMM);
        b.sched_switch(sleep, 0, main, MAIN_COMM, if io { 2 } else { 1 }, 0, "swapper/0");
        match waker {
            Some((tid, comm, slice, waker_from)) => {
                b.slice(waker_from, woken - waker_from, tid, if tid == BINDER { SYSTEM } else { CAUSES_APP }, slice);
                b.sched_switch(waker_from, 1, 0, "swapper/1", 0, tid, comm);
                b.sched_waking(woken, 1, main, MAIN_COMM, 0);
                b.sched_switch(woken + 10 * US, 1, tid, comm, 1, 0, "swapper/1");
            }
            // From an interrupt on an idle CPU: no thread woke it.
            None => b.sched_waking(woken, 2, main, MAIN_COMM, 0),
        }
        b.sched_switch(woken + 100 * US, 0, 0, "swapper/0", 0, main, MAIN_COMM);
        b.sched_switch(end, 0, main, MAIN_COMM, 1, 0, "swapper/0");
    };
    block(
        1_000 * MS,
        1_010 * MS,
        false,
        Some((BINDER, "binder:800_1", "binder reply", 1_010 * MS)),
        1_290 * MS,
        1_300 * MS,
    );
    block(2_000 * MS, 2_005 * MS, false, Some((LOCK_OWNER, "worker", "heavyWork", 1_900 * MS)), 2_190 * MS, 2_200 * MS);
    block(
        3_000 * MS,
        3_002 * MS,
        false,
        Some((GC, "HeapTaskDaemon", "CollectorTransition", 2_950 * MS)),
        3_140 * MS,
        3_150 * MS,
    );
    block(4_000 * MS, 4_020 * MS, true, None, 4_090 * MS, 4_100 * MS);
    b.sched_switch(5_000 * MS, 0, 0, "swapper/0", 0, main, MAIN_COMM);
    b.sched_switch(5_080 * MS, 0, main, MAIN_COMM, 1, 0, "swapper/0");
    for (ts, dur, outer, inner) in [
        (1_000, 300, "getPackageInfo", "binder transaction"),
        (2_000, 200, "syncState", "Lock contention on a monitor lock (owner tid: 701)"),
        (3_000, 150, "inflate", "WaitForGcToComplete"),
    ] {
        b.slice(ts * MS, dur * MS, main, main, outer);
        b.slice(ts * MS, dur * MS, main, main, inner);
    }
    b.slice(4_000 * MS, 100 * MS, main, main, "loadConfig");
    let path = dir.join("causes.pftrace");
    std::fs::write(&path, b.build(&BuildOptions::default())).expect("write");
    path
}

#[test]
fn each_kind_of_block_is_explained_by_what_held_it() {
    let dir = tempfile::tempdir().unwrap();
    let blocks = blocks_of(&generated_causes(dir.path()));
    let long: Vec<&Block> = blocks.iter().filter(|b| !b.name.starts_with("Choreographer#doFrame")).collect();
    let cause = |b: &Block| {
        b.cause().map(|c| {
            (c.tid, c.thread.as_deref().unwrap_or("?").to_string(), c.slice.as_deref().map(str::to_string), c.ns)
        })
    };
    let got: Vec<_> = long.iter().map(|b| (&*b.name, b.kind, b.ts, b.dur, b.level, cause(b))).collect();
    let some = |s: &str| Some(s.to_string());
    use BlockLevel::FrameScale;
    assert_eq!(
        got,
        [
            // The binder thread's reply, 1.01 s to 1.29 s.
            (
                "getPackageInfo",
                BlockKind::Slice,
                1_000 * MS,
                300 * MS,
                Some(FrameScale),
                Some((BINDER, "binder:800_1".into(), some("binder reply"), 280 * MS))
            ),
            // The lock's owner from the main thread's sleep (2.005 s) to its wakeup.
            (
                "syncState",
                BlockKind::Slice,
                2_000 * MS,
                200 * MS,
                Some(FrameScale),
                Some((LOCK_OWNER, "worker".into(), some("heavyWork"), 185 * MS))
            ),
            // The GC from 3.002 s to 3.14 s.
            (
                "inflate",
                BlockKind::Slice,
                3_000 * MS,
                150 * MS,
                Some(FrameScale),
                Some((GC, "HeapTaskDaemon".into(), some("CollectorTransition"), 138 * MS))
            ),
            // I/O: nobody to blame; the main thread's own time in its slice, all of it.
            (
                "loadConfig",
                BlockKind::Slice,
                4_000 * MS,
                100 * MS,
                Some(FrameScale),
                Some((main_tid(), MAIN_COMM.into(), some("loadConfig"), 100 * MS))
            ),
            (
                fpsan::blocks::UNTRACED_NAME,
                BlockKind::Untraced,
                5_000 * MS,
                80 * MS,
                Some(FrameScale),
                Some((main_tid(), MAIN_COMM.into(), None, 80 * MS))
            ),
        ]
    );
    // The main thread's own share of each: its time running and runnable in the innermost slice.
    let second = |b: &Block| {
        b.why.as_ref().and_then(|w| w.causes.get(1)).map(|c| (c.tid, c.slice.as_deref().map(str::to_string), c.ns))
    };
    assert_eq!(second(long[0]), Some((main_tid(), some("binder transaction"), 20 * MS)));
    assert_eq!(
        second(long[1]),
        Some((main_tid(), some("Lock contention on a monitor lock (owner tid: 701)"), 15 * MS))
    );
    assert_eq!(second(long[2]), Some((main_tid(), some("WaitForGcToComplete"), 12 * MS)));
    // States: the I/O block ran 20 + 9.9 ms, waited 70 ms in D and 0.1 ms for a CPU.
    let io = long[3];
    assert_eq!(
        (io.cpu_ns, io.runnable_ns, io.sleeping_ns, io.io_ns),
        (Some(29_900_000), Some(100_000), Some(0), Some(70 * MS))
    );
    let binder = long[0];
    assert_eq!(
        (binder.cpu_ns, binder.runnable_ns, binder.sleeping_ns, binder.io_ns),
        (Some(19_900_000), Some(100_000), Some(280 * MS), Some(0))
    );
    // Slow methods: the nested slice holds all of each traced block's time.
    let top = |b: &Block| b.top_method().map(|m| (m.name.to_string(), m.self_ns));
    assert_eq!(top(long[0]), Some(("binder transaction".into(), 300 * MS)));
    assert_eq!(top(long[3]), Some(("loadConfig".into(), 100 * MS)));
    assert_eq!(top(long[4]), None);
    // No frame was due during any of them (the app drew only at the start).
    assert!(long.iter().all(|b| b.frames_delayed == Some(0) && b.frames_dropped == Some(0)));
    for b in &long {
        let chain = b.why.as_ref().and_then(|w| w.chain.as_deref()).unwrap_or_default();
        assert!(chain.starts_with(MAIN_COMM), "{chain}");
    }
}

fn main_tid() -> i32 {
    CAUSES_APP
}

/// The 328 ms database block of `real-android16-db-ui-thread-before` with its
/// split and cause in every output: `--format json` and summary.json, the
/// terminal, report.html, `query` (the lake's and Python's table) and
/// `main_thread_blocks.parquet`. trace_processor v58.2 on this trace: the UI
/// thread's `openAndQueryOnUiThread` at 19528696632101 for 328.290218 ms,
/// no slice inside it; its thread states over it sum to its duration; the
/// largest part of its critical path is the thread itself in the slice, the
/// next the f2fs checkpoint thread that held the I/O it waited for.
#[test]
fn the_database_block_with_its_split_and_cause_in_every_output() {
    let Some(trace) = shared("traces/real-android16-db-ui-thread-before.pftrace") else { return };
    let out = fpsan().arg("analyze").arg(&trace).args(["--format", "json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let blocks = doc["main_thread_blocks"]["blocks"].as_array().expect("blocks");
    let db = blocks.iter().find(|b| b["name"] == "openAndQueryOnUiThread").expect("the database block");
    assert_eq!(
        (db["ts"].as_i64(), db["dur"].as_i64(), db["level"].as_str()),
        (Some(19_528_696_632_101), Some(328_290_218), Some("frame_scale"))
    );
    let split: Vec<i64> =
        ["cpu_ns", "runnable_ns", "sleeping_ns", "io_ns"].iter().map(|k| db[k].as_i64().expect(k)).collect();
    assert_eq!(split.iter().sum::<i64>(), 328_290_218, "{split:?}");
    let cause = &db["why"]["causes"][0];
    assert_eq!((cause["tid"].as_i64(), cause["slice"].as_str()), (Some(11377), Some("openAndQueryOnUiThread")));
    assert_eq!(db["why"]["causes"][1]["thread"], "f2fs_ckpt-254:9");
    let (cause_ns, io_ns) = (cause["ns"].as_i64().unwrap(), split[3]);
    // Every block of the summary is in the list, and its numbers add up.
    let app =
        doc["main_thread_blocks"]["apps"].as_array().unwrap().iter().find(|a| a["pid"] == 11377).expect("the app");
    let listed: Vec<&serde_json::Value> = blocks.iter().filter(|b| b["pid"] == 11377).collect();
    assert_eq!(app["blocks"].as_i64(), Some(listed.len() as i64));
    assert_eq!(app["blocked_ns"].as_i64(), Some(listed.iter().map(|b| b["dur"].as_i64().unwrap()).sum::<i64>()));

    let ms = |ns: i64| format!("{:.1}", ns as f64 / 1e6);
    let states = format!(
        "running {} ms, runnable {} ms, sleeping {} ms, in D (I/O) {} ms; 20 vsyncs, no frame delayed",
        ms(split[0]),
        ms(split[1]),
        ms(split[2]),
        ms(io_ns)
    );
    let text = String::from_utf8(fpsan().arg("analyze").arg(&trace).output().unwrap().stdout).unwrap();
    assert!(text.contains("328.3 ms  frame_scale  openAndQueryOnUiThread (com.example.perfetto.dbui 11377)"), "{text}");
    assert!(text.contains(&format!("      {states}\n")), "{text}");
    let chain = db["why"]["chain"].as_str().expect("a chain");
    assert!(text.contains(&format!("      path: {chain}\n")), "{text}");

    let dir = tempfile::tempdir().unwrap();
    let out = fpsan().arg("analyze").arg(&trace).arg("--out").arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["main_thread_blocks"], doc["main_thread_blocks"]);
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap().replace("&#x2f;", "/");
    assert!(html.contains("<td>openAndQueryOnUiThread (com.example.perfetto.dbui 11377)</td>"), "the block's row");
    assert!(
        html.contains(&format!(
            "<td colspan=\"4\">{states}<br>slowest inside: openAndQueryOnUiThread 328.3 ms<br>path: <strong>"
        )),
        "its line"
    );
    assert!(dir.path().join("main_thread_blocks.parquet").is_file());

    let sql = "SELECT dur, cpu_ns, runnable_ns, sleeping_ns, io_ns, cause_tid, cause_slice, cause_ns, top_method \
               FROM main_thread_blocks WHERE name = 'openAndQueryOnUiThread'";
    let out = fpsan().arg("query").arg(&trace).arg(sql).args(["--format", "csv"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    let row = format!(
        "328290218,{},{},{},{},11377,openAndQueryOnUiThread,{cause_ns},openAndQueryOnUiThread",
        split[0], split[1], split[2], split[3]
    );
    assert_eq!(csv.lines().nth(1), Some(row.as_str()), "{csv}");
}

#[test]
fn block_levels_from_the_command_line() {
    let Some(trace) = shared("traces/real-android16-db-ui-thread-before.pftrace") else { return };
    let doc = |args: &[&str]| -> serde_json::Value {
        let out = fpsan().arg("analyze").arg(&trace).args(["--format", "json"]).args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let level = |d: &serde_json::Value, name: &str| {
        let blocks = d["main_thread_blocks"]["blocks"].as_array().unwrap();
        blocks.iter().find(|b| b["name"] == name).map(|b| b["level"].as_str().unwrap().to_string())
    };
    // The database block (328.3 ms) and the 388.0 ms doFrame: frame-scale by default; with
    // Matrix's evil method at 300 ms and BlockCanary at 350 ms, one of each.
    let default = doc(&[]);
    assert_eq!(level(&default, "openAndQueryOnUiThread").as_deref(), Some("frame_scale"));
    let lower = doc(&["--block-levels", "evil_method=300,block_canary=350"]);
    assert_eq!(level(&lower, "openAndQueryOnUiThread").as_deref(), Some("evil_method"));
    assert_eq!(level(&lower, "Choreographer#doFrame 191623").as_deref(), Some("block_canary"));
    // A level that does not nest: one clear error, exit 2.
    let out = fpsan().arg("analyze").arg(&trace).args(["--block-levels", "evil_method=3000"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("evil_method ≤ block_canary ≤ lag ≤ anr_risk"));
}
