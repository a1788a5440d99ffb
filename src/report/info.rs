//! `fpsan info`: what a trace contains (size, packets, span, clocks, data
//! sources, processes with their doFrame / DrawFrame counts, malformed atrace
//! lines, data loss, warnings), as JSON or text.

use std::fmt::Write as _;

use serde::Serialize;

use super::format::fmt_pairs;
use crate::model::{AndroidInfo, CaptureInfo, CpuStart, DataLoss, Trace, TrackKind};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProcessInfo {
    pub pid: i32,
    pub name: Option<String>,
    pub threads: u64,
    pub slices: u64,
    /// `Choreographer#doFrame*` slices on the process's threads, `resynced` ones excluded.
    pub do_frame_count: u64,
    /// `DrawFrame*` slices (DrawFrame, DrawFrames <id>) on the process's threads.
    pub draw_frame_count: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Info {
    pub path: String,
    pub file_size: u64,
    pub container: crate::model::Container,
    pub packets: u64,
    pub compressed_batches: u64,
    pub span_ns: i64,
    pub first_ts: Option<i64>,
    pub last_ts: Option<i64>,
    pub clocks: Vec<u32>,
    pub trace_clock: u32,
    pub data_sources: Vec<crate::model::DataSource>,
    pub frame_timeline_events: u64,
    pub ftrace_events: u64,
    pub atrace_events: u64,
    pub atrace_malformed: u64,
    pub sched_events: u64,
    pub slices: u64,
    pub counters: u64,
    pub data_loss: DataLoss,
    /// Slice ends with nothing open that no reported loss explains: the
    /// capture's start (not data loss).
    pub cut_at_start: u64,
    /// Where every CPU's ftrace data has started.
    pub complete_from: Option<i64>,
    /// Each CPU's first event (systrace captures).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cpu_starts: Vec<CpuStart>,
    pub android: AndroidInfo,
    /// What a systrace HTML report's metadata block says about the capture.
    pub capture: CaptureInfo,
    pub processes: Vec<ProcessInfo>,
    pub warnings: Vec<crate::model::Warning>,
}

pub(crate) fn is_do_frame(name: &str) -> bool {
    name.starts_with("Choreographer#doFrame") && !name.contains("resynced")
}

pub(crate) fn is_draw_frame(name: &str) -> bool {
    name.starts_with("DrawFrame")
}

/// Facts about `trace`. Processes with at least one thread or slice, sorted by
/// doFrame count (descending) then pid.
pub fn info(trace: &Trace) -> Info {
    let n = trace.processes.len();
    let mut threads = vec![0u64; n];
    let mut slices = vec![0u64; n];
    let mut do_frames = vec![0u64; n];
    let mut draw_frames = vec![0u64; n];
    for t in &trace.threads {
        if let Some(u) = t.upid.filter(|u| u.index() < n) {
            threads[u.index()] += 1;
        }
    }
    for s in &trace.slices {
        let Some(track) = trace.tracks.get(s.track.index()) else {
            continue;
        };
        let (upid, on_thread) = match track.kind {
            TrackKind::Thread { utid } => (trace.threads.get(utid.index()).and_then(|t| t.upid), true),
            TrackKind::ProcessAsync { upid } => (Some(upid), false),
            _ => (None, false),
        };
        let Some(u) = upid.map(|u| u.index()).filter(|&u| u < n) else {
            continue;
        };
        slices[u] += 1;
        if on_thread {
            if is_do_frame(&s.name) {
                do_frames[u] += 1;
            } else if is_draw_frame(&s.name) {
                draw_frames[u] += 1;
            }
        }
    }
    let mut processes: Vec<ProcessInfo> = trace
        .processes
        .iter()
        .enumerate()
        .filter(|(u, _)| threads[*u] > 0 || slices[*u] > 0)
        .map(|(u, p)| ProcessInfo {
            pid: p.pid,
            name: p.name.as_deref().map(str::to_string),
            threads: threads[u],
            slices: slices[u],
            do_frame_count: do_frames[u],
            draw_frame_count: draw_frames[u],
        })
        .collect();
    processes.sort_by(|a, b| b.do_frame_count.cmp(&a.do_frame_count).then(a.pid.cmp(&b.pid)));
    let m = &trace.meta;
    Info {
        path: m.path.clone(),
        file_size: m.file_size,
        container: m.container,
        packets: m.packets,
        compressed_batches: m.compressed_batches,
        span_ns: trace.span_ns(),
        first_ts: m.first_ts,
        last_ts: m.last_ts,
        clocks: m.clocks.clone(),
        trace_clock: m.trace_clock,
        data_sources: m.data_sources.clone(),
        frame_timeline_events: m.frame_timeline_events,
        ftrace_events: m.ftrace_events,
        atrace_events: m.atrace_events,
        atrace_malformed: m.atrace_malformed,
        sched_events: m.sched_events,
        slices: trace.slices.len() as u64,
        counters: trace.counters.len() as u64,
        data_loss: m.data_loss.clone(),
        cut_at_start: m.cut_at_start,
        complete_from: m.complete_from,
        cpu_starts: m.cpu_starts.clone(),
        android: m.android.clone(),
        capture: m.capture.clone(),
        processes,
        warnings: m.warnings.clone(),
    }
}

/// Data-loss counters that are not zero, as `name value` pairs: those
/// trace_processor grades data loss (docs/report.md). The counters it grades
/// information are [`loss_info_items`].
pub(crate) fn data_loss_items(d: &DataLoss) -> Vec<(&'static str, u64)> {
    [
        ("packets_dropped_sequences", d.packets_dropped_sequences),
        ("ftrace_lost_event_bundles", d.ftrace_lost_event_bundles),
        ("ftrace_lost_events", d.ftrace_lost_events),
        ("truncated_bytes", d.truncated_bytes),
        ("unmatched_ends", d.unmatched_ends),
        ("capture_holes", d.holes.len() as u64),
        ("perf_lost_records", d.perf_lost_records.iter().map(|c| c.count).sum()),
        ("patches_failed", d.patches_failed),
        ("abi_violations", d.abi_violations),
        ("trace_writer_packet_loss", d.trace_writer_packet_loss),
        ("flushes_failed", d.flushes_failed),
        ("final_flush_failed", d.final_flush_failed),
    ]
    .into_iter()
    .filter(|(_, v)| *v > 0)
    .collect()
}

/// The buffers' counters trace_processor grades information, not zero:
/// overruns and discarded chunks (`ftrace_cpu_overrun_end`,
/// `traced_buf_chunks_overwritten`, `traced_buf_chunks_discarded`) and the
/// events before the valid start (`ftrace_packet_before_tracing_start`).
/// Discarded patches have a line of their own.
pub(crate) fn loss_info_items(d: &DataLoss) -> Vec<(&'static str, u64)> {
    [
        ("ftrace_overrun", d.ftrace_overrun),
        ("trace_buffer_overruns", d.trace_buffer_overruns),
        ("chunks_discarded", d.chunks_discarded),
        ("events_before_start", d.events_before_start),
    ]
    .into_iter()
    .filter(|(_, v)| *v > 0)
    .collect()
}

/// A CPU whose data starts more than this after the first CPU's starts late
/// (10 ms: the CPUs of one capture start within a few of each other).
pub(crate) const LATE_CPU_NS: i64 = 10_000_000;

/// "the trace starts mid-slice (…)": what `info` and the report say of the
/// ends with nothing open no loss explains (docs/limits.md). A systrace
/// capture (`cpu_starts`: each CPU's first event, seconds from the trace's
/// start) names the CPUs whose data starts late, each with its start, and
/// the time by which the others' has started; where none starts late,
/// those slices began before the trace. A Perfetto trace
/// (`complete_from`: where its ftrace data is kept from) says from when.
pub(crate) fn cut_start_text(cut_at_start: u64, cpu_starts: &[(u32, f64)], complete_from: Option<f64>) -> String {
    let before = "those slices began before the trace did".to_string();
    let why = match (cpu_starts.iter().map(|s| s.1).reduce(f64::min), complete_from) {
        (Some(first), _) => {
            let late_after = first + LATE_CPU_NS as f64 / 1e9;
            let mut late: Vec<(u32, f64)> = cpu_starts.iter().copied().filter(|s| s.1 > late_after).collect();
            late.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
            let on_time = cpu_starts.iter().map(|s| s.1).filter(|&t| t <= late_after).fold(first, f64::max);
            match late.split_first() {
                None => before,
                Some((&(cpu, t), rest)) => {
                    let mut s = format!("each CPU's ring buffer starts at its own time: CPU {cpu}'s data starts at {t:.6} s");
                    for &(cpu, t) in rest {
                        let _ = write!(s, ", CPU {cpu}'s at {t:.6} s");
                    }
                    let _ = write!(s, "; the other CPUs' by {on_time:.6} s");
                    s
                }
            }
        }
        (None, Some(t)) if t > 0.0 => format!(
            "ftrace events before {t:.6} s, before tracing started or before every CPU's buffer was valid, are dropped as trace_processor drops them"
        ),
        (None, Some(_)) => before,
        (None, None) => "each CPU's ring buffer starts at its own time".to_string(),
    };
    format!("{cut_at_start} slice ends have no begin: the trace starts mid-slice ({why}); not data loss")
}

/// The capture's own metadata (systrace HTML), a line per fact it has.
fn capture_lines(o: &mut String, c: &CaptureInfo) {
    if let Some(cmd) = &c.command_line {
        let _ = writeln!(o, "captured by   {cmd}");
    }
    if let Some(t) = &c.capture_time {
        let _ = writeln!(o, "captured at   {t} UTC");
    }
    if let Some(os) = &c.os {
        let _ = writeln!(o, "os            {os}");
    }
    if let Some(d) = &c.clock_domain {
        let _ = writeln!(o, "clock domain  {d}");
    }
}

/// Text form for the terminal.
pub fn render_text(i: &Info) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "file          {} ({} bytes, {})", i.path, i.file_size, i.container);
    // A systrace capture has lines in one clock, no packets or clock ids.
    let systrace = i.container.is_systrace();
    if systrace {
        let _ = writeln!(o, "lines         {} ftrace events", i.ftrace_events);
    } else {
        let _ = writeln!(o, "packets       {} ({} compressed batches)", i.packets, i.compressed_batches);
    }
    let _ = writeln!(o, "span          {:.3} s", i.span_ns as f64 / 1e9);
    if !systrace {
        let clocks: Vec<String> = i.clocks.iter().map(u32::to_string).collect();
        let _ = writeln!(o, "clocks        {} (trace clock {})", clocks.join(", "), i.trace_clock);
    }
    let _ = writeln!(o, "data sources  {}", crate::model::DataSource::list(&i.data_sources));
    if let Some(sdk) = i.android.sdk_version {
        let _ = writeln!(o, "android       sdk {sdk} {}", i.android.build_fingerprint.as_deref().unwrap_or(""));
    }
    capture_lines(&mut o, &i.capture);
    let _ = writeln!(
        o,
        "events        {} slices, {} counters, {} FrameTimeline, {} ftrace, {} atrace ({} malformed), {} sched",
        i.slices,
        i.counters,
        i.frame_timeline_events,
        i.ftrace_events,
        i.atrace_events,
        i.atrace_malformed,
        i.sched_events
    );
    let loss = data_loss_items(&i.data_loss);
    if loss.is_empty() {
        let _ = writeln!(o, "data loss     none");
    } else {
        let _ = writeln!(o, "data loss     {}", fmt_pairs(loss));
    }
    let info = loss_info_items(&i.data_loss);
    if !info.is_empty() {
        let _ = writeln!(
            o,
            "buffers       {} (information, as trace_processor grades them; not data loss)",
            fmt_pairs(info)
        );
    }
    if i.data_loss.patches_discarded > 0 {
        let _ = writeln!(
            o,
            "patches       {} discarded by the tracing service (information, as trace_processor grades it; not data loss)",
            i.data_loss.patches_discarded
        );
    }
    if i.cut_at_start > 0 {
        let secs = |t| crate::model::secs_from(i.first_ts, t);
        let starts: Vec<(u32, f64)> = i.cpu_starts.iter().map(|c| (c.cpu, secs(c.ts))).collect();
        let _ = writeln!(o, "cut start     {}", cut_start_text(i.cut_at_start, &starts, i.complete_from.map(secs)));
    }
    for w in &i.warnings {
        let _ = writeln!(o, "{:<13} {w}", w.severity.label());
    }
    let headers = ["pid", "process", "threads", "slices", "doFrame", "DrawFrame"];
    let rows: Vec<Vec<String>> = i
        .processes
        .iter()
        .map(|p| {
            vec![
                p.pid.to_string(),
                p.name.clone().unwrap_or_default(),
                p.threads.to_string(),
                p.slices.to_string(),
                p.do_frame_count.to_string(),
                p.draw_frame_count.to_string(),
            ]
        })
        .collect();
    o.push('\n');
    o.push_str(&super::cells::text_table(&headers, &rows, &[true, false, true, true, true, true]));
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testutil::TB;

    #[test]
    fn only_the_cpus_that_start_late_are_named() {
        // A 4.26 s capture whose CPUs 0–3 start by 3 ms and CPU 4 at 3.87 s.
        let starts = [(0, 0.0), (1, 0.0002), (2, 0.001), (3, 0.003), (4, 3.87)];
        let want = "2 slice ends have no begin: the trace starts mid-slice (each CPU's ring buffer starts at its own time: CPU 4's data starts at 3.870000 s; the other CPUs' by 0.003000 s); not data loss";
        assert_eq!(cut_start_text(2, &starts, Some(3.87)), want);
        // Late ones in start order.
        let starts = [(0, 0.0), (2, 0.6), (1, 0.15)];
        let want = "1 slice ends have no begin: the trace starts mid-slice (each CPU's ring buffer starts at its own time: CPU 1's data starts at 0.150000 s, CPU 2's at 0.600000 s; the other CPUs' by 0.000000 s); not data loss";
        assert_eq!(cut_start_text(1, &starts, Some(0.6)), want);
        // Every CPU within 10 ms of the first: the slices began before the trace.
        let before = "1 slice ends have no begin: the trace starts mid-slice (those slices began before the trace did); not data loss";
        assert_eq!(cut_start_text(1, &[(0, 0.0), (1, 0.009)], Some(0.009)), before);
        assert_eq!(cut_start_text(1, &[], Some(0.0)), before);
    }

    #[test]
    fn counts_frames_per_process() {
        let t = TB::new()
            .process(10, "com.a")
            .process(5, "com.b")
            .process(7, "empty")
            .thread(10, 10, "com.a")
            .thread(11, 10, "RenderThread")
            .thread(5, 5, "com.b")
            .slice(10, 0, 1, "Choreographer#doFrame 1")
            .slice(10, 1, 1, "Choreographer#doFrame 2")
            .slice(10, 2, 1, "Choreographer#doFrame - resynced to 3 in 20ms")
            .slice(11, 3, 1, "DrawFrames 1")
            .slice(11, 4, 1, "DrawFrame")
            .slice(5, 5, 1, "Choreographer#doFrame")
            .slice(5, 6, 1, "Choreographer#doFrame 9")
            .slice(5, 7, 1, "Choreographer#doFrame 10")
            .build();
        let i = info(&t);
        let rows: Vec<(i32, u64, u64, u64)> =
            i.processes.iter().map(|p| (p.pid, p.threads, p.do_frame_count, p.draw_frame_count)).collect();
        assert_eq!(rows, [(5, 1, 3, 0), (10, 2, 2, 2)]);
        assert_eq!(i.slices, 8);
    }
}
