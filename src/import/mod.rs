//! Records → model: the stage between the reader and the model, modelled on
//! trace_processor's sorter and trackers. It owns ordering (every slice and
//! counter operation sorted by (timestamp, file order)), clock conversion to
//! trace time, and one tracker per concern: process/thread identity
//! (`identity`), tracks (`tracks`), slices with their stacks and depth limit
//! (`slices`), counters (`counters`), the FrameTimeline (`timeline`),
//! counts and data sources (`stats`), where the trace lost data and
//! what an end with nothing open means (`loss`), and the capture's holes
//! (`holes`). Atrace records and track
//! events become operations in `atrace` and `track_event`; the long-tail
//! packets (clocks, process tree, descriptors) are replayed per sequence in
//! `packets`. [`import`] only wires these steps, in the order their data
//! depends on each other.

mod atrace;
mod clock;
mod counters;
mod holes;
mod identity;
mod loss;
mod packets;
mod slices;
mod stats;
mod timeline;
mod track_event;
mod tracks;

pub use slices::MAX_SLICE_DEPTH;

use crate::model::{SchedEvent, Trace, TraceMeta, Warning, WarningCode};
use crate::read::records::SchedRecord;
use crate::read::Decoded;

/// Build the model from everything the reader decoded.
pub fn import(decoded: Decoded) -> Trace {
    let Decoded { mut batches, source } = decoded;
    let mut meta = TraceMeta {
        path: source.path,
        file_size: source.file_size,
        container: source.container,
        warnings: source.warnings,
        capture: source.capture,
        ..Default::default()
    };
    meta.data_loss.truncated_bytes = source.truncated_bytes;
    let mut sources = stats::Sources::default();
    stats::tally(&batches, &mut meta, &mut sources);
    meta.data_loss.holes = holes::holes(&batches, meta.sched_events > 0);

    let mut id = identity::Identity::default();
    let mut tracks = tracks::Tracks::default();
    let packets::Replay {
        mut clocks,
        descriptors,
        track_events,
        track_event_counters,
        tracing_started,
        boottime_bounds,
        packet_times,
    } = packets::replay(&mut batches, &mut id, &mut meta, &mut sources);
    if let Some((first, last)) = boottime_bounds {
        meta.see_ts(first);
        meta.see_ts(last);
    }
    for (t, c, s) in packet_times {
        if let Some(ts) = clocks.boottime_of(c, s, t) {
            meta.see_ts(ts);
        }
    }
    // Ftrace data counts from the later of tracing_started and the point
    // where every CPU's buffer is complete.
    meta.tracing_started_ts = tracing_started.and_then(|(t, c, s)| clocks.boottime_of(c, s, t));
    let valid_from = match (stats::ftrace_complete_from(&batches), meta.tracing_started_ts) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    let ftrace_loss = loss::ftrace_loss(&batches, meta.last_ts.unwrap_or(0));
    let drops = stats::dropped_packets(&batches);
    meta.data_loss.ftrace_lost_events = ftrace_loss.lost_events;
    // Every CPU's data has started by the latest CPU's first event (a
    // systrace capture) or where Perfetto's ftrace data is valid.
    meta.complete_from = valid_from.or(ftrace_loss.cpu_starts.iter().map(|c| c.ts).max());
    meta.cpu_starts = ftrace_loss.cpu_starts;

    let mut ops = atrace::Ops::default();
    atrace::ops(&mut batches, valid_from, &mut id, &mut tracks, &mut meta, &mut ops);
    // Atrace's slice operations are sorted on one core while the track
    // events become operations on the other.
    let atrace_slices = std::mem::take(&mut ops.slices);
    let (atrace_slices, ()) = rayon::join(
        || slices::SortedOps::sort(atrace_slices),
        || {
            track_event::TrackEventImporter {
                descriptors: &descriptors,
                first_names: Default::default(),
                clocks: &mut clocks,
                id: &mut id,
                tracks: &mut tracks,
            }
            .run(&mut batches, track_events, track_event_counters, &mut meta, &mut ops)
        },
    );
    // The slice tracker touches nothing the rest reads: it runs beside the
    // counters, kernel names and FrameTimeline (its data-loss count and
    // warning are merged back where the sequential order had them).
    let warnings_before = meta.warnings.len();
    let mut unmatched = slices::Unmatched::default();
    let explain = loss::Explain { gaps: &ftrace_loss.gaps, first_drop: drops.iter().min().copied() };
    let ((slices, too_deep), (counters, frame_timeline)) = rayon::join(
        || slices::build([atrace_slices, slices::SortedOps::sort(ops.slices)], &explain, &mut unmatched),
        || {
            let counters = counters::build(ops.counters);
            id.name_from_kernel(&batches);
            (counters, timeline::build(&batches, &mut id, &mut meta, &mut clocks))
        },
    );
    meta.data_loss.gaps = ftrace_loss.gaps;
    meta.data_loss.unmatched_ends += unmatched.lost.len() as u64;
    meta.lost_begins = unmatched.lost;
    meta.cut_at_start += unmatched.cut_at_start;
    if too_deep > 0 {
        let message = format!(
            "{too_deep} slices nested deeper than {MAX_SLICE_DEPTH} levels on one thread or track were dropped (unmatched B events?)"
        );
        meta.warnings.insert(warnings_before, Warning::new(WarningCode::SlicesTooDeep, message));
    }
    if clocks.unconvertible > 0 {
        let message = format!(
            "{} timestamps were in a clock no clock snapshot relates to BOOTTIME and were skipped",
            clocks.unconvertible
        );
        meta.warnings.push(Warning::new(WarningCode::ClockUnconvertible, message));
    }
    for s in &frame_timeline {
        meta.see_ts(s.ts);
        meta.see_ts(if s.dur >= 0 { s.ts + s.dur } else { s.ts });
    }

    let (processes, threads) = id.finish();
    let tracks = tracks.finish();
    meta.data_sources = sources.finish();
    let names = loss::Names { tracks: &tracks, threads: &threads, processes: &processes };
    let loss_warnings = loss::warnings(&meta, &names);
    meta.warnings.extend(loss_warnings);
    Trace {
        meta,
        processes,
        threads,
        tracks,
        slices,
        counters,
        frame_timeline,
        sched: Vec::new(),
        by_track: Default::default(),
    }
}

/// The scheduler pass's records (one vector per thread) as model events.
pub fn sched_events(threads: Vec<Vec<SchedRecord>>) -> Vec<Vec<SchedEvent>> {
    let event = |r| match r {
        SchedRecord::SwitchIn { ts, tid, cpu } => SchedEvent::SwitchIn { ts, tid, cpu },
        SchedRecord::SwitchOut { ts, tid, cpu, prev_state } => SchedEvent::SwitchOut { ts, tid, cpu, prev_state },
        SchedRecord::Waking { ts, tid, waker } => SchedEvent::Waking { ts, tid, waker },
    };
    threads.into_iter().map(|records| records.into_iter().map(event).collect()).collect()
}
