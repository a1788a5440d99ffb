//! A frame's critical path: its time from vsync to end, split by who it was
//! waiting on (docs/frames.md, "Critical path"). The frame's thread is
//! followed through its sleeps to the thread that woke it (sched_waking's
//! waker) or, where the trace does not say, to Android's known hand-offs;
//! each interval goes to a (thread, slice, state), recursively.

use foldhash::HashMap;

use super::sched_index::{SchedIndex, State};
use crate::model::{Name, SliceId, Trace, TrackId, TrackKind};

/// What a thread on a frame's critical path was doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathState {
    Running,
    /// Ready, waiting for a CPU.
    Runnable,
    /// Asleep with nobody on the path to blame (no waker, no known hand-off).
    Sleeping,
    /// Uninterruptible sleep (D: I/O, a lock in the kernel).
    Blocked,
    /// The trace has no scheduler data for the thread: known by its slices only.
    Unknown,
    /// A hole in the capture (no CPU recorded anything): nothing is known,
    /// and no waker or hand-off is named across it.
    NoData,
}

impl PathState {
    pub fn as_str(self) -> &'static str {
        match self {
            PathState::Running => "running",
            PathState::Runnable => "runnable",
            PathState::Sleeping => "sleeping",
            PathState::Blocked => "blocked",
            PathState::Unknown => "unknown",
            PathState::NoData => "no_data",
        }
    }
}

/// How the path reached a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hop {
    /// The frame's own thread.
    Frame,
    /// The thread that woke the one before it (sched_waking).
    Waker,
    /// The app's RenderThread, drawing while the main thread waited.
    RenderThread,
    /// The server thread of a binder transaction.
    Binder,
    /// The owner of a contended monitor (`Lock contention on …`).
    Lock,
    /// The GC thread a `WaitForGcToComplete` waited for.
    Gc,
}

/// One interval of a critical path.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PathSegment {
    pub ts: i64,
    pub dur: i64,
    pub tid: i32,
    pub pid: Option<i32>,
    pub thread: Option<Name>,
    /// The deepest slice open on the thread, if any.
    pub slice: Option<Name>,
    /// Its id, for the chain's slice totals.
    #[serde(skip)]
    pub slice_id: Option<SliceId>,
    pub state: PathState,
    pub hop: Hop,
    /// 0 on the frame's thread, 1 on the thread it waited on, and so on.
    pub depth: u8,
}

/// A (thread, slice) and its time on a frame's critical path; the frame's
/// top blocker is the one with the most.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PathTotal {
    pub tid: i32,
    pub thread: Option<Name>,
    pub slice: Option<Name>,
    pub ns: i64,
}

/// How many hand-offs a path follows from the frame's thread.
const MAX_DEPTH: u8 = 6;
/// A thread woken this soon after its RenderThread finished a slice was
/// waiting for that slice (the hand-off of `postAndWait` and of the first
/// frame's draw sync, where the trace names no waker).
const RENDER_HANDOFF_NS: i64 = 2_000_000;
/// The chain lists at most this many slices inside the last thread's work.
const CHAIN_INSIDE: usize = 3;
/// A slice one child of which holds at least this share of its time wraps
/// the work rather than names it, and the chain does not list it.
const WRAPPER_SHARE: f64 = 0.8;
/// The chain follows a hand-off that holds at least this (and a tenth of
/// the frame's cost).
const MIN_HANDOFF_NS: i64 = 1_000_000;
/// The chain leaves out states and slices shorter than this (0.1 ms).
const MIN_LISTED_NS: i64 = 100_000;

/// What following a path needs of the trace, built once per analysis
/// (beside the scheduler pass: it needs only the trace).
#[derive(Debug, Default, Clone)]
pub struct PathThreads {
    /// tid → its thread track with the most slices, its pid and name.
    threads: HashMap<i32, ThreadInfo>,
    /// pid → its RenderThread's tid, and its `HeapTaskDaemon`'s.
    render_thread: HashMap<i32, i32>,
    gc_thread: HashMap<i32, i32>,
    /// `binder reply` slices: (ts, end, server tid), by ts.
    binder_replies: Vec<(i64, i64, i32)>,
    /// The longest `binder reply`, so that a search by start time bounds
    /// the replies that can overlap a time.
    longest_reply: i64,
    /// The capture's holes, `[from, to)` in time order (they do not overlap).
    holes: Vec<(i64, i64)>,
}

