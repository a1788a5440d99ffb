//! The SurfaceFlinger FrameTimeline enums of an actual frame, typed; each
//! named by trace_processor's string (`as_str`), which the tables show.

/// How the frame reached the display (`FrameTimelineEvent.PresentType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PresentType {
    OnTime,
    Late,
    Early,
    Dropped,
    Unknown,
    /// Absent or a value this reader does not know.
    Unspecified,
}

impl PresentType {
    pub fn from_proto(v: Option<i32>) -> PresentType {
        match v {
            Some(1) => PresentType::OnTime,
            Some(2) => PresentType::Late,
            Some(3) => PresentType::Early,
            Some(4) => PresentType::Dropped,
            Some(5) => PresentType::Unknown,
            _ => PresentType::Unspecified,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PresentType::OnTime => "On-time Present",
            PresentType::Late => "Late Present",
            PresentType::Early => "Early Present",
            PresentType::Dropped => "Dropped Frame",
            PresentType::Unknown => "Unknown Present",
            PresentType::Unspecified => "Unspecified Present",
        }
    }
}

/// Whether SurfaceFlinger's prediction for the frame was usable
/// (`FrameTimelineEvent.PredictionType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PredictionType {
    Valid,
    Expired,
    Unknown,
    Unspecified,
}

impl PredictionType {
    pub fn from_proto(v: Option<i32>) -> PredictionType {
        match v {
            Some(1) => PredictionType::Valid,
            Some(2) => PredictionType::Expired,
            Some(3) => PredictionType::Unknown,
            _ => PredictionType::Unspecified,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PredictionType::Valid => "Valid Prediction",
            PredictionType::Expired => "Expired Prediction",
            PredictionType::Unknown => "Unknown Prediction",
            PredictionType::Unspecified => "Unspecified Prediction",
        }
    }
}

/// How much of the frame was janky (`FrameTimelineEvent.JankSeverityType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JankSeverity {
    None,
    Partial,
    Full,
    Unknown,
}

impl JankSeverity {
    /// `jank_type` is the frame's jank bits: traces older than the
    /// severity field say "no jank" with `JANK_NONE` (1) alone.
    pub fn from_proto(v: Option<i32>, jank_type: i32) -> JankSeverity {
        match v {
            Some(1) => JankSeverity::None,
            Some(2) => JankSeverity::Partial,
            Some(3) => JankSeverity::Full,
            Some(_) => JankSeverity::Unknown,
            None if jank_type == 1 => JankSeverity::None,
            None => JankSeverity::Unknown,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            JankSeverity::None => "None",
            JankSeverity::Partial => "Partial",
            JankSeverity::Full => "Full",
            JankSeverity::Unknown => "Unknown",
        }
    }
}

/// trace_processor's summary of an actual frame's jank type (`jank_tag`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JankTag {
    Unspecified,
    SelfJank,
    OtherJank,
    DroppedFrame,
    BufferStuffing,
    SurfaceFlingerStuffing,
    NonPerceivableJank,
    NoJank,
}

impl JankTag {
    pub fn as_str(self) -> &'static str {
        match self {
            JankTag::Unspecified => "Unspecified",
            JankTag::SelfJank => "Self Jank",
            JankTag::OtherJank => "Other Jank",
            JankTag::DroppedFrame => "Dropped Frame",
            JankTag::BufferStuffing => "Buffer Stuffing",
            JankTag::SurfaceFlingerStuffing => "SurfaceFlinger Stuffing",
            JankTag::NonPerceivableJank => "Non-perceivable Jank",
            JankTag::NoJank => "No Jank",
        }
    }
}

/// Serialised as trace_processor's string, as the tables show it.
macro_rules! serialize_as_str {
    ($($t:ty),*) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    )*};
}
serialize_as_str!(PresentType, PredictionType, JankSeverity, JankTag);
