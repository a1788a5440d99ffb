//! Touch gestures (DOWN … UP on one channel) and the scroll jank the user
//! felt in them (docs/input.md, "Gestures"): a present of the app's that
//! showed input of the gesture and came more than 1.5 vsyncs after the app's
//! previous present (Chrome's scroll-jank rule, v3: a frame with scroll
//! updates presented late). Idle is not jank: a present that showed no input
//! of the gesture (the finger rested) is not judged.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::events::{once_per_dispatch, InputEvent, Presents};
use crate::frames::DisplayGrid;
use crate::model::{Name, Upid};
use crate::series::Percentiles;

/// A present is delayed when it came this many vsyncs after the previous.
pub const DELAYED_VSYNCS: f64 = 1.5;
/// The vsync period where the trace measures none (60 Hz).
const FALLBACK_PERIOD_NS: i64 = 16_666_667;

/// One gesture on one channel of one app.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gesture {
    #[serde(skip)]
    pub upid: Upid,
    pub pid: i32,
    pub process: Option<Name>,
    pub channel: String,
    /// The DOWN's read by InputReader (its dispatch without a read).
    pub start_ts: i64,
    /// The last event's dispatch.
    pub end_ts: i64,
    /// Its events (DOWN, MOVEs, UP), each once.
    pub events: i64,
    /// Ended by an UP or a CANCEL (not by the trace's end or a new DOWN).
    pub ended: bool,
    /// From the DOWN's read to the first present of any of its events.
    pub touch_to_first_frame_ns: Option<i64>,
    /// Its events' end-to-end latencies.
    pub end_to_end_ns: Percentiles,
    /// The app's presents that showed input of the gesture, but the first.
    pub judged_presents: i64,
    /// Those that came more than [`DELAYED_VSYNCS`] after the previous.
    pub delayed_frames: i64,
}

/// `delayed` in percent of `judged` presents; None with none judged.
pub fn delayed_pct(delayed: i64, judged: i64) -> Option<f64> {
    (judged > 0).then(|| 100.0 * delayed as f64 / judged as f64)
}

/// What begins gestures (and, for the apps with only `deliverInputEvent`, counts them).
pub(super) fn is_down(action: Option<&str>) -> bool {
    action == Some("DOWN")
}
fn is_end(action: Option<&str>) -> bool {
    matches!(action, Some("UP" | "CANCEL"))
}

/// The gestures of `events` (motion events, each dispatch once), by
/// process, channel and start.
pub fn gestures(events: &[InputEvent], presents: &Presents, grid: &DisplayGrid) -> Vec<Gesture> {
    let mut by_channel: FxHashMap<(Upid, &str), Vec<&InputEvent>> = FxHashMap::default();
    for e in once_per_dispatch(events) {
        if matches!(e.event_type.as_deref(), Some("MOTION" | "0x1")) {
            by_channel.entry((e.upid, e.event_channel.as_str())).or_default().push(e);
        }
    }
    let mut present_times: FxHashMap<Upid, Vec<i64>> = FxHashMap::default();
    let mut out = Vec::new();
    for ((upid, _), list) in by_channel {
        let times = present_times.entry(upid).or_insert_with(|| presents.times(upid));
        let mut open: Option<Vec<&InputEvent>> = None;
        for e in list {
            let action = e.action.as_deref();
            if is_down(action) {
                if let Some(g) = open.take() {
                    out.push(gesture(&g, false, times, grid));
                }
                open = Some(Vec::new());
            }
            if let Some(g) = open.as_mut() {
                g.push(e);
                if is_end(action) {
                    out.push(gesture(g, true, times, grid));
                    open = None;
                }
            }
        }
        if let Some(g) = open {
            out.push(gesture(&g, false, times, grid));
        }
    }
    out.sort_by(|a, b| (a.pid, &a.channel, a.start_ts).cmp(&(b.pid, &b.channel, b.start_ts)));
    out
}

/// One gesture from its events (the first is its DOWN).
fn gesture(events: &[&InputEvent], ended: bool, presents: &[i64], grid: &DisplayGrid) -> Gesture {
    let down = events[0];
    let start_ts = down.first_ts();
    let shown: Vec<i64> = events.iter().filter_map(|e| e.present_ts()).collect();
    let first = shown.iter().min().copied();
    let (judged_presents, delayed_frames) = judge(&shown, presents, grid);
    Gesture {
        upid: down.upid,
        pid: down.pid,
        process: down.process_name.clone(),
        channel: down.event_channel.clone(),
        start_ts,
        end_ts: events.iter().map(|e| e.dispatch_ts).max().unwrap_or(down.dispatch_ts),
        events: events.len() as i64,
        ended,
        touch_to_first_frame_ns: first.map(|p| p - start_ts),
        end_to_end_ns: Percentiles::of(events.iter().filter_map(|e| e.end_to_end_latency_dur).collect()),
        judged_presents,
        delayed_frames,
    }
}

/// (judged, delayed): each present that showed input of the gesture (an
/// event's frame was presented then), but the first, is judged against the
/// app's previous present (any), and delayed when it came more than
/// [`DELAYED_VSYNCS`] of the display's period after it.
fn judge(shown: &[i64], presents: &[i64], grid: &DisplayGrid) -> (i64, i64) {
    let mut with_input = shown.to_vec();
    with_input.sort_unstable();
    with_input.dedup();
    let (mut judged, mut delayed) = (0, 0);
    for &p in with_input.iter().skip(1) {
        let k = presents.partition_point(|&q| q < p);
        let Some(&prev) = k.checked_sub(1).and_then(|k| presents.get(k)) else { continue };
        judged += 1;
        let period = grid.period_at(p, FALLBACK_PERIOD_NS);
        if (p - prev) as f64 > DELAYED_VSYNCS * period as f64 {
            delayed += 1;
        }
    }
    (judged, delayed)
}
