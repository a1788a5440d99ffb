//! The memory the analyses in flight may take together. Each trace asks for
//! an estimate of its peak (a multiple of its size, docs/lake.md, "Memory")
//! and waits until that fits, so a 2 GB trace among small ones runs beside
//! a few of them, not beside one per core; a trace larger than the whole
//! budget runs alone.

use std::sync::{Condvar, Mutex};

/// Peak memory of an analysis per byte of trace: measured 0.33 on a 1 GB
/// protobuf trace (334 MB RSS); ×2 leaves room for compressed inputs,
/// which inflate before they are read.
const BYTES_PER_TRACE_BYTE: u64 = 2;
/// The fixed part of an analysis (tables, polars' buffers).
const BASE: u64 = 32 << 20;

/// An analysis of a `size`-byte trace is budgeted at this.
pub fn cost_of(size: u64) -> u64 {
    BASE + size.saturating_mul(BYTES_PER_TRACE_BYTE)
}

/// Half the memory the kernel says is available, 1 GB if it does not say.
pub fn default_bytes() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemAvailable:")?.trim().strip_suffix("kB")?.trim().parse::<u64>().ok())
        })
        .map_or(1 << 30, |kb| kb * 1024 / 2)
}

pub struct Budget {
    total: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

/// Held while an analysis runs; gives its share back when dropped.
pub struct Permit<'a> {
    budget: &'a Budget,
    amount: u64,
}

impl Budget {
    pub fn new(total: u64) -> Budget {
        Budget { total: total.max(1), used: Mutex::new(0), freed: Condvar::new() }
    }

    /// Wait until `amount` (capped at the whole budget) fits.
    pub fn acquire(&self, amount: u64) -> Permit<'_> {
        let amount = amount.min(self.total);
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        while *used + amount > self.total {
            used = self.freed.wait(used).unwrap_or_else(|e| e.into_inner());
        }
        *used += amount;
        Permit { budget: self, amount }
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut used = self.budget.used.lock().unwrap_or_else(|e| e.into_inner());
        *used -= self.amount;
        self.budget.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Eight workers over one large job and many small ones: what runs at once never exceeds the budget.
    #[test]
    fn in_flight_stays_within_the_budget() {
        let budget = Budget::new(100);
        let in_flight = AtomicU64::new(0);
        let peak = AtomicU64::new(0);
        let jobs: Vec<u64> = std::iter::once(90).chain(std::iter::repeat_n(20, 30)).collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    while let Some(&cost) = jobs.get(next.fetch_add(1, Ordering::SeqCst)) {
                        let _p = budget.acquire(cost);
                        let now = in_flight.fetch_add(cost, Ordering::SeqCst) + cost;
                        peak.fetch_max(now, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(2));
                        in_flight.fetch_sub(cost, Ordering::SeqCst);
                    }
                });
            }
        });
        assert!(peak.load(Ordering::SeqCst) <= 100, "{}", peak.load(Ordering::SeqCst));
        // A job above the budget is capped, so it still runs (alone).
        drop(budget.acquire(1_000));
    }
}
