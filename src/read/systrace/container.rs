//! Opening a legacy capture: plain text (with or without adb's `TRACE:`
//! preamble), `.ctrace` (`TRACE:` then a zlib or gzip stream, as `atrace -z`
//! and `traceconv ctrace` write it), or systrace HTML (handed to `html`).

use std::borrow::Cow;
use std::fmt;
use std::io::Read;

use flate2::{Decompress, FlushDecompress, Status};
use memchr::memmem;

use super::dump::ProcessDump;
use super::html::{unescape_js_lines, unpack_html};
use super::line::{contains, lines, parse_line, parse_line_bytes, trim_start};

/// How the capture was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// ftrace / atrace text, possibly after adb's `TRACE:` preamble.
    Text,
    /// `TRACE:` then a zlib (or gzip) stream: `atrace -z`, `traceconv ctrace`.
    Ctrace,
    /// A systrace HTML report.
    Html,
}

impl Format {
    /// How `info` names the container.
    pub fn container_name(self) -> &'static str {
        match self {
            Format::Text => "systrace text",
            Format::Ctrace => "systrace ctrace",
            Format::Html => "systrace html",
        }
    }
}

/// What [`unpack`] found in a capture.
#[derive(Debug)]
pub struct Unpacked<'a> {
    pub format: Format,
    /// The ftrace text: borrowed from the input when it is one piece of it,
    /// owned when it had to be inflated, decoded or joined from several blocks.
    pub ftrace: Cow<'a, [u8]>,
    /// The `ps` listings of an HTML report, in file order (later is newer).
    pub process_dump: ProcessDump,
    /// One short description per HTML block that was not used (JSON from
    /// other agents, cgroup dumps, …), for the caller to mention.
    pub skipped: Vec<String>,
    /// Damage that was worked around (a cut stream, trailing bytes, …).
    pub warnings: Vec<String>,
}

