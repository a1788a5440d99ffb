//! The group-sequential design of `ab --until-decided` (docs/ab.md, "Until decided"): runs of both builds
//! are added a pair at a time and the fps verdict is looked at after each pair, from a first look to a
//! maximum number of runs a side. Looking again and again at a test at α would find a difference that is
//! not there far more often than α (five looks at 0.05 already give ≈ 0.14), so each look spends a part of
//! α chosen in advance by an alpha-spending function (Lan & DeMets 1983, "Discrete sequential boundaries for
//! clinical trials", Biometrika 70(3)), here the Pocock-type one (Lan & DeMets 1983; Jennison & Turnbull
//! 2000, *Group Sequential Methods with Applications to Clinical Trials*, §7.2):
//!
//! α(t) = α · ln(1 + (e − 1) · t), t = runs a side / maximum runs a side,
//!
//! which spends evenly enough to stop early on a large change. A look at t_k tests at the α spent since
//! the previous look, α(t_k) − α(t_{k−1}) (the first look at α(t_1)); the levels add up to α, so by
//! Bonferroni's inequality the chance of any wrong better/worse over all looks is at most α, whatever the
//! correlation between looks (conservative: the exact boundaries would use that correlation, which the
//! rank test's exact distribution does not give in closed form). The same levels bound the chance of a
//! wrong `same` (the equivalence test runs at each look's level too). The simulations in the tests check
//! both, and the power on a large change.

/// α(t) of the Pocock-type spending function, for t in [0, 1].
pub(crate) fn spent(alpha: f64, t: f64) -> f64 {
    alpha * (1.0 + (std::f64::consts::E - 1.0) * t.clamp(0.0, 1.0)).ln()
}

/// When the looks happen and at which level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Design {
    pub alpha: f64,
    /// Runs a side at the first look.
    pub first: usize,
    /// Runs a side at the last look.
    pub max: usize,
}

impl Design {
    /// Looks from `at_least` runs a side (moved up to the first count at which the rank test can reach
    /// the level spent so far) to `max`; `None` when even `max` runs a side cannot reach it.
    pub(crate) fn new(alpha: f64, at_least: usize, max: usize) -> Option<Design> {
        let reachable = |n: usize| super::rank::smallest_p(n, n) <= spent(alpha, n as f64 / max as f64);
        let first = (at_least.max(2)..=max).find(|&n| reachable(n))?;
        Some(Design { alpha, first, max })
    }

