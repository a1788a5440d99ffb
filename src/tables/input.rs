//! The input events' tables (docs/input.md): PerfettoSQL module
//! `android.input`'s `android_input_events` over the model, as trace_processor
//! v58.2 defines it, and the analysis' `input_events` (the same rows of the
//! apps an analysis keeps, with fpsan's columns after them).

use polars::prelude::*;

use super::TableBuilder;
use crate::input::events::{self, Found};
use crate::input::InputEvent;
use crate::model::Trace;

/// The module's name in `INCLUDE PERFETTO MODULE`.
pub const MODULE: &str = "android.input";

/// trace_processor's columns, in its order.
fn columns(rows: &[InputEvent]) -> TableBuilder<'_, InputEvent> {
    TableBuilder::new(rows)
        .col("dispatch_latency_dur", "receipt by the app − dispatch by InputDispatcher, ns", |r| {
            r.dispatch_latency_dur
        })
        .col("handling_latency_dur", "FINISHED sent by the app − receipt: its handling, ns", |r| {
            r.handling_latency_dur
        })
        .col("ack_latency_dur", "FINISHED received by InputDispatcher − FINISHED sent, ns", |r| r.ack_latency_dur)
        .col("total_latency_dur", "FINISHED received − dispatch, ns", |r| r.total_latency_dur)
        .col(
            "end_to_end_latency_dur",
            "the present of the frame that showed it − its read by InputReader, ns; null without a frame or present",
            |r| r.end_to_end_latency_dur,
        )
        .col("tid", "the thread that sent FINISHED (normally the app's UI thread)", |r| r.tid)
        .col("thread_name", "its name", |r| r.thread_name.as_deref())
        .col("upid", "its process' upid", |r| super::perfetto::upid(r.upid))
        .col("pid", "its process' pid", |r| r.pid)
        .col("process_name", "its process' name", |r| r.process_name.as_deref())
        .col(
            "event_type",
            "`MOTION`, `KEY`, `FOCUS`, … (older builds: `0x1`, …), as InputDispatcher sent it",
            |r| r.event_type.as_deref(),
        )
        .col("event_action", "the app's action (`MOVE`, …) where a frame was matched", |r| r.event_action.as_deref())
        .col("event_seq", "the message's seq, as written (`0x1`)", |r| r.event_seq.as_str())
        .col("event_channel", "the input channel, as InputDispatcher names it", |r| r.event_channel.as_str())
        .col("normalized_event_channel", "the channel without InputDispatcher's hash (below, \"Channels\")", |r| {
            r.normalized_event_channel.as_deref()
        })
        .col("input_event_id", "the event's id (`0x…`), from InputDispatcher's `enqueueDispatchEntriesLocked`", |r| {
            r.input_event_id.as_deref()
        })
        .col("read_time", "when InputReader read it (`notifyMotion`)", |r| r.read_time)
        .col("dispatch_track_id", "InputDispatcher's thread track (fpsan's track ids, docs/report.md)", |r| {
            i64::from(r.dispatch_track.0)
        })
        .col("dispatch_ts", "the dispatch `sendMessage`'s start and duration", |r| r.dispatch_ts)
        .col("dispatch_dur", "the dispatch `sendMessage`'s start and duration", |r| r.dispatch_dur)
        .col("receive_ts", "the app's `receiveMessage`'s start and duration", |r| r.receive_ts)
        .col("receive_dur", "the app's `receiveMessage`'s start and duration", |r| r.receive_dur)
        .col("receive_track_id", "the receiving thread's track (fpsan's track ids)", |r| i64::from(r.receive_track.0))
        .col("frame_id", "the vsync id of the frame that showed it (`android_frames.frame_id`)", |r| r.frame_id)
        .col(
            "is_speculative_frame",
            "1: the next doFrame after its delivery; 0: the doFrame it was delivered in",
            |r| r.is_speculative_frame.map(i64::from),
        )
        .col("event_time", "when the touch happened (the read's `eventTime=`), if the read says", |r| r.event_time)
}

/// `android_input_events` of `trace` (module `android.input`).
pub fn android_input_events(trace: &Trace) -> PolarsResult<DataFrame> {
    let found = Found::of(trace);
    let rows = if found.has_dispatches() {
        let presents = events::Presents::of(trace);
        events::input_events(trace, &found, &super::android_frames::display_frames(trace), &presents).0
    } else {
        Vec::new()
    };
    columns(&rows).build()
}

/// `input_events`: the analysis' rows, trace_processor's columns and
/// fpsan's `action`.
pub fn input_events(rows: &[InputEvent]) -> PolarsResult<DataFrame> {
    columns(rows)
        .col(
            "action",
            "fpsan's: the motion's action as InputDispatcher published it (`DOWN`, `MOVE`, `UP`, …), else `event_action`",
            |r| r.action.as_deref(),
        )
        .build()
}
