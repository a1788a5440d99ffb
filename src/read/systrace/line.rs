//! Ftrace text lines: splitting (`\n`, `\r\n`), the header comments that
//! say whether the kernel ring buffer lost events, and the event line
//! itself, with trace_processor's grammar.

use memchr::{memchr, memmem};

use crate::read::records::{CpuSpan, LostNote};

/// The lines of `text`, split at `\n`, each without a trailing `\r`.
pub fn lines(text: &[u8]) -> Lines<'_> {
    Lines { rest: text }
}

/// Iterator returned by [`lines`].
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.rest.is_empty() {
            return None;
        }
        let (line, rest) = match memchr(b'\n', self.rest) {
            Some(i) => (&self.rest[..i], &self.rest[i + 1..]),
            None => (self.rest, &b""[..]),
        };
        self.rest = rest;
        Some(line.strip_suffix(b"\r").unwrap_or(line))
    }
}

/// What [`scan`] saw besides the events it passed on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanStats {
    pub lines: u64,
    pub events: u64,
    /// Lines that are neither blank, a `#` comment, a lost-events note nor
    /// an event (trace_processor's `systrace_parse_failure`).
    pub unparsed: u64,
    /// The first such line (at most 200 bytes), to quote in a warning.
    pub first_unparsed: Option<String>,
    /// Lines that were not UTF-8, parsed with the bad bytes replaced.
    pub lossy_lines: u64,
    /// `# entries-in-buffer/entries-written: A/B   #P:N`: when B > A the
    /// ring buffer overwrote B - A events.
    pub entries_in_buffer: Option<u64>,
    pub entries_written: Option<u64>,
    pub cpus: Option<u32>,
    /// The `CPU:n [LOST m EVENTS]` notes, each with its CPU's events on
    /// either side where this text has them.
    pub lost: Vec<LostNote>,
    /// CPUs with a `##### CPU n buffer started ####` note: their buffer
    /// wrapped, so their events start later than the others'.
    pub overflowed_cpus: Vec<u32>,
    /// Per CPU (below [`MAX_TRACKED_CPU`]), its first and last event
    /// (`NO_SPAN` before any).
    spans: Vec<(i64, i64)>,
    /// Per CPU, the note in `lost` still waiting for that CPU's next event.
    waiting: Vec<Option<usize>>,
    /// How many notes wait: almost always none, and then an event line
    /// costs no look at `waiting`.
    pending: usize,
}

/// A CPU's span before its first event.
const NO_SPAN: (i64, i64) = (i64::MAX, i64::MIN);

/// CPUs at or past this number (no real device has them; a hostile line
/// can claim any) are not followed for [`ScanStats::cpu_spans`] or the
/// edges of a lost-events note. trace_processor refuses ftrace bundles of
/// such CPUs (`kMaxCpuCount`).
pub const MAX_TRACKED_CPU: u32 = 1024;

