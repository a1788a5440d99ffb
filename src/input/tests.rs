//! The input events, gestures and summaries of the generated traces
//! (`tracegen::input`), against the truth worked out by hand in their docs.

use super::*;
use crate::series::Percentiles;
use tracegen::input::{SCROLL_T0, SCROLL_VSYNC as P};

const MS: i64 = 1_000_000;

fn analysed(builder: tracegen::TraceBuilder) -> InputAnalysis {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("input.pftrace");
    std::fs::write(&path, builder.build(&tracegen::BuildOptions::default())).unwrap();
    crate::analysis::analyze(&path, &crate::analysis::Options::default()).unwrap().input
}

#[test]
fn the_scroll_gives_each_event_its_latencies_and_frame() {
    let a = analysed(tracegen::input::scroll());
    assert_eq!(a.rows_left_out, 0);
    // (seq, fpsan's action, handling, end to end, frame, speculative)
    let rows: Vec<_> = a
        .events
        .iter()
        .map(|e| {
            (
                e.event_seq.as_str(),
                e.action.as_deref(),
                e.handling_latency_dur,
                e.end_to_end_latency_dur,
                e.frame_id,
                e.is_speculative_frame,
            )
        })
        .collect();
    // A MOVE of frame k is read at kP − 3 ms and shown at the end of its
    // display frame: (k + 2)P for k ≤ 3, 8P for k = 4, 9P and 10P for 7, 8.
    let e2e = |k: i64, shown: i64| Some(shown * P - (k * P - 3 * MS));
    assert_eq!(
        rows,
        [
            ("0x1", Some("DOWN"), 1_600_000, Some(3 * P - 8 * MS), Some(101), Some(true)),
            ("0x2", Some("MOVE"), 3_500_000, e2e(1, 3), Some(101), Some(false)),
            ("0x3", Some("MOVE"), 3_500_000, e2e(2, 4), Some(102), Some(false)),
            ("0x4", Some("MOVE"), 3_500_000, e2e(3, 5), Some(103), Some(false)),
            // The slow handler: received at 4P − 2.5 ms, finished at 4P + 30.5 ms.
            ("0x5", Some("MOVE"), 33_000_000, e2e(4, 8), Some(104), Some(false)),
            // MOVEs 5, 6 and 7, batched into frame 7 and delivered as one event with 5's id:
            // 5 is received at 4P + 40.5 ms and finished at 7P + 1 ms; 6 and 7 have no
            // delivery of their own id, so no frame, as Android and trace_processor see it.
            ("0x6", Some("MOVE"), 3 * P - 39_500_000, e2e(5, 9), Some(107), Some(false)),
            ("0x7", Some("MOVE"), 3 * P - 39_990_000, None, None, None),
            ("0x8", Some("MOVE"), 3_520_000, None, None, None),
            ("0x9", Some("MOVE"), 3_500_000, e2e(8, 10), Some(108), Some(false)),
            ("0xa", Some("UP"), 1_600_000, None, None, None),
            ("0xb", None, 1_600_000, None, None, None),
        ]
    );
    assert_eq!(e2e(1, 3), Some(36_333_334));
    assert_eq!(e2e(4, 8), Some(69_666_668));
}

#[test]
fn the_scroll_is_one_gesture_with_one_delayed_frame() {
    let a = analysed(tracegen::input::scroll());
    assert_eq!(a.gestures.len(), 1, "{:?}", a.gestures);
    let g = &a.gestures[0];
    assert_eq!((g.pid, g.events, g.ended), (tracegen::input::APP, 10, true));
    assert_eq!(g.start_ts, SCROLL_T0 + 8 * MS);
    assert_eq!(g.touch_to_first_frame_ns, Some(3 * P - 8 * MS));
    // Seven events shown: the DOWN (42.0 ms), four MOVEs at 2P + 3 ms, frame 4's and the batch's at 4P + 3 ms.
    let e2e = Percentiles::of(vec![
        3 * P - 8 * MS,
        2 * P + 3 * MS,
        2 * P + 3 * MS,
        2 * P + 3 * MS,
        4 * P + 3 * MS,
        4 * P + 3 * MS,
        2 * P + 3 * MS,
    ]);
    assert_eq!(g.end_to_end_ns, e2e);
    assert_eq!((e2e.p50, e2e.p90, e2e.max), (Some(36_333_334), Some(69_666_668), Some(69_666_668)));
    // Presents with input: 3P (DOWN, MOVE 1), 4P, 5P, 8P, 9P, 10P; the five
    // after the first are judged against the app's previous present, and
    // 8P came 3 vsyncs after 5P.
    assert_eq!((g.judged_presents, g.delayed_frames), (5, 1));
    assert_eq!(gestures::delayed_pct(g.delayed_frames, g.judged_presents), Some(20.0));
}

#[test]
fn the_scrolling_app_has_one_summary() {
    let a = analysed(tracegen::input::scroll());
    assert_eq!(a.apps.len(), 1, "{:?}", a.apps);
    let s = &a.apps[0];
    assert_eq!(
        (s.pid, s.process.as_deref(), s.source),
        (tracegen::input::APP, Some("com.example.app"), InputSource::InputEvents)
    );
    assert_eq!((s.events, s.gestures), (11, 1));
    // Handling, sorted: 1.6 ms × 3 (DOWN, UP, KEY), 3.5 ms × 4, 3.52 ms, 10.01 and 10.5 ms (the
    // batch), 33 ms: the 6th of 11 and the 10th.
    assert_eq!(
        (s.handling_ns.p50, s.handling_ns.p90, s.handling_ns.max),
        (Some(3_500_000), Some(3 * P - 39_500_000), Some(33_000_000))
    );
    assert_eq!((s.end_to_end_ns.p50, s.end_to_end_ns.p90), (Some(36_333_334), Some(69_666_668)));
    assert_eq!(s.touch_to_first_frame_ns.p50, Some(3 * P - 8 * MS));
    assert_eq!((s.judged_presents, s.delayed_frames, s.delayed_pct), (5, 1, Some(20.0)));
}

