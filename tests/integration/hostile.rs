//! Hostile and damaged input (issue 6): every malformed file gives one clear
//! error line or a partial model with a warning, never a panic, a hang or
//! unbounded memory. The cases that allocate a lot run in a child copy of
//! this test binary (see [`peak_rss_kib`]) so their peak resident set can be
//! measured on its own; the rest run in process. Until the CLI lands these
//! drive the library (`analysis::load`, `Source::from_bytes` + `analysis::decode`).
//! Also: property tests of the atrace parser against SPEC §2's grammar.
//! The limits themselves are documented in docs/limits.md.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use fpsan::analysis;
use fpsan::import::{import, MAX_SLICE_DEPTH};
use fpsan::model::Trace;
use fpsan::read::records::{
    AtraceOp, AtraceRec, Batch, ClockRef, TimelineEvent, TimelineRec, TimelineStart, MAX_NAME_BYTES,
};
use fpsan::read::{Decoded, ReadError, ReadOptions, Source};
use tracegen::{BuildOptions, TraceBuilder};

use crate::util::testdata;

// ---- helpers ------------------------------------------------------------------

fn load(path: &Path) -> Result<Trace, ReadError> {
    analysis::load(path, &ReadOptions::default())
}

fn load_bytes(name: &str, bytes: Vec<u8>) -> Result<Trace, ReadError> {
    Ok(analysis::decode(&Source::from_bytes(name, bytes)?, &ReadOptions::default())?.0)
}

/// The importer on hand-made records.
fn build(batches: Vec<Batch>) -> Trace {
    import(Decoded { batches, source: Default::default() })
}

fn write_temp(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// The error's message, checked to be the one line the CLI prints.
fn error_line(r: Result<Trace, ReadError>) -> String {
    let e = match r {
        Ok(t) => panic!("expected an error, got a trace with warnings {:?}", t.meta.warnings),
        Err(e) => e,
    };
    let s = e.to_string();
    assert!(!s.contains('\n'), "error is not one line: {s:?}");
    s
}

fn warnings(t: &Trace) -> String {
    t.meta.warnings.iter().map(|w| w.message.as_str()).collect::<Vec<_>>().join("\n")
}

/// A tiny valid trace: one slice on thread 100 of process 100.
fn tiny_trace() -> Vec<u8> {
    let mut b = TraceBuilder::new();
    b.process(100, "com.example.app").thread(100, 100, "example.app");
    b.atrace_begin(1_000_000, 100, 100, "Choreographer#doFrame 1");
    b.atrace_end(3_000_000, 100, 100);
    b.build(&BuildOptions::default())
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A top-level `Trace.packet` holding one length-delimited TracePacket field.
fn packet_with(field: u32, payload: &[u8]) -> Vec<u8> {
    let mut inner = Vec::new();
    varint(((field as u64) << 3) | 2, &mut inner);
    varint(payload.len() as u64, &mut inner);
    inner.extend_from_slice(payload);
    let mut out = vec![0x0a];
    varint(inner.len() as u64, &mut out);
    out.extend(inner);
    out
}

/// `n` zero bytes through the encoder `enc`, streamed (never held in memory).
fn zeros_compressed<W: Write>(mut enc: W, n: u64) -> W {
    std::io::copy(&mut std::io::repeat(0).take(n), &mut enc).unwrap();
    enc
}

fn zlib_zeros(n: u64) -> Vec<u8> {
    zeros_compressed(flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast()), n).finish().unwrap()
}

fn zstd_zeros(n: u64) -> Vec<u8> {
    zeros_compressed(zstd::stream::write::Encoder::new(Vec::new(), 1).unwrap(), n).finish().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(1) == Some("0")))
        .unwrap_or(false)
}

// ---- memory-bounded cases in a child process --------------------------------

const CASE_ENV: &str = "FPSAN_HOSTILE_CASE";

