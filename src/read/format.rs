//! What every input format is and hands on: the [`Format`] trait, the
//! records and facts of the first pass ([`Decoded`]), and the second pass
//! ([`SchedPass`]).

use super::compact_stitch::CompactStitch;
use super::error::ReadError;
use super::records::{Batch, SchedRecord};
use super::source::Source;
use super::thread_records::ThreadBuckets;
use crate::model::{CaptureInfo, Container, Warning};

#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Where the decoding progress bar goes.
    pub sink: crate::sink::Sink,
    /// Keep, while decoding, the scheduler records of the threads that begin
    /// slices whose name starts with one of these (`frames::DO_FRAME`,
    /// `frames::DRAW_FRAME`), so that the [`SchedPass`] need not read the
    /// trace again for them (see `frame_sched`). Empty for what never asks
    /// for frames (`info`).
    pub keep_sched_of_slices: &'static [&'static str],
}

/// What was learned about the file itself while reading it.
#[derive(Debug, Clone, Default)]
pub struct SourceFacts {
    pub path: String,
    pub file_size: u64,
    pub container: Container,
    /// What a systrace HTML report's metadata block says about the capture.
    pub capture: CaptureInfo,
    /// Bytes at the end of the file that did not form a whole packet.
    pub truncated_bytes: u64,
    /// Damage to the file as a whole (a cut stream, a torn last packet).
    pub warnings: Vec<Warning>,
}

impl SourceFacts {
    pub(crate) fn of(source: &Source, container: Container) -> SourceFacts {
        SourceFacts {
            path: source.path.display().to_string(),
            file_size: source.file_size,
            container,
            ..Default::default()
        }
    }
}

/// Everything the first pass decoded, for `crate::import`.
#[derive(Debug, Default)]
pub struct Decoded {
    /// Per-batch records, in file order.
    pub batches: Vec<Batch>,
    pub source: SourceFacts,
}

/// An input format: how its files are recognised, and its two passes.
pub trait Format: Sync {
    /// Whether `data` (whole-file compression undone) is in this format.
    fn sniff(&self, data: &[u8]) -> bool;
    /// The first pass: every record but scheduler events, and the second pass.
    fn decode(&self, source: &Source, opts: &ReadOptions) -> Result<(Decoded, SchedPass), ReadError>;
    /// A second pass that knows nothing of a first one (reads every batch).
    fn sched_pass(&self) -> SchedPass;
}

/// One format's scheduler pass over a source.
pub(crate) trait SchedScan: Send {
    /// Put the scheduler records of `tids` into `threads`, in file order;
    /// what the stitch across compact_sched bundles needs (nothing where
    /// the format has no compact_sched).
    fn scan(&mut self, source: &Source, tids: &[i32], threads: &mut ThreadBuckets) -> CompactStitch;
}

/// The second pass: scheduler events (sched_switch, sched_waking and
/// compact_sched) of a few threads, e.g. the main threads whose frames are
/// analysed. Reading them only on demand keeps the first pass (and `info`)
/// free of the trace's bulkiest data.
pub struct SchedPass(pub(crate) Box<dyn SchedScan>);

impl SchedPass {
    /// The events that involve the given thread ids: one vector per thread
    /// that has any (by tid), each sorted by timestamp (ties in file order),
    /// compact_sched's bundles stitched (`compact_stitch`).
    pub fn threads(&mut self, source: &Source, tids: &[i32]) -> Vec<Vec<SchedRecord>> {
        if tids.is_empty() {
            return Vec::new();
        }
        let mut threads = ThreadBuckets::new(tids);
        let stitch = self.0.scan(source, tids, &mut threads);
        let mut sorted = tids.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        stitch.apply(&sorted, threads.finish())
    }
}
