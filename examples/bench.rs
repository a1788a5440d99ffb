//! Throughput benchmark: generates a busy-phone trace (sched every ~50 µs per
//! CPU on 8 CPUs, atrace frames of 3 apps, FrameTimeline) of the requested
//! size, then times `info`'s work (open + decode) and `analyze`'s work
//! (decode, scheduler pass for the frame threads, frame reconstruction) and
//! prints MB/s and the process's peak RSS.
//!
//! cargo run --release --example bench -- [SIZE_MB=1024] [PATH=/tmp/fpsan-bench-SIZE.pftrace]
//!
//! The trace is generated once and reused. Run `info` and `analyze` in
//! separate processes (`--only info|analyze`) to see each one's own peak RSS.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use fpsan::analysis;
use fpsan::read::{self, ReadOptions, Source};
use fpsan::tracegen::scenarios;

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1)).cloned();
    let positional: Vec<&String> = args.iter().filter(|a| !a.starts_with("--") && Some(*a) != only.as_ref()).collect();
    let size_mb: u64 = positional.first().map_or(Ok(1024), |s| s.parse())?;
    let path = positional.get(1).map_or_else(|| PathBuf::from(format!("/tmp/fpsan-bench-{size_mb}.pftrace")), PathBuf::from);
    if !path.exists() {
        let t = Instant::now();
        let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&path)?);
        let n = scenarios::busy_phone(&mut w, size_mb << 20)?;
        w.flush()?;
        eprintln!("generated {} ({:.0} MB) in {:.1} s", path.display(), n as f64 / 1e6, t.elapsed().as_secs_f64());
    }
    let bytes = std::fs::metadata(&path)?.len() as f64;
    let mb = bytes / 1e6;

    if only.as_deref().is_none_or(|o| o == "info") {
        let t = Instant::now();
        let source = Source::open(&path)?;
        let trace = analysis::decode(&source, &ReadOptions::default())?;
        let secs = t.elapsed().as_secs_f64();
        println!(
            "info    {mb:8.0} MB in {secs:6.2} s = {:7.0} MB/s   packets {} slices {} sched events {}   peak RSS {:.0} MB",
            mb / secs,
            trace.meta.packets,
            trace.slices.len(),
            trace.meta.sched_events,
            peak_rss_mb()
        );
    }
    if only.as_deref() == Some("phases") {
        // Where decode time goes: framing (sequential), parallel batch decode, model build.
        let t = Instant::now();
        let source = Source::open(&path)?;
        let framing = read::framing::frame(source.data());
        let t_frame = t.elapsed().as_secs_f64();
        let batches = read::decode::decode_all(source.data(), &framing, &|_| {}, &|o| source.release_before(o));
        let t_decode = t.elapsed().as_secs_f64() - t_frame;
        let trace = fpsan::import::import(read::Decoded { batches, source: Default::default() });
        let t_build = t.elapsed().as_secs_f64() - t_frame - t_decode;
        println!(
            "phases  framing {t_frame:.3} s ({:.0} MB/s), decode {t_decode:.3} s ({:.0} MB/s), build {t_build:.3} s; {} slices",
            mb / t_frame,
            mb / t_decode,
            trace.slices.len()
        );
    }
    if only.as_deref().is_none_or(|o| o == "analyze") {
        let t = Instant::now();
        let opts = analysis::Options::default();
        let (source, trace) = analysis::open(&path, &ReadOptions::default())?;
        let decoded = t.elapsed().as_secs_f64();
        let done = analysis::frames_of(&source, trace, &opts);
        let secs = t.elapsed().as_secs_f64();
        println!(
            "analyze {mb:8.0} MB in {secs:6.2} s = {:7.0} MB/s   (decode {decoded:.2} s, sched pass + frames {:.2} s) frames {}   peak RSS {:.0} MB",
            mb / secs,
            secs - decoded,
            done.frames.rows.len(),
            peak_rss_mb()
        );
    }
    Ok(())
}
