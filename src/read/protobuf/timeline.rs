//! SurfaceFlinger FrameTimeline events (TracePacket field 76), scanned
//! without allocation except for layer names. Start events are matched to
//! their FrameEnd by cookie in `crate::import`.

use super::wire::{Fields, Value};
use crate::read::batch::BatchBuilder;
use crate::read::records::{ClockRef, TimelineEvent, TimelineRec, TimelineStart};

pub fn event(ctx: &mut BatchBuilder, b: &[u8], ts: i64, clock: ClockRef) {
    let mut parsed = None;
    for f in Fields::new(b) {
        match f {
            Ok((num @ 1..=4, Value::Bytes(m))) => {
                let kind = match num {
                    1 => TimelineStart::ExpectedDisplay,
                    2 => TimelineStart::ActualDisplay,
                    3 => TimelineStart::ExpectedSurface,
                    _ => TimelineStart::ActualSurface,
                };
                parsed = Some(start(ctx, kind, m));
            }
            Ok((5, Value::Bytes(m))) => {
                let cookie = Fields::new(m).flatten().find(|f| f.0 == 1).map(|f| f.1.as_i64());
                parsed = Some(cookie.map(|cookie| TimelineEvent::End { cookie }));
            }
            Ok(_) => {}
            Err(e) => {
                ctx.malformed(format!("malformed FrameTimeline event: {e}"));
                return;
            }
        }
    }
    match parsed {
        Some(Some(event)) => {
            // The packet time is usually CLOCK_MONOTONIC: the trace span only
            // takes it in after conversion (crate::import).
            let order = ctx.order();
            ctx.batch.timeline.push(TimelineRec { ts, clock, order, event });
        }
        // trace_processor counts events without a cookie as parser errors.
        Some(None) => ctx.malformed("FrameTimeline event without a cookie".to_string()),
        None => {}
    }
}

fn start(ctx: &mut BatchBuilder, kind: TimelineStart, m: &[u8]) -> Option<TimelineEvent> {
    let mut cookie = None;
    let (mut token, mut display_frame_token, mut pid, mut layer) = (None, None, None, None);
    let (mut present_type, mut on_time_finish, mut gpu_composition, mut jank_type) = (None, false, false, 0i32);
    let (mut prediction_type, mut jank_severity_type, mut present_delay_ms) = (None, None, None);
    let surface = matches!(kind, TimelineStart::ExpectedSurface | TimelineStart::ActualSurface);
    for (num, v) in Fields::new(m).flatten() {
        match (surface, num) {
            (_, 1) => cookie = Some(v.as_i64()),
            (_, 2) => token = Some(v.as_i64()),
            (true, 3) => display_frame_token = Some(v.as_i64()),
            (true, 4) | (false, 3) => pid = Some(v.as_i32()),
            (true, 5) => layer = Some(ctx.interner.intern_bytes(v.bytes())),
            (true, 6) | (false, 4) => present_type = Some(v.as_i32()),
            (true, 7) | (false, 5) => on_time_finish = v.as_bool(),
            (true, 8) | (false, 6) => gpu_composition = v.as_bool(),
            (true, 9) | (false, 7) => jank_type = v.as_i32(),
            (true, 10) | (false, 8) => prediction_type = Some(v.as_i32()),
            (true, 12) | (false, 9) => jank_severity_type = Some(v.as_i32()),
            // Actual frames only (expected frames have no field 13 / 10).
            (true, 13) | (false, 10) => {
                if let Value::Fixed32(bits) = v {
                    present_delay_ms = Some(f32::from_bits(bits));
                }
            }
            _ => {}
        }
    }
    Some(TimelineEvent::Start {
        start: kind,
        cookie: cookie?,
        token,
        display_frame_token,
        pid,
        layer_name: layer,
        present_type,
        on_time_finish,
        gpu_composition,
        jank_type,
        prediction_type,
        jank_severity_type,
        present_delay_ms,
    })
}
