//! Where the trace lost data, and what a slice end with nothing open means
//! (docs/limits.md, "Slice ends without a begin").
//!
//! Ftrace's per-CPU ring buffers lose data in two ways. In overwrite mode
//! (every systrace, Perfetto's ring buffers) each CPU's buffer keeps only its
//! newest events, so each CPU's data starts at its own time: a thread's `B`
//! written on a CPU whose data starts later is gone, even after the thread's
//! track saw other begins. That is the capture's start, not a loss. The
//! kernel also reports events lost in the middle of the data: a systrace
//! `CPU:n [LOST m EVENTS]` note after the CPU's first event, a Perfetto
//! bundle flagged `lost_events` (trace_processor's
//! `ftrace_cpu_has_data_loss`). Track events are lost with their packets
//! (`previous_packet_dropped`, trace_processor's
//! `traced_buf_sequence_packet_loss`).
//!
//! An end with nothing open is data loss only when such a report could
//! explain it: a gap that began before the end (a slice can last any time,
//! so any earlier gap could have swallowed its `B`; the latest one is
//! named), or, for either kind of slice, a writer's dropped packets earlier
//! in the file. Otherwise it is the capture's start.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use rustc_hash::FxHashMap;

use crate::model::{
    CpuStart, LossCause, LossGap, LostBegin, Process, Thread, TraceMeta, Track, TrackKind, Warning, WarningCode,
};
use crate::read::records::Batch;

/// Gaps named one warning each; the rest are summed in one more.
const GAPS_NAMED: usize = 8;
/// Threads named per warning.
const THREADS_NAMED: usize = 5;

/// The losses the ftrace data reports, and where each CPU's data starts.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct FtraceLoss {
    /// Sorted by `from`.
    pub(crate) gaps: Vec<LossGap>,
    /// Systrace text only, by CPU.
    pub(crate) cpu_starts: Vec<CpuStart>,
    /// Events the systrace notes of the gaps add up to.
    pub(crate) lost_events: u64,
}

/// The gaps of `batches` (systrace notes and Perfetto bundles) and each
/// CPU's start in a systrace capture. A gap with no later event on its CPU
/// ends at `trace_end`.
pub(crate) fn ftrace_loss(batches: &[Batch], trace_end: i64) -> FtraceLoss {
    let mut out = text_loss(batches, trace_end);
    out.gaps.extend(bundle_gaps(batches));
    out.gaps.sort_by_key(|g| (g.from, g.cpu));
    out
}

/// Systrace text: each note's edges are its CPU's events either side,
/// looked up in the neighbouring chunks where its own chunk lacks them. A
/// note before its CPU's first event is that CPU's wrapped start.
fn text_loss(batches: &[Batch], trace_end: i64) -> FtraceLoss {
    let mut notes: Vec<(usize, crate::read::records::LostNote)> = Vec::new();
    let mut last: FxHashMap<u32, i64> = FxHashMap::default();
    let mut starts: BTreeMap<u32, CpuStart> = BTreeMap::new();
    for (i, b) in batches.iter().enumerate() {
        for n in &b.lost_notes {
            let after = n.after.or_else(|| last.get(&n.cpu).copied());
            notes.push((i, crate::read::records::LostNote { after, ..*n }));
        }
        for s in &b.cpu_spans {
            let l = last.entry(s.cpu).or_insert(s.last);
            *l = (*l).max(s.last);
            let start = starts.entry(s.cpu).or_insert(CpuStart { cpu: s.cpu, ts: s.first, lost_before: 0 });
            start.ts = start.ts.min(s.first);
        }
    }
    // Each note without a later event of its CPU in its chunk takes the
    // first one of the chunks after it.
    let mut next_first: FxHashMap<u32, i64> = FxHashMap::default();
    let mut k = notes.len();
    for (i, b) in batches.iter().enumerate().rev() {
        while k > 0 && notes[k - 1].0 == i {
            k -= 1;
            let n = &mut notes[k].1;
            n.before = n.before.or_else(|| next_first.get(&n.cpu).copied());
        }
        for s in &b.cpu_spans {
            let f = next_first.entry(s.cpu).or_insert(s.first);
            *f = (*f).min(s.first);
        }
    }
    let mut out = FtraceLoss::default();
    for (_, n) in notes {
        match n.after {
            Some(from) => {
                out.gaps.push(LossGap { cpu: n.cpu, from, to: n.before.unwrap_or(trace_end), events: Some(n.events) });
                out.lost_events = out.lost_events.saturating_add(n.events);
            }
            None => {
                if let Some(s) = starts.get_mut(&n.cpu) {
                    s.lost_before = s.lost_before.saturating_add(n.events);
                }
            }
        }
    }
    out.cpu_starts = starts.into_values().collect();
    out
}

