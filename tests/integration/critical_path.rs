//! Critical paths of generated frames whose chains are known (docs/frames.md,
//! "Critical path"): the main thread waiting on its RenderThread, a binder
//! call into a server blocked on a lock held by a third thread, a GC wait and
//! I/O in D state. Each is built with and without `sched_waking`, as ftrace
//! events, as compact_sched and as systrace text; the path must equal the
//! generator's truth to the nanosecond and add up to the frame's cost.

use fpsan::analysis::{self, Options};
use fpsan::frames::critical_path::{Hop, PathSegment, PathState};
use tracegen::systrace::SystraceOptions;
use tracegen::{BuildOptions, TraceBuilder};

const US: i64 = 1_000;
const MS: i64 = 1_000_000;
/// 60 Hz in whole microseconds (systrace text prints µs).
const P: i64 = 16_667 * US;
const T0: i64 = 100_000 * MS;
const SF: i32 = 600;
const APP: i32 = 4000;
const RENDER: i32 = 4010;
const GC: i32 = 4020;
const SYSTEM: i32 = 1000;
const BINDER: i32 = 1010;
const OWNER: i32 = 1020;
/// The kernel keeps the last 15 bytes of a thread's name.
const APP_COMM: &str = "example.waiting";

/// The four frames (vsync index k; each doFrame starts at v(k) + 1 ms).
const RENDER_WAIT: i64 = 1;
const BINDER_LOCK: i64 = 4;
const GC_WAIT: i64 = 7;
const IO_WAIT: i64 = 10;

fn v(k: i64) -> i64 {
    T0 + k * P
}

/// `ms` (fractional) after `v(k)`.
fn at(k: i64, ms: f64) -> i64 {
    v(k) + (ms * 1e6).round() as i64
}

/// A thread switching in and out of one CPU, the idle task between.
struct Cpu(u32);

impl Cpu {
    fn run(&self, b: &mut TraceBuilder, (tid, comm): (i32, &str), from: i64, to: i64, out_state: i64) {
        b.sched_switch(from, self.0, 0, "swapper", 0, tid, comm);
        b.sched_switch(to, self.0, tid, comm, out_state, 0, "swapper");
    }
}

