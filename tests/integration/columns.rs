//! The table registry against everything that lists tables or columns: each
//! column's doc is declared beside it in `src/tables/`, and docs/'s column
//! tables and table list are generated from them between markers
//! (`<!-- columns:frames -->` … `<!-- /columns:frames -->`, `<!-- tables -->`).
//! A stale section fails here naming it; `FPSAN_BLESS=1 cargo test --release
//! --test integration columns` rewrites the sections. The CLI's help and
//! `query`'s unknown-table error must name every table.

use std::collections::BTreeSet;
use std::path::PathBuf;

use fpsan::tables::{docs, Table};

use crate::util::fpsan;

fn docs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs")
}

/// Each `<!-- KEY -->` … `<!-- /KEY -->` of `text`: (key, the body's byte range).
fn sections(text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(open) = text[at..].find("<!-- ").map(|k| k + at) {
        let Some(close) = text[open..].find(" -->").map(|k| k + open) else { break };
        let key = &text[open + 5..close];
        at = close + 4;
        if key.starts_with('/') || docs::section(key).is_none() {
            continue;
        }
        let end_marker = format!("<!-- /{key} -->");
        let end = text[at..]
            .find(&end_marker)
            .map(|k| k + at)
            .unwrap_or_else(|| panic!("<!-- {key} --> has no {end_marker}"));
        out.push((key.to_string(), at..end));
        at = end + end_marker.len();
    }
    out
}

#[test]
fn every_column_has_its_doc_beside_it() {
    for t in Table::ALL {
        let cols = t.columns().unwrap_or_else(|e| panic!("{}: {e}", t.name()));
        let built: Vec<String> = t.empty().unwrap().get_column_names().iter().map(|n| n.to_string()).collect();
        let documented: Vec<String> = cols.iter().map(|c| c.name.clone()).collect();
        assert_eq!(documented, built, "{}: the documented columns are not the built ones", t.name());
        for c in &cols {
            assert!(!c.doc.meaning.trim().is_empty(), "{}.{} has no doc", t.name(), c.name);
        }
    }
}

#[test]
fn docs_sections_are_generated_from_the_column_docs() {
    let bless = std::env::var("FPSAN_BLESS").is_ok_and(|v| v == "1");
    let mut covered = BTreeSet::new();
    let mut stale = Vec::new();
    for entry in std::fs::read_dir(docs_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut fixed = text.clone();
        // Back to front, so the ranges before stay valid.
        for (key, range) in sections(&text).into_iter().rev() {
            covered.insert(key.clone());
            let want = format!("\n{}", docs::section(&key).unwrap().unwrap());
            let got = &text[range.clone()];
            if got != want {
                let line = want.lines().zip(got.lines()).find(|(w, g)| w != g);
                let (w, g) = line.unwrap_or(("<end>", "<end>"));
                stale.push(format!("{} <!-- {key} -->:\n  generated: {w}\n  in docs:   {g}", path.display()));
                fixed.replace_range(range, &want);
            }
        }
        if bless && fixed != text {
            std::fs::write(&path, fixed).unwrap();
        }
    }
    assert!(bless || stale.is_empty(), "stale sections (FPSAN_BLESS=1 rewrites them):\n{}", stale.join("\n"));
    // Every table's columns are in docs/, and the list of tables.
    let mut wanted: BTreeSet<String> = Table::ALL.iter().map(|t| format!("columns:{}", t.name())).collect();
    wanted.insert("tables".to_string());
    let missing: Vec<_> = wanted.difference(&covered).collect();
    assert!(missing.is_empty(), "no section in docs/ for {missing:?}");
}

/// The words of the text after `label` to its paragraph's end (clap wraps
/// the help), split at commas, colons, semicolons, brackets and blanks.
fn listed(text: &str, label: &str) -> BTreeSet<String> {
    let at = text.find(label).unwrap_or_else(|| panic!("no {label:?} in {text}")) + label.len();
    let paragraph = text[at..].split("\n\n").next().unwrap_or("");
    paragraph.split([',', ':', ';', '(', ')', ' ', '\n']).filter(|w| !w.is_empty()).map(str::to_string).collect()
}

#[test]
fn help_and_errors_name_every_table() {
    let run = |args: &[&str]| fpsan().args(args).output().unwrap();
    let help = |cmd: &str| String::from_utf8(run(&[cmd, "--help"]).stdout).unwrap();
    let query = listed(&help("query"), "Tables: ");
    let batch = listed(&help("batch"), "The lake's tables: ");
    let demo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/demo.pftrace");
    let error = run(&["query", demo.to_str().unwrap(), "SELECT * FROM raw"]);
    assert_eq!(error.status.code(), Some(2));
    let unknown = listed(&String::from_utf8(error.stderr).unwrap(), "the tables are ");
    for t in Table::ALL {
        assert_eq!(query.contains(t.name()), t.in_query(), "query --help and {}: {query:?}", t.name());
        assert_eq!(unknown.contains(t.name()), t.in_query(), "the unknown-table error and {}: {unknown:?}", t.name());
        assert_eq!(batch.contains(t.name()), t.in_lake(), "batch --help and {}: {batch:?}", t.name());
    }
}
