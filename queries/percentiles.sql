-- Nearest-rank percentiles (QUANTILE_DISC: the value at sorted position
-- ceil(n·p), 1-based; nulls ignored) and maxima of the frame durations, per pid.
SELECT
  pid,
  QUANTILE_DISC(frame_cost_ns, 0.5) AS frame_cost_p50,
  QUANTILE_DISC(frame_cost_ns, 0.9) AS frame_cost_p90,
  QUANTILE_DISC(frame_cost_ns, 0.95) AS frame_cost_p95,
  QUANTILE_DISC(frame_cost_ns, 0.99) AS frame_cost_p99,
  MAX(frame_cost_ns) AS frame_cost_max,
  QUANTILE_DISC(do_frame_dur, 0.5) AS do_frame_dur_p50,
  QUANTILE_DISC(do_frame_dur, 0.9) AS do_frame_dur_p90,
  QUANTILE_DISC(do_frame_dur, 0.95) AS do_frame_dur_p95,
  QUANTILE_DISC(do_frame_dur, 0.99) AS do_frame_dur_p99,
  MAX(do_frame_dur) AS do_frame_dur_max,
  QUANTILE_DISC(overrun_ns, 0.5) AS overrun_ns_p50,
  QUANTILE_DISC(overrun_ns, 0.9) AS overrun_ns_p90,
  QUANTILE_DISC(overrun_ns, 0.95) AS overrun_ns_p95,
  QUANTILE_DISC(overrun_ns, 0.99) AS overrun_ns_p99,
  MAX(overrun_ns) AS overrun_ns_max
FROM frames
GROUP BY pid
ORDER BY pid
