//! `compare --out DIR`: `compare.html`, `charts/compare-*.png`,
//! `compare.json` and `frames.parquet` (every frame of every run of the app,
//! with `side` and `run` columns, written by the report's parquet writer).
//! Each file is written beside its final name and renamed, as `analyze`
//! does, and only these names are touched.

use std::path::{Path, PathBuf};

use polars::prelude::{Column, DataFrame};

use super::comparison::Comparison;
use super::runs::Sides;
use super::{charts, html, render};
use crate::report::{parquet::parquet_bytes, ReportError};

/// Render everything, then write it into `dir` (created if needed).
pub(crate) fn write(dir: &Path, c: &Comparison, sides: &Sides) -> Result<Vec<PathBuf>, ReportError> {
    let drawn = charts::render(c, &sides.runs)?;
    let page = html::render(c, &drawn)?;
    let mut files: Vec<(String, Vec<u8>)> = drawn.into_iter().map(|ch| (ch.file_name, ch.png)).collect();
    files.push(("compare.html".into(), page.into_bytes()));
    files.push(("compare.json".into(), render::json(c)?));
    if let Some(df) = all_frames(sides)? {
        files.push(("frames.parquet".into(), parquet_bytes(&df)?));
    }
    std::fs::create_dir_all(dir).map_err(|source| ReportError::OutDir { path: dir.to_path_buf(), source })?;
    let mut staged = crate::report::Staged::default();
    for (name, bytes) in files {
        staged.write(dir, &name, &bytes)?;
    }
    staged.commit()
}

/// The frames tables of every run, stacked, with `side` and `run` (the run's
/// index in its side's `runs` list in compare.json) in front.
fn all_frames(sides: &Sides) -> Result<Option<DataFrame>, ReportError> {
    let mut stacked: Option<DataFrame> = None;
    for (side, runs) in ["before", "after"].iter().zip(&sides.runs) {
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
