//! Systrace HTML reports: catapult's `<script class="trace-data">` blocks
//! (ftrace text, the `PROCESS DUMP`, the JSON block read for what it says
//! about the capture (`metadata`), and the blocks of other agents, which
//! are named and skipped), trace2html's base64 + gzip `viewer-data` blocks,
//! and the 2012-era inline `var linuxPerfData` string.

use std::borrow::Cow;

use base64::Engine as _;
use memchr::{memchr, memmem};

use super::dump::{parse_process_dump, ProcessDump};
use super::line::{contains, lines, parse_line_bytes, trim_start};
use super::metadata;
use super::streams::{inflate_gzip, UnpackError, Unpacked, GZIP_MAGIC};
use crate::model::{CaptureInfo, Container, Warning, WarningCode};

/// catapult writes the viewer's own scripts first and the data after this.
const BEGIN_TRACE: &[u8] = b"<!-- BEGIN TRACE -->";
const SCRIPT_CLOSE: &[u8] = b"</script>";
/// The 2012-era report keeps the trace in a JavaScript string.
const LEGACY_VAR: &[u8] = b"var linuxPerfData = \"\\";
/// A `<script ...>` tag longer than this is not one of ours.
const MAX_TAG: usize = 512;
/// Lines read to tell what a block holds.
const PROBE_LINES: usize = 64;

/// One `<script>` element of an HTML report.
struct Script<'a> {
    tag: &'a [u8],
    body: &'a [u8],
    end: usize,
    closed: bool,
}

pub(super) fn unpack_html(data: &[u8], max: u64) -> Result<Unpacked<'_>, UnpackError> {
    let open = memmem::Finder::new(b"<script");
    let mut parts = HtmlParts::new(max);
    let mut pos = memmem::find(data, BEGIN_TRACE).unwrap_or(0);
    while let Some(found) = open.find(&data[pos..]) {
        let start = pos + found;
        let Some(script) = script_at(data, start) else {
            pos = start + 1;
            continue;
        };
        parts.take(script.tag, script.body)?;
        if !script.closed {
            parts.warnings.push(Warning::new(
                WarningCode::HtmlScriptCut,
                "the last <script> block has no </script> (file cut?); read it to the end",
            ));
        }
        pos = script.end;
    }
    parts.finish()
}

/// The `<script>` element starting at `start`: its tag, and its body from
/// the line after the tag up to `</script>` (or the end of a cut file).
fn script_at(data: &[u8], start: usize) -> Option<Script<'_>> {
    let window = &data[start..data.len().min(start + MAX_TAG)];
    let gt = start + memchr(b'>', window)?;
    let mut body_start = gt + 1;
    let blank = data[body_start..].iter().take_while(|&&c| c == b' ' || c == b'\t' || c == b'\r').count();
    if data.get(body_start + blank) == Some(&b'\n') {
        body_start += blank + 1;
    }
    let rest = &data[body_start..];
    let (body, end, closed) = match memmem::find(rest, SCRIPT_CLOSE) {
        Some(n) => (&rest[..n], body_start + n + SCRIPT_CLOSE.len(), true),
        None => (rest, data.len(), false),
    };
    // catapult indents `</script>`: that indent is not a line of the block.
    let indent = body.iter().rev().take_while(|&&c| c == b' ' || c == b'\t').count();
    Some(Script { tag: &data[start..=gt], body: &body[..body.len() - indent], end, closed })
}

/// What the blocks of an HTML report held, gathered in file order.
struct HtmlParts<'a> {
    ftrace: Vec<Cow<'a, [u8]>>,
    dump: ProcessDump,
    /// What the JSON blocks say about the capture.
    capture: CaptureInfo,
    /// Blocks read for the capture's metadata, named for the error of a
    /// report without ftrace text.
    metadata_blocks: Vec<String>,
    skipped: Vec<String>,
    warnings: Vec<Warning>,
    /// What inflating `viewer-data` blocks may still produce.
    budget: u64,
    limit: u64,
    blocks: usize,
}

