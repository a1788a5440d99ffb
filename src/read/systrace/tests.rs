use std::borrow::Cow;

use super::container::{sniff, undo_crlf, unpack};
use super::dump::{parse_process_dump, DumpEntry, ProcessDump};
use super::event::*;
use super::line::{contains, lines, parse_line, scan, Line, ScanStats};
use super::streams::UnpackError;
use crate::model::{CaptureInfo, Container, Warning, WarningCode};
use crate::read::records::{CpuSpan, LostNote};
use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

fn line(s: &str) -> Line<'_> {
    parse_line(s).unwrap_or_else(|| panic!("not parsed: {s:?}"))
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn base64(data: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            let c = if i <= chunk.len() { ABC[(n >> (18 - 6 * i)) as usize & 63] as char } else { '=' };
            out.push(c);
        }
    }
    out
}

/// Events of a text, typed, with their lines.
fn events(text: &[u8]) -> Vec<(Line<'static>, String)> {
    let mut out = Vec::new();
    scan(text, |l| {
        let leaked: &'static str = Box::leak(format!("{}|{}|{}", l.comm, l.event, l.args).into_boxed_str());
        let mut parts = leaked.splitn(3, '|');
        let (comm, event, args) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
        out.push((Line { comm, event, args, ..*l }, l.args.to_string()));
    });
    out
}

#[test]
fn line_variants_from_trace_processor_tests() {
    // test/trace_processor/diff_tests/parser/atrace/bad_print.systrace (perfetto)
    let l = line("  surfaceflinger-598   (  598) [004] .... 10852.771242: tracing_mark_write: B|598|some event");
    let want = Line {
        comm: "surfaceflinger",
        tid: 598,
        tgid: Some(598),
        cpu: 4,
        ts: 10_852_771_242_000,
        event: "tracing_mark_write",
        args: "B|598|some event",
    };
    assert_eq!(l, want);
    let l = line("           <...>-882   (  882) [003] .... 10852.771186: event: event: abc xyz =0x34 clk id = 019");
    assert_eq!(
        (l.comm, l.tid, l.cpu, l.event, l.args),
        ("<...>", 882, 3, "event", "event: abc xyz =0x34 clk id = 019")
    );
    assert_eq!(parse_line("some = 000, other = 0x4"), None);
    assert_eq!(parse_line("xyz = 0x0 abc = 0x0"), None);
    // parser/atrace/tests.py test_regex_pattern_no_gap_after_irq_flags: flags glued to the timestamp.
    let l = line("kworker/u16:1-77    (   77) [004] ....316.196720: tracing_mark_write: B|77|no_gap_after_dots");
    assert_eq!((l.comm, l.tid, l.tgid, l.ts), ("kworker/u16:1", 77, Some(77), 316_196_720_000));
    let l = line("kworker/u16:2-78    (   78) [005] .... 316.196730: tracing_mark_write: B|78|space_after_dots");
    assert_eq!((l.cpu, l.ts), (5, 316_196_730_000));
    let l = line("test-process-123    (  123) [002] d...316.196740: tracing_mark_write: B|123|no_gap_after_flags");
    assert_eq!((l.comm, l.tid, l.cpu, l.ts), ("test-process", 123, 2, 316_196_740_000));
    let l = line("<idle>-0     [000]  0.002188: tracing_mark_write: E|77");
    assert_eq!((l.comm, l.tid, l.tgid, l.cpu, l.ts, l.args), ("<idle>", 0, None, 0, 2_188_000, "E|77"));
    // test_cpus_header_with_digits_only: the tid follows the dash where the rest fits.
    let l = line("task-1234-567    ( 567) [000] ....   100.000000: tracing_mark_write: B|567|task_work");
    assert_eq!((l.comm, l.tid, l.tgid, l.ts), ("task-1234", 567, Some(567), 100_000_000_000));
    // test_hex_preempt_count: five flag characters, the fourth a hex digit.
    let l = line("chrome-10830 ( 10830) [000] dNsa. 4213.033572: tracing_mark_write: B|10830|hex_preempt");
    assert_eq!((l.tid, l.ts, l.args), (10830, 4_213_033_572_000, "B|10830|hex_preempt"));
    // parser/parsing/sched_blocked_systrace.systrace: tgid "(-----)" is unknown.
    let l = line("          <idle>-0     (-----) [006] d..3    20.258855: sched_blocked_reason: pid=269 iowait=0 caller=worker_thread+0x534/0x820");
    assert_eq!((l.tgid, l.cpu, l.ts, l.event), (None, 6, 20_258_855_000, "sched_blocked_reason"));
    assert_eq!(l.args, "pid=269 iowait=0 caller=worker_thread+0x534/0x820");
    // parser/process_tracking/unknown_thread_name.systrace: no tgid column.
    let l = line("           <...>-19999 [001] d..3  1234.000002: sched_wake_idle_without_ipi: cpu=2");
    assert_eq!((l.comm, l.tid, l.tgid, l.cpu, l.ts), ("<...>", 19999, None, 1, 1_234_000_002_000));
    // parser/sched/cpu_frequency_limits.systrace
    let l = line(
        "       <unknown>-200   (-----) [000] .... 0.090000: cpu_frequency_limits: min=500000 max=2800000 cpu_id=6",
    );
    assert_eq!((l.comm, l.tid, l.ts, l.args), ("<unknown>", 200, 90_000_000, "min=500000 max=2800000 cpu_id=6"));
    // parser/android/tests.py test_binder_txn_sync_good: five flags, no tgid.
    let l = line("          client-521390  [005] ..... 137012.464739: binder_command: cmd=0x40406300 BC_TRANSACTION");
    assert_eq!((l.comm, l.tid, l.tgid, l.cpu, l.ts), ("client", 521390, None, 5, 137_012_464_739_000));
    assert_eq!((l.event, l.args), ("binder_command", "cmd=0x40406300 BC_TRANSACTION"));
}

#[test]
fn line_variants_from_catapult_and_real_captures() {
    // catapult systrace/test_data/decompressed_atrace_data.txt (= the shared real capture), lines 12 and 14.
    let l = line("           <...>-19161 (-----) [001] ...1 683201.354908: tracing_mark_write: trace_event_clock_sync: parent_ts=683201.375000");
    assert_eq!((l.comm, l.tid, l.tgid, l.cpu, l.ts), ("<...>", 19161, None, 1, 683_201_354_908_000));
    assert_eq!(l.args, "trace_event_clock_sync: parent_ts=683201.375000");
    let l = line(
        " ndroid.systemui-13580 (13580) [001] ...1 683202.104223: tracing_mark_write: S|13580|deliverInputEvent|263",
    );
    assert_eq!((l.comm, l.tid, l.tgid), ("ndroid.systemui", 13580, Some(13580)));
    // bamlab/flashlight sample-atrace-output.txt (the shared capture): anonymised comm.
    let l = line(" com.example-123456  (-----) [000] .... 1031124.476377: tracing_mark_write: B|2507|Choreographer#doFrame 16149055");
    assert_eq!((l.comm, l.tid, l.ts), ("com.example", 123456, 1_031_124_476_377_000));
    assert_eq!(l.args, "B|2507|Choreographer#doFrame 16149055");
    // catapult tracing/test_data/android_systrace.html (2012): no tgid, no flags, a comm with spaces.
    let l = line(" Smack Packet Wr-1272  [000] 50261.510210: sched_switch: prev_comm=Smack Packet Wr prev_pid=1272 prev_prio=130 prev_state=S ==> next_comm=swapper next_pid=0 next_prio=120");
    assert_eq!(
        (l.comm, l.tid, l.tgid, l.ts, l.event),
        ("Smack Packet Wr", 1272, None, 50_261_510_210_000, "sched_switch")
    );
    let l = line(" irq/409-inv_irq-99    [000] 50260.767463: sched_wakeup: comm=SensorService pid=373 prio=112 success=1 target_cpu=000");
    assert_eq!((l.comm, l.tid), ("irq/409-inv_irq", 99));
    let l = line("           dummy-0000  [000] 0.0: 0: trace_event_clock_sync: parent_ts=0.0");
    assert_eq!((l.comm, l.tid, l.ts, l.event, l.args), ("dummy", 0, 0, "0", "trace_event_clock_sync: parent_ts=0.0"));
    // catapult systrace/test_data/atrace_data: the task at the line start.
    let l = line("atrace-14446 [000] ...2  1212.465062: sched_switch: prev_comm=atrace prev_pid=14446 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120");
    assert_eq!((l.comm, l.tid, l.ts), ("atrace", 14446, 1_212_465_062_000));
    // Constructed: systemd's "(sd-pam)" comm; a CR line end; nanosecond and over-long fractions.
    let l = line("(sd-pam)-1234  ( 1234) [001] .... 5.000001: sched_process_exit: comm=(sd-pam) pid=1234 prio=120");
    assert_eq!((l.comm, l.tid, l.tgid), ("(sd-pam)", 1234, Some(1234)));
    assert_eq!(line("<idle>-0     [000] ...1    0.002188: tracing_mark_write: E|77\r").args, "E|77");
    assert_eq!(line("a-1 [000] 1.123456789: e: x").ts, 1_123_456_789);
    assert_eq!(line("a-1 [000] 1.1234567891: e: x").ts, 1_123_456_789);
    assert_eq!(line("a-1 [000] 2.5: e:").args, "");
}

