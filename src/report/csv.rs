//! `frames.csv` / `--format csv`: the frames table, one header row, null as
//! an empty field.

use super::{cells, Artifact, Exporter, Report, ReportError};

pub(crate) struct CsvExporter;

impl Exporter for CsvExporter {
    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        let mut bytes = Vec::new();
        cells::write_csv(report.frames, &mut bytes)?;
        Ok(vec![Artifact { file_name: "frames.csv".into(), bytes }])
    }
}
