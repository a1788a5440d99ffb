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

/// Every real trace in `../shared/traces` (Perfetto and atrace text), sorted;
/// None (skipped, as [`shared`] says) without `../shared`.
pub fn real_traces() -> Option<Vec<PathBuf>> {
    let dir = shared("traces")?;
    let mut traces: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("traces")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pftrace" || e == "txt"))
        .collect();
    traces.sort();
    Some(traces)
}

/// The project's `testdata/` folder.
pub fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name)
}

/// A command running the built `fpsan` binary.
pub fn fpsan() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("fpsan").expect("fpsan binary")
}

/// trace_processor v58.2, the reference for every table (`../shared/tools`),
/// unpacked once per test run from its zstd file into the tests' temporary
/// folder. `None` (after `shared` printed why) where `../shared` is absent.
pub fn trace_processor() -> Option<PathBuf> {
    use std::sync::OnceLock;
    static UNPACKED: OnceLock<PathBuf> = OnceLock::new();
    let packed = shared("tools/trace_processor_shell.zst")?;
    Some(
        UNPACKED
            .get_or_init(|| {
                use std::os::unix::fs::PermissionsExt;
                let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
                let out = dir.join("trace_processor_shell");
                let part = dir.join(format!("trace_processor_shell.{}", std::process::id()));
                let input = std::fs::File::open(&packed).expect("open trace_processor_shell.zst");
                let mut output = std::fs::File::create(&part).expect("create trace_processor_shell");
                zstd::stream::copy_decode(input, &mut output).expect("unpack trace_processor_shell");
                drop(output);
                std::fs::set_permissions(&part, std::fs::Permissions::from_mode(0o755)).unwrap();
                std::fs::rename(&part, &out).unwrap();
                out
            })
            .clone(),
    )
}

/// The rows trace_processor gives for `sql` on `trace` (header first, every
/// cell as text, NULL as `[NULL]`), or `None` where `../shared` is absent.
pub fn trace_processor_rows(trace: &std::path::Path, sql: &str) -> Option<Vec<Vec<String>>> {
    let shell = trace_processor()?;
    let dir = tempfile::tempdir().unwrap();
    let query = dir.path().join("q.sql");
    std::fs::write(&query, sql).unwrap();
    let out =
        std::process::Command::new(shell).arg("-q").arg(&query).arg(trace).output().expect("run trace_processor_shell");
    assert!(
        out.status.success(),
        "trace_processor failed on {}: {}",
        trace.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(&out.stdout[..]);
    Some(reader.records().map(|r| r.expect("trace_processor's CSV").iter().map(str::to_owned).collect()).collect())
}

/// How trace_processor prints NULL.
pub const NULL: &str = "[NULL]";

/// `fpsan query`'s rows for `sql` on `trace` (header first; NULL as
/// trace_processor prints it).
pub fn fpsan_rows(trace: &std::path::Path, sql: &str) -> Vec<Vec<String>> {
    let out = fpsan().arg("query").arg(trace).arg(sql).args(["--format", "csv"]).output().unwrap();
    assert!(out.status.success(), "{}: {}", trace.display(), String::from_utf8_lossy(&out.stderr));
    let mut reader = csv::ReaderBuilder::new().has_headers(false).from_reader(&out.stdout[..]);
    reader
        .records()
        .map(|r| r.unwrap().iter().map(|c| if c.is_empty() { NULL.to_string() } else { c.to_string() }).collect())
        .collect()
}
