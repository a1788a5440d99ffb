//! The frame timeline's data: for the frames that matter (every janky frame
//! of the analysed apps, worst first, and each app's costliest frames), a
//! window of trace time around the frame with one lane per thread that
//! took part in it — the app's main thread and RenderThread (slices and
//! scheduler states), every other thread on the frame's critical path,
//! SurfaceFlinger's main thread — the app's layer presents, the vsync ticks
//! and the critical path itself (docs/report.md, "Frame timeline").
//!
//! Pure data, built once by the analysis while the trace model is still
//! there (`report.html` is written after the model is freed), in a compact
//! form the page embeds as it is: names through one string table, times in
//! µs from the frame's window start, slices and states as flat integer
//! arrays (see [`Lane`]). The whole stays within a byte budget: frames are
//! added in priority order and those that do not fit are left out and
//! counted.

use foldhash::HashMap;
use serde::Serialize;

use crate::frames::{DropLevel, FrameAnalysis, FrameRow};
use crate::model::Trace;
use crate::presents::PresentAnalysis;

#[cfg(test)]
mod tests;
mod window;

/// The embedded data's budget: with the charts (about 1–3 MB) the page stays
/// well under the 10 MB many ticket systems cap attachments at.
pub const DEFAULT_BUDGET_BYTES: usize = 3 << 20;

/// A slice whose visible part is shorter than its window's length divided
/// by this (half a pixel of a 1000 px wide view of the whole window) is left
/// out, unless it is the frame's own or on its critical path: at the zoom
/// the page opens with it would not be seen.
pub const MIN_SLICE_SHARE: i64 = 2000;

/// After this many frames in a row did not fit the budget, the rest are not
/// tried (each costs a window's worth of work).
const MAX_MISSES: usize = 16;

/// Scheduler states, by their index in the lanes' `states` and the critical
/// path's `state` ([`Lanes::states`]).
pub const STATES: [&str; 6] = ["running", "runnable", "sleeping", "blocked", "unknown", "no_data"];

/// How the critical path reached a thread, by index ([`Lanes::hops`]).
pub const HOPS: [&str; 6] = ["frame", "waker", "render_thread", "binder", "lock", "gc"];

/// Every frame's lanes, and what was left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Lanes {
    /// Every name the frames use (apps, threads, slices), once: lanes and
    /// slices hold indices into it.
    pub strings: Vec<String>,
    /// [`STATES`]: the names of the state indices.
    pub states: Vec<&'static str>,
    /// [`HOPS`]: the names of the critical path's hop indices.
    pub hops: Vec<&'static str>,
    /// The frames with lanes, in priority order (worst first).
    pub frames: Vec<FrameLanes>,
    /// Frames that qualified (janky, or among their app's costliest) and the
    /// janky ones among them.
    pub wanted: usize,
    pub wanted_janky: usize,
    /// Qualified frames left out to keep within the budget, and the janky ones among them.
    pub left_out: usize,
    pub left_out_janky: usize,
    pub budget_bytes: usize,
    /// The JSON size of this data (what the page embeds, `<` escaped).
    pub bytes: usize,
}

/// One frame's window and lanes. Times are µs from `t0_ns` (trace time),
/// rounded to the nearest µs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FrameLanes {
    /// Index in the frames table (`FrameAnalysis::rows`, the `#frame=` of the page).
    pub frame_index: usize,
    pub pid: i32,
    /// The app's name (string index).
    pub app: u32,
    pub frame_id: Option<i64>,
    /// 0: in an app's worst-frames table; 1: another janky frame; 2: one of
    /// an app's costliest frames that dropped none.
    pub tier: u8,
    pub dropped_frames: i64,
    pub drop_level: DropLevel,
    pub frame_cost_ns: i64,
    pub frame_interval_ns: i64,
    /// Where the window starts, in trace time (ns).
    pub t0_ns: i64,
    /// The window's length (µs).
    pub len: i64,
    pub vsync: Option<i64>,
    /// The doFrame, start and end.
    pub do_frame: [i64; 2],
    /// Its RenderThread work (first DrawFrame start, then its duration).
    pub draw: Option<[i64; 2]>,
    /// FrameTimeline: the app's expected and actual surface frame.
    pub expected: Option<[i64; 2]>,
    pub actual: Option<[i64; 2]>,
    /// Vsync ticks in the window, each as its distance from the one before
    /// (the first from the window start).
    pub ticks: Vec<i64>,
    /// `vsync_app` (SurfaceFlinger's `VSYNC-app` counter) or `grid` (the
    /// frame's vsync and the display's period, where the trace has no counter).
    pub ticks_from: &'static str,
    pub lanes: Vec<Lane>,
    /// The layer whose presents are shown (string index), and the presents in the window.
    pub layer: Option<u32>,
    pub presents: Vec<Present>,
    /// The app's input events in the window (docs/input.md), 4 integers per
    /// event, by read: its read (from the previous event's read; its
    /// dispatch without a read), then how long to its present (to its
    /// FINISHED without one), its action (string index, −1 for none) and
    /// whether it was presented (1) or not (0).
    pub input: Vec<i64>,
    /// The critical path: 7 integers per segment, start (from the previous
    /// segment's start), duration, tid, slice (string index, −1 for none),
    /// state ([`STATES`]), hop ([`HOPS`]), depth.
    pub path: Vec<i64>,
}

