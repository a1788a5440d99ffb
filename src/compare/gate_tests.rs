use super::*;

const METRICS: &[&str] = &["fps", "jank_pct", "frozen_per_1000", "p99_ms", "frame_cost_max"];
const GATEABLE: Gateable<'static> = Gateable { all: METRICS, descriptive: &["frame_cost_max"] };

fn rule(s: &str) -> GateRule {
    match parse_rule(s, GATEABLE) {
        Ok(r) => r,
        Err(e) => panic!("{s}: {e}"),
    }
}

#[test]
fn parse_valid_rules() {
    let r = rule("fps.delta_pct < -5");
    assert_eq!(
        r,
        GateRule {
            text: "fps.delta_pct < -5".into(),
            metric: "fps".into(),
            field: GateField::DeltaPct,
            op: GateOp::Lt,
            threshold: -5.0
        }
    );
    let parts = |r: GateRule| (r.metric, r.field, r.op, r.threshold);
    assert_eq!(parts(rule("frozen_per_1000.after>0")), ("frozen_per_1000".into(), GateField::After, GateOp::Gt, 0.0));
    assert_eq!(parts(rule("jank_pct.after >= 5.5")), ("jank_pct".into(), GateField::After, GateOp::Ge, 5.5));
    assert_eq!(parts(rule("  p99_ms.delta<=+2.5e1\t")), ("p99_ms".into(), GateField::Delta, GateOp::Le, 25.0));
    assert_eq!(rule("  p99_ms.delta<=+2.5e1\t").text, "p99_ms.delta<=+2.5e1");
    assert_eq!((GateOp::Ge.as_str(), GateField::DeltaPct.as_str()), (">=", "delta_pct"));
}

#[test]
fn parse_errors() {
    let err = |s: &str| parse_rule(s, GATEABLE).err();
    let syntax = |s: &str| Some(RuleError::Syntax { rule: s.trim().into() });
    for bad in ["", "fps.delta_pct", "fps < 5", ".after < 5", "fps. < 5", "fps.after = 5", "fps.after == 5"] {
        assert_eq!(err(bad), syntax(bad), "{bad:?}");
    }
    assert_eq!(err("fps .after < 5"), syntax("fps .after < 5"));
    assert_eq!(
        err("fps.before < 5"),
        Some(RuleError::UnknownField { rule: "fps.before < 5".into(), field: "before".into() })
    );
    for (bad, number) in [("fps.after <", ""), ("fps.after < x", "x"), ("fps.after <= = 5", "= 5")] {
        assert_eq!(err(bad), Some(RuleError::BadNumber { rule: bad.into(), number: number.into() }));
    }
    for bad in ["fps.after < nan", "fps.after < inf", "fps.after > -infinity", "fps.after < 1e999"] {
        assert!(matches!(err(bad), Some(RuleError::BadNumber { .. })), "{bad}");
    }
    assert_eq!(
        err("fsp.after < 5"),
        Some(RuleError::UnknownMetric {
            rule: "fsp.after < 5".into(),
            metric: "fsp".into(),
            known: "fps, jank_pct, frozen_per_1000, p99_ms, frame_cost_max".into()
        })
    );
    assert!(
        matches!(parse_rule("fps.after < 5", Gateable { all: &[], descriptive: &[] }), Err(RuleError::UnknownMetric { known, .. }) if known == "(none)")
    );
}

