//! Process and thread identity (trace_processor's ProcessTracker): pid/tid →
//! upid/utid, tid reuse, and names ranked by where they came from.

use rustc_hash::FxHashMap;

use crate::model::{Name, Process, Thread, Upid, Utid};
use crate::read::records::Batch;

/// Thread-name sources, lowest first (trace_processor's ThreadNamePriority).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum NamePriority {
    Ftrace = 1,
    ProcessTree = 2,
    TrackDescriptor = 4,
}

#[derive(Default)]
pub(crate) struct Identity {
    pub(crate) processes: Vec<Process>,
    pub(crate) threads: Vec<Thread>,
    thread_name_rank: Vec<(NamePriority, i64)>,
    process_name_from_cmdline: Vec<bool>,
    pid_map: FxHashMap<i32, Upid>,
    tid_map: FxHashMap<i32, Utid>,
}

impl Identity {
    pub(crate) fn process(&mut self, pid: i32) -> Upid {
        if let Some(&u) = self.pid_map.get(&pid) {
            return u;
        }
        let upid = Upid::next_of(self.processes.len());
        self.processes.push(Process { upid, pid, ..Default::default() });
        self.process_name_from_cmdline.push(false);
        self.pid_map.insert(pid, upid);
        upid
    }

    /// A process of `pid` was seen.
    pub(crate) fn knows_process(&self, pid: i32) -> bool {
        self.pid_map.contains_key(&pid)
    }

    pub(crate) fn thread(&mut self, tid: i32) -> Utid {
        if let Some(&u) = self.tid_map.get(&tid) {
            return u;
        }
        self.new_thread(tid)
    }

    /// The thread `tid` resolves to, if one was seen.
    pub(crate) fn known_thread(&self, tid: i32) -> Option<Utid> {
        self.tid_map.get(&tid).copied()
    }

    /// A new thread for `tid`, which from now on resolves to it.
    fn new_thread(&mut self, tid: i32) -> Utid {
        let utid = Utid::next_of(self.threads.len());
        self.threads.push(Thread { utid, tid, ..Default::default() });
        self.thread_name_rank.push((NamePriority::Ftrace, i64::MIN));
        self.tid_map.insert(tid, utid);
        // A thread whose tid is a known pid is that process's main thread.
        if let Some(&upid) = self.pid_map.get(&tid) {
            self.threads[utid.index()].upid = Some(upid);
        }
        utid
    }

    /// `tid` runs in process `pid` (trace_processor's UpdateThread): a tid
    /// already known in another process was reused by the kernel, so it is a
    /// new thread (the old one keeps its slices and name).
    pub(crate) fn thread_in(&mut self, tid: i32, pid: i32) -> Utid {
        let upid = self.process(pid);
        let mut utid = self.thread(tid);
        if self.threads[utid.index()].upid.is_some_and(|u| u != upid) {
            utid = self.new_thread(tid);
        }
        self.threads[utid.index()].upid = Some(upid);
        utid
    }

    pub(crate) fn name_thread(&mut self, utid: Utid, name: Name, prio: NamePriority, ts: i64) {
        let rank = &mut self.thread_name_rank[utid.index()];
        let t = &mut self.threads[utid.index()];
        if t.name.is_none() || prio > rank.0 || (prio == rank.0 && ts >= rank.1) {
            t.name = Some(name);
            *rank = (prio, ts);
        }
    }

    pub(crate) fn set_cmdline(&mut self, upid: Upid, cmdline: &[String]) {
        let Some(argv0) = cmdline.first().filter(|s| !s.is_empty()) else { return };
        let p = &mut self.processes[upid.index()];
        p.name = Some(Name::from(argv0.as_str()));
        p.cmdline = Some(Name::from(cmdline.join(" ").as_str()));
        self.process_name_from_cmdline[upid.index()] = true;
    }

    pub(crate) fn process_mut(&mut self, upid: Upid) -> &mut Process {
        &mut self.processes[upid.index()]
    }

    /// A name from a source below the cmdline (a track descriptor's
    /// `process_name`): it never replaces a cmdline's.
    pub(crate) fn name_process_below_cmdline(&mut self, upid: Upid, name: Name) {
        if !self.process_name_from_cmdline[upid.index()] {
            self.processes[upid.index()].name = Some(name);
        }
    }