/// What a lane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LaneKind {
    /// The thread that ran the doFrame.
    Main,
    RenderThread,
    /// Another thread the critical path went through.
    Path,
    /// SurfaceFlinger's main thread.
    SurfaceFlinger,
}

/// One thread's lane.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lane {
    pub kind: LaneKind,
    /// The thread's name (string index), −1 when the trace names none.
    pub name: i64,
    pub tid: i32,
    pub pid: Option<i32>,
    /// 4 integers per slice, by start: start (from the previous slice's
    /// start), duration, depth, name (string index).
    pub slices: Vec<i64>,
    /// The thread's scheduler states, contiguous: the first state's start,
    /// then (state, duration) pairs. Empty without scheduler data for it.
    pub states: Vec<i64>,
    /// Slices left out for being too short to see ([`MIN_SLICE_SHARE`]).
    pub dropped: u32,
}

/// One present of the frame's layer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Present {
    pub at: i64,
    pub frame_id: Option<i64>,
}

/// What decides which frames get lanes: the frames an app's worst-frames
/// table lists, and how many of each app's costliest frames to add.
pub struct Wanted<'a> {
    /// Indices of the frames the analysis keeps (its apps' frames).
    pub kept: &'a [usize],
    /// Indices of the frames the page's worst-frames tables list.
    pub listed: &'a [usize],
    /// Each app's this many costliest frames, janky or not.
    pub per_app: usize,
}

/// The frames that qualify, in priority order: those listed in a
/// worst-frames table, then the other janky frames, then each app's
/// costliest frames that dropped none; within each, the costliest first
/// (ties: earliest, then by index). Returns (frame index, tier).
pub fn wanted(rows: &[FrameRow], w: &Wanted) -> Vec<(usize, u8)> {
    let listed: foldhash::HashSet<usize> = w.listed.iter().copied().collect();
    let mut by_app: HashMap<i32, Vec<usize>> = HashMap::default();
    let mut out: Vec<(usize, u8)> = Vec::new();
    for &k in w.kept {
        let Some(r) = rows.get(k) else { continue };
        if listed.contains(&k) {
            out.push((k, 0));
        } else if r.dropped_frames >= 1 {
            out.push((k, 1));
        } else {
            by_app.entry(r.pid).or_default().push(k);
        }
    }
    // The janky frames come before any that dropped none, so an app's
    // costliest frames are its janky ones first: only when it has fewer
    // than `per_app` of those do its smooth ones join.
    let mut janky_of: HashMap<i32, usize> = HashMap::default();
    for &(k, _) in &out {
        *janky_of.entry(rows[k].pid).or_default() += 1;
    }
    let by_cost = |a: &usize, b: &usize| {
        let (x, y) = (&rows[*a], &rows[*b]);
        y.frame_cost_ns.cmp(&x.frame_cost_ns).then(x.ts.cmp(&y.ts)).then(a.cmp(b))
    };
    let mut apps: Vec<(i32, Vec<usize>)> = by_app.into_iter().collect();
    apps.sort_unstable_by_key(|a| a.0);
    for (pid, mut smooth) in apps {
        let room = w.per_app.saturating_sub(janky_of.get(&pid).copied().unwrap_or(0));
        smooth.sort_unstable_by(by_cost);
        out.extend(smooth.into_iter().take(room).map(|k| (k, 2)));
    }
    out.sort_unstable_by(|a, b| a.1.cmp(&b.1).then_with(|| by_cost(&a.0, &b.0)));
    out
}

