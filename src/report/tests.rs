//! The exporters end to end on a hand-made analysis: frames table → summary →
//! table / json / csv on stdout and the `--out` files.

use super::fixture::Analysed;
use super::format::TERMINAL_NAME_CHARS;
use super::*;
use crate::frames::{FramePart, FrameRow, FrameWhy, Phase, VsyncSource};
use crate::metrics::AppFilter;
use crate::model::Trace;
use crate::model::{Warning, WarningCode};
use crate::testutil::{frame, I60};

/// com.a: frames at 0 and 100 ms costing 5 and 60 ms (the second with a
/// why); com.b: one 5 ms frame at 0. Every frame is all traversal (so it
/// drew) and has no RenderThread.
fn analysis() -> (Trace, Vec<FrameRow>, Vec<FrameWhy>) {
    let mut trace = Trace::default();
    trace.meta.path = "t.pftrace".into();
    trace.meta.packets = 42;
    trace.meta.first_ts = Some(0);
    trace.meta.last_ts = Some(2_000_000_000);
    trace.meta.warnings = vec![Warning::new(WarningCode::MalformedRecords, "something odd")];
    let mk = |pid: i32, name: &str, k: i64, cost: i64| FrameRow {
        process: Some(name.into()),
        vsync_source: Some(VsyncSource::Estimated),
        layer_name: Some(format!("{name}/{name}.Main#1")),
        // No RenderThread.
        draw_frame_count: 0,
        traversal_dur: Some(cost),
        ..frame(pid, k * 100_000_000, I60, cost)
    };
    let rows = vec![mk(1, "com.a", 0, 5_000_000), mk(1, "com.a", 1, 60_000_000), mk(2, "com.b", 0, 5_000_000)];
    let why = vec![FrameWhy {
        frame_index: 1,
        dominant_phase: FramePart::Phase(Phase::Traversal),
        dominant_phase_ns: 50_000_000,
        longest_slice: Some("inflate".into()),
        longest_slice_ns: Some(45_000_000),
        blockers: vec![],
        thread_state: None,
        critical_path: Vec::new(),
        chain: String::new(),
    }];
    (trace, rows, why)
}

fn with_report<T>(filter: AppFilter, f: impl FnOnce(&Report) -> T) -> T {
    let (trace, rows, why) = analysis();
    let mut a = Analysed::new(trace, rows, why, &filter);
    a.warnings = a.trace.meta.warnings.clone();
    f(&a.report())
}

#[test]
fn table_output() {
    let s = with_report(AppFilter::All, |r| String::from_utf8(render_stdout(StdoutFormat::Table, r).unwrap()).unwrap());
    assert!(s.starts_with("trace t.pftrace"), "{s}");
    assert!(s.contains("com.a (pid 1)") && s.contains("com.b (pid 2)"), "{s}");
    assert!(s.contains("traversal") && s.contains("inflate (45.0 ms)"), "{s}");
    assert!(s.contains("com.a/.Main"), "{s}");
}

#[test]
fn long_slice_names_are_cut_in_the_terminal_only() {
    let long: String = "measure:".chars().chain(std::iter::repeat_n('x', 192)).collect();
    let (trace, rows, mut why) = analysis();
    why[0].longest_slice = Some(long.clone());
    why[0].blockers =
        vec![crate::frames::Blocker { name: long.clone(), ts: 100_000_000, dur: 3_000_000, delay_ns: 3_000_000 }];
    let mut a = Analysed::new(trace, rows, why, &AppFilter::All);
    a.warnings = a.trace.meta.warnings.clone();
    let report = a.report();
    let table = String::from_utf8(render_stdout(StdoutFormat::Table, &report).unwrap()).unwrap();
    // 47 characters and the ellipsis, in both cells.
    let cut = format!("{}…", &long[..47]);
    assert_eq!(cut.chars().count(), TERMINAL_NAME_CHARS);
    assert!(table.contains(&format!("{cut} (45.0 ms)")), "{table}");
    assert!(table.contains(&format!("blocked start: {cut} 3.0 ms")), "{table}");
    assert!(!table.contains(&long[..48]), "{table}");
    // The worst-frames row: its other cells and the two names at 48 characters, not 200 each.
    let widest = table.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest < 200, "{widest} columns:\n{table}");
    // JSON keeps the whole name.
    let v: serde_json::Value = serde_json::from_slice(&render_stdout(StdoutFormat::Json, &report).unwrap()).unwrap();
    assert_eq!(v["apps"][0]["worst_frames"][0]["why"]["longest_slice"], serde_json::json!(long));
}

