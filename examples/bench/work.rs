//! Work counts of an analysis that its outputs do not show (`bench
//! --phases` prints them, `examples/guard.rs` checks them).

use fpsan::frames::critical_path::{PathIndex, PathThreads};
use fpsan::frames::{self, FrameAnalysis};
use fpsan::model::Trace;
use rayon::prelude::*;

/// The segments of every frame's full critical path (vsync to the end of
/// its doFrame), as `frames::rebuild` walks them, frame by frame: how finely
/// the paths are cut, whichever of them the analysis keeps.
pub fn path_segments(trace: &Trace, frames: &FrameAnalysis) -> Vec<usize> {
    let threads = PathThreads::new(trace, &frames::render_threads(trace));
    let paths = PathIndex::new(trace, &frames.sched, &threads);
    frames.rows.par_iter().map(|r| paths.path(r.tid, r.vsync_ts.unwrap_or(r.ts), r.ts + r.do_frame_dur).len()).collect()
}
