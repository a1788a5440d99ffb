//! The scheduler pass's stitch across each CPU's compact_sched bundles.
//!
//! A compact_sched bundle names the task each of its switches switches in,
//! never the one it switches out: that is the previous switch's task on the
//! same CPU, which for the bundle's first switch is the last task of the
//! CPU's previous bundle; and a waking's waker (the task running on its
//! CPU then) is, before the bundle's first switch, that same task.
//! trace_processor reads the bundles in time order and carries each CPU's
//! last task across them. fpsan decodes bundles in parallel batches, each
//! on its own, so the decode notes every bundle's edges
//! ([`CompactEdge`], in file order) and the wanted wakings that came before
//! their bundle's first switch ([`EarlyWaking`]); once the threads' records
//! are gathered, this walks each CPU's edges once, in file order (a CPU's
//! bundles are in time order), and:
//!
//! * gives the task switched out by a bundle's first switch its switch-out
//!   (the state it left in is the first switch's `prev_state`);
//! * drops the CPU's very first switch of the trace, whose switched-out task
//!   nothing names (trace_processor starts no `sched` row and no
//!   `thread_state` there: `compact_sched_switch_skipped`);
//! * names the waker of an early waking: the task of the CPU's latest switch
//!   at or before it, or drops the waking when the CPU had none yet
//!   (`compact_sched_waking_skipped`).
//!
//! The result depends on the bundles alone, not on how the decode was cut
//! into batches or on the number of workers.

use rustc_hash::FxHashMap;

use super::records::{CompactEdge, EarlyWaking, SchedRecord, Waker};

/// Every compact_sched bundle's edges, in file order, and the wanted
/// threads' wakings before their bundle's first switch.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct CompactStitch {
    pub edges: Vec<CompactEdge>,
    pub early: Vec<EarlyWaking>,
}

/// The changes the stitch makes to one thread's records.
#[derive(Default)]
struct Fixes {
    add: Vec<SchedRecord>,
    drop: Vec<SchedRecord>,
    /// (an early waking's record, its waker).
    waker: Vec<(SchedRecord, Waker)>,
}

impl CompactStitch {
    /// Stitch `threads` (the records of the wanted threads `tids`, one
    /// vector per thread that has any, by tid, each by time): returns them
    /// the same way.
    pub fn apply(&self, tids: &[i32], threads: Vec<Vec<SchedRecord>>) -> Vec<Vec<SchedRecord>> {
        if self.edges.is_empty() {
            return threads;
        }
        let wanted = |tid: i32| tids.binary_search(&tid).is_ok();
        let mut fixes: FxHashMap<i32, Fixes> = FxHashMap::default();
        // Each CPU's edges in file order.
        let mut by_cpu: Vec<&CompactEdge> = self.edges.iter().collect();
        by_cpu.sort_by_key(|e| e.cpu);
        // Per CPU: each bundle's last switch (the latest time so far, so
        // that even a hostile CPU out of time order is searched one way).
        let mut lasts: FxHashMap<u32, Vec<(i64, i32)>> = FxHashMap::default();
        for cpu_edges in by_cpu.chunk_by(|a, b| a.cpu == b.cpu) {
            let cpu = cpu_edges[0].cpu;
            let mut running: Option<i32> = None;
            let mut latest = i64::MIN;
            let mine = lasts.entry(cpu).or_default();
            for e in cpu_edges {
                if let Some(f) = e.first {
                    match running {
                        None if wanted(f.next_pid) => fixes
                            .entry(f.next_pid)
                            .or_default()
                            .drop
                            .push(SchedRecord::switch_in(f.ts, f.next_pid, cpu)),
                        Some(prev) if wanted(prev) => fixes.entry(prev).or_default().add.push(SchedRecord::switch_out(
                            f.ts,
                            prev,
                            cpu,
                            f.prev_state,
                        )),
                        _ => {}
                    }
                }
                if let Some((ts, task)) = e.last {
                    running = Some(task);
                    latest = latest.max(ts);
                    mine.push((latest, task));
                }
            }
        }
        for w in self.early.iter().filter(|w| wanted(w.tid)) {
            let record = SchedRecord::Waking { ts: w.ts, tid: w.tid, waker: Waker::NONE };
            let before = lasts.get(&w.cpu).map_or(&[][..], |l| &l[..]);
            let thread = fixes.entry(w.tid).or_default();
            match before.partition_point(|&(t, _)| t <= w.ts) {
                0 => thread.drop.push(record),
                n => thread.waker.push((record, Waker::of(Some(before[n - 1].1)))),
            }
        }
        if fixes.is_empty() {
            return threads;
        }
        let mut out: Vec<Vec<SchedRecord>> = Vec::with_capacity(threads.len() + fixes.len());
        let mut threads = threads.into_iter().peekable();
        let mut fixed: Vec<(i32, Fixes)> = fixes.into_iter().collect();
        fixed.sort_unstable_by_key(|(tid, _)| *tid);
        for (tid, f) in fixed {
            while let Some(t) = threads.next_if(|t| t[0].tid() < tid) {
                out.push(t);
            }
            let mut records = threads.next_if(|t| t[0].tid() == tid).unwrap_or_default();
            fix_thread(&mut records, f);
            if !records.is_empty() {
                out.push(records);
            }
        }
        out.extend(threads);
        out
    }
}

