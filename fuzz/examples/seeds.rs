//! Writes the fuzz seed corpora (never committed: fuzz/corpus is ignored).
//!
//! ```text
//! cargo run --manifest-path fuzz/Cargo.toml --example seeds -- fuzz/corpus
//! ```
//!
//! `decode`/`analyze` get small traces from the `tracegen` crate (tracegen/) (plain, zlib
//! and zstd in-stream batches, compact sched, track events, FrameTimeline),
//! the project's own small test traces, and the small conformance traces in
//! ../shared/conformance when present; `atrace` gets one line per grammar
//! form from SPEC §2 and the systrace lines of the conformance traces.

use std::fs;
use std::path::{Path, PathBuf};

use tracegen::{scenarios, ActualFrame, BuildOptions, Compression, TraceBuilder};

/// Seeds larger than this slow libFuzzer's mutations down for no gain.
const MAX_SEED: u64 = 256 << 10;

fn small_app(b: &mut TraceBuilder) {
    b.process(100, "com.example.app").thread(100, 100, "example.app").thread(101, 100, "RenderThread");
    b.process(600, "/system/bin/surfaceflinger").thread(612, 600, "app");
    let period = 16_666_667;
    for k in 0..6i64 {
        let vsync = 1_000_000_000 + k * period;
        b.atrace_counter(vsync, 612, 600, "VSYNC-app", k & 1);
        b.atrace_begin(vsync + 100_000, 100, 100, &format!("Choreographer#doFrame {}", 500 + k));
        b.slice(vsync + 200_000, 1_000_000, 100, 100, "traversal");
        b.atrace_end(vsync + 5_000_000 + k * 3_000_000, 100, 100);
        b.slice(vsync + 6_000_000, 2_000_000, 101, 100, &format!("DrawFrames {}", 500 + k));
        b.expected_surface_frame(vsync, Some(vsync + period), 500 + k, 900 + k, 100, "com.example.app#0");
        let f = ActualFrame {
            token: 500 + k,
            display_frame_token: 900 + k,
            pid: 100,
            layer: "com.example.app#0".into(),
            present_type: 1,
            jank_type: if k == 3 { 64 } else { 1 },
            ..Default::default()
        };
        b.actual_surface_frame(vsync, Some(vsync + 9_000_000 + k * 3_000_000), f);
    }
    b.atrace_async_begin(1_000_000_000, 100, 100, "launching: com.example.app", 7);
    b.atrace_async_end(1_050_000_000, 100, 100, "launching: com.example.app", 7);
    b.atrace_raw(1_060_000_000, 100, "E|100");
    b.track_event_slice(1_010_000_000, 500_000, 100, 102, "te slice");
    b.sched_switch(1_000_000_500, 0, 0, "swapper/0", 0, 100, ".example.app");
}

fn main() {
    let out = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "fuzz/corpus".into()));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (decode, analyze, atrace) = (out.join("decode"), out.join("analyze"), out.join("atrace"));
    for d in [&decode, &analyze, &atrace] {
        fs::create_dir_all(d).expect("create corpus dir");
    }
    let mut traces: Vec<(String, Vec<u8>)> = Vec::new();
    for (i, compression) in [Compression::None, Compression::Zlib, Compression::Zstd].into_iter().enumerate() {
        for compact_sched in [false, true] {
            let mut b = TraceBuilder::new();
            small_app(&mut b);
            let opts = BuildOptions {
                compression,
                compact_sched,
                events_per_bundle: 8,
                tracing_started: Some(999_000_000),
                first_bundle_previous_end: i == 1,
                sequences: 2,
                ..BuildOptions::default()
            };
            traces.push((format!("tracegen-{i}-{compact_sched}.pftrace"), b.build(&opts)));
        }
    }
    traces.push(("tracegen-empty.pftrace".into(), TraceBuilder::new().build(&BuildOptions::default())));
    let demo = scenarios::demo_scroll().build(&scenarios::demo_build_options());
    // The demo is 400 KB: its head is still a valid (truncated) trace.
    traces.push(("demo-head.pftrace".into(), demo[..demo.len().min(MAX_SEED as usize)].to_vec()));
    for p in [
        root.join("tests/fake_adb/tiny.pftrace"),
        root.join("tests/fake_adb/ok.pftrace"),
        root.join("testdata/demo.pftrace"),
    ] {
        if let Ok(bytes) = fs::read(&p) {
            let n = bytes.len().min(MAX_SEED as usize);
            traces.push((p.file_name().unwrap().to_string_lossy().into_owned(), bytes[..n].to_vec()));
        }
    }
    let mut lines: Vec<String> = [
        "B|1636|pokeUserActivity",
        "E|1636",
        "E",
        "C|1636|wq:monitor|0",
        "C|3209|bytes|-5|Blob",
        "S|1636|frame_capture|123",
        "F|1636|frame_capture|123",
        "I|4820|instant",
        "N|1938|track|instant",
        "G|1339|track|slice|789",
        "H|6890|track|slice|135",
        "H|6890|track|135",
        "B|7|a|b|c\n\0",
        "trace_event_clock_sync: parent_ts=1.0",
        "B| 12|name",
        "C|1|n|99999999999999999999",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let conformance = root.join("../shared/conformance");
    if let Ok(dirs) = fs::read_dir(&conformance) {
        for d in dirs.flatten() {
            for f in fs::read_dir(d.path()).into_iter().flatten().flatten() {
                let p = f.path();
                let Ok(meta) = f.metadata() else { continue };
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                if !name.starts_with("trace") || meta.len() > MAX_SEED {
                    continue;
                }
                let Ok(bytes) = fs::read(&p) else { continue };
                if name.ends_with("systrace") || name.ends_with(".txt") {
                    lines.extend(String::from_utf8_lossy(&bytes).lines().take(50).map(str::to_string));
                }
                let dir = d.file_name().to_string_lossy().into_owned();
                traces.push((format!("conf-{dir}-{name}"), bytes));
            }
        }
    }
    for (name, bytes) in &traces {
        fs::write(decode.join(name), bytes).expect("write seed");
        fs::write(analyze.join(name), bytes).expect("write seed");
    }
    for (i, l) in lines.iter().enumerate() {
        fs::write(atrace.join(format!("line-{i}")), l).expect("write seed");
    }
    eprintln!("wrote {} trace seeds and {} atrace lines under {}", traces.len(), lines.len(), out.display());
}
