//! Frame reconstruction end to end: decode a trace with `analysis::load`, rebuild
//! the frames with `frames::analyze`, and compare the Perfetto-compatible
//! columns with trace_processor's own output on its `android_jank_cuj` test
//! trace (`../shared/conformance/Frames__*`).

use std::collections::BTreeMap;
use std::path::Path;

use fpsan::analysis::load;
use fpsan::frames::{analyze, FrameOptions, FrameRow};
use fpsan::read::ReadOptions;

use crate::util::shared;

/// expected.csv → rows of (column → cell); `"[NULL]"` becomes None.
fn read_expected(path: &Path) -> Vec<BTreeMap<String, Option<String>>> {
    let text = std::fs::read_to_string(path).expect("expected.csv");
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let cells = |l: &str| -> Vec<String> { l.split(',').map(|c| c.trim_matches('"').to_string()).collect() };
    let header = cells(lines.next().expect("header"));
    lines
        .map(|l| header.iter().cloned().zip(cells(l).into_iter().map(|c| (c != "[NULL]").then_some(c))).collect())
        .collect()
}

fn int(v: &Option<String>) -> Option<i64> {
    v.as_ref().map(|s| s.parse().expect("integer cell"))
}

fn flag(v: &Option<String>) -> Option<bool> {
    v.as_ref().map(|s| s == "1")
}

/// The column of a frames row that a trace_processor column maps to.
fn column(r: &FrameRow, name: &str) -> Option<i64> {
    match name {
        "overrun" => r.perfetto_overrun_ns,
        "cpu_time" => r.cpu_time,
        "ui_time" => r.ui_time,
        "app_vsync_delay" => r.app_vsync_delay,
        "do_frame_dur" => Some(r.do_frame_dur),
        "draw_frame_dur" => r.draw_frame_dur,
        "draw_frame_count" => Some(r.draw_frame_count),
        _ => panic!("unmapped column {name}"),
    }
}

#[test]
fn frames_match_trace_processor_on_android_jank_cuj() {
    let Some(dir) = shared("conformance") else { return };
    let trace = load(&dir.join("Frames__android_frames/trace.pftrace"), &ReadOptions::default()).expect("decode");
    let a = analyze(&trace, &FrameOptions::default());
    let by_id: BTreeMap<i64, &FrameRow> = a.rows.iter().filter_map(|r| r.frame_id.map(|id| (id, r))).collect();
    assert_eq!(by_id.len(), 15, "15 systemui frames");

    let cases: [(&str, &[&str]); 5] = [
        ("Frames__android_frame_stats", &["overrun", "cpu_time", "ui_time"]),
        ("Frames__android_cpu_time_per_frame", &["app_vsync_delay", "do_frame_dur", "draw_frame_dur", "cpu_time"]),
        ("Frames__android_app_vsync_delay_per_frame", &["app_vsync_delay"]),
        ("Frames__android_frames", &["draw_frame_count"]),
        ("Frames__android_frames_overrun", &["overrun"]),
    ];
    for (case, cols) in cases {
        let rows = read_expected(&dir.join(case).join("expected.csv"));
        assert!(!rows.is_empty(), "{case}");
        for want in rows {
            let id = int(&want["frame_id"]).expect("frame_id");
            // android_frames_overrun also lists SurfaceFlinger display tokens
            // (190, 200) that no doFrame has.
            let Some(r) = by_id.get(&id) else {
                assert_eq!(case, "Frames__android_frames_overrun", "frame {id} missing");
                assert!(id == 190 || id == 200, "frame {id} missing");
                continue;
            };
            for c in cols {
                assert_eq!(column(r, c), int(&want[*c]), "{case} frame {id} {c}");
            }
            if case == "Frames__android_frame_stats" {
                for (c, got) in [
                    ("was_jank", r.was_jank),
                    ("was_slow_frame", r.was_slow_frame),
                    ("was_big_jank", r.was_big_jank),
                    ("was_huge_jank", r.was_huge_jank),
                ] {
                    assert_eq!(got, flag(&want[c]), "{case} frame {id} {c}");
                }
            }
        }
    }
    // Frames the stdlib's per-frame tables leave out get NULL here too:
    // frame 160 has no actual surface frame, so no app_vsync_delay.
    assert_eq!(by_id[&160].app_vsync_delay, None);
    assert_eq!(by_id[&160].layer_count, 0);
    assert_eq!(by_id[&110].layer_count, 2);
}

use tracegen::{ActualFrame, BuildOptions, TraceBuilder};