/// Apply `f` to one thread's records (by time).
fn fix_thread(records: &mut Vec<SchedRecord>, mut f: Fixes) {
    // The index of a record equal to `target`, not yet taken.
    let find = |records: &[SchedRecord], target: &SchedRecord, taken: &[usize]| {
        let from = records.partition_point(|r| r.ts() < target.ts());
        (from..records.len())
            .take_while(|&i| records[i].ts() == target.ts())
            .find(|&i| records[i] == *target && !taken.contains(&i))
    };
    for (target, waker) in &f.waker {
        if let Some(i) = find(records, target, &[]) {
            if let SchedRecord::Waking { waker: w, .. } = &mut records[i] {
                *w = *waker;
            }
        }
    }
    let mut dropped: Vec<usize> = Vec::new();
    for target in &f.drop {
        if let Some(i) = find(records, target, &dropped) {
            dropped.push(i);
        }
    }
    if !dropped.is_empty() {
        dropped.sort_unstable();
        let mut k = 0;
        let mut i = 0;
        records.retain(|_| {
            let keep = dropped.get(k) != Some(&i);
            k += usize::from(!keep);
            i += 1;
            keep
        });
    }
    if !f.add.is_empty() {
        // Each added switch-out comes first among its thread's records at
        // its time (it is its bundle's first switch).
        f.add.sort_by_key(SchedRecord::ts);
        merge_in_place(records, &f.add);
    }
}

