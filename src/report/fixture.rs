//! Test fixtures of the report module: a hand-made analysis summarised into
//! everything a [`Report`] borrows ([`Analysed`]), and the two-app analysis
//! the chart and HTML tests share ([`two_apps`]). Frames come from
//! `crate::testutil`. Compiled for tests only.

use polars::prelude::DataFrame;

use super::Report;
use crate::frames::{FrameAnalysis, FramePart, FrameRow, FrameWhy, Phase};
use crate::metrics::{self, AppFilter, AppSummary, MetricsOptions};
use crate::model::{Trace, Warning, WarningCode};
use crate::testutil::{app_frame, I60, MS};

/// An analysis with its frames table and app summaries, as `fpsan analyze`
/// would hand them to the exporters.
pub(crate) struct Analysed {
    pub trace: Trace,
    pub analysis: FrameAnalysis,
    pub frames: DataFrame,
    pub apps: Vec<AppSummary>,
    pub presents: crate::presents::PresentAnalysis,
    pub presents_table: DataFrame,
    pub warnings: Vec<Warning>,
}

impl Analysed {
    /// Summarise `rows` and `why` of the apps `filter` selects (default
    /// metrics options, default reconstruction quality).
    pub fn new(trace: Trace, rows: Vec<FrameRow>, why: Vec<FrameWhy>, filter: &AppFilter) -> Analysed {
        let display = crate::frames::DisplayGrid::new(&trace);
        let mut analysis = FrameAnalysis::default();
        (analysis.rows, analysis.why, analysis.display) = (rows, why, display);
        let presents = crate::presents::analyze(&trace, &analysis);
        let (kept, scenes) = metrics::kept_frames(&trace, &analysis, filter, &presents.names);
        let frames = crate::tables::frames(&analysis, &kept, &scenes).unwrap();
        let presents_table = crate::tables::presents(&presents.rows).unwrap();
        let apps = metrics::summarize(&analysis, &kept, &scenes, &presents, &MetricsOptions::default());
        Analysed { trace, analysis, frames, apps, presents, presents_table, warnings: Vec::new() }
    }

    pub fn with_warnings(mut self, warnings: &[&str]) -> Analysed {
        self.warnings = warnings.iter().map(|w| Warning::new(WarningCode::MalformedRecords, *w)).collect();
        self
    }

    pub fn report(&self) -> Report<'_> {
        Report {
            meta: &self.trace.meta,
            span_ns: self.trace.span_ns(),
            apps: &self.apps,
            frames: Some(&self.frames),
            rows: &self.analysis.rows,
            presents: &self.presents,
            presents_table: Some(&self.presents_table),
            quality: &self.analysis.quality,
            warnings: &self.warnings,
            lanes: None,
            startups: &[],
            blocks: &NO_BLOCKS,
            input: &NO_INPUT,
        }
    }
}

/// A report without input.
static NO_INPUT: crate::input::InputAnalysis =
    crate::input::InputAnalysis { events: Vec::new(), rows_left_out: 0, gestures: Vec::new(), apps: Vec::new() };

/// A report without main-thread blocks.
static NO_BLOCKS: crate::blocks::BlockAnalysis = crate::blocks::BlockAnalysis { blocks: Vec::new(), span_ns: 0 };

