//! Each metric's evaluation, once, on series computed by hand.

use super::*;

const I60: i64 = 16_666_667;
const MS: i64 = 1_000_000;

fn frame(cost_ms: i64, dropped: i64) -> Frame {
    Frame {
        ts: 0,
        cost_ns: cost_ms * MS,
        dropped,
        interval_ns: I60,
        refresh_hz: 1e9 / I60 as f64,
        skipped: 0,
        overrun_ns: None,
        was_jank: None,
        scene: 0,
    }
}

/// Four doFrames: BEST, BEST (2 dropped), NORMAL (4), MIDDLE (12); two with
/// FrameTimeline data, one of them Perfetto jank; one "Skipped 31 frames".
fn four_frames() -> Vec<Frame> {
    let mut f = vec![frame(10, 0), frame(40, 2), frame(70, 4), frame(200, 12)];
    f[0].overrun_ns = Some(MS);
    f[0].was_jank = Some(false);
    f[1].overrun_ns = Some(5 * MS);
    f[1].was_jank = Some(true);
    f[3].skipped = 31;
    f
}

#[test]
fn every_metric_of_a_do_frame_series() {
    let frames = four_frames();
    let refs: Vec<&Frame> = frames.iter().collect();
    let v = Values::of(&refs, Some(2_000_000_000));
    // Σ (d + 1)·I = (1 + 3 + 5 + 13)·I.
    let paced = 22.0 * I60 as f64;
    let expected: [(Metric, f64); 17] = [
        (Metric::Frames, 4.0),
        (Metric::Fps, 4e9 / paced),
        (Metric::FpsWall, 2.0),
        // Nearest rank of [10, 40, 70, 200] ms: ⌈4·0.5⌉ = 2nd, ⌈3.6⌉ = 4th …
        (Metric::FrameCostP50, 40.0),
        (Metric::FrameCostP90, 200.0),
        (Metric::FrameCostP95, 200.0),
        (Metric::FrameCostP99, 200.0),
        (Metric::FrameCostMax, 200.0),
        (Metric::JankPct, 75.0),
        (Metric::DroppedPer100, 450.0),
        (Metric::NormalPlusPer1000, 500.0),
        (Metric::MiddlePlusPer1000, 250.0),
        (Metric::HighPlusPer1000, 0.0),
        (Metric::FrozenPer1000, 0.0),
        (Metric::PerfettoJankPct, 50.0),
        (Metric::OverrunP90, 5.0),
        (Metric::SkippedEvents, 250.0),
    ];
    for (m, want) in expected {
        assert!((v[m] - want).abs() < 1e-9, "{}: {} != {want}", m.name(), v[m]);
    }
    assert_eq!(Metric::ALL.map(|m| m.index()), std::array::from_fn(|k| k));
}

#[test]
fn fps_is_paced_whatever_the_frames_cost() {
    // Presents 500, 33.3 and 16.7 ms after the previous one, the first after
    // an idle span (its frame time one vsync): dropped 0, 1, 0 → 3 frames
    // over (1 + 2 + 1)·I, whatever the intervals' wall time.
    let frames = [frame(0, 0), frame(0, 1), frame(0, 0)];
    let costs = [16_666_667, 33_333_333, 16_666_667];
    let presents: Vec<Frame> = frames.iter().zip(costs).map(|(f, c)| Frame { cost_ns: c, ..*f }).collect();
    assert!((fps(&presents) - 3e9 / (4.0 * I60 as f64)).abs() < 1e-9);
    assert!(fps(&[] as &[Frame]).is_nan());
}

#[test]
fn do_frame_fps_is_capped_at_the_highest_refresh_rate() {
    // A frame shorter than its interval cannot make fps exceed the display
    // (1e9 / 8 333 333 ns is 120.000005).
    let f = Frame { interval_ns: 8_333_333, refresh_hz: 120.0, ..frame(5, 0) };
    assert_eq!(fps([&f]), 120.0);
}

#[test]
fn drop_levels_count_and_sum_per_level() {
    let frames = [frame(1, -1), frame(1, 2), frame(1, 3), frame(1, 9), frame(1, 24), frame(1, 42)];
    let (count, sum) = drop_levels(&frames);
    assert_eq!(count.values(), [2, 1, 1, 1, 1]);
    // BEST adds max(d, 0): −1 counts 0.
    assert_eq!(sum.values(), [2, 3, 9, 24, 42]);
    assert_eq!(count.at_least(DropLevel::Middle), 3);
}

#[test]
fn names_round_trip_and_roles() {
    for m in Metric::ALL {
        assert_eq!(Metric::from_name(m.name()), Some(m));
        assert!(!m.label().is_empty() && !m.meaning().is_empty() && !m.unit().is_empty());
    }
    assert_eq!(Metric::from_name("nope"), None);
    let headline: Vec<Metric> = Metric::ALL.into_iter().filter(|m| m.role() == Role::Headline).collect();
    assert_eq!(headline, [Metric::Fps, Metric::FrameCostP90, Metric::JankPct]);
    assert_eq!(Metric::Frames.role(), Role::Descriptive);
    assert_eq!(Metric::FrameCostMax.role(), Role::Descriptive);
}

#[test]
fn percentiles_are_nearest_rank() {
    let p = Percentiles::of((1..=10).collect());
    assert_eq!((p.p50, p.p90, p.p95, p.p99, p.max), (Some(5), Some(9), Some(10), Some(10), Some(10)));
    assert_eq!(Percentiles::of(Vec::new()), Percentiles::default());
}