/// Runs `case` in a child copy of this test binary (the ignored test
/// `hostile::child_case`) and returns its peak resident set (VmHWM) in KiB.
/// The child asserts the case's exact outcome; its failure fails the parent.
fn peak_rss_kib(case: &str) -> u64 {
    // One child at a time: they are the big allocations of the suite.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args(["hostile::child_case", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(CASE_ENV, case)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "case {case} failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let kib = stdout
        .lines()
        .find_map(|l| l.split_once("FPSAN_PEAK_KIB=").map(|(_, v)| v))
        .unwrap_or_else(|| panic!("case {case} printed no peak:\n{stdout}"));
    let kib: u64 = kib.trim().parse().unwrap();
    println!("{case}: peak RSS {} MiB", kib >> 10);
    kib
}

#[test]
#[ignore = "run by peak_rss_kib in a child process, with FPSAN_HOSTILE_CASE set"]
fn child_case() {
    let Ok(case) = std::env::var(CASE_ENV) else { return };
    match case.as_str() {
        "gzip_bomb" => case_file_bomb("gzip"),
        "zstd_bomb" => case_file_bomb("zstd"),
        "zlib_packet_bomb" => case_packet_bomb("zlib"),
        "zstd_packet_bomb" => case_packet_bomb("zstd"),
        "million_unmatched_begins" => case_million_unmatched_begins(),
        "ten_million_char_name" => case_ten_million_char_name(),
        other => panic!("unknown case {other}"),
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let hwm = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).unwrap();
    let kib = hwm.trim().trim_end_matches("kB").trim();
    println!("\nFPSAN_PEAK_KIB={kib}");
}

/// A whole-file gzip/zstd that inflates past the limit (256 MiB for a small
/// file): concatenated members of 16 MiB of zeros, 17 of them.
fn case_file_bomb(kind: &str) {
    let member = match kind {
        "gzip" => zeros_compressed(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best()), 16 << 20)
            .finish()
            .unwrap(),
        _ => zstd_zeros(16 << 20),
    };
    let bomb: Vec<u8> = std::iter::repeat_n(&member[..], 17).flatten().copied().collect();
    assert!(bomb.len() < 1 << 20, "the bomb itself is small ({} bytes)", bomb.len());
    let dir = tempfile::tempdir().unwrap();
    let path = write_temp(&dir, &format!("bomb.{kind}"), &bomb);
    let msg = error_line(load(&path));
    assert_eq!(
        msg,
        format!(
            "{}: decompresses to more than 256 MiB, past the limit of 256x its compressed size (at least 256 MiB); refusing (decompression bomb?)",
            path.display()
        )
    );
}

/// An in-stream compressed batch (field 50 zlib / 133 zstd) inflating to
/// 257 MiB inside an otherwise valid trace: skipped with a warning, the rest
/// analysed.
fn case_packet_bomb(kind: &str) {
    let (field, payload) = match kind {
        "zlib" => (50, zlib_zeros(257 << 20)),
        _ => (133, zstd_zeros(257 << 20)),
    };
    let mut bytes = tiny_trace();
    bytes.extend(packet_with(field, &payload));
    let t = load_bytes("packet-bomb.pftrace", bytes).unwrap();
    assert_eq!(t.slices.len(), 1);
    assert_eq!(t.meta.compressed_batches, 1);
    assert!(
        warnings(&t).contains(&format!(
            "1 malformed packets or events were skipped: a {kind} compressed batch inflates past 256 MiB (decompression bomb?); skipped"
        )),
        "{:?}",
        t.meta.warnings
    );
}

/// One million `B` lines on one thread, never ended (systrace text).
fn case_million_unmatched_begins() {
    let mut text = String::with_capacity(80 << 20);
    text.push_str("# tracer: nop\n");
    for i in 0..1_000_000u64 {
        let (s, us) = (1 + i / 1_000_000, i % 1_000_000);
        text.push_str(&format!("app-100 (100) [000] .... {s}.{us:06}: tracing_mark_write: B|100|slice {i}\n"));
    }
    let t = load_bytes("unmatched.txt", text.into_bytes()).unwrap();
    assert_eq!(t.slices.len(), MAX_SLICE_DEPTH);
    assert!(t.slices.iter().all(|s| s.dur == -1));
    assert_eq!(t.slices.last().unwrap().depth as usize, MAX_SLICE_DEPTH - 1);
    assert_eq!(t.slices.last().unwrap().name.as_ref(), format!("slice {}", MAX_SLICE_DEPTH - 1));
    assert!(
        warnings(&t).contains(
            "999488 slices nested deeper than 512 levels on one thread or track were dropped (unmatched B events?)"
        ),
        "{:?}",
        t.meta.warnings
    );
}

