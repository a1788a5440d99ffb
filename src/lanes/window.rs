//! One frame's window and its lanes, looked up in indexes built once per
//! analysis: each thread's slice tracks, the threads by (pid, tid),
//! SurfaceFlinger's main thread, the `VSYNC-app` ticks and each layer's presents.

use foldhash::HashMap;

use super::{FrameLanes, Lane, LaneKind, Present, Strings, MIN_SLICE_SHARE};
use crate::frames::critical_path::{Hop, PathSegment, PathState};
use crate::frames::{CounterIndex, FrameAnalysis, FrameRow, State, DRAW_FRAME};
use crate::input::InputAnalysis;
use crate::model::{Slice, Trace, TrackId, TrackKind, Utid};
use crate::presents::PresentAnalysis;

/// A window never spans more than this (a frame of a hand-made or hostile
/// trace can claim any length).
const MAX_WINDOW_NS: i64 = 30_000_000_000;
/// The most vsync ticks a window shows.
const MAX_TICKS: usize = 4096;

/// The indexes every frame's window is looked up in.
pub(crate) struct Context<'a> {
    trace: &'a Trace,
    frames: &'a FrameAnalysis,
    presents: &'a PresentAnalysis,
    /// Each thread's slice tracks.
    tracks_of: HashMap<Utid, Vec<TrackId>>,
    /// Threads by (pid, tid); the pid is the tid's own for a thread without process.
    by_pid_tid: HashMap<(i32, i32), Vec<Utid>>,
    /// Threads by tid, for a critical-path thread whose pid is not known.
    by_tid: HashMap<i32, Vec<Utid>>,
    /// Each process's threads, by pid.
    of_pid: HashMap<i32, Vec<Utid>>,
    /// SurfaceFlinger's main thread (tid = pid).
    sf_main: Option<Utid>,
    /// Every `VSYNC-app` tick, sorted.
    vsync_app: Vec<i64>,
    /// Each layer's rows in `presents.rows` (ordered by pid, layer, ts), by (pid, layer).
    layers: HashMap<(i32, &'a str), std::ops::Range<usize>>,
    /// Each app's layer with the most presents, for a frame FrameTimeline names none for.
    busiest: HashMap<i32, &'a str>,
    /// Each app's input events (each dispatch once) by read, and the longest of them.
    input: HashMap<i32, (Vec<InputSpan<'a>>, i64)>,
}

/// An input event as its lane draws it: from its read (its dispatch
/// without one) to its present (its FINISHED without one).
struct InputSpan<'a> {
    from: i64,
    to: i64,
    presented: bool,
    action: Option<&'a str>,
}

