//! Calibration of `fpsan compare`'s verdicts, by simulation with fixed seeds.
//!
//! ```text
//! cargo run --release --example calibrate -- [--comparisons 500] [--pool 600] [--sizes 1,2,3,5,10,30] [--seed 1]
//! ```
//!
//! The project's trace builder makes pools of runs of one app (`tracegen::ab_runs`, 10 s at 60 Hz, every
//! run with its own device effect on the number and size of slow and blocked frames): a base build, and
//! builds whose fps is 5%, 12% and 20% higher (aimed at with one secant step on a pilot pool each; the
//! realised changes are printed). Every run goes through the same analysis as `fpsan
//! compare` (`compare::load_run`); each comparison draws distinct runs from the pools (with a seeded
//! ChaCha8 generator) and calls `compare::compare_runs`, the code behind the command.
//!
//! For 1, 2, 3, 5, 10 and 30 runs a side it prints:
//! - same build on both sides (every `better`/`worse` is a false alarm): the rate per headline metric, for
//!   any of the three, and for a set of three `--fail-if` gates (any tripping); target ≤ alpha;
//! - how often fps is called `same` on the same build, at the default 2% margin and at a 10% one;
//! - a real change in fps: how often fps is called `better`, against an exact two-sided Mann–Whitney at
//!   alpha on the same per-run fps values (computed here by Mann & Whitney's own recurrence, not by
//!   fpsan's code): the power fpsan must at least match.
//!
//! Runs are drawn without replacement within a comparison but reused across comparisons, so the rates are
//! those of the pools; with pools of 600 runs they estimate the builds' rates closely.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use fpsan::analysis::Options;
use fpsan::compare::{self, CompareOptions, Run, Verdict};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tracegen::ab_runs::{app_run, RunSpec, AB_APP};

const ALPHA: f64 = 0.05;
/// Frames of the base build that drop at least one frame (before the per-run device effect).
const BASE_JANK: f64 = 0.08;
/// Dropped frames of a janky frame on average in the builder: 9 in 10 drop 1–4 (2.5), 1 in 10 drop 9–30 (19.5).
const MEAN_DROPPED: f64 = 0.9 * 2.5 + 0.1 * 19.5;
const HEADLINE: [&str; 3] = ["fps", "frame_cost_p90", "jank_pct"];
const GATES: [&str; 3] = ["fps.delta_pct < -5", "frame_cost_p90.delta_pct > 10", "jank_pct.delta_pct > 10"];
const EFFECTS: [f64; 3] = [0.05, 0.12, 0.20];

struct Args {
    comparisons: usize,
    pool: usize,
    sizes: Vec<usize>,
    seed: u64,
}

fn args() -> Args {
    let mut a = Args { comparisons: 1000, pool: 1000, sizes: vec![1, 2, 3, 5, 10, 30], seed: 1 };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let value = |i: usize| argv.get(i + 1).cloned().unwrap_or_default();
    for (i, arg) in argv.iter().enumerate() {
        match arg.as_str() {
            "--comparisons" => a.comparisons = value(i).parse().expect("--comparisons N"),
            "--pool" => a.pool = value(i).parse().expect("--pool N"),
            "--seed" => a.seed = value(i).parse().expect("--seed N"),
            "--sizes" => a.sizes = value(i).split(',').map(|s| s.parse().expect("--sizes 1,2,5")).collect(),
            _ => {}
        }
    }
    let largest = a.sizes.iter().max().copied().unwrap_or(1);
    assert!(a.pool >= 2 * largest, "--pool must hold two sides of the largest size");
    a
}

/// The jank probability whose fps is `1 + effect` times the base build's: the builder's fps is about
/// refresh / (1 + p · MEAN_DROPPED), so (1 + p₀·D) / (1 + p·D) = 1 + effect.
fn jank_for(effect: f64) -> f64 {
    ((1.0 + BASE_JANK * MEAN_DROPPED) / (1.0 + effect) - 1.0) / MEAN_DROPPED
}

/// A pool of `n` runs of a build, analysed two at a time (each analysis is itself parallel).
fn pool(dir: &Path, name: &str, jank: f64, n: usize, first_seed: u64) -> Vec<Run> {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let mut runs: Vec<(usize, Run)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            return mine;
                        }
                        let path: PathBuf = dir.join(format!("{name}-{i}.pftrace"));
                        std::fs::write(&path, app_run(&RunSpec::new(first_seed + i as u64, jank))).expect("write run");
                        let run = compare::load_run(&path, &Options::default(), AB_APP).expect("analyse run");
                        std::fs::remove_file(&path).ok();
                        mine.push((i, run));
                    }
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("worker")).collect()
    });
    runs.sort_by_key(|(i, _)| *i);
    runs.into_iter().map(|(_, r)| r).collect()
}

/// `k` distinct indices below `n` (a partial Fisher–Yates shuffle).
fn draw(rng: &mut ChaCha8Rng, n: usize, k: usize) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    for i in 0..k {
        let j = rng.random_range(i..n);
        idx.swap(i, j);
    }
    idx.truncate(k);
    idx
}

