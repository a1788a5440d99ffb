-- Frames per second of wall time (the FrameCallback counter): frames counted by
-- doFrame start in 1 s windows from each app's first frame. fpsan divides each
-- count by the part of the window before the app's wall end (max ts + I).
SELECT pid, window, COUNT(*) AS frames
FROM (
  SELECT pid, DIV(ts - MIN(ts) OVER (PARTITION BY pid), 1000000000) AS window
  FROM frames
) AS w
GROUP BY pid, window
ORDER BY pid, window
