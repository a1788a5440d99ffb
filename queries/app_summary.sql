-- Per-app summary over the frames table: one row per pid, the app with the
-- most frames that drew first (a traversal, a RenderThread DrawFrame or a
-- FrameTimeline present; docs/metrics.md, "What reached the screen"; fpsan's
-- summaries also count the presents of the app's busiest layer, which this
-- table does not hold), then most frames.
-- fpsan runs this for `fpsan analyze`; try it with
--   fpsan query TRACE --file queries/app_summary.sql
-- Formulas (docs/metrics.md): fps is Matrix's frames / Σ (dropped_frames + 1)·I,
-- capped at the highest refresh rate; drop levels are Matrix's thresholds on
-- dropped_frames; slow/frozen are Android vitals on the doFrames (16 ms scaled to I, 700 ms;
-- an app judged by its layer's presents has them on its presents: docs/metrics.md).
SELECT
  pid,
  MAX(process) AS process,
  COUNT(*) AS frames,
  MAX(refresh_hz) AS refresh_hz,
  MIN(frame_interval_ns) AS min_frame_interval_ns,
  SUM((dropped_frames + 1) * frame_interval_ns) AS paced_ns,
  LEAST(MAX(refresh_hz), 1000000000.0 * COUNT(*) / SUM((dropped_frames + 1) * frame_interval_ns)) AS fps,
  MIN(ts) AS first_ts,
  MAX(ts + frame_interval_ns) AS wall_end_ts,
  SUM(dropped_frames) AS dropped_frames,
  SUM(CASE WHEN drop_level = 'BEST' THEN 1 ELSE 0 END) AS best_frames,
  SUM(CASE WHEN drop_level = 'NORMAL' THEN 1 ELSE 0 END) AS normal_frames,
  SUM(CASE WHEN drop_level = 'MIDDLE' THEN 1 ELSE 0 END) AS middle_frames,
  SUM(CASE WHEN drop_level = 'HIGH' THEN 1 ELSE 0 END) AS high_frames,
  SUM(CASE WHEN drop_level = 'FROZEN' THEN 1 ELSE 0 END) AS frozen_frames,
  SUM(CASE WHEN drop_level = 'BEST' THEN GREATEST(dropped_frames, 0) ELSE 0 END) AS best_dropped,
  SUM(CASE WHEN drop_level = 'NORMAL' THEN dropped_frames ELSE 0 END) AS normal_dropped,
  SUM(CASE WHEN drop_level = 'MIDDLE' THEN dropped_frames ELSE 0 END) AS middle_dropped,
  SUM(CASE WHEN drop_level = 'HIGH' THEN dropped_frames ELSE 0 END) AS high_dropped,
  SUM(CASE WHEN drop_level = 'FROZEN' THEN dropped_frames ELSE 0 END) AS frozen_dropped,
  SUM(CASE WHEN skipped_frames >= 30 THEN 1 ELSE 0 END) AS skipped_frame_events,
  SUM(CASE WHEN skipped_frames >= 30 THEN skipped_frames ELSE 0 END) AS skipped_frames_in_events,
  MAX(skipped_frames) AS max_skipped_frames,
  SUM(CASE WHEN was_jank THEN 1 ELSE 0 END) AS perfetto_jank,
  SUM(CASE WHEN was_slow_frame THEN 1 ELSE 0 END) AS perfetto_slow,
  SUM(CASE WHEN was_big_jank THEN 1 ELSE 0 END) AS perfetto_big_jank,
  SUM(CASE WHEN was_huge_jank THEN 1 ELSE 0 END) AS perfetto_huge_jank,
  SUM(CASE WHEN perfetto_overrun_ns IS NOT NULL THEN 1 ELSE 0 END) AS perfetto_frames,
  SUM(CASE WHEN frame_cost_ns * 25 > frame_interval_ns * 24 THEN 1 ELSE 0 END) AS vitals_slow,
  SUM(CASE WHEN frame_cost_ns > 700000000 THEN 1 ELSE 0 END) AS vitals_frozen,
  SUM(CASE WHEN draw_frame_count = 0 THEN 1 ELSE 0 END) AS without_render_thread,
  SUM(CASE WHEN actual_ts IS NULL THEN 1 ELSE 0 END) AS without_timeline,
  SUM(CASE WHEN traversal_dur IS NOT NULL OR draw_frame_count > 0 OR actual_ts IS NOT NULL THEN 1 ELSE 0 END) AS drawn_frames
FROM frames
GROUP BY pid
ORDER BY drawn_frames DESC, frames DESC, pid
