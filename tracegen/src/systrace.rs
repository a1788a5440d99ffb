//! The builder's ftrace events written as a legacy systrace capture instead
//! of a Perfetto trace: atrace / ftrace text as `atrace` prints it, a
//! `.ctrace` (`TRACE:` then zlib), and a systrace HTML report with its
//! `trace-data` blocks (ftrace text, optionally split in several blocks; the
//! `PROCESS DUMP` from the builder's processes and threads; a JSON block
//! another agent would write). FrameTimeline and track events have no
//! systrace form and are left out. Timestamps are printed in microseconds,
//! as ftrace does: fixtures that compare exactly use whole microseconds.

use std::fmt::Write as _;
use std::io::Write as _;

use super::{FtraceEv, Print, TraceBuilder, DEFAULT_PRIO};

const HEADER: &str = "# tracer: nop\n#\n#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n#              | |        |      |   ||||       |         |\n";

/// A busy phone's systrace text of about `target_bytes`, written window by
/// window (bounded memory): two apps drawing at 60 Hz with RenderThread
/// DrawFrames, and sched_switch / sched_waking every 60 µs on each of 4
/// CPUs. For the reader's throughput benchmark.
pub fn busy_systrace<W: std::io::Write>(w: &mut W, target_bytes: u64) -> std::io::Result<u64> {
    const WINDOW_NS: i64 = 1_000_000_000;
    const SWITCH_EVERY_NS: i64 = 60_000;
    const PERIOD_NS: i64 = 16_667_000;
    let apps = [(3000, "com.example.feed"), (3100, "com.example.chat")];
    let mut b = TraceBuilder::new();
    for (pid, name) in apps {
        b.process(pid, name).thread(pid, pid, name).thread(pid + 10, pid, "RenderThread");
    }
    let workers: Vec<(i32, String)> = (0..40).map(|k| (5000 + k, format!("worker-{k}"))).collect();
    for (tid, name) in &workers {
        b.thread(*tid, 4000, name);
    }
    let opts = SystraceOptions::default();
    let mut written = HEADER.len() as u64;
    w.write_all(HEADER.as_bytes())?;
    let (mut window, mut text) = (0i64, String::new());
    while written < target_bytes {
        let start = 1_000_000_000 + window * WINDOW_NS;
        for (a, (pid, _)) in apps.iter().enumerate() {
            let mut ts = start + a as i64 * 3_000_000;
            while ts + 10_000_000 < start + WINDOW_NS {
                b.slice(ts, 6_000_000, *pid, *pid, "Choreographer#doFrame");
                b.slice(ts + 1_000_000, 4_000_000, *pid, *pid, "traversal");
                b.slice(ts + 6_500_000, 3_000_000, pid + 10, *pid, "DrawFrame");
                ts += PERIOD_NS;
            }
        }
        for cpu in 0..opts.cpus {
            let mut ts = start + i64::from(cpu) * 7_000;
            let mut k = cpu as usize;
            while ts < start + WINDOW_NS {
                let (prev, next) = (&workers[k % workers.len()], &workers[(k + 1) % workers.len()]);
                b.sched_waking(ts - 2_000, cpu, next.0, &next.1, cpu);
                b.sched_switch(ts, cpu, prev.0, &prev.1, (k % 3) as i64, next.0, &next.1);
                ts += SWITCH_EVERY_NS;
                k += 1;
            }
        }
        text.clear();
        b.systrace_lines(&opts, &mut text);
        w.write_all(text.as_bytes())?;
        written += text.len() as u64;
        b.clear_events();
        window += 1;
    }
    Ok(written)
}

/// How the capture is written.
#[derive(Debug, Clone)]
pub struct SystraceOptions {
    /// Events without an explicit CPU go to `tid % cpus`.
    pub cpus: u32,
    /// Write the `(tgid)` column; `false` prints `(-----)`, as many kernels do.
    pub tgid_column: bool,
    /// End every line (and the HTML) with `\r\n`.
    pub crlf: bool,
    /// HTML: how many `trace-data` blocks the ftrace text is split into.
    pub ftrace_blocks: usize,
}

