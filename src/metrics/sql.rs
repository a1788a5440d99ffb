//! The SQL examples in `queries/`, compiled into the tests with
//! `include_str!` and executed with polars' `SQLContext` over the frames
//! table, all at once ([`run_all`]), so `sql_examples` can hold them to the
//! summaries; and reading results: whole columns as typed vectors ([`i64s`],
//! [`f64s`], [`strs`]; the report reads the frames table with them too) or,
//! in the tests, row by row ([`Rows`]).

#[cfg(test)]
use std::cell::OnceCell;

use polars::prelude::*;
#[cfg(test)]
use polars::sql::SQLContext;

/// A query from `queries/`, by file stem.
#[cfg(test)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct NamedQuery {
    name: &'static str,
    sql: &'static str,
}

#[cfg(test)]
macro_rules! query {
    ($name:literal) => {
        NamedQuery { name: $name, sql: include_str!(concat!("../../queries/", $name, ".sql")) }
    };
}

#[cfg(test)]
pub(crate) const APP_SUMMARY: NamedQuery = query!("app_summary");
#[cfg(test)]
pub(crate) const SCENES: NamedQuery = query!("scenes");
#[cfg(test)]
pub(crate) const PERCENTILES: NamedQuery = query!("percentiles");
#[cfg(test)]
pub(crate) const FPS_WALL: NamedQuery = query!("fps_wall");
#[cfg(test)]
pub(crate) const JANK_TYPES: NamedQuery = query!("jank_types");
#[cfg(test)]
pub(crate) const JANK_TAGS: NamedQuery = query!("jank_tags");
#[cfg(test)]
pub(crate) const VSYNC_SOURCES: NamedQuery = query!("vsync_sources");
#[cfg(test)]
pub(crate) const PERFDOG: NamedQuery = query!("perfdog");
#[cfg(test)]
pub(crate) const WORST_FRAMES: NamedQuery = query!("worst_frames");

#[cfg(test)]
/// Run `queries` over the frames table (registered as `frames`) and the
/// FrameTimeline table (`frame_timeline`, as `fpsan query` has it), all at
/// once: on a small table a query is mostly serial planning and grouping,
/// so one query per core beats running them one after another
/// (`examples/bench.rs --phases` shows the summaries' share).
pub(crate) fn run_all<const N: usize>(
    frames: &DataFrame,
    frame_timeline: &DataFrame,
    queries: [NamedQuery; N],
) -> PolarsResult<[DataFrame; N]> {
    use rayon::prelude::*;
    let results: Vec<DataFrame> = queries
        .par_iter()
        .map(|q| {
            let mut ctx = SQLContext::new();
            ctx.register("frames", frames.clone().lazy());
            ctx.register("frame_timeline", frame_timeline.clone().lazy());
            ctx.execute(q.sql)
                .and_then(|lf| lf.collect())
                .map_err(|e| e.context(format!("query {}.sql", q.name).into()))
        })
        .collect::<PolarsResult<_>>()?;
    Ok(results.try_into().unwrap_or_else(|_| unreachable!("one result per query")))
}

/// A result column as `Option<i64>` per row (integers and floats are cast).
pub fn i64s(df: &DataFrame, name: &str) -> PolarsResult<Vec<Option<i64>>> {
    let c = df.column(name)?.cast(&DataType::Int64)?;
    Ok(c.as_materialized_series().i64()?.iter().collect())
}

/// A result column as `Option<f64>` per row.
pub fn f64s(df: &DataFrame, name: &str) -> PolarsResult<Vec<Option<f64>>> {
    let c = df.column(name)?.cast(&DataType::Float64)?;
    Ok(c.as_materialized_series().f64()?.iter().collect())
}

/// A result column as `Option<String>` per row.
pub fn strs(df: &DataFrame, name: &str) -> PolarsResult<Vec<Option<String>>> {
    let c = df.column(name)?.cast(&DataType::String)?;
    Ok(c.as_materialized_series().str()?.iter().map(|s| s.map(str::to_string)).collect())
}

#[cfg(test)]
/// Row-wise reading of a query result: `for r in Rows::new(&df).iter() {
/// r.i64("ts")?; r.opt_str("scene")?; … }`. A column is cast to the type it
/// is read as once, on its first read ([`i64s`], [`f64s`], [`strs`]), and
/// kept; a cell read is then the column's index by name plus a vector index.
pub(crate) struct Rows<'a> {
    df: &'a DataFrame,
    /// Per column of `df`, in order: its values cast to each type read so far.
    cast: Vec<Cast>,
}

#[cfg(test)]
#[derive(Default)]
struct Cast {
    i64s: OnceCell<Vec<Option<i64>>>,
    f64s: OnceCell<Vec<Option<f64>>>,
    strs: OnceCell<Vec<Option<String>>>,
}

#[cfg(test)]
impl<'a> Rows<'a> {
    pub(crate) fn new(df: &'a DataFrame) -> Rows<'a> {
        Rows { df, cast: (0..df.width()).map(|_| Cast::default()).collect() }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = Row<'_>> {
        (0..self.df.height()).map(move |i| Row { rows: self, i })
    }

    /// Column `name` as `T`, cast with `load` on first use.
    fn column<T>(
        &self,
        name: &str,
        cell: fn(&Cast) -> &OnceCell<Vec<T>>,
        load: fn(&DataFrame, &str) -> PolarsResult<Vec<T>>,
    ) -> PolarsResult<&[T]> {
        let cell = cell(&self.cast[self.df.try_get_column_index(name)?]);
        if let Some(v) = cell.get() {
            return Ok(v);
        }
        let v = load(self.df, name)?;
        Ok(cell.get_or_init(|| v))
    }
}

#[cfg(test)]
/// One row of a [`Rows`]; `i64`, `f64` and `str` read a null as 0 / 0.0 / "".
#[derive(Clone, Copy)]
pub(crate) struct Row<'r> {
    rows: &'r Rows<'r>,
    i: usize,
}

#[cfg(test)]
impl Row<'_> {
    pub(crate) fn opt_i64(&self, name: &str) -> PolarsResult<Option<i64>> {
        Ok(self.rows.column(name, |c| &c.i64s, i64s)?[self.i])
    }

    pub(crate) fn i64(&self, name: &str) -> PolarsResult<i64> {
        Ok(self.opt_i64(name)?.unwrap_or(0))
    }

    pub(crate) fn f64(&self, name: &str) -> PolarsResult<f64> {
        Ok(self.rows.column(name, |c| &c.f64s, f64s)?[self.i].unwrap_or(0.0))
    }

    pub(crate) fn opt_str(&self, name: &str) -> PolarsResult<Option<String>> {
        Ok(self.rows.column(name, |c| &c.strs, strs)?[self.i].clone())
    }

    pub(crate) fn str(&self, name: &str) -> PolarsResult<String> {
        Ok(self.opt_str(name)?.unwrap_or_default())
    }
}
