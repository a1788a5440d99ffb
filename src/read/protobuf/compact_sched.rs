//! Ftrace's compact_sched encoding (`FtraceEventBundle.compact_sched`, what
//! Android records sched_switch / sched_waking as): packed, delta-encoded
//! columns with a per-bundle comm intern table. One decoder serves both the
//! hot path (thread names and counts, `read::ftrace`) and the scheduler pass
//! (the frame threads' events, `read::sched`).

use super::wire::{Fields, PackedVarints, Value};
use crate::read::records::{CompactEdge, EarlyWaking, FirstSwitch, SchedRecord, TidFilter, Waker};
use crate::read::thread_records::{merge_columns, waking_record};

/// CompactSched field numbers (Perfetto's ftrace_event_bundle.proto).
mod field {
    pub const SWITCH_TIMESTAMP: u32 = 1;
    pub const SWITCH_PREV_STATE: u32 = 2;
    pub const SWITCH_NEXT_PID: u32 = 3;
    pub const INTERN_TABLE: u32 = 5;
    pub const SWITCH_NEXT_COMM_INDEX: u32 = 6;
    pub const WAKING_TIMESTAMP: u32 = 7;
    pub const WAKING_PID: u32 = 8;
    pub const WAKING_COMM_INDEX: u32 = 11;
}

/// The columns of one bundle's compact_sched message, borrowed.
#[derive(Default)]
pub struct CompactSched<'a> {
    intern: Vec<&'a [u8]>,
    switch_ts: &'a [u8],
    switch_prev_state: &'a [u8],
    switch_next_pid: &'a [u8],
    switch_next_comm: &'a [u8],
    waking_ts: &'a [u8],
    waking_pid: &'a [u8],
    waking_comm: &'a [u8],
    /// The message was cut or corrupt; the columns read before the damage are kept.
    pub malformed: bool,
}

/// One sched_switch. The previous task is not stored: it is the previous
/// switch's `next_pid` on the same CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switch<'a> {
    /// Absolute timestamp (the column holds deltas).
    pub ts: i64,
    pub next_pid: Option<i32>,
    /// The kernel state the previous task left in (0 = preempted, runnable).
    pub prev_state: Option<i64>,
    pub next_comm: Option<&'a [u8]>,
}

/// One sched_waking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waking<'a> {
    pub ts: i64,
    pub pid: Option<i32>,
    pub comm: Option<&'a [u8]>,
}

/// The optional columns a reader wants decoded: each costs a varint per
/// event, and over a busy trace's tens of millions of events that shows.
#[derive(Debug, Clone, Copy)]
pub struct Want {
    pub prev_state: bool,
    pub comm: bool,
}

