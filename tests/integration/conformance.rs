//! Perfetto's own trace_processor diff tests (`../shared/conformance`), mapped
//! onto fpsan's model. Each case folder holds a trace, the SQL trace_processor
//! ran and the rows it printed. fpsan has no SQL schema of its own here, so
//! each case name maps to a small Rust function that computes the same rows
//! from `fpsan::analysis::load(...)` (slices, tracks, threads, processes,
//! counters, FrameTimeline) and the rows are compared exactly, cell by cell,
//! in order. Cases about Chrome, metric protos or raw
//! ftrace formatting are skipped with a printed reason; the `Frames__*` cases
//! belong to tests/integration/frames.rs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use fpsan::model::{Slice, TimelineKind, Trace, TrackKind};
use fpsan::read::ReadOptions;

use crate::util::shared;

/// One output row, each cell printed the way trace_processor prints it.
pub(crate) type Row = Vec<String>;
/// A case's mapping: the rows fpsan computes for its query.
type Compute = fn(&Case) -> Result<Vec<Row>, String>;

pub(crate) const NULL: &str = "[NULL]";

fn int(v: i64) -> String {
    v.to_string()
}
fn text(s: &str) -> String {
    s.to_string()
}
fn opt_text(s: Option<&str>) -> String {
    s.map_or_else(|| NULL.to_string(), text)
}
fn opt_int(v: Option<i64>) -> String {
    v.map_or_else(|| NULL.to_string(), int)
}
/// trace_processor prints doubles with six decimals.
fn double(v: f64) -> String {
    format!("{v:.6}")
}
fn boolean(b: Option<bool>) -> String {
    b.map_or_else(|| NULL.to_string(), |b| int(b as i64))
}

