//! The frame threads' scheduler states, derived once from `Trace::sched`:
//! per thread, each change of state and, for a wakeup, who woke it. The
//! "why" splits a frame's time by them and the critical path follows them.

use foldhash::HashMap;

use super::ThreadStateSplit;
use crate::model::{SchedEvent, Waker};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Running,
    Runnable,
    Sleeping,
    Blocked,
}

/// A `sched_switch` `prev_state`, decoded with the kernel ≥ 4.14 encoding
/// trace_processor uses for Android (`TASK_REPORT`: 1 S, 2 D, 4 T, 8 t,
/// 16 X, 32 Z, 64 P, 128 I, 256 = preempted "R+"):
/// * no state bit (0, or only the preempted / `TASK_STATE_MAX` marker) →
///   runnable (the task was preempted and is still on a run queue);
/// * D (uninterruptible, incl. `DK`) → blocked;
/// * anything else (S, T, t, X, Z, P, I idle) → sleeping: off the CPU and not
///   waiting for one.
pub fn decode_prev_state(s: u16) -> State {
    if s & 0xFF == 0 {
        State::Runnable
    } else if s & 2 != 0 {
        State::Blocked
    } else {
        State::Sleeping
    }
}

/// Per-thread state transitions derived once from `Trace::sched`.
#[derive(Debug, Default, Clone)]
pub struct SchedIndex {
    /// Per thread, each change of state: when, the new state, and for a
    /// wakeup (runnable after sleeping) the thread that woke it.
    by_tid: HashMap<i32, Vec<(i64, State, Waker)>>,
    pub has_data: bool,
}

impl SchedIndex {
    /// From one vector per thread, as in `Trace::sched` (a vector holding
    /// several threads, or a thread split over several vectors, gives the
    /// same index). Vectors given by value are freed once indexed, so the
    /// events and the index never both take their full size.
    pub fn new<T: AsRef<[SchedEvent]>>(threads: impl IntoIterator<Item = T>) -> SchedIndex {
        let mut ix = SchedIndex::default();
        for t in threads {
            ix.add(t.as_ref());
        }
        ix
    }

    /// [`Self::new`] from one vector per thread, as the scheduler pass
    /// gives them: each thread's changes are written over its events, in
    /// place (a busy trace's are hundreds of MB: fresh memory for them was
    /// a large share of the frames stage).
    pub fn of_threads(threads: Vec<Vec<SchedEvent>>) -> SchedIndex {
        let mut ix = SchedIndex::default();
        for events in threads {
            let Some(tid) = events.first().map(SchedEvent::tid) else { continue };
            if ix.by_tid.contains_key(&tid) || events.iter().any(|e| e.tid() != tid) {
                ix.add(&events);
                continue;
            }
            ix.has_data = true;
            let mut cur = None;
            let mut changes: Vec<(i64, State, Waker)> =
                events.into_iter().filter_map(|e| change(&mut cur, &e)).collect();
            changes.shrink_to_fit();
            ix.by_tid.insert(tid, changes);
        }
        ix
    }

    fn add(&mut self, events: &[SchedEvent]) {
        self.has_data |= !events.is_empty();
        // One map lookup per run of a thread's events.
        for run in events.chunk_by(|a, b| a.tid() == b.tid()) {
            let v = self.by_tid.entry(run[0].tid()).or_default();
            let mut cur = v.last().map(|x| x.1);
            v.extend(run.iter().filter_map(|e| change(&mut cur, e)));
        }
    }

