//! The statistics behind `compare`'s verdicts (docs/compare.md). The unit of replication is the run: every
//! test and interval here takes one value per run per side.
//!
//! - [`rank`]: the two-sided Mann–Whitney U test (exact to 50 runs a side, normal approximation above) and
//!   Moses' distribution-free interval of the shift.
//! - [`decision`]: the decision rule (better / worse / same / inconclusive), Holm's step-down over a family
//!   of tests, and the runs a side likely to resolve an inconclusive metric.
//! - [`quantile`]: percentiles with polars' index rules, so one run's P90 is the one `analyze` prints.

pub(crate) mod decision;
pub(crate) mod quantile;
pub(crate) mod rank;
pub(crate) mod sequential;

pub(crate) use decision::Direction;
pub use decision::Verdict;
