//! Cross-checks the decoder's field numbers against Perfetto's official
//! schema: a trace is built with the `perfetto_protos` crate (rust-protobuf
//! generated from Perfetto's own .proto files), serialized, decoded with
//! `fpsan::read`, and every decoded value is compared with what was written.
//! A wrong field number in `read::ftrace`, `read::timeline`, `read::sched`
//! or `read/proto/slim.proto` shows up here as a missing or wrong value.

use perfetto_protos::builtin_clock::BuiltinClock;
use perfetto_protos::clock_snapshot::{clock_snapshot::Clock, ClockSnapshot};
use perfetto_protos::dpu::DpuTracingMarkWriteFtraceEvent;
use perfetto_protos::frame_timeline_event::frame_timeline_event::{
    ActualDisplayFrameStart, ActualSurfaceFrameStart, Event as FtlEvent, ExpectedDisplayFrameStart,
    ExpectedSurfaceFrameStart, FrameEnd, JankSeverityType, PredictionType, PresentType,
};
use perfetto_protos::frame_timeline_event::FrameTimelineEvent;
use perfetto_protos::ftrace::PrintFtraceEvent;
use perfetto_protos::ftrace_event::{ftrace_event::Event as FtraceKind, FtraceEvent};
use perfetto_protos::ftrace_event_bundle::{ftrace_event_bundle::CompactSched, FtraceEventBundle};
use perfetto_protos::ftrace_stats::{ftrace_stats::Phase, FtraceCpuStats, FtraceStats};
use perfetto_protos::g2d::G2dTracingMarkWriteFtraceEvent;
use perfetto_protos::interned_data::InternedData;
use perfetto_protos::lwis::LwisTracingMarkWriteFtraceEvent;
use perfetto_protos::mali::MaliTracingMarkWriteFtraceEvent;
use perfetto_protos::mdss::TracingMarkWriteFtraceEvent;
use perfetto_protos::process_descriptor::ProcessDescriptor;
use perfetto_protos::process_tree::{process_tree, ProcessTree};
use perfetto_protos::sched::{SchedSwitchFtraceEvent, SchedWakingFtraceEvent};
use perfetto_protos::sde::SdeTracingMarkWriteFtraceEvent;
use perfetto_protos::system_info::SystemInfo;
use perfetto_protos::systrace::ZeroFtraceEvent;
use perfetto_protos::task::TaskRenameFtraceEvent;
use perfetto_protos::thread_descriptor::ThreadDescriptor;
use perfetto_protos::trace::Trace as PbTrace;
use perfetto_protos::trace_packet::TracePacket;
use perfetto_protos::trace_packet_defaults::TracePacketDefaults;
use perfetto_protos::trace_stats::{trace_stats::BufferStats, TraceStats};
use perfetto_protos::tracing_service_event::TracingServiceEvent;
use perfetto_protos::track_descriptor::TrackDescriptor;
use perfetto_protos::track_event::{
    track_event::Type as TeType, EventCategory, EventName, TrackEvent, TrackEventDefaults,
};
use protobuf::{EnumOrUnknown, Message, MessageField};

use fpsan::analysis::decode;
use fpsan::model::{TimelineKind, Trace, TrackKind};
use fpsan::read::records::{SchedRecord, Waker};
use fpsan::read::{sched_for_threads, Source};

/// BOOTTIME and MONOTONIC at the clock snapshot: MONOTONIC runs 100 ms behind
/// (the device slept that long since boot).
const BOOT0: i64 = 1_000_000_000;
const MONO0: i64 = 900_000_000;
const BOOT_MINUS_MONO: i64 = BOOT0 - MONO0;

const APP: i32 = 1000;
const RENDER: i32 = 1001;
const BINDER: i32 = 1002;
const POOL: i32 = 1003;
const TE_THREAD: i32 = 1004;
const SF: i32 = 500;

fn ev(ts: i64, pid: i32, kind: FtraceKind) -> FtraceEvent {
    let mut e = FtraceEvent::new();
    e.set_timestamp(ts as u64);
    e.set_pid(pid as u32);
    e.event = Some(kind);
    e
}

fn print(ts: i64, tid: i32, buf: &str) -> FtraceEvent {
    ev(ts, tid, FtraceKind::Print(PrintFtraceEvent { buf: Some(buf.into()), ip: Some(1), ..Default::default() }))
}

fn bundle(cpu: u32, previous_bundle_end: Option<i64>, events: Vec<FtraceEvent>) -> FtraceEventBundle {
    FtraceEventBundle {
        cpu: Some(cpu),
        event: events,
        previous_bundle_end_timestamp: previous_bundle_end.map(|t| t as u64),
        ..Default::default()
    }
}

fn packet_with(f: impl FnOnce(&mut TracePacket)) -> TracePacket {
    let mut p = TracePacket::new();
    f(&mut p);
    p
}

