//! The `main_thread_blocks` table (docs/blocks.md): one row per block of a
//! main thread.

use polars::prelude::*;

use super::TableBuilder;
use crate::blocks::Block;

/// Build the `main_thread_blocks` table, one row per block.
pub fn main_thread_blocks(rows: &[Block]) -> PolarsResult<DataFrame> {
    TableBuilder::new(rows)
        .col("ts", "the block's start and duration (ns; `dur` −1: not ended by the trace's end)", |r| r.ts)
        .col("dur", "the block's start and duration (ns; `dur` −1: not ended by the trace's end)", |r| r.dur)
        .col("pid", "its process and main thread (equal)", |r| r.pid)
        .col("tid", "its process and main thread (equal)", |r| r.tid)
        .col("process", "the process' name", |r| r.process.as_deref())
        .col("kind", "`slice`", |r| r.kind.as_str())
        .col("slice_id", "the slice's id in fpsan's `slice` table", |r| r.slice.map(|s| s.0))
        .col("name", "the slice's name, as in trace_processor's `slice.name`", |r| &*r.name)
        .col("standard_name", "`name` as trace_processor's `android_standardize_slice_name` (module `android.slices`) gives it (below, \"Names\")", |r| &*r.standard_name)
        .col("frame_interval_ns", "the app's frame interval the level was measured against (below, \"Levels\")", |r| r.frame_interval_ns)
        .col("level", "`short`, `frame_scale`, `evil_method`, `block_canary`, `lag` or `anr_risk`; null while `dur` is unknown", |r| r.level.map(|l| l.as_str()))
        .col("cpu_ns", "the main thread's time in each scheduler state over the block (running; runnable, waiting for a CPU; sleeping, S; uninterruptible, D: I/O and kernel locks), as the frames' thread-state split counts them (docs/frames.md); null where fpsan has no scheduler data for the thread: it keeps the scheduler records of the threads that draw frames (`Choreographer#doFrame`), so the main thread of an app that drew no frame has none", |r| r.cpu_ns)
        .col("runnable_ns", "the main thread's time in each scheduler state over the block (running; runnable, waiting for a CPU; sleeping, S; uninterruptible, D: I/O and kernel locks), as the frames' thread-state split counts them (docs/frames.md); null where fpsan has no scheduler data for the thread: it keeps the scheduler records of the threads that draw frames (`Choreographer#doFrame`), so the main thread of an app that drew no frame has none", |r| r.runnable_ns)
        .col("sleeping_ns", "the main thread's time in each scheduler state over the block (running; runnable, waiting for a CPU; sleeping, S; uninterruptible, D: I/O and kernel locks), as the frames' thread-state split counts them (docs/frames.md); null where fpsan has no scheduler data for the thread: it keeps the scheduler records of the threads that draw frames (`Choreographer#doFrame`), so the main thread of an app that drew no frame has none", |r| r.sleeping_ns)
        .col("io_ns", "the main thread's time in each scheduler state over the block (running; runnable, waiting for a CPU; sleeping, S; uninterruptible, D: I/O and kernel locks), as the frames' thread-state split counts them (docs/frames.md); null where fpsan has no scheduler data for the thread: it keeps the scheduler records of the threads that draw frames (`Choreographer#doFrame`), so the main thread of an app that drew no frame has none", |r| r.io_ns)
        .build()
}
