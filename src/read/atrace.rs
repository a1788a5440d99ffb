//! The atrace line parser (`B|tgid|name`, `E|tgid`, `C|tgid|name|value`,
//! `S`/`F` async, `I`, `N`, `G`/`H`), with trace_processor's semantics
//! (its `ParseSystraceTracePoint` is the reference): trailing `\n`/`\0`
//! stripped, numbers parsed like C's `strtol` (leading blanks and a sign
//! allowed, the whole field must be consumed), an empty `B` name becomes
//! `[empty slice name]`, anything else malformed is a failure to count.

/// One parsed atrace point. Names borrow from the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AtracePoint<'a> {
    /// Begin a slice on the writing thread.
    Begin { tgid: u32, name: &'a str },
    /// End the writing thread's innermost slice (`tgid` 0 when absent).
    End { tgid: u32 },
    /// Process-scoped counter sample.
    Counter { tgid: u32, name: &'a str, value: i64 },
    /// Async slice begin (`S`) on the process track named `name`.
    AsyncBegin { tgid: u32, name: &'a str, cookie: i64 },
    /// Async slice end (`F`).
    AsyncEnd { tgid: u32, name: &'a str, cookie: i64 },
    /// Zero-duration slice on the writing thread (`I`).
    Instant { tgid: u32, name: &'a str },
    /// Zero-duration slice on a named process track (`N`).
    TrackInstant { tgid: u32, track: &'a str, name: &'a str },
    /// Async slice begin on a named process track (`G`).
    TrackBegin { tgid: u32, track: &'a str, name: &'a str, cookie: i64 },
    /// Async slice end on a named process track (`H`).
    TrackEnd { tgid: u32, track: &'a str, cookie: i64 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseOutcome<'a> {
    Point(AtracePoint<'a>),
    /// Well-formed but not a slice or counter (`trace_event_clock_sync:`).
    Ignored,
    /// Malformed: counted in the `atrace_malformed` statistic.
    Malformed,
}

/// Parse one print buffer (already valid UTF-8; see `wire::lossy`).
pub fn parse(line: &str) -> ParseOutcome<'_> {
    let s = line.trim_end_matches(['\n', '\0']);
    let mut fields = Fields { rest: Some(s) };
    let phase = fields.next_field();
    let Some(phase_char) = phase.chars().next() else { return ParseOutcome::Malformed };
    let tgid_field = fields.next_field();
    let tgid = parse_c_u32(tgid_field);
    let has_tgid = tgid.is_some();
    let tgid = tgid.unwrap_or(0);
    use AtracePoint::*;
    let point = match phase_char {
        'B' => {
            if !has_tgid {
                return ParseOutcome::Malformed;
            }
            // The name is everything after the second '|', pipes included.
            let name = fields.rest.unwrap_or("");
            Begin { tgid, name: if name.is_empty() { "[empty slice name]" } else { name } }
        }
        // Flutter writes a bare "E": end events are thread-scoped anyway.
        'E' => End { tgid },
        'S' | 'F' => {
            let name = fields.next_field();
            let cookie_field = fields.next_field();
            let cookie = parse_c_i64(cookie_field);
            match (has_tgid, name.is_empty(), cookie) {
                (true, false, Some(cookie)) if phase_char == 'S' => AsyncBegin { tgid, name, cookie },
                (true, false, Some(cookie)) => AsyncEnd { tgid, name, cookie },
                _ => return ParseOutcome::Malformed,
            }
        }
        'I' => {
            let name = fields.next_field();
            if !has_tgid || name.is_empty() {
                return ParseOutcome::Malformed;
            }
            Instant { tgid, name }
        }
        'N' => {
            let track = fields.next_field();
            let name = fields.next_field();
            if !has_tgid || track.is_empty() || name.is_empty() {
                return ParseOutcome::Malformed;
            }
            TrackInstant { tgid, track, name }
        }
        'C' => {
            let name = fields.next_field();
            let value_field = fields.next_field();
            match (has_tgid, name.is_empty(), parse_c_i64(value_field)) {
                (true, false, Some(value)) => Counter { tgid, name, value },
                _ => return ParseOutcome::Malformed,
            }
        }
        'G' => {
            let track = fields.next_field();
            let name = fields.next_field();
            let cookie = parse_c_i64(fields.next_field());
            match (has_tgid, track.is_empty(), name.is_empty(), cookie) {
                (true, false, false, Some(cookie)) => TrackBegin { tgid, track, name, cookie },
                _ => return ParseOutcome::Malformed,
            }
        }
        'H' => {
            // "H|tgid|track|cookie" or the older "H|tgid|track|name|cookie".
            let track = fields.next_field();
            let f3 = fields.next_field();
            let f4 = fields.next_field();
            let cookie = parse_c_i64(if f4.is_empty() { f3 } else { f4 });
            match (has_tgid, track.is_empty(), cookie) {
                (true, false, Some(cookie)) => TrackEnd { tgid, track, cookie },
                _ => return ParseOutcome::Malformed,
            }
        }
        _ if s.starts_with("trace_event_clock_sync:") => return ParseOutcome::Ignored,
        _ => return ParseOutcome::Malformed,
    };
    ParseOutcome::Point(point)
}

/// Splits on '|' like trace_processor's `read_next_field`: a field ends at
/// '|', '\0' or the end; past the end every field is empty.
struct Fields<'a> {
    rest: Option<&'a str>,
}

impl<'a> Fields<'a> {
    fn next_field(&mut self) -> &'a str {
        let Some(rest) = self.rest else { return "" };
        match rest.find(['|', '\0']) {
            Some(i) => {
                self.rest = Some(&rest[i + 1..]);
                &rest[..i]
            }
            None => {
                self.rest = None;
                rest
            }
        }
    }
}

/// C `strtoll(s, &end, 10)` accepted only when it consumed the whole,
/// non-empty field; out-of-range values clamp like strtoll does.
pub fn parse_c_i64(s: &str) -> Option<i64> {
    let (negative, digits) = c_number_parts(s)?;
    let mut v: i128 = 0;
    for b in digits.bytes() {
        v = (v * 10 + (b - b'0') as i128).min(i64::MAX as i128 + 1);
    }
    let v = if negative { -v } else { v };
    Some(v.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
}

/// C `strtoul` then a cast to 32 bits, as trace_processor's StringToUInt32.
pub fn parse_c_u32(s: &str) -> Option<u32> {
    let (negative, digits) = c_number_parts(s)?;
    let mut v: u128 = 0;
    for b in digits.bytes() {
        v = (v * 10 + (b - b'0') as u128).min(u64::MAX as u128 + 1);
    }
    // strtoul saturates at ULONG_MAX, and negates in unsigned arithmetic.
    let v = v.min(u64::MAX as u128) as u64;
    let v = if negative { v.wrapping_neg() } else { v };
    Some(v as u32)
}

/// Leading blanks, an optional sign, then only decimal digits.
fn c_number_parts(s: &str) -> Option<(bool, &str)> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((negative, digits))
}

#[cfg(test)]
mod tests {
    use super::AtracePoint::*;
    use super::*;

    fn point(s: &str) -> AtracePoint<'_> {
        match parse(s) {
            ParseOutcome::Point(p) => p,
            other => panic!("{s:?} gave {other:?}"),
        }
    }

    #[test]
    fn the_formats_trace_processor_documents() {
        assert_eq!(point("B|1636|pokeUserActivity"), Begin { tgid: 1636, name: "pokeUserActivity" });
        assert_eq!(point("E|1636"), End { tgid: 1636 });
        assert_eq!(point("C|1636|wq:monitor|0"), Counter { tgid: 1636, name: "wq:monitor", value: 0 });
        assert_eq!(point("S|1636|frame_capture|123"), AsyncBegin { tgid: 1636, name: "frame_capture", cookie: 123 });
        assert_eq!(point("F|1636|frame_capture|456"), AsyncEnd { tgid: 1636, name: "frame_capture", cookie: 456 });
        assert_eq!(
            point("C|3209|TransfersBytesPendingOnDisk-value|0|Blob"),
            Counter { tgid: 3209, name: "TransfersBytesPendingOnDisk-value", value: 0 }
        );
        assert_eq!(point("I|4820|instant"), Instant { tgid: 4820, name: "instant" });
        assert_eq!(
            point("N|1938|track_name|instant_name"),
            TrackInstant { tgid: 1938, track: "track_name", name: "instant_name" }
        );
        assert_eq!(
            point("G|1339|track_name|slice_name|789"),
            TrackBegin { tgid: 1339, track: "track_name", name: "slice_name", cookie: 789 }
        );
        assert_eq!(
            point("H|6890|track_name|slice_name|135"),
            TrackEnd { tgid: 6890, track: "track_name", cookie: 135 }
        );
        assert_eq!(point("H|6890|track_name|135"), TrackEnd { tgid: 6890, track: "track_name", cookie: 135 });
    }

    #[test]
    fn trailing_newlines_and_nuls_are_stripped() {
        assert_eq!(point("B|1|Choreographer#doFrame 42\n"), Begin { tgid: 1, name: "Choreographer#doFrame 42" });
        assert_eq!(point("E|1\n\0\n"), End { tgid: 1 });
    }

    #[test]
    fn begin_names_keep_their_pipes_and_may_be_empty() {
        assert_eq!(point("B|7|a|b|c"), Begin { tgid: 7, name: "a|b|c" });
        assert_eq!(point("B|7|"), Begin { tgid: 7, name: "[empty slice name]" });
        assert_eq!(point("B|7"), Begin { tgid: 7, name: "[empty slice name]" });
    }

    #[test]
    fn end_without_tgid_is_allowed() {
        assert_eq!(point("E"), End { tgid: 0 });
        assert_eq!(point("E|"), End { tgid: 0 });
        assert_eq!(point("E|x"), End { tgid: 0 });
    }

    #[test]
    fn malformed_lines() {
        for bad in [
            "",
            "B",
            "B|x|name",
            "C|1|name",
            "C|1|name|x",
            "C|1||5",
            "S|1|name",
            "S|1|name|",
            "I|1|",
            "N|1|t|",
            "G|1|t|n|",
            "H|1|t|x",
            "T|1|name|1",
            "U|1|name|1",
            "random text",
            "|1|x",
        ] {
            assert_eq!(parse(bad), ParseOutcome::Malformed, "{bad:?}");
        }
        assert_eq!(parse("trace_event_clock_sync: parent_ts=1.0"), ParseOutcome::Ignored);
    }

    #[test]
    fn c_style_numbers() {
        assert_eq!(parse_c_i64(" 42"), Some(42));
        assert_eq!(parse_c_i64("-7"), Some(-7));
        assert_eq!(parse_c_i64("+7"), Some(7));
        assert_eq!(parse_c_i64("7 "), None);
        assert_eq!(parse_c_i64("0x10"), None);
        assert_eq!(parse_c_i64("99999999999999999999"), Some(i64::MAX));
        assert_eq!(parse_c_i64("-99999999999999999999"), Some(i64::MIN));
        assert_eq!(parse_c_u32("4294967297"), Some(1));
        assert_eq!(parse_c_u32("-1"), Some(u32::MAX));
        assert_eq!(parse_c_u32(""), None);
    }
}
