//! App startups as the platform traces them, one trace per SDK path of
//! Perfetto's `android.startup.startups` module: system_server's events
//! (`launchingActivity#N` and its `:completed-TYPE:PKG` instant on Android
//! 13+; `MetricsLogger:launchObserverNotify…` around `launching: PKG` on
//! 10–12; `launching: PKG` alone up to 9) and the app's main thread
//! (`bindApplication`, `activityStart`, `activityResume`,
//! `Choreographer#doFrame`, `reportFullyDrawn`) and RenderThread
//! (`DrawFrame`). The times are round milliseconds so a test's truth can be
//! worked out by hand from the comments here.

use super::{ActualFrame, TraceBuilder};

const MS: i64 = 1_000_000;
/// Every time below is this plus whole milliseconds.
pub const BASE_NS: i64 = 1_000_000_000_000;

pub const STARTUP_APP: &str = "com.example.startup";
pub const APP_PID: i32 = 5000;
const RENDER_TID: i32 = 5010;
const SYSTEM_SERVER_PID: i32 = 1000;
/// system_server's thread that writes the launch events.
const AM_TID: i32 = 1010;

/// Which of the module's paths a trace takes (its SDK, in SystemInfo).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartupSdk {
    /// Android 14 (SDK 34): `launchingActivity#N`.
    Sdk34,
    /// Android 11 (SDK 30): `MetricsLogger` spans.
    Sdk30,
    /// Android 9 (SDK 28): `launching: PKG`, hot starts from `activityResume`.
    Sdk28,
}

fn at(ms: i64) -> i64 {
    BASE_NS + ms * MS
}

struct Startups {
    b: TraceBuilder,
    /// The app's layer (FrameTimeline's surface frames).
    layer: String,
    /// Frames carry vsync ids and FrameTimeline slices (SDK 31+), else the
    /// plain `Choreographer#doFrame` / `DrawFrame` names of older builds.
    timeline: bool,
    next_frame: i64,
}

impl Startups {
    fn new(sdk: u64, timeline: bool, package: &str) -> Startups {
        let mut b = TraceBuilder::new();
        b.system_info("google/startup/generic:test", sdk);
        b.process(SYSTEM_SERVER_PID, "system_server")
            .thread(SYSTEM_SERVER_PID, SYSTEM_SERVER_PID, "system_server")
            .thread(AM_TID, SYSTEM_SERVER_PID, "ActivityManager")
            .process(APP_PID, package)
            .thread(APP_PID, APP_PID, "example.startup")
            .thread(RENDER_TID, APP_PID, "RenderThread");
        Startups { b, layer: format!("{package}/{package}.MainActivity#0"), timeline, next_frame: 101 }
    }

    /// A main-thread slice of the app, `from` to `to` ms.
    fn main(&mut self, from: i64, to: i64, name: &str) {
        self.b.slice(at(from), (to - from) * MS, APP_PID, APP_PID, name);
    }

    /// A frame: its doFrame on the main thread, its DrawFrame on the
    /// RenderThread (and FrameTimeline's expected and actual slices, from
    /// the doFrame's start to the DrawFrame's end, when `timeline`).
    fn frame(&mut self, do_frame: (i64, i64), draw_frame: (i64, i64)) {
        let id = self.next_frame;
        self.next_frame += 1;
        let (do_name, draw_name) = if self.timeline {
            (format!("Choreographer#doFrame {id}"), format!("DrawFrame {id}"))
        } else {
            ("Choreographer#doFrame".to_string(), "DrawFrame".to_string())
        };
        self.main(do_frame.0, do_frame.1, &do_name);
        self.b.slice(at(draw_frame.0), (draw_frame.1 - draw_frame.0) * MS, RENDER_TID, APP_PID, &draw_name);
        if self.timeline {
            let (from, to) = (at(do_frame.0), at(draw_frame.1));
            self.b.expected_surface_frame(from, Some(from + 16 * MS), id, id + 1000, APP_PID, &self.layer);
            let actual = ActualFrame {
                token: id,
                display_frame_token: id + 1000,
                pid: APP_PID,
                layer: self.layer.clone(),
                present_type: 1,
                on_time_finish: true,
                jank_type: 1,
                prediction_type: 1,
                ..Default::default()
            };
            self.b.actual_surface_frame(from, Some(to), actual);
        }
    }

    /// A system_server async slice, `from` to `to` ms.
    fn system_async(&mut self, from: i64, to: i64, name: &str, cookie: i64) {
        self.b.atrace_async_begin(at(from), AM_TID, SYSTEM_SERVER_PID, name, cookie);
        self.b.atrace_async_end(at(to), AM_TID, SYSTEM_SERVER_PID, name, cookie);
    }

    /// A system_server instant at `ms`.
    fn system_instant(&mut self, ms: i64, name: &str) {
        self.b.atrace_raw(at(ms), AM_TID, &format!("I|{SYSTEM_SERVER_PID}|{name}\n"));
    }

    /// A short system_server slice at `ms`.
    fn system_slice(&mut self, ms: i64, name: &str) {
        self.b.slice(at(ms), MS, AM_TID, SYSTEM_SERVER_PID, name);
    }

    /// A cold start's main thread from `t` ms: bindApplication t+100..t+400,
    /// activityStart t+450..t+500, activityResume t+500..t+550, the first
    /// frame's doFrame t+560..t+600 and DrawFrame t+600..t+700.
    fn cold_app(&mut self, t: i64) {
        self.cold_app_binding(t, 300);
    }

