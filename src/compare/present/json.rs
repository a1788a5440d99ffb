//! The JSON document (`--format json`, `compare.json`): the [`Comparison`]
//! as serialised (docs/compare.md; NaN is null).

use super::CompareReport;
use crate::compare::comparison::Comparison;
use crate::report::{Artifact, Exporter, ReportError};

/// `compare.json`, also the document of `--format json`.
pub(super) struct JsonExporter;

impl Exporter<CompareReport<'_>> for JsonExporter {
    fn export(&self, r: &CompareReport) -> Result<Vec<Artifact>, ReportError> {
        Ok(vec![Artifact { file_name: "compare.json".into(), bytes: json(r.comparison)? }])
    }
}

/// The document, pretty-printed, then a newline.
pub(crate) fn json(c: &Comparison) -> Result<Vec<u8>, serde_json::Error> {
    let mut b = serde_json::to_vec_pretty(c)?;
    b.push(b'\n');
    Ok(b)
}
