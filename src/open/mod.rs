//! `fpsan open`: the trace in Perfetto UI's full timeline. The UI cannot
//! open a local file from a link, but it fetches a trace from a URL given in
//! its deep link (`https://ui.perfetto.dev/#!/?url=…`), 127.0.0.1 included,
//! as Perfetto's own `tools/open_trace_in_ui` uses it. So: serve the file on
//! loopback ([`server`]), make the link ([`link`]), and for `--frame N` find
//! where frame N is ([`frame_span`]) for the link to zoom to it.
//! docs/report.md, "`fpsan open`", says what the UI supports and why.

use std::path::Path;

use crate::analysis::{self, AnalysisError};
use crate::error::ErrorKind;
use crate::model::Warning;
use crate::read::ReadError;
use crate::sink::Sink;

pub mod http;
pub mod link;
pub mod server;

pub use link::{deep_link, DEFAULT_PORT, PERFETTO_UI};
pub use server::{Answered, Served, Stopper, TraceServer};

/// Why `open` failed.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The trace file is missing, a directory, not a file, or empty.
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    #[error("--frame {index}: the trace has {frames} frames, frame_index 0 to {last} (the first column of `fpsan analyze --format csv`)", last = frames.saturating_sub(1))]
    FrameOutOfRange { index: usize, frames: usize },
    #[error("port {port} on 127.0.0.1 is in use (another `fpsan open`, or trace_processor_shell --httpd?); stop it, or pass another --port (0: a free one)")]
    PortInUse { port: u16 },
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Listen { port: u16, source: std::io::Error },
    #[error("cannot accept connections on 127.0.0.1:{port}: {source}")]
    Accept { port: u16, source: std::io::Error },
    #[error("interrupted before Perfetto UI fetched the trace")]
    Interrupted,
}

impl OpenError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            OpenError::Read(e) => e.kind(),
            OpenError::Analysis(e) => e.kind(),
            OpenError::FrameOutOfRange { .. } => ErrorKind::Usage,
            OpenError::PortInUse { .. } | OpenError::Listen { .. } | OpenError::Accept { .. } => ErrorKind::Io,
            OpenError::Interrupted => ErrorKind::Interrupted,
        }
    }
}

/// Where one frame is, for the deep link: trace time (ns), the clock the
/// frames table and Perfetto UI's SQL tables share.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameSpan {
    pub frame_index: usize,
    pub process: Option<String>,
    pub pid: i32,
    /// The frame's `Choreographer#doFrame` slice: its `ts` and `dur`.
    pub do_frame: (i64, i64),
    /// The frame's window as report.html's frame timeline draws it
    /// (`lanes::frame_window`), cut to the trace's bounds: Perfetto UI
    /// ignores a range that reaches outside them. None if nothing is left.
    pub window: Option<(i64, i64)>,
    /// The trace's first timestamp, for "s into the trace".
    pub trace_start: i64,
    /// The analysis' warnings about the trace.
    pub warnings: Vec<Warning>,
}

/// Analyse the trace (the frames only, as `analyze` rebuilds them; with
/// `whole_trace`, over the whole trace as `analyze --whole-trace`) and find
/// frame `frame_index`, a row of its frames table.
pub fn frame_span(trace: &Path, frame_index: usize, whole_trace: bool, sink: Sink) -> Result<FrameSpan, OpenError> {
    let opts = analysis::Options { whole_trace, sink, ..Default::default() };
    let tf = analysis::frames_of(analysis::open(trace, &analysis::frame_read_options(sink))?, &opts);
    let frames = tf.frames.rows.len();
    if frames == 0 {
        return Err(AnalysisError::NoFrames { path: trace.to_path_buf() }.into());
    }
    let out_of_range = OpenError::FrameOutOfRange { index: frame_index, frames };
    let (Some(r), Some(window)) =
        (tf.frames.rows.get(frame_index), crate::lanes::frame_window(&tf.frames, frame_index))
    else {
        return Err(out_of_range);
    };
    let meta = &tf.trace.meta;
    let bounds = (meta.first_ts.unwrap_or(i64::MIN), meta.last_ts.unwrap_or(i64::MAX));
    Ok(FrameSpan {
        frame_index,
        process: r.process.clone(),
        pid: r.pid,
        do_frame: (r.ts, r.do_frame_dur),
        window: within(window, bounds),
        trace_start: meta.first_ts.unwrap_or(0),
        warnings: tf.warnings,
    })
}

