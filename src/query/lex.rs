//! The pieces of an SQL text: code, quoted text (`'…'`, `"…"`) and comments
//! (`-- …`, `/* … */`), so that rewrites and scans of `fpsan query`'s SQL
//! touch code only. A scan, not a parse.

/// What a piece of SQL text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    Code,
    /// A quoted string or identifier with its quotes (a doubled quote inside
    /// ends one piece and starts the next).
    Quoted,
    Comment,
}

/// `sql` cut into consecutive pieces: (kind, its text).
pub fn pieces(sql: &str) -> Vec<(Piece, &str)> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < b.len() {
        let (kind, end) = if b[i] == b'\'' || b[i] == b'"' {
            (Piece::Quoted, b[i + 1..].iter().position(|&c| c == b[i]).map_or(b.len(), |k| i + k + 2))
        } else if b[i..].starts_with(b"--") {
            (Piece::Comment, b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |k| i + k))
        } else if b[i..].starts_with(b"/*") {
            (Piece::Comment, sql[i + 2..].find("*/").map_or(b.len(), |k| i + k + 4))
        } else {
            i += 1;
            continue;
        };
        if start < i {
            out.push((Piece::Code, &sql[start..i]));
        }
        out.push((kind, &sql[i..end]));
        (start, i) = (end, end);
    }
    if start < b.len() {
        out.push((Piece::Code, &sql[start..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_quotes_and_comments_are_told_apart() {
        let p = pieces("select 'a''b', \"x\" -- c\nfrom /* d */ t");
        assert_eq!(
            p,
            [
                (Piece::Code, "select "),
                (Piece::Quoted, "'a'"),
                (Piece::Quoted, "'b'"),
                (Piece::Code, ", "),
                (Piece::Quoted, "\"x\""),
                (Piece::Code, " "),
                (Piece::Comment, "-- c"),
                (Piece::Code, "\nfrom "),
                (Piece::Comment, "/* d */"),
                (Piece::Code, " t"),
            ]
        );
        // Unclosed quotes and comments run to the end; multi-byte text stays whole.
        assert_eq!(pieces("é 'abc"), [(Piece::Code, "é "), (Piece::Quoted, "'abc")]);
        assert_eq!(pieces("/* x"), [(Piece::Comment, "/* x")]);
        assert!(pieces("").is_empty());
    }
}