/// Parse every event line of `text`, handing each to `on_event`. Lines
/// starting with `#` are header comments (read for [`ScanStats`]), as in
/// trace_processor; a line that is not UTF-8 is parsed with its bad bytes
/// replaced.
pub fn scan(text: &[u8], mut on_event: impl FnMut(&Line<'_>)) -> ScanStats {
    let mut stats = ScanStats::default();
    match std::str::from_utf8(text) {
        // Validating once up front lets every line be borrowed as it is.
        Ok(s) => s.lines().for_each(|line| stats.take(line, &mut on_event)),
        Err(_) => {
            for raw in lines(text) {
                match std::str::from_utf8(raw) {
                    Ok(line) => stats.take(line, &mut on_event),
                    Err(_) => {
                        stats.lossy_lines += 1;
                        let line = String::from_utf8_lossy(raw).into_owned();
                        stats.take(&line, &mut on_event);
                    }
                }
            }
        }
    }
    stats
}

impl ScanStats {
    fn take(&mut self, line: &str, on_event: &mut impl FnMut(&Line<'_>)) {
        self.lines += 1;
        match line.as_bytes().first() {
            None => return,
            Some(b'#') => return self.comment(line),
            Some(_) => {}
        }
        if let Some(l) = parse_line(line) {
            self.events += 1;
            self.see_cpu(l.cpu, l.ts);
            on_event(&l);
        } else if let Some((cpu, events)) = lost_events(line) {
            self.lost_note(cpu, events);
        } else if !line.trim().is_empty() {
            self.unparsed += 1;
            if self.first_unparsed.is_none() {
                let end = (0..=line.len().min(200)).rev().find(|&i| line.is_char_boundary(i)).unwrap_or(0);
                self.first_unparsed = Some(line[..end].to_string());
            }
        }
    }

    /// An event of `cpu` at `ts`: its span grows, and a note waiting for
    /// the CPU's next event has it.
    #[inline]
    fn see_cpu(&mut self, cpu: u32, ts: i64) {
        let c = cpu as usize;
        if c >= self.spans.len() && !self.grow(cpu) {
            return;
        }
        let span = &mut self.spans[c];
        span.0 = span.0.min(ts);
        span.1 = span.1.max(ts);
        if self.pending > 0 {
            if let Some(k) = self.waiting[c].take() {
                self.lost[k].before = Some(ts);
                self.pending -= 1;
            }
        }
    }

    /// Make room for `cpu`'s span; false past [`MAX_TRACKED_CPU`].
    #[cold]
    fn grow(&mut self, cpu: u32) -> bool {
        if cpu >= MAX_TRACKED_CPU {
            return false;
        }
        let n = cpu as usize + 1;
        if self.spans.len() < n {
            self.spans.resize(n, NO_SPAN);
            self.waiting.resize(n, None);
        }
        true
    }

    #[cold]
    #[inline(never)]
    fn lost_note(&mut self, cpu: u32, events: u64) {
        let c = cpu as usize;
        let after = self.spans.get(c).filter(|s| **s != NO_SPAN).map(|&(_, last)| last);
        if !self.grow(cpu) {
            self.lost.push(LostNote { cpu, events, after, before: None });
            return;
        }
        // A second note before the CPU's next event is the same gap.
        if let Some(k) = self.waiting[c] {
            self.lost[k].events = self.lost[k].events.saturating_add(events);
            return;
        }
        self.waiting[c] = Some(self.lost.len());
        self.pending += 1;
        self.lost.push(LostNote { cpu, events, after, before: None });
    }

    /// Each CPU's first and last event in this text, by CPU.
    pub fn cpu_spans(&self) -> Vec<CpuSpan> {
        let spans = self.spans.iter().enumerate().filter(|(_, s)| **s != NO_SPAN);
        spans.map(|(cpu, &(first, last))| CpuSpan { cpu: cpu as u32, first, last }).collect()
    }

    fn comment(&mut self, line: &str) {
        if let Some(rest) = line.strip_prefix("# entries-in-buffer/entries-written:") {
            let mut words = rest.split_whitespace();
            if let Some((a, b)) = words.next().and_then(|w| w.split_once('/')) {
                self.entries_in_buffer = a.parse().ok();
                self.entries_written = b.parse().ok();
            }
            self.cpus = words.find_map(|w| w.strip_prefix("#P:")).and_then(|n| n.parse().ok());
        } else if let Some(cpu) = buffer_started(line) {
            if !self.overflowed_cpus.contains(&cpu) {
                self.overflowed_cpus.push(cpu);
            }
        }
    }
}

/// `##### CPU 2 buffer started ####`
fn buffer_started(line: &str) -> Option<u32> {
    let rest = line.trim_start_matches('#').trim_start().strip_prefix("CPU ")?;
    let (cpu, rest) = rest.split_once(' ')?;
    rest.starts_with("buffer started").then(|| cpu.parse().ok())?
}

/// `CPU:2 [LOST 123 EVENTS]`: (CPU, events).
fn lost_events(line: &str) -> Option<(u32, u64)> {
    let rest = line.strip_prefix("CPU:")?;
    let (cpu, rest) = rest.split_once(" [LOST ")?;
    Some((cpu.parse().ok()?, rest.strip_suffix(" EVENTS]")?.parse().ok()?))
}

// ---------------------------------------------------------------------------
// The event line
// ---------------------------------------------------------------------------

/// One ftrace text event line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// The task name, trimmed (`<idle>`, `<...>` when ftrace did not know it).
    pub comm: &'a str,
    pub tid: i32,
    /// The `(tgid)` column: `None` when absent or `(-----)`.
    pub tgid: Option<i32>,
    pub cpu: u32,
    /// Nanoseconds, from the decimal seconds with exact integer arithmetic.
    pub ts: i64,
    pub event: &'a str,
    /// The rest of the line, trimmed.
    pub args: &'a str,
}

/// Parse `<comm>-<tid> [(<tgid>)] [<cpu>] [<irq flags>] <secs>.<usecs>: <event>: <args>`
/// as trace_processor's systrace_line_tokenizer does. Its pattern is
/// `-(\d+)\s+\(?\s*(\d+|-+)?\)?\s?\[(\d+)\]\s*([a-zA-Z.]{3}[0-9a-f.]{1,2}\s*)?(\d+\.\d+):\s+(\S+):`
/// matched leftmost: the tid follows the first dash from which the rest of
/// the line fits, which for any real comm (spaces and dashes allowed, as in
/// `irq/409-inv_irq-99`) is the last dash of the task field. The event name
/// runs to the last `:` of its word. Differences: the timestamp is exact
/// (trace_processor goes through a double), and a tid past `i32::MAX` is
/// refused (trace_processor allows `u32`; kernels stop at 2^22).
// Inlined into the scan loop on purpose: left to the partitioner, a change
// elsewhere in the crate cost the systrace reader 11% of its instructions.
#[inline]
pub fn parse_line(line: &str) -> Option<Line<'_>> {
    let b = line.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr(b'-', &b[from..]) {
        let dash = from + i;
        if let Some(m) = match_at(b, dash) {
            // The first match decides, as with the regex: a value out of
            // range refuses the line rather than trying a later dash.
            let (start, end) = m.event;
            return Some(Line {
                comm: line[..dash].trim_matches(is_space_char),
                tid: i32::try_from(m.tid).ok()?,
                tgid: m.tgid,
                cpu: u32::try_from(m.cpu).ok()?,
                ts: m.ts?,
                event: &line[start..end],
                args: line[end + 1..].trim_matches(is_space_char),
            });
        }
        from = dash + 1;
    }
    None
}

