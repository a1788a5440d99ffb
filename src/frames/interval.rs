//! The frame interval `I` in force at a time, measured from a series of vsync
//! timestamps (FrameTimeline expected starts, `VSYNC-app` edges, or a thread's
//! doFrame starts). Nothing is assumed: a period is read from the spacing of
//! the series and only snapped to a standard refresh rate when it is within the
//! series' measurement noise of one.

/// Refresh rates a measured period may be snapped to.
pub const STANDARD_HZ: [f64; 12] = [24.0, 30.0, 48.0, 50.0, 60.0, 72.0, 90.0, 96.0, 120.0, 144.0, 165.0, 240.0];
/// Spacings outside this range say nothing about the period: below it, the
/// same vsync seen twice (or > 250 Hz); above it, an idle gap.
pub const MIN_DELTA: i64 = 4_000_000;
pub const MAX_DELTA: i64 = 50_000_000;
/// Deltas each side of a sample used for its estimate.
const WINDOW: usize = 6;

/// What a series' timestamps are, which says how far to trust them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesKind {
    /// FrameTimeline's expected starts: SurfaceFlinger's predicted vsyncs,
    /// exact, so one spacing of one period is a measurement.
    FrameTimeline,
    /// SurfaceFlinger's vsync counters (`HW_VSYNC_<display>`, `VSYNC-sf`,
    /// `VSYNC-app`): edges of the real clock, but they toggle only when a
    /// callback is asked for. A period is believed only when it persists: a
    /// Pixel 6a's whole trace has 12–15 `VSYNC-app` toggles, the first two
    /// 10.6 ms apart (a phase adjustment), which is no 96 Hz panel.
    Counter,
    /// A thread's doFrame starts: each late by its wake-up latency.
    DoFrameStarts,
}

impl SeriesKind {
    /// Relative noise: how close to a standard period a measurement must be
    /// to snap to it, and how far apart two rates must be to be two.
    fn tol(self) -> f64 {
        match self {
            SeriesKind::FrameTimeline => 0.01,
            SeriesKind::Counter => 0.03,
            SeriesKind::DoFrameStarts => 0.08,
        }
    }

    /// Unit spacings a side's window needs before it measures a period.
    fn min_units(self) -> usize {
        match self {
            SeriesKind::Counter => 3,
            SeriesKind::FrameTimeline | SeriesKind::DoFrameStarts => 1,
        }
    }
}

/// `round(1e9 / hz)`.
pub fn period_of_hz(hz: f64) -> i64 {
    (1e9 / hz).round() as i64
}

/// [`STANDARD_HZ`]'s periods, worked out once: [`snap`] runs twice per
/// sample of every series (a few hundred thousand times on a busy trace).
fn standard_periods() -> &'static [i64; STANDARD_HZ.len()] {
    static PERIODS: std::sync::LazyLock<[i64; STANDARD_HZ.len()]> =
        std::sync::LazyLock::new(|| STANDARD_HZ.map(period_of_hz));
    &PERIODS
}

/// Whether `p` is exactly one of [`STANDARD_HZ`]'s periods (what [`snap`]
/// returns for a measurement close to one).
pub fn is_standard(p: i64) -> bool {
    standard_periods().contains(&p)
}

/// The nearest standard period when within `tol` (relative) of `p`, else `p`.
pub fn snap(p: i64, tol: f64) -> i64 {
    let mut best = p;
    let mut best_err = f64::INFINITY;
    for &sp in standard_periods() {
        let err = (p - sp).abs() as f64 / sp as f64;
        if err < best_err {
            best_err = err;
            best = sp;
        }
    }
    if best_err <= tol {
        best
    } else {
        p
    }
}

