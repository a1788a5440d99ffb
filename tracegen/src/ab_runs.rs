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
        }
    }
}

/// σ of the per-run device effect of [`RunSpec::new`]: a run's slow and
/// blocked frames vary by a factor 0.74–1.35 (±1 σ) around the build's rate.
pub const DEVICE_SIGMA: f64 = 0.3;

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
        let done = frame(&mut b, &mut rng, Frame { vsync, period, work, token, scene });
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
}

/// Lays out one frame; returns when its main-thread work ends.
fn frame(b: &mut TraceBuilder, rng: &mut XorShift, f: Frame) -> i64 {
    let (main, pid) = (AB_PID, AB_PID);
    let ts = f.vsync + rng.range(150 * US, 500 * US);
    let end = f.vsync + f.work.max(ts - f.vsync + 400 * US);
    let q = (end - ts) / 8;
    b.atrace_begin(ts, main, pid, &format!("Choreographer#doFrame {}", f.token));
    b.slice(ts + 10 * US, q, main, pid, "animation");
    b.slice(ts + q + 20 * US, 5 * q, main, pid, "traversal");
    b.atrace_begin(ts + 6 * q + 40 * US, main, pid, "commit");
    b.atrace_end(end - 10 * US, main, pid);
    b.atrace_end(end, main, pid);
    let rt0 = end - q / 2;
    let rt1 = rt0 + f.period / 5 + 300 * US;
    b.slice(rt0, rt1 - rt0, AB_RENDER_TID, pid, &format!("DrawFrames {}", f.token));
    timeline(b, &f, ts, rt1 + 700 * US);
    end
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
