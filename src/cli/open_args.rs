//! `fpsan open`'s arguments.

use std::path::PathBuf;

use clap::Args;

use super::TRACE_HELP;
use crate::open::DEFAULT_PORT;

#[derive(Debug, Args)]
pub struct OpenArgs {
    #[arg(help = TRACE_HELP)]
    pub trace: PathBuf,
    /// Zoom Perfetto UI to this frame and select its doFrame slice: its frame_index, the
    /// first column of `analyze --format csv` and frames.csv.
    #[arg(long, value_name = "N")]
    pub frame: Option<usize>,
    /// The port on 127.0.0.1 to serve the trace on (0: a free one). ui.perfetto.dev fetches
    /// from 9001 only, unless its flag "Relax Content Security Policy for 127.0.0.1:*" is on.
    #[arg(long, value_name = "PORT", default_value_t = DEFAULT_PORT)]
    pub port: u16,
    /// Keep serving the trace until Ctrl-C (by default `open` exits once it was served).
    #[arg(long)]
    pub keep_serving: bool,
    /// Also open the link in the desktop's browser (xdg-open; open on macOS).
    #[arg(long)]
    pub browser: bool,
    /// With --frame: count frames over the whole trace, as `analyze --whole-trace` does, not
    /// only in the window of a scenario `capture --drive` marked in it.
    #[arg(long, requires = "frame")]
    pub whole_trace: bool,
}