#[test]
fn lines_that_are_not_events() {
    for s in [
        "",
        "   ",
        "cpus=8",
        "# tracer: nop",
        "#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION",
        "#              | |        |      |   ||||       |         |",
        "##### CPU 2 buffer started ####",
        "CPU:2 [LOST 123 EVENTS]",
        "foo-12 [000] 1.5 bar: x",         // no colon after the timestamp
        "foo-12 [000] 1.5: x",             // no colon after the event name
        "foo-12  ( 1)  [000] 1.5: x: y",   // two spaces before the cpu: the pattern allows one
        "foo-12 [000] d.: 1.5: x: y",      // three flag characters
        "foo-12 (1) [x] 1.5: x: y",        // cpu not a number
        "foo-4294967296 [000] 1.0: x: y",  // tid past u32 (trace_processor) and i32
        "foo-2147483648 [000] 1.0: x: y",  // tid past i32
        "foo-1 [4294967296] 1.0: x: y",    // cpu past u32
        "foo-1 [000] 99999999999.0: x: y", // seconds past i64 nanoseconds
        "foo-1 [000] 1.0:x: y",            // no space after the timestamp
    ] {
        assert_eq!(parse_line(s), None, "{s:?}");
    }
}

#[test]
fn hostile_lines_end_quickly() {
    let started = Instant::now();
    let mut big = vec!["-".repeat(1 << 20), "-1 ".repeat(300_000), "-1 [0] 1.1: ".repeat(100_000)];
    big.push(format!("{}-1 [0] 1.0: e: a", "x".repeat(1 << 20)));
    big.push(format!("-{} [0] 1.0: e: a", "9".repeat(1 << 20)));
    big.push(format!("-1 [0] {}.5: e: a", "1".repeat(1 << 20)));
    big.push(format!("-1 ({} [0] 1.5: e: a", " ".repeat(1 << 20)));
    big.push(format!("-1 [0] 1.5: {}", ":".repeat(1 << 20)));
    let parsed: Vec<bool> = big.iter().map(|s| parse_line(s).is_some()).collect();
    // "-1 ( [0]" fits the pattern: `\(?\s*(\d+|-+)?\)?\s?\[`.
    assert_eq!(parsed, [false, false, false, true, false, false, true, true]);
    assert_eq!(parse_line(&big[3]).unwrap().comm.len(), 1 << 20);
    assert!(started.elapsed().as_secs() < 5, "took {:?}", started.elapsed());
}

#[test]
fn sched_switch_args() {
    // catapult tracing/test_data/android_systrace.txt
    let s = parse_sched_switch("prev_comm=atrace prev_pid=14662 prev_prio=120 prev_state=S ==> next_comm=kworker/0:0 next_pid=13696 next_prio=120");
    let want = SchedSwitch {
        prev_comm: "atrace",
        prev_pid: 14662,
        prev_prio: 120,
        prev_state: Some(1),
        next_comm: "kworker/0:0",
        next_pid: 13696,
        next_prio: 120,
    };
    assert_eq!(s, Some(want));
    // android_systrace.html lines 990-991: comms with spaces on either side.
    let s = parse_sched_switch("prev_comm=Smack Packet Wr prev_pid=1272 prev_prio=130 prev_state=S ==> next_comm=swapper next_pid=0 next_prio=120").unwrap();
    assert_eq!((s.prev_comm, s.prev_pid, s.prev_prio, s.next_comm), ("Smack Packet Wr", 1272, 130, "swapper"));
    let s = parse_sched_switch("prev_comm=swapper prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=Smack Packet Wr next_pid=1272 next_prio=130").unwrap();
    assert_eq!((s.prev_state, s.next_comm, s.next_pid, s.next_prio), (Some(0), "Smack Packet Wr", 1272, 130));
    // perfetto sched_blocked_systrace.systrace
    let s = parse_sched_switch(
        "prev_comm=swapper/6 prev_pid=0 prev_prio=120 prev_state=D ==> next_comm=foo next_pid=269 next_prio=130",
    )
    .unwrap();
    assert_eq!((s.prev_comm, s.prev_state, s.next_comm, s.next_pid), ("swapper/6", Some(2), "foo", 269));
    // An invalid state keeps the switch, without a state.
    let s = parse_sched_switch(
        "prev_comm=a prev_pid=1 prev_prio=120 prev_state=Q ==> next_comm=b next_pid=2 next_prio=120",
    )
    .unwrap();
    assert_eq!(s.prev_state, None);
    let s =
        parse_sched_switch("prev_comm=a prev_pid=1 prev_prio=120 prev_state= ==> next_comm=b next_pid=2 next_prio=-1")
            .unwrap();
    assert_eq!((s.prev_state, s.next_prio), (None, -1));
    assert_eq!(
        parse_sched_switch("prev_comm=a prev_pid=1 prev_prio=120 prev_state=S next_comm=b next_pid=2 next_prio=1"),
        None
    );
    assert_eq!(
        parse_sched_switch("prev_comm=a prev_pid=x prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=1"),
        None
    );
    assert_eq!(
        parse_sched_switch("prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=1"),
        None
    );
}

#[test]
fn prev_state_letters() {
    // Accepted and refused exactly as TaskState(const char*) in perfetto's task_state.cc.
    let cases = [
        ("R", Some(0)),
        ("R+", Some(0)),
        ("S", Some(1)),
        ("D", Some(2)),
        ("T", Some(4)),
        ("t", Some(8)),
        ("X", Some(0x10)),
        ("Z", Some(0x20)),
        ("P", Some(0x40)),
        ("I", Some(0x80)),
        ("D|K", Some(2)),
        ("DK", Some(2)),
        ("D|N", Some(0x80)),
        ("D|K|N", Some(2)),
        ("x", Some(0x10)),
        ("S|W", Some(1)),
        ("K", Some(0)),
        ("", None),
        ("Q", None),
        ("S+", None),
        ("SR", None),
        ("d", None),
    ];
    for (s, want) in cases {
        assert_eq!(prev_state_mask(s), want, "{s:?}");
    }
}

