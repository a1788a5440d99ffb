//! End-to-end benchmark of the release `fpsan` binary.
//!
//! Generates a trace of the requested size and shape into /tmp if it is not
//! there yet (`busy-phone`: 8 CPUs of sched noise, three apps drawing at 60,
//! 90 and 120 Hz with FrameTimeline; `repeated`: one 240-frame recording of
//! one app repeated with shifted timestamps, so vsync ids and tokens repeat),
//! then runs `fpsan info`, `fpsan analyze` (terminal table) and
//! `fpsan analyze --out DIR` as child processes, each `--runs` times right
//! after reading the whole file once (a timed "cat" into a discarded
//! buffer). Per command it prints the best wall time, MB/s, the ratio to the
//! cat before that run, and the child's user/system CPU seconds and peak RSS
//! (from `wait4`).
//!
//! ```text
//! cargo build --release && cargo run --release --example bench -- \
//!     [--shape busy-phone|repeated] [--mb 1024] [--runs 3] [--bin PATH] \
//!     [--only info,analyze,out] [--phases] [--vs OLD_BIN] [TRACE]
//! ```
//!
//! The binary is `target/release/fpsan` beside this example unless `--bin`
//! names one. `--phases` adds the old in-process breakdown (framing, batch
//! decode, model build, scheduler pass + frames).
//!
//! `--vs OLD_BIN` compares the binary with an older one instead: per
//! command, `--runs` pairs (default 7) of the new binary then the old, each
//! run right after a `cat` of the trace, and per side the median wall
//! (min–max), user CPU and peak RSS, and the paired ratio new/old (the
//! median of each pair's ratio, min–max), which a machine's drift moves far
//! less than either side's times (`bench/paired.rs`).

#[path = "bench/paired.rs"]
mod paired;
#[path = "bench/work.rs"]
mod work;

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use fpsan::analysis;
use fpsan::read::{self, Source};
use paired::{Cmd, Res};
use tracegen::scenarios;

struct Args {
    shape: String,
    mb: u64,
    /// None: 3 runs each, or 7 pairs with `--vs`.
    runs: Option<usize>,
    bin: Option<PathBuf>,
    only: Vec<String>,
    phases: bool,
    vs: Option<PathBuf>,
    path: Option<PathBuf>,
}

fn parse_args() -> Res<Args> {
    let mut a = Args {
        shape: "busy-phone".into(),
        mb: 1024,
        runs: None,
        bin: None,
        only: Vec::new(),
        phases: false,
        vs: None,
        path: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--shape" => a.shape = val()?,
            "--mb" => a.mb = val()?.parse()?,
            "--runs" => a.runs = Some(val()?.parse()?),
            "--bin" => a.bin = Some(val()?.into()),
            "--only" => a.only = val()?.split(',').map(str::to_string).collect(),
            "--phases" => a.phases = true,
            "--vs" => a.vs = Some(val()?.into()),
            s if !s.starts_with("--") => a.path = Some(s.into()),
            s => return Err(format!("unknown option {s}").into()),
        }
    }
    if a.only.is_empty() {
        a.only = vec!["info".into(), "analyze".into(), "out".into()];
    }
    Ok(a)
}

/// Generates the trace unless it exists; prints what it has.
fn ensure_trace(a: &Args) -> Res<PathBuf> {
    let path = a.path.clone().unwrap_or_else(|| match a.shape.as_str() {
        "busy-phone" => PathBuf::from(format!("/tmp/fpsan-bench-{}.pftrace", a.mb)),
        s => PathBuf::from(format!("/tmp/fpsan-bench-{s}-{}.pftrace", a.mb)),
    });
    if !path.exists() {
        let t = Instant::now();
        let tmp = path.with_extension("partial");
        let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
        let what = match a.shape.as_str() {
            "busy-phone" => format!("{} bytes", scenarios::busy_phone(&mut w, a.mb << 20)?),
            "repeated" => {
                let (n, k) = scenarios::repeated_recording_sized(&mut w, a.mb << 20)?;
                format!("{n} bytes, {k} recordings of {} frames", scenarios::REPEAT_FRAMES)
            }
            s => return Err(format!("unknown shape {s} (busy-phone, repeated)").into()),
        };
        w.flush()?;
        drop(w);
        std::fs::rename(&tmp, &path)?;
        eprintln!("generated {} ({what}) in {:.1} s", path.display(), t.elapsed().as_secs_f64());
    }
    Ok(path)
}

