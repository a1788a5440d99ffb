//! Writes synthetic Perfetto traces from the `tracegen` crate (tracegen/).
//!
//! ```text
//! cargo run --release --example gen_trace -- demo testdata/demo.pftrace
//! cargo run --release --example gen_trace -- busy OUT SIZE_MB
//! cargo run --release --example gen_trace -- systrace OUT SIZE_MB
//! cargo run --release --example gen_trace -- run OUT SEED JANK   (one run for `compare`, tracegen::ab_runs)
//! cargo run --release --example gen_trace -- fleet DIR DEVICES RUNS   (DIR/{b1,b2}/devN/run-K.pftrace, b2 smoother)
//! cargo run --release --example gen_trace -- screen OUT   (a launcher beside apps that animate, draw nothing: tracegen::screen)
//! cargo run --release --example gen_trace -- input OUT [late-up|scroll]   (input events from finger to screen: tracegen::input)
//! ```

use std::io::{BufWriter, Write};
use std::process::ExitCode;
use std::time::Instant;

use tracegen::{ab_runs, scenarios, screen, systrace};

fn usage() -> ExitCode {
    eprintln!("usage: gen_trace demo OUT | gen_trace busy OUT SIZE_MB | gen_trace systrace OUT SIZE_MB | gen_trace run OUT SEED JANK | gen_trace fleet DIR DEVICES RUNS | gen_trace screen OUT | gen_trace input OUT [late-up|scroll]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let started = Instant::now();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["demo", out] => {
            let bytes = scenarios::demo_scroll().build(&scenarios::demo_build_options());
            std::fs::write(out, &bytes).map(|()| bytes.len() as u64)
        }
        ["screen", out] => {
            let bytes = screen::launcher_and_background_animators().build(&tracegen::BuildOptions::default());
            std::fs::write(out, &bytes).map(|()| bytes.len() as u64)
        }
        ["input", out, rest @ ..] if rest.len() <= 1 => {
            let trace = match rest {
                [] => tracegen::input::events(false),
                ["late-up"] => tracegen::input::events(true),
                ["scroll"] => tracegen::input::scroll(),
                _ => return usage(),
            };
            let bytes = trace.build(&tracegen::BuildOptions::default());
            std::fs::write(out, &bytes).map(|()| bytes.len() as u64)
        }
        ["run", out, seed, jank] => {
            let (Ok(seed), Ok(jank)) = (seed.parse::<u64>(), jank.parse::<f64>()) else { return usage() };
            let bytes = ab_runs::app_run(&ab_runs::RunSpec::new(seed, jank));
            std::fs::write(out, &bytes).map(|()| bytes.len() as u64)
        }
        ["fleet", dir, devices, runs] => {
            let (Ok(devices), Ok(runs)) = (devices.parse::<u64>(), runs.parse::<u64>()) else { return usage() };
            fleet(std::path::Path::new(dir), devices, runs)
        }
        [kind @ ("busy" | "systrace"), out, size_mb] => {
            let Ok(mb) = size_mb.parse::<u64>() else { return usage() };
            std::fs::File::create(out).and_then(|f| {
                let mut w = BufWriter::with_capacity(1 << 20, f);
                let n = match *kind {
                    "busy" => scenarios::busy_phone(&mut w, mb << 20)?,
                    _ => systrace::busy_systrace(&mut w, mb << 20)?,
                };
                w.flush()?;
                Ok(n)
            })
        }
        _ => return usage(),
    };
    match result {
        Ok(n) => {
            let secs = started.elapsed().as_secs_f64();
            eprintln!("wrote {} ({n} bytes) in {secs:.2} s", args[1]);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen_trace: {}: {e}", args[1]);
            ExitCode::FAILURE
        }
    }
}

/// A farm's output for `batch` and the lake's tests: builds b1 (8% janky
/// frames) and b2 (3%), each on `devices` devices, `runs` 2-s runs each.
fn fleet(dir: &std::path::Path, devices: u64, runs: u64) -> std::io::Result<u64> {
    let mut bytes = 0;
    let mut seed = 0;
    for (build, jank) in [("b1", 0.08), ("b2", 0.03)] {
        for d in 1..=devices {
            let folder = dir.join(build).join(format!("dev{d}"));
            std::fs::create_dir_all(&folder)?;
            for k in 1..=runs {
                seed += 1;
                let spec = ab_runs::RunSpec { secs: 2.0, ..ab_runs::RunSpec::new(seed, jank) };
                let trace = ab_runs::app_run(&spec);
                bytes += trace.len() as u64;
                std::fs::write(folder.join(format!("run-{k}.pftrace")), trace)?;
            }
        }
    }
    Ok(bytes)
}