#[test]
fn waking_args() {
    // catapult tracing/test_data/android_systrace.txt (kernel 3.x: success=)
    let w = parse_waking("comm=mmcqd/0 pid=95 prio=120 success=1 target_cpu=000");
    assert_eq!(w, Some(Waking { comm: "mmcqd/0", pid: 95, prio: 120, target_cpu: Some(0) }));
    // android_systrace.html line 989
    let w = parse_waking("comm=Smack Packet Wr pid=1272 prio=130 success=1 target_cpu=000").unwrap();
    assert_eq!((w.comm, w.pid), ("Smack Packet Wr", 1272));
    // Kernel >= 4 format "comm=%s pid=%d prio=%d target_cpu=%03d" (include/trace/events/sched.h).
    let w = parse_waking("comm=RenderThread pid=18964 prio=110 target_cpu=005").unwrap();
    assert_eq!((w.comm, w.pid, w.prio, w.target_cpu), ("RenderThread", 18964, 110, Some(5)));
    let w = parse_waking("comm=foo pid=1 prio=120 success=1").unwrap();
    assert_eq!(w.target_cpu, None);
    assert_eq!(parse_waking("comm=foo pid=1 prio=120 target_cpu=x"), None);
    assert_eq!(parse_waking("pid=1 prio=120 target_cpu=1"), None);
}

#[test]
fn a_wakings_waker_is_the_task_of_its_line() {
    use crate::read::records::{SchedRecord, Waker};
    let text = "# tracer: nop\n#\n\
  RenderThread-11393 (11370) [006] d..3 19529.453896: sched_waking: comm=e.perfetto.dbui pid=11377 prio=110 target_cpu=001\n\
          <idle>-0     (-----) [002] dNh3 19529.500000: sched_waking: comm=e.perfetto.dbui pid=11377 prio=110 target_cpu=002\n\
           <...>-1500  (-----) [003] d..3 19529.600000: sched_wakeup: comm=RenderThread pid=11393 prio=110 target_cpu=003\n\
           <...>-1500  (-----) [003] d..3 19529.700000: sched_waking: comm=kworker pid=77 prio=120 target_cpu=003\n";
    let records = super::sched_for_threads(text.as_bytes(), &[11377, 11393], u64::MAX, &|_| {});
    let waking = |ts, tid, waker| SchedRecord::Waking { ts, tid, waker: Waker::of(Some(waker)) };
    assert_eq!(
        records,
        [
            waking(19_529_453_896_000, 11377, 11393),
            // `<idle>-0`: a wakeup from an interrupt, by the idle task.
            waking(19_529_500_000_000, 11377, 0),
            // sched_wakeup makes no record (trace_processor's thread states
            // take none from it).
        ]
    );
}

#[test]
fn task_and_exit_args() {
    // Formats from include/trace/events/task.h and sched.h.
    let t = parse_task_newtask("pid=1234 comm=zygote64 clone_flags=1200011 oom_score_adj=-1000");
    assert_eq!(
        t,
        Some(TaskNewtask { pid: 1234, comm: "zygote64", clone_flags: 0x1200011, oom_score_adj: Some(-1000) })
    );
    let t = parse_task_newtask("pid=7 comm=Jit thread pool clone_flags=3d0f00 oom_adj=0").unwrap();
    assert_eq!((t.comm, t.clone_flags, t.oom_score_adj), ("Jit thread pool", 0x3d0f00, Some(0)));
    assert_eq!(parse_task_newtask("pid=7 comm=a clone_flags=zz oom_score_adj=0"), None);
    let r = parse_task_rename("pid=1234 oldcomm=zygote64 newcomm=RenderThread oom_score_adj=0", 99);
    assert_eq!(
        r,
        Some(TaskRename { pid: 1234, old_comm: "zygote64", new_comm: "RenderThread", oom_score_adj: Some(0) })
    );
    // Linux 6.13 dropped pid=: the writer is the renamed task.
    let r = parse_task_rename("oldcomm=Thread-2 newcomm=Jit thread pool oom_score_adj=-800", 4321).unwrap();
    assert_eq!((r.pid, r.old_comm, r.new_comm, r.oom_score_adj), (4321, "Thread-2", "Jit thread pool", Some(-800)));
    let p = parse_process_end("comm=kworker/u16:2 pid=9876 prio=120");
    assert_eq!(p, Some(ProcessEnd { comm: "kworker/u16:2", pid: 9876, prio: 120, group_dead: None }));
    let p = parse_process_end("comm=sh pid=555 prio=120 group_dead=true").unwrap();
    assert_eq!((p.comm, p.group_dead), ("sh", Some(true)));
    assert_eq!(parse_process_end("comm=sh pid=555 prio=120 group_dead=maybe"), None);
}

#[test]
fn parse_event_dispatch() {
    let text = concat!(
            "  a-10 ( 10) [000] d..2 1.000001: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=b c next_pid=11 next_prio=120\n",
            "  a-10 ( 10) [000] d..2 1.000002: sched_waking: comm=b c pid=11 prio=120 target_cpu=001\n",
            "  a-10 ( 10) [000] d..2 1.000003: sched_wakeup: comm=b c pid=11 prio=120 target_cpu=001\n",
            "  a-10 ( 10) [000] d..2 1.000004: sched_wakeup_new: comm=d pid=12 prio=120 target_cpu=002\n",
            "  a-10 ( 10) [000] .... 1.000005: task_newtask: pid=12 comm=a clone_flags=3d0f00 oom_score_adj=0\n",
            "  d-12 ( 10) [002] .... 1.000006: task_rename: oldcomm=a newcomm=d oom_score_adj=0\n",
            "  d-12 ( 10) [002] .... 1.000007: sched_process_exit: comm=d pid=12 prio=120\n",
            "  a-10 ( 10) [000] .... 1.000008: sched_process_free: comm=d pid=12 prio=120\n",
            "  a-10 ( 10) [000] .... 1.000009: tracing_mark_write: B|10|frame\n",
            "  a-10 ( 10) [000] .... 1.000010: 0: E|10\n",
            "  a-10 ( 10) [000] .... 1.000011: print: tracing_mark_write: C|10|n|5\n",
            "  a-10 ( 10) [000] .... 1.000012: sched_switch: garbage\n",
            "  a-10 ( 10) [000] .... 1.000013: cpu_idle: state=1 cpu_id=0\n",
        );
    let mut kinds = Vec::new();
    let stats = scan(text.as_bytes(), |l| {
        kinds.push(match parse_event(l) {
            Event::SchedSwitch(s) => format!("switch {} {}", s.next_comm, s.next_pid),
            Event::SchedWaking(w) => format!("waking {} {}", w.comm, w.pid),
            Event::SchedWakeup(w) => format!("wakeup {}", w.pid),
            Event::SchedWakeupNew(w) => format!("wakeup_new {:?}", w.target_cpu),
            Event::TaskNewtask(t) => format!("newtask {} {:x}", t.pid, t.clone_flags),
            Event::TaskRename(r) => format!("rename {} {}", r.pid, r.new_comm),
            Event::ProcessExit(p) => format!("exit {}", p.pid),
            Event::ProcessFree(p) => format!("free {}", p.pid),
            Event::Print(p) => format!("print {p}"),
            Event::Malformed => "malformed".to_string(),
            Event::Other => "other".to_string(),
        })
    });
    let want = [
        "switch b c 11",
        "waking b c 11",
        "wakeup 11",
        "wakeup_new Some(2)",
        "newtask 12 3d0f00",
        "rename 12 d",
        "exit 12",
        "free 12",
        "print B|10|frame",
        "print E|10",
        "print C|10|n|5",
        "malformed",
        "other",
    ];
    assert_eq!(kinds, want);
    assert_eq!((stats.events, stats.unparsed), (13, 0));
}

