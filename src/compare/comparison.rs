//! The comparison itself: for the app and each scene on both sides, every
//! metric's value on each run, the median run per side, the Mann–Whitney test
//! and the interval of the change on the per-run values, Holm's adjustment
//! over the headline, the verdict; then the quality warnings and the CI
//! gates. The result is the JSON document of `--format json`
//! (docs/compare.md; NaN is null).

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::model::{Warning, WarningCode};
use crate::series::{self, Frame, Metric, Role, Values};

use super::blockers;
use super::blocks;
use super::gate::{GateInput, GateRule, GateStatus};
use super::input;
use super::runs::{PerRun, Run, RunMetric, Sides};
use super::startups;
use super::stats::decision::{
    coefficient_of_variation, decide, holm, percent_of, pooled_sd, primary_then_holm, runs_needed,
};
use super::stats::decision::{Evidence, Spread};
use super::stats::quantile::quantile_linear;
use super::stats::rank::{mann_whitney, smallest_p, NullU, PMethod};
use super::stats::{Direction, Verdict};

/// The headline's primary metric: tested first, at alpha.
const PRIMARY: Metric = Metric::Fps;
/// Run-to-run coefficient of variation of fps above which a side is "noisy".
const NOISY_CV: f64 = 0.10;
/// The app's drawing time per run may differ this much (relative) between sides.
const DRAWING_TIME_CHANGE: f64 = 0.20;
/// Runs of one side whose refresh rates differ by more than this (Hz) are "mixed".
const REFRESH_TOLERANCE_HZ: f64 = 0.5;

/// What a `--fail-if` gate does on an indicative comparison (`--indicative-gates`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IndicativeGates {
    /// Not checked: the comparison describes, it cannot fail a build.
    #[default]
    Pass,
    /// Fail closed: every gate trips (exit 3) until there are runs enough to check it.
    Fail,
}

/// What the headline decides on (docs/compare.md, "What is decided").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DecideOn {
    /// The frames: fps, then frame cost P90 and janky frames.
    #[default]
    Frames,
    /// The app's startup: its TTID (`ab --launch cold` without `--drive`,
    /// as a Macrobenchmark startup test decides).
    Startup,
    /// Both: fps, then frame cost P90, janky frames and TTID
    /// (`ab --launch cold --drive`).
    Both,
}

impl DecideOn {
    fn frames(self) -> bool {
        self != DecideOn::Startup
    }
    fn startup(self) -> bool {
        self != DecideOn::Frames
    }

    /// A headline p-value made to share alpha between the headline's
    /// families (Bonferroni): with `Both`, the frames' hierarchy and TTID each
    /// test at alpha / 2, so a same-build comparison calls either better or
    /// worse at most alpha of the time.
    fn share(self, p: Option<f64>) -> Option<f64> {
        match self {
            DecideOn::Both => p.map(|p| (2.0 * p).min(1.0)),
            DecideOn::Frames | DecideOn::Startup => p,
        }
    }
}

/// The knobs of a comparison.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Settings {
    pub alpha: f64,
    /// 1 − alpha: the level of every printed interval.
    pub confidence: f64,
    pub min_change_pct: f64,
    pub indicative_gates: IndicativeGates,
    pub decide_on: DecideOn,
}

impl Settings {
    pub(crate) fn new(alpha: f64, min_change_pct: f64, indicative_gates: IndicativeGates) -> Settings {
        Settings { alpha, confidence: 1.0 - alpha, min_change_pct, indicative_gates, decide_on: DecideOn::Frames }
    }

