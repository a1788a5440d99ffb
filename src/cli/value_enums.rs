//! The library's option enums as command-line values: clap stays in `cli`,
//! the enums stay plain data where they are used.

use clap::builder::PossibleValue;
use clap::ValueEnum;

use crate::capture::launch::Launch;
use crate::compare::{CompareFormat, DecideOn, IndicativeGates};
use crate::metrics::Category;
use crate::report::StdoutFormat;

/// `impl ValueEnum` for a library enum: each variant and its command-line name.
macro_rules! value_enum {
    ($ty:ty { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                &[$(<$ty>::$variant),+]
            }
            fn to_possible_value(&self) -> Option<PossibleValue> {
                Some(PossibleValue::new(match self {
                    $(<$ty>::$variant => $name),+
                }))
            }
        }
    };
}

value_enum!(StdoutFormat { Table => "table", Json => "json", Csv => "csv" });
value_enum!(CompareFormat { Table => "table", Json => "json", Markdown => "markdown" });
value_enum!(IndicativeGates { Pass => "pass", Fail => "fail" });
value_enum!(DecideOn { Frames => "frames", Startup => "startup", Both => "both" });

value_enum!(Launch { Cold => "cold", Warm => "warm", Hot => "hot", None => "none" });
value_enum!(Category { App => "app", Game => "game", Map => "map", Video => "video" });

value_enum!(crate::experiment::plan::Order { Abba => "abba", Shuffle => "shuffle" });
value_enum!(crate::experiment::Compile { Ignore => "ignore", None => "none", Partial => "partial", Full => "full" });
