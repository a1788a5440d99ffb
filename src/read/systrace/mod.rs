//! Legacy systrace captures, read as completely as trace_processor reads
//! them: atrace / ftrace text (`.txt`), `.ctrace` (zlib after a `TRACE:`
//! line) and systrace HTML (every `trace-data` block), each also gzipped
//! (the whole-file gzip is undone by `Source` before this runs).
//!
//! * `container` and `html` open the capture: the ftrace text, the
//!   `PROCESS DUMP` (`dump`), and the blocks that were skipped.
//! * `line` splits and parses event lines with trace_processor's grammar;
//!   `event` types the scheduler, task and atrace events.
//! * [`decode`] turns the text into the same records the protobuf path
//!   makes, in parallel chunks cut at line ends: atrace points, thread
//!   names (task column, sched comms, renames), the tgid column and the
//!   process dump as a process tree, scheduler event counts.
//! * [`sched_for_threads`] is the second pass: the scheduler events of a
//!   few threads, as `SchedRecord`s.

mod container;
mod dump;
mod event;
mod html;
mod line;
mod metadata;
mod streams;
#[cfg(test)]
mod tests;

pub use container::sniff;
pub use line::parse_line;
pub use streams::UnpackError;

use container::unpack;
use dump::ProcessDump;
use event::{parse_event, Event};
use line::{scan, Line, ScanStats};

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::batch::BatchBuilder;
use super::compact_stitch::CompactStitch;
use super::error::ReadError;
use super::format::{Decoded, Format, ReadOptions, SchedPass, SchedScan, SourceFacts};
use super::records::{Batch, SchedRecord, TailBody, TailPacket, TidFilter, Waker};
use super::source::Source;
use super::thread_records::{switch_records, waking_record, ThreadBuckets};
use super::{inflate, slim};
use crate::model::{CaptureInfo, Container, Warning, WarningCode};

/// The text is parsed in pieces of about this size, cut at line ends.
const CHUNK_BYTES: usize = 4 << 20;
/// Pieces parsed together before the mapped pages behind them are released.
const WINDOW_CHUNKS: usize = 16;

/// Legacy systrace captures, as an input format.
pub struct Systrace;

impl Format for Systrace {
    fn sniff(&self, data: &[u8]) -> bool {
        sniff(data)
    }

    fn decode(&self, source: &Source, _: &ReadOptions) -> Result<(Decoded, SchedPass), ReadError> {
        let release = |offset| source.release_before(offset);
        let text = decode(source.data(), inflate::file_limit(source.file_size), &release).map_err(|e| match e {
            UnpackError::NoTraceData { .. } => ReadError::NotATrace { path: source.path.clone(), why: e.to_string() },
            _ => ReadError::Corrupt { path: source.path.clone(), why: e.to_string() },
        })?;
        let facts =
            SourceFacts { warnings: text.warnings, capture: text.capture, ..SourceFacts::of(source, text.container) };
        Ok((Decoded { batches: text.batches, source: facts }, self.sched_pass()))
    }

    fn sched_pass(&self) -> SchedPass {
        SchedPass::new(Box::new(SchedText))
    }
}

/// The scheduler pass over a capture: the text is read again (the first
/// pass keeps nothing for it; legacy captures are small).
struct SchedText;

impl SchedScan for SchedText {
    fn scan(&mut self, source: &Source, tids: &[i32], threads: &mut ThreadBuckets) -> CompactStitch {
        let release = |offset| source.release_before(offset);
        threads.add(sched_for_threads(source.data(), tids, inflate::file_limit(source.file_size), &release));
        CompactStitch::default()
    }
}

/// What [`decode`] made of a capture.
#[derive(Debug)]
pub struct Text {
    pub container: Container,
    /// The process dump's process tree first, then one batch per chunk.
    pub batches: Vec<Batch>,
    /// What an HTML report's metadata block says about the capture.
    pub capture: CaptureInfo,
    /// Damage worked around and blocks skipped, one line each.
    pub warnings: Vec<Warning>,
}

