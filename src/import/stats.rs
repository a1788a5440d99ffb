//! What the trace says about itself (trace_processor's stats): packet and
//! event counts, the data sources found, damage met while decoding, dropped
//! packets and where each CPU's ftrace data becomes complete (the gaps and
//! their warnings are `loss`'s).

use std::collections::HashMap;

use crate::model::{CpuCount, DataSource, TraceMeta, Warning, WarningCode};
use crate::read::records::{Batch, MAX_NAME_BYTES};

/// Data sources in the order they were first found (the order `info` lists).
#[derive(Debug, Default)]
pub(crate) struct Sources(Vec<DataSource>);

impl Sources {
    pub(crate) fn add(&mut self, s: DataSource) {
        if !self.0.contains(&s) {
            self.0.push(s)
        }
    }
    pub(crate) fn finish(self) -> Vec<DataSource> {
        self.0
    }
}

/// Sum the batches' counters into `meta`, note the data sources they show,
/// and warn about names cut and packets skipped.
pub(crate) fn tally(batches: &[Batch], meta: &mut TraceMeta, sources: &mut Sources) {
    let mut malformed_packets = 0u64;
    let mut names_truncated = 0u64;
    let mut errors: Vec<String> = Vec::new();
    for b in batches {
        names_truncated += b.names_truncated;
        meta.packets += b.packets;
        meta.compressed_batches += b.compressed_batches;
        meta.ftrace_events += b.ftrace_events;
        meta.sched_events += b.sched_events;
        meta.atrace_malformed += b.atrace_malformed;
        meta.data_loss.ftrace_lost_event_bundles += b.bundles.iter().filter(|x| x.lost_events).count() as u64;
        malformed_packets += b.malformed_packets;
        for e in &b.errors {
            if errors.len() < 8 && !errors.contains(e) {
                errors.push(e.clone());
            }
        }
        for &c in &b.clocks_seen {
            if !meta.clocks.contains(&c) {
                meta.clocks.push(c);
            }
        }
        note_sources(b, sources);
        if let Some(t) = b.min_ts {
            meta.see_ts(t);
        }
        if let Some(t) = b.max_ts {
            meta.see_ts(t);
        }
    }
    meta.data_loss.packets_dropped_sequences = dropped_packets(batches).len() as u64;
    meta.data_loss.perf_lost_records = perf_lost_records(batches);
    if names_truncated > 0 {
        let message = format!("{names_truncated} names longer than {MAX_NAME_BYTES} bytes were cut to that length");
        meta.warnings.push(Warning::new(WarningCode::NamesTruncated, message));
    }
    if malformed_packets > 0 {
        let message = format!("{malformed_packets} malformed packets or events were skipped: {}", errors.join("; "));
        meta.warnings.push(Warning::new(WarningCode::MalformedRecords, message));
    }
}

fn note_sources(b: &Batch, sources: &mut Sources) {
    if b.ftrace_events > 0 || b.compact_sched {
        sources.add(DataSource::Ftrace);
    }
    if b.sched_events > 0 {
        sources.add(DataSource::Sched);
    }
    if b.compact_sched {
        sources.add(DataSource::CompactSched);
    }
    if !b.atrace.is_empty() {
        sources.add(DataSource::Atrace);
    }
    if !b.timeline.is_empty() {
        sources.add(DataSource::FrameTimeline);
    }
}

/// The records each CPU's perf ring buffer lost, summed over the perf
/// samples that report them, by CPU (trace_processor's `perf_cpu_lost_records`).
fn perf_lost_records(batches: &[Batch]) -> Vec<CpuCount> {
    let mut by_cpu: std::collections::BTreeMap<u32, u64> = Default::default();
    for &(cpu, n) in batches.iter().flat_map(|b| &b.perf_lost) {
        let c = by_cpu.entry(cpu).or_default();
        *c = c.saturating_add(n);
    }
    by_cpu.into_iter().map(|(cpu, count)| CpuCount { cpu, count }).collect()
}