    /// Thread names the kernel reported (sched comms, then task renames in
    /// time order). Every thread the kernel named is a thread of the model,
    /// as in trace_processor's `thread` table (its `sched` and
    /// `thread_state` rows need one): a few thousand on a busy phone.
    pub(crate) fn name_from_kernel(&mut self, batches: &[Batch]) {
        let mut comms: FxHashMap<i32, (i64, Name)> = FxHashMap::default();
        for b in batches {
            for (&tid, c) in &b.comms {
                let e = comms.entry(tid).or_insert((c.ts, c.name.clone()));
                if c.ts >= e.0 {
                    *e = (c.ts, c.name.clone());
                }
            }
        }
        // By tid: the new threads' utids do not depend on the map's order.
        let mut comms: Vec<(i32, (i64, Name))> = comms.into_iter().collect();
        comms.sort_unstable_by_key(|(tid, _)| *tid);
        for (tid, (ts, name)) in comms {
            let utid = self.thread(tid);
            self.name_thread(utid, name, NamePriority::Ftrace, ts);
        }
        let mut renames: Vec<&(i64, u64, i32, Name)> = batches.iter().flat_map(|b| &b.renames).collect();
        renames.sort_unstable_by_key(|r| (r.0, r.1));
        for (ts, _, tid, name) in renames {
            if let Some(utid) = self.known_thread(*tid) {
                self.name_thread(utid, name.clone(), NamePriority::Ftrace, ts.saturating_add(1));
            }
        }
    }

    /// Processes without a cmdline take their main thread's name.
    pub(crate) fn finish(mut self) -> (Vec<Process>, Vec<Thread>) {
        for upid in 0..self.processes.len() {
            if self.process_name_from_cmdline[upid] {
                continue;
            }
            let pid = self.processes[upid].pid;
            if let Some(utid) = self.known_thread(pid) {
                if let Some(n) = &self.threads[utid.index()].name {
                    self.processes[upid].name = Some(n.clone());
                }
            }
        }
        (self.processes, self.threads)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reused_tid_in_another_process_is_a_new_thread() {
        let mut id = Identity::default();
        let a = id.thread_in(100, 10);
        assert_eq!(id.thread_in(100, 10), a);
        let b = id.thread_in(100, 20);
        assert_ne!(a, b);
        assert_eq!(id.known_thread(100), Some(b));
        let (p10, p20) = (id.process(10), id.process(20));
        assert_eq!(id.threads[a.index()].upid, Some(p10));
        assert_eq!(id.threads[b.index()].upid, Some(p20));
    }

    #[test]
    fn names_rank_by_source_then_time() {
        let mut id = Identity::default();
        let t = id.thread(7);
        id.name_thread(t, "from-ftrace".into(), NamePriority::Ftrace, 50);
        id.name_thread(t, "tree".into(), NamePriority::ProcessTree, 10);
        // A lower-ranked source never wins, however new.
        id.name_thread(t, "later-ftrace".into(), NamePriority::Ftrace, 99);
        assert_eq!(id.threads[t.index()].name.as_deref(), Some("tree"));
        id.name_thread(t, "descriptor".into(), NamePriority::TrackDescriptor, 0);
        assert_eq!(id.threads[t.index()].name.as_deref(), Some("descriptor"));
    }

    #[test]
    fn a_process_is_named_by_its_cmdline_else_its_main_thread() {
        let mut id = Identity::default();
        let with_cmdline = id.process(1);
        id.set_cmdline(with_cmdline, &["/system/bin/app".into(), "--flag".into()]);
        id.name_process_below_cmdline(with_cmdline, "ignored".into());
        let main = id.thread_in(2, 2);
        id.name_thread(main, "main-comm".into(), NamePriority::Ftrace, 0);
        let (processes, _) = id.finish();
        assert_eq!(processes[0].name.as_deref(), Some("/system/bin/app"));
        assert_eq!(processes[0].cmdline.as_deref(), Some("/system/bin/app --flag"));
        assert_eq!(processes[1].name.as_deref(), Some("main-comm"));
    }
}