/// The lanes of the `wanted` frames (priority order, see [`wanted`]) that
/// fit in `budget_bytes`: each frame is added if the data with it stays
/// within the budget, else left out; after [`MAX_MISSES`] misses in a row
/// the rest are left out untried.
pub fn build(
    trace: &Trace,
    frames: &FrameAnalysis,
    presents: &PresentAnalysis,
    input: &crate::input::InputAnalysis,
    wanted: &[(usize, u8)],
    budget_bytes: usize,
) -> Lanes {
    let ctx = window::Context::new(trace, frames, presents, input);
    let mut lanes = Lanes {
        states: STATES.to_vec(),
        hops: HOPS.to_vec(),
        wanted: wanted.len(),
        wanted_janky: wanted.iter().filter(|&&(k, _)| frames.rows[k].dropped_frames >= 1).count(),
        budget_bytes,
        ..Default::default()
    };
    let mut strings = Strings::default();
    // The document without frames: its tables, and its counters at their
    // widest (none left out, or the budget's digits for its size).
    let mut bytes = json_size(&Lanes {
        left_out: lanes.wanted,
        left_out_janky: lanes.wanted_janky,
        bytes: budget_bytes,
        ..lanes.clone()
    });
    let mut misses = 0;
    for &(k, tier) in wanted {
        if misses >= MAX_MISSES {
            break;
        }
        let mark = strings.len();
        let Some(f) = ctx.frame(k, tier, &mut strings) else {
            misses += 1;
            continue;
        };
        // The frame, the comma before it and the names it added.
        let added = json_size(&f) + usize::from(!lanes.frames.is_empty()) + strings.size_from(mark);
        if bytes + added > budget_bytes {
            strings.truncate(mark);
            misses += 1;
            continue;
        }
        misses = 0;
        bytes += added;
        lanes.frames.push(f);
    }
    lanes.left_out = wanted.len() - lanes.frames.len();
    let janky_in = lanes.frames.iter().filter(|f| f.dropped_frames >= 1).count();
    lanes.left_out_janky = lanes.wanted_janky - janky_in;
    lanes.strings = strings.into_vec();
    // `bytes` is part of what it counts: settled once its digits stop changing.
    while json_size(&lanes) != lanes.bytes {
        lanes.bytes = json_size(&lanes);
    }
    lanes
}

/// Frame `k`'s window in trace time (ns), start and end: the span the frame
/// timeline draws for it (docs/report.md, "Frame timeline"), which `fpsan
/// open --frame` also zooms Perfetto UI to; None when the frames table has
/// no row `k`.
pub fn frame_window(frames: &FrameAnalysis, k: usize) -> Option<(i64, i64)> {
    window::Window::of_frame(frames, k).map(|(w, _)| (w.t0, w.t1))
}

/// The string table being built.
#[derive(Default)]
pub(crate) struct Strings {
    list: Vec<String>,
    index: HashMap<String, u32>,
}

impl Strings {
    pub(crate) fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }

    fn len(&self) -> usize {
        self.list.len()
    }

    /// The JSON size of the names from `mark` on, each with the comma before it.
    fn size_from(&self, mark: usize) -> usize {
        (mark..self.list.len()).map(|i| json_size(&self.list[i]) + usize::from(i > 0)).sum()
    }

    /// Forget the names from `mark` on (a frame left out).
    fn truncate(&mut self, mark: usize) {
        for s in self.list.drain(mark..) {
            self.index.remove(&s);
        }
    }

    fn into_vec(self) -> Vec<String> {
        self.list
    }
}

/// The size of `v` as the page embeds it: JSON, with every `<` written
/// `\u003c` (so no name can end the `<script>` element that holds it).
pub fn json_size<T: Serialize + ?Sized>(v: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len() + 5 * memchr::memchr_iter(b'<', b).count();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    // Writing into a counter cannot fail, nor can serialising these types.
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}