/// Median of the "unit" deltas of a window: those within 1.15 × the smallest.
/// Skipped vsyncs only make deltas longer (k·I), so the smallest delta is one
/// period up to noise, and the median of the deltas near it removes the noise.
fn unit_median(deltas: &[Option<i64>], kind: SeriesKind) -> Option<i64> {
    let tol = kind.tol();
    // A window holds at most 2 × WINDOW deltas: kept on the stack (this runs
    // twice per sample of every series).
    let mut v: smallvec::SmallVec<[i64; 2 * WINDOW]> = deltas.iter().flatten().copied().collect();
    if kind == SeriesKind::DoFrameStarts {
        // doFrame starts jitter by a good part of a period (a late start then an
        // on-time one are closer than I), so the smallest delta is no anchor.
        // Jitter cancels in a sum of consecutive deltas, so their mean is one
        // period, once deltas spanning skipped vsyncs (> 1.5 × the median) are
        // left out.
        v.sort_unstable();
        let med = *v.get(v.len() / 2)?;
        v.retain(|d| *d * 2 <= med * 3);
        let mean = v.iter().sum::<i64>() / v.len() as i64;
        return Some(snap(mean, tol));
    }
    let m = *v.iter().min()?;
    // 1.15: tighter than the closest common pair of rates (120/144 = 1.2,
    // 90/120 = 1.33), looser than doFrame start noise (±1 ms at 60 Hz).
    v.retain(|d| (*d as f64) <= m as f64 * 1.15);
    if v.len() < kind.min_units() {
        // Too few to be a rate, and no telling whether the longer spacings
        // are this period's skips or another rate: this side says nothing.
        return None;
    }
    v.sort_unstable();
    Some(snap(v[v.len() / 2], tol))
}

/// How far from a counter's mode a measurement that is no standard rate
/// may lie and still be that mode's jitter: the unit-spacing band (1.15).
const MODE_BAND: f64 = 0.15;

/// A jittery clock measures its mode: the periods of a vsync counter's
/// samples that snapped to no standard rate take the counter's mode when
/// within [`MODE_BAND`] of it. The mode is the counter's most common standard
/// period (the shorter of two as common); when no sample found one but the
/// clock is jittery (`jitter_mean`: not a steady one at a rate outside
/// [`STANDARD_HZ`]), the standard period nearest to its mean spacing. An
/// emulator's software vsync ticks 16–19 ms apart, so its windows' medians
/// scatter over 53–60 Hz around its 60 Hz mode.
fn round_to_mode(period: &mut [Option<i64>], jitter_mean: Option<i64>) {
    let mut counts: smallvec::SmallVec<[(i64, usize); STANDARD_HZ.len()]> = smallvec::SmallVec::new();
    for p in period.iter().flatten().filter(|p| is_standard(**p)) {
        match counts.iter_mut().find(|c| c.0 == *p) {
            Some(c) => c.1 += 1,
            None => counts.push((*p, 1)),
        }
    }
    let in_band = |p: i64, mode: i64| ((p - mode).abs() as f64) <= MODE_BAND * mode as f64;
    let mode = match counts.iter().max_by_key(|&&(p, c)| (c, std::cmp::Reverse(p))) {
        Some(&(p, _)) => p,
        None => {
            let Some(mean) = jitter_mean else { return };
            let nearest = snap(mean, MODE_BAND);
            if !is_standard(nearest) {
                return;
            }
            nearest
        }
    };
    for p in period.iter_mut().flatten() {
        if !is_standard(*p) && in_band(*p, mode) {
            *p = mode;
        }
    }
}

/// When a clock's spacings (`d`, as [`PeriodSeries::new`] keeps them)
/// scatter by more than a counter's noise — those within [`MODE_BAND`] of
/// their median (skipped vsyncs left out) spread over more than 3 % of it —
/// their mean (the jitter cancels in a sum); None for a steady clock.
fn jitter_mean(d: &[Option<i64>]) -> Option<i64> {
    let mut v: Vec<i64> = d.iter().flatten().copied().collect();
    v.sort_unstable();
    let median = *v.get(v.len() / 2)?;
    v.retain(|x| ((x - median).abs() as f64) <= MODE_BAND * median as f64);
    let (lo, hi) = (*v.first()?, *v.last()?);
    ((hi - lo) as f64 > SeriesKind::Counter.tol() * median as f64).then(|| v.iter().sum::<i64>() / v.len() as i64)
}

