//! Reading traces, bytes → records, for `crate::import`, which orders them
//! and builds the model.
//!
//! * [`Source`] opens the file: memory-mapped, or inflated from whole-file
//!   gzip / zstd (bounded by `inflate`).
//! * A [`Format`] reads it: each input format recognises its own bytes and
//!   decodes them into batches of records, writing through one
//!   `batch::BatchBuilder` per batch (the only thing the decoders share).
//!   `protobuf` reads Perfetto traces (framing, then parallel decoding of
//!   packet batches: ftrace bundles, FrameTimeline, track events, in-stream
//!   compressed batches); `systrace` reads legacy atrace / ftrace text,
//!   `.ctrace` and HTML.
//! * The first pass ([`decode`]) reads everything but scheduler events and
//!   hands on a [`SchedPass`]: the second pass, for the scheduler events of
//!   the few threads an analysis asks about, with what the first pass
//!   learned to make it short (which batches name which threads, and the
//!   records it already kept for the threads that begin frames, see
//!   `frame_sched`).
//!
//! Adding an input format: a module with a type that implements
//! [`Format`], listed in [`FORMATS`].

pub mod atrace;
mod batch;
pub(crate) mod busy;
mod compact_stitch;
mod error;
mod format;
mod frame_sched;
mod inflate;
mod packing;
mod protobuf;
pub mod records;
pub mod slim;
mod source;
pub mod systrace;
mod thread_records;

pub use error::ReadError;
pub use format::{Decoded, Format, ReadOptions, SchedPass, SourceFacts};
pub use packing::Packing;
pub use protobuf::framing;
pub use source::{open_file, Compression, Source};

use records::SchedRecord;

/// The input formats, tried in this order.
pub const FORMATS: [&dyn Format; 2] = [&protobuf::Protobuf, &systrace::Systrace];

/// Read the whole trace into records (everything but scheduler events).
pub fn decode(source: &Source, opts: &ReadOptions) -> Result<(Decoded, SchedPass), ReadError> {
    format_of(source)?.decode(source, opts)
}

/// The scheduler events of `tids` read afresh, without a first pass (see [`SchedPass::threads`]).
pub fn sched_for_threads(source: &Source, tids: &[i32]) -> Result<Vec<Vec<SchedRecord>>, ReadError> {
    Ok(format_of(source)?.sched_pass().threads(source, tids))
}

/// The format of `source`, or why it is not a trace.
fn format_of(source: &Source) -> Result<&'static dyn Format, ReadError> {
    let data = source.data();
    if let Some(format) = FORMATS.into_iter().find(|f| f.sniff(data)) {
        return Ok(format);
    }
    if let Some(packing) = Packing::of(data) {
        return Err(ReadError::Packed { path: source.path.clone(), packing });
    }
    let why = match data.first() {
        None => return Err(ReadError::Empty { path: source.path.clone() }),
        Some(first) => {
            let printable = data.iter().take(512).filter(|b| b.is_ascii_graphic() || b.is_ascii_whitespace()).count();
            if printable * 10 >= data.len().min(512) * 9 {
                "it is a text file, not a Perfetto protobuf or systrace".to_string()
            } else {
                format!("it starts with byte 0x{first:02x}; a Perfetto trace starts with 0x0a")
            }
        }
    };
    Err(ReadError::NotATrace { path: source.path.clone(), why })
}
