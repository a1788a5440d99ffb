//! `frames.parquet` and `presents.parquet`: the frames and presents tables written with arrow-rs's parquet writer
//! from arrow arrays (polars' own parquet feature is off to keep the build
//! small). Integers are Int64, nullable everywhere, uncompressed.

use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use polars::prelude::DataFrame;

use super::cells::{table_cells, Cell, Kind};
use super::{Artifact, Exporter, Report, ReportError};

pub(crate) struct ParquetExporter;

/// `df` as one arrow record batch: the types every fpsan table has on disk
/// (Int64, Float64, Boolean, Utf8, all nullable); the Python bindings hand
/// the same batches out through the Arrow C stream interface.
pub fn record_batch(df: &DataFrame) -> Result<RecordBatch, ReportError> {
    let cols = table_cells(df)?;
    let mut fields = Vec::with_capacity(cols.len());
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(cols.len());
    for (name, kind, cells) in cols {
        let (dt, array): (DataType, ArrayRef) = match kind {
            Kind::Int => (
                DataType::Int64,
                Arc::new(
                    cells.iter().map(|c| if let Cell::Int(v) = c { Some(*v) } else { None }).collect::<Int64Array>(),
                ),
            ),
            Kind::Float => (
                DataType::Float64,
                Arc::new(
                    cells
                        .iter()
                        .map(|c| if let Cell::Float(v) = c { Some(*v) } else { None })
                        .collect::<Float64Array>(),
                ),
            ),
            Kind::Bool => (
                DataType::Boolean,
                Arc::new(
                    cells.iter().map(|c| if let Cell::Bool(v) = c { Some(*v) } else { None }).collect::<BooleanArray>(),
                ),
            ),
            Kind::Str => (
                DataType::Utf8,
                Arc::new(
                    cells
                        .iter()
                        .map(|c| if let Cell::Str(v) = c { Some(v.as_str()) } else { None })
                        .collect::<StringArray>(),
                ),
            ),
        };
        fields.push(Field::new(name, dt, true));
        arrays.push(array);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).map_err(|e| ReportError::Write(e.to_string()))
}

/// `df` as parquet file bytes (also `compare --out`'s and `batch`'s tables).
pub(crate) fn parquet_bytes(df: &DataFrame) -> Result<Vec<u8>, ReportError> {
    let batch = record_batch(df)?;
    let mut bytes = Vec::new();
    let mut w =
        ArrowWriter::try_new(&mut bytes, batch.schema(), None).map_err(|e| ReportError::Write(e.to_string()))?;
    w.write(&batch).map_err(|e| ReportError::Write(e.to_string()))?;
    w.close().map_err(|e| ReportError::Write(e.to_string()))?;
    Ok(bytes)
}

impl Exporter<Report<'_>> for ParquetExporter {
    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        let mut out = vec![
            Artifact { file_name: "frames.parquet".into(), bytes: parquet_bytes(report.frames_table()?)? },
            Artifact { file_name: "presents.parquet".into(), bytes: parquet_bytes(report.presents_table()?)? },
        ];
        // Only a trace with a startup has the file (docs/startups.md, "Where it shows").
        if !report.startups.is_empty() {
            let table = crate::tables::startups::startups(report.startups)?;
            out.push(Artifact { file_name: "startups.parquet".into(), bytes: parquet_bytes(&table)? });
        }
        // Only a trace whose main threads have a slice or busy time has it (docs/blocks.md).
        if !report.blocks.blocks.is_empty() {
            let table = crate::tables::main_thread_blocks(&report.blocks.blocks)?;
            out.push(Artifact { file_name: "main_thread_blocks.parquet".into(), bytes: parquet_bytes(&table)? });
        }
        // Only a trace with an input event (docs/input.md).
        if !report.input.events.is_empty() {
            let table = crate::tables::input::input_events(&report.input.events)?;
            out.push(Artifact { file_name: "input_events.parquet".into(), bytes: parquet_bytes(&table)? });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use polars::prelude::*;

    #[test]
    fn round_trip() {
        let df = polars::prelude::DataFrame::new(
            3,
            vec![
                Column::new("pid".into(), [1i32, 2, 3]),
                Column::new("vsync_ts".into(), [Some(10i64), None, Some(30)]),
                Column::new("scene".into(), [Some("a"), None, Some("c")]),
                Column::new("was_jank".into(), [Some(true), Some(false), None]),
                Column::new("refresh_hz".into(), [60.0f64, 90.0, 120.0]),
            ],
        )
        .unwrap();
        let bytes = parquet_bytes(&df).unwrap();
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, &bytes).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
        let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
        assert_eq!(batches.len(), 1);
        let b = &batches[0];
        assert_eq!(b.num_rows(), 3);
        let v = b.column_by_name("vsync_ts").unwrap().as_any().downcast_ref::<Int64Array>().unwrap();
        assert_eq!((v.value(0), v.is_null(1), v.value(2)), (10, true, 30));
        let s = b.column_by_name("scene").unwrap().as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!((s.value(0), s.is_null(1)), ("a", true));
        let j = b.column_by_name("was_jank").unwrap().as_any().downcast_ref::<BooleanArray>().unwrap();
        assert_eq!((j.value(0), j.value(1), j.is_null(2)), (true, false, true));
        let p = b.column_by_name("pid").unwrap().as_any().downcast_ref::<Int64Array>().unwrap();
        assert_eq!(p.values().to_vec(), vec![1, 2, 3]);
    }
}
