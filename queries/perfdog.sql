-- PerfDog's Jank / BigJank / Stutter per app (docs/metrics.md).
-- present_ts: when the frame reached the screen (FrameTimeline actual end), else
-- when RenderThread finished it, else the doFrame end.
-- frame_time_ns: present_ts − max(previous frame's present_ts, this frame's vsync):
-- PerfDog's present-to-present FrameTime, without counting idle time in which
-- no frame was requested.
-- Jank: frame_time > 2 × mean of the previous 3 frame times and > 83.33 ms
-- (3·ft > 2·Σprev3 and 3·ft > 250 ms, exact in integers); BigJank: the same with
-- 125 ms. Every BigJank is also a Jank. Stutter = Σ jank frame time / Σ frame time.
WITH presented AS (
  SELECT pid, ts,
    COALESCE(actual_end, draw_frame_ts + draw_frame_dur, ts + do_frame_dur) AS present_ts,
    COALESCE(vsync_ts, ts) AS start_ts
  FROM frames
),
timed AS (
  SELECT pid, ts,
    GREATEST(present_ts - GREATEST(LAG(present_ts) OVER (PARTITION BY pid ORDER BY ts), start_ts), 0) AS frame_time_ns
  FROM presented
),
history AS (
  SELECT pid, ts, frame_time_ns,
    LAG(frame_time_ns, 1) OVER (PARTITION BY pid ORDER BY ts)
      + LAG(frame_time_ns, 2) OVER (PARTITION BY pid ORDER BY ts)
      + LAG(frame_time_ns, 3) OVER (PARTITION BY pid ORDER BY ts) AS prev3_sum
  FROM timed
),
flagged AS (
  SELECT pid, frame_time_ns,
    CASE WHEN prev3_sum IS NOT NULL AND 3 * frame_time_ns > 2 * prev3_sum
              AND 3 * frame_time_ns > 250000000 THEN 1 ELSE 0 END AS jank,
    CASE WHEN prev3_sum IS NOT NULL AND 3 * frame_time_ns > 2 * prev3_sum
              AND frame_time_ns > 125000000 THEN 1 ELSE 0 END AS big_jank
  FROM history
)
SELECT pid,
  SUM(jank) AS jank,
  SUM(big_jank) AS big_jank,
  SUM(CASE WHEN jank = 1 THEN frame_time_ns ELSE 0 END) AS jank_time_ns,
  SUM(frame_time_ns) AS total_time_ns
FROM flagged
GROUP BY pid
ORDER BY pid
