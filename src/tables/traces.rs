//! The lake's own table, `traces` (docs/lake.md): one row per input file of
//! `fpsan batch`, analysed or not, written last for each trace.

use polars::prelude::*;

use super::TableBuilder;

/// The lake's schema version, in `_fpsan_lake.json` and every `traces` row:
/// bumped when a column of the lake's tables changes meaning or type
/// (docs/lake.md, "Versions").
pub const SCHEMA_VERSION: u32 = 2;

/// Whether a trace made it into the lake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceStatus {
    Ok,
    Failed,
}

impl TraceStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TraceStatus::Ok => "ok",
            TraceStatus::Failed => "failed",
        }
    }
}

/// One input's row of the `traces` table.
#[derive(Debug, Clone)]
pub struct TraceRow {
    pub trace_id: String,
    pub path: String,
    pub size_bytes: u64,
    pub container: Option<&'static str>,
    pub status: TraceStatus,
    pub error: Option<String>,
    pub frames: i64,
    pub apps: i64,
    pub warnings: i64,
    pub device: Option<String>,
    pub build_fingerprint: Option<String>,
    pub analyse_ms: f64,
    pub write_ms: f64,
}

/// `traces`: one row per input file.
pub fn traces(rows: &[TraceRow]) -> PolarsResult<DataFrame> {
    TableBuilder::new(rows)
        .col("trace_id", "the BLAKE3 hash of the file's bytes, hex (the join key between the tables)", |r| {
            r.trace_id.as_str()
        })
        .col("path", "the input file", |r| r.path.as_str())
        .col("size_bytes", "the file's size", |r| r.size_bytes as i64)
        .col("container", ("plain, gzip, zstd, systrace text/ctrace/html", "the trace could not be read"), |r| {
            r.container
        })
        .col("status", "`ok`, `failed`", |r| r.status.as_str())
        .col("error", ("why the trace failed, one line", "`status` is `ok`"), |r| r.error.as_deref())
        .col("frames", "the trace's frames (count)", |r| r.frames)
        .col("apps", "the trace's apps (count)", |r| r.apps)
        .col("warnings", "the trace's warnings (count)", |r| r.warnings)
        .col("device", ("from the trace's SystemInfo", "the trace does not say"), |r| r.device.as_deref())
        .col("build_fingerprint", ("from the trace's SystemInfo", "the trace does not say"), |r| {
            r.build_fingerprint.as_deref()
        })
        .col("fpsan_version", "the fpsan that wrote the row", |_| env!("CARGO_PKG_VERSION"))
        .col("schema_version", "the lake's schema version (docs/lake.md, \"Versions\")", |_| i64::from(SCHEMA_VERSION))
        .col("analyse_ms", "time to analyse the trace, ms", |r| r.analyse_ms)
        .col("write_ms", "time to write its tables, ms", |r| r.write_ms)
        .build()
}