    /// The thread's states over `[from, to)` as `(start, end, state)`, in
    /// time order, clipped to the window; time before the thread's first
    /// event is unknown and left out. Empty without sched data for it.
    pub fn states(&self, tid: i32, from: i64, to: i64) -> impl Iterator<Item = (i64, i64, State)> + '_ {
        self.states_woken(tid, from, to).map(|(a, b, st, _)| (a, b, st))
    }

    /// [`Self::states`], each with [`Self::woken_by`] at its end (who
    /// woke the thread there): the critical path asks it of every sleep,
    /// and it is the next change, so no second search finds it.
    pub fn states_woken(
        &self,
        tid: i32,
        from: i64,
        to: i64,
    ) -> impl Iterator<Item = (i64, i64, State, Option<i32>)> + '_ {
        let v: &[(i64, State, Waker)] = self.by_tid.get(&tid).map_or(&[], Vec::as_slice);
        let start = v.partition_point(|x| x.0 <= from).saturating_sub(1);
        (start..v.len()).map_while(move |k| (v[k].0 < to).then_some(k)).filter_map(move |k| {
            let next = v.get(k + 1);
            let (a, b) = (v[k].0.max(from), next.map_or(to, |x| x.0).min(to));
            let woken = next.filter(|x| x.0 == b && x.1 == State::Runnable).and_then(|x| x.2.tid());
            (b > a).then_some((a, b, v[k].1, woken))
        })
    }

    /// Who woke `tid` at `ts`, when its state changed to runnable then by a
    /// wakeup that names its waker.
    pub fn woken_by(&self, tid: i32, ts: i64) -> Option<i32> {
        let v = self.by_tid.get(&tid)?;
        let k = v.partition_point(|x| x.0 < ts);
        v.get(k).filter(|x| x.0 == ts && x.1 == State::Runnable).and_then(|x| x.2.tid())
    }

    /// When `tid` was asleep (S) at `t`: the wakeup that ended that sleep,
    /// as (its time, its waker when the trace names one). None when the
    /// thread was not asleep at `t`, its state there is unknown, or the
    /// sleep lasts past the thread's last event.
    pub fn wakeup_ending_sleep_at(&self, tid: i32, t: i64) -> Option<(i64, Option<i32>)> {
        let v = self.by_tid.get(&tid)?;
        let k = v.partition_point(|x| x.0 <= t).checked_sub(1)?;
        if v[k].1 != State::Sleeping {
            return None;
        }
        v.get(k + 1).filter(|x| x.1 == State::Runnable).map(|x| (x.0, x.2.tid()))
    }

    /// Whether the trace has scheduler data for `tid`.
    pub fn knows(&self, tid: i32) -> bool {
        self.by_tid.contains_key(&tid)
    }

    /// Time in each state over `[from, to)`; time before the thread's first
    /// event is unknown and left out. `None` without sched data for the thread.
    pub fn split(&self, tid: i32, from: i64, to: i64) -> Option<ThreadStateSplit> {
        if !self.knows(tid) {
            return None;
        }
        let mut out = ThreadStateSplit::default();
        for (a, b, st) in self.states(tid, from, to) {
            let slot = match st {
                State::Running => &mut out.running_ns,
                State::Runnable => &mut out.runnable_ns,
                State::Sleeping => &mut out.sleeping_ns,
                State::Blocked => &mut out.blocked_ns,
            };
            *slot += b - a;
        }
        Some(out)
    }
}

