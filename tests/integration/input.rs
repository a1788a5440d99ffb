//! Input events (docs/input.md): trace_processor v58.2's
//! `android_input_events` on the generated input traces (`tracegen::input`),
//! stored beside (`tests/golden/input_events*.tp.csv`, re-blessed with
//! FPSAN_BLESS=1 from trace_processor itself), and fpsan's table through
//! `fpsan query` equal to it cell for cell. Track ids are each tool's own
//! (docs/report.md): both sides are also given the tid of each track's
//! thread, and the ids are compared through them. The rows, worked through from trace_processor's
//! SQL (stdlib `android/input.sql`): A's MOVE to the app (seq 0x1) is in
//! doFrame 100 (`is_speculative_frame` 0, action `MOVE`), end to end 16 ms
//! (read at T0, frame 100 presented at display frame 200's end, 16 ms);
//! its copy to `PointerEventDispatcher0` (seq 0x2) has no frame; B's DOWN
//! (seq 0x3) outside any doFrame takes the next one, 101, speculatively, end
//! to end 21 ms, and no action (Android 16's `DOWN` has no `ACTION_`); C's
//! FOCUS (seq 0x4) no input id; D's UP (seq 0x5), delivered after doFrame
//! 100 but inside its FrameTimeline span, is matched to 101 speculatively:
//! trace_processor matches a doFrame's slice, not its frame's span. The
//! scroll's rows are worked out in `tracegen::input::scroll`'s doc.

use std::path::{Path, PathBuf};

use crate::golden::check;
use crate::util::{fpsan, fpsan_rows, shared, trace_processor_rows};

/// Every row with its tracks' threads: the track ids are each tool's own.
const SQL: &str = "INCLUDE PERFETTO MODULE android.input;
SELECT e.*, dt.tid AS dispatch_track_tid, rt.tid AS receive_track_tid
FROM android_input_events e
JOIN thread_track dtt ON dtt.id = e.dispatch_track_id
JOIN thread dt ON dt.utid = dtt.utid
JOIN thread_track rtt ON rtt.id = e.receive_track_id
JOIN thread rt ON rt.utid = rtt.utid
ORDER BY e.dispatch_ts, e.event_seq";

/// The generated traces, each with its stored trace_processor rows and
/// the seqs of its rows in order.
fn traces(dir: &Path) -> Vec<(PathBuf, &'static str, &'static [&'static str])> {
    let cases: [(tracegen::TraceBuilder, &str, &[&str]); 3] = [
        // A twice (the app's window and the pointer-event window), B, C.
        (tracegen::input::events(false), "input_events.tp.csv", &["0x1", "0x2", "0x3", "0x4"]),
        // D, dispatched before B.
        (tracegen::input::events(true), "input_events_late_up.tp.csv", &["0x1", "0x2", "0x5", "0x3", "0x4"]),
        // DOWN, eight MOVEs (three batched into one delivery), UP, KEY.
        (
            tracegen::input::scroll(),
            "input_events_scroll.tp.csv",
            &["0x1", "0x2", "0x3", "0x4", "0x5", "0x6", "0x7", "0x8", "0x9", "0xa", "0xb"],
        ),
    ];
    cases
        .into_iter()
        .map(|(builder, golden, seqs)| {
            let path = dir.join(golden).with_extension("pftrace");
            std::fs::write(&path, builder.build(&tracegen::BuildOptions::default())).unwrap();
            (path, golden, seqs)
        })
        .collect()
}

/// Rows as CSV text.
fn csv_of(rows: &[Vec<String>]) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.write_record(r).expect("write a row");
    }
    w.into_inner().expect("csv")
}

/// The stored rows of `golden`.
fn stored(golden: &str) -> Vec<Vec<String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(golden);
    let mut reader = csv::ReaderBuilder::new().has_headers(false).from_path(&path).expect("a stored golden");
    reader.records().map(|r| r.unwrap().iter().map(str::to_owned).collect()).collect()
}

#[test]
fn trace_processors_input_events_on_the_generated_traces_are_the_stored_ones() {
    let dir = tempfile::tempdir().unwrap();
    for (path, golden, seqs) in traces(dir.path()) {
        let Some(rows) = trace_processor_rows(&path, SQL) else { return };
        let got: Vec<&str> = rows[1..].iter().map(|r| r[12].as_str()).collect();
        assert_eq!(got, seqs, "{golden}");
        check(golden, &csv_of(&rows));
    }
}

#[test]
fn fpsans_android_input_events_equal_trace_processors_cell_for_cell() {
    let dir = tempfile::tempdir().unwrap();
    for (path, golden, _) in traces(dir.path()) {
        let want = stored(golden);
        let got = fpsan_rows(&path, SQL);
        assert_eq!(got[0], want[0], "{golden}: the columns");
        assert_eq!(got.len(), want.len(), "{golden}: the rows");
        // Every column but the two track ids, which their threads' tids (the last two) stand for.
        let compared = |r: &[String]| -> Vec<String> {
            r.iter()
                .zip(&want[0])
                .filter(|(_, name)| !matches!(name.as_str(), "dispatch_track_id" | "receive_track_id"))
                .map(|(c, _)| c.clone())
                .collect()
        };
        for (g, w) in got.iter().zip(&want).skip(1) {
            assert_eq!(compared(g), compared(w), "{golden}");
        }
    }
}

