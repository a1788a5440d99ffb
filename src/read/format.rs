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
    /// The threads the first pass found to begin the slices it was asked
    /// about (`ReadOptions::keep_sched_of_slices`), sorted: those an
    /// analysis of frames will ask for. None where it looked for none.
    fn found_threads(&self) -> Vec<i32> {
        Vec::new()
    }
}

/// The second pass: scheduler events (sched_switch, sched_waking and
/// compact_sched) of a few threads, e.g. the main threads whose frames are
/// analysed. Reading them only on demand keeps the first pass (and `info`)
/// free of the trace's bulkiest data.
pub struct SchedPass {
    scan: Box<dyn SchedScan>,
    /// What [`SchedPass::prefetch`] read, until it is asked for.
    prefetched: Option<Prefetched>,
}

/// The records of the threads the first pass found ([`SchedScan::found_threads`]),
/// read by [`SchedPass::prefetch`] before anyone asked for them.
struct Prefetched {
    /// Sorted.
    tids: Vec<i32>,
    /// As [`SchedPass::threads`] returns them.
    threads: Vec<Vec<SchedRecord>>,
}

impl SchedPass {
    pub(crate) fn new(scan: Box<dyn SchedScan>) -> SchedPass {
        SchedPass { scan, prefetched: None }
    }

    /// Read now the records of the threads the first pass found to begin
    /// frames, which are nearly always the ones [`Self::threads`] will be
    /// asked for: the analysis does this while it imports the first pass's
    /// records, which does not need them. Asked later, those threads cost
    /// nothing; others are read then.
    pub fn prefetch(&mut self, source: &Source) {
        let tids = self.scan.found_threads();
        if !tids.is_empty() {
            let threads = self.read(source, &tids);
            self.prefetched = Some(Prefetched { tids, threads });
        }
    }

    /// The events that involve the given thread ids: one vector per thread
    /// that has any (by tid), each sorted by timestamp (ties in file order),
    /// compact_sched's bundles stitched (`compact_stitch`).
    pub fn threads(&mut self, source: &Source, tids: &[i32]) -> Vec<Vec<SchedRecord>> {
        let Some(Prefetched { tids: fetched, threads }) = self.prefetched.take() else {
            return self.read(source, tids);
        };
        let asked = |tid: i32| tids.contains(&tid);
        let mut out: Vec<Vec<SchedRecord>> = threads.into_iter().filter(|t| asked(t[0].tid())).collect();
        let missing: Vec<i32> = tids.iter().copied().filter(|t| fetched.binary_search(t).is_err()).collect();
        if !missing.is_empty() {
            // A thread's records do not depend on which others were read
            // with it (`frame_sched`), so the two reads make one answer.
            out.extend(self.read(source, &missing));
            out.sort_by_key(|t| t[0].tid());
        }
        out
    }

    /// [`Self::threads`], read now.
    fn read(&mut self, source: &Source, tids: &[i32]) -> Vec<Vec<SchedRecord>> {
        if tids.is_empty() {
            return Vec::new();
        }
        let mut threads = ThreadBuckets::new(tids);
        let stitch = self.scan.scan(source, tids, &mut threads);
        let mut sorted = tids.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        stitch.apply(&sorted, threads.finish())
    }
}
