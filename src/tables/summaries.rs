//! The summaries' tables: `apps` (one row per app summary, the scalar
//! metrics as columns, the headline's last) and `scenes` (one row per scene
//! of each app), as the lake, `fpsan query` and Python read them.

use polars::prelude::*;

use super::TableBuilder;
use crate::frames::DropLevel;
use crate::metrics::AppSummary;

/// `apps`: one row per app summary, the scalar metrics as columns.
pub fn apps(apps: &[AppSummary]) -> PolarsResult<DataFrame> {
    let mut b = TableBuilder::new(apps)
        .col("pid", |a| a.pid)
        .col("process", |a| a.process.as_deref())
        // Where `process` was read (docs/presents.md, "Apps named by their layers").
        .col("process_source", |a| a.process_source.map(|s| s.as_str()))
        .col("frames", |a| a.frames)
        .col("fps", |a| a.fps)
        .col("fps_wall", |a| a.fps_wall)
        .col("refresh_hz", |a| a.refresh_hz)
        .col("dropped_frames", |a| a.dropped_frames);
    for level in DropLevel::ALL {
        let l = level.as_str().to_lowercase();
        b = b
            .col(&format!("{l}_frames"), move |a| a.drop_level[level])
            .col(&format!("{l}_dropped"), move |a| a.drop_sum[level]);
    }
    b.col("frame_cost_p50", |a| a.frame_cost_ns.p50)
        .col("frame_cost_p90", |a| a.frame_cost_ns.p90)
        .col("frame_cost_p95", |a| a.frame_cost_ns.p95)
        .col("frame_cost_p99", |a| a.frame_cost_ns.p99)
        .col("frame_cost_max", |a| a.frame_cost_ns.max)
        .col("do_frame_dur_p50", |a| a.do_frame_dur.p50)
        .col("do_frame_dur_p90", |a| a.do_frame_dur.p90)
        .col("do_frame_dur_p99", |a| a.do_frame_dur.p99)
        .col("overrun_p50", |a| a.overrun_ns.p50)
        .col("overrun_p90", |a| a.overrun_ns.p90)
        .col("overrun_p99", |a| a.overrun_ns.p99)
        .col("perfetto_jank", |a| a.jank.perfetto.jank)
        .col("perfetto_big_jank", |a| a.jank.perfetto.big_jank)
        .col("perfetto_huge_jank", |a| a.jank.perfetto.huge_jank)
        .col("vitals_slow", |a| a.jank.vitals.slow)
        .col("vitals_frozen", |a| a.jank.vitals.frozen)
        .col("perfdog_jank", |a| a.jank.perfdog.jank)
        .col("perfdog_big_jank", |a| a.jank.perfdog.big_jank)
        .col("perfdog_stutter", |a| a.jank.perfdog.stutter)
        .col("skipped_frame_events", |a| a.jank.choreographer.skipped_frame_events)
        // Null without a verdict (too few frames, or nothing reached the
        // screen); the verdict itself and what reached the screen follow
        // (docs/metrics.md, "Verdict", "What reached the screen").
        .col("green_alliance_pass", |a| a.green_alliance.verdict.passed())
        .col("green_alliance_verdict", |a| a.green_alliance.verdict.as_str())
        .col("screen_drawn_frames", |a| a.screen.drawn_frames)
        .col("screen_layer_presents", |a| a.screen.layer_presents)
        .col("screen_reached", |a| a.screen.reached)
        .col("cpu_time_ns", |a| a.screen.cpu_time_ns)
        .col("cpu_time_source", |a| a.screen.cpu_time_source.as_str())
        // The headline series (docs/metrics.md, "Headline"): what every
        // output shows first; the columns above are the doFrames'.
        .col("headline_fps", |a| a.headline.fps)
        .col("headline_source", |a| a.headline.source.as_str())
        .col("headline_layer", |a| a.headline.layer.as_deref())
        .col("headline_frames", |a| a.headline.frames)
        .col("headline_dropped", |a| a.headline.dropped)
        .col("headline_refresh_hz", |a| a.headline.refresh_hz)
        .col("headline_frame_time_p50", |a| a.headline.frame_time_ns.p50)
        .col("headline_frame_time_p90", |a| a.headline.frame_time_ns.p90)
        .col("headline_frame_time_p99", |a| a.headline.frame_time_ns.p99)
        .col("perfdog_layer", |a| a.jank.perfdog_layer.as_deref())
        .col("headline_fps_wall", |a| a.headline.fps_wall)
        .col("headline_idle_spans", |a| a.headline.idle.count)
        .col("headline_idle_ns", |a| a.headline.idle.total_ns)
        // FrameTimeline's verdict over the app's actual surface frames.
        .col("frame_timeline_frames", |a| a.jank.frame_timeline_frames)
        .col("frame_timeline_janky", |a| a.jank.frame_timeline_janky)
        .build()
}

/// `scenes`: one row per scene of each app summary (docs/metrics.md, Scenes).
pub fn scenes(apps: &[AppSummary]) -> PolarsResult<DataFrame> {
    let rows: Vec<(&AppSummary, &crate::metrics::SceneSummary)> =
        apps.iter().flat_map(|a| a.scenes.iter().map(move |s| (a, s))).collect();
    let mut b = TableBuilder::new(&rows)
        .col("pid", |r| r.0.pid)
        .col("process", |r| r.0.process.as_deref())
        .col("scene", |r| r.1.scene.as_str())
        .col("frames", |r| r.1.frames)
        .col("first_ts", |r| r.1.first_ts)
        .col("fps", |r| r.1.fps)
        .col("refresh_hz", |r| r.1.refresh_hz)
        .col("dropped_frames", |r| r.1.dropped_frames);
    for level in DropLevel::ALL {
        let l = level.as_str().to_lowercase();
        b = b
            .col(&format!("{l}_frames"), move |r| r.1.drop_level[level])
            .col(&format!("{l}_dropped"), move |r| r.1.drop_sum[level]);
    }
    b.col("frame_cost_p90", |r| r.1.frame_cost_p90).build()
}