impl<'a> Context<'a> {
    pub(crate) fn new(
        trace: &'a Trace,
        frames: &'a FrameAnalysis,
        presents: &'a PresentAnalysis,
        input: &'a InputAnalysis,
    ) -> Context<'a> {
        let mut tracks_of: HashMap<Utid, Vec<TrackId>> = HashMap::default();
        for t in &trace.tracks {
            if let TrackKind::Thread { utid } = t.kind {
                tracks_of.entry(utid).or_default().push(t.id);
            }
        }
        let mut by_pid_tid: HashMap<(i32, i32), Vec<Utid>> = HashMap::default();
        let mut by_tid: HashMap<i32, Vec<Utid>> = HashMap::default();
        let mut of_pid: HashMap<i32, Vec<Utid>> = HashMap::default();
        for th in &trace.threads {
            let pid = th.upid.map_or(th.tid, |u| trace.process(u).pid);
            by_pid_tid.entry((pid, th.tid)).or_default().push(th.utid);
            by_tid.entry(th.tid).or_default().push(th.utid);
            of_pid.entry(pid).or_default().push(th.utid);
        }
        let sf_main = trace
            .processes
            .iter()
            .filter(|p| p.name.as_deref().is_some_and(|n| n.ends_with("surfaceflinger")))
            .find_map(|p| by_pid_tid.get(&(p.pid, p.pid)).and_then(|v| v.last().copied()));
        let mut layers: HashMap<(i32, &str), std::ops::Range<usize>> = HashMap::default();
        let rows = &presents.rows;
        let mut i = 0;
        while i < rows.len() {
            let key = (rows[i].pid, rows[i].layer.as_str());
            let n = rows[i..].iter().take_while(|r| (r.pid, r.layer.as_str()) == key).count();
            if let Some(pid) = key.0 {
                layers.insert((pid, key.1), i..i + n);
            }
            i += n;
        }
        let mut busiest: HashMap<i32, (&str, i64)> = HashMap::default();
        for l in &presents.layers {
            let Some(pid) = l.pid else { continue };
            let b = busiest.entry(pid).or_insert((l.layer.as_str(), l.presents));
            if l.presents > b.1 {
                *b = (l.layer.as_str(), l.presents);
            }
        }
        let mut spans: HashMap<i32, (Vec<InputSpan>, i64)> = HashMap::default();
        for e in crate::input::events::once_per_dispatch(&input.events) {
            let from = e.first_ts();
            let present = e.present_ts();
            let to = present.unwrap_or(e.receive_ts + e.handling_latency_dur).max(from);
            let entry = spans.entry(e.pid).or_default();
            entry.0.push(InputSpan { from, to, presented: present.is_some(), action: e.action.as_deref() });
            entry.1 = entry.1.max(to - from);
        }
        for (v, _) in spans.values_mut() {
            v.sort_by_key(|s| (s.from, s.to));
        }
        Context {
            input: spans,
            trace,
            frames,
            presents,
            tracks_of,
            by_pid_tid,
            by_tid,
            of_pid,
            sf_main,
            vsync_app: CounterIndex::new(trace).vsync_app,
            layers,
            busiest: busiest.into_iter().map(|(pid, (l, _))| (pid, l)).collect(),
        }
    }

    /// Frame `k`'s window and lanes; None when the frames table has no row `k`.
    pub(crate) fn frame(&self, k: usize, tier: u8, strings: &mut Strings) -> Option<FrameLanes> {
        let r = self.frames.rows.get(k)?;
        let (win, path) = Window::of_frame(self.frames, k)?;
        let us = |t: i64| win.us(t);
        let span = |a: i64, b: i64| [us(a), us(b) - us(a)];
        let do_frame_end = r.ts.saturating_add(r.do_frame_dur.max(0));
        let draw = r.draw_frame_ts.map(|t| (t, t.saturating_add(r.draw_frame_dur.unwrap_or(0).max(0))));

        let main = self.thread(r.pid, r.tid, |u| self.starts_at(u, r.ts, |_| true));
        let render = draw.and_then(|(t, _)| {
            self.of_pid
                .get(&r.pid)?
                .iter()
                .copied()
                .find(|&u| Some(u) != main && self.starts_at(u, t, |s| s.name.starts_with(DRAW_FRAME)))
        });
        let render = render.or_else(|| self.named(r.pid, "RenderThread"));
        let mut lanes: Vec<Lane> = Vec::new();
        let own = Some((r.ts, do_frame_end));
        lanes.extend(self.lane(
            &win,
            LaneKind::Main,
            main,
            r.tid,
            Some(r.pid),
            r.thread.as_deref(),
            own,
            path,
            strings,
        ));
        if let Some(u) = render {
            let tid = self.trace.thread(u).tid;
            lanes.extend(self.lane(&win, LaneKind::RenderThread, Some(u), tid, Some(r.pid), None, draw, path, strings));
        }
        for seg in path {
            if lanes.iter().any(|l| l.tid == seg.tid) {
                continue;
            }
            let utid = match seg.pid {
                Some(pid) => self.thread(pid, seg.tid, |_| true),
                None => self.by_tid.get(&seg.tid).and_then(|v| v.last().copied()),
            };
            let pid =
                seg.pid.or_else(|| utid.and_then(|u| self.trace.thread(u).upid).map(|u| self.trace.process(u).pid));
            let name = seg.thread.as_deref();
            lanes.extend(self.lane(&win, LaneKind::Path, utid, seg.tid, pid, name, None, path, strings));
        }
        if let Some(u) = self.sf_main {
            let tid = self.trace.thread(u).tid;
            if !lanes.iter().any(|l| l.tid == tid) {
                let sf = self.lane(&win, LaneKind::SurfaceFlinger, Some(u), tid, Some(tid), None, None, path, strings);
                // Without atrace's gfx category SurfaceFlinger has no slices: no lane then.
                lanes.extend(sf.filter(|l| !l.slices.is_empty() || !l.states.is_empty()));
            }
        }

        let layer = r
            .layer_name
            .as_deref()
            .filter(|l| self.layers.contains_key(&(r.pid, *l)))
            .or_else(|| self.busiest.get(&r.pid).copied());
        let presents = layer
            .and_then(|l| self.layers.get(&(r.pid, l)))
            .map(|range| {
                let rows = &self.presents.rows[range.clone()];
                let lo = rows.partition_point(|p| p.ts < win.t0);
                let hi = rows.partition_point(|p| p.ts <= win.t1);
                rows[lo..hi.max(lo)].iter().map(|p| Present { at: us(p.ts), frame_id: p.frame_id }).collect()
            })
            .unwrap_or_default();
        let (ticks, ticks_from) = self.ticks(&win, r);
        let app = r.process.as_deref().map_or_else(|| format!("pid {}", r.pid), str::to_string);
        Some(FrameLanes {
            frame_index: k,
            pid: r.pid,
            app: strings.id(&app),
            frame_id: r.frame_id,
            tier,
            dropped_frames: r.dropped_frames,
            drop_level: r.drop_level,
            frame_cost_ns: r.frame_cost_ns,
            frame_interval_ns: r.frame_interval_ns,
            t0_ns: win.t0,
            len: us(win.t1),
            vsync: r.vsync_ts.map(us),
            do_frame: span(r.ts, do_frame_end),
            draw: draw.map(|(a, b)| span(a, b)),
            expected: r.expected_ts.zip(r.expected_end).map(|(a, b)| span(a, b)),
            actual: r.actual_ts.zip(r.actual_end).map(|(a, b)| span(a, b)),
            ticks: deltas(ticks.into_iter().map(us)),
            ticks_from,
            lanes,
            layer: layer.map(|l| strings.id(l)),
            presents,
            input: self.input_of(r.pid, &win, strings),
            path: path_of(&win, path, strings),
        })
    }

    /// App `pid`'s input events that overlap the window ([`FrameLanes::input`]).
    fn input_of(&self, pid: i32, win: &Window, strings: &mut Strings) -> Vec<i64> {
        let Some((spans, longest)) = self.input.get(&pid) else { return Vec::new() };
        // Those that overlap start before the window ends, and no earlier than the longest before it.
        let lo = spans.partition_point(|s| s.from < win.t0.saturating_sub(*longest));
        let hi = spans.partition_point(|s| s.from <= win.t1);
        let mut out = Vec::new();
        let mut prev = 0;
        for s in spans[lo..hi.max(lo)].iter().filter(|s| s.to >= win.t0) {
            let at = win.us(s.from);
            let action = s.action.map_or(-1, |a| i64::from(strings.id(a)));
            out.extend([at - prev, win.us(s.to) - at, action, i64::from(s.presented)]);
            prev = at;
        }
        out
    }

    /// The thread (pid, tid) for which `pick` holds, else the last one with
    /// those ids (a tid reused by several threads).
    fn thread(&self, pid: i32, tid: i32, pick: impl Fn(Utid) -> bool) -> Option<Utid> {
        let v = self.by_pid_tid.get(&(pid, tid))?;
        v.iter().copied().find(|&u| pick(u)).or_else(|| v.last().copied())
    }

    /// The first thread of process `pid` named `name`.
    fn named(&self, pid: i32, name: &str) -> Option<Utid> {
        self.of_pid.get(&pid)?.iter().copied().find(|&u| self.trace.thread(u).name.as_deref() == Some(name))
    }

    /// Whether a slice of thread `utid` for which `what` holds starts at `ts`.
    fn starts_at(&self, utid: Utid, ts: i64, what: impl Fn(&Slice) -> bool) -> bool {
        self.tracks_of.get(&utid).into_iter().flatten().any(|&t| {
            let ids = self.trace.track_slices(t);
            let from = ids.partition_point(|&i| self.trace.slice(i).ts < ts);
            ids[from..].iter().map(|&i| self.trace.slice(i)).take_while(|s| s.ts == ts).any(&what)
        })
    }

    /// One thread's lane: its slices in the window (those shorter than
    /// the window's [`MIN_SLICE_SHARE`]th left out, unless inside `own`,
    /// the frame's own span on this thread, or on the critical path) and
    /// its scheduler states where the analysis has them.
    #[allow(clippy::too_many_arguments)]
    fn lane(
        &self,
        win: &Window,
        kind: LaneKind,
        utid: Option<Utid>,
        tid: i32,
        pid: Option<i32>,
        name: Option<&str>,
        own: Option<(i64, i64)>,
        path: &[PathSegment],
        strings: &mut Strings,
    ) -> Option<Lane> {
        let thread_name = utid.and_then(|u| self.trace.thread(u).name.as_deref()).or(name);
        let min = (win.t1 - win.t0) / MIN_SLICE_SHARE;
        // This thread's path segments by slice name, in the path's time order
        // (they do not overlap): a slice is on the path when one of its name
        // overlaps it, found by a binary search, not a scan of the path.
        let mut on_thread: HashMap<&str, Vec<(i64, i64)>> = HashMap::default();
        for p in path.iter().filter(|p| p.tid == tid) {
            if let Some(n) = p.slice.as_deref() {
                on_thread.entry(n).or_default().push((p.ts, p.ts.saturating_add(p.dur)));
            }
        }
        let on_path = |s: &Slice, end: i64| {
            on_thread.get(&*s.name).is_some_and(|v| {
                let k = v.partition_point(|&(_, e)| e <= s.ts);
                v.get(k).is_some_and(|&(t, _)| t < end)
            })
        };
        let mut found: Vec<&Slice> = Vec::new();
        let mut dropped = 0u32;
        for &t in utid.and_then(|u| self.tracks_of.get(&u)).into_iter().flatten() {
            for s in self.slices_in(t, win.t0, win.t1) {
                let end = s.end().unwrap_or(win.t1);
                let visible = end.min(win.t1) - s.ts.max(win.t0);
                let mine = own.is_some_and(|(a, b)| s.ts >= a && end <= b);
                if visible >= min || mine || on_path(s, end) {
                    found.push(s);
                } else {
                    dropped += 1;
                }
            }
        }
        found.sort_by_key(|s| (s.ts, s.depth));
        let mut slices = Vec::with_capacity(found.len() * 4);
        let mut prev = 0;
        for s in found {
            let (a, b) = (win.us(s.ts.max(win.t0)), win.us(s.end().unwrap_or(win.t1).min(win.t1)));
            slices.extend([a - prev, b - a, s.depth as i64, strings.id(&s.name) as i64]);
            prev = a;
        }
        let sched = &self.frames.sched;
        let states = if sched.knows(tid) {
            states_of(win, &sched.states(tid, win.t0, win.t1).collect::<Vec<_>>())
        } else {
            Vec::new()
        };
        if utid.is_none() && states.is_empty() && name.is_none() {
            return None;
        }
        Some(Lane { kind, name: thread_name.map_or(-1, |n| strings.id(n) as i64), tid, pid, slices, states, dropped })
    }

    /// The slices of `track` that overlap `[from, to]`, in start order: those
    /// begun before `from` and still open at it ([`Trace::open_at`]), then
    /// those starting inside.
    fn slices_in(&self, track: TrackId, from: i64, to: i64) -> Vec<&'a Slice> {
        let trace = self.trace;
        let ids = trace.track_slices(track);
        let lo = ids.partition_point(|&i| trace.slice(i).ts < from);
        let hi = ids.partition_point(|&i| trace.slice(i).ts <= to).max(lo);
        let mut open: Vec<&Slice> =
            trace.open_at(track, from).into_iter().map(|i| trace.slice(i)).filter(|s| s.ts < from).collect();
        open.extend(ids[lo..hi].iter().map(|&i| trace.slice(i)));
        open
    }

    /// The vsync ticks in the window: SurfaceFlinger's `VSYNC-app` counter
    /// where it ticked at least twice there, else the grid of the frame's
    /// vsync (its start without one) and the display's period.
    fn ticks(&self, win: &Window, r: &FrameRow) -> (Vec<i64>, &'static str) {
        let lo = self.vsync_app.partition_point(|&t| t < win.t0);
        let hi = self.vsync_app.partition_point(|&t| t <= win.t1).max(lo);
        if hi - lo >= 2 {
            return (self.vsync_app[lo..hi].iter().copied().take(MAX_TICKS).collect(), "vsync_app");
        }
        let anchor = r.vsync_ts.unwrap_or(r.ts);
        let period = self.frames.display.period_at(anchor, r.frame_interval_ns);
        if period <= 0 {
            return (Vec::new(), "grid");
        }
        let first = anchor - (anchor - win.t0).div_euclid(period) * period;
        let ticks = (0..MAX_TICKS as i64).map(|k| first + k * period).take_while(|&t| t <= win.t1).collect();
        (ticks, "grid")
    }
}

