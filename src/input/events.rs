//! trace_processor v58.2's `android_input_events` (stdlib module
//! `android.input`), row for row: every input event InputDispatcher sent to
//! a window and that window acknowledged, its four timestamps (dispatch,
//! receipt, FINISHED sent, FINISHED received), when InputReader read it, and
//! the frame that showed it with that frame's present (docs/input.md).
//!
//! The module's SQL, read into joins over the slices (its names in
//! brackets):
//! - a message is a `sendMessage(…)` / `receiveMessage(…)` slice on a thread
//!   that has a process; its channel, seq and type are the texts after the
//!   name's first, second and third `=` (up to `,`, `,`, `)`): PerfettoSQL's
//!   `STR_SPLIT`, so a channel that holds a `=` shifts them, as there;
//! - dispatch = InputDispatcher's sends; receipt = other threads' received
//!   messages but FINISHED; finish = other threads' sends (any type); ack =
//!   received FINISHED. The app's side names its channel `(client)`, read as
//!   `(server)`. An event is a dispatch with a receipt, a finish and an ack
//!   of the same channel and seq (every combination, as the inner joins);
//! - its input id (`_event_seq_to_input_event_id`): from a dispatch
//!   `sendMessage` with three ancestors, the eldest's second `=` field
//!   (`enqueueDispatchEntriesLocked(inputChannel=…, id=0x…)`); the read
//!   (`_input_read_time`): the `UnwantedInteractionBlocker::notifyMotion(id=…)`
//!   of that id;
//! - its frame (`_first_non_dropped_frame_after_input`): the app's
//!   `deliverInputEvent src=… id=…` (with a parent, `dispatchInputEvent …`,
//!   whose text after `_` names the action) of that id in the process the
//!   channel names (its second word up to `/`), matched to the
//!   `Choreographer#doFrame` slice it overlaps on its thread, else the next
//!   doFrame there (`is_speculative_frame`); joined to the event by **seq
//!   alone**, as the module joins it;
//! - its present: the end of the SurfaceFlinger display frame of the
//!   process' first app frame at or after the frame's start that was not
//!   dropped. The module takes any such display frame (`LIMIT 1` without an
//!   `ORDER BY`: which one depends on SQLite's join order); fpsan takes the
//!   earliest display frame, then the earliest app frame, which is
//!   trace_processor's answer on every frame of the real traces checked.
//!
//! A trace that repeats seqs on a channel multiplies rows as the joins do;
//! past [`MAX_ROWS_PER_MESSAGE`] rows per message slice the rest are left
//! out and counted, so that no trace makes this quadratic.

use rustc_hash::FxHashMap;

use crate::model::{Name, PresentType, Process, Slice, SliceId, Thread, TimelineKind, Trace, TrackId, Upid, Utid};
use crate::perfetto_sql::{cast_int, str_split};
use crate::startups::DisplayFrame;

/// The system_server thread that sends input events to windows.
pub const INPUT_DISPATCHER: &str = "InputDispatcher";
const SEND: &str = "sendMessage(";
const RECEIVE: &str = "receiveMessage(";
const READ: &str = "UnwantedInteractionBlocker::notifyMotion";
const DELIVER: &str = "deliverInputEvent src=";
const DELIVER_ANY: &str = "deliverInputEvent";
const PUBLISH_MOTION: &str = "publishMotionEvent(";

/// Rows kept per input message slice before the rest are left out: a
/// channel and seq seen once per side gives one row, ordinary traces stay
/// far below it.
pub const MAX_ROWS_PER_MESSAGE: usize = 8;