/// The trace's threads and their scheduler states: follows paths.
pub struct PathIndex<'a> {
    trace: &'a Trace,
    sched: &'a SchedIndex,
    t: &'a PathThreads,
}

#[derive(Debug, Clone)]
struct ThreadInfo {
    track: Option<TrackId>,
    slices: usize,
    pid: Option<i32>,
    name: Option<Name>,
}

impl PathThreads {
    /// From the trace and its RenderThreads ([`super::render_threads`]).
    pub fn new(trace: &Trace, renderers: &[(i32, i32)]) -> PathThreads {
        let mut threads: HashMap<i32, ThreadInfo> = HashMap::default();
        let pid_of = |th: &crate::model::Thread| th.upid.map(|u| trace.process(u).pid);
        for th in &trace.threads {
            threads.insert(th.tid, ThreadInfo { track: None, slices: 0, pid: pid_of(th), name: th.name.clone() });
        }
        let mut per_track: Vec<usize> = vec![0; trace.tracks.len()];
        let mut binder_replies = Vec::new();
        for s in &trace.slices {
            if let Some(n) = per_track.get_mut(s.track.index()) {
                *n += 1;
            }
            if &*s.name != "binder reply" {
                continue;
            }
            if let Some(th) = trace.track_thread(s.track) {
                binder_replies.push((s.ts, s.end().unwrap_or(i64::MAX), th.tid));
            }
        }
        // A process's first RenderThread.
        let mut render_thread: HashMap<i32, i32> = HashMap::default();
        for &(pid, tid) in renderers {
            render_thread.entry(pid).or_insert(tid);
        }
        for t in &trace.tracks {
            let TrackKind::Thread { utid } = t.kind else { continue };
            let th = trace.thread(utid);
            let n = per_track.get(t.id.index()).copied().unwrap_or(0);
            if let Some(info) = threads.get_mut(&th.tid) {
                if info.track.is_none() || n > info.slices {
                    info.track = Some(t.id);
                    info.slices = n;
                }
            }
        }
        let mut gc_thread = HashMap::default();
        for (&tid, info) in &threads {
            if let (Some(pid), Some("HeapTaskDaemon")) = (info.pid, info.name.as_deref()) {
                gc_thread.insert(pid, tid);
            }
        }
        binder_replies.sort_unstable();
        let longest_reply = binder_replies.iter().map(|r| r.1.saturating_sub(r.0)).max().unwrap_or(0);
        let holes = trace.meta.data_loss.holes.iter().map(|h| (h.from, h.to)).collect();
        PathThreads { threads, render_thread, gc_thread, binder_replies, longest_reply, holes }
    }
}

