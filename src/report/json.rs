//! `--format json` and `summary.json`: one JSON document
//! `{"fpsan_version", "trace", "apps", "quality", "frames", "warnings"}`.
//! `summary.json` leaves `frames` out (they are in frames.csv / .parquet).

use serde_json::{json, Value};

use super::{cells, Artifact, Exporter, Report, ReportError};

pub struct JsonExporter {
    pub file_name: &'static str,
    pub include_frames: bool,
}

/// The `trace` object: what the trace is and what it contains.
pub fn trace_json(report: &Report) -> Value {
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
        "android": m.android,
    })
}

/// The whole document.
pub fn document(report: &Report, include_frames: bool) -> Result<Value, ReportError> {
    let mut doc = serde_json::Map::new();
    doc.insert("fpsan_version".into(), env!("CARGO_PKG_VERSION").into());
    doc.insert("trace".into(), trace_json(report));
    doc.insert("apps".into(), serde_json::to_value(report.apps)?);
    doc.insert("quality".into(), serde_json::to_value(report.quality)?);
    if include_frames {
        doc.insert("frames".into(), cells::json_rows(report.frames)?);
    }
    doc.insert("warnings".into(), serde_json::to_value(report.warnings)?);
    Ok(Value::Object(doc))
}

impl Exporter for JsonExporter {
    fn name(&self) -> &'static str {
        "json"
    }

    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        let mut bytes = serde_json::to_vec_pretty(&document(report, self.include_frames)?)?;
        bytes.push(b'\n');
        Ok(vec![Artifact {
            file_name: self.file_name.into(),
            bytes,
        }])
    }
}