/// How one case is checked.
enum Mapping {
    /// Compute the rows from the decoded trace.
    Rows(fn(&Case) -> Result<Vec<Row>, String>),
    /// Like `Rows`, but only the expected rows the predicate keeps are
    /// compared (the rest come from data fpsan does not model; the reason is printed).
    Partial(fn(&Case) -> Result<Vec<Row>, String>, fn(&Row) -> bool, &'static str),
    Skip(&'static str),
}

struct Case {
    name: String,
    dir: PathBuf,
}

impl Case {
    fn trace_path(&self) -> Option<PathBuf> {
        ["trace.pftrace", "trace.systrace"].iter().map(|f| self.dir.join(f)).find(|p| p.is_file())
    }
    fn load(&self) -> Result<Trace, String> {
        let path = self.trace_path().ok_or("no trace file")?;
        fpsan::analysis::load(&path, &ReadOptions::default()).map_err(|e| format!("decode failed: {e}"))
    }
    fn expected(&self) -> Result<(Row, Vec<Row>), String> {
        let path = ["expected.csv", "expected.out"]
            .iter()
            .map(|f| self.dir.join(f))
            .find(|p| p.is_file())
            .ok_or("no expected.csv / expected.out")?;
        parse_expected(&path)
    }
}

/// trace_processor's CSV, with the diff-test indentation removed.
pub(crate) fn parse_expected(path: &Path) -> Result<(Row, Vec<Row>), String> {
    let raw = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let text: String = raw.lines().map(str::trim).filter(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect();
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
    let header: Row = rdr.headers().map_err(|e| e.to_string())?.iter().map(String::from).collect();
    let mut rows = Vec::new();
    for rec in rdr.records() {
        rows.push(rec.map_err(|e| e.to_string())?.iter().map(String::from).collect());
    }
    Ok((header, rows))
}

fn mapping(name: &str) -> Mapping {
    use Mapping::*;
    if name == "Frames__android_jank_cuj_slice_summary" {
        return Rows(cuj_slice_summary);
    }
    if name.starts_with("Frames__") {
        return Skip("covered by tests/integration/frames.rs");
    }
    match name {
        "AtraceErrorHandling__bad_print_systrace_list_slices"
        | "AtraceErrorHandling__bad_print_textproto_list_slices"
        | "Atrace__android_b2b_async_begin_list_slices" => Rows(ts_dur_name),
        "AtraceErrorHandling__instant_async_atrace_instant_async" => Rows(process_track_instants),
        "AtraceErrorHandling__instant_atrace_instant_with_thread" => Rows(thread_track_instants),
        "Atrace__async_track_atrace_process_track_slices" | "Atrace__process_track_slices_android_async_slice" => {
            Rows(process_track_slices)
        }
        "Atrace__cpus_header_removal" => Rows(|c| {
            Ok(named(&c.load()?, "test_slice").map(|s| vec![int(s.ts), text(&s.name), int(s.dur)]).collect())
        }),
        "Atrace__cpus_header_with_digits_only" => Rows(|c| Ok(vec![vec![int(named(&c.load()?, "task_work").count() as i64)]])),
        "Atrace__hex_preempt_count" => {
            Rows(|c| Ok(named(&c.load()?, "hex_preempt").map(|s| vec![int(s.ts), text(&s.name)]).collect()))
        }
        "Atrace__regex_pattern_no_gap_after_irq_flags" => Rows(regex_name_counts),
        "Atrace__sys_write_and_atrace" => Partial(
            thread_42_slices,
            |r| r[2] != "sys_write",
            "only the atrace slices: `sys_write` slices come from raw_syscalls sys_enter/sys_exit, which fpsan does not model",
        ),
        "FtraceCrop__crop_atrace_slice" | "FtraceCrop__crop_atrace_slice_legacy_field" => Rows(raw_prints_with_slices),
        "GraphicsParser__actual_frame_timeline_events" | "GraphicsParser__display_power_mode_change" => {
            Rows(actual_timeline)
        }
        "GraphicsParser__expected_frame_timeline_events" => Rows(expected_timeline),
        "Parsing__kernel_dpu_tmw_counter_process_counter_and_track"
        | "Parsing__kernel_tmw_counter_process_counter_and_track" => Rows(process_counters),
        "Parsing__slice_mdss_tracing_mark_write" => Rows(|c| {
            let t = c.load()?;
            Ok(thread_slices(&t).map(|(s, tid, _)| vec![text(&s.name), int(s.dur), int(tid as i64)]).collect())
        }),
        "ProcessTracking__slice_with_pid_sde_tracing_mark_write" => Rows(|c| {
            let t = c.load()?;
            Ok(thread_slices(&t)
                .map(|(s, tid, pid)| vec![text(&s.name), int(s.dur), int(tid as i64), opt_int(pid.map(i64::from))])
                .collect())
        }),
        "ProcessTracking__process_tracking_reused_thread_print" => Rows(threads_with_processes),
        "Slices__slice_self_dur" => Rows(self_durations),
        "TrackEvent__track_event_with_atrace_separate_tracks" => Rows(track_event_slices),
        "TrackEvent__track_event_with_atrace" => Skip(
            "legacy_event phases (Chrome JSON-style track events) and trace_processor's end-by-category matching are not modelled",
        ),
        "FrameTimeline__frame_timeline_metric" | "GraphicsMetrics__frame_missed_metrics" | "GraphicsMetrics__android_jank_cuj" => {
            Skip("a trace_processor metric proto ([METRIC ...]); fpsan's own metrics are tested elsewhere")
        }
        "SystemUICujs__android_sysui_jank_cujs" => Rows(sysui_jank_cujs),
        "GraphicsMetrics__android_jank_cuj_query" => Rows(jank_cuj_query),
        "Parsing__print_systrace_unsigned" => {
            Skip("to_ftrace() text of raw kmalloc/kfree events; fpsan does not keep raw ftrace events")
        }
        _ => Skip("no mapping for this case yet"),
    }
}

// ---- mappings -----------------------------------------------------------------

/// The trace with its frames and CUJs, read the way `analyze` reads them.
fn trace_frames(c: &Case) -> Result<fpsan::analysis::TraceFrames, String> {
    use fpsan::analysis::{frame_read_options, frames_of, open, Options};
    let path = c.trace_path().ok_or("no trace file")?;
    let opts = Options::default();
    let opened = open(&path, &frame_read_options(opts.sink)).map_err(|e| format!("decode failed: {e}"))?;
    Ok(frames_of(opened, &opts))
}

/// The trace's jank CUJs, read the way `analyze` reads them.
fn cujs_of(c: &Case) -> Result<(Trace, Vec<fpsan::cujs::Cuj>), String> {
    let tf = trace_frames(c)?;
    Ok((tf.trace, tf.cujs.cujs))
}

/// trace_processor's ids of fpsan's rows: its `upid` 0 and `utid` 0 are the
/// idle process and the swapper thread, which fpsan's tables do not hold, so
/// its ids are fpsan's plus one; its slice table also holds the FrameTimeline
/// slices (fpsan keeps them in their own table), so a slice's id there also
/// counts the FrameTimeline slices that started before it.
fn tp_upid(u: fpsan::model::Upid) -> i64 {
    u.0 as i64 + 1
}
fn tp_utid(u: fpsan::model::Utid) -> i64 {
    u.0 as i64 + 1
}
fn tp_slice_id(t: &Trace, id: fpsan::model::SliceId) -> i64 {
    let ts = t.slice(id).ts;
    (id.0 as usize + t.frame_timeline.partition_point(|f| f.ts < ts)) as i64
}

/// `android_sysui_jank_cujs`: counted CUJs whose layer drew frames, by start.
fn sysui_jank_cujs(c: &Case) -> Result<Vec<Row>, String> {
    let (t, cujs) = cujs_of(c)?;
    let mut rows: Vec<(Option<i64>, Row)> = cujs
        .iter()
        .filter(|j| j.counted)
        .filter_map(|j| {
            let (ts, ts_end) = j.layer_span?;
            let row = vec![
                int(j.id as i64),
                int(tp_upid(j.upid)),
                opt_text(j.process.as_deref()),
                text(&j.slice_name),
                text(j.name()),
                int(tp_slice_id(&t, j.slice)),
                opt_int(ts),
                int(ts_end),
                opt_int(ts.map(|ts| ts_end - ts)),
                opt_text(j.state.map(|s| s.as_str())),
                opt_int(j.ui_thread.map(tp_utid)),
                opt_int(j.layer_id),
                opt_int(j.begin_vsync),
                opt_int(j.end_vsync),
            ];
            Some((ts, row))
        })
        .collect();
    rows.sort_by_key(|(ts, _)| *ts);
    Ok(rows.into_iter().map(|(_, r)| r).collect())
}

/// `android_jank_cuj_slice_summary`: every CUJ slice, by (name, ts).
fn cuj_slice_summary(c: &Case) -> Result<Vec<Row>, String> {
    let (_, cujs) = cujs_of(c)?;
    let mut rows: Vec<(String, i64, Row)> = cujs
        .iter()
        .map(|j| {
            let (ts, ts_end) = j.span();
            let counts = j.timeline.filter(|_| j.counted);
            let row = vec![
                text(&j.slice_name),
                opt_text(j.process.as_deref()),
                opt_text(j.state.map(|s| s.as_str())),
                opt_int(counts.map(|n| n.frames)),
                opt_int(counts.map(|n| n.missed_app_frames)),
                opt_int(counts.map(|n| n.missed_sf_frames)),
                opt_text(j.layer_name.as_deref()),
                int(ts),
                int(ts_end - ts),
            ];
            (j.slice_name.to_string(), ts, row)
        })
        .collect();
    rows.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    Ok(rows.into_iter().map(|(_, _, r)| r).collect())
}

/// `android_jank_correlate_frame_slice` over four table sets (binder
/// transactions on the main thread, JIT compiling on the app's threads, `sf
/// binder` on SurfaceFlinger's main thread, shader compiles on RenderEngine),
/// by (slice, cuj_id, vsync).
fn jank_cuj_query(c: &Case) -> Result<Vec<Row>, String> {
    use fpsan::cujs::correlate::{Correlator, ThreadSet};
    type Query = (&'static str, ThreadSet, fn(&str) -> bool);
    let queries: [Query; 4] = [
        ("JIT compiling", ThreadSet::AppThreads, |n| n.starts_with("JIT compiling")),
        ("binder transaction", ThreadSet::MainThread, |n| n == "binder transaction"),
        ("sf binder", ThreadSet::SfMainThread, |n| n == "sf binder"),
        ("shader compile", ThreadSet::SfRenderEngine, |n| n == "shader compile"),
    ];
    let tf = trace_frames(c)?;
    let cujs = &tf.cujs.cujs;
    let correlator = Correlator::new(&tf.trace, &tf.frames, cujs);
    let mut rows: Vec<(&str, usize, i64, Row)> = Vec::new();
    for cuj in cujs {
        let frames = correlator.frames(cuj);
        for &(label, set, wanted) in &queries {
            for f in correlator.correlate(&frames, set, wanted) {
                let row = vec![
                    text(label),
                    int(cuj.id as i64),
                    int(f.frame_number),
                    int(f.vsync),
                    int(f.dur_expected),
                    boolean(f.app_missed),
                    boolean(f.sf_missed),
                    f.share_of_expected().map_or_else(|| NULL.to_string(), double),
                    int(f.slice_dur_sum),
                    int(f.slice_dur_max),
                ];
                rows.push((label, cuj.id, f.vsync, row));
            }
        }
    }
    rows.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
    Ok(rows.into_iter().map(|(_, _, _, r)| r).collect())
}

fn ts_dur_name(c: &Case) -> Result<Vec<Row>, String> {
    Ok(c.load()?.slices.iter().map(|s| vec![int(s.ts), int(s.dur), text(&s.name)]).collect())
}

fn named<'a>(t: &'a Trace, name: &'a str) -> impl Iterator<Item = &'a Slice> + 'a {
    t.slices.iter().filter(move |s| &*s.name == name)
}

fn process_track_instants(c: &Case) -> Result<Vec<Row>, String> {
    let t = c.load()?;
    Ok(t.slices
        .iter()
        .filter(|s| s.dur == 0 && matches!(t.track(s.track).kind, TrackKind::ProcessAsync { .. }))
        .map(|s| {
            let p = t.track_process(s.track);
            vec![
                opt_text(p.and_then(|p| p.name.as_deref())),
                opt_text(t.track(s.track).name.as_deref()),
                text(&s.name),
                int(s.ts),
            ]
        })
        .collect())
}

fn thread_track_instants(c: &Case) -> Result<Vec<Row>, String> {
    let t = c.load()?;
    Ok(t.slices
        .iter()
        .filter(|s| s.dur == 0 && matches!(t.track(s.track).kind, TrackKind::Thread { .. }))
        .map(|s| vec![opt_text(t.track_thread(s.track).and_then(|th| th.name.as_deref())), text(&s.name), int(s.ts)])
        .collect())
}

fn process_track_slices(c: &Case) -> Result<Vec<Row>, String> {
    let t = c.load()?;
    Ok(t.slices
        .iter()
        .filter(|s| matches!(t.track(s.track).kind, TrackKind::ProcessAsync { .. }))
        .map(|s| {
            let pid = t.track_process(s.track).map(|p| p.pid as i64);
            vec![int(s.ts), int(s.dur), opt_int(pid), text(&s.name), opt_text(t.track(s.track).name.as_deref())]
        })
        .collect())
}

/// `SELECT name, COUNT(*) ... WHERE name IN (...) GROUP BY name ORDER BY name`.
fn regex_name_counts(c: &Case) -> Result<Vec<Row>, String> {
    let t = c.load()?;
    let wanted = ["no_gap_after_dots", "space_after_dots", "no_gap_after_flags"];
    let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
    for s in t.slices.iter().filter(|s| wanted.contains(&&*s.name)) {
        *counts.entry(&s.name).or_default() += 1;
    }
    Ok(counts.into_iter().map(|(n, k)| vec![text(n), int(k)]).collect())
}

/// Slices on thread tracks with the thread's tid and its process's pid.
fn thread_slices(t: &Trace) -> impl Iterator<Item = (&Slice, i32, Option<i32>)> + '_ {
    t.slices.iter().filter_map(move |s| {
        let th = t.track_thread(s.track).filter(|_| matches!(t.track(s.track).kind, TrackKind::Thread { .. }))?;
        Some((s, th.tid, th.upid.map(|u| t.process(u).pid)))
    })
}

fn thread_42_slices(c: &Case) -> Result<Vec<Row>, String> {
    let t = c.load()?;
    Ok(thread_slices(&t)
        .filter(|(_, tid, _)| *tid == 42)
        .map(|(s, _, _)| vec![int(s.ts), int(s.dur), text(&s.name), int(s.depth as i64)])
        .collect())
}

/// `raw LEFT JOIN slice USING (ts)`: every ftrace print event, read with the
/// official schema (fpsan does not keep raw events), next to fpsan's slice
/// starting at that timestamp, if any. Events before the valid-data start
/// stay in `raw` but make no slice.
fn raw_prints_with_slices(c: &Case) -> Result<Vec<Row>, String> {
    use protobuf::Message;
    let t = c.load()?;
    let bytes = std::fs::read(c.trace_path().ok_or("no trace")?).map_err(|e| e.to_string())?;
    let trace = perfetto_protos::trace::Trace::parse_from_bytes(&bytes).map_err(|e| e.to_string())?;
    let mut raw: Vec<(i64, String)> = Vec::new();
    for p in &trace.packet {
        for e in &p.ftrace_events().event {
            if e.has_print() {
                raw.push((e.timestamp() as i64, e.print().buf().trim_end_matches('\n').to_string()));
            }
        }
    }
    raw.sort_by_key(|r| r.0);
    let mut rows = Vec::new();
    for (ts, buf) in raw {
        let joined: Vec<&Slice> = t.slices.iter().filter(|s| s.ts == ts).collect();
        if joined.is_empty() {
            rows.push(vec![int(ts), buf.clone(), NULL.into(), NULL.into()]);
        }
        for s in joined {
            rows.push(vec![int(ts), buf.clone(), int(s.dur), text(&s.name)]);
        }
    }
    Ok(rows)
}

/// The timeline rows of `kinds`, ordered by ts (ties in creation order, as
/// trace_processor's slice ids are).
fn timeline_rows<'a>(t: &'a Trace, kinds: &[TimelineKind]) -> Vec<&'a fpsan::model::TimelineSlice> {
    let mut v: Vec<_> = t.frame_timeline.iter().filter(|f| kinds.contains(&f.kind)).collect();
    v.sort_by_key(|f| f.ts);
    v
}