impl<'a> PathIndex<'a> {
    pub fn new(trace: &'a Trace, sched: &'a SchedIndex, t: &'a PathThreads) -> PathIndex<'a> {
        PathIndex { trace, sched, t }
    }

    /// The critical path of a frame drawn by `tid` over `[from, to)`.
    pub fn path(&self, tid: i32, from: i64, to: i64) -> Vec<PathSegment> {
        self.follow(Vec::new(), tid, from, to)
    }

    /// [`totals`] of [`Self::path`], without keeping the path: what every
    /// frame's row needs (its top blocker, `compare`'s blockers), for a
    /// fraction of the work of building its segments.
    pub fn totals(&self, tid: i32, from: i64, to: i64) -> Vec<PathTotal> {
        self.follow(Totals::default(), tid, from, to).finish(self.trace)
    }

    /// Walk a frame's path over `[from, to)` into `out`.
    fn follow<O: PathOut>(&self, mut out: O, tid: i32, from: i64, to: i64) -> O {
        if to > from {
            let mut stack = Vec::new();
            self.walk(&mut Walk { out: &mut out, stack: &mut stack }, tid, from, to, Hop::Frame, 0);
        }
        out
    }

    /// Attribute `[a, b)` of `tid`'s time: its own states, and for each
    /// sleep the thread it waited on, recursively. A hole in the capture is
    /// `NoData`: the walk goes on either side of it, and a wait the hole
    /// cuts stays on the waiting thread (what woke it after the hole may
    /// not be what it waited for before it).
    fn walk<O: PathOut>(&self, w: &mut Walk<O>, tid: i32, a: i64, b: i64, hop: Hop, depth: u8) {
        w.stack.push(tid);
        let holes = &self.t.holes;
        let mut at = a;
        for &(h0, h1) in holes[holes.partition_point(|h| h.1 <= a)..].iter().take_while(|h| h.0 < b) {
            let (h0, h1) = (h0.max(a), h1.min(b));
            if h0 > at {
                self.walk_data(w, tid, (at, h0), (at > a, true), hop, depth);
            }
            self.emit(w, tid, h0, h1, PathState::NoData, hop, depth);
            at = h1;
        }
        if at < b {
            self.walk_data(w, tid, (at, b), (at > a, false), hop, depth);
        }
        w.stack.pop();
    }

    /// [`Self::walk`] over `[a, b)`, a span with data; `holes`: whether a
    /// hole precedes `a`, follows `b` (a wait reaching them is cut by it).
    fn walk_data<O: PathOut>(
        &self,
        w: &mut Walk<O>,
        tid: i32,
        (a, b): (i64, i64),
        holes: (bool, bool),
        hop: Hop,
        depth: u8,
    ) {
        if !self.sched.knows(tid) {
            // Known by its slices only; a hand-off its slices name is still followed.
            self.sleep(w, tid, a, b, PathState::Unknown, hop, depth, false);
        } else {
            // The thread's slices over the window, walked once beside its states.
            let runs = self.slice_runs(tid, a, b);
            let mut cursor = 0;
            let mut at = a;
            for (s, e, st, woken_by) in self.sched.states_woken(tid, a, b) {
                if s > at {
                    self.emit_runs(w, tid, &runs, &mut cursor, (at, s), (PathState::Unknown, hop, depth));
                }
                match st {
                    State::Running => {
                        self.emit_runs(w, tid, &runs, &mut cursor, (s, e), (PathState::Running, hop, depth))
                    }
                    State::Runnable => {
                        self.emit_runs(w, tid, &runs, &mut cursor, (s, e), (PathState::Runnable, hop, depth))
                    }
                    State::Sleeping | State::Blocked => {
                        let own = if st == State::Blocked { PathState::Blocked } else { PathState::Sleeping };
                        if (holes.0 && s == a) || (holes.1 && e == b) {
                            // A wait a hole cuts: nobody is named for it.
                            self.emit_runs(w, tid, &runs, &mut cursor, (s, e), (own, hop, depth));
                            at = e;
                            continue;
                        }
                        // The wakeup that ended the sleep names its waker.
                        let waker = woken_by.filter(|&k| k > 0 && k != tid);
                        match waker {
                            Some(k) if e <= b && self.can_enter(w, k, depth) => {
                                self.walk(w, k, s, e, Hop::Waker, depth + 1)
                            }
                            _ => self.sleep(w, tid, s, e, own, hop, depth, true),
                        }
                    }
                }
                at = e;
            }
            if at < b {
                self.emit_runs(w, tid, &runs, &mut cursor, (at, b), (PathState::Unknown, hop, depth));
            }
        }
    }

    fn can_enter<O: PathOut>(&self, w: &Walk<O>, tid: i32, depth: u8) -> bool {
        depth < MAX_DEPTH && !w.stack.contains(&tid)
    }

    /// `[a, b)` while `tid` was off the CPU (or unknown) with no waker named:
    /// Android's hand-offs its slices name, else the thread's own.
    /// `woken_at_b`: the thread's scheduler says it woke at `b`.
    #[allow(clippy::too_many_arguments)]
    fn sleep<O: PathOut>(
        &self,
        w: &mut Walk<O>,
        tid: i32,
        a: i64,
        b: i64,
        own: PathState,
        hop: Hop,
        depth: u8,
        woken_at_b: bool,
    ) {
        let mut at = a;
        for (s, e, partner, via) in self.handoffs(tid, a, b, woken_at_b) {
            if !self.can_enter(w, partner, depth) {
                continue;
            }
            if s > at {
                self.emit(w, tid, at, s, own, hop, depth);
            }
            self.walk(w, partner, s, e, via, depth + 1);
            at = e;
        }
        if at < b {
            self.emit(w, tid, at, b, own, hop, depth);
        }
    }

    /// The parts of `[a, b)` that `tid`'s slices say it waited on another
    /// thread for, in time order, not overlapping: each slice open at `a` or
    /// begun before `b` that names a hand-off, over its part of `[a, b)` (an
    /// earlier or outer one wins an overlap).
    fn handoffs(&self, tid: i32, a: i64, b: i64, woken_at_b: bool) -> Vec<(i64, i64, i32, Hop)> {
        let mut out: Vec<(i64, i64, i32, Hop)> = Vec::new();
        let Some(info) = self.t.threads.get(&tid) else { return out };
        if let Some(track) = info.track {
            let trace = self.trace;
            let ids = trace.track_slices(track);
            let first = ids.partition_point(|&i| trace.slice(i).ts <= a);
            let begun = ids[first..].iter().copied().take_while(|&i| trace.slice(i).ts < b);
            for id in self.trace.open_at(track, a).into_iter().chain(begun) {
                let s = trace.slice(id);
                let (x, y) = (s.ts.max(a), s.end().unwrap_or(i64::MAX).min(b));
                if y <= x || out.last().is_some_and(|l| x < l.1) {
                    continue;
                }
                let handoff = if let Some(owner) = lock_owner(&s.name) {
                    Some((x, y, owner, Hop::Lock))
                } else if is_gc_wait(&s.name) {
                    info.pid.and_then(|p| self.t.gc_thread.get(&p)).map(|&gc| (x, y, gc, Hop::Gc))
                } else if s.name.starts_with("binder transaction") {
                    self.binder_reply(tid, s.ts, x, y).map(|(rs, re, server)| (rs, re, server, Hop::Binder))
                } else {
                    None
                };
                out.extend(handoff.filter(|h| h.2 != tid && h.1 > h.0));
            }
        }
        if out.is_empty() && woken_at_b {
            // Woken right after its RenderThread finished: it waited for it.
            if let Some(&rt) = info.pid.and_then(|p| self.t.render_thread.get(&p)).filter(|&&rt| rt != tid) {
                if let Some((rs, re)) = self.render_work_before(rt, b).filter(|&(_, re)| re > a) {
                    out.push((rs.max(a), re.min(b), rt, Hop::RenderThread));
                }
            }
        }
        out
    }

    /// The top-level slice of the RenderThread `rt` that ended within
    /// [`RENDER_HANDOFF_NS`] before `wake`, among its last 4 begun before
    /// it: each found from the one after it through the outermost ancestor
    /// of the slice begun last before that one (two binary searches, not a
    /// scan over the nested slices in between).
    fn render_work_before(&self, rt: i32, wake: i64) -> Option<(i64, i64)> {
        let track = self.t.threads.get(&rt)?.track?;
        let ids = self.trace.track_slices(track);
        let mut k = ids.partition_point(|&i| self.trace.slice(i).ts < wake);
        for _ in 0..4 {
            let top = self.outermost(*ids[..k].last()?);
            let s = self.trace.slice(top);
            if let Some(e) = s.end().filter(|&e| e <= wake && wake - e <= RENDER_HANDOFF_NS) {
                return Some((s.ts, e));
            }
            k = ids.partition_point(|&i| i < top);
        }
        None
    }

    /// The `binder reply` on another thread that overlaps `[a, b)` most and
    /// began after the transaction did; its overlap.
    fn binder_reply(&self, client: i32, txn_ts: i64, a: i64, b: i64) -> Option<(i64, i64, i32)> {
        let lo = self.t.binder_replies.partition_point(|r| r.0 < txn_ts.max(a.saturating_sub(self.t.longest_reply)));
        self.t.binder_replies[lo..]
            .iter()
            .take_while(|r| r.0 < b)
            .filter(|r| r.2 != client && r.0 >= txn_ts)
            .map(|&(s, e, t)| (s.max(a), e.min(b), t))
            .filter(|r| r.1 > r.0)
            .max_by_key(|r| (r.1 - r.0, std::cmp::Reverse(r.0)))
    }

    /// `tid`'s own time `[a, b)` in `state`, split where its deepest open
    /// slice changes.
    #[allow(clippy::too_many_arguments)]
    fn emit<O: PathOut>(&self, w: &mut Walk<O>, tid: i32, a: i64, b: i64, state: PathState, hop: Hop, depth: u8) {
        let runs = self.slice_runs(tid, a, b);
        self.emit_runs(w, tid, &runs, &mut 0, (a, b), (state, hop, depth));
    }

    /// `[a, b)` of `tid` in `state`, from `runs` (the thread's slice runs
    /// over a window holding it, from `*cursor` on; the cursor moves to the
    /// first run `[a, b)` did not finish, so that consecutive intervals walk
    /// the runs once).
    fn emit_runs<O: PathOut>(
        &self,
        w: &mut Walk<O>,
        tid: i32,
        runs: &[SliceRun],
        cursor: &mut usize,
        (a, b): (i64, i64),
        (state, hop, depth): (PathState, Hop, u8),
    ) {
        while runs.get(*cursor).is_some_and(|r| r.1 <= a) {
            *cursor += 1;
        }
        for &(x, y, slice_id) in runs[*cursor..].iter().take_while(|r| r.0 < b) {
            let (x, y) = (x.max(a), y.min(b));
            if y > x {
                w.out.add(self, Span { ts: x, dur: y - x, tid, slice_id, state, hop, depth });
            }
        }
    }

    /// `tid`'s deepest open slice over `[a, b)`: consecutive runs covering it.
    fn slice_runs(&self, tid: i32, a: i64, b: i64) -> Vec<SliceRun> {
        let mut out: Vec<SliceRun> = Vec::new();
        let mut push = |x: i64, y: i64, slice: Option<SliceId>| {
            if y > x {
                out.push((x, y, slice));
            }
        };
        let Some(track) = self.t.threads.get(&tid).and_then(|i| i.track) else {
            push(a, b, None);
            return out;
        };
        let trace = self.trace;
        let end_of = |id: SliceId| trace.slice(id).end().unwrap_or(i64::MAX);
        let mut stack = self.trace.open_at(track, a);
        let ids = trace.track_slices(track);
        let first = ids.partition_point(|&i| trace.slice(i).ts <= a);
        let mut at = a;
        for &id in &ids[first..] {
            let s = trace.slice(id);
            if s.ts >= b {
                break;
            }
            while let Some(&top) = stack.last().filter(|&&top| end_of(top) <= s.ts) {
                push(at, end_of(top), Some(top));
                at = at.max(end_of(top));
                stack.pop();
            }
            push(at, s.ts, stack.last().copied());
            at = at.max(s.ts);
            stack.push(id);
        }
        while let Some(&top) = stack.last().filter(|&&top| end_of(top) < b) {
            push(at, end_of(top), Some(top));
            at = at.max(end_of(top));
            stack.pop();
        }
        push(at, b, stack.last().copied());
        out
    }
}

/// `[start, end)` of a thread's time and the deepest slice open over it.
type SliceRun = (i64, i64, Option<SliceId>);

impl PathIndex<'_> {
    /// The path in one line, from the frame's thread to what it waited on
    /// (docs/frames.md, "Critical path"): e.g. `e.perfetto.dbui sleeping
    /// 327.3 ms in traversal ← RenderThread DrawFrames 191623 327.3 ms
    /// (flush commands 82.1 ms, shader_compile 78.3 ms)`. Each link after
    /// the first is the thread holding the most path time one hand-off
    /// further, its outermost slice and that time, and the slices inside it
    /// that took most of it.
    /// A path over a hole in the capture starts with the time it has no
    /// data for (`no data 520.0 ms (a hole in the capture)`); the rest of
    /// the chain is the path without it, so no waker is named across it.
    pub fn chain(&self, path: &[PathSegment]) -> String {
        let hole: i64 = path.iter().filter(|s| s.state == PathState::NoData).map(|s| s.dur).sum();
        if hole == 0 {
            return self.chain_of(path);
        }
        let rest: Vec<PathSegment> = path.iter().filter(|s| s.state != PathState::NoData).cloned().collect();
        let mut out = format!("no data {} (a hole in the capture)", ms(hole));
        let rest = self.chain_of(&rest);
        if !rest.is_empty() {
            out.push_str("; ");
            out.push_str(&rest);
        }
        out
    }

