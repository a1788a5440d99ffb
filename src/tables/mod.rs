//! Every table fpsan writes or queries, each defined once with its columns
//! and built by one function (trace_processor's `tables/` is the model):
//!
//! - the model's (`model`): `slice`, `counter`, `thread`, `process`,
//!   `frame_timeline`, built from a `Trace` when a query names them;
//! - the analysis' rows (`analysis`): `frames`, `presents`, `flutter_frames`;
//! - the summaries' (`summaries`): `apps`, `scenes`.
//!
//! [`of`] gives an analysis' tables, the ones `--out`, `batch` (the lake),
//! `fpsan query`, Python and Spark hand out; the lake's own `traces` table is
//! `batch`'s (one row per input, analysed or not). docs/report.md lists the
//! columns.

use polars::prelude::*;

use crate::model::Trace;

mod analysis;
mod builder;
mod model;
mod summaries;

pub use analysis::{flutter_frames, frames, presents};
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
    Frames,
    Presents,
    FlutterFrames,
    Apps,
    Scenes,
}

impl Table {
    pub const ALL: [Table; 10] = [
        Table::Slice,
        Table::Counter,
        Table::Thread,
        Table::Process,
        Table::FrameTimeline,
        Table::Frames,
        Table::Presents,
        Table::FlutterFrames,
        Table::Apps,
        Table::Scenes,
    ];

    /// Its name in SQL, in the lake's folders and in Python.
    pub fn name(self) -> &'static str {
        match self {
            Table::Slice => "slice",
            Table::Counter => "counter",
            Table::Thread => "thread",
            Table::Process => "process",
            Table::FrameTimeline => "frame_timeline",
            Table::Frames => "frames",
            Table::Presents => "presents",
            Table::FlutterFrames => "flutter_frames",
            Table::Apps => "apps",
            Table::Scenes => "scenes",
        }
    }

    /// Whether it is built from the analysis (else from the model alone).
    pub fn of_analysis(self) -> bool {
        AnalysisTables::ALL.contains(&self)
    }

    /// A model table of `trace`; None for the analysis' tables.
    pub fn of_trace(self, trace: &Trace) -> Option<PolarsResult<DataFrame>> {
        Some(match self {
            Table::Slice => model::slice(trace),
            Table::Counter => model::counter(trace),
            Table::Thread => model::thread(trace),
            Table::Process => model::process(trace),
            Table::FrameTimeline => model::frame_timeline(trace),
            _ => return None,
        })
    }
}

/// An analysis' tables.
#[derive(Debug, Clone, Default)]
pub struct AnalysisTables {
    pub frames: DataFrame,
    pub presents: DataFrame,
    pub flutter_frames: DataFrame,
    pub apps: DataFrame,
    pub scenes: DataFrame,
}

impl AnalysisTables {
    /// The tables an analysis gives, in the order the lake and Python list them.
    pub const ALL: [Table; 5] = [Table::Frames, Table::Apps, Table::Scenes, Table::Presents, Table::FlutterFrames];

    pub fn get(&self, t: Table) -> Option<&DataFrame> {
        Some(match t {
            Table::Frames => &self.frames,
            Table::Presents => &self.presents,
            Table::FlutterFrames => &self.flutter_frames,
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
/// (the apps it kept), its Flutter frames, and its summaries'.
pub fn of(a: &crate::analysis::Analysis) -> PolarsResult<AnalysisTables> {
    Ok(AnalysisTables {
        frames: a.frames_df.clone(),
        presents: a.presents_df.clone(),
        flutter_frames: flutter_frames(&a.presents.flutter)?,
        apps: apps(&a.apps)?,
        scenes: scenes(&a.apps)?,
    })
}