/// Read a capture into batches of records. `max_inflated` bounds what
/// inflating a `.ctrace` or an HTML `viewer-data` block may produce.
/// `done_before(offset)` is called as the parse moves past each window of
/// `data`, so a memory-mapped caller can drop the pages behind it.
pub fn decode(data: &[u8], max_inflated: u64, done_before: &dyn Fn(usize)) -> Result<Text, UnpackError> {
    let unpacked = unpack(data, max_inflated)?;
    // Finding an HTML report's blocks read the whole file; its pages come
    // back from the page cache as the parse reaches them.
    done_before(data.len());
    let chunks = chunks(&unpacked.ftrace, CHUNK_BYTES);
    let decoded = in_windows(data, &chunks, done_before, |i, chunk| vec![decode_chunk(i as u64 + 1, chunk)]);
    let mut batches = Vec::with_capacity(decoded.len() + 1);
    batches.push(dump_batch(&unpacked.process_dump));
    // Of the chunks' statistics, the whole text's warnings need these.
    let (mut unparsed, mut first_unparsed, mut lossy_lines) = (0u64, None, 0u64);
    for (batch, s) in decoded {
        batches.push(batch);
        unparsed += s.unparsed;
        first_unparsed = first_unparsed.or(s.first_unparsed);
        lossy_lines += s.lossy_lines;
    }
    let mut warnings = unpacked.warnings;
    let skipped = unpacked.skipped.iter().map(|s| format!("systrace HTML: skipped {s}"));
    warnings.extend(skipped.map(|m| Warning::new(WarningCode::HtmlBlockSkipped, m)));
    if unparsed > 0 {
        warnings.push(Warning::new(
            WarningCode::LinesUnparsed,
            format!(
                "{unparsed} lines are not ftrace events and were skipped (the first: {:?})",
                first_unparsed.unwrap_or_default()
            ),
        ));
    }
    if lossy_lines > 0 {
        let message = format!("{lossy_lines} lines were not UTF-8; their bad bytes were replaced");
        warnings.push(Warning::new(WarningCode::InvalidUtf8, message));
    }
    Ok(Text { container: unpacked.format, batches, capture: unpacked.capture, warnings })
}

/// The scheduler events (sched_switch, sched_waking, sched_wakeup[_new])
/// of the threads `tids`, in file order.
pub fn sched_for_threads(
    data: &[u8],
    tids: &[i32],
    max_inflated: u64,
    done_before: &dyn Fn(usize),
) -> Vec<SchedRecord> {
    let Ok(unpacked) = unpack(data, max_inflated) else { return Vec::new() };
    done_before(data.len());
    let wanted = TidFilter::new(tids.iter().copied());
    let out = in_windows(data, &chunks(&unpacked.ftrace, CHUNK_BYTES), done_before, |_, chunk| {
        let mut found = Vec::new();
        scan(chunk, |l| sched_records(l, &wanted, &mut found));
        found
    });
    out
}

/// `f(index, chunk)` on every chunk, in parallel a window at a time, the
/// results concatenated in chunk order. After each window the caller learns
/// how far into `data` the parse has come: the end of the window's last
/// chunk when the text is part of `data` (plain text, one HTML block), all of
/// it when the text was inflated or joined into a copy.
fn in_windows<T: Send>(
    data: &[u8],
    chunks: &[&[u8]],
    done_before: &dyn Fn(usize),
    f: impl Fn(usize, &[u8]) -> Vec<T> + Sync,
) -> Vec<T> {
    let mut out = Vec::new();
    let base = data.as_ptr() as usize;
    for (w, window) in chunks.chunks(WINDOW_CHUNKS).enumerate() {
        let found: Vec<Vec<T>> =
            window.par_iter().enumerate().map(|(i, chunk)| f(w * WINDOW_CHUNKS + i, chunk)).collect();
        out.extend(found.into_iter().flatten());
        if let Some(last) = window.last() {
            let end = (last.as_ptr() as usize + last.len()).wrapping_sub(base);
            done_before(if end <= data.len() { end } else { data.len() });
        }
    }
    out
}

fn sched_records(l: &Line<'_>, wanted: &TidFilter, out: &mut Vec<SchedRecord>) {
    let (ts, cpu) = (l.ts, l.cpu);
    match parse_event(l) {
        // A state that is not one (trace_processor stores it as invalid)
        // reads as preempted: the thread left the CPU.
        Event::SchedSwitch(s) => {
            switch_records(wanted, ts, cpu, (s.prev_pid, s.prev_state.unwrap_or(0), s.next_pid), out)
        }
        // The line's task is the waker (`<idle>-0`: an interrupt). As in
        // trace_processor, sched_wakeup and sched_wakeup_new make no state.
        Event::SchedWaking(w) => waking_record(wanted, ts, w.pid, || Waker::of(Some(l.tid)), out),
        _ => {}
    }
}

