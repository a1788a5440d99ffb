//! The summaries' tables: `apps` (one row per app summary, the scalar
//! metrics as columns, the headline's last) and `scenes` (one row per scene
//! of each app), as the lake, `fpsan query` and Python read them.

use polars::prelude::*;

use super::TableBuilder;
use crate::frames::DropLevel;
use crate::metrics::AppSummary;

/// Docs the columns of `apps` share (docs/metrics.md, "Per-app summary").
const PERCENTILE: &str = "nearest-rank percentile of the app's `frame_cost_ns`, `do_frame_dur` or `overrun_ns` (docs/metrics.md, \"Percentiles\")";
const PERFETTO_JANK: &str =
    "frames whose `was_jank`, `was_big_jank`, `was_huge_jank` is true (docs/metrics.md, \"Perfetto\")";
const VOCABULARY: &str = "the jank vocabularies' counts (docs/metrics.md, \"Jank vocabularies\")";
const SCREEN: &str = "what of the app reached the screen, its CPU time (docs/metrics.md, \"What reached the screen\")";
const HEADLINE: &str = "the headline, the series the app is judged by (docs/metrics.md, \"Headline\")";
const IDLE: &str = "the presents' idle spans: their count and time (docs/presents.md, \"Dropped vsyncs\")";
const FRAME_TIMELINE: &str =
    "FrameTimeline's verdict over the app's actual surface frames: frames, janky (docs/metrics.md)";

/// `<level>_frames`: frames per drop level (Matrix `DropStatus`).
fn level_frames(level: DropLevel) -> String {
    format!("frames at drop level {}", level.as_str())
}

/// `<level>_dropped`: Σ d per drop level (Matrix `dropSum`; BEST adds max(d, 0)).
fn level_dropped(level: DropLevel) -> String {
    format!("Σ d of the frames at drop level {} (Matrix `dropSum`)", level.as_str())
}