/// A `B` whose name is ten million characters.
fn case_ten_million_char_name() {
    let name = "n".repeat(10_000_000);
    let text = format!(
        "# tracer: nop\napp-100 (100) [000] .... 1.000001: tracing_mark_write: B|100|{name}\n\
         app-100 (100) [000] .... 1.000002: tracing_mark_write: E|100\n"
    );
    let t = load_bytes("long-name.txt", text.into_bytes()).unwrap();
    assert_eq!(t.slices.len(), 1);
    assert_eq!(t.slices[0].name.len(), MAX_NAME_BYTES);
    assert_eq!(t.slices[0].dur, 1_000);
    assert!(warnings(&t).contains("1 names longer than 4096 bytes were cut to that length"), "{:?}", t.meta.warnings);
}

const MIB: u64 = 1024;

#[test]
fn whole_file_gzip_bomb_is_refused_within_memory() {
    assert!(peak_rss_kib("gzip_bomb") < 400 * MIB);
}

#[test]
fn whole_file_zstd_bomb_is_refused_within_memory() {
    assert!(peak_rss_kib("zstd_bomb") < 400 * MIB);
}

#[test]
fn in_stream_zlib_bomb_is_skipped_within_memory() {
    assert!(peak_rss_kib("zlib_packet_bomb") < 400 * MIB);
}

#[test]
fn in_stream_zstd_bomb_is_skipped_within_memory() {
    assert!(peak_rss_kib("zstd_packet_bomb") < 400 * MIB);
}

#[test]
fn a_million_unmatched_begins_are_bounded_per_thread() {
    assert!(peak_rss_kib("million_unmatched_begins") < 450 * MIB);
}

#[test]
fn a_ten_million_character_name_is_cut() {
    assert!(peak_rss_kib("ten_million_char_name") < 100 * MIB);
}

// ---- files that are not traces ------------------------------------------------

#[test]
fn empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_temp(&dir, "empty.pftrace", b"");
    assert_eq!(error_line(load(&p)), format!("{} is empty", p.display()));
    assert_eq!(error_line(load_bytes("e", Vec::new())), "e is empty");
}

#[test]
fn random_bytes() {
    let mut rng = XorShift(0x5eed);
    let mut bytes: Vec<u8> = (0..65536).map(|_| rng.next() as u8).collect();
    bytes[0] = 0x97;
    let dir = tempfile::tempdir().unwrap();
    let p = write_temp(&dir, "random.bin", &bytes);
    assert_eq!(
        error_line(load(&p)),
        format!(
            "{} is not a Perfetto trace (it starts with byte 0x97; a Perfetto trace starts with 0x0a)",
            p.display()
        )
    );
    // Random bytes that start like a trace: an error or a partial model, never a panic.
    for round in 0..300 {
        let len = (rng.next() % 4096) as usize + 1;
        let mut b: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        b[0] = 0x0a;
        match load_bytes("r", b) {
            Ok(t) => assert!(t.slices.iter().all(|s| s.dur >= -1), "round {round}"),
            Err(e) => assert!(!e.to_string().contains('\n')),
        }
    }
}

#[test]
fn text_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_temp(&dir, "notes.txt", "just some notes, nothing to see here\n".repeat(50).as_bytes());
    assert_eq!(
        error_line(load(&p)),
        format!("{} is not a Perfetto trace (it is a text file, not a Perfetto protobuf or systrace)", p.display())
    );
}

#[test]
fn huge_declared_length() {
    // A packet declaring 2^64-1 bytes with one byte present.
    let bytes = vec![0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, b'x'];
    assert_eq!(
        error_line(load_bytes("huge", bytes)),
        "huge is not a Perfetto trace (the last packet (at byte 0) declares 18446744073709551615 bytes but only 1 remain: the file is truncated)"
    );
    // The same after a valid trace: the trace is analysed, the tail reported.
    let mut bytes = tiny_trace();
    let good = bytes.len();
    bytes.extend([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3]);
    let t = load_bytes("huge-tail", bytes).unwrap();
    assert_eq!(t.slices.len(), 1);
    assert_eq!(t.meta.data_loss.truncated_bytes, 9);
    assert!(
        warnings(&t).contains(&format!(
            "the last packet (at byte {good}) declares 4294967295 bytes but only 3 remain: the file is truncated; the last 9 bytes"
        )),
        "{:?}",
        t.meta.warnings
    );
}

