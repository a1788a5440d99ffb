//! Opening a legacy capture: plain text (with or without adb's `TRACE:`
//! preamble), `.ctrace` (`TRACE:` then a zlib or gzip stream, as `atrace -z`
//! and `traceconv ctrace` write it), or systrace HTML (handed to `html`).

use std::borrow::Cow;

use memchr::memmem;

use super::html::{unescape_js_lines, unpack_html};
use super::line::{contains, lines, parse_line, parse_line_bytes, trim_start};
use super::streams::{inflate_gzip, inflate_zlib_streams, is_zlib_header, UnpackError, Unpacked, GZIP_MAGIC};
use crate::model::{Container, Warning};

/// How far into the file adb's `TRACE:` preamble may end (trace_processor
/// looks 128 bytes far; adb's progress text can be longer).
const MARKER_WINDOW: usize = 4096;

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
    Ok(Unpacked::new(Container::SystraceText, text))
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
    let clean = |r: &Result<(Vec<u8>, Vec<Warning>), UnpackError>| matches!(r, Ok((_, w)) if w.is_empty());
    let mut result =
        if line_end == b"\n" { inflate_any(body, max) } else { inflate_any(&undo_crlf(body, line_end), max) };
    if line_end != b"\n" && !clean(&result) {
        let as_is = inflate_any(body, max);
        if clean(&as_is) {
            result = as_is;
        }
    }
    let (text, warnings) = result?;
    let mut out = Unpacked::new(Container::SystraceCtrace, Cow::Owned(text));
    out.warnings = warnings;
    Ok(out)
}

/// Inflate a zlib or gzip stream, with the warnings about its end.
fn inflate_any(stream: &[u8], max: u64) -> Result<(Vec<u8>, Vec<Warning>), UnpackError> {
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
