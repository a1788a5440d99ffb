//! The analysis' row tables: `frames` (one row per doFrame, docs/frames.md,
//! plus `frame_index` and `scene`, docs/metrics.md), `presents` (one row per
//! buffer a layer presented, docs/presents.md) and `flutter_frames` (one row
//! per Flutter engine frame, docs/presents.md).

use polars::prelude::*;

use super::TableBuilder;
use crate::frames::{FrameAnalysis, FrameRow};

/// The owner of a frame's doFrame slice (docs/frames.md, "Columns").
const OWNER: (&str, &str) = (
    "owner of the doFrame slice's thread track",
    "`process`/`thread` NULL when the trace has no name for them (the app's summary and `--app` then know it by the package its layers name: docs/presents.md, \"Apps named by their layers\"); `pid` falls back to the tid for a thread with no known process",
);
const DO_FRAME: (&str, &str) = ("doFrame start and duration", "—");
const VSYNC: (&str, &str) = ("see *Vsync*", "no source applies");
const INTERVAL: (&str, &str) = ("`frame_interval_ns` (`I`): see *Interval*; `refresh_hz = 1e9 / I`", "never NULL");
const PHASE: (&str, &str) = (
    "sum of the durations of the doFrame's direct children with exactly that name; a direct `… resynced …` child is transparent (its children count as the doFrame's)",
    "the phase did not run",
);
const DRAW_FRAME: (&str, &str) = (
    "see *RenderThread*; ts = first start, dur = sum of finished slices, count = number of slices",
    "ts/dur NULL and count 0 without a match",
);
const EXPECTED: (&str, &str) = (
    "first FrameTimeline **expected surface** frame with token = `frame_id` and the same pid; end = ts + dur",
    "no id or no match",
);
const ACTUAL: (&str, &str) = (
    "first **actual surface** frame (timeline order = trace_processor slice-id order) with token = `frame_id`, same pid; strings exactly as trace_processor writes them (`App Deadline Missed, Buffer Stuffing`, `None`, `On-time Present`, `Late Present`, …)",
    "no id or no match",
);
const JANK_TAG: (&str, &str) = (
    "the same actual surface frame: trace_processor's `jank_tag` (its summary of the jank type: `Self Jank` when the app missed its deadline (App Deadline Missed, App Resynced Jitter, Unknown Jank), `Other Jank` when SurfaceFlinger or the display did, `Buffer Stuffing` for a frame only queued behind others, `Dropped Frame`, `Non-perceivable Jank` for Non Animating / Display not ON / mode changes, `No Jank`, `Unspecified`); `jank_severity_type` (`None`, `Partial`, `Full`; `Unknown` when the field is absent on a janky frame); `present_delay_millis` of newer SurfaceFlinger builds (null when absent)",
    "no id or no match",
);
const PER_FRAME_METRICS: (&str, &str) = ("Perfetto `per_frame_metrics` (see below)", "see below");
const BLOCKER: (&str, &str) = (
    "the (thread, slice) that holds the most of the frame's critical path (*Critical path* below): the thread's tid and name, the deepest slice it was in (NULL between slices) and the time summed over the path; the frame's own thread counts too (a frame that ran 40 ms in `inflate` names itself)",
    "NULL only when the frame has no cost (`frame_cost_ns ≤ 0`)",
);