impl<'a> CompactSched<'a> {
    pub fn parse(b: &'a [u8]) -> CompactSched<'a> {
        let mut c = CompactSched::default();
        for f in Fields::new(b) {
            let Ok((num, v)) = f else {
                c.malformed = true;
                break;
            };
            let Value::Bytes(v) = v else { continue };
            match num {
                field::INTERN_TABLE => c.intern.push(v),
                field::SWITCH_TIMESTAMP => c.switch_ts = v,
                field::SWITCH_PREV_STATE => c.switch_prev_state = v,
                field::SWITCH_NEXT_PID => c.switch_next_pid = v,
                field::SWITCH_NEXT_COMM_INDEX => c.switch_next_comm = v,
                field::WAKING_TIMESTAMP => c.waking_ts = v,
                field::WAKING_PID => c.waking_pid = v,
                field::WAKING_COMM_INDEX => c.waking_comm = v,
                _ => {}
            }
        }
        c
    }

    /// Every switch, one per timestamp; a column shorter than the timestamps
    /// (or not wanted) gives `None` from there on.
    pub fn switches(&self, want: Want) -> Switches<'a, '_> {
        Switches {
            cs: self,
            ts: Timestamps::new(self.switch_ts),
            states: PackedVarints::new(if want.prev_state { self.switch_prev_state } else { &[] }),
            pids: PackedVarints::new(self.switch_next_pid),
            comms: PackedVarints::new(if want.comm { self.switch_next_comm } else { &[] }),
        }
    }

    /// Every waking, one per timestamp.
    pub fn wakings(&self, want: Want) -> Wakings<'a, '_> {
        Wakings {
            cs: self,
            ts: Timestamps::new(self.waking_ts),
            pids: PackedVarints::new(self.waking_pid),
            comms: PackedVarints::new(if want.comm { self.waking_comm } else { &[] }),
        }
    }

    /// Whether any switched-in pid, and any woken pid, satisfies `wanted`:
    /// one pass over the pid columns only (no timestamps, states or comms).
    pub fn pids_wanted(&self, wanted: impl Fn(i32) -> bool) -> (bool, bool) {
        let any = |col: &[u8]| PackedVarints::new(col).any(|p| wanted(p as i32));
        (any(self.switch_next_pid), any(self.waking_pid))
    }

    /// The bundle's edges on `cpu` so far: its first switch (read here, a
    /// varint of each column), no last task yet (each switch read is
    /// given to [`note_last`]).
    pub(crate) fn edge(&self, cpu: u32) -> CompactEdge {
        let all = Want { prev_state: true, comm: false };
        let first = self
            .switches(all)
            .next()
            .and_then(|s| Some(FirstSwitch { ts: s.ts, prev_state: s.prev_state?, next_pid: s.next_pid? }));
        CompactEdge { cpu, first, last: None }
    }

    #[inline(always)]
    fn comm(&self, index: Option<u64>) -> Option<&'a [u8]> {
        index.and_then(|i| usize::try_from(i).ok()).and_then(|i| self.intern.get(i).copied())
    }
}

/// The next switch of a bundle whose edges `edge` holds (every switch of
/// the column is given, in order).
#[inline(always)]
pub(crate) fn note_last(edge: &mut CompactEdge, ts: i64, next_pid: Option<i32>) {
    if let Some(pid) = next_pid {
        edge.last = Some((ts, pid));
    }
}

// The iterators are types of their own, not adapters over closures: with
// `next` inlined into the caller's loop their cursors stay in registers. (As
// `map`/`scan` closures they were calls per event, and a quarter of the first
// pass's time on a busy compact_sched trace.)

/// The iterator of [`CompactSched::switches`].
pub struct Switches<'a, 's> {
    cs: &'s CompactSched<'a>,
    ts: Timestamps<'a>,
    states: PackedVarints<'a>,
    pids: PackedVarints<'a>,
    comms: PackedVarints<'a>,
}

impl<'a> Iterator for Switches<'a, '_> {
    type Item = Switch<'a>;
    #[inline(always)]
    fn next(&mut self) -> Option<Switch<'a>> {
        let ts = self.ts.next()?;
        Some(Switch {
            ts,
            prev_state: self.states.next().map(|s| s as i64),
            next_pid: self.pids.next().map(|p| p as i32),
            next_comm: self.cs.comm(self.comms.next()),
        })
    }
}

/// The iterator of [`CompactSched::wakings`].
pub struct Wakings<'a, 's> {
    cs: &'s CompactSched<'a>,
    ts: Timestamps<'a>,
    pids: PackedVarints<'a>,
    comms: PackedVarints<'a>,
}

impl<'a> Iterator for Wakings<'a, '_> {
    type Item = Waking<'a>;
    #[inline(always)]
    fn next(&mut self) -> Option<Waking<'a>> {
        let ts = self.ts.next()?;
        Some(Waking { ts, pid: self.pids.next().map(|p| p as i32), comm: self.cs.comm(self.comms.next()) })
    }
}

/// Absolute timestamps from a column of deltas.
struct Timestamps<'a> {
    deltas: PackedVarints<'a>,
    t: i64,
}

impl<'a> Timestamps<'a> {
    fn new(deltas: &'a [u8]) -> Self {
        Timestamps { deltas: PackedVarints::new(deltas), t: 0 }
    }
}

impl Iterator for Timestamps<'_> {
    type Item = i64;
    #[inline(always)]
    fn next(&mut self) -> Option<i64> {
        self.t = self.t.wrapping_add(self.deltas.next()? as i64);
        Some(self.t)
    }
}

