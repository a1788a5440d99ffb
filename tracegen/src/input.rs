//! Input events with the real slice names and nesting Android writes
//! (issue 43, trace_processor's stdlib `android.input`): InputReader's
//! `UnwantedInteractionBlocker::notifyMotion`, InputDispatcher's
//! `enqueueDispatchEntriesLocked` > `startDispatchCycleLocked` >
//! `publishMotionEvent` > `sendMessage(… (server), seq=…, type=…)`, the app's
//! `receiveMessage(… (client) …)`, `dispatchInputEvent …` >
//! `deliverInputEvent src=… eventTimeNano=… id=…`, its FINISHED
//! `sendMessage`, and InputDispatcher's FINISHED `receiveMessage`; the app's
//! doFrames, DrawFrames and FrameTimeline with SurfaceFlinger's display
//! frames.

use crate::{ActualFrame, TraceBuilder};

const MS: i64 = 1_000_000;
const US: i64 = 1_000;
/// Where the events begin.
pub const T0: i64 = 1_000_000_000_000;
pub const SYSTEM_SERVER: i32 = 1000;
pub const INPUT_READER: i32 = 1010;
pub const INPUT_DISPATCHER: i32 = 1011;
/// system_server's `android.ui`, which receives the pointer-event window's events.
pub const ANDROID_UI: i32 = 1012;
pub const APP: i32 = 2000;
pub const RENDER_THREAD: i32 = 2020;
pub const SURFACE_FLINGER: i32 = 500;
/// The app's input channel, as InputDispatcher names it.
pub const CHANNEL: &str = "abc1234 com.example.app/com.example.app.MainActivity";
/// A second window's channel (system_server's pointer events).
pub const POINTER_CHANNEL: &str = "PointerEventDispatcher0";
const LAYER: &str = "TX - com.example.app/com.example.app.MainActivity#0";

