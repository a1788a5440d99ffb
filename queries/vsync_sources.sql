-- How each app's frames found their vsync (SPEC §3.1), 'none' when no source.
SELECT pid, COALESCE(vsync_source, 'none') AS vsync_source, COUNT(*) AS frames
FROM frames
GROUP BY pid, COALESCE(vsync_source, 'none')
ORDER BY pid, frames DESC, vsync_source