    /// These settings, the headline deciding on `decide_on`.
    pub(crate) fn deciding_on(self, decide_on: DecideOn) -> Settings {
        Settings { decide_on, ..self }
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct RunJson {
    pub trace: String,
    pub frames: usize,
    pub fps: Option<f64>,
    pub refresh_hz: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct SideJson {
    pub runs: Vec<RunJson>,
    pub refresh_hz: Option<f64>,
}

/// Which family a metric's test belongs to (docs/compare.md, "Families").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Family {
    /// fps, then frame cost P90 and janky frames by Holm once fps is decided.
    Headline,
    /// Every other app metric: its own test at alpha.
    Secondary,
    /// A scene's metric: its own test at alpha, for exploring, not for deciding.
    Exploratory,
    /// No test.
    None,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct MetricResult {
    pub metric: &'static str,
    pub unit: &'static str,
    pub direction: Direction,
    pub family: Family,
    /// The median run of each side.
    pub before: Option<f64>,
    pub after: Option<f64>,
    pub delta: Option<f64>,
    pub delta_pct: Option<f64>,
    /// The 1 − alpha interval of the shift after − before (Moses).
    pub ci: Option<[f64; 2]>,
    /// The 1 − 2·alpha interval the equivalence decision uses.
    pub equivalence_ci: Option<[f64; 2]>,
    pub p_value: Option<f64>,
    /// Adjusted within the family (the headline's hierarchy; equal to `p_value` outside it).
    pub p_adjusted: Option<f64>,
    pub p_method: Option<PMethod>,
    pub verdict: Verdict,
    /// For inconclusive and indicative verdicts: runs per side likely to resolve it (capped; see docs).
    pub runs_needed: Option<usize>,
    pub before_runs: Vec<Option<f64>>,
    pub after_runs: Vec<Option<f64>>,
    /// [`zero_both`]; in the document only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub zero_both: bool,
    /// Which way the rank test saw the change (for gates).
    #[serde(skip)]
    pub u_excess: f64,
}

/// One blocker kind compared (docs/compare.md, "Blockers"): its (thread,
/// slice) and the same fields as a metric's, whose `metric` is `blocker`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BlockerResult {
    pub thread: Option<String>,
    pub slice: Option<String>,
    /// `thread / slice`, as the tables print it.
    pub kind: String,
    #[serde(flatten)]
    pub result: MetricResult,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct SceneResult {
    pub scene: String,
    pub metrics: Vec<MetricResult>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct GateResult {
    pub rule: String,
    pub status: GateStatus,
    pub tripped: bool,
    pub value: Option<f64>,
    /// Holm-adjusted over the rules on a change; null for budgets.
    pub p_adjusted: Option<f64>,
    /// Why a rule was not checked, or why it tripped without a check.
    pub reason: Option<String>,
}

/// The whole comparison: the `--format json` document.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub(crate) fpsan_version: &'static str,
    pub(crate) app: String,
    pub(crate) settings: Settings,
    pub(crate) before: SideJson,
    pub(crate) after: SideJson,
    /// Too few runs on a side for the test to reach alpha: no verdicts, gates not checked by default.
    pub(crate) indicative: bool,
    /// Runs a side from which a test can reach alpha (equal sides).
    pub(crate) min_runs_per_side: usize,
    /// The headline word.
    pub(crate) overall: &'static str,
    pub(crate) metrics: Vec<MetricResult>,
    pub(crate) scenes: Vec<SceneResult>,
    /// The blocker kinds that hold the most of the app's critical path, each compared.
    pub(crate) blockers: Vec<BlockerResult>,
    pub(crate) gates: Vec<GateResult>,
    pub(crate) warnings: Vec<Warning>,
}

impl Comparison {
    pub(crate) fn metric(&self, name: &str) -> Option<&MetricResult> {
        self.metrics.iter().find(|m| m.metric == name)
    }

    /// The verdict on one of the app's metrics (by its JSON name).
    pub fn verdict(&self, metric: &str) -> Option<Verdict> {
        self.metric(metric).map(|m| m.verdict)
    }

    /// The Mann–Whitney p of one of the app's metrics, before any adjustment.
    pub fn p_value(&self, metric: &str) -> Option<f64> {
        self.metric(metric).and_then(|m| m.p_value)
    }

    /// The metric's value on each run of each side (`[before, after]`; runs where it is undefined left out).
    pub fn per_run(&self, metric: &str) -> Option<[Vec<f64>; 2]> {
        let m = self.metric(metric)?;
        let defined = |v: &[Option<f64>]| v.iter().flatten().copied().collect();
        Some([defined(&m.before_runs), defined(&m.after_runs)])
    }

    /// Whether any `--fail-if` rule tripped (exit status 3).
    pub fn gate_tripped(&self) -> bool {
        self.gates.iter().any(|g| g.tripped)
    }

    /// The headline word: smoother, less smooth, mixed, no change, no clear change or indicative.
    pub fn overall(&self) -> &'static str {
        self.overall
    }
    pub(crate) fn run_counts(&self) -> (usize, usize) {
        (self.before.runs.len(), self.after.runs.len())
    }
}

/// Every run of both sides is 0 (FROZEN frames of two smooth builds): the
/// test's verdict stands in the document, but nothing changed, and every
/// rendering says so (`no change (0 both)`).
pub(crate) fn zero_both(m: &MetricResult) -> bool {
    m.before == Some(0.0)
        && m.after == Some(0.0)
        && m.before_runs.iter().chain(&m.after_runs).flatten().all(|&v| v == 0.0)
}

pub(crate) fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// Whether an exact rank test of `n` against `m` runs can reach `alpha` at all.
pub(crate) fn testable(n: usize, m: usize, alpha: f64) -> bool {
    smallest_p(n, m) <= alpha * (1.0 + 1e-12)
}

/// The fewest runs a side (equal sides) at which the test can reach `alpha`: 4 at 0.05, 5 at 0.01.
pub(crate) fn min_runs_per_side(alpha: f64) -> usize {
    (1..).find(|&k| testable(k, k, alpha)).unwrap_or(usize::MAX)
}

/// Compare the app's runs (and its scenes), apply the gates.
pub(crate) fn compare(sides: &Sides, rules: &[GateRule], s: &Settings) -> Comparison {
    let [before, after] = &sides.runs;
    let mut bounds = BoundsCache::default();
    let per_run = |runs: &[Run]| -> Vec<Vec<f64>> { runs.iter().map(|r| r.values().0.to_vec()).collect() };
    let (b_values, a_values) = (per_run(before), per_run(after));
    let included = included_metrics(before, after, true);
    let mut metrics = compare_metrics(&b_values, &a_values, &included, Scope::App, s, &mut bounds);
    let (scenes, scene_warnings) = compare_scenes(before, after, s, &mut bounds);
    let blockers = compare_blockers(before, after, s, &mut bounds);
    let (startups, startup_warning) = compare_startups(before, after, s, &mut bounds);
    metrics.extend(startups);
    metrics.extend(compare_per_run(blocks::samples(before, after), s, &mut bounds));
    metrics.extend(compare_per_run(input::samples(before, after), s, &mut bounds));
    let mut warnings = sides.warnings.clone();
    warnings.extend(startup_warning);
    if s.decide_on.startup() && !metrics.iter().any(|m| m.metric == startups::StartupMetric::Ttid.name()) {
        warnings.push(Warning::new(
            WarningCode::NoStartup,
            "the comparison decides on the startup, but the app has no startup with a TTID on both sides \
             (was it started in the traces, with `capture --launch cold`?): the startup decides nothing",
        ));
    }
    warnings.extend(quality_warnings(before, after, &b_values, &a_values));
    warnings.extend(scene_warnings);
    let indicative = !testable(before.len(), after.len(), s.alpha);
    let mut c = Comparison {
        fpsan_version: env!("CARGO_PKG_VERSION"),
        app: sides.app.clone(),
        settings: *s,
        before: side_json(before, &b_values),
        after: side_json(after, &a_values),
        indicative,
        min_runs_per_side: min_runs_per_side(s.alpha),
        overall: "",
        metrics,
        scenes,
        blockers,
        gates: Vec::new(),
        warnings,
    };
    c.overall = overall(&c);
    c.gates = gates(&c, rules, s);
    for r in rules {
        if c.metric(&r.metric).is_none() {
            let message =
                format!("gate rule `{}`: {} is not available for these traces; not checked", r.text, r.metric);
            c.warnings.push(Warning::new(WarningCode::GateNotChecked, message));
        }
    }
    c
}

/// The tie-free null distribution of U per pair of side sizes, computed once.
#[derive(Default)]
struct BoundsCache(HashMap<(usize, usize), NullU>);

impl BoundsCache {
    fn get(&mut self, n: usize, m: usize) -> &NullU {
        self.0.entry((n, m)).or_insert_with(|| NullU::new(n, m))
    }
}

/// The app, or one of its scenes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    App,
    Scene,
}

/// The metrics both sides can support: `overrun_p90` and `perfetto_jank_pct`
/// need FrameTimeline on both sides; scenes have no wall time.
fn included_metrics(before: &[Run], after: &[Run], with_wall: bool) -> Vec<usize> {
    let has_timeline = |side: &[Run]| side.iter().flat_map(|r| &r.frames).any(|f| f.overrun_ns.is_some());
    let timeline = has_timeline(before) && has_timeline(after);
    Metric::ALL
        .into_iter()
        .filter(|m| match m {
            Metric::FpsWall => with_wall,
            m => timeline || !m.needs_timeline(),
        })
        .map(Metric::index)
        .collect()
}

/// The finite values of column `k` (a run where the metric is undefined is left out of its sample).
fn column(values: &[Vec<f64>], k: usize) -> Vec<f64> {
    values.iter().map(|v| v[k]).filter(|v| v.is_finite()).collect()
}

fn median(values: &[f64]) -> f64 {
    quantile_linear(&mut values.to_vec(), 0.5)
}

/// Tests, intervals, Holm and verdicts for the `included` metrics, from per-run values (`[run][metric]`).
fn compare_metrics(
    before: &[Vec<f64>],
    after: &[Vec<f64>],
    included: &[usize],
    scope: Scope,
    s: &Settings,
    bounds: &mut BoundsCache,
) -> Vec<MetricResult> {
    // Each metric's sample on each side: the runs where it is defined.
    let samples: Vec<[Vec<f64>; 2]> = included.iter().map(|&k| [column(before, k), column(after, k)]).collect();
    let mut results: Vec<MetricResult> = included
        .iter()
        .zip(&samples)
        .map(|(&k, [b, a])| describe_and_test(Head::of(Metric::ALL[k], scope, s.decide_on), b, a, s, bounds))
        .collect();
    let others_tested = adjust_headline(&mut results, s.decide_on);
    for ((r, &k), [b, a]) in results.iter_mut().zip(included).zip(&samples) {
        let all_runs = |values: &[Vec<f64>]| values.iter().map(|v| finite(v[k])).collect();
        r.before_runs = all_runs(before);
        r.after_runs = all_runs(after);
        r.zero_both = zero_both(r);
        // Holm's first step among the headline's others, in the worst case, is their level.
        let holm_family = if r.family == Family::Headline && r.metric != PRIMARY.name() { others_tested } else { 1 };
        settle(r, b, a, holm_family, s);
    }
    results
}

/// What a blocker kind's comparison is: critical-path time per frame, lower is better; the kinds a family
/// of their own, Holm-adjusted among themselves (for finding what grew, not for deciding that the UI changed).
const BLOCKER: Head =
    Head { metric: "blocker", unit: "ms per frame", direction: Direction::Lower, family: Family::Exploratory };

/// The blocker kinds that matter ([`blockers::samples`]), each through the same test, interval and decision as
/// a metric, their p values Holm-adjusted across the kinds: with eight kinds each at alpha, a same-build
/// comparison called one of them better or worse in about a fifth of the comparisons (docs/compare.md,
/// "Blockers"); a kind a run does not have is 0 there.
fn compare_blockers(before: &[Run], after: &[Run], s: &Settings, bounds: &mut BoundsCache) -> Vec<BlockerResult> {
    let samples = blockers::samples(before, after);
    let runs = |v: &[f64]| v.iter().copied().map(finite).collect();
    let mut tested: Vec<Tested> =
        samples.iter().map(|x| describe_runs(BLOCKER, runs(&x.before), runs(&x.after), s, bounds)).collect();
    let adjusted = holm(&tested.iter().map(|t| t.result.p_value).collect::<Vec<_>>());
    for (t, p) in tested.iter_mut().zip(adjusted) {
        t.result.p_adjusted = p;
    }
    let family = tested.len();
    samples
        .into_iter()
        .zip(tested)
        .map(|(x, t)| BlockerResult {
            kind: x.kind.label(),
            thread: x.kind.thread,
            slice: x.kind.slice,
            result: t.settled(family, s),
        })
        .collect()
}

/// A quantity described and tested from its value on each run, before its verdict ([`Tested::settled`]).
struct Tested {
    result: MetricResult,
    /// Its defined per-run values, each side.
    before: Vec<f64>,
    after: Vec<f64>,
}

impl Tested {
    /// Its verdict, from its (adjusted) p, in a Holm family of `holm_family` tests (1: alone).
    fn settled(mut self, holm_family: usize, s: &Settings) -> MetricResult {
        settle(&mut self.result, &self.before, &self.after, holm_family, s);
        self.result
    }
}

/// One quantity's description and test from its value on each run (None where undefined: left out of the
/// sample); its p unadjusted.
fn describe_runs(
    head: Head,
    before_runs: Vec<Option<f64>>,
    after_runs: Vec<Option<f64>>,
    s: &Settings,
    bounds: &mut BoundsCache,
) -> Tested {
    let (before, after): (Vec<f64>, Vec<f64>) =
        (before_runs.iter().flatten().copied().collect(), after_runs.iter().flatten().copied().collect());
    let mut result = describe_and_test(head, &before, &after, s, bounds);
    result.before_runs = before_runs;
    result.after_runs = after_runs;
    result.zero_both = zero_both(&result);
    Tested { result, before, after }
}

/// One quantity tested on its own from its value on each run (None where undefined: left out of the
/// sample): its description, test and verdict; a headline one (TTID alone, or beside the frames'
/// hierarchy) at its share of alpha ([`DecideOn::share`]).
fn test_alone(
    head: Head,
    before_runs: Vec<Option<f64>>,
    after_runs: Vec<Option<f64>>,
    s: &Settings,
    bounds: &mut BoundsCache,
) -> MetricResult {
    let mut t = describe_runs(head, before_runs, after_runs, s, bounds);
    if head.family == Family::Headline {
        t.result.p_adjusted = s.decide_on.share(t.result.p_adjusted);
    }
    t.settled(1, s)
}

/// The app's startups' TTID, TTFD and duration ([`startups::samples`]), ms, lower is better: each its own
/// test at alpha, as a secondary metric of the app (docs/compare.md, "Startups"); a run without a startup of
/// the compared type is left out of the sample.
fn compare_startups(
    before: &[Run],
    after: &[Run],
    s: &Settings,
    bounds: &mut BoundsCache,
) -> (Vec<MetricResult>, Option<Warning>) {
    let (samples, warning) = startups::samples(before, after);
    let mut test = |head, before_runs, after_runs| test_alone(head, before_runs, after_runs, s, bounds);
    let mut results = Vec::new();
    for x in samples.metrics {
        // TTID joins the headline when the comparison decides on the startup.
        let family = if x.metric == startups::StartupMetric::Ttid && s.decide_on.startup() {
            Family::Headline
        } else {
            Family::Secondary
        };
        let head = Head { metric: x.metric.name(), unit: "ms", direction: Direction::Lower, family };
        results.push(test(head, x.before, x.after));
    }
    // The breakdown's parts, each its own test at alpha as a scene's metric: for finding what grew.
    for x in samples.parts {
        let head = Head { metric: x.metric, unit: "ms", direction: Direction::Lower, family: Family::Exploratory };
        results.push(test(head, x.before, x.after));
    }
    (results, warning)
}

/// Secondary metrics read off each run on its own, lower is better, each its own test at alpha: the
/// app's main-thread blocks per minute, blocked time per minute and longest block ([`blocks::samples`],
/// docs/compare.md, "Main-thread blocks"), its input latency and delayed frames ([`input::samples`],
/// "Input"); a run that does not define one is left out of its sample.
fn compare_per_run<M: RunMetric>(samples: Vec<PerRun<M>>, s: &Settings, bounds: &mut BoundsCache) -> Vec<MetricResult> {
    samples
        .into_iter()
        .map(|x| {
            let head = Head {
                metric: x.metric.name(),
                unit: x.metric.unit(),
                direction: Direction::Lower,
                family: Family::Secondary,
            };
            test_alone(head, x.before, x.after, s, bounds)
        })
        .collect()
}

/// The headline is tested as a hierarchy: fps first, then the other two by Holm once fps is decided, at the
/// frames' share of alpha ([`DecideOn::share`]); every other family is a single test. Returns how many of
/// the other two were tested.
fn adjust_headline(results: &mut [MetricResult], decide_on: DecideOn) -> usize {
    let headline: Vec<usize> = (0..results.len()).filter(|&i| results[i].family == Family::Headline).collect();
    let primary = headline.iter().copied().find(|&i| results[i].metric == PRIMARY.name());
    let others: Vec<usize> = headline.iter().copied().filter(|&i| Some(i) != primary).collect();
    let (first, rest) = primary_then_holm(
        primary.and_then(|i| results[i].p_value),
        &others.iter().map(|&i| results[i].p_value).collect::<Vec<_>>(),
    );
    if let Some(i) = primary {
        results[i].p_adjusted = decide_on.share(first);
    }
    for (&i, p) in others.iter().zip(rest) {
        results[i].p_adjusted = decide_on.share(p);
    }
    others.iter().filter(|&&i| results[i].p_value.is_some()).count()
}

/// The verdict of a tested metric (from its adjusted p), and for an unresolved one the runs likely to
/// resolve it. `b` and `a` are its per-run values; `holm_family` the number of tests in the Holm family it
/// is adjusted in (1 when alone), whose first step, in the worst case, is the level it must reach.
fn settle(r: &mut MetricResult, b: &[f64], a: &[f64], holm_family: usize, s: &Settings) {
    if r.verdict == Verdict::Inconclusive {
        r.verdict = match (r.p_adjusted, r.before, r.delta) {
            (Some(p), Some(before), Some(delta)) => decide(
                &Evidence {
                    direction: r.direction,
                    before,
                    delta,
                    p,
                    u_excess: r.u_excess,
                    equivalence_ci: r.equivalence_ci.map(|c| (c[0], c[1])),
                },
                s.alpha,
                s.min_change_pct,
            ),
            _ => Verdict::Inconclusive,
        };
    }
    if !matches!(r.verdict, Verdict::Inconclusive | Verdict::Indicative) {
        return;
    }
    let alpha_test = s.alpha / holm_family.max(1) as f64;
    let min_runs = min_runs_per_side(s.alpha);
    r.runs_needed = match (r.before, r.delta, pooled_sd(b, a)) {
        (Some(before), Some(delta), Some(sd)) => runs_needed(
            Spread { before, delta, sd },
            s.alpha,
            alpha_test,
            s.min_change_pct,
            // More than the runs that left it unresolved.
            min_runs.max(b.len().min(a.len()) + 1),
        ),
        _ => None,
    };
    if r.verdict == Verdict::Indicative && r.runs_needed.is_none() {
        r.runs_needed = Some(min_runs);
    }
}

/// The headline's first metric's result from per-run values alone, exactly as [`compare`] settles it (the
/// primary metric keeps its own p): `fps`, or `startup_ttid` when the comparison decides on the startup
/// alone; what each look of `ab --until-decided` decides on (docs/ab.md, "Until decided").
pub(crate) fn primary_result(before: &[f64], after: &[f64], s: &Settings) -> MetricResult {
    let mut r = describe_and_test(primary_head(s.decide_on), before, after, s, &mut BoundsCache::default());
    r.p_adjusted = s.decide_on.share(r.p_adjusted);
    settle(&mut r, before, after, 1, s);
    r
}

/// The headline's first metric: fps, or TTID for a comparison that decides on the startup alone.
pub(crate) fn primary_head_name(decide_on: DecideOn) -> &'static str {
    primary_head(decide_on).metric
}

