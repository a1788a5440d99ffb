//! The speed guard `.ci/run` runs: on a generated busy-phone trace
//! (`ceilings::TRACE_MIB`, the same bytes every time) it checks
//!
//! - the work one analysis does, in this process through the one entry
//!   point (`analysis::analyze`, as `fpsan analyze`): scheduler records
//!   kept, critical-path segments (in all, and in the longest frame's path),
//!   frames, slices, and the allocator calls and bytes made during the
//!   analysis (this binary's global allocator counts them), each against its
//!   ceiling in `guard/ceilings.rs`; counts do not flake;
//! - what `analyze` costs in `info`'s time: `ceilings::PAIRS` pairs of the
//!   release binary's `analyze` then `info`, each right after a `cat` of the
//!   trace, after one warm-up pair; the median of the pairs' ratios against
//!   a generous limit, since one machine's speed drifts between runs but
//!   much less within a pair.
//!
//! It prints what it measured every time and exits 1 with one line per
//! failed check.
//!
//! ```text
//! cargo build --release --all-targets && cargo run --release --example guard [-- --bin PATH]
//! ```
//!
//! The binary timed is `target/release/fpsan` unless `--bin` names one. The
//! trace is written to `target/tmp/` (beside `target/release/`) on every run
//! (a few seconds, so a change of the generator cannot leave a stale one)
//! and removed at the end.

#[path = "guard/ceilings.rs"]
mod ceilings;
#[path = "bench/paired.rs"]
mod paired;
#[path = "bench/work.rs"]
mod work;

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use ceilings::{grouped, Count};
use fpsan::analysis;
use paired::{Cmd, Res, Spread};

/// The system allocator, counting calls and the bytes they ask for.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static ALLOCATED_BYTES: AtomicU64 = AtomicU64::new(0);

fn counted(bytes: usize) {
    ALLOCATIONS.fetch_add(1, Relaxed);
    ALLOCATED_BYTES.fetch_add(bytes as u64, Relaxed);
}

// SAFETY: every call is passed on unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        counted(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        counted(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        counted(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `--bin PATH`, the binary to time, if given.
fn parse_args() -> Res<Option<PathBuf>> {
    let mut bin = None;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--bin" => bin = Some(it.next().ok_or("--bin needs a value")?.into()),
            s => return Err(format!("unknown argument {s} (--bin PATH)").into()),
        }
    }
    Ok(bin)
}

fn main() -> Res<()> {
    // As the CLI does before any thread exists (src/memory.rs).
    fpsan::memory::fix_mmap_threshold();
    let started = Instant::now();
    let bin = match parse_args()? {
        Some(b) => b,
        None => paired::beside_me("fpsan")?,
    };
    // target/release/examples/guard -> target/tmp/
    let exe = std::env::current_exe()?;
    let target = exe.ancestors().nth(3).ok_or("no target directory")?;
    let trace = target.join("tmp").join(format!("guard-busy-{}.pftrace", ceilings::TRACE_MIB));
    generate(&trace)?;
    let measured = measure(&bin, &trace);
    let _ = std::fs::remove_file(&trace);
    let failed = measured?;
    println!("guard took {:.1} s", started.elapsed().as_secs_f64());
    if failed.is_empty() {
        println!("guard: pass");
        return Ok(());
    }
    for line in &failed {
        println!("guard FAILED: {line}");
    }
    std::process::exit(1);
}

/// Both checks on the trace, printing what they measure; the failed
/// checks' lines.
fn measure(bin: &Path, trace: &Path) -> Res<Vec<String>> {
    let mut failed = Vec::new();

    let counts = work_counts(trace)?;
    println!("{:<42} {:>14} {:>14} {:>6}", "work count", "measured", "ceiling", "used");
    for &(count, value) in &counts {
        let ceiling = ceilings::CEILINGS.iter().find(|c| c.0 == count).map(|c| c.1);
        let used = ceiling.map_or("-".to_string(), |c| format!("{:.0} %", 100.0 * value as f64 / c.max(1) as f64));
        println!("{:<42} {:>14} {:>14} {:>6}", count.name(), grouped(value), ceiling.map_or("-".into(), grouped), used);
    }
    failed.extend(ceilings::over_ceilings(&counts, &ceilings::CEILINGS));

    let ratio = analyze_info_ratio(bin, trace)?;
    failed.extend(ratio_over(ratio.median, ceilings::MAX_ANALYZE_INFO_RATIO));
    Ok(failed)
}