/// A sorted timestamp series with the period estimated at each sample.
#[derive(Debug, Clone, Default)]
pub struct PeriodSeries {
    pub ts: Vec<i64>,
    pub period: Vec<Option<i64>>,
    /// Indices of the samples that have a period, ascending.
    with_period: Vec<usize>,
}

impl PeriodSeries {
    /// `ts` must be sorted.
    pub fn new(mut ts: Vec<i64>, kind: SeriesKind) -> PeriodSeries {
        let tol = kind.tol();
        ts.dedup();
        let n = ts.len();
        // d[i] = ts[i] - ts[i-1] when it is a plausible spacing.
        let d: Vec<Option<i64>> = (0..n)
            .map(|i| {
                if i == 0 {
                    return None;
                }
                let x = ts[i] - ts[i - 1];
                (MIN_DELTA..=MAX_DELTA).contains(&x).then_some(x)
            })
            .collect();
        let mut period = Vec::with_capacity(n);
        for i in 0..n {
            if kind == SeriesKind::DoFrameStarts {
                // One window each side together: a single jittered delta at the
                // series' edge says little, and doFrame-start series are not
                // used to locate rate switches precisely.
                let lo = (i + 1).saturating_sub(WINDOW);
                period.push(unit_median(&d[lo..(i + 1 + WINDOW).min(n)], kind));
                continue;
            }
            // Deltas ending at samples i-W+1..=i (left) and i+1..=i+W (right).
            let left = unit_median(&d[(i + 1).saturating_sub(WINDOW)..=i], kind);
            let right = if i + 1 < n { unit_median(&d[i + 1..(i + 1 + WINDOW).min(n)], kind) } else { None };
            let p = match (left, right) {
                (Some(l), Some(r)) if (l - r).abs() as f64 > tol * l as f64 => {
                    // A rate switch is near: the side whose period the deltas
                    // touching this sample are one unit of wins.
                    let probe = d[i].or(if i + 1 < n { d[i + 1] } else { None });
                    match probe {
                        Some(x) => {
                            let el = (x as f64 / l as f64 - 1.0).abs();
                            let er = (x as f64 / r as f64 - 1.0).abs();
                            Some(if er < el { r } else { l })
                        }
                        None => Some(l),
                    }
                }
                (l, r) => l.or(r),
            };
            period.push(p);
        }
        if kind == SeriesKind::Counter {
            round_to_mode(&mut period, jitter_mean(&d));
        }
        let with_period = (0..n).filter(|&i| period[i].is_some()).collect();
        PeriodSeries { ts, period, with_period }
    }

    /// The period at the sample nearest to `t` that has one, if that sample is
    /// within `max_dist` of `t`.
    pub fn at(&self, t: i64, max_dist: i64) -> Option<i64> {
        self.nearest(t, max_dist).map(|(_, p)| p)
    }

