//! Blocks of a hand-built trace; every expected value worked out by hand
//! (the rules: docs/blocks.md).

use super::*;
use crate::frames::{FrameRow, SchedIndex};
use crate::model::testutil::TB;
use crate::model::SchedEvent;

const MS: i64 = 1_000_000;
const APP: i32 = 100;
const WORKER: i32 = 101;
const SYSTEM: i32 = 200;
const BINDER: i32 = 201;

/// App 100 (main thread 100, worker 101) and system_server 200 (main 200,
/// binder thread 201). Main thread 100's top-level slices, at 10 s apart so
/// none overlap:
/// - 0 s `inflate` 40 ms, with a nested `measure` 30 ms;
/// - 10 s `android.os.Handler: com.example.Foo$1` 50 ms: exactly three 60 Hz
///   intervals (3 × 16 666 667 = 50 000 001 ns) less 1 ns;
/// - 20 s `openAndQueryOnUiThread` 50 000 001 ns;
/// - 30 s `a` 700 ms, 40 s `b` 1 s, 50 s `c` 2 s, 60 s `d` 5 s;
/// - 70 s `never ended`, open at the trace's end.
///
/// Not blocks: the worker's 2 s slice, the nested `measure`. System's main
/// thread 200 has `Choreographer#doFrame 7` at 5 s for 20 ms, and its
/// binder thread a 3 s slice.
fn trace() -> crate::model::Trace {
    let mut b = TB::new();
    b.process(APP, "com.example.app")
        .thread(APP, APP, "com.example.app")
        .thread(WORKER, APP, "worker")
        .process(SYSTEM, "system_server")
        .thread(SYSTEM, SYSTEM, "system_server")
        .thread(BINDER, SYSTEM, "binder:200_1");
    b.slice(APP, 0, 40 * MS, "inflate").slice(APP, 5 * MS, 30 * MS, "measure");
    b.slice(APP, 10_000 * MS, 50 * MS, "android.os.Handler: com.example.Foo$1");
    b.slice(APP, 20_000 * MS, 50_000_001, "openAndQueryOnUiThread");
    for (k, name) in ["a", "b", "c", "d"].iter().enumerate() {
        let dur = [700, 1_000, 2_000, 5_000][k] * MS;
        b.slice(APP, (30_000 + 10_000 * k as i64) * MS, dur, name);
    }
    b.slice(APP, 70_000 * MS, -1, "never ended");
    b.slice(WORKER, 0, 2_000 * MS, "work");
    b.slice(SYSTEM, 5_000 * MS, 20 * MS, "Choreographer#doFrame 7");
    b.slice(BINDER, 0, 3_000 * MS, "binder reply");
    // Main thread 100 over `openAndQueryOnUiThread` (20 s + [0, 50 ms + 1 ns)):
    // running 20 ms, in D (I/O) 10 ms, woken at 30 ms, runnable 5 ms, running
    // to the end, then asleep.
    let at = 20_000 * MS;
    for e in [
        SchedEvent::SwitchIn { ts: at, tid: APP, cpu: 0 },
        SchedEvent::SwitchOut { ts: at + 20 * MS, tid: APP, cpu: 0, prev_state: 2 },
        SchedEvent::Waking { ts: at + 30 * MS, tid: APP, waker: crate::model::Waker::of(Some(BINDER)) },
        SchedEvent::SwitchIn { ts: at + 35 * MS, tid: APP, cpu: 1 },
        SchedEvent::SwitchOut { ts: at + 50 * MS + 1, tid: APP, cpu: 1, prev_state: 1 },
    ] {
        b.sched(e);
    }
    // Untraced: main thread 100 from 66 s runs 60 ms, is preempted 20 ms,
    // runs 20 ms and sleeps (no slice is open from 65 s to 70 s); at 68 s
    // it runs 30 ms, too short to list.
    let at = 66_000 * MS;
    for e in [
        SchedEvent::SwitchIn { ts: at, tid: APP, cpu: 0 },
        SchedEvent::SwitchOut { ts: at + 60 * MS, tid: APP, cpu: 0, prev_state: 0 },
        SchedEvent::SwitchIn { ts: at + 80 * MS, tid: APP, cpu: 0 },
        SchedEvent::SwitchOut { ts: at + 100 * MS, tid: APP, cpu: 0, prev_state: 1 },
        SchedEvent::SwitchIn { ts: at + 2_000 * MS, tid: APP, cpu: 0 },
        SchedEvent::SwitchOut { ts: at + 2_030 * MS, tid: APP, cpu: 0, prev_state: 1 },
    ] {
        b.sched(e);
    }
    b.build()
}

fn blocks_of(trace: &crate::model::Trace, rows: Vec<FrameRow>) -> Vec<Block> {
    let frames = FrameAnalysis { rows, sched: SchedIndex::new(&trace.sched), ..Default::default() };
    let mut a = analyze(trace, &frames, &Thresholds::default());
    a.explain(trace, &frames, None);
    a.blocks
}

