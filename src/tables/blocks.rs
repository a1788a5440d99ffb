//! The `main_thread_blocks` table (docs/blocks.md): one row per block of a
//! main thread.

use polars::prelude::*;

use super::TableBuilder;
use crate::blocks::Block;

/// Build the `main_thread_blocks` table, one row per block.
pub fn main_thread_blocks(rows: &[Block]) -> PolarsResult<DataFrame> {
    TableBuilder::new(rows)
        .col("ts", |r| r.ts)
        .col("dur", |r| r.dur)
        .col("pid", |r| r.pid)
        .col("tid", |r| r.tid)
        .col("process", |r| r.process.as_deref())
        .col("kind", |r| r.kind.as_str())
        .col("slice_id", |r| r.slice.map(|s| s.0))
        .col("name", |r| &*r.name)
        .col("standard_name", |r| &*r.standard_name)
        .col("frame_interval_ns", |r| r.frame_interval_ns)
        .col("level", |r| r.level.map(|l| l.as_str()))
        .col("cpu_ns", |r| r.cpu_ns)
        .col("runnable_ns", |r| r.runnable_ns)
        .col("sleeping_ns", |r| r.sleeping_ns)
        .col("io_ns", |r| r.io_ns)
        .build()
}