#[test]
fn scan_reads_header_notes_and_damage() {
    let text = [
            &b"# tracer: nop\n#\n# entries-in-buffer/entries-written: 5/9   #P:4\n#\n"[..],
            &b"#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n"[..],
            &b"##### CPU 2 buffer started ####\n"[..],
            &b"          <idle>-0     (-----) [002] d..3   100.000001: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=5 next_prio=120\r\n"[..],
            &b"##### CPU 1 buffer started ####\n"[..],
            &b"               a-5     (    5) [001] ....   100.000002: tracing_mark_write: B|5|x\r\n"[..],
            &b"CPU:3 [LOST 17 EVENTS]\n"[..],
            &b"garbage line\n"[..],
            &b"  b\xff-6 ( 6) [000] .... 100.000003: tracing_mark_write: E|6\n\n"[..],
        ]
        .concat();
    let text = &text[..];
    let mut seen = Vec::new();
    let stats = scan(text, |l| seen.push((l.comm.to_string(), l.tid, l.args.to_string())));
    assert_eq!(seen[1], ("a".to_string(), 5, "B|5|x".to_string()));
    assert_eq!(seen[2], ("b\u{fffd}".to_string(), 6, "E|6".to_string()));
    let counts = (stats.lines, stats.events, stats.unparsed, stats.lossy_lines);
    assert_eq!(counts, (13, 3, 1, 1));
    assert_eq!(stats.first_unparsed.as_deref(), Some("garbage line"));
    assert_eq!((stats.entries_in_buffer, stats.entries_written, stats.cpus), (Some(5), Some(9), Some(4)));
    assert_eq!(stats.overflowed_cpus, [2, 1]);
    // The note names CPU 3, which has no event before or after it here.
    assert_eq!(stats.lost, [LostNote { cpu: 3, events: 17, after: None, before: None }]);
    let spans = [
        CpuSpan { cpu: 0, first: 100_000_003_000, last: 100_000_003_000 },
        CpuSpan { cpu: 1, first: 100_000_002_000, last: 100_000_002_000 },
        CpuSpan { cpu: 2, first: 100_000_001_000, last: 100_000_001_000 },
    ];
    assert_eq!(stats.cpu_spans(), spans);
}

#[test]
fn a_lost_events_note_has_its_cpus_events_either_side() {
    let line = |cpu: u32, us: u32| format!("a-5 (5) [{cpu:03}] .... 100.{us:06}: tracing_mark_write: E|5\n");
    let text = [
        line(1, 10),
        line(0, 11),
        line(1, 12),
        "CPU:1 [LOST 4 EVENTS]\n".to_string(),
        line(0, 20),
        line(1, 30),
        line(1, 31),
        "CPU:0 [LOST 2 EVENTS]\n".to_string(),
        // Another note before CPU 0's next event: the same gap.
        "CPU:0 [LOST 3 EVENTS]\n".to_string(),
        format!("CPU:{} [LOST 1 EVENTS]\n", super::line::MAX_TRACKED_CPU),
    ]
    .concat();
    let stats = scan(text.as_bytes(), |_| {});
    let ns = |us: i64| 100_000_000_000 + us * 1_000;
    let want = [
        LostNote { cpu: 1, events: 4, after: Some(ns(12)), before: Some(ns(30)) },
        LostNote { cpu: 0, events: 5, after: Some(ns(20)), before: None },
        LostNote { cpu: super::line::MAX_TRACKED_CPU, events: 1, after: None, before: None },
    ];
    assert_eq!(stats.lost, want);
    let spans = [CpuSpan { cpu: 0, first: ns(11), last: ns(20) }, CpuSpan { cpu: 1, first: ns(10), last: ns(31) }];
    assert_eq!(stats.cpu_spans(), spans);
}

/// A shared real capture, or `None` (with the reason printed) when the
/// folder is absent; FPSAN_REQUIRE_SHARED=1 makes absence a failure.
fn shared(name: &str) -> Option<Vec<u8>> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces").join(name);
    match std::fs::read(&path) {
        Ok(data) => Some(data),
        Err(e) if std::env::var("FPSAN_REQUIRE_SHARED").as_deref() == Ok("1") => {
            panic!("{}: {e} (FPSAN_REQUIRE_SHARED=1)", path.display())
        }
        Err(e) => {
            eprintln!("skipping: {} is not readable ({e})", path.display());
            None
        }
    }
}

/// Events per name, counted a different way: the word after the first
/// `<digits>.<digits>:` word, without its colon.
fn count_by_words(text: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for l in text.lines().filter(|l| !l.starts_with('#')) {
        let mut words = l.split_whitespace();
        let is_ts = |w: &str| {
            w.strip_suffix(':').and_then(|t| t.split_once('.')).is_some_and(|(a, b)| {
                !a.is_empty() && !b.is_empty() && (a.to_owned() + b).bytes().all(|c| c.is_ascii_digit())
            })
        };
        if words.by_ref().any(is_ts) {
            if let Some(ev) = words.next() {
                *counts.entry(ev.trim_end_matches(':').to_string()).or_default() += 1;
            }
        }
    }
    counts
}

/// Unpack, scan and count a real capture, checked against the word count.
fn check_capture(data: &[u8]) -> (ScanStats, Vec<Line<'static>>, BTreeMap<String, usize>) {
    assert!(sniff(data));
    let unpacked = unpack(data, 1 << 30).unwrap();
    assert_eq!(unpacked.format, Container::SystraceText);
    assert!(matches!(unpacked.ftrace, Cow::Borrowed(_)));
    assert!(unpacked.warnings.is_empty() && unpacked.skipped.is_empty());
    let mut by_event: BTreeMap<String, usize> = BTreeMap::new();
    let stats = scan(&unpacked.ftrace, |l| *by_event.entry(l.event.to_string()).or_default() += 1);
    let text = std::str::from_utf8(data).unwrap();
    assert_eq!(by_event, count_by_words(text));
    assert_eq!(by_event["tracing_mark_write"], text.matches(": tracing_mark_write: ").count());
    let lines = events(&unpacked.ftrace).into_iter().map(|(l, _)| l).collect();
    (stats, lines, by_event)
}

#[test]
fn real_catapult_capture() {
    let Some(data) = shared("real-atrace-catapult-decompressed.txt") else { return };
    let (stats, lines, by_event) = check_capture(&data);
    // The header says 1042 entries on 6 CPUs, all of them kept.
    assert_eq!(by_event.len(), 1);
    assert_eq!((stats.events, stats.unparsed, stats.lines), (1042, 0, 1053));
    assert_eq!((stats.entries_in_buffer, stats.entries_written, stats.cpus), (Some(1042), Some(1042), Some(6)));
    assert_eq!(lines.iter().filter(|l| l.tgid.is_some()).count(), 4);
    let mut per_cpu = [0; 6];
    lines.iter().for_each(|l| per_cpu[l.cpu as usize] += 1);
    assert_eq!(per_cpu, [56, 142, 27, 160, 296, 361]);
    assert_eq!((lines[0].ts, lines[1041].ts), (683_201_354_908_000, 683_202_352_760_000));
    assert!(lines.iter().all(|l| matches!(parse_event(l), Event::Print(_))));
}

#[test]
fn real_flashlight_capture() {
    let Some(data) = shared("real-atrace-flashlight-sample.txt") else { return };
    let (stats, lines, _) = check_capture(&data);
    assert_eq!((stats.events, stats.unparsed, stats.lines, stats.cpus), (1263, 0, 1263, None));
    assert!(lines.iter().all(|l| (l.comm, l.tid, l.tgid) == ("com.example", 123456, None)));
    let mut per_cpu = [0; 4];
    lines.iter().for_each(|l| per_cpu[l.cpu as usize] += 1);
    assert_eq!(per_cpu, [1007, 200, 24, 32]);
    assert_eq!((lines[0].ts, lines[1262].ts), (1_031_124_476_312_000, 1_031_127_102_664_000));
    let phase =
        |p: char| lines.iter().filter(|l| parse_event(l) == Event::Print(l.args) && l.args.starts_with(p)).count();
    assert_eq!((phase('B'), phase('E')), (631, 632));
}