/// `apps`: one row per app summary, the scalar metrics as columns.
pub fn apps(apps: &[AppSummary]) -> PolarsResult<DataFrame> {
    let mut b = TableBuilder::new(apps)
        .col("pid", "the app's process id", |a| a.pid)
        .col("process", "the app's name: the trace's name for the process, else the package its layers name (docs/presents.md, \"Apps named by their layers\")", |a| a.process.as_deref())
        // Where `process` was read (docs/presents.md, "Apps named by their layers").
        .col("process_source", "where `process` was read: `process`, `layer`, or null when nothing names the app", |a| a.process_source.map(|s| s.as_str()))
        .col("frames", "number of `Choreographer#doFrame` frames of the process (all its threads)", |a| a.frames)
        .col("fps", "min(refresh_hz, 1e9 · frames / paced_ns) (docs/metrics.md)", |a| a.fps)
        .col("fps_wall", "frames per second of wall time (docs/metrics.md, \"Wall-time FPS\")", |a| a.fps_wall)
        .col("refresh_hz", "the highest `refresh_hz` (= 1e9 / I) any frame of the app ran at", |a| a.refresh_hz)
        .col("dropped_frames", "Σ d (Matrix)", |a| a.dropped_frames);
    for level in DropLevel::ALL {
        let l = level.as_str().to_lowercase();
        b = b.col(&format!("{l}_frames"), level_frames(level), move |a| a.drop_level[level]).col(
            &format!("{l}_dropped"),
            level_dropped(level),
            move |a| a.drop_sum[level],
        );
    }
    b.col("frame_cost_p50", PERCENTILE, |a| a.frame_cost_ns.p50)
        .col("frame_cost_p90", PERCENTILE, |a| a.frame_cost_ns.p90)
        .col("frame_cost_p95", PERCENTILE, |a| a.frame_cost_ns.p95)
        .col("frame_cost_p99", PERCENTILE, |a| a.frame_cost_ns.p99)
        .col("frame_cost_max", PERCENTILE, |a| a.frame_cost_ns.max)
        .col("do_frame_dur_p50", PERCENTILE, |a| a.do_frame_dur.p50)
        .col("do_frame_dur_p90", PERCENTILE, |a| a.do_frame_dur.p90)
        .col("do_frame_dur_p99", PERCENTILE, |a| a.do_frame_dur.p99)
        .col("overrun_p50", PERCENTILE, |a| a.overrun_ns.p50)
        .col("overrun_p90", PERCENTILE, |a| a.overrun_ns.p90)
        .col("overrun_p99", PERCENTILE, |a| a.overrun_ns.p99)
        .col("perfetto_jank", PERFETTO_JANK, |a| a.jank.perfetto.jank)
        .col("perfetto_big_jank", PERFETTO_JANK, |a| a.jank.perfetto.big_jank)
        .col("perfetto_huge_jank", PERFETTO_JANK, |a| a.jank.perfetto.huge_jank)
        .col("vitals_slow", VOCABULARY, |a| a.jank.vitals.slow)
        .col("vitals_frozen", VOCABULARY, |a| a.jank.vitals.frozen)
        .col("perfdog_jank", VOCABULARY, |a| a.jank.perfdog.jank)
        .col("perfdog_big_jank", VOCABULARY, |a| a.jank.perfdog.big_jank)
        .col("perfdog_stutter", VOCABULARY, |a| a.jank.perfdog.stutter)
        .col("skipped_frame_events", VOCABULARY, |a| a.jank.choreographer.skipped_frame_events)
        // Null without a verdict (too few frames, or nothing reached the
        // screen); the verdict itself and what reached the screen follow
        // (docs/metrics.md, "Verdict", "What reached the screen").
        .col(
            "green_alliance_pass",
            "the Green Alliance verdict passed; null without a verdict (docs/metrics.md, \"Verdict\")",
            |a| a.green_alliance.verdict.passed(),
        )
        .col("green_alliance_verdict", "`pass`, `fail`, `too_few_frames` or `draws_nothing`", |a| {
            a.green_alliance.verdict.as_str()
        })
        .col("screen_drawn_frames", SCREEN, |a| a.screen.drawn_frames)
        .col("screen_layer_presents", SCREEN, |a| a.screen.layer_presents)
        .col("screen_reached", SCREEN, |a| a.screen.reached)
        .col("cpu_time_ns", SCREEN, |a| a.screen.cpu_time_ns)
        .col("cpu_time_source", SCREEN, |a| a.screen.cpu_time_source.as_str())
        // The headline series (docs/metrics.md, "Headline"): what every
        // output shows first; the columns above are the doFrames'.
        .col("headline_fps", HEADLINE, |a| a.headline.fps)
        .col("headline_source", "the headline's series: `frames` or `presents`", |a| a.headline.source.as_str())
        .col("headline_layer", HEADLINE, |a| a.headline.layer.as_deref())
        .col("headline_frames", HEADLINE, |a| a.headline.frames)
        .col("headline_dropped", HEADLINE, |a| a.headline.dropped)
        .col("headline_refresh_hz", HEADLINE, |a| a.headline.refresh_hz)
        .col("headline_frame_time_p50", HEADLINE, |a| a.headline.frame_time_ns.p50)
        .col("headline_frame_time_p90", HEADLINE, |a| a.headline.frame_time_ns.p90)
        .col("headline_frame_time_p99", HEADLINE, |a| a.headline.frame_time_ns.p99)
        .col("perfdog_layer", "the layer the PerfDog counts were read on", |a| a.jank.perfdog_layer.as_deref())
        .col("headline_fps_wall", HEADLINE, |a| a.headline.fps_wall)
        .col("headline_idle_spans", IDLE, |a| a.headline.idle.count)
        .col("headline_idle_ns", IDLE, |a| a.headline.idle.total_ns)
        // FrameTimeline's verdict over the app's actual surface frames.
        .col("frame_timeline_frames", FRAME_TIMELINE, |a| a.jank.frame_timeline_frames)
        .col("frame_timeline_janky", FRAME_TIMELINE, |a| a.jank.frame_timeline_janky)
        .build()
}

/// `scenes`: one row per scene of each app summary (docs/metrics.md, Scenes).
pub fn scenes(apps: &[AppSummary]) -> PolarsResult<DataFrame> {
    let rows: Vec<(&AppSummary, &crate::metrics::SceneSummary)> =
        apps.iter().flat_map(|a| a.scenes.iter().map(move |s| (a, s))).collect();
    let mut b = TableBuilder::new(&rows)
        .col("pid", "the app's process id", |r| r.0.pid)
        .col("process", "the app's name (as in `apps`)", |r| r.0.process.as_deref())
        .col("scene", "the scene (docs/metrics.md, \"Scenes\")", |r| r.1.scene.as_str())
        .col("frames", "the scene's frames", |r| r.1.frames)
        .col("first_ts", "its first doFrame start", |r| r.1.first_ts)
        .col("fps", "min(refresh_hz, 1e9 · frames / paced_ns) over the scene's frames", |r| r.1.fps)
        .col("refresh_hz", "the highest `refresh_hz` any frame of the scene ran at", |r| r.1.refresh_hz)
        .col("dropped_frames", "Σ d over the scene's frames", |r| r.1.dropped_frames);
    for level in DropLevel::ALL {
        let l = level.as_str().to_lowercase();
        b = b.col(&format!("{l}_frames"), level_frames(level), move |r| r.1.drop_level[level]).col(
            &format!("{l}_dropped"),
            level_dropped(level),
            move |r| r.1.drop_sum[level],
        );
    }
    b.col("frame_cost_p90", "P90 of the scene's `frame_cost_ns` (nearest rank)", |r| r.1.frame_cost_p90).build()
}
