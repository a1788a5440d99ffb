//! Ftrace bundles on the hot path: `print` and the kernel
//! `*_tracing_mark_write` variants become atrace records; sched_switch,
//! sched_waking, compact_sched and task events update thread names and
//! counters here, and give the frame threads' records to `read::frame_sched`
//! (their full detail is read by the scheduler pass, `sched`, for the
//! threads an analysis asks about). The event layouts both passes read
//! (`scan_bundle`, `canonical_event`, `switch_fields`, `waking_fields`) are here.

use super::compact_sched::{note_last, CompactRecords, CompactSched, RunningTasks, Want};
use super::wire::{lossy, Expect, Fields, Value, WireError};
use crate::read::batch::BatchBuilder;
use crate::read::records::{AtraceOp, BundleInfo};

/// FtraceEvent payload field numbers (Perfetto's ftrace_event.proto).
pub mod ev {
    pub const PRINT: u32 = 3;
    pub const SCHED_SWITCH: u32 = 4;
    pub const SCHED_WAKEUP: u32 = 17;
    pub const SCHED_WAKING: u32 = 20;
    pub const TRACING_MARK_WRITE: u32 = 80;
    pub const SCHED_WAKEUP_NEW: u32 = 114;
    pub const TASK_NEWTASK: u32 = 235;
    pub const TASK_RENAME: u32 = 236;
    pub const ZERO: u32 = 331;
    pub const SDE_TRACING_MARK_WRITE: u32 = 333;
    pub const DPU_TRACING_MARK_WRITE: u32 = 348;
    pub const G2D_TRACING_MARK_WRITE: u32 = 349;
    pub const MALI_TRACING_MARK_WRITE: u32 = 350;
    pub const LWIS_TRACING_MARK_WRITE: u32 = 467;
}

/// The scalar header of a bundle (read before its events, whatever the field order).
#[derive(Default)]
pub struct BundleHeader<'a> {
    pub cpu: u32,
    pub lost_events: bool,
    pub compact_sched: Option<&'a [u8]>,
    pub previous_bundle_end: Option<i64>,
}

/// One walk over a bundle: its header (whatever the field order) and the
/// byte ranges of its events, put in `events`. A malformed bundle is an
/// error, and neither pass reads any of its events.
pub fn scan_bundle<'a>(b: &'a [u8], events: &mut Vec<(usize, usize)>) -> Result<BundleHeader<'a>, WireError> {
    events.clear();
    let mut h = BundleHeader::default();
    for f in Fields::new(b) {
        let (num, v) = f?;
        if let (2, Value::Bytes(e)) = (num, v) {
            let start = e.as_ptr() as usize - b.as_ptr() as usize;
            events.push((start, start + e.len()));
        }
        h.take(num, v);
    }
    Ok(h)
}

impl<'a> BundleHeader<'a> {
    /// Note one field of the bundle if it is a header field.
    fn take(&mut self, num: u32, v: Value<'a>) {
        match num {
            1 => self.cpu = v.as_u64() as u32,
            3 => self.lost_events = v.as_bool(),
            4 => self.compact_sched = Some(v.bytes()),
            10 => self.previous_bundle_end = Some(v.as_i64()),
            // last_read_event_timestamp: the same fact from Perfetto v44-v46;
            // previous_bundle_end_timestamp (v47+) wins when both are present.
            9 => {
                self.previous_bundle_end.get_or_insert(v.as_i64());
            }
            _ => {}
        }
    }
}