#[test]
fn events_without_a_down_form_no_gesture_and_idle_is_not_judged() {
    // The first generated trace: a MOVE, a DOWN with no UP after it (to
    // the trace's end), a FOCUS; the second window's copy is system_server's.
    let a = analysed(tracegen::input::events(false));
    let g: Vec<_> = a.gestures.iter().map(|g| (g.pid, g.events, g.ended, g.judged_presents)).collect();
    // The DOWN (seq 0x3) opens a gesture the trace ends; its one present is the first: nothing judged.
    assert_eq!(g, [(tracegen::input::APP, 1, false, 0)]);
    let apps: Vec<_> = a.apps.iter().map(|s| (s.pid, s.events, s.gestures)).collect();
    assert_eq!(apps, [(tracegen::input::SYSTEM_SERVER, 1, 0), (tracegen::input::APP, 3, 1)]);
}

#[test]
fn channels_are_normalized_as_the_module_does() {
    use events::normalize_event_channel as n;
    let cases = [
        ("[Gesture Monitor] swipe-up (server)", Some("[Gesture Monitor] swipe-up (server)")),
        ("ccf6448 PopupWindow:b20fb4d (server)", Some("PopupWindow")),
        ("4325794 NotificationShade (server)", Some("NotificationShade (server)")),
        ("PointerEventDispatcher0 (server)", Some("(server)")),
        ("PointerEventDispatcher23", Some("PointerEventDispatcher")),
        ("123", None),
        ("Foo_9", Some("Foo")),
        ("foo ", Some("")),
        ("x:1 y", Some("y")),
        ("", Some("")),
    ];
    for (c, want) in cases {
        assert_eq!(n(c).as_deref(), want, "{c:?}");
    }
}

/// report.html's frame timeline draws the app's input events in each
/// frame's window: the slow frame 104's window holds MOVE 4 (read at 4P − 3 ms,
/// presented at 8P) among others, each from its read to its present.
#[test]
fn the_slow_frames_timeline_has_its_input_lane() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scroll.pftrace");
    std::fs::write(&path, tracegen::input::scroll().build(&tracegen::BuildOptions::default())).unwrap();
    let opts = crate::analysis::Options { lanes: true, ..Default::default() };
    let a = crate::analysis::analyze(&path, &opts).unwrap();
    let lanes = a.lanes.expect("lanes");
    let f = lanes.frames.iter().find(|f| f.frame_id == Some(104)).expect("frame 104 has lanes");
    // (read, length, action, presented), absolute µs in the window.
    let mut events = Vec::new();
    let mut at = 0;
    for e in f.input.chunks(4) {
        at += e[0];
        events.push((at, e[1], lanes.strings[e[2] as usize].clone(), e[3]));
    }
    let us = |ns: i64| (ns - f.t0_ns + 500).div_euclid(1000);
    let read = SCROLL_T0 + 4 * P - 3 * MS;
    let want = (us(read), us(SCROLL_T0 + 8 * P) - us(read), "MOVE".to_string(), 1);
    assert!(events.contains(&want), "{events:?}");
}

/// A trace that repeats one channel and seq on every side would give every
/// combination (30⁴ = 810 000 rows here): past 8 rows per message slice the
/// rest are left out, counted, and the analysis says so.
#[test]
fn repeated_seqs_cannot_make_the_join_quadratic() {
    use tracegen::input::{APP, INPUT_DISPATCHER, SYSTEM_SERVER};
    let mut b = tracegen::TraceBuilder::new();
    b.process(SYSTEM_SERVER, "system_server").process(APP, "com.example.app");
    b.thread(INPUT_DISPATCHER, SYSTEM_SERVER, "InputDispatcher").thread(APP, APP, "com.example.app");
    let ch = "abc1234 com.example.app/com.example.app.MainActivity";
    for k in 0..30 {
        let t = SCROLL_T0 + k * MS;
        let msg =
            |verb: &str, side: &str, ty: &str| format!("{verb}Message(inputChannel={ch} ({side}), seq=0x1, type={ty})");
        b.slice(t, 10_000, INPUT_DISPATCHER, SYSTEM_SERVER, &msg("send", "server", "MOTION"));
        b.slice(t + 100_000, 10_000, APP, APP, &msg("receive", "client", "MOTION"));
        b.slice(t + 200_000, 10_000, APP, APP, &msg("send", "client", "FINISHED"));
        b.slice(t + 300_000, 10_000, INPUT_DISPATCHER, SYSTEM_SERVER, &msg("receive", "server", "FINISHED"));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("repeated.pftrace");
    std::fs::write(&path, b.build(&tracegen::BuildOptions::default())).unwrap();
    let opts = crate::analysis::Options { require_frames: false, ..Default::default() };
    let a = crate::analysis::analyze(&path, &opts).unwrap();
    // Each dispatch's 27 000 combinations exceed the 960 rows allowed (8 × 120 message slices).
    assert_eq!((a.input.events.len(), a.input.rows_left_out), (0, 30 * 27_000));
    assert!(a.warnings.iter().any(|w| w.code == crate::model::WarningCode::InputRowsLeftOut), "{:?}", a.warnings);
}
