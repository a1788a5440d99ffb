//! Tests of the decision rule, Holm and the run-count estimate: expected values by hand.

use super::*;

fn evidence(direction: Direction, before: f64, delta: f64, p: f64, u: f64, eq: Option<(f64, f64)>) -> Evidence {
    Evidence { direction, before, delta, p, u_excess: u, equivalence_ci: eq }
}

#[test]
fn decision_table() {
    use Direction::{Higher, Lower, Neutral};
    use Verdict::{Better, Descriptive, Inconclusive, Same, Worse};
    let nan = f64::NAN;
    // alpha 0.05, min change 2%: before 50 puts the margin at ±1.
    // (case, direction, before, delta, p, u_excess, 1 − 2α interval, verdict)
    let cases = [
        ("significant and large, up", Higher, 50.0, 5.0, 0.01, 3.0, Some((3.0, 7.0)), Better),
        ("significant and large, up, lower is better", Lower, 50.0, 5.0, 0.01, 3.0, Some((3.0, 7.0)), Worse),
        ("significant and large, down", Higher, 50.0, -5.0, 0.01, -3.0, Some((-7.0, -3.0)), Worse),
        ("significant and large, down, lower is better", Lower, 50.0, -5.0, 0.01, -3.0, None, Better),
        ("p exactly alpha", Higher, 50.0, 5.0, 0.05, 3.0, None, Better),
        ("p just above alpha", Higher, 50.0, 5.0, 0.050_001, 3.0, Some((-1.0, 9.0)), Inconclusive),
        ("change exactly the margin", Higher, 50.0, 1.0, 0.01, 3.0, None, Better),
        ("significant and small, interval in the margin", Higher, 50.0, 0.5, 0.01, 3.0, Some((0.2, 0.8)), Same),
        (
            "significant and small, interval past the margin",
            Higher,
            50.0,
            0.5,
            0.01,
            3.0,
            Some((0.2, 1.5)),
            Inconclusive,
        ),
        ("equivalent, not significant", Lower, 50.0, 0.1, 0.6, 0.5, Some((-0.5, 0.6)), Same),
        ("interval on the margin's edges", Lower, 50.0, 0.0, 1.0, 0.0, Some((-1.0, 1.0)), Same),
        ("neither", Higher, 50.0, 3.0, 0.3, 2.0, Some((-2.0, 8.0)), Inconclusive),
        ("no interval (small sides)", Higher, 50.0, 0.0, 0.9, 0.0, None, Inconclusive),
        ("medians and ranks disagree", Higher, 50.0, 5.0, 0.01, -3.0, Some((-7.0, 9.0)), Inconclusive),
        ("medians equal, ranks significant", Higher, 50.0, 0.0, 0.01, 3.0, Some((0.5, 3.0)), Inconclusive),
        ("before 0: any significant change is infinite", Lower, 0.0, 0.4, 0.01, 3.0, None, Worse),
        ("before 0: zero on both sides is not `same`", Lower, 0.0, 0.0, 1.0, 0.0, Some((0.0, 0.0)), Inconclusive),
        ("neutral", Neutral, 50.0, 5.0, 0.01, 3.0, Some((3.0, 7.0)), Descriptive),
        ("undefined p", Higher, 50.0, 5.0, nan, 3.0, Some((3.0, 7.0)), Inconclusive),
        ("undefined before", Higher, nan, 5.0, 0.01, 3.0, None, Inconclusive),
        ("negative before: percent of its magnitude", Higher, -50.0, 5.0, 0.01, 3.0, None, Better),
    ];
    for (case, direction, before, delta, p, u, eq, want) in cases {
        assert_eq!(decide(&evidence(direction, before, delta, p, u, eq), 0.05, 2.0), want, "{case}");
    }
}

#[test]
fn margin_is_in_percent_of_before() {
    // The same 1.5 change: 3% of 50 (past a 2% margin), 1.5% of 100 (within it).
    let e = |before| evidence(Direction::Higher, before, 1.5, 0.01, 1.0, Some((1.2, 1.8)));
    assert_eq!(decide(&e(50.0), 0.05, 2.0), Verdict::Better);
    assert_eq!(decide(&e(100.0), 0.05, 2.0), Verdict::Same);
    // A negative margin is taken as its magnitude.
    assert_eq!(decide(&e(100.0), 0.05, -2.0), Verdict::Same);
    assert_eq!(percent_of(0.0, 0.0), 0.0);
    assert_eq!(percent_of(0.0, -2.0), f64::NEG_INFINITY);
    assert_eq!(percent_of(-4.0, 1.0), 25.0);
}

#[test]
fn holm_step_down() {
    // Sorted 0.01, 0.03, 0.04 become 3·0.01 = 0.03, 2·0.03 = 0.06, max(0.06, 1·0.04) = 0.06.
    assert_eq!(holm(&[Some(0.01), Some(0.04), Some(0.03)]), [Some(0.03), Some(0.06), Some(0.06)]);
    // Untested entries stay untested and do not count in k: 2·0.02, then 0.5.
    assert_eq!(holm(&[None, Some(0.02), Some(0.5)]), [None, Some(0.04), Some(0.5)]);
    // Capped at 1; one test is its own p.
    assert_eq!(holm(&[Some(0.6), Some(0.7)]), [Some(1.0), Some(1.0)]);
    assert_eq!(holm(&[Some(0.2)]), [Some(0.2)]);
    // Ties keep their input order and the monotone step.
    assert_eq!(holm(&[Some(0.01), Some(0.01)]), [Some(0.02), Some(0.02)]);
    assert_eq!(holm(&[]), Vec::<Option<f64>>::new());
    // A family of three where only the strongest survives at 0.05: 0.012·3 = 0.036; 0.03·2 = 0.06.
    let adjusted = holm(&[Some(0.03), Some(0.012), Some(0.04)]);
    let rejected: Vec<bool> = adjusted.iter().map(|p| p.is_some_and(|p| p <= 0.05)).collect();
    assert_eq!(rejected, [false, true, false]);
}

