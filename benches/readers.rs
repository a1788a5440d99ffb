//! Micro-benchmarks of the readers, in bytes per second (divan): the atrace
//! print parser, Perfetto framing, the whole parallel decode of a Perfetto
//! trace, and the legacy systrace text reader. Inputs come from the project's
//! trace builder, in memory, so nothing depends on the page cache.
//!
//! ```text
//! cargo bench --bench readers                 # all
//! cargo bench --bench readers -- atrace       # one
//! ```
//!
//! The whole-command figures (MB/s and peak RSS against `cat`, on a 1 GB
//! trace) are `examples/bench.rs`; these isolate one reader each so a change
//! to it can be measured on its own.

use std::sync::OnceLock;

use divan::counter::BytesCount;
use divan::{black_box, Bencher};
use fpsan::read::{self, atrace, framing, Source};
use tracegen::{scenarios, systrace};

fn main() {
    divan::main();
}

/// Sizes of the generated inputs.
const PERFETTO_BYTES: u64 = 32 << 20;
const SYSTRACE_BYTES: u64 = 16 << 20;

/// An input built once, on first use, by `generate`.
fn built(cell: &'static OnceLock<Vec<u8>>, generate: fn(&mut Vec<u8>) -> std::io::Result<u64>) -> &'static [u8] {
    cell.get_or_init(|| {
        let mut buf = Vec::new();
        generate(&mut buf).expect("generate");
        buf
    })
}

fn busy_perfetto() -> &'static [u8] {
    static TRACE: OnceLock<Vec<u8>> = OnceLock::new();
    built(&TRACE, |w| scenarios::busy_phone(w, PERFETTO_BYTES))
}

fn busy_systrace_text() -> &'static [u8] {
    static TRACE: OnceLock<Vec<u8>> = OnceLock::new();
    built(&TRACE, |w| systrace::busy_systrace(w, SYSTRACE_BYTES))
}

/// Print buffers as apps and the framework write them.
const ATRACE_LINES: [&str; 8] = [
    "B|4321|Choreographer#doFrame 1234567",
    "B|4321|traversal",
    "E|4321",
    "C|4321|VSYNC-app|1",
    "S|4321|launching: com.example.app|7",
    "F|4321|launching: com.example.app|7",
    "B|4321|RV OnBindView",
    "E|4321\n",
];

#[divan::bench]
fn atrace_parse(b: Bencher) {
    // A thousand lines per iteration, so the timer's own cost does not count.
    let lines: Vec<&str> = ATRACE_LINES.iter().copied().cycle().take(1000).collect();
    let bytes: usize = lines.iter().map(|l| l.len()).sum();
    b.counter(BytesCount::new(bytes)).bench(|| {
        for line in &lines {
            black_box(atrace::parse(black_box(line)));
        }
    });
}

#[divan::bench]
fn perfetto_framing(b: Bencher) {
    let trace = busy_perfetto();
    b.counter(BytesCount::of_slice(trace)).bench(|| black_box(framing::frame(black_box(trace))));
}

/// The whole decode of `bytes` (read as the file name's format is sniffed).
fn decode(b: Bencher, name: &str, bytes: &'static [u8]) {
    b.counter(BytesCount::of_slice(bytes))
        .with_inputs(|| Source::from_bytes(name, bytes.to_vec()).expect("source"))
        .bench_refs(|source| {
            black_box(read::decode(source, &fpsan::analysis::frame_read_options(fpsan::sink::Sink::quiet())))
        });
}

#[divan::bench(sample_count = 10)]
fn perfetto_decode(b: Bencher) {
    decode(b, "busy.pftrace", busy_perfetto());
}

#[divan::bench(sample_count = 10)]
fn systrace_text_decode(b: Bencher) {
    decode(b, "busy.systrace", busy_systrace_text());
}
