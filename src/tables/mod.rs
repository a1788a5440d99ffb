//! Every table fpsan writes or queries, each defined once with its columns
//! and built by one function (trace_processor's `tables/` is the model):
//!
//! - the model's (`model`): `slice`, `counter`, `thread`, `process`,
//!   `frame_timeline`, built from a `Trace` when a query names them, and
//!   trace_processor's tables over the same data (`perfetto`: tracks and the
//!   FrameTimeline tables; `sched`: `sched` and `thread_state`);
//! - the analysis' rows (`analysis`): `frames`, `presents`, `flutter_frames`;
//!   (`blocks`): `main_thread_blocks`;
//! - the summaries' (`summaries`): `apps`, `scenes`;
//! - PerfettoSQL modules' tables over the model (`android_frames`: module
//!   `android.frames.timeline`), which a query includes to use.
//!
//! [`of`] gives an analysis' tables, the ones `--out`, `batch` (the lake),
//! `fpsan query`, Python and Spark hand out; the lake's own `traces` table is
//! `batch`'s (one row per input, analysed or not). docs/report.md lists the
//! columns.

use polars::prelude::*;

use crate::model::Trace;

mod analysis;
pub mod android_frames;
mod blocks;
mod builder;
mod model;
pub mod perfetto;
mod sched;
mod summaries;

pub use analysis::{flutter_frames, frames, presents};
pub use blocks::main_thread_blocks;
pub(crate) use builder::TableBuilder;
pub use summaries::{apps, scenes};

/// A table fpsan writes or queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    Slice,
    Counter,
    Thread,
    Process,
    FrameTimeline,
    Track,
    ThreadTrack,
    ProcessTrack,
    CounterTrack,
    ProcessCounterTrack,
    ThreadCounterTrack,
    ActualFrameTimelineSlice,
    ExpectedFrameTimelineSlice,
    Sched,
    ThreadState,
    Frames,
    Presents,
    FlutterFrames,
    MainThreadBlocks,
    Apps,
    Scenes,
    AndroidFramesChoreographerDoFrame,
    AndroidFramesDrawFrame,
    AndroidFramesLayers,
    AndroidFrames,
}

impl Table {
    pub const ALL: [Table; 25] = [
        Table::Slice,
        Table::Counter,
        Table::Thread,
        Table::Process,
        Table::FrameTimeline,
        Table::Track,
        Table::ThreadTrack,
        Table::ProcessTrack,
        Table::CounterTrack,
        Table::ProcessCounterTrack,
        Table::ThreadCounterTrack,
        Table::ActualFrameTimelineSlice,
        Table::ExpectedFrameTimelineSlice,
        Table::Sched,
        Table::ThreadState,
        Table::Frames,
        Table::Presents,
        Table::FlutterFrames,
        Table::MainThreadBlocks,
        Table::Apps,
        Table::Scenes,
        Table::AndroidFramesChoreographerDoFrame,
        Table::AndroidFramesDrawFrame,
        Table::AndroidFramesLayers,
        Table::AndroidFrames,
    ];

    /// Its name in SQL, in the lake's folders and in Python.
    pub fn name(self) -> &'static str {
        match self {
            Table::Slice => "slice",
            Table::Counter => "counter",
            Table::Thread => "thread",
            Table::Process => "process",
            Table::FrameTimeline => "frame_timeline",
            Table::Track => "track",
            Table::ThreadTrack => "thread_track",
            Table::ProcessTrack => "process_track",
            Table::CounterTrack => "counter_track",
            Table::ProcessCounterTrack => "process_counter_track",
            Table::ThreadCounterTrack => "thread_counter_track",
            Table::ActualFrameTimelineSlice => "actual_frame_timeline_slice",
            Table::ExpectedFrameTimelineSlice => "expected_frame_timeline_slice",
            Table::Sched => "sched",
            Table::ThreadState => "thread_state",
            Table::Frames => "frames",
            Table::Presents => "presents",
            Table::FlutterFrames => "flutter_frames",
            Table::MainThreadBlocks => "main_thread_blocks",
            Table::Apps => "apps",
            Table::Scenes => "scenes",
            Table::AndroidFramesChoreographerDoFrame => "android_frames_choreographer_do_frame",
            Table::AndroidFramesDrawFrame => "android_frames_draw_frame",
            Table::AndroidFramesLayers => "android_frames_layers",
            Table::AndroidFrames => "android_frames",
        }
    }

    /// The PerfettoSQL module a query includes to use it (`INCLUDE PERFETTO
    /// MODULE …`), as in trace_processor; None for the tables always there.
    pub fn module(self) -> Option<&'static str> {
        match self {
            Table::AndroidFramesChoreographerDoFrame
            | Table::AndroidFramesDrawFrame
            | Table::AndroidFramesLayers
            | Table::AndroidFrames => Some(android_frames::MODULE),
            _ => None,
        }
    }

    /// Whether it is built from the analysis (else from the model alone).
    pub fn of_analysis(self) -> bool {
        AnalysisTables::ALL.contains(&self)
    }

    /// Whether it is built from the scheduler events of every thread (which
    /// the caller reads into `Trace::sched` first: see `Trace::sched`).
    pub fn of_sched(self) -> bool {
        matches!(self, Table::Sched | Table::ThreadState)
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
            Table::Frames
            | Table::Presents
            | Table::FlutterFrames
            | Table::MainThreadBlocks
            | Table::Apps
            | Table::Scenes => return None,
        })
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
}

impl AnalysisTables {
    /// The tables an analysis gives, in the order the lake and Python list them.
    pub const ALL: [Table; 6] =
        [Table::Frames, Table::Apps, Table::Scenes, Table::Presents, Table::FlutterFrames, Table::MainThreadBlocks];

    pub fn get(&self, t: Table) -> Option<&DataFrame> {
        Some(match t {
            Table::Frames => &self.frames,
            Table::Presents => &self.presents,
            Table::FlutterFrames => &self.flutter_frames,
            Table::MainThreadBlocks => &self.main_thread_blocks,
            Table::Apps => &self.apps,
            Table::Scenes => &self.scenes,
            _ => return None,
        })
    }

    /// (table, its rows) for every table, in [`AnalysisTables::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Table, &DataFrame)> {
        Self::ALL.into_iter().filter_map(move |t| Some((t, self.get(t)?)))
    }
}

/// The tables of an analysis: its frames and presents tables as analysed
/// (the apps it kept), its Flutter frames, its main threads' blocks and its
/// summaries'.
pub fn of(a: &crate::analysis::Analysis) -> PolarsResult<AnalysisTables> {
    Ok(AnalysisTables {
        frames: a.frames_df.clone(),
        presents: a.presents_df.clone(),
        flutter_frames: flutter_frames(&a.presents.flutter)?,
        main_thread_blocks: main_thread_blocks(&a.blocks.blocks)?,
        apps: apps(&a.apps)?,
        scenes: scenes(&a.apps)?,
    })
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
