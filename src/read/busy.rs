//! Where the kernel's events fall in time, for the capture's holes
//! (`import::holes`, docs/limits.md "Capture holes"): each ~1 ms bin that
//! holds an ftrace event of any CPU, with its first and last event. A
//! batch's events go through [`BusyBins::see`] as the reader decodes them
//! (one shift and compare per event: a CPU's events come in time order, so
//! they almost always fall in the bin of the one before); the importer
//! merges the batches' bins and finds the silences between them, with no
//! second pass over the trace.

use super::records::BusyBin;

/// Bins are 2^20 ns (1.05 ms) long.
pub const BIN_SHIFT: u32 = 20;

/// The bins one batch's kernel events fall in.
#[derive(Debug, Default)]
pub struct BusyBins {
    current: Option<BusyBin>,
    /// Bins left behind, in the order met (a bin can come back: another
    /// CPU's bundle covers the same time).
    done: Vec<BusyBin>,
    /// `done`'s length after its last merge.
    merged: usize,
}

/// `done` is first merged at twice this many entries.
const MERGE_AT: usize = 4096;

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
            self.done.push(c);
            // Each CPU's bundles cover the same time: merge once the list has
            // doubled since the last merge, so it holds about one entry per
            // distinct bin, not one per CPU (amortised: each entry is sorted
            // O(log n) times at most).
            if self.done.len() >= 2 * self.merged.max(MERGE_AT) {
                self.done = merge(std::mem::take(&mut self.done));
                self.merged = self.done.len();
            }
        }
    }

    /// The bins, sorted, each once.
    pub fn finish(mut self) -> Vec<BusyBin> {
        self.done.extend(self.current);
        merge(self.done)
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
        assert!(b.done.len() < 3 * 5_000, "{} entries kept", b.done.len());
        let bins = b.finish();
        assert_eq!(bins.len(), 5_000);
        assert!(bins
            .iter()
            .enumerate()
            .all(|(i, x)| *x == BusyBin { bin: i as i64, first: ms(i as i64), last: ms(i as i64) + 3 }));
    }
}