fn surface_token(f: &fpsan::model::TimelineSlice) -> String {
    if f.kind.is_surface() {
        int(f.token)
    } else {
        NULL.into()
    }
}

fn actual_timeline(c: &Case) -> Result<Vec<Row>, String> {
    let t = c.load()?;
    Ok(timeline_rows(&t, &[TimelineKind::ActualDisplay, TimelineKind::ActualSurface])
        .into_iter()
        .map(|f| {
            vec![
                int(f.ts),
                int(f.dur),
                int(f.pid as i64),
                opt_int(f.display_frame_token),
                surface_token(f),
                opt_text(f.layer_name.as_deref()),
                opt_text(f.present_type.map(|p| p.as_str())),
                boolean(f.on_time_finish),
                boolean(f.gpu_composition),
                opt_text(f.jank_type.as_deref()),
                opt_text(f.prediction_type.map(|p| p.as_str())),
                opt_text(f.jank_tag.map(|t| t.as_str())),
                opt_text(f.jank_severity_type.map(|s| s.as_str())),
            ]
        })
        .collect())
}

fn expected_timeline(c: &Case) -> Result<Vec<Row>, String> {
    let t = c.load()?;
    Ok(timeline_rows(&t, &[TimelineKind::ExpectedDisplay, TimelineKind::ExpectedSurface])
        .into_iter()
        .map(|f| {
            vec![
                int(f.ts),
                int(f.dur),
                int(f.pid as i64),
                opt_int(f.display_frame_token),
                surface_token(f),
                opt_text(f.layer_name.as_deref()),
            ]
        })
        .collect())
}