/// The records of one compact_sched, its switches then its wakings, as both
/// passes make them. Each column is read up to its first event that lacks a
/// field (the first pass marks such a bundle malformed).
pub(crate) struct CompactRecords {
    cpu: u32,
    /// compact_sched omits prev_pid: the thread switched out is the previous
    /// switch's next_pid on this CPU (unknown for the bundle's first switch).
    prev: Option<i32>,
    switches_whole: bool,
    wakings_whole: bool,
    /// Where this bundle's switch records, then its waking records, begin in `out`.
    switches_at: usize,
    wakings_at: usize,
}

impl CompactRecords {
    /// The records of a bundle of `cpu`, pushed onto `out` from `out_len` on.
    pub(crate) fn new(cpu: u32, out_len: usize) -> CompactRecords {
        CompactRecords {
            cpu,
            prev: None,
            switches_whole: true,
            wakings_whole: true,
            switches_at: out_len,
            wakings_at: out_len,
        }
    }

    /// The switch column is done; the waking column's records come next.
    pub(crate) fn wakings_begin(&mut self, out: &[SchedRecord]) {
        self.wakings_at = out.len();
    }

    /// Both columns are done: their records become one run by time (see
    /// [`merge_columns`]).
    pub(crate) fn finish(&self, out: &mut [SchedRecord]) {
        merge_columns(&mut out[self.switches_at..], self.wakings_at - self.switches_at);
    }

    /// The next switch of the column (read with `Want::prev_state`).
    #[inline(always)]
    pub(crate) fn switch(&mut self, wanted: &TidFilter, s: &Switch, out: &mut Vec<SchedRecord>) {
        let (true, Some(state), Some(next)) = (self.switches_whole, s.prev_state, s.next_pid) else {
            self.switches_whole = false;
            return;
        };
        if let Some(p) = self.prev.filter(|&p| wanted.contains(p)) {
            out.push(SchedRecord::switch_out(s.ts, p, self.cpu, state));
        }
        if wanted.contains(next) {
            out.push(SchedRecord::switch_in(s.ts, next, self.cpu));
        }
        self.prev = Some(next);
    }

    /// The next waking of the column; `tasks` (of the same bundle) gives
    /// its waker. A wanted waking before the bundle's first switch is noted
    /// in `early` too (its waker is the stitch's to find).
    #[inline(always)]
    pub(crate) fn waking(
        &mut self,
        wanted: &TidFilter,
        tasks: &mut RunningTasks,
        w: &Waking,
        out: &mut Vec<SchedRecord>,
        early: &mut Vec<EarlyWaking>,
    ) {
        let (true, Some(pid)) = (self.wakings_whole, w.pid) else {
            self.wakings_whole = false;
            return;
        };
        let cpu = self.cpu;
        waking_record(
            wanted,
            w.ts,
            pid,
            || {
                tasks.at(w.ts).unwrap_or_else(|| {
                    early.push(EarlyWaking { cpu, ts: w.ts, tid: pid });
                    Waker::NONE
                })
            },
            out,
        );
    }
}

/// The waker of a compact_sched waking. The bundle does not store the
/// event's common pid, so, as trace_processor does, it is the task running
/// on the bundle's CPU then: the one the latest switch at or before the
/// waking switched in (at a tie the switch came first, as the records'
/// merge has it). The switch column's (timestamp, task) pairs are noted as
/// a pass reads them (the first pass reads every switch of a bundle whose
/// records it keeps), else read at the first waking of a wanted thread
/// (most bundles have none), then searched. A column out of time order (a
/// hostile one) gives the switch before the first one later than the
/// waking: the answer depends on the waking's time and the column alone,
/// so both passes give a waking the same waker whatever else they keep.
///
/// Before the bundle's first switch the bundle does not know the task:
/// trace_processor, reading the bundles in time order, carries each CPU's
/// last task across them (and drops a waking seen before its CPU's first
/// switch of the trace). Here bundles are decoded in parallel batches, cut
/// differently by the two passes, so such a waking is noted
/// ([`EarlyWaking`]) and the scheduler pass's stitch, which has every
/// bundle's edges in file order, gives it its waker
/// (`read::compact_stitch`).
pub(crate) struct RunningTasks<'a, 's> {
    cs: &'s CompactSched<'a>,
    /// Per switch, in column order: its timestamp and the task it switched
    /// in; once searched, the latest timestamp up to it instead of its own
    /// (so that a binary search finds the first switch later than a time
    /// even in a column out of order). The worker's [`SWITCH_TASKS`]
    /// buffer, given back on drop.
    table: Vec<(i64, Waker)>,
    /// `table` holds the whole column.
    whole: bool,
    /// ... with the latest timestamps: ready to search.
    ready: bool,
}

