//! The frames table's categorical columns as types: Matrix's drop level, where
//! a frame's vsync and interval came from, Choreographer's callback phases and
//! the part of a frame that dominated its cost. Their strings (serde names and
//! `as_str`) exist for the output boundary only and are the column values
//! documented in `docs/frames.md`.

use std::fmt;

use serde::Serialize;

/// Matrix's `FrameCollectItem` drop levels, ordered from smooth to frozen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DropLevel {
    #[default]
    Best,
    Normal,
    Middle,
    High,
    Frozen,
}

impl DropLevel {
    /// Every level, in order (also the order of level arrays: see [`DropLevel::index`]).
    pub const ALL: [DropLevel; 5] = [Self::Best, Self::Normal, Self::Middle, Self::High, Self::Frozen];

    /// The level of a frame that dropped `dropped` frames. Matrix's thresholds
    /// (`DROPPED_FROZEN` 42, `DROPPED_HIGH` 24, `DROPPED_MIDDLE` 9, `DROPPED_NORMAL` 3),
    /// the only place they are written down in code.
    pub fn from_dropped(dropped: i64) -> DropLevel {
        match dropped {
            d if d >= 42 => Self::Frozen,
            d if d >= 24 => Self::High,
            d if d >= 9 => Self::Middle,
            d if d >= 3 => Self::Normal,
            _ => Self::Best,
        }
    }

    /// Position in [`DropLevel::ALL`], for per-level arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The level named `name` in a frames table (`BEST` … `FROZEN`).
    pub fn parse(name: &str) -> Option<DropLevel> {
        Self::ALL.into_iter().find(|l| l.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Best => "BEST",
            Self::Normal => "NORMAL",
            Self::Middle => "MIDDLE",
            Self::High => "HIGH",
            Self::Frozen => "FROZEN",
        }
    }
}

/// Where a frame's `vsync_ts` came from, in order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VsyncSource {
    /// The FrameTimeline expected start of the frame's token.
    FrameTimeline,
    /// The SurfaceFlinger `VSYNC-app` counter edge that delivered the vsync.
    VsyncApp,
    /// The frame's own `jitterNanos` counter (`now − frameTime` at commit).
    JitterCounter,
    /// A vsync grid fitted to the thread's doFrame starts.
    Estimated,
    /// The frame's thread slept through the vsync of one of the above and
    /// the input dispatcher woke it after it: the frame was requested by
    /// that input, and its vsync is the wakeup (docs/frames.md,
    /// "Input-started frames").
    InputWakeup,
}

impl VsyncSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FrameTimeline => "frame_timeline",
            Self::VsyncApp => "vsync_app",
            Self::JitterCounter => "jitter_counter",
            Self::Estimated => "estimated",
            Self::InputWakeup => "input_wakeup",
        }
    }

    /// The data-quality key of a frame's source (`none` when no vsync was found).
    pub fn key(source: Option<VsyncSource>) -> &'static str {
        source.map_or("none", Self::as_str)
    }
}

/// Where a frame's interval `I` came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IntervalSource {
    /// `--refresh-hz`.
    Override,
    /// FrameTimeline expected-start spacing.
    FrameTimeline,
    /// `VSYNC-app` edge spacing.
    VsyncApp,
    /// The thread's doFrame start grid.
    DoFrameGrid,
    /// SurfaceFlinger's vsync counters (`HW_VSYNC_<display>`, `VSYNC-sf`,
    /// `VSYNC-app`), where FrameTimeline's or the doFrame grid's spacing
    /// disagreed with them (a process drawing every second or third vsync).
    DisplayVsync,
    /// Nothing measured this frame (or what was measured is no refresh rate,
    /// or a doFrame grid slower than the trace's: sparse drawing): the trace's
    /// most common interval (or 60 Hz).
    #[default]
    Default,
}

