//! One run's blocker kinds (docs/compare.md, "Blockers"): the app's
//! critical-path time per (thread, slice) with its run-specific numbers
//! generalised ([`kind_of`]) so that runs of one build agree. Read by
//! `runs` when a run is loaded; compared across runs by `blockers`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::frames::FrameRow;

/// A blocker kind: a (thread, slice) with its run-specific numbers generalised
/// ([`kind_of`]). None: the thread has no name in the trace, or the time was
/// spent outside any slice.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub(crate) struct BlockerKind {
    pub thread: Option<String>,
    pub slice: Option<String>,
}

impl BlockerKind {
    /// `binder:* / binder reply`, `RenderThread / DrawFrames`, `com.example.app / (no slice)`.
    pub(crate) fn label(&self) -> String {
        format!("{} / {}", self.thread.as_deref().unwrap_or("?"), self.slice.as_deref().unwrap_or("(no slice)"))
    }
}

/// The kind of time spent on `thread` in `slice`: the one rule that makes
/// runs of one build agree (docs/compare.md, "Blockers").
///
/// - Thread: each run of digits, with the `_digits` groups right after it,
///   becomes `*`: `binder:11377_2` → `binder:*`, `Thread-12` → `Thread-*`,
///   `pool-3-thread-1` → `pool-*-thread-*`, `hwuiTask1` → `hwuiTask*`
///   (thread pools number their threads, binder threads carry the pid).
/// - Slice: the numbers that end the name, each a whitespace-separated
///   token of digits (with `.`, `,`, `+`, `-`), are dropped: `DrawFrames
///   191623` → `DrawFrames`, `Choreographer#doFrame 12` →
///   `Choreographer#doFrame`, `Drawing 0.00 0.00 720.00 1280.00` → `Drawing`
///   (vsync ids and sizes); numbers inside the name stay. A name that is
///   only numbers becomes `*`.
pub(crate) fn kind_of(thread: Option<&str>, slice: Option<&str>) -> BlockerKind {
    let thread = thread.map(|t| {
        let mut out = String::with_capacity(t.len());
        let mut chars = t.chars().peekable();
        while let Some(c) = chars.next() {
            if !c.is_ascii_digit() {
                out.push(c);
                continue;
            }
            // The rest of the digits, then each `_digits` group.
            loop {
                while chars.next_if(char::is_ascii_digit).is_some() {}
                let mut ahead = chars.clone();
                if ahead.next() == Some('_') && ahead.peek().is_some_and(char::is_ascii_digit) {
                    chars.next();
                } else {
                    break;
                }
            }
            out.push('*');
        }
        out
    });
    let slice = slice.map(|s| {
        let is_number = |w: &str| {
            w.chars().any(|c| c.is_ascii_digit()) && w.chars().all(|c| c.is_ascii_digit() || ".,+-".contains(c))
        };
        let mut rest = s.trim_end();
        while !rest.is_empty() {
            let (head, last) = rest.rsplit_once(char::is_whitespace).unwrap_or(("", rest));
            if !is_number(last) {
                break;
            }
            rest = head.trim_end();
        }
        if rest.is_empty() {
            "*".to_string()
        } else {
            rest.to_string()
        }
    });
    BlockerKind { thread, slice }
}

/// One run's critical-path time per kind (ns), summed over `rows`, the
/// app's doFrames: every (thread, slice) of each frame's path
/// (`FrameRow::path_totals`), not only its top blocker.
pub(crate) fn run_totals<'a>(rows: impl IntoIterator<Item = &'a FrameRow>) -> BTreeMap<BlockerKind, i64> {
    let mut out: BTreeMap<BlockerKind, i64> = BTreeMap::new();
    for r in rows {
        for t in &r.path_totals {
            *out.entry(kind_of(t.thread.as_deref(), t.slice.as_deref())).or_default() += t.ns;
        }
    }
    out
}