impl Default for SystraceOptions {
    fn default() -> Self {
        SystraceOptions { cpus: 4, tgid_column: true, crlf: false, ftrace_blocks: 1 }
    }
}

impl TraceBuilder {
    /// The events as ftrace text with its `# tracer: nop` header, in time order.
    pub fn systrace_text(&self, opts: &SystraceOptions) -> String {
        let mut out = String::from(HEADER);
        self.systrace_lines(opts, &mut out);
        if opts.crlf {
            out = out.replace('\n', "\r\n");
        }
        out
    }

    /// The event lines alone (no header, `\n` line ends), appended to `out`.
    fn systrace_lines(&self, opts: &SystraceOptions, out: &mut String) {
        let mut recs: Vec<_> = self.ftrace.iter().collect();
        recs.sort_by_key(|r| r.ts);
        // Which task runs on each CPU, for the task column of sched_waking.
        let mut running = vec![0i32; opts.cpus.max(1) as usize];
        for r in recs {
            let cpu = r.cpu.unwrap_or(r.tid.unsigned_abs() % opts.cpus.max(1));
            let slot = cpu as usize % running.len();
            let task = match r.ev {
                FtraceEv::Waking { .. } => running[slot],
                _ => r.tid,
            };
            let (event, args) = self.event_text(r.ev);
            if let FtraceEv::Switch { next_tid, .. } = r.ev {
                running[slot] = next_tid;
            }
            let comm = match task {
                0 => "<idle>".to_string(),
                t => self.thread_name(t).map_or_else(|| "<...>".to_string(), kernel_comm),
            };
            let tgid = match self.threads.iter().find(|t| t.tid == task) {
                Some(t) if opts.tgid_column => format!("{:>5}", t.pid),
                _ => "-----".to_string(),
            };
            let (secs, micros) = (r.ts.div_euclid(1_000_000_000), r.ts.rem_euclid(1_000_000_000) / 1000);
            let _ = writeln!(out, "{comm:>16}-{task:<5} ({tgid}) [{cpu:03}] d..3 {secs}.{micros:06}: {event}: {args}");
        }
    }

    /// `TRACE:` then the zlib-compressed text, as `atrace -z` writes it.
    pub fn ctrace(&self, opts: &SystraceOptions) -> Vec<u8> {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        let _ = z.write_all(self.systrace_text(opts).as_bytes());
        let mut out = b"TRACE:\n".to_vec();
        out.extend(z.finish().unwrap_or_default());
        out
    }

    /// A systrace HTML report: viewer boilerplate (with a `<script>` inside a
    /// string, as catapult's has), then the `trace-data` blocks.
    pub fn systrace_html(&self, opts: &SystraceOptions) -> String {
        let nl = if opts.crlf { "\r\n" } else { "\n" };
        let text = self.systrace_text(opts);
        let mut blocks = Vec::new();
        for part in split_lines(&text, opts.ftrace_blocks.max(1)) {
            blocks.push(part.to_string());
        }
        blocks.push(self.process_dump().replace('\n', nl));
        blocks.push(format!("{{\"traceEvents\": [], \"systemTraceEvents\": \"\"}}{nl}"));
        let mut html = format!(
            "<!DOCTYPE html>{nl}<html>{nl}<head><script>var tag = \"<script>\";</script></head>{nl}<body>{nl}<!-- BEGIN TRACE -->{nl}"
        );
        for b in blocks {
            let _ = write!(html, "  <script class=\"trace-data\" type=\"application/text\">{nl}{b}  </script>{nl}");
        }
        let _ = write!(html, "<!-- END TRACE -->{nl}</body>{nl}</html>{nl}");
        html
    }