impl IntervalSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Override => "override",
            Self::FrameTimeline => "frame_timeline",
            Self::VsyncApp => "vsync_app",
            Self::DoFrameGrid => "do_frame_grid",
            Self::DisplayVsync => "display_vsync",
            Self::Default => "default",
        }
    }
}

/// Choreographer's callback phases (`CALLBACK_TRACE_TITLES`), in callback order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Input,
    Animation,
    InsetsAnimation,
    Traversal,
    Commit,
}

impl Phase {
    pub const ALL: [Phase; 5] = [Self::Input, Self::Animation, Self::InsetsAnimation, Self::Traversal, Self::Commit];

    /// The phase a doFrame child slice named `name` traces, if any.
    pub fn from_slice_name(name: &str) -> Option<Phase> {
        Self::ALL.into_iter().find(|p| p.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Input => "input",
            Self::Animation => "animation",
            Self::InsetsAnimation => "insets_animation",
            Self::Traversal => "traversal",
            Self::Commit => "commit",
        }
    }
}

/// A value per phase (e.g. summed durations), indexed by [`Phase`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PerPhase<T>([T; 5]);

impl<T: Copy> PerPhase<T> {
    /// (phase, value) in callback order.
    pub fn iter(&self) -> impl Iterator<Item = (Phase, T)> + '_ {
        Phase::ALL.into_iter().zip(self.0.iter().copied())
    }
}

impl<T> std::ops::Index<Phase> for PerPhase<T> {
    type Output = T;
    fn index(&self, p: Phase) -> &T {
        &self.0[p as usize]
    }
}

impl<T> std::ops::IndexMut<Phase> for PerPhase<T> {
    fn index_mut(&mut self, p: Phase) -> &mut T {
        &mut self.0[p as usize]
    }
}

/// The part of a janky frame that dominated its cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FramePart {
    /// Choreographer's start jitter: the doFrame began late after its vsync.
    StartJitter,
    Phase(Phase),
    /// doFrame time outside the five phases.
    Other,
}

impl FramePart {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::StartJitter => "start_jitter",
            Self::Phase(p) => p.as_str(),
            Self::Other => "other",
        }
    }
}

impl Serialize for FramePart {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

macro_rules! display_as_str {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )*};
}
display_as_str!(DropLevel, VsyncSource, IntervalSource, Phase, FramePart);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_thresholds() {
        let at = |d| DropLevel::from_dropped(d);
        assert_eq!([at(-1), at(0), at(2)], [DropLevel::Best; 3]);
        assert_eq!([at(3), at(8)], [DropLevel::Normal; 2]);
        assert_eq!([at(9), at(23)], [DropLevel::Middle; 2]);
        assert_eq!([at(24), at(41)], [DropLevel::High; 2]);
        assert_eq!([at(42), at(1000)], [DropLevel::Frozen; 2]);
    }

    #[test]
    fn output_strings_match_serde() {
        for l in DropLevel::ALL {
            assert_eq!(serde_json::to_value(l).unwrap(), l.as_str());
            assert_eq!(DropLevel::ALL[l.index()], l);
            assert_eq!(DropLevel::parse(l.as_str()), Some(l));
        }
        for v in [VsyncSource::FrameTimeline, VsyncSource::VsyncApp, VsyncSource::JitterCounter, VsyncSource::Estimated]
        {
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
        }
        for p in Phase::ALL {
            assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
            assert_eq!(Phase::from_slice_name(p.as_str()), Some(p));
            assert_eq!(serde_json::to_value(FramePart::Phase(p)).unwrap(), p.as_str());
        }
        assert_eq!(serde_json::to_value(IntervalSource::DoFrameGrid).unwrap(), "do_frame_grid");
        assert_eq!(serde_json::to_value(FramePart::StartJitter).unwrap(), "start_jitter");
        assert_eq!(VsyncSource::key(None), "none");
        assert_eq!(Phase::from_slice_name("draw"), None);
        assert_eq!(DropLevel::parse("best"), None);
    }
}