/// Writes a built trace to a temp file and decodes it.
fn roundtrip(b: &TraceBuilder) -> fpsan::model::Trace {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.pftrace");
    std::fs::write(&path, b.build(&BuildOptions::default())).expect("write");
    load(&path, &ReadOptions::default()).expect("decode")
}

const P: i64 = 16_666_667;
const V0: i64 = 1_000_000_000;

#[test]
fn android12_frames_through_the_decoder() {
    let mut b = TraceBuilder::new();
    b.process(100, "com.app").thread(100, 100, "com.app").thread(101, 100, "RenderThread");
    b.process(50, "/system/bin/surfaceflinger").thread(50, 50, "surfaceflinger");
    // Frame 1 on time: vsync V0 + P, start +1 ms, 10 ms, commit at +8 ms.
    let v1 = V0 + P;
    let ts1 = v1 + 1_000_000;
    b.atrace_begin(ts1, 100, 100, "Choreographer#doFrame 1");
    b.slice(ts1, 500_000, 100, 100, "input");
    b.slice(ts1 + 1_500_000, 6_000_000, 100, 100, "traversal");
    b.slice(ts1 + 8_000_000, 1_000_000, 100, 100, "commit");
    b.atrace_end(ts1 + 10_000_000, 100, 100);
    b.slice(ts1 + 9_000_000, 4_000_000, 101, 100, "DrawFrames 1");
    b.expected_surface_frame(v1, Some(v1 + P), 1, 101, 100, "com.app/Main#0");
    b.actual_surface_frame(
        v1,
        Some(v1 + 14_000_000),
        ActualFrame {
            token: 1,
            display_frame_token: 101,
            pid: 100,
            layer: "com.app/Main#0".into(),
            present_type: 1,
            on_time_finish: true,
            jank_type: 1,
            prediction_type: 1,
            ..Default::default()
        },
    );
    // Frame 4: vsync V0 + 4P, a 37 ms binder call, starts 40 ms late, 30 ms.
    let v4 = V0 + 4 * P;
    let ts4 = v4 + 40_000_000;
    b.slice(v4 + 1_000_000, 37_000_000, 100, 100, "binder transaction");
    b.atrace_begin(ts4, 100, 100, "Choreographer#doFrame 4");
    b.slice(ts4, 20_000_000, 100, 100, "traversal");
    b.slice(ts4 + 25_000_000, 2_000_000, 100, 100, "commit");
    b.atrace_end(ts4 + 30_000_000, 100, 100);
    b.slice(ts4 + 29_000_000, 10_000_000, 101, 100, "DrawFrames 4");
    b.expected_surface_frame(v4, Some(v4 + P), 4, 104, 100, "com.app/Main#0");
    b.actual_surface_frame(
        v4,
        Some(v4 + 75_000_000),
        ActualFrame {
            token: 4,
            display_frame_token: 104,
            pid: 100,
            layer: "com.app/Main#0".into(),
            present_type: 2,
            jank_type: 64,
            prediction_type: 1,
            ..Default::default()
        },
    );
    let a = analyze(&roundtrip(&b), &FrameOptions::default());
    assert_eq!(a.rows.len(), 2);
    let r = &a.rows[0];
    assert_eq!((r.process.as_deref(), r.pid, r.tid, r.frame_id), (Some("com.app"), 100, 100, Some(1)));
    assert_eq!(
        (r.ts, r.do_frame_dur, r.vsync_ts, r.vsync_source.map(|v| v.as_str())),
        (ts1, 10_000_000, Some(v1), Some("frame_timeline"))
    );
    // Expected starts V0+P and V0+4P are 3P = 50_000_001 apart, beyond the
    // plausible spacing: nothing measures I there, so the frames' own doFrame
    // grid has 2 starts (no estimate) and the fallback applies.
    assert_eq!(r.frame_interval_ns, P);
    assert_eq!(
        (r.jitter_ns, r.input_dur, r.traversal_dur, r.commit_dur, r.commit_ts),
        (Some(1_000_000), Some(500_000), Some(6_000_000), Some(1_000_000), Some(ts1 + 8_000_000))
    );
    assert_eq!((r.draw_frame_ts, r.draw_frame_dur, r.draw_frame_count), (Some(ts1 + 9_000_000), Some(4_000_000), 1));
    // overrun = (v1 + 14 ms) − (v1 + P) = −2_666_667; cpu = 0 + 10 + 4 ms.
    assert_eq!(
        (r.overrun_ns, r.app_vsync_delay, r.cpu_time, r.was_jank),
        (Some(-2_666_667), Some(0), Some(14_000_000), None)
    );
    assert_eq!(
        (r.jank_type.as_deref(), r.present_type.map(|p| p.as_str()), r.layer_name.as_deref()),
        (Some("None"), Some("On-time Present"), Some("com.app/Main#0"))
    );
    let r = &a.rows[1];
    // jitter 40 ms: skipped 40_000_000 / P = 2; cost 70 ms → 4 dropped.
    assert_eq!(
        (r.jitter_ns, r.skipped_frames, r.frame_cost_ns, r.dropped_frames, r.drop_level.as_str()),
        (Some(40_000_000), 2, 70_000_000, 4, "NORMAL")
    );
    assert_eq!(
        (r.jank_type.as_deref(), r.present_type.map(|p| p.as_str())),
        (Some("App Deadline Missed"), Some("Late Present"))
    );
    // overrun = 75 ms − P = 58_333_333; cpu = 0 + 30 + 10 = 40 ms > 20 ms.
    assert_eq!(
        (r.overrun_ns, r.cpu_time, r.was_jank, r.was_slow_frame),
        (Some(58_333_333), Some(40_000_000), Some(true), Some(true))
    );
    assert_eq!(a.why.len(), 1);
    assert_eq!(a.why[0].dominant_phase.as_str(), "start_jitter");
    assert_eq!(a.why[0].blockers.len(), 1);
    assert_eq!((a.why[0].blockers[0].ts, a.why[0].blockers[0].dur), (v4 + 1_000_000, 37_000_000));
}

