//! The numbers behind every chart, separate from the drawing so they can be
//! checked exactly: per-app frames read back from the frames table, the
//! worst window of the frame timeline, interval buckets and the CDF, wall-time
//! FPS with idle gaps, drop levels per app and scene, the janky frames with
//! their why, FrameTimeline present intervals, and the present intervals of
//! a layer (the presents stage's rows). Times on the x axes are
//! seconds from `origin_ts` (the trace start, as in the Perfetto UI).

use crate::frames::{DropLevel, FramePart, FrameRow};
use crate::metrics::{AppSummary, Percentiles};
use crate::model::PresentType;
use crate::presents::{LayerSummary, PresentAnalysis, PresentRow};
use crate::report::format::{app_name, fmt_fps, fmt_hz, fmt_rates, ns_to_ms, secs_since};

/// Stack segments of a frame bar, bottom to top: the start jitter (vsync to
/// doFrame start), the doFrame phases, the rest of doFrame, then RenderThread.
pub(crate) const SEGMENTS: [&str; 8] = [
    "start jitter",
    "input",
    "animation",
    "insets animation",
    "traversal",
    "commit",
    "other doFrame work",
    "RenderThread",
];

/// Index of the first phase in [`SEGMENTS`] that runs inside doFrame.
pub(crate) const FIRST_PHASE: usize = 1;
/// Index of "other doFrame work".
pub(crate) const OTHER: usize = 6;
/// Index of the RenderThread segment.
pub(crate) const RENDER: usize = 7;

/// A gap of at least this long between one frame's end and the next frame's
/// vsync, with no frame pending, is shown as idle on the FPS chart.
pub(crate) const IDLE_GAP_NS: i64 = 100_000_000;

/// One frame of one app, as the charts need it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Frame {
    pub frame_index: i64,
    pub frame_id: Option<i64>,
    pub ts: i64,
    pub vsync_ts: Option<i64>,
    pub interval_ns: i64,
    pub do_frame_dur: i64,
    pub frame_cost_ns: i64,
    pub dropped_frames: i64,
    pub level: DropLevel,
    /// Durations (ns) of [`SEGMENTS`].
    pub segments: [i64; 8],
    /// End of the RenderThread work, when it ran.
    pub draw_end: Option<i64>,
    /// When the RenderThread work began, ns after the bar's origin (the
    /// vsync, else the doFrame's start): the charts draw it there, on the
    /// frame's own time axis, beside the main thread's segments.
    pub render_offset_ns: Option<i64>,
    pub actual_end: Option<i64>,
    pub overrun_ns: Option<i64>,
    pub present_type: Option<PresentType>,
}

impl Frame {
    /// How far the bar reaches from its origin: the end of the main
    /// thread's segments or of the RenderThread's, whichever is later.
    pub(crate) fn total_ns(&self) -> i64 {
        let main: i64 = self.segments[..RENDER].iter().sum();
        match self.render_offset_ns {
            Some(at) => main.max(at + self.segments[RENDER]),
            None => main + self.segments[RENDER],
        }
    }

    /// Where the RenderThread segment starts on the bar: at its own time,
    /// else (no start known) after the main thread's segments.
    pub(crate) fn render_start_ns(&self) -> i64 {
        self.render_offset_ns.unwrap_or_else(|| self.segments[..RENDER].iter().sum())
    }
    /// Where the frame's own work ends: RenderThread end or doFrame end.
    fn end_ts(&self) -> i64 {
        let ui_end = self.ts + self.do_frame_dur;
        self.draw_end.map_or(ui_end, |d| d.max(ui_end))
    }
}

/// Stack segments of a frame from its frames-table values. The start jitter
/// is `ts − vsync_ts` clamped at 0; a phase that did not run is 0; "other" is
/// the part of doFrame outside the five phases (never negative).
pub(crate) fn segments(
    jitter_ns: Option<i64>,
    phases: [Option<i64>; 5],
    do_frame_dur: i64,
    draw_frame_dur: Option<i64>,
) -> [i64; 8] {
    let mut s = [0i64; 8];
    s[0] = jitter_ns.unwrap_or(0).max(0);
    let mut in_phases = 0;
    for (k, p) in phases.iter().enumerate() {
        let v = p.unwrap_or(0).max(0);
        s[FIRST_PHASE + k] = v;
        in_phases += v;
    }
    s[OTHER] = (do_frame_dur - in_phases).max(0);
    s[RENDER] = draw_frame_dur.unwrap_or(0).max(0);
    s
}

