//! Result columns named as trace_processor (SQLite) names them: an
//! expression without an alias by its text as written (`count(*)`,
//! `dur / 1e6`), where Polars would name it `len` or after its first column
//! (and refuse `min(name), max(name)` as two columns named `name`).

use sqlparser::ast::{Expr, SelectItem};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;

use super::lex::{pieces, Piece};

/// `sql` with `AS "<its text>"` after each unaliased expression of its
/// outermost SELECT list that is not a column (an item holding a comment is
/// left as it is).
pub fn aliased(sql: &str) -> String {
    let Some(items) = select_list(sql) else { return sql.to_string() };
    let mut out = String::with_capacity(sql.len() + 32);
    let mut copied = 0;
    for item in items {
        let Name::Written(text) = name_of(item) else { continue };
        if pieces(text).iter().any(|(kind, _)| *kind == Piece::Comment) {
            continue;
        }
        // `text` is a slice of `sql`: where it ends there.
        let end = text.as_ptr() as usize - sql.as_ptr() as usize + text.len();
        out.push_str(&sql[copied..end]);
        out.push_str(&format!(" AS \"{}\"", text.replace('"', "\"\"")));
        copied = end;
    }
    out.push_str(&sql[copied..]);
    out
}

/// What a SELECT item names.
enum Name<'s> {
    /// An unaliased expression other than a column: its text.
    Written(&'s str),
    /// A column, an alias or `*`: Polars names it as SQLite does.
    AsPolars,
}

fn name_of(item: &str) -> Name<'_> {
    let item = item.trim();
    let parsed = Parser::new(&GenericDialect {}).try_with_sql(item).and_then(|mut p| p.parse_select_item());
    match parsed {
        Ok(SelectItem::UnnamedExpr(Expr::Identifier(_) | Expr::CompoundIdentifier(_))) => Name::AsPolars,
        Ok(SelectItem::UnnamedExpr(_)) => Name::Written(item),
        _ => Name::AsPolars,
    }
}

/// The items of the outermost SELECT list of `sql` (after any `WITH …`), as
/// written; None without one.
fn select_list(sql: &str) -> Option<Vec<&str>> {
    const ENDS: [&str; 10] =
        ["from", "where", "group", "having", "window", "order", "limit", "union", "except", "intersect"];
    let mut depth = 0i32;
    let mut items = Vec::new();
    // Where the current item starts, once the SELECT is found.
    let mut start: Option<usize> = None;
    let mut first_word = false;
    let mut offset = 0;
    for (kind, text) in pieces(sql) {
        let at = offset;
        offset += text.len();
        if kind != Piece::Code {
            continue;
        }
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' {
                let end = i + b[i..]
                    .iter()
                    .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'$'))
                    .unwrap_or(b.len() - i);
                let word = text[i..end].to_ascii_lowercase();
                if depth == 0 {
                    let after_select = std::mem::replace(&mut first_word, false);
                    match start {
                        None if word == "select" => (start, first_word) = (Some(at + end), true),
                        Some(_) if after_select && (word == "distinct" || word == "all") => start = Some(at + end),
                        Some(s) if ENDS.contains(&word.as_str()) => {
                            items.push(&sql[s..at + i]);
                            return Some(items);
                        }
                        _ => {}
                    }
                }
                i = end;
                continue;
            }
            match (c, start) {
                (b'(', _) => depth += 1,
                (b')', _) => depth -= 1,
                (b',', Some(s)) if depth == 0 => {
                    items.push(&sql[s..at + i]);
                    start = Some(at + i + 1);
                }
                (b';', Some(s)) if depth == 0 => {
                    items.push(&sql[s..at + i]);
                    return Some(items);
                }
                _ => {}
            }
            if !c.is_ascii_whitespace() {
                first_word = false;
            }
            i += 1;
        }
    }
    items.push(&sql[start?..]);
    Some(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outer_select_list_is_found() {
        assert_eq!(
            select_list("WITH a AS (SELECT x, y FROM t) SELECT DISTINCT count(*), f(a, b) AS n FROM a").unwrap(),
            [" count(*)", " f(a, b) AS n "]
        );
        assert_eq!(select_list("select 1 -- , x\n, 'a,b'").unwrap(), [" 1 -- , x\n", " 'a,b'"]);
        assert_eq!(select_list("select name from slice; ").unwrap(), [" name "]);
        assert!(select_list("with x").is_none());
    }

    #[test]
    fn unaliased_expressions_get_their_text_as_alias() {
        assert_eq!(
            aliased("SELECT f(a), t.*, g(b) AS g2, b, min(\"x\")\nFROM t"),
            "SELECT f(a) AS \"f(a)\", t.*, g(b) AS g2, b, min(\"x\") AS \"min(\"\"x\"\")\"\nFROM t"
        );
        assert_eq!(aliased("select 1 -- one\n, 2"), "select 1 -- one\n, 2 AS \"2\"");
        assert_eq!(
            aliased("WITH x AS (SELECT count(*) FROM t) SELECT * FROM x"),
            "WITH x AS (SELECT count(*) FROM t) SELECT * FROM x"
        );
    }
}