/// FrameTimeline's newer fields reach the frames: Perfetto's jank tag (the
/// app's own jank is `Self Jank`; buffer stuffing is not), the severity, and
/// the present delay (a float of ms on the wire).
#[test]
fn newer_frame_timeline_fields_through_the_decoder() {
    let mut b = TraceBuilder::new();
    b.process(100, "com.app").thread(100, 100, "com.app").thread(101, 100, "RenderThread");
    // Frame 1: app deadline missed, full severity, presented 12.5 ms late.
    // Frame 2: buffer stuffing only (jank 128), partial severity, no delay field.
    for (k, jank, severity, delay_us) in [(1, 64, 3, 12_500), (2, 128, 2, 0)] {
        let v = V0 + k * P;
        b.atrace_begin(v + 1_000_000, 100, 100, &format!("Choreographer#doFrame {k}"));
        b.atrace_end(v + 6_000_000, 100, 100);
        b.slice(v + 5_000_000, 3_000_000, 101, 100, &format!("DrawFrames {k}"));
        b.expected_surface_frame(v, Some(v + P), k, 100 + k, 100, "com.app/Main#0");
        b.actual_surface_frame(
            v,
            Some(v + 2 * P),
            ActualFrame {
                token: k,
                display_frame_token: 100 + k,
                pid: 100,
                layer: "com.app/Main#0".into(),
                present_type: 2,
                jank_type: jank,
                prediction_type: 1,
                jank_severity_type: severity,
                present_delay_us: delay_us,
                ..Default::default()
            },
        );
    }
    let a = analyze(&roundtrip(&b), &FrameOptions::default());
    let got: Vec<_> = a
        .rows
        .iter()
        .map(|r| (r.frame_id, r.jank_tag.map(|t| t.as_str()), r.jank_severity.map(|s| s.as_str()), r.present_delay_ms))
        .collect();
    assert_eq!(
        got,
        [
            (Some(1), Some("Self Jank"), Some("Full"), Some(12.5)),
            (Some(2), Some("Buffer Stuffing"), Some("Partial"), None)
        ]
    );
}