/// The app's main thread on CPU 0, its RenderThread on CPU 1, system_server's
/// binder thread on CPU 2, the GC daemon on CPU 3. `wakings`: whether the
/// trace has sched_waking (each issued on the waker's CPU while it runs, so
/// that the event's task is the waker).
fn scenario(wakings: bool) -> TraceBuilder {
    let mut b = TraceBuilder::new();
    b.process(SF, "/system/bin/surfaceflinger").thread(SF, SF, "surfaceflinger");
    b.process(APP, "com.example.waiting").thread(APP, APP, APP_COMM).thread(RENDER, APP, "RenderThread").thread(
        GC,
        APP,
        "HeapTaskDaemon",
    );
    b.process(SYSTEM, "system_server").thread(BINDER, SYSTEM, "binder:1000_1").thread(OWNER, SYSTEM, "android.bg");
    for k in 0..14 {
        b.atrace_counter(v(k), SF, SF, "VSYNC-app", k % 2);
    }
    let main = (APP, APP_COMM);
    // Each CPU's buffer starts idle: compact_sched cannot name the task its
    // first switch of the trace switches out, so (as trace_processor) that
    // switch makes no state; here it is this one.
    for cpu in 0..4 {
        b.sched_switch(T0 - MS, cpu, 0, "swapper", 0, 0, "swapper");
    }
    let (cpu0, cpu1, cpu2, cpu3) = (Cpu(0), Cpu(1), Cpu(2), Cpu(3));
    let wake = |b: &mut TraceBuilder, ts: i64, cpu: u32| {
        if wakings {
            b.sched_waking(ts, cpu, APP, APP_COMM, 0);
        }
    };

    // 1. The main thread sleeps 5–34.6 ms while its RenderThread draws
    // (5–34.5); the RenderThread wakes it at 34.6 from CPU 1.
    let k = RENDER_WAIT;
    b.slice(at(k, 1.0), 40 * MS, APP, APP, "Choreographer#doFrame");
    b.slice(at(k, 2.0), 38 * MS, APP, APP, "traversal");
    b.slice(at(k, 5.0), at(k, 34.5) - at(k, 5.0), RENDER, APP, "DrawFrame");
    cpu0.run(&mut b, main, at(k, -1.0), at(k, 5.0), 1);
    cpu1.run(&mut b, (RENDER, "RenderThread"), at(k, 4.0), at(k, 34.7), 1);
    wake(&mut b, at(k, 34.6), 1);
    cpu0.run(&mut b, main, at(k, 35.0), at(k, 41.5), 1);

    // 2. A binder call (2–28) into system_server, whose binder thread waits
    // on a monitor (4–24) that android.bg holds in `updateState` (1–24); the
    // binder thread wakes the main thread at 27.6 from CPU 2.
    let k = BINDER_LOCK;
    b.slice(at(k, 1.0), 30 * MS, APP, APP, "Choreographer#doFrame");
    b.slice(at(k, 2.0), 26 * MS, APP, APP, "binder transaction");
    b.slice(at(k, 3.5), 24 * MS, BINDER, SYSTEM, "binder reply");
    b.slice(at(k, 4.0), 20 * MS, BINDER, SYSTEM, "Lock contention on a monitor lock (owner tid: 1020)");
    b.slice(at(k, 24.0), at(k, 27.5) - at(k, 24.0), BINDER, SYSTEM, "work");
    b.slice(at(k, 1.0), 23 * MS, OWNER, SYSTEM, "updateState");
    cpu0.run(&mut b, main, at(k, -1.0), at(k, 3.0), 1);
    cpu2.run(&mut b, (BINDER, "binder:1000_1"), at(k, 24.0), at(k, 27.8), 1);
    wake(&mut b, at(k, 27.6), 2);
    cpu0.run(&mut b, main, at(k, 28.0), at(k, 31.5), 1);

    // 3. WaitForGcToComplete (2–22) while HeapTaskDaemon collects (0–21.8);
    // the daemon wakes the main thread at 21.9 from CPU 3.
    let k = GC_WAIT;
    b.slice(at(k, 1.0), 24 * MS, APP, APP, "Choreographer#doFrame");
    b.slice(at(k, 2.0), 20 * MS, APP, APP, "WaitForGcToComplete");
    b.slice(v(k), at(k, 21.8) - v(k), GC, APP, "concurrent mark compact GC");
    cpu0.run(&mut b, main, at(k, -1.0), at(k, 3.0), 1);
    cpu3.run(&mut b, (GC, "HeapTaskDaemon"), v(k), at(k, 22.0), 1);
    wake(&mut b, at(k, 21.9), 3);
    cpu0.run(&mut b, main, at(k, 22.0), at(k, 25.5), 1);

    // 4. I/O: in D 3–28 inside `openAndQuery` (2–29); an interrupt wakes it
    // at 28 (CPU 3 idle: no thread woke it).
    let k = IO_WAIT;
    b.slice(at(k, 1.0), 29 * MS, APP, APP, "Choreographer#doFrame");
    b.slice(at(k, 2.0), 27 * MS, APP, APP, "openAndQuery");
    cpu0.run(&mut b, main, at(k, -1.0), at(k, 3.0), 2);
    wake(&mut b, at(k, 28.0), 3);
    cpu0.run(&mut b, main, at(k, 28.5), at(k, 30.5), 1);
    b
}

