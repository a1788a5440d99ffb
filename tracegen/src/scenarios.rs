//! Ready-made traces: [`demo_scroll`] (the committed demo trace and the
//! ground truth for frame-reconstruction tests) and [`busy_phone`] (a
//! streaming generator of arbitrarily large traces for benchmarks).
//!
//! Everything is deterministic: the only randomness is a fixed-seed xorshift.

use std::io::Write;

use super::encode::StreamEncoder;
use super::{ActualFrame, BuildOptions, Compression, TraceBuilder};

/// xorshift64* with a fixed seed: deterministic "random" durations.
#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `[lo, hi]` (inclusive; `hi < lo` gives `lo`).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i64
    }
}

const US: i64 = 1_000;
const MS: i64 = 1_000_000;

// ---------------------------------------------------------------------------
// demo_scroll
// ---------------------------------------------------------------------------

pub const DEMO_APP: &str = "com.example.scroll";
pub const DEMO_APP_PID: i32 = 4242;
pub const DEMO_MAIN_TID: i32 = 4242;
/// The main thread's comm: Android keeps the last 15 characters of a dotted
/// process name (art's SetThreadName).
pub const DEMO_MAIN_COMM: &str = ".example.scroll";
pub const DEMO_RENDER_TID: i32 = 4260;
/// A worker that is renamed during the trace and writes TrackEvent slices.
pub const DEMO_WORKER_TID: i32 = 4281;
pub const DEMO_LAYER: &str = "com.example.scroll/com.example.scroll.MainActivity#0";
pub const SF_PROCESS: &str = "/system/bin/surfaceflinger";
pub const SF_PID: i32 = 600;
/// SurfaceFlinger's "app" thread, which writes `VSYNC-app`.
pub const SF_APP_TID: i32 = 612;
/// BOOTTIME of vsync 0 of the demo (1000 s after boot).
pub const DEMO_T0: i64 = 1_000_000_000_000;
/// Choreographer's frame interval at 60 Hz: `(long) (1e9 / 60.0)`.
pub const DEMO_FRAME_INTERVAL_NS: i64 = 16_666_666;
/// Number of vsync periods the demo covers (8 s at 60 Hz).
pub const DEMO_VSYNCS: i64 = 480;

/// Hardware vsync `k` of the demo: 60 Hz, rounded to the nanosecond, so
/// consecutive edges are 16 666 666 or 16 666 667 ns apart.
pub fn demo_vsync_ts(k: i64) -> i64 {
    DEMO_T0 + (k * 1_000_000_000 + 30) / 60
}

/// Choreographer vsync id (FrameTimeline surface token) of app vsync `k`.
pub fn demo_frame_id(k: i64) -> i64 {
    1_000_000 + 2 * k
}

/// SurfaceFlinger display-frame token of the composition at vsync `k`.
pub fn demo_display_token(k: i64) -> i64 {
    1_000_000 + 2 * k + 1
}

/// Why a demo frame is slow, if it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DemoJank {
    /// Fits the budget.
    None,
    /// doFrame itself ran long; the named child slice (nested under
    /// `traversal`) took the extra time.
    LongFrame { heavy: &'static str },
    /// The main thread was stuck in a `binder transaction` when the vsync
    /// arrived, so doFrame started `skipped_frames` intervals late.
    LateStart,
    /// The app finished on time but its buffer was presented a vsync late
    /// (FrameTimeline Buffer Stuffing).
    BufferStuffing,
}

/// The ground truth of one demo frame, as the generator laid it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoFrame {
    /// Index of the frame's vsync (see [`demo_vsync_ts`]).
    pub vsync_index: i64,
    /// The id in `Choreographer#doFrame <id>` and the FrameTimeline token.
    pub frame_id: i64,
    pub vsync_ts: i64,
    /// doFrame slice start and duration.
    pub ts: i64,
    pub dur: i64,
    /// `ts + dur - vsync_ts`.
    pub frame_cost_ns: i64,
    /// `frame_cost_ns / 16_666_667` (the same for any I in 16 666 666..=16 666 667).
    pub dropped_frames: i64,
    /// `(ts - vsync_ts) / I` when that jitter is at least one interval.
    pub skipped_frames: i64,
    pub has_input: bool,
    pub jank: DemoJank,
    /// FrameTimeline: expected surface frame [vsync_ts, expected_end],
    /// actual [ts, actual_end], display frame token, jank and present types.
    pub expected_end: i64,
    pub actual_end: i64,
    pub display_frame_token: i64,
    pub jank_type: i32,
    pub present_type: i32,
    /// RenderThread `DrawFrames <id>` start and duration.
    pub draw_frame_ts: i64,
    pub draw_frame_dur: i64,
    /// Start of the `commit` child and the `jitterNanos` counter written in it.
    pub commit_ts: i64,
    pub jitter_counter_ts: i64,
    pub jitter_counter_value: i64,
}

/// What the plan asks for one frame.
#[derive(Debug, Clone, Copy)]
enum Plan {
    Normal,
    /// doFrame cost `n` intervals + 4 ms, extra time in `heavy`.
    Long {
        n: i64,
        heavy: Heavy,
    },
    /// doFrame starts 3 intervals + 6 ms late; cost 4 intervals + 4 ms.
    LateStart,
    Stuffing,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Heavy {
    Measure,
    /// RV OnBindView + Inflate, with the main thread preempted for 3 ms.
    BindInflate,
    /// Inflate blocked 120 ms in uninterruptible sleep (D).
    InflateBlocked,
    Layout,
    Draw,
}

impl Heavy {
    fn slice_name(self) -> &'static str {
        match self {
            Heavy::Measure => "measure",
            Heavy::BindInflate => "RV OnBindView",
            Heavy::InflateBlocked => "Inflate",
            Heavy::Layout => "layout",
            Heavy::Draw => "draw",
        }
    }
}

/// Interval used to build janky costs: the longer of the two edge spacings,
/// so `cost / I` is the same for both.
const DEMO_I_MAX: i64 = 16_666_667;
/// Expected FrameTimeline jank-type values.
pub const JANK_NONE: i32 = 1;
pub const JANK_APP_DEADLINE_MISSED: i32 = 64;
pub const JANK_BUFFER_STUFFING: i32 = 128;
pub const PRESENT_ON_TIME: i32 = 1;
pub const PRESENT_LATE: i32 = 2;
pub const PREDICTION_VALID: i32 = 1;