/// App `com.example.app` (pid 100, 40 frames 50 ms apart from 1 s, frames
/// 35+ after a 300 ms pause; frame 10 costs 60 ms (NORMAL), frame 20 200 ms
/// (MIDDLE), frame 25 450 ms (HIGH), the rest 6 ms; FrameTimeline from frame
/// 20; a why for each janky frame) and `com.other` (pid 200, 5 frames), in
/// a 3 MB trace from a Pixel 9 on API 36 starting at 0.5 s.
pub(crate) fn two_apps() -> Analysed {
    let mut trace = Trace::default();
    trace.meta.path = "/traces/demo.pftrace".into();
    trace.meta.file_size = 3 * 1024 * 1024;
    trace.meta.first_ts = Some(500_000_000);
    trace.meta.last_ts = Some(4_500_000_000);
    trace.meta.android.sdk_version = Some(36);
    trace.meta.android.device = Some("Pixel 9".into());
    let mut rows = Vec::new();
    for k in 0..40i64 {
        let ts = 1_000_000_000 + k * 50 * MS + if k >= 35 { 300 * MS } else { 0 };
        let cost = match k {
            10 => 60 * MS,
            20 => 200 * MS,
            25 => 450 * MS,
            _ => 6 * MS,
        };
        rows.push(app_frame(100, "com.example.app", ts, cost, k));
    }
    for k in 0..5i64 {
        rows.push(app_frame(200, "com.other", 1_200_000_000 + k * 20 * MS, 5 * MS, k));
    }
    let why = [(10usize, Phase::Traversal), (20, Phase::Traversal), (25, Phase::Animation)]
        .iter()
        .map(|&(i, phase)| FrameWhy {
            frame_index: i,
            dominant_phase: FramePart::Phase(phase),
            dominant_phase_ns: rows[i].traversal_dur.unwrap_or(0),
            longest_slice: Some(format!("RV OnBindView {i}")),
            longest_slice_ns: Some(rows[i].traversal_dur.unwrap_or(0) - MS),
            blockers: vec![],
            thread_state: None,
            critical_path: Vec::new(),
            chain: String::new(),
        })
        .collect();
    Analysed::new(trace, rows, why, &AppFilter::All).with_warnings(&["a warning"])
}

/// The app's SurfaceView layer in [`game`].
pub(crate) const GAME_LAYER: &str = "SurfaceView - com.example.app/com.example.app.MainActivity#0";
/// The app's View layer in [`game`].
pub(crate) const GAME_VIEW_LAYER: &str = "com.example.app/com.example.app.MainActivity#0";
/// The vsyncs after which the SurfaceView layer of [`game`] queued a buffer:
/// every second one, with a 6-vsync (100 ms) and an 8-vsync (133 ms) hitch.
pub(crate) const GAME_QUEUES: [i64; 18] = [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 26, 28, 30, 32, 40, 42, 44];

/// Vsync `k` of [`game`]'s 60 Hz panel.
pub(crate) fn game_vsync(k: i64) -> i64 {
    1_000_000_000 + k * I60
}

/// App `com.example.app` (pid 100) drawn by Unity into a SurfaceView on a
/// 60 Hz panel whose `VSYNC-sf` ticks at every [`game_vsync`] from 1 s (the
/// trace's start): 45 doFrames of 5 ms, one per vsync; SurfaceFlinger's
/// counter of its SurfaceView layer ([`GAME_LAYER`]) goes up 10 ms after
/// each vsync of [`GAME_QUEUES`] and down (a present) 1 ms into the next
/// vsync — 18 presents — and its View layer's after vsyncs 5, 7 and 9 — 3
/// presents.
pub(crate) fn game() -> Analysed {
    const SF: i32 = 1000;
    const PID: i32 = 100;
    let mut b = crate::model::testutil::TB::new();
    b.process(SF, "/system/bin/surfaceflinger").thread(SF, SF, "surfaceflinger");
    b.process(PID, "com.example.app").thread(PID, PID, "com.example.app");
    b.thread(110, PID, "UnityMain").thread(111, PID, "UnityGfxDeviceW").thread(112, PID, "RenderThread");
    for k in 0..50 {
        b.counter(SF, "VSYNC-sf", game_vsync(k), (k % 2) as f64);
    }
    for (layer, queues) in [(GAME_LAYER, &GAME_QUEUES[..]), (GAME_VIEW_LAYER, &[5, 7, 9][..])] {
        for &k in queues {
            b.counter(SF, layer, game_vsync(k) + 10 * MS, 1.0);
            b.counter(SF, layer, game_vsync(k + 1) + MS, 0.0);
        }
    }
    let mut trace = b.build();
    trace.meta.path = "game.pftrace".into();
    trace.meta.first_ts = Some(game_vsync(0));
    trace.meta.last_ts = Some(game_vsync(50));
    let rows = (0..45).map(|k| app_frame(PID, "com.example.app", game_vsync(k) + MS, 5 * MS, k)).collect();
    Analysed::new(trace, rows, vec![], &AppFilter::All)
}