/// [`parse_line`] on bytes that may not be UTF-8 (used to sniff blocks).
pub(super) fn parse_line_bytes(line: &[u8]) -> Option<Line<'_>> {
    std::str::from_utf8(line).ok().and_then(parse_line)
}

/// The fields of a line the pattern matched at one dash.
struct Match {
    tid: u64,
    tgid: Option<i32>,
    cpu: u64,
    ts: Option<i64>,
    event: (usize, usize),
}

fn match_at(b: &[u8], dash: usize) -> Option<Match> {
    let (tid, p) = digits(b, dash + 1)?;
    let after = skip_spaces(b, p);
    if after == p {
        return None;
    }
    let (tgid, p) = tgid_column(b, after)?;
    let (cpu, p) = cpu_column(b, p)?;
    let (ts, p) = flags_and_timestamp(b, skip_spaces(b, p))?;
    let event = event_name(b, p)?;
    Some(Match { tid, tgid, cpu, ts, event })
}

/// `\(?\s*(\d+|-+)?\)?\s?` up to the `[` of the cpu column.
fn tgid_column(b: &[u8], mut p: usize) -> Option<(Option<i32>, usize)> {
    if b.get(p) == Some(&b'(') {
        p = skip_spaces(b, p + 1);
    }
    let mut tgid = None;
    match b.get(p) {
        Some(c) if c.is_ascii_digit() => {
            let (v, q) = digits(b, p)?;
            // trace_processor ignores a tgid it cannot convert.
            tgid = i32::try_from(v).ok();
            p = q;
        }
        Some(b'-') => p += b[p..].iter().take_while(|&&c| c == b'-').count(),
        _ => {}
    }
    if b.get(p) == Some(&b')') {
        p += 1;
    }
    if b.get(p).is_some_and(|&c| is_space(c)) {
        p += 1;
    }
    (b.get(p) == Some(&b'[')).then_some((tgid, p))
}