    /// catapult's `PROCESS DUMP` block: toybox `ps -A` rows, then `ps -AT` threads.
    fn process_dump(&self) -> String {
        let mut out = String::from(
            "PROCESS DUMP\nUSER           PID  PPID     VSZ    RSS WCHAN  PC S NAME                        COMM\n",
        );
        for p in &self.processes {
            let comm = self.thread_name(p.pid).map_or_else(|| kernel_comm(&p.name), kernel_comm);
            let _ =
                writeln!(out, "u0_a42       {:>5}   600 1234567 89012 SyS_epoll_wait 0 S {:<27} {comm}", p.pid, p.name);
        }
        out.push_str("USER           PID   TID CMD\n");
        for t in &self.threads {
            let _ = writeln!(out, "u0_a42       {:>5} {:>5} {}", t.pid, t.tid, kernel_comm(&t.name));
        }
        out
    }

    fn event_text(&self, ev: FtraceEv) -> (&'static str, String) {
        let s = |sym| self.str(sym);
        match ev {
            FtraceEv::Print(p) => (
                "tracing_mark_write",
                match p {
                    Print::Begin { pid, name } => format!("B|{pid}|{}", s(name)),
                    Print::End { pid } => format!("E|{pid}"),
                    Print::Counter { pid, name, value } => format!("C|{pid}|{}|{value}", s(name)),
                    Print::AsyncBegin { pid, name, cookie } => format!("S|{pid}|{}|{cookie}", s(name)),
                    Print::AsyncEnd { pid, name, cookie } => format!("F|{pid}|{}|{cookie}", s(name)),
                    Print::Raw(text) => s(text).trim_end_matches('\n').to_string(),
                },
            ),
            FtraceEv::Switch { prev_tid, prev_comm, prev_state, next_tid, next_comm } => (
                "sched_switch",
                format!(
                    "prev_comm={} prev_pid={prev_tid} prev_prio={DEFAULT_PRIO} prev_state={} ==> next_comm={} next_pid={next_tid} next_prio={DEFAULT_PRIO}",
                    s(prev_comm),
                    state_letters(prev_state),
                    s(next_comm)
                ),
            ),
            FtraceEv::Waking { tid, comm, target_cpu } => {
                ("sched_waking", format!("comm={} pid={tid} prio={DEFAULT_PRIO} target_cpu={target_cpu:03}", s(comm)))
            }
            FtraceEv::Rename { tid, old, new } => {
                ("task_rename", format!("pid={tid} oldcomm={} newcomm={} oom_score_adj=0", s(old), s(new)))
            }
        }
    }
}

/// The kernel keeps the last 15 bytes of a long thread name (Android names
/// an app's main thread after the end of its package name).
fn kernel_comm(name: &str) -> String {
    let mut start = name.len().saturating_sub(15);
    while !name.is_char_boundary(start) {
        start += 1;
    }
    name[start..].to_string()
}

/// A kernel ≥ 4.14 `prev_state` mask in the letters ftrace prints.
fn state_letters(mask: i64) -> String {
    const LETTERS: [(i64, char); 8] =
        [(1, 'S'), (2, 'D'), (4, 'T'), (8, 't'), (16, 'X'), (32, 'Z'), (64, 'P'), (128, 'I')];
    let letters: String = LETTERS.iter().filter(|(bit, _)| mask & bit != 0).map(|&(_, c)| c).collect();
    match (letters.is_empty(), mask & 256 != 0) {
        (true, true) => "R+".to_string(),
        (true, false) => "R".to_string(),
        (false, _) => letters,
    }
}

/// `text` cut into `n` pieces at line ends (fewer if it has fewer lines).
fn split_lines(text: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(n);
    let mut rest = text;
    for k in (1..n).rev() {
        let target = rest.len() / (k + 1);
        let Some(cut) = rest[target..].find('\n').map(|i| target + i + 1) else { break };
        let (piece, tail) = rest.split_at(cut);
        out.push(piece);
        rest = tail;
    }
    out.push(rest);
    out
}