fn primary_head(decide_on: DecideOn) -> Head {
    match decide_on {
        DecideOn::Startup => Head {
            metric: startups::StartupMetric::Ttid.name(),
            unit: "ms",
            direction: Direction::Lower,
            family: Family::Headline,
        },
        DecideOn::Frames | DecideOn::Both => Head::of(PRIMARY, Scope::App, decide_on),
    }
}

/// What a compared quantity is: its name, unit, better direction and family.
#[derive(Debug, Clone, Copy)]
struct Head {
    metric: &'static str,
    unit: &'static str,
    direction: Direction,
    family: Family,
}

impl Head {
    /// A metric of the app or of a scene; the frames' headline metrics are
    /// secondary when the comparison decides on the startup alone.
    fn of(m: Metric, scope: Scope, decide_on: DecideOn) -> Head {
        let family = match (m.role(), scope) {
            (Role::Descriptive, _) => Family::None,
            (_, Scope::Scene) => Family::Exploratory,
            (Role::Headline, Scope::App) if decide_on.frames() => Family::Headline,
            (Role::Headline | Role::Secondary, Scope::App) => Family::Secondary,
        };
        Head { metric: m.name(), unit: m.unit(), direction: m.direction(), family }
    }
}

/// One quantity's description and test; the verdict is settled after the family's adjustment (`Inconclusive`
/// stands for "to decide").
fn describe_and_test(head: Head, b: &[f64], a: &[f64], s: &Settings, bounds: &mut BoundsCache) -> MetricResult {
    let (before, after) = (median(b), median(a));
    let delta = after - before;
    let delta_pct = if before != 0.0 { percent_of(before, delta) } else { f64::NAN };
    let Head { metric, unit, direction, family } = head;
    let mut r = MetricResult {
        metric,
        unit,
        direction,
        family,
        before: finite(before),
        after: finite(after),
        delta: finite(delta),
        delta_pct: finite(delta_pct),
        ci: None,
        equivalence_ci: None,
        p_value: None,
        p_adjusted: None,
        p_method: None,
        verdict: Verdict::Descriptive,
        runs_needed: None,
        before_runs: Vec::new(),
        after_runs: Vec::new(),
        zero_both: false,
        u_excess: 0.0,
    };
    if family == Family::None {
        return r;
    }
    if !testable(b.len(), a.len(), s.alpha) {
        r.verdict = Verdict::Indicative;
        return r;
    }
    let null = bounds.get(b.len(), a.len());
    let pair = |c: Option<(f64, f64)>| c.map(|(lo, hi)| [lo, hi]);
    r.ci = pair(null.interval(b, a, s.alpha));
    r.equivalence_ci = pair(null.interval(b, a, (2.0 * s.alpha).min(0.999)));
    if let Some(t) = mann_whitney(b, a, Some(null)) {
        r.p_value = Some(t.p);
        r.p_adjusted = Some(t.p);
        r.p_method = Some(t.method);
        r.u_excess = t.u_excess;
    }
    r.verdict = Verdict::Inconclusive;
    r
}

