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
use fpsan::read::{self, atrace, framing, ReadOptions, Source};
use fpsan::tracegen::{scenarios, systrace};

fn main() {
    divan::main();
}

/// Sizes of the generated inputs.
const PERFETTO_BYTES: u64 = 32 << 20;
const SYSTRACE_BYTES: u64 = 16 << 20;

fn busy_perfetto() -> &'static [u8] {
    static TRACE: OnceLock<Vec<u8>> = OnceLock::new();
    TRACE.get_or_init(|| {
        let mut buf = Vec::new();
        scenarios::busy_phone(&mut buf, PERFETTO_BYTES).expect("generate");
        buf
    })
}

fn busy_systrace_text() -> &'static [u8] {
    static TRACE: OnceLock<Vec<u8>> = OnceLock::new();
    TRACE.get_or_init(|| {
        let mut buf = Vec::new();
        systrace::busy_systrace(&mut buf, SYSTRACE_BYTES).expect("generate");
        buf
    })
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
    let bytes: usize = ATRACE_LINES.iter().map(|l| l.len()).sum();
    b.counter(BytesCount::new(bytes)).bench(|| {
        for line in ATRACE_LINES {
            black_box(atrace::parse(black_box(line)));
        }
    });
}

#[divan::bench]
fn perfetto_framing(b: Bencher) {
    let trace = busy_perfetto();
    b.counter(BytesCount::of_slice(trace)).bench(|| black_box(framing::frame(black_box(trace))));
}

#[divan::bench(sample_count = 10)]
fn perfetto_decode(b: Bencher) {
    let trace = busy_perfetto();
    b.counter(BytesCount::of_slice(trace))
        .with_inputs(|| Source::from_bytes("busy.pftrace", trace.to_vec()).expect("source"))
        .bench_refs(|source| black_box(read::decode(source, &ReadOptions { progress: false, frame_sched: true })));
}

#[divan::bench(sample_count = 10)]
fn systrace_text_decode(b: Bencher) {
    let text = busy_systrace_text();
    b.counter(BytesCount::of_slice(text))
        .with_inputs(|| Source::from_bytes("busy.systrace", text.to_vec()).expect("source"))
        .bench_refs(|source| black_box(read::decode(source, &ReadOptions { progress: false, frame_sched: true })));
}