    /// [`Self::cold_app`] with a `bindApplication` of `bind` ms, the rest
    /// after it as long: the first DrawFrame ends at t + 400 + bind.
    fn cold_app_binding(&mut self, t: i64, bind: i64) {
        let b = t + 100 + bind;
        self.main(t + 100, b, "bindApplication");
        self.main(b + 50, b + 100, "activityStart");
        self.main(b + 100, b + 150, "activityResume");
        self.frame((b + 160, b + 200), (b + 200, b + 300));
    }

    /// A warm start's main thread from `t` ms: activityStart t+100..t+150,
    /// activityResume t+150..t+200, doFrame t+210..t+230, DrawFrame t+230..t+300.
    fn warm_app(&mut self, t: i64) {
        self.main(t + 100, t + 150, "activityStart");
        self.main(t + 150, t + 200, "activityResume");
        self.frame((t + 210, t + 230), (t + 230, t + 300));
    }
}

/// The startups of one SDK path; each test's truth is in its comments.
///
/// SDK 34 (ids are the `launchingActivity#N`):
/// - #1 cold, 1000..1800 ms (`completed-cold`); TTID 700 ms (DrawFrame
///   ends at 1700, frame 101); `reportFullyDrawn` at 1900, then frame 102's
///   DrawFrame ends at 1990: TTFD 990 ms;
/// - #2 warm, 3000..3400 (`completed-warm`); TTID 300 (frame 103), no TTFD;
/// - #3 5000..5200 completed without a type: the main thread only resumed,
///   so hot; TTID 150 (frame 104);
/// - #4 6000..6100 never completed (only `completed-same-process`, which
///   the module skips): no startup.
///
/// SDK 30 (ids by start; frames without vsync ids, numbered from 1):
/// - 0: intent at 1000, `launching:` 1010..1750, finished at 1760: cold by
///   its slices, 1000..1750; TTID 700 (frame 1);
/// - 1: intent at 3000, `launching:` 3010..3300, finished at 3310: warm,
///   3000..3300; TTID 300 (frame 2);
/// - an intent at 4000 that launched nothing ends the second span.
///
/// SDK 28:
/// - 0: `launching:` 1000..1750, cold by its slices; TTID 700 (frame 1);
/// - 1: hot, the `activityResume` at 3000 to the end of the first frame
///   after it (doFrame 3060, DrawFrame ends 3120), 3000..3120; TTID 120 (frame 2).
pub fn startups(sdk: StartupSdk) -> TraceBuilder {
    match sdk {
        StartupSdk::Sdk34 => sdk34(),
        StartupSdk::Sdk30 => sdk30(),
        StartupSdk::Sdk28 => sdk28(),
    }
}

fn sdk34() -> TraceBuilder {
    let mut s = Startups::new(34, true, STARTUP_APP);
    let pkg = STARTUP_APP;
    s.system_async(1000, 1800, "launchingActivity#1", 1);
    s.cold_app(1000);
    s.system_instant(1800, &format!("launchingActivity#1:completed-cold:{pkg}"));
    s.main(1900, 1901, "reportFullyDrawn() for ComponentInfo{com.example.startup/.MainActivity}");
    s.frame((1950, 1960), (1960, 1990));

    s.system_async(3000, 3400, "launchingActivity#2", 2);
    s.warm_app(3000);
    s.system_instant(3400, &format!("launchingActivity#2:completed-warm:{pkg}"));

    s.system_async(5000, 5200, "launchingActivity#3", 3);
    s.main(5050, 5080, "activityResume");
    s.frame((5090, 5100), (5100, 5150));
    s.system_instant(5200, &format!("launchingActivity#3:completed:{pkg}"));

    s.system_async(6000, 6100, "launchingActivity#4", 4);
    s.system_instant(6100, &format!("launchingActivity#4:completed-same-process:{pkg}"));
    s.b
}

fn sdk30() -> TraceBuilder {
    let mut s = Startups::new(30, false, STARTUP_APP);
    let launching = format!("launching: {STARTUP_APP}");
    s.system_slice(1000, "MetricsLogger:launchObserverNotifyIntentStarted");
    s.system_async(1010, 1750, &launching, 1);
    s.cold_app(1000);
    s.system_slice(1760, "MetricsLogger:launchObserverNotifyActivityLaunchFinished");

    s.system_slice(3000, "MetricsLogger:launchObserverNotifyIntentStarted");
    s.system_async(3010, 3300, &launching, 2);
    s.warm_app(3000);
    s.system_slice(3310, "MetricsLogger:launchObserverNotifyActivityLaunchFinished");

    s.system_slice(4000, "MetricsLogger:launchObserverNotifyIntentStarted");
    s.main(4500, 4501, "idle");
    s.b
}

fn sdk28() -> TraceBuilder {
    let mut s = Startups::new(28, false, STARTUP_APP);
    s.system_async(1000, 1750, &format!("launching: {STARTUP_APP}"), 1);
    s.cold_app(1000);

    s.main(3000, 3050, "activityResume");
    s.frame((3060, 3070), (3070, 3120));
    s.b
}

/// One cold start of `package` on Android 14, as `ab --launch cold` without a
/// scenario captures it: `launchingActivity#1` from 1000 ms, its
/// `bindApplication` `bind_ms` long, completed (cold) when the first frame's
/// DrawFrame ends, at 1400 + `bind_ms`: TTID and duration 400 + `bind_ms` ms.
pub fn cold_start(package: &str, bind_ms: i64) -> TraceBuilder {
    let mut s = Startups::new(34, true, package);
    let end = 1400 + bind_ms;
    s.system_async(1000, end, "launchingActivity#1", 1);
    s.cold_app_binding(1000, bind_ms);
    s.system_instant(end, &format!("launchingActivity#1:completed-cold:{package}"));
    s.b
}