/// One FtraceEventBundle. `events` is scratch space, reused from bundle to bundle.
pub fn bundle(ctx: &mut BatchBuilder, b: &[u8], events: &mut Vec<(usize, usize)>) {
    // The events are decoded only once the whole bundle has proved readable
    // (a malformed bundle records nothing).
    let h = match scan_bundle(b, events) {
        Ok(h) => h,
        Err(e) => {
            ctx.malformed(format!("malformed ftrace bundle: {e}"));
            return;
        }
    };
    let order = ctx.order();
    let mut first_event_ts = None;
    for &(s, e) in events.iter() {
        if let Some(ts) = event(ctx, &b[s..e], h.cpu) {
            first_event_ts.get_or_insert(ts);
        }
    }
    if let Some(cs) = h.compact_sched {
        if let Some(ts) = compact_sched(ctx, cs, h.cpu) {
            first_event_ts = Some(first_event_ts.map_or(ts, |t: i64| t.min(ts)));
        }
    }
    ctx.batch.bundles.push(BundleInfo {
        cpu: h.cpu,
        order,
        previous_bundle_end: h.previous_bundle_end,
        first_event_ts,
        lost_events: h.lost_events,
    });
}

/// One FtraceEvent of a bundle of `cpu`. Returns its timestamp.
fn event(ctx: &mut BatchBuilder, e: &[u8], cpu: u32) -> Option<i64> {
    let Envelope { ts, pid, payload, sched_then_other } = match envelope(e) {
        Ok(env) => env,
        Err(err) => {
            ctx.malformed(format!("malformed ftrace event: {err}"));
            return None;
        }
    };
    ctx.batch.ftrace_events += 1;
    ctx.batch.see_ts(ts);
    ctx.busy.see(ts);
    if sched_then_other {
        ctx.sched_unknown = true;
    }
    let Some((num, p)) = payload else { return Some(ts) };
    match num {
        ev::PRINT => {
            for f in Fields::new(p).flatten() {
                if let (2, Value::Bytes(buf)) = f {
                    ctx.atrace_text(ts, pid.unwrap_or(0), &lossy(buf));
                }
            }
        }
        ev::SCHED_SWITCH => {
            ctx.batch.sched_events += 1;
            // Only the incoming thread's comm: the outgoing one came in earlier.
            let sw = switch_fields(p);
            ctx.sched_tid(sw.prev_pid);
            ctx.sched_tid(sw.next_pid);
            if let Some(c) = &mut ctx.collect {
                c.switch(ts, cpu, (sw.prev_pid, sw.prev_state, sw.next_pid));
            }
            ctx.comm(ts, sw.next_pid, sw.next_comm);
        }
        ev::SCHED_WAKING => {
            ctx.batch.sched_events += 1;
            let w = waking_fields(p);
            ctx.sched_tid(w.pid);
            if let Some(c) = &mut ctx.collect {
                c.waking(ts, w.pid, pid);
            }
            ctx.comm(ts, w.pid, w.comm);
        }
        // trace_processor's thread states take no wakeup from these (the
        // same wakeup's sched_waking came first; a new task is runnable
        // from its task_newtask): only the name.
        ev::SCHED_WAKEUP | ev::SCHED_WAKEUP_NEW => {
            ctx.batch.sched_events += 1;
            let w = waking_fields(p);
            ctx.comm(ts, w.pid, w.comm);
        }
        ev::TASK_NEWTASK => {
            let t = newtask_fields(p);
            // The new task is runnable, woken by the one that made it.
            if t.pid != 0 {
                ctx.sched_tid(t.pid);
                if let Some(c) = &mut ctx.collect {
                    c.waking(ts, t.pid, pid);
                }
            }
            ctx.comm(ts, t.pid, t.comm);
        }
        ev::TASK_RENAME => {
            let (mut rpid, mut newcomm) = (0, &[][..]);
            for f in Fields::new(p).flatten() {
                match f {
                    (1, v) => rpid = v.as_i32(),
                    (3, v) => newcomm = v.bytes(),
                    _ => {}
                }
            }
            if !newcomm.is_empty() {
                ctx.rename(ts, rpid, newcomm);
            }
        }
        ev::TRACING_MARK_WRITE
        | ev::ZERO
        | ev::SDE_TRACING_MARK_WRITE
        | ev::DPU_TRACING_MARK_WRITE
        | ev::G2D_TRACING_MARK_WRITE
        | ev::MALI_TRACING_MARK_WRITE
        | ev::LWIS_TRACING_MARK_WRITE => kernel_mark(ctx, ts, pid.unwrap_or(0), num, p),
        _ => {}
    }
    Some(ts)
}

