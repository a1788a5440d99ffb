//! fpsan: measure and explain Android UI smoothness from Perfetto traces.
//!
//! The pipeline flows one way:
//! `capture` (adb) → `read` (framing, decompression, parallel decode) →
//! `model` (threads, slices, counters, frame timeline) → `frames`
//! (reconstruction) → `presents` → `metrics` (summaries; numbers from
//! `series`, tables in `tables`) → `lanes` (the frame timeline's data) →
//! `report` (tables, charts, HTML). `compare` judges runs of two builds; `experiment` makes
//! those runs on a device (`ab`, `capture --runs`); `batch` writes many
//! traces' tables into a Parquet lake; `open` serves a trace to Perfetto UI.
//! `cli` wires the commands to it.

pub mod analysis;
#[cfg(feature = "analysis")]
pub mod batch;
pub mod blocks;
pub mod capture;
#[cfg(feature = "analysis")]
pub mod cli;
#[cfg(feature = "analysis")]
pub mod compare;
pub mod cujs;
pub mod error;
#[cfg(feature = "analysis")]
pub mod experiment;
pub mod frames;
pub mod import;
pub mod input;
pub mod lanes;
#[cfg(feature = "analysis")]
pub mod memory;
#[cfg(feature = "analysis")]
pub mod metrics;
pub mod model;
pub mod open;
pub mod perfetto_sql;
pub mod presents;
#[cfg(feature = "analysis")]
pub mod query;
pub mod read;
#[cfg(feature = "analysis")]
pub mod report;
pub mod series;
pub mod sink;
pub mod startups;
#[cfg(feature = "analysis")]
pub mod tables;
#[cfg(test)]
pub(crate) mod testutil;
