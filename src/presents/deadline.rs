//! A present's dropped vsyncs, counted against its own deadline
//! (docs/presents.md, "Dropped vsyncs"): the screen showed the previous
//! buffer again on a vsync only while the app had a frame due. A span before
//! the frame was asked for is the app idle, not jank: an app that asked for
//! nothing for half a second and then presented on time dropped nothing.

use crate::frames::FrameAnalysis;

/// A span without a request at least this long is the app idle; a shorter
/// one is its pacing (a game capped at 30 fps asks for every other vsync),
/// which the user sees as its frame rate and which counts as before. The
/// bound is PerfDog's Jank threshold (83.33 ms, `3·t > 250 ms`): exactly the
/// pauses that would otherwise be scored as jank.
pub fn is_idle(span_ns: i64) -> bool {
    3 * span_ns > 250_000_000
}

/// What a present's time since the previous one was made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Timing {
    /// The part of the interval before the frame was asked for, when it is
    /// idle ([`is_idle`]); else 0.
    pub idle_ns: i64,
    /// The rest: from the later of the previous present and the vsync the
    /// frame's wait began at, to this present.
    pub frame_time_ns: i64,
    /// `max(round(frame_time_ns / period) − 1, 0)`.
    pub dropped: i64,
}

/// The timing of a present at `ts` after the layer's previous present at
/// `prev`, on a display of `period`, its frame due on screen at `due` (None:
/// unknown, and every vsync since `prev` counts). The frame's wait began one
/// period before it was due (a present earlier than its due time: before it
/// presented), and never before `prev`: a frame queued behind its predecessor
/// (buffer stuffing) is not charged the vsyncs its predecessor held the screen.
pub(crate) fn timing(prev: i64, ts: i64, due: Option<i64>, period: i64) -> Timing {
    let unasked = due.map_or(0, |d| d.min(ts) - period - prev);
    let idle_ns = if is_idle(unasked) { unasked } else { 0 };
    let frame_time_ns = ts - prev - idle_ns;
    let dropped = ((frame_time_ns + period / 2) / period - 1).max(0);
    Timing { idle_ns, frame_time_ns, dropped }
}

/// Each app's doFrames as requests: (vsync, start, end) by start, per pid.
/// A present without FrameTimeline's due time was due one period after the
/// vsync of the first doFrame of its app still running after the previous
/// present ([`Requests::due`]).
#[derive(Debug, Default)]
pub(crate) struct Requests {
    by_pid: foldhash::HashMap<i32, Vec<(i64, i64, i64)>>,
}

impl Requests {
    pub(crate) fn of(frames: &FrameAnalysis) -> Requests {
        let mut by_pid: foldhash::HashMap<i32, Vec<(i64, i64, i64)>> = foldhash::HashMap::default();
        for r in &frames.rows {
            let end = r.ts + r.do_frame_dur;
            by_pid.entry(r.pid).or_default().push((r.vsync_ts.unwrap_or(r.ts).min(r.ts), r.ts, end));
        }
        for v in by_pid.values_mut() {
            v.sort_unstable_by_key(|&(_, start, end)| (start, end));
        }
        Requests { by_pid }
    }

    /// When app `pid`'s present at `ts` was due, from its doFrames: the
    /// first one still running after the previous present `prev` (a
    /// main thread runs one at a time, so their ends are in start order),
    /// when it started before `ts`, was asked for at its vsync and due one
    /// `period` later. None without such a doFrame: nothing tells when the
    /// frame was asked for.
    pub(crate) fn due(&self, pid: Option<i32>, prev: i64, ts: i64, period: i64) -> Option<i64> {
        let frames = self.by_pid.get(&pid?)?;
        let first = frames.partition_point(|&(_, _, end)| end <= prev);
        let &(vsync, start, _) = frames.get(first)?;
        (start < ts).then_some(vsync + period)
    }
}
