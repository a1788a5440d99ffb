//! Apps whose visible content is not drawn by the View hierarchy at the
//! display rate, each with its ground truth: a Unity game on a SurfaceView
//! ([`game`]), a Flutter app ([`flutter`]), a video player whose frames are
//! queued by a codec process ([`video`]) and a View app that draws only every
//! 2nd or 3rd vsync ([`sparse_drawing`], [`sparse_drawing_offset_drift`]).
//!
//! Common device (all scenarios): a 60 Hz panel, vsync `k` at
//! [`vsync_ts`]`(k)` for `k` in `0..VSYNCS` (2.6 s); apps start frames only
//! at vsyncs `<= LAST_FRAME_VSYNC`, so every buffer is presented inside the
//! trace. SurfaceFlinger (pid 1000, `/system/bin/surfaceflinger`, main thread
//! 1000 `surfaceflinger`, binder thread 1001 `binder:1000_1`):
//!
//! - atrace counters `VSYNC-sf`, `HW_VSYNC_0` and `VSYNC-app` toggling 1/0 at
//!   every vsync (value `(k + 1) % 2`), written by tid 1000;
//! - a per-layer counter named exactly as the layer: up by one while the
//!   producer's `queueBuffer` runs ([`COUNTER_BEFORE_QUEUE_END_NS`] before
//!   its end, written by the binder thread 1001, as `onFrameAvailable` runs
//!   inside the producer's binder call), down by one when SurfaceFlinger
//!   latches the buffer (written by tid 1000);
//! - a buffer queued at `q` is latched at the first vsync `j` with
//!   `vsync_ts(j) + 1 ms > q` (at `vsync_ts(j) + 1 ms`), at most one buffer
//!   per layer per vsync, and presented at `vsync_ts(j + 1)`;
//! - at each vsync `j` where some layer latched, `onMessageRefresh` (1 ms from
//!   `vsync_ts(j) + 500 µs`) on tid 1000;
//! - Perfetto form only (FrameTimeline has no systrace text, the systrace
//!   writer leaves it out): per composition an expected display frame
//!   `[vsync_j, vsync_j+1]` and an actual one `[vsync_j + 500 µs, vsync_j+1]`
//!   (token [`display_token`]`(j)`, pid 1000, on time); per buffer an expected
//!   surface frame `[expected start, vsync_k+1]` (display token of `k + 1`)
//!   and an actual one `[render start, present]` (display token of `j`),
//!   present type 1 / jank type 1 when latched at `k + 1`, else 2 / 64 (App
//!   Deadline Missed); prediction type 1; pid = the app's pid.
//!
//! Each app's main thread (tid = pid) names its frames
//! `Choreographer#doFrame <vsync_id(k)>`; a View frame's `DrawFrames <id>` on
//! `RenderThread` holds `syncFrameState`, `flush commands` and
//! `eglSwapBuffersWithDamageKHR` with `queueBuffer` nested in it.
//!
//! The truth ([`RendererExpect`]) is computed from each scenario's own
//! parameters, never by decoding what was written. Timestamps are in
//! nanoseconds; the systrace form prints them truncated to microseconds.

use std::collections::BTreeMap;

use super::scenarios::{JANK_APP_DEADLINE_MISSED, JANK_NONE, PREDICTION_VALID, PRESENT_LATE, PRESENT_ON_TIME};
use super::{ActualFrame, TraceBuilder};

const US: i64 = 1_000;
const MS: i64 = 1_000_000;

/// BOOTTIME of vsync 0 (2000 s after boot).
pub const T0: i64 = 2_000_000_000_000;
/// Vsyncs of every scenario (`k` in `0..VSYNCS`, 2.6 s at 60 Hz); the vsync
/// counters tick at each of them.
pub const VSYNCS: i64 = 156;
/// Apps start no frame after this vsync (the last buffer is presented by
/// vsync 153 at the latest).
pub const LAST_FRAME_VSYNC: i64 = 150;
/// The panel's vsync period (60 Hz; the grid's spacings are 16 666 666 and
/// 16 666 667 ns, two periods 33 333 333 or 33 333 334, six exactly 100 ms).
pub const DISPLAY_PERIOD_NS: i64 = 16_666_667;

pub const SF_PROCESS: &str = "/system/bin/surfaceflinger";
pub const SF_PID: i32 = 1000;
/// SurfaceFlinger's main thread: vsync counters, latches, `onMessageRefresh`.
pub const SF_MAIN_TID: i32 = 1000;
/// SurfaceFlinger's binder thread: the per-layer counter's increments.
pub const SF_BINDER_TID: i32 = 1001;
pub const SF_BINDER_NAME: &str = "binder:1000_1";
/// Android 13 build of every scenario's SystemInfo packet.
pub const FINGERPRINT: &str = "google/oriole/oriole:13/TQ3A.230901.001/10750268:user/release-keys";
pub const SDK: u64 = 33;