/// Exact null distribution of U for `n` against `m` tie-free values by Mann & Whitney's recurrence
/// c(n, m, u) = c(n − 1, m, u − m) + c(n, m − 1, u), as cumulative probabilities.
fn u_cdf(n: usize, m: usize) -> Vec<f64> {
    let top = n * m;
    // counts[i][j][u] for i ≤ n, j ≤ m, as f64 (exact to 2^53; C(60, 30) ≈ 1.2e17 is past that, but the
    // relative error of f64 sums of positive terms is ~1e-16, far below what matters here).
    let mut prev: Vec<Vec<f64>> = (0..=m).map(|_| vec![1.0]).collect(); // i = 0: only u = 0
    for i in 1..=n {
        let mut cur: Vec<Vec<f64>> = vec![vec![1.0]]; // j = 0: only u = 0
        for j in 1..=m {
            let mut c = vec![0.0; i * j + 1];
            for (u, slot) in c.iter_mut().enumerate() {
                let from_i = if u >= j { prev[j].get(u - j).copied().unwrap_or(0.0) } else { 0.0 };
                let from_j = cur[j - 1].get(u).copied().unwrap_or(0.0);
                *slot = from_i + from_j;
            }
            cur.push(c);
        }
        prev = cur;
    }
    let counts = &prev[m];
    let total: f64 = counts.iter().sum();
    let mut run = 0.0;
    let cdf: Vec<f64> = counts
        .iter()
        .map(|c| {
            run += c;
            run / total
        })
        .collect();
    debug_assert_eq!(cdf.len(), top + 1);
    cdf
}

/// Exact two-sided Mann–Whitney p of `after` against `before` (ties counted ½, tails taken conservatively),
/// and whether `after` tends to be larger.
fn mw(before: &[f64], after: &[f64], cdf: &[f64]) -> (f64, bool) {
    let mut u = 0.0f64;
    for a in after {
        for b in before {
            u += if a > b {
                1.0
            } else if a == b {
                0.5
            } else {
                0.0
            };
        }
    }
    let top = cdf.len() - 1;
    let lower = cdf[u.floor() as usize];
    let upper = 1.0 - if u.ceil() as usize == 0 { 0.0 } else { cdf[u.ceil() as usize - 1] };
    ((2.0 * lower.min(upper)).min(1.0), u > top as f64 / 2.0)
}

#[derive(Default)]
struct Counts {
    headline_alarm: [usize; 3],
    any_headline_alarm: usize,
    gate_alarm: usize,
    fps_same: usize,
    fps_same_wide: usize,
    mw_alarm: usize,
    fps_better: [usize; 3],
    mw_found: [usize; 3],
    /// The Mann–Whitney found the change but fps was not called better, and of those, how many because the
    /// median change was below the 2% minimum.
    missed: usize,
    missed_small: usize,
}

