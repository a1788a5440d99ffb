//! Who woke a thread: `thread_state.waker_utid` through `fpsan query`, on one
//! schedule written by the trace builder as ftrace sched events, as
//! compact_sched and as systrace text (the wakers worked out by hand), and on
//! a real Android 16 trace.

use std::path::Path;

use tracegen::systrace::SystraceOptions;
use tracegen::{BuildOptions, TraceBuilder};

use crate::util::{fpsan, shared};

const MS: i64 = 1_000_000;
const APP: i32 = 100;
const RENDER: i32 = 120;
const BG: i32 = 300;

/// CPU 0 runs the main thread, CPU 1 its RenderThread then a background
/// task; CPU 2 has no switch at all. The builder gives each sched_waking
/// the task its own switches say runs on the waking's CPU (0 before any).
fn schedule() -> TraceBuilder {
    const S: i64 = 1; // prev_state: sleeping
    let mut b = TraceBuilder::new();
    b.process(APP, "com.example.app").thread(APP, APP, "com.example.app").thread(RENDER, APP, "RenderThread");
    b.process(BG, "bgd").thread(BG, BG, "bgd");
    // CPU 2 wakes the background task before any switch there.
    b.sched_waking(MS / 2, 2, BG, "bgd", 1);
    b.sched_switch(MS, 0, 0, "swapper/0", 0, APP, "com.example.app");
    b.sched_switch(3 * MS / 2, 1, 0, "swapper/1", 0, RENDER, "RenderThread");
    b.sched_switch(2 * MS, 0, APP, "com.example.app", S, 0, "swapper/0");
    // RenderThread, running on CPU 1, wakes the main thread.
    b.sched_waking(3 * MS, 1, APP, "com.example.app", 0);
    b.sched_switch(7 * MS / 2, 0, 0, "swapper/0", 0, APP, "com.example.app");
    b.sched_switch(4 * MS, 0, APP, "com.example.app", S, 0, "swapper/0");
    b.sched_switch(9 * MS / 2, 1, RENDER, "RenderThread", S, BG, "bgd");
    // An interrupt on idle CPU 0 wakes the main thread.
    b.sched_waking(5 * MS, 0, APP, "com.example.app", 0);
    b.sched_switch(26 * MS / 5, 0, 0, "swapper/0", 0, APP, "com.example.app");
    // The background task wakes RenderThread.
    b.sched_waking(6 * MS, 1, RENDER, "RenderThread", 1);
    b
}

/// The R states and their wakers' tids, as CSV.
fn wakeups(trace: &Path) -> String {
    let sql = "select s.ts, t.tid, w.tid as waker_tid from thread_state s join thread t using (utid) \
               left join thread w on w.utid = s.waker_utid where s.state = 'R' order by s.ts";
    let out = fpsan().arg("query").arg(trace).arg(sql).args(["--format", "csv"]).output().expect("query");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn thread_state_names_the_waker_in_every_encoding() {
    let dir = tempfile::tempdir().expect("tempdir");
    let b = schedule();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        path
    };
    let plain = write("plain.pftrace", &b.build(&BuildOptions::default()));
    let compact = write("compact.pftrace", &b.build(&BuildOptions { compact_sched: true, ..Default::default() }));
    let text = write("sched.txt", b.systrace_text(&SystraceOptions::default()).as_bytes());
    // 0.5 ms: the background task, woken on CPU 2 before any switch there:
    // the builder writes common pid 0 into the ftrace event and `<idle>-0`
    // into the text; compact_sched stores no waker, and CPU 2 has had no
    // switch to tell the running task, so, as trace_processor does
    // (compact_sched_waking_skipped), the waking is dropped.
    // 3 ms: the main thread, by RenderThread; 5 ms: by the idle task (an
    // interrupt); 6 ms: RenderThread, by the background task.
    let later = format!("3000000,{APP},{RENDER}\n5000000,{APP},0\n6000000,{RENDER},{BG}\n");
    let with_first = format!("ts,tid,waker_tid\n500000,{BG},0\n{later}");
    assert_eq!(wakeups(&plain), with_first, "sched_waking");
    assert_eq!(wakeups(&compact), format!("ts,tid,waker_tid\n{later}"), "compact_sched");
    assert_eq!(wakeups(&text), with_first, "systrace text");
}

#[test]
fn the_db_ui_threads_long_sleep_ends_with_a_wakeup_by_its_render_thread() {
    let Some(trace) = shared("traces/real-android16-db-ui-thread-before.pftrace") else { return };
    // com.example.perfetto.dbui's main thread (11377) sleeps 327 ms; the
    // compact_sched waking that ends it is in a bundle of CPU 6 whose latest
    // switch before it (at 19529453095890, the bundle's 50 switches begin at
    // 19529414239710) switched in its RenderThread (11393): decoded by hand
    // from the bundle's columns.
    let sql = "select s.ts, s.dur, s.state, w.tid as waker_tid from thread_state s join thread t using (utid) \
               left join thread w on w.utid = s.waker_utid \
               where t.tid = 11377 and s.ts between 19529126639993 and 19529453896851 order by s.ts";
    let out = fpsan().arg("query").arg(&trace).arg(sql).args(["--format", "csv"]).output().expect("query");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ts,dur,state,waker_tid\n19529126639993,327256858,S,\n19529453896851,307883,R,11393\n"
    );
}