#[test]
fn a_directory() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(error_line(load(dir.path())), format!("{} is a directory, not a trace file", dir.path().display()));
}

#[test]
fn a_missing_path() {
    let p = Path::new("/nonexistent/fpsan/trace.pftrace");
    assert_eq!(
        error_line(load(p)),
        "cannot read /nonexistent/fpsan/trace.pftrace: No such file or directory (os error 2)"
    );
}

#[test]
fn an_unreadable_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let p = write_temp(&dir, "secret.pftrace", &tiny_trace());
    if is_root() {
        // Root reads a chmod 000 file anyway; a path through a regular file
        // fails in the same place (ENOTDIR instead of EACCES).
        println!("running as root: chmod 000 does not stop root, testing an unopenable path instead");
        let through = p.join("inner");
        assert_eq!(
            error_line(load(&through)),
            format!("cannot read {}: Not a directory (os error 20)", through.display())
        );
    } else {
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
        assert_eq!(error_line(load(&p)), format!("cannot read {}: Permission denied (os error 13)", p.display()));
    }
}

#[test]
fn a_fifo_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("pipe");
    if !Command::new("mkfifo").arg(&p).status().is_ok_and(|s| s.success()) {
        println!("skipped: mkfifo is not available");
        return;
    }
    assert_eq!(
        error_line(load(&p)),
        format!(
            "{} is not a Perfetto trace (it is not a regular file (a pipe, socket or device); save the trace to a file first)",
            p.display()
        )
    );
}

// ---- end to end: the fpsan binary ------------------------------------------------