fn main() {
    let a = args();
    let dir = std::env::temp_dir().join(format!("fpsan-calibrate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let t = Instant::now();
    let median_fps = |runs: &[Run]| {
        let mut v: Vec<f64> = runs.iter().filter_map(|r| r.value(fpsan::series::Metric::Fps)).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let base = pool(&dir, "base", BASE_JANK, a.pool, 1_000_000);
    let base_fps = median_fps(&base);
    // The formula of `jank_for` leaves out the device effect and the cap at the refresh rate: one secant
    // step on a pilot pool of each changed build brings the realised change close to the target.
    let pilot = (a.pool / 3).max(50);
    let changed: Vec<Vec<Run>> = EFFECTS
        .iter()
        .enumerate()
        .map(|(k, &e)| {
            let seed = 2_000_000 * (k as u64 + 2);
            let tried = pool(&dir, &format!("pilot{k}"), jank_for(e), pilot, seed);
            let realised = median_fps(&tried) / base_fps - 1.0;
            let aim = if realised > 0.0 { e * e / realised } else { e };
            pool(&dir, &format!("plus{k}"), jank_for(aim), a.pool, seed)
        })
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    eprintln!(
        "pools: 4 × {} runs (and 3 pilots of {pilot}) generated and analysed in {:.1} s",
        a.pool,
        t.elapsed().as_secs_f64()
    );

    let options =
        CompareOptions { fail_if: GATES.iter().map(|g| g.to_string()).collect(), ..CompareOptions::default() };
    let wide_margin = CompareOptions { min_change_pct: 10.0, ..options.clone() };
    let compare =
        |before: Vec<Run>, after: Vec<Run>| compare::compare_runs(AB_APP, before, after, &options).expect("compare");
    let pick = |pool: &[Run], idx: &[usize]| -> Vec<Run> { idx.iter().map(|&i| pool[i].clone()).collect() };

    // The realised fps change of each build: medians of the pools' per-run fps.
    let realised: Vec<f64> = changed.iter().map(|p| median_fps(p) / base_fps - 1.0).collect();
    println!(
        "fpsan compare calibration: alpha {ALPHA}, min change 2%, {} comparisons per cell, pools of {} runs (10 s, 60 Hz), seed {}",
        a.comparisons, a.pool, a.seed
    );
    let base_values: Vec<f64> = base.iter().filter_map(|r| r.value(fpsan::series::Metric::Fps)).collect();
    let mean = base_values.iter().sum::<f64>() / base_values.len() as f64;
    let sd = (base_values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (base_values.len() - 1) as f64).sqrt();
    println!(
        "base build: median run {base_fps:.1} fps, run-to-run sd {:.1}% of the mean; changed builds: {}",
        100.0 * sd / mean,
        realised.iter().map(|r| format!("{:+.1}%", r * 100.0)).collect::<Vec<_>>().join(", ")
    );
    println!("gates: {}", GATES.join(", "));
    println!();
    println!("| runs a side | same build: fps | frame_cost_p90 | jank_pct | any headline | any gate | MW fps | `same` fps, 2% / 10% margin | power +5%: fpsan / MW | +12%: fpsan / MW | +20%: fpsan / MW |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut rng = ChaCha8Rng::seed_from_u64(a.seed);
    let mut missed = Vec::new();
    for &n in &a.sizes {
        let t = Instant::now();
        let cdf = u_cdf(n, n);
        let mut k = Counts::default();
        for _ in 0..a.comparisons {
            let idx = draw(&mut rng, a.pool, 2 * n);
            let c = compare(pick(&base, &idx[..n]), pick(&base, &idx[n..]));
            let mut any = false;
            for (h, name) in HEADLINE.iter().enumerate() {
                if matches!(c.verdict(name), Some(Verdict::Better | Verdict::Worse)) {
                    k.headline_alarm[h] += 1;
                    any = true;
                }
            }
            k.any_headline_alarm += usize::from(any);
            k.gate_alarm += usize::from(c.gate_tripped());
            k.fps_same += usize::from(c.verdict("fps") == Some(Verdict::Same));
            let wide = compare::compare_runs(AB_APP, pick(&base, &idx[..n]), pick(&base, &idx[n..]), &wide_margin)
                .expect("compare");
            k.fps_same_wide += usize::from(wide.verdict("fps") == Some(Verdict::Same));
            let [b, af] = c.per_run("fps").expect("fps");
            k.mw_alarm += usize::from(mw(&b, &af, &cdf).0 <= ALPHA);
            for (e, pool) in changed.iter().enumerate() {
                let (bi, ai) = (draw(&mut rng, a.pool, n), draw(&mut rng, a.pool, n));
                let c = compare(pick(&base, &bi), pick(pool, &ai));
                k.fps_better[e] += usize::from(c.verdict("fps") == Some(Verdict::Better));
                let [b, af] = c.per_run("fps").expect("fps");
                let (p, up) = mw(&b, &af, &cdf);
                let found = p <= ALPHA && up;
                k.mw_found[e] += usize::from(found);
                if found && c.verdict("fps") != Some(Verdict::Better) {
                    k.missed += 1;
                    let [before_fps, after_fps] = [median(&b), median(&af)];
                    k.missed_small += usize::from((after_fps / before_fps - 1.0).abs() < 0.02);
                }
            }
        }
        let pct = |x: usize| format!("{:.1}%", 100.0 * x as f64 / a.comparisons as f64);
        // Same-build rates with the upper end of their 95% Wilson interval: what the simulation can rule out.
        let alarm = |x: usize| format!("{} (≤ {:.1}%)", pct(x), 100.0 * wilson_upper(x, a.comparisons));
        println!(
            "| {n} | {} | {} | {} | {} | {} | {} | {} / {} | {} / {} | {} / {} | {} / {} |",
            alarm(k.headline_alarm[0]),
            alarm(k.headline_alarm[1]),
            alarm(k.headline_alarm[2]),
            alarm(k.any_headline_alarm),
            alarm(k.gate_alarm),
            alarm(k.mw_alarm),
            pct(k.fps_same),
            pct(k.fps_same_wide),
            pct(k.fps_better[0]),
            pct(k.mw_found[0]),
            pct(k.fps_better[1]),
            pct(k.mw_found[1]),
            pct(k.fps_better[2]),
            pct(k.mw_found[2]),
        );
        missed.push((n, k.missed, k.missed_small));
        eprintln!("{n} runs a side: {:.1} s", t.elapsed().as_secs_f64());
    }
    println!();
    for (n, all, small) in missed {
        if all > 0 {
            println!(
                "{n} runs a side: {all} real changes found by the Mann–Whitney but not called better by fpsan, {small} of them with a median change below the 2% minimum"
            );
        }
    }
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Upper end of the 95% Wilson score interval of a proportion x / n (Wilson 1927).
fn wilson_upper(x: usize, n: usize) -> f64 {
    let (z, n, p) = (1.959_964, n as f64, x as f64 / n as f64);
    let centre = p + z * z / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    (centre + spread) / (1.0 + z * z / n)
}
