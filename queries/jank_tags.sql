-- FrameTimeline's verdict per app, as Perfetto summarises each actual surface
-- frame of the app's layers (docs/metrics.md): frames per jank tag ('Self
-- Jank' is the app's own; 'Buffer Stuffing', 'Other Jank' (SurfaceFlinger's),
-- 'Non-perceivable Jank' (display off or changing mode) are not) and per jank
-- severity.
SELECT pid, 'tag' AS kind, jank_tag AS name, COUNT(*) AS frames
FROM frame_timeline
WHERE kind = 'actual' AND surface AND jank_tag IS NOT NULL
GROUP BY pid, jank_tag
UNION ALL
SELECT pid, 'severity' AS kind, jank_severity_type AS name, COUNT(*) AS frames
FROM frame_timeline
WHERE kind = 'actual' AND surface AND jank_severity_type IS NOT NULL
GROUP BY pid, jank_severity_type
ORDER BY pid, kind, frames DESC, name