#[test]
fn json_document() {
    let v: serde_json::Value = with_report(AppFilter::Package("com.a".into()), |r| {
        serde_json::from_slice(&render_stdout(StdoutFormat::Json, r).unwrap()).unwrap()
    });
    assert_eq!(v["fpsan_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["trace"]["packets"], 42);
    assert_eq!(v["trace"]["span_ns"], 2_000_000_000i64);
    assert_eq!(
        v["warnings"],
        serde_json::json!([{"code": "malformed_records", "severity": "degraded", "message": "something odd"}])
    );
    let apps = v["apps"].as_array().unwrap();
    assert_eq!(apps.len(), 1);
    assert_eq!(apps[0]["process"], "com.a");
    assert_eq!(apps[0]["frames"], 2);
    assert_eq!(apps[0]["dropped_frames"], 3);
    assert_eq!(apps[0]["drop_level"], serde_json::json!({"BEST": 1, "NORMAL": 1, "MIDDLE": 0, "HIGH": 0, "FROZEN": 0}));
    assert_eq!(apps[0]["drop_sum"]["NORMAL"], 3);
    assert_eq!(apps[0]["worst_frames"][0]["why"]["dominant_phase"], "traversal");
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 2);
    assert_eq!(frames[1]["frame_index"], 1);
    assert_eq!(frames[1]["scene"], "com.a/.Main");
    assert_eq!(frames[1]["was_jank"], serde_json::Value::Null);
}

#[test]
fn csv_is_the_frames_table() {
    let s =
        with_report(AppFilter::Pid(2), |r| String::from_utf8(render_stdout(StdoutFormat::Csv, r).unwrap()).unwrap());
    let mut lines = s.lines();
    assert!(lines.next().unwrap().starts_with("frame_index,process,pid,tid,thread,frame_id,ts,do_frame_dur,vsync_ts,"));
    let row = lines.next().unwrap();
    assert!(row.starts_with("2,com.b,2,2,,,0,5000000,0,estimated,16666667,"), "{row}");
    assert!(lines.next().is_none());
}

#[test]
fn without_tables_the_table_prints_and_the_outputs_of_rows_say_why_not() {
    let table = with_report(AppFilter::All, |r| render_stdout(StdoutFormat::Table, r).unwrap());
    with_report(AppFilter::All, |r| {
        let bare = Report { frames: None, presents_table: None, ..*r };
        assert_eq!(render_stdout(StdoutFormat::Table, &bare).unwrap(), table);
        for format in [StdoutFormat::Json, StdoutFormat::Csv] {
            let e = render_stdout(format, &bare).unwrap_err();
            assert!(matches!(e, ReportError::NoTable("frames")), "{format:?}: {e}");
        }
        let e = parquet::ParquetExporter.export(&Report { frames: r.frames, ..bare }).unwrap_err();
        assert!(matches!(e, ReportError::NoTable("presents")), "{e}");
    });
}

#[test]
fn out_dir_files_and_errors() {
    use arrow_array::Array;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keep.txt"), "mine").unwrap();
    let out = dir.path().join("out");
    let written = with_report(AppFilter::All, |r| ExportManager::default().write(&out, r).unwrap());
    let names: Vec<String> =
        written.iter().map(|p| p.strip_prefix(&out).unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(&names[..5], ["frames.parquet", "presents.parquet", "frames.csv", "presents.csv", "summary.json"]);
    // Then the charts (src/report/charts) and the HTML report.
    assert!(names[5..names.len() - 1].iter().all(|n| n.starts_with("charts/") && n.ends_with(".png")), "{names:?}");
    assert_eq!(names.last().unwrap(), "report.html");
    assert_eq!(std::fs::read_to_string(dir.path().join("keep.txt")).unwrap(), "mine");
    let mut leftovers: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    leftovers.sort();
    assert_eq!(
        leftovers,
        ["charts", "frames.csv", "frames.parquet", "presents.csv", "presents.parquet", "report.html", "summary.json"]
    );
    assert_eq!(std::fs::read_dir(out.join("charts")).unwrap().count(), names.len() - 6, "no temporary files left");
    let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert!(summary.get("frames").is_none());
    assert_eq!(summary["apps"].as_array().unwrap().len(), 2);
    let f = std::fs::File::open(out.join("frames.parquet")).unwrap();
    let reader = ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f).unwrap().build().unwrap();
    let batches: Vec<arrow_array::RecordBatch> = reader.map(|b| b.unwrap()).collect();
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 3);
    let cost = batches[0]
        .column_by_name("frame_cost_ns")
        .unwrap()
        .as_any()
        .downcast_ref::<arrow_array::Int64Array>()
        .unwrap()
        .clone();
    assert_eq!((0..cost.len()).map(|i| cost.value(i)).collect::<Vec<_>>(), [5_000_000, 60_000_000, 5_000_000]);

    // A directory that cannot be created.
    let blocked = dir.path().join("keep.txt").join("sub");
    let err = with_report(AppFilter::All, |r| ExportManager::default().write(&blocked, r).unwrap_err());
    assert!(matches!(err, ReportError::OutDir { .. }), "{err}");
    assert!(!err.to_string().contains('\n'));
}