/// A buffer is latched this long after its vsync.
pub const LATCH_AFTER_VSYNC_NS: i64 = MS;
/// `onMessageRefresh` starts this long after the vsync and lasts 1 ms.
pub const REFRESH_AFTER_VSYNC_NS: i64 = 500 * US;
/// The per-layer counter goes up this long before the `queueBuffer` slice
/// ends (inside it).
pub const COUNTER_BEFORE_QUEUE_END_NS: i64 = 100 * US;

/// Vsync `k`: `T0 + round(k · 1e9 / 60)`.
pub fn vsync_ts(k: i64) -> i64 {
    T0 + (k * 1_000_000_000 + 30) / 60
}

/// Vsync id of vsync `k`: the id in `Choreographer#doFrame <id>` and the
/// FrameTimeline surface token of a frame started at `k`.
pub fn vsync_id(k: i64) -> i64 {
    10_000 + 2 * k
}

/// FrameTimeline display-frame token of SurfaceFlinger's composition at `k`.
pub fn display_token(k: i64) -> i64 {
    10_000 + 2 * k + 1
}

/// Surface token of a video buffer timed for vsync `k`: the codec has no
/// Choreographer vsync id, so its tokens come from a range of their own.
pub fn media_token(k: i64) -> i64 {
    50_000 + k
}

/// A scenario: the events, and what they mean.
#[derive(Debug, Clone)]
pub struct RendererScenario {
    /// Perfetto form: `builder.build(&BuildOptions::default())`; systrace
    /// form: `builder.systrace_text(&SystraceOptions::default())`.
    pub builder: TraceBuilder,
    /// Ground truth, from the scenario's own parameters.
    pub expect: RendererExpect,
}

/// One buffer of a layer, as the scenario laid it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SurfaceFrame {
    /// FrameTimeline surface token (expected and actual).
    pub token: i64,
    /// The vsync `k` the frame was started for.
    pub vsync_index: i64,
    /// FrameTimeline expected surface frame: `[expected_start, expected_end]`
    /// (`vsync_ts(k)` minus the offset of [`sparse_drawing_offset_drift`],
    /// else `vsync_ts(k)`; the end is `vsync_ts(k + 1)`).
    pub expected_start: i64,
    pub expected_end: i64,
    /// FrameTimeline actual surface frame start (the frame's render start).
    pub actual_start: i64,
    /// End of the producer's `queueBuffer` slice.
    pub queue_ts: i64,
    /// When SurfaceFlinger latched it (its layer counter goes down).
    pub latch_ts: i64,
    /// Vsync index of the latch (the composition).
    pub latch_vsync: i64,
    /// `vsync_ts(latch_vsync + 1)`: the actual surface frame's end.
    pub present_ts: i64,
    /// Actual surface frame's display token: `display_token(latch_vsync)`.
    pub display_frame_token: i64,
    /// FrameTimeline present type (1 on time, 2 late) and jank type (1 none,
    /// 64 app deadline missed).
    pub present_type: i32,
    pub jank_type: i32,
    /// Vsyncs the present came after the expected one (`vsync_ts(k + 2)`):
    /// `latch_vsync - (k + 1)`.
    pub dropped_frames: i64,
}

/// A layer of the app other than the visible one that also got buffers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherLayer {
    pub layer: String,
    /// Thread that queues its buffers (in the app).
    pub producer_tid: i32,
    pub frames: Vec<SurfaceFrame>,
}

/// Ground truth of a [`RendererScenario`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RendererExpect {
    pub package: &'static str,
    pub pid: i32,
    /// The main thread's name (its kernel comm: the last 15 characters of
    /// the package); its tid is `pid`.
    pub main_thread: String,
    /// Thread names of the app that reveal the renderer (empty for a plain
    /// View app).
    pub engine_threads: Vec<&'static str>,
    /// The layer that holds the visible content.
    pub layer: String,
    /// Thread that queues the layer's buffers, when it is in the app.
    pub producer_tid: Option<i32>,
    /// Process and thread that run the layer's `queueBuffer` slices, in the
    /// app or not.
    pub queue_pid: i32,
    pub queue_tid: i32,
    /// End of each `queueBuffer` slice of that producer, in order.
    pub queue_ts: Vec<i64>,
    /// Each time SurfaceFlinger's counter for `layer` goes down (a latch).
    pub latch_ts: Vec<i64>,
    /// Perfetto form only: end of each FrameTimeline actual surface frame of
    /// `layer`, in order.
    pub present_ts: Vec<i64>,
    /// Every buffer of `layer` (the vectors above are its columns).
    pub frames: Vec<SurfaceFrame>,
    /// Other layers of the app with buffers (the video's View layer).
    pub other_layers: Vec<OtherLayer>,
    /// The panel's vsync period.
    pub display_period_ns: i64,
    /// [`perfdog_janks`] on the present intervals (the same on the latch
    /// intervals, which are identical).
    pub perfdog_jank: i64,
    pub perfdog_big_jank: i64,
    /// `Choreographer#doFrame` slices of the app's main thread.
    pub doframes: usize,
    /// FrameTimeline surface frames of `layer` presented late.
    pub late_frames: usize,
}