/// `fpsan ARGS`: (exit status, stdout, stderr), failing the test after 60 s
/// (a hang is a bug too).
fn fpsan_run(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let out = crate::util::fpsan().args(args).timeout(std::time::Duration::from_secs(60)).output().unwrap();
    let code = out.status.code().expect("fpsan was killed (timeout?)");
    (code, String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A zip archive holding `data` uncompressed as `name` (local header, data,
/// central directory, end record: APPNOTE 4.3).
fn stored_zip(name: &str, data: &[u8]) -> Vec<u8> {
    let mut crc = flate2::Crc::new();
    crc.update(data);
    let (crc, len, name_len) = (crc.sum(), data.len() as u32, name.len() as u16);
    let mut z = Vec::new();
    let common = |z: &mut Vec<u8>| {
        for v in [20u16, 0, 0, 0, 0] {
            z.extend_from_slice(&v.to_le_bytes()); // version, flags, method stored, time, date
        }
        z.extend_from_slice(&crc.to_le_bytes());
        z.extend_from_slice(&len.to_le_bytes());
        z.extend_from_slice(&len.to_le_bytes());
        z.extend_from_slice(&name_len.to_le_bytes());
        z.extend_from_slice(&0u16.to_le_bytes());
    };
    z.extend_from_slice(b"PK\x03\x04");
    common(&mut z);
    z.extend_from_slice(name.as_bytes());
    z.extend_from_slice(data);
    let central = z.len() as u32;
    z.extend_from_slice(b"PK\x01\x02");
    z.extend_from_slice(&20u16.to_le_bytes());
    common(&mut z);
    z.extend_from_slice(&[0; 10]); // comment length, disk, attributes (internal 2, external 4)
    z.extend_from_slice(&0u32.to_le_bytes()); // local header offset
    z.extend_from_slice(name.as_bytes());
    let central_len = z.len() as u32 - central;
    z.extend_from_slice(b"PK\x05\x06\0\0\0\0\x01\0\x01\0");
    z.extend_from_slice(&central_len.to_le_bytes());
    z.extend_from_slice(&central.to_le_bytes());
    z.extend_from_slice(&0u16.to_le_bytes());
    z
}

#[test]
fn cli_unusable_inputs_exit_1_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write_temp(&dir, "empty.pftrace", b"");
    let text = write_temp(&dir, "notes.txt", "not a trace at all\n".repeat(20).as_bytes());
    let mut rng = XorShift(77);
    let random: Vec<u8> = std::iter::once(0x42).chain((0..4096).map(|_| rng.next() as u8)).collect();
    let random = write_temp(&dir, "random.bin", &random);
    let member = zeros_compressed(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best()), 16 << 20)
        .finish()
        .unwrap();
    let bomb =
        write_temp(&dir, "bomb.gz", &std::iter::repeat_n(&member[..], 17).flatten().copied().collect::<Vec<u8>>());
    let fifo = dir.path().join("pipe");
    let have_fifo = Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    let missing = dir.path().join("missing.pftrace");
    let not_a_trace_hint =
        "; give a Perfetto trace (.pftrace, .perfetto-trace) or a systrace capture (.html, .txt, .ctrace), e.g. one recorded with `fpsan capture --app PKG`";
    let mut cases: Vec<(&Path, String)> = vec![
        (&empty, format!("{} is empty{not_a_trace_hint}", empty.display())),
        (dir.path(), format!("{} is a directory, not a trace file; give the trace file inside it", dir.path().display())),
        (&missing, format!("cannot read {}: No such file or directory (os error 2); check the path", missing.display())),
        (&text, format!("{} is not a Perfetto trace (it is a text file, not a Perfetto protobuf or systrace){not_a_trace_hint}", text.display())),
        (&random, format!("{} is not a Perfetto trace (it starts with byte 0x42; a Perfetto trace starts with 0x0a){not_a_trace_hint}", random.display())),
        (&bomb, format!("{}: decompresses to more than 256 MiB, past the limit of 256x its compressed size (at least 256 MiB); refusing (decompression bomb?); the file is damaged; record the trace again", bomb.display())),
    ];
    // The demo trace in a zip archive (stored, as a bugreport's zip holds it),
    // and in a gzip-compressed tar.
    let zip = write_temp(&dir, "trace.zip", &stored_zip("trace.pftrace", &demo()));
    let mut tar = vec![0u8; 512];
    tar[..14].copy_from_slice(b"trace.pftrace\0");
    tar[257..263].copy_from_slice(b"ustar\0");
    tar.extend_from_slice(&demo());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &tar).unwrap();
    let tar_gz = write_temp(&dir, "trace.tar.gz", &gz.finish().unwrap());
    cases.push((&zip, format!("{} is a zip archive, not a trace; unzip it and give fpsan the trace inside (an Android bugreport keeps its traces under FS/data/misc/perfetto-traces/)", zip.display())));
    cases.push((
        &tar_gz,
        format!(
            "{} is a tar archive, not a trace; extract it (tar xf) and give fpsan the trace inside",
            tar_gz.display()
        ),
    ));
    if have_fifo {
        cases.push((&fifo, format!("{} is not a Perfetto trace (it is not a regular file (a pipe, socket or device); save the trace to a file first){not_a_trace_hint}", fifo.display())));
    } else {
        println!("mkfifo unavailable: the FIFO case is skipped");
    }
    for (path, want) in cases {
        for cmd in ["info", "analyze"] {
            let (code, stdout, stderr) = fpsan_run(&[cmd.as_ref(), path.as_os_str()]);
            assert_eq!(code, 1, "{cmd} {}: {stderr}", path.display());
            assert_eq!(stdout, "", "{cmd} {}", path.display());
            assert_eq!(stderr, format!("fpsan: {want}\n"), "{cmd} {}", path.display());
        }
    }
}