/// A frame's window of trace time.
pub(crate) struct Window {
    pub t0: i64,
    pub t1: i64,
}

impl Window {
    /// Frame `k`'s window, with the critical path it was widened by (none
    /// for a frame that was not janky); None when the frames table has no row `k`.
    pub(crate) fn of_frame(frames: &FrameAnalysis, k: usize) -> Option<(Window, &[PathSegment])> {
        let r = frames.rows.get(k)?;
        let why = frames.why.binary_search_by_key(&k, |w| w.frame_index).ok().map(|i| &frames.why[i]);
        let path: &[PathSegment] = why.map_or(&[], |w| &w.critical_path);
        Some((Window::of(r, path), path))
    }

    /// From one frame interval before the frame's vsync (its doFrame start
    /// if earlier, or its critical path's start) to one interval after the
    /// last of its doFrame, RenderThread work, present and critical path.
    fn of(r: &FrameRow, path: &[PathSegment]) -> Window {
        let draw_end = r.draw_frame_ts.map(|t| t.saturating_add(r.draw_frame_dur.unwrap_or(0).max(0)));
        let path_end = path.iter().map(|p| p.ts.saturating_add(p.dur.max(0))).max();
        let start =
            [Some(r.ts), r.vsync_ts, path.iter().map(|p| p.ts).min()].into_iter().flatten().min().unwrap_or(r.ts);
        let end = [Some(r.ts.saturating_add(r.do_frame_dur.max(0))), draw_end, r.actual_end, path_end]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(r.ts);
        let margin = r.frame_interval_ns.clamp(1_000_000, 1_000_000_000);
        let t0 = start.saturating_sub(margin);
        let t1 = end.saturating_add(margin).clamp(t0, t0.saturating_add(MAX_WINDOW_NS));
        Window { t0, t1 }
    }

