//! FrameTimeline's own verdict on each layer's and each app's actual surface
//! frames, counted as trace_processor's `actual_frame_timeline_slice` has
//! them (every actual surface frame: dropped and unfinished ones too), whether
//! the app is judged by its doFrames or by presents (docs/presents.md,
//! "FrameTimeline's verdict").

use std::collections::BTreeMap;

use serde::Serialize;

use crate::frames::ScenarioWindow;
use crate::model::{JankTag, TimelineKind, TimelineSlice, Trace};

/// The layer name of an actual surface frame that names none.
pub(crate) const UNNAMED_LAYER: &str = "(unnamed layer)";

/// Counts over actual surface frames.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TimelineVerdict {
    /// Actual surface frames.
    pub timeline_frames: i64,
    /// Of them, janky: a jank tag other than `No Jank`, `Unspecified` and
    /// `Non-perceivable Jank` (the display was off or changing mode).
    pub timeline_janky: i64,
    /// Jank type → frames (`"A, B"` counts for A and for B).
    pub jank_types: BTreeMap<String, i64>,
    /// Perfetto's jank tag → frames (`Self Jank` is the app's own).
    pub jank_tags: BTreeMap<String, i64>,
    /// Jank severity (`None`, `Partial`, `Full`, `Unknown`) → frames.
    pub jank_severity: BTreeMap<String, i64>,
}

impl TimelineVerdict {
    fn add(&mut self, f: &TimelineSlice) {
        self.timeline_frames += 1;
        if let Some(tag) = f.jank_tag {
            self.timeline_janky +=
                !matches!(tag, JankTag::NoJank | JankTag::Unspecified | JankTag::NonPerceivableJank) as i64;
            *self.jank_tags.entry(tag.as_str().to_string()).or_default() += 1;
        }
        for t in f.jank_type.iter().flat_map(|j| j.split(", ")) {
            *self.jank_types.entry(t.to_string()).or_default() += 1;
        }
        if let Some(s) = f.jank_severity_type {
            *self.jank_severity.entry(s.as_str().to_string()).or_default() += 1;
        }
    }

    /// Adds `other`'s counts (an app's verdict is its layers' together).
    pub(crate) fn merge(&mut self, other: &TimelineVerdict) {
        self.timeline_frames += other.timeline_frames;
        self.timeline_janky += other.timeline_janky;
        for (mine, theirs) in [
            (&mut self.jank_types, &other.jank_types),
            (&mut self.jank_tags, &other.jank_tags),
            (&mut self.jank_severity, &other.jank_severity),
        ] {
            for (k, v) in theirs {
                *mine.entry(k.clone()).or_default() += v;
            }
        }
    }
}

/// The verdict of every (pid, layer) over its actual surface frames (those
/// starting in `window`, when one is given), in one pass.
pub(crate) fn by_layer(trace: &Trace, window: Option<ScenarioWindow>) -> BTreeMap<(i32, String), TimelineVerdict> {
    let mut out: BTreeMap<(i32, String), TimelineVerdict> = BTreeMap::new();
    for f in &trace.frame_timeline {
        if f.kind != TimelineKind::ActualSurface || window.is_some_and(|w| !w.contains(f.ts)) {
            continue;
        }
        let layer = f.layer_name.as_deref().unwrap_or(UNNAMED_LAYER);
        out.entry((f.pid, layer.to_string())).or_default().add(f);
    }
    out
}
