//! Typed scheduler and task events of ftrace text (`sched_switch`,
//! `sched_waking`/`wakeup`, `task_newtask`/`rename`, `sched_process_*`) and
//! the atrace payload of `tracing_mark_write` / `print`.

use super::line::Line;

/// `sched_switch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchedSwitch<'a> {
    pub prev_comm: &'a str,
    pub prev_pid: i32,
    pub prev_prio: i32,
    /// The state the previous task left in, as a kernel ≥ 4.14 `TASK_REPORT`
    /// mask (see [`prev_state_mask`]); `None` when the letters are not a state.
    pub prev_state: Option<i64>,
    pub next_comm: &'a str,
    pub next_pid: i32,
    pub next_prio: i32,
}

/// `sched_waking`, `sched_wakeup`, `sched_wakeup_new`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waking<'a> {
    pub comm: &'a str,
    pub pid: i32,
    pub prio: i32,
    /// Absent on kernels before 3.x.
    pub target_cpu: Option<u32>,
}

/// `task_rename`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskRename<'a> {
    /// The renamed task; Linux 6.13 dropped `pid=` (it is always the task
    /// writing the event), so then it is the line's tid.
    pub pid: i32,
    pub old_comm: &'a str,
    pub new_comm: &'a str,
    pub oom_score_adj: Option<i32>,
}

/// `task_newtask`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskNewtask<'a> {
    pub pid: i32,
    pub comm: &'a str,
    pub clone_flags: u64,
    pub oom_score_adj: Option<i32>,
}

/// `sched_process_free`, `sched_process_exit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessEnd<'a> {
    pub comm: &'a str,
    pub pid: i32,
    pub prio: i32,
    /// `group_dead=` on `sched_process_exit` since Linux 6.16.
    pub group_dead: Option<bool>,
}

/// A parsed event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<'a> {
    SchedSwitch(SchedSwitch<'a>),
    SchedWaking(Waking<'a>),
    SchedWakeup(Waking<'a>),
    SchedWakeupNew(Waking<'a>),
    TaskNewtask(TaskNewtask<'a>),
    TaskRename(TaskRename<'a>),
    ProcessFree(ProcessEnd<'a>),
    ProcessExit(ProcessEnd<'a>),
    /// `tracing_mark_write`, `0` (old kernels) or `print`: the atrace
    /// payload (`B|pid|name`, `E|pid`, `C|pid|name|value`, …).
    Print(&'a str),
    /// A scheduler or task event whose arguments did not parse.
    Malformed,
    /// Any other event.
    Other,
}

/// Type the event of a line.
// Inlined into the per-line closures on purpose (see `parse_line`).
#[inline]
pub fn parse_event<'a>(line: &Line<'a>) -> Event<'a> {
    let args = line.args;
    let typed = match line.event {
        "tracing_mark_write" | "0" => return Event::Print(args),
        // trace-cmd style `print: tracing_mark_write: B|…`.
        "print" => return Event::Print(args.strip_prefix("tracing_mark_write:").map_or(args, str::trim_start)),
        "sched_switch" => parse_sched_switch(args).map(Event::SchedSwitch),
        "sched_waking" => parse_waking(args).map(Event::SchedWaking),
        "sched_wakeup" => parse_waking(args).map(Event::SchedWakeup),
        "sched_wakeup_new" => parse_waking(args).map(Event::SchedWakeupNew),
        "task_newtask" => parse_task_newtask(args).map(Event::TaskNewtask),
        "task_rename" => parse_task_rename(args, line.tid).map(Event::TaskRename),
        "sched_process_free" => parse_process_end(args).map(Event::ProcessFree),
        "sched_process_exit" => parse_process_end(args).map(Event::ProcessExit),
        _ => return Event::Other,
    };
    typed.unwrap_or(Event::Malformed)
}

/// `prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s next_pid=%d next_prio=%d`.
/// Fields are taken from the right, so a comm with spaces ("Smack Packet Wr")
/// stays whole (trace_processor splits at every space and loses it).
pub fn parse_sched_switch(args: &str) -> Option<SchedSwitch<'_>> {
    let (mut prev, mut next) = args.rsplit_once(" ==> ")?;
    let next_prio = pop_field(&mut next, "next_prio")?.parse().ok()?;
    let next_pid = pop_field(&mut next, "next_pid")?.parse().ok()?;
    let next_comm = next.strip_prefix("next_comm=")?;
    let state = pop_field(&mut prev, "prev_state")?;
    let prev_prio = pop_field(&mut prev, "prev_prio")?.parse().ok()?;
    let prev_pid = pop_field(&mut prev, "prev_pid")?.parse().ok()?;
    let prev_comm = prev.strip_prefix("prev_comm=")?;
    Some(SchedSwitch {
        prev_comm,
        prev_pid,
        prev_prio,
        prev_state: prev_state_mask(state),
        next_comm,
        next_pid,
        next_prio,
    })
}

/// `comm=%s pid=%d prio=%d [success=%d] [target_cpu=%03d]`.
pub fn parse_waking(args: &str) -> Option<Waking<'_>> {
    let mut rest = args;
    let target_cpu = match pop_field(&mut rest, "target_cpu") {
        Some(v) => Some(v.parse().ok()?),
        None => None,
    };
    let _ = pop_field(&mut rest, "success");
    let prio = pop_field(&mut rest, "prio")?.parse().ok()?;
    let pid = pop_field(&mut rest, "pid")?.parse().ok()?;
    let comm = rest.strip_prefix("comm=")?;
    Some(Waking { comm, pid, prio, target_cpu })
}

/// `[pid=%d] oldcomm=%s newcomm=%s oom_score_adj=%hd` (`oom_adj=` before 3.x);
/// `writer_tid` stands in for a missing `pid=`.
pub fn parse_task_rename(args: &str, writer_tid: i32) -> Option<TaskRename<'_>> {
    let mut rest = args;
    let oom_score_adj = pop_oom(&mut rest)?;
    let (pid, rest) = match rest.strip_prefix("pid=") {
        Some(r) => {
            let (pid, r) = r.split_once(' ')?;
            (pid.parse().ok()?, r)
        }
        None => (writer_tid, rest),
    };
    let (old_comm, new_comm) = rest.strip_prefix("oldcomm=")?.split_once(" newcomm=")?;
    Some(TaskRename { pid, old_comm, new_comm, oom_score_adj })
}

/// `pid=%d comm=%s clone_flags=%lx oom_score_adj=%hd`.
pub fn parse_task_newtask(args: &str) -> Option<TaskNewtask<'_>> {
    let mut rest = args;
    let oom_score_adj = pop_oom(&mut rest)?;
    let flags = pop_field(&mut rest, "clone_flags")?;
    let clone_flags = u64::from_str_radix(flags.strip_prefix("0x").unwrap_or(flags), 16).ok()?;
    let (pid, comm) = rest.strip_prefix("pid=")?.split_once(' ')?;
    Some(TaskNewtask { pid: pid.parse().ok()?, comm: comm.strip_prefix("comm=")?, clone_flags, oom_score_adj })
}

/// `comm=%s pid=%d prio=%d [group_dead=true|false]`.
pub fn parse_process_end(args: &str) -> Option<ProcessEnd<'_>> {
    let mut rest = args;
    let group_dead = match pop_field(&mut rest, "group_dead") {
        Some("true" | "1") => Some(true),
        Some("false" | "0") => Some(false),
        Some(_) => return None,
        None => None,
    };
    let prio = pop_field(&mut rest, "prio")?.parse().ok()?;
    let pid = pop_field(&mut rest, "pid")?.parse().ok()?;
    Some(ProcessEnd { comm: rest.strip_prefix("comm=")?, pid, prio, group_dead })
}

/// Remove the last space-separated word of `rest` if it is `key=value`,
/// returning the value. Fields after a comm are found this way, so a comm
/// may hold spaces.
fn pop_field<'a>(rest: &mut &'a str, key: &str) -> Option<&'a str> {
    let (head, last) = match rest.rfind(' ') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => ("", *rest),
    };
    let value = last.strip_prefix(key)?.strip_prefix('=')?;
    *rest = head.trim_end_matches(' ');
    Some(value)
}