/// One row of `android_input_events`, its fields in the table's order
/// (docs/input.md, "android_input_events"), then fpsan's own.
#[derive(Debug, Clone, PartialEq)]
pub struct InputEvent {
    /// Receipt − dispatch.
    pub dispatch_latency_dur: i64,
    /// FINISHED sent − receipt: the app's handling.
    pub handling_latency_dur: i64,
    /// FINISHED received − FINISHED sent.
    pub ack_latency_dur: i64,
    /// FINISHED received − dispatch.
    pub total_latency_dur: i64,
    /// The frame's present − the read; None without a frame or present.
    pub end_to_end_latency_dur: Option<i64>,
    /// The thread that sent FINISHED (normally the app's UI thread) and its process.
    pub tid: i32,
    pub thread_name: Option<Name>,
    pub upid: Upid,
    pub pid: i32,
    pub process_name: Option<Name>,
    /// `MOTION`, `KEY`, `FOCUS`, … (older builds: `0x1`, …).
    pub event_type: Option<String>,
    /// The app's action (`MOVE`, …) where a frame was matched: the module's.
    pub event_action: Option<String>,
    pub event_seq: String,
    pub event_channel: String,
    pub normalized_event_channel: Option<String>,
    pub input_event_id: Option<String>,
    pub read_time: Option<i64>,
    pub dispatch_track: TrackId,
    pub dispatch_ts: i64,
    pub dispatch_dur: i64,
    pub receive_ts: i64,
    pub receive_dur: i64,
    pub receive_track: TrackId,
    pub frame_id: Option<i64>,
    pub is_speculative_frame: Option<bool>,
    /// The read's `eventTime=` (when the touch happened), if it gives one.
    pub event_time: Option<i64>,
    /// fpsan's: InputDispatcher's `sendMessage` slice.
    pub dispatch_slice: SliceId,
    /// fpsan's: the motion's action as InputDispatcher published it
    /// (`publishMotionEvent(…, action=DOWN)`), else the module's `event_action`.
    pub action: Option<String>,
}

/// Each dispatch once: the first of its rows (a trace that repeats seqs
/// gives a dispatch several; the rows are in dispatch order, so a
/// dispatch's rows are side by side). The gestures, the summaries, the
/// chart and the timeline count events this way.
pub fn once_per_dispatch(events: &[InputEvent]) -> impl Iterator<Item = &InputEvent> {
    events.chunk_by(|a, b| a.dispatch_slice == b.dispatch_slice).map(|rows| &rows[0])
}

impl InputEvent {
    /// When it happened, as the gestures, the chart and the timeline place
    /// it: its read by InputReader, else its dispatch (a key has no read).
    pub fn first_ts(&self) -> i64 {
        self.read_time.unwrap_or(self.dispatch_ts)
    }

    /// When its frame was presented (`read_time + end_to_end_latency_dur`).
    pub fn present_ts(&self) -> Option<i64> {
        Some(self.read_time? + self.end_to_end_latency_dur?)
    }
}

/// The rows, in dispatch order, and how many combinations the row limit
/// left out (of the rows, or of the joins before them), their frames from
/// `frames` and presents from `presents`.
pub fn input_events(
    trace: &Trace,
    found: &Found,
    frames: &[DisplayFrame],
    presents: &Presents,
) -> (Vec<InputEvent>, usize) {
    let limit = MAX_ROWS_PER_MESSAGE * found.messages.max(1);
    let mut left_out = 0;
    let seq_map = seq_map(trace, &found.dispatcher_sends);
    let reads = by_key(found.reads.iter().filter_map(|r| Some((r.id?, r))));
    let mut budget = Budget::new(limit);
    let to_frames = event_frames(trace, &found.delivers, frames, &seq_map, &mut budget);
    left_out += budget.left_out;
    let mut budget = Budget::new(limit);
    let after_input = after_input(&seq_map, &reads, &to_frames, presents, &mut budget);
    left_out += budget.left_out;
    let mut budget = Budget::new(limit);
    let mut rows = join(found, &seq_map, &reads, &after_input, &mut budget);
    left_out += budget.left_out;
    rows.sort_by(|a, b| {
        (a.dispatch_ts, &a.event_seq, a.dispatch_slice).cmp(&(b.dispatch_ts, &b.event_seq, b.dispatch_slice))
    });
    (rows, left_out)
}

/// How many rows a join may still make ([`MAX_ROWS_PER_MESSAGE`] per
/// message slice), and how many it was refused.
struct Budget {
    room: usize,
    left_out: usize,
}

impl Budget {
    fn new(limit: usize) -> Budget {
        Budget { room: limit, left_out: 0 }
    }

    /// Whether `n` more rows fit; if not, they are counted as left out.
    fn take(&mut self, n: usize) -> bool {
        if n <= self.room {
            self.room -= n;
            true
        } else {
            self.left_out += n;
            false
        }
    }
}