/// `text` cut into pieces of about `size` bytes, each ending at a line end.
fn chunks(text: &[u8], size: usize) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(text.len() / size + 1);
    let mut rest = text;
    while rest.len() > size {
        let cut = memchr::memchr(b'\n', &rest[size..]).map_or(rest.len(), |i| size + i + 1);
        let (piece, tail) = rest.split_at(cut);
        out.push(piece);
        rest = tail;
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// One chunk's records. Every line names its thread (the task column, as
/// trace_processor does, except ftrace's `<...>` for "unknown"), and its
/// tgid column places the thread in its process.
fn decode_chunk(index: u64, text: &[u8]) -> (Batch, ScanStats) {
    let mut ctx = BatchBuilder::new(index);
    let mut tgids: FxHashMap<i32, i32> = FxHashMap::default();
    let mut stats = scan(text, |l| {
        ctx.batch.ftrace_events += 1;
        ctx.batch.see_ts(l.ts);
        ctx.busy.see(l.ts);
        if l.comm != "<...>" {
            ctx.newest_comm(l.ts, l.tid, l.comm.as_bytes());
        }
        if let Some(tgid) = l.tgid.filter(|&t| t > 0) {
            tgids.entry(l.tid).or_insert(tgid);
        }
        match parse_event(l) {
            Event::Print(payload) => ctx.atrace_text(l.ts, l.tid, payload),
            Event::SchedSwitch(s) => {
                ctx.batch.sched_events += 1;
                ctx.newest_comm(l.ts, s.prev_pid, s.prev_comm.as_bytes());
                ctx.newest_comm(l.ts, s.next_pid, s.next_comm.as_bytes());
            }
            Event::SchedWaking(w) | Event::SchedWakeup(w) | Event::SchedWakeupNew(w) => {
                ctx.batch.sched_events += 1;
                ctx.newest_comm(l.ts, w.pid, w.comm.as_bytes());
            }
            Event::TaskNewtask(t) => ctx.newest_comm(l.ts, t.pid, t.comm.as_bytes()),
            Event::TaskRename(r) => ctx.rename(l.ts, r.pid, r.new_comm.as_bytes()),
            Event::Malformed => ctx.malformed(format!("a {} line whose arguments do not parse", l.event)),
            Event::ProcessFree(_) | Event::ProcessExit(_) | Event::Other => {}
        }
    });
    if !tgids.is_empty() {
        let threads = tgids
            .into_iter()
            .map(|(tid, tgid)| slim::process_tree::Thread { tid: Some(tid), tgid: Some(tgid), name: None })
            .collect();
        let tree = slim::ProcessTree { processes: Vec::new(), threads };
        push_tree(&mut ctx, tree);
    }
    ctx.batch.packets = 0;
    // Where each CPU's data starts and ends in this chunk, and its lost-events
    // notes: the importer joins the chunks' (see import::loss).
    ctx.batch.cpu_spans = stats.cpu_spans();
    ctx.batch.lost_notes = std::mem::take(&mut stats.lost);
    (ctx.finish(), stats)
}

/// The HTML's `ps` listing as a process tree: a process row names its
/// process (argv[0], as a cmdline does), a thread row its thread.
fn dump_batch(dump: &ProcessDump) -> Batch {
    let mut ctx = BatchBuilder::new(0);
    if dump.entries.is_empty() {
        return ctx.finish();
    }
    let mut tree = slim::ProcessTree::default();
    for e in &dump.entries {
        if e.is_thread {
            let tid = e.tid.unwrap_or(e.pid);
            let name = (!e.name.is_empty()).then(|| e.name.clone());
            tree.threads.push(slim::process_tree::Thread { tid: Some(tid), tgid: Some(e.pid), name });
        } else {
            tree.processes.push(slim::process_tree::Process {
                pid: Some(e.pid),
                ppid: e.ppid,
                cmdline: vec![e.name.clone()],
                ..Default::default()
            });
        }
    }
    push_tree(&mut ctx, tree);
    ctx.finish()
}

fn push_tree(ctx: &mut BatchBuilder, tree: slim::ProcessTree) {
    let order = ctx.order();
    ctx.batch.tail.push(TailPacket {
        order,
        seq: 0,
        ts: None,
        clock: None,
        incremental_state_cleared: false,
        defaults: None,
        interned: None,
        body: TailBody::ProcessTree(tree),
    });
}
