//! Perfetto UI's deep link: `https://ui.perfetto.dev/#!/?ARGS`, the route's
//! arguments as the UI reads them (its `ROUTE_SCHEMA`, and the
//! `dev.perfetto.DeeplinkQuerystring` plugin that acts on them once the
//! trace is loaded; docs/report.md, "`fpsan open`"):
//!
//! - `url`: the trace to fetch (percent-encoded: the UI decodes it once);
//! - `referrer`: who sent the user, as `open_trace_in_ui` names itself;
//! - `rpc_port`: for a port other than 9001, the port the UI's
//!   Content-Security-Policy is to allow (after the user turns its flag on);
//! - `visStart`, `visEnd`: the range to zoom to, raw ns of the UI's trace
//!   time; ignored unless start < end and both lie within the trace;
//! - `ts`, `dur`: select the slice (table `slice`) with exactly this start
//!   and duration, and scroll its track into view.

use super::http::percent_encode;
use super::FrameSpan;

pub const PERFETTO_UI: &str = "https://ui.perfetto.dev";

/// The one loopback port ui.perfetto.dev's Content-Security-Policy lets it
/// fetch from without a flag: trace_processor_shell's HTTP port, which
/// `open_trace_in_ui` serves on too.
pub const DEFAULT_PORT: u16 = 9001;

/// The link that opens `trace_url` (served on `port`) in Perfetto UI, zoomed
/// to `frame`'s window with its doFrame slice selected when given.
pub fn deep_link(trace_url: &str, port: u16, frame: Option<&FrameSpan>) -> String {
    let mut args = vec![("url", percent_encode(trace_url.as_bytes())), ("referrer", "fpsan".to_string())];
    if port != DEFAULT_PORT {
        args.push(("rpc_port", port.to_string()));
    }
    if let Some(f) = frame {
        if let Some((start, end)) = f.window {
            args.push(("visStart", start.to_string()));
            args.push(("visEnd", end.to_string()));
        }
        args.push(("ts", f.do_frame.0.to_string()));
        args.push(("dur", f.do_frame.1.to_string()));
    }
    let args: Vec<String> = args.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{PERFETTO_UI}/#!/?{}", args.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links() {
        let url = "http://127.0.0.1:9001/my%20trace.pftrace";
        assert_eq!(
            deep_link(url, 9001, None),
            "https://ui.perfetto.dev/#!/?url=http%3A%2F%2F127.0.0.1%3A9001%2Fmy%2520trace.pftrace&referrer=fpsan"
        );
        let mut f = FrameSpan {
            frame_index: 3,
            process: Some("com.app".into()),
            pid: 100,
            do_frame: (1_017_666_667, 10_000_000),
            window: Some((1_000_000_000, 1_047_333_334)),
            trace_start: 0,
            warnings: Vec::new(),
        };
        assert_eq!(
            deep_link("http://127.0.0.1:4242/t", 4242, Some(&f)),
            "https://ui.perfetto.dev/#!/?url=http%3A%2F%2F127.0.0.1%3A4242%2Ft&referrer=fpsan&rpc_port=4242\
             &visStart=1000000000&visEnd=1047333334&ts=1017666667&dur=10000000"
        );
        f.window = None;
        assert!(
            deep_link("http://127.0.0.1:9001/t", 9001, Some(&f)).ends_with("referrer=fpsan&ts=1017666667&dur=10000000")
        );
    }
}