#[test]
fn exporters_are_pluggable() {
    struct Hello;
    impl Exporter<Report<'_>> for Hello {
        fn export(&self, r: &Report) -> Result<Vec<Artifact>, ReportError> {
            Ok(vec![Artifact { file_name: "hello.txt".into(), bytes: format!("{} apps", r.apps.len()).into_bytes() }])
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let mut m: ExportManager = ExportManager::new();
    m.add(Box::new(Hello));
    with_report(AppFilter::All, |r| m.write(dir.path(), r).unwrap());
    assert_eq!(std::fs::read_to_string(dir.path().join("hello.txt")).unwrap(), "2 apps");
}

#[test]
fn a_failing_exporter_leaves_no_file_of_the_run() {
    struct Hello;
    impl Exporter<Report<'_>> for Hello {
        fn export(&self, _: &Report) -> Result<Vec<Artifact>, ReportError> {
            Ok(vec![Artifact { file_name: "charts/hello.txt".into(), bytes: b"new".to_vec() }])
        }
    }
    struct Broken;
    impl Exporter<Report<'_>> for Broken {
        fn export(&self, _: &Report) -> Result<Vec<Artifact>, ReportError> {
            Err(ReportError::Write("template error".into()))
        }
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("charts")).unwrap();
    std::fs::write(dir.path().join("charts/hello.txt"), "old").unwrap();
    let mut m: ExportManager = ExportManager::new();
    m.add(Box::new(Hello));
    m.add(Box::new(Broken));
    let err = with_report(AppFilter::All, |r| m.write(dir.path(), r).unwrap_err());
    assert_eq!(err.to_string(), "cannot encode output: template error");
    // Hello's file was staged before Broken ran; it is gone, and the
    // previous report's file is untouched.
    let left: Vec<_> = std::fs::read_dir(dir.path().join("charts")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["hello.txt"]);
    assert_eq!(std::fs::read_to_string(dir.path().join("charts/hello.txt")).unwrap(), "old");
    // Without the broken exporter the new file replaces the old one (an
    // exporter registered twice writes its file once).
    let mut m: ExportManager = ExportManager::new();
    m.add(Box::new(Hello));
    m.add(Box::new(Hello));
    let written = with_report(AppFilter::All, |r| m.write(dir.path(), r).unwrap());
    assert_eq!(written, [dir.path().join("charts/hello.txt")]);
    assert_eq!(std::fs::read_to_string(dir.path().join("charts/hello.txt")).unwrap(), "new");
}