/// `\[(\d+)\]`
fn cpu_column(b: &[u8], p: usize) -> Option<(u64, usize)> {
    if b.get(p) != Some(&b'[') {
        return None;
    }
    let (cpu, q) = digits(b, p + 1)?;
    (b.get(q) == Some(&b']')).then_some((cpu, q + 1))
}

/// `([a-zA-Z.]{3}[0-9a-f.]{1,2}\s*)?(\d+\.\d+):`. The flags may be glued to
/// the timestamp (`....316.196720`); a fifth flag character is taken only
/// when the timestamp cannot start right after the fourth.
fn flags_and_timestamp(b: &[u8], p: usize) -> Option<(Option<i64>, usize)> {
    if b.get(p)?.is_ascii_digit() {
        return timestamp(b, p);
    }
    let is_head = |c: &u8| c.is_ascii_alphabetic() || *c == b'.';
    let is_tail = |c: &u8| c.is_ascii_digit() || (b'a'..=b'f').contains(c) || *c == b'.';
    let flags = b.get(p..p + 4)?;
    if !(flags[..3].iter().all(is_head) && is_tail(&flags[3])) {
        return None;
    }
    let q = p + 4;
    if let Some(found) = timestamp(b, skip_spaces(b, q)) {
        return Some(found);
    }
    if b.get(q).is_some_and(is_tail) {
        return timestamp(b, skip_spaces(b, q + 1));
    }
    None
}

/// `(\d+\.\d+):` as exact nanoseconds (`None` inside when out of range);
/// digits past the ninth decimal are dropped.
fn timestamp(b: &[u8], p: usize) -> Option<(Option<i64>, usize)> {
    let (secs, q) = digits(b, p)?;
    if b.get(q) != Some(&b'.') {
        return None;
    }
    let frac_start = q + 1;
    let frac_len = b[frac_start..].iter().take_while(|c| c.is_ascii_digit()).count();
    let end = frac_start + frac_len;
    if frac_len == 0 || b.get(end) != Some(&b':') {
        return None;
    }
    let mut nanos: i64 = 0;
    for i in 0..9 {
        let digit = if i < frac_len { i64::from(b[frac_start + i] - b'0') } else { 0 };
        nanos = nanos * 10 + digit;
    }
    let ts = i64::try_from(secs).ok().and_then(|s| s.checked_mul(1_000_000_000)).and_then(|s| s.checked_add(nanos));
    Some((ts, end + 1))
}

/// `\s+(\S+):` — the event name runs to the last `:` of its word.
fn event_name(b: &[u8], p: usize) -> Option<(usize, usize)> {
    let start = skip_spaces(b, p);
    if start == p {
        return None;
    }
    let len = b[start..].iter().take_while(|&&c| !is_space(c)).count();
    if len < 2 {
        return None;
    }
    let colon = memchr::memrchr(b':', &b[start + 1..start + len])?;
    Some((start, start + 1 + colon))
}

/// One or more decimal digits at `p`, saturating, and the index after them.
fn digits(b: &[u8], p: usize) -> Option<(u64, usize)> {
    let len = b.get(p..)?.iter().take_while(|c| c.is_ascii_digit()).count();
    if len == 0 {
        return None;
    }
    let value = b[p..p + len].iter().fold(0u64, |v, &c| v.saturating_mul(10).saturating_add(u64::from(c - b'0')));
    Some((value, p + len))
}

fn skip_spaces(b: &[u8], p: usize) -> usize {
    p + b.get(p..).map_or(0, |r| r.iter().take_while(|&&c| is_space(c)).count())
}

/// C's `isspace`, which the tokenizer's `\s` and trimming use.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn is_space_char(c: char) -> bool {
    c.is_ascii() && is_space(c as u8)
}

pub(super) fn trim_start(b: &[u8]) -> &[u8] {
    let n = b.iter().take_while(|&&c| is_space(c)).count();
    &b[n..]
}

pub(super) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    memmem::find(haystack, needle).is_some()
}