/// The frames of process `pid` (`rows` are `FrameAnalysis::rows`, whose
/// index is the frames table's `frame_index`), in start order.
pub(crate) fn app_frames(rows: &[FrameRow], pid: i32) -> Vec<Frame> {
    let mut out: Vec<Frame> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.pid == pid)
        .map(|(k, r)| Frame {
            frame_index: k as i64,
            frame_id: r.frame_id,
            ts: r.ts,
            vsync_ts: r.vsync_ts,
            interval_ns: r.frame_interval_ns,
            do_frame_dur: r.do_frame_dur,
            frame_cost_ns: r.frame_cost_ns,
            dropped_frames: r.dropped_frames.max(0),
            level: r.drop_level,
            segments: segments(
                r.jitter_ns,
                [r.input_dur, r.animation_dur, r.insets_animation_dur, r.traversal_dur, r.commit_dur],
                r.do_frame_dur,
                r.draw_frame_dur,
            ),
            draw_end: r.draw_frame_ts.zip(r.draw_frame_dur).map(|(t, d)| t + d),
            render_offset_ns: r.draw_frame_ts.map(|t| (t - r.vsync_ts.unwrap_or(r.ts).min(r.ts)).max(0)),
            actual_end: r.actual_end,
            overrun_ns: r.overrun_ns,
            present_type: r.present_type,
        })
        .collect();
    out.sort_by_key(|f| (f.ts, f.frame_index));
    out
}

/// "60 Hz", or "60/120 Hz" when the app ran at several rates (rounded to 1 Hz).
pub(crate) fn refresh_label(frames: &[Frame], fallback_hz: f64) -> String {
    fmt_rates(frames.iter().filter(|f| f.interval_ns > 0).map(|f| 1e9 / f.interval_ns as f64))
        .unwrap_or_else(|| fmt_hz(fallback_hz))
}

/// The frame interval most frames ran at (the smallest on a tie); 0 without frames.
pub(crate) fn common_interval(frames: &[Frame]) -> i64 {
    let mut counts: std::collections::BTreeMap<i64, usize> = std::collections::BTreeMap::new();
    for f in frames {
        *counts.entry(f.interval_ns).or_default() += 1;
    }
    // BTreeMap iterates in ascending interval, and max_by_key keeps the last maximum:
    // iterate in reverse so the smallest interval wins a tie.
    counts.iter().rev().max_by_key(|(_, n)| **n).map(|(i, _)| *i).unwrap_or(0)
}

// ---------------------------------------------------------------------------
// 1. Frame timeline

/// The frames drawn as bars on the timeline.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TimelineData {
    /// 0-based position in the app's frames of the first bar.
    pub start: usize,
    pub total_frames: usize,
    /// True when only a window of the frames is shown.
    pub zoomed: bool,
    pub bars: Vec<Frame>,
}

/// Start of the `width` consecutive frames with the most dropped frames
/// (ties: the larger Σ frame_cost_ns, then the earliest).
pub(crate) fn worst_window(frames: &[Frame], width: usize) -> usize {
    if width == 0 || frames.len() <= width {
        return 0;
    }
    let key = |f: &Frame| (f.dropped_frames, f.frame_cost_ns);
    let (mut d, mut c) = frames[..width].iter().map(key).fold((0i64, 0i64), |a, k| (a.0 + k.0, a.1 + k.1));
    let (mut best, mut best_key) = (0, (d, c));
    for s in 1..=frames.len() - width {
        let (out, inn) = (key(&frames[s - 1]), key(&frames[s + width - 1]));
        d += inn.0 - out.0;
        c += inn.1 - out.1;
        if (d, c) > best_key {
            best = s;
            best_key = (d, c);
        }
    }
    best
}

/// All frames when they fit in `max_bars`, else the worst window of `max_bars`.
pub(crate) fn timeline(frames: &[Frame], max_bars: usize) -> TimelineData {
    let zoomed = frames.len() > max_bars;
    let start = if zoomed { worst_window(frames, max_bars) } else { 0 };
    let end = if zoomed { start + max_bars } else { frames.len() };
    TimelineData { start, total_frames: frames.len(), zoomed, bars: frames[start..end].to_vec() }
}

