//! Why a trace could not be read at all.

use std::path::PathBuf;

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
    /// An archive or a compression fpsan does not open (`Packing::how` says what to do).
    #[error("{path} is {}, not a trace", packing.what())]
    Packed { path: PathBuf, packing: super::Packing },
    #[error("{path}: {why}")]
    Corrupt { path: PathBuf, why: String },
}

impl ReadError {
    pub fn kind(&self) -> crate::error::ErrorKind {
        match self {
            ReadError::Io { .. } => crate::error::ErrorKind::Io,
            _ => crate::error::ErrorKind::Input,
        }
    }
}
