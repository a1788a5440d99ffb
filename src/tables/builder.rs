//! [`TableBuilder`]: a `DataFrame` from a slice of rows, one typed column
//! at a time, so each table's columns are named and typed in one place.

use polars::prelude::*;

/// Builds a `DataFrame` from a slice of rows one column at a time, each column
/// a name and a typed closure over a row:
/// `TableBuilder::new(&rows).col("ts", |r| r.ts).col("name", |r| r.name.as_deref()).build()`.
/// A column's dtype is the closure's return type (`Option<_>` for nullable).
/// The columns are built at once, one per core, in `build`.
pub(crate) struct TableBuilder<'r, R> {
    rows: &'r [R],
    columns: Vec<Box<dyn FnOnce() -> Column + Send + 'r>>,
}

impl<'r, R: Sync> TableBuilder<'r, R> {
    pub(crate) fn new(rows: &'r [R]) -> Self {
        TableBuilder { rows, columns: Vec::new() }
    }

    /// Append column `name` with `f(row)` for every row.
    pub(crate) fn col<T>(mut self, name: &str, f: impl Fn(&'r R) -> T + Send + 'r) -> Self
    where
        Series: NamedFrom<Vec<T>, [T]>,
    {
        let (rows, name) = (self.rows, PlSmallStr::from(name));
        self.columns.push(Box::new(move || Column::new(name, rows.iter().map(f).collect::<Vec<T>>())));
        self
    }

    /// Append column `name` with the given values, one per row.
    pub(crate) fn values<T: Send + 'r>(mut self, name: &str, values: Vec<T>) -> Self
    where
        Series: NamedFrom<Vec<T>, [T]>,
    {
        debug_assert_eq!(values.len(), self.rows.len());
        let name = PlSmallStr::from(name);
        self.columns.push(Box::new(move || Column::new(name, values)));
        self
    }

    pub(crate) fn build(self) -> PolarsResult<DataFrame> {
        use rayon::prelude::*;
        let columns: Vec<Column> = self.columns.into_par_iter().map(|column| column()).collect();
        DataFrame::new(self.rows.len(), columns)
    }
}