// ---------------------------------------------------------------------------
// 2. Frame cost distribution

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Bucket {
    /// "1", "2", …, "10–24", "≥43".
    pub label: String,
    /// Vsync intervals the frame took (dropped_frames + 1): first and last
    /// of the bucket (None: open).
    pub intervals: i64,
    pub last: Option<i64>,
    pub frames: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Distribution {
    pub buckets: Vec<Bucket>,
    /// Sorted frame costs in ms with the fraction of frames at or below: the CDF steps.
    pub cdf: Vec<(f64, f64)>,
    pub p50: Option<i64>,
    pub p90: Option<i64>,
    pub p99: Option<i64>,
    pub max: Option<i64>,
}

/// Histogram buckets in vsync intervals (n = dropped_frames + 1): one per
/// n for 1 … 9 (BEST and NORMAL), then one per remaining Matrix level —
/// 10–24 (MIDDLE), 25–42 (HIGH), ≥ 43 (FROZEN) — so every bucket holds
/// one level and the layout is the same in every report.
pub(crate) const BUCKETS: [(i64, Option<i64>); 12] = [
    (1, Some(1)),
    (2, Some(2)),
    (3, Some(3)),
    (4, Some(4)),
    (5, Some(5)),
    (6, Some(6)),
    (7, Some(7)),
    (8, Some(8)),
    (9, Some(9)),
    (10, Some(24)),
    (25, Some(42)),
    (43, None),
];

/// Frames per bucket of [`BUCKETS`] (each frame on its own interval); the
/// CDF of `frame_cost_ns`; the app's nearest-rank percentiles (the same
/// numbers as the summary).
pub(crate) fn distribution(frames: &[Frame], pct: &Percentiles) -> Distribution {
    let mut buckets: Vec<Bucket> = BUCKETS
        .iter()
        .map(|&(lo, hi)| Bucket {
            label: match hi {
                Some(h) if h == lo => lo.to_string(),
                Some(h) => format!("{lo}–{h}"),
                None => format!("≥{lo}"),
            },
            intervals: lo,
            last: hi,
            frames: 0,
        })
        .collect();
    for f in frames {
        let n = f.dropped_frames.max(0) + 1;
        if let Some(b) = buckets.iter_mut().find(|b| n >= b.intervals && b.last.is_none_or(|h| n <= h)) {
            b.frames += 1;
        }
    }
    let mut costs: Vec<i64> = frames.iter().map(|f| f.frame_cost_ns).collect();
    costs.sort_unstable();
    let total = costs.len() as f64;
    let cdf = costs.iter().enumerate().map(|(i, &c)| (ns_to_ms(c), (i + 1) as f64 / total)).collect();
    Distribution { buckets, cdf, p50: pct.p50, p90: pct.p90, p99: pct.p99, max: pct.max }
}

// ---------------------------------------------------------------------------
// 3. FPS over time

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FpsData {
    /// (start s, end s, fps) per 1 s wall-time window (`fps_wall_timeline`).
    pub windows: Vec<(f64, f64, f64)>,
    pub refresh_hz: f64,
    /// (start s, end s) of idle gaps: no frame pending for at least [`IDLE_GAP_NS`].
    pub idle: Vec<(f64, f64)>,
    /// (start s, level, dropped frames) of each frame that dropped at least one frame.
    pub janky: Vec<(f64, DropLevel, i64)>,
    /// The app's wall time, in s.
    pub span: (f64, f64),
    /// The chart's subtitle: the series, its fps and its janky frames.
    pub caption: String,
}

/// Idle gaps of one app: from the end of a frame's work (doFrame or RenderThread,
/// whichever is later) to the next frame's vsync (its start when there is no
/// vsync), when at least [`IDLE_GAP_NS`]. A main thread busy outside a frame
/// delays the next frame after its vsync, so that time is not counted as idle.
pub(crate) fn idle_gaps(frames: &[Frame]) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    let mut busy_until = i64::MIN;
    for (k, f) in frames.iter().enumerate() {
        let next_start = f.vsync_ts.unwrap_or(f.ts).min(f.ts);
        if k > 0 && next_start - busy_until >= IDLE_GAP_NS {
            out.push((busy_until, next_start));
        }
        busy_until = busy_until.max(f.end_ts());
    }
    out
}

