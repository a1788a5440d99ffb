//! The whole analysis on arbitrary bytes, through the same entry point as
//! every command (`analysis::frames_of`: the scheduler pass for the frame
//! threads, then the frames). Any panic or arithmetic overflow (the targets
//! build with `-a`) is a bug.
#![no_main]

use fpsan::analysis::{self, Options};
use fpsan::read::Source;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = Source::from_bytes("fuzz.pftrace", data.to_vec()) else {
        return;
    };
    let Ok((trace, sched)) = analysis::decode(&source, &analysis::frame_read_options(fpsan::sink::Sink::quiet()))
    else {
        return;
    };
    let done = analysis::frames_of(analysis::Opened { source, sched, trace }, &Options::default());
    let _ = format!("{:?}", done.frames);
});
