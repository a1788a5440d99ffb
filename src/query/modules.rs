//! `INCLUDE PERFETTO MODULE name;` before a query: the PerfettoSQL modules
//! whose tables fpsan provides are accepted (their tables then join the
//! query's), every other is one clear error.

use super::QueryError;
use crate::tables::{android_frames, input, startups, Table};

/// The modules fpsan provides (their tables: `Table::module`).
pub const PROVIDED: &[&str] =
    &[android_frames::MODULE, startups::MODULE_STARTUPS, startups::MODULE_TIME_TO_DISPLAY, input::MODULE];

/// The modules the `INCLUDE PERFETTO MODULE` statements at the start of
/// `sql` name, and the query after them.
pub fn included(sql: &str) -> Result<(Vec<&'static str>, &str), QueryError> {
    let mut modules = Vec::new();
    let mut rest = skip_blank(sql);
    loop {
        let mut words = rest;
        let mut next = || {
            let (w, r) = word(words);
            words = r;
            w
        };
        let include = ["include", "perfetto", "module"].iter().all(|k| next().eq_ignore_ascii_case(k));
        if !include {
            return Ok((modules, rest));
        }
        let module = next();
        let provided = PROVIDED.iter().copied().find(|m| *m == module).ok_or_else(|| {
            let names: Vec<String> = PROVIDED
                .iter()
                .map(|&m| {
                    let tables: Vec<&str> =
                        Table::ALL.iter().filter(|t| t.module() == Some(m)).map(|t| t.name()).collect();
                    format!("{m} ({})", tables.join(", "))
                })
                .collect();
            QueryError::PerfettoOnly(format!(
                "INCLUDE PERFETTO MODULE {module}: module {module} is not provided by fpsan; provided: {}",
                names.join("; ")
            ))
        })?;
        modules.push(provided);
        let after = words.trim_start();
        rest = skip_blank(after.strip_prefix(';').unwrap_or(after));
    }
}

/// The next word of `text` (letters, digits, `_`, `.`, `*`) and the text after it.
fn word(text: &str) -> (&str, &str) {
    let text = skip_blank(text);
    let end = text.find(|c: char| !(c.is_ascii_alphanumeric() || "_.*".contains(c))).unwrap_or(text.len());
    text.split_at(end)
}

/// `text` after its leading white space and comments.
fn skip_blank(mut text: &str) -> &str {
    loop {
        text = text.trim_start();
        if let Some(r) = text.strip_prefix("--") {
            text = r.find('\n').map_or("", |k| &r[k..]);
        } else if let Some(r) = text.strip_prefix("/*") {
            text = r.find("*/").map_or("", |k| &r[k + 2..]);
        } else {
            return text;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_before_the_query_are_read() {
        let (m, rest) =
            included("-- frames\n include perfetto MODULE android.frames.timeline ;\n/* x */ SELECT 1").unwrap();
        assert_eq!((m, rest), (vec!["android.frames.timeline"], "SELECT 1"));
        let (m, rest) = included("SELECT 'INCLUDE PERFETTO MODULE x'").unwrap();
        assert_eq!((m, rest), (vec![], "SELECT 'INCLUDE PERFETTO MODULE x'"));
        let (m, rest) = included("INCLUDE PERFETTO MODULE android.frames.timeline").unwrap();
        assert_eq!((m, rest), (vec!["android.frames.timeline"], ""));
    }

    #[test]
    fn a_module_fpsan_lacks_is_one_line() {
        let e = included("INCLUDE PERFETTO MODULE android.binder;\nSELECT * FROM android_binder_txns")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "INCLUDE PERFETTO MODULE android.binder: module android.binder is not provided by fpsan; provided: \
             android.frames.timeline (android_frames_choreographer_do_frame, android_frames_draw_frame, \
             android_frames_layers, android_frames); android.startup.startups (android_startups); \
             android.startup.time_to_display (android_startup_time_to_display); android.input (android_input_events)"
        );
    }
}
