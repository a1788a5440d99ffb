//! Reading Perfetto traces: open and sniff the file (mmap, whole-file gzip or
//! zstd), a sequential framing pass that finds the packets without copying,
//! then parallel decoding of packet batches (in-stream zlib/zstd batches are
//! inflated and decoded recursively). The result is handed to
//! `model::build`, which orders events and builds the typed model.

use std::path::{Path, PathBuf};

use crate::model::{SchedEvent, Trace};

/// Why a trace could not be read at all. Damage that still leaves something to
/// analyse is a warning in `TraceMeta::warnings`, not an error.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path} is a directory, not a trace file")]
    IsDirectory { path: PathBuf },
    #[error("{path} is empty")]
    Empty { path: PathBuf },
    #[error("{path} is not a Perfetto trace ({why})")]
    NotATrace { path: PathBuf, why: String },
    #[error("{path}: {why}")]
    Corrupt { path: PathBuf, why: String },
}

#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Show a progress bar (only when stderr is a terminal).
    pub progress: bool,
}

/// The bytes of a trace file, mapped or decompressed, kept so that a second
/// pass (scheduler data for chosen threads) can scan them again.
pub struct Source {
    pub path: PathBuf,
}

impl Source {
    pub fn open(path: &Path) -> Result<Source, ReadError> {
        let _ = path;
        todo!("read::Source::open")
    }
}

/// Decode the whole trace into the model (everything but scheduler events).
pub fn decode(source: &Source, opts: &ReadOptions) -> Result<Trace, ReadError> {
    let _ = (source, opts);
    todo!("read::decode")
}

/// Convenience: open and decode.
pub fn load(path: &Path, opts: &ReadOptions) -> Result<Trace, ReadError> {
    decode(&Source::open(path)?, opts)
}

/// Second pass: sched_switch / sched_waking (and compact_sched) events that
/// involve the given thread ids, sorted by timestamp.
pub fn sched_for_threads(source: &Source, tids: &[i32]) -> Result<Vec<SchedEvent>, ReadError> {
    let _ = (source, tids);
    todo!("read::sched_for_threads")
}