#[test]
fn parse_error_messages() {
    let msg = |s: &str| parse_rule(s, GATEABLE).err().map(|e| e.to_string()).unwrap_or_default();
    assert_eq!(
        msg("fps.delta_pct"),
        "gate rule `fps.delta_pct` does not parse: expected METRIC.FIELD OP NUMBER, e.g. `fps.delta_pct < -5`; \
         FIELD is after, delta or delta_pct; OP is <, <=, >, >="
    );
    assert_eq!(
        msg("fsp.after < 5"),
        "gate rule `fsp.after < 5`: unknown metric `fsp`; known metrics: fps, jank_pct, frozen_per_1000, p99_ms, frame_cost_max"
    );
    assert!(msg("fps.before < 5").contains("unknown field `before`; expected METRIC.FIELD OP NUMBER"));
    assert!(msg("fps.after < x").contains("`x` is not a finite number; expected METRIC.FIELD OP NUMBER"));
    // User input with a newline still gives a one-line message.
    let m = msg("fps.after\n< x\ry");
    assert!(m.starts_with(r"gate rule `fps.after\n< x\ry`: `x\ry` is not"), "{m}");
    assert!(!m.contains(['\n', '\r']));
}

#[test]
fn a_change_in_a_sample_maximum_is_refused() {
    assert_eq!(
        parse_rule("frame_cost_max.delta_pct > 10", GATEABLE).err(),
        Some(RuleError::NoVerdict { rule: "frame_cost_max.delta_pct > 10".into(), metric: "frame_cost_max".into() })
    );
    // Its value is a budget.
    assert_eq!(rule("frame_cost_max.after > 700").field, GateField::After);
}

#[test]
fn tripped_table() {
    let nan = f64::NAN;
    let input = |after, delta, delta_pct, p: Option<f64>, u_excess| GateInput {
        after,
        delta,
        delta_pct,
        p_family: p,
        u_excess,
    };
    // (rule, after, delta, delta_pct, family p, u_excess, tripped) at alpha 0.05
    let cases = [
        ("fps.delta_pct < -5", 50.0, -5.0, -8.0, Some(0.01), -4.0, true),
        ("fps.delta_pct < -5", 50.0, -5.0, -8.0, Some(0.05), -4.0, true), // p ≤ alpha
        ("fps.delta_pct < -5", 50.0, -5.0, -8.0, Some(0.051), -4.0, false), // not significant
        ("fps.delta_pct < -5", 50.0, -5.0, -8.0, None, -4.0, false),      // not tested
        ("fps.delta_pct < -5", 50.0, -5.0, -8.0, Some(0.01), 4.0, false), // the ranks say up
        ("fps.delta_pct < -5", 50.0, -3.0, -5.0, Some(0.01), -4.0, false), // −5 is not < −5
        ("fps.delta_pct < -5", 50.0, -5.0, nan, Some(0.01), -4.0, false),
        ("fps.delta_pct < -5", 50.0, -5.0, f64::NEG_INFINITY, Some(0.01), -4.0, false),
        ("p99_ms.delta >= 2", 30.0, 2.0, 7.0, Some(0.01), 1.0, true),
        ("p99_ms.delta >= 2", 30.0, 1.99, 7.0, Some(0.01), 1.0, false),
        // `after` is a budget: the test does not matter.
        ("frozen_per_1000.after > 0", 1.5, 0.0, 0.0, None, 0.0, true),
        ("frozen_per_1000.after > 0", 1.5, nan, nan, Some(0.9), 0.0, true),
        ("frozen_per_1000.after > 0", 0.0, 1.0, 10.0, Some(0.01), 1.0, false),
        ("frozen_per_1000.after > 0", nan, 1.0, 10.0, Some(0.01), 1.0, false),
        ("frozen_per_1000.after > 0", f64::INFINITY, 1.0, 10.0, Some(0.01), 1.0, false),
        ("jank_pct.after >= 5.5", 5.5, 0.0, 0.0, None, 0.0, true),
        ("jank_pct.after >= 5.5", 5.49, 0.0, 0.0, None, 0.0, false),
    ];
    for (text, after, delta, delta_pct, p, u, want) in cases {
        assert_eq!(
            rule(text).tripped(&input(after, delta, delta_pct, p, u), 0.05),
            want,
            "{text} {after} {delta} {delta_pct} {p:?} {u}"
        );
    }
}