    /// [`Self::chain`] of a path with data throughout.
    fn chain_of(&self, path: &[PathSegment]) -> String {
        let Some(first) = path.iter().find(|s| s.depth == 0) else { return String::new() };
        let cost: i64 = path.iter().map(|s| s.dur).sum();
        let name = |s: &PathSegment| {
            let thread = s.thread.as_deref().map_or_else(|| format!("thread {}", s.tid), str::to_string);
            // Another process's thread says whose it is.
            match s.pid.filter(|&p| Some(p) != first.pid) {
                Some(pid) => {
                    let process = self.trace.processes.iter().find(|p| p.pid == pid).and_then(|p| p.name.as_deref());
                    format!("{thread} of {}", process.map_or_else(|| format!("pid {pid}"), str::to_string))
                }
                None => thread,
            }
        };
        // Per depth, the (thread, outermost slice) holding the most time:
        // its own segments and those it handed on (the deeper ones after it).
        let mut picks: Vec<(Key, i64, usize)> = Vec::new();
        for depth in 1..=MAX_DEPTH {
            let mut by: HashMap<Key, (i64, usize)> = HashMap::default();
            let mut owner: Option<Key> = None;
            // Only inside the previous pick: the chain follows one line.
            let held = picks.last().map(|p| self.held_by(path, depth - 1, p.0));
            for (k, s) in path.iter().enumerate() {
                if s.depth < depth || held.as_ref().is_some_and(|h| !h[k]) {
                    owner = None;
                    continue;
                }
                if s.depth == depth {
                    owner = Some((s.tid, s.slice_id.map(|id| self.outermost(id))));
                }
                if let Some(o) = owner {
                    by.entry(o).or_insert((0, k)).0 += s.dur;
                }
            }
            let Some((key, (time, at))) = by.into_iter().max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1)))
            else {
                break;
            };
            // A wait too short to explain the frame is not followed.
            if time < MIN_HANDOFF_NS.max(cost / 10) {
                break;
            }
            picks.push((key, time, at));
        }
        let mut links = Vec::new();
        match picks.first() {
            Some(&(_, time, at)) => {
                let waiting = path[..at].iter().rev().find(|s| s.depth == 0);
                let slice =
                    waiting.and_then(|s| s.slice.as_deref()).map(|n| format!(" in {}", short(n))).unwrap_or_default();
                links.push(format!("{} waited {}{slice}", name(first), ms(time)));
            }
            None => {
                let by_state = |st: PathState| path.iter().filter(|s| s.state == st).map(|s| s.dur).sum::<i64>();
                let mut parts: Vec<String> =
                    [PathState::Running, PathState::Runnable, PathState::Sleeping, PathState::Blocked]
                        .into_iter()
                        .filter_map(|st| {
                            Some(format!("{} {}", st.as_str(), ms(Some(by_state(st)).filter(|&d| d >= MIN_LISTED_NS)?)))
                        })
                        .collect();
                if let Some(d) = Some(by_state(PathState::Unknown)).filter(|&d| d >= MIN_LISTED_NS) {
                    parts.push(format!("{} without scheduler data", ms(d)));
                }
                let inside = self.inside(path, 0, None).map(|x| format!(" ({x})")).unwrap_or_default();
                links.push(format!("{} {}{inside}", name(first), parts.join(", ")));
            }
        }
        let mut named: Vec<String> = vec![name(first)];
        for (depth, &((tid, outer), time, at)) in (1u8..).zip(&picks) {
            let outer_name = outer.map(|o| format!(" {}", short(&self.trace.slice(o).name))).unwrap_or_default();
            // A second thread of the same name (a process's two RenderThreads) says which it is.
            let mut who = name(&path[at]);
            if named.contains(&who) {
                who = format!("{who} tid {tid}");
            }
            named.push(who.clone());
            let key = picks[depth as usize - 1].0;
            // Its own sleep nobody is named for, when it is a good part of it.
            let held = self.held_by(path, depth, key);
            let asleep: i64 = path
                .iter()
                .zip(&held)
                .filter(|(s, &h)| h && s.depth == depth && matches!(s.state, PathState::Sleeping | PathState::Blocked))
                .map(|(s, _)| s.dur)
                .sum();
            let mut about: Vec<String> = Vec::new();
            if asleep >= MIN_HANDOFF_NS.max(time / 10) {
                about.push(format!("asleep {}", ms(asleep)));
            }
            about.extend(self.inside(path, depth, Some(key)));
            let about = if about.is_empty() { String::new() } else { format!(" ({})", about.join("; ")) };
            links.push(format!("{who}{outer_name} {}{about}", ms(time)));
        }
        links.join(" ← ")
    }

    /// Which segments lie in the time `key` (at `depth` ≥ 1) holds: its
    /// own segments and the deeper ones that follow them.
    fn held_by(&self, path: &[PathSegment], depth: u8, key: Key) -> Vec<bool> {
        let mut holding = false;
        path.iter()
            .map(|s| {
                if s.depth <= depth {
                    holding = s.depth == depth && (s.tid, s.slice_id.map(|id| self.outermost(id))) == key;
                }
                holding
            })
            .collect()
    }

    /// The outermost slice around `id` on its thread.
    fn outermost(&self, mut id: SliceId) -> SliceId {
        while let Some(p) = self.trace.slice(id).parent {
            id = p;
        }
        id
    }

    /// The slices that took most of the time of the segments at `depth`
    /// held by `key` (all of them without one): each slice's total over the
    /// segments inside it, by name; outermost slices and wrappers (a slice
    /// one child of which holds [`WRAPPER_SHARE`] of its time) left out.
    fn inside(&self, path: &[PathSegment], depth: u8, key: Option<Key>) -> Option<String> {
        let mut time: HashMap<SliceId, i64> = HashMap::default();
        for s in path.iter().filter(|s| s.depth == depth) {
            if key.is_some_and(|k| (s.tid, s.slice_id.map(|id| self.outermost(id))) != k) {
                continue;
            }
            let mut cur = s.slice_id;
            while let Some(id) = cur {
                *time.entry(id).or_default() += s.dur;
                cur = self.trace.slice(id).parent;
            }
        }
        let mut biggest_child: HashMap<SliceId, i64> = HashMap::default();
        for (&id, &t) in &time {
            if let Some(p) = self.trace.slice(id).parent {
                let c = biggest_child.entry(p).or_default();
                *c = (*c).max(t);
            }
        }
        let mut by: HashMap<&str, i64> = HashMap::default();
        for (&id, &t) in &time {
            let sl = self.trace.slice(id);
            let wrapper = biggest_child.get(&id).is_some_and(|&c| c as f64 >= WRAPPER_SHARE * t as f64);
            if sl.parent.is_some() && !wrapper {
                *by.entry(&sl.name).or_default() += t;
            }
        }
        let mut top: Vec<(&str, i64)> = by.into_iter().filter(|&(_, d)| d >= MIN_LISTED_NS).collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let listed: Vec<String> =
            top.iter().take(CHAIN_INSIDE).map(|(n, d)| format!("{} {}", short(n), ms(*d))).collect();
        (!listed.is_empty()).then(|| listed.join(", "))
    }
}

