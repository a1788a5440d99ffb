//! One integration-test binary (ripgrep's layout): each module tests one
//! command or stage through the public API or the built `fpsan` binary, with
//! the shared helpers in `util`.

mod util;

mod ab;
mod analyze;
mod architecture;
mod batch;
mod blocks;
mod capture;
mod columns;
mod compare;
mod conformance;
mod consistency;
mod critical_path;
mod decode;
mod exit_codes;
mod frame_start;
mod frames;
mod golden;
mod holes;
mod hostile;
mod info;
mod input;
mod layer_names;
mod loss;
mod open;
mod perfetto_sql;
mod presents;
mod profiles;
mod repeated;
mod report;
mod sched_vs_trace_processor;
mod schema;
mod startups;
mod systrace;
mod wakers;