/// SurfaceFlinger's display frame (token `display_token`) for an app frame of
/// vsync `vsync` and interval `period` whose buffer was ready at
/// `actual_end`: presented, on time for SurfaceFlinger, at the first vsync
/// boundary after it. Returns the present time.
pub(crate) fn display_frame(b: &mut TraceBuilder, vsync: i64, period: i64, actual_end: i64, display_token: i64) -> i64 {
    let late = actual_end > vsync + period;
    let present = vsync + period * if late { (actual_end - vsync) / period + 1 } else { 1 };
    b.expected_display_frame(present, Some(present + period), display_token, SF_PID);
    b.actual_display_frame(present + 100 * US, Some(present + 3 * MS), on_time_display(display_token));
    present
}

/// SurfaceFlinger's actual display frame `token`, presented on time.
fn on_time_display(token: i64) -> ActualFrame {
    ActualFrame {
        token,
        pid: SF_PID,
        present_type: PRESENT_ON_TIME,
        on_time_finish: true,
        jank_type: JANK_NONE,
        prediction_type: PREDICTION_VALID,
        ..Default::default()
    }
}

/// One app frame as SurfaceFlinger's FrameTimeline records it: the display
/// frame ([`display_frame`]), then the app's expected surface frame (vsync to
/// vsync + period) and actual one (`start` to `actual_end`), late with
/// "app deadline missed" when it ends after vsync + period.
pub(crate) struct AppFrameTimeline {
    pub vsync: i64,
    pub period: i64,
    pub start: i64,
    pub actual_end: i64,
    pub token: i64,
    pub display_token: i64,
    pub pid: i32,
    pub layer: String,
}

impl AppFrameTimeline {
    pub(crate) fn write(self, b: &mut TraceBuilder) {
        let AppFrameTimeline { vsync, period, start, actual_end, token, display_token, pid, layer } = self;
        let late = actual_end > vsync + period;
        display_frame(b, vsync, period, actual_end, display_token);
        b.expected_surface_frame(vsync, Some(vsync + period), token, display_token, pid, &layer);
        b.actual_surface_frame(
            start,
            Some(actual_end),
            ActualFrame {
                token,
                display_frame_token: display_token,
                pid,
                layer,
                present_type: if late { PRESENT_LATE } else { PRESENT_ON_TIME },
                on_time_finish: !late,
                gpu_composition: false,
                jank_type: if late { JANK_APP_DEADLINE_MISSED } else { JANK_NONE },
                prediction_type: PREDICTION_VALID,
                ..Default::default()
            },
        );
    }
}