/// The change of state `e` makes after `cur` (the thread's state before
/// it, updated), if it makes one.
#[inline]
fn change(cur: &mut Option<State>, e: &SchedEvent) -> Option<(i64, State, Waker)> {
    let (st, waker) = match *e {
        SchedEvent::SwitchIn { .. } => (State::Running, Waker::NONE),
        SchedEvent::SwitchOut { prev_state, .. } => (decode_prev_state(prev_state), Waker::NONE),
        // A wakeup of a running task changes nothing.
        SchedEvent::Waking { .. } if *cur == Some(State::Running) => return None,
        SchedEvent::Waking { waker, .. } => (State::Runnable, waker),
    };
    (*cur != Some(st)).then(|| {
        *cur = Some(st);
        (e.ts(), st, waker)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prev_state_mapping() {
        assert_eq!(decode_prev_state(0), State::Runnable);
        assert_eq!(decode_prev_state(256), State::Runnable); // R+ (4.14+)
        assert_eq!(decode_prev_state(1), State::Sleeping);
        assert_eq!(decode_prev_state(2), State::Blocked);
        assert_eq!(decode_prev_state(2 | 256), State::Blocked);
        assert_eq!(decode_prev_state(128), State::Sleeping); // I (idle)
        assert_eq!(decode_prev_state(64), State::Sleeping); // P (parked)
    }

    #[test]
    fn split_over_window() {
        // tid 7: in at 10, out S at 20, waking 30, in 35, out D at 50, waking 60.
        let ev = vec![
            SchedEvent::SwitchIn { ts: 10, tid: 7, cpu: 0 },
            SchedEvent::SwitchOut { ts: 20, tid: 7, cpu: 0, prev_state: 1 },
            SchedEvent::Waking { ts: 30, tid: 7, waker: Waker::NONE },
            SchedEvent::SwitchIn { ts: 35, tid: 7, cpu: 1 },
            SchedEvent::Waking { ts: 40, tid: 7, waker: Waker::NONE },
            SchedEvent::SwitchOut { ts: 50, tid: 7, cpu: 1, prev_state: 2 },
            SchedEvent::Waking { ts: 60, tid: 7, waker: Waker::NONE },
        ];
        let ix = SchedIndex::new(&[ev]);
        // Window [15, 70): running 15–20 (5) + 35–50 (15) = 20; sleeping 20–30 = 10;
        // runnable 30–35 (5) + 60–70 (10) = 15; blocked 50–60 = 10.
        let s = ix.split(7, 15, 70).unwrap();
        assert_eq!((s.running_ns, s.runnable_ns, s.sleeping_ns, s.blocked_ns), (20, 15, 10, 10));
        // Before the first event nothing is known: [0, 12) → running 2 only.
        let s = ix.split(7, 0, 12).unwrap();
        assert_eq!((s.running_ns, s.runnable_ns, s.sleeping_ns, s.blocked_ns), (2, 0, 0, 0));
        assert_eq!(ix.split(8, 0, 12), None);
    }

    /// Written in place over each thread's vector, the index is the one
    /// `new` builds: a thread split over two vectors, and a vector of two
    /// threads, take `new`'s way.
    #[test]
    fn of_threads_is_new() {
        let (w, i, o) = (
            |ts, tid| SchedEvent::Waking { ts, tid, waker: Waker::of(Some(3)) },
            |ts, tid| SchedEvent::SwitchIn { ts, tid, cpu: 0 },
            |ts, tid, prev_state| SchedEvent::SwitchOut { ts, tid, cpu: 0, prev_state },
        );
        let threads = vec![
            vec![w(5, 7), i(10, 7), w(12, 7), o(20, 7, 1), o(21, 7, 1), w(30, 7), w(31, 7), i(35, 7)],
            vec![o(40, 7, 2), w(60, 7)],
            vec![i(1, 8), o(2, 8, 0), i(3, 9), o(4, 9, 256)],
        ];
        let (a, b) = (SchedIndex::new(threads.clone()), SchedIndex::of_threads(threads));
        assert!(b.has_data);
        for tid in [7, 8, 9] {
            assert_eq!(a.by_tid[&tid], b.by_tid[&tid], "tid {tid}");
        }
        assert_eq!(b.by_tid[&7].len(), 7);
        assert_eq!(b.by_tid.len(), 3);
        // Each state's end names its waker as woken_by does, clipped or not:
        // tid 7 sleeps 20–30 and is blocked 40–60, woken by 3 both times.
        let mut named = 0;
        for (from, to) in [(0, 100), (15, 70), (25, 60), (21, 30), (35, 36)] {
            for (x, y, _, woken) in b.states_woken(7, from, to) {
                assert_eq!(woken, b.woken_by(7, y), "[{x}, {y}) of [{from}, {to})");
                named += usize::from(woken.is_some());
            }
        }
        assert_eq!(named, 7);
    }
}