/// The FPS chart of an app judged by its doFrames.
pub(crate) fn fps(app: &AppSummary, frames: &[Frame], origin_ts: i64) -> FpsData {
    let janky = frames.iter().filter(|f| f.dropped_frames >= 1).count();
    FpsData {
        caption: format!(
            "fps {} (doFrames, paced) · fps_wall {} over {:.1} s of wall time · {janky} janky frames (≥ 1 dropped frame)",
            fmt_fps(app.headline.fps),
            fmt_fps(app.fps_wall),
            (app.wall_end_ts - app.first_ts) as f64 / 1e9,
        ),
        windows: app
            .fps_wall_timeline
            .iter()
            .map(|w| (secs_since(w.start_ts, origin_ts), secs_since(w.start_ts, origin_ts) + w.seconds, w.fps))
            .collect(),
        refresh_hz: app.refresh_hz,
        idle: idle_gaps(frames)
            .into_iter()
            .map(|(a, b)| (secs_since(a, origin_ts), secs_since(b, origin_ts)))
            .collect(),
        janky: frames
            .iter()
            .filter(|f| f.dropped_frames >= 1)
            .map(|f| (secs_since(f.ts, origin_ts), f.level, f.dropped_frames))
            .collect(),
        span: (secs_since(app.first_ts, origin_ts), secs_since(app.wall_end_ts, origin_ts)),
    }
}

/// The FPS chart of an app judged by the presents of its layer `index`:
/// presents per 1 s window from the first present, the display's rate,
/// presents that dropped vsyncs.
pub(crate) fn presents_fps(app: &AppSummary, presents: &PresentAnalysis, index: usize, origin_ts: i64) -> FpsData {
    let rows = layer_rows(presents, index);
    let layer = &presents.layers[index];
    let first_ts = rows.first().map_or(0, |r| r.ts);
    let wall_end_ts = rows.last().map_or(0, |r| r.ts + r.vsync_period_ns);
    let mut counts: std::collections::BTreeMap<i64, i64> = std::collections::BTreeMap::new();
    for r in rows {
        *counts.entry((r.ts - first_ts) / 1_000_000_000).or_default() += 1;
    }
    let counts: Vec<(i64, i64)> = counts.into_iter().collect();
    let janky: Vec<(f64, DropLevel, i64)> = rows
        .iter()
        .filter_map(|r| Some((r.dropped_vsyncs.filter(|&d| d >= 1)?, r)))
        .map(|(d, r)| (secs_since(r.ts, origin_ts), r.drop_level, d))
        .collect();
    // An idle span runs from the previous present for its length.
    let idle: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| Some((r.ts - r.interval_ns?, r.idle_ns.filter(|&ns| ns > 0)?)))
        .map(|(prev, ns)| (secs_since(prev, origin_ts), secs_since(prev + ns, origin_ts)))
        .collect();
    FpsData {
        caption: format!(
            "fps {} (paced) from the presents of its layer · {} presents over {:.1} s · {} janky presents (≥ 1 dropped vsync against its deadline) · {} idle spans ({:.1} s, no frame asked for)",
            fmt_fps(app.headline.fps),
            layer.presents,
            (wall_end_ts - first_ts) as f64 / 1e9,
            janky.len(),
            layer.idle.count,
            layer.idle.total_ns as f64 / 1e9
        ),
        windows: crate::metrics::fps_windows(first_ts, wall_end_ts, &counts)
            .iter()
            .map(|w| (secs_since(w.start_ts, origin_ts), secs_since(w.start_ts, origin_ts) + w.seconds, w.fps))
            .collect(),
        refresh_hz: layer.refresh_hz,
        idle,
        janky,
        span: (secs_since(first_ts, origin_ts), secs_since(wall_end_ts, origin_ts)),
    }
}

// ---------------------------------------------------------------------------
// 4. Drop levels

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LevelGroup {
    pub name: String,
    pub frames: i64,
    /// Frames per level (BEST … FROZEN).
    pub counts: [i64; 5],
    /// Σ dropped frames per level (Matrix dropSum).
    pub sums: [i64; 5],
}

