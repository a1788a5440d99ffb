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
        .col("kind", "`slice`, or `untraced`: busy time with no slice open (below, \"Untraced blocks\")", |r| r.kind.as_str())
        .col("slice_id", "the slice's id in fpsan's `slice` table; null for an untraced block", |r| r.slice.map(|s| s.0))
        .col("name", "the slice's name, as in trace_processor's `slice.name`; `(no slice)` for an untraced block", |r| &*r.name)
        .col("standard_name", "`name` as trace_processor's `android_standardize_slice_name` (module `android.slices`) gives it (below, \"Names\")", |r| &*r.standard_name)
        .col("frame_interval_ns", "the app's frame interval the level was measured against (below, \"Levels\")", |r| r.frame_interval_ns)
        .col("level", "`short`, `frame_scale`, `evil_method`, `block_canary`, `lag` or `anr_risk`; null while `dur` is unknown", |r| r.level.map(|l| l.as_str()))
        .col("cpu_ns", "the main thread's time in each scheduler state over the block (running; runnable, waiting for a CPU; sleeping, S; uninterruptible, D: I/O and kernel locks), as the frames' thread-state split counts them (docs/frames.md); null where fpsan has no scheduler data for the thread: it keeps the scheduler records of the threads that draw frames (`Choreographer#doFrame`), so the main thread of an app that drew no frame has none", |r| r.cpu_ns)
        .col("runnable_ns", "the main thread's time in each scheduler state over the block (running; runnable, waiting for a CPU; sleeping, S; uninterruptible, D: I/O and kernel locks), as the frames' thread-state split counts them (docs/frames.md); null where fpsan has no scheduler data for the thread: it keeps the scheduler records of the threads that draw frames (`Choreographer#doFrame`), so the main thread of an app that drew no frame has none", |r| r.runnable_ns)
        .col("sleeping_ns", "the main thread's time in each scheduler state over the block (running; runnable, waiting for a CPU; sleeping, S; uninterruptible, D: I/O and kernel locks), as the frames' thread-state split counts them (docs/frames.md); null where fpsan has no scheduler data for the thread: it keeps the scheduler records of the threads that draw frames (`Choreographer#doFrame`), so the main thread of an app that drew no frame has none", |r| r.sleeping_ns)
        .col("io_ns", "the main thread's time in each scheduler state over the block (running; runnable, waiting for a CPU; sleeping, S; uninterruptible, D: I/O and kernel locks), as the frames' thread-state split counts them (docs/frames.md); null where fpsan has no scheduler data for the thread: it keeps the scheduler records of the threads that draw frames (`Choreographer#doFrame`), so the main thread of an app that drew no frame has none", |r| r.io_ns)
        .col("vsyncs", "the app's vsyncs inside the block (below, \"What a block held up\"); null while `dur` is unknown", |r| r.vsyncs)
        .col("frames_delayed", "the app's frames due during the block (their vsync inside it) that began after it", |r| r.frames_delayed)
        .col("frames_dropped", "the vsyncs Choreographer skipped before those frames (the sum of their `skipped_frames`)", |r| r.frames_dropped)
        .col("cause_tid", "the (thread, slice) that held the most of the block's critical path (below, \"Why it was long\"): the thread's tid; null for a block shorter than frame-scale or a thread without scheduler data", |r| r.cause().map(|c| c.tid))
        .col("cause_thread", "that thread's name", |r| r.cause().and_then(|c| c.thread.as_deref()))
        .col("cause_slice", "the deepest slice it was in (null between slices)", |r| r.cause().and_then(|c| c.slice.as_deref()))
        .col("cause_ns", "its time on the path, ns", |r| r.cause().map(|c| c.ns))
        .col("chain", "the critical path in one line, from the main thread to what it waited on (docs/frames.md, \"Critical path\")", |r| r.why.as_ref().and_then(|w| w.chain.as_deref()))
        .col("top_method", "the name of the slices inside the block (itself included) with the most self time: Matrix's evil method (below, \"Why it was long\"); null for a block shorter than frame-scale or untraced", |r| r.top_method().map(|m| &*m.name))
        .col("top_method_self_ns", "their self time (duration less that of the slices directly inside), ns", |r| r.top_method().map(|m| m.self_ns))
        .build()
}
