//! Decodes built traces with the official Perfetto schema (`perfetto_protos`,
//! rust-protobuf) and checks exact field values, so the builder is verified
//! against a second, independent implementation of the wire format.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;

use perfetto_protos::trace::Trace;
use perfetto_protos::trace_packet::TracePacket;
use protobuf::{Enum, Message};

use super::encode::{field, thread_track_uuid};
use super::scenarios::{self, DemoJank};
use super::*;

fn parse(bytes: &[u8]) -> Trace {
    Trace::parse_from_bytes(bytes).expect("official schema parses the trace")
}

/// All packets, with compressed batches (fields 50 and 133) expanded in place.
fn packets(bytes: &[u8]) -> Vec<TracePacket> {
    let mut out = Vec::new();
    for p in parse(bytes).packet {
        if p.has_compressed_packets() {
            let mut raw = Vec::new();
            flate2::read::ZlibDecoder::new(p.compressed_packets()).read_to_end(&mut raw).expect("zlib");
            out.extend(packets(&raw));
        } else if let Some(protobuf::UnknownValueRef::LengthDelimited(z)) =
            p.special_fields.unknown_fields().get(field::PKT_ZSTD_COMPRESSED_PACKETS)
        {
            let raw = zstd::stream::decode_all(z).expect("zstd");
            out.extend(packets(&raw));
        } else {
            out.push(p);
        }
    }
    out
}

/// (ts, cpu, common pid, print buf) of every print event, in file order.
fn prints(ps: &[TracePacket]) -> Vec<(u64, u32, u32, String)> {
    let mut v = Vec::new();
    for p in ps.iter().filter(|p| p.has_ftrace_events()) {
        let b = p.ftrace_events();
        for e in b.event.iter().filter(|e| e.has_print()) {
            v.push((e.timestamp(), b.cpu(), e.pid(), e.print().buf().to_owned()));
        }
    }
    v
}

#[test]
fn atrace_prints_have_exact_payloads_cpu_and_pid() {
    let mut b = TraceBuilder::new();
    b.atrace_begin(1_000, 4242, 4242, "Choreographer#doFrame 123");
    b.atrace_end(2_000, 4242, 4242);
    b.atrace_counter(1_500, 612, 600, "VSYNC-app", 1);
    b.atrace_counter(1_600, 612, 600, "neg", -5);
    b.atrace_async_begin(1_100, 4243, 4242, "launching: x", 7);
    b.atrace_async_end(1_900, 4243, 4242, "launching: x", 7);
    b.atrace_raw(1_200, 4244, "I|4242|marker");
    b.slice(3_000, 500, 4245, 4242, "draw");
    let ps = packets(&b.build(&BuildOptions::default()));
    let mut got = prints(&ps);
    got.sort();
    let want = vec![
        (1_000, 2, 4242, "B|4242|Choreographer#doFrame 123\n".to_owned()),
        (1_100, 3, 4243, "S|4242|launching: x|7\n".to_owned()),
        (1_200, 0, 4244, "I|4242|marker".to_owned()),
        (1_500, 0, 612, "C|600|VSYNC-app|1\n".to_owned()),
        (1_600, 0, 612, "C|600|neg|-5\n".to_owned()),
        (1_900, 3, 4243, "F|4242|launching: x|7\n".to_owned()),
        (2_000, 2, 4242, "E|4242\n".to_owned()),
        (3_000, 1, 4245, "B|4242|draw\n".to_owned()),
        (3_500, 1, 4245, "E|4242\n".to_owned()),
    ];
    assert_eq!(got, want);
    // Default: one producer sequence (1), ftrace of CPU c on sequence 2 + c.
    for p in ps.iter().filter(|p| p.has_ftrace_events()) {
        assert_eq!(p.trusted_packet_sequence_id(), 2 + p.ftrace_events().cpu());
        assert!(!p.has_timestamp(), "ftrace bundles carry per-event timestamps only");
    }
}

#[test]
fn sched_switch_and_waking_fields() {
    let mut b = TraceBuilder::new();
    b.sched_switch(100, 3, 0, "swapper/3", 0, 4242, ".example.scroll");
    b.sched_waking(150, 3, 4260, "RenderThread", 1);
    b.sched_waking(50, 3, 77, "kworker/3:0", 3); // before any switch: waker unknown
    b.sched_switch(200, 3, 4242, ".example.scroll", 1, 0, "swapper/3");
    b.task_rename(300, 4281, "Thread-2", "bg-decoder");
    let ps = packets(&b.build(&BuildOptions::default()));
    let mut sw = Vec::new();
    let mut wk = Vec::new();
    let mut rn = Vec::new();
    for p in ps.iter().filter(|p| p.has_ftrace_events()) {
        let bu = p.ftrace_events();
        assert!(bu.compact_sched.is_none());
        for e in &bu.event {
            if e.has_sched_switch() {
                let s = e.sched_switch();
                sw.push((
                    e.timestamp(),
                    bu.cpu(),
                    e.pid(),
                    s.prev_comm().to_owned(),
                    s.prev_pid(),
                    s.prev_prio(),
                    s.prev_state(),
                    s.next_comm().to_owned(),
                    s.next_pid(),
                    s.next_prio(),
                ));
            } else if e.has_sched_waking() {
                let w = e.sched_waking();
                wk.push((
                    e.timestamp(),
                    bu.cpu(),
                    e.pid(),
                    w.comm().to_owned(),
                    w.pid(),
                    w.prio(),
                    w.success(),
                    w.target_cpu(),
                ));
            } else if e.has_task_rename() {
                let r = e.task_rename();
                rn.push((e.timestamp(), bu.cpu(), e.pid(), r.pid(), r.oldcomm().to_owned(), r.newcomm().to_owned()));
            }
        }
    }
    assert_eq!(
        sw,
        vec![
            (100, 3, 0, "swapper/3".into(), 0, 120, 0, ".example.scroll".into(), 4242, 120),
            (200, 3, 4242, ".example.scroll".into(), 4242, 120, 1, "swapper/3".into(), 0, 120),
        ]
    );
    assert_eq!(
        wk,
        vec![(50, 3, 0, "kworker/3:0".into(), 77, 120, 1, 3), (150, 3, 4242, "RenderThread".into(), 4260, 120, 1, 1),]
    );
    // 4281 % 4 == 1
    assert_eq!(rn, vec![(300, 1, 4281, 4281, "Thread-2".into(), "bg-decoder".into())]);
}