/// Scene names of a side, in order of first appearance; then its jank CUJs
/// (`J<NAME>`), which are scenes aligned by CUJ name across runs.
fn scene_names(runs: &[Run]) -> Vec<&str> {
    let mut seen = HashSet::new();
    let scenes = runs.iter().flat_map(|r| r.scene_names.iter().map(String::as_str));
    let cujs = runs.iter().flat_map(|r| r.cujs.iter().map(|(n, _)| n.as_str()));
    scenes.chain(cujs).filter(|n| seen.insert(*n)).collect()
}

/// Each run's frames grouped by scene name, in one pass over the run, and
/// by CUJ name (a frame inside two CUJ instances of one name counts once).
fn by_scene(runs: &[Run]) -> Vec<HashMap<&str, Vec<&Frame>>> {
    runs.iter()
        .map(|r| {
            let mut groups: HashMap<&str, Vec<&Frame>> = HashMap::new();
            for f in &r.frames {
                groups.entry(r.scene_names[f.scene as usize].as_str()).or_default().push(f);
            }
            let mut cuj_frames: HashMap<&str, Vec<u32>> = HashMap::new();
            for (name, frames) in &r.cujs {
                cuj_frames.entry(name.as_str()).or_default().extend(frames);
            }
            for (name, mut idx) in cuj_frames {
                idx.sort_unstable();
                idx.dedup();
                groups.insert(name, idx.iter().map(|&i| &r.frames[i as usize]).collect());
            }
            groups
        })
        .collect()
}

