//! trace_processor's `sched` and `thread_state` over `Trace::sched`, which
//! the caller fills with every thread's scheduler events first (`fpsan
//! query` does when a query names one of them: docs/report.md, "fpsan query").
//!
//! What fpsan's scheduler records do not hold is NULL: `priority`,
//! `io_wait`, `blocked_function`.

use polars::prelude::*;
use rustc_hash::FxHashMap;

use super::perfetto::{self, IDLE};
use super::TableBuilder;
use crate::model::{SchedEvent, Trace, Waker};

/// trace_processor's `utid` of each tid: tid 0 is the swapper thread; a tid
/// reused by several threads is the last of them (the thread trace_processor
/// picks for a tid it sees again).
fn utids(trace: &Trace) -> FxHashMap<i32, i64> {
    let mut m: FxHashMap<i32, i64> = trace.threads.iter().map(|t| (t.tid, perfetto::utid(t.utid))).collect();
    m.insert(0, IDLE);
    m
}

/// The kernel state a thread left its CPU in (`sched_switch` `prev_state`,
/// the kernel ≥ 4.14 encoding), as trace_processor writes it: `R` (still
/// runnable), `R+` (preempted), else one letter per state bit
/// (S D T t X Z P I, e.g. `D` or `DK`-like combinations such as `SD`).
pub fn end_state(prev_state: u16) -> String {
    const LETTERS: [char; 8] = ['S', 'D', 'T', 't', 'X', 'Z', 'P', 'I'];
    let bits = prev_state & 0xFF;
    if bits == 0 {
        return if prev_state & 0x100 != 0 { "R+".into() } else { "R".into() };
    }
    LETTERS.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0).map(|(_, c)| c).collect()
}

/// One scheduling slice: a thread on a CPU.
struct SchedRow {
    ts: i64,
    dur: i64,
    cpu: i32,
    utid: i64,
    end_state: Option<String>,
}

/// `sched(ts, dur, cpu, utid, end_state, priority)`: each time a thread ran
/// on a CPU, by start (then CPU); `dur` -1 and `end_state` NULL when it was
/// still running at the end of the trace. The swapper (tid 0) is one thread
/// per CPU, so its runs pair by CPU; a run of another thread switched in
/// again without a switch-out (a lost event) is never closed, as in
/// trace_processor: `dur` -1, `end_state` NULL.
pub fn sched(trace: &Trace) -> PolarsResult<DataFrame> {
    let utids = utids(trace);
    let mut rows: Vec<SchedRow> = Vec::new();
    let close = |(start, cpu, utid): (i64, u8, i64), end: Option<i64>, end_state: Option<String>| SchedRow {
        ts: start,
        dur: end.map_or(-1, |end| end - start),
        cpu: cpu.into(),
        utid,
        end_state,
    };
    for events in trace.sched.iter().flat_map(|v| v.chunk_by(|a, b| a.tid() == b.tid())) {
        let Some(&utid) = utids.get(&events[0].tid()) else { continue };
        let idle = events[0].tid() == 0;
        // The runs not yet switched out: (start, cpu, utid).
        let mut open: Vec<(i64, u8, i64)> = Vec::new();
        for e in events {
            match *e {
                SchedEvent::SwitchIn { ts, cpu, .. } => {
                    let (lost, still): (Vec<_>, Vec<_>) = open.into_iter().partition(|r| !idle || r.1 == cpu);
                    rows.extend(lost.into_iter().map(|r| close(r, None, None)));
                    open = still;
                    open.push((ts, cpu, utid));
                }
                SchedEvent::SwitchOut { ts, cpu, prev_state, .. } => {
                    if let Some(k) = open.iter().position(|r| r.1 == cpu) {
                        rows.push(close(open.remove(k), Some(ts), Some(end_state(prev_state))));
                    }
                }
                SchedEvent::Waking { .. } => {}
            }
        }
        rows.extend(open.into_iter().map(|r| close(r, None, None)));
    }
    rows.sort_by_key(|r| (r.ts, r.cpu));
    TableBuilder::new(&rows)
        .col("ts", "the run's start (a switch-in)", |r| r.ts)
        .col("dur", "its length; -1 when its switch-out was lost or after the trace's end", |r| r.dur)
        .col("cpu", "the CPU it ran on", |r| r.cpu)
        .col("utid", "the thread", |r| r.utid)
        .col("end_state", "the switch-out's `prev_state`, trace_processor's letters (`R`, `R+` preempted, `S`, `D`, …); NULL when the switch-out was lost", |r| r.end_state.as_deref())
        .col("priority", "NULL: not kept", |_| None::<i32>)
        .build()
}

