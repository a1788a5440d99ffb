//! `--format json` and `summary.json`: one JSON document
//! `{"fpsan_version", "trace", "apps", "presents", "startups", "quality", "frames", "warnings"}`
//! (`startups` only when the trace has one).
//! `summary.json` leaves `frames` out (they are in frames.csv / .parquet).

use serde::Serialize;
use serde_json::{json, Value};

use super::{cells, Artifact, Exporter, Report, ReportError};

pub(crate) struct JsonExporter {
    pub file_name: &'static str,
    pub include_frames: bool,
}

/// The `trace` object: what the trace is and what it contains.
pub(crate) fn trace_json(report: &Report) -> Value {
    let m = report.meta;
    json!({
        "path": m.path,
        "file_size": m.file_size,
        "container": m.container,
        "packets": m.packets,
        "span_ns": report.span_ns,
        "first_ts": m.first_ts,
        "last_ts": m.last_ts,
        "clocks": m.clocks,
        "trace_clock": m.trace_clock,
        "data_sources": m.data_sources,
        "frame_timeline_events": m.frame_timeline_events,
        "atrace_events": m.atrace_events,
        "atrace_malformed": m.atrace_malformed,
        "sched_events": m.sched_events,
        "data_loss": m.data_loss,
        "cut_at_start": m.cut_at_start,
        "android": m.android,
    })
}

/// The whole document, keys in this order.
#[derive(Serialize)]
pub(crate) struct Document<'a> {
    pub fpsan_version: &'static str,
    pub trace: Value,
    pub apps: &'a [crate::metrics::AppSummary],
    pub presents: Presents<'a>,
    /// Only when the trace has one (docs/startups.md).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub startups: &'a [crate::startups::Startup],
    pub main_thread_blocks: MainThreadBlocks<'a>,
    /// Only when an app received input (docs/input.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<Input<'a>>,
    pub quality: &'a crate::frames::FrameQuality,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames: Option<cells::JsonRows>,
    pub warnings: &'a [crate::model::Warning],
}

/// The `main_thread_blocks` object (docs/blocks.md, "Everywhere"): each
/// process' summary, and its blocks of frame-scale and longer (the rest,
/// every doFrame among them, are in the table).
#[derive(Serialize)]
pub(crate) struct MainThreadBlocks<'a> {
    pub apps: Vec<crate::blocks::summary::BlockSummary>,
    pub blocks: Vec<&'a crate::blocks::Block>,
}

/// The `input` object (docs/input.md): each app's input summary and every
/// gesture.
#[derive(Serialize)]
pub(crate) struct Input<'a> {
    pub apps: &'a [crate::input::InputSummary],
    pub gestures: &'a [crate::input::Gesture],
}

/// The `presents` object: every app's renderer (by pid), each layer's
/// summary, each Flutter app's frames summary (only when there is one), and
/// with the frames also the presents table's rows and the Flutter frames.
#[derive(Serialize)]
pub(crate) struct Presents<'a> {
    pub renderers: &'a std::collections::BTreeMap<i32, crate::presents::Renderer>,
    pub layers: &'a [crate::presents::LayerSummary],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<&'a [crate::presents::PresentRow]>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub flutter: &'a [crate::presents::FlutterSummary],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flutter_frames: Option<&'a [crate::presents::FlutterFrame]>,
}

pub(crate) fn document<'a>(report: &Report<'a>, include_frames: bool) -> Result<Document<'a>, ReportError> {
    Ok(Document {
        fpsan_version: env!("CARGO_PKG_VERSION"),
        trace: trace_json(report),
        apps: report.apps,
        presents: Presents {
            renderers: &report.presents.renderers,
            layers: &report.presents.layers,
            rows: include_frames.then_some(report.presents.rows.as_slice()),
            flutter: &report.presents.flutter_apps,
            flutter_frames: (include_frames && !report.presents.flutter.is_empty())
                .then_some(report.presents.flutter.as_slice()),
        },
        startups: report.startups,
        main_thread_blocks: MainThreadBlocks {
            apps: report.blocks.listed(),
            blocks: report.blocks.blocks.iter().filter(|b| b.counts()).collect(),
        },
        input: (!report.input.apps.is_empty())
            .then(|| Input { apps: &report.input.apps, gestures: &report.input.gestures }),
        quality: report.quality,
        frames: if include_frames { Some(cells::json_rows(report.frames_table()?)?) } else { None },
        warnings: report.warnings,
    })
}

/// The document written into `w` as it is serialised, then a newline. A
/// failed write keeps its `io::Error` (a closed pipe is not an error to report).
pub(crate) fn write<W: std::io::Write>(report: &Report, include_frames: bool, w: &mut W) -> Result<(), ReportError> {
    let doc = document(report, include_frames)?;
    serde_json::to_writer_pretty(&mut *w, &doc)
        .map_err(std::io::Error::from)
        .and_then(|()| w.write_all(b"\n"))
        .map_err(ReportError::Stdout)
}

impl Exporter<Report<'_>> for JsonExporter {
    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        let mut bytes = Vec::new();
        write(report, self.include_frames, &mut bytes)?;
        Ok(vec![Artifact { file_name: self.file_name.into(), bytes }])
    }
}