/// A segment as (start ms after the vsync, dur ms, tid, slice, state, hop, depth).
type Seg = (f64, f64, i32, Option<&'static str>, PathState, Hop, u8);
/// The same with an owned slice name, as read from a path.
type Got = (f64, f64, i32, Option<String>, PathState, Hop, u8);

fn seg(k: i64, s: &PathSegment) -> Got {
    let ms = |ns: i64| (ns as f64 / 1e3).round() / 1e3;
    (ms(s.ts - v(k)), ms(s.dur), s.tid, s.slice.as_deref().map(str::to_string), s.state, s.hop, s.depth)
}

fn want(segs: &[Seg]) -> Vec<Got> {
    segs.iter().map(|&(a, d, t, s, st, h, dp)| (a, d, t, s.map(str::to_string), st, h, dp)).collect()
}

use Hop::{Binder, Frame, Gc, Lock, RenderThread, Waker};
use PathState::{Blocked, Runnable, Running, Sleeping, Unknown};

/// What each frame's path must be: `wakings` says whether the trace named
/// the wakers.
fn expected(k: i64, wakings: bool) -> Vec<Got> {
    let own = |a, d, s, st| (a, d, APP, s, st, Frame, 0u8);
    match (k, wakings) {
        (RENDER_WAIT, true) => want(&[
            own(0.0, 1.0, None, Running),
            own(1.0, 1.0, Some("Choreographer#doFrame"), Running),
            own(2.0, 3.0, Some("traversal"), Running),
            (5.0, 29.5, RENDER, Some("DrawFrame"), Running, Waker, 1),
            (34.5, 0.1, RENDER, None, Running, Waker, 1),
            own(34.6, 0.4, Some("traversal"), Runnable),
            own(35.0, 5.0, Some("traversal"), Running),
            own(40.0, 1.0, Some("Choreographer#doFrame"), Running),
        ]),
        (RENDER_WAIT, false) => want(&[
            own(0.0, 1.0, None, Running),
            own(1.0, 1.0, Some("Choreographer#doFrame"), Running),
            own(2.0, 3.0, Some("traversal"), Running),
            (5.0, 29.5, RENDER, Some("DrawFrame"), Running, RenderThread, 1),
            own(34.5, 0.5, Some("traversal"), Sleeping),
            own(35.0, 5.0, Some("traversal"), Running),
            own(40.0, 1.0, Some("Choreographer#doFrame"), Running),
        ]),
        (BINDER_LOCK, true) => want(&[
            own(0.0, 1.0, None, Running),
            own(1.0, 1.0, Some("Choreographer#doFrame"), Running),
            own(2.0, 1.0, Some("binder transaction"), Running),
            // Woken by the binder thread: known by its slices only.
            (3.0, 0.5, BINDER, None, Unknown, Waker, 1),
            (3.5, 0.5, BINDER, Some("binder reply"), Unknown, Waker, 1),
            (4.0, 20.0, OWNER, Some("updateState"), Unknown, Lock, 2),
            (24.0, 3.5, BINDER, Some("work"), Unknown, Waker, 1),
            (27.5, 0.1, BINDER, None, Unknown, Waker, 1),
            own(27.6, 0.4, Some("binder transaction"), Runnable),
            own(28.0, 3.0, Some("Choreographer#doFrame"), Running),
        ]),
        (BINDER_LOCK, false) => want(&[
            own(0.0, 1.0, None, Running),
            own(1.0, 1.0, Some("Choreographer#doFrame"), Running),
            own(2.0, 1.0, Some("binder transaction"), Running),
            own(3.0, 0.5, Some("binder transaction"), Sleeping),
            (3.5, 0.5, BINDER, Some("binder reply"), Unknown, Binder, 1),
            (4.0, 20.0, OWNER, Some("updateState"), Unknown, Lock, 2),
            (24.0, 3.5, BINDER, Some("work"), Unknown, Binder, 1),
            own(27.5, 0.5, Some("binder transaction"), Sleeping),
            own(28.0, 3.0, Some("Choreographer#doFrame"), Running),
        ]),
        (GC_WAIT, true) => want(&[
            own(0.0, 1.0, None, Running),
            own(1.0, 1.0, Some("Choreographer#doFrame"), Running),
            own(2.0, 1.0, Some("WaitForGcToComplete"), Running),
            (3.0, 18.8, GC, Some("concurrent mark compact GC"), Unknown, Waker, 1),
            (21.8, 0.1, GC, None, Unknown, Waker, 1),
            own(21.9, 0.1, Some("WaitForGcToComplete"), Runnable),
            own(22.0, 3.0, Some("Choreographer#doFrame"), Running),
        ]),
        (GC_WAIT, false) => want(&[
            own(0.0, 1.0, None, Running),
            own(1.0, 1.0, Some("Choreographer#doFrame"), Running),
            own(2.0, 1.0, Some("WaitForGcToComplete"), Running),
            (3.0, 18.8, GC, Some("concurrent mark compact GC"), Unknown, Gc, 1),
            (21.8, 0.2, GC, None, Unknown, Gc, 1),
            own(22.0, 3.0, Some("Choreographer#doFrame"), Running),
        ]),
        (IO_WAIT, true) => want(&[
            own(0.0, 1.0, None, Running),
            own(1.0, 1.0, Some("Choreographer#doFrame"), Running),
            own(2.0, 1.0, Some("openAndQuery"), Running),
            own(3.0, 25.0, Some("openAndQuery"), Blocked),
            own(28.0, 0.5, Some("openAndQuery"), Runnable),
            own(28.5, 0.5, Some("openAndQuery"), Running),
            own(29.0, 1.0, Some("Choreographer#doFrame"), Running),
        ]),
        (IO_WAIT, false) => want(&[
            own(0.0, 1.0, None, Running),
            own(1.0, 1.0, Some("Choreographer#doFrame"), Running),
            own(2.0, 1.0, Some("openAndQuery"), Running),
            own(3.0, 25.5, Some("openAndQuery"), Blocked),
            own(28.5, 0.5, Some("openAndQuery"), Running),
            own(29.0, 1.0, Some("Choreographer#doFrame"), Running),
        ]),
        _ => unreachable!(),
    }
}

/// The scenario in every form: (name, file, whether it has wakings).
fn forms(dir: &std::path::Path) -> Vec<(String, std::path::PathBuf, bool)> {
    let mut out = Vec::new();
    for wakings in [true, false] {
        let b = scenario(wakings);
        let compact = BuildOptions { compact_sched: true, ..Default::default() };
        let files: [(&str, Vec<u8>); 3] = [
            ("ftrace.pftrace", b.build(&BuildOptions::default())),
            ("compact.pftrace", b.build(&compact)),
            ("systrace.txt", b.systrace_text(&SystraceOptions::default()).into_bytes()),
        ];
        for (name, bytes) in files {
            let name = format!("{}-{name}", if wakings { "wakings" } else { "no-wakings" });
            let path = dir.join(&name);
            std::fs::write(&path, bytes).expect("write trace");
            out.push((name, path, wakings));
        }
    }
    out
}

#[test]
fn known_chains_are_followed_to_the_nanosecond() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, path, wakings) in forms(dir.path()) {
        let a = analysis::analyze(&path, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let rows = &a.frames.rows;
        for k in [RENDER_WAIT, BINDER_LOCK, GC_WAIT, IO_WAIT] {
            let (i, row) = rows
                .iter()
                .enumerate()
                .find(|(_, r)| r.pid == APP && r.vsync_ts == Some(v(k)))
                .unwrap_or_else(|| panic!("{name}: no frame at vsync {k}"));
            let why = a.frames.why.iter().find(|w| w.frame_index == i).expect("a janky frame has a why");
            let got: Vec<_> = why.critical_path.iter().map(|s| seg(k, s)).collect();
            assert_eq!(got, expected(k, wakings), "{name}: frame {k}");
            let sum: i64 = why.critical_path.iter().map(|s| s.dur).sum();
            assert_eq!(sum, row.frame_cost_ns, "{name}: frame {k}'s path adds up to its cost");
        }
    }
}