/// What the first pass needs of an FtraceEvent around its payload.
struct Envelope<'a> {
    ts: i64,
    /// The common pid: the task the event was recorded in (a waking's
    /// waker). Absent, it is unknown (trace_processor reads it as 0, the
    /// idle task: a wakeup from an interrupt, which it would not be).
    pid: Option<i32>,
    /// The last payload and its field number.
    payload: Option<(u32, &'a [u8])>,
    /// A scheduler payload was followed by another kind. The scheduler pass
    /// takes the last scheduler payload, this pass the last payload, so the
    /// batch cannot be skipped by the scheduler pass.
    sched_then_other: bool,
}

/// The payloads the scheduler pass reads: trace_processor's thread states
/// come from these (a task_newtask makes its new task runnable).
pub(crate) fn is_sched(num: u32) -> bool {
    matches!(num, ev::SCHED_SWITCH | ev::SCHED_WAKING | ev::TASK_NEWTASK)
}

/// The task_newtask fields either pass reads: the new task and its name.
pub(crate) struct NewTask<'a> {
    pub pid: i32,
    pub comm: &'a [u8],
}

/// A task_newtask payload's fields.
pub(crate) fn newtask_fields(p: &[u8]) -> NewTask<'_> {
    let mut t = NewTask { pid: 0, comm: &[] };
    for f in Fields::new(p).flatten() {
        match f {
            (1, v) => t.pid = v.as_i32(),
            (2, v) => t.comm = v.bytes(),
            _ => {}
        }
    }
    t
}

/// An FtraceEvent as traced_probes writes it: timestamp (1), pid (2), then
/// one payload: (timestamp, pid, payload's field number, payload). Other
/// layouts (and damage) are `None`, for the general path, which gives the
/// same answer on these bytes.
#[inline(always)]
pub(crate) fn canonical_event(e: &[u8]) -> Option<(i64, i32, u32, &[u8])> {
    let mut r = Expect::new(e);
    r.tag(1, 0)?;
    let ts = r.varint()? as i64;
    r.tag(2, 0)?;
    let pid = r.varint()? as i32;
    let num = r.bytes_tag().filter(|&n| n >= 3)?;
    let payload = r.bytes()?;
    r.done().then_some((ts, pid, num, payload))
}

fn envelope(e: &[u8]) -> Result<Envelope<'_>, WireError> {
    if let Some((ts, pid, num, payload)) = canonical_event(e) {
        return Ok(Envelope { ts, pid: Some(pid), payload: Some((num, payload)), sched_then_other: false });
    }
    let mut env = Envelope { ts: 0, pid: None, payload: None, sched_then_other: false };
    let (mut sched_seen, mut last_is_sched) = (false, false);
    for f in Fields::new(e) {
        match f? {
            (1, v) => env.ts = v.as_i64(),
            (2, v) => env.pid = Some(v.as_i32()),
            (num, Value::Bytes(p)) if num >= 3 => {
                env.payload = Some((num, p));
                last_is_sched = is_sched(num);
                sched_seen |= last_is_sched;
            }
            _ => {}
        }
    }
    env.sched_then_other = sched_seen && !last_is_sched;
    Ok(env)
}

/// The sched_switch fields either pass reads.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Switch<'a> {
    pub prev_pid: i32,
    pub prev_state: i64,
    pub next_comm: &'a [u8],
    pub next_pid: i32,
}

