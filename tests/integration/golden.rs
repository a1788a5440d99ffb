//! Golden outputs (inferno's bless pattern): the demo trace's terminal table,
//! `--format json`, and the `--out` files `summary.json` and `frames.csv`,
//! compared byte for byte with `tests/golden/`. A change to any number in the
//! report shows up here as a diff. After a deliberate change, regenerate with
//! `FPSAN_BLESS=1 cargo test --release --test integration golden` and explain
//! every changed number in the commit.

use std::path::{Path, PathBuf};

use crate::util::fpsan;

const BLESS: &str = "FPSAN_BLESS";

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compare `got` with the golden file `name`, or write it when blessing.
pub(crate) fn check(name: &str, got: &[u8]) {
    let path = golden_dir().join(name);
    if std::env::var(BLESS).is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(golden_dir()).expect("create tests/golden");
        std::fs::write(&path, got).expect("write golden file");
        return;
    }
    let want = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}; create it with {BLESS}=1", path.display()));
    if want != got {
        let (want, got) = (String::from_utf8_lossy(&want), String::from_utf8_lossy(got));
        let first = want.lines().zip(got.lines()).position(|(a, b)| a != b);
        let line = first.unwrap_or_else(|| want.lines().count().min(got.lines().count()));
        panic!(
            "{} differs from the output at line {}:\n  golden: {:?}\n  output: {:?}\n(re-bless with {BLESS}=1 only if the change is deliberate)",
            path.display(),
            line + 1,
            want.lines().nth(line).unwrap_or("<end>"),
            got.lines().nth(line).unwrap_or("<end>"),
        );
    }
}

/// `fpsan analyze testdata/demo.pftrace ARGS…` run from the project root, so
/// the trace path in the outputs is the same relative path on every machine.
fn analyze_demo(args: &[&str]) -> Vec<u8> {
    let out = fpsan()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["analyze", "testdata/demo.pftrace"])
        .args(args)
        .output()
        .expect("run fpsan");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

#[test]
fn demo_terminal_table() {
    check("demo.table.txt", &analyze_demo(&[]));
}

#[test]
fn demo_json_document() {
    check("demo.json", &analyze_demo(&["--format", "json"]));
}

#[test]
fn demo_out_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().to_str().expect("utf-8 temp path");
    analyze_demo(&["--out", out]);
    for name in ["summary.json", "frames.csv"] {
        check(&format!("demo.{name}"), &read(&dir.path().join(name)));
    }
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The real legacy atrace captures (`../shared/traces/*.txt`): every frame,
/// as `--format csv`. Their per-process frame and DrawFrame counts are also
/// checked against an independent count of the text in `systrace.rs`.
#[test]
fn real_atrace_text_frames() {
    for name in ["real-atrace-catapult-decompressed", "real-atrace-flashlight-sample"] {
        let Some(path) = crate::util::shared(&format!("traces/{name}.txt")) else { return };
        let out = fpsan().args(["analyze", "--format", "csv"]).arg(&path).output().expect("run fpsan");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        check(&format!("{name}.frames.csv"), &out.stdout);
    }
}
