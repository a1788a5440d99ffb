//! Timed child runs of a binary, each right after a timed read of the whole
//! trace (so every run starts with the file in the page cache, and the
//! read's time says how loaded the machine was), and paired comparisons of
//! two such commands run in turn (A B A B …): on a shared machine whose
//! speed drifts by the minute, the ratio within a pair moves far less than
//! either side's own times. `examples/bench.rs --vs` and `examples/guard.rs`
//! both use it.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

pub type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Reads the whole file into a discarded buffer; seconds.
pub fn cat(path: &Path) -> Res<f64> {
    let t = Instant::now();
    let mut f = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 4 << 20];
    while f.read(&mut buf)? > 0 {}
    Ok(t.elapsed().as_secs_f64())
}

/// One child run: the `cat` before it, then its wall, user and system
/// seconds and peak RSS in MB.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub cat: f64,
    pub wall: f64,
    pub user: f64,
    pub sys: f64,
    pub rss_mb: f64,
}

/// A command to time: a binary and its arguments.
pub struct Cmd<'a> {
    pub bin: &'a Path,
    pub args: &'a [&'a str],
}

impl Cmd<'_> {
    /// `cat` the trace, then run the command once (stdout discarded, stderr
    /// into the file `stderr`); its `wait4` times and peak RSS.
    pub fn run_after_cat(&self, trace: &Path, stderr: &Path) -> Res<Run> {
        let cat = cat(trace)?;
        let t = Instant::now();
        let child = Command::new(self.bin)
            .args(self.args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(stderr)?)
            .spawn()?;
        let pid = child.id() as libc::pid_t;
        let mut status = 0;
        // SAFETY: plain syscall on our own child; `ru` is a zeroed POD struct.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        let wall = t.elapsed().as_secs_f64();
        if r != pid {
            return Err(std::io::Error::last_os_error().into());
        }
        if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
            let err = std::fs::read_to_string(stderr).unwrap_or_default();
            return Err(format!("{} {:?} failed (status {status}): {err}", self.bin.display(), self.args).into());
        }
        let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
        Ok(Run { cat, wall, user: secs(ru.ru_utime), sys: secs(ru.ru_stime), rss_mb: ru.ru_maxrss as f64 / 1024.0 })
    }
}

/// `pairs` pairs of runs of `a` then `b`, each run right after a `cat` of
/// the trace; `before_each` runs before every run (to empty an output
/// directory). The first of each pair is `a`.
pub fn pairs(
    a: &Cmd,
    b: &Cmd,
    pairs: usize,
    trace: &Path,
    stderr: &Path,
    before_each: &dyn Fn(),
) -> Res<Vec<(Run, Run)>> {
    let mut out = Vec::with_capacity(pairs);
    for _ in 0..pairs {
        before_each();
        let ra = a.run_after_cat(trace, stderr)?;
        before_each();
        let rb = b.run_after_cat(trace, stderr)?;
        out.push((ra, rb));
    }
    Ok(out)
}

/// The median, smallest and largest of some measurements.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    /// None for no values. The median of an even count is the mean of the
    /// middle two.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Spread> {
        let mut v: Vec<f64> = values.into_iter().collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        Some(Spread { median, min: v[0], max: v[n - 1] })
    }

    /// Of each pair's ratio `a / b` (wall times): a pair's two runs saw
    /// about the same machine, so their ratio is steadier than either.
    pub fn of_ratios(pairs: &[(Run, Run)]) -> Option<Spread> {
        Spread::of(pairs.iter().map(|(a, b)| a.wall / b.wall))
    }

    /// "0.412 (0.398–0.455)" with `decimals` digits.
    pub fn show(&self, decimals: usize) -> String {
        format!("{:.d$} ({:.d$}–{:.d$})", self.median, self.min, self.max, d = decimals)
    }
}

/// Prints `title` with the pairs' ratio a / b (median, min–max), then per
/// side (named by `sides`) its wall, user and system CPU, peak RSS and the cats before
/// it (median, min–max); returns the ratio.
pub fn report(title: &str, sides: [&str; 2], pairs: &[(Run, Run)]) -> Res<Spread> {
    let side = |pick: fn(&(Run, Run)) -> Run| -> Res<[Spread; 5]> {
        let of = |f: fn(&Run) -> f64| Spread::of(pairs.iter().map(|p| f(&pick(p)))).ok_or("no pairs");
        Ok([of(|r| r.wall)?, of(|r| r.user)?, of(|r| r.sys)?, of(|r| r.rss_mb)?, of(|r| r.cat)?])
    };
    let ratio = Spread::of_ratios(pairs).ok_or("no pairs")?;
    println!("{title} {} over {} pairs", ratio.show(2), pairs.len());
    let width = sides.iter().map(|s| s.len()).max().unwrap_or(0);
    for (name, [wall, user, sys, rss, cat]) in [(sides[0], side(|p| p.0)?), (sides[1], side(|p| p.1)?)] {
        println!(
            "  {name:<width$}  wall s {}  user s {}  sys s {}  RSS MB {}  cat s {}",
            wall.show(3),
            user.show(2),
            sys.show(2),
            rss.show(0),
            cat.show(3)
        );
    }
    Ok(ratio)
}

/// `target/release/NAME` beside this example (`target/release/examples/X`).
pub fn beside_me(name: &str) -> Res<PathBuf> {
    let exe = std::env::current_exe()?;
    let bin = exe.parent().and_then(Path::parent).map(|d| d.join(name)).ok_or("no binary directory")?;
    if !bin.exists() {
        return Err(
            format!("{} is missing: run `cargo build --release` first, or pass --bin PATH", bin.display()).into()
        );
    }
    Ok(bin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(wall: f64) -> Run {
        Run { cat: 0.05, wall, user: 0.0, sys: 0.0, rss_mb: 0.0 }
    }

    #[test]
    fn spread_of_an_odd_count_is_its_middle_value() {
        assert_eq!(Spread::of([3.0, 1.0, 2.0]), Some(Spread { median: 2.0, min: 1.0, max: 3.0 }));
    }

    #[test]
    fn spread_of_an_even_count_averages_the_middle_two() {
        assert_eq!(Spread::of([4.0, 1.0, 2.0, 10.0]), Some(Spread { median: 3.0, min: 1.0, max: 10.0 }));
    }

    #[test]
    fn spread_of_nothing_is_none() {
        assert_eq!(Spread::of(std::iter::empty()), None);
    }

    #[test]
    fn paired_ratio_is_the_median_of_each_pairs_ratio_not_the_ratio_of_medians() {
        // Pair ratios 2.0, 1.5, 3.0 → median 2.0; the ratio of the sides'
        // medians would be 0.75 / 0.5 = 1.5.
        let pairs = [(run(0.5), run(0.25)), (run(0.75), run(0.5)), (run(1.5), run(0.5))];
        assert_eq!(Spread::of_ratios(&pairs), Some(Spread { median: 2.0, min: 1.5, max: 3.0 }));
        assert_eq!(Spread::of(pairs.iter().map(|p| p.0.wall)).unwrap().median, 0.75);
        assert_eq!(Spread::of(pairs.iter().map(|p| p.1.wall)).unwrap().median, 0.5);
    }

    #[test]
    fn show_prints_median_then_range() {
        assert_eq!(Spread { median: 2.126, min: 1.5, max: 3.0 }.show(2), "2.13 (1.50–3.00)");
    }
}
