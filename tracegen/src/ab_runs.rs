//! Repeated runs of one app for before/after comparisons (`fpsan compare`
//! tests and benchmarks): the same scroll-like scenario, drawn continuously,
//! with a chosen refresh rate, jank rate and seed.
//!
//! Two runs with the same [`RunSpec`] but different seeds are two captures
//! of the same build: same distributions, different draws, plus a per-run
//! device effect e = exp(N(0, σ)) (thermal state, background load): the run
//! has e times as many slow and blocked frames, each √e times as long in
//! dropped frames. Runs really differ run to run, which is why `compare`
//! takes the run, not the frame, as its unit.
//!
//! Each frame: `Choreographer#doFrame <id>` on the main thread with
//! `animation`, `traversal` and `commit` children; `DrawFrames <id>` on
//! RenderThread; SurfaceFlinger's `VSYNC-app` edge; FrameTimeline expected
//! and actual surface frames (layer = the scene's activity) and display
//! frames. The frame's work (vsync to commit end) is 25–60 % of the interval,
//! or, for a janky frame, `d · I + 2..6 ms` with `d` dropped frames: mostly
//! 1–4, one janky frame in ten 9–30. The next frame starts at the first vsync
//! after the work ends.
//!
//! With [`RunSpec::sched`] the main thread's scheduler events are written
//! too (running through each doFrame, asleep between); with
//! [`RunSpec::binder_ns`] each frame's traversal also makes a `binder
//! transaction` that long, answered by a `binder reply` on one of
//! system_server's binder threads (`binder:<pid>_<n>`, the pid changing run
//! to run, `n` frame to frame), which wakes the main thread: the frame's
//! critical path goes through that thread (docs/frames.md, "Critical path").

use super::scenarios::{AppFrameTimeline, XorShift, SF_APP_TID, SF_PID, SF_PROCESS};
use super::{BuildOptions, TraceBuilder};

const US: i64 = 1_000;
const MS: i64 = 1_000_000;
/// Trace time of the first vsync (2000 s after boot).
const T0: i64 = 2_000_000_000_000;

pub const AB_APP: &str = "com.example.compare";
pub const AB_PID: i32 = 7001;
const AB_RENDER_TID: i32 = 7020;
/// perfetto's process, on which `capture --drive` marks the scenario's window.
const PERFETTO_PID: i32 = 6001;

/// What one run looks like.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Different seeds give different runs of the same build.
    pub seed: u64,
    pub refresh_hz: f64,
    /// Trace length; frames are drawn the whole time.
    pub secs: f64,
    /// Probability that a frame is janky (before the per-run device effect).
    pub jank_prob: f64,
    /// σ of the log-normal per-run device effect (0: every run alike).
    pub device_sigma: f64,
    /// Activities visited one after the other, equal time each (scenes).
    pub scenes: Vec<String>,
    /// Android build fingerprint in the SystemInfo packet.
    pub fingerprint: String,
    /// A driven scenario's window, in seconds from the first vsync: the
    /// `fpsan.scenario` counter `capture --drive` writes (1, then 0) on
    /// perfetto's process.
    pub scenario_window: Option<(f64, f64)>,
    /// Write the main thread's sched_switch / sched_waking events.
    pub sched: bool,
    /// A binder call in every frame's traversal, this long (0: none; needs
    /// `sched` for its reply to wake the main thread). The frame's work grows by it.
    pub binder_ns: i64,
}

impl RunSpec {
    /// A 10 s, 60 Hz run with two scenes and the given jank probability.
    pub fn new(seed: u64, jank_prob: f64) -> Self {
        RunSpec {
            seed,
            refresh_hz: 60.0,
            secs: 10.0,
            jank_prob,
            device_sigma: DEVICE_SIGMA,
            scenes: vec![format!("{AB_APP}.ListActivity"), format!("{AB_APP}.DetailActivity")],
            fingerprint: "google/ab_device/ab:14/AP1A.240305.019/11445699:user/release-keys".into(),
            scenario_window: None,
            sched: false,
            binder_ns: 0,
        }
    }
}

/// σ of the per-run device effect of [`RunSpec::new`]: a run's slow and
/// blocked frames vary by a factor 0.74–1.35 (±1 σ) around the build's rate.
pub const DEVICE_SIGMA: f64 = 0.3;

/// Binder threads of system_server that answer the calls, `binder:<pid>_1` to `_<n>`.
const BINDER_THREADS: i32 = 4;
/// The reply starts this long after the transaction and ends this long before it.
pub const BINDER_REPLY_INSET_NS: i64 = 50 * US;

