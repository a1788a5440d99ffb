//! Times `fpsan batch` over a generated fleet against analysing the same
//! traces one after another, and reports each's peak RSS (docs/lake.md,
//! "Speed"). Run each mode in its own process, so each peak is its own:
//!
//! ```text
//! cargo run --release --example batch_bench -- gen DIR [TRACES=200] [SIZE_MB=5]
//! cargo run --release --example batch_bench -- seq DIR
//! cargo run --release --example batch_bench -- batch DIR LAKE [JOBS=cores]
//! ```
//!
//! Target: batch ≥ 1.7 × the sequential throughput on 2 cores.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn traces(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir).expect("DIR").flatten().map(|e| e.path()).collect();
    v.sort();
    v
}

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| l.strip_prefix("VmHWM:")?.trim().strip_suffix("kB")?.trim().parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn total_mb(paths: &[PathBuf]) -> f64 {
    paths.iter().map(|p| std::fs::metadata(p).map_or(0, |m| m.len())).sum::<u64>() as f64 / 1e6
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: batch_bench gen DIR [TRACES] [SIZE_MB] | seq DIR | batch DIR LAKE [JOBS]";
    let (mode, dir) = (args.first().expect(usage).as_str(), PathBuf::from(args.get(1).expect(usage)));
    match mode {
        "gen" => {
            let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(200);
            let mb: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(5);
            std::fs::create_dir_all(&dir).expect("create DIR");
            for k in 0..n {
                let p = dir.join(format!("run-{k:04}.pftrace"));
                let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&p).expect("create"));
                tracegen::scenarios::busy_phone(&mut w, mb << 20).expect("generate");
                // Each its own content (the lake keys traces by hash): a last packet holding only
                // `timestamp = k + 1` (TracePacket field 8), which analysis ignores.
                let mut stamp = vec![0x40u8];
                let mut v = k + 1;
                while v >= 0x80 {
                    stamp.push((v as u8) | 0x80);
                    v >>= 7;
                }
                stamp.push(v as u8);
                w.write_all(&[0x0a, stamp.len() as u8]).and_then(|_| w.write_all(&stamp)).expect("write");
                w.flush().expect("write");
            }
            eprintln!("generated {n} traces, {:.0} MB", total_mb(&traces(&dir)));
        }
        "seq" => {
            let paths = traces(&dir);
            let t = Instant::now();
            for p in &paths {
                let opts = fpsan::analysis::Options { require_frames: false, ..Default::default() };
                fpsan::analysis::analyze(p, &opts).expect("analyze");
            }
            let s = t.elapsed().as_secs_f64();
            println!(
                "sequential: {} traces, {:.0} MB in {s:.2} s = {:.1} MB/s, {:.2} traces/s, peak RSS {:.0} MB",
                paths.len(),
                total_mb(&paths),
                total_mb(&paths) / s,
                paths.len() as f64 / s,
                peak_rss_mb()
            );
        }
        "batch" => {
            let lake = PathBuf::from(args.get(2).expect(usage));
            let jobs = args
                .get(3)
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
            let paths = traces(&dir);
            let t = Instant::now();
            let done = fpsan::batch::run(&fpsan::batch::BatchRequest {
                inputs: vec![dir.clone()],
                out: lake,
                keys: None,
                manifest: None,
                jobs,
                memory_mb: None,
                sink: fpsan::sink::Sink::quiet(),
            })
            .expect("batch");
            let s = t.elapsed().as_secs_f64();
            println!(
                "batch (jobs {jobs}): {} traces ({} analysed, {} skipped, {} failed), {:.0} MB in {s:.2} s = {:.1} MB/s, {:.2} traces/s, peak RSS {:.0} MB",
                done.traces,
                done.analysed,
                done.skipped,
                done.failed,
                total_mb(&paths),
                total_mb(&paths) / s,
                paths.len() as f64 / s,
                peak_rss_mb()
            );
        }
        _ => panic!("{usage}"),
    }
}