/// Perfetto: each bundle flagged `lost_events` lost events of its CPU after
/// the previous bundle's end (or, from writers without that field, the
/// previous bundle's first event) and before its own first event. A flag
/// on a CPU's first bundle without that field has no position: it is
/// counted (`ftrace_lost_event_bundles`) but no gap.
fn bundle_gaps(batches: &[Batch]) -> Vec<LossGap> {
    let mut bundles: Vec<_> = batches.iter().flat_map(|b| &b.bundles).collect();
    if !bundles.iter().any(|b| b.lost_events) {
        return Vec::new();
    }
    bundles.sort_by_key(|b| b.order);
    let mut previous_first: FxHashMap<u32, i64> = FxHashMap::default();
    let mut gaps = Vec::new();
    for b in bundles {
        let from = b.previous_bundle_end.or_else(|| previous_first.get(&b.cpu).copied());
        if let (true, Some(from)) = (b.lost_events, from) {
            gaps.push(LossGap { cpu: b.cpu, from, to: b.first_event_ts.unwrap_or(from).max(from), events: None });
        }
        if let Some(t) = b.first_event_ts {
            previous_first.insert(b.cpu, t);
        }
    }
    gaps
}

/// What can explain a slice end with nothing open.
pub(crate) struct Explain<'a> {
    /// Sorted by `from`.
    pub(crate) gaps: &'a [LossGap],
    /// File order of the first packet a writer flagged `previous_packet_dropped`.
    pub(crate) first_drop: Option<u64>,
}

impl Explain<'_> {
    /// The loss that could have taken the begin of an end at `ts`, `order`:
    /// the latest gap starting before it (ftrace slices only), else a packet
    /// drop earlier in the file; `None` for the capture's start.
    pub(crate) fn cause(&self, ts: i64, order: u64, from_ftrace: bool) -> Option<LossCause> {
        let before = if from_ftrace { self.gaps.partition_point(|g| g.from < ts) } else { 0 };
        if before > 0 {
            return Some(LossCause::Gap(before - 1));
        }
        self.first_drop.filter(|&d| d < order).map(|_| LossCause::PacketsDropped)
    }
}

/// The names warnings give threads.
pub(crate) struct Names<'a> {
    pub(crate) tracks: &'a [Track],
    pub(crate) threads: &'a [Thread],
    pub(crate) processes: &'a [Process],
}

impl Names<'_> {
    /// `name tid` of a thread track's thread, `process pid (async)` of a
    /// process track.
    fn of(&self, track: crate::model::TrackId) -> String {
        let name = |n: &Option<crate::model::Name>| n.as_deref().unwrap_or("?").to_string();
        match self.tracks.get(track.index()).map(|t| &t.kind) {
            Some(TrackKind::Thread { utid }) => match self.threads.get(utid.index()) {
                Some(t) => format!("{} {}", name(&t.name), t.tid),
                None => "?".into(),
            },
            Some(TrackKind::ProcessAsync { upid }) => match self.processes.get(upid.index()) {
                Some(p) => format!("{} {} (async)", name(&p.name), p.pid),
                None => "?".into(),
            },
            _ => "?".into(),
        }
    }

    /// "3 slice ends from 1.2 s to 1.3 s have no begin: A 1, B 2 and 1 more thread".
    fn ends(&self, meta: &TraceMeta, lost: &[&LostBegin]) -> String {
        let (Some(first), Some(last)) = (lost.iter().map(|l| l.ts).min(), lost.iter().map(|l| l.ts).max()) else {
            return String::new();
        };
        let mut who: Vec<String> = Vec::new();
        for l in lost {
            let n = self.of(l.track);
            if !who.contains(&n) {
                who.push(n);
            }
        }
        let more = who.len().saturating_sub(THREADS_NAMED);
        who.truncate(THREADS_NAMED);
        let mut s = format!(
            "; {} slice ends from {:.6} s to {:.6} s have no begin: {}",
            lost.len(),
            meta.secs_in(first),
            meta.secs_in(last),
            who.join(", ")
        );
        if more > 0 {
            let _ = write!(s, " and {more} more thread{}", if more == 1 { "" } else { "s" });
        }
        s
    }
}