/// A thread and the outermost slice it was in.
type Key = (i32, Option<SliceId>);

/// Slice names in the chain stop at this many characters.
const CHAIN_NAME_CHARS: usize = 40;

fn short(name: &str) -> String {
    match name.char_indices().nth(CHAIN_NAME_CHARS) {
        Some((i, _)) => format!("{}…", &name[..i]),
        None => name.to_string(),
    }
}

/// ns as ms with one decimal.
fn ms(ns: i64) -> String {
    format!("{:.1} ms", ns as f64 / 1e6)
}

/// The state of one walk: the segments so far and the threads being walked
/// (a thread already on the stack is not entered again).
struct Walk<'o, O> {
    out: &'o mut O,
    stack: &'o mut Vec<i32>,
}

/// One interval of a thread's time as a walk finds it.
#[derive(Debug, Clone, Copy)]
struct Span {
    ts: i64,
    dur: i64,
    tid: i32,
    slice_id: Option<SliceId>,
    state: PathState,
    hop: Hop,
    depth: u8,
}

/// Where a walk puts the time it attributes.
trait PathOut {
    fn add(&mut self, ix: &PathIndex, s: Span);
}

/// The whole path: a segment per span, consecutive spans of the same
/// (thread, slice, state, hop, depth) joined.
impl PathOut for Vec<PathSegment> {
    fn add(&mut self, ix: &PathIndex, s: Span) {
        if let Some(last) = self.last_mut() {
            if last.ts + last.dur == s.ts
                && (last.tid, last.state, last.hop, last.depth) == (s.tid, s.state, s.hop, s.depth)
                && last.slice_id == s.slice_id
            {
                last.dur += s.dur;
                return;
            }
        }
        let info = ix.t.threads.get(&s.tid);
        self.push(PathSegment {
            ts: s.ts,
            dur: s.dur,
            tid: s.tid,
            pid: info.and_then(|i| i.pid),
            thread: info.and_then(|i| i.name.clone()),
            slice: s.slice_id.map(|id| ix.trace.slice(id).name.clone()),
            slice_id: s.slice_id,
            state: s.state,
            hop: s.hop,
            depth: s.depth,
        });
    }
}