/// The frame plan: (first vsync of a scroll, frames, frames with input,
/// special frames by index within the scroll).
fn demo_plan() -> Vec<(i64, Plan, bool)> {
    let mut out = Vec::new();
    // (first vsync, frames, frames with input, special frames by index)
    type Scroll = (i64, usize, usize, &'static [(usize, Plan)]);
    let scrolls: [Scroll; 2] = [
        (
            30,
            150,
            60,
            &[
                (40, Plan::Long { n: 2, heavy: Heavy::Measure }),
                (41, Plan::Stuffing),
                (70, Plan::LateStart),
                (100, Plan::Long { n: 10, heavy: Heavy::BindInflate }),
                (101, Plan::Stuffing),
            ],
        ),
        (
            237,
            150,
            50,
            &[
                (30, Plan::Long { n: 30, heavy: Heavy::InflateBlocked }),
                (90, Plan::Long { n: 50, heavy: Heavy::Layout }),
            ],
        ),
    ];
    for (start, frames, with_input, special) in scrolls {
        let mut k = start;
        for i in 0..frames {
            let plan = special.iter().find(|(j, _)| *j == i).map(|(_, p)| *p).unwrap_or(Plan::Normal);
            out.push((k, plan, i < with_input));
            k += match plan {
                Plan::Normal => 1,
                Plan::Long { n, .. } => n + 1,
                Plan::LateStart => 5,
                Plan::Stuffing => 2,
            };
        }
    }
    out
}

/// A slice laid out on a thread: name, start, end.
struct Sl {
    name: String,
    ts: i64,
    end: i64,
}

/// Random draws of one frame, made before layout so that stretching the heavy
/// slice does not change any other duration.
struct Draws {
    jitter: i64,
    input: i64,
    rv_scroll: i64,
    animation: i64,
    measure: i64,
    layout: i64,
    bind: Option<i64>,
    inflate: Option<i64>,
    draw: i64,
    commit: i64,
    sync: i64,
    flush: i64,
    queue: i64,
    gpu: i64,
}

/// Lays out doFrame's children from `ts`; `extra` is added to `heavy`.
/// Returns (slices in begin order, doFrame end, draw end, commit start).
fn layout_frame(ts: i64, d: &Draws, has_input: bool, heavy: Option<(Heavy, i64)>) -> (Vec<Sl>, i64, i64, i64) {
    let extra = |h: Heavy| match heavy {
        Some((hh, e)) if hh == h => e,
        _ => 0,
    };
    let mut v = Vec::new();
    let mut c = ts + 15 * US;
    let push = |v: &mut Vec<Sl>, name: &str, ts: i64, end: i64| v.push(Sl { name: name.to_owned(), ts, end });
    if has_input {
        let end = c + d.input;
        push(&mut v, "input", c, end);
        push(&mut v, "RV Scroll", c + 100 * US, end - 50 * US);
        c = end + 10 * US;
    }
    {
        let end = c + d.animation + if has_input { 0 } else { d.rv_scroll };
        push(&mut v, "animation", c, end);
        if !has_input {
            push(&mut v, "RV Scroll", c + 40 * US, end - 30 * US);
        }
        c = end + 10 * US;
    }
    // traversal: measure, layout (bind/inflate inside), draw.
    let trav_idx = v.len();
    push(&mut v, "traversal", c, 0);
    c += 20 * US;
    let m_end = c + d.measure + extra(Heavy::Measure);
    push(&mut v, "measure", c, m_end);
    c = m_end + 10 * US;
    let lay_idx = v.len();
    push(&mut v, "layout", c, 0);
    c += 30 * US;
    let bind_extra = extra(Heavy::BindInflate);
    if let Some(b) = d.bind {
        let end = c + b + bind_extra / 2;
        push(&mut v, "RV OnBindView", c, end);
        c = end + 10 * US;
    }
    let inflate_extra = extra(Heavy::InflateBlocked) + (bind_extra - bind_extra / 2);
    if let Some(i) = d.inflate {
        let end = c + i + inflate_extra;
        push(&mut v, "Inflate", c, end);
        c = end + 10 * US;
    }
    c += d.layout + extra(Heavy::Layout);
    v[lay_idx].end = c;
    c += 10 * US;
    let draw_start = c;
    let draw_end = c + d.draw + extra(Heavy::Draw);
    push(&mut v, "draw", draw_start, draw_end);
    push(&mut v, "Record View#draw()", draw_start + 30 * US, draw_end - 400 * US);
    c = draw_end + 15 * US;
    v[trav_idx].end = c;
    c += 10 * US;
    let commit_ts = c;
    push(&mut v, "commit", c, c + d.commit);
    c += d.commit + 10 * US;
    (v, c, draw_end, commit_ts)
}

/// Builds the demo into `b` and returns the frames' ground truth.
fn demo_into(b: &mut TraceBuilder) -> Vec<DemoFrame> {
    let (pid, main, rt) = (DEMO_APP_PID, DEMO_MAIN_TID, DEMO_RENDER_TID);
    b.process(1, "/system/bin/init")
        .process(SF_PID, SF_PROCESS)
        .process(pid, DEMO_APP)
        .thread(1, 1, "init")
        .thread(SF_PID, SF_PID, "surfaceflinger")
        .thread(SF_APP_TID, SF_PID, "app")
        .thread(main, pid, DEMO_MAIN_COMM)
        .thread(rt, pid, "RenderThread")
        .thread(DEMO_WORKER_TID, pid, "Thread-2")
        .system_info("google/demo_scroll/demo:14/UP1A.231005.007/10754064:userdebug/dev-keys", 34);
    b.task_rename(demo_vsync_ts(5), DEMO_WORKER_TID, "Thread-2", "bg-decoder");

    let mut rng = XorShift::new(0x5eed_f00d);
    let mut frames = Vec::new();
    let mut vsync_level = 0;
    for (idx, (k, plan, has_input)) in demo_plan().into_iter().enumerate() {
        let vsync = demo_vsync_ts(k);
        let frame_id = demo_frame_id(k);
        let bind = (idx % 4 == 1).then(|| rng.range(800 * US, 1_800 * US));
        let inflate = (idx % 12 == 7
            || matches!(plan, Plan::Long { heavy: Heavy::BindInflate | Heavy::InflateBlocked, .. }))
        .then(|| rng.range(600 * US, 1_400 * US));
        let bind = bind.or(matches!(plan, Plan::Long { heavy: Heavy::BindInflate, .. }).then_some(1_000 * US));
        let d = Draws {
            jitter: rng.range(300 * US, 900 * US),
            input: rng.range(400 * US, 1_200 * US),
            rv_scroll: rng.range(300 * US, 700 * US),
            animation: rng.range(150 * US, 400 * US),
            measure: rng.range(300 * US, 1_000 * US),
            layout: rng.range(400 * US, 1_300 * US),
            bind,
            inflate,
            draw: rng.range(1_000 * US, 2_000 * US),
            commit: rng.range(100 * US, 200 * US),
            sync: rng.range(150 * US, 250 * US),
            flush: rng.range(1_000 * US, 2_500 * US),
            queue: rng.range(200 * US, 400 * US),
            gpu: rng.range(600 * US, 1_000 * US),
        };

        // Choose the start and the stretch of the heavy slice.
        let (ts, heavy) = match plan {
            Plan::Normal | Plan::Stuffing => (vsync + d.jitter, None),
            Plan::Long { n, heavy } => {
                let ts = vsync + d.jitter;
                let (_, base_end, _, _) = layout_frame(ts, &d, has_input, None);
                let want_end = vsync + n * DEMO_I_MAX + 4 * MS;
                (ts, Some((heavy, want_end - base_end)))
            }
            Plan::LateStart => {
                let ts = vsync + 3 * DEMO_I_MAX + 6 * MS;
                let (_, base_end, _, _) = layout_frame(ts, &d, has_input, None);
                let want_end = vsync + 4 * DEMO_I_MAX + 4 * MS;
                (ts, Some((Heavy::Draw, want_end - base_end)))
            }
        };
        let (slices, end, draw_end, commit_ts) = layout_frame(ts, &d, has_input, heavy);
        let dur = end - ts;
        let cost = end - vsync;

        // VSYNC-app edge from SurfaceFlinger's app thread, which runs on CPU 1
        // and wakes the main thread (unless it is blocked in binder).
        vsync_level ^= 1;
        b.atrace_counter(vsync, SF_APP_TID, SF_PID, "VSYNC-app", vsync_level);
        b.sched_switch(vsync - 20 * US, 1, 0, "swapper/1", 0, SF_APP_TID, "app");
        if !matches!(plan, Plan::LateStart) {
            b.sched_waking(vsync + 15 * US, 1, main, DEMO_MAIN_COMM, 2);
        }
        b.sched_switch(vsync + 40 * US, 1, SF_APP_TID, "app", 1, 0, "swapper/1");

        // Main thread: scheduling around the frame, on CPU 2.
        if matches!(plan, Plan::LateStart) {
            let bstart = vsync - 2 * MS;
            let bend = ts - 50 * US;
            b.sched_waking(bstart - 40 * US, 3, main, DEMO_MAIN_COMM, 2);
            b.sched_switch(bstart - 25 * US, 2, 0, "swapper/2", 0, main, DEMO_MAIN_COMM);
            b.slice(bstart, bend - bstart, main, pid, "binder transaction");
            b.sched_switch(bstart + 30 * US, 2, main, DEMO_MAIN_COMM, 1, 0, "swapper/2");
            b.sched_waking(bend - 40 * US, 3, main, DEMO_MAIN_COMM, 2);
            b.sched_switch(bend - 20 * US, 2, 0, "swapper/2", 0, main, DEMO_MAIN_COMM);
        } else {
            b.sched_switch(ts - 25 * US, 2, 0, "swapper/2", 0, main, DEMO_MAIN_COMM);
        }
        b.slice(ts, dur, main, pid, &format!("Choreographer#doFrame {frame_id}"));
        for s in &slices {
            b.slice(s.ts, s.end - s.ts, main, pid, &s.name);
        }
        let heavy_slice =
            heavy.map(|(h, _)| slices.iter().find(|s| s.name == h.slice_name()).expect("heavy slice laid out"));
        match heavy {
            Some((Heavy::BindInflate, _)) => {
                // Preempted by a kworker for 3 ms in the middle of onBindView.
                let s = heavy_slice.expect("bind slice");
                let t = s.ts + (s.end - s.ts) / 2;
                b.sched_waking(t - 10 * US, 3, 77, "kworker/2:1", 2);
                b.sched_switch(t, 2, main, DEMO_MAIN_COMM, 0, 77, "kworker/2:1");
                b.sched_switch(t + 3 * MS, 2, 77, "kworker/2:1", 1, main, DEMO_MAIN_COMM);
            }
            Some((Heavy::InflateBlocked, _)) => {
                // Inflate waits 120 ms on disk I/O in uninterruptible sleep.
                let s = heavy_slice.expect("inflate slice");
                let t = s.ts + 2 * MS;
                b.sched_switch(t, 2, main, DEMO_MAIN_COMM, 2, 0, "swapper/2");
                b.sched_waking(t + 120 * MS - 30 * US, 3, main, DEMO_MAIN_COMM, 2);
                b.sched_switch(t + 120 * MS, 2, 0, "swapper/2", 0, main, DEMO_MAIN_COMM);
            }
            _ => {}
        }
        b.sched_switch(end + 15 * US, 2, main, DEMO_MAIN_COMM, 1, 0, "swapper/2");

        // Choreographer's jitterNanos counter, written as commit starts:
        // now - frameTimeNanos, frameTime corrected for a late start.
        let start_jitter = ts - vsync;
        let frame_time =
            if start_jitter >= DEMO_FRAME_INTERVAL_NS { ts - start_jitter % DEMO_FRAME_INTERVAL_NS } else { vsync };
        let counter_ts = commit_ts + 5 * US;
        let counter_value = counter_ts - frame_time;
        b.atrace_counter(counter_ts, main, pid, "jitterNanos", counter_value);

        // RenderThread on CPU 0, woken by the main thread from CPU 2.
        let rt_start = draw_end - 250 * US;
        let sync_end = rt_start + 10 * US + d.sync;
        let flush_end = sync_end + 15 * US + d.flush;
        let queue_end = flush_end + 20 * US + d.queue;
        let rt_end = queue_end + 20 * US;
        b.sched_waking(rt_start - 40 * US, 2, rt, "RenderThread", 0);
        b.sched_switch(rt_start - 20 * US, 0, 0, "swapper/0", 0, rt, "RenderThread");
        b.slice(rt_start, rt_end - rt_start, rt, pid, &format!("DrawFrames {frame_id}"));
        b.slice(rt_start + 10 * US, d.sync, rt, pid, "syncFrameState");
        b.slice(sync_end + 15 * US, d.flush, rt, pid, "flush commands");
        b.slice(flush_end + 20 * US, d.queue, rt, pid, "queueBuffer");
        b.sched_switch(rt_end + 15 * US, 0, rt, "RenderThread", 1, 0, "swapper/0");

        // A background decode written as TrackEvent slices every 30th frame.
        if idx % 30 == 10 {
            b.track_event_slice(ts + 2 * MS, 3 * MS, pid, DEMO_WORKER_TID, "decodeBitmap");
            b.track_event_slice(ts + 2 * MS + 200 * US, 2 * MS, pid, DEMO_WORKER_TID, "decompress");
        }

        // FrameTimeline, written by SurfaceFlinger when the frame is presented:
        // the display frame first, then the app's surface frame.
        let actual_end = rt_end + d.gpu;
        let expected_end = demo_vsync_ts(k + 1);
        let present_k = if matches!(plan, Plan::Stuffing) {
            k + 2
        } else {
            (k + 1..).find(|&p| demo_vsync_ts(p) > actual_end).expect("unbounded range")
        };
        let (jank_type, present_type) = match plan {
            Plan::Normal => (JANK_NONE, PRESENT_ON_TIME),
            Plan::Long { .. } | Plan::LateStart => (JANK_APP_DEADLINE_MISSED, PRESENT_LATE),
            Plan::Stuffing => (JANK_BUFFER_STUFFING, PRESENT_LATE),
        };
        let dtoken = demo_display_token(present_k);
        let pv = demo_vsync_ts(present_k);
        b.expected_display_frame(pv, Some(demo_vsync_ts(present_k + 1)), dtoken, SF_PID);
        b.actual_display_frame(pv + 150 * US, Some(pv + 4 * MS), on_time_display(dtoken));
        b.expected_surface_frame(vsync, Some(expected_end), frame_id, demo_display_token(k + 1), pid, DEMO_LAYER);
        b.actual_surface_frame(
            ts,
            Some(actual_end),
            ActualFrame {
                token: frame_id,
                display_frame_token: dtoken,
                pid,
                layer: DEMO_LAYER.to_owned(),
                present_type,
                on_time_finish: actual_end <= expected_end,
                gpu_composition: false,
                jank_type,
                prediction_type: PREDICTION_VALID,
                ..Default::default()
            },
        );

        let jank = match plan {
            Plan::Normal => DemoJank::None,
            Plan::Long { heavy, .. } => DemoJank::LongFrame { heavy: heavy.slice_name() },
            Plan::LateStart => DemoJank::LateStart,
            Plan::Stuffing => DemoJank::BufferStuffing,
        };
        frames.push(DemoFrame {
            vsync_index: k,
            frame_id,
            vsync_ts: vsync,
            ts,
            dur,
            frame_cost_ns: cost,
            dropped_frames: cost / DEMO_I_MAX,
            skipped_frames: if start_jitter >= DEMO_FRAME_INTERVAL_NS {
                start_jitter / DEMO_FRAME_INTERVAL_NS
            } else {
                0
            },
            has_input,
            jank,
            expected_end,
            actual_end,
            display_frame_token: dtoken,
            jank_type,
            present_type,
            draw_frame_ts: rt_start,
            draw_frame_dur: rt_end - rt_start,
            commit_ts,
            jitter_counter_ts: counter_ts,
            jitter_counter_value: counter_value,
        });
    }
    frames
}

/// The demo: an ~8 s, 60 Hz scroll of `com.example.scroll` (Android 14 style).
///
/// Processes: `/system/bin/surfaceflinger` (pid 600; thread 612 `app` writes
/// the `VSYNC-app` counter, toggling 0/1 at each vsync the app asked for) and
/// `com.example.scroll` (pid 4242; main thread 4242 with comm
/// `.example.scroll`, `RenderThread` 4260, worker 4281 renamed from
/// `Thread-2` to `bg-decoder` by a task_rename at vsync 5, which writes
/// `decodeBitmap`/`decompress` TrackEvent slices every 30th frame).
///
/// Vsync `k` is at `1000 s + round(k · 1e9 / 60)`; frame ids (Choreographer
/// vsync ids, FrameTimeline tokens) are `1_000_000 + 2k`, display-frame tokens
/// `1_000_000 + 2k + 1`. 300 frames in two scrolls: vsyncs 30..=196 (150
/// frames, the first 60 dragged with `input`, the rest flinging) and
/// 237..=466 (150 frames, first 50 with input); no frames (and no VSYNC-app
/// edges) before vsync 30, in 197..=236 and after 466.
///
/// Each frame: `Choreographer#doFrame <id>` on the main thread with direct
/// children `input` (drag only), `animation`, `traversal` (children `measure`,
/// `layout` — holding `RV OnBindView` on every 4th frame and `Inflate` on
/// every 12th — and `draw` with `Record View#draw()`), `commit` (with the
/// `jitterNanos` counter 5 µs after commit starts, value = now − frameTime);
/// `DrawFrames <id>` on RenderThread with `syncFrameState`, `flush commands`,
/// `queueBuffer`; FrameTimeline expected/actual surface frames for layer
/// `com.example.scroll/com.example.scroll.MainActivity#0` (expected
/// [vsync, next vsync], actual [doFrame start, RenderThread end + GPU]) and a
/// display frame for pid 600; sched_switch/sched_waking for the main thread
/// (CPU 2), RenderThread (CPU 0) and SurfaceFlinger's app thread (CPU 1).
///
/// Normal frames cost 3.5–7.1 ms from vsync to the end of commit and finish
/// (FrameTimeline actual end) before the next vsync. The janky
/// frames (frame_cost = n · I + 4 ms exactly, with I = 16 666 667):
///
/// | frame id | vsync k | dropped | level | what | jank_type |
/// |---|---|---|---|---|---|
/// | 1000140 | 70  | 2  | BEST   | `measure` stretched | App Deadline Missed (64) |
/// | 1000146 | 73  | 0  | BEST   | buffer stuffing, presented at k+2 | Buffer Stuffing (128) |
/// | 1000206 | 103 | 4  | NORMAL | late start: `binder transaction` before doFrame, skipped_frames 3 | 64 |
/// | 1000274 | 137 | 10 | MIDDLE | `RV OnBindView` + `Inflate`, main preempted 3 ms (Runnable) by kworker/2:1 | 64 |
/// | 1000296 | 148 | 0  | BEST   | buffer stuffing | 128 |
/// | 1000534 | 267 | 30 | HIGH   | `Inflate` with 120 ms in D state (Blocked) | 64 |
/// | 1000714 | 357 | 50 | FROZEN | `layout` stretched | 64 |
///
/// All other frames have jank_type None (1) and present on time. The next
/// frame after a janky one starts at the first vsync after it ended (the
/// scroll asks for the next vsync at commit), after buffer stuffing one vsync
/// is skipped. [`demo_scroll_frames`] returns every frame's ground truth.
pub fn demo_scroll() -> TraceBuilder {
    let mut b = TraceBuilder::new();
    demo_into(&mut b);
    b
}

/// Ground truth for every frame of [`demo_scroll`], in order.
pub fn demo_scroll_frames() -> Vec<DemoFrame> {
    demo_into(&mut TraceBuilder::new())
}

/// How the committed `testdata/demo.pftrace` is laid out: like a recent
/// device (compact sched, tracing_started, clock snapshot), uncompressed.
pub fn demo_build_options() -> BuildOptions {
    BuildOptions {
        cpus: 4,
        events_per_bundle: 64,
        compression: Compression::None,
        compact_sched: true,
        clock_snapshot: true,
        tracing_started: Some(DEMO_T0),
        first_bundle_previous_end: false,
        sequences: 1,
    }
}

// ---------------------------------------------------------------------------
// busy_phone
// ---------------------------------------------------------------------------

/// Streaming window of trace time.
const BUSY_WINDOW_NS: i64 = 100 * MS;
/// BOOTTIME where busy_phone starts.
pub const BUSY_T0: i64 = 5_000_000_000_000;

/// One app of the busy phone.
struct BusyApp {
    pid: i32,
    name: &'static str,
    /// Refresh interval of the app's frames.
    period: i64,
    /// Use TrackEvent instead of atrace for its slices (newer Android).
    track_events: bool,
    next_vsync: i64,
    frame: i64,
}

/// Deferred thread event whose timestamp lies past the current window.
struct Pending {
    ts: i64,
    tid: i32,
    pid: i32,
    kind: PendingKind,
}

enum PendingKind {
    Begin(String),
    End,
    Counter(&'static str, i64),
    TrackBegin(String),
    TrackEnd,
}

/// Writes a busy 8-CPU phone trace to `w` until about `target_bytes` have
/// been written (it stops after the window that crosses the target) and
/// returns the number of bytes written.
///
/// Streaming: events are generated and encoded 100 ms of trace time at a
/// time, so memory stays bounded whatever the size. Each CPU switches between
/// a pool of tasks every 40–60 µs with a sched_waking before each switch
/// (the apps' main threads and RenderThreads are in the pools of CPUs 0–5,
/// so the scheduler pass finds the frame threads in most bundles, as on a
/// device); two windows out of three use compact_sched, the third plain
/// sched_switch/sched_waking events. Three apps draw frames continuously at
/// 60, 90 and 120 Hz (the 120 Hz one with TrackEvent slices instead of
/// atrace) with SurfaceFlinger FrameTimeline for every frame; the process
/// tree comes first.
pub fn busy_phone<W: Write>(w: &mut W, target_bytes: u64) -> std::io::Result<u64> {
    let cpus = 8u32;
    let opts = BuildOptions { cpus, events_per_bundle: 256, sequences: 4, ..BuildOptions::default() };
    let mut enc = StreamEncoder::new(opts);
    let mut b = TraceBuilder::new();
    let mut rng = XorShift::new(0xb05e_9b0e);

    let mut apps = vec![
        BusyApp {
            pid: 5001,
            name: "com.example.feed",
            period: 16_666_667,
            track_events: false,
            next_vsync: 0,
            frame: 0,
        },
        BusyApp {
            pid: 5101,
            name: "com.example.maps",
            period: 11_111_111,
            track_events: false,
            next_vsync: 0,
            frame: 0,
        },
        BusyApp { pid: 5201, name: "com.example.game", period: 8_333_333, track_events: true, next_vsync: 0, frame: 0 },
    ];
    b.process(1, "/system/bin/init").process(SF_PID, SF_PROCESS).thread(SF_PID, SF_PID, "surfaceflinger");
    b.thread(SF_APP_TID, SF_PID, "app");
    for a in &mut apps {
        a.next_vsync = BUSY_T0 + a.period;
        b.process(a.pid, a.name).thread(a.pid, a.pid, &a.name[a.name.len() - 15..]).thread(
            a.pid + 20,
            a.pid,
            "RenderThread",
        );
    }
    // Background tasks each CPU rotates through (system services, kworkers).
    let mut pools: Vec<Vec<(i32, String)>> = Vec::new();
    for cpu in 0..cpus as i32 {
        let mut pool = vec![(0, format!("swapper/{cpu}"))];
        for j in 0..6 {
            let tid = 1000 + cpu * 16 + j;
            pool.push((tid, format!("bg{cpu}_{j}")));
        }
        pools.push(pool);
    }
    b.process(999, "system_server");
    for pool in &pools {
        for (tid, comm) in pool.iter().skip(1) {
            b.thread(*tid, 999, comm);
        }
    }
    // The frame threads run among the background tasks (added after those
    // are registered as system_server's): each app's main thread and
    // RenderThread on a CPU of their own.
    for (i, a) in apps.iter().enumerate() {
        pools[2 * i].push((a.pid, a.name[a.name.len() - 15..].to_string()));
        pools[2 * i + 1].push((a.pid + 20, "RenderThread".to_string()));
    }
    let mut current: Vec<usize> = vec![0; cpus as usize];
    let mut next_switch: Vec<i64> = (0..cpus).map(|c| BUSY_T0 + i64::from(c) * 3 * US).collect();
    let mut pending: Vec<Pending> = Vec::new();
    let mut token = 10_000_000i64;
    let mut vsync_level = 0;

    let mut written = 0u64;
    let mut out = Vec::with_capacity(8 << 20);
    let mut window = 0i64;
    while written < target_bytes {
        let w0 = BUSY_T0 + window * BUSY_WINDOW_NS;
        let w1 = w0 + BUSY_WINDOW_NS;
        enc.set_compact_sched(window % 3 != 2);

        // Scheduler noise on every CPU.
        for cpu in 0..cpus as usize {
            let pool = &pools[cpu];
            while next_switch[cpu] < w1 {
                let t = next_switch[cpu];
                let prev = current[cpu];
                let mut next = (rng.next_u64() % pool.len() as u64) as usize;
                if next == prev {
                    next = (next + 1) % pool.len();
                }
                let (ptid, pcomm) = &pool[prev];
                let (ntid, ncomm) = &pool[next];
                if *ntid != 0 {
                    b.sched_waking(t - 2 * US, cpu as u32, *ntid, ncomm, cpu as u32);
                }
                let state = if *ptid == 0 { 0 } else { (rng.next_u64() % 3) as i64 };
                b.sched_switch(t, cpu as u32, *ptid, pcomm, state, *ntid, ncomm);
                current[cpu] = next;
                next_switch[cpu] = t + rng.range(40 * US, 60 * US);
            }
        }

        // App frames whose vsync falls in this window.
        for a in &mut apps {
            while a.next_vsync < w1 {
                let vsync = a.next_vsync;
                token += 1;
                a.frame += 1;
                let id = token;
                let (pid, main, rt) = (a.pid, a.pid, a.pid + 20);
                let budget = a.period;
                // One frame in 50 runs 2.5 intervals long.
                let long = a.frame % 50 == 0;
                let ts = vsync + rng.range(200 * US, 700 * US);
                let work = if long { budget * 5 / 2 } else { rng.range(budget / 4, budget * 2 / 3) };
                let end = ts + work;
                let mut add = |ts: i64, tid: i32, kind: PendingKind| pending.push(Pending { ts, tid, pid, kind });
                type Ctors = (fn(String) -> PendingKind, fn() -> PendingKind);
                let (begin, finish): Ctors = if a.track_events {
                    (PendingKind::TrackBegin, || PendingKind::TrackEnd)
                } else {
                    (PendingKind::Begin, || PendingKind::End)
                };
                add(ts, main, begin(format!("Choreographer#doFrame {id}")));
                let q = work / 8;
                add(ts + 10 * US, main, begin("animation".into()));
                add(ts + q, main, finish());
                add(ts + q + 10 * US, main, begin("traversal".into()));
                add(ts + q + 20 * US, main, begin("measure".into()));
                add(ts + 2 * q, main, finish());
                add(ts + 2 * q + 10 * US, main, begin("layout".into()));
                add(ts + 4 * q, main, finish());
                add(ts + 4 * q + 10 * US, main, begin("draw".into()));
                add(ts + 7 * q, main, finish());
                add(ts + 7 * q + 10 * US, main, finish());
                add(ts + 7 * q + 20 * US, main, begin("commit".into()));
                add(ts + 7 * q + 25 * US, main, PendingKind::Counter("jitterNanos", ts + 7 * q + 25 * US - vsync));
                add(end - 10 * US, main, finish());
                add(end, main, finish());
                let rt0 = ts + 7 * q - 200 * US;
                let rt1 = rt0 + budget / 4;
                add(rt0, rt, begin(format!("DrawFrames {id}")));
                add(rt0 + 10 * US, rt, begin("syncFrameState".into()));
                add(rt0 + 200 * US, rt, finish());
                add(rt0 + 220 * US, rt, begin("flush commands".into()));
                add(rt1 - 300 * US, rt, finish());
                add(rt1 - 280 * US, rt, begin("queueBuffer".into()));
                add(rt1 - 20 * US, rt, finish());
                add(rt1, rt, finish());

                vsync_level ^= 1;
                b.atrace_counter(vsync, SF_APP_TID, SF_PID, "VSYNC-app", vsync_level);
                token += 1;
                AppFrameTimeline {
                    vsync,
                    period: budget,
                    start: ts,
                    actual_end: rt1 + 800 * US,
                    token: id,
                    display_token: token,
                    pid,
                    layer: format!("{}/{}.MainActivity#0", a.name, a.name),
                }
                .write(&mut b);
                // The next frame waits for the first vsync after this one ends.
                a.next_vsync = vsync + budget * ((end - vsync) / budget + 1);
            }
        }

        // Thread events that happen in this window; later ones wait.
        let mut keep = Vec::with_capacity(pending.len());
        for p in pending.drain(..) {
            if p.ts >= w1 {
                keep.push(p);
                continue;
            }
            match p.kind {
                PendingKind::Begin(name) => b.atrace_begin(p.ts, p.tid, p.pid, &name),
                PendingKind::End => b.atrace_end(p.ts, p.tid, p.pid),
                PendingKind::Counter(name, v) => b.atrace_counter(p.ts, p.tid, p.pid, name, v),
                PendingKind::TrackBegin(name) => b.track_event_begin(p.ts, p.pid, p.tid, &name),
                PendingKind::TrackEnd => b.track_event_end(p.ts, p.pid, p.tid),
            }
        }
        pending = keep;

        written += enc.flush_window(&mut b, &mut out, w)?;
        window += 1;
    }
    Ok(written)
}

// ---------------------------------------------------------------------------
// repeated_recording
// ---------------------------------------------------------------------------

/// Frames in one recording of [`repeated_recording`].
pub const REPEAT_FRAMES: usize = 240;
/// BOOTTIME where the first recording starts.
pub const REPEAT_T0: i64 = 2_000_000_000_000;
pub const REPEAT_APP: &str = "com.example.list";
pub const REPEAT_PID: i32 = 7001;
pub const REPEAT_RENDER_TID: i32 = 7021;
const REPEAT_PERIOD: i64 = 16_666_667;
/// CPUs of the recording: the main thread runs on 0, RenderThread on 1,
/// background tasks rotate on 2 and 3.
const REPEAT_CPUS: u32 = 4;

/// One frame of the recording, times relative to the recording's start (add
/// `REPEAT_T0 + r · repeat_span_ns(frames)` for recording `r`). Every recording is the
/// same, so ids and tokens repeat and timestamps do not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepeatFrame {
    /// Choreographer vsync id = FrameTimeline surface token (`1000 + 2k`).
    pub token: i64,
    /// Vsync = expected surface frame start; its end is `vsync + 16_666_667`.
    pub vsync: i64,
    /// `Choreographer#doFrame <token>` on the main thread.
    pub ts: i64,
    pub dur: i64,
    /// `DrawFrames <token>` on RenderThread.
    pub draw_ts: i64,
    pub draw_dur: i64,
    /// Actual surface frame: `[ts, actual_end]`.
    pub actual_end: i64,
}

/// The frames of one recording (the ground truth of every repeat).
pub fn repeat_frames() -> Vec<RepeatFrame> {
    let mut rng = XorShift::new(0x7e9e_a7ed);
    let mut out = Vec::with_capacity(REPEAT_FRAMES);
    let mut vsync = 100 * MS;
    for k in 0..REPEAT_FRAMES as i64 {
        let p = REPEAT_PERIOD;
        let ts = vsync + rng.range(200 * US, 700 * US);
        // One frame in 40 runs 2.5 intervals long.
        let dur = if k % 40 == 39 { p * 5 / 2 } else { rng.range(p / 4, p * 2 / 3) };
        let draw_ts = ts + dur * 7 / 8 - 200 * US;
        let draw_dur = rng.range(p / 6, p / 2);
        let actual_end = draw_ts + draw_dur + 800 * US;
        out.push(RepeatFrame { token: 1000 + 2 * k, vsync, ts, dur, draw_ts, draw_dur, actual_end });
        // The next frame waits for the first vsync after this one's work.
        vsync += p * ((actual_end.max(ts + dur) - vsync) / p + 1);
    }
    out
}

/// Trace time between the starts of two consecutive recordings: the last
/// frame's display frame ends before it, rounded up to whole seconds.
pub fn repeat_span_ns(frames: &[RepeatFrame]) -> i64 {
    let last = frames.iter().map(|f| f.actual_end + 3 * REPEAT_PERIOD).max().unwrap_or(0);
    (last / 1_000_000_000 + 1) * 1_000_000_000
}

/// Writes one ~240-frame recording of `REPEAT_APP` (atrace doFrame with its
/// phases on the main thread, `DrawFrames` on RenderThread, FrameTimeline
/// expected/actual surface and display frames, sched_switch/sched_waking on
/// 4 CPUs) `repeats` times, each shifted by [`repeat_span_ns`]: the vsync ids
/// and tokens of every recording are the same, as in captures joined into
/// one file. Returns the bytes written.
pub fn repeated_recording<W: Write>(w: &mut W, repeats: u64) -> std::io::Result<u64> {
    repeated_recording_until(w, |r, _| r >= repeats)
}

/// [`repeated_recording`] until about `target_bytes` are written (it stops
/// after the recording that crosses the target). Returns (bytes, repeats).
pub fn repeated_recording_sized<W: Write>(w: &mut W, target_bytes: u64) -> std::io::Result<(u64, u64)> {
    let mut n = 0;
    let bytes = repeated_recording_until(w, |r, written| {
        n = r;
        written >= target_bytes
    })?;
    Ok((bytes, n))
}

fn repeated_recording_until<W: Write>(w: &mut W, mut done: impl FnMut(u64, u64) -> bool) -> std::io::Result<u64> {
    let opts =
        BuildOptions { cpus: REPEAT_CPUS, events_per_bundle: 256, compact_sched: true, ..BuildOptions::default() };
    let mut enc = StreamEncoder::new(opts);
    let mut b = TraceBuilder::new();
    let (pid, main, rt) = (REPEAT_PID, REPEAT_PID, REPEAT_RENDER_TID);
    let main_comm = &REPEAT_APP[REPEAT_APP.len() - 15..];
    b.process(1, "/system/bin/init").process(SF_PID, SF_PROCESS).thread(SF_PID, SF_PID, "surfaceflinger");
    b.process(pid, REPEAT_APP).thread(main, pid, main_comm).thread(rt, pid, "RenderThread");
    b.process(999, "system_server");
    let bg: Vec<(i32, String)> = (0..8).map(|j| (1100 + j, format!("bg_{j}"))).collect();
    for (tid, comm) in &bg {
        b.thread(*tid, 999, comm);
    }
    let frames = repeat_frames();
    let span = repeat_span_ns(&frames);
    let layer = format!("{REPEAT_APP}/{REPEAT_APP}.MainActivity#0");
    let mut written = 0u64;
    let mut repeats = 0u64;
    let mut out = Vec::with_capacity(1 << 20);
    while !done(repeats, written) {
        let t0 = REPEAT_T0 + repeats as i64 * span;
        // The same noise in every recording.
        let mut rng = XorShift::new(0x5c4e_d00d);
        for f in &frames {
            let (vsync, ts, end) = (t0 + f.vsync, t0 + f.ts, t0 + f.ts + f.dur);
            let (d0, d1) = (t0 + f.draw_ts, t0 + f.draw_ts + f.draw_dur);
            let q = f.dur / 8;
            // Main thread: woken by the vsync, runs the frame, sleeps.
            b.sched_waking(ts - 60 * US, 2, main, main_comm, 0);
            b.sched_switch(ts - 50 * US, 0, 0, "swapper/0", 0, main, main_comm);
            b.sched_switch(end + 20 * US, 0, main, main_comm, 1, 0, "swapper/0");
            b.atrace_begin(ts, main, pid, &format!("Choreographer#doFrame {}", f.token));
            b.slice(ts + 10 * US, q - 10 * US, main, pid, "animation");
            b.atrace_begin(ts + q + 10 * US, main, pid, "traversal");
            b.slice(ts + q + 20 * US, q - 20 * US, main, pid, "measure");
            b.slice(ts + 2 * q + 10 * US, 2 * q - 10 * US, main, pid, "layout");
            b.slice(ts + 4 * q + 10 * US, 3 * q - 10 * US, main, pid, "draw");
            b.atrace_end(ts + 7 * q + 10 * US, main, pid);
            b.slice(ts + 7 * q + 20 * US, f.dur - 7 * q - 30 * US, main, pid, "commit");
            b.atrace_end(end, main, pid);
            // RenderThread.
            b.sched_waking(d0 - 40 * US, 0, rt, "RenderThread", 1);
            b.sched_switch(d0 - 30 * US, 1, 0, "swapper/1", 0, rt, "RenderThread");
            b.sched_switch(d1 + 20 * US, 1, rt, "RenderThread", 1, 0, "swapper/1");
            b.atrace_begin(d0, rt, pid, &format!("DrawFrames {}", f.token));
            b.slice(d0 + 10 * US, 190 * US, rt, pid, "syncFrameState");
            b.slice(d0 + 220 * US, f.draw_dur - 520 * US, rt, pid, "flush commands");
            b.slice(d1 - 280 * US, 260 * US, rt, pid, "queueBuffer");
            b.atrace_end(d1, rt, pid);
            // SurfaceFlinger: VSYNC-app and the FrameTimeline.
            b.atrace_counter(vsync, SF_APP_TID, SF_PID, "VSYNC-app", (f.token / 2) & 1);
            AppFrameTimeline {
                vsync,
                period: REPEAT_PERIOD,
                start: ts,
                actual_end: t0 + f.actual_end,
                token: f.token,
                display_token: f.token + 1,
                pid,
                layer: layer.clone(),
            }
            .write(&mut b);
        }
        // Background tasks rotating on CPUs 2 and 3 over the recording.
        for cpu in 2..REPEAT_CPUS {
            let mut cur = 0usize;
            let mut t = t0 + 50 * MS;
            while t < t0 + span - 100 * MS {
                let next = 1 + (rng.next_u64() % bg.len() as u64) as usize;
                let next = if next == cur { 1 + next % bg.len() } else { next };
                let name = |i: usize| if i == 0 { format!("swapper/{cpu}") } else { bg[i - 1].1.clone() };
                let tid = |i: usize| if i == 0 { 0 } else { bg[i - 1].0 };
                b.sched_switch(t, cpu, tid(cur), &name(cur), (rng.next_u64() % 2) as i64, tid(next), &name(next));
                cur = next;
                t += rng.range(REPEAT_SWITCH_NS / 2, REPEAT_SWITCH_NS * 3 / 2);
            }
        }
        written += enc.flush_window(&mut b, &mut out, w)?;
        repeats += 1;
    }
    Ok(written)
}

/// Mean time between background context switches on CPUs 2 and 3.
const REPEAT_SWITCH_NS: i64 = 2 * MS;