#[test]
fn the_chain_and_the_top_blocker_name_the_thread_waited_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("wakings.pftrace");
    std::fs::write(&path, scenario(true).build(&BuildOptions::default())).expect("write");
    let a = analysis::analyze(&path, &Options::default()).expect("analyze");
    let frame = |k: i64| {
        let i = a.frames.rows.iter().position(|r| r.pid == APP && r.vsync_ts == Some(v(k))).expect("frame");
        (&a.frames.rows[i], a.frames.why.iter().find(|w| w.frame_index == i).expect("why"))
    };
    let (row, why) = frame(RENDER_WAIT);
    assert_eq!(
        row.top_blocker().map(|b| (b.tid, b.thread.as_deref(), b.slice.as_deref(), b.ns)),
        Some((RENDER, Some("RenderThread"), Some("DrawFrame"), 29_500_000))
    );
    assert_eq!(why.chain, "example.waiting waited 29.5 ms in traversal ← RenderThread DrawFrame 29.5 ms");
    let (row, why) = frame(BINDER_LOCK);
    assert_eq!(
        row.top_blocker().map(|b| (b.tid, b.slice.as_deref(), b.ns)),
        Some((OWNER, Some("updateState"), 20_000_000))
    );
    assert_eq!(
        why.chain,
        "example.waiting waited 24.0 ms in binder transaction ← binder:1000_1 of system_server binder reply 24.0 ms \
         (work 3.5 ms) ← android.bg of system_server updateState 20.0 ms"
    );
    let (_, why) = frame(IO_WAIT);
    assert_eq!(why.chain, "example.waiting running 4.5 ms, runnable 0.5 ms, blocked 25.0 ms (openAndQuery 27.0 ms)");
}

