//! A `DataFrame` as plain cells, for the exporters that do not go through
//! polars' own writers (csv, json rows, text tables, arrow arrays): one typed
//! conversion per column instead of per-cell `AnyValue` handling everywhere.

use polars::prelude::*;
use serde::Serialize;

/// One value of a result table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cell {
    Null,
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
}

impl Cell {
    /// Text for csv and tables (null is empty).
    pub(crate) fn text(&self) -> String {
        match self {
            Cell::Null => String::new(),
            Cell::Int(v) => v.to_string(),
            Cell::Float(v) => v.to_string(),
            Cell::Bool(v) => v.to_string(),
            Cell::Str(s) => s.clone(),
        }
    }
}

/// The kind of values a column holds, after conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Int,
    Float,
    Bool,
    Str,
}

/// A column's kind and cells.
pub(crate) fn column_cells(col: &Column) -> PolarsResult<(Kind, Vec<Cell>)> {
    let dt = col.dtype();
    if dt.is_integer() {
        // u64 beyond i64::MAX does not occur in fpsan's tables.
        let c = col.cast(&DataType::Int64)?;
        let v = c.as_materialized_series().i64()?.iter().map(|v| v.map_or(Cell::Null, Cell::Int)).collect();
        Ok((Kind::Int, v))
    } else if dt.is_float() {
        let c = col.cast(&DataType::Float64)?;
        let v = c.as_materialized_series().f64()?.iter().map(|v| v.map_or(Cell::Null, Cell::Float)).collect();
        Ok((Kind::Float, v))
    } else if dt.is_bool() {
        let v = col.as_materialized_series().bool()?.iter().map(|v| v.map_or(Cell::Null, Cell::Bool)).collect();
        Ok((Kind::Bool, v))
    } else if dt == &DataType::String {
        let v = col
            .as_materialized_series()
            .str()?
            .iter()
            .map(|v| v.map_or(Cell::Null, |s| Cell::Str(s.to_string())))
            .collect();
        Ok((Kind::Str, v))
    } else if dt == &DataType::Null {
        Ok((Kind::Str, vec![Cell::Null; col.len()]))
    } else {
        // Lists and other nested values: their polars text form.
        let s = col.as_materialized_series();
        let v = (0..s.len())
            .map(|i| match s.get(i) {
                Ok(AnyValue::Null) | Err(_) => Cell::Null,
                Ok(v) => Cell::Str(v.to_string()),
            })
            .collect();
        Ok((Kind::Str, v))
    }
}

/// Every column of `df`: (name, kind, cells).
pub(crate) fn table_cells(df: &DataFrame) -> PolarsResult<Vec<(String, Kind, Vec<Cell>)>> {
    df.columns()
        .iter()
        .map(|c| {
            let (k, v) = column_cells(c)?;
            Ok((c.name().to_string(), k, v))
        })
        .collect()
}

/// One column, typed once, read cell by cell as it is serialised.
enum View {
    Int(Int64Chunked),
    Float(Float64Chunked),
    Bool(BooleanChunked),
    Str(StringChunked),
    /// Null columns, lists and other nested values: their cells (polars' text form).
    Cells(Vec<Cell>),
}

impl View {
    fn of(col: &Column) -> PolarsResult<View> {
        let dt = col.dtype();
        Ok(if dt.is_integer() {
            View::Int(col.cast(&DataType::Int64)?.as_materialized_series().i64()?.clone())
        } else if dt.is_float() {
            View::Float(col.cast(&DataType::Float64)?.as_materialized_series().f64()?.clone())
        } else if dt.is_bool() {
            View::Bool(col.as_materialized_series().bool()?.clone())
        } else if dt == &DataType::String {
            View::Str(col.as_materialized_series().str()?.clone())
        } else {
            View::Cells(column_cells(col)?.1)
        })
    }

    fn serialize_at<S: serde::Serializer>(&self, i: usize, s: S) -> Result<S::Ok, S::Error> {
        match self {
            View::Int(c) => c.get(i).map_or(Cell::Null, Cell::Int).serialize(s),
            View::Float(c) => c.get(i).map_or(Cell::Null, Cell::Float).serialize(s),
            View::Bool(c) => c.get(i).map_or(Cell::Null, Cell::Bool).serialize(s),
            View::Str(c) => match c.get(i) {
                Some(v) => s.serialize_str(v),
                None => s.serialize_none(),
            },
            View::Cells(c) => c[i].serialize(s),
        }
    }
}

/// A table's rows, serialised as a JSON array of objects whose keys keep the
/// column order (serde_json's `Value` would sort them). Cells are read from
/// the columns as they are written, so a large table is never copied into a
/// second form first.
pub struct JsonRows {
    cols: Vec<(String, View)>,
    height: usize,
}

struct JsonRow<'a> {
    rows: &'a JsonRows,
    index: usize,
}

/// One cell of a column, serialised in place.
struct At<'a> {
    view: &'a View,
    index: usize,
}

impl serde::Serialize for At<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.view.serialize_at(self.index, s)
    }
}

impl serde::Serialize for Cell {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Null => s.serialize_none(),
            Cell::Int(v) => s.serialize_i64(*v),
            Cell::Float(v) if v.is_finite() => s.serialize_f64(*v),
            Cell::Float(_) => s.serialize_none(),
            Cell::Bool(v) => s.serialize_bool(*v),
            Cell::Str(v) => s.serialize_str(v),
        }
    }
}

