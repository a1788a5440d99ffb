//! The CI gate rules of `compare` (`--fail-if 'fps.delta_pct < -5'`): their grammar, and when one trips
//! (docs/compare.md, "CI gate").

use super::stats::decision::ranks_agree;

/// Which number of a compared metric a gate rule tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GateField {
    /// The "after" value itself.
    After,
    /// `after − before`, in the metric's units.
    Delta,
    /// `(after − before) / |before| · 100`.
    DeltaPct,
}

impl GateField {
    /// This field's value among a metric's three.
    pub(crate) fn pick<T>(self, after: T, delta: T, delta_pct: T) -> T {
        match self {
            GateField::After => after,
            GateField::Delta => delta,
            GateField::DeltaPct => delta_pct,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            GateField::After => "after",
            GateField::Delta => "delta",
            GateField::DeltaPct => "delta_pct",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GateOp {
    Lt,
    Le,
    Gt,
    Ge,
}

impl GateOp {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            GateOp::Lt => "<",
            GateOp::Le => "<=",
            GateOp::Gt => ">",
            GateOp::Ge => ">=",
        }
    }

    fn holds(self, value: f64, threshold: f64) -> bool {
        match self {
            GateOp::Lt => value < threshold,
            GateOp::Le => value <= threshold,
            GateOp::Gt => value > threshold,
            GateOp::Ge => value >= threshold,
        }
    }
}

/// A parsed `METRIC.FIELD OP NUMBER` rule, e.g. `fps.delta_pct < -5`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GateRule {
    /// The rule as written (trimmed), for messages.
    pub text: String,
    pub metric: String,
    pub field: GateField,
    pub op: GateOp,
    pub threshold: f64,
}

const RULE_GRAMMAR: &str = concat!(
    "expected METRIC.FIELD OP NUMBER, e.g. `fps.delta_pct < -5`; ",
    "FIELD is after, delta or delta_pct; OP is <, <=, >, >="
);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("gate rule `{rule}` does not parse: {grammar}", grammar = RULE_GRAMMAR)]
    Syntax { rule: String },
    #[error("gate rule `{rule}`: unknown field `{field}`; {grammar}", grammar = RULE_GRAMMAR)]
    UnknownField { rule: String, field: String },
    #[error("gate rule `{rule}`: `{number}` is not a finite number; {grammar}", grammar = RULE_GRAMMAR)]
    BadNumber { rule: String, number: String },
    #[error("gate rule `{rule}`: unknown metric `{metric}`; known metrics: {known}")]
    UnknownMetric { rule: String, metric: String, known: String },
    #[error(
        "gate rule `{rule}`: {metric} carries no verdict (a sample maximum moves with the number of frames), \
         so a change in it cannot be gated; gate `{metric}.after` as a budget instead"
    )]
    NoVerdict { rule: String, metric: String },
}

/// The metrics a rule may name: all of them on `after`, only those that carry a verdict on a change.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gateable<'a> {
    pub all: &'a [&'a str],
    /// Metrics that never carry a verdict.
    pub descriptive: &'a [&'a str],
}

/// Parses a gate rule.
pub(crate) fn parse_rule(s: &str, metrics: Gateable<'_>) -> Result<GateRule, RuleError> {
    let known_metrics = metrics.all;
    let text = s.trim();
    let rule = one_line(text);
    let syntax = || RuleError::Syntax { rule: rule.clone() };
    let op_at = text.find(['<', '>']).ok_or_else(syntax)?;
    let (lhs, rest) = text.split_at(op_at);
    let (op, number) = match (rest.starts_with('<'), rest[1..].strip_prefix('=')) {
        (true, Some(number)) => (GateOp::Le, number),
        (true, None) => (GateOp::Lt, &rest[1..]),
        (false, Some(number)) => (GateOp::Ge, number),
        (false, None) => (GateOp::Gt, &rest[1..]),
    };
    let (metric, field) = lhs.trim().rsplit_once('.').ok_or_else(syntax)?;
    let well_formed = |part: &str| !part.is_empty() && !part.contains(char::is_whitespace);
    if !well_formed(metric) || !well_formed(field) {
        return Err(syntax());
    }
    let field = match field {
        "after" => GateField::After,
        "delta" => GateField::Delta,
        "delta_pct" => GateField::DeltaPct,
        _ => {
            return Err(RuleError::UnknownField { rule, field: one_line(field) });
        }
    };
    let number = number.trim();
    let threshold = match number.parse::<f64>() {
        Ok(t) if t.is_finite() => t,
        _ => {
            return Err(RuleError::BadNumber { rule, number: one_line(number) });
        }
    };
    if !known_metrics.contains(&metric) {
        let known = if known_metrics.is_empty() { "(none)".to_owned() } else { known_metrics.join(", ") };
        return Err(RuleError::UnknownMetric { rule, metric: one_line(metric), known });
    }
    if field != GateField::After && metrics.descriptive.contains(&metric) {
        return Err(RuleError::NoVerdict { rule, metric: metric.to_owned() });
    }
    Ok(GateRule { text: text.to_owned(), metric: metric.to_owned(), field, op, threshold })
}

/// Escapes control characters so an error quoting user input stays on one line.
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// What a rule is checked against: one metric of the comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct GateInput {
    pub after: f64,
    pub delta: f64,
    pub delta_pct: f64,
    /// The metric's p value, Holm-adjusted over the rules on a change.
    pub p_family: Option<f64>,
    /// Which way the rank test saw the change (U of after minus its null mean).
    pub u_excess: f64,
}

impl GateRule {
    /// A rule on `delta` or `delta_pct` watches a change; one on `after` is an absolute budget.
    pub(crate) fn on_change(&self) -> bool {
        self.field != GateField::After
    }

    /// Whether the rule fails the build.
    ///
    /// A rule on a change trips when its condition holds on the point estimate *and* the change is significant
    /// the same way: the family-adjusted p ≤ `alpha` and the rank test's direction agrees with the estimate.
    /// Noise that happens to cross the threshold never fails a build. A rule on `after` is a budget and trips on
    /// the value alone. Non-finite values never trip.
    pub(crate) fn tripped(&self, g: &GateInput, alpha: f64) -> bool {
        let value = self.field.pick(g.after, g.delta, g.delta_pct);
        if !(value.is_finite() && self.op.holds(value, self.threshold)) {
            return false;
        }
        if !self.on_change() {
            return true;
        }
        ranks_agree(g.delta, g.u_excess) && g.p_family.is_some_and(|p| p <= alpha)
    }
}

/// What became of one rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum GateStatus {
    /// Checked; it holds no failure.
    Ok,
    Tripped,
    /// Not checked: the comparison is indicative, or the traces lack the metric.
    NotChecked,
}

impl GateStatus {
    /// As the table and the HTML page print it.
    pub(crate) fn label(self) -> &'static str {
        match self {
            GateStatus::Ok => "ok",
            GateStatus::Tripped => "TRIPPED",
            GateStatus::NotChecked => "not checked",
        }
    }
}

#[cfg(test)]
#[path = "gate_tests.rs"]
mod tests;
