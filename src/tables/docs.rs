//! The docs/ pages' generated sections, from the registry and the column docs
//! the builders declare: a table's columns (`<!-- columns:NAME -->`) and the
//! list of tables (`<!-- tables -->`). `tests/integration/columns.rs` fails
//! when a page's section differs from them (`FPSAN_BLESS=1` rewrites it).

use polars::prelude::PolarsResult;

use super::{ColumnDoc, Origin, Table};

/// A section's body for the marker `key` (`columns:frames`, `tables`); None
/// for a key that names no section.
pub fn section(key: &str) -> Option<PolarsResult<String>> {
    if key == "tables" {
        return Some(Ok(tables()));
    }
    let name = key.strip_prefix("columns:")?;
    let table = Table::ALL.into_iter().find(|t| t.name() == name)?;
    Some(table.columns().map(|c| columns(&c)))
}

/// Every table: its name, what a row is, where it comes from.
fn tables() -> String {
    let mut out = String::from("| table | one row per | from |\n|---|---|---|\n");
    for t in Table::ALL {
        let from = match t.origin() {
            Origin::Model => "the trace".to_string(),
            Origin::Sched => "every thread's scheduler events (read on demand)".to_string(),
            Origin::Module(m) => format!("the trace, after `INCLUDE PERFETTO MODULE {m};`"),
            Origin::Analysis => "the analysis".to_string(),
            Origin::Lake => "the lake only (`fpsan batch`)".to_string(),
        };
        out.push_str(&format!("| `{}` | {} | {from} |\n", t.name(), t.row()));
    }
    out
}

/// A markdown table of `cols`, one row per run of consecutive columns with
/// the same doc; a "NULL when" column when any has one.
fn columns(cols: &[ColumnDoc]) -> String {
    let with_null = cols.iter().any(|c| c.doc.null_when.is_some());
    let mut out = if with_null {
        String::from("| column | formula / source | NULL when / edge cases |\n|---|---|---|\n")
    } else {
        String::from("| column | meaning |\n|---|---|\n")
    };
    let mut k = 0;
    while k < cols.len() {
        let run = cols[k..].iter().take_while(|c| c.doc == cols[k].doc).count();
        let names: Vec<String> = cols[k..k + run].iter().map(|c| format!("`{}`", c.name)).collect();
        let doc = &cols[k].doc;
        out.push_str(&format!("| {} | {} |", names.join(", "), cell(&doc.meaning)));
        if with_null {
            out.push_str(&format!(" {} |", cell(doc.null_when.as_deref().unwrap_or("—"))));
        }
        out.push('\n');
        k += run;
    }
    out
}

/// Text as a markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}
