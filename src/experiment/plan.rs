//! The order in which the two builds run (docs/ab.md, "Order"): runs come in
//! pairs, one of each build, so that drift over the experiment (the device
//! warming, background jobs, the battery) falls on both builds alike.
//! `abba` alternates which build leads each pair (A B, B A, A B, …), which
//! also cancels a linear drift within the pairs; `shuffle` draws each pair's
//! order from a seeded generator (recorded in runs.json, so the experiment
//! can be repeated exactly).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub use crate::capture::manifest::Build;

/// How each pair's order is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    #[default]
    Abba,
    Shuffle,
}

impl Order {
    pub fn as_str(self) -> &'static str {
        match self {
            Order::Abba => "abba",
            Order::Shuffle => "shuffle",
        }
    }
}

/// The builds' order, pair after pair.
pub struct Plan {
    order: Order,
    rng: ChaCha8Rng,
    pairs: usize,
}

impl Plan {
    pub fn new(order: Order, seed: u64) -> Plan {
        Plan { order, rng: ChaCha8Rng::seed_from_u64(seed), pairs: 0 }
    }

    /// The next pair's order.
    pub fn next_pair(&mut self) -> [Build; 2] {
        let k = self.pairs;
        self.pairs += 1;
        let before_first = match self.order {
            Order::Abba => k % 2 == 0,
            Order::Shuffle => self.rng.random_range(0..2u8) == 0,
        };
        if before_first {
            [Build::Before, Build::After]
        } else {
            [Build::After, Build::Before]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn letters(order: Order, seed: u64, pairs: usize) -> String {
        let mut p = Plan::new(order, seed);
        (0..pairs).flat_map(|_| p.next_pair()).map(|b| if b == Build::Before { 'A' } else { 'B' }).collect()
    }

    #[test]
    fn abba_alternates_and_shuffle_is_seeded_and_balanced() {
        assert_eq!(letters(Order::Abba, 0, 4), "ABBAABBA");
        let s = letters(Order::Shuffle, 7, 50);
        assert_eq!(s, letters(Order::Shuffle, 7, 50));
        assert_ne!(s, letters(Order::Shuffle, 8, 50));
        // Every pair holds one of each build; both orders occur.
        assert!(s.as_bytes().chunks(2).all(|p| p[0] != p[1]));
        let leads = s.as_bytes().chunks(2).filter(|p| p[0] == b'A').count();
        assert!((10..=40).contains(&leads), "{leads}");
    }
}
