//! Input events (issue 43): trace_processor v58.2's `android_input_events`
//! on the generated input traces (`tracegen::input`), stored beside as the
//! reference fpsan's table must equal cell for cell (`tests/golden/
//! input_events*.tp.csv`, re-blessed with FPSAN_BLESS=1 from
//! trace_processor itself). The rows, worked through from trace_processor's
//! SQL (stdlib `android/input.sql`): A's MOVE to the app (seq 0x1) is in
//! doFrame 100 (`is_speculative_frame` 0, action `MOVE`), end to end 16 ms
//! (read at T0, frame 100 presented at display frame 200's end, 16 ms);
//! its copy to `PointerEventDispatcher0` (seq 0x2) has no frame; B's DOWN
//! (seq 0x3) outside any doFrame takes the next one, 101, speculatively, end
//! to end 21 ms, and no action (Android 16's `DOWN` has no `ACTION_`); C's
//! FOCUS (seq 0x4) no input id; D's UP (seq 0x5), delivered after doFrame
//! 100 but inside its FrameTimeline span, is matched to 101 speculatively:
//! trace_processor matches a doFrame's slice, not its frame's span.

use std::path::Path;

use crate::golden::check;
use crate::util::trace_processor_rows;

const SQL: &str = "INCLUDE PERFETTO MODULE android.input;
SELECT * FROM android_input_events ORDER BY dispatch_ts, event_seq";

/// trace_processor's rows as CSV text.
fn csv_of(rows: &[Vec<String>]) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.write_record(r).expect("write a row");
    }
    w.into_inner().expect("csv")
}

#[test]
fn trace_processors_input_events_on_the_generated_traces_are_the_stored_ones() {
    let dir = tempfile::tempdir().unwrap();
    for (late_up, golden) in [(false, "input_events.tp.csv"), (true, "input_events_late_up.tp.csv")] {
        let path = dir.path().join(golden).with_extension("pftrace");
        std::fs::write(&path, tracegen::input::events(late_up).build(&tracegen::BuildOptions::default())).unwrap();
        let Some(rows) = trace_processor_rows(Path::new(&path), SQL) else { return };
        // A header and a row per (event, channel): A twice, B, C, and D.
        assert_eq!(rows.len(), 1 + 4 + usize::from(late_up), "{rows:?}");
        let seqs: Vec<&str> = rows[1..].iter().map(|r| r[12].as_str()).collect();
        let want: &[&str] = if late_up { &["0x1", "0x2", "0x5", "0x3", "0x4"] } else { &["0x1", "0x2", "0x3", "0x4"] };
        assert_eq!(seqs, want);
        check(golden, &csv_of(&rows));
    }
}