/// PerfDog's Jank and BigJank counts over presents (or latches) in order:
/// interval `x` (from the previous present), with `a, b, c` the 3 intervals
/// before it, is a Jank when `3x > 2(a + b + c)` and `3x > 250 ms`, a
/// BigJank when `3x > 2(a + b + c)` and `x > 125 ms` (every BigJank is also
/// a Jank). Intervals without 3 predecessors are not judged.
pub fn perfdog_janks(ts: &[i64]) -> (i64, i64) {
    let iv: Vec<i64> = ts.windows(2).map(|w| w[1] - w[0]).collect();
    let (mut jank, mut big) = (0, 0);
    for i in 3..iv.len() {
        let (x, sum) = (iv[i], iv[i - 3] + iv[i - 2] + iv[i - 1]);
        if 3 * x > 2 * sum {
            jank += i64::from(3 * x > 250_000_000);
            big += i64::from(x > 125_000_000);
        }
    }
    (jank, big)
}

/// The kernel comm of an app's main thread: the last 15 characters of its
/// dotted package name.
fn main_comm(package: &str) -> String {
    package[package.len().saturating_sub(15)..].to_string()
}

/// A buffer a producer queued, before SurfaceFlinger's side is laid out.
struct Queued {
    layer: usize,
    /// FrameTimeline pid (the app that owns the layer).
    ft_pid: i32,
    token: i64,
    vsync_index: i64,
    expected_start: i64,
    actual_start: i64,
    queue_ts: i64,
}

/// SurfaceFlinger of the scenario: collects queued buffers, then writes the
/// latches, compositions and FrameTimeline.
#[derive(Default)]
struct Compositor {
    layers: Vec<String>,
    queued: Vec<Queued>,
}

/// First vsync whose latch point is strictly after `q`.
fn latch_vsync(q: i64) -> i64 {
    (0..).find(|&j| vsync_ts(j) + LATCH_AFTER_VSYNC_NS > q).expect("unbounded range")
}

impl Compositor {
    fn layer(&mut self, name: &str) -> usize {
        if let Some(i) = self.layers.iter().position(|l| l == name) {
            return i;
        }
        self.layers.push(name.to_owned());
        self.layers.len() - 1
    }

    #[allow(clippy::too_many_arguments)]
    fn queue(
        &mut self,
        layer: &str,
        ft_pid: i32,
        token: i64,
        vsync_index: i64,
        expected_start: i64,
        actual_start: i64,
        queue_ts: i64,
    ) {
        let layer = self.layer(layer);
        self.queued.push(Queued { layer, ft_pid, token, vsync_index, expected_start, actual_start, queue_ts });
    }

    /// Writes SurfaceFlinger's events into `b` and returns every layer's
    /// frames, in queue order.
    fn finish(mut self, b: &mut TraceBuilder) -> Vec<Vec<SurfaceFrame>> {
        b.process(SF_PID, SF_PROCESS).thread(SF_MAIN_TID, SF_PID, "surfaceflinger").thread(
            SF_BINDER_TID,
            SF_PID,
            SF_BINDER_NAME,
        );
        for k in 0..VSYNCS {
            let (t, v) = (vsync_ts(k), (k + 1) % 2);
            for name in ["VSYNC-sf", "HW_VSYNC_0", "VSYNC-app"] {
                b.atrace_counter(t, SF_MAIN_TID, SF_PID, name, v);
            }
        }
        self.queued.sort_by_key(|q| (q.layer, q.queue_ts));
        let mut frames: Vec<Vec<SurfaceFrame>> = vec![Vec::new(); self.layers.len()];
        // Composition vsync -> (layer, frame index) latched there, and the FrameTimeline pid.
        let mut comps: BTreeMap<i64, Vec<(usize, usize, i32)>> = BTreeMap::new();
        for q in &self.queued {
            let j = latch_vsync(q.queue_ts);
            assert!(j + 1 < VSYNCS, "buffer presented inside the trace");
            let prev = frames[q.layer].last().map(|f| f.latch_vsync);
            assert!(prev < Some(j), "one buffer per layer per vsync ({} at {j})", self.layers[q.layer]);
            let late = j > q.vsync_index + 1;
            let k = q.vsync_index;
            comps.entry(j).or_default().push((q.layer, frames[q.layer].len(), q.ft_pid));
            frames[q.layer].push(SurfaceFrame {
                token: q.token,
                vsync_index: k,
                expected_start: q.expected_start,
                expected_end: vsync_ts(k + 1),
                actual_start: q.actual_start,
                queue_ts: q.queue_ts,
                latch_ts: vsync_ts(j) + LATCH_AFTER_VSYNC_NS,
                latch_vsync: j,
                present_ts: vsync_ts(j + 1),
                display_frame_token: display_token(j),
                present_type: if late { PRESENT_LATE } else { PRESENT_ON_TIME },
                jank_type: if late { JANK_APP_DEADLINE_MISSED } else { JANK_NONE },
                dropped_frames: j - (k + 1),
            });
        }
        // Per-layer counters: queued-and-not-latched buffers.
        for (layer, fs) in self.layers.iter().zip(&frames) {
            let mut evs: Vec<(i64, i64, i32)> = Vec::new();
            for f in fs {
                evs.push((f.queue_ts - COUNTER_BEFORE_QUEUE_END_NS, 1, SF_BINDER_TID));
                evs.push((f.latch_ts, -1, SF_MAIN_TID));
            }
            evs.sort();
            assert!(evs.windows(2).all(|w| w[0].0 < w[1].0), "no two counter samples of {layer} at once");
            let mut n = 0;
            for (ts, d, tid) in evs {
                n += d;
                b.atrace_counter(ts, tid, SF_PID, layer, n);
            }
        }
        // Compositions, and FrameTimeline as SurfaceFlinger writes it at present.
        for (&j, latched) in &comps {
            let (v, next) = (vsync_ts(j), vsync_ts(j + 1));
            b.slice(v + REFRESH_AFTER_VSYNC_NS, MS, SF_MAIN_TID, SF_PID, "onMessageRefresh");
            let dt = display_token(j);
            b.expected_display_frame(v, Some(next), dt, SF_PID);
            b.actual_display_frame(
                v + REFRESH_AFTER_VSYNC_NS,
                Some(next),
                ActualFrame {
                    token: dt,
                    pid: SF_PID,
                    present_type: PRESENT_ON_TIME,
                    on_time_finish: true,
                    jank_type: JANK_NONE,
                    prediction_type: PREDICTION_VALID,
                    ..Default::default()
                },
            );
            for &(l, i, pid) in latched {
                let f = &frames[l][i];
                let layer = &self.layers[l];
                let expected_dt = display_token(f.vsync_index + 1);
                b.expected_surface_frame(f.expected_start, Some(f.expected_end), f.token, expected_dt, pid, layer);
                b.actual_surface_frame(
                    f.actual_start,
                    Some(f.present_ts),
                    ActualFrame {
                        token: f.token,
                        display_frame_token: f.display_frame_token,
                        pid,
                        layer: layer.clone(),
                        present_type: f.present_type,
                        on_time_finish: f.present_type == PRESENT_ON_TIME,
                        gpu_composition: false,
                        jank_type: f.jank_type,
                        prediction_type: PREDICTION_VALID,
                        ..Default::default()
                    },
                );
            }
        }
        frames
    }
}

