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