/// The real captures: where the trace names the thread that ended a janky
/// frame's longest sleep of its own thread (`thread_state.waker_utid`, built
/// by the query path's own full scheduler scan with trace_processor's
/// semantics), the critical path hands that sleep to that thread. trace_processor
/// itself cannot run on this machine (no network to fetch it), so its
/// `thread_state` table's definition stands in for it; the db-ui frame
/// 191623's waker (its RenderThread, 11393) was also checked by decoding
/// the compact_sched bundle by hand (tests/integration/wakers.rs).
/// A `thread_state` row: (ts, end, state, the waker's tid).
type StateRow = (i64, i64, String, Option<i64>);

#[test]
fn on_real_traces_the_longest_sleep_goes_to_the_thread_that_ended_it() {
    use polars::prelude::AnyValue;
    let names = [
        "app-startup-after",
        "app-startup-before",
        "binder-spam-after",
        "binder-spam-before",
        "cpu-spin-after",
        "cpu-spin-before",
        "db-ui-thread-after",
        "db-ui-thread-before",
        "gc-pauses-after",
        "main-thread-io-before",
    ];
    let int = |v: AnyValue| -> Option<i64> {
        match v {
            AnyValue::Int64(x) => Some(x),
            AnyValue::Int32(x) => Some(x as i64),
            AnyValue::UInt32(x) => Some(x as i64),
            AnyValue::UInt64(x) => Some(x as i64),
            _ => None,
        }
    };
    let mut checked = Vec::new();
    for name in names {
        let Some(path) = crate::util::shared(&format!("traces/real-android16-{name}.pftrace")) else { return };
        // A capture without frames (cpu-spin-after) has nothing to check.
        let Ok(a) = analysis::analyze(&path, &Options::default()) else { continue };
        let mut trace = analysis::load(&path, &fpsan::read::ReadOptions::default()).expect("load");
        let sql = "select t.tid as tid, s.ts as ts, s.dur as dur, s.state as state, w.tid as waker \
                   from thread_state s join thread t on t.utid = s.utid left join thread w on w.utid = s.waker_utid";
        fpsan::query::load_sched(&path, &mut trace).expect("sched");
        let df = fpsan::query::run(&trace, None, sql).expect("thread_state");
        // tid → its states, by ts.
        let mut by_tid: std::collections::HashMap<i64, Vec<StateRow>> = Default::default();
        let col = |n: &str| df.column(n).unwrap().clone();
        let (tid, ts, dur, state, waker) = (col("tid"), col("ts"), col("dur"), col("state"), col("waker"));
        for i in 0..df.height() {
            let (Some(t), Some(s), Some(d)) =
                (int(tid.get(i).unwrap()), int(ts.get(i).unwrap()), int(dur.get(i).unwrap()))
            else {
                continue;
            };
            let st = state.get(i).unwrap().to_string().trim_matches('"').to_string();
            by_tid.entry(t).or_default().push((s, s + d, st, int(waker.get(i).unwrap())));
        }
        for v in by_tid.values_mut() {
            v.sort_by_key(|x| x.0);
        }
        for why in &a.frames.why {
            let row = &a.frames.rows[why.frame_index];
            let (from, to) = (row.vsync_ts.unwrap_or(row.ts), row.ts + row.do_frame_dur);
            let Some(states) = by_tid.get(&(row.tid as i64)) else { continue };
            // The longest sleep inside the frame, and the wakeup that ended it.
            let longest = states
                .windows(2)
                .filter(|w| matches!(w[0].2.as_str(), "S" | "D") && w[0].0 >= from && w[0].1 <= to)
                .filter(|w| w[1].0 == w[0].1 && w[1].2 == "R")
                .max_by_key(|w| (w[0].1 - w[0].0, w[0].0));
            let Some(w) = longest else { continue };
            let Some(waker) = w[1].3.filter(|&k| k > 0 && k != row.tid as i64) else { continue };
            let (s, e) = (w[0].0, w[0].1);
            let handed: Vec<_> = why.critical_path.iter().filter(|g| g.ts >= s && g.ts < e && g.depth == 1).collect();
            assert!(!handed.is_empty(), "{name} frame {:?}: its sleep {s}..{e} is handed to nobody", row.frame_id);
            assert!(
                handed.iter().all(|g| g.tid as i64 == waker),
                "{name} frame {:?}: its sleep {s}..{e} ended by {waker}, the path says {:?}",
                row.frame_id,
                handed.iter().map(|g| g.tid).collect::<Vec<_>>()
            );
            checked.push((name, row.frame_id, waker));
        }
    }
    // Some of them, by hand: the db-ui frame 191623 waited on its RenderThread.
    assert!(checked.contains(&("db-ui-thread-before", Some(191623), 11393)), "{checked:?}");
    println!("{} janky frames' longest sleeps checked: {checked:?}", checked.len());
}