/// A path's time per (thread, slice id), holes in the capture left out
/// (no one is blamed for them): [`totals`] before the slices are named.
#[derive(Debug, Default)]
struct Totals {
    /// (tid, its thread's name, slice, time), in order of first appearance.
    by: Vec<(i32, Option<Name>, Option<SliceId>, i64)>,
    /// Where each (tid, slice) is in `by`.
    at: HashMap<(i32, Option<SliceId>), usize>,
}

impl Totals {
    fn add(
        &mut self,
        tid: i32,
        thread: impl FnOnce() -> Option<Name>,
        slice_id: Option<SliceId>,
        state: PathState,
        dur: i64,
    ) {
        if state == PathState::NoData {
            return;
        }
        // Most spans continue the (thread, slice) of the one before.
        if let Some(last) = self.by.last_mut().filter(|l| (l.0, l.2) == (tid, slice_id)) {
            last.3 += dur;
            return;
        }
        let k = *self.at.entry((tid, slice_id)).or_insert_with(|| {
            self.by.push((tid, thread(), slice_id, 0));
            self.by.len() - 1
        });
        self.by[k].3 += dur;
    }

    /// Per (thread, slice name), most first (ties: lower tid, then slice
    /// name, no slice first).
    fn finish(self, trace: &Trace) -> Vec<PathTotal> {
        let mut by: HashMap<(i32, Option<&str>), usize> = HashMap::default();
        let mut out: Vec<PathTotal> = Vec::new();
        for (tid, thread, slice_id, ns) in self.by {
            let slice = slice_id.map(|id| &trace.slice(id).name);
            match by.entry((tid, slice.map(|n| &**n))) {
                std::collections::hash_map::Entry::Occupied(e) => out[*e.get()].ns += ns,
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(out.len());
                    out.push(PathTotal { tid, thread, slice: slice.cloned(), ns });
                }
            }
        }
        out.sort_by(|a, b| b.ns.cmp(&a.ns).then(a.tid.cmp(&b.tid)).then(a.slice.as_deref().cmp(&b.slice.as_deref())));
        out
    }
}

