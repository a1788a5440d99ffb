-- Janky frames (at least one dropped frame), worst first within each app.
-- fpsan keeps the first few per app and attaches their FrameWhy.
SELECT frame_index, pid, ts, frame_id, scene, frame_cost_ns, dropped_frames, drop_level,
  do_frame_dur, jitter_ns, input_dur, animation_dur, traversal_dur, commit_dur,
  draw_frame_dur, jank_type
FROM frames
WHERE dropped_frames >= 1
ORDER BY pid, frame_cost_ns DESC, ts