/// One warning per kind of loss the trace reports (each gap named, with the
/// slice ends it explains), and the counters trace_processor grades as
/// information.
pub(crate) fn warnings(meta: &TraceMeta, names: &Names) -> Vec<Warning> {
    let dl = &meta.data_loss;
    let mut out = Vec::new();
    let by_gap =
        |i: usize| -> Vec<&LostBegin> { meta.lost_begins.iter().filter(|l| l.cause == LossCause::Gap(i)).collect() };
    for (i, g) in dl.gaps.iter().enumerate().take(GAPS_NAMED) {
        let (from, to) = (meta.secs_in(g.from), meta.secs_in(g.to));
        let mut m = match g.events {
            Some(n) => format!("CPU {} lost {n} events between {from:.6} s and {to:.6} s (`CPU:{} [LOST {n} EVENTS]`)", g.cpu, g.cpu),
            None => format!(
                "CPU {}'s ftrace buffer lost events between {from:.6} s and {to:.6} s (a bundle flagged lost_events: trace_processor's ftrace_cpu_has_data_loss)",
                g.cpu
            ),
        };
        m.push_str(&names.ends(meta, &by_gap(i)));
        out.push(Warning::new(WarningCode::FtraceOverrun, m));
    }
    if dl.gaps.len() > GAPS_NAMED {
        let rest = &dl.gaps[GAPS_NAMED..];
        let mut cpus: Vec<u32> = rest.iter().map(|g| g.cpu).collect();
        cpus.sort_unstable();
        cpus.dedup();
        let cpus: Vec<String> = cpus.iter().map(u32::to_string).collect();
        let to = rest.iter().map(|g| g.to).max().unwrap_or(rest[0].to);
        let mut m = format!(
            "{} more gaps in the ftrace data of CPUs {} between {:.6} s and {:.6} s",
            rest.len(),
            cpus.join(", "),
            meta.secs_in(rest[0].from),
            meta.secs_in(to)
        );
        let lost: Vec<&LostBegin> =
            meta.lost_begins.iter().filter(|l| matches!(l.cause, LossCause::Gap(i) if i >= GAPS_NAMED)).collect();
        m.push_str(&names.ends(meta, &lost));
        out.push(Warning::new(WarningCode::FtraceOverrun, m));
    }
    out.extend(hole_warnings(meta));
    let bundle_gaps = dl.gaps.iter().filter(|g| g.events.is_none()).count() as u64;
    if dl.ftrace_lost_event_bundles > bundle_gaps {
        let m = format!(
            "{} ftrace bundles flagged lost events where no position is known (trace_processor's ftrace_cpu_has_data_loss); slices may be missing",
            dl.ftrace_lost_event_bundles - bundle_gaps
        );
        out.push(Warning::new(WarningCode::FtraceOverrun, m));
    }
    if dl.packets_dropped_sequences > 0 {
        let mut m = format!(
            "{} times a writer reported that packets before it were lost (previous_packet_dropped; trace_processor's traced_buf_sequence_packet_loss)",
            dl.packets_dropped_sequences
        );
        let lost: Vec<&LostBegin> = meta.lost_begins.iter().filter(|l| l.cause == LossCause::PacketsDropped).collect();
        m.push_str(&names.ends(meta, &lost));
        out.push(Warning::new(WarningCode::PacketsDropped, m));
    }
    out.extend(stats_warnings(dl));
    if dl.chunks_discarded > 0 || dl.trace_buffer_overruns > 0 {
        out.push(Warning::new(
            WarningCode::TraceBufferLoss,
            format!(
                "the trace buffer discarded {} chunks once full and overwrote {} of its oldest (trace_processor's traced_buf_chunks_discarded and traced_buf_chunks_overwritten, information: the trace ends or starts early for those writers)",
                dl.chunks_discarded, dl.trace_buffer_overruns
            ),
        ));
    }
    if dl.ftrace_overrun > 0 {
        out.push(Warning::new(
            WarningCode::FtraceOverrunStats,
            format!(
                "the kernel's ftrace counters report {} events overwritten by the end (trace_processor's ftrace_cpu_overrun_end, information: losses between reads are the bundles flagged lost_events)",
                dl.ftrace_overrun
            ),
        ));
    }
    out
}