impl PathOut for Totals {
    fn add(&mut self, ix: &PathIndex, s: Span) {
        let thread = || ix.t.threads.get(&s.tid).and_then(|i| i.name.clone());
        Totals::add(self, s.tid, thread, s.slice_id, s.state, s.dur);
    }
}

/// The owner's tid in ART's monitor contention slices: `Lock contention on
/// a monitor lock (owner tid: 1234)` and `monitor contention with owner
/// NAME (1234) …`.
pub fn lock_owner(name: &str) -> Option<i32> {
    let digits = |s: &str| -> Option<i32> {
        let d: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
        d.parse().ok()
    };
    if let Some(i) = name.find("(owner tid: ") {
        return digits(&name[i + "(owner tid: ".len()..]);
    }
    let rest = name.strip_prefix("monitor contention with owner ")?;
    let open = rest.find(" (")?;
    digits(&rest[open + 2..])
}

/// ART's slices for waiting on a running GC.
fn is_gc_wait(name: &str) -> bool {
    name.starts_with("WaitForGcToComplete") || name.contains("Wait For Completion") || name == "GC: Wait For Completion"
}

/// Each (thread, slice) on `path` with its time there, most first (ties:
/// lower tid, then slice name, no slice first): the first is the frame's top
/// blocker. They add up to the path's time but for its holes in the capture
/// (no one is blamed for those); `compare` sums them per run
/// (docs/compare.md, "Blockers").
pub fn totals(path: &[PathSegment], trace: &Trace) -> Vec<PathTotal> {
    let mut t = Totals::default();
    for s in path {
        t.add(s.tid, || s.thread.clone(), s.slice_id, s.state, s.dur);
    }
    t.finish(trace)
}
