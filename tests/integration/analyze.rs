//! `fpsan analyze` (and `fpsan query`) through the built binary: exit codes
//! and one-line errors for bad input, the JSON document's shape, the CSV
//! header, and the `--out` files (parquet read back with the parquet crate).
//! Cases that need a real trace use `../shared` and skip when it is absent.

use std::path::PathBuf;

use crate::util::{fpsan, shared, testdata};

/// The conformance frames trace: 15 frames of com.android.systemui.
fn frames_trace() -> Option<PathBuf> {
    shared("conformance/Frames__android_frames/trace.pftrace")
}

fn real_trace(name: &str) -> Option<PathBuf> {
    shared(&format!("traces/{name}"))
}

/// Exactly one non-empty line on stderr, no backtrace.
fn assert_one_line(stderr: &[u8]) -> String {
    let s = String::from_utf8_lossy(stderr).to_string();
    let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "stderr should be one line: {s:?}");
    assert!(!s.contains("panicked") && !s.contains("backtrace") && !s.contains("internal error"), "{s}");
    s
}

const SPEC_COLUMNS: &[&str] = &[
    "process",
    "pid",
    "tid",
    "thread",
    "frame_id",
    "ts",
    "do_frame_dur",
    "vsync_ts",
    "vsync_source",
    "frame_interval_ns",
    "refresh_hz",
    "jitter_ns",
    "skipped_frames",
    "frame_time_ns",
    "input_dur",
    "animation_dur",
    "insets_animation_dur",
    "traversal_dur",
    "commit_dur",
    "commit_ts",
    "commit_jitter_ns",
    "commit_corrected",
    "corrected_frame_time_ns",
    "frame_cost_ns",
    "dropped_frames",
    "drop_level",
    "draw_frame_ts",
    "draw_frame_dur",
    "draw_frame_count",
    "expected_ts",
    "expected_end",
    "actual_ts",
    "actual_end",
    "overrun_ns",
    "jank_type",
    "present_type",
    "layer_name",
    "app_vsync_delay",
    "cpu_time",
    "ui_time",
    "was_jank",
    "was_slow_frame",
    "was_big_jank",
    "was_huge_jank",
];

#[test]
fn missing_file_is_exit_1_one_line() {
    let out = fpsan().args(["analyze", "/nonexistent/trace.pftrace"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = assert_one_line(&out.stderr);
    assert!(e.contains("/nonexistent/trace.pftrace"), "{e}");
    assert!(out.stdout.is_empty());
}

#[test]
fn directory_is_exit_1_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = fpsan().arg("analyze").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = assert_one_line(&out.stderr);
    assert!(e.contains("directory"), "{e}");
}

#[test]
fn not_a_trace_is_exit_1_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("notes.txt");
    std::fs::write(&f, "this is a shopping list, not a trace\nmilk\neggs\n").unwrap();
    let out = fpsan().arg("analyze").arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_one_line(&out.stderr);
    let empty = dir.path().join("empty.pftrace");
    std::fs::write(&empty, b"").unwrap();
    let out = fpsan().arg("analyze").arg(&empty).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_one_line(&out.stderr);
}