#[test]
fn android11_frames_through_the_decoder() {
    let mut b = TraceBuilder::new();
    b.process(300, "com.legacy").thread(300, 300, "com.legacy").thread(301, 300, "RenderThread");
    b.process(50, "/system/bin/surfaceflinger").thread(50, 50, "surfaceflinger");
    let t = |k: i64| 2_000_000_000 + k * P;
    for k in (0..=5).chain(9..=20) {
        b.atrace_counter(t(k), 50, 50, "VSYNC-app", k % 2);
    }
    let g1 = t(2) + 800_000;
    b.atrace_begin(g1, 300, 300, "Choreographer#doFrame");
    b.slice(g1 + 1_000_000, 4_000_000, 300, 300, "traversal");
    b.atrace_end(g1 + 6_000_000, 300, 300);
    b.slice(g1 + 5_000_000, 3_000_000, 301, 300, "DrawFrame");
    let g2 = t(5) + 40_000_000;
    b.atrace_begin(g2, 300, 300, "Choreographer#doFrame");
    b.slice(g2, 6_000_000, 300, 300, "traversal");
    b.atrace_end(g2 + 10_000_000, 300, 300);
    b.slice(g2 + 9_000_000, 4_000_000, 301, 300, "DrawFrame");
    let a = analyze(&roundtrip(&b), &FrameOptions::default());
    assert_eq!(a.rows.len(), 2);
    let r = &a.rows[0];
    assert_eq!(
        (r.frame_id, r.vsync_ts, r.vsync_source.map(|v| v.as_str()), r.frame_interval_ns),
        (None, Some(t(2)), Some("vsync_app"), P)
    );
    assert_eq!((r.draw_frame_ts, r.draw_frame_count), (Some(g1 + 5_000_000), 1));
    let r = &a.rows[1];
    // No edge in (t5, g2]: t5 delivered it; jitter 40 ms → 2 skipped; cost 50 ms → 2 dropped.
    assert_eq!((r.vsync_ts, r.skipped_frames, r.dropped_frames), (Some(t(5)), 2, 2));
    assert_eq!((r.draw_frame_ts, r.draw_frame_count), (Some(g2 + 9_000_000), 1));
    assert_eq!(a.quality.vsync_sources.get("vsync_app"), Some(&2));
}

/// The committed demo trace against the generator's own ground truth.
#[test]
fn demo_trace_matches_its_ground_truth() {
    use fpsan::analysis::decode;
    use fpsan::frames::frame_threads;
    use fpsan::import::sched_events;
    use fpsan::read::{sched_for_threads, Source};
    use tracegen::scenarios::{demo_scroll_frames, DemoJank, DEMO_APP_PID};

    let src = Source::open(&crate::util::testdata("demo.pftrace")).expect("open");
    let (mut trace, _) = decode(&src, &ReadOptions::default()).expect("decode");
    trace.sched = sched_events(sched_for_threads(&src, &frame_threads(&trace)).expect("sched"));
    let a = analyze(&trace, &FrameOptions::default());
    let rows: Vec<(usize, &FrameRow)> = a.rows.iter().enumerate().filter(|(_, r)| r.pid == DEMO_APP_PID).collect();
    let truth = demo_scroll_frames();
    assert_eq!(rows.len(), truth.len());
    let jank_name = |j: i32| match j {
        1 => "None",
        64 => "App Deadline Missed",
        128 => "Buffer Stuffing",
        _ => unreachable!(),
    };
    for ((idx, r), f) in rows.iter().zip(&truth) {
        let id = f.frame_id;
        assert_eq!((r.frame_id, r.ts, r.do_frame_dur), (Some(id), f.ts, f.dur), "frame {id}");
        assert_eq!(
            (r.vsync_ts, r.vsync_source.map(|v| v.as_str())),
            (Some(f.vsync_ts), Some("frame_timeline")),
            "frame {id}"
        );
        assert!((16_666_666..=16_666_667).contains(&r.frame_interval_ns), "frame {id}: {}", r.frame_interval_ns);
        assert_eq!(
            (r.frame_cost_ns, r.dropped_frames, r.skipped_frames),
            (f.frame_cost_ns, f.dropped_frames, f.skipped_frames),
            "frame {id}"
        );
        assert_eq!((r.expected_end, r.actual_end), (Some(f.expected_end), Some(f.actual_end)), "frame {id}");
        assert_eq!(
            (r.draw_frame_ts, r.draw_frame_dur, r.draw_frame_count),
            (Some(f.draw_frame_ts), Some(f.draw_frame_dur), 1),
            "frame {id}"
        );
        assert_eq!(r.commit_ts, Some(f.commit_ts), "frame {id}");
        assert_eq!(r.input_dur.is_some(), f.has_input, "frame {id}");
        assert_eq!(r.jank_type.as_deref(), Some(jank_name(f.jank_type)), "frame {id}");
        let why = a.why.iter().find(|w| w.frame_index == *idx);
        assert_eq!(why.is_some(), f.dropped_frames >= 1, "frame {id}");
        match f.jank {
            DemoJank::LateStart => {
                let w = why.expect("late start is janky");
                assert_eq!(w.dominant_phase.as_str(), "start_jitter", "frame {id}");
                assert!(w.blockers.iter().any(|b| b.name == "binder transaction"), "frame {id}: {:?}", w.blockers);
            }
            DemoJank::LongFrame { heavy } => {
                let w = why.expect("long frame is janky");
                assert_eq!(w.dominant_phase.as_str(), "traversal", "frame {id}");
                let ts = w.thread_state.as_ref().expect("sched data");
                // Inflate: D-state sleep from t until the thread is switched
                // back in at t + 120 ms: its sched_wakeup 30 µs before makes
                // no state, as in trace_processor's thread_state (a D row of
                // 120000000 ns for tid 4242 at 1004454670553).
                if heavy == "Inflate" {
                    assert_eq!(ts.blocked_ns, 120_000_000, "frame {id}: {ts:?}");
                }
                // RV OnBindView: preempted by a kworker for 3 ms.
                if heavy == "RV OnBindView" {
                    assert!(ts.runnable_ns >= 3_000_000 && ts.blocked_ns == 0, "frame {id}: {ts:?}");
                }
            }
            _ => {}
        }
    }
}