/// Merge `add` (by time) into `records` (by time), each of `add` before the
/// records at its time, in place: from the back, so that a thread's
/// records (millions on a busy trace) are not copied to fresh memory.
fn merge_in_place(records: &mut Vec<SchedRecord>, add: &[SchedRecord]) {
    let old = records.len();
    records.extend_from_slice(add);
    let (mut i, mut j) = (old, add.len());
    for k in (0..records.len()).rev() {
        if j == 0 {
            break;
        }
        if i > 0 && records[i - 1].ts() >= add[j - 1].ts() {
            records[k] = records[i - 1];
            i -= 1;
        } else {
            records[k] = add[j - 1];
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::records::FirstSwitch;

    fn edge(cpu: u32, first: Option<(i64, i64, i32)>, last: Option<(i64, i32)>) -> CompactEdge {
        let first = first.map(|(ts, prev_state, next_pid)| FirstSwitch { ts, prev_state, next_pid });
        CompactEdge { cpu, first, last }
    }

    /// The merge from the back puts each added record before the records
    /// at its time, as a forward merge does.
    #[test]
    fn merge_in_place_is_the_forward_merge() {
        let w = |ts: i64, tid: i32| SchedRecord::Waking { ts, tid, waker: Waker::NONE };
        let forward = |old: &[SchedRecord], add: &[SchedRecord]| {
            let mut out = Vec::new();
            let (mut i, mut j) = (0, 0);
            while i < old.len() || j < add.len() {
                if j < add.len() && (i == old.len() || add[j].ts() <= old[i].ts()) {
                    out.push(add[j]);
                    j += 1;
                } else {
                    out.push(old[i]);
                    i += 1;
                }
            }
            out
        };
        let cases: [(&[SchedRecord], &[SchedRecord]); 5] = [
            (&[w(1, 0), w(3, 0), w(3, 1), w(5, 0)], &[w(3, 9), w(3, 8), w(6, 9)]),
            (&[], &[w(1, 9), w(2, 9)]),
            (&[w(1, 0), w(2, 0)], &[]),
            (&[w(4, 0), w(5, 0)], &[w(1, 9), w(4, 9)]),
            (&[w(1, 0), w(1, 1)], &[w(1, 9), w(7, 9)]),
        ];
        for (old, add) in cases {
            let mut records = old.to_vec();
            merge_in_place(&mut records, add);
            assert_eq!(records, forward(old, add), "{old:?} + {add:?}");
        }
    }

    #[test]
    fn each_cpus_last_task_is_carried_to_its_next_bundle() {
        // CPU 1: bundle A switches 10 → 7 at 100 (the CPU's first switch of
        // the trace), … → 8 at 150; bundle B (after a bundle of CPU 2)
        // switches 8 out (S) → 7 at 300, … → 9 at 350; bundle C has no
        // switches; bundle D switches 9 out (R+) → 7 at 500.
        // CPU 2: one bundle, first switch → 8 at 120, last → 0 at 130.
        let stitch = CompactStitch {
            edges: vec![
                edge(1, Some((100, 0, 7)), Some((150, 8))),
                edge(2, Some((120, 1, 8)), Some((130, 0))),
                edge(1, Some((300, 1, 7)), Some((350, 9))),
                edge(1, None, None),
                edge(1, Some((500, 256, 7)), Some((500, 7))),
            ],
            early: vec![
                // In CPU 1's first bundle, before its first switch: dropped.
                EarlyWaking { cpu: 1, ts: 90, tid: 8 },
                // In bundle B before its first switch: woken by 8.
                EarlyWaking { cpu: 1, ts: 290, tid: 9 },
                // In bundle C: woken by 9.
                EarlyWaking { cpu: 1, ts: 400, tid: 8 },
            ],
        };
        let wake = |ts, tid| SchedRecord::Waking { ts, tid, waker: Waker::NONE };
        let threads = vec![
            vec![
                SchedRecord::switch_in(100, 7, 1),
                SchedRecord::switch_out(150, 7, 1, 0),
                SchedRecord::switch_in(300, 7, 1),
                SchedRecord::switch_out(350, 7, 1, 1),
                SchedRecord::switch_in(500, 7, 1),
            ],
            vec![wake(90, 8), SchedRecord::switch_in(120, 8, 2), SchedRecord::switch_in(150, 8, 1), wake(400, 8)],
            vec![wake(290, 9), SchedRecord::switch_in(350, 9, 1)],
        ];
        let got = stitch.apply(&[7, 8, 9], threads);
        assert_eq!(
            got,
            vec![
                // CPU 1's first switch of the trace is dropped; the others stay.
                vec![
                    SchedRecord::switch_out(150, 7, 1, 0),
                    SchedRecord::switch_in(300, 7, 1),
                    SchedRecord::switch_out(350, 7, 1, 1),
                    SchedRecord::switch_in(500, 7, 1),
                ],
                vec![
                    // CPU 2's first switch is dropped too.
                    SchedRecord::switch_in(150, 8, 1),
                    SchedRecord::switch_out(300, 8, 1, 1),
                    SchedRecord::Waking { ts: 400, tid: 8, waker: Waker::of(Some(9)) },
                ],
                vec![
                    SchedRecord::Waking { ts: 290, tid: 9, waker: Waker::of(Some(8)) },
                    SchedRecord::switch_in(350, 9, 1),
                    SchedRecord::switch_out(500, 9, 1, 256),
                ],
            ]
        );
        // A thread not asked about is left alone; one with no records gets
        // its stitched switch-out alone.
        let only_nine = stitch.apply(&[9], vec![]);
        assert_eq!(only_nine, vec![vec![SchedRecord::switch_out(500, 9, 1, 256)]]);
    }
}