/// What one block of trace data is.
#[derive(Debug, PartialEq, Eq)]
enum BlockKind {
    Ftrace,
    ProcessDump,
    /// JSON: the systrace controller's or Chrome's events and metadata.
    Json,
    Other(String),
}

impl<'a> HtmlParts<'a> {
    fn new(limit: u64) -> Self {
        HtmlParts {
            ftrace: Vec::new(),
            dump: ProcessDump::default(),
            capture: CaptureInfo::default(),
            metadata_blocks: Vec::new(),
            skipped: Vec::new(),
            warnings: Vec::new(),
            budget: limit,
            limit,
            blocks: 0,
        }
    }

    fn take(&mut self, tag: &[u8], body: &'a [u8]) -> Result<(), UnpackError> {
        if contains(tag, b"class=\"trace-data\"") {
            self.blocks += 1;
            self.add(Cow::Borrowed(body));
        } else if contains(tag, b"id=\"viewer-data\"") {
            self.blocks += 1;
            if let Some(decoded) = self.viewer_data(body)? {
                self.add(Cow::Owned(decoded));
            }
        } else if contains(&body[..body.len().min(1024)], LEGACY_VAR) {
            self.blocks += 1;
            self.ftrace.push(Cow::Owned(unescape_js_lines(body)));
        }
        Ok(())
    }

    /// trace2html stores each part base64-encoded, usually gzipped.
    fn viewer_data(&mut self, body: &[u8]) -> Result<Option<Vec<u8>>, UnpackError> {
        let Some(raw) = decode_base64(body) else {
            self.skip("a viewer-data block that is not base64", body.len());
            return Ok(None);
        };
        if !raw.starts_with(&GZIP_MAGIC) {
            return Ok(Some(raw));
        }
        // The budget is what is left of the caller's limit; report the limit.
        let text = match inflate_gzip(&raw, self.budget, &mut self.warnings) {
            Err(UnpackError::TooLarge { .. }) => return Err(UnpackError::TooLarge { limit: self.limit }),
            other => other?,
        };
        self.budget = self.budget.saturating_sub(text.len() as u64);
        Ok(Some(text))
    }

    fn add(&mut self, block: Cow<'a, [u8]>) {
        match classify_block(&block) {
            BlockKind::Ftrace => self.ftrace.push(block),
            BlockKind::ProcessDump => {
                let dump = parse_process_dump(&String::from_utf8_lossy(&block));
                self.dump.entries.extend(dump.entries);
                self.dump.junk_lines += dump.junk_lines;
            }
            BlockKind::Json => {
                self.capture.fill_from(metadata::read(&block));
                self.metadata_blocks.push(format!("block {}: JSON ({} bytes)", self.blocks, block.len()));
            }
            BlockKind::Other(what) => self.skip(&what, block.len()),
        }
    }

    fn skip(&mut self, what: &str, len: usize) {
        self.skipped.push(format!("block {}: {what} ({len} bytes)", self.blocks));
    }

    fn finish(mut self) -> Result<Unpacked<'a>, UnpackError> {
        if self.ftrace.is_empty() {
            let mut found = self.metadata_blocks;
            found.extend(self.skipped);
            found.sort_by_key(|b| block_number(b));
            return Err(UnpackError::NoTraceData { found });
        }
        if self.dump.junk_lines > 0 {
            let message = format!("process dump: skipped {} lines that are not ps rows", self.dump.junk_lines);
            self.warnings.push(Warning::new(WarningCode::ProcessDumpLinesSkipped, message));
        }
        let mut out = Unpacked::new(Container::SystraceHtml, join_blocks(self.ftrace));
        out.process_dump = self.dump;
        out.skipped = self.skipped;
        out.capture = self.capture;
        out.warnings = self.warnings;
        Ok(out)
    }
}