/// Per-run values of a scene: its frames in each run that has it (runs without it are left out).
fn scene_values(groups: &[HashMap<&str, Vec<&Frame>>], scene: &str) -> Vec<Vec<f64>> {
    groups.iter().filter_map(|g| Some(Values::of(g.get(scene)?, None).0.to_vec())).collect()
}

/// Per-scene comparisons for scenes on both sides; a warning per one-sided scene.
fn compare_scenes(
    before: &[Run],
    after: &[Run],
    s: &Settings,
    bounds: &mut BoundsCache,
) -> (Vec<SceneResult>, Vec<Warning>) {
    let (bn, an) = (scene_names(before), scene_names(after));
    let (b_set, a_set): (HashSet<&str>, HashSet<&str>) = (bn.iter().copied().collect(), an.iter().copied().collect());
    let mut warnings = Vec::new();
    for (names, other, side) in [(&bn, &a_set, "before"), (&an, &b_set, "after")] {
        for n in names.iter().filter(|n| !other.contains(*n)) {
            let message = format!("scene {n} is only on the {side} side; not compared");
            warnings.push(Warning::new(WarningCode::SceneOnOneSide, message));
        }
    }
    // One scene on both sides is the app itself: its rows would repeat the app's.
    if bn.len() < 2 && an.len() < 2 {
        return (Vec::new(), warnings);
    }
    let (b_groups, a_groups) = (by_scene(before), by_scene(after));
    let included = included_metrics(before, after, false);
    let results = bn
        .iter()
        .filter(|n| a_set.contains(*n))
        .map(|name| SceneResult {
            scene: name.to_string(),
            metrics: compare_metrics(
                &scene_values(&b_groups, name),
                &scene_values(&a_groups, name),
                &included,
                Scope::Scene,
                s,
                bounds,
            ),
        })
        .collect();
    (results, warnings)
}

