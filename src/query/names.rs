//! Result columns named as trace_processor (SQLite) names them: an
//! expression without an alias by its text as written (`count(*)`,
//! `dur / 1e6`), where Polars would name it `len` or after its first column.

use polars::prelude::*;
use sqlparser::ast::{Expr, SelectItem};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;

use super::lex::{pieces, Piece};

/// Rename `df`'s columns that come from unaliased expressions of `sql`'s
/// SELECT list to the expressions' text. Columns of `*` are matched by
/// position from either end; a name `df` already has is left alone.
pub fn as_written(df: &mut DataFrame, sql: &str) {
    let Some(items) = select_list(sql) else { return };
    let names: Vec<Name> = items.iter().map(|item| name_of(item)).collect();
    let width = df.width();
    let first_star = names.iter().position(|n| matches!(n, Name::Star));
    let last_star = names.iter().rposition(|n| matches!(n, Name::Star));
    let placed: Vec<(usize, &str)> = match (first_star, last_star) {
        (None, _) if names.len() == width => names.iter().enumerate().filter_map(|(i, n)| Some((i, n.text()?))).collect(),
        (Some(first), Some(last)) if first + (names.len() - last - 1) <= width => {
            let before = names[..first].iter().enumerate().filter_map(|(i, n)| Some((i, n.text()?)));
            let after =
                names[last + 1..].iter().enumerate().filter_map(|(i, n)| Some((width - (names.len() - last - 1) + i, n.text()?)));
            before.chain(after).collect()
        }
        _ => return,
    };
    for (i, text) in placed {
        let taken = df.get_column_names().iter().any(|c| c.as_str() == text);
        let old = df.get_column_names()[i].clone();
        if !taken {
            // Cannot fail: the column exists and the name is not taken.
            let _ = df.rename(&old, text.into());
        }
    }
}

/// What a SELECT item names.
enum Name<'s> {
    /// An unaliased expression other than a column: its text.
    Written(&'s str),
    /// `*` or `t.*`.
    Star,
    /// A column or an alias: Polars names it as SQLite does.
    AsPolars,
}

impl<'s> Name<'s> {
    fn text(&self) -> Option<&'s str> {
        match self {
            Name::Written(t) => Some(t),
            _ => None,
        }
    }
}

fn name_of(item: &str) -> Name<'_> {
    let item = item.trim();
    let parsed = Parser::new(&GenericDialect {}).try_with_sql(item).and_then(|mut p| p.parse_select_item());
    match parsed {
        Ok(SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)) => Name::Star,
        Ok(SelectItem::UnnamedExpr(Expr::Identifier(_) | Expr::CompoundIdentifier(_))) => Name::AsPolars,
        Ok(SelectItem::UnnamedExpr(_)) => Name::Written(item),
        _ => Name::AsPolars,
    }
}

/// The items of the outermost SELECT list of `sql` (after any `WITH …`), as
/// written; None without one.
fn select_list(sql: &str) -> Option<Vec<&str>> {
    const ENDS: [&str; 10] = ["from", "where", "group", "having", "window", "order", "limit", "union", "except", "intersect"];
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
                let end = i + b[i..].iter().position(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'$')).unwrap_or(b.len() - i);
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
    fn columns_around_a_star_are_placed_from_either_end() {
        let mut df = DataFrame::new(
            1,
            ["a", "x", "y", "b"].into_iter().map(|n| Column::new(n.into(), [1i64])).collect(),
        )
        .unwrap();
        as_written(&mut df, "SELECT f(a), t.*, g(b) AS g2, b + 1 FROM t");
        // `t.*` gave x; `g(b) AS g2` (y) keeps its name.
        let names: Vec<&str> = df.get_column_names().iter().map(|c| c.as_str()).collect();
        assert_eq!(names, ["f(a)", "x", "y", "b + 1"]);
    }
}