/// The scroll's per-app summary (docs/input.md, "Worked example") in the
/// terminal, the JSON, summary.json, report.html, `input_events.parquet` and
/// `query`, all the same numbers.
#[test]
fn every_output_shows_the_scrolls_input_summary() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("scroll.pftrace");
    std::fs::write(&trace, tracegen::input::scroll().build(&tracegen::BuildOptions::default())).unwrap();
    let json = fpsan().arg("analyze").arg(&trace).args(["--format", "json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let app = &doc["input"]["apps"][0];
    assert_eq!(doc["input"]["apps"].as_array().unwrap().len(), 1);
    let ns = |v: &serde_json::Value| v.as_i64().unwrap();
    assert_eq!((ns(&app["pid"]), ns(&app["events"]), ns(&app["gestures"])), (2000, 11, 1));
    assert_eq!((ns(&app["handling_ns"]["p50"]), ns(&app["handling_ns"]["p90"])), (3_500_000, 10_500_001));
    assert_eq!((ns(&app["end_to_end_ns"]["p50"]), ns(&app["end_to_end_ns"]["p90"])), (36_333_334, 69_666_668));
    assert_eq!(ns(&app["touch_to_first_frame_ns"]["p50"]), 42_000_001);
    assert_eq!(
        (ns(&app["judged_presents"]), ns(&app["delayed_frames"]), app["delayed_pct"].as_f64()),
        (5, 1, Some(20.0))
    );
    let cells = "com.example.app 2000 11 1 3.5 10.5 33.0 36.3 69.7 69.7 42.0 1 of 5 (20.0%)";
    let printed = fpsan().arg("analyze").arg(&trace).output().unwrap();
    let printed = String::from_utf8(printed.stdout).unwrap();
    assert!(printed.lines().any(|l| l.split_whitespace().collect::<Vec<_>>().join(" ") == cells), "{printed}");
    let out = dir.path().join("out");
    let written = fpsan().arg("analyze").arg(&trace).arg("--out").arg(&out).output().unwrap();
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["input"], doc["input"]);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let row: String = cells_of_html_row(&html, "com.example.app</td><td class=\"num\">2000");
    assert_eq!(row, cells, "report.html's input row");
    assert!(out.join("input_events.parquet").exists());
    let rows =
        fpsan_rows(&trace, "SELECT event_seq, end_to_end_latency_dur, action FROM input_events ORDER BY dispatch_ts");
    assert_eq!(rows.len(), 12);
    assert_eq!(rows[5], ["0x5", "69666668", "MOVE"]);
}

/// The text of the cells of report.html's table row that contains `marker`, space-separated.
fn cells_of_html_row(html: &str, marker: &str) -> String {
    let at = html.find(marker).unwrap_or_else(|| panic!("no {marker:?} in report.html"));
    let start = html[..at].rfind("<tr>").unwrap();
    let end = at + html[at..].find("</tr>").unwrap();
    let mut text = String::new();
    let mut inside = false;
    for c in html[start..end].chars() {
        match c {
            '<' => {
                inside = true;
                text.push(' ');
            }
            '>' => inside = false,
            c if !inside => text.push(c),
            _ => {}
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An app-side capture (the Pixel 8 lynx trace: the app's `deliverInputEvent`
/// slices, no InputDispatcher) gets its events and handling from them, its
/// gestures from the `DOWN`s its `dispatchInputEvent` parents name, and one
/// line saying end to end needs Android 12+ input slices; the percentiles are
/// the nearest ranks of the durations trace_processor lists.
#[test]
fn an_app_side_capture_gets_handling_from_deliver_input_event() {
    let Some(trace) = shared("traces/real-pixel8-lynx_vital_timestamp.pftrace") else { return };
    let json = fpsan().arg("analyze").arg(&trace).args(["--format", "json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let app = &doc["input"]["apps"][0];
    assert_eq!(app["source"], "deliver_input_event");
    assert_eq!((app["events"].as_i64(), app["gestures"].as_i64()), (Some(255), Some(24)));
    assert!(app["end_to_end_ns"]["p50"].is_null());
    let Some(rows) =
        trace_processor_rows(&trace, "SELECT dur FROM slice WHERE name GLOB 'deliverInputEvent*' ORDER BY dur")
    else {
        return;
    };
    let durs: Vec<i64> = rows[1..].iter().map(|r| r[0].parse().unwrap()).collect();
    assert_eq!(durs.len(), 255);
    let rank = |p: f64| durs[((durs.len() as f64 * p).ceil() as usize).clamp(1, durs.len()) - 1];
    let h = &app["handling_ns"];
    assert_eq!(
        (h["p50"].as_i64(), h["p90"].as_i64(), h["max"].as_i64()),
        (Some(rank(0.5)), Some(rank(0.9)), durs.last().copied())
    );
    let printed = fpsan().arg("analyze").arg(&trace).output().unwrap();
    let printed = String::from_utf8(printed.stdout).unwrap();
    assert!(printed.contains("end-to-end latency needs Android 12+ input slices"), "{printed}");
}