/// The channel, seq and type of a `sendMessage` / `receiveMessage` name.
fn message_fields(name: &str) -> [Option<&str>; 3] {
    let field = |k, end| str_split(name, "=", k).and_then(|p| str_split(p, end, 0));
    [field(1, ","), field(2, ","), field(3, ")")]
}

/// A message slice on a thread with a process.
struct Message<'t> {
    slice: &'t Slice,
    channel: &'t str,
    seq: &'t str,
    event_type: Option<&'t str>,
    thread: &'t Thread,
    process: &'t Process,
}

/// `notifyMotion`: an input id read at `ts`.
struct Read<'t> {
    id: Option<&'t str>,
    ts: i64,
    event_time: Option<i64>,
}

/// The app's `deliverInputEvent src=…` with a parent (`_clean_deliver_events`).
struct Deliver<'t> {
    ts: i64,
    dur: i64,
    utid: Utid,
    upid: Option<Upid>,
    process_name: Option<&'t str>,
    id: Option<&'t str>,
    action: Option<&'t str>,
}

/// An app thread's `deliverInputEvent` (any form: systrace's bare name,
/// Android 12+'s `deliverInputEvent src=… id=…`): its handling of an event,
/// what older captures have.
pub struct Delivery<'t> {
    pub utid: Utid,
    pub ts: i64,
    pub dur: i64,
    /// The action its parent `dispatchInputEvent MotionEvent ACTION_DOWN …`
    /// (Android 16: `… DOWN …`) names, if it names one.
    pub action: Option<&'t str>,
}