const FTRACE_CRLF: &str = concat!(
    "# tracer: nop\r\n#\r\n",
    "#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\r\n",
    "  surfaceflinger-598   (  598) [004] .... 10852.771242: tracing_mark_write: B|598|some event\r\n",
    "  surfaceflinger-598   (  598) [004] .... 10852.771245: tracing_mark_write: E|598\r\n",
);

fn trace_data(body: &str) -> String {
    format!("  <script class=\"trace-data\" type=\"application/text\">\r\n{body}  </script>\r\n")
}

fn html(blocks: &[String]) -> String {
    format!(
        "<!DOCTYPE html>\r\n<html>\r\n<head><script>var viewer = \"<script>\";</script></head>\r\n<body>\r\n\
             <!-- BEGIN TRACE -->\r\n{}<!-- END TRACE -->\r\n</body>\r\n</html>\r\n",
        blocks.concat()
    )
}

#[test]
fn html_with_ftrace_dump_and_json() {
    let dump = concat!(
        "PROCESS DUMP\r\n",
        "USER           PID  PPID     VSZ    RSS WCHAN  PC S NAME          COMM\r\n",
        "system         598     1   0    0 SyS_epoll_wait 0 S /system/bin/surfaceflinger   surfaceflinger\r\n",
        "USER           PID   TID CMD\r\n",
        "system         598   598 surfaceflinger\r\n",
        "system         598   612 Binder:598_1\r\n",
    );
    let page =
        html(&[trace_data(FTRACE_CRLF), trace_data(dump), trace_data("{\"traceEvents\": [], \"metadata\": {}}\r\n")]);
    let u = unpack(page.as_bytes(), 1 << 20).unwrap();
    assert_eq!(u.format, Container::SystraceHtml);
    assert!(matches!(u.ftrace, Cow::Borrowed(_)));
    assert_eq!(&u.ftrace[..], FTRACE_CRLF.as_bytes());
    let p = |pid, ppid, name: &str| DumpEntry { pid, tid: None, ppid: Some(ppid), name: name.into(), is_thread: false };
    let t = |pid, tid, name: &str| DumpEntry { pid, tid: Some(tid), ppid: None, name: name.into(), is_thread: true };
    let want =
        vec![p(598, 1, "/system/bin/surfaceflinger"), t(598, 598, "surfaceflinger"), t(598, 612, "Binder:598_1")];
    assert_eq!(u.process_dump, ProcessDump { entries: want, junk_lines: 0 });
    // The JSON block is read for the capture's metadata (it has none), not skipped.
    assert!(u.skipped.is_empty(), "{:?}", u.skipped);
    assert_eq!(u.capture, CaptureInfo::default());
    assert!(u.warnings.is_empty(), "{:?}", u.warnings);
    let ev = events(&u.ftrace);
    assert_eq!(ev.iter().map(|(_, a)| a.as_str()).collect::<Vec<_>>(), ["B|598|some event", "E|598"]);
}

#[test]
fn html_from_a_real_report() {
    // aosp-mirror/platform_frameworks_base startop/scripts/trace_analyzer/lib/trace2db_test.py,
    // test_systrace_mm_filemap_add_to_pagecache: a systrace.py report cut short, with a
    // headerless ftrace block (trace_processor skips it: it waits for a TASK-PID header).
    let page = r#"
<!DOCTYPE html>
<html>
<head i18n-values="dir:textdirection;">
<meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<meta charset="utf-8"/>
<title>Android System Trace</title>
  <script class="trace-data" type="application/text">
PROCESS DUMP
USER           PID  PPID     VSZ    RSS WCHAN  PC S NAME                        COMM
root             1     0   62148   5976 0       0 S init                        [init]
root             2     0       0      0 0       0 S [kthreadd]                  [kthreadd]
  </script>

  <script class="trace-data" type="application/text">
MediaStoreImpor-27212 (27176) [000] .... 16136.595194: mm_filemap_add_to_page_cache: dev 253:6 ino 7580 page=0000000060e990c7 pfn=677646 ofs=159744
NonUserFacing6-5246  ( 1322) [005] .... 16138.357581: mm_filemap_add_to_page_cache: dev 253:6 ino 9a64 page=000000006e0f8322 pfn=797894 ofs=4096
  </script>

  <script class="trace-data" type="application/text">
{"traceEvents": [{"category": "process_argv", "name": "process_argv", "args": {"argv": ["/mnt/ssd3/workspace/master/external/chromium-trace/systrace.py", "-t", "5", "pagecache"]}, "pid": 160383, "ts": 1037300940509.7991, "tid": 139628672526080, "ph": "M"}, {"category": "python", "name": "clock_sync", "args": {"issue_ts": 1037307346185.212, "sync_id": "9a7e4fe3-89ad-441f-8226-8fe533fe973e"}, "pid": 160383, "ts": 1037307351643.906, "tid": 139628726089536, "ph": "c"}], "metadata": {"clock-domain": "SYSTRACE"}}
  </script>
<!-- END TRACE -->
"#;
    assert!(sniff(page.as_bytes()));
    let u = unpack(page.as_bytes(), 1 << 20).unwrap();
    let names: Vec<_> = u.process_dump.entries.iter().map(|e| (e.pid, e.ppid, e.name.as_str())).collect();
    assert_eq!(names, [(1, Some(0), "init"), (2, Some(0), "[kthreadd]")]);
    // The systrace controller's block: the command line and clock domain.
    assert!(u.skipped.is_empty(), "{:?}", u.skipped);
    let capture = CaptureInfo {
        command_line: Some("/mnt/ssd3/workspace/master/external/chromium-trace/systrace.py -t 5 pagecache".into()),
        clock_domain: Some("SYSTRACE".into()),
        ..Default::default()
    };
    assert_eq!(u.capture, capture);
    let ev = events(&u.ftrace);
    let got: Vec<_> = ev.iter().map(|(l, _)| (l.comm, l.tid, l.tgid, l.cpu, l.ts, l.event)).collect();
    let want = [
        ("MediaStoreImpor", 27212, Some(27176), 0, 16_136_595_194_000, "mm_filemap_add_to_page_cache"),
        ("NonUserFacing6", 5246, Some(1322), 5, 16_138_357_581_000, "mm_filemap_add_to_page_cache"),
    ];
    assert_eq!(got, want);
    assert_eq!(ev[1].1, "dev 253:6 ino 9a64 page=000000006e0f8322 pfn=797894 ofs=4096");
}

#[test]
fn html_variants() {
    let lf = FTRACE_CRLF.replace('\r', "");
    // trace2html: base64 of gzip, one block per agent.
    let page = format!(
        "<!DOCTYPE html>\n<html><script id=\"viewer-data\" type=\"text/plain\">\n{}\n</script>\n\
             <script id=\"viewer-data\" type=\"application/json\">\n{}\n</script>\n</html>\n",
        base64(&gzip(lf.as_bytes())),
        base64(&gzip(b"{\"traceEvents\": []}"))
    );
    let u = unpack(page.as_bytes(), 1 << 20).unwrap();
    assert_eq!((&u.ftrace[..], u.skipped.len()), (lf.as_bytes(), 0));
    assert!(matches!(unpack(page.as_bytes(), 100), Err(UnpackError::TooLarge { limit: 100 })));
    // Two ftrace blocks are joined; a cut file leaves the last block open.
    let second = "  b-7 ( 7) [001] .... 10852.771300: tracing_mark_write: B|7|x";
    let page = html(&[trace_data(FTRACE_CRLF), trace_data("# tracer: \nCGROUP DUMP\n/ (root=4) : 1\n")]);
    let page = format!("{page}<script class=\"trace-data\" type=\"application/text\">\n{second}");
    let u = unpack(page.as_bytes(), 1 << 20).unwrap();
    assert_eq!(u.ftrace.to_vec(), format!("{FTRACE_CRLF}{second}\n").into_bytes());
    assert_eq!(u.skipped, ["block 2: a cgroup dump (38 bytes)"]);
    assert_eq!(u.warnings.len(), 1);
    assert!(u.warnings[0].message.contains("no </script>"));
    assert_eq!(u.warnings[0].code, WarningCode::HtmlScriptCut);
    // Only foreign blocks and metadata: an error naming them in file order.
    let page = html(&[
        trace_data("# tracer: \n# clock_type=LINUX_CLOCK_MONOTONIC\n"),
        trace_data("{\"traceEvents\": []}\n"),
        trace_data("# BattOr\n0.00 6.5 4307.7\n"),
    ]);
    let err = unpack(page.as_bytes(), 1 << 20).unwrap_err();
    let found = vec![
        "block 1: a WALT latency trace (its own clock) (46 bytes)".to_string(),
        "block 2: JSON (20 bytes)".to_string(),
        "block 3: BattOr power samples (25 bytes)".to_string(),
    ];
    assert_eq!(err, UnpackError::NoTraceData { found });
    assert!(matches!(unpack(b"<html><body>hi</body></html>", 1 << 20), Err(UnpackError::NoTraceData { .. })));
    // Text starting with "<idle>" or "<...>" is text, even when its first line is damaged.
    let text = b"<idle>-0     [000]  0.002188: tracing_mark_write: E|77\n";
    assert_eq!(unpack(text, 1 << 20).unwrap().format, Container::SystraceText);
    let text = b"<...>-1 (-----) [000] ...1 1.0\n<...>-1 (-----) [000] ...1 1.000001: tracing_mark_write: E|1\n";
    assert_eq!(unpack(text, 1 << 20).unwrap().format, Container::SystraceText);
}

