//! docs/architecture.md names modules, items and files: each must exist, so
//! the page cannot drift from the code unnoticed.
//!
//! What is checked (everything else is prose):
//!
//! - **Code paths**: every `a::b…` path in a backtick span, and every one in
//!   the page's diagrams (its fenced blocks). Anything after the path (call
//!   arguments, a struct literal's fields) is ignored.
//!   - A path that starts with a lowercase name starts at one of the crate's
//!     top-level modules (`src/a.rs` or `src/a/mod.rs`); a path relative to
//!     another module (`charts::kit` for `report::charts::kit`) is reported.
//!     Its segments are modules as long as a file `…/b.rs` or `…/b/mod.rs`
//!     exists; the first segment after them is an item, defined in the
//!     module's files (its file and every file under its directory, where
//!     re-exported items are defined) as a `fn`, `struct`, `enum`, `trait`,
//!     `type`, `const`, `static`, `mod` or `macro_rules!`, or as an enum
//!     variant (`Item,` `Item(` `Item {` at the start of a line); a segment
//!     after that is a member of the item: a `fn`, a field (`name:`), a
//!     `const` or a variant, in a file that defines the item.
//!   - A path that starts with a type's name (`Metric::def`,
//!     `Sink::stderr()`) needs the type defined somewhere under `src/` and
//!     the member in a file that defines it.
//! - **Files**: a backtick span that is a path with a `/` (`src/cli/`,
//!   `open/server.rs`, `docs/report.md`, `fpsan/spark.py`) exists relative
//!   to the repository, to `src/` or to `python/` (in a row of the stages
//!   table, also to its module's directory: `protobuf/` in `read`'s row is
//!   `src/read/protobuf/`); a bare Rust file name
//!   (`util.rs`) exists somewhere under `src/` or `tests/`. In the fenced
//!   blocks under a heading "Inside `m`", a path with a `/` (`read/batch.rs`,
//!   `protobuf/`) exists under `src/` or `src/m/`, and a bare file or
//!   directory name (`sched.rs`, `stats/`) somewhere under `src/m/`.
//! - **Stages**: the first column of the stages table names a top-level
//!   module (or, ending in `/`, a directory of the repository).
//!
//! Unqualified names in prose (`FrameRow`, `analyze_with`) are not checked:
//! a word alone cannot be told from an English one or from a command name.
//! Every name that does not resolve is listed at once.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, recursively, with its text.
fn rust_files(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                out.push((p, text));
            }
        }
    }
    out.sort();
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Does `text` define `name` as an item (or, with `member`, as a member:
/// also a field)?
fn defines(text: &str, name: &str, member: bool) -> bool {
    const ITEMS: [&str; 11] =
        ["fn", "const fn", "async fn", "struct", "enum", "trait", "type", "const", "static", "mod", "macro_rules!"];
    text.lines().any(|line| {
        let l = line.trim_start();
        let l = l.strip_prefix("pub(crate) ").or_else(|| l.strip_prefix("pub ")).unwrap_or(l);
        let after_keyword = ITEMS.iter().any(|k| {
            l.strip_prefix(k)
                .and_then(|rest| rest.strip_prefix(' '))
                .is_some_and(|rest| rest.starts_with(name) && !rest[name.len()..].starts_with(is_ident_char))
        });
        // After the name at the line's start: a variant's `,` `(` `{`, a field's `:`.
        let after = l.strip_prefix(name).filter(|rest| !rest.starts_with(is_ident_char)).map(str::trim_start);
        let variant = after.is_some_and(|rest| rest.starts_with([',', '(', '{']));
        let field = member && after.is_some_and(|rest| rest.starts_with(':') && !rest.starts_with("::"));
        after_keyword || variant || field
    })
}

/// The house: every Rust file of `src/`, and what resolves against it.
struct Code {
    src: PathBuf,
    files: Vec<(PathBuf, String)>,
}

impl Code {
    fn module_file(&self, dir: &Path, name: &str) -> Option<PathBuf> {
        [dir.join(format!("{name}.rs")), dir.join(name).join("mod.rs")].into_iter().find(|p| p.is_file())
    }

    /// The files of the module whose file is `file`: it, and every file
    /// under its directory.
    fn module_files(&self, file: &Path) -> Vec<&(PathBuf, String)> {
        let dir = match file.file_name().is_some_and(|n| n == "mod.rs") {
            true => file.parent().unwrap().to_path_buf(),
            false => file.with_extension(""),
        };
        self.files.iter().filter(|(p, _)| p == file || p.starts_with(&dir)).collect()
    }

    /// Why `path` (`a::b::c`) does not resolve, if it does not.
    fn check_path(&self, path: &str) -> Option<String> {
        let segments: Vec<&str> = path.split("::").collect();
        if segments[0].starts_with(|c: char| c.is_ascii_uppercase()) {
            let holders: Vec<&(PathBuf, String)> =
                self.files.iter().filter(|(_, t)| defines(t, segments[0], false)).collect();
            return self.check_items(&holders, &segments, path);
        }
        let mut dir = self.src.clone();
        let mut file = None;
        let mut k = 0;
        while k < segments.len() {
            match self.module_file(&dir, segments[k]) {
                Some(f) => {
                    dir = dir.join(segments[k]);
                    file = Some(f);
                    k += 1;
                }
                None => break,
            }
        }
        let Some(file) = file else {
            return Some(format!("`{path}`: no module src/{}.rs or src/{0}/mod.rs", segments[0]));
        };
        if k == segments.len() {
            return None;
        }
        self.check_items(&self.module_files(&file), &segments[k..], path)
    }

    /// `items[0]` defined in `files`, `items[1]` (if any) a member of it in a
    /// file that defines it.
    fn check_items(&self, files: &[&(PathBuf, String)], items: &[&str], path: &str) -> Option<String> {
        let holders: Vec<_> = files.iter().filter(|(_, t)| defines(t, items[0], false)).collect();
        if holders.is_empty() {
            return Some(format!("`{path}`: `{}` is defined nowhere it could be", items[0]));
        }
        match items {
            [_] => None,
            [_, member] if holders.iter().any(|(_, t)| defines(t, member, true)) => None,
            [item, member] => Some(format!("`{path}`: `{item}` has no member `{member}`")),
            _ => Some(format!("`{path}`: a path past an item's member")),
        }
    }

    fn file_exists(&self, under: &[PathBuf], name: &str) -> bool {
        under.iter().any(|d| d.join(name.trim_end_matches('/')).exists())
    }

    /// Is there a file or directory `name` anywhere under `dir`?
    fn anywhere_under(dir: &Path, name: &str) -> bool {
        let name = name.trim_end_matches('/');
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else { continue };
            for e in entries.flatten() {
                if e.file_name() == name {
                    return true;
                }
                if e.path().is_dir() {
                    stack.push(e.path());
                }
            }
        }
        false
    }
}

