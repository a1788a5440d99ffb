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

#[test]
fn pacing_by_hand() {
    // Three frames at 16.67 ms intervals, dropped 0, 2, 0: Σ (d + 1)·I =
    // (1 + 3 + 1)·16 666 667 = 83 333 335 ns; fps = 3e9 / 83 333 335 =
    // 35.999 999 28, under the display's 59.999 998 8 Hz.
    let frames = [frame(10, 0), frame(40, 2), frame(10, 0)];
    let p = Pacing::of(&frames);
    assert_eq!((p.frames, p.paced_ns), (3, 83_333_335));
    assert_eq!(p.refresh_hz, 1e9 / 16_666_667.0);
    assert_eq!(p.fps(), 3e9 / 83_333_335.0);
    assert!((p.fps() - 35.999_999_28).abs() < 1e-8);
    assert_eq!(fps(&frames), p.fps());
    // One frame on time: one interval, the display's rate.
    let one = Pacing::of(&frames[..1]);
    assert_eq!((one.frames, one.paced_ns, one.fps()), (1, I60, 1e9 / I60 as f64));
    // None: nothing paced, no rate, fps undefined.
    let none = Pacing::of(&[] as &[Frame]);
    assert_eq!((none.frames, none.paced_ns), (0, 0));
    assert!(none.refresh_hz.is_nan() && none.fps().is_nan());
}

#[test]
fn fps_wall_counts_over_wall_time_and_is_0_without_it() {
    // 3 frames over 2 s; 300 over 7.283 551 019 s as `frames · 1e9 / ns`.
    assert_eq!(fps_wall(3, 2_000_000_000), 1.5);
    assert_eq!(fps_wall(300, 7_283_551_019), 300e9 / 7_283_551_019.0);
    // No frame, or no wall time: 0, not undefined.
    assert_eq!(fps_wall(0, 2_000_000_000), 0.0);
    assert_eq!(fps_wall(0, 0), 0.0);
    assert_eq!(fps_wall(1, 0), 0.0);
    // Presents: 4 presents over 50 ms are 3 intervals, 60 per second.
    assert_eq!(presents_fps_wall(4, 1_000_000_000, 1_050_000_000), 60.0);
    // One present (or none) has no interval and no wall time: 0.
    assert_eq!(presents_fps_wall(1, 1_000_000_000, 1_000_000_000), 0.0);
    assert_eq!(presents_fps_wall(0, 0, 0), 0.0);
}

#[test]
fn values_fps_wall_is_the_series_fps_wall() {
    let frames = [frame(10, 0)];
    let one: Vec<&Frame> = frames.iter().collect();
    assert_eq!(Values::of(&one, Some(I60))[Metric::FpsWall], 1e9 / I60 as f64);
    assert_eq!(Values::of(&one, Some(0))[Metric::FpsWall], 0.0);
    // No frames: 0 per second of wall time, while fps (paced) is undefined.
    let v = Values::of(&[], Some(0));
    assert_eq!((v[Metric::Frames], v[Metric::FpsWall]), (0.0, 0.0));
    assert!(v[Metric::Fps].is_nan());
    // A scene has no wall time of its own: undefined.
    assert!(Values::of(&one, None)[Metric::FpsWall].is_nan());
}

#[test]
fn drop_levels_of_dropped_counts_alone() {
    let dropped = [0, 2, 3, 9, 24, 42, 50];
    let (count, sum) = drop_levels_of(dropped);
    assert_eq!(count.values(), [2, 1, 1, 1, 2]);
    assert_eq!(sum.values(), [2, 3, 9, 24, 92]);
    let frames: Vec<Frame> = dropped.iter().map(|&d| frame(1, d)).collect();
    assert_eq!(drop_levels(&frames), (count, sum));
    assert_eq!(drop_levels_of([]), (Levels::default(), Levels::default()));
    // One frame, 2 dropped: BEST, its 2 dropped counted there.
    assert_eq!(drop_levels_of([2]).1.values(), [2, 0, 0, 0, 0]);
}
