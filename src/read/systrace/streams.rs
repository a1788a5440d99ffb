//! What opening a capture yields ([`Unpacked`], or why not: [`UnpackError`]),
//! and the zlib / gzip streams a `.ctrace` or an HTML block holds, inflated
//! within a bound.

use std::borrow::Cow;
use std::fmt;
use std::io::Read;

use flate2::{Decompress, FlushDecompress, Status};

use super::dump::ProcessDump;
use super::line::trim_start;
use crate::model::{CaptureInfo, Container, Warning, WarningCode};

/// What [`unpack`] found in a capture.
#[derive(Debug)]
pub struct Unpacked<'a> {
    pub format: Container,
    /// The ftrace text: borrowed from the input when it is one piece of it,
    /// owned when it had to be inflated, decoded or joined from several blocks.
    pub ftrace: Cow<'a, [u8]>,
    /// The `ps` listings of an HTML report, in file order (later is newer).
    pub process_dump: ProcessDump,
    /// One short description per HTML block that was not used (cgroup
    /// dumps, BattOr samples, …), for the caller to mention.
    pub skipped: Vec<String>,
    /// What an HTML report's JSON block says about the capture.
    pub capture: CaptureInfo,
    /// Damage that was worked around (a cut stream, trailing bytes, …).
    pub warnings: Vec<Warning>,
}

impl<'a> Unpacked<'a> {
    pub(super) fn new(format: Container, ftrace: Cow<'a, [u8]>) -> Self {
        Unpacked {
            format,
            ftrace,
            process_dump: ProcessDump::default(),
            skipped: Vec::new(),
            capture: CaptureInfo::default(),
            warnings: Vec::new(),
        }
    }
}

/// Why a capture cannot be read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnpackError {
    /// An HTML report without any ftrace text; `found` names its other blocks.
    NoTraceData { found: Vec<String> },
    /// The compressed stream is damaged before any text came out of it.
    Corrupt(String),
    /// Inflating would pass the caller's limit (a decompression bomb?).
    TooLarge { limit: u64 },
}

impl fmt::Display for UnpackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnpackError::NoTraceData { found } if found.is_empty() => {
                write!(f, "the HTML file holds no systrace data blocks")
            }
            UnpackError::NoTraceData { found } => {
                write!(f, "the HTML file holds no ftrace text, only: {}", found.join("; "))
            }
            // `why` reads on from "the compressed trace": "is damaged (…)", "ends early".
            UnpackError::Corrupt(why) => write!(f, "the compressed trace {why}"),
            UnpackError::TooLarge { limit } => {
                write!(f, "the trace inflates past {} MiB; refusing (decompression bomb?)", limit >> 20)
            }
        }
    }
}

impl std::error::Error for UnpackError {}

/// RFC 1950 header: deflate method, window ≤ 32 KiB, check bits, no preset dictionary.
pub(super) fn is_zlib_header(b: &[u8]) -> bool {
    match b {
        [cmf, flg, ..] => {
            cmf & 0x0f == 8 && cmf >> 4 <= 7 && flg & 0x20 == 0 && ((u16::from(*cmf) << 8) | u16::from(*flg)) % 31 == 0
        }
        _ => false,
    }
}

pub(super) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// How one zlib stream ended.
enum End {
    Stream,
    Cut(String),
}

/// Inflate zlib streams back to back (trace_processor restarts its
/// decompressor after each one), stopping at bytes that start no stream.
pub(super) fn inflate_zlib_streams(
    mut input: &[u8],
    max: u64,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<u8>, UnpackError> {
    let mut out = Vec::new();
    loop {
        let (consumed, end) = inflate_zlib(input, &mut out, max)?;
        input = &input[consumed..];
        match end {
            End::Stream if is_zlib_header(input) => continue,
            End::Stream => {
                // adb may add a line end; anything more is reported, not parsed.
                let junk = trim_start(input).len();
                if junk > 0 {
                    let message = format!("ignored {junk} bytes after the end of the compressed trace");
                    warnings.push(Warning::new(WarningCode::TrailingBytes, message));
                }
                return Ok(out);
            }
            End::Cut(why) if out.is_empty() => return Err(UnpackError::Corrupt(why)),
            End::Cut(why) => {
                keep_whole_lines(&mut out);
                warnings.push(Warning::new(
                    WarningCode::StreamCut,
                    format!(
                        "the compressed trace {why} after {} bytes of text (an interrupted capture?); \
                     kept the complete lines before that point",
                        out.len()
                    ),
                ));
                return Ok(out);
            }
        }
    }
}

/// Inflate one zlib stream from the start of `input`, appending to `out`.
/// Returns the input bytes it used and how it ended.
fn inflate_zlib(input: &[u8], out: &mut Vec<u8>, max: u64) -> Result<(usize, End), UnpackError> {
    let mut z = Decompress::new(true);
    loop {
        if out.len() == out.capacity() {
            let len = out.len() as u64;
            let room = max.saturating_add(1) - len;
            out.reserve_exact(len.clamp(1 << 16, 1 << 28).min(room) as usize);
        }
        let (in_before, out_before) = (z.total_in(), z.total_out());
        let result = z.decompress_vec(&input[in_before as usize..], out, FlushDecompress::None);
        let consumed = z.total_in() as usize;
        if out.len() as u64 > max {
            return Err(UnpackError::TooLarge { limit: max });
        }
        match result {
            Ok(Status::StreamEnd) => return Ok((consumed, End::Stream)),
            Err(e) => return Ok((consumed, End::Cut(format!("is damaged ({e})")))),
            Ok(_) if z.total_in() == in_before && z.total_out() == out_before => {
                return Ok((consumed, End::Cut("ends early".to_string())));
            }
            Ok(_) => {}
        }
    }
}

pub(super) fn inflate_gzip(input: &[u8], max: u64, warnings: &mut Vec<Warning>) -> Result<Vec<u8>, UnpackError> {
    let mut out = Vec::new();
    let result = flate2::read::MultiGzDecoder::new(input).take(max.saturating_add(1)).read_to_end(&mut out);
    if out.len() as u64 > max {
        return Err(UnpackError::TooLarge { limit: max });
    }
    match result {
        Ok(_) => Ok(out),
        Err(e) if out.is_empty() => Err(UnpackError::Corrupt(format!("is damaged ({e})"))),
        Err(e) => {
            keep_whole_lines(&mut out);
            warnings.push(Warning::new(
                WarningCode::StreamCut,
                format!(
                    "the gzip data ends early or is damaged ({e}); kept the {} bytes of complete lines before that",
                    out.len()
                ),
            ));
            Ok(out)
        }
    }
}

/// Drop a last line the stream cut in half: its arguments would be wrong.
fn keep_whole_lines(text: &mut Vec<u8>) {
    let keep = memchr::memrchr(b'\n', text).map_or(0, |i| i + 1);
    text.truncate(keep);
}