/// The app as a whole, then its scenes with the most frames (at most
/// `max_groups` groups in all; the rest of the scenes are summed into
/// "other scenes").
pub(crate) fn drop_levels(app: &AppSummary, max_groups: usize) -> Vec<LevelGroup> {
    let mut out = vec![LevelGroup {
        name: "all frames".into(),
        frames: app.frames,
        counts: app.drop_level.values(),
        sums: app.drop_sum.values(),
    }];
    let mut scenes: Vec<&crate::metrics::SceneSummary> = app.scenes.iter().collect();
    // One scene holding every frame says nothing the total does not.
    if scenes.len() == 1 && scenes[0].frames == app.frames {
        return out;
    }
    scenes.sort_by(|a, b| b.frames.cmp(&a.frames).then(a.first_ts.cmp(&b.first_ts)));
    let room = max_groups.saturating_sub(1).max(1);
    let (shown, rest) = if scenes.len() > room { scenes.split_at(room - 1) } else { (&scenes[..], &[][..]) };
    for s in shown {
        out.push(LevelGroup {
            name: s.scene.clone(),
            frames: s.frames,
            counts: s.drop_level.values(),
            sums: s.drop_sum.values(),
        });
    }
    if !rest.is_empty() {
        let mut g =
            LevelGroup { name: format!("{} other scenes", rest.len()), frames: 0, counts: [0; 5], sums: [0; 5] };
        for s in rest {
            g.frames += s.frames;
            for k in 0..5 {
                g.counts[k] += s.drop_level.values()[k];
                g.sums[k] += s.drop_sum.values()[k];
            }
        }
        out.push(g);
    }
    out
}

/// One group per app, in report order.
pub(crate) fn apps_drop_levels(apps: &[&AppSummary]) -> Vec<LevelGroup> {
    apps.iter()
        .map(|a| LevelGroup {
            name: app_name(a),
            frames: a.frames,
            counts: a.drop_level.values(),
            sums: a.drop_sum.values(),
        })
        .collect()
}

