//! `frames.parquet` of `compare --out`: every frame of every run of the app,
//! with `side` and `run` columns, written by the report's parquet writer.

use polars::prelude::{Column, DataFrame};

use super::CompareReport;
use crate::compare::runs::Run;
use crate::report::{parquet_bytes, Artifact, Exporter, ReportError};

/// `frames.parquet`; nothing when the runs kept no frames table.
pub(super) struct FramesExporter;

impl Exporter<CompareReport<'_>> for FramesExporter {
    fn export(&self, r: &CompareReport) -> Result<Vec<Artifact>, ReportError> {
        let Some(df) = all_frames(r.runs)? else { return Ok(Vec::new()) };
        Ok(vec![Artifact { file_name: "frames.parquet".into(), bytes: parquet_bytes(&df)? }])
    }
}

/// The frames tables of every run, stacked, with `side` and `run` (the run's
/// index in its side's `runs` list in compare.json) in front.
fn all_frames(sides: &[Vec<Run>; 2]) -> Result<Option<DataFrame>, ReportError> {
    let mut stacked: Option<DataFrame> = None;
    for (side, runs) in ["before", "after"].iter().zip(sides) {
        for (k, run) in runs.iter().enumerate() {
            let Some(df) = &run.frames_df else { continue };
            let n = df.height();
            let mut cols = vec![
                Column::new("side".into(), vec![side.to_string(); n]),
                Column::new("run".into(), vec![k as i64; n]),
            ];
            cols.extend(df.columns().iter().cloned());
            let with = DataFrame::new(n, cols)?;
            match &mut stacked {
                None => stacked = Some(with),
                Some(all) => {
                    all.vstack_mut(&with)?;
                }
            }
        }
    }
    Ok(stacked)
}
