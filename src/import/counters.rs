//! Counters (trace_processor's EventTracker for counters): samples from
//! atrace `C` and track_event counters, ordered by (timestamp, file order).

use rayon::slice::ParallelSliceMut;

use super::slices::Timed;
use crate::model::{CounterSample, TrackId};

/// One counter sample before ordering.
pub(crate) struct CounterOp {
    pub(crate) track: TrackId,
    pub(crate) value: f64,
}

pub(crate) fn build(mut ops: Vec<Timed<CounterOp>>) -> Vec<CounterSample> {
    // (ts, order) is unique, so the parallel unstable sort is deterministic.
    ops.par_sort_unstable_by_key(|o| (o.ts, o.order));
    ops.into_iter().map(|o| CounterSample { ts: o.ts, value: o.op.value, track: o.op.track }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_in_time_then_file_order() {
        let op = |ts, order, value| Timed { ts, order, op: CounterOp { track: TrackId(0), value } };
        let got = build(vec![op(5, 2, 1.0), op(5, 1, 2.0), op(3, 9, 3.0)]);
        assert_eq!(got.iter().map(|c| (c.ts, c.value)).collect::<Vec<_>>(), [(3, 3.0), (5, 2.0), (5, 1.0)]);
    }
}
