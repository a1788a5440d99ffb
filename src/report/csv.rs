//! `frames.csv` / `--format csv`: the frames table, one header row, null as
//! an empty field; in `--out DIR` also `presents.csv`, the presents table.

use super::{cells, Artifact, Exporter, Report, ReportError};

pub(crate) struct CsvExporter {
    /// Also `presents.csv` (files in `--out DIR`; stdout has the frames only).
    pub presents: bool,
}

impl Exporter<Report<'_>> for CsvExporter {
    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        let mut bytes = Vec::new();
        cells::write_csv(report.frames_table()?, &mut bytes)?;
        let mut out = vec![Artifact { file_name: "frames.csv".into(), bytes }];
        if self.presents {
            let mut bytes = Vec::new();
            cells::write_csv(report.presents_table()?, &mut bytes)?;
            out.push(Artifact { file_name: "presents.csv".into(), bytes });
        }
        Ok(out)
    }
}