/// The file orders of the packets flagged `previous_packet_dropped`, except
/// on each sequence's first packet (a writer sets it there after any
/// restart, nothing was lost).
pub(crate) fn dropped_packets(batches: &[Batch]) -> Vec<u64> {
    let mut sequence_first: HashMap<u32, u64> = HashMap::new();
    for b in batches {
        for (&seq, &o) in &b.sequence_first {
            let e = sequence_first.entry(seq).or_insert(o);
            *e = (*e).min(o);
        }
    }
    let real =
        batches.iter().flat_map(|b| &b.dropped_at).filter(|(seq, o)| sequence_first.get(seq).is_some_and(|f| o > f));
    real.map(|&(_, o)| o).collect()
}

/// The latest `previous_bundle_end` over the CPUs' first bundles: before it,
/// some CPU's ring buffer had already overwritten events, so ftrace data is
/// only complete from there on (trace_processor's crop of ftrace data).
pub(crate) fn ftrace_complete_from(batches: &[Batch]) -> Option<i64> {
    let mut first_bundle: HashMap<u32, (u64, Option<i64>)> = HashMap::new();
    for b in batches {
        for bi in &b.bundles {
            let e = first_bundle.entry(bi.cpu).or_insert((bi.order, bi.previous_bundle_end));
            if bi.order < e.0 {
                *e = (bi.order, bi.previous_bundle_end);
            }
        }
    }
    first_bundle.values().filter_map(|v| v.1).max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::records::BundleInfo;

    fn bundle(cpu: u32, order: u64, previous_bundle_end: Option<i64>) -> BundleInfo {
        BundleInfo { cpu, order, previous_bundle_end, first_event_ts: None, lost_events: false }
    }

    #[test]
    fn ftrace_is_complete_from_the_latest_first_bundle_end() {
        let a = Batch {
            bundles: vec![bundle(0, 5, Some(100)), bundle(1, 2, Some(300)), bundle(1, 9, Some(900))],
            ..Default::default()
        };
        let b = Batch { bundles: vec![bundle(0, 1, Some(50))], ..Default::default() };
        // CPU 0's first bundle is order 1 (end 50), CPU 1's is order 2 (end 300).
        assert_eq!(ftrace_complete_from(&[a, b]), Some(300));
        assert_eq!(ftrace_complete_from(&[]), None);
    }

    #[test]
    fn a_sequences_first_packet_flagged_dropped_is_not_loss() {
        let mut a = Batch { dropped_at: vec![(1, 10), (1, 20)], ..Default::default() };
        a.sequence_first.insert(1, 10);
        let mut b = Batch { dropped_at: vec![(2, 30), (3, 40)], ..Default::default() };
        b.sequence_first.insert(2, 30);
        // (1,10) and (2,30) open their sequences; (3,40) has no known first.
        assert_eq!(dropped_packets(&[a, b]), [20]);
    }

    #[test]
    fn tally_sums_counts_and_names_sources_in_order() {
        let a = Batch {
            packets: 3,
            ftrace_events: 2,
            malformed_packets: 1,
            errors: vec!["bad varint".into()],
            min_ts: Some(5),
            max_ts: Some(9),
            ..Default::default()
        };
        let b = Batch { packets: 4, compact_sched: true, sched_events: 7, ..Default::default() };
        let (mut meta, mut sources) = (TraceMeta::default(), Sources::default());
        tally(&[a, b], &mut meta, &mut sources);
        assert_eq!((meta.packets, meta.ftrace_events, meta.sched_events), (7, 2, 7));
        assert_eq!((meta.first_ts, meta.last_ts), (Some(5), Some(9)));
        assert_eq!(sources.finish(), [DataSource::Ftrace, DataSource::Sched, DataSource::CompactSched]);
        assert_eq!(
            meta.warnings,
            [Warning::new(WarningCode::MalformedRecords, "1 malformed packets or events were skipped: bad varint")]
        );
    }
}