impl FrameSpan {
    /// Where the frame is, in the trace's clock, for the user to check (or
    /// to find by hand when the UI did not zoom).
    pub fn describe(&self) -> String {
        let secs = |ts: i64| (ts - self.trace_start) as f64 / 1e9;
        let (ts, dur) = self.do_frame;
        let app = format!("{} pid {}", self.process.as_deref().unwrap_or("?"), self.pid);
        let shown = match self.window {
            Some((start, end)) => {
                format!("the link zooms to ts {start} .. {end} ns ({:.6} s .. {:.6} s)", secs(start), secs(end))
            }
            None => "its window lies outside the trace's bounds, so the link does not zoom".to_string(),
        };
        format!(
            "frame {} ({app}): doFrame at ts {ts} ns ({:.6} s into the trace), {:.3} ms; {shown} and selects the doFrame slice",
            self.frame_index,
            secs(ts),
            dur as f64 / 1e6
        )
    }
}

/// What the user must do for ui.perfetto.dev to fetch from `port`: nothing
/// on [`DEFAULT_PORT`], else turn on the UI's flag the link's `rpc_port`
/// leads to.
pub fn port_note(port: u16) -> Option<String> {
    (port != DEFAULT_PORT).then(|| {
        format!(
            "ui.perfetto.dev fetches from 127.0.0.1:{DEFAULT_PORT} only, so the link asks it to allow port {port}: \
             turn on the flag it points to (\"Relax Content Security Policy for 127.0.0.1:*\"), then open the link again"
        )
    })
}

/// `w` cut to `bounds`; None when nothing of it is left.
fn within(w: (i64, i64), bounds: (i64, i64)) -> Option<(i64, i64)> {
    let (start, end) = (w.0.max(bounds.0), w.1.min(bounds.1));
    (start < end).then_some((start, end))
}

/// Open `url` in the desktop's browser (`open` on macOS, `xdg-open`
/// elsewhere), without waiting for it.
pub fn launch_browser(url: &str) -> std::io::Result<()> {
    use std::process::{Command, Stdio};
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    let mut child =
        Command::new(opener).arg(url).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn()?;
    // xdg-open may run the browser in the foreground: reap it aside.
    std::thread::spawn(move || child.wait());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_cut_to_the_trace() {
        assert_eq!(within((10, 20), (0, 100)), Some((10, 20)));
        assert_eq!(within((-5, 20), (0, 100)), Some((0, 20)));
        assert_eq!(within((90, 120), (0, 100)), Some((90, 100)));
        assert_eq!(within((100, 120), (0, 100)), None);
    }

    #[test]
    fn a_frame_is_described_in_the_trace_clock() {
        let f = FrameSpan {
            frame_index: 3,
            process: Some("com.app".into()),
            pid: 100,
            do_frame: (1_017_666_667, 10_000_000),
            window: Some((1_000_000_000, 1_047_333_334)),
            trace_start: 900_000_000,
            warnings: Vec::new(),
        };
        assert_eq!(
            f.describe(),
            "frame 3 (com.app pid 100): doFrame at ts 1017666667 ns (0.117667 s into the trace), 10.000 ms; \
             the link zooms to ts 1000000000 .. 1047333334 ns (0.100000 s .. 0.147333 s) and selects the doFrame slice"
        );
        assert_eq!(port_note(DEFAULT_PORT), None);
        assert!(port_note(4242).unwrap().contains("allow port 4242"));
    }

    #[test]
    fn error_kinds() {
        assert_eq!(OpenError::FrameOutOfRange { index: 5, frames: 2 }.kind(), ErrorKind::Usage);
        assert_eq!(OpenError::PortInUse { port: 9001 }.kind(), ErrorKind::Io);
        assert_eq!(OpenError::Interrupted.kind(), ErrorKind::Interrupted);
        assert_eq!(
            OpenError::FrameOutOfRange { index: 5, frames: 2 }.to_string(),
            "--frame 5: the trace has 2 frames, frame_index 0 to 1 (the first column of `fpsan analyze --format csv`)"
        );
    }
}
