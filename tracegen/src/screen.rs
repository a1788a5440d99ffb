//! A 90 Hz launcher on screen beside apps that only animate in the
//! background, and a SystemUI that drew three frames
//! ([`launcher_and_background_animators`]): what reached the screen decides
//! the apps' order and whether they get an FPS verdict (fpsan's
//! docs/metrics.md, "What reached the screen").
//!
//! Device: a 90 Hz panel, vsync `k` at [`vsync_ts`]`(k)` for `k` in
//! `0..VSYNCS`; SurfaceFlinger (pid 1000, tid 1000) toggles the `VSYNC-app`
//! counter at every vsync (value `(k + 1) % 2`). No FrameTimeline, no layer
//! counters: nothing presents, so an app's frames reached the screen when
//! they ran a `traversal` or a RenderThread `DrawFrames`.
//!
//! - [`LAUNCHER`] (pid 2000, main thread `droid.launcher3`, `RenderThread`
//!   2020) draws at vsyncs `0..LAUNCHER_FRAMES`: `Choreographer#doFrame <id>`
//!   4 ms from vsync + 500 µs with a `traversal` child (3.8 ms from 50 µs
//!   in), then `DrawFrames <id>` 3 ms on its RenderThread from the doFrame's
//!   end. Every frame is on time (cost 4.5 ms < one 11.1 ms period).
//! - [`SYSTEMUI`] (pid 1500, `RenderThread` 1520) draws the same way at
//!   vsyncs [`SYSTEMUI_VSYNCS`]: 3 frames.
//! - [`WEATHER`] (pid 3000) runs a doFrame at every vsync
//!   `0..WEATHER_FRAMES`: 2 ms from vsync + 300 µs, whose only child is
//!   `animation` (1.5 ms from 50 µs in). Its main thread's scheduler events
//!   on CPU 1, after the vsync: in at 200 µs, out sleeping at 1.3 ms, woken
//!   at 1.8 ms, in at 1.9 ms, out sleeping at 2.5 ms: it runs 1.0 and 0.4 ms
//!   of each doFrame ([`WEATHER_RUNNING_PER_FRAME_NS`]).
//! - [`CLOCK`] (pid 3100) animates the same way at vsyncs `0..CLOCK_FRAMES`,
//!   with no scheduler events.
//!
//! Vsync ids: `Choreographer#doFrame <vsync_id(k)>`.

use crate::TraceBuilder;

const US: i64 = 1_000;
const MS: i64 = 1_000_000;

/// BOOTTIME of vsync 0.
pub const T0: i64 = 3_000_000_000_000;
/// The vsyncs of the trace (3.78 s at 90 Hz).
pub const VSYNCS: i64 = 340;

/// Vsync `k`: `T0 + round(k · 1e9 / 90)`.
pub fn vsync_ts(k: i64) -> i64 {
    T0 + (k * 1_000_000_000 + 45) / 90
}

/// Vsync id of vsync `k`.
pub fn vsync_id(k: i64) -> i64 {
    20_000 + k
}

/// An app of the scenario: package, pid, main thread name (its comm), RenderThread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct App {
    pub package: &'static str,
    pub pid: i32,
    pub main_comm: &'static str,
    pub render_tid: Option<i32>,
}

pub const SF_PID: i32 = 1000;
pub const LAUNCHER: App =
    App { package: "com.android.launcher3", pid: 2000, main_comm: "droid.launcher3", render_tid: Some(2020) };
pub const SYSTEMUI: App =
    App { package: "com.android.systemui", pid: 1500, main_comm: "ndroid.systemui", render_tid: Some(1520) };
pub const WEATHER: App =
    App { package: "com.example.weather", pid: 3000, main_comm: "example.weather", render_tid: None };
pub const CLOCK: App = App { package: "com.example.clock", pid: 3100, main_comm: "m.example.clock", render_tid: None };

/// Frames the launcher draws (vsyncs `0..LAUNCHER_FRAMES`).
pub const LAUNCHER_FRAMES: i64 = 120;
/// The vsyncs SystemUI draws at.
pub const SYSTEMUI_VSYNCS: [i64; 3] = [10, 11, 12];
/// Animation-only doFrames of the weather app (vsyncs `0..WEATHER_FRAMES`).
pub const WEATHER_FRAMES: i64 = 330;
/// Animation-only doFrames of the clock app.
pub const CLOCK_FRAMES: i64 = 200;
/// The doFrame of an animating app.
pub const ANIMATE_DO_FRAME_NS: i64 = 2 * MS;
/// Time the weather app's main thread runs inside each of its doFrames:
/// 0.3–1.3 ms and 1.9–2.3 ms after the vsync.
pub const WEATHER_RUNNING_PER_FRAME_NS: i64 = 1_400 * US;

/// A View frame of `app` at vsync `k` (see the module doc).
fn draw(b: &mut TraceBuilder, app: App, k: i64) {
    let (pid, rt) = (app.pid, app.render_tid.expect("a drawing app has a RenderThread"));
    let ts = vsync_ts(k) + 500 * US;
    b.slice(ts, 4 * MS, pid, pid, &format!("Choreographer#doFrame {}", vsync_id(k)));
    b.slice(ts + 50 * US, 3_800 * US, pid, pid, "traversal");
    b.slice(ts + 4 * MS, 3 * MS, rt, pid, &format!("DrawFrames {}", vsync_id(k)));
}

/// An animation-only frame of `app` at vsync `k` (see the module doc).
fn animate(b: &mut TraceBuilder, app: App, k: i64) {
    let ts = vsync_ts(k) + 300 * US;
    b.slice(ts, ANIMATE_DO_FRAME_NS, app.pid, app.pid, &format!("Choreographer#doFrame {}", vsync_id(k)));
    b.slice(ts + 50 * US, 1_500 * US, app.pid, app.pid, "animation");
}

/// The scenario (see the module doc).
pub fn launcher_and_background_animators() -> TraceBuilder {
    let mut b = TraceBuilder::new();
    b.process(SF_PID, "/system/bin/surfaceflinger").thread(SF_PID, SF_PID, "surfaceflinger");
    for app in [LAUNCHER, SYSTEMUI, WEATHER, CLOCK] {
        b.process(app.pid, app.package).thread(app.pid, app.pid, app.main_comm);
        if let Some(rt) = app.render_tid {
            b.thread(rt, app.pid, "RenderThread");
        }
    }
    for k in 0..VSYNCS {
        b.atrace_counter(vsync_ts(k), SF_PID, SF_PID, "VSYNC-app", (k + 1) % 2);
    }
    for k in 0..LAUNCHER_FRAMES {
        draw(&mut b, LAUNCHER, k);
    }
    for k in SYSTEMUI_VSYNCS {
        draw(&mut b, SYSTEMUI, k);
    }
    let (tid, comm) = (WEATHER.pid, WEATHER.main_comm);
    for k in 0..WEATHER_FRAMES {
        animate(&mut b, WEATHER, k);
        let v = vsync_ts(k);
        b.sched_switch(v + 200 * US, 1, 0, "swapper/1", 0, tid, comm);
        b.sched_switch(v + 1_300 * US, 1, tid, comm, 1, 0, "swapper/1");
        b.sched_waking(v + 1_800 * US, 0, tid, comm, 1);
        b.sched_switch(v + 1_900 * US, 1, 0, "swapper/1", 0, tid, comm);
        b.sched_switch(v + 2_500 * US, 1, tid, comm, 1, 0, "swapper/1");
    }
    for k in 0..CLOCK_FRAMES {
        animate(&mut b, CLOCK, k);
    }
    b
}
