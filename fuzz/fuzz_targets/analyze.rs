//! The whole analysis on arbitrary bytes: open, decode, read the scheduler
//! events of the frame threads, and rebuild the frames (`frames::analyze`).
//! Any panic or arithmetic overflow (the targets build with `-a`) is a bug.
#![no_main]

use fpsan::frames::{self, FrameOptions};
use fpsan::read::{self, ReadOptions, Source};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = Source::from_bytes("fuzz.pftrace", data.to_vec()) else {
        return;
    };
    let Ok(mut trace) = read::decode(&source, &ReadOptions::default()) else {
        return;
    };
    let tids = frames::frame_threads(&trace);
    if let Ok(sched) = read::sched_for_threads(&source, &tids) {
        trace.sched = sched;
    }
    let analysis = frames::analyze(&trace, &FrameOptions::default());
    let _ = format!("{analysis:?}");
});