/// system_server's pid in the run of `seed` (it changes run to run, as after a reboot).
fn system_server_pid(seed: u64) -> i32 {
    1500 + (seed % 7) as i32
}

/// Main thread comm: the last 15 characters of the package name.
fn main_comm() -> &'static str {
    &AB_APP[AB_APP.len() - 15..]
}

/// The serialised trace of one run.
pub fn app_run(spec: &RunSpec) -> Vec<u8> {
    let mut b = TraceBuilder::new();
    b.process(1, "/system/bin/init").process(SF_PID, SF_PROCESS).thread(SF_PID, SF_PID, "surfaceflinger");
    b.thread(SF_APP_TID, SF_PID, "app");
    b.process(AB_PID, AB_APP).thread(AB_PID, AB_PID, main_comm()).thread(AB_RENDER_TID, AB_PID, "RenderThread");
    b.system_info(&spec.fingerprint, 34);
    let server = (spec.binder_ns > 0).then(|| {
        let pid = system_server_pid(spec.seed);
        b.process(pid, "system_server");
        for n in 1..=BINDER_THREADS {
            b.thread(pid * 100 + n, pid, &format!("binder:{pid}_{n}"));
        }
        pid
    });
    let mut rng = XorShift::new(spec.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xab);
    let device = (spec.device_sigma * standard_normal(&mut rng)).exp();
    let jank_prob = (spec.jank_prob * device).clamp(0.0, 1.0);
    let jank_size = device.sqrt();
    let period = (1e9 / spec.refresh_hz).round() as i64;
    let end_ts = T0 + (spec.secs * 1e9) as i64;
    let scene_ns = ((end_ts - T0) / spec.scenes.len().max(1) as i64).max(1);
    let mut vsync = T0 + period;
    let mut token = 50_000_000i64;
    let mut level = 0;
    if let Some((from, to)) = spec.scenario_window {
        // Written by the shells `adb shell echo` runs (a tid each), on perfetto's pid.
        b.process(PERFETTO_PID, "/system/bin/perfetto");
        b.atrace_counter(T0 + (from * 1e9) as i64, 30_001, PERFETTO_PID, "fpsan.scenario", 1);
        b.atrace_counter(T0 + (to * 1e9) as i64, 30_002, PERFETTO_PID, "fpsan.scenario", 0);
    }
    while vsync < end_ts {
        let scene = &spec.scenes[(((vsync - T0) / scene_ns) as usize).min(spec.scenes.len() - 1)];
        let janky = (rng.next_u64() % 1_000_000) as f64 / 1e6 < jank_prob;
        let work = frame_work(&mut rng, period, janky, jank_size);
        token += 2;
        level ^= 1;
        b.atrace_counter(vsync, SF_APP_TID, SF_PID, "VSYNC-app", level);
        let binder = server.map(|pid| (pid, pid * 100 + 1 + (token / 2 % i64::from(BINDER_THREADS)) as i32));
        let f = Frame { vsync, period, work, token, scene, binder, binder_ns: spec.binder_ns, sched: spec.sched };
        let done = frame(&mut b, &mut rng, f);
        vsync += period * ((done - vsync) / period + 1);
    }
    b.build(&BuildOptions::default())
}

/// A standard normal draw (Box–Muller on two uniforms of the builder's own
/// generator, so a seed gives the same trace on every platform).
fn standard_normal(rng: &mut XorShift) -> f64 {
    let uniform = |rng: &mut XorShift| ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    let (u1, u2) = (uniform(rng), uniform(rng));
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Vsync to commit end of one frame: a janky one drops 1–4 frames (slow),
/// one in ten 9–30 (blocked), times the run's `size` factor.
fn frame_work(rng: &mut XorShift, period: i64, janky: bool, size: f64) -> i64 {
    if !janky {
        return rng.range(period / 4, period * 3 / 5);
    }
    let dropped = if rng.range(0, 9) == 0 { rng.range(9, 30) } else { rng.range(1, 4) };
    let dropped = ((dropped as f64 * size).round() as i64).max(1);
    dropped * period + rng.range(2 * MS, 6 * MS)
}

struct Frame<'a> {
    vsync: i64,
    period: i64,
    /// Vsync to commit end.
    work: i64,
    token: i64,
    scene: &'a str,
    /// system_server's pid and the binder thread that answers this frame's call.
    binder: Option<(i32, i32)>,
    binder_ns: i64,
    sched: bool,
}

