//! SurfaceFlinger's FrameTimeline (trace_processor's
//! FrameTimelineEventParser): expected/actual display and surface frame
//! starts matched to their ends by cookie, converted from MONOTONIC to trace
//! time, with trace_processor's strings for the jank type bitmask, present
//! type, prediction type, severity and jank tag.

use foldhash::HashMap;

use super::clock::TraceClocks;
use super::identity::Identity;
use crate::model::{
    JankSeverity, JankTag, Name, PredictionType, PresentType, TimelineKind, TimelineSlice, TraceMeta, Upid, Warning,
    WarningCode,
};
use crate::read::records::{Batch, TimelineEvent, TimelineStart};

/// Expected surface frames of one token and process starting within this of
/// the first are its layers' copies; later ones belong to a repeated token.
const SAME_FRAME_SPAN: i64 = 1_000_000_000;

/// The model's kind of a FrameTimeline start record.
fn kind_of(start: TimelineStart) -> TimelineKind {
    match start {
        TimelineStart::ExpectedDisplay => TimelineKind::ExpectedDisplay,
        TimelineStart::ActualDisplay => TimelineKind::ActualDisplay,
        TimelineStart::ExpectedSurface => TimelineKind::ExpectedSurface,
        TimelineStart::ActualSurface => TimelineKind::ActualSurface,
    }
}

/// FrameTimelineEvent.JankType bits (frame_timeline_event.proto; 2048 and up
/// arrived with Android 16/17).
mod jank_bits {
    pub const UNSPECIFIED: i32 = 0;
    pub const NONE: i32 = 1;
    pub const SF_SCHEDULING: i32 = 2;
    pub const PREDICTION_ERROR: i32 = 4;
    pub const DISPLAY_HAL: i32 = 8;
    pub const SF_CPU_DEADLINE_MISSED: i32 = 16;
    pub const SF_GPU_DEADLINE_MISSED: i32 = 32;
    pub const APP_DEADLINE_MISSED: i32 = 64;
    pub const BUFFER_STUFFING: i32 = 128;
    pub const UNKNOWN: i32 = 256;
    pub const SF_STUFFING: i32 = 512;
    pub const DROPPED: i32 = 1024;
    pub const NON_ANIMATING: i32 = 2048;
    pub const APP_RESYNCED_JITTER: i32 = 4096;
    pub const DISPLAY_NOT_ON: i32 = 8192;
    pub const DISPLAY_MODE_CHANGE_IN_PROGRESS: i32 = 16384;
    pub const DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS: i32 = 32768;
}

/// trace_processor's strings for the JankType bitmask, in its order (which
/// is not bit order: "App Resynced Jitter" follows "App Deadline Missed").
pub(crate) fn jank_type_string(jank: i32) -> String {
    use jank_bits::*;
    match jank {
        UNSPECIFIED => return "Unspecified".into(),
        NONE => return "None".into(),
        _ => {}
    }
    const REASONS: &[(i32, &str)] = &[
        (SF_SCHEDULING, "SurfaceFlinger Scheduling"),
        (PREDICTION_ERROR, "Prediction Error"),
        (DISPLAY_HAL, "Display HAL"),
        (SF_CPU_DEADLINE_MISSED, "SurfaceFlinger CPU Deadline Missed"),
        (SF_GPU_DEADLINE_MISSED, "SurfaceFlinger GPU Deadline Missed"),
        (APP_DEADLINE_MISSED, "App Deadline Missed"),
        (APP_RESYNCED_JITTER, "App Resynced Jitter"),
        (BUFFER_STUFFING, "Buffer Stuffing"),
        (UNKNOWN, "Unknown Jank"),
        (SF_STUFFING, "SurfaceFlinger Stuffing"),
        (DROPPED, "Dropped Frame"),
        (NON_ANIMATING, "Non Animating"),
        (DISPLAY_NOT_ON, "Display not ON"),
        (DISPLAY_MODE_CHANGE_IN_PROGRESS, "ModeChange in progress"),
        (DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS, "PowerModeChange in progress"),
    ];
    REASONS.iter().filter(|(b, _)| jank & b != 0).map(|(_, s)| *s).collect::<Vec<_>>().join(", ")
}

/// SurfaceFlinger-side causes: "Self Jank" on a display frame, "Other Jank"
/// on the app's surface frame (trace_processor's DisplayFrameJanky).
fn display_frame_janky(jank: i32) -> bool {
    use jank_bits::*;
    jank != UNSPECIFIED
        && jank != NONE
        && jank & (SF_SCHEDULING | PREDICTION_ERROR | DISPLAY_HAL | SF_CPU_DEADLINE_MISSED | SF_GPU_DEADLINE_MISSED)
            != 0
}

/// App-side causes (trace_processor's SurfaceFrameJanky).
fn surface_frame_janky(jank: i32) -> bool {
    use jank_bits::*;
    jank != UNSPECIFIED && jank != NONE && jank & (APP_DEADLINE_MISSED | APP_RESYNCED_JITTER | UNKNOWN) != 0
}

/// Only display-state / non-animating bits: SurfaceFlinger reports them, but
/// the user could not have seen a jank.
fn non_perceivable(jank: i32) -> bool {
    use jank_bits::*;
    const MASK: i32 =
        NON_ANIMATING | DISPLAY_NOT_ON | DISPLAY_MODE_CHANGE_IN_PROGRESS | DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS;
    jank & MASK != 0 && jank & !MASK == 0
}