/// `counter JOIN process_counter_track JOIN process ORDER BY ts`.
fn process_counters(c: &Case) -> Result<Vec<Row>, String> {
    let t = c.load()?;
    Ok(t.counters
        .iter()
        .filter(|s| matches!(t.track(s.track).kind, TrackKind::ProcessCounter { .. }))
        .map(|s| {
            vec![
                int(s.ts),
                opt_text(t.track(s.track).name.as_deref()),
                double(s.value),
                opt_int(t.track_process(s.track).map(|p| p.pid as i64)),
            ]
        })
        .collect())
}

/// `thread LEFT JOIN process WHERE tid > 0 ORDER BY tid`.
fn threads_with_processes(c: &Case) -> Result<Vec<Row>, String> {
    let t = c.load()?;
    let mut threads: Vec<_> = t.threads.iter().filter(|th| th.tid > 0).collect();
    threads.sort_by_key(|th| th.tid);
    Ok(threads
        .into_iter()
        .map(|th| {
            let p = th.upid.map(|u| t.process(u));
            vec![
                int(th.tid as i64),
                opt_int(p.map(|p| p.pid as i64)),
                opt_text(p.and_then(|p| p.name.as_deref())),
                opt_text(th.name.as_deref()),
            ]
        })
        .collect())
}