/// The slices the module reads, found in one pass.
#[derive(Default)]
pub struct Found<'t> {
    dispatch: Vec<Message<'t>>,
    /// (channel as the dispatcher names it, seq) → messages.
    receive: FxHashMap<(String, &'t str), Vec<Message<'t>>>,
    finish: FxHashMap<(String, &'t str), Vec<Message<'t>>>,
    ack: FxHashMap<(&'t str, &'t str), Vec<Message<'t>>>,
    /// Every `sendMessage` on a thread named InputDispatcher, process or not.
    dispatcher_sends: Vec<&'t Slice>,
    reads: Vec<Read<'t>>,
    delivers: Vec<Deliver<'t>>,
    /// Every `deliverInputEvent…` on a thread.
    pub deliveries: Vec<Delivery<'t>>,
    /// Message slices: what bounds the rows.
    messages: usize,
}

impl<'t> Found<'t> {
    /// Nothing about input in the trace.
    pub fn is_empty(&self) -> bool {
        self.messages == 0 && self.deliveries.is_empty()
    }

    /// InputDispatcher sent something: `android_input_events` may have rows.
    pub fn has_dispatches(&self) -> bool {
        !self.dispatch.is_empty()
    }

    pub fn of(trace: &'t Trace) -> Found<'t> {
        let mut out = Found::default();
        for s in &trace.slices {
            let name: &str = &s.name;
            let send = name.starts_with(SEND);
            if send || name.starts_with(RECEIVE) {
                out.messages += 1;
                let Some(thread) = trace.track_thread(s.track) else { continue };
                let dispatcher = thread.name.as_deref() == Some(INPUT_DISPATCHER);
                if send && dispatcher {
                    out.dispatcher_sends.push(s);
                }
                let [channel, seq, event_type] = message_fields(name);
                let (Some(upid), Some(channel), Some(seq)) = (thread.upid, channel, seq) else { continue };
                let m = Message { slice: s, channel, seq, event_type, thread, process: trace.process(upid) };
                let finished = matches!(event_type, Some("0x2" | "FINISHED"));
                match (send, dispatcher) {
                    (true, true) => out.dispatch.push(m),
                    // A thread without a name is neither side (SQL's NULL != 'InputDispatcher').
                    (true, false) if thread.name.is_some() => {
                        out.finish.entry((as_server(channel), seq)).or_default().push(m);
                    }
                    (true, false) => {}
                    (false, _) if finished => out.ack.entry((channel, seq)).or_default().push(m),
                    (false, _) if event_type.is_some() => {
                        out.receive.entry((as_server(channel), seq)).or_default().push(m);
                    }
                    (false, _) => {}
                }
            } else if name.starts_with(READ) {
                let id =
                    str_split(name, "id=", 1).and_then(|p| str_split(p, ",", 0)).and_then(|p| str_split(p, ")", 0));
                let event_time = str_split(name, "eventTime=", 1).and_then(|p| str_split(p, ")", 0)).map(cast_int);
                out.reads.push(Read { id, ts: s.ts, event_time });
            } else if name.starts_with(DELIVER_ANY) {
                let Some(thread) = trace.track_thread(s.track) else { continue };
                let parent = s.parent.map(|p| trace.slice(p));
                out.deliveries.push(Delivery {
                    utid: thread.utid,
                    ts: s.ts,
                    dur: s.dur,
                    action: parent.and_then(|p| motion_action(&p.name)),
                });
                let (true, Some(parent)) = (name.starts_with(DELIVER), parent) else { continue };
                out.delivers.push(Deliver {
                    ts: s.ts,
                    dur: s.dur,
                    utid: thread.utid,
                    upid: thread.upid,
                    process_name: thread.upid.and_then(|u| trace.process(u).name.as_deref()),
                    id: str_split(name, "=", 3),
                    action: str_split(&parent.name, "_", 1).and_then(|p| str_split(p, " ", 0)),
                });
            }
        }
        out
    }
}

/// The action an app's `dispatchInputEvent MotionEvent ACTION_MOVE …`
/// names, read leniently (fpsan's, for gestures): the word after
/// `MotionEvent`, without `ACTION_` (Android 16 writes `DOWN`).
fn motion_action(parent: &str) -> Option<&str> {
    let rest = parent.strip_prefix("dispatchInputEvent MotionEvent ")?;
    let word = rest.split(' ').next()?;
    Some(word.strip_prefix("ACTION_").unwrap_or(word)).filter(|w| !w.is_empty())
}

/// The app's name of a channel as the dispatcher names it.
fn as_server(channel: &str) -> String {
    channel.replace("(client)", "(server)")
}

/// `_event_seq_to_input_event_id`: a dispatch `sendMessage` under three
/// ancestors, with the input id the eldest names.
struct SeqMap<'t> {
    seq: Option<&'t str>,
    channel: Option<&'t str>,
    /// The channel's second word up to `/`: the process it belongs to.
    process_name: Option<&'t str>,
    input_event_id: Option<&'t str>,
    /// The motion's action, from its parent `publishMotionEvent(…, action=…)`.
    action: Option<&'t str>,
}

fn seq_map<'t>(trace: &'t Trace, dispatcher_sends: &[&'t Slice]) -> Vec<SeqMap<'t>> {
    let parent = |s: &Slice| s.parent.map(|p| trace.slice(p));
    dispatcher_sends
        .iter()
        .filter_map(|&s| {
            let publish = parent(s)?;
            let enqueue = parent(parent(publish)?)?;
            let [channel, seq, _] = message_fields(&s.name);
            let action = publish
                .name
                .strip_prefix(PUBLISH_MOTION)
                .and_then(|p| str_split(p, "action=", 1))
                .and_then(|p| str_split(p, ")", 0));
            Some(SeqMap {
                seq,
                channel,
                process_name: channel.and_then(|c| str_split(c, " ", 1)).and_then(|w| str_split(w, "/", 0)),
                input_event_id: str_split(&enqueue.name, "=", 2).and_then(|p| str_split(p, ")", 0)),
                action,
            })
        })
        .collect()
}

/// Items by a key, in their order.
fn by_key<K: std::hash::Hash + Eq, V>(items: impl Iterator<Item = (K, V)>) -> FxHashMap<K, Vec<V>> {
    let mut map: FxHashMap<K, Vec<V>> = FxHashMap::default();
    for (k, v) in items {
        map.entry(k).or_default().push(v);
    }
    map
}

/// `_input_event_id_to_android_frame`: a delivered event's frame.
struct EventFrame<'t> {
    input_event_id: &'t str,
    event_action: Option<&'t str>,
    upid: Option<Upid>,
    frame_id: i64,
    frame_ts: i64,
    event_channel: Option<&'t str>,
    speculative: bool,
}

/// Each delivered event's frames (exact: the doFrames its delivery
/// overlaps on its thread; else the next doFrame there), joined to the
/// dispatches of its id into its process.
fn event_frames<'t>(
    trace: &Trace,
    delivers: &[Deliver<'t>],
    frames: &[DisplayFrame],
    seq_map: &[SeqMap<'t>],
    budget: &mut Budget,
) -> Vec<EventFrame<'t>> {
    // `_clean_android_frames`: each frame with its doFrame slice, by thread,
    // in doFrame start order; the distinct doFrames of each thread likewise.
    let mut by_do_frame: FxHashMap<SliceId, Vec<&DisplayFrame>> = FxHashMap::default();
    for f in frames {
        by_do_frame.entry(f.do_frame).or_default().push(f);
    }
    let mut do_frames: FxHashMap<Utid, Vec<&Slice>> = FxHashMap::default();
    for (&id, fs) in &by_do_frame {
        do_frames.entry(fs[0].ui_thread).or_default().push(trace.slice(id));
    }
    let mut longest: FxHashMap<Utid, i64> = FxHashMap::default();
    for (utid, v) in &mut do_frames {
        v.sort_by_key(|s| (s.ts, s.id));
        longest.insert(*utid, v.iter().map(|s| s.dur).max().unwrap_or(0));
    }
    let by_id = by_key(seq_map.iter().filter_map(|m| Some(((m.input_event_id?, m.process_name?), m))));
    let mut out = Vec::new();
    for d in delivers {
        let (Some(id), Some(process)) = (d.id, d.process_name) else { continue };
        let (Some(maps), Some(on_thread)) = (by_id.get(&(id, process)), do_frames.get(&d.utid)) else { continue };
        let mut matched: Vec<(SliceId, bool)> = Vec::new();
        if d.dur > 0 {
            // Overlapping doFrames start before the delivery ends and no
            // earlier than the thread's longest doFrame before its start.
            let end = d.ts + d.dur;
            let to = on_thread.partition_point(|s| s.ts < end);
            let from = on_thread.partition_point(|s| s.ts < d.ts.saturating_sub(longest[&d.utid]));
            matched
                .extend(on_thread[from..to].iter().filter(|s| s.dur > 0 && s.ts + s.dur > d.ts).map(|s| (s.id, false)));
        }
        if matched.is_empty() {
            let next = on_thread.partition_point(|s| s.ts < d.ts);
            matched.extend(on_thread.get(next).map(|s| (s.id, true)));
        }
        for (do_frame, speculative) in matched {
            for f in by_do_frame[&do_frame].iter().filter(|_| budget.take(maps.len())) {
                out.extend(maps.iter().map(|m| EventFrame {
                    input_event_id: id,
                    event_action: d.action,
                    upid: d.upid,
                    frame_id: f.frame_id,
                    frame_ts: f.ts,
                    event_channel: m.channel,
                    speculative,
                }));
            }
        }
    }
    out
}

/// `_app_frame_to_surface_flinger_frame` per process: the app's frames that
/// were not dropped, each with the end of the display frame it went into.
pub struct Presents {
    of: FxHashMap<Upid, ProcessPresents>,
}

/// One process' (display frame start, app frame start, present) in
/// display-frame order, and the running maximum of the app frames' starts.
type ProcessPresents = (Vec<(i64, i64, i64)>, Vec<i64>);

impl Presents {
    pub fn of(trace: &Trace) -> Presents {
        let tl = &trace.frame_timeline;
        let displays = by_key(
            tl.iter().enumerate().filter(|(_, f)| f.kind == TimelineKind::ActualDisplay).map(|(i, f)| (f.token, i)),
        );
        let mut of: FxHashMap<Upid, ProcessPresents> = FxHashMap::default();
        for (i, app) in tl.iter().enumerate() {
            let shown = app.kind.is_actual() && app.present_type.is_some_and(|p| p != PresentType::Dropped);
            let (true, Some(upid), Some(token)) = (shown, app.upid, app.display_frame_token) else { continue };
            for &k in displays.get(&token).into_iter().flatten().filter(|&&k| k != i) {
                let sf = &tl[k];
                of.entry(upid).or_default().0.push((sf.ts, app.ts, sf.ts + sf.dur));
            }
        }
        for (rows, running_max) in of.values_mut() {
            rows.sort_unstable();
            let mut max = i64::MIN;
            running_max.extend(rows.iter().map(|r| {
                max = max.max(r.1);
                max
            }));
        }
        Presents { of }
    }

    /// The present of `upid`'s first frame (in display-frame order) that
    /// started at or after `ts`.
    fn after(&self, upid: Upid, ts: i64) -> Option<i64> {
        let (rows, running_max) = self.of.get(&upid)?;
        rows.get(running_max.partition_point(|&m| m < ts)).map(|r| r.2)
    }

    /// When `upid`'s frames were presented, in order, each once.
    pub fn times(&self, upid: Upid) -> Vec<i64> {
        let mut t: Vec<i64> =
            self.of.get(&upid).map(|(rows, _)| rows.iter().map(|r| r.2).collect()).unwrap_or_default();
        t.sort_unstable();
        t.dedup();
        t
    }
}

/// `_first_non_dropped_frame_after_input`, by seq.
#[derive(Clone, Copy)]
struct AfterInput<'t> {
    read_time: i64,
    present_time: Option<i64>,
    frame_id: Option<i64>,
    event_action: Option<&'t str>,
    speculative: Option<bool>,
}

