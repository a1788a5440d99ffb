//! The atrace line parser (`read::atrace::parse`) and the legacy systrace
//! reader (line parser, containers, decode) on arbitrary bytes: never a panic, and the parse agrees with
//! itself once the trailing `\n`/`\0` that the parser strips are added.
#![no_main]

use fpsan::read::atrace::{parse, ParseOutcome};
use fpsan::read::systrace;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let line = String::from_utf8_lossy(data);
    let outcome = parse(&line);
    // Trailing newlines and NULs are stripped, so they never change the parse.
    let padded = format!("{line}\n\0\n");
    assert_eq!(parse(&padded), outcome, "trailing \\n/\\0 changed the parse of {line:?}");
    if let ParseOutcome::Point(p) = &outcome {
        // Names borrow from the (stripped) line or are the empty-name placeholder.
        let _ = format!("{p:?}");
    }
    for l in line.lines() {
        let _ = systrace::parse_line(l);
    }
    let _ = systrace::sniff(data);
    // Text, .ctrace and HTML: whatever decodes has no more atrace points
    // than event lines.
    if let Ok(text) = systrace::decode(data, 64 << 20, &|_| {}) {
        for batch in &text.batches {
            assert!(batch.atrace.len() as u64 <= batch.ftrace_events);
        }
    }
});