/// The leading `a::b…` path of a span, if it has one (`tables::of(&Analysis)` → `tables::of`).
fn leading_path(span: &str) -> Option<&str> {
    let end = span
        .char_indices()
        .find(|&(i, c)| !(is_ident_char(c) || (c == ':' && (span[i..].starts_with("::") || span[..i].ends_with(':')))))
        .map_or(span.len(), |(i, _)| i);
    let path = span[..end].trim_end_matches(':');
    let ok = path.contains("::")
        && path.split("::").all(|s| s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        && !path.starts_with("std::");
    ok.then_some(path)
}

/// The `a::b…` paths in a line of a diagram.
fn paths_in(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        let rest = &line[i..];
        let starts_word = rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && !line[..i].ends_with(|c: char| is_ident_char(c) || c == ':');
        if starts_word {
            if let Some(p) = leading_path(rest) {
                out.push(p);
                i += p.len();
                continue;
            }
        }
        i += rest.chars().next().unwrap().len_utf8();
    }
    out
}

/// The file names (`a/b.rs`, `x.rs`, `dir/`) in a line of an "Inside" diagram.
fn files_in(line: &str) -> Vec<&str> {
    line.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';'))
        .filter(|w| {
            let name = |s: &str| !s.is_empty() && s.chars().all(|c| is_ident_char(c) || c == '/' || c == '.');
            name(w) && (w.ends_with(".rs") || (w.ends_with('/') && w.len() > 1))
        })
        .collect()
}