    /// `t` in µs from the window start, rounded to the nearest.
    pub(crate) fn us(&self, t: i64) -> i64 {
        (t.saturating_sub(self.t0).saturating_add(500)).div_euclid(1000)
    }
}

/// Each value as its distance from the one before (the first as it is).
fn deltas(v: impl Iterator<Item = i64>) -> Vec<i64> {
    let mut prev = 0;
    v.map(|x| {
        let d = x - prev;
        prev = x;
        d
    })
    .collect()
}

/// Index of a scheduler state in [`super::STATES`].
fn state_index(s: State) -> i64 {
    match s {
        State::Running => 0,
        State::Runnable => 1,
        State::Sleeping => 2,
        State::Blocked => 3,
    }
}

fn path_state_index(s: PathState) -> i64 {
    match s {
        PathState::Running => 0,
        PathState::Runnable => 1,
        PathState::Sleeping => 2,
        PathState::Blocked => 3,
        PathState::Unknown => 4,
        PathState::NoData => 5,
    }
}

/// Index of a hop in [`super::HOPS`].
fn hop_index(h: Hop) -> i64 {
    match h {
        Hop::Frame => 0,
        Hop::Waker => 1,
        Hop::RenderThread => 2,
        Hop::Binder => 3,
        Hop::Lock => 4,
        Hop::Gc => 5,
    }
}

