//! One input summary per app (docs/input.md, "Per app"): the one definition
//! the terminal, the JSON, summary.json, report.html, Python and `compare`
//! format.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::events::{once_per_dispatch, Found, InputEvent};
use super::gestures::{delayed_pct, is_down, Gesture};
use crate::model::{Name, Trace, Upid};
use crate::series::Percentiles;

/// Where an app's input numbers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputSource {
    /// InputDispatcher's and the app's input slices (Android 12+ with the
    /// `input` category): `android_input_events`.
    InputEvents,
    /// Only the app's `deliverInputEvent` slices (systrace, Android ≤ 11,
    /// or a capture without InputDispatcher's side): handling alone.
    DeliverInputEvent,
}

impl InputSource {
    /// What the numbers can say, one line for the outputs.
    pub fn note(self) -> Option<&'static str> {
        match self {
            InputSource::InputEvents => None,
            InputSource::DeliverInputEvent => Some(
                "handling from deliverInputEvent only: end-to-end latency needs Android 12+ input slices \
                 (InputDispatcher's sendMessage/receiveMessage: capture with the input and view categories)",
            ),
        }
    }
}

/// One app's input.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputSummary {
    pub pid: i32,
    pub process: Option<Name>,
    pub source: InputSource,
    /// Events the app received (each dispatch once; with `deliver_input_event`,
    /// each `deliverInputEvent`).
    pub events: i64,
    /// Gestures (DOWN … UP) on its channels.
    pub gestures: i64,
    /// Receipt to FINISHED sent (`deliverInputEvent`'s duration with
    /// `deliver_input_event`), ns.
    pub handling_ns: Percentiles,
    /// Read by InputReader to the present of the frame that showed it, ns.
    pub end_to_end_ns: Percentiles,
    /// Each gesture's DOWN to its first present, ns.
    pub touch_to_first_frame_ns: Percentiles,
    /// The gestures' presents judged and delayed (Chrome's rule, docs/input.md).
    pub judged_presents: i64,
    pub delayed_frames: i64,
    /// `delayed_frames` in percent of `judged_presents`; None with none judged.
    pub delayed_pct: Option<f64>,
}

/// The summaries: an app with `android_input_events` rows from them, an app
/// with only `deliverInputEvent` slices on its threads from those; by pid.
pub fn summaries(trace: &Trace, events: &[InputEvent], gestures: &[Gesture], found: &Found) -> Vec<InputSummary> {
    let mut out = Vec::new();
    let mut per_app: FxHashMap<Upid, Vec<&InputEvent>> = FxHashMap::default();
    for e in once_per_dispatch(events) {
        per_app.entry(e.upid).or_default().push(e);
    }
    let mut gestures_of: FxHashMap<Upid, Vec<&Gesture>> = FxHashMap::default();
    for g in gestures {
        gestures_of.entry(g.upid).or_default().push(g);
    }
    for (&upid, list) in &per_app {
        let p = trace.process(upid);
        let own = gestures_of.get(&upid).map_or(&[][..], Vec::as_slice);
        let (judged, delayed) = own.iter().fold((0, 0), |(j, d), g| (j + g.judged_presents, d + g.delayed_frames));
        out.push(InputSummary {
            pid: p.pid,
            process: p.name.clone(),
            source: InputSource::InputEvents,
            events: list.len() as i64,
            gestures: own.len() as i64,
            handling_ns: Percentiles::of(list.iter().map(|e| e.handling_latency_dur).collect()),
            end_to_end_ns: Percentiles::of(list.iter().filter_map(|e| e.end_to_end_latency_dur).collect()),
            touch_to_first_frame_ns: Percentiles::of(own.iter().filter_map(|g| g.touch_to_first_frame_ns).collect()),
            judged_presents: judged,
            delayed_frames: delayed,
            delayed_pct: delayed_pct(delayed, judged),
        });
    }
    // Apps with deliveries but no row: handling alone.
    let mut legacy: FxHashMap<Upid, Vec<&super::events::Delivery>> = FxHashMap::default();
    for d in &found.deliveries {
        if let Some(upid) = trace.thread(d.utid).upid.filter(|u| !per_app.contains_key(u)) {
            legacy.entry(upid).or_default().push(d);
        }
    }
    for (upid, list) in legacy {
        let p = trace.process(upid);
        out.push(InputSummary {
            pid: p.pid,
            process: p.name.clone(),
            source: InputSource::DeliverInputEvent,
            events: list.len() as i64,
            gestures: list.iter().filter(|d| is_down(d.action)).count() as i64,
            handling_ns: Percentiles::of(list.iter().filter(|d| d.dur >= 0).map(|d| d.dur).collect()),
            end_to_end_ns: Percentiles::default(),
            touch_to_first_frame_ns: Percentiles::default(),
            judged_presents: 0,
            delayed_frames: 0,
            delayed_pct: None,
        });
    }
    out.sort_by(|a, b| (a.pid, &a.process).cmp(&(b.pid, &b.process)));
    out
}
