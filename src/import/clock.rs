//! Clock conversion to trace time (BOOTTIME), from ClockSnapshot packets.
//! SurfaceFlinger's FrameTimeline writes CLOCK_MONOTONIC, which differs from
//! BOOTTIME by the time the device spent suspended; track events may use
//! sequence-scoped (id ≥ 64) and incremental clocks.

use foldhash::HashMap;

use crate::read::records::ClockRef;

pub(crate) const BOOTTIME: u32 = 6;

/// Timestamps in `clock` are trace time as they are (0: no clock given).
pub(crate) fn is_boottime(clock: u32) -> bool {
    clock == BOOTTIME || clock == 0
}
/// Clock ids from 64 to 127 are scoped to one packet sequence.
fn is_sequence_scoped(clock: u32) -> bool {
    (64..128).contains(&clock)
}

#[derive(Debug, Default)]
pub(crate) struct ClockConverter {
    /// (clock, scope) → its snapshot points.
    points: HashMap<(u32, u32), Points>,
}

/// One clock's snapshot points: (clock value, boottime value, ns per unit), sorted by clock value.
type Points = Vec<(i64, i64, i64)>;

impl ClockConverter {
    /// Add one snapshot. `seq` scopes clocks 64..127.
    pub(crate) fn add_snapshot(&mut self, seq: u32, clocks: &[(u32, i64, i64)]) {
        let Some(&(_, boot, _)) = clocks.iter().find(|c| c.0 == BOOTTIME) else { return };
        for &(id, value, mult) in clocks {
            if id == BOOTTIME {
                continue;
            }
            let scope = if is_sequence_scoped(id) { seq } else { 0 };
            self.points.entry((id, scope)).or_default().push((value, boot, mult.max(1)));
        }
    }

    pub(crate) fn finish(&mut self) {
        for v in self.points.values_mut() {
            v.sort_unstable();
        }
    }

    /// Convert `ts` (in `clock`'s units) to BOOTTIME ns. `None` when no
    /// snapshot relates that clock to BOOTTIME.
    pub(crate) fn to_boottime(&self, clock: u32, seq: u32, ts: i64) -> Option<i64> {
        if is_boottime(clock) {
            return Some(ts);
        }
        let scope = if is_sequence_scoped(clock) { seq } else { 0 };
        let pts = self.points.get(&(clock, scope))?;
        // The latest snapshot at or before ts, else the first one.
        let i = pts.partition_point(|p| p.0 <= ts);
        let (value, boot, mult) = pts[i.saturating_sub(1)];
        Some(boot.saturating_add(ts.saturating_sub(value).saturating_mul(mult)))
    }
}

/// Every timestamp's way to trace time: the snapshots, each sequence's
/// default clock (TracePacketDefaults), and a count of the timestamps no
/// snapshot could convert (they are skipped, with one warning).
#[derive(Debug, Default)]
pub(crate) struct TraceClocks {
    pub(crate) converter: ClockConverter,
    /// Sequence → its default `timestamp_clock_id`.
    pub(crate) seq_default: HashMap<u32, u32>,
    pub(crate) unconvertible: u64,
}

impl TraceClocks {
    /// `ts` in `clock` (scoped to sequence `seq`) as trace time.
    pub(crate) fn boottime_of(&mut self, clock: u32, seq: u32, ts: i64) -> Option<i64> {
        let r = self.converter.to_boottime(clock, seq, ts);
        self.unconvertible += r.is_none() as u64;
        r
    }

    /// A record's timestamp as trace time, its clock resolved through the
    /// sequence's default.
    pub(crate) fn record_to_boottime(&mut self, c: ClockRef, ts: i64) -> Option<i64> {
        let clock = c.explicit.or_else(|| self.seq_default.get(&c.seq).copied()).unwrap_or(BOOTTIME);
        self.boottime_of(clock, c.seq, ts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_with_the_latest_snapshot_before() {
        let mut c = ClockConverter::default();
        // MONOTONIC is 1000 behind BOOTTIME, then the device sleeps 500 ns.
        c.add_snapshot(1, &[(6, 2000, 1), (3, 1000, 1)]);
        c.add_snapshot(1, &[(6, 5500, 1), (3, 4000, 1)]);
        c.finish();
        assert_eq!(c.to_boottime(3, 1, 1500), Some(2500));
        assert_eq!(c.to_boottime(3, 1, 4100), Some(5600));
        assert_eq!(c.to_boottime(3, 1, 10), Some(1010));
        assert_eq!(c.to_boottime(6, 1, 77), Some(77));
        assert_eq!(c.to_boottime(1, 1, 77), None);
    }

    #[test]
    fn sequence_scoped_clocks_do_not_leak_between_sequences() {
        let mut c = ClockConverter::default();
        c.add_snapshot(7, &[(6, 1_000_000, 1), (64, 10, 1000)]);
        c.finish();
        assert_eq!(c.to_boottime(64, 7, 12), Some(1_002_000));
        assert_eq!(c.to_boottime(64, 8, 12), None);
    }
}