/// What a scenario knows about itself before SurfaceFlinger's side is laid out.
struct Parts {
    package: &'static str,
    pid: i32,
    engine_threads: Vec<&'static str>,
    layer: String,
    producer_tid: Option<i32>,
    queue_pid: i32,
    queue_tid: i32,
    /// Other layer with buffers and its producer thread.
    other: Option<(String, i32)>,
    doframes: usize,
}

/// Registers SurfaceFlinger, writes its side and assembles the truth.
fn assemble(mut b: TraceBuilder, sf: Compositor, p: Parts) -> RendererScenario {
    b.system_info(FINGERPRINT, SDK);
    let idx = |name: &str| sf.layers.iter().position(|l| l == name);
    let (main_idx, other_idx) =
        (idx(&p.layer).expect("visible layer got buffers"), p.other.as_ref().map(|o| idx(&o.0)));
    let mut per_layer = sf.finish(&mut b);
    let frames = std::mem::take(&mut per_layer[main_idx]);
    let other_layers = match (p.other, other_idx) {
        (Some((layer, producer_tid)), Some(Some(i))) => {
            vec![OtherLayer { layer, producer_tid, frames: std::mem::take(&mut per_layer[i]) }]
        }
        _ => Vec::new(),
    };
    let present_ts: Vec<i64> = frames.iter().map(|f| f.present_ts).collect();
    let (perfdog_jank, perfdog_big_jank) = perfdog_janks(&present_ts);
    RendererScenario {
        builder: b,
        expect: RendererExpect {
            package: p.package,
            pid: p.pid,
            main_thread: main_comm(p.package),
            engine_threads: p.engine_threads,
            layer: p.layer,
            producer_tid: p.producer_tid,
            queue_pid: p.queue_pid,
            queue_tid: p.queue_tid,
            queue_ts: frames.iter().map(|f| f.queue_ts).collect(),
            latch_ts: frames.iter().map(|f| f.latch_ts).collect(),
            present_ts,
            late_frames: frames.iter().filter(|f| f.present_type == PRESENT_LATE).count(),
            frames,
            other_layers,
            display_period_ns: DISPLAY_PERIOD_NS,
            perfdog_jank,
            perfdog_big_jank,
            doframes: p.doframes,
        },
    }
}

