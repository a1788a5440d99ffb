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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::records::{ClockRef, TimelineRec};

    /// MONOTONIC, SurfaceFlinger's clock; the snapshot below puts it 1000 ns
    /// behind BOOTTIME.
    const MONOTONIC: u32 = 3;

    fn clocks() -> TraceClocks {
        let mut c = TraceClocks::default();
        c.converter.add_snapshot(1, &[(6, 1000, 1), (MONOTONIC, 0, 1)]);
        c.converter.finish();
        c
    }

    fn rec(ts: i64, order: u64, event: TimelineEvent) -> TimelineRec {
        TimelineRec { ts, clock: ClockRef { explicit: Some(MONOTONIC), seq: 1 }, order, event }
    }

    /// A start with the fields every test sets; the rest as an old
    /// SurfaceFlinger leaves them (no present delay, no severity).
    fn start(start: TimelineStart, cookie: i64, token: i64, display: Option<i64>, pid: i32) -> TimelineEvent {
        TimelineEvent::Start {
            start,
            cookie,
            token: Some(token),
            display_frame_token: display,
            pid: Some(pid),
            layer_name: None,
            present_type: None,
            on_time_finish: false,
            gpu_composition: false,
            jank_type: 0,
            prediction_type: None,
            jank_severity_type: None,
            present_delay_ms: None,
        }
    }

    fn end(cookie: i64) -> TimelineEvent {
        TimelineEvent::End { cookie }
    }

    fn run(batches: &[Batch]) -> (Vec<TimelineSlice>, Identity, TraceMeta, TraceClocks) {
        let (mut id, mut meta, mut clocks) = (Identity::default(), TraceMeta::default(), clocks());
        let out = build(batches, &mut id, &mut meta, &mut clocks);
        (out, id, meta, clocks)
    }

    /// (kind, ts, dur, token, display frame token, pid, upid): the columns
    /// every slice has.
    type Row = (TimelineKind, i64, i64, i64, Option<i64>, i32, Option<Upid>);

    fn rows(s: &[TimelineSlice]) -> Vec<Row> {
        s.iter().map(|s| (s.kind, s.ts, s.dur, s.token, s.display_frame_token, s.pid, s.upid)).collect()
    }

    #[test]
    fn starts_meet_their_ends_by_cookie_in_trace_time_and_order() {
        use TimelineKind::*;
        use TimelineStart as S;
        // Two batches, each out of time order: the tracker sorts by (ts, order).
        let a = Batch {
            timeline: vec![
                rec(300, 5, end(1)),
                rec(100, 1, start(S::ExpectedDisplay, 1, 10, None, 100)),
                // An end whose start never came: nothing to close.
                rec(310, 6, end(99)),
            ],
            ..Default::default()
        };
        let b = Batch {
            timeline: vec![
                rec(400, 7, end(2)),
                rec(150, 4, start(S::ActualSurface, 2, 5, Some(10), 200)),
                // Same timestamp as the display frame: later in the file, later in the table.
                rec(100, 2, start(S::ExpectedSurface, 3, 5, Some(10), 200)),
            ],
            ..Default::default()
        };
        let (out, id, meta, clocks) = run(&[a, b]);
        assert_eq!(
            rows(&out),
            [
                // Display frames are their own display frame.
                (ExpectedDisplay, 1100, 200, 10, Some(10), 100, Some(Upid(0))),
                // Never ended: -1.
                (ExpectedSurface, 1100, -1, 5, Some(10), 200, Some(Upid(1))),
                (ActualSurface, 1150, 250, 5, Some(10), 200, Some(Upid(1))),
            ]
        );
        assert_eq!(id.processes.iter().map(|p| p.pid).collect::<Vec<_>>(), [100, 200]);
        assert_eq!(meta.frame_timeline_events, 6);
        assert!(meta.warnings.is_empty(), "{:?}", meta.warnings);
        assert_eq!(clocks.unconvertible, 0);
    }

    #[test]
    fn actual_frames_carry_trace_processors_strings_and_expected_ones_none() {
        let actual = |start, cookie, jank_type, present_type| TimelineEvent::Start {
            start,
            cookie,
            token: Some(7),
            display_frame_token: Some(70),
            pid: Some(300),
            layer_name: Some("com.example/MainActivity#0".into()),
            present_type,
            on_time_finish: true,
            gpu_composition: true,
            jank_type,
            prediction_type: Some(2),
            jank_severity_type: Some(3),
            present_delay_ms: Some(8.5),
        };
        let b = Batch {
            timeline: vec![
                // App Deadline Missed | Buffer Stuffing | App Resynced Jitter, presented late.
                rec(10, 1, actual(TimelineStart::ActualSurface, 1, 64 | 128 | 4096, Some(2))),
                // SurfaceFlinger Stuffing on a display frame.
                rec(20, 2, actual(TimelineStart::ActualDisplay, 2, 512, Some(1))),
                // An expected frame: none of the actual frame's columns.
                rec(30, 3, actual(TimelineStart::ExpectedSurface, 3, 64, Some(2))),
            ],
            ..Default::default()
        };
        let (out, ..) = run(&[b]);
        let s = &out[0];
        // trace_processor's order, not bit order: the jitter (4096) before the stuffing (128).
        assert_eq!(s.jank_type.as_deref(), Some("App Deadline Missed, App Resynced Jitter, Buffer Stuffing"));
        assert_eq!(s.jank_tag, Some(JankTag::SelfJank));
        assert_eq!(s.present_type, Some(PresentType::Late));
        assert_eq!(s.prediction_type, Some(PredictionType::Expired));
        assert_eq!(s.jank_severity_type, Some(JankSeverity::Full));
        assert_eq!((s.on_time_finish, s.gpu_composition, s.present_delay_ms), (Some(true), Some(true), Some(8.5)));
        assert_eq!(s.layer_name.as_deref(), Some("com.example/MainActivity#0"));
        assert_eq!(s.display_frame_token, Some(70));
        let d = &out[1];
        assert_eq!(d.jank_type.as_deref(), Some("SurfaceFlinger Stuffing"));
        assert_eq!(d.jank_tag, Some(JankTag::SurfaceFlingerStuffing));
        assert_eq!(d.present_type, Some(PresentType::OnTime));
        // A display frame's display frame token is its own token, whatever the record says.
        assert_eq!(d.display_frame_token, Some(7));
        let e = &out[2];
        assert_eq!(
            (
                e.jank_type.as_deref(),
                e.jank_tag,
                e.present_type,
                e.prediction_type,
                e.jank_severity_type,
                e.on_time_finish,
                e.gpu_composition,
                e.present_delay_ms
            ),
            (None, None, None, None, None, None, None, None)
        );
        // Equal jank types share one string.
        let b = Batch {
            timeline: vec![
                rec(10, 1, actual(TimelineStart::ActualSurface, 1, 64, None)),
                rec(20, 2, actual(TimelineStart::ActualSurface, 2, 64, None)),
            ],
            ..Default::default()
        };
        let (out, ..) = run(&[b]);
        assert!(Name::ptr_eq(out[0].jank_type.as_ref().unwrap(), out[1].jank_type.as_ref().unwrap()));
    }

    #[test]
    fn one_expected_surface_frame_per_process_and_token_unless_a_second_later() {
        use TimelineStart as S;
        let b = Batch {
            timeline: vec![
                rec(100, 1, start(S::ExpectedSurface, 1, 5, Some(10), 200)),
                // Another layer's copy of the same expectation: dropped.
                rec(130, 2, start(S::ExpectedSurface, 2, 5, Some(10), 200)),
                // Its end closes nothing.
                rec(140, 3, end(2)),
                // Another process's expectation of the same token: kept.
                rec(135, 4, start(S::ExpectedSurface, 3, 5, Some(10), 201)),
                // The same token a second after the first: a repeated token, kept.
                rec(1_000_000_100, 5, start(S::ExpectedSurface, 4, 5, Some(11), 200)),
                // Actual surface frames are never deduplicated.
                rec(150, 6, start(S::ActualSurface, 5, 5, Some(10), 200)),
                rec(160, 7, start(S::ActualSurface, 6, 5, Some(10), 200)),
            ],
            ..Default::default()
        };
        let (out, ..) = run(&[b]);
        assert_eq!(
            out.iter().map(|s| (s.kind, s.ts, s.pid, s.dur)).collect::<Vec<_>>(),
            [
                (TimelineKind::ExpectedSurface, 1100, 200, -1),
                (TimelineKind::ExpectedSurface, 1135, 201, -1),
                (TimelineKind::ActualSurface, 1150, 200, -1),
                (TimelineKind::ActualSurface, 1160, 200, -1),
                (TimelineKind::ExpectedSurface, 1_000_001_100, 200, -1),
            ]
        );
    }

    #[test]
    fn events_without_token_pid_or_display_frame_are_skipped_with_one_warning() {
        use TimelineStart as S;
        let mut no_token = start(S::ActualDisplay, 1, 0, None, 1);
        if let TimelineEvent::Start { token, .. } = &mut no_token {
            *token = None;
        }
        let mut no_pid = start(S::ExpectedDisplay, 2, 3, None, 1);
        if let TimelineEvent::Start { pid, .. } = &mut no_pid {
            *pid = None;
        }
        let b = Batch {
            timeline: vec![
                rec(10, 1, no_token),
                rec(20, 2, no_pid),
                // A surface frame must name its display frame.
                rec(30, 3, start(S::ActualSurface, 3, 4, None, 1)),
                // Kept: a display frame needs no display frame token.
                rec(40, 4, start(S::ExpectedDisplay, 4, 4, None, 1)),
                // Dropped without a warning: before BOOTTIME's zero, and near i64's limit.
                rec(-2000, 5, start(S::ExpectedDisplay, 5, 6, None, 1)),
                rec(i64::MAX - 5, 6, start(S::ExpectedDisplay, 6, 7, None, 1)),
            ],
            ..Default::default()
        };
        let (out, _, meta, _) = run(&[b]);
        assert_eq!(rows(&out), [(TimelineKind::ExpectedDisplay, 1040, -1, 4, Some(4), 1, Some(Upid(0)))]);
        assert_eq!(meta.frame_timeline_events, 6);
        assert_eq!(meta.warnings.len(), 1);
        assert_eq!(meta.warnings[0].code, WarningCode::FrameTimelineEventsSkipped);
        assert_eq!(meta.warnings[0].message, "3 FrameTimeline events lacked a token or pid and were skipped");
    }

    #[test]
    fn a_record_in_a_clock_no_snapshot_relates_is_counted_and_skipped() {
        let mut r = rec(10, 1, start(TimelineStart::ExpectedDisplay, 1, 2, None, 1));
        r.clock = ClockRef { explicit: Some(1), seq: 1 };
        // The sequence's default clock (none here: BOOTTIME) when the record names none.
        let mut boot = rec(20, 2, start(TimelineStart::ExpectedDisplay, 2, 3, None, 1));
        boot.clock = ClockRef { explicit: None, seq: 9 };
        let (out, _, meta, clocks) = run(&[Batch { timeline: vec![r, boot], ..Default::default() }]);
        assert_eq!(rows(&out), [(TimelineKind::ExpectedDisplay, 20, -1, 3, Some(3), 1, Some(Upid(0)))]);
        assert_eq!((clocks.unconvertible, meta.frame_timeline_events), (1, 2));
    }
}