fn ftrace_packet(b: FtraceEventBundle) -> TracePacket {
    packet_with(|p| p.set_ftrace_events(b))
}

/// A FrameTimeline packet on SurfaceFlinger's sequence; `clock` is set
/// explicitly or left to the sequence's defaults.
fn ftl(mono_ts: i64, clock: Option<u32>, event: FtlEvent) -> TracePacket {
    packet_with(|p| {
        p.set_timestamp(mono_ts as u64);
        p.set_trusted_packet_sequence_id(2);
        if let Some(c) = clock {
            p.set_timestamp_clock_id(c);
        }
        p.set_frame_timeline_event(FrameTimelineEvent { event: Some(event), ..Default::default() });
    })
}

fn frame_end(mono_ts: i64, cookie: i64) -> TracePacket {
    ftl(mono_ts, None, FtlEvent::FrameEnd(FrameEnd { cookie: Some(cookie), ..Default::default() }))
}

fn track_event(ts: i64, f: impl FnOnce(&mut TrackEvent), g: impl FnOnce(&mut TracePacket)) -> TracePacket {
    packet_with(|p| {
        p.set_timestamp(ts as u64);
        p.set_trusted_packet_sequence_id(3);
        let mut te = TrackEvent::new();
        f(&mut te);
        p.set_track_event(te);
        g(p);
    })
}

/// Packets that go into one zlib `compressed_packets` batch.
fn compressed(packets: Vec<TracePacket>) -> TracePacket {
    use std::io::Write;
    let inner = PbTrace { packet: packets, ..Default::default() }.write_to_bytes().expect("serialize inner");
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&inner).expect("zlib");
    packet_with(|p| p.set_compressed_packets(z.finish().expect("zlib")))
}