/// trace_processor's `jank_tag` of an actual frame (CalculateDisplayFrameJankTag /
/// CalculateSurfaceFrameJankTag in frame_timeline_event_parser.cc). The
/// display-state bits of Android 16+ are "Non-perceivable Jank", as in
/// Perfetto's display_power_mode_change diff test.
pub(crate) fn jank_tag(kind: TimelineKind, jank: i32, present_type: Option<i32>) -> JankTag {
    use jank_bits::*;
    if jank == UNSPECIFIED {
        return JankTag::Unspecified;
    }
    if kind.is_surface() {
        if surface_frame_janky(jank) {
            JankTag::SelfJank
        } else if display_frame_janky(jank) {
            JankTag::OtherJank
        } else if jank == BUFFER_STUFFING {
            JankTag::BufferStuffing
        } else if present_type == Some(4) {
            // PRESENT_DROPPED
            JankTag::DroppedFrame
        } else if non_perceivable(jank) {
            JankTag::NonPerceivableJank
        } else {
            JankTag::NoJank
        }
    } else if display_frame_janky(jank) {
        JankTag::SelfJank
    } else if jank == SF_STUFFING {
        JankTag::SurfaceFlingerStuffing
    } else if jank == DROPPED {
        JankTag::DroppedFrame
    } else if non_perceivable(jank) {
        JankTag::NonPerceivableJank
    } else {
        JankTag::NoJank
    }
}

/// The jank type strings of actual frames, one shared allocation per
/// distinct value instead of a new string per frame.
#[derive(Default)]
struct JankNames {
    jank_types: rustc_hash::FxHashMap<i32, Name>,
}

impl JankNames {
    fn jank_type(&mut self, jank: i32) -> Name {
        self.jank_types.entry(jank).or_insert_with(|| Name::from(jank_type_string(jank).as_str())).clone()
    }
}

/// The FrameTimeline slices of every batch: starts matched to their ends by
/// cookie, in trace time, one expected surface frame per (process, token).
pub(crate) fn build(
    batches: &[Batch],
    id: &mut Identity,
    meta: &mut TraceMeta,
    clocks: &mut TraceClocks,
) -> Vec<TimelineSlice> {
    // trace_processor ignores timestamps within 10 s of the i64 limits (b/185978397).
    const BAD_TS: i64 = i64::MAX - 10_000_000_000;
    let mut recs: Vec<(i64, u64, &TimelineEvent)> = Vec::new();
    for b in batches {
        for r in &b.timeline {
            meta.frame_timeline_events += 1;
            if r.ts.checked_abs().is_none_or(|a| a >= BAD_TS) {
                continue;
            }
            // Negative trace times are platform bugs trace_processor drops.
            if let Some(ts) = clocks.record_to_boottime(r.clock, r.ts).filter(|&ts| ts >= 0) {
                recs.push((ts, r.order, &r.event));
            }
        }
    }
    recs.sort_unstable_by_key(|r| (r.0, r.1));
    let mut out: Vec<TimelineSlice> = Vec::new();
    let mut open: HashMap<i64, usize> = HashMap::default();
    // (process, token) → start of the expected surface frame kept for it.
    let mut expected_surface_kept: HashMap<(Upid, i64), i64> = HashMap::default();
    let mut invalid = 0u64;
    let mut names = JankNames::default();
    for (ts, _, ev) in recs {
        match ev {
            TimelineEvent::Start {
                start,
                cookie,
                token,
                display_frame_token,
                pid,
                layer_name,
                present_type,
                on_time_finish,
                gpu_composition,
                jank_type,
                prediction_type,
                jank_severity_type,
                present_delay_ms,
            } => {
                let kind = &kind_of(*start);
                let (Some(token), Some(pid)) = (*token, *pid) else {
                    invalid += 1;
                    continue;
                };
                if kind.is_surface() && display_frame_token.is_none() {
                    invalid += 1;
                    continue;
                }
                let upid = id.process(pid);
                // One expected surface frame per (process, token): every layer of
                // the app shares the same expectation (trace_processor keeps the
                // first). A token seen again much later is another recording
                // (joined captures, a reboot) and keeps its own.
                if *kind == TimelineKind::ExpectedSurface {
                    match expected_surface_kept.get(&(upid, token)) {
                        Some(&kept) if ts.saturating_sub(kept) < SAME_FRAME_SPAN => continue,
                        _ => expected_surface_kept.insert((upid, token), ts),
                    };
                }
                let actual = kind.is_actual();
                let jank_name = actual.then(|| names.jank_type(*jank_type));
                open.insert(*cookie, out.len());
                out.push(TimelineSlice {
                    kind: *kind,
                    ts,
                    dur: -1,
                    token,
                    // Display frames are their own display frame (trace_processor's column).
                    display_frame_token: if kind.is_surface() { *display_frame_token } else { Some(token) },
                    pid,
                    upid: Some(upid),
                    layer_name: layer_name.clone(),
                    jank_type: jank_name,
                    present_type: actual.then(|| PresentType::from_proto(*present_type)),
                    on_time_finish: actual.then_some(*on_time_finish),
                    gpu_composition: actual.then_some(*gpu_composition),
                    prediction_type: actual.then(|| PredictionType::from_proto(*prediction_type)),
                    jank_severity_type: actual.then(|| JankSeverity::from_proto(*jank_severity_type, *jank_type)),
                    jank_tag: actual.then(|| jank_tag(*kind, *jank_type, *present_type)),
                    present_delay_ms: present_delay_ms.filter(|_| actual).map(f64::from),
                });
            }
            TimelineEvent::End { cookie } => {
                if let Some(i) = open.remove(cookie) {
                    out[i].dur = ts.saturating_sub(out[i].ts);
                }
            }
        }
    }
    if invalid > 0 {
        let message = format!("{invalid} FrameTimeline events lacked a token or pid and were skipped");
        meta.warnings.push(Warning::new(WarningCode::FrameTimelineEventsSkipped, message));
    }
    out
}