/// One block stays borrowed; several are joined, each ending its last line.
fn join_blocks(mut parts: Vec<Cow<'_, [u8]>>) -> Cow<'_, [u8]> {
    if parts.len() == 1 {
        if let Some(only) = parts.pop() {
            return only;
        }
    }
    let mut out = Vec::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
    for part in &parts {
        out.extend_from_slice(part);
        if !out.is_empty() && !out.ends_with(b"\n") {
            out.push(b'\n');
        }
    }
    Cow::Owned(out)
}

/// Tell what a trace-data block holds, from its first lines. catapult's
/// agents each write one block: atrace text (`# tracer: nop`), `PROCESS
/// DUMP`, `# tracer: \nCGROUP DUMP`, WALT's `# clock_type=` text in its own
/// clock, atrace_helper's `ATRACE_PROCESS_DUMP` JSON, Chrome JSON, BattOr.
fn classify_block(block: &[u8]) -> BlockKind {
    let text = trim_start(block);
    let other = |what: &str| BlockKind::Other(what.to_string());
    match text {
        [] => return other("an empty block"),
        [b'{' | b'[', ..] => return BlockKind::Json,
        _ if text.starts_with(b"PROCESS DUMP") => return BlockKind::ProcessDump,
        _ if text.starts_with(b"ATRACE_PROCESS_DUMP") => return other("an atrace_helper memory dump (JSON)"),
        _ if text.starts_with(b"# BattOr") => return other("BattOr power samples"),
        _ => {}
    }
    for line in lines(text).take(PROBE_LINES) {
        let line = trim_start(line);
        if line.starts_with(b"CGROUP DUMP") {
            return other("a cgroup dump");
        }
        if line.starts_with(b"# clock_type=") {
            return other("a WALT latency trace (its own clock)");
        }
        if line.first() == Some(&b'#') && contains(line, b"TASK-PID") {
            return BlockKind::Ftrace;
        }
        if !line.is_empty() && line[0] != b'#' && parse_line_bytes(line).is_some() {
            return BlockKind::Ftrace;
        }
    }
    if text.starts_with(b"# tracer") {
        return BlockKind::Ftrace; // a header with no events: empty, not foreign
    }
    let first = lines(text).next().unwrap_or_default();
    BlockKind::Other(format!("unrecognised text starting {:?}", String::from_utf8_lossy(&first[..first.len().min(40)])))
}

/// `N` of a `block N: …` description.
fn block_number(description: &str) -> usize {
    let digits = description.strip_prefix("block ").unwrap_or("").split(':').next().unwrap_or("");
    digits.parse().unwrap_or(usize::MAX)
}

/// Strip the JavaScript string escapes of the 2012-era report: each line
/// ends with `\n\`, the last with `\n";`. Starts after the `var` line if
/// there is one; stops at the first line that is not part of the string.
pub(super) fn unescape_js_lines(body: &[u8]) -> Vec<u8> {
    let start = match memmem::find(body, LEGACY_VAR) {
        Some(i) => memchr(b'\n', &body[i..]).map_or(body.len(), |n| i + n + 1),
        None => 0,
    };
    let mut out = Vec::with_capacity(body.len() - start);
    for line in lines(&body[start..]) {
        if let Some(l) = line.strip_suffix(b"\\n\\") {
            out.extend_from_slice(l);
            out.push(b'\n');
        } else if let Some(l) = line.strip_suffix(b"\\n\";") {
            out.extend_from_slice(l);
            out.push(b'\n');
            break;
        } else {
            break;
        }
    }
    out
}

/// Standard base64 with line breaks in it (trace2html wraps the text).
fn decode_base64(text: &[u8]) -> Option<Vec<u8>> {
    use base64::engine::{general_purpose::GeneralPurpose, DecodePaddingMode, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let compact: Vec<u8> = text.iter().copied().filter(|c| !c.is_ascii_whitespace()).collect();
    LENIENT.decode(compact).ok()
}
