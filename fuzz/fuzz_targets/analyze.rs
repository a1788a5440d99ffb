//! The whole analysis on arbitrary bytes: open, decode, and rebuild the
//! frames. Until frame reconstruction lands this stops after the model.
#![no_main]

use fpsan::read::{self, ReadOptions, Source};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = Source::from_bytes("fuzz.pftrace", data.to_vec()) else { return };
    let Ok(trace) = read::decode(&source, &ReadOptions::default()) else { return };
    let _ = trace.span_ns();
});