/// An optional trailing `oom_score_adj=` / `oom_adj=`: `None` when it is
/// there but not a number.
fn pop_oom(rest: &mut &str) -> Option<Option<i32>> {
    match pop_field(rest, "oom_score_adj").or_else(|| pop_field(rest, "oom_adj")) {
        Some(v) => Some(Some(v.parse().ok()?)),
        None => Some(None),
    }
}

/// A `prev_state` string as the kernel ≥ 4.14 `TASK_REPORT` mask fpsan's
/// `decode_prev_state` reads (S 1, D 2, T 4, t 8, X 16, Z 32, P 64, I 128).
///
/// Which strings are states follows trace_processor's
/// `TaskState::FromSystrace` exactly: anything starting with `R` is runnable
/// (`R+`, preempted, too: 0 here); otherwise every character must be one of
/// `S D T t X Z P x K W N I` or the `|` separator, else the state is
/// invalid (`None`; trace_processor stores 0xffff). The numbers differ on
/// purpose: trace_processor re-encodes in the 4.4 layout (R+ 0x800, P 0x200,
/// I 0x402, x 0x40, K 0x80, W 0x100, N 0x400), which a ≥ 4.14 decoder would
/// read as runnable (P) or blocked (I). Letters only pre-4.14 kernels print
/// map to their ≥ 4.14 report: x (dead) to X, `D|N` to I (as
/// trace_processor turns exactly D+N into idle), K W N to nothing.
pub fn prev_state_mask(s: &str) -> Option<i64> {
    const D: u16 = 0x2;
    const DEAD: u16 = 0x80;
    const NOLOAD: u16 = 0x400;
    const IDLE: u16 = 0x4000;
    let bytes = s.as_bytes();
    if *bytes.first()? == b'R' {
        return Some(0);
    }
    let mut flags: u16 = 0;
    for &c in bytes {
        flags |= match c {
            b'|' => 0,
            b'S' => 0x1,
            b'D' => D,
            b'T' => 0x4,
            b't' => 0x8,
            b'X' => 0x10,
            b'Z' => 0x20,
            b'P' => 0x40,
            b'x' => DEAD,
            b'K' => 0x100,
            b'W' => 0x200,
            b'N' => NOLOAD,
            b'I' => IDLE,
            _ => return None,
        };
    }
    if flags == D | NOLOAD {
        return Some(0x80);
    }
    let mut mask = i64::from(flags & 0x7f);
    if flags & IDLE != 0 {
        mask |= 0x80;
    }
    if flags & DEAD != 0 {
        mask |= 0x10;
    }
    Some(mask)
}
