//! Every table fpsan writes or queries, each defined once with its columns
//! and built by one function (trace_processor's `tables/` is the model):
//!
//! - the model's (`model`): `slice`, `counter`, `thread`, `process`,
//!   `frame_timeline`, built from a `Trace` when a query names them, and
//!   trace_processor's tables over the same data (`perfetto`: tracks and the
//!   FrameTimeline tables; `sched`: `sched` and `thread_state`);
//! - the analysis' rows (`analysis`): `frames`, `presents`, `flutter_frames`;
//! - the summaries' (`summaries`): `apps`, `scenes`;
//! - the main threads' blocks (`blocks`): `main_thread_blocks`;
//! - the input events' (`input`): the analysis' `input_events`, and the
//!   table of module `android.input`;
//! - the startups' (`startups`): the analysis' `startups`, and the tables of
//!   modules `android.startup.startups` and `android.startup.time_to_display`;
//! - PerfettoSQL modules' tables over the model (`android_frames`: module
//!   `android.frames.timeline`), which a query includes to use;
//! - the lake's own (`traces`): one row per input of `fpsan batch`.
//!
//! [`Table`] is the registry, one line per table; every list of tables (the
//! CLI's help, `query`'s errors, docs/, Python) is read from it. Each column's
//! doc is declared beside it ([`TableBuilder::col`]); [`Table::columns`] reads
//! them back, and docs/'s column tables are generated from them.
//!
//! `Analysis::tables` gives an analysis' tables, the ones `--out`, `batch`
//! (the lake), `fpsan query`, Python and Spark hand out; this module reads
//! no `Analysis` (the analysis builds its tables with the builders here).

use polars::prelude::*;

use crate::model::Trace;

mod analysis;
pub mod android_frames;
mod blocks;
mod builder;
pub mod docs;
pub mod input;
mod model;
pub mod perfetto;
mod sched;
pub mod startups;
mod summaries;
mod traces;

pub use analysis::{flutter_frames, frames, presents};
pub use blocks::main_thread_blocks;
pub(crate) use builder::TableBuilder;
pub use builder::{ColumnDoc, Doc};
pub use summaries::{apps, scenes};
pub use traces::{traces, TraceRow, TraceStatus, SCHEMA_VERSION};

/// The registry: one line per table (its variant, its name in SQL, in the
/// lake's folders and in Python, where it comes from, and what a row is).
/// Every list of tables (the CLI's help, `query`'s errors, the docs, Python)
/// is read from it.
macro_rules! tables {
    ($($variant:ident = $name:literal, $origin:expr, $row:literal;)*) => {
        /// A table fpsan writes or queries.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Table {
            $($variant,)*
        }

        impl Table {
            pub const ALL: [Table; [$($name),*].len()] = [$(Table::$variant,)*];

            /// Its name in SQL, in the lake's folders and in Python.
            pub fn name(self) -> &'static str {
                match self {
                    $(Table::$variant => $name,)*
                }
            }

            /// Where its rows come from.
            pub fn origin(self) -> Origin {
                match self {
                    $(Table::$variant => $origin,)*
                }
            }

            /// What one row is ("doFrame"), for the help and the docs.
            pub fn row(self) -> &'static str {
                match self {
                    $(Table::$variant => $row,)*
                }
            }
        }
    };
}

/// Where a table's rows come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The model of the trace (`Trace`), as read.
    Model,
    /// The scheduler events of every thread (which the caller reads into
    /// `Trace::sched` first: see `Trace::sched`).
    Sched,
    /// The model, through a PerfettoSQL module a query includes to use it
    /// (`INCLUDE PERFETTO MODULE …`), as in trace_processor.
    Module(&'static str),
    /// The analysis ([`AnalysisTables`]).
    Analysis,
    /// The lake alone (`fpsan batch`): one row per input, analysed or not.
    Lake,
}

use Origin::{Analysis, Lake, Model, Module, Sched};
const FRAMES_MODULE: Origin = Module(android_frames::MODULE);
const STARTUPS_MODULE: Origin = Module(startups::MODULE_STARTUPS);
const TIME_TO_DISPLAY_MODULE: Origin = Module(startups::MODULE_TIME_TO_DISPLAY);
const INPUT_MODULE: Origin = Module(input::MODULE);