    /// The level of the look at `n` runs a side (`first ≤ n ≤ max`).
    pub(crate) fn level(&self, n: usize) -> f64 {
        let t = |k: usize| k as f64 / self.max as f64;
        if n <= self.first {
            spent(self.alpha, t(self.first))
        } else {
            spent(self.alpha, t(n.min(self.max))) - spent(self.alpha, t(n.min(self.max) - 1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::comparison::{primary_result, IndicativeGates, Settings};
    use crate::compare::Verdict;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn the_levels_add_up_to_alpha() {
        let d = Design::new(0.05, 3, 20).unwrap();
        // 2/C(10,5) = 0.0079 ≤ α(5/20) = 0.05 · ln(1 + 1.718 · 0.25) = 0.0179; 4 a side (2/70 = 0.029) is not.
        assert_eq!(d.first, 5);
        assert!((d.level(5) - 0.05 * (1.0 + (std::f64::consts::E - 1.0) * 0.25).ln()).abs() < 1e-12);
        let total: f64 = (d.first..=d.max).map(|n| d.level(n)).sum();
        assert!((total - 0.05).abs() < 1e-12, "{total}");
        assert!((spent(0.05, 1.0) - 0.05).abs() < 1e-15);
        assert_eq!(Design::new(0.05, 12, 20).unwrap().first, 12);
        assert_eq!(Design::new(0.001, 2, 4), None);
    }

    /// A standard normal draw (Box–Muller).
    fn normal(rng: &mut ChaCha8Rng) -> f64 {
        let (u1, u2): (f64, f64) = (rng.random_range(f64::MIN_POSITIVE..1.0), rng.random_range(0.0..1.0));
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// One simulated experiment: per-run fps drawn from N(mu, sd) for each build, a pair added per look.
    /// Returns the verdict it stopped on and the runs a side it took.
    fn experiment(rng: &mut ChaCha8Rng, mu: [f64; 2], sd: f64, d: &Design, min_change: f64) -> (Verdict, usize) {
        let mut sides: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for n in 1..=d.max {
            for k in 0..2 {
                let v = mu[k] + sd * normal(rng);
                sides[k].push(v);
            }
            if n < d.first {
                continue;
            }
            let s = Settings::new(d.level(n), min_change, IndicativeGates::Pass);
            let v = primary_result(&sides[0], &sides[1], &s).verdict;
            if matches!(v, Verdict::Better | Verdict::Worse | Verdict::Same) {
                return (v, n);
            }
        }
        (Verdict::Inconclusive, d.max)
    }

    fn simulate(seed: u64, runs: usize, mu: [f64; 2], sd: f64, d: &Design) -> Vec<(Verdict, usize)> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..runs).map(|_| experiment(&mut rng, mu, sd, d, 2.0)).collect()
    }

    fn rate(out: &[(Verdict, usize)], f: impl Fn(Verdict) -> bool) -> f64 {
        out.iter().filter(|(v, _)| f(*v)).count() as f64 / out.len() as f64
    }

    /// No change, a spread that leaves `same` out of reach: over 2000 experiments of up to 20 looks the
    /// design calls better/worse at most α of the time (0.05 + 3 standard errors of 0.0049), while testing
    /// every look at α would be wrong far more often.
    #[test]
    fn false_alarms_stay_below_alpha_across_looks() {
        let d = Design::new(0.05, 3, 20).unwrap();
        let out = simulate(11, 2000, [60.0, 60.0], 6.0, &d);
        let wrong = rate(&out, |v| matches!(v, Verdict::Better | Verdict::Worse));
        assert!(wrong <= 0.05 + 3.0 * 0.0049, "false-alarm rate {wrong}");
        // Most experiments run to the end undecided.
        assert!(out.iter().filter(|(_, n)| *n == 20).count() > 1500);
        // The naive design: every look at 0.05.
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let naive = Design { alpha: 0.05, first: 4, max: 20 };
        let naive_wrong = (0..2000)
            .filter(|_| {
                let mut sides: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
                (1..=naive.max).any(|n| {
                    for side in sides.iter_mut() {
                        side.push(60.0 + 6.0 * normal(&mut rng));
                    }
                    n >= naive.first
                        && matches!(
                            primary_result(&sides[0], &sides[1], &Settings::new(0.05, 2.0, IndicativeGates::Pass))
                                .verdict,
                            Verdict::Better | Verdict::Worse
                        )
                })
            })
            .count() as f64
            / 2000.0;
        assert!(naive_wrong > 0.12, "looking at 0.05 every time: {naive_wrong}");
    }

    /// A true change of 4% (twice the margin): a wrong `same` stays below α.
    #[test]
    fn wrong_same_stays_below_alpha() {
        let d = Design::new(0.05, 3, 20).unwrap();
        let out = simulate(12, 2000, [60.0, 62.4], 1.5, &d);
        let wrong = rate(&out, |v| v == Verdict::Same);
        assert!(wrong <= 0.05 + 3.0 * 0.0049, "wrong same {wrong}");
    }

    /// A large change (+10% fps, run-to-run sd 3%): nearly always decided `better`, and well before the
    /// maximum; no change on a quiet device: decided `same` early.
    #[test]
    fn large_changes_and_no_change_stop_early() {
        let d = Design::new(0.05, 3, 20).unwrap();
        let out = simulate(13, 1000, [60.0, 66.0], 1.8, &d);
        assert!(rate(&out, |v| v == Verdict::Better) > 0.97);
        let mean_runs = out.iter().map(|(_, n)| *n as f64).sum::<f64>() / out.len() as f64;
        assert!(mean_runs < 8.0, "mean runs a side {mean_runs}");
        let out = simulate(14, 1000, [60.0, 60.0], 0.3, &d);
        assert!(rate(&out, |v| v == Verdict::Same) > 0.95);
        assert!(rate(&out, |v| matches!(v, Verdict::Better | Verdict::Worse)) < 0.05);
    }
}