/// The frames table of the rows of `analysis` at `indices` (whole-trace
/// indices, as `metrics::kept_frames` gives them) with their `scenes`; its
/// columns' docs are docs/frames.md's "Columns".
pub fn frames(analysis: &FrameAnalysis, indices: &[usize], scenes: &[Option<String>]) -> PolarsResult<DataFrame> {
    debug_assert_eq!(indices.len(), scenes.len());
    let rows: Vec<&FrameRow> = indices.iter().map(|&i| &analysis.rows[i]).collect();
    TableBuilder::new(&rows)
        .values(
            "frame_index",
            ("the row's index in the whole trace's frames table (before `--app`/`--pid` filtering); `worst_frames[].frame_index` refers to it (docs/metrics.md)", "never NULL"),
            indices.iter().map(|&i| i as i64).collect(),
        )
        .col("process", OWNER, |r| r.process.as_deref())
        .col("pid", OWNER, |r| r.pid)
        .col("tid", OWNER, |r| r.tid)
        .col("thread", OWNER, |r| r.thread.as_deref())
        .col("frame_id", ("integer after `Choreographer#doFrame `", "pre-Android 12"), |r| r.frame_id)
        .col("ts", DO_FRAME, |r| r.ts)
        .col("do_frame_dur", DO_FRAME, |r| r.do_frame_dur)
        .col("vsync_ts", VSYNC, |r| r.vsync_ts)
        .col("vsync_source", VSYNC, |r| r.vsync_source.map(|v| v.as_str()))
        .col("frame_interval_ns", INTERVAL, |r| r.frame_interval_ns)
        .col("interval_source", INTERVAL, |r| r.interval_source.as_str())
        .col("refresh_hz", INTERVAL, |r| r.refresh_hz)
        .col(
            "jitter_ns",
            ("`ts − vsync_ts`", "`vsync_ts` NULL. Can be negative if a FrameTimeline expected start lies after the doFrame start"),
            |r| r.jitter_ns,
        )
        .col("skipped_frames", ("`jitter_ns / I` when `jitter_ns ≥ I`, else 0", "0 without a vsync"), |r| r.skipped_frames)
        .col(
            "frame_time_ns",
            ("`ts − jitter_ns % I` when `jitter_ns ≥ I`, else `vsync_ts`", "`vsync_ts` NULL"),
            |r| r.frame_time_ns,
        )
        .col("input_dur", PHASE, |r| r.input_dur)
        .col("animation_dur", PHASE, |r| r.animation_dur)
        .col("insets_animation_dur", PHASE, |r| r.insets_animation_dur)
        .col("traversal_dur", PHASE, |r| r.traversal_dur)
        .col("commit_dur", PHASE, |r| r.commit_dur)
        .col("commit_ts", ("start of the first direct `commit` child", "no commit phase"), |r| r.commit_ts)
        .col("commit_jitter_ns", ("`commit_ts − frame_time_ns`", "either NULL"), |r| r.commit_jitter_ns)
        .col("commit_corrected", ("`commit_jitter_ns ≥ 2·I`", "false when NULL"), |r| r.commit_corrected)
        .col(
            "corrected_frame_time_ns",
            ("corrected: `commit_ts − (commit_jitter_ns % I + I)`; else `frame_time_ns`", "`frame_time_ns` NULL"),
            |r| r.corrected_frame_time_ns,
        )
        .col(
            "frame_cost_ns",
            ("`ts + do_frame_dur − vsync_ts`; `do_frame_dur` without a vsync", "—"),
            |r| r.frame_cost_ns,
        )
        .col("dropped_frames", ("`max(frame_cost_ns / I, 0)` (integer division)", "—"), |r| r.dropped_frames)
        .col("drop_level", ("Matrix levels on `dropped_frames`", "—"), |r| r.drop_level.as_str())
        .col("draw_frame_ts", DRAW_FRAME, |r| r.draw_frame_ts)
        .col("draw_frame_dur", DRAW_FRAME, |r| r.draw_frame_dur)
        .col("draw_frame_count", DRAW_FRAME, |r| r.draw_frame_count)
        .col("expected_ts", EXPECTED, |r| r.expected_ts)
        .col("expected_end", EXPECTED, |r| r.expected_end)
        .col("actual_ts", ACTUAL, |r| r.actual_ts)
        .col("actual_end", ACTUAL, |r| r.actual_end)
        .col(
            "overrun_ns",
            ("`actual_end − expected_end`: the app's own surface frame (same pid, token = `frame_id`)", "either missing"),
            |r| r.overrun_ns,
        )
        .col(
            "perfetto_overrun_ns",
            ("Perfetto `android_frames_overrun.overrun`, joined on the token alone (see below)", "see below"),
            |r| r.perfetto_overrun_ns,
        )
        .col("jank_type", ACTUAL, |r| r.jank_type.as_deref())
        .col("present_type", ACTUAL, |r| r.present_type.map(|p| p.as_str()))
        .col("jank_tag", JANK_TAG, |r| r.jank_tag.map(|t| t.as_str()))
        .col("jank_severity", JANK_TAG, |r| r.jank_severity.map(|s| s.as_str()))
        .col("present_delay_ms", JANK_TAG, |r| r.present_delay_ms)
        .col("layer_name", ACTUAL, |r| r.layer_name.as_deref())
        .col(
            "layer_count",
            ("number of actual surface frames (layers) with that token and pid", "0 without a match"),
            |r| r.layer_count,
        )
        .col("app_vsync_delay", PER_FRAME_METRICS, |r| r.app_vsync_delay)
        .col("cpu_time", PER_FRAME_METRICS, |r| r.cpu_time)
        .col("ui_time", PER_FRAME_METRICS, |r| r.ui_time)
        .col("was_jank", PER_FRAME_METRICS, |r| r.was_jank)
        .col("was_slow_frame", PER_FRAME_METRICS, |r| r.was_slow_frame)
        .col("was_big_jank", PER_FRAME_METRICS, |r| r.was_big_jank)
        .col("was_huge_jank", PER_FRAME_METRICS, |r| r.was_huge_jank)
        .col("data_loss", (
            "a data loss the trace reports touches the frame: its span is from its vsync (its doFrame start when earlier or without one) to the later of its doFrame's end and its RenderThread work's end (`draw_frame_ts + draw_frame_dur`); true when a gap in the kernel's ftrace data (`data_loss.gaps`: a Perfetto bundle flagged `lost_events`, a systrace `CPU:n [LOST m EVENTS]` note) or a hole in the capture (`data_loss.holes`: no CPU recorded anything, `docs/limits.md`) overlaps that span (on any CPU: the kernel does not say whose events it lost), or when a slice end of the frame's process whose begin a reported loss took (`data_loss.unmatched_ends`, `docs/limits.md`) lies in it. Ends that are the capture's start never set it",
            "never NULL; false when the trace reports no loss",
        ), |r| r.data_loss)
        .col("blocker_tid", BLOCKER, |r| r.top_blocker().map(|b| b.tid))
        .col("blocker_thread", BLOCKER, |r| r.top_blocker().and_then(|b| b.thread.as_deref()))
        .col("blocker_slice", BLOCKER, |r| r.top_blocker().and_then(|b| b.slice.as_deref()))
        .col("blocker_ns", BLOCKER, |r| r.top_blocker().map(|b| b.ns))
        .values("scene", ("the frame's scene (docs/metrics.md, \"Scenes\")", "the frame has no scene"), scenes.to_vec())
        .build()
}

