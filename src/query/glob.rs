//! PerfettoSQL's (SQLite's) `GLOB` for Polars SQL, which has none: `x GLOB
//! 'pattern'` becomes `x REGEXP '^…$'` with the pattern's meaning kept
//! (case-sensitive; `*` any text, `?` one character, `[…]` one of a set,
//! `[^…]` one not in it, `a-z` a range in a set; every other character
//! itself), and `NOT GLOB` becomes `NOT REGEXP`.

use super::lex::{pieces, Piece};
use super::QueryError;

/// `sql` with each `GLOB '<pattern>'` as `REGEXP '<regex>'`; an error when a
/// GLOB's pattern is not a quoted text or has an unclosed `[`.
pub fn to_regexp(sql: &str) -> Result<String, QueryError> {
    let pieces = pieces(sql);
    let mut out = String::with_capacity(sql.len());
    let mut k = 0;
    while k < pieces.len() {
        let (kind, text) = pieces[k];
        k += 1;
        if kind != Piece::Code {
            out.push_str(text);
            continue;
        }
        let mut rest = text;
        while let Some(at) = find_glob(rest) {
            out.push_str(&rest[..at]);
            rest = &rest[at + 4..];
            // The pattern: a quoted text right after GLOB (only spaces between).
            let pattern = match pieces.get(k) {
                Some((Piece::Quoted, q)) if rest.trim().is_empty() && q.starts_with('\'') => *q,
                _ => return Err(not_literal()),
            };
            // SQLite doubles a quote inside text: 'it''s' is two pieces here.
            let mut literal = pattern[1..pattern.len().saturating_sub(1)].to_string();
            k += 1;
            while let Some((Piece::Quoted, q)) =
                pieces.get(k).filter(|(_, q)| q.starts_with('\'') && pattern.ends_with('\''))
            {
                literal.push('\'');
                literal.push_str(&q[1..q.len().saturating_sub(1)]);
                k += 1;
            }
            out.push_str("REGEXP");
            out.push_str(&rest[..rest.len() - rest.trim_start().len()]);
            out.push('\'');
            out.push_str(&regex_of(&literal)?.replace('\'', "''"));
            out.push('\'');
            rest = "";
        }
        out.push_str(rest);
    }
    Ok(out)
}

fn not_literal() -> QueryError {
    QueryError::Sql(
        "GLOB takes a quoted pattern in fpsan query (name GLOB 'DrawFrame*'); to match against a column, \
         use REGEXP with a regular expression"
            .to_string(),
    )
}

/// The byte offset of the first word `GLOB` (any case) in code text.
fn find_glob(code: &str) -> Option<usize> {
    let b = code.as_bytes();
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    (0..b.len().saturating_sub(3)).find(|&i| {
        b[i..i + 4].eq_ignore_ascii_case(b"glob")
            && (i == 0 || !is_word(b[i - 1]))
            && b.get(i + 4).is_none_or(|&c| !is_word(c))
    })
}

/// The regular expression that matches what SQLite's GLOB `pattern` matches.
pub fn regex_of(pattern: &str) -> Result<String, QueryError> {
    let mut re = String::from("(?s)^");
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            '[' => {
                // A set: `]` first is itself; `-` between two characters is a range.
                let mut set: Vec<char> = Vec::new();
                let negated = chars.next_if_eq(&'^').is_some();
                if let Some(c) = chars.next_if_eq(&']') {
                    set.push(c);
                }
                loop {
                    match chars.next() {
                        Some(']') => break,
                        Some(c) => set.push(c),
                        None => {
                            return Err(QueryError::Sql(format!(
                                "GLOB pattern '{pattern}': a '[' is not closed by ']'"
                            )))
                        }
                    }
                }
                re.push_str(if negated { "[^" } else { "[" });
                for (i, &c) in set.iter().enumerate() {
                    if c == '-' && i > 0 && i + 1 < set.len() {
                        re.push('-');
                    } else {
                        push_literal(&mut re, c);
                    }
                }
                re.push(']');
            }
            c => push_literal(&mut re, c),
        }
    }
    re.push('$');
    Ok(re)
}

/// `c` as itself in a regular expression, inside a set too (the characters
/// the regex crate's own `escape` escapes).
fn push_literal(re: &mut String, c: char) {
    if r"\.+*?()|[]{}^$#&-~".contains(c) {
        re.push('\\');
    }
    re.push(c);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_patterns_become_anchored_regexes() {
        assert_eq!(regex_of("DrawFrame*").unwrap(), r"(?s)^DrawFrame.*$");
        assert_eq!(regex_of("a?c").unwrap(), r"(?s)^a.c$");
        assert_eq!(regex_of("[a-c]x").unwrap(), r"(?s)^[a-c]x$");
        assert_eq!(regex_of("[^0-9]").unwrap(), r"(?s)^[^0-9]$");
        assert_eq!(regex_of("[]-]").unwrap(), r"(?s)^[\]\-]$");
        assert_eq!(regex_of("a.b+c(1)").unwrap(), r"(?s)^a\.b\+c\(1\)$");
        assert_eq!(
            regex_of("x[ab").unwrap_err().to_string(),
            "SQL error: GLOB pattern 'x[ab': a '[' is not closed by ']'"
        );
    }

    #[test]
    fn glob_is_rewritten_in_code_only() {
        assert_eq!(
            to_regexp("SELECT name FROM slice WHERE name GLOB 'Draw*' AND name NOT glob '*[0-9]'").unwrap(),
            r"SELECT name FROM slice WHERE name REGEXP '(?s)^Draw.*$' AND name NOT REGEXP '(?s)^.*[0-9]$'"
        );
        // Quoted text, comments and words containing glob stay; a quote inside the pattern is doubled again.
        assert_eq!(
            to_regexp("SELECT 'GLOB', globs -- GLOB\n FROM t WHERE n GLOB 'it''s*'").unwrap(),
            "SELECT 'GLOB', globs -- GLOB\n FROM t WHERE n REGEXP '(?s)^it''s.*$'"
        );
        assert_eq!(
            to_regexp("SELECT * FROM t WHERE a GLOB b").unwrap_err().to_string(),
            "SQL error: GLOB takes a quoted pattern in fpsan query (name GLOB 'DrawFrame*'); to match against a \
             column, use REGEXP with a regular expression"
        );
    }
}