/// A sched_switch payload's fields; those after damage keep their defaults.
#[inline(always)]
pub(crate) fn switch_fields(p: &[u8]) -> Switch<'_> {
    if let Some(sw) = canonical_switch(p) {
        return sw;
    }
    let mut sw = Switch::default();
    let mut fields = Fields::new(p);
    while let Some(Ok((num, v))) = fields.next() {
        match num {
            2 => sw.prev_pid = v.as_i32(),
            4 => sw.prev_state = v.as_i64(),
            5 => sw.next_comm = v.bytes(),
            6 => sw.next_pid = v.as_i32(),
            _ => {}
        }
    }
    sw
}

/// A sched_switch in the order traced_probes writes its fields: prev_comm,
/// prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio.
#[inline(always)]
fn canonical_switch(p: &[u8]) -> Option<Switch<'_>> {
    let mut r = Expect::new(p);
    r.tag(1, 2)?;
    r.bytes()?;
    r.tag(2, 0)?;
    let prev_pid = r.varint()? as i32;
    r.tag(3, 0)?;
    r.varint()?;
    r.tag(4, 0)?;
    let prev_state = r.varint()? as i64;
    r.tag(5, 2)?;
    let next_comm = r.bytes()?;
    r.tag(6, 0)?;
    let next_pid = r.varint()? as i32;
    r.tag(7, 0)?;
    r.varint()?;
    r.done().then_some(Switch { prev_pid, prev_state, next_comm, next_pid })
}

/// The sched_waking / sched_wakeup / sched_wakeup_new fields either pass reads.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Waking<'a> {
    pub pid: i32,
    pub comm: &'a [u8],
}

/// A waking payload's fields; those after damage keep their defaults.
#[inline(always)]
pub(crate) fn waking_fields(p: &[u8]) -> Waking<'_> {
    if let Some(w) = canonical_waking(p) {
        return w;
    }
    let mut w = Waking::default();
    let mut fields = Fields::new(p);
    while let Some(Ok((num, v))) = fields.next() {
        match num {
            1 => w.comm = v.bytes(),
            2 => w.pid = v.as_i32(),
            _ => {}
        }
    }
    w
}

/// A waking payload that starts with comm (1) and pid (2); the integer
/// fields after them (prio, success, target_cpu) differ between kernels and
/// are not read.
#[inline(always)]
fn canonical_waking(p: &[u8]) -> Option<Waking<'_>> {
    let mut r = Expect::new(p);
    r.tag(1, 2)?;
    let comm = r.bytes()?;
    r.tag(2, 0)?;
    let pid = r.varint()? as i32;
    while !r.done() {
        r.varint_field_after(2)?;
    }
    Some(Waking { pid, comm })
}