impl serde::Serialize for JsonRow<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.rows.cols.len()))?;
        for (name, view) in &self.rows.cols {
            m.serialize_entry(name, &At { view, index: self.index })?;
        }
        m.end()
    }
}

impl serde::Serialize for JsonRows {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((0..self.height).map(|index| JsonRow { rows: self, index }))
    }
}

/// `df` as a JSON array of row objects (column order kept).
pub fn json_rows(df: &DataFrame) -> PolarsResult<JsonRows> {
    let cols = df.columns().iter().map(|c| Ok((c.name().to_string(), View::of(c)?))).collect::<PolarsResult<_>>()?;
    Ok(JsonRows { cols, height: df.height() })
}

/// `df` as CSV with a header row; null is an empty field.
pub fn write_csv<W: std::io::Write>(df: &DataFrame, w: W) -> Result<(), super::ReportError> {
    let cols = table_cells(df)?;
    let mut out = csv::Writer::from_writer(w);
    out.write_record(cols.iter().map(|(n, _, _)| n.as_str()))?;
    for i in 0..df.height() {
        out.write_record(cols.iter().map(|(_, _, c)| c[i].text()))?;
    }
    out.flush().map_err(|e| super::ReportError::Write(e.to_string()))?;
    Ok(())
}

/// A plain text table: a header, a rule, one line per row; numbers right-aligned.
pub(crate) fn text_table<H: AsRef<str>>(headers: &[H], rows: &[Vec<String>], right: &[bool]) -> String {
    let (width, mut lines) = aligned(headers, rows, right);
    lines.insert(1, width.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("  "));
    lines.into_iter().map(|l| l + "\n").collect()
}

/// The lines of a text table without its rule (`compare`'s tables): the
/// header, then one line per row; columns two spaces apart, text left and
/// numbers (`right`) right-aligned, no trailing spaces.
pub(crate) fn aligned_lines<H: AsRef<str>>(headers: &[H], rows: &[Vec<String>], right: &[bool]) -> Vec<String> {
    aligned(headers, rows, right).1
}

/// The width of each column and the aligned lines (header first).
fn aligned<H: AsRef<str>>(headers: &[H], rows: &[Vec<String>], right: &[bool]) -> (Vec<usize>, Vec<String>) {
    let headers: Vec<&str> = headers.iter().map(AsRef::as_ref).collect();
    let mut width: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (k, c) in r.iter().enumerate() {
            if k < width.len() {
                width[k] = width[k].max(c.chars().count());
            }
        }
    }
    let line = |cells: &[&str]| {
        let mut s = String::new();
        for (k, c) in cells.iter().enumerate() {
            let w = width.get(k).copied().unwrap_or(0);
            let pad = w.saturating_sub(c.chars().count());
            if k > 0 {
                s.push_str("  ");
            }
            if right.get(k).copied().unwrap_or(false) {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            } else {
                s.push_str(c);
                if k + 1 < cells.len() {
                    s.push_str(&" ".repeat(pad));
                }
            }
        }
        s.trim_end().to_string()
    };
    let mut lines = vec![line(&headers)];
    lines.extend(rows.iter().map(|r| line(&r.iter().map(String::as_str).collect::<Vec<_>>())));
    (width, lines)
}

/// `df` as a text table (all rows; null shown as `null`).
pub fn df_text(df: &DataFrame) -> PolarsResult<String> {
    let cols = table_cells(df)?;
    let headers: Vec<String> = cols.iter().map(|(n, _, _)| n.clone()).collect();
    let right: Vec<bool> = cols.iter().map(|(_, k, _)| matches!(k, Kind::Int | Kind::Float)).collect();
    let rows: Vec<Vec<String>> = (0..df.height())
        .map(|i| cols.iter().map(|(_, _, c)| if c[i] == Cell::Null { "null".into() } else { c[i].text() }).collect())
        .collect();
    let mut s = text_table(&headers, &rows, &right);
    s.push_str(&format!("({} row{})\n", df.height(), if df.height() == 1 { "" } else { "s" }));
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn df() -> DataFrame {
        DataFrame::new(
            2,
            vec![
                Column::new("a".into(), [Some(1i64), None]),
                Column::new("b".into(), [Some("x,y"), Some("z")]),
                Column::new("c".into(), [Some(true), None]),
                Column::new("d".into(), [1.5f64, 2.0]),
                Column::new("e".into(), [7i32, 8]),
            ],
        )
        .unwrap()
    }

    #[test]
    fn csv_quotes_and_nulls() {
        let mut out = Vec::new();
        write_csv(&df(), &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "a,b,c,d,e\n1,\"x,y\",true,1.5,7\n,z,,2,8\n");
    }

    #[test]
    fn json_rows_keep_types() {
        let rows = json_rows(&df()).unwrap();
        assert_eq!(
            serde_json::to_string(&rows).unwrap(),
            r#"[{"a":1,"b":"x,y","c":true,"d":1.5,"e":7},{"a":null,"b":"z","c":null,"d":2.0,"e":8}]"#
        );
        let v = serde_json::to_value(&rows).unwrap();
        assert_eq!(
            v,
            serde_json::json!([
                {"a": 1, "b": "x,y", "c": true, "d": 1.5, "e": 7},
                {"a": null, "b": "z", "c": null, "d": 2.0, "e": 8}
            ])
        );
    }

    #[test]
    fn text_table_aligns() {
        let t = text_table(
            &["name", "n"],
            &[vec!["ab".into(), "1".into()], vec!["c".into(), "100".into()]],
            &[false, true],
        );
        assert_eq!(t, "name    n\n----  ---\nab      1\nc     100\n");
    }
}