/// Docs the presents table's columns share (docs/presents.md, "Columns").
const PRESENT_PROCESS: &str =
    "the app the layer belongs to: the trace's name for its process, else the package its layers name (*Apps named by their layers*); null when no process could be told";
const PRESENT_TID: &str = "the thread that produced the layer's buffers, when known";
const PRESENT_FRAME_ID: &str =
    "`frame_timeline` only: the buffer's vsync id (token), present type and jank type, as trace_processor names them";
const PRESENT_JANK_TAG: &str =
    "`frame_timeline` only: as the frames table's columns of the same names (`docs/frames.md`)";
const PRESENT_PERFDOG_JANK: &str = "PerfDog's flags on `frame_time_ns` (*Per layer*)";

/// Build the presents table (docs/presents.md), one row per present.
pub fn presents(rows: &[crate::presents::PresentRow]) -> PolarsResult<DataFrame> {
    TableBuilder::new(rows)
        .col("process", PRESENT_PROCESS, |r| r.process.as_deref())
        .col("pid", PRESENT_PROCESS, |r| r.pid)
        .col("layer", "the layer name, whole (the terminal table and the HTML report shorten it in the middle)", |r| r.layer.as_str())
        .col("source", "`frame_timeline`, `layer_counter` or `producer` (above)", |r| r.source.as_str())
        .col("tid", PRESENT_TID, |r| r.tid)
        .col("thread", PRESENT_TID, |r| r.thread.as_deref())
        .col("ts", "the present time (above), ns", |r| r.ts)
        .col("interval_ns", "`ts` − the layer's previous present; null for its first", |r| r.interval_ns)
        .col("vsync_period_ns", "the display's vsync period at `ts` (*Display grid*)", |r| r.vsync_period_ns)
        .col("due_ts", "when the frame was due on screen (*Dropped vsyncs*); null when nothing tells", |r| r.due_ts)
        .col("idle_ns", "the part of `interval_ns` in which the app asked for no frame, when it is an idle span (longer than 83.33 ms), else 0; null for the first present", |r| r.idle_ns)
        .col("frame_time_ns", "`interval_ns − idle_ns`; null for the first present", |r| r.frame_time_ns)
        .col("dropped_vsyncs", "`max(round(frame_time_ns / vsync_period_ns) − 1, 0)`: vsyncs on which the layer showed its previous buffer again while this frame was due; null for the first present", |r| r.dropped_vsyncs)
        .col("drop_level", "Matrix's level of `dropped_vsyncs` (as `docs/frames.md` defines it: BEST < 3 ≤ NORMAL < 9 ≤ MIDDLE < 24 ≤ HIGH < 42 ≤ FROZEN)", |r| r.drop_level.as_str())
        .col("frame_id", PRESENT_FRAME_ID, |r| r.frame_id)
        .col("present_type", PRESENT_FRAME_ID, |r| r.present_type.map(|p| p.as_str()))
        .col("jank_type", PRESENT_FRAME_ID, |r| r.jank_type.as_deref())
        .col("jank_tag", PRESENT_JANK_TAG, |r| r.jank_tag.map(|t| t.as_str()))
        .col("jank_severity", PRESENT_JANK_TAG, |r| r.jank_severity.map(|s| s.as_str()))
        .col("present_delay_ms", PRESENT_JANK_TAG, |r| r.present_delay_ms)
        .col("perfdog_jank", PRESENT_PERFDOG_JANK, |r| r.perfdog_jank)
        .col("perfdog_big_jank", PRESENT_PERFDOG_JANK, |r| r.perfdog_big_jank)
        .build()
}

