//! Opening a trace file: refuse what is not a trace with a clear reason,
//! memory-map plain protobuf files, and inflate whole-file gzip / zstd into
//! memory (bounded, so a decompression bomb is refused, not obeyed).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::ReadError;

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
pub fn inflate_limit(compressed: u64) -> u64 {
    INFLATED_FILE_FLOOR.max(compressed.saturating_mul(MAX_INFLATE_RATIO)).min(MAX_INFLATED_FILE)
}

/// How the file was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    Plain,
    Gzip,
    Zstd,
    /// Legacy systrace / ftrace text (also inside a systrace HTML file).
    SystraceText,
}

impl Container {
    pub fn as_str(self) -> &'static str {
        match self {
            Container::Plain => "plain",
            Container::Gzip => "gzip",
            Container::Zstd => "zstd",
            Container::SystraceText => "systrace",
        }
    }
}

enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

/// The bytes of a trace file, mapped or decompressed. Kept alive for the
/// whole analysis so that a second pass can scan them again.
pub struct Source {
    pub path: PathBuf,
    pub file_size: u64,
    pub container: Container,
    /// The whole-file gzip/zstd stream ended early (an interrupted pull): the
    /// bytes that inflated are analysed, with a warning.
    pub compressed_truncated: bool,
    bytes: Bytes,
    /// The top-level packets, kept by the first pass (`read::decode`) so
    /// the scheduler pass does not frame the whole file again.
    pub(crate) framing: std::sync::OnceLock<super::framing::Framing>,
    /// What the first pass learned of each of its batches, in order, for
    /// the scheduler pass (empty before the first pass).
    pub(crate) sched_map: std::sync::Mutex<Vec<super::sched::BatchSched>>,
    /// Where the last [`Source::release_before`] stopped (page-aligned).
    released_to: std::sync::atomic::AtomicUsize,
}

impl Source {
    pub fn open(path: &Path) -> Result<Source, ReadError> {
        let io = |source| ReadError::Io { path: path.to_path_buf(), source };
        let meta = std::fs::metadata(path).map_err(io)?;
        if meta.is_dir() {
            return Err(ReadError::IsDirectory { path: path.to_path_buf() });
        }
        // Opening a FIFO blocks until a writer appears, and a device has no
        // size: refuse both rather than hang.
        if !meta.is_file() {
            return Err(ReadError::NotATrace {
                path: path.to_path_buf(),
                why: "it is not a regular file (a pipe, socket or device); save the trace to a file first".to_string(),
            });
        }
        let file = File::open(path).map_err(io)?;
        let file_size = meta.len();
        if file_size == 0 {
            return Err(ReadError::Empty { path: path.to_path_buf() });
        }
        // SAFETY: the map is read-only; a trace being rewritten while we read it
        // can only give wrong bytes, which the decoder treats as damage.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        let head = &map[..map.len().min(4)];
        let limit = inflate_limit(file_size);
        let (container, (bytes, compressed_truncated)) = if head.starts_with(&[0x1f, 0x8b]) {
            let (v, cut) = inflate(path, flate2::read::MultiGzDecoder::new(&map[..]), limit)?;
            (Container::Gzip, (Bytes::Owned(v), cut))
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            let dec = zstd::stream::read::Decoder::with_buffer(&map[..]).map_err(io)?;
            let (v, cut) = inflate(path, dec, limit)?;
            (Container::Zstd, (Bytes::Owned(v), cut))
        } else {
            (Container::Plain, (Bytes::Mapped(map), false))
        };
        let mut source = Source {
            path: path.to_path_buf(),
            file_size,
            container,
            compressed_truncated,
            bytes,
            framing: Default::default(),
            sched_map: Default::default(),
            released_to: Default::default(),
        };
        source.container = sniff(&source)?;
        Ok(source)
    }

