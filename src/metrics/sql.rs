//! The SQL the report runs: the files in `queries/`, compiled in with
//! `include_str!` and executed with polars' `SQLContext` over the frames
//! table, plus typed accessors for their result columns.

use polars::prelude::*;
use polars::sql::SQLContext;

/// A query from `queries/`, by file stem.
#[derive(Debug, Clone, Copy)]
pub struct NamedQuery {
    pub name: &'static str,
    pub sql: &'static str,
}

macro_rules! query {
    ($name:literal) => {
        NamedQuery {
            name: $name,
            sql: include_str!(concat!("../../queries/", $name, ".sql")),
        }
    };
}

pub const APP_SUMMARY: NamedQuery = query!("app_summary");
pub const SCENES: NamedQuery = query!("scenes");
pub const PERCENTILES: NamedQuery = query!("percentiles");
pub const FPS_WALL: NamedQuery = query!("fps_wall");
pub const JANK_TYPES: NamedQuery = query!("jank_types");
pub const VSYNC_SOURCES: NamedQuery = query!("vsync_sources");
pub const PERFDOG: NamedQuery = query!("perfdog");
pub const WORST_FRAMES: NamedQuery = query!("worst_frames");

/// Every query the summary runs, for docs and tests.
pub const ALL: &[NamedQuery] = &[
    APP_SUMMARY,
    SCENES,
    PERCENTILES,
    FPS_WALL,
    JANK_TYPES,
    VSYNC_SOURCES,
    PERFDOG,
    WORST_FRAMES,
];

/// A `SQLContext` with the frames table registered as `frames`.
pub struct FramesSql {
    ctx: SQLContext,
}

impl FramesSql {
    pub fn new(frames: &DataFrame) -> FramesSql {
        let ctx = SQLContext::new();
        ctx.register("frames", frames.clone().lazy());
        FramesSql { ctx }
    }

    pub fn run(&mut self, q: NamedQuery) -> PolarsResult<DataFrame> {
        self.ctx
            .execute(q.sql)
            .and_then(|lf| lf.collect())
            .map_err(|e| e.context(format!("query {}.sql", q.name).into()))
    }
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
    Ok(c.as_materialized_series()
        .str()?
        .iter()
        .map(|s| s.map(str::to_string))
        .collect())
}
