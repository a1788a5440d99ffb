-- Per-scene summary (scene = FrameTimeline layer or activity, see docs/metrics.md):
-- the same fps and drop-level formulas as app_summary.sql, per (pid, scene).
SELECT
  pid,
  COALESCE(scene, '(unknown)') AS scene,
  COUNT(*) AS frames,
  MIN(ts) AS first_ts,
  MAX(refresh_hz) AS refresh_hz,
  LEAST(MAX(refresh_hz), 1000000000.0 * COUNT(*) / SUM((dropped_frames + 1) * frame_interval_ns)) AS fps,
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
  QUANTILE_DISC(frame_cost_ns, 0.9) AS frame_cost_p90
FROM frames
GROUP BY pid, COALESCE(scene, '(unknown)')
ORDER BY pid, first_ts