/// A frame that is not janky keeps only its path's totals, walked without
/// making its segments (`PathIndex::totals`): they equal the totals of the
/// whole path, for every frame of the generated forms and of a real capture
/// with hand-offs to other threads.
#[test]
fn every_frames_totals_are_its_whole_paths() {
    use fpsan::frames::critical_path::{totals, PathIndex, PathThreads};
    let dir = tempfile::tempdir().expect("tempdir");
    let mut traces: Vec<(String, std::path::PathBuf)> =
        forms(dir.path()).into_iter().map(|(name, path, _)| (name, path)).collect();
    traces.extend(
        crate::util::shared("traces/real-android16-db-ui-thread-after.pftrace").map(|p| ("db-ui".to_string(), p)),
    );
    for (name, path) in traces {
        let a = analysis::analyze(&path, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let threads = PathThreads::new(&a.trace, &fpsan::frames::render_threads(&a.trace));
        let paths = PathIndex::new(&a.trace, &a.frames.sched, &threads);
        let mut handed_on = 0;
        for r in &a.frames.rows {
            let (from, to) = (r.vsync_ts.unwrap_or(r.ts), r.ts + r.do_frame_dur);
            let path = paths.path(r.tid, from, to);
            handed_on += path.iter().filter(|s| s.depth > 0).count();
            let whole = totals(&path, &a.trace);
            assert_eq!(paths.totals(r.tid, from, to), whole, "{name}: frame at {}", r.ts);
            assert_eq!(r.path_totals, whole, "{name}: frame at {}", r.ts);
        }
        assert!(handed_on > 0, "{name}: some path goes through another thread");
    }
}