/// [`RunningTasks::table`]'s buffer stays allocated up to this many
/// switches (1 MB; a bundle holds hundreds to a few thousand).
const SWITCH_TASKS_MAX: usize = 1 << 16;

thread_local! {
    /// One per worker (the decoding workers, the scheduler pass's), reused
    /// from bundle to bundle.
    static SWITCH_TASKS: std::cell::Cell<Vec<(i64, Waker)>> = const { std::cell::Cell::new(Vec::new()) };
}

impl<'a, 's> RunningTasks<'a, 's> {
    pub(crate) fn new(cs: &'s CompactSched<'a>) -> Self {
        let mut table = SWITCH_TASKS.take();
        table.clear();
        RunningTasks { cs, table, whole: false, ready: false }
    }

    /// The column's next switch, as a pass reads the whole column.
    #[inline(always)]
    pub(crate) fn note(&mut self, s: &Switch) {
        self.table.push((s.ts, Waker::of(s.next_pid)));
    }

    /// Every switch of the column was noted.
    pub(crate) fn noted(&mut self) {
        self.whole = true;
    }

    /// The task running at `ts`, or `None` before the bundle's first switch.
    #[inline]
    pub(crate) fn at(&mut self, ts: i64) -> Option<Waker> {
        if !self.ready {
            if !self.whole {
                self.table.clear();
                let bare = Want { prev_state: false, comm: false };
                self.table.extend(self.cs.switches(bare).map(|s| (s.ts, Waker::of(s.next_pid))));
            }
            let mut latest = i64::MIN;
            for (t, _) in &mut self.table {
                latest = latest.max(*t);
                *t = latest;
            }
            self.ready = true;
        }
        match self.table.partition_point(|&(latest, _)| latest <= ts) {
            0 => None,
            n => Some(self.table[n - 1].1),
        }
    }
}