tables! {
    Slice = "slice", Model, "slice (and FrameTimeline slice)";
    Counter = "counter", Model, "counter value";
    Thread = "thread", Model, "thread";
    Process = "process", Model, "process";
    FrameTimeline = "frame_timeline", Model, "FrameTimeline frame";
    Track = "track", Model, "track";
    ThreadTrack = "thread_track", Model, "thread's slice track";
    ProcessTrack = "process_track", Model, "process' slice track";
    CounterTrack = "counter_track", Model, "counter track";
    ProcessCounterTrack = "process_counter_track", Model, "process' counter track";
    ThreadCounterTrack = "thread_counter_track", Model, "thread's counter track";
    ActualFrameTimelineSlice = "actual_frame_timeline_slice", Model, "actual FrameTimeline frame";
    ExpectedFrameTimelineSlice = "expected_frame_timeline_slice", Model, "expected FrameTimeline frame";
    Sched = "sched", Sched, "scheduling slice";
    ThreadState = "thread_state", Sched, "thread state";
    Frames = "frames", Analysis, "doFrame";
    Presents = "presents", Analysis, "buffer a layer presented";
    FlutterFrames = "flutter_frames", Analysis, "Flutter engine frame";
    MainThreadBlocks = "main_thread_blocks", Analysis, "block of a main thread";
    Apps = "apps", Analysis, "app";
    Scenes = "scenes", Analysis, "scene of an app";
    Startups = "startups", Analysis, "app startup";
    InputEvents = "input_events", Analysis, "input event an app received";
    AndroidFramesChoreographerDoFrame = "android_frames_choreographer_do_frame", FRAMES_MODULE, "doFrame";
    AndroidFramesDrawFrame = "android_frames_draw_frame", FRAMES_MODULE, "DrawFrame";
    AndroidFramesLayers = "android_frames_layers", FRAMES_MODULE, "frame and layer";
    AndroidFrames = "android_frames", FRAMES_MODULE, "frame";
    AndroidStartups = "android_startups", STARTUPS_MODULE, "app startup";
    AndroidStartupTimeToDisplay = "android_startup_time_to_display", TIME_TO_DISPLAY_MODULE, "app startup";
    AndroidInputEvents = "android_input_events", INPUT_MODULE, "input event";
    Traces = "traces", Lake, "input file";
}