/// Scale check on a real decoded trace: `FPSAN_BIG_TRACE=path cargo test
/// --release --test integration big_trace -- --ignored --nocapture`.
#[test]
#[ignore]
fn big_trace_timing() {
    let Ok(path) = std::env::var("FPSAN_BIG_TRACE") else {
        eprintln!("skipped: set FPSAN_BIG_TRACE to a trace file");
        return;
    };
    let t0 = std::time::Instant::now();
    let trace = load(Path::new(&path), &ReadOptions::default()).expect("decode");
    let t1 = std::time::Instant::now();
    let a = analyze(&trace, &FrameOptions::default());
    eprintln!(
        "{} slices, {} counters, {} timeline, {} frames: load {:?}, analyze {:?}",
        trace.slices.len(),
        trace.counters.len(),
        trace.frame_timeline.len(),
        a.rows.len(),
        t1 - t0,
        t1.elapsed()
    );
}

/// `analyze` explains only the janky frames an output shows
/// (`frames::Whys::Asked`): every row, with its path's totals, is what
/// explaining all janky frames gives, and each frame explained later
/// (`FrameAnalysis::explain_frames`) has the same why, inside a scenario
/// window too.
#[test]
fn whys_and_path_totals_asked_later_are_those_made_with_the_frames() {
    use fpsan::analysis::decode;
    use fpsan::frames::{analyze_with, frame_threads, ScenarioWindow, Whys};
    use fpsan::import::sched_events;
    use fpsan::read::{sched_for_threads, Source};

    let src = Source::open(&crate::util::testdata("demo.pftrace")).expect("open");
    let (mut trace, _) = decode(&src, &ReadOptions::default()).expect("decode");
    trace.sched = sched_events(sched_for_threads(&src, &frame_threads(&trace)).expect("sched"));
    let opts = FrameOptions::default();
    let asked = || analyze_with(&trace, &opts, Whys::Asked, |_| trace.sched.clone());
    let mut all = analyze(&trace, &opts);
    let janky: Vec<usize> = (0..all.rows.len()).filter(|&i| all.rows[i].dropped_frames >= 1).collect();
    assert_eq!(janky.len(), 5, "the demo's janky frames");
    assert_eq!(all.why.len(), janky.len());

    let mut later = asked();
    assert!(later.why.is_empty());
    assert!(later.rows.iter().all(|r| r.path_totals.is_empty()), "path totals wait to be asked for");
    assert!(all.rows.iter().all(|r| !r.path_totals.is_empty()), "every demo frame has a path");
    later.total_paths(&trace);
    assert_eq!(later.rows, all.rows, "the rows and their path totals do not wait for the whys");
    later.total_paths(&trace);
    assert_eq!(later.rows, all.rows, "totalled once");
    // A few, then all (those explained already are not explained again).
    let few = [janky[3], janky[0], janky[3], janky.len() + all.rows.len()];
    later.explain_frames(&trace, few);
    assert_eq!(later.why.iter().map(|w| w.frame_index).collect::<Vec<_>>(), [janky[0], janky[3]]);
    assert_eq!(later.why_of(janky[3]), all.why_of(janky[3]));
    later.explain_frames(&trace, 0..all.rows.len());
    assert_eq!(later.why, all.why);

    // From the third janky frame on as a scenario window.
    let w = ScenarioWindow { start_ns: all.rows[janky[2]].ts, end_ns: i64::MAX };
    let mut windowed = asked();
    windowed.restrict(w);
    all.restrict(w);
    windowed.explain_frames(&trace, 0..windowed.rows.len());
    assert_eq!(all.why.len(), 3);
    assert_eq!(windowed.why, all.why);
    windowed.total_paths(&trace);
    assert_eq!(windowed.rows, all.rows);
}