    /// [`PeriodSeries::at`] with the distance from `t` to the sample that
    /// gave the period: (distance, period).
    pub fn nearest(&self, t: i64, max_dist: i64) -> Option<(i64, i64)> {
        // The nearest sample with a period on each side of `t` (two binary
        // searches); the earlier one wins a tie. Walking outwards from `t`
        // nearest first would reach the same sample, or a sample further
        // than `max_dist` before it.
        let i = self.ts.partition_point(|&x| x <= t);
        let k = self.with_period.partition_point(|&j| j < i);
        let before = k.checked_sub(1).map(|k| self.with_period[k]);
        let after = self.with_period.get(k).copied();
        let pick = match (before, after) {
            (None, None) => return None,
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (Some(a), Some(b)) => {
                if t - self.ts[a] <= self.ts[b] - t {
                    a
                } else {
                    b
                }
            }
        };
        let dist = (self.ts[pick] - t).abs();
        if dist > max_dist {
            return None;
        }
        self.period[pick].map(|p| (dist, p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P60: i64 = 16_666_667;
    const P90: i64 = 11_111_111;
    const P120: i64 = 8_333_333;

    fn grid(start: i64, p: f64, n: usize) -> Vec<i64> {
        (0..n).map(|k| start + (k as f64 * p).round() as i64).collect()
    }

    #[test]
    fn snaps_only_when_close() {
        assert_eq!(snap(16_600_000, 0.01), P60);
        assert_eq!(snap(16_000_000, 0.01), 16_000_000);
        assert_eq!(snap(11_100_000, 0.01), P90);
        assert_eq!(snap(6_944_444, 0.01), period_of_hz(144.0));
    }

    #[test]
    fn steady_rate_with_skips() {
        // 60 Hz vsyncs with every third one missing: deltas 16.67 and 33.3 ms.
        let ts: Vec<i64> =
            grid(0, 1e9 / 60.0, 30).into_iter().enumerate().filter(|(k, _)| k % 3 != 2).map(|x| x.1).collect();
        let s = PeriodSeries::new(ts, SeriesKind::FrameTimeline);
        assert!(s.period.iter().all(|p| *p == Some(P60)));
    }

    /// The outward walk `at` used to do, as the reference.
    fn at_by_walking(s: &PeriodSeries, t: i64, max_dist: i64) -> Option<i64> {
        if s.ts.is_empty() {
            return None;
        }
        let i = s.ts.partition_point(|&x| x <= t);
        let (mut lo, mut hi) = (i as isize - 1, i);
        loop {
            let l = (lo >= 0).then_some(lo as usize);
            let h = (hi < s.ts.len()).then_some(hi);
            let pick = match (l, h) {
                (None, None) => return None,
                (Some(a), None) => a,
                (None, Some(b)) => b,
                (Some(a), Some(b)) => {
                    if t - s.ts[a] <= s.ts[b] - t {
                        a
                    } else {
                        b
                    }
                }
            };
            if (s.ts[pick] - t).abs() > max_dist {
                return None;
            }
            if let Some(p) = s.period[pick] {
                return Some(p);
            }
            if Some(pick) == l {
                lo -= 1;
            } else {
                hi += 1;
            }
        }
    }

    #[test]
    fn lookup_matches_the_outward_walk() {
        // Series with gaps (no period around them), rate switches and
        // duplicates; probes before, inside, between and after the samples.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for _ in 0..200 {
            let mut ts = Vec::new();
            let mut t = next(1_000_000_000) as i64;
            for _ in 0..next(60) {
                t += match next(10) {
                    0 => 2_000_000_000,
                    1 => 0,
                    2..=4 => P60,
                    _ => 8_333_333 + next(200_000) as i64,
                };
                ts.push(t);
            }
            let s =
                PeriodSeries::new(ts, if next(2) == 0 { SeriesKind::FrameTimeline } else { SeriesKind::DoFrameStarts });
            for _ in 0..50 {
                let probe = next(t.max(1) as u64 + 3_000_000_000) as i64 - 500_000_000;
                let dist = [0, 1_000_000, 500_000_000, i64::MAX][next(4) as usize];
                assert_eq!(s.at(probe, dist), at_by_walking(&s, probe, dist), "t {probe} max {dist}");
            }
        }
    }

    #[test]
    fn noisy_do_frame_starts_keep_the_period() {
        // 60 Hz frames whose starts jitter by up to 3 ms (a late start then an
        // on-time one is 13.7 ms apart): the smallest delta (13.7 ms) would say
        // 72 Hz; the median-based estimate for noisy series says 60.
        let jitter = [0, 3_000_000, 0, 2_000_000, 0, 3_000_000, 1_000_000, 0, 3_000_000, 0, 2_000_000, 0];
        let ts: Vec<i64> = jitter.iter().enumerate().map(|(k, j)| k as i64 * P60 + j).collect();
        let s = PeriodSeries::new(ts, SeriesKind::DoFrameStarts);
        assert!(s.period.iter().all(|&p| p == Some(P60)), "{:?}", s.period);
    }

    #[test]
    fn sparse_toggles_measure_no_period() {
        // Pixel 6a, 60 Hz: VSYNC-app toggles only when a callback is asked
        // for. Two toggles 10.6 ms apart (a phase adjustment), then pairs one
        // vsync apart 300 ms from each other.
        let mut ts = vec![0, 10_600_000];
        for k in 1..5 {
            ts.extend([k * 300_000_000, k * 300_000_000 + P60]);
        }
        // A window holding the lone 10.6 ms spacing, or fewer than three
        // 16.67 ms ones, says nothing (samples 0, 5 and 6 on both sides);
        // the others measure 60 Hz. Never 96 Hz.
        let s = PeriodSeries::new(ts.clone(), SeriesKind::Counter);
        let want: Vec<Option<i64>> = (0..10).map(|i| (![0, 5, 6].contains(&i)).then_some(P60)).collect();
        assert_eq!(s.period, want);
        assert_eq!(s.at(5_000_000, 100_000_000), Some(P60));
        // Two spacings that never repeat are no rate at all.
        let s = PeriodSeries::new(vec![0, 10_600_000, 300_000_000, 300_000_000 + P60], SeriesKind::Counter);
        assert!(s.period.iter().all(Option::is_none), "{:?}", s.period);
    }

    /// A series with these spacings (ns), repeated to `n` samples.
    fn spaced(deltas: &[i64], n: usize) -> Vec<i64> {
        let mut t = 1_000_000_000;
        (0..n)
            .map(|k| {
                t += deltas[k % deltas.len()];
                t
            })
            .collect()
    }

    #[test]
    fn a_jittery_counter_measures_its_mode() {
        const MS: i64 = 1_000_000;
        // An emulator's 60 Hz vsync, ticks 16–19 ms apart. Windows whose
        // smallest spacing is 16.0 ms keep 16.0–18.4 as units, medians
        // 17.8–18.3 ms (54.6–56.2 Hz): no window finds a standard rate, but
        // the spacings scatter (16–19 ms): the standard rate nearest to their
        // mean, 142.6 / 8 = 17.825 ms (56.1 Hz), is 60 Hz, for every sample.
        let emulator = [16 * MS, 18_200_000, 18_400_000, 17_800_000, 18 * MS, 16_900_000, 18_300_000, 19 * MS];
        let raw: Vec<Option<i64>> = {
            let ts = spaced(&emulator, 80);
            let d: Vec<Option<i64>> = (0..ts.len()).map(|i| (i > 0).then(|| ts[i] - ts[i - 1])).collect();
            (1..ts.len()).map(|i| unit_median(&d[(i + 1).saturating_sub(WINDOW)..=i], SeriesKind::Counter)).collect()
        };
        assert!(raw.iter().flatten().any(|&p| !is_standard(p)), "the windows scatter: {raw:?}");
        let s = PeriodSeries::new(spaced(&emulator, 80), SeriesKind::Counter);
        assert!(s.period.iter().skip(1).all(|&p| p == Some(P60)), "{:?}", s.period);

        // A steady clock that skips vsyncs is no jittery one.
        assert_eq!(jitter_mean(&[None, Some(P60), Some(2 * P60), Some(P60), Some(P60)]), None);

        // A steady clock at a rate that is no standard one (57 Hz) keeps it.
        let steady = PeriodSeries::new(spaced(&[17_543_860], 40), SeriesKind::Counter);
        assert!(steady.period.iter().skip(1).all(|&p| p == Some(17_543_860)), "{:?}", steady.period);
    }

    #[test]
    fn switch_60_to_120_and_back() {
        let mut ts = grid(0, 1e9 / 60.0, 20); // up to 316.67 ms
        let last = *ts.last().unwrap();
        ts.extend(grid(last + P120, 1e9 / 120.0, 30));
        let last = *ts.last().unwrap();
        ts.extend(grid(last + P60, 1e9 / 60.0, 20));
        let s = PeriodSeries::new(ts.clone(), SeriesKind::FrameTimeline);
        for i in 1..20 {
            assert_eq!(s.period[i], Some(P60), "sample {i}");
        }
        for i in 20..50 {
            assert_eq!(s.period[i], Some(P120), "sample {i}");
        }
        for i in 50..70 {
            assert_eq!(s.period[i], Some(P60), "sample {i}");
        }
        assert_eq!(s.at(ts[25] + 1000, 1_000_000), Some(P120));
        assert_eq!(s.at(ts[69] + 10_000_000, 1_000_000), None);
    }
}