    /// A source over bytes already in memory (tests, fuzzing).
    pub fn from_bytes(name: &str, data: Vec<u8>) -> Result<Source, ReadError> {
        let path = PathBuf::from(name);
        if data.is_empty() {
            return Err(ReadError::Empty { path });
        }
        let file_size = data.len() as u64;
        let mut source = Source {
            path,
            file_size,
            container: Container::Plain,
            compressed_truncated: false,
            bytes: Bytes::Owned(data),
            framing: Default::default(),
            sched_map: Default::default(),
            released_to: Default::default(),
        };
        let limit = inflate_limit(file_size);
        if source.data().starts_with(&[0x1f, 0x8b]) {
            let (inflated, cut) = inflate(&source.path, flate2::read::MultiGzDecoder::new(source.data()), limit)?;
            source.bytes = Bytes::Owned(inflated);
            source.container = Container::Gzip;
            source.compressed_truncated = cut;
        } else if source.data().starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            let dec = zstd::stream::read::Decoder::with_buffer(source.data())
                .map_err(|e| ReadError::Io { path: source.path.clone(), source: e })?;
            let (inflated, cut) = inflate(&source.path, dec, limit)?;
            source.bytes = Bytes::Owned(inflated);
            source.container = Container::Zstd;
            source.compressed_truncated = cut;
        }
        source.container = sniff(&source)?;
        Ok(source)
    }

    /// The (decompressed) trace bytes.
    pub fn data(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }

    /// Tell the kernel the mapped range before `offset` will not be read
    /// again, so the resident set stays small on traces larger than memory
    /// would like. No-op for decompressed (owned) data. Each pass over the
    /// file moves forward, so a call releases only the pages since the
    /// previous one (releasing the whole prefix each time walked its page
    /// tables again: quadratic in the file size); an offset below the
    /// previous one starts a new pass, released from the start.
    pub fn release_before(&self, offset: usize) {
        #[cfg(unix)]
        if let Bytes::Mapped(m) = &self.bytes {
            let end = offset / PAGE * PAGE;
            let previous = self.released_to.swap(end, std::sync::atomic::Ordering::Relaxed);
            let range = newly_released(previous, end);
            if !range.is_empty() {
                // SAFETY: the map is read-only and file-backed; dropped pages are
                // re-read from the page cache if touched again.
                let _ =
                    unsafe { m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, range.start, range.len()) };
            }
        }
        #[cfg(not(unix))]
        let _ = offset;
    }
}

const PAGE: usize = 4096;

/// The pages to release when the previous release stopped at `previous` and
/// this one stops at `end` (both page-aligned): those in between, or all
/// before `end` when `end` is below `previous` (a new pass).
fn newly_released(previous: usize, end: usize) -> std::ops::Range<usize> {
    if previous <= end {
        previous..end
    } else {
        0..end
    }
}

/// Inflate a whole-file stream, refusing to grow past `limit` (see
/// [`inflate_limit`]) and keeping what inflated before a truncated end (an
/// interrupted pull). Returns the bytes and whether the stream was cut.
fn inflate(path: &Path, reader: impl Read, limit: u64) -> Result<(Vec<u8>, bool), ReadError> {
    let mut out = Vec::new();
    let mut limited = reader.take(limit + 1);
    let mut cut = false;
    match limited.read_to_end(&mut out) {
        Ok(_) => {}
        // A cut-off compressed file: analyse what inflated, the framing pass
        // reports the damage. Nothing inflated at all means it is unusable.
        Err(e) if !out.is_empty() && is_truncation(&e) => cut = true,
        Err(e) => return Err(ReadError::Corrupt { path: path.to_path_buf(), why: format!("cannot decompress: {e}") }),
    }
    if out.len() as u64 > limit {
        return Err(ReadError::Corrupt {
            path: path.to_path_buf(),
            why: format!(
                "decompresses to more than {} MiB, past the limit of {MAX_INFLATE_RATIO}x its compressed size \
                 (at least {} MiB); refusing (decompression bomb?)",
                limit >> 20,
                INFLATED_FILE_FLOOR >> 20
            ),
        });
    }
    if out.is_empty() {
        return Err(ReadError::Empty { path: path.to_path_buf() });
    }
    Ok((out, cut))
}

fn is_truncation(e: &std::io::Error) -> bool {
    matches!(e.kind(), std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::InvalidInput | std::io::ErrorKind::Other)
}

/// Decide between a protobuf trace and systrace text, or refuse the file.
fn sniff(source: &Source) -> Result<Container, ReadError> {
    let data = source.data();
    let not_a_trace = |why: &str| ReadError::NotATrace { path: source.path.clone(), why: why.to_string() };
    match data.first() {
        // Trace.packet (field 1, length-delimited) always comes first.
        Some(0x0a) => Ok(source.container),
        Some(_) if super::systrace::sniff(data) => Ok(Container::SystraceText),
        Some(_) => {
            let printable = data.iter().take(512).filter(|b| b.is_ascii_graphic() || b.is_ascii_whitespace()).count();
            if printable * 10 >= data.len().min(512) * 9 {
                Err(not_a_trace("it is a text file, not a Perfetto protobuf or systrace"))
            } else {
                Err(not_a_trace(&format!("it starts with byte 0x{:02x}; a Perfetto trace starts with 0x0a", data[0])))
            }
        }
        None => Err(ReadError::Empty { path: source.path.clone() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_release_covers_only_the_pages_since_the_previous_one() {
        // The first pass moves forward, window by window.
        assert_eq!(newly_released(0, 8 * PAGE), 0..8 * PAGE);
        assert_eq!(newly_released(8 * PAGE, 20 * PAGE), 8 * PAGE..20 * PAGE);
        // Nothing new.
        assert_eq!(newly_released(20 * PAGE, 20 * PAGE), 20 * PAGE..20 * PAGE);
        // The scheduler pass starts over from the beginning of the file.
        assert_eq!(newly_released(20 * PAGE, 3 * PAGE), 0..3 * PAGE);
    }
}