/// The events, each delivered to the app by InputDispatcher and acknowledged:
/// - A, at [`T0`]: a MOVE (id 0x111, read at T0 with `eventTime`), seq 0x1,
///   batched into `Choreographer#doFrame 100` (2–7 ms), delivered 2.2–2.7 ms
///   under `dispatchInputEvent MotionEvent ACTION_MOVE …`; the same event to
///   the second window `PointerEventDispatcher0` (seq 0x2, system_server's
///   `android.ui`);
/// - B, at 12 ms: a DOWN (id 0x222, no `eventTime`), seq 0x3, delivered
///   12.7–13.7 ms outside any doFrame (its parent names the action without
///   `ACTION_`, as Android 16 does); the next doFrame is 101 at 20 ms;
/// - C, at 30 ms: a FOCUS event, seq 0x4, sent with no dispatch nesting (no id);
/// - D (`late_up`), at 7.6 ms: an UP (id 0x333), seq 0x5, delivered 8.0–8.2 ms:
///   after doFrame 100 ended, inside frame 100's FrameTimeline span (2–10 ms).
///
/// FrameTimeline: the app's frames 100 (2–10 ms, display frame 200) and 101
/// (20–27 ms, display frame 201), on time; SurfaceFlinger's display frames
/// 200 (10–16 ms) and 201 (27–33 ms).
pub fn events(late_up: bool) -> TraceBuilder {
    let mut b = TraceBuilder::new();
    b.process(SYSTEM_SERVER, "system_server")
        .process(APP, "com.example.app")
        .process(SURFACE_FLINGER, "/system/bin/surfaceflinger");
    b.thread(SYSTEM_SERVER, SYSTEM_SERVER, "system_server")
        .thread(INPUT_READER, SYSTEM_SERVER, "InputReader")
        .thread(INPUT_DISPATCHER, SYSTEM_SERVER, "InputDispatcher")
        .thread(ANDROID_UI, SYSTEM_SERVER, "android.ui");
    b.thread(APP, APP, "com.example.app").thread(RENDER_THREAD, APP, "RenderThread").thread(
        SURFACE_FLINGER,
        SURFACE_FLINGER,
        "surfaceflinger",
    );
    let (ch, pch) = (CHANNEL, POINTER_CHANNEL);

    // A: a MOVE batched into doFrame 100, and to the second window.
    let a = T0;
    b.slice(
        a,
        50 * US,
        INPUT_READER,
        SYSTEM_SERVER,
        "UnwantedInteractionBlocker::notifyMotion(id=0x111, eventTime=999000000)",
    );
    dispatch(&mut b, a + 200 * US, ch, "0x111", 1, "MOTION", "MOVE");
    dispatch(&mut b, a + 300 * US, pch, "0x111", 2, "MOTION", "MOVE");
    b.slice(a + 500 * US, 10 * US, APP, APP, &message("receive", ch, "client", 1, "MOTION"));
    b.slice(a + 510 * US, 10 * US, ANDROID_UI, SYSTEM_SERVER, &message("receive", pch, "client", 2, "MOTION"));
    b.slice(a + 600 * US, 10 * US, ANDROID_UI, SYSTEM_SERVER, &message("send", pch, "client", 2, "FINISHED"));
    b.slice(a + 700 * US, 10 * US, INPUT_DISPATCHER, SYSTEM_SERVER, &message("receive", pch, "server", 2, "FINISHED"));
    b.atrace_begin(a + 2 * MS, APP, APP, "Choreographer#doFrame 100");
    b.atrace_begin(
        a + 2_100 * US,
        APP,
        APP,
        "dispatchInputEvent MotionEvent ACTION_MOVE deviceId=4 source=0x1002, historySize=2",
    );
    b.slice(a + 2_200 * US, 500 * US, APP, APP, "deliverInputEvent src=0x1002 eventTimeNano=999000000 id=0x111");
    b.atrace_end(a + 3 * MS, APP, APP);
    b.slice(a + 3_200 * US, 10 * US, APP, APP, &message("send", ch, "client", 1, "FINISHED"));
    b.atrace_end(a + 7 * MS, APP, APP);
    b.slice(a + 7 * MS, 3 * MS, RENDER_THREAD, APP, "DrawFrame 100");
    b.slice(a + 7_500 * US, 10 * US, INPUT_DISPATCHER, SYSTEM_SERVER, &message("receive", ch, "server", 1, "FINISHED"));

    // B: a DOWN delivered outside any doFrame.
    let down = T0 + 12 * MS;
    b.slice(down, 50 * US, INPUT_READER, SYSTEM_SERVER, "UnwantedInteractionBlocker::notifyMotion(id=0x222)");
    dispatch(&mut b, down + 200 * US, ch, "0x222", 3, "MOTION", "DOWN");
    b.slice(down + 500 * US, 10 * US, APP, APP, &message("receive", ch, "client", 3, "MOTION"));
    b.atrace_begin(
        down + 600 * US,
        APP,
        APP,
        "dispatchInputEvent MotionEvent DOWN deviceId=4 source=0x1002, historySize=0",
    );
    b.slice(down + 700 * US, MS, APP, APP, "deliverInputEvent src=0x1002 eventTimeNano=1011000000 id=0x222");
    b.atrace_end(down + 2 * MS, APP, APP);
    b.slice(down + 2_100 * US, 10 * US, APP, APP, &message("send", ch, "client", 3, "FINISHED"));
    b.slice(
        down + 2_300 * US,
        10 * US,
        INPUT_DISPATCHER,
        SYSTEM_SERVER,
        &message("receive", ch, "server", 3, "FINISHED"),
    );
    b.slice(T0 + 20 * MS, 4 * MS, APP, APP, "Choreographer#doFrame 101");
    b.slice(T0 + 24 * MS, 3 * MS, RENDER_THREAD, APP, "DrawFrame 101");

    // C: a FOCUS event, sent with no dispatch nesting.
    let focus = T0 + 30 * MS;
    b.slice(focus, 5 * US, INPUT_DISPATCHER, SYSTEM_SERVER, &message("send", ch, "server", 4, "FOCUS"));
    b.slice(focus + 100 * US, 5 * US, APP, APP, &message("receive", ch, "client", 4, "FOCUS"));
    b.slice(focus + 200 * US, 5 * US, APP, APP, &message("send", ch, "client", 4, "FINISHED"));
    b.slice(
        focus + 300 * US,
        5 * US,
        INPUT_DISPATCHER,
        SYSTEM_SERVER,
        &message("receive", ch, "server", 4, "FINISHED"),
    );

    // D: an UP delivered after doFrame 100, inside its frame's FrameTimeline span.
    if late_up {
        b.slice(
            T0 + 7_600 * US,
            50 * US,
            INPUT_READER,
            SYSTEM_SERVER,
            "UnwantedInteractionBlocker::notifyMotion(id=0x333, eventTime=1007600000)",
        );
        dispatch(&mut b, T0 + 7_700 * US, ch, "0x333", 5, "MOTION", "UP");
        b.slice(T0 + 7_800 * US, 10 * US, APP, APP, &message("receive", ch, "client", 5, "MOTION"));
        b.atrace_begin(
            T0 + 7_900 * US,
            APP,
            APP,
            "dispatchInputEvent MotionEvent ACTION_UP deviceId=4 source=0x1002, historySize=0",
        );
        b.slice(T0 + 8_000 * US, 200 * US, APP, APP, "deliverInputEvent src=0x1002 eventTimeNano=1007600000 id=0x333");
        b.atrace_end(T0 + 8_300 * US, APP, APP);
        b.slice(T0 + 8_400 * US, 10 * US, APP, APP, &message("send", ch, "client", 5, "FINISHED"));
        b.slice(
            T0 + 8_600 * US,
            10 * US,
            INPUT_DISPATCHER,
            SYSTEM_SERVER,
            &message("receive", ch, "server", 5, "FINISHED"),
        );
    }

    // FrameTimeline: the app's surface frames and SurfaceFlinger's display frames.
    for (token, display, start, end, display_start, display_end) in
        [(100, 200, 2 * MS, 10 * MS, 10 * MS, 16 * MS), (101, 201, 20 * MS, 27 * MS, 27 * MS, 33 * MS)]
    {
        let on_time = ActualFrame {
            present_type: 1,
            on_time_finish: true,
            jank_type: 1,
            prediction_type: 1,
            ..Default::default()
        };
        b.expected_surface_frame(T0 + start, Some(T0 + start + 16 * MS), token, display, APP, LAYER);
        b.actual_surface_frame(
            T0 + start,
            Some(T0 + end),
            ActualFrame { token, display_frame_token: display, pid: APP, layer: LAYER.into(), ..on_time.clone() },
        );
        b.expected_display_frame(T0 + display_start, Some(T0 + display_start + 16 * MS), display, SURFACE_FLINGER);
        b.actual_display_frame(
            T0 + display_start,
            Some(T0 + display_end),
            ActualFrame { token: display, pid: SURFACE_FLINGER, ..on_time },
        );
    }
    b
}