/// `thread_state.state` of a thread on a CPU.
const RUNNING: &str = "Running";
/// `thread_state.state` of a thread woken up, waiting for a CPU.
const RUNNABLE: &str = "R";

/// One interval of a thread in one state.
struct StateRow {
    ts: i64,
    dur: i64,
    utid: i64,
    state: String,
    cpu: Option<i32>,
    /// The task whose wakeup began this `R` state (3 bytes: the table has
    /// a row per state of every thread; its utid is looked up per column).
    waker: Waker,
}

/// `thread_state(ts, dur, utid, state, cpu, io_wait, blocked_function,
/// waker_utid)`: each thread's states from its first scheduler event on,
/// a row per event as trace_processor's (never two merged):
/// `Running` (with its CPU) from a switch-in, the switch-out's `end_state`
/// after it, `R` from a wakeup of a thread that was blocked (neither
/// running nor `R`; `R+`, preempted, counts as blocked there), with the
/// waker's utid (as trace_processor: NULL for the other states, a waker not
/// known, or one that is no thread of the trace; the swapper, utid 0, for
/// a wakeup from an interrupt); `dur` -1 for the state a thread was still
/// in at the end of the trace, and for one a switch-out found not running
/// (events were lost).
pub fn thread_state(trace: &Trace) -> PolarsResult<DataFrame> {
    let utids = utids(trace);
    let mut rows: Vec<StateRow> = Vec::new();
    for events in trace.sched.iter().flat_map(|v| v.chunk_by(|a, b| a.tid() == b.tid())) {
        let Some(&utid) = utids.get(&events[0].tid()).filter(|&&u| u != IDLE) else { continue };
        let mut current: Option<StateRow> = None;
        for e in events {
            let ts = e.ts();
            let (state, cpu, waker) = match *e {
                SchedEvent::SwitchIn { cpu, .. } => (RUNNING.to_string(), Some(i32::from(cpu)), Waker::NONE),
                SchedEvent::SwitchOut { prev_state, .. } => {
                    // Switched out while not running: events were lost, and
                    // the state before stays open (trace_processor's rule).
                    if let Some(c) = current.take_if(|c| c.state != RUNNING) {
                        rows.push(c);
                    }
                    (end_state(prev_state), None, Waker::NONE)
                }
                SchedEvent::Waking { waker, .. } => {
                    // Only a blocked thread wakes up: a wakeup of a running
                    // or runnable (`R`, not `R+`) one changes nothing.
                    if current.as_ref().is_some_and(|c| c.state == RUNNING || c.state == RUNNABLE) {
                        continue;
                    }
                    (RUNNABLE.to_string(), None, waker)
                }
            };
            if let Some(mut c) = current.take() {
                c.dur = ts - c.ts;
                rows.push(c);
            }
            current = Some(StateRow { ts, dur: -1, utid, state, cpu, waker });
        }
        rows.extend(current);
    }
    rows.sort_by_key(|r| (r.ts, r.utid));
    TableBuilder::new(&rows)
        .col("ts", "start", |r| r.ts)
        .col("dur", "length; -1 when not ended by the end of the trace", |r| r.dur)
        .col("utid", "the thread", |r| r.utid)
        .col("state", "`Running`, or trace_processor's letters for the kernel's `prev_state` (`R`, `R+`, `S`, `D`, …)", |r| r.state.as_str())
        .col("cpu", "the CPU of a `Running` row", |r| r.cpu)
        .col("io_wait", "NULL: not kept", |_| None::<i32>)
        .col("blocked_function", "NULL: not kept", |_| None::<&str>)
        .col("waker_utid", "on an `R` row begun by a wakeup: the task that issued it (0: the swapper, an interrupt while the CPU idled); NULL when unknown", |r| r.waker.tid().and_then(|t| utids.get(&t).copied()))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testutil::TB;

    fn trace() -> Trace {
        use SchedEvent::*;
        TB::new()
            .process(42, "com.a")
            .thread(42, 42, "com.a")
            .thread(43, 42, "RenderThread")
            .thread(44, 42, "bg")
            .sched(SwitchIn { ts: 10, tid: 42, cpu: 1 })
            .sched(SwitchOut { ts: 30, tid: 42, cpu: 1, prev_state: 1 })
            .sched(Waking { ts: 50, tid: 42, waker: Waker::of(Some(43)) })
            .sched(SwitchIn { ts: 60, tid: 42, cpu: 2 })
            .sched(Waking { ts: 65, tid: 42, waker: Waker::of(Some(0)) })
            .sched(SwitchOut { ts: 70, tid: 42, cpu: 2, prev_state: 0 })
            .sched(SwitchIn { ts: 80, tid: 42, cpu: 0 })
            .sched(SwitchIn { ts: 20, tid: 43, cpu: 0 })
            .sched(SwitchOut { ts: 25, tid: 43, cpu: 0, prev_state: 2 })
            // Woken from an interrupt: by the idle task.
            .sched(Waking { ts: 28, tid: 43, waker: Waker::of(Some(0)) })
            // A lost switch-out: switched in again on another CPU.
            .sched(SwitchIn { ts: 90, tid: 43, cpu: 1 })
            .sched(SwitchIn { ts: 95, tid: 43, cpu: 2 })
            .sched(SwitchIn { ts: 5, tid: 999, cpu: 3 })
            // Woken by a task that is no thread of the model, then again
            // by an unknown one while runnable.
            .sched(Waking { ts: 1, tid: 44, waker: Waker::of(Some(999)) })
            .sched(Waking { ts: 3, tid: 44, waker: Waker::NONE })
            // The swapper runs on two CPUs at once.
            .sched(SwitchIn { ts: 0, tid: 0, cpu: 0 })
            .sched(SwitchIn { ts: 2, tid: 0, cpu: 1 })
            .sched(SwitchOut { ts: 10, tid: 0, cpu: 1, prev_state: 0 })
            .sched(SwitchOut { ts: 20, tid: 0, cpu: 0, prev_state: 0 })
            .sched(SwitchIn { ts: 25, tid: 0, cpu: 0 })
            .build()
    }

    /// Each row as text, NULL as `null`, its cells joined by commas.
    fn rows(df: &DataFrame) -> Vec<String> {
        crate::tables::text_rows(df).into_iter().map(|r| r.join(",")).collect()
    }

    #[test]
    fn end_states_are_trace_processors_letters() {
        let got: Vec<String> = [0, 256, 1, 2, 2 | 256, 128, 64, 130].into_iter().map(end_state).collect();
        assert_eq!(got, ["R", "R+", "S", "D", "D", "I", "P", "DI"]);
    }

    #[test]
    fn sched_slices_by_start() {
        let s = sched(&trace()).unwrap();
        assert_eq!(
            s.get_column_names().iter().map(|n| n.as_str()).collect::<Vec<_>>(),
            ["ts", "dur", "cpu", "utid", "end_state", "priority"]
        );
        // tid 999 is no thread of the model: left out. utid 1 = tid 42, 2 = tid 43.
        // The swapper is utid 0, its runs paired by CPU.
        assert_eq!(
            rows(&s),
            [
                "0,20,0,0,R,null",
                "2,8,1,0,R,null",
                "10,20,1,1,S,null",
                "20,5,0,2,D,null",
                "25,-1,0,0,null,null",
                "60,10,2,1,R,null",
                "80,-1,0,1,null,null",
                "90,-1,1,2,null,null",
                "95,-1,2,2,null,null"
            ]
        );
    }

    #[test]
    fn thread_states_from_switches_and_wakeups() {
        let s = thread_state(&trace()).unwrap();
        assert_eq!(
            s.get_column_names().iter().map(|n| n.as_str()).collect::<Vec<_>>(),
            ["ts", "dur", "utid", "state", "cpu", "io_wait", "blocked_function", "waker_utid"]
        );
        // The wakeups at 65 (while running) and 3 (while runnable) change
        // nothing; the swapper has no states. An R row begun by a wakeup
        // names its waker: RenderThread (utid 2), the swapper (0), or NULL
        // for tid 999, no thread of the model.
        assert_eq!(
            rows(&s),
            [
                "1,-1,3,R,null,null,null,null",
                "10,20,1,Running,1,null,null,null",
                "20,5,2,Running,0,null,null,null",
                "25,3,2,D,null,null,null,null",
                "28,62,2,R,null,null,null,0",
                "30,20,1,S,null,null,null,null",
                "50,10,1,R,null,null,null,2",
                "60,10,1,Running,2,null,null,null",
                "70,10,1,R,null,null,null,null",
                "80,-1,1,Running,0,null,null,null",
                "90,5,2,Running,1,null,null,null",
                "95,-1,2,Running,2,null,null,null",
            ]
        );
    }
}
