//! The lake on disk (docs/lake.md): one folder per table, Hive partitions by
//! the key columns (`frames/build=A/device=p7/<trace_id>.parquet`), one
//! Parquet file per trace and table named by the trace's content hash, and
//! `_fpsan_lake.json` with the schema version and the keys. A trace whose
//! hash has a `traces` file is in the lake; that file is written last, so a
//! batch stopped midway redoes the traces it had not finished.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use polars::prelude::DataFrame;
use serde::{Deserialize, Serialize};

use crate::error::ErrorKind;
use crate::tables::Table;

pub use crate::tables::SCHEMA_VERSION;
pub const META_FILE: &str = "_fpsan_lake.json";
/// Hive's name for a partition whose key is missing.
pub const NULL_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Meta {
    schema_version: u32,
    keys: Vec<String>,
    written_by: String,
}

/// Why the lake cannot be opened or a file written into it.
#[derive(Debug, thiserror::Error)]
pub enum LakeError {
    #[error("cannot create {}: {source}", path.display())]
    Create { path: PathBuf, source: std::io::Error },
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    #[error("{} is not an fpsan lake's {META_FILE}: {source}", root.display())]
    NotALake { root: PathBuf, source: serde_json::Error },
    #[error("{} holds lake schema {found} and this fpsan writes {SCHEMA_VERSION}: write to a new --out (docs/lake.md, Versions)", root.display())]
    Schema { root: PathBuf, found: u32 },
    #[error("{} is partitioned by [{}] and this batch by [{}]: use the same keys, or another --out", root.display(), old.join(", "), new.join(", "))]
    Keys { root: PathBuf, old: Vec<String>, new: Vec<String> },
    #[error(transparent)]
    Encode(#[from] crate::report::ReportError),
}

impl LakeError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            LakeError::Create { .. } | LakeError::Read { .. } | LakeError::Write { .. } => ErrorKind::Io,
            LakeError::NotALake { .. } => ErrorKind::Input,
            // A lake this batch cannot add to: the `--out` (or `--keys`) given is the mistake.
            LakeError::Schema { .. } | LakeError::Keys { .. } => ErrorKind::Usage,
            LakeError::Encode(e) => e.kind(),
        }
    }
}

pub struct Lake {
    root: PathBuf,
    keys: Vec<String>,
    /// Content hashes of the traces in the lake, or claimed by this batch.
    done: Mutex<HashSet<String>>,
}

impl Lake {
    /// Open (or start) the lake at `root` for traces keyed by `keys`.
    pub fn open(root: &Path, keys: &[String]) -> Result<Lake, LakeError> {
        std::fs::create_dir_all(root).map_err(|source| LakeError::Create { path: root.to_path_buf(), source })?;
        let meta_path = root.join(META_FILE);
        let meta = Meta {
            schema_version: SCHEMA_VERSION,
            keys: keys.to_vec(),
            written_by: format!("fpsan {}", env!("CARGO_PKG_VERSION")),
        };
        if meta_path.is_file() {
            let text = std::fs::read_to_string(&meta_path)
                .map_err(|source| LakeError::Read { path: meta_path.clone(), source })?;
            let old: Meta = serde_json::from_str(&text)
                .map_err(|source| LakeError::NotALake { root: root.to_path_buf(), source })?;
            if old.schema_version != SCHEMA_VERSION {
                return Err(LakeError::Schema { root: root.to_path_buf(), found: old.schema_version });
            }
            if old.keys != keys {
                return Err(LakeError::Keys { root: root.to_path_buf(), old: old.keys, new: keys.to_vec() });
            }
        } else {
            serde_json::to_vec_pretty(&meta)
                .map_err(std::io::Error::from)
                .and_then(|bytes| std::fs::write(&meta_path, bytes))
                .map_err(|source| LakeError::Write { path: meta_path.clone(), source })?;
        }
        let mut files = Vec::new();
        super::walk(&root.join(Table::Traces.name()), &mut files);
        let done = files
            .iter()
            .filter_map(|p| p.file_name()?.to_str()?.strip_suffix(".parquet").map(str::to_string))
            .collect();
        Ok(Lake { root: root.to_path_buf(), keys: keys.to_vec(), done: Mutex::new(done) })
    }

    /// Take `trace_id` for this batch; false when the lake has it already
    /// (or another input with the same bytes took it).
    pub fn claim(&self, trace_id: &str) -> bool {
        self.done.lock().unwrap_or_else(|e| e.into_inner()).insert(trace_id.to_string())
    }

    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// `ROOT/TABLE/k1=v1/k2=v2`.
    pub fn partition(&self, table: Table, values: Option<&[String]>) -> PathBuf {
        let mut p = self.root.join(table.name());
        for (k, name) in self.keys.iter().enumerate() {
            let v = values.and_then(|v| v.get(k)).map_or_else(|| NULL_PARTITION.to_string(), |v| escape(v));
            p.push(format!("{name}={v}"));
        }
        p
    }

    /// Write one trace's rows of `table` (nothing for no rows, but the
    /// `traces` row always), through a temporary file.
    pub fn write(
        &self,
        table: Table,
        values: Option<&[String]>,
        trace_id: &str,
        df: &DataFrame,
    ) -> Result<(), LakeError> {
        if df.height() == 0 && table != Table::Traces {
            return Ok(());
        }
        let dir = self.partition(table, values);
        std::fs::create_dir_all(&dir).map_err(|source| LakeError::Create { path: dir.clone(), source })?;
        let bytes = crate::report::parquet_bytes(df)?;
        let tmp = dir.join(format!(".{trace_id}.parquet.tmp"));
        let path = dir.join(format!("{trace_id}.parquet"));
        std::fs::write(&tmp, bytes)
            .and_then(|_| std::fs::rename(&tmp, &path))
            .map_err(|source| LakeError::Write { path, source })
    }
}

/// Hive's escaping of a partition value: bytes other than letters, digits
/// and `._-` as %XX.
pub fn escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for b in v.bytes() {
        if b.is_ascii_alphanumeric() || b"._-".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_escape_values_and_keys_must_match() {
        let dir = tempfile::tempdir().unwrap();
        let keys = vec!["build".to_string(), "device".to_string()];
        let lake = Lake::open(dir.path(), &keys).unwrap();
        let p = lake.partition(Table::Frames, Some(&["1.2/rc 1".to_string(), "p7".to_string()]));
        assert_eq!(p, dir.path().join("frames/build=1.2%2Frc%201/device=p7"));
        assert_eq!(
            lake.partition(Table::Apps, None),
            dir.path().join(format!("apps/build={NULL_PARTITION}/device={NULL_PARTITION}"))
        );
        let err = Lake::open(dir.path(), &keys[..1]).err().unwrap().to_string();
        assert!(
            err.ends_with(
                "is partitioned by [build, device] and this batch by [build]: use the same keys, or another --out"
            ),
            "{err}"
        );
    }
}
