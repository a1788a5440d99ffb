//! The framing pass and the parallel decoder on arbitrary bytes
//! (`read::Source::from_bytes` + `analysis::decode`), then the second,
//! scheduler pass (with the first pass's plan and without) and the model accessors over whatever was decoded.
//! Bad input must give an error or a partial model, never a panic.
#![no_main]

use fpsan::analysis;
use fpsan::read::{self, Source};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = Source::from_bytes("fuzz.pftrace", data.to_vec()) else {
        return;
    };
    let Ok((trace, mut sched)) = analysis::decode(&source, &analysis::frame_read_options(fpsan::sink::Sink::quiet()))
    else {
        return;
    };
    let tids: Vec<i32> = trace.threads.iter().map(|t| t.tid).take(16).collect();
    let _ = sched.threads(&source, &tids);
    let _ = read::sched_for_threads(&source, &tids);
    fpsan_fuzz_check::model(&trace);
});

/// Invariants of the model every consumer relies on.
mod fpsan_fuzz_check {
    use fpsan::model::Trace;

    pub fn model(trace: &Trace) {
        let _ = trace.span_ns();
        for s in &trace.slices {
            assert!(s.dur >= -1, "negative duration {} on slice {:?}", s.dur, s.id);
            let _ = s.end();
            let _ = trace.track_process(s.track);
            let _ = trace.track_thread(s.track);
            if let Some(p) = s.parent {
                assert!(p < s.id, "parent {p:?} after child {:?}", s.id);
            }
        }
        for s in trace.slices.iter().take(64) {
            let _ = trace.children(s.id).count();
            let _ = trace.descendants(s.id).len();
        }
        for f in &trace.frame_timeline {
            assert!(f.dur >= -1, "negative FrameTimeline duration {}", f.dur);
        }
        for c in &trace.counters {
            let _ = trace.track(c.track);
        }
        for t in &trace.threads {
            if let Some(u) = t.upid {
                let _ = trace.process(u);
            }
        }
    }
}