/// The kernel's atrace look-alikes, mapped as trace_processor's ftrace parser
/// does (ParseKernelTracingMarkWrite / ParseZeroEvent).
fn kernel_mark(ctx: &mut BatchBuilder, ts: i64, pid: i32, num: u32, p: &[u8]) {
    let (mut f_pid, mut name, mut trace_name, mut kind, mut value, mut begin) =
        (0i32, &[][..], &[][..], None::<u64>, 0i64, None::<bool>);
    let mut flag = 0i32;
    for f in Fields::new(p).flatten() {
        match (num, f.0) {
            (ev::TRACING_MARK_WRITE, 1)
            | (ev::SDE_TRACING_MARK_WRITE, 1)
            | (ev::DPU_TRACING_MARK_WRITE, 1)
            | (ev::G2D_TRACING_MARK_WRITE, 1) => f_pid = f.1.as_i32(),
            (ev::TRACING_MARK_WRITE, 2) | (ev::SDE_TRACING_MARK_WRITE, 2) | (ev::DPU_TRACING_MARK_WRITE, 2) => {
                trace_name = f.1.bytes()
            }
            (ev::TRACING_MARK_WRITE, 3) | (ev::SDE_TRACING_MARK_WRITE, 5) | (ev::DPU_TRACING_MARK_WRITE, 3) => {
                begin = Some(f.1.as_bool())
            }
            (ev::SDE_TRACING_MARK_WRITE, 3)
            | (ev::DPU_TRACING_MARK_WRITE, 5)
            | (ev::G2D_TRACING_MARK_WRITE, 5)
            | (ev::MALI_TRACING_MARK_WRITE, 3)
            | (ev::LWIS_TRACING_MARK_WRITE, 2) => kind = Some(f.1.as_u64()),
            (ev::SDE_TRACING_MARK_WRITE, 4)
            | (ev::DPU_TRACING_MARK_WRITE, 6)
            | (ev::G2D_TRACING_MARK_WRITE, 6)
            | (ev::MALI_TRACING_MARK_WRITE, 4)
            | (ev::LWIS_TRACING_MARK_WRITE, 5)
            | (ev::ZERO, 4) => value = f.1.as_i64(),
            (ev::DPU_TRACING_MARK_WRITE, 4)
            | (ev::G2D_TRACING_MARK_WRITE, 4)
            | (ev::MALI_TRACING_MARK_WRITE, 1)
            | (ev::LWIS_TRACING_MARK_WRITE, 4)
            | (ev::ZERO, 2) => name = f.1.bytes(),
            (ev::MALI_TRACING_MARK_WRITE, 2) | (ev::LWIS_TRACING_MARK_WRITE, 3) | (ev::ZERO, 3) => f_pid = f.1.as_i32(),
            (ev::ZERO, 1) => flag = f.1.as_i32(),
            _ => {}
        }
    }
    let tgid = f_pid as u32;
    // Resolve the phase character the way each variant encodes it.
    let phase: Option<char> = match num {
        ev::ZERO => {
            if flag & 1 != 0 {
                Some('B')
            } else if flag & 2 != 0 {
                Some('E')
            } else if flag & 4 != 0 {
                Some('C')
            } else {
                None
            }
        }
        ev::TRACING_MARK_WRITE => begin.map(|b| if b { 'B' } else { 'E' }),
        ev::SDE_TRACING_MARK_WRITE => match (kind, begin) {
            (None, None) => None,
            (Some(k), _) if k != 0 => Some(k as u8 as char),
            (_, b) => Some(if b.unwrap_or(false) { 'B' } else { 'E' }),
        },
        _ => kind.filter(|&k| k != 0).map(|k| k as u8 as char),
    };
    let name_bytes = match num {
        ev::TRACING_MARK_WRITE | ev::SDE_TRACING_MARK_WRITE => trace_name,
        _ => name,
    };
    // dpu: B/E/I from drivers pretending to be other processes are re-homed
    // (trace_processor b/395779936): only counters keep the payload tgid.
    let tgid = if num == ev::DPU_TRACING_MARK_WRITE && phase != Some('C') { 0 } else { tgid };
    let name = ctx.interner.intern_bytes(name_bytes);
    let op = match phase {
        Some('B') => AtraceOp::Begin { tgid, name },
        Some('E') => AtraceOp::End { tgid },
        Some('C') => AtraceOp::Counter { tgid, name, value: value as f64 },
        Some('I') => AtraceOp::Instant { tgid, name },
        _ => {
            ctx.batch.atrace_malformed += 1;
            return;
        }
    };
    ctx.push_atrace(ts, pid, op);
}

