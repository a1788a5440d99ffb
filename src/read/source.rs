//! Opening a trace file: refuse what is not a file with a clear reason,
//! memory-map it, and inflate whole-file gzip / zstd into memory (bounded,
//! see `inflate`, so a decompression bomb is refused, not obeyed). Which
//! format the bytes are is decided by `read::decode`.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::error::ReadError;
use super::inflate::{self, INFLATED_FILE_FLOOR, MAX_INFLATE_RATIO};

/// How the file was stored (whole-file compression).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
}

enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

/// The trace file at `path`, opened, and its size: refused with the reason
/// when it is missing, a directory, not a regular file or empty (what every
/// command that takes a TRACE says about it, `open` included).
pub fn open_file(path: &Path) -> Result<(File, u64), ReadError> {
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
    Ok((file, file_size))
}

/// The bytes of a trace file, mapped or decompressed. Kept alive for the
/// whole analysis so that a second pass can scan them again.
pub struct Source {
    pub path: PathBuf,
    pub file_size: u64,
    pub compression: Compression,
    /// The whole-file gzip/zstd stream ended early (an interrupted pull): the
    /// bytes that inflated are analysed, with a warning.
    pub compressed_truncated: bool,
    bytes: Bytes,
    /// Where the last [`Source::release_before`] stopped (page-aligned).
    released_to: std::sync::atomic::AtomicUsize,
}

impl Source {
    pub fn open(path: &Path) -> Result<Source, ReadError> {
        let io = |source| ReadError::Io { path: path.to_path_buf(), source };
        let (file, file_size) = open_file(path)?;
        // SAFETY: the map is read-only; a trace being rewritten while we read it
        // can only give wrong bytes, which the decoder treats as damage.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        let head = &map[..map.len().min(4)];
        let limit = inflate::file_limit(file_size);
        let (compression, (bytes, compressed_truncated)) = if head.starts_with(&[0x1f, 0x8b]) {
            let (v, cut) = inflate(path, flate2::read::MultiGzDecoder::new(&map[..]), limit)?;
            (Compression::Gzip, (Bytes::Owned(v), cut))
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            let dec = zstd::stream::read::Decoder::with_buffer(&map[..]).map_err(io)?;
            let (v, cut) = inflate(path, dec, limit)?;
            (Compression::Zstd, (Bytes::Owned(v), cut))
        } else {
            (Compression::None, (Bytes::Mapped(map), false))
        };
        Ok(Source {
            path: path.to_path_buf(),
            file_size,
            compression,
            compressed_truncated,
            bytes,
            released_to: Default::default(),
        })
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
            compression: Compression::None,
            compressed_truncated: false,
            bytes: Bytes::Owned(data),
            released_to: Default::default(),
        };
        let limit = inflate::file_limit(file_size);
        if source.data().starts_with(&[0x1f, 0x8b]) {
            let (inflated, cut) = inflate(&source.path, flate2::read::MultiGzDecoder::new(source.data()), limit)?;
            source.bytes = Bytes::Owned(inflated);
            source.compression = Compression::Gzip;
            source.compressed_truncated = cut;
        } else if source.data().starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            let dec = zstd::stream::read::Decoder::with_buffer(source.data())
                .map_err(|e| ReadError::Io { path: source.path.clone(), source: e })?;
            let (inflated, cut) = inflate(&source.path, dec, limit)?;
            source.bytes = Bytes::Owned(inflated);
            source.compression = Compression::Zstd;
            source.compressed_truncated = cut;
        }
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
/// [`inflate::file_limit`]) and keeping what inflated before a truncated end (an
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