/// A View frame of vsync `k`: `Choreographer#doFrame <id>` (`do_dur` from
/// `vsync + 500 µs`, with a `traversal` child) on the main thread, then
/// `DrawFrames <id>` (`draw_dur`, from 400 µs before doFrame ends) on
/// RenderThread with `syncFrameState`, `flush commands` and
/// `eglSwapBuffersWithDamageKHR` holding `queueBuffer`. Returns (doFrame
/// start, end of queueBuffer).
fn view_frame(b: &mut TraceBuilder, pid: i32, rt: i32, k: i64, do_dur: i64, draw_dur: i64) -> (i64, i64) {
    let id = vsync_id(k);
    let ts = vsync_ts(k) + 500 * US;
    b.slice(ts, do_dur, pid, pid, &format!("Choreographer#doFrame {id}"));
    b.slice(ts + 50 * US, do_dur - 150 * US, pid, pid, "traversal");
    let r0 = ts + do_dur - 400 * US;
    let r1 = r0 + draw_dur;
    b.slice(r0, draw_dur, rt, pid, &format!("DrawFrames {id}"));
    b.slice(r0 + 10 * US, 190 * US, rt, pid, "syncFrameState");
    b.slice(r0 + 220 * US, draw_dur - 1_820 * US, rt, pid, "flush commands");
    b.slice(r1 - 1_500 * US, 1_400 * US, rt, pid, "eglSwapBuffersWithDamageKHR");
    b.slice(r1 - 1_200 * US, 900 * US, rt, pid, "queueBuffer");
    (ts, r1 - 300 * US)
}

// ---------------------------------------------------------------------------
// game
// ---------------------------------------------------------------------------

pub const GAME_PACKAGE: &str = "com.example.game";
pub const GAME_PID: i32 = 7000;
pub const GAME_UNITY_MAIN_TID: i32 = 7010;
pub const GAME_GFX_TID: i32 = 7011;
pub const GAME_CHOREOGRAPHER_TID: i32 = 7012;
pub const GAME_RENDER_TID: i32 = 7020;
pub const GAME_LAYER: &str = "SurfaceView - com.example.game/com.unity3d.player.UnityPlayerActivity#0";
/// Hitches: after the buffer queued at vsync `.0`, the next one comes `.1`
/// vsyncs later (instead of 2).
pub const GAME_HITCHES: [(i64, i64); 2] = [(60, 6), (120, 12)];

/// Vsyncs at which the game queues a buffer: every 2nd, with [`GAME_HITCHES`].
fn game_queue_vsyncs() -> Vec<i64> {
    let mut out = vec![0];
    loop {
        let last = *out.last().expect("non-empty");
        let gap = GAME_HITCHES.iter().find(|h| h.0 == last).map_or(2, |h| h.1);
        if last + gap > LAST_FRAME_VSYNC {
            return out;
        }
        out.push(last + gap);
    }
}

/// A Unity game (`com.example.game`, pid 7000) on a SurfaceView, rendering
/// at 30 fps on the 60 Hz panel.
///
/// Threads: main 7000 (`om.example.game`), `UnityMain` 7010,
/// `UnityGfxDeviceW` 7011, `UnityChoreograp` 7012 (idle), `RenderThread`
/// 7020 (idle: the View hierarchy never redraws). The main thread runs a
/// cheap `Choreographer#doFrame <id>` (1.5 ms from vsync + 300 µs) at every
/// vsync of the trace, with no DrawFrames. The game queues a buffer at
/// vsyncs 0, 2, …, 60, 66, …, 120, 132, …, 150: `UnityMain` runs
/// `PlayerLoop` from `vsync_s + 1 ms` (s = 2 after the previous queue) to
/// `vsync_q + 7 ms`, then `UnityGfxDeviceW` runs `eglSwapBuffersWithDamageKHR`
/// (2 ms from `vsync_q + 10 ms`) holding `queueBuffer` (1 ms, from 0.5 ms
/// into it). The two long `PlayerLoop`s (started at 62 and 122) are the
/// hitches: present gaps of 100 and 200 ms, FrameTimeline late (jank 64),
/// PerfDog Jank 2, BigJank 1. Surface tokens `vsync_id(s)`, actual start =
/// PlayerLoop start.
pub fn game() -> RendererScenario {
    let (pid, unity, gfx) = (GAME_PID, GAME_UNITY_MAIN_TID, GAME_GFX_TID);
    let mut b = TraceBuilder::new();
    b.process(pid, GAME_PACKAGE)
        .thread(pid, pid, &main_comm(GAME_PACKAGE))
        .thread(unity, pid, "UnityMain")
        .thread(gfx, pid, "UnityGfxDeviceW")
        .thread(GAME_CHOREOGRAPHER_TID, pid, "UnityChoreograp")
        .thread(GAME_RENDER_TID, pid, "RenderThread");
    for k in 0..VSYNCS {
        b.slice(vsync_ts(k) + 300 * US, 1_500 * US, pid, pid, &format!("Choreographer#doFrame {}", vsync_id(k)));
    }
    let mut sf = Compositor::default();
    let mut prev: Option<i64> = None;
    for q in game_queue_vsyncs() {
        let s = prev.map_or(q, |p| p + 2);
        let loop_start = vsync_ts(s) + MS;
        b.slice(loop_start, vsync_ts(q) + 7 * MS - loop_start, unity, pid, "PlayerLoop");
        let swap = vsync_ts(q) + 10 * MS;
        b.slice(swap, 2 * MS, gfx, pid, "eglSwapBuffersWithDamageKHR");
        b.slice(swap + 500 * US, MS, gfx, pid, "queueBuffer");
        sf.queue(GAME_LAYER, pid, vsync_id(s), s, vsync_ts(s), loop_start, swap + 1_500 * US);
        prev = Some(q);
    }
    assemble(
        b,
        sf,
        Parts {
            package: GAME_PACKAGE,
            pid,
            engine_threads: vec!["UnityMain", "UnityGfxDeviceW", "UnityChoreograp"],
            layer: GAME_LAYER.to_owned(),
            producer_tid: Some(gfx),
            queue_pid: pid,
            queue_tid: gfx,
            other: None,
            doframes: VSYNCS as usize,
        },
    )
}