#[test]
fn cli_a_truncated_trace_is_analysed_with_a_warning() {
    let bytes = demo();
    let dir = tempfile::tempdir().unwrap();
    let cut = write_temp(&dir, "cut.pftrace", &bytes[..bytes.len() - 400]);
    let (code, stdout, stderr) =
        fpsan_run(&["analyze".as_ref(), cut.as_os_str(), "--format".as_ref(), "json".as_ref()]);
    assert_eq!(code, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let warnings = json["warnings"].as_array().unwrap();
    // Each warning is {code, severity, message}: the code is what a program
    // matches on; a cut file lost data, and stderr says so.
    assert!(
        warnings.iter().any(|w| w["code"] == "trace_truncated"
            && w["severity"] == "data_loss"
            && w["message"].as_str().unwrap().contains("the file is truncated")),
        "{warnings:?}"
    );
    assert!(!json["frames"].as_array().unwrap().is_empty());
    assert!(
        stderr.lines().any(|l| l.starts_with("fpsan: data loss: ") && l.contains("the file is truncated")),
        "{stderr}"
    );
    assert!(
        stderr
            .lines()
            .all(|l| ["fpsan: data loss: ", "fpsan: warning: ", "fpsan: note: "].iter().any(|p| l.starts_with(p))),
        "{stderr}"
    );
}

// ---- damaged traces: partial analysis -------------------------------------------

fn demo() -> Vec<u8> {
    std::fs::read(testdata("demo.pftrace")).unwrap()
}

#[test]
fn truncated_gzip_and_zstd_are_analysed_up_to_the_cut() {
    let full = load_bytes("demo", demo()).unwrap();
    let compressed = [("gzip", gzip(&demo())), ("zstd", zstd::encode_all(&demo()[..], 3).unwrap())];
    for (kind, bytes) in compressed {
        let cut = bytes[..bytes.len() / 2].to_vec();
        let t = load_bytes(&format!("demo.{kind}"), cut).unwrap();
        assert_eq!(t.meta.container.as_str(), kind);
        assert!(!t.slices.is_empty() && t.slices.len() < full.slices.len(), "{kind}: {} slices", t.slices.len());
        let w = warnings(&t);
        assert!(
            w.starts_with(&format!("the {kind} stream ends early: the file was cut (interrupted pull?); ")),
            "{kind}: {w}"
        );
        assert!(w.contains("bytes inflated and were analysed, the rest is lost"), "{kind}: {w}");
    }
}

#[test]
fn a_truncated_plain_trace_reports_how_much_was_lost() {
    let bytes = demo();
    let cut = bytes[..bytes.len() - 1000].to_vec();
    let t = load_bytes("cut.pftrace", cut.clone()).unwrap();
    let f = fpsan::read::framing::frame(&cut);
    assert!(f.trailing_bytes > 0);
    assert_eq!(t.meta.data_loss.truncated_bytes, f.trailing_bytes as u64);
    let pct = f.trailing_bytes as f64 * 100.0 / cut.len() as f64;
    assert!(
        warnings(&t).contains(&format!(
            "the last {} bytes ({pct:.1}% of the trace) were not decoded, the analysis covers what came before",
            f.trailing_bytes
        )),
        "{:?}",
        t.meta.warnings
    );
}

#[test]
fn a_bit_flipped_trace() {
    let bytes = demo();
    let f = fpsan::read::framing::frame(&bytes);
    // Flip the wire type of a packet header halfway through: 0x0a → 0x0b
    // (groups). Top-level packets are contiguous: packet k's header starts
    // where packet k-1 ends.
    let header = f.packets[f.packets.len() / 2 - 1].1;
    assert_eq!(bytes[header], 0x0a);
    let mut flipped = bytes.clone();
    flipped[header] ^= 0x01;
    let t = load_bytes("flipped.pftrace", flipped).unwrap();
    let lost = bytes.len() - header;
    assert_eq!(t.meta.data_loss.truncated_bytes, lost as u64);
    assert!(
        warnings(&t).contains(&format!(
            "byte {header} is not a packet header (wire type 3): the rest of the file is not a trace; the last {lost} bytes"
        )),
        "{:?}",
        t.meta.warnings
    );
    // Random bit flips anywhere: an error or a partial model, never a panic.
    let mut rng = XorShift(0xf11b);
    for _ in 0..64 {
        let mut b = bytes.clone();
        for _ in 0..4 {
            let i = (rng.next() % b.len() as u64) as usize;
            b[i] ^= 1 << (rng.next() % 8);
        }
        match load_bytes("flip", b) {
            Ok(t) => assert!(t.slices.iter().all(|s| s.dur >= -1)),
            Err(e) => assert!(!e.to_string().contains('\n')),
        }
    }
}

// ---- the model builder on hostile values ----------------------------------------

fn rec(ts: i64, order: u64, tid: i32, op: AtraceOp) -> AtraceRec {
    AtraceRec { ts, order, tid, op }
}

fn begin(name: &str) -> AtraceOp {
    AtraceOp::Begin { tgid: 100, name: name.into() }
}

#[test]
fn timestamps_at_the_i64_limits_saturate() {
    let batch = Batch {
        atrace: vec![rec(-5, 1, 100, begin("outer")), rec(i64::MAX, 2, 100, AtraceOp::End { tgid: 100 })],
        renames: vec![(i64::MAX, 3, 100, "renamed".into())],
        min_ts: Some(i64::MIN + 1),
        max_ts: Some(i64::MAX),
        ..Default::default()
    };
    let t = build(vec![batch]);
    assert_eq!(t.slices.len(), 1);
    // A slice longer than i64::MAX ns (292 years) is clamped to that.
    assert_eq!(t.slices[0].dur, i64::MAX);
    assert_eq!(t.slices[0].end(), Some(i64::MAX - 5));
    assert_eq!(t.span_ns(), i64::MAX);
    assert_eq!(t.threads[0].name.as_deref(), Some("renamed"));
}

#[test]
fn frame_timeline_at_the_i64_limits() {
    // Just inside the ±(i64::MAX - 10 s) window trace_processor accepts.
    let near = i64::MAX - 10_000_000_001;
    let clock = ClockRef { explicit: Some(6), seq: 1 };
    let start = TimelineEvent::Start {
        start: TimelineStart::ExpectedSurface,
        cookie: 1,
        token: Some(5),
        display_frame_token: Some(6),
        pid: Some(100),
        layer_name: None,
        present_type: None,
        on_time_finish: false,
        gpu_composition: false,
        jank_type: 0,
        prediction_type: None,
        jank_severity_type: None,
        present_delay_ms: None,
    };
    let batch = Batch {
        timeline: vec![
            TimelineRec { ts: -near, clock, order: 1, event: start.clone() },
            TimelineRec { ts: 0, clock, order: 2, event: start },
            TimelineRec { ts: near, clock, order: 3, event: TimelineEvent::End { cookie: 1 } },
        ],
        ..Default::default()
    };
    let t = build(vec![batch]);
    // The negative start is dropped (trace_processor drops negative trace
    // times); the one at 0 ends just inside the accepted window.
    assert_eq!(t.frame_timeline.len(), 1);
    assert_eq!((t.frame_timeline[0].ts, t.frame_timeline[0].dur), (0, near));
}

#[test]
fn slices_deeper_than_the_limit_are_dropped_and_ends_match_trace_processor() {
    let mut atrace: Vec<AtraceRec> = (0..600).map(|i| rec(i, i as u64, 100, begin(&format!("s{i}")))).collect();
    atrace.extend((0..600).map(|i| rec(1000 + i, 1000 + i as u64, 100, AtraceOp::End { tgid: 100 })));
    let t = build(vec![Batch { atrace, ..Default::default() }]);
    assert_eq!(t.slices.len(), 512);
    // As in trace_processor, the Es of the dropped Bs close the deepest open
    // slices first; the last 88 find nothing open: they end the 88 dropped
    // begins, neither the capture's start nor a loss.
    assert_eq!(t.slices[511].dur, 489);
    assert_eq!(t.slices[0].dur, 1511);
    assert_eq!((t.meta.data_loss.unmatched_ends, t.meta.cut_at_start), (0, 0));
    assert!(warnings(&t).contains("88 slices nested deeper than 512 levels"), "{:?}", t.meta.warnings);
}

#[test]
fn an_end_without_its_begin_is_counted_not_fatal() {
    // The first E is the ring buffer's cut start (before the thread's first
    // B): information. The last one's B is gone although the thread had
    // slices: with no loss reported, that is the start too (its B was
    // written on a CPU whose buffer starts later; docs/limits.md).
    let atrace = vec![
        rec(5, 1, 100, AtraceOp::End { tgid: 100 }),
        rec(10, 2, 100, begin("kept")),
        rec(20, 3, 100, AtraceOp::End { tgid: 100 }),
        rec(30, 4, 100, AtraceOp::End { tgid: 100 }),
    ];
    let t = build(vec![Batch { atrace, ..Default::default() }]);
    assert_eq!(t.slices.len(), 1);
    assert_eq!((t.slices[0].ts, t.slices[0].dur), (10, 10));
    assert_eq!((t.meta.data_loss.unmatched_ends, t.meta.cut_at_start), (0, 2));
}

// ---- the atrace parser: properties from SPEC §2 ---------------------------------

mod atrace_props {
    use fpsan::read::atrace::{parse, AtracePoint, ParseOutcome};
    use proptest::prelude::*;

    /// A name as apps write them: no '|', '\n' or '\0', not empty.
    fn name() -> impl Strategy<Value = String> {
        "[A-Za-z0-9#:_ ./()-]{1,40}"
    }

    /// `line` parses to exactly `want`.
    fn parses_to(line: String, want: AtracePoint<'_>) -> Result<(), TestCaseError> {
        prop_assert_eq!(parse(&line), ParseOutcome::Point(want), "line {:?}", line);
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn begin(tgid in 1u32..i32::MAX as u32, n in name(), tail in "[\n\0]{0,3}") {
            parses_to(format!("B|{tgid}|{n}{tail}"), AtracePoint::Begin { tgid, name: &n })?;
        }

        #[test]
        fn begin_names_keep_pipes(tgid in 1u32..100_000, a in name(), b in name()) {
            let full = format!("{a}|{b}");
            parses_to(format!("B|{tgid}|{a}|{b}"), AtracePoint::Begin { tgid, name: &full })?;
        }

        #[test]
        fn end(tgid in 0u32..i32::MAX as u32, tail in "[\n\0]{0,3}") {
            parses_to(format!("E|{tgid}{tail}"), AtracePoint::End { tgid })?;
        }

        #[test]
        fn counter(tgid in 1u32..100_000, n in name(), value in any::<i64>()) {
            parses_to(format!("C|{tgid}|{n}|{value}\n"), AtracePoint::Counter { tgid, name: &n, value })?;
        }

        #[test]
        fn async_begin_end(tgid in 1u32..100_000, n in name(), cookie in any::<i64>()) {
            parses_to(format!("S|{tgid}|{n}|{cookie}"), AtracePoint::AsyncBegin { tgid, name: &n, cookie })?;
            parses_to(format!("F|{tgid}|{n}|{cookie}\0"), AtracePoint::AsyncEnd { tgid, name: &n, cookie })?;
        }

        #[test]
        fn instants(tgid in 1u32..100_000, track in name(), n in name()) {
            parses_to(format!("I|{tgid}|{n}"), AtracePoint::Instant { tgid, name: &n })?;
            parses_to(format!("N|{tgid}|{track}|{n}"), AtracePoint::TrackInstant { tgid, track: &track, name: &n })?;
        }

        #[test]
        fn track_slices(tgid in 1u32..100_000, track in name(), n in name(), cookie in any::<i64>()) {
            parses_to(
                format!("G|{tgid}|{track}|{n}|{cookie}"),
                AtracePoint::TrackBegin { tgid, track: &track, name: &n, cookie },
            )?;
            parses_to(format!("H|{tgid}|{track}|{cookie}"), AtracePoint::TrackEnd { tgid, track: &track, cookie })?;
            parses_to(format!("H|{tgid}|{track}|{n}|{cookie}"), AtracePoint::TrackEnd { tgid, track: &track, cookie })?;
        }

        #[test]
        fn arbitrary_strings_never_panic_and_ignore_trailing_newlines(s in any::<String>(), tail in "[\n\0]{0,4}") {
            let base = parse(&s);
            let padded = format!("{s}{tail}");
            prop_assert_eq!(parse(&padded), base);
        }

        #[test]
        fn other_phase_letters_are_malformed(c in "[AJ-MO-RT-Za-z]", rest in "[|0-9a-z]{0,20}") {
            let line = format!("{c}{rest}");
            prop_assert_eq!(parse(&line), ParseOutcome::Malformed);
        }
    }
}
