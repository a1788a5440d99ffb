-- FrameTimeline's verdict per app, as Perfetto summarises each actual surface
-- frame (docs/metrics.md): frames per jank tag ('Self Jank' is the app's own;
-- 'Buffer Stuffing', 'Other Jank' (SurfaceFlinger's), 'Non-perceivable Jank'
-- (display off or changing mode) are not) and per jank severity.
SELECT pid, 'tag' AS kind, jank_tag AS name, COUNT(*) AS frames
FROM frames
WHERE jank_tag IS NOT NULL
GROUP BY pid, jank_tag
UNION ALL
SELECT pid, 'severity' AS kind, jank_severity AS name, COUNT(*) AS frames
FROM frames
WHERE jank_severity IS NOT NULL
GROUP BY pid, jank_severity
ORDER BY pid, kind, frames DESC, name