/// The data loss trace_processor's stats grade `data_loss` that the trace's
/// own counters report (docs/report.md, "Data loss and what is not").
fn stats_warnings(dl: &crate::model::DataLoss) -> Vec<Warning> {
    let mut out = Vec::new();
    if !dl.perf_lost_records.is_empty() {
        let total: u64 = dl.perf_lost_records.iter().map(|c| c.count).sum();
        let by_cpu: Vec<String> = dl.perf_lost_records.iter().map(|c| format!("CPU {} {}", c.cpu, c.count)).collect();
        out.push(Warning::new(
            WarningCode::PerfRecordsLost,
            format!(
                "the kernel's perf ring buffers lost {total} records ({}; trace_processor's perf_cpu_lost_records): perf samples are missing, and the trace does not say whose or when",
                by_cpu.join(", ")
            ),
        ));
    }
    let service = [
        ("traced_buf_patches_failed", dl.patches_failed),
        ("traced_buf_abi_violations", dl.abi_violations),
        ("traced_buf_trace_writer_packet_loss", dl.trace_writer_packet_loss),
        ("traced_flushes_failed", dl.flushes_failed),
        ("traced_final_flush_failed", dl.final_flush_failed),
    ];
    let reported: Vec<String> = service.iter().filter(|s| s.1 > 0).map(|(n, v)| format!("{n} {v}")).collect();
    if !reported.is_empty() {
        out.push(Warning::new(
            WarningCode::TracingServiceLoss,
            format!(
                "the tracing service reports data loss ({}): some writers' packets are missing",
                reported.join(", ")
            ),
        ));
    }
    out
}

