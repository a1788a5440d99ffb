//! Warnings about a trace: damage that was worked around, data the trace
//! says it lost, records that were skipped. Each has a stable code (what a
//! program matches on; listed in docs/report.md) and a message for people.

/// What a warning is about. The codes (`serde` names) are stable: a new kind
/// of warning gets a new code, an existing code keeps its meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningCode {
    /// A compressed file or stream ends early (an interrupted pull or
    /// capture); what inflated before the cut was analysed.
    StreamCut,
    /// The end of a protobuf trace does not form a whole packet; the rest
    /// of the file was not decoded.
    TraceTruncated,
    /// Bytes after the end of a compressed systrace stream were ignored.
    TrailingBytes,
    /// A systrace HTML `<script>` block has no end (a cut file).
    HtmlScriptCut,
    /// A systrace HTML block was skipped (not trace data, or unreadable).
    HtmlBlockSkipped,
    /// Lines of a systrace `PROCESS DUMP` that are not `ps` rows were skipped.
    ProcessDumpLinesSkipped,
    /// Lines of systrace text that are not ftrace events were skipped.
    LinesUnparsed,
    /// Text that was not UTF-8; its bad bytes were replaced.
    InvalidUtf8,
    /// Names longer than the limit were cut (docs/limits.md).
    NamesTruncated,
    /// Malformed packets or events were skipped.
    MalformedRecords,
    /// A writer reported that packets before it were lost.
    PacketsDropped,
    /// The trace buffer discarded chunks once full or overwrote its oldest
    /// (information, as trace_processor grades them).
    TraceBufferLoss,
    /// The kernel lost ftrace events in the middle of the data: a bundle
    /// flagged `lost_events`, a systrace `CPU:n [LOST m EVENTS]` note after
    /// the CPU's data began.
    FtraceOverrun,
    /// The kernel's perf ring buffers lost records (trace_processor's
    /// `perf_cpu_lost_records`).
    PerfRecordsLost,
    /// The tracing service's own counters report data loss (patches that
    /// failed, ABI violations, a writer's lost packets, failed flushes).
    TracingServiceLoss,
    /// No CPU recorded any event for far longer than usual: a hole in the
    /// capture (docs/limits.md, "Capture holes").
    CaptureHole,
    /// ftrace_stats count events overwritten (information, as
    /// trace_processor grades `ftrace_cpu_overrun_end`).
    FtraceOverrunStats,
    /// Slices nested past the depth limit were dropped.
    SlicesTooDeep,
    /// Timestamps in a clock no snapshot relates to BOOTTIME were skipped.
    ClockUnconvertible,
    /// atrace reported errors while tracing.
    AtraceErrors,
    /// Track events without a timestamp were skipped.
    TrackEventsUndated,
    /// Track events that name no known track were skipped.
    TrackEventsWithoutTrack,
    /// The trace's primary clock is not BOOTTIME.
    TraceClockNotBoottime,
    /// FrameTimeline events without a token or pid were skipped.
    FrameTimelineEventsSkipped,
    /// Several frames of one process share a vsync id.
    RepeatedVsyncIds,
    /// Only the driven scenario's window (marked by `capture --drive`) was analysed.
    ScenarioWindow,
    /// Input messages repeat a channel and seq so often that some of
    /// `android_input_events`' combinations were left out (docs/input.md).
    InputRowsLeftOut,
    // `compare`'s own warnings (its runs' warnings keep their codes).
    /// A run could not be analysed and was left out.
    RunLeftOut,
    /// A run has no frames of the compared app and was left out.
    RunWithoutApp,
    /// The two sides ran at different refresh rates.
    RefreshDiffers,
    /// The runs of one side ran at different refresh rates.
    MixedRefresh,
    /// The two sides come from different builds.
    BuildFingerprintDiffers,
    /// The two sides come from different devices.
    DeviceDiffers,
    /// The app drew for much longer or shorter on one side: a changed scenario?
    ScenarioChanged,
    /// fps varies more than 10% run to run on one side.
    NoisyRuns,
    /// A scene is on one side only and was not compared.
    SceneOnOneSide,
    /// Some runs of the app are judged by a layer's presents, others by its doFrames.
    MixedFrameSources,
    /// A `--fail-if` rule names a metric these traces do not have.
    GateNotChecked,
    /// The runs.json of the sides records different device states (throttling,
    /// APKs, compilation) or an unchanged build.
    DeviceStateDiffers,
    /// The runs' app startups are of several types (cold, warm, hot): only
    /// the most common type's are compared.
    StartupTypesDiffer,
    /// The comparison decides on the startup, but the app has no startup
    /// with a TTID on both sides.
    NoStartup,
}

