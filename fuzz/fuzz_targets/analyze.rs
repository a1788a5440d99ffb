//! The whole analysis on arbitrary bytes, through the same entry point as
//! every command (`analysis::frames_of`: the scheduler pass for the frame
//! threads, then the frames). Any panic or arithmetic overflow (the targets
//! build with `-a`) is a bug.
#![no_main]

use fpsan::analysis::{self, Options};
use fpsan::read::{ReadOptions, Source};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = Source::from_bytes("fuzz.pftrace", data.to_vec()) else {
        return;
    };
    let Ok(trace) = analysis::decode(&source, &ReadOptions { frame_sched: true, ..Default::default() }) else {
        return;
    };
    let done = analysis::frames_of(&source, trace, &Options::default());
    let _ = format!("{:?}", done.frames);
});