#[test]
fn html_2012_inline_javascript() {
    // catapult tracing/test_data/trivial_systrace.html, lines 23-35.
    let page = r#"<!DOCTYPE html>
<html>
<body>
  <div class="view">
  </div>
  <script>
  'use strict';
  var linuxPerfData = "\
# tracer: nop\n\
#\n\
#            TASK-PID    CPU#    TIMESTAMP  FUNCTION\n\
#               | |       |          |         |\n\
     hwc_eventmon-336   [000] 50260.929925: 0: C|124|VSYNC|1\n\
         Binder_1-340   [000] 50260.935656: 0: C|124|StatusBar|1\n\
     hwc_eventmon-336   [000] 50260.946573: 0: C|124|VSYNC|0\n\
      InputReader-419   [000] 50262.538578: 0: C|360|iq|1\n\
         \n";
  </script>
</body>
</html>
"#;
    let u = unpack(page.as_bytes(), 1 << 20).unwrap();
    assert_eq!(u.format, Container::SystraceHtml);
    let text = std::str::from_utf8(&u.ftrace).unwrap();
    assert!(text.starts_with("# tracer: nop\n#\n#            TASK-PID"));
    assert!(text.ends_with("InputReader-419   [000] 50262.538578: 0: C|360|iq|1\n         \n"));
    let ev = events(&u.ftrace);
    assert_eq!(ev.len(), 4);
    assert_eq!((ev[3].0.comm, ev[3].0.ts, ev[3].1.as_str()), ("InputReader", 50_262_538_578_000, "C|360|iq|1"));
    // The same text copied out of the report (tracing/test_data/android_systrace.txt style).
    let copied = "# tracer: nop\\n\\\n          atrace-14662 [000] 50260.647576: 0: B|1|x\\n\\\n";
    let u = unpack(copied.as_bytes(), 1 << 20).unwrap();
    assert_eq!(&u.ftrace[..], b"# tracer: nop\n          atrace-14662 [000] 50260.647576: 0: B|1|x\n");
}

const TEXT: &str = concat!(
    "# tracer: nop\n#\n",
    "           <...>-18926 (-----) [005] ...1 683202.115809: tracing_mark_write: B|18926|Choreographer#doFrame\n",
    "           <...>-18926 (-----) [005] ...1 683202.116849: tracing_mark_write: E\n",
);

/// A text long enough that its zlib stream holds `\n` bytes.
fn long_text() -> String {
    (0..2000)
        .map(|i| {
            format!("  a-{i} ( {i}) [00{}] .... 1.{i:06}: tracing_mark_write: B|{i}|s{}\n", i % 8, i * 7919 % 1000)
        })
        .collect()
}

#[test]
fn sniffing() {
    let z = [b"capturing trace... done\nTRACE:\n".to_vec(), zlib(TEXT.as_bytes())].concat();
    let page = html(&[trace_data(FTRACE_CRLF)]);
    let yes: [&[u8]; 6] =
        [TEXT.as_bytes(), &z, page.as_bytes(), b"cpus=8\n", b"<idle>-0 [000] 0.1: e: x\n", b"\n  a-1 [0] 1.5: e:"];
    for (i, data) in yes.into_iter().enumerate() {
        assert!(sniff(data), "{i}");
    }
    let no: [&[u8]; 4] = [b"\x0a\x05hello", b"{\"traceEvents\": []}", b"some = 000, other = 0x4\n", b""];
    for (i, data) in no.into_iter().enumerate() {
        assert!(!sniff(data), "{i}");
    }
}

#[test]
fn plain_text_is_borrowed() {
    let u = unpack(TEXT.as_bytes(), 0).unwrap();
    assert_eq!((u.format, &u.ftrace[..]), (Container::SystraceText, TEXT.as_bytes()));
    assert!(matches!(u.ftrace, Cow::Borrowed(b) if b.as_ptr() == TEXT.as_ptr()));
    let with_preamble = format!("capturing trace... done\nTRACE:\n{TEXT}");
    assert_eq!(&unpack(with_preamble.as_bytes(), 0).unwrap().ftrace[..], TEXT.as_bytes());
    let bom = format!("\u{feff}{TEXT}");
    assert_eq!(&unpack(bom.as_bytes(), 0).unwrap().ftrace[..], TEXT.as_bytes());
    // adb on a pty turns \n into \r\n (Windows adb into \r\r\n); lines still parse.
    let windows = TEXT.replace('\n', "\r\r\n");
    let u = unpack(windows.as_bytes(), 0).unwrap();
    let args: Vec<_> = events(&u.ftrace).into_iter().map(|(_, a)| a).collect();
    assert_eq!(args, ["B|18926|Choreographer#doFrame", "E"]);
    // "TRACE:" ending an event's text is not the preamble.
    let event_says = concat!(
        "  a-1 (1) [000] .... 1.000001: tracing_mark_write: B|1|TRACE:\n",
        "  a-1 (1) [000] .... 1.000002: tracing_mark_write: E|1\n",
    );
    assert_eq!(&unpack(event_says.as_bytes(), 0).unwrap().ftrace[..], event_says.as_bytes());
}

#[test]
fn ctrace_round_trips() {
    let text = long_text();
    let z = zlib(text.as_bytes());
    assert!(z.contains(&b'\n') && z.starts_with(&[0x78, 0x9c]));
    let crlf = undo_crlf(&z, b"\n"); // every \n -> \n: a copy
    let mangled: Vec<u8> = crlf.iter().flat_map(|&c| if c == b'\n' { vec![b'\r', b'\n'] } else { vec![c] }).collect();
    let windows: Vec<u8> =
        z.iter().flat_map(|&c| if c == b'\n' { vec![b'\r', b'\r', b'\n'] } else { vec![c] }).collect();
    let files = [
        [b"TRACE:\n".to_vec(), z.clone()].concat(),
        [b"capturing trace... done\nTRACE:\n".to_vec(), z.clone()].concat(),
        [b"capturing trace... done\r\nTRACE:\r\n".to_vec(), mangled].concat(),
        [b"TRACE:\r\r\n".to_vec(), windows].concat(),
        [b"TRACE:\n".to_vec(), gzip(text.as_bytes())].concat(),
        z.clone(),
        [b"TRACE:\n".to_vec(), z.clone(), b"\r\n".to_vec()].concat(),
    ];
    for (i, file) in files.iter().enumerate() {
        let u = unpack(file, 1 << 20).unwrap_or_else(|e| panic!("file {i}: {e}"));
        assert_eq!(
            (u.format, u.ftrace.len(), u.warnings.len()),
            (Container::SystraceCtrace, text.len(), 0),
            "file {i}"
        );
        assert!(u.ftrace[..] == *text.as_bytes(), "file {i}");
    }
    // Only the header line has CR LF: a stored (level 0) stream of CR LF text
    // breaks when CR LF is undone, and is read as it is.
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::none());
    e.write_all(FTRACE_CRLF.as_bytes()).unwrap();
    let stored = e.finish().unwrap();
    assert!(contains(&stored, b"\r\n"));
    let file = [b"TRACE:\r\n".to_vec(), stored].concat();
    let u = unpack(&file, 1 << 20).unwrap();
    assert_eq!((&u.ftrace[..], u.warnings.len()), (FTRACE_CRLF.as_bytes(), 0));
    // Streams back to back are read on, as trace_processor does.
    let two = [b"TRACE:\n".to_vec(), zlib(TEXT.as_bytes()), zlib(TEXT.as_bytes())].concat();
    assert_eq!(unpack(&two, 1 << 20).unwrap().ftrace.to_vec(), [TEXT, TEXT].concat().into_bytes());
}