#[test]
fn usage_errors_are_exit_2() {
    for args in [
        vec!["analyze"],
        vec!["analyze", "x.pftrace", "--format", "xml"],
        vec!["analyze", "x.pftrace", "--app", "a", "--pid", "1"],
        vec!["analyze", "x.pftrace", "--refresh-hz", "0"],
        vec!["analyze", "x.pftrace", "--category", "toy"],
        vec!["query", "x.pftrace"],
        vec!["frobnicate"],
    ] {
        let out = fpsan().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn app_without_frames_names_the_apps_with_frames() {
    let Some(t) = frames_trace() else { return };
    let out = fpsan().arg("analyze").arg(&t).args(["--app", "com.example.nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = assert_one_line(&out.stderr);
    assert!(e.contains("com.example.nope") && e.contains("com.android.systemui"), "{e}");
    let out = fpsan().arg("analyze").arg(&t).args(["--pid", "999999"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_one_line(&out.stderr);
}

#[test]
fn json_document_shape() {
    let Some(t) = frames_trace() else { return };
    let out = fpsan().arg("analyze").arg(&t).args(["--format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON document");
    for k in ["fpsan_version", "trace", "apps", "frames", "warnings"] {
        assert!(doc.get(k).is_some(), "missing {k}");
    }
    assert_eq!(doc["fpsan_version"], env!("CARGO_PKG_VERSION"));
    let apps = doc["apps"].as_array().unwrap();
    let app = &apps[0];
    assert_eq!(app["process"], "com.android.systemui");
    for k in ["pid", "process", "frames", "fps", "fps_wall", "refresh_hz", "drop_level", "drop_sum", "dropped_frames"] {
        assert!(app.get(k).is_some(), "apps[0] missing {k}");
    }
    assert_eq!(app["frames"], 15);
    let levels: i64 =
        ["BEST", "NORMAL", "MIDDLE", "HIGH", "FROZEN"].iter().map(|l| app["drop_level"][l].as_i64().unwrap()).sum();
    assert_eq!(levels, 15);
    let sums: i64 =
        ["BEST", "NORMAL", "MIDDLE", "HIGH", "FROZEN"].iter().map(|l| app["drop_sum"][l].as_i64().unwrap()).sum();
    assert_eq!(sums, app["dropped_frames"].as_i64().unwrap());
    let frames = doc["frames"].as_array().unwrap();
    let total: i64 = apps.iter().map(|a| a["frames"].as_i64().unwrap()).sum();
    assert_eq!(frames.len() as i64, total);
    for c in SPEC_COLUMNS {
        assert!(frames[0].get(*c).is_some(), "frames[0] missing {c}");
    }
    let dropped: i64 =
        frames.iter().filter(|f| f["pid"] == app["pid"]).map(|f| f["dropped_frames"].as_i64().unwrap()).sum();
    assert_eq!(dropped, app["dropped_frames"].as_i64().unwrap());
    assert!(app["fps"].as_f64().unwrap() <= app["refresh_hz"].as_f64().unwrap() + 1e-9);
}

#[test]
fn app_selection_and_table_output() {
    let Some(t) = frames_trace() else { return };
    let out = fpsan().arg("analyze").arg(&t).args(["--app", "com.android.systemui"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("com.android.systemui") && s.contains("BEST"), "{s}");
    // With --app only that app is summarised.
    let out =
        fpsan().arg("analyze").arg(&t).args(["--app", "com.android.systemui", "--format", "json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["apps"].as_array().unwrap().len(), 1);
}

#[test]
fn csv_header_is_the_frames_table() {
    let Some(t) = frames_trace() else { return };
    let out = fpsan().arg("analyze").arg(&t).args(["--format", "csv"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let s = String::from_utf8(out.stdout).unwrap();
    let mut lines = s.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    // SPEC columns in SPEC order (extra columns allowed around them).
    let positions: Vec<usize> =
        SPEC_COLUMNS.iter().map(|c| header.iter().position(|h| h == c).unwrap_or_else(|| panic!("no {c}"))).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{header:?}");
    assert!(header.contains(&"scene"));
    assert_eq!(lines.count(), 15);
}

#[test]
fn out_dir_files() {
    use arrow_array::Array;
    let Some(t) = frames_trace() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("report");
    std::fs::create_dir(&out_dir).unwrap();
    std::fs::write(out_dir.join("mine.txt"), "keep me").unwrap();
    std::fs::write(out_dir.join("frames.csv"), "stale").unwrap();
    for _ in 0..2 {
        let out =
            fpsan().arg("analyze").arg(&t).arg("--out").arg(&out_dir).args(["--format", "json"]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("stdout stays one JSON document");
    }
    assert_eq!(std::fs::read_to_string(out_dir.join("mine.txt")).unwrap(), "keep me");
    let csv = std::fs::read_to_string(out_dir.join("frames.csv")).unwrap();
    assert_eq!(csv.lines().count(), 16);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["apps"][0]["frames"], 15);

    let file = std::fs::File::open(out_dir.join("frames.parquet")).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
    let batches: Vec<arrow_array::RecordBatch> = reader.map(|b| b.unwrap()).collect();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 15);
    let schema = batches[0].schema();
    for c in SPEC_COLUMNS {
        assert!(schema.field_with_name(c).is_ok(), "parquet missing {c}");
    }
    // Same timestamps as the CSV, in the same order.
    let ts: Vec<i64> = batches
        .iter()
        .flat_map(|b| {
            let a = b.column_by_name("ts").unwrap().as_any().downcast_ref::<arrow_array::Int64Array>().unwrap().clone();
            (0..a.len()).map(move |i| a.value(i))
        })
        .collect();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let ts_col = header.iter().position(|h| *h == "ts").unwrap();
    let csv_ts: Vec<i64> = csv.lines().skip(1).map(|l| l.split(',').nth(ts_col).unwrap().parse().unwrap()).collect();
    assert_eq!(ts, csv_ts);
}

/// Every file under `dir`, relative and sorted.
fn files_under(dir: &std::path::Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                files.push(p.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    files
}

/// `-o` is `--out`, and it writes what `--out`'s help says it writes.
#[test]
fn short_out_writes_what_the_help_lists() {
    let dir = tempfile::tempdir().unwrap();
    let out = fpsan().arg("analyze").arg(testdata("demo.pftrace")).arg("-o").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let files = files_under(dir.path());
    assert_eq!(
        files,
        [
            "charts/com.example.scroll-4242-distribution.png",
            "charts/com.example.scroll-4242-drop-levels.png",
            "charts/com.example.scroll-4242-fps.png",
            "charts/com.example.scroll-4242-janky.png",
            "charts/com.example.scroll-4242-layer-presents.png",
            "charts/com.example.scroll-4242-present.png",
            "charts/com.example.scroll-4242-timeline.png",
            "frames.csv",
            "frames.parquet",
            "main_thread_blocks.parquet",
            "presents.csv",
            "presents.parquet",
            "report.html",
            "summary.json",
        ]
    );
    let help = fpsan().args(["analyze", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("-o, --out <DIR>"), "{help}");
    for f in files.iter().filter(|f| !f.starts_with("charts/")) {
        assert!(help.contains(f.as_str()), "{f} is not in the help: {help}");
    }
    assert!(help.contains("charts/<app>-<pid>-<chart>.png"), "{help}");
    for chart in files.iter().filter_map(|f| f.strip_prefix("charts/com.example.scroll-4242-")) {
        let kind = chart.trim_end_matches(".png");
        assert!(help.contains(kind), "{kind} is not in the help: {help}");
    }
}

#[test]
fn unwritable_out_dir_is_one_line() {
    let Some(t) = frames_trace() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a_file");
    std::fs::write(&file, "x").unwrap();
    let out = fpsan().arg("analyze").arg(&t).arg("--out").arg(file.join("sub")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = assert_one_line(&out.stderr);
    assert!(e.contains("a_file"), "{e}");
}

#[test]
fn real_trace_by_package_and_comm() {
    let Some(t) = real_trace("real-android16-binder-spam-before.pftrace") else {
        return;
    };
    // The package name selects the app whether the trace names it by its
    // cmdline or only by its 15-char kernel comm ("etto.binderspam").
    let app = "com.example.perfetto.binderspam";
    let out = fpsan().arg("analyze").arg(&t).args(["--app", app, "--format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{app}: {}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let apps = doc["apps"].as_array().unwrap();
    assert_eq!(apps.len(), 1);
    assert!(apps[0]["frames"].as_i64().unwrap() > 100);
}

#[test]
fn query_tables_and_formats() {
    let Some(t) = frames_trace() else { return };
    let out = fpsan()
        .arg("query")
        .arg(&t)
        .arg("SELECT COUNT(*) AS n FROM slice WHERE name LIKE 'Choreographer#doFrame%' AND name NOT LIKE '%resynced%'")
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["n"], 15);
    let out =
        fpsan().arg("query").arg(&t).arg("SELECT pid, frames FROM apps").args(["--format", "csv"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.starts_with("pid,frames\n") && s.contains(",15\n"), "{s}");
    let q = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("queries/app_summary.sql");
    let out = fpsan().arg("query").arg(&t).arg("--file").arg(&q).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let out = fpsan().arg("query").arg(&t).arg("SELEC broken FROM slice").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_one_line(&out.stderr);
}

#[test]
fn long_package_matches_its_kernel_comm() {
    // The lynx trace names the app only by its comm "m.lynx.explorer" (the last
    // 15 characters of com.lynx.explorer).
    let Some(t) = real_trace("real-pixel8-lynx_vital_timestamp.pftrace") else {
        return;
    };
    let out = fpsan().arg("analyze").arg(&t).args(["--app", "com.lynx.explorer", "--format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let apps = doc["apps"].as_array().unwrap();
    assert_eq!(apps.len(), 1);
    assert_eq!(apps[0]["process"], "m.lynx.explorer");
}