/// Docs the Flutter frames table's columns share (docs/presents.md, "Flutter frames").
const FLUTTER_PROCESS: &str = "the app";
const FLUTTER_UI_TID: &str = "the UI and raster threads; null when the frame has no build / no raster";
const FLUTTER_BUILD_TS: &str = "the `Animator::BeginFrame`'s start and duration; null for a raster with no build";
const FLUTTER_RASTER_TS: &str = "the `Rasterizer::DoDraw`'s start and duration; null for a build never rastered";

/// Build the Flutter frames table (docs/presents.md, "Flutter frames"), one
/// row per engine frame.
pub fn flutter_frames(rows: &[crate::presents::FlutterFrame]) -> PolarsResult<DataFrame> {
    TableBuilder::new(rows)
        .col("process", FLUTTER_PROCESS, |r| r.process.as_deref())
        .col("pid", FLUTTER_PROCESS, |r| r.pid)
        .col("ui_tid", FLUTTER_UI_TID, |r| r.ui_tid)
        .col("raster_tid", FLUTTER_UI_TID, |r| r.raster_tid)
        .col("build_ts", FLUTTER_BUILD_TS, |r| r.build_ts)
        .col("build_dur", FLUTTER_BUILD_TS, |r| r.build_dur)
        .col("raster_ts", FLUTTER_RASTER_TS, |r| r.raster_ts)
        .col("raster_dur", FLUTTER_RASTER_TS, |r| r.raster_dur)
        .col("present_ts", "end of the raster's present slice (above); null when missing", |r| r.present_ts)
        .col("vsync_period_ns", "the display's period (*Display grid*) at the frame's first phase", |r| r.vsync_period_ns)
        .col("total_ns", "`present_ts − build_ts`: build start to present; null without both", |r| r.total_ns)
        .col("dropped_vsyncs", "`total_ns / vsync_period_ns` (integer division, as a doFrame's `dropped_frames` on its cost); null without a total", |r| r.dropped_vsyncs)
        .col("drop_level", "Matrix's level of `dropped_vsyncs` (BEST when null)", |r| r.drop_level.as_str())
        .build()
}
