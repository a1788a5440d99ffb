//! Times `fpsan compare` on N + N generated runs against analysing the same
//! 2N traces one after another (what a user comparing by hand would run),
//! and reports the statistics' share.
//!
//! ```text
//! cargo run --release --example compare_bench -- [SIZE_MB=3] [RUNS_PER_SIDE=100]
//! ```
//!
//! Target: compare ≤ 1.3 × the sequential analyses.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fpsan::analysis::{self, Options};
use fpsan::compare::{self, CompareFormat, CompareRequest};
use tracegen::scenarios;

fn generate(dir: &Path, runs: usize, mb: u64) -> std::io::Result<Vec<PathBuf>> {
    let first = dir.join("before/run-0.pftrace");
    std::fs::create_dir_all(dir.join("before"))?;
    std::fs::create_dir_all(dir.join("after"))?;
    {
        let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&first)?);
        scenarios::busy_phone(&mut w, mb << 20)?;
        w.flush()?;
    }
    // busy_phone is deterministic: the other runs are copies (separate files, so each run is read on its own).
    let mut paths = vec![first.clone()];
    for side in ["before", "after"] {
        for k in 0..runs {
            let p = dir.join(format!("{side}/run-{k}.pftrace"));
            if p != first {
                std::fs::copy(&first, &p)?;
                paths.push(p);
            }
        }
    }
    Ok(paths)
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mb: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(3);
    let runs: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
    let tmp = std::env::temp_dir().join(format!("fpsan-compare-bench-{}", std::process::id()));
    let t = Instant::now();
    let paths = generate(&tmp, runs, mb).expect("generate traces");
    eprintln!("generated {} traces of {mb} MB in {:.1} s", paths.len(), secs(t.elapsed()));

    let t = Instant::now();
    for p in &paths {
        analysis::analyze(p, &Options::default()).expect("analyze");
    }
    let sequential = t.elapsed();

    let a = CompareRequest {
        before: tmp.join("before"),
        after: tmp.join("after"),
        app: None,
        pids: None,
        out: None,
        format: CompareFormat::Json,
        fail_if: Vec::new(),
        alpha: 0.05,
        min_change_pct: 2.0,
        refresh_hz: None,
        indicative_gates: compare::IndicativeGates::Pass,
        decide_on: compare::DecideOn::Frames,
        whole_trace: false,
        color: false,
        sink: fpsan::sink::Sink::quiet(),
    };
    let t = Instant::now();
    let timings = compare::run(&a).expect("compare").timings;
    let total = t.elapsed();
    let _ = std::fs::remove_dir_all(&tmp);

    let budget = 1.3 * secs(sequential);
    eprintln!("{} × analyze one after another: {:.2} s", paths.len(), secs(sequential));
    eprintln!(
        "compare {runs} + {runs} runs: {:.2} s (analysing runs {:.2} s, per-run metrics + tests {:.3} s, output {:.3} s)",
        secs(total),
        secs(timings.load),
        secs(timings.compare),
        secs(timings.output)
    );
    eprintln!(
        "ratio compare / sequential analyses = {:.2} (target ≤ 1.3; budget {budget:.2} s): {}",
        secs(total) / secs(sequential),
        if secs(total) <= budget { "OK" } else { "OVER" }
    );
}
