//! Shared test helpers.
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared` beside the project, if present (absent on a fresh machine).
pub fn shared_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared");
    dir.is_dir().then_some(dir)
}

/// The project's `testdata/` folder.
pub fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name)
}

/// A command running the built `fpsan` binary.
pub fn fpsan() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("fpsan").expect("fpsan binary")
}
