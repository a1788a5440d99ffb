//! RenderThread work of a frame: `DrawFrames <id>` slices by vsync id on
//! Android 12+, else the `DrawFrame` slices of the same process that start in
//! [doFrame start, next doFrame start), trace_processor's pre-12 rule
//! (`_frames_maxsdk_28`).

use foldhash::HashMap;

use super::select::{name_id, DRAW_FRAME};
use super::Window;
use crate::model::{SliceId, Trace, TrackKind};

/// The threads that ran a `DrawFrame…` slice, as `(pid, tid)`, each once,
/// in the order of their first such slice; `pid` is the thread's process',
/// its own tid without one (as [`DrawIndex`] keys them).
pub fn render_threads(trace: &Trace) -> Vec<(i32, i32)> {
    let mut tracks: foldhash::HashSet<crate::model::TrackId> = Default::default();
    let mut pairs: foldhash::HashSet<(i32, i32)> = Default::default();
    let mut out = Vec::new();
    for s in trace.slices.iter().filter(|s| s.name.starts_with(DRAW_FRAME)) {
        if !tracks.insert(s.track) {
            continue;
        }
        let Some(th) = trace.track_thread(s.track) else { continue };
        let pair = (th.upid.map_or(th.tid, |u| trace.process(u).pid), th.tid);
        if pairs.insert(pair) {
            out.push(pair);
        }
    }
    out
}

#[derive(Debug, Default)]
pub struct DrawIndex {
    /// (pid, id) -> DrawFrame slices named `DrawFrame…<space><id>`, by ts.
    /// (One slice per id nearly always: stored inline, see `timeline::TimelineRefs`.)
    by_id: HashMap<(i32, i64), smallvec::SmallVec<[SliceId; 1]>>,
    /// pid -> slices named exactly `DrawFrame`, by ts.
    legacy: HashMap<i32, Vec<SliceId>>,
}

/// What a frame drew on the RenderThread.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Draw {
    pub ts: Option<i64>,
    /// Sum of the durations of the finished DrawFrame slices.
    pub dur: Option<i64>,
    pub count: i64,
}

impl DrawIndex {
    pub fn new(trace: &Trace) -> DrawIndex {
        let mut ix = DrawIndex::default();
        for s in &trace.slices {
            if !s.name.starts_with(DRAW_FRAME) {
                continue;
            }
            let TrackKind::Thread { utid } = trace.track(s.track).kind else { continue };
            let th = trace.thread(utid);
            let pid = th.upid.map(|u| trace.process(u).pid).unwrap_or(th.tid);
            if &*s.name == DRAW_FRAME {
                ix.legacy.entry(pid).or_default().push(s.id);
            } else if let Some(id) = name_id(&s.name) {
                ix.by_id.entry((pid, id)).or_default().push(s.id);
            }
        }
        ix
    }

    fn summarize(trace: &Trace, ids: &[SliceId]) -> Draw {
        if ids.is_empty() {
            return Draw::default();
        }
        let mut dur = 0i64;
        let mut finished = false;
        for &id in ids {
            let s = trace.slice(id);
            if s.dur >= 0 {
                dur += s.dur;
                finished = true;
            }
        }
        Draw { ts: ids.iter().map(|&i| trace.slice(i).ts).min(), dur: finished.then_some(dur), count: ids.len() as i64 }
    }

    /// DrawFrames of `(pid, frame id)`.
    /// `DrawFrames <id>` slices of `pid` that start inside `window` (the
    /// whole trace unless the id repeats).
    pub fn by_id(&self, trace: &Trace, pid: i32, id: i64, window: Window) -> Draw {
        let all = self.by_id.get(&(pid, id)).map(|v| v.as_slice()).unwrap_or(&[]);
        Self::summarize(trace, window.of(all, |&i| trace.slice(i).ts))
    }

    /// `DrawFrame` slices of `pid` starting in `[from, until)`.
    pub fn by_time(&self, trace: &Trace, pid: i32, from: i64, until: i64) -> Draw {
        let Some(v) = self.legacy.get(&pid) else { return Draw::default() };
        let lo = v.partition_point(|&i| trace.slice(i).ts < from);
        let hi = v.partition_point(|&i| trace.slice(i).ts < until);
        Self::summarize(trace, &v[lo..hi.max(lo)])
    }
}