// ---------------------------------------------------------------------------
// flutter
// ---------------------------------------------------------------------------

pub const FLUTTER_PACKAGE: &str = "com.example.flutter";
pub const FLUTTER_PID: i32 = 7100;
pub const FLUTTER_UI_TID: i32 = 7110;
pub const FLUTTER_RASTER_TID: i32 = 7111;
pub const FLUTTER_IO_TID: i32 = 7112;
pub const FLUTTER_RENDER_TID: i32 = 7120;
pub const FLUTTER_LAYER: &str = "SurfaceView - com.example.flutter/com.example.flutter.MainActivity#0";
/// Frames whose raster takes 25 ms; the vsync after each starts no frame.
pub const FLUTTER_SLOW_FRAMES: [i64; 3] = [40, 80, 120];
/// `Animator::BeginFrame` on `1.ui`: starts this long after its vsync, lasts
/// [`FLUTTER_BUILD_NS`].
pub const FLUTTER_BUILD_AFTER_VSYNC_NS: i64 = MS;
pub const FLUTTER_BUILD_NS: i64 = 4 * MS;
/// `Rasterizer::DoDraw` on `1.raster`: starts this long after its vsync,
/// lasts [`FLUTTER_RASTER_NS`] ([`FLUTTER_SLOW_RASTER_NS`] for the slow frames).
pub const FLUTTER_RASTER_AFTER_VSYNC_NS: i64 = 6 * MS;
pub const FLUTTER_RASTER_NS: i64 = 5 * MS;
pub const FLUTTER_SLOW_RASTER_NS: i64 = 25 * MS;
/// The raster's `queueBuffer` ends this long before `Rasterizer::DoDraw` does.
pub const FLUTTER_QUEUE_END_BEFORE_RASTER_END_NS: i64 = 500 * US;

/// A Flutter app (`com.example.flutter`, pid 7100) drawing at 60 fps into a
/// FlutterSurfaceView.
///
/// Threads: main 7100 (`example.flutter`), `1.ui` 7110, `1.raster` 7111,
/// `1.io` 7112 (idle), `RenderThread` 7120 (idle). The main thread runs
/// `Choreographer#doFrame <id>` (1 ms from vsync + 200 µs) at every vsync
/// (Flutter's vsync waiter asks for each). A Flutter frame at vsync `k`:
/// `Animator::BeginFrame` on `1.ui` (4 ms from vsync + 1 ms), then
/// `Rasterizer::DoDraw` on `1.raster` (5 ms from vsync + 6 ms) ending with
/// `eglSwapBuffersWithDamageKHR` (its last 2 ms minus 200 µs) holding
/// `queueBuffer` (1 ms, ending 500 µs before DoDraw ends). Frames at every
/// vsync 0..=150 except: the rasters of [`FLUTTER_SLOW_FRAMES`] take 25 ms
/// (latched a vsync late, presented one vsync late: FrameTimeline late, jank
/// 64) and the vsync after each starts no Flutter frame (the layer-tree
/// pipeline is full), so the presents are one vsync apart except three gaps
/// of two. Surface tokens `vsync_id(k)`, actual start = BeginFrame start.
pub fn flutter() -> RendererScenario {
    let (pid, ui, raster) = (FLUTTER_PID, FLUTTER_UI_TID, FLUTTER_RASTER_TID);
    let mut b = TraceBuilder::new();
    b.process(pid, FLUTTER_PACKAGE)
        .thread(pid, pid, &main_comm(FLUTTER_PACKAGE))
        .thread(ui, pid, "1.ui")
        .thread(raster, pid, "1.raster")
        .thread(FLUTTER_IO_TID, pid, "1.io")
        .thread(FLUTTER_RENDER_TID, pid, "RenderThread");
    for k in 0..VSYNCS {
        b.slice(vsync_ts(k) + 200 * US, MS, pid, pid, &format!("Choreographer#doFrame {}", vsync_id(k)));
    }
    let mut sf = Compositor::default();
    for k in 0..=LAST_FRAME_VSYNC {
        if FLUTTER_SLOW_FRAMES.contains(&(k - 1)) {
            continue;
        }
        let v = vsync_ts(k);
        let build = v + FLUTTER_BUILD_AFTER_VSYNC_NS;
        b.slice(build, FLUTTER_BUILD_NS, ui, pid, "Animator::BeginFrame");
        let dur = if FLUTTER_SLOW_FRAMES.contains(&k) { FLUTTER_SLOW_RASTER_NS } else { FLUTTER_RASTER_NS };
        let (d0, d1) = (v + FLUTTER_RASTER_AFTER_VSYNC_NS, v + FLUTTER_RASTER_AFTER_VSYNC_NS + dur);
        b.slice(d0, dur, raster, pid, "Rasterizer::DoDraw");
        b.slice(d1 - 2 * MS, 1_800 * US, raster, pid, "eglSwapBuffersWithDamageKHR");
        let queue_end = d1 - FLUTTER_QUEUE_END_BEFORE_RASTER_END_NS;
        b.slice(queue_end - MS, MS, raster, pid, "queueBuffer");
        sf.queue(FLUTTER_LAYER, pid, vsync_id(k), k, v, build, queue_end);
    }
    assemble(
        b,
        sf,
        Parts {
            package: FLUTTER_PACKAGE,
            pid,
            engine_threads: vec!["1.ui", "1.raster", "1.io"],
            layer: FLUTTER_LAYER.to_owned(),
            producer_tid: Some(raster),
            queue_pid: pid,
            queue_tid: raster,
            other: None,
            doframes: VSYNCS as usize,
        },
    )
}