fn main() -> Res<()> {
    let a = parse_args()?;
    let path = ensure_trace(&a)?;
    let bin = match &a.bin {
        Some(b) => b.clone(),
        None => paired::beside_me("fpsan")?,
    };
    let mb = std::fs::metadata(&path)?.len() as f64 / 1e6;
    let trace = path.to_str().ok_or("non-UTF-8 path")?;
    let out_dir = std::env::temp_dir().join(format!("fpsan-bench-out-{}", std::process::id()));
    let stderr = std::env::temp_dir().join(format!("fpsan-bench-stderr-{}", std::process::id()));
    let out_str = out_dir.to_str().ok_or("non-UTF-8 temp dir")?.to_string();
    let clear_out = || {
        let _ = std::fs::remove_dir_all(&out_dir);
    };
    // What the last run of a command said (warnings), under its line.
    let show_stderr = || {
        for line in std::fs::read_to_string(&stderr).unwrap_or_default().lines().take(5) {
            println!("         stderr: {line}");
        }
    };
    let commands = a
        .only
        .iter()
        .map(|cmd| match cmd.as_str() {
            "info" => Ok((cmd.as_str(), vec!["info", trace])),
            "analyze" => Ok((cmd.as_str(), vec!["analyze", trace])),
            "out" => Ok((cmd.as_str(), vec!["analyze", trace, "--out", &out_str])),
            s => Err(format!("unknown command {s} (info, analyze, out)")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(old) = &a.vs {
        let n = a.runs.unwrap_or(7);
        println!("{} ({mb:.0} MB), {n} pairs each (new then old, each after a cat)", path.display());
        println!("new {}\nold {}", bin.display(), old.display());
        for (cmd, args) in &commands {
            let (new, old) = (Cmd { bin: &bin, args }, Cmd { bin: old, args });
            let pairs = paired::pairs(&new, &old, n, &path, &stderr, &clear_out)?;
            paired::report(&format!("{cmd:<8} new/old wall"), ["new", "old"], &pairs)?;
            show_stderr();
        }
    } else {
        let n = a.runs.unwrap_or(3);
        println!("{} ({mb:.0} MB), {n} runs each, binary {}", path.display(), bin.display());
        println!(
            "{:<8} {:>8} {:>9} {:>8} {:>8} {:>7} {:>7} {:>8}",
            "command", "wall s", "MB/s", "cat s", "xcat", "user s", "sys s", "RSS MB"
        );
        for (cmd, args) in &commands {
            let cmd_run = Cmd { bin: &bin, args };
            let mut runs = Vec::new();
            for _ in 0..n {
                clear_out();
                runs.push(cmd_run.run_after_cat(&path, &stderr)?);
            }
            let best = *runs.iter().min_by(|x, y| x.wall.total_cmp(&y.wall)).ok_or("--runs 0")?;
            println!(
                "{cmd:<8} {:>8.3} {:>9.0} {:>8.3} {:>8.1} {:>7.2} {:>7.2} {:>8.0}   (walls: {})",
                best.wall,
                mb / best.wall,
                best.cat,
                best.wall / best.cat,
                best.user,
                best.sys,
                best.rss_mb,
                runs.iter().map(|r| format!("{:.3}", r.wall)).collect::<Vec<_>>().join(" ")
            );
            show_stderr();
        }
    }
    clear_out();
    let _ = std::fs::remove_file(&stderr);
    if a.phases {
        phases(&path, mb)?;
    }
    Ok(())
}

/// Where the time goes inside one process: reading (framing and the
/// parallel batch decode, overlapped, keeping the frame threads' scheduler
/// records), model build, the scheduler records read ahead, frame-thread
/// selection, scheduler pass, frame reconstruction, presents, jank CUJs,
/// main-thread blocks, startups, input events, every frame's path totals and the frames
/// table (`--out`, `--format json|csv`), summaries, the worst frames'
/// whys; each with its wall time and the minor page faults it took (fresh
/// memory is slow on these VMs).
fn phases(path: &Path, mb: f64) -> Res<()> {
    fpsan::memory::fix_mmap_threshold();
    let mut laps = Laps::start();
    let source = Source::open(path)?;
    let (decoded, mut sched) = read::decode(&source, &analysis::frame_read_options(fpsan::sink::Sink::quiet()))?;
    laps.lap("read");
    // `analysis::decode` runs these two side by side; here each is timed alone.
    let trace = fpsan::import::import(decoded);
    laps.lap("build");
    sched.prefetch(&source);
    laps.lap("sched prefetch");
    let tids = fpsan::frames::frame_threads(&trace);
    laps.lap("frame threads");
    let sched = fpsan::import::sched_events(sched.threads(&source, &tids));
    laps.lap("sched pass");
    let kept_records: usize = sched.iter().map(Vec::len).sum();
    let opts = analysis::Options::default();
    // As `analysis::analyze` does: the whys of the janky frames the outputs
    // show once the summaries chose them, the path totals when a table is
    // made (not for the printed table).
    let mut frames = fpsan::frames::analyze_with(&trace, &opts.frames, fpsan::frames::Whys::Asked, |_| sched);
    laps.lap("frames");
    // The critical-path pass alone (part of `frames` above, done again here
    // to time it): every frame's path, as frames::rebuild walks them.
    let segments: usize = work::path_segments(&trace, &frames).iter().sum();
    laps.lap("(critical path)");
    let presents = fpsan::presents::analyze(&trace, &frames);
    laps.lap("presents");
    let cujs = fpsan::cujs::analyze(&trace, &frames);
    laps.lap("cujs");
    let _blocks = fpsan::blocks::analyze(&trace, &frames, &opts.blocks);
    laps.lap("blocks");
    let _startups = fpsan::startups::analyze(&trace, || fpsan::tables::android_frames::display_frames(&trace));
    laps.lap("startups");
    let _input =
        fpsan::input::analyze(&trace, &frames.display, || fpsan::tables::android_frames::display_frames(&trace));
    laps.lap("input");
    let (kept, scenes) = fpsan::metrics::kept_frames(&trace, &frames, &opts.filter, &presents.names);
    frames.total_paths(&trace);
    laps.lap("path totals");
    let _df = fpsan::tables::frames(&frames, &kept, &scenes)?;
    laps.lap("frames table");
    let mut apps = fpsan::metrics::summarize(&frames, &kept, &scenes, &presents, &opts.metrics);
    fpsan::metrics::attach_cujs(&mut apps, &frames, &cujs);
    laps.lap("summaries");
    let worst: Vec<usize> = apps.iter().flat_map(|a| a.worst_frames.iter().map(|w| w.frame_index)).collect();
    frames.explain_frames(&trace, worst);
    laps.lap("worst whys");
    println!("phases   {} MB read at {:.0} MB/s", mb as u64, mb / laps.0[0].1);
    for (name, secs, faults) in &laps.0 {
        println!("  {name:<14} {secs:.3} s  {faults:>7} minor faults");
    }
    println!(
        "  {} slices, {} sched events kept, {} frames, {} apps, {segments} critical-path segments",
        trace.slices.len(),
        kept_records,
        frames.rows.len(),
        apps.len()
    );
    Ok(())
}

/// (phase, wall seconds, minor page faults) per phase, and where the current one began.
struct Laps(Vec<(&'static str, f64, i64)>, Instant, i64);

impl Laps {
    fn start() -> Laps {
        Laps(Vec::new(), Instant::now(), minor_faults())
    }

    fn lap(&mut self, name: &'static str) {
        let faults = minor_faults();
        self.0.push((name, self.1.elapsed().as_secs_f64(), faults - self.2));
        (self.1, self.2) = (Instant::now(), faults);
    }
}

fn minor_faults() -> i64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    ru.ru_minflt
}