// ---------------------------------------------------------------------------
// 5. Janky frames and why

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JankyRow {
    pub frame: Frame,
    /// Start, s from the origin.
    pub t: f64,
    pub dominant_phase: Option<FramePart>,
    pub dominant_ns: Option<i64>,
    pub longest_slice: Option<String>,
    pub longest_ns: Option<i64>,
    pub jank_type: Option<String>,
    /// What the frame's thread waited on: its critical path's chain after
    /// the first link (docs/frames.md), when it waited on another thread.
    pub waited_on: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JankyData {
    /// The app's worst frames (worst first), as the summary lists them.
    pub rows: Vec<JankyRow>,
    /// Frames of the app with at least one dropped frame.
    pub janky_frames: usize,
}

pub(crate) fn janky(app: &AppSummary, frames: &[Frame], origin_ts: i64) -> JankyData {
    let rows = app
        .worst_frames
        .iter()
        .filter_map(|w| {
            let f = frames.iter().find(|f| f.frame_index == w.frame_index as i64)?;
            Some(JankyRow {
                frame: f.clone(),
                t: secs_since(f.ts, origin_ts),
                dominant_phase: w.why.as_ref().map(|y| y.dominant_phase),
                dominant_ns: w.why.as_ref().map(|y| y.dominant_phase_ns),
                longest_slice: w.why.as_ref().and_then(|y| y.longest_slice.clone()),
                longest_ns: w.why.as_ref().and_then(|y| y.longest_slice_ns),
                jank_type: w.jank_type.clone(),
                waited_on: w.why.as_ref().and_then(|y| y.chain.split_once(" ← ")).map(|(_, on)| on.to_string()),
            })
        })
        .collect();
    JankyData { rows, janky_frames: frames.iter().filter(|f| f.dropped_frames >= 1).count() }
}

// ---------------------------------------------------------------------------
// 6. FrameTimeline present times

/// Colour classes of `present_type`.
pub(crate) const PRESENT_CLASSES: [&str; 5] =
    ["On-time Present", "Late Present", "Early Present", "Dropped Frame", "other"];

pub(crate) fn present_class(present_type: Option<PresentType>) -> usize {
    match present_type {
        Some(PresentType::OnTime) => 0,
        Some(PresentType::Late) => 1,
        Some(PresentType::Early) => 2,
        Some(PresentType::Dropped) => 3,
        Some(PresentType::Unknown | PresentType::Unspecified) | None => 4,
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PresentPoint {
    /// Present time (actual_end), s from the origin.
    pub t: f64,
    /// Present − previous present, when the two frames were back to back:
    /// this frame's vsync is the next one after the previous frame's (within
    /// 1.5 intervals) or came before the previous present (it was already
    /// waiting). A stall thus shows its full length, while after an idle
    /// period (no frame requested) there is no interval (None), as for the
    /// first frame.
    pub interval_ns: Option<i64>,
    pub overrun_ns: Option<i64>,
    /// Index into [`PRESENT_CLASSES`].
    pub class: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PresentData {
    pub points: Vec<PresentPoint>,
    /// The app's smallest frame interval.
    pub interval_ns: i64,
}

/// Present intervals and overrun of the frames that have a FrameTimeline
/// match, in present order; None when no frame has one.
pub(crate) fn present(frames: &[Frame], interval_ns: i64, origin_ts: i64) -> Option<PresentData> {
    let mut with: Vec<&Frame> = frames.iter().filter(|f| f.actual_end.is_some()).collect();
    if with.is_empty() {
        return None;
    }
    with.sort_by_key(|f| (f.actual_end, f.ts));
    // (present, vsync, interval) of the previous frame.
    let mut prev: Option<(i64, i64, i64)> = None;
    let points = with
        .iter()
        .map(|f| {
            let end = f.actual_end.unwrap_or(0);
            let vsync = f.vsync_ts.unwrap_or(f.ts);
            let interval_ns = prev
                .filter(|&(p_end, p_vsync, p_i)| vsync < p_end || 2 * (vsync - p_vsync) <= 3 * p_i)
                .map(|(p_end, _, _)| (end - p_end).max(0));
            prev = Some((end, vsync, f.interval_ns));
            PresentPoint {
                t: secs_since(end, origin_ts),
                interval_ns,
                overrun_ns: f.overrun_ns,
                class: present_class(f.present_type),
            }
        })
        .collect();
    Some(PresentData { points, interval_ns })
}

// ---------------------------------------------------------------------------
// 7. A layer's presents

/// The layer of app `pid` whose presents are charted and listed first: the
/// one its headline fps comes from (`PresentAnalysis::visible_layer`), else
/// its layer with the most presents (FrameTimeline first on a tie); None
/// when no layer of the app has an interval (two presents).
pub(crate) fn shown_layer(presents: &PresentAnalysis, pid: i32) -> Option<usize> {
    let shown = presents.shown_layer(pid)?;
    app_layers(presents, pid).find(|&k| std::ptr::eq(&presents.layers[k], shown))
}

/// Indices into `presents.layers` of app `pid`'s layers (they are one run:
/// layers are ordered by pid).
pub(crate) fn app_layers(presents: &PresentAnalysis, pid: i32) -> std::ops::Range<usize> {
    let from = presents.layers.partition_point(|l| l.pid < Some(pid));
    let to = presents.layers.partition_point(|l| l.pid <= Some(pid));
    from..to.max(from)
}

/// The rows of layer `index`: the layers are summaries of consecutive runs
/// of `presents.rows`, in the same order, so the run starts after the
/// presents of the layers before it. An analysis whose rows do not line up
/// with its layers (hand-made, or filtered apart) gives no rows rather than
/// another layer's.
pub(crate) fn layer_rows(presents: &PresentAnalysis, index: usize) -> &[PresentRow] {
    let Some(layer) = presents.layers.get(index) else { return &[] };
    let start: i64 = presents.layers[..index].iter().map(|l| l.presents.max(0)).sum();
    let (start, len) = (start as usize, layer.presents.max(0) as usize);
    let Some(rows) = presents.rows.get(start..start.saturating_add(len)) else { return &[] };
    let same = |r: &PresentRow| r.pid == layer.pid && r.layer == layer.layer && r.source == layer.source;
    if rows.first().is_some_and(same) && rows.last().is_some_and(same) {
        rows
    } else {
        &[]
    }
}

/// One present with an interval.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LayerPoint {
    /// Present time, s from the origin.
    pub t: f64,
    /// Present − the layer's previous present.
    pub interval_ns: i64,
    /// The display's vsync period at the present.
    pub vsync_period_ns: i64,
    pub level: DropLevel,
    pub perfdog_jank: bool,
    pub perfdog_big_jank: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LayerPresentsData {
    pub layer: LayerSummary,
    /// Every present but the layer's first (it has no interval), in time order.
    pub points: Vec<LayerPoint>,
    /// The layer's shortest vsync period (the display's highest rate).
    pub vsync_ns: i64,
}

/// The present intervals of layer `index`; None when it has none.
pub(crate) fn layer_presents(presents: &PresentAnalysis, index: usize, origin_ts: i64) -> Option<LayerPresentsData> {
    let rows = layer_rows(presents, index);
    let points: Vec<LayerPoint> = rows
        .iter()
        .filter_map(|r| {
            Some(LayerPoint {
                t: secs_since(r.ts, origin_ts),
                interval_ns: r.interval_ns?,
                vsync_period_ns: r.vsync_period_ns,
                level: r.drop_level,
                perfdog_jank: r.perfdog_jank,
                perfdog_big_jank: r.perfdog_big_jank,
            })
        })
        .collect();
    if points.is_empty() {
        return None;
    }
    let vsync_ns = points.iter().map(|p| p.vsync_period_ns).filter(|&v| v > 0).min().unwrap_or(0);
    Some(LayerPresentsData { layer: presents.layers[index].clone(), points, vsync_ns })
}

/// PerfDog's Jank and BigJank floors: a present interval is never one below these.
pub(crate) const PERFDOG_JANK_NS: i64 = 83_333_333;
pub(crate) const PERFDOG_BIG_JANK_NS: i64 = 125_000_000;

/// Top of the present-interval axis: as [`y_cap`], but never clipping below
/// 150 ms, so PerfDog's Jank (> 83.3 ms) and BigJank (> 125 ms) presents show
/// at their real height.
pub(crate) fn layer_y_cap(values_ms: &[f64], vsync_ms: f64) -> f64 {
    let max = values_ms.iter().copied().filter(|v| v.is_finite()).fold(0.0, f64::max);
    y_cap(values_ms, vsync_ms).max(max.min(150.0) * 1.08)
}

// ---------------------------------------------------------------------------
// Scales

/// Top of a ms axis for `values`: the largest value, but at most
/// max(4 × interval, 1.5 × P90) so one 700 ms frame does not flatten the
/// rest (taller values are drawn clipped and labelled), and at least
/// 2.2 × interval so the 2× budget line is always on the chart; plus 8 %
/// headroom.
pub(crate) fn y_cap(values: &[f64], interval_ms: f64) -> f64 {
    let mut s: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    s.sort_by(f64::total_cmp);
    let max = s.last().copied().unwrap_or(0.0);
    let p90 = if s.is_empty() { 0.0 } else { s[((s.len() as f64 * 0.9).ceil() as usize).clamp(1, s.len()) - 1] };
    let cap = (4.0 * interval_ms).max(1.5 * p90);
    let top = max.min(cap).max(2.2 * interval_ms);
    let top = if top > 0.0 { top } else { 1.0 };
    top * 1.08
}

// ---------------------------------------------------------------------------
// 9. Input latency (docs/input.md)

/// One input event of the app, at its read (its dispatch without a read).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InputPoint {
    pub t: f64,
    pub end_to_end_ns: Option<i64>,
    pub handling_ns: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InputData {
    pub points: Vec<InputPoint>,
    /// The app's summary: the subtitle's percentiles.
    pub summary: crate::input::InputSummary,
    /// The app's frame interval, the scale's floor.
    pub interval_ns: i64,
}

/// The input events app `pid` received (each dispatch once), in dispatch
/// order; None without its input summary or events.
pub(crate) fn input(
    input: &crate::input::InputAnalysis,
    pid: i32,
    interval_ns: i64,
    origin_ts: i64,
) -> Option<InputData> {
    let summary = input.apps.iter().find(|s| s.pid == pid && s.events > 0)?.clone();
    let points: Vec<InputPoint> = crate::input::events::once_per_dispatch(&input.events)
        .filter(|e| e.pid == pid)
        .map(|e| InputPoint {
            t: secs_since(e.first_ts(), origin_ts),
            end_to_end_ns: e.end_to_end_latency_dur,
            handling_ns: e.handling_latency_dur,
        })
        .collect();
    (!points.is_empty()).then_some(InputData { points, summary, interval_ns })
}