/// Writes the guard's trace (to a `.partial` file renamed when complete).
fn generate(path: &Path) -> Res<()> {
    let t = Instant::now();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("partial");
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
    let bytes = tracegen::scenarios::busy_phone(&mut w, ceilings::TRACE_MIB << 20)?;
    w.flush()?;
    drop(w);
    std::fs::rename(&tmp, path)?;
    println!(
        "{}: {:.0} MB busy-phone trace, written in {:.1} s",
        path.display(),
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// One analysis in this process, as `fpsan analyze` runs it, and its counts
/// in `Count::ALL` order.
fn work_counts(trace: &Path) -> Res<Vec<(Count, u64)>> {
    let (calls, bytes) = (ALLOCATIONS.load(Relaxed), ALLOCATED_BYTES.load(Relaxed));
    let t = Instant::now();
    let analysis = analysis::analyze(trace, &analysis::Options::default())?;
    let secs = t.elapsed().as_secs_f64();
    let (calls, bytes) = (ALLOCATIONS.load(Relaxed) - calls, ALLOCATED_BYTES.load(Relaxed) - bytes);
    println!("in-process analysis: {secs:.2} s");
    let segments = work::path_segments(&analysis.trace, &analysis.frames);
    let n = |x: usize| x as u64;
    Ok(Count::ALL
        .iter()
        .map(|&count| {
            let value = match count {
                Count::SchedRecords => n(analysis.sched_records),
                Count::PathSegments => n(segments.iter().sum()),
                Count::FramePathSegmentsMax => n(segments.iter().copied().max().unwrap_or(0)),
                Count::Frames => n(analysis.frames.rows.len()),
                Count::Slices => n(analysis.trace.slices.len()),
                Count::Allocations => calls,
                Count::AllocatedBytes => bytes,
            };
            (count, value)
        })
        .collect())
}

/// `analyze` / `info` wall time over paired runs after a warm-up pair;
/// prints each side and the pairs' ratio.
fn analyze_info_ratio(bin: &Path, trace: &Path) -> Res<Spread> {
    let path = trace.to_str().ok_or("non-UTF-8 trace path")?;
    let stderr = std::env::temp_dir().join(format!("fpsan-guard-stderr-{}", std::process::id()));
    let (analyze, info) = (Cmd { bin, args: &["analyze", path] }, Cmd { bin, args: &["info", path] });
    paired::pairs(&analyze, &info, 1, trace, &stderr, &|| {})?;
    let pairs = paired::pairs(&analyze, &info, ceilings::PAIRS, trace, &stderr, &|| {})?;
    let _ = std::fs::remove_file(&stderr);
    let ratio = paired::report("analyze/info wall", ["analyze", "info"], &pairs)?;
    println!(
        "  each pair: {}; limit {:.2}",
        pairs.iter().map(|(a, i)| format!("{:.2}", a.wall / i.wall)).collect::<Vec<_>>().join(" "),
        ceilings::MAX_ANALYZE_INFO_RATIO
    );
    Ok(ratio)
}

/// The failure line of a median ratio above its limit.
fn ratio_over(median: f64, limit: f64) -> Option<String> {
    (median > limit).then(|| format!("analyze/info wall ratio: {median:.2} over its ceiling {limit:.2}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_at_its_limit_passes_and_one_above_fails_naming_both() {
        assert_eq!(ratio_over(2.3, 2.3), None);
        assert_eq!(ratio_over(2.31, 2.3).as_deref(), Some("analyze/info wall ratio: 2.31 over its ceiling 2.30"));
    }
}