#[test]
fn every_module_item_and_file_it_names_exists() {
    let root = root();
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let code = Code { src: root.join("src"), files: rust_files(&root.join("src")) };
    let mut missing: Vec<String> = Vec::new();
    let mut fenced = false;
    // The module an "Inside `m`" section is about.
    let mut inside: Option<String> = None;
    let mut in_stages = false;
    for (n, line) in doc.lines().enumerate() {
        let at = |what: String| format!("line {}: {what}", n + 1);
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if let Some(h) = line.strip_prefix("## ") {
            inside = h.strip_prefix("Inside `").and_then(|m| m.strip_suffix('`')).map(str::to_string);
            in_stages = h == "The stages";
            continue;
        }
        if fenced {
            missing.extend(paths_in(line).into_iter().filter_map(|p| code.check_path(p)).map(&at));
            if let Some(m) = &inside {
                let module_dir = code.src.join(m);
                for f in files_in(line) {
                    let found = match f.trim_end_matches('/').contains('/') {
                        true => code.file_exists(&[code.src.clone(), module_dir.clone()], f),
                        false => Code::anywhere_under(&module_dir, f),
                    };
                    if !found {
                        missing.push(at(format!("`{f}`: no such file under src/ or src/{m}/")));
                    }
                }
            }
            continue;
        }
        // The module of the stages table's row this line is.
        let mut stage: Option<&str> = None;
        if in_stages && line.starts_with("| `") {
            let first = line.split('|').nth(1).unwrap().trim();
            let name = first.split('`').nth(1).unwrap();
            stage = Some(name);
            let found = match name.strip_suffix('/') {
                Some(dir) => root.join(dir).is_dir(),
                None => code.module_file(&code.src, name).is_some(),
            };
            if !found {
                missing.push(at(format!("`{name}`: the stages table names no module of that name")));
            }
        }
        for span in line.split('`').skip(1).step_by(2) {
            if let Some(p) = leading_path(span) {
                missing.extend(code.check_path(p).map(&at));
            } else if !span.contains(char::is_whitespace) && span.len() > 1 {
                let mut bases = vec![root.clone(), root.join("src"), root.join("python")];
                bases.extend(stage.iter().map(|m| root.join("src").join(m)));
                let path_like = span.chars().all(|c| is_ident_char(c) || matches!(c, '/' | '.' | '-'));
                if path_like && span.contains('/') && !span.starts_with('/') {
                    if !code.file_exists(&bases, span) {
                        missing.push(at(format!("`{span}`: no such file or directory")));
                    }
                } else if path_like && span.ends_with(".rs") {
                    let found = ["src", "tests"].iter().any(|d| Code::anywhere_under(&root.join(d), span));
                    if !found {
                        missing.push(at(format!("`{span}`: no such file under src/ or tests/")));
                    }
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/architecture.md names {} things the code does not have:\n  {}",
        missing.len(),
        missing.join("\n  ")
    );
}

#[test]
fn the_checker_tells_defined_from_missing() {
    let code = Code { src: root().join("src"), files: rust_files(&root().join("src")) };
    // A module, an item re-exported from a submodule, a type's method and field.
    for ok in ["capture::hygiene", "read::Decoded", "series::Metric", "Metric::def", "analysis::Options::sink"] {
        assert_eq!(code.check_path(ok), None, "{ok}");
    }
    for bad in ["metrics::frames_table", "charts::kit", "series::Metric::no_such_member", "NoSuchType::new"] {
        assert!(code.check_path(bad).is_some(), "{bad}");
    }
    assert_eq!(leading_path("tables::of(&Analysis)"), Some("tables::of"));
    assert_eq!(leading_path("model::Warning { code, message }"), Some("model::Warning"));
    assert_eq!(leading_path("Sink::stderr()"), Some("Sink::stderr"));
    assert_eq!(leading_path("--app"), None);
    assert_eq!(
        paths_in("metrics::kept_frames (the --app filter) → metrics::summarize → Vec"),
        ["metrics::kept_frames", "metrics::summarize"]
    );
    assert_eq!(
        files_in("  read/batch.rs      BatchBuilder (see protobuf/, sched.rs)"),
        ["read/batch.rs", "protobuf/", "sched.rs"]
    );
}