/// compact_sched on the hot path: the comms of the tasks switched in and
/// woken, event counts and time bounds, and the records of the threads the
/// batch keeps (see `read::frame_sched`). Returns the first timestamp.
fn compact_sched(ctx: &mut BatchBuilder, b: &[u8], cpu: u32) -> Option<i64> {
    let cs = CompactSched::parse(b);
    if cs.malformed {
        ctx.malformed("malformed compact_sched".to_string());
        return None;
    }
    ctx.batch.compact_sched = true;
    let mut edge = cs.edge(cpu);
    let mut collect = ctx.collect.take();
    let first = match collect.as_mut().and_then(|c| c.compact_target()) {
        // Two loops, not one with a test per event: without records to keep,
        // the prev_state column is not even decoded.
        None => {
            let want = Want { prev_state: false, comm: true };
            let switches = cs.switches(want).map(|s| {
                note_last(&mut edge, s.ts, s.next_pid);
                (s.ts, s.next_pid, s.next_comm)
            });
            let first = compact_column(ctx, switches, None);
            compact_column(ctx, cs.wakings(want).map(|w| (w.ts, w.pid, w.comm)), first)
        }
        Some((wanted, out, early)) => {
            let mut records = CompactRecords::new(cpu, out.len());
            let mut tasks = RunningTasks::new(&cs);
            let want = Want { prev_state: true, comm: true };
            let switches = cs.switches(want).map(|s| {
                records.switch(wanted, &s, out);
                tasks.note(&s);
                note_last(&mut edge, s.ts, s.next_pid);
                (s.ts, s.next_pid, s.next_comm)
            });
            let first = compact_column(ctx, switches, None);
            tasks.noted();
            records.wakings_begin(out);
            let wakings = cs.wakings(want).map(|w| {
                records.waking(wanted, &mut tasks, &w, out, early);
                (w.ts, w.pid, w.comm)
            });
            let first = compact_column(ctx, wakings, first);
            records.finish(out);
            first
        }
    };
    ctx.collect = collect;
    ctx.batch.compact_edges.push(edge);
    first
}

/// One column of (ts, pid, comm): names recorded, events counted, bounds
/// seen. `first` is the earliest timestamp so far, returned updated.
fn compact_column<'a>(
    ctx: &mut BatchBuilder,
    events: impl Iterator<Item = (i64, Option<i32>, Option<&'a [u8]>)>,
    mut first: Option<i64>,
) -> Option<i64> {
    let (mut last, mut n) = (None, 0u64);
    for (t, pid, name) in events {
        first = Some(first.map_or(t, |f: i64| f.min(t)));
        last = Some(t);
        n += 1;
        ctx.busy.see(t);
        if let Some(pid) = pid {
            ctx.sched_tid(pid);
        }
        if let (Some(pid), Some(name)) = (pid, name) {
            ctx.comm(t, pid, name);
        }
    }
    ctx.batch.sched_events += n;
    if let (Some(f), Some(l)) = (first, last) {
        ctx.batch.see_ts(f);
        ctx.batch.see_ts(l);
    }
    first
}

#[cfg(test)]
mod tests {
    //! The canonical-layout shortcuts against events encoded by the official
    //! schema, and the general path on the layouts the shortcuts refuse.
    use super::*;
    use perfetto_protos::ftrace_event::FtraceEvent;
    use perfetto_protos::sched::{SchedSwitchFtraceEvent, SchedWakingFtraceEvent};
    use protobuf::Message;

    fn switch() -> SchedSwitchFtraceEvent {
        let mut s = SchedSwitchFtraceEvent::new();
        s.set_prev_comm("bg0_1".into());
        s.set_prev_pid(1001);
        s.set_prev_prio(120);
        s.set_prev_state(0x402);
        s.set_next_comm(".example.scroll".into());
        s.set_next_pid(4242);
        s.set_next_prio(110);
        s
    }

    fn bytes(m: &impl Message) -> Vec<u8> {
        m.write_to_bytes().expect("encodes")
    }