// ---------------------------------------------------------------------------
// video
// ---------------------------------------------------------------------------

pub const VIDEO_PACKAGE: &str = "com.example.video";
pub const VIDEO_PID: i32 = 7200;
/// `ExoPlayer:Playback` as the kernel keeps it (15 characters).
pub const VIDEO_PLAYBACK_THREAD: &str = "ExoPlayer:Playb";
pub const VIDEO_PLAYBACK_TID: i32 = 7210;
pub const VIDEO_MEDIACODEC_TID: i32 = 7211;
pub const VIDEO_CODEC_LOOPER_TID: i32 = 7212;
pub const VIDEO_RENDER_TID: i32 = 7220;
pub const VIDEO_LAYER: &str = "SurfaceView - com.example.video/com.example.video.PlayerActivity#0";
/// The app's own (View) layer: the player controls.
pub const VIDEO_UI_LAYER: &str = "com.example.video/com.example.video.PlayerActivity#0";
pub const CODEC_PROCESS: &str = "media.swcodec";
pub const CODEC_PID: i32 = 900;
/// The codec thread that queues the decoded frames to the SurfaceView.
pub const CODEC_QUEUE_TID: i32 = 905;
pub const CODEC_QUEUE_THREAD: &str = "HwBinder:900_2";
/// View frames of the controls fading out (vsyncs `0..VIDEO_UI_FRAMES`).
pub const VIDEO_UI_FRAMES: i64 = 10;

/// A video player (`com.example.video`, pid 7200): 30 fps video on the 60 Hz
/// panel, queued by the codec process.
///
/// Threads: main 7200 (`m.example.video`), `ExoPlayer:Playb` 7210 (the
/// kernel's 15 characters of `ExoPlayer:Playback`), `MediaCodec_loop` 7211,
/// `CodecLooper` 7212 (idle), `RenderThread` 7220; codec process pid 900
/// `media.swcodec` (main thread 900 `media.swcodec`, `HwBinder:900_2` 905).
/// For every 2nd vsync `k` in 0..=150: `doSomeWork` (1 ms from vsync + 3 ms)
/// with `releaseOutputBuffer` (200 µs from vsync + 3.5 ms) on the playback
/// thread, then `queueBuffer` (500 µs from vsync + 4 ms) on thread 905 of
/// pid 900, for layer `SurfaceView - …PlayerActivity#0`, whose FrameTimeline
/// surface frames have pid 7200 (the app owns the layer), tokens
/// [`media_token`]`(k)`, actual start = queueBuffer start. Steady, no hitch.
/// The main thread draws only 10 View frames (vsyncs 0..=9: doFrame 3 ms,
/// DrawFrames 3 ms) for the View layer `…PlayerActivity#0`
/// ([`RendererExpect::other_layers`]), then nothing.
pub fn video() -> RendererScenario {
    let (pid, playback, rt) = (VIDEO_PID, VIDEO_PLAYBACK_TID, VIDEO_RENDER_TID);
    let mut b = TraceBuilder::new();
    b.process(pid, VIDEO_PACKAGE)
        .thread(pid, pid, &main_comm(VIDEO_PACKAGE))
        .thread(playback, pid, VIDEO_PLAYBACK_THREAD)
        .thread(VIDEO_MEDIACODEC_TID, pid, "MediaCodec_loop")
        .thread(VIDEO_CODEC_LOOPER_TID, pid, "CodecLooper")
        .thread(rt, pid, "RenderThread")
        .process(CODEC_PID, CODEC_PROCESS)
        .thread(CODEC_PID, CODEC_PID, CODEC_PROCESS)
        .thread(CODEC_QUEUE_TID, CODEC_PID, CODEC_QUEUE_THREAD);
    let mut sf = Compositor::default();
    for k in 0..VIDEO_UI_FRAMES {
        let (ts, q) = view_frame(&mut b, pid, rt, k, 3 * MS, 3 * MS);
        sf.queue(VIDEO_UI_LAYER, pid, vsync_id(k), k, vsync_ts(k), ts, q);
    }
    for k in (0..=LAST_FRAME_VSYNC).step_by(2) {
        let v = vsync_ts(k);
        b.slice(v + 3 * MS, MS, playback, pid, "doSomeWork");
        b.slice(v + 3_500 * US, 200 * US, playback, pid, "releaseOutputBuffer");
        b.slice(v + 4 * MS, 500 * US, CODEC_QUEUE_TID, CODEC_PID, "queueBuffer");
        sf.queue(VIDEO_LAYER, pid, media_token(k), k, v, v + 4 * MS, v + 4_500 * US);
    }
    assemble(
        b,
        sf,
        Parts {
            package: VIDEO_PACKAGE,
            pid,
            engine_threads: vec![VIDEO_PLAYBACK_THREAD, "MediaCodec_loop", "CodecLooper"],
            layer: VIDEO_LAYER.to_owned(),
            producer_tid: None,
            queue_pid: CODEC_PID,
            queue_tid: CODEC_QUEUE_TID,
            other: Some((VIDEO_UI_LAYER.to_owned(), rt)),
            doframes: VIDEO_UI_FRAMES as usize,
        },
    )
}

