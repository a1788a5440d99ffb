//! SQLite's and PerfettoSQL's text functions as trace_processor's standard
//! library applies them to slice names, so that fpsan reads a name exactly
//! as a module does: `CAST(text AS INT)` (its `cast_int!`) and `STR_SPLIT`.

/// SQLite's `CAST(text AS INTEGER)`: optional leading spaces and sign, then
/// the longest digit prefix, saturated to i64; no digits gives 0.
pub fn cast_int(s: &str) -> i64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0c']);
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for d in digits.bytes().take_while(u8::is_ascii_digit) {
        let d = i64::from(d - b'0');
        v = v.saturating_mul(10).saturating_add(if negative { -d } else { d });
    }
    v
}

/// PerfettoSQL's `STR_SPLIT(text, delimiter, index)`: the index-th part of
/// `text` split at every `delimiter`; NULL past the last part.
pub fn str_split<'t>(text: &'t str, delimiter: &str, index: usize) -> Option<&'t str> {
    text.split(delimiter).nth(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_cast_to_int_as_sqlite_casts_it() {
        assert_eq!(cast_int("123"), 123);
        assert_eq!(cast_int("  -42abc"), -42);
        assert_eq!(cast_int("  42abc"), 42);
        assert_eq!(cast_int("12.7"), 12);
        assert_eq!(cast_int("-7"), -7);
        assert_eq!(cast_int("-"), 0);
        assert_eq!(cast_int(""), 0);
        assert_eq!(cast_int("x1"), 0);
        assert_eq!(cast_int("99999999999999999999"), i64::MAX);
        assert_eq!(cast_int("-99999999999999999999"), i64::MIN);
    }

    #[test]
    fn text_is_split_as_str_split_splits_it() {
        assert_eq!(str_split("Choreographer#doFrame 12 x", " ", 1), Some("12"));
        assert_eq!(str_split("DrawFrame", " ", 1), None);
        assert_eq!(str_split("a  b", " ", 1), Some(""));
        assert_eq!(str_split("notifyMotion(id=0x1, eventTime=5)", "eventTime=", 1), Some("5)"));
        assert_eq!(str_split("", "=", 0), Some(""));
    }
}
