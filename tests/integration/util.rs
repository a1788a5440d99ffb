//! Shared test helpers.
#![allow(dead_code)]

use std::path::PathBuf;

/// Set to `1` (as `.ci/run` does) to make a missing `../shared` fail the tests
/// that need it instead of skipping them.
const REQUIRE_SHARED: &str = "FPSAN_REQUIRE_SHARED";

/// A file or folder under `../shared` (the real traces and trace_processor's
/// conformance cases beside the project). Absent on a fresh machine outside
/// this workplace: the caller skips, after this prints why; with
/// `FPSAN_REQUIRE_SHARED=1` the absence is a test failure instead.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared").join(rel);
    if path.exists() {
        return Some(path);
    }
    let required = std::env::var(REQUIRE_SHARED).is_ok_and(|v| v == "1");
    assert!(!required, "{} is absent and {REQUIRE_SHARED}=1", path.display());
    println!("SKIP: {} is absent (set {REQUIRE_SHARED}=1 to fail instead)", path.display());
    None
}

/// The project's `testdata/` folder.
pub fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name)
}

/// A command running the built `fpsan` binary.
pub fn fpsan() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("fpsan").expect("fpsan binary")
}
