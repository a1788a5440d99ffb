//! Which trace is which in a lake (docs/lake.md, "Keys"): key columns read
//! from each trace's path by a `--keys` template, or given per trace by a
//! manifest (CSV or JSON).

use std::path::{Path, PathBuf};

use crate::error::ErrorKind;

/// Why the keys (a `--keys` template or a manifest) are unusable.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("--keys {template:?}: {key:?} is not a key name (lower-case letters, digits, _; not one of the tables' columns)")]
    BadKeyName { template: String, key: String },
    #[error("--keys {template:?}: each path component holds at most one {{name}}")]
    TwoKeys { template: String },
    #[error("--keys {template:?}: name each key once, e.g. '{{build}}/{{device}}/{{run}}'")]
    NameEachOnce { template: String },
    #[error("cannot read manifest {}: {source}", path.display())]
    ManifestRead { path: PathBuf, source: std::io::Error },
    #[error("manifest {}: not a JSON array of objects: {source}", path.display())]
    ManifestJson { path: PathBuf, source: serde_json::Error },
    #[error("manifest {}: {source}", path.display())]
    ManifestCsv { path: PathBuf, source: csv::Error },
    #[error("manifest {}: column {column:?} is not a key name", path.display())]
    ManifestColumn { path: PathBuf, column: String },
    #[error("manifest {}: row {row} has no path", path.display())]
    ManifestNoPath { path: PathBuf, row: usize },
}

impl KeyError {
    /// The template and the manifest's content are the command line's
    /// (the manifest is its list of inputs); a manifest that cannot be read is IO.
    pub fn kind(&self) -> ErrorKind {
        match self {
            KeyError::ManifestRead { .. } => ErrorKind::Io,
            _ => ErrorKind::Usage,
        }
    }
}

/// `{build}/{device}/run-{run}`: one pattern per path component, each a
/// literal prefix, at most one `{name}`, a literal suffix. It is matched
/// against the last components of the trace's path (the file name without
/// its extensions last), so it works however deep the farm's tree is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyTemplate {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Part {
    prefix: String,
    key: Option<String>,
    suffix: String,
}

/// A key name: a column name every engine takes unquoted.
pub fn valid_key_name(name: &str) -> bool {
    let mut c = name.chars();
    matches!(c.next(), Some(f) if f.is_ascii_lowercase() || f == '_')
        && c.all(|x| x.is_ascii_lowercase() || x.is_ascii_digit() || x == '_')
        && !crate::batch::RESERVED_COLUMNS.contains(&name)
}

impl KeyTemplate {
    pub fn parse(text: &str) -> Result<KeyTemplate, KeyError> {
        let mut parts = Vec::new();
        for comp in text.trim_matches('/').split('/') {
            let part = match (comp.find('{'), comp.find('}')) {
                (None, None) => Part { prefix: comp.to_string(), key: None, suffix: String::new() },
                (Some(open), Some(close)) if open < close && comp[close + 1..].find(['{', '}']).is_none() => {
                    let key = &comp[open + 1..close];
                    if !valid_key_name(key) {
                        return Err(KeyError::BadKeyName { template: text.to_string(), key: key.to_string() });
                    }
                    Part {
                        prefix: comp[..open].to_string(),
                        key: Some(key.to_string()),
                        suffix: comp[close + 1..].to_string(),
                    }
                }
                _ => return Err(KeyError::TwoKeys { template: text.to_string() }),
            };
            parts.push(part);
        }
        let keys = parts.iter().filter_map(|p| p.key.clone()).collect::<Vec<_>>();
        let mut unique = keys.clone();
        unique.sort();
        unique.dedup();
        if keys.is_empty() || unique.len() != keys.len() {
            return Err(KeyError::NameEachOnce { template: text.to_string() });
        }
        Ok(KeyTemplate { parts })
    }

    pub fn names(&self) -> Vec<String> {
        self.parts.iter().filter_map(|p| p.key.clone()).collect()
    }

    /// The key values of `path`, in [`names`](Self::names) order; None when
    /// the path does not fit the template.
    pub fn read(&self, path: &Path) -> Option<Vec<String>> {
        let comps: Vec<String> = path.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        if comps.len() < self.parts.len() {
            return None;
        }
        let mut tail = comps[comps.len() - self.parts.len()..].to_vec();
        let last = tail.last_mut()?;
        if let Some(dot) = last.find('.').filter(|&d| d > 0) {
            last.truncate(dot);
        }
        let mut values = Vec::new();
        for (part, comp) in self.parts.iter().zip(&tail) {
            let inner = comp.strip_prefix(part.prefix.as_str())?.strip_suffix(part.suffix.as_str())?;
            match &part.key {
                Some(_) if !inner.is_empty() => values.push(inner.to_string()),
                None if inner.is_empty() => {}
                _ => return None,
            }
        }
        Some(values)
    }
}

