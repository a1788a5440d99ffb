-- FrameTimeline jank types per app (docs/metrics.md): every actual surface
-- frame of the app's layers, as trace_processor's actual_frame_timeline_slice
-- has them (dropped frames and frames matched to no doFrame included), its
-- jank_type split on ", " (a frame with "App Deadline Missed, Buffer
-- Stuffing" counts once for each).
SELECT pid, jank, COUNT(*) AS frames
FROM (
  SELECT pid, UNNEST(STRING_TO_ARRAY(jank_type, ', ')) AS jank
  FROM frame_timeline
  WHERE kind = 'actual' AND surface AND jank_type IS NOT NULL
) AS j
GROUP BY pid, jank
ORDER BY pid, frames DESC, jank