/// An event on the app's channel: InputReader's read at `read` (a motion's;
/// a key has none), InputDispatcher's dispatch 0.2 ms later and the app's
/// receipt 0.5 ms after the read.
fn arrive(b: &mut TraceBuilder, read: i64, id: &str, seq: u32, ty: &str, action: &str) {
    arrive_at(b, read, read + 500 * US, id, seq, ty, action);
}

/// [`arrive`], received by the app at `receipt`.
fn arrive_at(b: &mut TraceBuilder, read: i64, receipt: i64, id: &str, seq: u32, ty: &str, action: &str) {
    if ty == "MOTION" {
        b.slice(
            read,
            50 * US,
            INPUT_READER,
            SYSTEM_SERVER,
            &format!("UnwantedInteractionBlocker::notifyMotion(id={id})"),
        );
    }
    dispatch(b, read + 200 * US, CHANNEL, id, seq, ty, action);
    b.slice(receipt, 10 * US, APP, APP, &message("receive", CHANNEL, "client", seq, ty));
}

/// `sendMessage(inputChannel=CH (SIDE), seq=0xN, type=TYPE)` or `receiveMessage(…)`.
fn message(verb: &str, channel: &str, side: &str, seq: u32, ty: &str) -> String {
    format!("{verb}Message(inputChannel={channel} ({side}), seq=0x{seq:x}, type={ty})")
}

/// InputDispatcher's nesting of one event to one channel at `ts`: enqueue >
/// start of the dispatch cycle > publish (`publishMotionEvent(…, action=…)`,
/// `publishKeyEvent(…)` for a KEY) > `sendMessage` (5 µs, 30 µs in).
fn dispatch(b: &mut TraceBuilder, ts: i64, channel: &str, id: &str, seq: u32, ty: &str, action: &str) {
    let (tid, pid) = (INPUT_DISPATCHER, SYSTEM_SERVER);
    b.atrace_begin(ts, tid, pid, &format!("enqueueDispatchEntriesLocked(inputChannel={channel} (server), id={id})"));
    b.atrace_begin(ts + 10 * US, tid, pid, &format!("startDispatchCycleLocked(inputChannel={channel} (server))"));
    b.atrace_begin(
        ts + 20 * US,
        tid,
        pid,
        &if ty == "KEY" {
            format!("publishKeyEvent(inputChannel={channel} (server), action={action})")
        } else {
            format!("publishMotionEvent(inputChannel={channel} (server), action={action})")
        },
    );
    b.slice(ts + 30 * US, 5 * US, tid, pid, &message("send", channel, "server", seq, ty));
    b.atrace_end(ts + 40 * US, tid, pid);
    b.atrace_end(ts + 50 * US, tid, pid);
    b.atrace_end(ts + 60 * US, tid, pid);
}

