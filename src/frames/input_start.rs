//! Frames a touch started (docs/frames.md, "Input-started frames"). A main
//! thread idle in its looper with a frame requested is woken by the vsync
//! that delivers it. One that slept through its frame's vsync and was woken
//! after it by system_server's `InputDispatcher` (writing a touch into its
//! input channel) had asked for no frame at that vsync: it handled the
//! input, and the frame that handling requested is measured from that
//! wakeup, not from the earlier edge that never woke it.

use foldhash::HashSet;

use super::sched_index::SchedIndex;
use crate::model::Trace;

/// The thread of system_server that sends input events to the apps.
pub const INPUT_DISPATCHER: &str = "InputDispatcher";

/// The trace's input dispatcher threads.
#[derive(Debug, Default)]
pub struct InputStarts {
    dispatchers: HashSet<i32>,
}

impl InputStarts {
    pub fn new(trace: &Trace) -> InputStarts {
        let dispatchers = trace
            .threads
            .iter()
            .filter(|t| t.name.as_deref().is_some_and(|n| n == INPUT_DISPATCHER))
            .map(|t| t.tid)
            .collect();
        InputStarts { dispatchers }
    }

    /// Whether the trace names no input dispatcher (no frame can be one a
    /// touch started).
    pub fn is_empty(&self) -> bool {
        self.dispatchers.is_empty()
    }

    /// When the frame of thread `tid` whose vsync is `vsync` and whose
    /// doFrame starts at `start` was started by input: the time the input
    /// dispatcher woke the thread from the sleep it was in at the vsync,
    /// when that wakeup came after the vsync and no later than the start.
    pub fn request(&self, sched: &SchedIndex, tid: i32, vsync: i64, start: i64) -> Option<i64> {
        if vsync >= start {
            return None;
        }
        let (woken, waker) = sched.wakeup_ending_sleep_at(tid, vsync)?;
        (woken <= start && waker.is_some_and(|w| self.dispatchers.contains(&w))).then_some(woken)
    }
}
