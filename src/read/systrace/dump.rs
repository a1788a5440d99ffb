//! The `PROCESS DUMP` block of a systrace HTML report: the `ps` listings
//! (toybox and toolbox layouts, with or without threads) catapult stores
//! next to the ftrace text, which name the processes the text only numbers.

use std::collections::HashSet;

/// One row of a `ps` listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpEntry {
    /// The process id (the thread group id, for a thread row).
    pub pid: i32,
    /// The thread id, on thread rows.
    pub tid: Option<i32>,
    /// The parent process id, where the listing has one.
    pub ppid: Option<i32>,
    /// The process name (`NAME`, argv[0]) on a process row; the thread
    /// name (`CMD`, the kernel comm) on a thread row.
    pub name: String,
    pub is_thread: bool,
}

/// The `ps` listings of a capture.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessDump {
    /// Rows in file order; catapult lists once at the start of tracing and
    /// once at the end, so a process can appear twice (the later is newer).
    pub entries: Vec<DumpEntry>,
    /// Lines that were neither a header nor a row (error text from a `ps`
    /// that lacks an option, damaged rows).
    pub junk_lines: usize,
}

/// Where the fields are in the rows under one `ps` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// toybox `ps -o ...` (Android ≥ 8, traceconv): every column has a
    /// label, so rows line up with the header.
    Columns { pid: usize, tid: Option<usize>, ppid: Option<usize>, name: usize, name_is_last: bool },
    /// toolbox `ps` / `ps -t` (Android ≤ 7): the state column has no label;
    /// catapult runs `ps && ps -t`, so headers alternate process / thread.
    Toolbox { threads: bool },
    /// A header we cannot map: its rows are skipped.
    Unknown,
}

/// Rows before any header: trace_processor assumes its long layout
/// (`USER PID PPID VSZ RSS WCHAN PC S NAME COMM`).
const DEFAULT_LAYOUT: Layout = Layout::Columns { pid: 1, tid: None, ppid: Some(2), name: 8, name_is_last: false };

/// Read the `ps` listings catapult stores after `PROCESS DUMP`:
/// * `ps -A -o USER,PID,PPID,VSIZE,RSS,WCHAN,ADDR=PC,S,NAME,COMM` then
///   `ps -AT -o USER,PID,TID,CMD` (trace_processor's long and short layouts),
/// * `ps` then `ps -t` on old devices (toolbox; thread rows put the thread
///   id under PID and the process id under PPID),
/// * any other labelled `ps -o` header naming PID and a name column.
pub fn parse_process_dump(text: &str) -> ProcessDump {
    let mut dump = ProcessDump::default();
    let mut layout = DEFAULT_LAYOUT;
    let mut toolbox_threads = false;
    let mut processes = HashSet::new();
    for line in text.lines() {
        let toks = tokens(line);
        if toks.is_empty() || line.trim() == "PROCESS DUMP" {
            continue;
        }
        // A header names PID and holds no number (rows always do).
        if toks.iter().any(|&(_, t)| t == "PID") && toks.iter().all(|(_, t)| t.parse::<i64>().is_err()) {
            layout = header_layout(&toks, &mut toolbox_threads);
            continue;
        }
        let entry = match layout {
            Layout::Columns { .. } => columns_row(line, &toks, layout),
            Layout::Toolbox { threads } => toolbox_row(line, &toks, threads, &mut processes),
            Layout::Unknown => None,
        };
        match entry {
            Some(e) => dump.entries.push(e),
            None => dump.junk_lines += 1,
        }
    }
    dump
}

/// The whitespace-separated words of a line, with their byte offsets.
fn tokens(line: &str) -> Vec<(usize, &str)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        out.push((start, &line[start..i]));
    }
    out
}

/// `toolbox_threads` says whether the next toolbox header starts a `ps -t`
/// listing; it flips at each one.
fn header_layout(toks: &[(usize, &str)], toolbox_threads: &mut bool) -> Layout {
    let col = |name: &str| toks.iter().position(|&(_, t)| t == name);
    if col("VSIZE").is_some() && col("S").is_none() {
        let threads = *toolbox_threads;
        *toolbox_threads = !threads;
        return Layout::Toolbox { threads };
    }
    let Some(pid) = col("PID") else { return Layout::Unknown };
    let Some(name) = ["NAME", "CMD", "COMM", "ARGS", "CMDLINE", "COMMAND"].iter().find_map(|n| col(n)) else {
        return Layout::Unknown;
    };
    Layout::Columns { pid, tid: col("TID"), ppid: col("PPID"), name, name_is_last: name + 1 == toks.len() }
}

fn columns_row(line: &str, toks: &[(usize, &str)], layout: Layout) -> Option<DumpEntry> {
    let Layout::Columns { pid, tid, ppid, name, name_is_last } = layout else { return None };
    let last = pid.max(tid.unwrap_or(0)).max(ppid.unwrap_or(0)).max(name);
    if toks.len() <= last {
        return None;
    }
    let int = |i: usize| toks[i].1.parse::<i32>().ok();
    // A name column at the end may hold spaces ("Jit thread pool").
    let name = if name_is_last { line[toks[name].0..].trim_end() } else { toks[name].1 };
    Some(DumpEntry {
        pid: int(pid)?,
        tid: match tid {
            Some(i) => Some(int(i)?),
            None => None,
        },
        ppid: match ppid {
            Some(i) => Some(int(i)?),
            None => None,
        },
        name: name.to_string(),
        is_thread: tid.is_some(),
    })
}

/// A toolbox row: `USER PID PPID VSIZE RSS WCHAN PC S NAME`, where the
/// unlabelled one-letter state column anchors the name (WCHAN can be blank).
fn toolbox_row(line: &str, toks: &[(usize, &str)], threads: bool, processes: &mut HashSet<i32>) -> Option<DumpEntry> {
    let a: i32 = toks.get(1)?.1.parse().ok()?;
    let b: i32 = toks.get(2)?.1.parse().ok()?;
    let is_state = |t: &str| t.len() == 1 && "RSDTtZXxKWPIN".contains(t);
    let state = (6..toks.len().saturating_sub(1)).find(|&i| is_state(toks[i].1))?;
    let name = line[toks[state + 1].0..].trim_end().to_string();
    // In `ps -t`, a thread row shows the thread under PID and its process
    // under PPID; the main thread's row has both equal.
    if threads && (a == b || (processes.contains(&b) && !processes.contains(&a))) {
        return Some(DumpEntry { pid: b, tid: Some(a), ppid: None, name, is_thread: true });
    }
    processes.insert(a);
    Some(DumpEntry { pid: a, tid: None, ppid: Some(b), name, is_thread: false })
}