impl Drop for RunningTasks<'_, '_> {
    fn drop(&mut self) {
        if self.table.capacity() <= SWITCH_TASKS_MAX {
            SWITCH_TASKS.set(std::mem::take(&mut self.table));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varints(vals: &[u64]) -> Vec<u8> {
        let mut out = Vec::new();
        for &v in vals {
            let mut v = v;
            loop {
                let b = (v & 0x7f) as u8;
                v >>= 7;
                if v == 0 {
                    out.push(b);
                    break;
                }
                out.push(b | 0x80);
            }
        }
        out
    }

    fn bytes_field(num: u32, payload: &[u8], out: &mut Vec<u8>) {
        out.extend(varints(&[((num << 3) | 2) as u64]));
        out.extend(varints(&[payload.len() as u64]));
        out.extend_from_slice(payload);
    }

    #[test]
    fn columns_decode_to_absolute_events() {
        let mut m = Vec::new();
        bytes_field(field::INTERN_TABLE, b"main", &mut m);
        bytes_field(field::INTERN_TABLE, b"RenderThread", &mut m);
        bytes_field(field::SWITCH_TIMESTAMP, &varints(&[1000, 5, 10]), &mut m);
        bytes_field(field::SWITCH_PREV_STATE, &varints(&[0, 1]), &mut m);
        bytes_field(field::SWITCH_NEXT_PID, &varints(&[42, 43, 42]), &mut m);
        bytes_field(field::SWITCH_NEXT_COMM_INDEX, &varints(&[0, 1, 7]), &mut m);
        bytes_field(field::WAKING_TIMESTAMP, &varints(&[2000]), &mut m);
        bytes_field(field::WAKING_PID, &varints(&[43]), &mut m);
        bytes_field(field::WAKING_COMM_INDEX, &varints(&[1]), &mut m);
        let c = CompactSched::parse(&m);
        assert!(!c.malformed);
        let all = Want { prev_state: true, comm: true };
        let sw: Vec<_> = c.switches(all).collect();
        assert_eq!(
            sw,
            [
                Switch { ts: 1000, next_pid: Some(42), prev_state: Some(0), next_comm: Some(&b"main"[..]) },
                Switch { ts: 1005, next_pid: Some(43), prev_state: Some(1), next_comm: Some(&b"RenderThread"[..]) },
                // The state column is one short; comm index 7 is not in the table.
                Switch { ts: 1015, next_pid: Some(42), prev_state: None, next_comm: None },
            ]
        );
        let wk: Vec<_> = c.wakings(all).collect();
        let bare = Want { prev_state: false, comm: false };
        assert!(c.switches(bare).all(|s| s.prev_state.is_none() && s.next_comm.is_none()));
        assert_eq!(c.switches(bare).map(|s| s.next_pid).collect::<Vec<_>>(), [Some(42), Some(43), Some(42)]);
        assert_eq!(wk, [Waking { ts: 2000, pid: Some(43), comm: Some(&b"RenderThread"[..]) }]);
    }

    /// The records of a whole bundle of CPU 2 for `wanted`, as both passes
    /// make them: the switches noted for the wakers on the way (the first
    /// pass), or read again at the first wanted waking; the same either way.
    fn records(m: &[u8], wanted: &[i32]) -> Vec<SchedRecord> {
        records_and_early(m, wanted).0
    }

    /// [`records`], and the wakings before the bundle's first switch.
    fn records_and_early(m: &[u8], wanted: &[i32]) -> (Vec<SchedRecord>, Vec<EarlyWaking>) {
        let (cs, wanted) = (CompactSched::parse(m), TidFilter::new(wanted.iter().copied()));
        let want = Want { prev_state: true, comm: false };
        let [noted, read_again] = [true, false].map(|note| {
            let (mut out, mut early) = (Vec::new(), Vec::new());
            let mut records = CompactRecords::new(2, 0);
            let mut tasks = RunningTasks::new(&cs);
            for s in cs.switches(want) {
                records.switch(&wanted, &s, &mut out);
                if note {
                    tasks.note(&s);
                }
            }
            if note {
                tasks.noted();
            }
            records.wakings_begin(&out);
            for w in cs.wakings(want) {
                records.waking(&wanted, &mut tasks, &w, &mut out, &mut early);
            }
            records.finish(&mut out);
            (out, early)
        });
        assert_eq!(noted, read_again);
        noted
    }

    #[test]
    fn a_wakings_waker_is_the_task_its_cpus_latest_switch_switched_in() {
        let mut m = Vec::new();
        // Switches at 1000 (to 42), 1005 (to 43), 1015 (to the idle task)
        // and 1030, whose next_pid is missing.
        bytes_field(field::SWITCH_TIMESTAMP, &varints(&[1000, 5, 10, 15]), &mut m);
        bytes_field(field::SWITCH_PREV_STATE, &varints(&[0, 1, 0, 0]), &mut m);
        bytes_field(field::SWITCH_NEXT_PID, &varints(&[42, 43, 0]), &mut m);
        // Wakings at 990, 1005, 1010, 1020, 1040 of 7, and at 1012 of 8.
        bytes_field(field::WAKING_TIMESTAMP, &varints(&[990, 15, 5, 2, 8, 20]), &mut m);
        bytes_field(field::WAKING_PID, &varints(&[7, 7, 7, 8, 7, 7]), &mut m);
        let wakings: Vec<(i64, i32, Option<i32>)> = records(&m, &[7])
            .into_iter()
            .filter_map(|r| match r {
                SchedRecord::Waking { ts, tid, waker } => Some((ts, tid, waker.tid())),
                _ => None,
            })
            .collect();
        assert_eq!(
            wakings,
            [
                // Before the bundle's first switch: unknown to the bundle
                // (noted for the stitch, below).
                (990, 7, None),
                // At a switch's timestamp: the task it switched in.
                (1005, 7, Some(43)),
                // Between two switches.
                (1010, 7, Some(43)),
                // On the idle CPU: the idle task (an interrupt).
                (1020, 7, Some(0)),
                // After a switch to a task the column does not name.
                (1040, 7, None),
            ]
        );
        assert_eq!(records_and_early(&m, &[7, 8]).1, [EarlyWaking { cpu: 2, ts: 990, tid: 7 }]);
        // The bundle's edges: its first switch (→ 42 at 1000, after a task
        // that left in state 0) and the last one that names its task (→ the
        // idle task at 1015; the switch at 1030 names none).
        let cs = CompactSched::parse(&m);
        let mut edge = cs.edge(2);
        for s in cs.switches(Want { prev_state: false, comm: false }) {
            note_last(&mut edge, s.ts, s.next_pid);
        }
        let first = Some(FirstSwitch { ts: 1000, prev_state: 0, next_pid: 42 });
        assert_eq!(edge, CompactEdge { cpu: 2, first, last: Some((1015, 0)) });
        // The same wakings whatever else is wanted (here 8, woken at 1012,
        // and 42, whose switches come first).
        let with_more = records(&m, &[7, 8, 42]);
        assert!(with_more.contains(&SchedRecord::Waking { ts: 1012, tid: 8, waker: Waker::of(Some(43)) }));
        let sevens: Vec<_> = with_more.into_iter().filter(|r| r.tid() == 7).collect();
        assert_eq!(sevens, records(&m, &[7]));
        // Without switches, no waker is known.
        let mut lone = Vec::new();
        bytes_field(field::WAKING_TIMESTAMP, &varints(&[990]), &mut lone);
        bytes_field(field::WAKING_PID, &varints(&[7]), &mut lone);
        assert_eq!(records(&lone, &[7]), [SchedRecord::Waking { ts: 990, tid: 7, waker: Waker::NONE }]);
    }

    #[test]
    fn a_hostile_column_out_of_time_order_gives_each_waking_one_waker() {
        let back = |d: u64| u64::MAX - d + 1; // a delta of -d
        let mut m = Vec::new();
        // Switches at 1000 (to 42), 900 (to 43), 1100 (to 44).
        bytes_field(field::SWITCH_TIMESTAMP, &varints(&[1000, back(100), 200]), &mut m);
        bytes_field(field::SWITCH_PREV_STATE, &varints(&[0, 0, 0]), &mut m);
        bytes_field(field::SWITCH_NEXT_PID, &varints(&[42, 43, 44]), &mut m);
        // Wakings at 1050 (of 7), 950 (of 8, back in time), 1200 (of 9).
        bytes_field(field::WAKING_TIMESTAMP, &varints(&[1050, back(100), 250]), &mut m);
        bytes_field(field::WAKING_PID, &varints(&[7, 8, 9]), &mut m);
        let wakers = |wanted: &[i32]| -> Vec<(i32, Option<i32>)> {
            let mut w: Vec<_> = records(&m, wanted)
                .into_iter()
                .filter_map(|r| match r {
                    SchedRecord::Waking { tid, waker, .. } => Some((tid, waker.tid())),
                    _ => None,
                })
                .collect();
            w.sort_unstable();
            w
        };
        // The switch before the first one later than the waking: 43 at
        // 1050 (900 ≤ 1050 < 1100), none at 950 (1000 is later), 44 at 1200;
        // the same whether a waking is asked about alone or after others.
        let all = [(7, Some(43)), (8, None), (9, Some(44))];
        assert_eq!(wakers(&[7, 8, 9]), all);
        for (k, one) in all.iter().enumerate() {
            assert_eq!(wakers(&[7 + k as i32]), [*one]);
        }
    }

    #[test]
    fn a_cut_message_keeps_what_came_before() {
        let mut m = Vec::new();
        bytes_field(field::SWITCH_TIMESTAMP, &varints(&[7]), &mut m);
        m.extend([0x1a, 0x05, 0x01]); // next_pid claims 5 bytes, 1 follows
        let c = CompactSched::parse(&m);
        assert!(c.malformed);
        let want = Want { prev_state: true, comm: true };
        assert_eq!(c.switches(want).map(|s| (s.ts, s.next_pid)).collect::<Vec<_>>(), [(7, None)]);
    }
}