/// One vsync period of the scroll's 60 Hz display.
pub const SCROLL_VSYNC: i64 = 16_666_667;
/// Where the scroll begins.
pub const SCROLL_T0: i64 = 2_000_000_000_000;

/// A scroll, one gesture on the app's channel, with the truth docs/input.md
/// and the tests work out by hand (P = [`SCROLL_VSYNC`], times from
/// [`SCROLL_T0`]):
/// - DOWN read at 8 ms (id 0x1000, seq 0x1), delivered off-frame at
///   8.7–9.7 ms, matched to the next doFrame (frame 101) speculatively;
/// - a MOVE for frames k = 1 … 8 (id 0x1000 + k, seq 0x1 + k), read at
///   kP − 3 ms; for k = 1, 2, 3, 4, 7, 8 received at kP − 2.5 ms, delivered
///   inside `Choreographer#doFrame 10k` (at kP) and finished 1 ms into it
///   (3.5 ms of handling); frame 4's handler is slow (30 ms, 33 ms of
///   handling) and its doFrame lasts 40 ms, so Choreographer skips frames 5
///   and 6: MOVEs 5 and 6 are received once it ends (4P + 40.5 ms, + 41 ms)
///   and batched with 7's into frame 7's input phase, one delivery with the
///   first sample's id (0x1005), each finished 10 µs after the one before;
/// - UP read at 9P + 5 ms (id 0x1009, seq 0xa), delivered off-frame, no
///   frame after it; then a KEY event (seq 0xb) at 11P, not part of the gesture;
/// - FrameTimeline: app frame 10k from kP, presented by display frame 20k,
///   which ends at (k + 2)P for k ≤ 3, 8P for the late frame 4, 9P and 10P
///   for 7 and 8.
pub fn scroll() -> TraceBuilder {
    const P: i64 = SCROLL_VSYNC;
    let t = SCROLL_T0;
    let mut b = TraceBuilder::new();
    b.process(SYSTEM_SERVER, "system_server")
        .process(APP, "com.example.app")
        .process(SURFACE_FLINGER, "/system/bin/surfaceflinger");
    b.thread(SYSTEM_SERVER, SYSTEM_SERVER, "system_server").thread(INPUT_READER, SYSTEM_SERVER, "InputReader").thread(
        INPUT_DISPATCHER,
        SYSTEM_SERVER,
        "InputDispatcher",
    );
    b.thread(APP, APP, "com.example.app").thread(RENDER_THREAD, APP, "RenderThread").thread(
        SURFACE_FLINGER,
        SURFACE_FLINGER,
        "surfaceflinger",
    );
    let ch = CHANNEL;
    // The off-frame events: DOWN, UP, KEY, each delivered 0.7 ms after its read.
    let off_frame = |b: &mut TraceBuilder, read: i64, id: u32, seq: u32, ty: &str, action: &str, parent: &str| {
        let id = format!("0x{id:x}");
        arrive(b, read, &id, seq, ty, action);
        b.atrace_begin(read + 600 * US, APP, APP, parent);
        b.slice(read + 700 * US, MS, APP, APP, &format!("deliverInputEvent src=0x1002 eventTimeNano={read} id={id}"));
        b.atrace_end(read + 2 * MS, APP, APP);
        b.slice(read + 2_100 * US, 10 * US, APP, APP, &message("send", ch, "client", seq, "FINISHED"));
        b.slice(
            read + 2_300 * US,
            10 * US,
            INPUT_DISPATCHER,
            SYSTEM_SERVER,
            &message("receive", ch, "server", seq, "FINISHED"),
        );
    };
    off_frame(
        &mut b,
        t + 8 * MS,
        0x1000,
        1,
        "MOTION",
        "DOWN",
        "dispatchInputEvent MotionEvent ACTION_DOWN deviceId=4 source=0x1002, historySize=0",
    );
    let move_id = |k: u32| format!("0x{:x}", 0x1000 + k);
    let move_read = |k: u32| t + i64::from(k) * P - 3 * MS;
    // MOVEs 5 and 6 are read while frame 4's doFrame holds the UI thread:
    // received once it ends, batched with 7's into frame 7's input phase.
    for k in [5u32, 6] {
        let receipt = t + 4 * P + 40 * MS + i64::from(k - 4) * 500 * US;
        arrive_at(&mut b, move_read(k), receipt, &move_id(k), 1 + k, "MOTION", "MOVE");
    }
    for k in [1u32, 2, 3, 4, 7, 8] {
        let frame = t + i64::from(k) * P;
        arrive(&mut b, move_read(k), &move_id(k), 1 + k, "MOTION", "MOVE");
        // One delivery per frame, with the first batched sample's id and read, as Android batches.
        let batch: &[u32] = if k == 7 { &[5, 6, 7] } else { &[k] };
        let (id, first_read) = (move_id(batch[0]), move_read(batch[0]));
        // Frame 4's handler is slow, and so its doFrame.
        let (handler, do_frame) = if k == 4 { (30 * MS, 40 * MS) } else { (500 * US, 4 * MS) };
        b.atrace_begin(frame, APP, APP, &format!("Choreographer#doFrame {}", 100 + k));
        b.atrace_begin(
            frame + 100 * US,
            APP,
            APP,
            &format!(
                "dispatchInputEvent MotionEvent ACTION_MOVE deviceId=4 source=0x1002, historySize={}",
                batch.len() - 1
            ),
        );
        b.slice(
            frame + 200 * US,
            handler,
            APP,
            APP,
            &format!("deliverInputEvent src=0x1002 eventTimeNano={first_read} id={id}"),
        );
        b.atrace_end(frame + 200 * US + handler + 100 * US, APP, APP);
        // Every batched sample is finished, 10 µs apart, and acknowledged 1 ms later.
        for (i, &j) in (0i64..).zip(batch) {
            let finished = frame + 500 * US + handler + i * 10 * US;
            b.slice(finished, 10 * US, APP, APP, &message("send", ch, "client", 1 + j, "FINISHED"));
            let ack = message("receive", ch, "server", 1 + j, "FINISHED");
            b.slice(finished + MS, 10 * US, INPUT_DISPATCHER, SYSTEM_SERVER, &ack);
        }
        b.atrace_end(frame + do_frame, APP, APP);
        b.slice(frame + do_frame, 4 * MS, RENDER_THREAD, APP, &format!("DrawFrame {}", 100 + k));
        // Presented at the end of display frame 20k.
        let present = t + P * match k {
            4 => 8,
            7 => 9,
            8 => 10,
            k => i64::from(k) + 2,
        };
        let (token, display) = (100 + i64::from(k), 200 + i64::from(k));
        let frame_end = frame + do_frame + 4 * MS;
        let on_time = ActualFrame {
            present_type: if k == 4 { 2 } else { 1 },
            on_time_finish: k != 4,
            jank_type: if k == 4 { 64 } else { 1 },
            prediction_type: 1,
            ..Default::default()
        };
        b.expected_surface_frame(frame, Some(frame + P), token, display, APP, LAYER);
        b.actual_surface_frame(
            frame,
            Some(frame_end),
            ActualFrame { token, display_frame_token: display, pid: APP, layer: LAYER.into(), ..on_time.clone() },
        );
        b.expected_display_frame(present - P, Some(present), display, SURFACE_FLINGER);
        b.actual_display_frame(
            present - P,
            Some(present),
            ActualFrame { token: display, pid: SURFACE_FLINGER, ..on_time },
        );
    }
    off_frame(
        &mut b,
        t + 9 * P + 5 * MS,
        0x1009,
        10,
        "MOTION",
        "UP",
        "dispatchInputEvent MotionEvent ACTION_UP deviceId=4 source=0x1002, historySize=0",
    );
    off_frame(
        &mut b,
        t + 11 * P,
        0x100a,
        11,
        "KEY",
        "DOWN",
        "dispatchInputEvent KeyEvent { action=ACTION_DOWN, keyCode=KEYCODE_BACK }",
    );
    b
}
