//! Each process' main-thread blocks in a few numbers (docs/blocks.md,
//! "Per app"): what the terminal, the JSON, report.html and `compare` show.

use serde::Serialize;

use super::{Block, BlockLevel};
use crate::model::Name;

/// The levels a block is counted at: frame-scale and above.
pub const COUNTED_LEVELS: [BlockLevel; 5] =
    [BlockLevel::FrameScale, BlockLevel::EvilMethod, BlockLevel::BlockCanary, BlockLevel::Lag, BlockLevel::AnrRisk];

/// One process' blocks of frame-scale and longer ([`Block::counts`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockSummary {
    pub pid: i32,
    pub process: Option<Name>,
    /// Blocks at each of [`COUNTED_LEVELS`], in that order (JSON: an
    /// object by level name).
    #[serde(serialize_with = "by_level_name")]
    pub per_level: [i64; 5],
    /// All of them.
    pub blocks: i64,
    /// Their total duration, ns.
    pub blocked_ns: i64,
    /// The longest block (any level), ns; None with no ended block.
    pub longest_ns: Option<i64>,
    /// `blocks` per minute of the analysed time (the trace's, or the
    /// driven scenario's window); None over no time.
    pub blocks_per_min: Option<f64>,
    /// `blocked_ns` per minute of it, ms.
    pub blocked_ms_per_min: Option<f64>,
}

/// `per_level` as `{"frame_scale": n, …}`.
fn by_level_name<S: serde::Serializer>(counts: &[i64; 5], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(counts.len()))?;
    for (level, n) in COUNTED_LEVELS.iter().zip(counts) {
        map.serialize_entry(level.as_str(), n)?;
    }
    map.end()
}

/// One summary per process with a block, by pid; `span_ns` is the time the
/// blocks were looked for in.
pub fn summarize(blocks: &[Block], span_ns: i64) -> Vec<BlockSummary> {
    let mut out: Vec<BlockSummary> = Vec::new();
    let mut by_pid: std::collections::BTreeMap<i32, usize> = Default::default();
    for b in blocks {
        let k = *by_pid.entry(b.pid).or_insert_with(|| {
            out.push(BlockSummary {
                pid: b.pid,
                process: b.process.clone(),
                per_level: [0; 5],
                blocks: 0,
                blocked_ns: 0,
                longest_ns: None,
                blocks_per_min: None,
                blocked_ms_per_min: None,
            });
            out.len() - 1
        });
        let s = &mut out[k];
        if b.dur >= 0 {
            s.longest_ns = Some(s.longest_ns.map_or(b.dur, |l| l.max(b.dur)));
        }
        let Some(level) = b.level.filter(|_| b.counts()) else { continue };
        if let Some(i) = COUNTED_LEVELS.iter().position(|&l| l == level) {
            s.per_level[i] += 1;
        }
        s.blocks += 1;
        s.blocked_ns += b.dur;
    }
    let minutes = span_ns as f64 / 60e9;
    for s in &mut out {
        if minutes > 0.0 {
            s.blocks_per_min = Some(s.blocks as f64 / minutes);
            s.blocked_ms_per_min = Some(s.blocked_ns as f64 / 1e6 / minutes);
        }
    }
    out.sort_by_key(|s| s.pid);
    out
}

/// How many of the longest blocks the terminal and report.html detail.
pub const LONGEST: usize = 5;

/// The order of [`longest`]: longest first, ties earlier first.
pub(super) fn longest_first(a: &Block, b: &Block) -> std::cmp::Ordering {
    b.dur.cmp(&a.dur).then(a.ts.cmp(&b.ts)).then(a.pid.cmp(&b.pid))
}

/// The `n` longest blocks that count, longest first (ties: earlier first).
pub fn longest(blocks: &[Block], n: usize) -> Vec<&Block> {
    let mut counted: Vec<&Block> = blocks.iter().filter(|b| b.counts()).collect();
    counted.sort_by(|a, b| longest_first(a, b));
    counted.truncate(n);
    counted
}