fn build_trace() -> PbTrace {
    let mut packets: Vec<TracePacket> = Vec::new();
    let mono = |t: i64| t - BOOT_MINUS_MONO;

    // Clocks: BOOTTIME ↔ MONOTONIC.
    packets.push(packet_with(|p| {
        p.set_trusted_packet_sequence_id(1);
        let clock = |id: BuiltinClock, ts: i64| Clock {
            clock_id: Some(id as u32),
            timestamp: Some(ts as u64),
            ..Default::default()
        };
        let mut cs = ClockSnapshot {
            clocks: vec![
                clock(BuiltinClock::BUILTIN_CLOCK_BOOTTIME, BOOT0),
                clock(BuiltinClock::BUILTIN_CLOCK_MONOTONIC, MONO0),
            ],
            ..Default::default()
        };
        cs.set_primary_trace_clock(BuiltinClock::BUILTIN_CLOCK_BOOTTIME);
        p.set_clock_snapshot(cs);
    }));
    packets.push(packet_with(|p| {
        let mut si = SystemInfo::new();
        si.set_android_build_fingerprint("google/fpsan/test:16/BP1A/1:user/release-keys".into());
        si.set_android_sdk_version(36);
        si.set_android_device_manufacturer("Google".into());
        si.utsname.mut_or_insert_default().set_machine("aarch64".into());
        p.set_system_info(si);
    }));
    packets.push(packet_with(|p| {
        p.set_timestamp((BOOT0 + 100) as u64);
        p.set_trusted_packet_sequence_id(1);
        let mut se = TracingServiceEvent::new();
        se.set_tracing_started(true);
        p.set_service_event(se);
    }));
    // Two undated-by-ftrace service events that only move the trace's
    // bounds: one in BOOTTIME before everything, one in MONOTONIC after.
    packets.push(packet_with(|p| {
        p.set_timestamp((BOOT0 - 50) as u64);
        p.set_trusted_packet_sequence_id(1);
        let mut se = TracingServiceEvent::new();
        se.set_all_data_sources_started(true);
        p.set_service_event(se);
    }));
    packets.push(packet_with(|p| {
        p.set_timestamp(mono(BOOT0 + 31_000) as u64);
        p.set_timestamp_clock_id(BuiltinClock::BUILTIN_CLOCK_MONOTONIC as u32);
        p.set_trusted_packet_sequence_id(1);
        let mut se = TracingServiceEvent::new();
        se.set_tracing_disabled(true);
        p.set_service_event(se);
    }));
    packets.push(packet_with(|p| {
        let process = |pid: i32, ppid: i32, uid: Option<i32>, cmdline: &[&str]| process_tree::Process {
            pid: Some(pid),
            ppid: Some(ppid),
            uid,
            cmdline: cmdline.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        let thread = |tid: i32, tgid: i32, name: &str| process_tree::Thread {
            tid: Some(tid),
            tgid: Some(tgid),
            name: Some(name.into()),
            ..Default::default()
        };
        p.set_process_tree(ProcessTree {
            processes: vec![
                process(APP, 1, Some(10123), &["com.example.app", "--flag"]),
                process(SF, 1, None, &["/system/bin/surfaceflinger"]),
            ],
            threads: vec![thread(RENDER, APP, "RenderThread"), thread(BINDER, APP, "binder:1000_1")],
            ..Default::default()
        });
    }));

    // CPU 0's first bundle: valid from BOOT0. CPU 1's: valid from BOOT0 + 200,
    // so the trace's ftrace data is valid from BOOT0 + 200 (later than
    // tracing_started at BOOT0 + 100).
    let switch = SchedSwitchFtraceEvent {
        prev_comm: Some("swapper/0".into()),
        prev_pid: Some(0),
        prev_state: Some(0),
        next_comm: Some("example.app".into()),
        next_pid: Some(APP),
        ..Default::default()
    };
    let waking = SchedWakingFtraceEvent {
        comm: Some("RenderThread".into()),
        pid: Some(RENDER),
        target_cpu: Some(1),
        prio: Some(110),
        ..Default::default()
    };
    packets.push(ftrace_packet(bundle(
        0,
        Some(BOOT0),
        vec![
            print(BOOT0 + 150, APP, "B|1000|dropped-before-start\n"),
            ev(BOOT0 + 300, 0, FtraceKind::SchedSwitch(switch)),
            print(BOOT0 + 1_000, APP, "B|1000|Choreographer#doFrame 42\n"),
            print(BOOT0 + 2_000, APP, "B|1000|traversal\n"),
            print(BOOT0 + 3_000, APP, "E|1000\n"),
            print(BOOT0 + 4_000, APP, "C|1000|jitterNanos|1500\n"),
            print(BOOT0 + 5_000, APP, "E|1000\n"),
            ev(BOOT0 + 5_500, APP, FtraceKind::SchedWaking(waking)),
        ],
    )));
    let mut b = bundle(
        1,
        Some(BOOT0 + 200),
        vec![
            print(BOOT0 + 6_000, RENDER, "B|1000|DrawFrames 42\n"),
            print(BOOT0 + 7_000, RENDER, "E|1000\n"),
            ev(
                BOOT0 + 7_500,
                POOL,
                FtraceKind::TaskRename(TaskRenameFtraceEvent {
                    pid: Some(POOL),
                    oldcomm: Some("pool-1".into()),
                    newcomm: Some("decoder".into()),
                    oom_score_adj: Some(0),
                    ..Default::default()
                }),
            ),
            print(BOOT0 + 8_000, POOL, "B|1000|decode\n"),
            print(BOOT0 + 8_500, POOL, "E|1000\n"),
        ],
    );
    // compact_sched: two switches (to POOL, then POOL sleeps and CPU 1 idles)
    // and one waking of BINDER; timestamps are deltas.
    b.compact_sched = MessageField::some(CompactSched {
        intern_table: vec!["pool-1".into(), "swapper/1".into(), "binder:1000_1".into()],
        switch_timestamp: vec![(BOOT0 + 6_500) as u64, 100],
        switch_prev_state: vec![0, 1],
        switch_next_pid: vec![POOL, 0],
        switch_next_prio: vec![120, 120],
        switch_next_comm_index: vec![0, 1],
        waking_timestamp: vec![(BOOT0 + 6_600) as u64],
        waking_pid: vec![BINDER],
        waking_target_cpu: vec![1],
        waking_prio: vec![120],
        waking_comm_index: vec![2],
        waking_common_flags: vec![1],
        ..Default::default()
    });
    packets.push(ftrace_packet(b));

    // CPU 0's second bundle (its previous_bundle_end no longer matters), with
    // lost events, carrying every kernel tracing_mark_write variant.
    let (c, bg, en) = (b'C' as u32, b'B' as u32, b'E' as u32);
    let mut kernel = bundle(
        0,
        Some(BOOT0 + 5_900),
        vec![
            ev(
                BOOT0 + 9_000,
                BINDER,
                FtraceKind::TracingMarkWrite(TracingMarkWriteFtraceEvent {
                    pid: Some(APP),
                    trace_name: Some("mdss_slice".into()),
                    trace_begin: Some(1),
                    ..Default::default()
                }),
            ),
            ev(
                BOOT0 + 9_100,
                BINDER,
                FtraceKind::TracingMarkWrite(TracingMarkWriteFtraceEvent {
                    pid: Some(APP),
                    trace_name: Some("mdss_slice".into()),
                    trace_begin: Some(0),
                    ..Default::default()
                }),
            ),
            ev(
                BOOT0 + 9_200,
                BINDER,
                FtraceKind::SdeTracingMarkWrite(SdeTracingMarkWriteFtraceEvent {
                    pid: Some(APP),
                    trace_name: Some("sde_counter".into()),
                    trace_type: Some(c),
                    value: Some(7),
                    ..Default::default()
                }),
            ),
            ev(
                BOOT0 + 9_300,
                BINDER,
                FtraceKind::DpuTracingMarkWrite(DpuTracingMarkWriteFtraceEvent {
                    pid: Some(APP),
                    name: Some("dpu_vote".into()),
                    type_: Some(c),
                    value: Some(123),
                    ..Default::default()
                }),
            ),
            ev(
                BOOT0 + 9_400,
                BINDER,
                FtraceKind::DpuTracingMarkWrite(DpuTracingMarkWriteFtraceEvent {
                    pid: Some(APP),
                    name: Some("dpu_slice".into()),
                    type_: Some(bg),
                    ..Default::default()
                }),
            ),
            ev(
                BOOT0 + 9_450,
                BINDER,
                FtraceKind::DpuTracingMarkWrite(DpuTracingMarkWriteFtraceEvent {
                    pid: Some(APP),
                    name: Some("dpu_slice".into()),
                    type_: Some(en),
                    ..Default::default()
                }),
            ),
            ev(
                BOOT0 + 9_500,
                BINDER,
                FtraceKind::G2dTracingMarkWrite(G2dTracingMarkWriteFtraceEvent {
                    pid: Some(APP),
                    name: Some("g2d_frame_hw#1".into()),
                    type_: Some(c),
                    value: Some(1),
                    ..Default::default()
                }),
            ),
            ev(
                BOOT0 + 9_600,
                BINDER,
                FtraceKind::MaliTracingMarkWrite(MaliTracingMarkWriteFtraceEvent {
                    pid: Some(APP),
                    name: Some("mali_slice".into()),
                    type_: Some(bg),
                    ..Default::default()
                }),
            ),
            ev(
                BOOT0 + 9_700,
                BINDER,
                FtraceKind::MaliTracingMarkWrite(MaliTracingMarkWriteFtraceEvent {
                    pid: Some(APP),
                    name: Some("mali_slice".into()),
                    type_: Some(en),
                    ..Default::default()
                }),
            ),
            ev(
                BOOT0 + 9_800,
                BINDER,
                FtraceKind::LwisTracingMarkWrite(LwisTracingMarkWriteFtraceEvent {
                    pid: Some(APP),
                    lwis_name: Some("lwis-csi".into()),
                    func_name: Some("lwis_fn".into()),
                    type_: Some(bg),
                    ..Default::default()
                }),
            ),
            ev(
                BOOT0 + 9_850,
                BINDER,
                FtraceKind::LwisTracingMarkWrite(LwisTracingMarkWriteFtraceEvent {
                    pid: Some(APP),
                    lwis_name: Some("lwis-csi".into()),
                    func_name: Some("lwis_fn".into()),
                    type_: Some(en),
                    ..Default::default()
                }),
            ),
            ev(
                BOOT0 + 9_900,
                BINDER,
                FtraceKind::Zero(ZeroFtraceEvent {
                    flag: Some(4),
                    name: Some("zero_counter".into()),
                    pid: Some(APP),
                    value: Some(9),
                    ..Default::default()
                }),
            ),
        ],
    );
    kernel.lost_events = Some(true);
    packets.push(ftrace_packet(kernel));

    // SurfaceFlinger's FrameTimeline, in CLOCK_MONOTONIC: the first packet
    // sets the sequence default, one later packet names the clock itself.
    let monotonic = BuiltinClock::BUILTIN_CLOCK_MONOTONIC as u32;
    let layer = "TX - com.example.app/com.example.app.MainActivity#0";
    let mut first = ftl(
        mono(BOOT0),
        None,
        FtlEvent::ExpectedSurfaceFrameStart(ExpectedSurfaceFrameStart {
            cookie: Some(3),
            token: Some(42),
            display_frame_token: Some(100),
            pid: Some(APP),
            layer_name: Some(layer.into()),
            ..Default::default()
        }),
    );
    first.set_incremental_state_cleared(true);
    first.trace_packet_defaults =
        MessageField::some(TracePacketDefaults { timestamp_clock_id: Some(monotonic), ..Default::default() });
    packets.push(first);
    packets.push(ftl(
        mono(BOOT0),
        Some(monotonic),
        FtlEvent::ActualSurfaceFrameStart(ActualSurfaceFrameStart {
            cookie: Some(4),
            token: Some(42),
            display_frame_token: Some(100),
            pid: Some(APP),
            layer_name: Some(layer.into()),
            present_type: Some(EnumOrUnknown::new(PresentType::PRESENT_LATE)),
            on_time_finish: Some(false),
            gpu_composition: Some(true),
            jank_type: Some(64 | 128),
            prediction_type: Some(EnumOrUnknown::new(PredictionType::PREDICTION_VALID)),
            jank_severity_type: Some(EnumOrUnknown::new(JankSeverityType::SEVERITY_FULL)),
            ..Default::default()
        }),
    ));
    packets.push(ftl(
        mono(BOOT0 + 10_000),
        None,
        FtlEvent::ExpectedDisplayFrameStart(ExpectedDisplayFrameStart {
            cookie: Some(1),
            token: Some(100),
            pid: Some(SF),
            ..Default::default()
        }),
    ));
    packets.push(ftl(
        mono(BOOT0 + 10_500),
        None,
        FtlEvent::ActualDisplayFrameStart(ActualDisplayFrameStart {
            cookie: Some(2),
            token: Some(100),
            pid: Some(SF),
            present_type: Some(EnumOrUnknown::new(PresentType::PRESENT_ON_TIME)),
            on_time_finish: Some(true),
            gpu_composition: Some(false),
            jank_type: Some(1),
            prediction_type: Some(EnumOrUnknown::new(PredictionType::PREDICTION_VALID)),
            ..Default::default()
        }),
    ));
    packets.push(frame_end(mono(BOOT0 + 16_000), 3));
    packets.push(frame_end(mono(BOOT0 + 26_000), 1));
    packets.push(frame_end(mono(BOOT0 + 27_000), 2));
    packets.push(frame_end(mono(BOOT0 + 30_000), 4));

    // Track events on sequence 3: a process, a thread and a counter track,
    // interned names and categories, a default track for the ends.
    packets.push(packet_with(|p| {
        p.set_trusted_packet_sequence_id(3);
        p.set_sequence_flags(1); // SEQ_INCREMENTAL_STATE_CLEARED
        p.set_previous_packet_dropped(true); // every sequence's first packet says so
        p.set_first_packet_on_sequence(true);
        p.set_timestamp(BOOT0 as u64);
        p.trace_packet_defaults = MessageField::some(TracePacketDefaults {
            track_event_defaults: MessageField::some(TrackEventDefaults { track_uuid: Some(11), ..Default::default() }),
            ..Default::default()
        });
        p.set_track_descriptor(TrackDescriptor {
            uuid: Some(10),
            process: MessageField::some(ProcessDescriptor {
                pid: Some(APP),
                process_name: Some("com.example.app".into()),
                ..Default::default()
            }),
            ..Default::default()
        });
    }));
    packets.push(packet_with(|p| {
        p.set_trusted_packet_sequence_id(3);
        p.set_timestamp(BOOT0 as u64);
        p.set_track_descriptor(TrackDescriptor {
            uuid: Some(11),
            parent_uuid: Some(10),
            thread: MessageField::some(ThreadDescriptor {
                pid: Some(APP),
                tid: Some(TE_THREAD),
                thread_name: Some("te-thread".into()),
                ..Default::default()
            }),
            ..Default::default()
        });
    }));
    packets.push(packet_with(|p| {
        p.set_trusted_packet_sequence_id(3);
        p.set_timestamp(BOOT0 as u64);
        let mut td = TrackDescriptor { uuid: Some(12), parent_uuid: Some(10), ..Default::default() };
        td.set_name("AppCounter".into());
        td.counter = MessageField::some(Default::default());
        p.set_track_descriptor(td);
    }));
    packets.push(track_event(
        BOOT0 + 11_000,
        |te| {
            te.set_track_uuid(11);
            te.set_type(TeType::TYPE_SLICE_BEGIN);
            te.set_name_iid(1);
            te.category_iids = vec![1];
        },
        |p| {
            p.set_sequence_flags(2); // SEQ_NEEDS_INCREMENTAL_STATE
            p.interned_data = MessageField::some(InternedData {
                event_names: vec![EventName { iid: Some(1), name: Some("te-slice".into()), ..Default::default() }],
                event_categories: vec![EventCategory { iid: Some(1), name: Some("gfx".into()), ..Default::default() }],
                ..Default::default()
            });
        },
    ));
    packets.push(track_event(
        BOOT0 + 11_500,
        |te| {
            te.set_track_uuid(11);
            te.set_type(TeType::TYPE_SLICE_BEGIN);
            te.set_name("te-child".into());
            te.categories = vec!["view".into()];
        },
        |_| {},
    ));
    // Ends on the default track; this writer lost packets before this one.
    packets.push(track_event(
        BOOT0 + 11_800,
        |te| te.set_type(TeType::TYPE_SLICE_END),
        |p| p.set_previous_packet_dropped(true),
    ));
    packets.push(track_event(BOOT0 + 12_000, |te| te.set_type(TeType::TYPE_SLICE_END), |_| {}));
    packets.push(track_event(
        BOOT0 + 12_500,
        |te| {
            te.set_type(TeType::TYPE_INSTANT);
            te.set_name_iid(1);
            te.category_iids = vec![1];
        },
        |_| {},
    ));
    packets.push(track_event(
        BOOT0 + 13_000,
        |te| {
            te.set_track_uuid(12);
            te.set_type(TeType::TYPE_COUNTER);
            te.set_counter_value(5);
        },
        |_| {},
    ));
    packets.push(track_event(
        BOOT0 + 13_500,
        |te| {
            te.set_track_uuid(12);
            te.set_type(TeType::TYPE_COUNTER);
            te.set_double_counter_value(2.5);
        },
        |_| {},
    ));

    // A zlib batch with CPU 2's first bundle (valid from before the others).
    packets.push(compressed(vec![ftrace_packet(bundle(
        2,
        Some(BOOT0 + 100),
        vec![print(BOOT0 + 14_000, APP, "B|1000|compressed\n"), print(BOOT0 + 14_500, APP, "E|1000\n")],
    ))]));

    // Statistics at the end of the trace.
    packets.push(packet_with(|p| {
        let ts = TraceStats {
            buffer_stats: vec![
                BufferStats { chunks_overwritten: Some(3), ..Default::default() },
                BufferStats { chunks_overwritten: Some(2), chunks_discarded: Some(6), ..Default::default() },
            ],
            // Refused commits (informational): not data loss.
            chunks_discarded: Some(4),
            patches_discarded: Some(1),
            ..Default::default()
        };
        p.set_trace_stats(ts);
    }));
    let ftrace_stats = |phase: Phase, overruns: &[u64]| {
        packet_with(|p| {
            let mut fs = FtraceStats {
                cpu_stats: overruns
                    .iter()
                    .enumerate()
                    .map(|(cpu, &o)| FtraceCpuStats { cpu: Some(cpu as u64), overrun: Some(o), ..Default::default() })
                    .collect(),
                ..Default::default()
            };
            fs.set_phase(phase);
            p.set_ftrace_stats(fs);
        })
    };
    packets.push(ftrace_stats(Phase::START_OF_TRACE, &[1]));
    packets.push(ftrace_stats(Phase::END_OF_TRACE, &[10, 20]));

    PbTrace { packet: packets, ..Default::default() }
}

fn decoded() -> (Trace, Source) {
    let bytes = build_trace().write_to_bytes().expect("serialize");
    let source = Source::from_bytes("schema.pftrace", bytes).expect("source");
    let (trace, _) = decode(&source, &fpsan::analysis::frame_read_options(fpsan::sink::Sink::quiet())).expect("decode");
    (trace, source)
}

/// (tid, name, depth, parent name, ts, dur, category) of every slice on a thread track.
type SliceRow = (i32, String, u32, Option<String>, i64, i64, Option<String>);

fn thread_slices(t: &Trace) -> Vec<SliceRow> {
    t.slices
        .iter()
        .filter(|s| matches!(t.track(s.track).kind, TrackKind::Thread { .. }))
        .map(|s| {
            (
                t.track_thread(s.track).expect("thread").tid,
                s.name.to_string(),
                s.depth,
                s.parent.map(|p| t.slice(p).name.to_string()),
                s.ts,
                s.dur,
                s.category.as_deref().map(String::from),
            )
        })
        .collect()
}

#[test]
fn slices_from_atrace_kernel_marks_track_events_and_compressed_batches() {
    let (t, _) = decoded();
    let row = |tid, name: &str, depth, parent: Option<&str>, ts, dur, cat: Option<&str>| -> SliceRow {
        (tid, name.into(), depth, parent.map(String::from), ts, dur, cat.map(String::from))
    };
    assert_eq!(
        thread_slices(&t),
        vec![
            row(APP, "Choreographer#doFrame 42", 0, None, BOOT0 + 1_000, 4_000, None),
            row(APP, "traversal", 1, Some("Choreographer#doFrame 42"), BOOT0 + 2_000, 1_000, None),
            row(RENDER, "DrawFrames 42", 0, None, BOOT0 + 6_000, 1_000, None),
            row(POOL, "decode", 0, None, BOOT0 + 8_000, 500, None),
            row(BINDER, "mdss_slice", 0, None, BOOT0 + 9_000, 100, None),
            row(BINDER, "dpu_slice", 0, None, BOOT0 + 9_400, 50, None),
            row(BINDER, "mali_slice", 0, None, BOOT0 + 9_600, 100, None),
            row(BINDER, "lwis_fn", 0, None, BOOT0 + 9_800, 50, None),
            row(TE_THREAD, "te-slice", 0, None, BOOT0 + 11_000, 1_000, Some("gfx")),
            row(TE_THREAD, "te-child", 1, Some("te-slice"), BOOT0 + 11_500, 300, Some("view")),
            row(TE_THREAD, "te-slice", 0, None, BOOT0 + 12_500, 0, Some("gfx")),
            row(APP, "compressed", 0, None, BOOT0 + 14_000, 500, None),
        ]
    );
    assert_eq!(t.slices.len(), 12, "no slice outside thread tracks");
}

#[test]
fn counters_from_atrace_kernel_marks_and_track_events() {
    let (t, _) = decoded();
    let got: Vec<(i64, String, f64, Option<i32>, bool)> = t
        .counters
        .iter()
        .map(|c| {
            let track = t.track(c.track);
            (
                c.ts,
                track.name.as_deref().unwrap_or("").to_string(),
                c.value,
                t.track_process(c.track).map(|p| p.pid),
                matches!(track.kind, TrackKind::ProcessCounter { .. }),
            )
        })
        .collect();
    let c = |ts, name: &str, v| (ts, name.to_string(), v, Some(APP), true);
    assert_eq!(
        got,
        vec![
            c(BOOT0 + 4_000, "jitterNanos", 1500.0),
            c(BOOT0 + 9_200, "sde_counter", 7.0),
            c(BOOT0 + 9_300, "dpu_vote", 123.0),
            c(BOOT0 + 9_500, "g2d_frame_hw#1", 1.0),
            c(BOOT0 + 9_900, "zero_counter", 9.0),
            c(BOOT0 + 13_000, "AppCounter", 5.0),
            c(BOOT0 + 13_500, "AppCounter", 2.5),
        ]
    );
}

#[test]
fn processes_and_threads_with_names_by_priority() {
    let (t, _) = decoded();
    type ProcRow = (i32, Option<String>, Option<String>, Option<i32>, Option<i32>);
    let mut procs: Vec<ProcRow> = t
        .processes
        .iter()
        .map(|p| {
            (p.pid, p.name.as_deref().map(String::from), p.cmdline.as_deref().map(String::from), p.parent_pid, p.uid)
        })
        .collect();
    procs.sort();
    assert_eq!(
        procs,
        vec![
            // Their parent, which the process tree does not list: a process of its own, as in trace_processor.
            (1, None, None, None, None),
            (SF, Some("/system/bin/surfaceflinger".into()), Some("/system/bin/surfaceflinger".into()), Some(1), None),
            (APP, Some("com.example.app".into()), Some("com.example.app --flag".into()), Some(1), Some(10123)),
        ]
    );
    let mut threads: Vec<(i32, Option<i32>, Option<String>)> = t
        .threads
        .iter()
        .map(|th| (th.tid, th.upid.map(|u| t.process(u).pid), th.name.as_deref().map(String::from)))
        .collect();
    threads.sort();
    let named = |s: &str| Some(s.to_string());
    assert_eq!(
        threads,
        vec![
            // The parent's main thread.
            (1, Some(1), None),
            (SF, Some(SF), None),
            // sched_switch comm
            (APP, Some(APP), named("example.app")),
            // process_tree names outrank the kernel's comms
            (RENDER, Some(APP), named("RenderThread")),
            (BINDER, Some(APP), named("binder:1000_1")),
            // compact_sched comm "pool-1", then task_rename
            (POOL, Some(APP), named("decoder")),
            // track descriptor
            (TE_THREAD, Some(APP), named("te-thread")),
        ]
    );
}

#[test]
fn frame_timeline_strings_and_monotonic_to_boottime() {
    let (t, _) = decoded();
    type Row = (
        TimelineKind,
        i64,
        i64,
        i64,
        Option<i64>,
        i32,
        Option<String>,
        [Option<String>; 5],
        Option<bool>,
        Option<bool>,
    );
    let got: Vec<Row> = t
        .frame_timeline
        .iter()
        .map(|f| {
            let s = |v: &Option<fpsan::model::Name>| v.as_deref().map(String::from);
            (
                f.kind,
                f.ts,
                f.dur,
                f.token,
                f.display_frame_token,
                f.pid,
                s(&f.layer_name),
                [
                    s(&f.jank_type),
                    f.present_type.map(|p| p.as_str().to_string()),
                    f.prediction_type.map(|p| p.as_str().to_string()),
                    f.jank_severity_type.map(|p| p.as_str().to_string()),
                    f.jank_tag.map(|p| p.as_str().to_string()),
                ],
                f.on_time_finish,
                f.gpu_composition,
            )
        })
        .collect();
    let layer = Some("TX - com.example.app/com.example.app.MainActivity#0".to_string());
    let strs = |a: &str, b: &str, c: &str, d: &str, e: &str| [a, b, c, d, e].map(|s| Some(s.to_string()));
    assert_eq!(
        got,
        vec![
            (
                TimelineKind::ExpectedSurface,
                BOOT0,
                16_000,
                42,
                Some(100),
                APP,
                layer.clone(),
                [None, None, None, None, None],
                None,
                None
            ),
            (
                TimelineKind::ActualSurface,
                BOOT0,
                30_000,
                42,
                Some(100),
                APP,
                layer,
                strs("App Deadline Missed, Buffer Stuffing", "Late Present", "Valid Prediction", "Full", "Self Jank"),
                Some(false),
                Some(true)
            ),
            (
                TimelineKind::ExpectedDisplay,
                BOOT0 + 10_000,
                16_000,
                100,
                Some(100),
                SF,
                None,
                [None, None, None, None, None],
                None,
                None
            ),
            (
                TimelineKind::ActualDisplay,
                BOOT0 + 10_500,
                16_500,
                100,
                Some(100),
                SF,
                None,
                strs("None", "On-time Present", "Valid Prediction", "None", "No Jank"),
                Some(true),
                Some(false)
            ),
        ]
    );
}

#[test]
fn trace_facts_data_loss_and_statistics() {
    let (t, _) = decoded();
    let m = &t.meta;
    let d = &m.data_loss;
    // The top-level packets (one a zlib batch) + the one inside the batch.
    assert_eq!((m.packets, m.compressed_batches), (build_trace().packet.len() as u64 + 1, 1));
    assert_eq!(m.ftrace_events, 8 + 5 + 12 + 2);
    // sched_switch + sched_waking + 2 compact switches + 1 compact waking.
    assert_eq!(m.sched_events, 5);
    // Every atrace-like event but the one before the valid-data start.
    assert_eq!((m.atrace_events, m.atrace_malformed), (5 + 4 + 12 + 2, 0));
    assert_eq!(m.frame_timeline_events, 8);
    assert_eq!(m.tracing_started_ts, Some(BOOT0 + 100));
    assert_eq!(m.clocks, vec![3, 6]);
    assert_eq!(m.trace_clock, 6);
    // The span covers every source in BOOTTIME (FrameTimeline and a service
    // event converted from MONOTONIC), dated long-tail packets included.
    assert_eq!((m.first_ts, m.last_ts), (Some(BOOT0 - 50), Some(BOOT0 + 31_000)));
    assert_eq!(m.android.build_fingerprint.as_deref(), Some("google/fpsan/test:16/BP1A/1:user/release-keys"));
    assert_eq!(m.android.sdk_version, Some(36));
    assert_eq!(m.android.device.as_deref(), Some("Google"));
    let mut sources: Vec<&str> = m.data_sources.iter().map(|s| s.as_str()).collect();
    sources.sort();
    assert_eq!(
        sources,
        [
            "atrace",
            "clock_snapshot",
            "compact_sched",
            "frame_timeline",
            "ftrace",
            "process_tree",
            "sched",
            "system_info",
            "track_event"
        ]
    );
    assert_eq!(d.packets_dropped_sequences, 1, "the first packet's flag is not a loss, the later one is");
    assert_eq!(d.ftrace_lost_event_bundles, 1);
    // The flagged bundle (CPU 0's second) lost events after its
    // previous_bundle_end and before its first event.
    let gap = fpsan::model::LossGap { cpu: 0, from: BOOT0 + 5_900, to: BOOT0 + 9_000, events: None };
    assert_eq!(d.gaps, [gap]);
    assert_eq!(d.ftrace_lost_events, 0, "a Perfetto bundle's flag has no count");
    assert_eq!(d.ftrace_overrun, 30, "END_OF_TRACE totals win over START_OF_TRACE");
    assert_eq!(d.trace_buffer_overruns, 5);
    assert_eq!((d.chunks_discarded, d.patches_discarded), (6, 1), "per-buffer DISCARD losses, not refused commits");
    assert_eq!(d.truncated_bytes, 0);
    assert_eq!(d.unmatched_ends, 0);
    assert_eq!(d.events_before_start, 1);
}

#[test]
fn sched_events_for_chosen_threads() {
    let (_, source) = decoded();
    let got = sched_for_threads(&source, &[APP, BINDER, POOL]).expect("sched");
    // One vector per thread, by tid (APP < BINDER < POOL), each by time.
    assert_eq!(
        got,
        vec![
            vec![SchedRecord::SwitchIn { ts: BOOT0 + 300, tid: APP, cpu: 0 }],
            // compact_sched: woken at the time CPU 1's switch to the idle
            // task happened (the switch counts first): by the idle task.
            vec![SchedRecord::Waking { ts: BOOT0 + 6_600, tid: BINDER, waker: Waker::of(Some(0)) }],
            // CPU 1's first compact switch (to POOL at 6_500) is dropped, as
            // trace_processor drops a CPU's first compact switch (its
            // previous task is unknown); the switch out of POOL stays.
            vec![SchedRecord::SwitchOut { ts: BOOT0 + 6_600, tid: POOL, cpu: 1, prev_state: 1 }],
        ]
    );
    let render = sched_for_threads(&source, &[RENDER]).expect("sched");
    // A sched_waking whose common pid is the app's main thread: woken by it.
    let by_app = SchedRecord::Waking { ts: BOOT0 + 5_500, tid: RENDER, waker: Waker::of(Some(APP)) };
    assert_eq!(render, vec![vec![by_app]]);
}
