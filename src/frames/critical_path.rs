//! A frame's critical path: its time from vsync to end, split by who it was
//! waiting on (docs/frames.md, "Critical path"). The frame's thread is
//! followed through its sleeps to the thread that woke it (sched_waking's
//! waker) or, where the trace does not say, to Android's known hand-offs;
//! each interval goes to a (thread, slice, state), recursively.

use crate::model::Name;

/// What a thread on a frame's critical path was doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathState {
    Running,
    /// Ready, waiting for a CPU.
    Runnable,
    /// Asleep with nobody on the path to blame (no waker, no known hand-off).
    Sleeping,
    /// Uninterruptible sleep (D: I/O, a lock in the kernel).
    Blocked,
    /// The trace has no scheduler data for the thread: known by its slices only.
    Unknown,
}

impl PathState {
    pub fn as_str(self) -> &'static str {
        match self {
            PathState::Running => "running",
            PathState::Runnable => "runnable",
            PathState::Sleeping => "sleeping",
            PathState::Blocked => "blocked",
            PathState::Unknown => "unknown",
        }
    }
}

/// How the path reached a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hop {
    /// The frame's own thread.
    Frame,
    /// The thread that woke the one before it (sched_waking).
    Waker,
    /// The app's RenderThread, drawing while the main thread waited.
    RenderThread,
    /// The server thread of a binder transaction.
    Binder,
    /// The owner of a contended monitor (`Lock contention on …`).
    Lock,
    /// The GC thread a `WaitForGcToComplete` waited for.
    Gc,
}

/// One interval of a critical path.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PathSegment {
    pub ts: i64,
    pub dur: i64,
    pub tid: i32,
    pub pid: Option<i32>,
    pub thread: Option<Name>,
    /// The deepest slice open on the thread, if any.
    pub slice: Option<Name>,
    pub state: PathState,
    pub hop: Hop,
    /// 0 on the frame's thread, 1 on the thread it waited on, and so on.
    pub depth: u8,
}

/// The (thread, slice) that took most of a frame's critical path.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TopBlocker {
    pub tid: i32,
    pub thread: Option<Name>,
    pub slice: Option<Name>,
    pub ns: i64,
}