impl<'a> Unpacked<'a> {
    pub(super) fn new(format: Format, ftrace: Cow<'a, [u8]>) -> Self {
        Unpacked { format, ftrace, process_dump: ProcessDump::default(), skipped: Vec::new(), warnings: Vec::new() }
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

/// How far into the file adb's `TRACE:` preamble may end (trace_processor
/// looks 128 bytes far; adb's progress text can be longer).
const MARKER_WINDOW: usize = 4096;
pub(super) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Split a capture into its ftrace text and process dump. `max_inflated`
/// bounds what decompression may produce (see fpsan's `inflate_limit`).
pub fn unpack(data: &[u8], max_inflated: u64) -> Result<Unpacked<'_>, UnpackError> {
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let (body, line_end) = match find_trace_marker(data) {
        Some((start, line_end)) => (&data[start..], Some(line_end)),
        None => (data, None),
    };
    if body.starts_with(&GZIP_MAGIC) || (line_end.is_some() && is_zlib_header(body)) || is_bare_zlib(body) {
        return unpack_ctrace(body, line_end.unwrap_or(b"\n"), max_inflated);
    }
    if looks_like_html(body) {
        return unpack_html(body, max_inflated);
    }
    // A trace copied out of an old HTML report keeps its JavaScript escapes.
    let escaped = lines(body).next().is_some_and(|l| l.ends_with(b"\\n\\"));
    let text = if escaped { Cow::Owned(unescape_js_lines(body)) } else { Cow::Borrowed(body) };
    Ok(Unpacked::new(Format::Text, text))
}

/// Whether a file's first bytes (4 KiB suffice) look like a capture
/// [`unpack`] reads: adb's `TRACE:` line (also after `capturing trace...
/// done`), an ftrace header, trace-cmd's `cpus=` line, systrace HTML, or an
/// event line among the first 20 lines.
pub fn sniff(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let head = &head[..head.len().min(MARKER_WINDOW)];
    let text = trim_start(head);
    text.starts_with(b"# tracer")
        || text.starts_with(b"cpus=")
        || find_trace_marker(head).is_some()
        || looks_like_html(head)
        || lines(text).take(20).any(|l| parse_line_bytes(l).is_some())
}

/// Where the data after adb's `TRACE:` line starts, and how that line ended.
/// Text before it (`capturing trace... done`) is dropped; an event line
/// before it means the `TRACE:` is some event's text, not the preamble.
fn find_trace_marker(data: &[u8]) -> Option<(usize, &'static [u8])> {
    let head = &data[..data.len().min(MARKER_WINDOW)];
    let at = memmem::find(head, b"TRACE:")?;
    let after = &data[at + 6..];
    let line_end: &'static [u8] = [&b"\n"[..], b"\r\n", b"\r\r\n"].into_iter().find(|end| after.starts_with(end))?;
    if String::from_utf8_lossy(&data[..at]).lines().any(|l| parse_line(l).is_some()) {
        return None;
    }
    Some((at + 6 + line_end.len(), line_end))
}

/// RFC 1950 header: deflate method, window ≤ 32 KiB, check bits, no preset dictionary.
fn is_zlib_header(b: &[u8]) -> bool {
    match b {
        [cmf, flg, ..] => {
            cmf & 0x0f == 8 && cmf >> 4 <= 7 && flg & 0x20 == 0 && ((u16::from(*cmf) << 8) | u16::from(*flg)) % 31 == 0
        }
        _ => false,
    }
}

/// A zlib stream with no `TRACE:` before it: only the headers zlib writes
/// at its usual levels, whose second byte no text file starts with.
fn is_bare_zlib(b: &[u8]) -> bool {
    matches!(b, [0x78, 0x01 | 0x9c | 0xda, ..])
}

/// Markup, as opposed to text whose first task is `<idle>` or `<...>`.
fn looks_like_html(b: &[u8]) -> bool {
    let t = trim_start(b);
    if t.first() != Some(&b'<') || lines(t).next().is_some_and(|l| parse_line_bytes(l).is_some()) {
        return false;
    }
    let head = t[..t.len().min(4096)].to_ascii_lowercase();
    [&b"<!doctype html"[..], b"<html", b"<script"].iter().any(|tag| contains(&head, tag))
}

/// Inflate a `.ctrace`. `line_end` is how the `TRACE:` line ended: old adb
/// on a pty turns every `\n` the device wrote into `\r\n` (Windows adb into
/// `\r\r\n`), compressed bytes included, and catapult undoes that the same
/// way. If the undone stream does not inflate cleanly the bytes are tried as
/// they are, for tools that wrote only the header line that way.
fn unpack_ctrace<'a>(body: &[u8], line_end: &[u8], max: u64) -> Result<Unpacked<'a>, UnpackError> {
    let clean = |r: &Result<(Vec<u8>, Vec<String>), UnpackError>| matches!(r, Ok((_, w)) if w.is_empty());
    let mut result =
        if line_end == b"\n" { inflate_any(body, max) } else { inflate_any(&undo_crlf(body, line_end), max) };
    if line_end != b"\n" && !clean(&result) {
        let as_is = inflate_any(body, max);
        if clean(&as_is) {
            result = as_is;
        }
    }
    let (text, warnings) = result?;
    let mut out = Unpacked::new(Format::Ctrace, Cow::Owned(text));
    out.warnings = warnings;
    Ok(out)
}

/// Inflate a zlib or gzip stream, with the warnings about its end.
fn inflate_any(stream: &[u8], max: u64) -> Result<(Vec<u8>, Vec<String>), UnpackError> {
    let mut warnings = Vec::new();
    let text = if stream.starts_with(&GZIP_MAGIC) {
        inflate_gzip(stream, max, &mut warnings)?
    } else {
        inflate_zlib_streams(stream, max, &mut warnings)?
    };
    Ok((text, warnings))
}

/// Replace every `pattern` (`\r\n` or `\r\r\n`) by `\n`, left to right.
pub(super) fn undo_crlf(data: &[u8], pattern: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut rest = data;
    let finder = memmem::Finder::new(pattern);
    while let Some(i) = finder.find(rest) {
        out.extend_from_slice(&rest[..i]);
        out.push(b'\n');
        rest = &rest[i + pattern.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// How one zlib stream ended.
enum End {
    Stream,
    Cut(String),
}

/// Inflate zlib streams back to back (trace_processor restarts its
/// decompressor after each one), stopping at bytes that start no stream.
fn inflate_zlib_streams(mut input: &[u8], max: u64, warnings: &mut Vec<String>) -> Result<Vec<u8>, UnpackError> {
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
                    warnings.push(format!("ignored {junk} bytes after the end of the compressed trace"));
                }
                return Ok(out);
            }
            End::Cut(why) if out.is_empty() => return Err(UnpackError::Corrupt(why)),
            End::Cut(why) => {
                keep_whole_lines(&mut out);
                warnings.push(format!(
                    "the compressed trace {why} after {} bytes of text (an interrupted capture?); \
                     kept the complete lines before that point",
                    out.len()
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

pub(super) fn inflate_gzip(input: &[u8], max: u64, warnings: &mut Vec<String>) -> Result<Vec<u8>, UnpackError> {
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
            warnings.push(format!(
                "the gzip data ends early or is damaged ({e}); kept the {} bytes of complete lines before that",
                out.len()
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
