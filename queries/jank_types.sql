-- FrameTimeline jank types per app: the actual surface frame's jank_type split
-- on ", " (a frame with "App Deadline Missed, Buffer Stuffing" counts once for
-- each), frames without a timeline match left out.
SELECT pid, jank, COUNT(*) AS frames
FROM (
  SELECT pid, UNNEST(STRING_TO_ARRAY(jank_type, ', ')) AS jank
  FROM frames
  WHERE jank_type IS NOT NULL
) AS j
GROUP BY pid, jank
ORDER BY pid, frames DESC, jank