/// One trace to put in the lake, with its key values.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    pub path: PathBuf,
    /// In the lake's key order; None: the path did not fit the template.
    pub keys: Option<Vec<String>>,
}

/// A manifest: CSV with a header, or JSON (an array of objects), one trace
/// per row: `path` (relative to the manifest's folder, or absolute) and one
/// column per key. Returns the key names (in column order) and the inputs.
pub fn read_manifest(file: &Path) -> Result<(Vec<String>, Vec<Input>), KeyError> {
    let path = || file.to_path_buf();
    let text = std::fs::read_to_string(file).map_err(|source| KeyError::ManifestRead { path: path(), source })?;
    let base = file.parent().unwrap_or(Path::new("."));
    let rows: Vec<Vec<(String, String)>> = if text.trim_start().starts_with('[') {
        let v: Vec<serde_json::Map<String, serde_json::Value>> =
            serde_json::from_str(&text).map_err(|source| KeyError::ManifestJson { path: path(), source })?;
        v.into_iter()
            .map(|o| {
                o.into_iter().map(|(k, v)| (k, v.as_str().map_or_else(|| v.to_string(), str::to_string))).collect()
            })
            .collect()
    } else {
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let csv_error = |source| KeyError::ManifestCsv { path: path(), source };
        let header: Vec<String> = r.headers().map_err(csv_error)?.iter().map(str::to_string).collect();
        r.records()
            .map(|rec| {
                rec.map(|rec| header.iter().cloned().zip(rec.iter().map(str::to_string)).collect()).map_err(csv_error)
            })
            .collect::<Result<_, _>>()?
    };
    let mut names: Vec<String> = Vec::new();
    for (k, _) in rows.iter().flatten() {
        if k != "path" && !names.contains(k) {
            if !valid_key_name(k) {
                return Err(KeyError::ManifestColumn { path: path(), column: k.clone() });
            }
            names.push(k.clone());
        }
    }
    let mut inputs = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let Some((_, p)) = row.iter().find(|(k, _)| k == "path") else {
            return Err(KeyError::ManifestNoPath { path: path(), row: i + 1 });
        };
        let path = if Path::new(p).is_absolute() { PathBuf::from(p) } else { base.join(p) };
        let keys = names
            .iter()
            .map(|n| row.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()).filter(|v| !v.is_empty()))
            .collect::<Option<Vec<_>>>();
        inputs.push(Input { path, keys });
    }
    Ok((names, inputs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_read_the_last_components() {
        let t = KeyTemplate::parse("{build}/{device}/run-{run}").unwrap();
        assert_eq!(t.names(), ["build", "device", "run"]);
        assert_eq!(
            t.read(Path::new("/farm/nightly/1234/pixel7/run-03.pftrace.gz")),
            Some(vec!["1234".into(), "pixel7".into(), "03".into()])
        );
        assert_eq!(t.read(Path::new("pixel7/run-03.pftrace")), None);
        assert_eq!(t.read(Path::new("a/b/trace-03.pftrace")), None);
        let lit = KeyTemplate::parse("{build}/traces/{run}").unwrap();
        assert_eq!(lit.read(Path::new("x/B2/traces/7.pb")), Some(vec!["B2".into(), "7".into()]));
        assert_eq!(lit.read(Path::new("x/B2/other/7.pb")), None);
        for bad in ["", "static/path", "{a}{b}", "{Build}", "{a}/{a}", "{frames}"] {
            assert!(KeyTemplate::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn manifests_in_csv_and_json() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("m.csv");
        std::fs::write(&csv, "path,build,device\nt1.pftrace,A,p7\n/abs/t2.pftrace,B,\n").unwrap();
        let (names, inputs) = read_manifest(&csv).unwrap();
        assert_eq!(names, ["build", "device"]);
        assert_eq!(inputs[0], Input { path: dir.path().join("t1.pftrace"), keys: Some(vec!["A".into(), "p7".into()]) });
        assert_eq!(inputs[1], Input { path: PathBuf::from("/abs/t2.pftrace"), keys: None });
        let json = dir.path().join("m.json");
        std::fs::write(&json, r#"[{"path": "t.pftrace", "build": "A", "run": 3}]"#).unwrap();
        let (names, inputs) = read_manifest(&json).unwrap();
        assert_eq!(names, ["build", "run"]);
        assert_eq!(inputs[0].keys, Some(vec!["A".into(), "3".into()]));
        std::fs::write(&csv, "file,build\nx,A\n").unwrap();
        assert_eq!(
            read_manifest(&csv).unwrap_err().to_string(),
            format!("manifest {}: row 1 has no path", csv.display())
        );
    }
}