/// `(start, end, state)` runs (contiguous, as `SchedIndex::states` gives
/// them) as the first start then (state, duration) pairs, in µs: runs
/// shorter than half a µs vanish and equal neighbours merge.
fn states_of(win: &Window, runs: &[(i64, i64, State)]) -> Vec<i64> {
    let Some(first) = runs.first() else { return Vec::new() };
    let mut out = vec![win.us(first.0)];
    for &(a, b, st) in runs {
        let (a, b) = (win.us(a), win.us(b));
        if b <= a {
            continue;
        }
        let st = state_index(st);
        let n = out.len();
        if n >= 3 && out[n - 2] == st {
            out[n - 1] += b - a;
        } else {
            out.extend([st, b - a]);
        }
    }
    out
}

/// The critical path's segments, 7 integers each (see `FrameLanes::path`).
fn path_of(win: &Window, path: &[PathSegment], strings: &mut Strings) -> Vec<i64> {
    let mut out = Vec::with_capacity(path.len() * 7);
    let mut prev = 0;
    for p in path {
        let (a, b) = (win.us(p.ts), win.us(p.ts.saturating_add(p.dur.max(0))));
        let slice = p.slice.as_deref().map_or(-1, |s| strings.id(s) as i64);
        out.extend([a - prev, b - a, p.tid as i64, slice, path_state_index(p.state), hop_index(p.hop), p.depth as i64]);
        prev = a;
    }
    out
}
