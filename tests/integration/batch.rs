//! `fpsan batch`: a generated fleet of 200 traces (two builds × five devices × four scenarios × five runs,
//! from the project's trace builder) plus two damaged files, into a lake. Checked: every trace is a
//! `traces` row (the damaged ones with their error), the Hive partitions follow `--keys`, a trace's
//! `frames` file holds exactly what `fpsan analyze --out` writes to frames.parquet (with `trace_id` in
//! front), and a second run over the same inputs writes nothing.

use std::path::{Path, PathBuf};

use arrow_array::{Array, RecordBatch, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use tracegen::ab_runs::{app_run, RunSpec};

use fpsan::batch::{run, BatchOutcome, BatchRequest};

fn read(path: &Path) -> RecordBatch {
    let file = std::fs::File::open(path).unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
    let mut batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    assert_eq!(batches.len(), 1, "small files are one batch");
    batches.remove(0)
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out)
        } else {
            out.push(p)
        }
    }
}

fn fleet(root: &Path) -> Vec<PathBuf> {
    let mut made = Vec::new();
    let mut seed = 0;
    for (build, jank) in [("b100", 0.08), ("b101", 0.03)] {
        for device in ["pixel6", "pixel7", "pixel8", "a54", "s23"] {
            for scenario in ["feed", "search", "detail", "settings"] {
                for run in 1..=5 {
                    seed += 1;
                    let dir = root.join(build).join(device).join(scenario);
                    std::fs::create_dir_all(&dir).unwrap();
                    let path = dir.join(format!("run-{run}.pftrace"));
                    let spec = RunSpec { secs: 0.5, ..RunSpec::new(seed, jank) };
                    std::fs::write(&path, app_run(&spec)).unwrap();
                    made.push(path);
                }
            }
        }
    }
    // Damaged: not a trace at all, and a trace cut in its first packet.
    std::fs::write(root.join("b100/pixel6/feed/run-9.pftrace"), b"garbage, not a trace").unwrap();
    let whole = std::fs::read(&made[0]).unwrap();
    std::fs::write(root.join("b101/s23/detail/run-9.pftrace"), &whole[..40]).unwrap();
    made
}

#[test]
fn a_fleet_into_a_lake_and_again() {
    let dir = tempfile::tempdir().unwrap();
    let farm = dir.path().join("farm");
    let made = fleet(&farm);
    let lake = dir.path().join("lake");
    let req = BatchRequest {
        inputs: vec![farm.clone()],
        out: lake.clone(),
        keys: Some("{build}/{device}/{scenario}/run-{run}".into()),
        manifest: None,
        jobs: 2,
        memory_mb: None,
        sink: fpsan::sink::Sink::quiet(),
    };
    let done = run(&req).unwrap();
    assert_eq!(done, BatchOutcome { traces: 202, analysed: 200, skipped: 0, failed: 2 });

    let mut traces = Vec::new();
    files(&lake.join("traces"), &mut traces);
    assert_eq!(traces.len(), 202);
    let mut failed = Vec::new();
    for t in &traces {
        let b = read(t);
        let status = b.column_by_name("status").unwrap().as_any().downcast_ref::<StringArray>().unwrap().value(0);
        if status != "ok" {
            let error = b.column_by_name("error").unwrap().as_any().downcast_ref::<StringArray>().unwrap();
            failed.push((t.strip_prefix(&lake).unwrap().to_path_buf(), error.value(0).to_string()));
        }
    }
    failed.sort();
    assert_eq!(failed.len(), 2);
    assert!(failed[0].0.starts_with("traces/build=b100/device=pixel6/scenario=feed/run=9"), "{failed:?}");
    assert!(failed[1].0.starts_with("traces/build=b101/device=s23/scenario=detail/run=9"), "{failed:?}");
    assert!(failed.iter().all(|(_, e)| !e.is_empty() && !e.contains('\n')), "{failed:?}");

    // One trace's frames equal what `fpsan analyze --out` writes, cell for cell, after trace_id.
    let one = &made[57];
    let out = dir.path().join("one");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_fpsan"))
        .args(["analyze"])
        .arg(one)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let cli = read(&out.join("frames.parquet"));
    let id = blake3::hash(&std::fs::read(one).unwrap()).to_hex().to_string();
    let rel: Vec<String> =
        one.strip_prefix(&farm).unwrap().components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    let part = lake
        .join("frames")
        .join(format!("build={}", rel[0]))
        .join(format!("device={}", rel[1]))
        .join(format!("scenario={}", rel[2]))
        .join(format!("run={}", rel[3].trim_start_matches("run-").trim_end_matches(".pftrace")))
        .join(format!("{id}.parquet"));
    let lake_frames = read(&part);
    let ids = lake_frames.column(0).as_any().downcast_ref::<StringArray>().unwrap();
    assert_eq!(lake_frames.schema().field(0).name(), "trace_id");
    assert!((0..ids.len()).all(|i| ids.value(i) == id));
    let without_id = lake_frames.project(&(1..lake_frames.num_columns()).collect::<Vec<_>>()).unwrap();
    assert_eq!(without_id.num_rows(), cli.num_rows());
    assert!(cli.num_rows() > 20);
    assert_eq!(without_id, cli);
    for table in ["apps", "scenes"] {
        let mut parts = Vec::new();
        files(&lake.join(table), &mut parts);
        assert_eq!(parts.len(), 200, "{table}");
    }

    // Again: everything is already there.
    let mut before = Vec::new();
    files(&lake, &mut before);
    let again = run(&req).unwrap();
    assert_eq!(again, BatchOutcome { traces: 202, analysed: 0, skipped: 202, failed: 0 });
    let mut after = Vec::new();
    files(&lake, &mut after);
    assert_eq!(before.len(), after.len());
    // Other keys on the same lake: one clear line.
    let other = BatchRequest { keys: Some("{device}/{scenario}/run-{run}".into()), ..req };
    let err = run(&other).unwrap_err().to_string();
    assert!(
        err.contains("is partitioned by [build, device, scenario, run] and this batch by [device, scenario, run]"),
        "{err}"
    );
}