/// How much a warning matters, as trace_processor's `stats.severity` grades
/// its counters: information about the trace, a result that is degraded
/// (something was skipped or assumed), or data the trace lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Degraded,
    DataLoss,
}

impl Severity {
    /// How the terminal and the report name it.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Info => "note",
            Severity::Degraded => "warning",
            Severity::DataLoss => "data loss",
        }
    }
}

impl WarningCode {
    /// The severity of every warning of this code (docs/report.md).
    pub fn severity(self) -> Severity {
        use WarningCode::*;
        match self {
            StreamCut | TraceTruncated | HtmlScriptCut | PacketsDropped | FtraceOverrun | CaptureHole
            | PerfRecordsLost | TracingServiceLoss => Severity::DataLoss,
            TrailingBytes
            | TraceBufferLoss
            | FtraceOverrunStats
            | HtmlBlockSkipped
            | ProcessDumpLinesSkipped
            | TraceClockNotBoottime
            | ScenarioWindow
            | BuildFingerprintDiffers
            | SceneOnOneSide => Severity::Info,
            LinesUnparsed
            | InvalidUtf8
            | NamesTruncated
            | MalformedRecords
            | SlicesTooDeep
            | ClockUnconvertible
            | AtraceErrors
            | TrackEventsUndated
            | TrackEventsWithoutTrack
            | FrameTimelineEventsSkipped
            | RepeatedVsyncIds
            | InputRowsLeftOut
            | RunLeftOut
            | RunWithoutApp
            | RefreshDiffers
            | MixedRefresh
            | DeviceDiffers
            | ScenarioChanged
            | NoisyRuns
            | MixedFrameSources
            | GateNotChecked
            | DeviceStateDiffers
            | StartupTypesDiffer
            | NoStartup => Severity::Degraded,
        }
    }
}

/// One warning: its code, its severity (the code's) and its message.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    pub code: WarningCode,
    pub severity: Severity,
    pub message: String,
}

impl Warning {
    pub fn new(code: WarningCode, message: impl Into<String>) -> Warning {
        Warning { code, severity: code.severity(), message: message.into() }
    }

    /// `note: …`, `warning: …` or `data loss: …`: the line stderr prints.
    pub fn line(&self) -> String {
        format!("{}: {}", self.severity.label(), self.message)
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/report.md's table gives every code's severity; the code agrees.
    #[test]
    fn severities_are_the_documented_ones() {
        let doc = include_str!("../../docs/report.md");
        let mut rows = 0;
        let codes = &doc[doc.find("## Warning codes").unwrap()..];
        // The section's table: up to the next heading.
        for line in codes.lines().skip(1).take_while(|l| !l.starts_with("## ")).filter(|l| l.starts_with("| `")) {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let code: WarningCode = serde_json::from_value(serde_json::json!(cells[1].trim_matches('`'))).unwrap();
            let severity = serde_json::to_value(code.severity()).unwrap();
            assert_eq!(severity, cells[2], "{}", cells[1]);
            rows += 1;
        }
        // One row per code: WarningCode's variants.
        let variants = include_str!("warning.rs");
        let body = &variants[variants.find("pub enum WarningCode {").unwrap()..];
        let body = &body[..body.find("\n}").unwrap()];
        let count = body.lines().filter(|l| l.trim_end().ends_with(',') && !l.trim_start().starts_with("//")).count();
        assert_eq!(rows, count);
    }
}