/// One warning per capture hole (the first [`GAPS_NAMED`]; the rest summed
/// in one more).
fn hole_warnings(meta: &TraceMeta) -> Vec<Warning> {
    let holes = &meta.data_loss.holes;
    let ms = |ns: i64| ns as f64 / 1e6;
    let mut out: Vec<Warning> = holes
        .iter()
        .take(GAPS_NAMED)
        .map(|h| {
            let m = format!(
                "no CPU recorded any event between {:.6} s and {:.6} s ({:.1} ms, over the {:.1} ms a hole must exceed in this trace): a hole in the capture; frames over it are flagged data_loss and their critical paths say no data",
                meta.secs_in(h.from),
                meta.secs_in(h.to),
                ms(h.to - h.from),
                ms(h.threshold)
            );
            Warning::new(WarningCode::CaptureHole, m)
        })
        .collect();
    if let (Some(first), Some(last)) = (holes.get(GAPS_NAMED), holes.last()) {
        let m = format!(
            "{} more holes in the capture (no CPU recorded any event) between {:.6} s and {:.6} s",
            holes.len() - GAPS_NAMED,
            meta.secs_in(first.from),
            meta.secs_in(last.to)
        );
        out.push(Warning::new(WarningCode::CaptureHole, m));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::records::{BundleInfo, CpuSpan, LostNote};

    fn span(cpu: u32, first: i64, last: i64) -> CpuSpan {
        CpuSpan { cpu, first, last }
    }
    fn note(cpu: u32, events: u64, after: Option<i64>, before: Option<i64>) -> LostNote {
        LostNote { cpu, events, after, before }
    }

    #[test]
    fn a_notes_edges_come_from_the_neighbouring_chunks() {
        // CPU 1: 10..50 in chunk 0, 70..90 in chunk 2. The note in chunk 1
        // has neither edge there: 50 before it, 70 after it. CPU 2's note
        // precedes its first event (chunk 2): its wrapped start.
        let a = Batch { cpu_spans: vec![span(1, 10, 50), span(0, 5, 60)], ..Default::default() };
        let b = Batch {
            cpu_spans: vec![span(0, 61, 65)],
            lost_notes: vec![note(1, 7, None, None), note(2, 40, None, None)],
            ..Default::default()
        };
        let c = Batch { cpu_spans: vec![span(1, 70, 90), span(2, 80, 95)], ..Default::default() };
        let got = ftrace_loss(&[a, b, c], 100);
        let want = FtraceLoss {
            gaps: vec![LossGap { cpu: 1, from: 50, to: 70, events: Some(7) }],
            cpu_starts: vec![
                CpuStart { cpu: 0, ts: 5, lost_before: 0 },
                CpuStart { cpu: 1, ts: 10, lost_before: 0 },
                CpuStart { cpu: 2, ts: 80, lost_before: 40 },
            ],
            lost_events: 7,
        };
        assert_eq!(got, want);
        // A note with no later event of its CPU: the gap runs to the trace end.
        let d =
            Batch { cpu_spans: vec![span(3, 1, 2)], lost_notes: vec![note(3, 1, Some(2), None)], ..Default::default() };
        assert_eq!(ftrace_loss(&[d], 100).gaps, [LossGap { cpu: 3, from: 2, to: 100, events: Some(1) }]);
    }

    #[test]
    fn a_flagged_bundle_lost_events_since_the_previous_one() {
        let bundle = |cpu, order, previous_bundle_end, first, lost_events| BundleInfo {
            cpu,
            order,
            previous_bundle_end,
            first_event_ts: Some(first),
            lost_events,
        };
        let a = Batch {
            bundles: vec![
                bundle(0, 1, Some(5), 10, false),
                bundle(1, 2, None, 12, true),
                bundle(0, 3, Some(30), 40, true),
            ],
            ..Default::default()
        };
        let b = Batch { bundles: vec![bundle(1, 4, None, 50, true)], ..Default::default() };
        // CPU 0: after the previous bundle's end (30). CPU 1's first flag has
        // no position; its second takes the previous bundle's first event.
        let want =
            [LossGap { cpu: 1, from: 12, to: 50, events: None }, LossGap { cpu: 0, from: 30, to: 40, events: None }];
        let mut got = ftrace_loss(&[a, b], 100).gaps;
        got.sort_by_key(|g| g.cpu);
        assert_eq!(got, [want[1], want[0]]);
    }

    #[test]
    fn the_latest_gap_before_an_end_explains_it() {
        let gaps = [
            LossGap { cpu: 0, from: 10, to: 20, events: Some(1) },
            LossGap { cpu: 1, from: 30, to: 35, events: Some(2) },
        ];
        let e = Explain { gaps: &gaps, first_drop: Some(100) };
        assert_eq!(e.cause(10, 1, true), None, "a gap starting at the end cannot hold its begin");
        assert_eq!(e.cause(11, 1, true), Some(LossCause::Gap(0)));
        assert_eq!(e.cause(31, 1, true), Some(LossCause::Gap(1)));
        // Track events are not in the ftrace gaps; a drop earlier in the file explains them.
        assert_eq!(e.cause(31, 100, false), None);
        assert_eq!(e.cause(31, 101, false), Some(LossCause::PacketsDropped));
        assert_eq!(e.cause(5, 101, true), Some(LossCause::PacketsDropped));
    }
}