#[test]
fn compact_sched_columns_decode_to_the_events() {
    let mut b = TraceBuilder::new();
    b.sched_switch(1_000, 0, 0, "swapper/0", 0, 10, "a");
    b.sched_waking(1_200, 0, 11, "b", 2);
    b.sched_switch(1_500, 0, 10, "a", 1, 11, "b");
    b.sched_switch(2_250, 0, 11, "b", 2, 10, "a");
    b.sched_waking(2_300, 0, 10, "a", 0);
    b.atrace_begin(1_700, 4, 4, "x"); // 4 % 4 == 0: a print in the same bundle
    let opts = BuildOptions { compact_sched: true, ..BuildOptions::default() };
    let ps = packets(&b.build(&opts));
    let bundles: Vec<_> = ps.iter().filter(|p| p.has_ftrace_events()).map(|p| p.ftrace_events()).collect();
    assert_eq!(bundles.len(), 1);
    let bu = bundles[0];
    assert_eq!(bu.event.len(), 1, "only the print stays a full event");
    assert_eq!(bu.event[0].print().buf(), "B|4|x\n");
    let cs = bu.compact_sched.get_or_default();
    let abs = |d: &[u64]| {
        d.iter()
            .scan(0u64, |acc, x| {
                *acc += x;
                Some(*acc)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(cs.switch_timestamp, vec![1_000, 500, 750]);
    assert_eq!(abs(&cs.switch_timestamp), vec![1_000, 1_500, 2_250]);
    assert_eq!(cs.switch_prev_state, vec![0, 1, 2]);
    assert_eq!(cs.switch_next_pid, vec![10, 11, 10]);
    assert_eq!(cs.switch_next_prio, vec![120, 120, 120]);
    let comm = |i: &u32| cs.intern_table[*i as usize].clone();
    assert_eq!(cs.switch_next_comm_index.iter().map(comm).collect::<Vec<_>>(), ["a", "b", "a"]);
    assert_eq!(abs(&cs.waking_timestamp), vec![1_200, 2_300]);
    assert_eq!(cs.waking_pid, vec![11, 10]);
    assert_eq!(cs.waking_target_cpu, vec![2, 0]);
    assert_eq!(cs.waking_prio, vec![120, 120]);
    assert_eq!(cs.waking_comm_index.iter().map(comm).collect::<Vec<_>>(), ["b", "a"]);
    assert_eq!(cs.waking_common_flags, vec![1, 1]);
    assert_eq!(cs.intern_table, vec!["a".to_owned(), "b".to_owned()]);
}

#[test]
fn per_cpu_bundles_are_interleaved_not_globally_sorted() {
    let mut b = TraceBuilder::new();
    // CPU 0 busy (every 10 ns), CPU 1 sparse (every 100 ns).
    for i in 0..100 {
        b.atrace_begin(i * 10, 4, 4, "busy");
    }
    for i in 0..20 {
        b.atrace_begin(i * 100 + 5, 5, 5, "sparse");
    }
    let opts = BuildOptions { events_per_bundle: 8, ..BuildOptions::default() };
    let ps = packets(&b.build(&opts));
    let all = prints(&ps);
    assert_eq!(all.len(), 120);
    let ts: Vec<u64> = all.iter().map(|e| e.0).collect();
    assert!(ts.windows(2).any(|w| w[1] < w[0]), "file order must not be global time order");
    let mut per_cpu: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for (t, cpu, _, _) in &all {
        per_cpu.entry(*cpu).or_default().push(*t);
    }
    assert_eq!(per_cpu.keys().copied().collect::<Vec<_>>(), [0, 1]);
    for v in per_cpu.values() {
        assert!(v.windows(2).all(|w| w[0] <= w[1]), "each CPU stays ordered");
    }
    let sizes: Vec<usize> =
        ps.iter().filter(|p| p.has_ftrace_events()).map(|p| p.ftrace_events().event.len()).collect();
    assert!(sizes.iter().all(|&n| n <= 8));
    // 100/8 -> 13 bundles, 20/8 -> 3 bundles.
    assert_eq!(sizes.len(), 16);
    // The CPU switches between consecutive bundles at least once in the middle.
    let cpus: Vec<u32> = ps.iter().filter(|p| p.has_ftrace_events()).map(|p| p.ftrace_events().cpu()).collect();
    assert!(cpus.windows(2).filter(|w| w[0] != w[1]).count() >= 3);
}

#[test]
fn frame_timeline_packets() {
    use perfetto_protos::frame_timeline_event::frame_timeline_event::{PredictionType, PresentType};
    let mut b = TraceBuilder::new();
    b.expected_surface_frame(1_000, Some(17_000), 42, 43, 4242, "layer#0");
    b.actual_surface_frame(
        1_500,
        Some(20_000),
        ActualFrame {
            token: 42,
            display_frame_token: 45,
            pid: 4242,
            layer: "layer#0".into(),
            present_type: 2,
            on_time_finish: false,
            gpu_composition: true,
            jank_type: 64 | 128,
            prediction_type: 1,
            ..Default::default()
        },
    );
    b.expected_display_frame(17_000, None, 45, 600);
    b.actual_display_frame(
        17_100,
        Some(21_000),
        ActualFrame {
            token: 45,
            pid: 600,
            present_type: 1,
            on_time_finish: true,
            jank_type: 1,
            prediction_type: 2,
            ..Default::default()
        },
    );
    let ps = packets(&b.build(&BuildOptions::default()));
    let ft: Vec<_> = ps.iter().filter(|p| p.has_frame_timeline_event()).collect();
    assert_eq!(ft.len(), 7);
    assert!(ft.iter().all(|p| p.trusted_packet_sequence_id() == 1));
    let ts: Vec<u64> = ft.iter().map(|p| p.timestamp()).collect();
    assert_eq!(ts, [1_000, 17_000, 1_500, 20_000, 17_000, 17_100, 21_000], "call order, as SurfaceFlinger writes");

    let e = ft[0].frame_timeline_event().expected_surface_frame_start();
    assert_eq!((e.cookie(), e.token(), e.display_frame_token(), e.pid(), e.layer_name()), (1, 42, 43, 4242, "layer#0"));
    assert_eq!(ft[1].frame_timeline_event().frame_end().cookie(), 1);
    let a = ft[2].frame_timeline_event().actual_surface_frame_start();
    assert_eq!((a.cookie(), a.token(), a.display_frame_token(), a.pid(), a.layer_name()), (2, 42, 45, 4242, "layer#0"));
    assert_eq!(a.present_type(), PresentType::PRESENT_LATE);
    assert!(!a.on_time_finish() && a.has_on_time_finish());
    assert!(a.gpu_composition());
    assert_eq!(a.jank_type(), 192);
    assert_eq!(a.prediction_type(), PredictionType::PREDICTION_VALID);
    assert_eq!(ft[3].frame_timeline_event().frame_end().cookie(), 2);
    let d = ft[4].frame_timeline_event().expected_display_frame_start();
    assert_eq!((d.cookie(), d.token(), d.pid()), (3, 45, 600));
    let ad = ft[5].frame_timeline_event().actual_display_frame_start();
    assert_eq!((ad.cookie(), ad.token(), ad.pid(), ad.jank_type()), (4, 45, 600, 1));
    assert_eq!(ad.present_type().value(), 1);
    assert_eq!(ad.prediction_type(), PredictionType::PREDICTION_EXPIRED);
    assert!(ad.on_time_finish() && !ad.gpu_composition());
    assert_eq!(ft[6].frame_timeline_event().frame_end().cookie(), 4);
}

fn sample_builder() -> TraceBuilder {
    let mut b = TraceBuilder::new();
    b.process(4242, "com.example.scroll").thread(4242, 4242, ".example.scroll").thread(4260, 4242, "RenderThread");
    for i in 0..400i64 {
        let t = 10_000 + i * 1_000;
        b.slice(t, 500, 4242 + (i % 3) as i32, 4242, &format!("s{}", i % 7));
        b.sched_switch(t + 7, (i % 4) as u32, 0, "swapper", 0, 4242, ".example.scroll");
        b.sched_waking(t + 9, (i % 4) as u32, 4260, "RenderThread", 1);
        if i % 10 == 0 {
            b.expected_surface_frame(t, Some(t + 800), i, i + 1, 4242, "L#0");
            b.track_event_slice(t, 300, 4242, 4260, &format!("te{}", i % 4));
        }
    }
    b
}

#[test]
fn zlib_and_zstd_batches_decompress_to_the_plain_trace() {
    let b = sample_builder();
    let plain = b.build(&BuildOptions::default());
    for (c, field_no) in [(Compression::Zlib, 50u32), (Compression::Zstd, 133u32)] {
        let bytes = b.build(&BuildOptions { compression: c, ..BuildOptions::default() });
        let outer = parse(&bytes).packet;
        assert!(outer.len() > 2, "several batches");
        let mut joined = Vec::new();
        for p in &outer {
            // Wrapper packets hold nothing but the compressed bytes.
            let mut raw = Vec::new();
            if field_no == 50 {
                assert!(p.has_compressed_packets());
                flate2::read::ZlibDecoder::new(p.compressed_packets()).read_to_end(&mut raw).expect("zlib");
            } else {
                assert!(!p.has_compressed_packets());
                let Some(protobuf::UnknownValueRef::LengthDelimited(z)) = p.special_fields.unknown_fields().get(133)
                else {
                    panic!("field 133 missing")
                };
                raw = zstd::stream::decode_all(z).expect("zstd");
            }
            assert!(!p.has_timestamp() && !p.has_trusted_packet_sequence_id() && !p.has_ftrace_events());
            let inner = parse(&raw);
            assert!(inner.packet.len() <= 64);
            joined.extend_from_slice(&raw);
        }
        assert_eq!(joined, plain, "compression only wraps the same packets ({c:?})");
    }
}

#[test]
fn prelude_process_tree_clock_snapshot_service_event_system_info() {
    let mut b = TraceBuilder::new();
    b.process(600, "/system/bin/surfaceflinger").thread(612, 600, "app");
    b.system_info("fp/1", 34);
    b.atrace_begin(5_000, 612, 600, "x");
    b.expected_display_frame(4_000, None, 9, 600);
    let opts = BuildOptions { tracing_started: Some(3_000), ..BuildOptions::default() };
    let ps = packets(&b.build(&opts));
    assert!(ps[0].has_process_tree());
    assert_eq!(ps[0].timestamp(), 3_000, "min of events and tracing_started");
    let pt = ps[0].process_tree();
    assert_eq!(pt.processes.len(), 1);
    assert_eq!(
        (pt.processes[0].pid(), pt.processes[0].cmdline.clone()),
        (600, vec!["/system/bin/surfaceflinger".to_owned()])
    );
    assert_eq!((pt.threads[0].tid(), pt.threads[0].tgid(), pt.threads[0].name()), (612, 600, "app"));
    assert!(ps[0].first_packet_on_sequence());

    assert!(ps[1].has_clock_snapshot());
    let clocks: Vec<(u32, u64)> = ps[1].clock_snapshot().clocks.iter().map(|c| (c.clock_id(), c.timestamp())).collect();
    assert_eq!(
        clocks,
        vec![
            (6, 3_000),
            (3, (3_000 - MONOTONIC_BEHIND_BOOTTIME_NS) as u64),
            (1, (3_000 + REALTIME_MINUS_BOOTTIME_NS) as u64)
        ]
    );
    assert!(ps[2].has_service_event());
    assert!(ps[2].service_event().tracing_started());
    assert_eq!(ps[2].timestamp(), 3_000);
    assert!(ps[3].has_system_info());
    assert_eq!(ps[3].system_info().android_build_fingerprint(), "fp/1");
    assert_eq!(ps[3].system_info().android_sdk_version(), 34);
    for p in &ps[..4] {
        assert_eq!(p.trusted_packet_sequence_id(), 1);
    }

    // Without the options: no snapshot, no service event; the tree is still first.
    let ps = packets(&b.build(&BuildOptions { clock_snapshot: false, ..BuildOptions::default() }));
    assert!(ps[0].has_process_tree());
    assert_eq!(ps[0].timestamp(), 4_000);
    assert!(!ps.iter().any(|p| p.has_clock_snapshot() || p.has_service_event()));
}

#[test]
fn track_event_slices_with_interned_names() {
    use perfetto_protos::track_event::track_event::Type;
    let mut b = TraceBuilder::new();
    b.thread(4260, 4242, "RenderThread");
    b.track_event_slice(1_000, 500, 4242, 4260, "DrawFrames 7");
    b.track_event_slice(1_100, 100, 4242, 4260, "flush commands");
    b.track_event_slice(2_000, 500, 4242, 4260, "DrawFrames 7");
    let all = packets(&b.build(&BuildOptions::default()));
    assert!(all[0].has_process_tree() && all[1].has_clock_snapshot());
    let ps = &all[2..];
    assert_eq!(ps.len(), 7);
    let uuid = thread_track_uuid(4242, 4260);
    let d = &ps[0];
    assert!(d.has_track_descriptor());
    assert_eq!(d.sequence_flags(), 1, "SEQ_INCREMENTAL_STATE_CLEARED");
    assert_eq!(d.track_descriptor().uuid(), uuid);
    let th = d.track_descriptor().thread.as_ref().expect("thread descriptor");
    assert_eq!((th.pid(), th.tid(), th.thread_name()), (4242, 4260, "RenderThread"));
    type Ev = (u64, Type, u64, Option<(u64, String)>);
    let evs: Vec<Ev> = ps[1..]
        .iter()
        .map(|p| {
            assert_eq!(p.sequence_flags(), 2, "SEQ_NEEDS_INCREMENTAL_STATE");
            assert_eq!(p.track_event().track_uuid(), uuid);
            let interned = p.interned_data.as_ref().map(|i| {
                assert_eq!(i.event_names.len(), 1);
                (i.event_names[0].iid(), i.event_names[0].name().to_owned())
            });
            (p.timestamp(), p.track_event().type_(), p.track_event().name_iid(), interned)
        })
        .collect();
    assert_eq!(
        evs,
        vec![
            (1_000, Type::TYPE_SLICE_BEGIN, 1, Some((1, "DrawFrames 7".into()))),
            (1_100, Type::TYPE_SLICE_BEGIN, 2, Some((2, "flush commands".into()))),
            (1_200, Type::TYPE_SLICE_END, 0, None),
            (1_500, Type::TYPE_SLICE_END, 0, None),
            (2_000, Type::TYPE_SLICE_BEGIN, 1, None),
            (2_500, Type::TYPE_SLICE_END, 0, None),
        ]
    );
}

#[test]
fn first_bundle_previous_end_and_sequence_spread() {
    let b = sample_builder();
    let opts = BuildOptions {
        first_bundle_previous_end: true,
        sequences: 3,
        events_per_bundle: 16,
        ..BuildOptions::default()
    };
    let ps = packets(&b.build(&opts));
    let mut seen_cpu = HashSet::new();
    for p in ps.iter().filter(|p| p.has_ftrace_events()) {
        let bu = p.ftrace_events();
        assert_eq!(p.trusted_packet_sequence_id(), 3 + 1 + bu.cpu());
        let first_ts = bu.event.iter().map(|e| e.timestamp()).min().expect("non-empty bundle");
        if seen_cpu.insert(bu.cpu()) {
            assert_eq!(bu.previous_bundle_end_timestamp(), first_ts);
        } else {
            assert!(!bu.has_previous_bundle_end_timestamp());
        }
    }
    assert_eq!(seen_cpu.len(), 4);
    // Producers: service 0 -> seq 1, probes 1 -> seq 2, SurfaceFlinger 2 -> seq 3,
    // first app thread 3 -> seq 1.
    assert_eq!(ps[0].trusted_packet_sequence_id(), 2, "process tree from traced_probes");
    assert!(ps.iter().filter(|p| p.has_frame_timeline_event()).all(|p| p.trusted_packet_sequence_id() == 3));
    assert!(ps.iter().filter(|p| p.has_track_event()).all(|p| p.trusted_packet_sequence_id() == 1));
    // first_packet_on_sequence exactly once per sequence.
    let mut firsts: HashMap<u32, usize> = HashMap::new();
    for p in &ps {
        if p.first_packet_on_sequence() {
            *firsts.entry(p.trusted_packet_sequence_id()).or_default() += 1;
        }
    }
    let seqs: HashSet<u32> = ps.iter().map(|p| p.trusted_packet_sequence_id()).collect();
    assert_eq!(firsts.len(), seqs.len());
    assert!(firsts.values().all(|&n| n == 1));
}

/// Replays the demo's atrace slices per thread from the decoded trace: sorted
/// by (ts, file order) like trace_processor, B pushes, E pops.
fn demo_slices(ps: &[TracePacket]) -> Vec<(u32, String, u64, u64, usize)> {
    let mut evs: Vec<(u64, usize, u32, String)> = Vec::new();
    for (i, (ts, _, tid, buf)) in prints(ps).into_iter().enumerate() {
        evs.push((ts, i, tid, buf));
    }
    evs.sort();
    let mut stacks: HashMap<u32, Vec<(String, u64)>> = HashMap::new();
    let mut out = Vec::new();
    for (ts, _, tid, buf) in evs {
        let st = stacks.entry(tid).or_default();
        if let Some(rest) = buf.strip_prefix("B|") {
            let name = rest.split_once('|').expect("B|pid|name").1.trim_end_matches('\n');
            st.push((name.to_owned(), ts));
        } else if buf.starts_with("E|") {
            let (name, start) = st.pop().expect("balanced E");
            out.push((tid, name, start, ts - start, st.len()));
        }
    }
    assert!(stacks.values().all(Vec::is_empty), "every slice ends");
    out
}

#[test]
fn demo_scroll_matches_its_documented_ground_truth() {
    let frames = scenarios::demo_scroll_frames();
    assert_eq!(frames.len(), 300);
    let janky: Vec<(i64, i64, i64, i64, DemoJank, i32)> = frames
        .iter()
        .filter(|f| f.jank != DemoJank::None)
        .map(|f| (f.frame_id, f.vsync_index, f.dropped_frames, f.skipped_frames, f.jank, f.jank_type))
        .collect();
    let long = |heavy| DemoJank::LongFrame { heavy };
    assert_eq!(
        janky,
        vec![
            (1_000_140, 70, 2, 0, long("measure"), 64),
            (1_000_146, 73, 0, 0, DemoJank::BufferStuffing, 128),
            (1_000_206, 103, 4, 3, DemoJank::LateStart, 64),
            (1_000_274, 137, 10, 0, long("RV OnBindView"), 64),
            (1_000_296, 148, 0, 0, DemoJank::BufferStuffing, 128),
            (1_000_534, 267, 30, 0, long("Inflate"), 64),
            (1_000_714, 357, 50, 0, long("layout"), 64),
        ]
    );
    for f in &frames {
        let i = DEMO_I_MAX_TEST;
        assert_eq!(f.frame_cost_ns, f.ts + f.dur - f.vsync_ts);
        match f.jank {
            DemoJank::LongFrame { .. } | DemoJank::LateStart => {
                assert_eq!(f.frame_cost_ns % i, 4_000_000, "cost = n*I + 4 ms");
                assert!(f.actual_end > f.expected_end);
                assert_eq!(f.present_type, 2);
            }
            _ => {
                assert!(f.frame_cost_ns < 12_500_000, "normal frame {} costs {}", f.frame_id, f.frame_cost_ns);
                assert!(f.actual_end <= f.expected_end, "frame {} finishes on time", f.frame_id);
                assert_eq!(f.dropped_frames, 0);
            }
        }
        assert_eq!(
            f.jitter_counter_ts - f.jitter_counter_value,
            if f.skipped_frames > 0 {
                f.ts - (f.ts - f.vsync_ts) % scenarios::DEMO_FRAME_INTERVAL_NS
            } else {
                f.vsync_ts
            }
        );
    }
}

const DEMO_I_MAX_TEST: i64 = 16_666_667;

#[test]
fn demo_trace_decodes_to_the_frames_it_describes() {
    let bytes = scenarios::demo_scroll().build(&scenarios::demo_build_options());
    assert!(bytes.len() < 1 << 20, "demo is {} bytes", bytes.len());
    let ps = packets(&bytes);
    let frames = scenarios::demo_scroll_frames();
    let slices = demo_slices(&ps);
    let main = scenarios::DEMO_MAIN_TID as u32;
    let rt = scenarios::DEMO_RENDER_TID as u32;
    let do_frames: Vec<(String, u64, u64)> = slices
        .iter()
        .filter(|s| s.0 == main && s.1.starts_with("Choreographer#doFrame"))
        .map(|s| (s.1.clone(), s.2, s.3))
        .collect();
    let mut want: Vec<(String, u64, u64)> =
        frames.iter().map(|f| (format!("Choreographer#doFrame {}", f.frame_id), f.ts as u64, f.dur as u64)).collect();
    let mut got = do_frames.clone();
    got.sort_by_key(|x| x.1);
    want.sort_by_key(|x| x.1);
    assert_eq!(got, want);
    // doFrame is at depth 0 with input/animation/traversal/commit as direct children.
    let f = &frames[0];
    let kids: Vec<&str> = slices
        .iter()
        .filter(|s| s.0 == main && s.4 == 1 && s.2 >= f.ts as u64 && s.2 < (f.ts + f.dur) as u64)
        .map(|s| s.1.as_str())
        .collect::<Vec<_>>();
    let mut kids_sorted: Vec<_> = slices
        .iter()
        .filter(|s| s.0 == main && s.4 == 1 && s.2 >= f.ts as u64 && s.2 < (f.ts + f.dur) as u64)
        .map(|s| (s.2, s.1.as_str()))
        .collect();
    kids_sorted.sort();
    assert_eq!(kids.len(), 4);
    assert_eq!(kids_sorted.iter().map(|k| k.1).collect::<Vec<_>>(), ["input", "animation", "traversal", "commit"]);
    // RenderThread DrawFrames per frame.
    let draws: HashMap<String, (u64, u64)> =
        slices.iter().filter(|s| s.0 == rt && s.4 == 0).map(|s| (s.1.clone(), (s.2, s.3))).collect();
    assert_eq!(draws.len(), 300);
    for f in &frames {
        assert_eq!(draws[&format!("DrawFrames {}", f.frame_id)], (f.draw_frame_ts as u64, f.draw_frame_dur as u64));
    }
    // FrameTimeline: one expected and one actual surface frame per frame.
    let mut actual = HashMap::new();
    let mut ends = HashMap::new();
    let mut starts = HashMap::new();
    for p in ps.iter().filter(|p| p.has_frame_timeline_event()) {
        let e = p.frame_timeline_event();
        if e.has_actual_surface_frame_start() {
            let a = e.actual_surface_frame_start();
            assert_eq!(a.layer_name(), scenarios::DEMO_LAYER);
            actual.insert(a.token(), (p.timestamp(), a.cookie(), a.jank_type(), a.present_type().value()));
            starts.insert(a.cookie(), p.timestamp());
        } else if e.has_frame_end() {
            ends.insert(e.frame_end().cookie(), p.timestamp());
        }
    }
    assert_eq!(actual.len(), 300);
    for f in &frames {
        let (ts, cookie, jt, pt) = actual[&f.frame_id];
        assert_eq!((ts as i64, ends[&cookie] as i64, jt, pt), (f.ts, f.actual_end, f.jank_type, f.present_type));
    }
    // VSYNC-app edges toggle 0/1, one per frame.
    let vs: Vec<(u64, String)> = prints(&ps)
        .into_iter()
        .filter(|p| p.3.contains("|VSYNC-app|"))
        .map(|p| (p.0, p.3))
        .collect::<BTreeMap<_, _>>()
        .into_iter()
        .collect();
    assert_eq!(vs.len(), 300);
    for (i, (ts, buf)) in vs.iter().enumerate() {
        assert_eq!(*ts as i64, frames[i].vsync_ts);
        assert_eq!(buf, &format!("C|600|VSYNC-app|{}\n", (i + 1) % 2));
    }
    // The worker's TrackEvent descriptor carries its name after the rename.
    let desc: Vec<_> = ps.iter().filter(|p| p.has_track_descriptor()).map(|p| p.track_descriptor()).collect();
    assert_eq!(desc.len(), 1);
    let th = desc[0].thread.as_ref().expect("thread descriptor");
    assert_eq!((th.pid(), th.tid(), th.thread_name()), (4242, 4281, "bg-decoder"));
    assert_eq!(ps.iter().filter(|p| p.has_track_event()).count(), 4 * 10);
    // Compact sched is on: sched lives only in compact_sched columns.
    let mut switches = 0;
    for p in ps.iter().filter(|p| p.has_ftrace_events()) {
        assert!(p.ftrace_events().event.iter().all(|e| !e.has_sched_switch()));
        switches += p.ftrace_events().compact_sched.get_or_default().switch_next_pid.len();
    }
    assert!(switches > 1_500);
}

#[test]
fn busy_phone_streams_a_valid_trace_of_about_the_target_size() {
    let mut buf = Vec::new();
    let n = scenarios::busy_phone(&mut buf, 6 << 20).expect("write to Vec");
    assert_eq!(n as usize, buf.len());
    assert!((6 << 20..8 << 20).contains(&n), "{n}");
    let ps = packets(&buf);
    assert!(ps[0].has_process_tree());
    let (mut compact, mut plain, mut ft, mut te, mut do_frames) = (0, 0, 0, 0, 0);
    let mut cpus = HashSet::new();
    for p in &ps {
        if p.has_ftrace_events() {
            let b = p.ftrace_events();
            cpus.insert(b.cpu());
            if b.compact_sched.is_some() {
                compact += 1;
            }
            if b.event.iter().any(|e| e.has_sched_switch()) {
                plain += 1;
            }
            do_frames += b.event.iter().filter(|e| e.print().buf().contains("|Choreographer#doFrame ")).count();
        }
        ft += usize::from(p.has_frame_timeline_event());
        te += usize::from(p.has_track_event());
    }
    assert_eq!(cpus.len(), 8);
    assert!(compact > 0 && plain > 0, "{compact} compact, {plain} plain bundles");
    assert!(ft > 0 && te > 0 && do_frames > 0);
}

#[test]
fn demo_sched_is_consistent_per_cpu_and_has_runnable_and_blocked_main_thread() {
    // Plain events so prev_pid is explicit; compact_sched would leave it implied
    // by the previous switch on the CPU, which is exactly what this checks.
    let opts = BuildOptions { compact_sched: false, ..scenarios::demo_build_options() };
    let ps = packets(&scenarios::demo_scroll().build(&opts));
    let mut per_cpu: BTreeMap<u32, Vec<(u64, i32, i64, i32)>> = BTreeMap::new();
    for p in ps.iter().filter(|p| p.has_ftrace_events()) {
        let b = p.ftrace_events();
        for e in b.event.iter().filter(|e| e.has_sched_switch()) {
            let s = e.sched_switch();
            per_cpu.entry(b.cpu()).or_default().push((e.timestamp(), s.prev_pid(), s.prev_state(), s.next_pid()));
        }
    }
    assert_eq!(per_cpu.keys().copied().collect::<Vec<_>>(), [0, 1, 2]);
    for (cpu, v) in &mut per_cpu {
        v.sort();
        for w in v.windows(2) {
            assert_eq!(w[1].1, w[0].3, "cpu {cpu}: switch at {} continues the task switched in at {}", w[1].0, w[0].0);
        }
    }
    let main = scenarios::DEMO_MAIN_TID;
    let frames = scenarios::demo_scroll_frames();
    let in_frame = |id: i64, t: u64| {
        let f = frames.iter().find(|f| f.frame_id == id).expect("frame");
        t > f.ts as u64 && t < (f.ts + f.dur) as u64
    };
    let main_out: Vec<(u64, i64, i32)> =
        per_cpu[&2].iter().filter(|s| s.1 == main && s.3 != main).map(|s| (s.0, s.2, s.3)).collect();
    // Preempted (R) by kworker/2:1 only in frame 1000274; D only in 1000534.
    let preempted: Vec<_> = main_out.iter().filter(|s| s.1 == 0).collect();
    assert_eq!(preempted.len(), 1);
    assert_eq!(preempted[0].2, 77);
    assert!(in_frame(1_000_274, preempted[0].0));
    let blocked: Vec<_> = main_out.iter().filter(|s| s.1 == 2).collect();
    assert_eq!(blocked.len(), 1);
    assert!(in_frame(1_000_534, blocked[0].0));
    // Every frame ends with the main thread going to sleep (S) 15 us after doFrame.
    for f in &frames {
        assert!(main_out.contains(&((f.ts + f.dur + 15_000) as u64, 1, 0)), "frame {}", f.frame_id);
    }
}

#[test]
fn committed_demo_trace_is_what_the_generator_writes() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/demo.pftrace");
    let committed = std::fs::read(&path).expect("testdata/demo.pftrace exists");
    let fresh = scenarios::demo_scroll().build(&scenarios::demo_build_options());
    assert!(
        committed == fresh,
        "regenerate with: cargo run --release --example gen_trace -- demo testdata/demo.pftrace"
    );
}

// ---------------------------------------------------------------------------
// renderers: decoded Perfetto and systrace forms agree with each scenario's truth
// ---------------------------------------------------------------------------

mod renderer_scenarios {
    use super::*;
    use crate::renderers::{self, perfdog_janks, vsync_id, vsync_ts, RendererScenario, DISPLAY_PERIOD_NS, VSYNCS};
    use crate::systrace::SystraceOptions;
    use std::collections::BTreeSet;

    /// An actual or expected surface frame: (token, pid, layer, start, end,
    /// display_frame_token, present_type, jank_type); the last two are 0 for
    /// expected frames.
    type Surface = (i64, i32, String, i64, i64, i64, i32, i32);

    struct Decoded {
        slices: Vec<(u32, String, u64, u64, usize)>,
        /// Counter name -> (ts, value) of pid 1000, in time order.
        sf_counters: BTreeMap<String, Vec<(i64, i64)>>,
        expected: Vec<Surface>,
        actual: Vec<Surface>,
        display_expected: usize,
        display_actual: usize,
        threads: Vec<(i32, i32, String)>,
        sdk: u64,
    }

    fn decode(sc: &RendererScenario) -> Decoded {
        let ps = packets(&sc.builder.build(&BuildOptions::default()));
        let slices = demo_slices(&ps);
        let mut samples: Vec<(u64, String, i64)> = Vec::new();
        for (ts, _, _, buf) in prints(&ps) {
            if let Some(rest) = buf.strip_prefix("C|1000|") {
                let (name, v) = rest.trim_end_matches('\n').rsplit_once('|').expect("C|pid|name|value");
                samples.push((ts, name.to_owned(), v.parse().expect("integer value")));
            }
        }
        samples.sort_by_key(|s| s.0);
        let mut sf_counters: BTreeMap<String, Vec<(i64, i64)>> = BTreeMap::new();
        for (ts, name, v) in samples {
            sf_counters.entry(name).or_default().push((ts as i64, v));
        }
        let mut ends = HashMap::new();
        let (mut exp, mut act) = (Vec::new(), Vec::new());
        let (mut display_expected, mut display_actual) = (0, 0);
        for p in ps.iter().filter(|p| p.has_frame_timeline_event()) {
            let e = p.frame_timeline_event();
            let ts = p.timestamp() as i64;
            if e.has_expected_surface_frame_start() {
                let x = e.expected_surface_frame_start();
                exp.push((x.cookie(), (x.token(), x.pid(), x.layer_name().to_owned(), ts, 0, x.display_frame_token())));
            } else if e.has_actual_surface_frame_start() {
                let a = e.actual_surface_frame_start();
                let f = (a.token(), a.pid(), a.layer_name().to_owned(), ts, 0, a.display_frame_token());
                act.push((a.cookie(), f, a.present_type().value(), a.jank_type()));
                assert_eq!(a.prediction_type().value(), 1);
                assert_eq!(a.on_time_finish(), a.present_type().value() == 1);
            } else if e.has_frame_end() {
                ends.insert(e.frame_end().cookie(), ts);
            } else if e.has_expected_display_frame_start() {
                assert_eq!(e.expected_display_frame_start().pid(), 1000);
                display_expected += 1;
            } else if e.has_actual_display_frame_start() {
                assert_eq!(e.actual_display_frame_start().pid(), 1000);
                display_actual += 1;
            }
        }
        let expected = exp.into_iter().map(|(c, (t, pid, l, s, _, d))| (t, pid, l, s, ends[&c], d, 0, 0)).collect();
        let actual =
            act.into_iter().map(|(c, (t, pid, l, s, _, d), pt, jt)| (t, pid, l, s, ends[&c], d, pt, jt)).collect();
        let pt = ps[0].process_tree();
        let threads = pt.threads.iter().map(|t| (t.tid(), t.tgid(), t.name().to_owned())).collect();
        let sdk = ps.iter().find(|p| p.has_system_info()).expect("system info").system_info().android_sdk_version();
        Decoded { slices, sf_counters, expected, actual, display_expected, display_actual, threads, sdk }
    }

    fn intervals(ts: &[i64]) -> Vec<i64> {
        ts.windows(2).map(|w| w[1] - w[0]).collect()
    }

    /// (ts, value) samples -> timestamps where the value went down.
    fn downs(samples: &[(i64, i64)]) -> Vec<i64> {
        let mut prev = 0;
        let mut out = Vec::new();
        for &(ts, v) in samples {
            assert!((v - prev).abs() == 1, "the layer counter moves by one buffer at a time");
            if v < prev {
                out.push(ts);
            }
            prev = v;
        }
        out
    }

    /// End of each `queueBuffer` of `tid`, checking it sits in an
    /// `eglSwapBuffersWithDamageKHR` of the same thread, one level deeper.
    fn queue_ends(d: &Decoded, tid: i32) -> Vec<i64> {
        let mut out = Vec::new();
        for s in d.slices.iter().filter(|s| s.0 == tid as u32 && s.1 == "queueBuffer") {
            let egl = d
                .slices
                .iter()
                .find(|e| e.0 == s.0 && e.1 == "eglSwapBuffersWithDamageKHR" && e.2 <= s.2 && s.2 + s.3 <= e.2 + e.3);
            if tid != renderers::CODEC_QUEUE_TID {
                let egl = egl.expect("queueBuffer inside eglSwapBuffersWithDamageKHR");
                assert_eq!(s.4, egl.4 + 1);
            }
            out.push((s.2 + s.3) as i64);
        }
        out.sort_unstable();
        out
    }

    /// Everything in the Perfetto file agrees with `expect`.
    fn check_perfetto(name: &str, sc: &RendererScenario) {
        let e = &sc.expect;
        let d = decode(sc);
        assert_eq!(d.sdk, 33, "{name}");
        // Process tree: main thread, engine threads, SurfaceFlinger.
        let named = |tid: i32, pid: i32, n: &str| d.threads.contains(&(tid, pid, n.to_owned()));
        assert!(named(e.pid, e.pid, &e.main_thread), "{name}");
        for t in &e.engine_threads {
            assert!(d.threads.iter().any(|x| x.1 == e.pid && x.2 == *t), "{name}: thread {t}");
        }
        assert!(named(1000, 1000, "surfaceflinger") && named(1001, 1000, "binder:1000_1"));
        // The producer's queueBuffer slices.
        assert_eq!(queue_ends(&d, e.queue_tid), e.queue_ts, "{name}");
        assert_eq!(e.producer_tid.is_some(), e.queue_pid == e.pid, "{name}");
        assert!(d.threads.iter().any(|t| t.0 == e.queue_tid && t.1 == e.queue_pid), "{name}");
        // doFrames of the main thread, at depth 0, named with a vsync id.
        let doframes: Vec<_> =
            d.slices.iter().filter(|s| s.0 == e.pid as u32 && s.1.starts_with("Choreographer#doFrame ")).collect();
        assert_eq!(doframes.len(), e.doframes, "{name}");
        assert!(doframes.iter().all(|s| s.4 == 0 && s.1["Choreographer#doFrame ".len()..].parse::<i64>().is_ok()));
        // The dense vsync counters tick at every vsync.
        for c in ["VSYNC-sf", "HW_VSYNC_0", "VSYNC-app"] {
            let want: Vec<(i64, i64)> = (0..VSYNCS).map(|k| (vsync_ts(k), (k + 1) % 2)).collect();
            assert_eq!(d.sf_counters[c], want, "{name}: {c}");
        }
        // The layer's counter: one up per queue (inside queueBuffer), one down per latch.
        let layer = &d.sf_counters[&e.layer];
        assert_eq!(layer.len(), 2 * e.queue_ts.len(), "{name}");
        assert_eq!(downs(layer), e.latch_ts, "{name}");
        let ups: Vec<i64> = layer.iter().filter(|s| !e.latch_ts.contains(&s.0)).map(|s| s.0).collect();
        let want_ups: Vec<i64> =
            e.queue_ts.iter().map(|q| q - renderers::COUNTER_BEFORE_QUEUE_END_NS).collect::<Vec<_>>();
        assert_eq!(ups, want_ups, "{name}");
        // FrameTimeline surface frames of the layer.
        let mut act: Vec<&Surface> = d.actual.iter().filter(|a| a.2 == e.layer).collect();
        act.sort_by_key(|a| a.3);
        let want_act: Vec<Surface> = e
            .frames
            .iter()
            .map(|f| {
                (
                    f.token,
                    e.pid,
                    e.layer.clone(),
                    f.actual_start,
                    f.present_ts,
                    f.display_frame_token,
                    f.present_type,
                    f.jank_type,
                )
            })
            .collect();
        assert_eq!(act.into_iter().cloned().collect::<Vec<_>>(), want_act, "{name}");
        let presents: Vec<i64> = want_act.iter().map(|a| a.4).collect();
        assert_eq!(presents, e.present_ts);
        let mut exp: Vec<&Surface> = d.expected.iter().filter(|x| x.2 == e.layer).collect();
        exp.sort_by_key(|x| x.3);
        let want_exp: Vec<Surface> = e
            .frames
            .iter()
            .map(|f| {
                let dt = renderers::display_token(f.vsync_index + 1);
                (f.token, e.pid, e.layer.clone(), f.expected_start, f.expected_end, dt, 0, 0)
            })
            .collect();
        assert_eq!(exp.into_iter().cloned().collect::<Vec<_>>(), want_exp, "{name}");
        // Other layers with buffers.
        let mut layers_with_frames: HashSet<&str> = d.actual.iter().map(|a| a.2.as_str()).collect();
        layers_with_frames.remove(e.layer.as_str());
        assert_eq!(layers_with_frames.len(), e.other_layers.len(), "{name}");
        for o in &e.other_layers {
            assert_eq!(queue_ends(&d, o.producer_tid), o.frames.iter().map(|f| f.queue_ts).collect::<Vec<_>>());
            let latches: Vec<i64> = o.frames.iter().map(|f| f.latch_ts).collect();
            assert_eq!(downs(&d.sf_counters[&o.layer]), latches);
            let mut ends: Vec<i64> = d.actual.iter().filter(|a| a.2 == o.layer).map(|a| a.4).collect();
            ends.sort_unstable();
            assert_eq!(ends, o.frames.iter().map(|f| f.present_ts).collect::<Vec<_>>());
        }
        // One composition (onMessageRefresh, display frames) per vsync that latched something.
        let mut comps: Vec<i64> =
            e.frames.iter().chain(e.other_layers.iter().flat_map(|o| &o.frames)).map(|f| f.latch_vsync).collect();
        comps.sort_unstable();
        comps.dedup();
        let refresh: Vec<i64> = d
            .slices
            .iter()
            .filter(|s| s.0 == 1000 && s.1 == "onMessageRefresh")
            .map(|s| s.2 as i64)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let want_refresh: Vec<i64> = comps.iter().map(|&j| vsync_ts(j) + renderers::REFRESH_AFTER_VSYNC_NS).collect();
        assert_eq!(refresh, want_refresh, "{name}");
        assert_eq!((d.display_expected, d.display_actual), (comps.len(), comps.len()), "{name}");
        // Truth is self-consistent: latch and present intervals span the same
        // vsyncs (j -> j + 1), so they differ only by the grid's 1 ns rounding.
        let latch_k: Vec<i64> = e.frames.iter().map(|f| f.latch_vsync).collect();
        let present_k: Vec<i64> = e.frames.iter().map(|f| f.latch_vsync + 1).collect();
        assert_eq!(intervals(&latch_k), intervals(&present_k));
        for (a, b) in intervals(&e.latch_ts).into_iter().zip(intervals(&e.present_ts)) {
            assert!((a - b).abs() <= 1, "{name}: {a} vs {b}");
        }
        assert_eq!(perfdog_janks(&e.latch_ts), (e.perfdog_jank, e.perfdog_big_jank));
        assert_eq!(perfdog_janks(&e.present_ts), (e.perfdog_jank, e.perfdog_big_jank));
        assert_eq!(e.display_period_ns, DISPLAY_PERIOD_NS);
        for f in &e.frames {
            assert_eq!(f.latch_ts, vsync_ts(f.latch_vsync) + renderers::LATCH_AFTER_VSYNC_NS);
            assert!(f.queue_ts < f.latch_ts && f.latch_ts - f.queue_ts < DISPLAY_PERIOD_NS + 1_000_000);
            assert_eq!(f.present_ts, vsync_ts(f.latch_vsync + 1));
        }
    }

    /// The systrace text: every ftrace event as a line, FrameTimeline left
    /// out; the counters and queueBuffer begins are there.
    fn check_systrace(name: &str, sc: &RendererScenario) {
        let e = &sc.expect;
        let text = sc.builder.systrace_text(&SystraceOptions::default());
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(lines.len(), sc.builder.ftrace.len(), "{name}: one line per ftrace event, nothing else");
        assert!(!sc.builder.others.is_empty(), "{name}: the Perfetto form has FrameTimeline to leave out");
        // (task, ts µs, payload) of each print.
        let parsed: Vec<(i32, i64, &str)> = lines
            .iter()
            .map(|l| {
                let (head, rest) = l.split_once(" (").expect("comm-task (tgid)");
                let task = head.rsplit_once('-').expect("comm-task").1.trim().parse().expect("tid");
                let (_, rest) = rest.split_once("] d..3 ").expect("cpu and flags");
                let (ts, payload) = rest.split_once(": tracing_mark_write: ").expect("a print");
                let (s, us) = ts.split_once('.').expect("secs.micros");
                (task, s.parse::<i64>().expect("secs") * 1_000_000 + us.parse::<i64>().expect("micros"), payload)
            })
            .collect();
        for c in ["VSYNC-sf", "HW_VSYNC_0", "VSYNC-app"] {
            let prefix = format!("C|1000|{c}|");
            assert_eq!(parsed.iter().filter(|p| p.2.starts_with(&prefix)).count(), VSYNCS as usize, "{name}: {c}");
        }
        let prefix = format!("C|1000|{}|", e.layer);
        let samples: Vec<(i64, i64)> =
            parsed.iter().filter_map(|p| p.2.strip_prefix(&prefix).map(|v| (p.1, v.parse().expect("value")))).collect();
        let want: Vec<i64> = e.latch_ts.iter().map(|t| t / 1_000).collect();
        assert_eq!(downs(&samples), want, "{name}: latches to the microsecond");
        let begin = format!("B|{}|queueBuffer", e.queue_pid);
        let queue_begins = parsed.iter().filter(|p| p.0 == e.queue_tid && p.2 == begin).count();
        assert_eq!(queue_begins, e.queue_ts.len(), "{name}");
    }

    #[test]
    fn every_renderer_scenario_decodes_to_its_truth() {
        for (name, sc) in renderers::all() {
            check_perfetto(name, &sc);
            check_systrace(name, &sc);
        }
    }

    #[test]
    fn perfdog_rule() {
        let from = |iv: &[i64]| {
            let mut ts = vec![0];
            for x in iv {
                ts.push(ts.last().unwrap() + x);
            }
            perfdog_janks(&ts)
        };
        const F: i64 = 33_333_333;
        assert_eq!(from(&[F, F, F, 100_000_000]), (1, 0));
        assert_eq!(from(&[F, F, 100_000_000]), (0, 0), "needs 3 previous intervals");
        assert_eq!(from(&[F, F, F, 83_333_333]), (0, 0), "3x must exceed 250 ms");
        assert_eq!(from(&[F, F, F, 83_333_334]), (1, 0));
        assert_eq!(from(&[F, F, F, 125_000_000]), (1, 0));
        assert_eq!(from(&[F, F, F, 125_000_001]), (1, 1));
        assert_eq!(from(&[100_000_000, 100_000_000, 100_000_000, 200_000_000]), (0, 0), "2x the mean");
        assert_eq!(from(&[100_000_000, 100_000_000, 100_000_000, 200_000_001]), (1, 1));
    }

    /// `vsyncs` of a 60 Hz interval: 16 666 666/7 per vsync, rounded on the grid.
    fn on_grid(x: i64, vsyncs: i64) -> bool {
        let exact = vsyncs * 1_000_000_000;
        (x * 60 - exact).abs() < 60
    }

    fn fps(ts: &[i64]) -> f64 {
        (ts.len() - 1) as f64 * 1e9 / (ts[ts.len() - 1] - ts[0]) as f64
    }

    #[test]
    fn game_truth() {
        let e = renderers::game().expect;
        assert_eq!((e.package, e.pid, e.main_thread.as_str()), ("com.example.game", 7000, "om.example.game"));
        assert_eq!(e.producer_tid, Some(7011));
        assert_eq!(e.present_ts.len(), 69);
        let qs: Vec<i64> = (0..=60).step_by(2).chain((66..=120).step_by(2)).chain((132..=150).step_by(2)).collect();
        assert_eq!(e.present_ts, qs.iter().map(|&q| vsync_ts(q + 2)).collect::<Vec<_>>());
        let iv = intervals(&e.present_ts);
        assert_eq!(iv.len(), 68);
        for (i, &x) in iv.iter().enumerate() {
            match i {
                30 => assert_eq!(x, 100_000_000),
                58 => assert_eq!(x, 200_000_000),
                _ => assert!(x == 33_333_333 || x == 33_333_334, "interval {i} = {x}"),
            }
        }
        assert_eq!((e.perfdog_jank, e.perfdog_big_jank), (2, 1));
        assert_eq!(e.doframes, 156);
        let late: Vec<(i64, i64, i64)> = e
            .frames
            .iter()
            .filter(|f| f.present_type == 2)
            .map(|f| (f.token, f.vsync_index, f.dropped_frames))
            .collect();
        assert_eq!(late, [(vsync_id(62), 62, 4), (vsync_id(122), 122, 10)]);
        assert_eq!(e.late_frames, 2);
        assert_eq!((e.latch_ts[0], *e.latch_ts.last().unwrap()), (vsync_ts(1) + 1_000_000, vsync_ts(151) + 1_000_000));
        assert!((fps(&e.latch_ts) - 27.2).abs() < 1e-9);
        assert!(e.other_layers.is_empty());
    }

    #[test]
    fn flutter_truth() {
        let e = renderers::flutter().expect;
        assert_eq!((e.pid, e.main_thread.as_str(), e.producer_tid), (7100, "example.flutter", Some(7111)));
        assert_eq!(e.present_ts.len(), 148);
        let iv = intervals(&e.present_ts);
        let long: Vec<usize> = (0..iv.len()).filter(|&i| !on_grid(iv[i], 1)).collect();
        assert!(long.iter().all(|&i| on_grid(iv[i], 2)));
        assert_eq!(long.len(), 3);
        let late: Vec<(i64, i64)> =
            e.frames.iter().filter(|f| f.jank_type == 64).map(|f| (f.vsync_index, f.dropped_frames)).collect();
        assert_eq!(late, [(40, 1), (80, 1), (120, 1)]);
        assert!(e.frames.iter().all(|f| (f.present_type == 2) == (f.jank_type == 64)));
        assert_eq!((e.perfdog_jank, e.perfdog_big_jank, e.doframes), (0, 0, 156));
        assert_eq!((e.present_ts[0], *e.present_ts.last().unwrap()), (vsync_ts(2), vsync_ts(152)));
        assert!((fps(&e.latch_ts) - 58.8).abs() < 1e-9);
    }

    #[test]
    fn video_truth() {
        let e = renderers::video().expect;
        assert_eq!((e.pid, e.producer_tid, e.queue_pid, e.queue_tid), (7200, None, 900, 905));
        assert_eq!(e.present_ts.len(), 76);
        assert!(intervals(&e.present_ts).iter().all(|&x| on_grid(x, 2)));
        assert_eq!((e.perfdog_jank, e.perfdog_big_jank, e.doframes, e.late_frames), (0, 0, 10, 0));
        assert!((fps(&e.latch_ts) - 30.0).abs() < 1e-9);
        assert_eq!(e.other_layers.len(), 1);
        let o = &e.other_layers[0];
        assert_eq!((o.layer.as_str(), o.producer_tid), ("com.example.video/com.example.video.PlayerActivity#0", 7220));
        assert_eq!(
            o.frames.iter().map(|f| f.present_ts).collect::<Vec<_>>(),
            (2..12).map(vsync_ts).collect::<Vec<_>>()
        );
    }

    #[test]
    fn sparse_drawing_truth() {
        let e = renderers::sparse_drawing().expect;
        let d = renderers::sparse_drawing_offset_drift().expect;
        assert_eq!((e.pid, e.main_thread.as_str(), e.producer_tid), (7300, ".example.sparse", Some(7320)));
        assert_eq!(e.present_ts.len(), 61);
        let iv = intervals(&e.present_ts);
        for (i, &x) in iv.iter().enumerate() {
            assert!(on_grid(x, if i % 2 == 0 { 2 } else { 3 }), "interval {i} = {x}");
        }
        assert!(e.frames.iter().all(|f| f.dropped_frames == 0 && f.present_type == 1 && f.jank_type == 1));
        assert!(e.frames.iter().all(|f| f.expected_start == vsync_ts(f.vsync_index)));
        assert_eq!((e.perfdog_jank, e.perfdog_big_jank, e.doframes), (0, 0, 61));
        assert_eq!(e.display_period_ns, 16_666_667);
        assert!((fps(&e.latch_ts) - 24.0).abs() < 1e-9);
        // The drift variant differs only in the expected starts.
        let strip = |x: &renderers::RendererExpect| {
            let mut x = x.clone();
            x.frames.iter_mut().for_each(|f| f.expected_start = 0);
            x
        };
        assert_eq!(strip(&e), strip(&d));
        let offsets: Vec<i64> = d.frames.iter().map(|f| vsync_ts(f.vsync_index) - f.expected_start).collect();
        assert_eq!(
            &offsets[..11],
            [
                6_100_000, 6_100_000, 6_100_000, 6_100_000, 6_100_000, 10_200_000, 10_200_000, 10_200_000, 10_200_000,
                10_200_000, 6_100_000
            ]
        );
        let starts: Vec<i64> = d.frames.iter().map(|f| f.expected_start).collect();
        let off_grid = intervals(&starts)
            .iter()
            .filter(|&&x| {
                let r = x % 16_666_667;
                r > 1_000_000 && r < 15_666_667
            })
            .count();
        assert_eq!(off_grid, 12, "each offset change puts one spacing off the 60 Hz grid");
    }

    /// Not a check: the numbers for the report (`-- --nocapture`).
    #[test]
    fn renderer_summary() {
        for (name, sc) in renderers::all() {
            let e = &sc.expect;
            println!(
                "{name}: presents {} first {} last {} fps {:.3} perfdog {}/{} doframes {} late {}",
                e.present_ts.len(),
                e.present_ts[0],
                e.present_ts[e.present_ts.len() - 1],
                fps(&e.latch_ts),
                e.perfdog_jank,
                e.perfdog_big_jank,
                e.doframes,
                e.late_frames
            );
        }
    }
}