#[test]
fn top_level_main_thread_slices_with_levels() {
    let t = trace();
    let blocks: Vec<Block> = blocks_of(&t, Vec::new()).into_iter().filter(|b| b.kind == BlockKind::Slice).collect();
    type Row<'a> = (i64, i64, i32, &'a str, &'a str, Option<BlockLevel>);
    let got: Vec<Row> = blocks.iter().map(|b| (b.ts, b.dur, b.pid, &*b.name, &*b.standard_name, b.level)).collect();
    use BlockLevel::*;
    assert_eq!(
        got,
        vec![
            (0, 40 * MS, APP, "inflate", "inflate", Some(Short)),
            (5_000 * MS, 20 * MS, SYSTEM, "Choreographer#doFrame 7", "Choreographer#doFrame", Some(Short)),
            (
                10_000 * MS,
                50 * MS,
                APP,
                "android.os.Handler: com.example.Foo$1",
                "Handler: com.example.Foo",
                Some(Short)
            ),
            (20_000 * MS, 50_000_001, APP, "openAndQueryOnUiThread", "openAndQueryOnUiThread", Some(FrameScale)),
            (30_000 * MS, 700 * MS, APP, "a", "a", Some(EvilMethod)),
            (40_000 * MS, 1_000 * MS, APP, "b", "b", Some(BlockCanary)),
            (50_000 * MS, 2_000 * MS, APP, "c", "c", Some(Lag)),
            (60_000 * MS, 5_000 * MS, APP, "d", "d", Some(AnrRisk)),
            (70_000 * MS, -1, APP, "never ended", "never ended", None),
        ]
    );
    assert!(blocks.iter().all(|b| b.kind == BlockKind::Slice && b.tid == b.pid && b.frame_interval_ns == 16_666_667));
    assert_eq!(blocks[0].process.as_deref(), Some("com.example.app"));
    assert_eq!(blocks[1].process.as_deref(), Some("system_server"));
}

#[test]
fn split_by_scheduler_state() {
    let t = trace();
    let blocks = blocks_of(&t, Vec::new());
    let db = &blocks[3];
    assert_eq!(
        (db.cpu_ns, db.runnable_ns, db.sleeping_ns, db.io_ns),
        (Some(35 * MS + 1), Some(5 * MS), Some(0), Some(10 * MS))
    );
    // No scheduler data for system_server's main thread.
    assert_eq!((blocks[1].cpu_ns, blocks[1].io_ns), (None, None));
}

#[test]
fn frame_scale_follows_the_apps_refresh() {
    let t = trace();
    // The app draws at 60 Hz from 1 s and at 120 Hz from 15 s: `inflate`
    // (at 0, before any doFrame: the first one's interval) and the Handler
    // message (at 10 s) are measured at 60 Hz, the database block (at 20 s)
    // at 120 Hz.
    let frame = |ts: i64, interval: i64| FrameRow { pid: APP, ts, frame_interval_ns: interval, ..Default::default() };
    let rows = vec![frame(1_000 * MS, 16_666_667), frame(15_000 * MS, 8_333_333)];
    let blocks = blocks_of(&t, rows);
    let level = |name: &str| blocks.iter().find(|b| &*b.name == name).map(|b| (b.frame_interval_ns, b.level));
    assert_eq!(level("inflate"), Some((16_666_667, Some(BlockLevel::Short))));
    assert_eq!(level("android.os.Handler: com.example.Foo$1"), Some((16_666_667, Some(BlockLevel::Short))));
    // 3 × 8 333 333 = 24 999 999 ≤ 50 000 001.
    assert_eq!(level("openAndQueryOnUiThread"), Some((8_333_333, Some(BlockLevel::FrameScale))));
}

#[test]
fn thresholds_are_inclusive() {
    let th = Thresholds::default();
    assert_eq!(th.level(50_000_001, 16_666_667), BlockLevel::FrameScale);
    assert_eq!(th.level(50_000_000, 16_666_667), BlockLevel::Short);
    assert_eq!(th.level(699_999_999, 16_666_667), BlockLevel::FrameScale);
    assert_eq!(th.level(ANR_RISK_NS, 16_666_667), BlockLevel::AnrRisk);
    let strict = Thresholds { evil_method_ns: 100 * MS, ..Thresholds::default() };
    assert_eq!(strict.level(100 * MS, 16_666_667), BlockLevel::EvilMethod);
}