/// stdlib `slices.self_dur`: duration minus the direct children's, by name.
fn self_durations(c: &Case) -> Result<Vec<Row>, String> {
    let t = c.load()?;
    let mut rows: Vec<(String, i64)> =
        t.slices.iter().map(|s| (s.name.to_string(), s.dur - t.children(s.id).map(|ch| ch.dur).sum::<i64>())).collect();
    rows.sort();
    Ok(rows.into_iter().map(|(n, d)| vec![n, int(d)]).collect())
}

/// Every slice with its track's name, owning process, thread and the
/// thread's process, ordered by ts.
fn track_event_slices(c: &Case) -> Result<Vec<Row>, String> {
    let t = c.load()?;
    let mut slices: Vec<&Slice> = t.slices.iter().collect();
    slices.sort_by_key(|s| s.ts);
    Ok(slices
        .into_iter()
        .map(|s| {
            let track = t.track(s.track);
            let process = match track.kind {
                TrackKind::ProcessAsync { upid } | TrackKind::ProcessCounter { upid } => Some(t.process(upid)),
                _ => None,
            };
            let thread = t.track_thread(s.track);
            let thread_process = thread.and_then(|th| th.upid).map(|u| t.process(u));
            vec![
                opt_text(track.name.as_deref()),
                opt_text(process.and_then(|p| p.name.as_deref())),
                opt_text(thread.and_then(|th| th.name.as_deref())),
                opt_text(thread_process.and_then(|p| p.name.as_deref())),
                int(s.ts),
                int(s.dur),
                opt_text(s.category.as_deref()),
                text(&s.name),
            ]
        })
        .collect())
}