fn after_input<'t>(
    seq_map: &[SeqMap<'t>],
    reads: &FxHashMap<&'t str, Vec<&Read<'t>>>,
    to_frames: &[EventFrame<'t>],
    presents: &Presents,
    budget: &mut Budget,
) -> FxHashMap<&'t str, Vec<AfterInput<'t>>> {
    let frames = by_key(to_frames.iter().filter_map(|f| Some(((f.input_event_id, f.event_channel?), f))));
    let mut out: FxHashMap<&str, Vec<AfterInput>> = FxHashMap::default();
    for m in seq_map {
        let (Some(id), Some(seq)) = (m.input_event_id, m.seq) else { continue };
        let Some(reads) = reads.get(id) else { continue };
        let matched = m.channel.and_then(|c| frames.get(&(id, c)));
        let frames: Vec<Option<&EventFrame>> = match matched {
            Some(v) => v.iter().map(|f| Some(*f)).collect(),
            None => vec![None],
        };
        for f in frames.into_iter().filter(|_| budget.take(reads.len())) {
            for r in reads {
                out.entry(seq).or_default().push(AfterInput {
                    read_time: r.ts,
                    present_time: f.and_then(|f| presents.after(f.upid?, f.frame_ts)),
                    frame_id: f.map(|f| f.frame_id),
                    event_action: f.and_then(|f| f.event_action),
                    speculative: f.map(|f| f.speculative),
                });
            }
        }
    }
    out
}

/// `SELECT … FROM dispatch JOIN receive JOIN finish JOIN finish_ack LEFT
/// JOIN frame LEFT JOIN seq_map LEFT JOIN read_time`: the rows the budget
/// allows (a dispatch's combinations whole, or none of them).
fn join(
    found: &Found,
    seq_map: &[SeqMap],
    reads: &FxHashMap<&str, Vec<&Read>>,
    after_input: &FxHashMap<&str, Vec<AfterInput>>,
    budget: &mut Budget,
) -> Vec<InputEvent> {
    let maps = by_key(seq_map.iter().filter_map(|m| Some(((m.seq?, m.channel?), m))));
    let none = |n: usize| n.max(1);
    let mut rows = Vec::new();
    for d in &found.dispatch {
        let key = (d.channel.to_string(), d.seq);
        let (Some(receives), Some(finishes), Some(acks)) =
            (found.receive.get(&key), found.finish.get(&key), found.ack.get(&(d.channel, d.seq)))
        else {
            continue;
        };
        let frames = after_input.get(d.seq).map_or(&[][..], Vec::as_slice);
        let maps = maps.get(&(d.seq, d.channel)).map_or(&[][..], Vec::as_slice);
        let reads_of = |m: &SeqMap| m.input_event_id.and_then(|id| reads.get(id)).map_or(&[][..], Vec::as_slice);
        let per_map: usize = if maps.is_empty() { 1 } else { maps.iter().map(|m| none(reads_of(m).len())).sum() };
        let n = [receives.len(), finishes.len(), acks.len(), none(frames.len()), per_map]
            .into_iter()
            .fold(1usize, usize::saturating_mul);
        if !budget.take(n) {
            continue;
        }
        let frames: Vec<Option<&AfterInput>> =
            if frames.is_empty() { vec![None] } else { frames.iter().map(Some).collect() };
        let mut joined: Vec<(Option<&SeqMap>, Option<&Read>)> = Vec::new();
        for &m in maps {
            let r = reads_of(m);
            if r.is_empty() {
                joined.push((Some(m), None));
            }
            joined.extend(r.iter().map(|r| (Some(m), Some(*r))));
        }
        if joined.is_empty() {
            joined.push((None, None));
        }
        for r in receives {
            for f in finishes {
                for a in acks {
                    for frame in &frames {
                        for &(m, read) in &joined {
                            rows.push(row(d, r, f, a, *frame, m, read));
                        }
                    }
                }
            }
        }
    }
    rows
}

/// One joined row.
fn row(
    d: &Message,
    r: &Message,
    f: &Message,
    a: &Message,
    frame: Option<&AfterInput>,
    m: Option<&SeqMap>,
    read: Option<&Read>,
) -> InputEvent {
    let owned = |s: Option<&str>| s.map(str::to_string);
    let event_action = owned(frame.and_then(|x| x.event_action));
    InputEvent {
        dispatch_latency_dur: r.slice.ts - d.slice.ts,
        handling_latency_dur: f.slice.ts - r.slice.ts,
        ack_latency_dur: a.slice.ts - f.slice.ts,
        total_latency_dur: a.slice.ts - d.slice.ts,
        end_to_end_latency_dur: frame.and_then(|x| Some(x.present_time? - x.read_time)),
        tid: f.thread.tid,
        thread_name: f.thread.name.clone(),
        upid: f.process.upid,
        pid: f.process.pid,
        process_name: f.process.name.clone(),
        event_type: owned(d.event_type),
        action: owned(m.and_then(|m| m.action)).or_else(|| event_action.clone()),
        event_action,
        event_seq: d.seq.to_string(),
        event_channel: d.channel.to_string(),
        normalized_event_channel: normalize_event_channel(d.channel),
        input_event_id: owned(m.and_then(|m| m.input_event_id)),
        read_time: read.map(|x| x.ts),
        dispatch_track: d.slice.track,
        dispatch_ts: d.slice.ts,
        dispatch_dur: d.slice.dur,
        receive_ts: r.slice.ts,
        receive_dur: r.slice.dur,
        receive_track: r.slice.track,
        frame_id: frame.and_then(|x| x.frame_id),
        is_speculative_frame: frame.and_then(|x| x.speculative),
        event_time: read.and_then(|x| x.event_time),
        dispatch_slice: d.slice.id,
    }
}

/// The module's `_normalize_event_channel`: a channel's window without the
/// hash InputDispatcher puts before it (`ccf6448 PopupWindow:b20fb4d` →
/// `PopupWindow`; `[Gesture Monitor] swipe-up` stays; `PointerEventDispatcher23`
/// → `PointerEventDispatcher`). SQLite's `trim` and `substr`/`instr` count
/// characters and trim spaces only.
pub fn normalize_event_channel(c: &str) -> Option<String> {
    let after_first_space = |s: &str| -> String {
        let skip = c.chars().position(|ch| ch == ' ').map_or(0, |p| p + 1);
        s.chars().skip(skip).collect::<String>().trim_matches(' ').to_string()
    };
    let space = c.find(' ');
    if c.starts_with('[') && c[1..].contains("] ") {
        Some(c.to_string())
    } else if space.is_some_and(|p| c[p + 1..].contains(':')) {
        Some(after_first_space(c.split(':').next().unwrap_or_default()))
    } else if space.is_some() {
        Some(after_first_space(c))
    } else if c.ends_with(|ch: char| ch.is_ascii_digit()) {
        c.rfind(|ch: char| ch.is_ascii_alphabetic()).map(|k| c[..=k].to_string())
    } else {
        Some(c.to_string())
    }
}