// ---------------------------------------------------------------------------
// sparse_drawing
// ---------------------------------------------------------------------------

pub const SPARSE_PACKAGE: &str = "com.example.sparse";
pub const SPARSE_PID: i32 = 7300;
pub const SPARSE_RENDER_TID: i32 = 7320;
pub const SPARSE_LAYER: &str = "com.example.sparse/com.example.sparse.MainActivity#0";
/// The two offsets of [`sparse_drawing_offset_drift`] (SurfaceFlinger's work
/// duration config changing), each held for [`SPARSE_OFFSET_RUN`] frames.
pub const SPARSE_OFFSETS_NS: [i64; 2] = [6_100_000, 10_200_000];
pub const SPARSE_OFFSET_RUN: usize = 5;

/// Vsyncs at which the sparse app draws: gaps of 2 and 3 alternating.
fn sparse_vsyncs() -> Vec<i64> {
    (0..=LAST_FRAME_VSYNC).filter(|k| k % 5 == 0 || k % 5 == 2).collect()
}

/// A View app (`com.example.sparse`, pid 7300, main thread `.example.sparse`,
/// `RenderThread` 7320) that draws only at vsyncs 0, 2, 5, 7, 10, … (gaps of
/// 2 and 3 alternating) up to 150: doFrame 6 ms from vsync + 500 µs,
/// DrawFrames 3.6 ms; FrameTimeline surface frames only for those frames
/// (expected start = the vsync), while the vsync counters still tick every
/// vsync. Every frame is on time (0 dropped); the frame interval is the
/// panel's, 16 666 667.
pub fn sparse_drawing() -> RendererScenario {
    sparse(false)
}

/// [`sparse_drawing`] with each FrameTimeline expected start at the vsync
/// minus 6.1 ms or 10.2 ms (switching every 5 frames), so the spacing of
/// expected starts is no multiple of the period (29.2, 37.4, 45.9 or
/// 54.1 ms where the offset changes). Expected ends stay at the next vsync.
/// Truth unchanged: interval 16 666 667, 0 dropped.
pub fn sparse_drawing_offset_drift() -> RendererScenario {
    sparse(true)
}

fn sparse(drift: bool) -> RendererScenario {
    let (pid, rt) = (SPARSE_PID, SPARSE_RENDER_TID);
    let mut b = TraceBuilder::new();
    b.process(pid, SPARSE_PACKAGE).thread(pid, pid, &main_comm(SPARSE_PACKAGE)).thread(rt, pid, "RenderThread");
    let mut sf = Compositor::default();
    let ks = sparse_vsyncs();
    for (i, &k) in ks.iter().enumerate() {
        let (ts, q) = view_frame(&mut b, pid, rt, k, 6 * MS, 3_600 * US);
        let offset = if drift { SPARSE_OFFSETS_NS[(i / SPARSE_OFFSET_RUN) % 2] } else { 0 };
        sf.queue(SPARSE_LAYER, pid, vsync_id(k), k, vsync_ts(k) - offset, ts, q);
    }
    assemble(
        b,
        sf,
        Parts {
            package: SPARSE_PACKAGE,
            pid,
            engine_threads: Vec::new(),
            layer: SPARSE_LAYER.to_owned(),
            producer_tid: Some(rt),
            queue_pid: pid,
            queue_tid: rt,
            other: None,
            doframes: ks.len(),
        },
    )
}

/// Every scenario, by name.
pub fn all() -> Vec<(&'static str, RendererScenario)> {
    vec![
        ("game", game()),
        ("flutter", flutter()),
        ("video", video()),
        ("sparse_drawing", sparse_drawing()),
        ("sparse_drawing_offset_drift", sparse_drawing_offset_drift()),
    ]
}
