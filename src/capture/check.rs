//! Is the pulled file a useful trace? It must decode, contain ftrace data
//! (the atrace slices and scheduler events fpsan analyses arrive there) and
//! know the app's process. Reading it is the caller's loader (capture comes
//! before the reader in the pipeline, so it is handed one: see
//! `analysis::trace_facts`); the judgement is [`judge`], on the few
//! [`TraceFacts`] it needs.

use std::path::{Path, PathBuf};

use crate::model::DataSource;
use crate::read::ReadError;

use super::CaptureError;

/// What the check needs to know of a decoded trace.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TraceFacts {
    pub packets: u64,
    /// Last minus first timestamp, ns.
    pub span_ns: i64,
    pub data_sources: Vec<DataSource>,
    /// (pid, name) of every process.
    pub processes: Vec<(i32, Option<String>)>,
}

/// Reads a pulled trace into [`TraceFacts`].
pub type Loader = fn(&Path) -> Result<TraceFacts, ReadError>;

/// What the check learned about a trace that passed.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedTrace {
    pub path: PathBuf,
    pub size_bytes: u64,
    pub packets: u64,
    /// Last minus first timestamp, ns.
    pub span_ns: i64,
    /// The app's processes (`PKG` and `PKG:service` ones).
    pub app_pids: Vec<i32>,
    pub data_sources: Vec<DataSource>,
}

/// The failure of a check, before perfetto's own explanation is attached
/// (that needs the device; see `session`).
#[derive(Debug)]
pub enum CheckFailure {
    /// The reader could not use the file at all.
    Unreadable(ReadError),
    /// Decodes, but carries (almost) nothing: the data sources did not run.
    Empty { size_bytes: u64, packets: u64 },
    /// Has data, but no process of the app.
    NoApp { size_bytes: u64, processes: usize },
}

impl CheckFailure {
    /// Turn into the user-facing error, with perfetto's explanation if any.
    pub fn into_error(self, path: &Path, app: &str, reason: Option<String>) -> CaptureError {
        let path = path.to_path_buf();
        match self {
            CheckFailure::Unreadable(source) => CaptureError::Unreadable { path, detail: source.to_string(), reason },
            CheckFailure::Empty { size_bytes, packets } => {
                CaptureError::EmptyTrace { path, size_bytes, packets, reason }
            }
            CheckFailure::NoApp { size_bytes, processes } => {
                CaptureError::AppNotInTrace { path, app: app.to_string(), size_bytes, processes, reason }
            }
        }
    }
}

/// Decode `path` with `load` and judge it, returning the raw failure so the
/// caller can attach perfetto's reason.
pub fn check_with(
    path: &Path,
    app: &str,
    load: impl FnOnce(&Path) -> Result<TraceFacts, ReadError>,
) -> Result<CheckedTrace, CheckFailure> {
    let size_bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let trace = match load(path) {
        Ok(t) => t,
        // perfetto creates the output file before it connects to the
        // service; a 0-byte file means tracing never started.
        Err(ReadError::Empty { .. }) => return Err(CheckFailure::Empty { size_bytes, packets: 0 }),
        Err(e) => return Err(CheckFailure::Unreadable(e)),
    };
    judge(&trace, path, size_bytes, app)
}

/// The rules, on a decoded trace.
pub fn judge(trace: &TraceFacts, path: &Path, size_bytes: u64, app: &str) -> Result<CheckedTrace, CheckFailure> {
    let packets = trace.packets;
    // A session whose data sources never started still has the service's
    // own packets (config, clock snapshots, stats): kernel or atrace data is
    // the sign that traced_probes really recorded.
    let recorded = trace
        .data_sources
        .iter()
        .any(|s| matches!(s, DataSource::Ftrace | DataSource::Atrace | DataSource::CompactSched | DataSource::Sched));
    if packets == 0 || !recorded {
        return Err(CheckFailure::Empty { size_bytes, packets });
    }
    let prefix = format!("{app}:");
    let mut app_pids: Vec<i32> = trace
        .processes
        .iter()
        .filter(|(_, name)| name.as_deref().is_some_and(|n| n == app || n.starts_with(&prefix)))
        .map(|&(pid, _)| pid)
        .collect();
    app_pids.sort_unstable();
    app_pids.dedup();
    if app_pids.is_empty() {
        return Err(CheckFailure::NoApp { size_bytes, processes: trace.processes.len() });
    }
    Ok(CheckedTrace {
        path: path.to_path_buf(),
        size_bytes,
        packets,
        span_ns: trace.span_ns,
        app_pids,
        data_sources: trace.data_sources.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(packets: u64, sources: &[DataSource], names: &[(i32, &str)]) -> TraceFacts {
        TraceFacts {
            packets,
            span_ns: 2_000,
            data_sources: sources.to_vec(),
            processes: names.iter().map(|&(pid, n)| (pid, Some(n.to_string()))).collect(),
        }
    }

    #[test]
    fn accepts_a_trace_with_the_app() {
        let t = trace(
            10,
            &[DataSource::Ftrace, DataSource::ProcessTree],
            &[(1, "/init"), (40, "com.a.b:remote"), (30, "com.a.b"), (50, "com.a.bc")],
        );
        let ok = judge(&t, Path::new("x"), 5000, "com.a.b").unwrap();
        assert_eq!(ok.app_pids, vec![30, 40]);
        assert_eq!(ok.span_ns, 2_000);
        assert_eq!(ok.packets, 10);
    }

    #[test]
    fn rejects_empty_and_appless_traces() {
        let t = trace(3, &[DataSource::ProcessTree, DataSource::ClockSnapshot], &[(30, "com.a.b")]);
        assert!(matches!(
            judge(&t, Path::new("x"), 400, "com.a.b"),
            Err(CheckFailure::Empty { size_bytes: 400, packets: 3 })
        ));
        let t = trace(10, &[DataSource::Ftrace], &[(50, "com.a.bc"), (51, "other")]);
        assert!(matches!(judge(&t, Path::new("x"), 9000, "com.a.b"), Err(CheckFailure::NoApp { processes: 2, .. })));
    }
}