#[test]
fn primary_first_then_holm() {
    // fps 0.01 first; the others 0.02 and 0.04 by Holm: 2 · 0.02 = 0.04, max(0.04, 0.04) = 0.04.
    assert_eq!(primary_then_holm(Some(0.01), &[Some(0.02), Some(0.04)]), (Some(0.01), vec![Some(0.04), Some(0.04)]));
    // A primary that is not significant caps the others: they are decided only after it.
    assert_eq!(primary_then_holm(Some(0.3), &[Some(0.001), Some(0.002)]), (Some(0.3), vec![Some(0.3), Some(0.3)]));
    // Without a primary test, plain Holm.
    assert_eq!(primary_then_holm(None, &[Some(0.01), Some(0.04)]), (None, vec![Some(0.02), Some(0.04)]));
    assert_eq!(primary_then_holm(Some(f64::NAN), &[None]), (None, vec![None]));
}

#[test]
fn runs_needed_by_hand() {
    // A 10% change (5 of 50) seen with run-to-run sd 5, headline family of 3 at alpha 0.05:
    // 2 · (z(1 − 0.05/6) + z(0.8))² · 25 / (25 · 3/π) = 21.93 (Python's statistics.NormalDist) → 22.
    let s = Spread { before: 50.0, delta: 5.0, sd: 5.0 };
    assert_eq!(runs_needed(s, 0.05, 0.05 / 3.0, 2.0, 4), Some(22));
    // A 0.2 change within a margin of 1 (2% of 50), sd 1: equivalence needs the interval within ±1:
    // 2 · (z(0.95) + z(0.8))² · 1 / (0.8² · 3/π) = 20.23 → 21.
    let s = Spread { before: 50.0, delta: 0.2, sd: 1.0 };
    assert_eq!(runs_needed(s, 0.05, 0.05, 2.0, 4), Some(21));
    // Never fewer than asked for; capped; unknown without a spread or a base.
    assert_eq!(runs_needed(Spread { sd: 0.01, ..s }, 0.05, 0.05, 2.0, 6), Some(6));
    assert_eq!(runs_needed(Spread { sd: 1e6, ..s }, 0.05, 0.05, 2.0, 4), Some(RUNS_NEEDED_CAP + 1));
    assert_eq!(runs_needed(Spread { sd: 0.0, ..s }, 0.05, 0.05, 2.0, 4), None);
    assert_eq!(runs_needed(Spread { before: 0.0, ..s }, 0.05, 0.05, 2.0, 4), None);
    // A change as large as the margin asks for significance, not equivalence.
    let at_margin = Spread { before: 50.0, delta: 1.0, sd: 1.0 };
    assert!(runs_needed(at_margin, 0.05, 0.05, 2.0, 4).is_some());
}

#[test]
fn pooled_sd_by_hand() {
    // [1, 3] around 2: 1 + 1; [2, 4, 6] around 4: 4 + 0 + 4; 10 over 5 − 2 degrees of freedom.
    assert_eq!(pooled_sd(&[1.0, 3.0], &[2.0, 4.0, 6.0]), Some((10.0f64 / 3.0).sqrt()));
    assert_eq!(pooled_sd(&[1.0], &[2.0]), None);
    // One side: its own sample sd.
    assert_eq!(pooled_sd(&[1.0, 3.0], &[]), Some(2.0f64.sqrt()));
}

#[test]
fn enum_names_and_symbols() {
    let json = |v: Verdict| serde_json::to_string(&v).unwrap();
    assert_eq!(json(Verdict::Indicative), r#""indicative""#);
    assert_eq!(json(Verdict::Descriptive), r#""descriptive""#);
    assert_eq!(serde_json::to_string(&Direction::Higher).unwrap(), r#""higher""#);
    for v in [Verdict::Better, Verdict::Worse, Verdict::Same, Verdict::Inconclusive] {
        assert_eq!(json(v), format!("\"{}\"", v.word()));
    }
    assert_eq!(Verdict::Same.symbol(), "~");
}
#[test]
fn coefficient_of_variation_values() {
    // Mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32, sample variance 32/7.
    let cv = coefficient_of_variation(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
    assert_eq!(cv, Some((32.0f64 / 7.0).sqrt() / 5.0));
    // Mean −2, deviations ±1: sd √2, over |mean|.
    assert_eq!(coefficient_of_variation(&[-1.0, -3.0]), Some(2.0f64.sqrt() / 2.0));
    assert_eq!(coefficient_of_variation(&[5.0, 5.0, 5.0]), Some(0.0));
    assert_eq!(coefficient_of_variation(&[]), None);
    assert_eq!(coefficient_of_variation(&[3.0]), None);
    assert_eq!(coefficient_of_variation(&[-1.0, 1.0]), None);
    assert_eq!(coefficient_of_variation(&[1.0, f64::NAN]), None);
    assert_eq!(coefficient_of_variation(&[f64::MAX, f64::MAX]), None); // the sum overflows
}