#[test]
fn ctrace_damage() {
    let text = long_text();
    let z = zlib(text.as_bytes());
    // Cut in half: the complete lines before the cut, and a warning.
    let cut = [b"TRACE:\n".to_vec(), z[..z.len() / 2].to_vec()].concat();
    let u = unpack(&cut, 1 << 20).unwrap();
    assert!(u.ftrace.len() > 1000 && u.ftrace.ends_with(b"\n") && text.as_bytes().starts_with(&u.ftrace));
    assert_eq!(u.warnings.len(), 1);
    assert!(u.warnings[0].message.contains("ends early"), "{:?}", u.warnings);
    assert_eq!(u.warnings[0].code, WarningCode::StreamCut);
    // Bytes after the stream (catapult's compressed_atrace_data.txt has 17600).
    let junk = [b"TRACE:\n".to_vec(), z.clone(), b"garbage".to_vec()].concat();
    let u = unpack(&junk, 1 << 20).unwrap();
    assert_eq!(
        (u.ftrace.len(), &u.warnings[..]),
        (
            text.len(),
            &[Warning::new(WarningCode::TrailingBytes, "ignored 7 bytes after the end of the compressed trace")][..]
        )
    );
    // The caller's limit holds exactly.
    let file = [b"TRACE:\n".to_vec(), z.clone()].concat();
    assert!(unpack(&file, text.len() as u64).is_ok());
    let limit = text.len() as u64 - 1;
    assert!(matches!(unpack(&file, limit), Err(UnpackError::TooLarge { limit: l }) if l == limit));
    // Damaged from the start.
    let bad = [b"TRACE:\n\x78\x9c".to_vec(), vec![0xff; 64]].concat();
    assert!(matches!(unpack(&bad, 1 << 20), Err(UnpackError::Corrupt(_))));
    let cut_gzip = [b"TRACE:\n".to_vec(), gzip(text.as_bytes())[..200].to_vec()].concat();
    let u = unpack(&cut_gzip, 1 << 20).unwrap();
    assert!(text.as_bytes().starts_with(&u.ftrace) && u.warnings.len() == 1);
}

#[test]
fn process_dump_toybox() {
    // catapult tracing/tracing/extras/importer/android/process_data_importer_test.html, TEST_DATA
    // (`ps -A -o USER,PID,PPID,VSIZE,RSS,WCHAN,ADDR=PC,S,NAME,COMM && ps -AT -o USER,PID,TID,CMD`).
    let text = "PROCESS DUMP\n\
USER           PID  PPID     VSZ    RSS WCHAN  PC S NAME          COMM\n\
root             1     0   0    0 SyS_epoll_wait ffffff S test1   init\n\
root             2     0       0      0 kthreadd 0 S test2        2\n\
root             3     2       0      0 smpboot_thread_fn 0 S test3  3\n\
USER           PID   TID CMD\n\
root             1     1 test1\n\
root             2     2 test2\n\
root             3     3 test3\n\
u0_a48        1  4 test1_t1\n\
u0_a10        2  5 test2_t1\n\
u0_a10        3  6 test3_t1\n\
u0_a10        1  7 test1_t2\n\
u0_a10        2  8 test2_t2\n\
u0_a10        3  9 test3_t2\n\
u0_a10        3  10 test3_t3\n";
    let d = parse_process_dump(text);
    assert_eq!(d.junk_lines, 0);
    let procs: Vec<_> = d.entries.iter().filter(|e| !e.is_thread).map(|e| (e.pid, e.ppid, e.name.as_str())).collect();
    assert_eq!(procs, [(1, Some(0), "test1"), (2, Some(0), "test2"), (3, Some(2), "test3")]);
    let threads: Vec<_> =
        d.entries.iter().filter(|e| e.is_thread).map(|e| (e.pid, e.tid.unwrap(), e.name.as_str())).collect();
    let want = [
        (1, 1, "test1"),
        (2, 2, "test2"),
        (3, 3, "test3"),
        (1, 4, "test1_t1"),
        (2, 5, "test2_t1"),
        (3, 6, "test3_t1"),
        (1, 7, "test1_t2"),
        (2, 8, "test2_t2"),
        (3, 9, "test3_t2"),
        (3, 10, "test3_t3"),
    ];
    assert_eq!(threads, want);
}

#[test]
fn process_dump_toolbox() {
    // Same test file, LEGACY_TEST_DATA (`ps && ps -t` on Android <= 7): thread rows hold
    // the thread under PID and the process under PPID; the state column has no label.
    let text = "PROCESS DUMP\n\
USER      PID   PPID  VSIZE  RSS   WCHAN            PC  NAME\n\
root      1     0     1324   856   SyS_epoll_ 00070cd8 S test1\n\
root      2     0     0      0       kthreadd 00000000 S test2\n\
root      3     0     0      0     smpboot_th 00000000 S test3\n\
USER      PID   PPID  VSIZE  RSS   WCHAN            PC  NAME\n\
root      1     0     1324   856   SyS_epoll_ 00070cd8 S test1\n\
root      2     0     0      0       kthreadd 00000000 S test2\n\
root      3     0     0      0     smpboot_th 00000000 S test3\n\
u0_a35    4  1  726452 34352 SyS_epoll_ ffffffff S test1_t1\n\
u0_a35    5  2  726452 34352 SyS_epoll_ ffffffff S test2_t1\n\
u0_a53    6  3   846540 54996 SyS_epoll_ ffffffff S test3_t1\n\
u0_a53    7  1  846540 54996 futex_wait ffffffff S test1_t2\n\
u0_a53    8  2  846540 54996 futex_wait ffffffff S test2_t2\n\
u0_a53    9  3  846540 54996 futex_wait ffffffff S test3_t2\n\
root      10 3     4692   244   poll_sched ffffffff S test3_t3\n\
u0_a53    11 3     4692   244   ffffffff S Jit thread pool\n";
    let d = parse_process_dump(text);
    assert_eq!(d.junk_lines, 0);
    let procs: Vec<_> = d.entries.iter().filter(|e| !e.is_thread).map(|e| (e.pid, e.ppid, e.name.as_str())).collect();
    let p = |pid| (pid, Some(0), ["test1", "test2", "test3"][pid as usize - 1]);
    assert_eq!(procs, [p(1), p(2), p(3), p(1), p(2), p(3)]);
    let threads: Vec<_> =
        d.entries.iter().filter(|e| e.is_thread).map(|e| (e.pid, e.tid.unwrap(), e.name.as_str())).collect();
    let want = [
        (1, 4, "test1_t1"),
        (2, 5, "test2_t1"),
        (3, 6, "test3_t1"),
        (1, 7, "test1_t2"),
        (2, 8, "test2_t2"),
        (3, 9, "test3_t2"),
        (3, 10, "test3_t3"),
        (3, 11, "Jit thread pool"), // constructed: a blank WCHAN and a name with spaces
    ];
    assert_eq!(threads, want);
}

