//! Where the kernel's events fall in time, for the capture's holes
//! (`import::holes`, docs/limits.md "Capture holes"): each ~1 ms bin that
//! holds an ftrace event of any CPU, with its first and last event. A
//! batch's events go through [`BusyBins::see`] as the reader decodes them
//! (one shift and compare per event: a CPU's events come in time order, so
//! they almost always fall in the bin of the one before); the importer
//! merges the batches' bins and finds the silences between them, with no
//! second pass over the trace.

use rustc_hash::FxHashMap;

use super::records::BusyBin;

/// Bins are 2^20 ns (1.05 ms) long.
pub const BIN_SHIFT: u32 = 20;

/// The bins one batch's kernel events fall in.
#[derive(Debug, Default)]
pub struct BusyBins {
    current: Option<BusyBin>,
    /// Bins left behind, by bin, as (first, last): a bin comes back once
    /// per CPU (each CPU's bundles cover the same time), and is merged as
    /// it does, in one lookup. (A list merged by sorting as it doubled was
    /// 3 % of a busy trace's decoding.)
    done: FxHashMap<i64, (i64, i64)>,
}

impl BusyBins {
    /// A kernel event at `ts`.
    #[inline]
    pub fn see(&mut self, ts: i64) {
        match &mut self.current {
            Some(c) if c.bin == ts >> BIN_SHIFT => {
                c.first = c.first.min(ts);
                c.last = c.last.max(ts);
            }
            _ => self.start(ts),
        }
    }

    #[cold]
    fn start(&mut self, ts: i64) {
        let next = BusyBin { bin: ts >> BIN_SHIFT, first: ts, last: ts };
        if let Some(c) = self.current.replace(next) {
            self.leave(c);
        }
    }

    fn leave(&mut self, c: BusyBin) {
        let e = self.done.entry(c.bin).or_insert((c.first, c.last));
        *e = (e.0.min(c.first), e.1.max(c.last));
    }

    /// The bins, sorted, each once.
    pub fn finish(mut self) -> Vec<BusyBin> {
        if let Some(c) = self.current.take() {
            self.leave(c);
        }
        let mut bins: Vec<BusyBin> =
            self.done.into_iter().map(|(bin, (first, last))| BusyBin { bin, first, last }).collect();
        bins.sort_unstable_by_key(|b| b.bin);
        bins
    }
}

/// `bins` sorted by bin, those of one bin merged into one.
pub fn merge(mut bins: Vec<BusyBin>) -> Vec<BusyBin> {
    bins.sort_unstable_by_key(|b| b.bin);
    bins.dedup_by(|b, kept| {
        let same = b.bin == kept.bin;
        if same {
            kept.first = kept.first.min(b.first);
            kept.last = kept.last.max(b.last);
        }
        same
    });
    bins
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_out_of_order_across_cpus_merge_into_sorted_bins() {
        let ms = |x: i64| x << BIN_SHIFT;
        let mut b = BusyBins::default();
        // CPU 0's bundle: bins 1 and 3; CPU 1's: bins 1 (earlier in it) and 2.
        for ts in [ms(1) + 5, ms(1) + 9, ms(3) + 1, ms(1) + 2, ms(2) + 7] {
            b.see(ts);
        }
        let want = vec![
            BusyBin { bin: 1, first: ms(1) + 2, last: ms(1) + 9 },
            BusyBin { bin: 2, first: ms(2) + 7, last: ms(2) + 7 },
            BusyBin { bin: 3, first: ms(3) + 1, last: ms(3) + 1 },
        ];
        assert_eq!(b.finish(), want);
        assert_eq!(BusyBins::default().finish(), []);
    }

    #[test]
    fn bins_seen_again_by_other_cpus_are_merged_as_they_come() {
        let ms = |x: i64| x << BIN_SHIFT;
        let mut b = BusyBins::default();
        // Four CPUs' bundles over the same 5 000 bins: 20 000 entries met.
        for cpu in 0..4 {
            for bin in 0..5_000 {
                b.see(ms(bin) + cpu);
            }
        }
        assert_eq!(b.done.len(), 5_000, "one entry per bin");
        let bins = b.finish();
        assert_eq!(bins.len(), 5_000);
        assert!(bins
            .iter()
            .enumerate()
            .all(|(i, x)| *x == BusyBin { bin: i as i64, first: ms(i as i64), last: ms(i as i64) + 3 }));
    }
}
