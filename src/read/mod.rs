//! Reading traces, bytes → records: open and sniff the file (mmap, whole-file
//! gzip or zstd, systrace text), a sequential framing pass that finds the
//! packets without copying, then parallel decoding of packet batches
//! (in-stream zlib/zstd batches are inflated and decoded recursively; atrace
//! text is parsed here, inside the parallel decode; legacy systrace text,
//! `.ctrace` and HTML in `systrace`). The records go to
//! `crate::import`, which orders them and builds the model. The scheduler
//! pass (`sched_for_threads`) gathers scheduler events for a few threads:
//! those the first pass kept for the frame threads (`frame_sched`), and the
//! rest read again from the file.

use std::path::PathBuf;

use records::{Batch, SchedRecord};

pub mod atrace;
mod compact_sched;
pub mod decode;
pub mod frame_sched;
pub mod framing;
pub mod ftrace;
pub mod records;
pub mod sched;
pub mod slim;
mod source;
pub mod systrace;
pub mod timeline;
mod track_event;
mod wire;

pub use source::{Container, Source};

/// Why a trace could not be read at all. Damage that still leaves something to
/// analyse is a warning in `TraceMeta::warnings`, not an error.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path} is a directory, not a trace file")]
    IsDirectory { path: PathBuf },
    #[error("{path} is empty")]
    Empty { path: PathBuf },
    #[error("{path} is not a Perfetto trace ({why})")]
    NotATrace { path: PathBuf, why: String },
    #[error("{path}: {why}")]
    Corrupt { path: PathBuf, why: String },
}

#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Show a progress bar (only when stderr is a terminal).
    pub progress: bool,
    /// Keep the scheduler records of the threads that run
    /// `Choreographer#doFrame` while decoding (see [`frame_sched`]), so that
    /// [`sched_for_threads`] need not read the trace again for them. Off for
    /// what never asks for frames (`info`).
    pub frame_sched: bool,
}

/// What was learned about the file itself while reading it.
#[derive(Debug, Clone, Default)]
pub struct SourceFacts {
    pub path: String,
    pub file_size: u64,
    /// `plain`, `gzip`, `zstd`, or `systrace text|ctrace|html`.
    pub container: &'static str,
    /// Events a legacy text trace says the kernel ring buffer lost
    /// (`CPU:n [LOST m EVENTS]`).
    pub ftrace_lost_events: u64,
    /// Bytes at the end of the file that did not form a whole packet.
    pub truncated_bytes: u64,
    /// Damage to the file as a whole (a cut stream, a torn last packet).
    pub warnings: Vec<String>,
}

/// Everything the reader decoded, for `crate::import`.
#[derive(Debug, Default)]
pub struct Decoded {
    /// Per-batch records, in file order.
    pub batches: Vec<Batch>,
    pub source: SourceFacts,
}

/// Decode the whole trace into records (everything but scheduler events).
pub fn decode(source: &Source, opts: &ReadOptions) -> Result<Decoded, ReadError> {
    let data = source.data();
    let mut meta = SourceFacts {
        path: source.path.display().to_string(),
        file_size: source.file_size,
        container: source.container.as_str(),
        ..Default::default()
    };
    let batches = if source.container == Container::SystraceText {
        let release = |offset| source.release_before(offset);
        let text = systrace::decode(data, source::inflate_limit(source.file_size), &release).map_err(|e| match e {
            systrace::UnpackError::NoTraceData { .. } => {
                ReadError::NotATrace { path: source.path.clone(), why: e.to_string() }
            }
            _ => ReadError::Corrupt { path: source.path.clone(), why: e.to_string() },
        })?;
        meta.container = text.format.container_name();
        meta.ftrace_lost_events = text.lost_events;
        meta.warnings.extend(text.warnings);
        text.batches
    } else {
        // Framing and decoding overlap (see `decode::frame_and_decode`); a
        // file without packets is refused before anything else is reported.
        let bar = progress_bar(opts.progress, data.len() as u64);
        let discovery = opts.frame_sched.then(std::sync::Arc::<frame_sched::Discovery>::default);
        let (framing, batches) = decode::frame_and_decode(
            data,
            discovery.as_ref(),
            &|n| {
                if let Some(b) = &bar {
                    b.inc(n)
                }
            },
            &|offset| source.release_before(offset),
        );
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        if framing.packets.is_empty() {
            let why = framing.stop_reason.unwrap_or_else(|| "it contains no packets".to_string());
            return Err(ReadError::NotATrace { path: source.path.clone(), why });
        }
        if source.compressed_truncated {
            meta.warnings.push(format!(
                "the {} stream ends early: the file was cut (interrupted pull?); {} bytes inflated and were analysed, the rest is lost",
                source.container.as_str(),
                data.len()
            ));
        }
        if let Some(why) = &framing.stop_reason {
            meta.truncated_bytes = framing.trailing_bytes as u64;
            let pct = framing.trailing_bytes as f64 * 100.0 / data.len() as f64;
            meta.warnings.push(format!(
                "{why}; the last {} bytes ({pct:.1}% of the trace) were not decoded, the analysis covers what came before",
                framing.trailing_bytes
            ));
        }
        let mut batches = batches;
        let ends = decode::batch_ranges(&framing.packets).into_iter().map(|r| r.end);
        let sched_map = ends.zip(&mut batches).map(|(end, b)| sched::BatchSched {
            end,
            tids: b.sched_tids.take(),
            kept: b.kept_sched.take(),
        });
        *source.sched_map.lock().unwrap_or_else(|e| e.into_inner()) = sched_map.collect();
        let _ = source.framing.set(framing);
        batches
    };
    Ok(Decoded { batches, source: meta })
}

/// Second pass: sched_switch / sched_waking (and compact_sched) events that
/// involve the given thread ids: one vector per thread that has any (by
/// tid), each sorted by timestamp (ties in file order).
pub fn sched_for_threads(source: &Source, tids: &[i32]) -> Result<Vec<Vec<SchedRecord>>, ReadError> {
    if tids.is_empty() {
        return Ok(Vec::new());
    }
    let release = |offset| source.release_before(offset);
    let mut threads = sched::ThreadBuckets::new(tids);
    if source.container == Container::SystraceText {
        threads.add(systrace::sched_for_threads(
            source.data(),
            tids,
            source::inflate_limit(source.file_size),
            &release,
        ));
    } else {
        let mut sched_map = source.sched_map.lock().unwrap_or_else(|e| e.into_inner());
        let first_pass = source.framing.get().map(|f| (f, sched_map.as_mut_slice()));
        sched::collect(source.data(), first_pass, tids, &release, &mut threads);
    }
    Ok(threads.finish())
}

/// A progress bar on stderr, only when it is a terminal.
pub fn progress_bar(enabled: bool, len: u64) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !enabled || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message("decoding");
    Some(bar)
}