fn side_json(runs: &[Run], values: &[Vec<f64>]) -> SideJson {
    let fps = Metric::Fps.index();
    let runs_json: Vec<RunJson> = runs
        .iter()
        .zip(values)
        .map(|(r, v)| RunJson {
            trace: r.trace.clone(),
            frames: r.frames.len(),
            fps: finite(v[fps]),
            refresh_hz: finite(max_hz(&r.frames)),
        })
        .collect();
    let hz = runs.iter().map(|r| max_hz(&r.frames)).fold(f64::NAN, f64::max);
    SideJson { runs: runs_json, refresh_hz: finite(hz) }
}

fn max_hz(frames: &[Frame]) -> f64 {
    series::Pacing::of(frames).refresh_hz
}

/// Display time the app's frames covered in one run, Σ (d + 1) · I: the length of what the scenario made
/// the app draw. Unlike frames per second of trace it does not follow the fps: a smoother build draws
/// more frames in the same time.
fn drawing_time_s(run: &Run) -> f64 {
    series::Pacing::of(&run.frames).paced_ns as f64 / 1e9
}

/// The checks that say a comparison may mislead.
fn quality_warnings(before: &[Run], after: &[Run], b_values: &[Vec<f64>], a_values: &[Vec<f64>]) -> Vec<Warning> {
    let mut w = Vec::new();
    let side_hz = |runs: &[Run]| runs.iter().map(|r| max_hz(&r.frames)).fold(f64::NAN, f64::max);
    let (bh, ah) = (side_hz(before), side_hz(after));
    if (bh - ah).abs() > REFRESH_TOLERANCE_HZ {
        w.push(Warning::new(
            WarningCode::RefreshDiffers,
            format!(
            "refresh rate differs: before {bh:.0} Hz, after {ah:.0} Hz; fps is compared against each side's own rate \
             (each side's fps is capped at its refresh rate and frame budgets scale with it)"
        ),
        ));
    }
    for (runs, side) in [(before, "before"), (after, "after")] {
        let rates: Vec<f64> = runs.iter().map(|r| max_hz(&r.frames)).filter(|v| v.is_finite()).collect();
        let (lo, hi) = rates.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        if hi - lo > REFRESH_TOLERANCE_HZ {
            w.push(Warning::new(WarningCode::MixedRefresh, format!(
                "mixed refresh rates on the {side} side: its runs ran at {lo:.0} to {hi:.0} Hz; runs at different rates \
                 are not alike (fps is capped at each run's rate): record every run at one rate"
            )));
        }
    }
    for (what, code, get) in [
        (
            "build fingerprint",
            WarningCode::BuildFingerprintDiffers,
            (|r: &Run| r.fingerprint.clone()) as fn(&Run) -> Option<String>,
        ),
        ("device", WarningCode::DeviceDiffers, |r: &Run| r.device.clone()),
    ] {
        let values = |runs: &[Run]| -> Vec<String> {
            let mut v: Vec<String> = runs.iter().filter_map(get).collect();
            v.sort();
            v.dedup();
            v
        };
        let (b, a) = (values(before), values(after));
        if !b.is_empty() && !a.is_empty() && b != a {
            w.push(Warning::new(code, format!("{what} differs: before {}, after {}", b.join(" | "), a.join(" | "))));
        }
    }
    let drawing = |runs: &[Run]| median(&runs.iter().map(drawing_time_s).collect::<Vec<_>>());
    let (bd, ad) = (drawing(before), drawing(after));
    if bd > 0.0 && ad.is_finite() && ((ad - bd) / bd).abs() > DRAWING_TIME_CHANGE {
        w.push(Warning::new(WarningCode::ScenarioChanged, format!(
            "the app drew for {bd:.1} s per run before and {ad:.1} s after (median run, {:+.0}%): did the scenario change?",
            (ad - bd) / bd * 100.0
        )));
    }
    let fps = Metric::Fps.index();
    for (values, side) in [(b_values, "before"), (a_values, "after")] {
        if let Some(cv) = coefficient_of_variation(&column(values, fps)) {
            if cv > NOISY_CV {
                w.push(Warning::new(
                    WarningCode::NoisyRuns,
                    format!(
                    "noisy runs: fps varies {:.0}% run to run on the {side} side (coefficient of variation > 10%); \
                     check the device state (thermal, background work) and repeat",
                    cv * 100.0
                ),
                ));
            }
        }
    }
    w
}