// ---- the runner -----------------------------------------------------------------

enum Outcome {
    Pass,
    Skip(String),
    Fail(String),
}

fn run_case(case: &Case) -> Outcome {
    type Keep = Option<fn(&Row) -> bool>;
    let (compute, keep, note): (Compute, Keep, Option<&str>) = match mapping(&case.name) {
        Mapping::Skip(why) => return Outcome::Skip(why.to_string()),
        Mapping::Rows(f) => (f, None, None),
        Mapping::Partial(f, keep, note) => (f, Some(keep), Some(note)),
    };
    let (header, mut expected) = match case.expected() {
        Ok(e) => e,
        Err(e) => return Outcome::Fail(format!("cannot read the expected output: {e}")),
    };
    if let Some(keep) = keep {
        expected.retain(keep);
    }
    let got = match compute(case) {
        Ok(rows) => rows,
        Err(e) => return Outcome::Fail(e),
    };
    if got == expected {
        if let Some(note) = note {
            println!("    note {}: {note}", case.name);
        }
        return Outcome::Pass;
    }
    let show = |rows: &[Row]| rows.iter().map(|r| format!("      {}", r.join(","))).collect::<Vec<_>>().join("\n");
    Outcome::Fail(format!(
        "rows differ ({})\n    expected ({} rows):\n{}\n    fpsan ({} rows):\n{}",
        header.join(","),
        expected.len(),
        show(&expected),
        got.len(),
        show(&got)
    ))
}

#[test]
fn perfetto_diff_tests_agree_with_fpsan() {
    let Some(root) = shared("conformance") else { return };
    let mut cases: Vec<Case> = std::fs::read_dir(&root)
        .expect("read conformance dir")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| Case { name: e.file_name().to_string_lossy().into_owned(), dir: e.path() })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    let (mut passed, mut skipped, mut failed) = (Vec::new(), Vec::new(), Vec::new());
    for case in &cases {
        match run_case(case) {
            Outcome::Pass => passed.push(case.name.clone()),
            Outcome::Skip(why) => skipped.push(format!("{}: {why}", case.name)),
            Outcome::Fail(why) => failed.push(format!("{}: {why}", case.name)),
        }
    }
    println!("conformance: {} passed, {} skipped, {} failed", passed.len(), skipped.len(), failed.len());
    for p in &passed {
        println!("  PASS {p}");
    }
    for s in &skipped {
        println!("  SKIP {s}");
    }
    for f in &failed {
        println!("  FAIL {f}");
    }
    assert!(failed.is_empty(), "{} conformance cases failed (see the output above)", failed.len());
}