    #[test]
    fn sched_switch_in_writer_order_and_otherwise() {
        let want = Switch { prev_pid: 1001, prev_state: 0x402, next_comm: b".example.scroll", next_pid: 4242 };
        let canonical = bytes(&switch());
        assert_eq!(switch_fields(&canonical), want);
        // The same fields, next_prio first: the general path.
        let (head, next_prio) = canonical.split_at(canonical.len() - 2);
        assert_eq!(next_prio, [0x38, 110]);
        let reordered = [next_prio, head].concat();
        assert_eq!(switch_fields(&reordered), want);
        // A repeated next_pid after the writer's fields: the last one wins.
        let repeated = [&canonical[..], &[0x30, 7]].concat();
        assert_eq!(switch_fields(&repeated).next_pid, 7);
        // Cut inside next_comm: what came before it is kept.
        let at = canonical.windows(2).position(|w| w == [0x2a, 15]).expect("next_comm");
        let cut = &canonical[..at + 5];
        assert_eq!(switch_fields(cut), Switch { prev_pid: 1001, prev_state: 0x402, next_comm: b"", next_pid: 0 });
    }

    #[test]
    fn sched_waking_with_or_without_the_optional_integers() {
        let mut w = SchedWakingFtraceEvent::new();
        w.set_comm("RenderThread".into());
        w.set_pid(4262);
        let want = Waking { pid: 4262, comm: b"RenderThread" };
        assert_eq!(waking_fields(&bytes(&w)), want);
        w.set_prio(110);
        w.set_success(1);
        w.set_target_cpu(3);
        let full = bytes(&w);
        assert_eq!(waking_fields(&full), want);
        // pid first, then comm: the general path.
        let swapped = [&full[14..17], &full[..14], &full[17..]].concat();
        assert_eq!(swapped[..3], [0x10, 0xa6, 0x21]);
        assert_eq!(waking_fields(&swapped), want);
        // A second comm after the integers: the last one wins.
        let renamed = [&full[..], &[0x0a, 2, b'r', b't']].concat();
        assert_eq!(waking_fields(&renamed).comm, b"rt");
    }

    #[test]
    fn ftrace_event_envelopes() {
        let mut e = FtraceEvent::new();
        e.set_timestamp(1_234_567_890_123);
        e.set_pid(1001);
        e.set_sched_switch(switch());
        let canonical = bytes(&e);
        let payload = bytes(&switch());
        assert_eq!(canonical_event(&canonical), Some((1_234_567_890_123, 1001, ev::SCHED_SWITCH, &payload[..])));
        let env = envelope(&canonical).expect("well-formed");
        assert_eq!(
            (env.ts, env.pid, env.payload, env.sched_then_other),
            (1_234_567_890_123, Some(1001), Some((4, &payload[..])), false)
        );
        // A payload with a two-byte tag (sched_waking, field 20).
        let mut w = SchedWakingFtraceEvent::new();
        w.set_comm("RenderThread".into());
        w.set_pid(4262);
        let mut e2 = FtraceEvent::new();
        e2.set_timestamp(7);
        e2.set_pid(3);
        e2.set_sched_waking(w.clone());
        assert_eq!(canonical_event(&bytes(&e2)), Some((7, 3, ev::SCHED_WAKING, &bytes(&w)[..])));
        // common_flags (field 5) between pid and the payload: not the
        // shortcut's layout, the same answer from the general path.
        e.set_common_flags(1);
        let flagged = bytes(&e);
        assert_eq!(canonical_event(&flagged), None);
        let env = envelope(&flagged).expect("well-formed");
        assert_eq!((env.ts, env.pid, env.payload), (1_234_567_890_123, Some(1001), Some((4, &payload[..]))));
        // A scheduler payload followed by a print: the last payload counts,
        // and the scheduler pass is told the two differ.
        let print = [&canonical[..], &[0x1a, 3, 0x12, 1, b'x']].concat();
        let env = envelope(&print).expect("well-formed");
        assert_eq!((env.payload, env.sched_then_other), (Some((ev::PRINT, &[0x12, 1, b'x'][..])), true));
        // Damage is an error, not a shortcut.
        assert_eq!(canonical_event(&canonical[..canonical.len() - 1]), None);
        assert_eq!(envelope(&canonical[..canonical.len() - 1]).err(), Some(WireError::Truncated));
    }
}