#[test]
fn process_dump_traceconv_toybox_default_and_junk() {
    // perfetto src/traceconv/trace_to_systrace.cc (kProcessDumpHeader, FormatProcess,
    // kThreadHeader, FormatThread), then toybox's default `ps -A` header, then junk.
    let text = "PROCESS DUMP\r\n\
USER           PID  PPID     VSZ    RSS WCHAN  PC S NAME                        COMM                       \r\n\
root             1234     0   00000   000 null 0000000000 S com.example.app         null\r\n\
USER           PID   TID CMD \r\n\
root         1234 1240 RenderThread\r\n\
root         1234 1241 <...>\r\n\
USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\r\n\
u0_a134      28688 28621   11932   3068 0                   0 S sleep\r\n\
bad pid '-A'\r\n\
\r\n\
USER PID\r\n\
root 1\r\n\
  PID  PPID COMMAND\r\n\
    1     0 systemd\r\n";
    let d = parse_process_dump(text);
    let got: Vec<_> = d.entries.iter().map(|e| (e.pid, e.tid, e.ppid, e.name.as_str(), e.is_thread)).collect();
    let want = [
        (1234, None, Some(0), "com.example.app", false),
        (1234, Some(1240), None, "RenderThread", true),
        (1234, Some(1241), None, "<...>", true),
        (28688, None, Some(28621), "sleep", false),
        (1, None, Some(0), "systemd", false), // procps `ps -eo pid,ppid,comm`
    ];
    assert_eq!(got, want);
    assert_eq!(d.junk_lines, 2); // "bad pid '-A'" and the row under a header without a name column
}

/// Deterministic pseudo-random bytes.
fn noise(seed: u64, len: usize, alphabet: &[u8]) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            alphabet[(x >> 33) as usize % alphabet.len()]
        })
        .collect()
}

#[test]
fn hostile_containers_do_not_panic() {
    let started = Instant::now();
    let all: Vec<u8> = (0..=255).collect();
    let tricky = b"<script class=\"trace-data\">viewer-data id=\"\n\r-0123456789[]().: TRACE:\x78\x9c\x1f\x8b#DUMPUSER";
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for seed in 0..200 {
        inputs.push(noise(seed, 1 + seed as usize * 37, &all));
        inputs.push(noise(seed, 1 + seed as usize * 53, tricky));
    }
    inputs.push(b"<html><script".to_vec());
    inputs.push([b"<html><script class=\"trace-data\">".to_vec(), noise(1, 1 << 20, tricky)].concat());
    inputs.push(b"<html><script id=\"viewer-data\">!!!not base64</script>".to_vec());
    inputs.push([b"<html><script id=\"viewer-data\">".as_slice(), base64(&gzip(&[b'a'; 4096])).as_bytes()].concat());
    inputs.push([b"TRACE:\n\x78\x9c".to_vec(), noise(2, 4096, &all)].concat());
    inputs.push([b"TRACE:\n\x1f\x8b".to_vec(), noise(3, 4096, &all)].concat());
    inputs.push([b"TRACE:\r\n".to_vec(), zlib(&[b'\n'; 100_000])].concat());
    for input in &inputs {
        if let Ok(u) = unpack(input, 1 << 16) {
            scan(&u.ftrace, |l| {
                let _ = parse_event(l);
            });
        }
        let text = String::from_utf8_lossy(input);
        let _ = parse_process_dump(&text);
        text.lines().for_each(|l| {
            std::hint::black_box((parse_sched_switch(l), parse_waking(l), parse_task_rename(l, 1)));
        });
    }
    // A bomb: 10 MB of zeros is refused at the limit.
    let bomb = [b"TRACE:\n".to_vec(), zlib(&vec![0; 10 << 20])].concat();
    assert!(matches!(unpack(&bomb, 1 << 20), Err(UnpackError::TooLarge { limit: 1_048_576 })));
    assert!(started.elapsed().as_secs() < 20, "took {:?}", started.elapsed());
}

/// ~100 MB of typical atrace text: a frame's worth of scheduler and
/// atrace lines, repeated with advancing timestamps.
fn generated_text(target: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(target + 4096);
    let mut ts: u64 = 1_000_000_000;
    let mut i = 0u64;
    while out.len() < target {
        let (tid, cpu) = (10_000 + i % 97, i % 8);
        let mut t = || {
            ts += 37;
            format!("{}.{:06}", ts / 1_000_000, ts % 1_000_000)
        };
        let task = format!("    RenderThread-{tid} ( 2507) [{cpu:03}]");
        let block = [
            format!(
                "          <idle>-0     (-----) [{cpu:03}] d..2 {}: sched_switch: prev_comm=swapper/{cpu} prev_pid=0 \
                     prev_prio=120 prev_state=R ==> next_comm=RenderThread next_pid={tid} next_prio=110\n",
                t()
            ),
            format!("{task} ...1 {}: tracing_mark_write: B|2507|DrawFrame {i}\n", t()),
            format!("{task} d..3 {}: sched_waking: comm=surfaceflinger pid=598 prio=98 target_cpu=003\n", t()),
            format!("{task} ...1 {}: tracing_mark_write: E|2507\n", t()),
            format!(
                "{task} d..2 {}: sched_switch: prev_comm=RenderThread prev_pid={tid} prev_prio=110 prev_state=S \
                     ==> next_comm=swapper/{cpu} next_pid=0 next_prio=120\n",
                t()
            ),
        ];
        block.iter().for_each(|l| out.extend_from_slice(l.as_bytes()));
        i += 1;
    }
    out
}

fn dispatch_all(text: &[u8]) -> [u64; 4] {
    let mut counts = [0u64; 4];
    scan(text, |l| match parse_event(l) {
        Event::SchedSwitch(s) => counts[0] += s.prev_state.unwrap_or(1) as u64 & 1,
        Event::SchedWaking(w) => counts[1] += u64::from(w.target_cpu.unwrap_or(0) > 0),
        Event::Print(p) => counts[2] += p.len() as u64 & 1,
        _ => counts[3] += 1,
    });
    counts
}

#[test]
#[ignore = "benchmark: cargo test --release -- --ignored --nocapture throughput"]
fn throughput() {
    let text = generated_text(100 << 20);
    let mb = text.len() as f64 / 1e6;
    let best = |f: &dyn Fn() -> u64| {
        (0..3)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min)
    };
    let lines_only = best(&|| lines(&text).count() as u64);
    let parse = best(&|| {
        scan(&text, |l| {
            std::hint::black_box(l);
        })
        .events
    });
    let dispatch = best(&|| dispatch_all(&text).iter().sum());
    println!("{mb:.0} MB, {} lines", lines(&text).count());
    println!("line split only:        {:7.0} MB/s", mb / lines_only);
    println!("scan (parse_line):      {:7.0} MB/s", mb / parse);
    println!("scan + parse_event:     {:7.0} MB/s", mb / dispatch);
    let page = html(&[trace_data(std::str::from_utf8(&text).unwrap())]);
    let html_path = best(&|| dispatch_all(&unpack(page.as_bytes(), 1 << 32).unwrap().ftrace).iter().sum());
    println!("HTML unpack + dispatch: {:7.0} MB/s", mb / html_path);
    let ctrace = [b"TRACE:\n".to_vec(), zlib(&text)].concat();
    let ctrace_path = best(&|| dispatch_all(&unpack(&ctrace, 1 << 32).unwrap().ftrace).iter().sum());
    println!(
        "ctrace inflate + dispatch: {:7.0} MB/s of text ({:.1}x compressed)",
        mb / ctrace_path,
        text.len() as f64 / ctrace.len() as f64
    );
}