/// The headline word from the headline's verdicts: fps, frame cost P90 and
/// janky frames (smoother, less smooth), TTID (faster start, slower start),
/// or all four (better, worse).
fn overall(c: &Comparison) -> &'static str {
    if c.indicative {
        return "indicative";
    }
    let verdicts: Vec<Verdict> = c.metrics.iter().filter(|m| m.family == Family::Headline).map(|m| m.verdict).collect();
    let better = verdicts.contains(&Verdict::Better);
    let worse = verdicts.contains(&Verdict::Worse);
    let [good, bad] = match c.settings.decide_on {
        DecideOn::Frames => ["smoother", "less smooth"],
        DecideOn::Startup => ["faster start", "slower start"],
        DecideOn::Both => ["better", "worse"],
    };
    match (better, worse) {
        (true, false) => good,
        (false, true) => bad,
        (true, true) => "mixed",
        _ if !verdicts.is_empty() && verdicts.iter().all(|v| *v == Verdict::Same) => "no change",
        _ => "no clear change",
    }
}

/// Every rule against the app-level metrics: Holm over the rules on a change; budgets on the value.
fn gates(c: &Comparison, rules: &[GateRule], s: &Settings) -> Vec<GateResult> {
    let metric = |r: &GateRule| c.metric(&r.metric);
    let change_ps: Vec<Option<f64>> =
        rules.iter().map(|r| if r.on_change() { metric(r).and_then(|m| m.p_value) } else { None }).collect();
    let adjusted = holm(&change_ps);
    rules
        .iter()
        .zip(adjusted)
        .map(|(rule, p_family)| {
            let m = metric(rule);
            let value = m.and_then(|m| rule.field.pick(m.after, m.delta, m.delta_pct));
            let result = |status: GateStatus, reason: Option<String>| GateResult {
                rule: rule.text.clone(),
                status,
                tripped: status == GateStatus::Tripped,
                value,
                p_adjusted: p_family,
                reason,
            };
            let Some(m) = m else {
                return result(
                    GateStatus::NotChecked,
                    Some(format!("{} is not available for these traces", rule.metric)),
                );
            };
            if c.indicative {
                let (b, a) = c.run_counts();
                let why = format!(
                    "indicative comparison ({b} vs {a} runs; a test needs {} a side at alpha {})",
                    c.min_runs_per_side, s.alpha
                );
                return match s.indicative_gates {
                    IndicativeGates::Pass => result(GateStatus::NotChecked, Some(why)),
                    IndicativeGates::Fail => result(GateStatus::Tripped, Some(format!("{why}: failing closed"))),
                };
            }
            let nan = f64::NAN;
            let input = GateInput {
                after: m.after.unwrap_or(nan),
                delta: m.delta.unwrap_or(nan),
                delta_pct: m.delta_pct.unwrap_or(nan),
                p_family,
                u_excess: m.u_excess,
            };
            if rule.tripped(&input, s.alpha) {
                result(GateStatus::Tripped, None)
            } else {
                result(GateStatus::Ok, None)
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "comparison_tests.rs"]
mod tests;
