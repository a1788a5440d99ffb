//! How far compressed data may inflate: whole-file gzip / zstd (see
//! `Source`), the in-stream compressed batches of a protobuf trace, the
//! `.ctrace` and HTML blocks of a systrace capture. Every bound is here, so a
//! decompression bomb is refused the same way whichever reader meets it.

use std::io::Read;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// Whole-file compression never inflates past this (a real trace compresses
/// 5–15×; this allows any trace a 24 GB machine can analyse).
pub const MAX_INFLATED_FILE: u64 = 16 << 30;
/// Below [`MAX_INFLATED_FILE`], a compressed file may inflate to this much,
/// or [`MAX_INFLATE_RATIO`] times its own size when that is more. A real
/// trace never compresses 256×; a gzip/zstd bomb does (1000× and more), and
/// is refused before it holds gigabytes of memory.
pub const INFLATED_FILE_FLOOR: u64 = 256 << 20;
pub const MAX_INFLATE_RATIO: u64 = 256;

/// How far a compressed file of `compressed` bytes may inflate.
pub fn file_limit(compressed: u64) -> u64 {
    INFLATED_FILE_FLOOR.max(compressed.saturating_mul(MAX_INFLATE_RATIO)).min(MAX_INFLATED_FILE)
}

/// One in-stream compressed batch never inflates past this (Perfetto writes
/// batches of well under 1 MB).
pub const MAX_INFLATED_PACKET: u64 = 256 << 20;

/// All in-stream compressed batches of one trace together inflate to at most
/// this much plus [`INFLATE_RATIO`] times the trace's size, and never past
/// [`MAX_INFLATED_FILE`]. Real traces compress 5–15×; the budget stops a
/// nest of small bombs (each packet under [`MAX_INFLATED_PACKET`]) from
/// turning a few KB into hours of decompression.
pub const INFLATE_BUDGET_BASE: u64 = 1 << 30;
pub const INFLATE_RATIO: u64 = 64;

/// The shared in-stream inflation budget of one pass over a trace.
#[derive(Debug)]
pub struct InflateBudget(AtomicI64);

impl InflateBudget {
    pub fn for_input(len: usize) -> Arc<InflateBudget> {
        let total = INFLATE_BUDGET_BASE.saturating_add(INFLATE_RATIO.saturating_mul(len as u64)).min(MAX_INFLATED_FILE);
        Arc::new(InflateBudget(AtomicI64::new(total as i64)))
    }

    pub fn exhausted(&self) -> bool {
        self.0.load(Ordering::Relaxed) < 0
    }

    /// Charge `n` inflated bytes; false once the budget is spent.
    pub fn charge(&self, n: usize) -> bool {
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        self.0.fetch_sub(n, Ordering::Relaxed).saturating_sub(n) >= 0
    }

    /// Why batches were skipped once the budget was spent.
    pub fn spent_message() -> String {
        format!(
            "in-stream compressed batches inflate to more than {} GiB + {INFLATE_RATIO}x the trace size in total (decompression bomb?); the rest were skipped",
            INFLATE_BUDGET_BASE >> 30
        )
    }
}

/// The compression of an in-stream batch (TracePacket field 50 or 133).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    Zlib,
    Zstd,
}

impl Codec {
    fn name(self) -> &'static str {
        match self {
            Codec::Zlib => "zlib",
            Codec::Zstd => "zstd",
        }
    }
}

/// Why an in-stream compressed batch was skipped (a warning, not an error:
/// the rest of the trace is read).
#[derive(Debug, thiserror::Error)]
pub enum InflateError {
    #[error("a {} compressed batch is corrupt ({source}); its packets were skipped", codec.name())]
    Corrupt { codec: Codec, source: std::io::Error },
    #[error("a {} compressed batch inflates past {} MiB (decompression bomb?); skipped", codec.name(), MAX_INFLATED_PACKET >> 20)]
    TooLarge { codec: Codec },
}

/// One in-stream compressed batch, inflated; refused past
/// [`MAX_INFLATED_PACKET`] or when corrupt.
pub fn packet(b: &[u8], codec: Codec) -> Result<Vec<u8>, InflateError> {
    let mut out = Vec::with_capacity(b.len() * 4);
    let res = match codec {
        Codec::Zlib => flate2::read::ZlibDecoder::new(b).take(MAX_INFLATED_PACKET + 1).read_to_end(&mut out),
        Codec::Zstd => match zstd::stream::read::Decoder::with_buffer(b) {
            Ok(d) => d.take(MAX_INFLATED_PACKET + 1).read_to_end(&mut out),
            Err(e) => Err(e),
        },
    };
    if let Err(source) = res {
        return Err(InflateError::Corrupt { codec, source });
    }
    if out.len() as u64 > MAX_INFLATED_PACKET {
        return Err(InflateError::TooLarge { codec });
    }
    Ok(out)
}
