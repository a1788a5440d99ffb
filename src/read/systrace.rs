//! Legacy systrace / ftrace text (`.txt`, `.ctrace` inflated, or the text
//! inside a systrace `.html`): `tracing_mark_write` / `print` lines become
//! the same atrace records as the protobuf path.
//!
//! Line shape: `<comm>-<tid> [(<tgid>)] [<cpu>] [<irq flags>]<secs>.<usecs>: <event>: <args>`
//! (flags may be glued to the timestamp; trace_processor's tokenizer accepts both).

use super::decode::Ctx;
use super::ftrace;
use super::records::Batch;

pub fn looks_like_systrace(data: &[u8]) -> bool {
    let head = &data[..data.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start();
    t.starts_with("# tracer")
        || t.starts_with("TRACE:")
        || t.starts_with("<!DOCTYPE html")
        || t.starts_with("<html")
        || t.starts_with("cpus=")
        || t.lines().take(20).any(|l| parse_line(l).is_some())
}

/// One parsed event line.
#[derive(Debug, PartialEq, Eq)]
pub struct Line<'a> {
    pub tid: i32,
    pub ts: i64,
    pub event: &'a str,
    pub args: &'a str,
}

pub fn parse_line(line: &str) -> Option<Line<'_>> {
    // The CPU column: "[ddd]".
    let open = line.find('[')?;
    let close = open + line[open..].find(']')?;
    let cpu = &line[open + 1..close];
    if cpu.is_empty() || !cpu.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut task = line[..open].trim_end();
    if task.ends_with(')') {
        task = task[..task.rfind('(')?].trim_end();
    }
    let dash = task.rfind('-')?;
    let tid: i32 = task[dash + 1..].parse().ok()?;
    let rest = &line[close + 1..];
    let colon = rest.find(": ")?;
    let ts_token = rest[..colon].split_whitespace().last()?;
    let ts = parse_seconds(trailing_timestamp(ts_token)?)?;
    let after = &rest[colon + 2..];
    let (event, args) = match after.find(": ") {
        Some(i) => (&after[..i], &after[i + 2..]),
        None => (after.trim_end_matches(':'), ""),
    };
    Some(Line { tid, ts, event: event.trim(), args })
}

/// The `\d+\.\d+` at the end of a token whose irq flags may be glued on.
fn trailing_timestamp(tok: &str) -> Option<&str> {
    let b = tok.as_bytes();
    let mut i = b.len();
    while i > 0 && b[i - 1].is_ascii_digit() {
        i -= 1;
    }
    if i == b.len() || i == 0 || b[i - 1] != b'.' {
        return None;
    }
    let frac_start = i;
    i -= 1;
    let int_end = i;
    while i > 0 && b[i - 1].is_ascii_digit() {
        i -= 1;
    }
    (i < int_end && frac_start < b.len()).then(|| &tok[i..])
}

/// "10852.771242" seconds → ns, exactly (no float rounding).
fn parse_seconds(s: &str) -> Option<i64> {
    let (int, frac) = s.split_once('.')?;
    let secs: i64 = int.parse().ok()?;
    let mut frac_ns: i64 = 0;
    let mut digits = 0;
    for b in frac.bytes().take(9) {
        frac_ns = frac_ns * 10 + (b - b'0') as i64;
        digits += 1;
    }
    for _ in digits..9 {
        frac_ns *= 10;
    }
    secs.checked_mul(1_000_000_000)?.checked_add(frac_ns)
}

/// Decode the whole text into one batch.
pub fn decode(data: &[u8]) -> Batch {
    let text = String::from_utf8_lossy(data);
    let mut ctx = Ctx::new(0);
    for line in text.lines() {
        let Some(l) = parse_line(line) else { continue };
        ctx.batch.ftrace_events += 1;
        ctx.batch.see_ts(l.ts);
        if l.event == "tracing_mark_write" || l.event == "print" || l.event == "0" {
            // print lines in raw ftrace look like "print: tracing_mark_write: B|..."
            let args = l.args.strip_prefix("tracing_mark_write: ").unwrap_or(l.args);
            ftrace::print(&mut ctx, l.ts, l.tid, args);
        }
    }
    ctx.batch.packets = 0;
    ctx.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_variants_trace_processor_accepts() {
        let l = parse_line("  surfaceflinger-598   (  598) [004] .... 10852.771242: tracing_mark_write: B|598|some event").unwrap();
        assert_eq!(l, Line { tid: 598, ts: 10_852_771_242_000, event: "tracing_mark_write", args: "B|598|some event" });
        let glued = parse_line("kworker/u16:1-77    (   77) [004] ....316.196720: tracing_mark_write: B|77|x").unwrap();
        assert_eq!((glued.tid, glued.ts), (77, 316_196_720_000));
        let hex = parse_line("chrome-10830 ( 10830) [000] dNsa. 4213.033572: tracing_mark_write: E|10830").unwrap();
        assert_eq!((hex.tid, hex.ts), (10830, 4_213_033_572_000));
        let dashed = parse_line("task-1234-567    ( 567) [000] ....   100.001000: tracing_mark_write: E|567").unwrap();
        assert_eq!(dashed.tid, 567);
        let idle = parse_line("<idle>-0     [000]  0.002188: tracing_mark_write: E|77").unwrap();
        assert_eq!((idle.tid, idle.ts), (0, 2_188_000));
        assert_eq!(parse_line("cpus=8"), None);
        assert_eq!(parse_line("some = 000, other = 0x4"), None);
    }
}
