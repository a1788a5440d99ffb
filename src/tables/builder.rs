//! [`TableBuilder`]: a `DataFrame` from a slice of rows, one typed column
//! at a time, so each table's columns are named, typed and documented in one
//! place; [`describe`] reads those docs back (the docs/ pages' column tables
//! are generated from them: `tests/integration/columns.rs`).

use std::borrow::Cow;
use std::cell::RefCell;

use polars::prelude::*;

/// What a column holds, as its table's builder declares it beside the
/// column: a one-line meaning (its formula or source) and, where it matters,
/// when it is NULL (and its other edge cases).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doc {
    pub meaning: Cow<'static, str>,
    pub null_when: Option<Cow<'static, str>>,
}

impl From<&'static str> for Doc {
    fn from(meaning: &'static str) -> Doc {
        Doc { meaning: Cow::Borrowed(meaning), null_when: None }
    }
}

impl From<String> for Doc {
    fn from(meaning: String) -> Doc {
        Doc { meaning: Cow::Owned(meaning), null_when: None }
    }
}

/// `(meaning, null_when)`.
impl From<(&'static str, &'static str)> for Doc {
    fn from((meaning, null_when): (&'static str, &'static str)) -> Doc {
        Doc { meaning: Cow::Borrowed(meaning), null_when: Some(Cow::Borrowed(null_when)) }
    }
}

/// A column's name and its [`Doc`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDoc {
    pub name: String,
    pub doc: Doc,
}

/// Builds a `DataFrame` from a slice of rows one column at a time, each column
/// a name, its doc and a typed closure over a row:
/// `TableBuilder::new(&rows).col("ts", "start", |r| r.ts).col("name", "its name", |r| r.name.as_deref()).build()`.
/// A column's dtype is the closure's return type (`Option<_>` for nullable).
/// The columns are built at once, one per core, in `build`.
pub(crate) struct TableBuilder<'r, R> {
    rows: &'r [R],
    columns: Vec<Box<dyn FnOnce() -> Column + Send + 'r>>,
    docs: Vec<ColumnDoc>,
}

impl<'r, R: Sync> TableBuilder<'r, R> {
    pub(crate) fn new(rows: &'r [R]) -> Self {
        TableBuilder { rows, columns: Vec::new(), docs: Vec::new() }
    }

    /// Append column `name`, meaning `doc`, with `f(row)` for every row.
    pub(crate) fn col<T>(mut self, name: &str, doc: impl Into<Doc>, f: impl Fn(&'r R) -> T + Send + 'r) -> Self
    where
        Series: NamedFrom<Vec<T>, [T]>,
    {
        self.docs.push(ColumnDoc { name: name.to_string(), doc: doc.into() });
        let (rows, name) = (self.rows, PlSmallStr::from(name));
        self.columns.push(Box::new(move || Column::new(name, rows.iter().map(f).collect::<Vec<T>>())));
        self
    }

    /// Append column `name`, meaning `doc`, with the given values, one per row.
    pub(crate) fn values<T: Send + 'r>(mut self, name: &str, doc: impl Into<Doc>, values: Vec<T>) -> Self
    where
        Series: NamedFrom<Vec<T>, [T]>,
    {
        debug_assert_eq!(values.len(), self.rows.len());
        self.docs.push(ColumnDoc { name: name.to_string(), doc: doc.into() });
        let name = PlSmallStr::from(name);
        self.columns.push(Box::new(move || Column::new(name, values)));
        self
    }

    pub(crate) fn build(self) -> PolarsResult<DataFrame> {
        use rayon::prelude::*;
        DESCRIBED.with_borrow_mut(|d| {
            if let Some(d) = d {
                *d = self.docs;
            }
        });
        let columns: Vec<Column> = self.columns.into_par_iter().map(|column| column()).collect();
        DataFrame::new(self.rows.len(), columns)
    }
}

thread_local! {
    /// While [`describe`] runs: the docs of the last table built on this thread.
    static DESCRIBED: RefCell<Option<Vec<ColumnDoc>>> = const { RefCell::new(None) };
}

/// The column docs of the table `build` builds (the last `TableBuilder` it
/// builds, which is the table it returns), without any rows needed: `build`
/// is given empty input.
pub(crate) fn describe(build: impl FnOnce() -> PolarsResult<DataFrame>) -> PolarsResult<Vec<ColumnDoc>> {
    DESCRIBED.set(Some(Vec::new()));
    let built = build();
    let docs = DESCRIBED.take().unwrap_or_default();
    built.map(|_| docs)
}