impl Table {
    /// The PerfettoSQL module a query includes to use it (`INCLUDE PERFETTO
    /// MODULE …`), as in trace_processor; None for the tables always there.
    pub fn module(self) -> Option<&'static str> {
        match self.origin() {
            Module(m) => Some(m),
            _ => None,
        }
    }

    /// Whether it is built from the analysis (else from the model alone).
    pub fn of_analysis(self) -> bool {
        self.origin() == Analysis
    }

    /// Whether it is built from the scheduler events of every thread (which
    /// the caller reads into `Trace::sched` first: see `Trace::sched`).
    pub fn of_sched(self) -> bool {
        self.origin() == Sched
    }

    /// Whether `fpsan query` has it (every table but the lake's own).
    pub fn in_query(self) -> bool {
        self.origin() != Lake
    }

    /// Whether `fpsan batch` writes it into the lake (the analysis' tables
    /// and the lake's own).
    pub fn in_lake(self) -> bool {
        matches!(self.origin(), Analysis | Lake)
    }

    /// The columns trace_processor's table of this name has, where fpsan's
    /// has more (its own columns after them); None where they are the same
    /// or trace_processor has no such table.
    pub fn perfetto_columns(self) -> Option<&'static [&'static str]> {
        match self {
            Table::Slice => Some(model::SLICE_PERFETTO),
            Table::Counter => Some(model::COUNTER_PERFETTO),
            Table::Thread => Some(model::THREAD_PERFETTO),
            _ => None,
        }
    }

    /// A model table of `trace`; None for the analysis' tables.
    pub fn of_trace(self, trace: &Trace) -> Option<PolarsResult<DataFrame>> {
        Some(match self {
            Table::Slice => model::slice(trace),
            Table::Counter => model::counter(trace),
            Table::Thread => model::thread(trace),
            Table::Process => model::process(trace),
            Table::FrameTimeline => model::frame_timeline(trace),
            Table::Track => perfetto::track(trace),
            Table::ThreadTrack => perfetto::thread_track(trace),
            Table::ProcessTrack => perfetto::process_track(trace),
            Table::CounterTrack => perfetto::counter_track(trace),
            Table::ProcessCounterTrack => perfetto::process_counter_track(trace),
            Table::ThreadCounterTrack => perfetto::thread_counter_track(trace),
            Table::ActualFrameTimelineSlice => perfetto::actual_frame_timeline_slice(trace),
            Table::ExpectedFrameTimelineSlice => perfetto::expected_frame_timeline_slice(trace),
            Table::Sched => sched::sched(trace),
            Table::ThreadState => sched::thread_state(trace),
            Table::AndroidFramesChoreographerDoFrame => android_frames::choreographer_do_frame(trace),
            Table::AndroidFramesDrawFrame => android_frames::draw_frame(trace),
            Table::AndroidFramesLayers => android_frames::layers(trace),
            Table::AndroidFrames => android_frames::frames(trace),
            Table::AndroidStartups => startups::android_startups(trace),
            Table::AndroidStartupTimeToDisplay => startups::time_to_display(trace),
            Table::AndroidInputEvents => input::android_input_events(trace),
            Table::Frames
            | Table::Presents
            | Table::FlutterFrames
            | Table::MainThreadBlocks
            | Table::Apps
            | Table::Scenes
            | Table::Startups
            | Table::InputEvents
            | Table::Traces => return None,
        })
    }

    /// The table with no rows: its columns and their types.
    pub fn empty(self) -> PolarsResult<DataFrame> {
        match self {
            Table::Frames => frames(&crate::frames::FrameAnalysis::default(), &[], &[]),
            Table::Presents => presents(&[]),
            Table::FlutterFrames => flutter_frames(&[]),
            Table::MainThreadBlocks => main_thread_blocks(&[]),
            Table::Apps => apps(&[]),
            Table::Scenes => scenes(&[]),
            Table::Startups => startups::startups(&[]),
            Table::InputEvents => input::input_events(&[]),
            Table::Traces => traces(&[]),
            _ => self.of_trace(&Trace::default()).expect("a model table"),
        }
    }

    /// Its columns, each with the doc its builder declares beside it.
    pub fn columns(self) -> PolarsResult<Vec<ColumnDoc>> {
        builder::describe(|| self.empty())
    }

    /// Every table `keep` keeps, by name, comma-separated (for the help and
    /// the error messages, which list them from here).
    pub fn names(keep: impl Fn(Table) -> bool) -> String {
        Table::ALL.into_iter().filter(|&t| keep(t)).map(Table::name).collect::<Vec<_>>().join(", ")
    }
}

/// An analysis' tables.
#[derive(Debug, Clone, Default)]
pub struct AnalysisTables {
    pub frames: DataFrame,
    pub presents: DataFrame,
    pub flutter_frames: DataFrame,
    pub main_thread_blocks: DataFrame,
    pub apps: DataFrame,
    pub scenes: DataFrame,
    pub startups: DataFrame,
    pub input_events: DataFrame,
}

impl AnalysisTables {
    /// The tables an analysis gives, in the order the lake and Python list them.
    pub const ALL: [Table; 8] = [
        Table::Frames,
        Table::Apps,
        Table::Scenes,
        Table::Presents,
        Table::FlutterFrames,
        Table::MainThreadBlocks,
        Table::Startups,
        Table::InputEvents,
    ];

    pub fn get(&self, t: Table) -> Option<&DataFrame> {
        Some(match t {
            Table::Frames => &self.frames,
            Table::Presents => &self.presents,
            Table::FlutterFrames => &self.flutter_frames,
            Table::MainThreadBlocks => &self.main_thread_blocks,
            Table::Apps => &self.apps,
            Table::Scenes => &self.scenes,
            Table::Startups => &self.startups,
            Table::InputEvents => &self.input_events,
            _ => return None,
        })
    }

    /// (table, its rows) for every table, in [`AnalysisTables::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Table, &DataFrame)> {
        Self::ALL.into_iter().filter_map(move |t| Some((t, self.get(t)?)))
    }
}

/// Each row of `df` as text cells (`null` for NULL, strings unquoted), for
/// tests' exact comparisons.
#[cfg(test)]
pub(crate) fn text_rows(df: &polars::prelude::DataFrame) -> Vec<Vec<String>> {
    use polars::prelude::AnyValue;
    (0..df.height())
        .map(|i| {
            df.columns()
                .iter()
                .map(|c| match c.get(i).unwrap() {
                    AnyValue::Null => "null".to_string(),
                    AnyValue::String(s) => s.to_string(),
                    AnyValue::StringOwned(s) => s.to_string(),
                    v => v.to_string(),
                })
                .collect()
        })
        .collect()
}