/// Lays out one frame; returns when its main-thread work ends.
fn frame(b: &mut TraceBuilder, rng: &mut XorShift, f: Frame) -> i64 {
    let (main, pid) = (AB_PID, AB_PID);
    let ts = f.vsync + rng.range(150 * US, 500 * US);
    // The binder call lengthens the traversal (and the frame) by its length.
    let extra = if f.binder.is_some() { f.binder_ns } else { 0 };
    let end = f.vsync + f.work.max(ts - f.vsync + 400 * US) + extra;
    let q = (end - extra - ts) / 8;
    b.atrace_begin(ts, main, pid, &format!("Choreographer#doFrame {}", f.token));
    b.slice(ts + 10 * US, q, main, pid, "animation");
    let traversal = ts + q + 20 * US;
    b.slice(traversal, 5 * q + extra, main, pid, "traversal");
    b.atrace_begin(ts + 6 * q + 40 * US + extra, main, pid, "commit");
    b.atrace_end(end - 10 * US, main, pid);
    b.atrace_end(end, main, pid);
    if f.sched {
        // Woken by nobody on the path (an interrupt) just before the doFrame, asleep after it.
        b.sched_waking(ts - 10 * US, MAIN_CPU + 1, main, main_comm(), MAIN_CPU);
        b.sched_switch(ts, MAIN_CPU, 0, "swapper/0", 0, main, main_comm());
        b.sched_switch(end, MAIN_CPU, main, main_comm(), SLEEPING, 0, "swapper/0");
    }
    if let Some((server, binder)) = f.binder {
        binder_call(b, main, (server, binder), traversal + 10 * US, f.binder_ns, f.sched);
    }
    let rt0 = end - q / 2;
    let rt1 = rt0 + f.period / 5 + 300 * US;
    b.slice(rt0, rt1 - rt0, AB_RENDER_TID, pid, &format!("DrawFrames {}", f.token));
    timeline(b, &f, ts, rt1 + 700 * US);
    end
}

/// The main thread's CPU; the binder thread runs on the next but one.
const MAIN_CPU: u32 = 0;
/// sched_switch's prev_state of a thread going to sleep (S).
const SLEEPING: i64 = 1;

/// A binder call of the main thread at `t0`, `len` long: it runs 20 µs into
/// the transaction and sleeps; system_server's `binder` thread replies from
/// `t0 + 50 µs` to `t0 + len − 50 µs` and wakes it at the reply's end; it
/// runs again 20 µs later. With `sched`, its critical path: `len − 100 µs`
/// in the binder thread's `binder reply` and 100 µs of the main thread in
/// `binder transaction`, of which the 30 µs from its sleep to the reply's
/// start go to the binder thread (outside slices) where the reader names the
/// waker; without `sched`, the main thread's `len` in the transaction
/// (nothing says it slept).
fn binder_call(b: &mut TraceBuilder, main: i32, (server, binder): (i32, i32), t0: i64, len: i64, sched: bool) {
    let name = format!("binder:{server}_{}", binder - server * 100);
    let (reply, reply_end) = (t0 + BINDER_REPLY_INSET_NS, t0 + len - BINDER_REPLY_INSET_NS);
    b.slice(t0, len, main, AB_PID, "binder transaction");
    b.slice(reply, reply_end - reply, binder, server, "binder reply");
    if !sched {
        return;
    }
    let cpu = MAIN_CPU + 2;
    b.sched_switch(t0 + 20 * US, MAIN_CPU, main, main_comm(), SLEEPING, 0, "swapper/0");
    b.sched_switch(reply, cpu, 0, "swapper/2", 0, binder, &name);
    // Recorded on the binder thread's CPU while it runs: it is the waker.
    b.sched_waking(reply_end, cpu, main, main_comm(), MAIN_CPU);
    b.sched_switch(reply_end + 10 * US, cpu, binder, &name, SLEEPING, 0, "swapper/2");
    b.sched_switch(reply_end + 20 * US, MAIN_CPU, 0, "swapper/0", 0, main, main_comm());
}

/// FrameTimeline surface and display frames of one app frame.
fn timeline(b: &mut TraceBuilder, f: &Frame, ts: i64, actual_end: i64) {
    AppFrameTimeline {
        vsync: f.vsync,
        period: f.period,
        start: ts,
        actual_end,
        token: f.token,
        display_token: f.token + 1,
        pid: AB_PID,
        layer: format!("{AB_APP}/{}#0", f.scene),
    }
    .write(b);
}