#[test]
fn busy_time_with_no_slice_open_is_an_untraced_block() {
    let t = trace();
    let blocks = blocks_of(&t, Vec::new());
    let untraced: Vec<&Block> = blocks.iter().filter(|b| b.kind == BlockKind::Untraced).collect();
    assert_eq!(untraced.len(), 1, "{untraced:?}");
    let b = untraced[0];
    assert_eq!((b.ts, b.dur, b.pid, b.tid, &*b.name, b.slice), (66_000 * MS, 100 * MS, APP, APP, UNTRACED_NAME, None));
    assert_eq!((b.cpu_ns, b.runnable_ns, b.sleeping_ns, b.io_ns), (Some(80 * MS), Some(20 * MS), Some(0), Some(0)));
    // 100 ms ≥ 3 × 16 666 667; no doFrame places the vsyncs: 100 ms holds 5 whole intervals.
    assert_eq!(
        (b.level, b.vsyncs, b.frames_delayed, b.frames_dropped),
        (Some(BlockLevel::FrameScale), Some(5), Some(0), Some(0))
    );
    // Between `d` (60 s) and `never ended` (70 s), by start.
    let at = blocks.iter().position(|x| x.kind == BlockKind::Untraced).unwrap();
    assert_eq!((&*blocks[at - 1].name, &*blocks[at + 1].name), ("d", "never ended"));
    // Made by hand, without the critical path's indexes: no chain or causes, and no slice to look inside.
    assert_eq!(b.why, Some(BlockWhy::default()));
}

#[test]
fn the_gaps_between_slices_and_the_busy_stretches_in_them() {
    // Two tracks' slices overlap at 5–25 and 22–23; one runs past the end.
    let traced = [(5, 25), (22, 23), (50, 60), (90, 200)];
    let gaps: Vec<(i64, i64)> = untraced::gaps(&traced, 100).collect();
    assert_eq!(gaps, [(i64::MIN, 5), (25, 50), (60, 90)]);
    let gaps: Vec<(i64, i64)> = untraced::gaps(&traced[..3], 100).collect();
    assert_eq!(gaps, [(i64::MIN, 5), (25, 50), (60, 100)]);
    assert_eq!(untraced::gaps(&[], 100).collect::<Vec<_>>(), [(i64::MIN, 100)]);
    use crate::frames::State::*;
    let states = [(0, 5, Running), (5, 7, Runnable), (7, 9, Blocked), (9, 12, Sleeping), (12, 13, Running)];
    assert_eq!(untraced::busy_stretches(states.into_iter()).collect::<Vec<_>>(), [(0, 9), (12, 13)]);
}

#[test]
fn frames_held_up_and_vsyncs_covered() {
    const I: i64 = 16_666_667;
    let frame = |ts: i64, vsync: i64, skipped: i64| FrameRow {
        pid: APP,
        ts,
        vsync_ts: Some(vsync),
        skipped_frames: skipped,
        frame_interval_ns: I,
        ..Default::default()
    };
    // A frame at vsync 0; a block from 10 ms to 110 ms; the frame due at the next vsync (16.67 ms) runs at
    // 111 ms, Choreographer having skipped 5 vsyncs; the one due at 116.67 ms was due after the block.
    let app = [frame(2 * MS, 0, 0), frame(111 * MS, I, 5), frame(117 * MS, 7 * I, 0)];
    let held = explain::held_up(&app, 10 * MS, 110 * MS);
    assert_eq!((held.frames_delayed, held.frames_dropped), (1, 5));
    // The clock at 10 ms is the first frame's: vsyncs at k × I, k = 1 … 6 inside [10 ms, 110 ms).
    let clock = explain::clock_at(&app, 10 * MS);
    assert_eq!(clock, explain::Clock { interval_ns: I, anchor: Some(0) });
    assert_eq!(explain::vsyncs(clock, 10 * MS, 110 * MS), 6);
    // A tick on the start counts, one on the end does not.
    assert_eq!(explain::vsyncs(clock, I, 3 * I), 2);
    // A frame that ran during the block is not held up by it.
    assert_eq!(explain::held_up(&app, 0, 110 * MS).frames_delayed, 1);
}

#[test]
fn slow_methods_by_self_time() {
    let t = trace();
    let inflate = t.slices.iter().find(|s| &*s.name == "inflate").unwrap();
    // `inflate` 40 ms holds `measure` 30 ms: measure's own 30 ms, inflate's 10 ms.
    let methods = explain::methods(&t, inflate.id);
    let got: Vec<(&str, i64, i64)> = methods.iter().map(|m| (&*m.name, m.self_ns, m.count)).collect();
    assert_eq!(got, [("measure", 30 * MS, 1), ("inflate", 10 * MS, 1)]);
}

#[test]
fn thresholds_from_the_command_line() {
    let t: Thresholds = "evil_method=500, block_canary=800".parse().unwrap();
    assert_eq!(t, Thresholds { evil_method_ns: 500 * MS, block_canary_ns: 800 * MS, ..Thresholds::default() });
    assert_eq!("".parse::<Thresholds>(), Ok(Thresholds::default()));
    assert_eq!("frame_scale=2".parse::<Thresholds>().map(|t| t.frame_scale_intervals), Ok(2));
    let err = |s: &str| s.parse::<Thresholds>().unwrap_err();
    assert!(err("foo=1").starts_with("unknown level `foo`"), "{}", err("foo=1"));
    assert!(err("lag=x").contains("whole number above 0"));
    assert!(err("lag=0").contains("whole number above 0"));
    assert!(err("anr_risk").contains("is not LEVEL=VALUE"));
    // BlockCanary above LAG: the levels would not nest.
    assert!(err("block_canary=3000").contains("evil_method ≤ block_canary ≤ lag ≤ anr_risk"));
}
