//! `fpsan open` through the built binary: the printed Perfetto UI link, the
//! trace served on loopback (status, CORS header, length, bytes), what is
//! refused (another path 404, garbage 400, a foreign Origin 403), the exit
//! after one transfer, `--keep-serving` until Ctrl-C, and `--frame`'s range
//! in the link, computed by hand for a generated trace. Loopback only.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use tracegen::{ActualFrame, BuildOptions, TraceBuilder};

const P: i64 = 16_666_667;
const V0: i64 = 1_000_000_000;
/// Frame 0 of [`two_frames`]: its vsync, its doFrame's start and length.
const V1: i64 = V0 + P;
const TS1: i64 = V1 + 1_000_000;
const DUR1: i64 = 10_000_000;

/// A trace with two frames of `com.app` (frame 0 on time, frame 1 janky),
/// as in `frames.rs`, and a slice well before and after them on another
/// thread so that frame 0's window lies inside the trace.
pub fn two_frames(dir: &Path, name: &str) -> PathBuf {
    let mut b = TraceBuilder::new();
    b.process(100, "com.app").thread(100, 100, "com.app").thread(101, 100, "RenderThread");
    b.thread(102, 100, "bg");
    b.slice(V0 - 100_000_000, 1_000_000, 102, 100, "early");
    // Frame 0: vsync V1, doFrame from V1 + 1 ms for 10 ms, DrawFrame until
    // V1 + 14 ms, presented (FrameTimeline's actual end) at V1 + 14 ms.
    b.atrace_begin(TS1, 100, 100, "Choreographer#doFrame 1");
    b.slice(TS1 + 1_500_000, 6_000_000, 100, 100, "traversal");
    b.atrace_end(TS1 + DUR1, 100, 100);
    b.slice(TS1 + 9_000_000, 4_000_000, 101, 100, "DrawFrames 1");
    b.expected_surface_frame(V1, Some(V1 + P), 1, 101, 100, "com.app/Main#0");
    let actual = |token: i64, jank_type: i32| ActualFrame {
        token,
        display_frame_token: 100 + token,
        pid: 100,
        layer: "com.app/Main#0".into(),
        present_type: 1,
        jank_type,
        prediction_type: 1,
        ..Default::default()
    };
    b.actual_surface_frame(V1, Some(V1 + 14_000_000), actual(1, 1));
    // Frame 1: vsync V0 + 4P, starts 40 ms late, 30 ms.
    let v4 = V0 + 4 * P;
    let ts4 = v4 + 40_000_000;
    b.atrace_begin(ts4, 100, 100, "Choreographer#doFrame 4");
    b.atrace_end(ts4 + 30_000_000, 100, 100);
    b.expected_surface_frame(v4, Some(v4 + P), 4, 104, 100, "com.app/Main#0");
    b.actual_surface_frame(v4, Some(v4 + 75_000_000), actual(4, 64));
    b.slice(V0 + 500_000_000, 1_000_000, 102, 100, "late");
    let path = dir.join(name);
    std::fs::write(&path, b.build(&BuildOptions::default())).unwrap();
    path
}

/// A running `fpsan open`, with the link it printed.
struct Open {
    child: Child,
    _stdout: BufReader<ChildStdout>,
    link: String,
}

impl Open {
    fn start(args: &[&str]) -> Open {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fpsan"))
            .arg("open")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut link = String::new();
        stdout.read_line(&mut link).unwrap();
        assert!(link.ends_with('\n'), "no link printed: {link:?}");
        Open { child, _stdout: stdout, link: link.trim_end().to_string() }
    }

    /// The link's arguments, `url` decoded.
    fn args(&self) -> BTreeMap<String, String> {
        let (origin, args) = self.link.split_once("/#!/?").expect("a Perfetto UI route");
        assert_eq!(origin, "https://ui.perfetto.dev");
        args.split('&')
            .map(|kv| {
                let (k, v) = kv.split_once('=').expect("key=value");
                (k.to_string(), String::from_utf8(decode(v)).unwrap())
            })
            .collect()
    }

    /// The served trace's port and path, from the link's `url`.
    fn target(&self) -> (u16, String) {
        let url = &self.args()["url"];
        let rest = url.strip_prefix("http://127.0.0.1:").unwrap_or_else(|| panic!("not on loopback: {url}"));
        let (port, path) = rest.split_at(rest.find('/').unwrap());
        (port.parse().unwrap(), path.to_string())
    }

    /// Its exit status within 20 s (killed and failed otherwise), and its stderr.
    fn wait(mut self) -> (ExitStatus, String) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                self.child.kill().unwrap();
                panic!("fpsan open did not exit");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stderr = String::new();
        self.child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
        for bug in ["panicked", "backtrace", "internal error"] {
            assert!(!stderr.contains(bug), "{stderr}");
        }
        (status, stderr)
    }

    fn running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// Ctrl-C.
    fn interrupt(&self) {
        let ok = Command::new("kill").args(["-INT", &self.child.id().to_string()]).status().unwrap();
        assert!(ok.success());
    }
}

/// `%XX` decoded (the link's escapes are all well-formed).
fn decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            out.push(u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap(), 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// A response: status code, headers (names lower-cased), body.
struct Response {
    status: u16,
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
}

/// Send `request` as it is to 127.0.0.1:`port` and read the whole response.
fn exchange(port: u16, request: &[u8]) -> Response {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request).unwrap();
    s.shutdown(Shutdown::Write).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head") + 4;
    let head = String::from_utf8(raw[..end].to_vec()).unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers =
        lines.filter_map(|l| l.split_once(": ")).map(|(k, v)| (k.to_ascii_lowercase(), v.to_string())).collect();
    Response { status, headers, body: raw[end..].to_vec() }
}

/// A browser-like GET of `path` from Perfetto UI's page.
fn get(port: u16, path: &str, origin: &str) -> Response {
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: {origin}\r\nAccept: */*\r\n\r\n");
    exchange(port, req.as_bytes())
}

const UI: &str = "https://ui.perfetto.dev";

#[test]
fn serves_the_trace_once_to_perfetto_ui() {
    let dir = tempfile::tempdir().unwrap();
    let trace = two_frames(dir.path(), "scroll trace.pftrace");
    let bytes = std::fs::read(&trace).unwrap();
    let mut open = Open::start(&[trace.to_str().unwrap(), "--port", "0"]);
    let (port, path) = open.target();
    assert_eq!(path, "/scroll%20trace.pftrace");
    let args = open.args();
    assert_eq!(args["referrer"], "fpsan");
    // Not Perfetto's port: the link asks the UI to allow this one.
    assert_eq!(args["rpc_port"], port.to_string());
    assert!(!args.contains_key("visStart") && !args.contains_key("ts"), "{args:?}");

    // Refused, and the server keeps waiting.
    let r = get(port, "/other.pftrace", UI);
    assert_eq!((r.status, r.headers["access-control-allow-origin"].as_str()), (404, UI));
    let r = exchange(port, format!("POST /status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").as_bytes());
    assert_eq!(r.status, 404, "the UI's probe for trace_processor_shell");
    let r = exchange(port, format!("HEAD {path} HTTP/1.1\r\n\r\n").as_bytes());
    assert_eq!(r.status, 404);
    assert_eq!(exchange(port, b"\x16\x03\x01\x02\x00 hello\r\n\r\n").status, 400);
    let huge = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(100_000));
    assert_eq!(exchange(port, huge.as_bytes()).status, 400);
    assert_eq!(get(port, &path, "https://evil.example").status, 403);
    let r = exchange(port, format!("GET {path} HTTP/1.1\r\nHost: evil.example:{port}\r\n\r\n").as_bytes());
    assert_eq!(r.status, 403, "DNS rebinding");
    // A CORS preflight is answered, as trace_processor_shell's server does.
    let r = exchange(port, format!("OPTIONS {path} HTTP/1.1\r\nOrigin: {UI}\r\n\r\n").as_bytes());
    assert_eq!(r.status, 204);
    assert_eq!(r.headers["access-control-allow-origin"], UI);
    assert_eq!(r.headers["access-control-allow-private-network"], "true");
    // An idle connection (a browser's preconnection) does not hold it up.
    let _idle = TcpStream::connect(("127.0.0.1", port)).unwrap();
    assert!(open.running());

    let r = get(port, &path, UI);
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["access-control-allow-origin"], UI);
    assert_eq!(r.headers["content-length"], bytes.len().to_string());
    assert_eq!(r.headers["content-type"], "application/octet-stream");
    assert_eq!(r.body, bytes);

    let (status, stderr) = open.wait();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(&format!("GET {path}: 200, {} bytes", bytes.len())), "{stderr}");
    assert!(stderr.contains("POST /status: 404"), "{stderr}");
    assert!(stderr.contains(": 400 (malformed request line)"), "{stderr}");
    assert!(stderr.contains(": 400 (request head longer than 16384 bytes)"), "{stderr}");
}

#[test]
fn keep_serving_serves_until_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let trace = two_frames(dir.path(), "t.pftrace");
    let bytes = std::fs::read(&trace).unwrap();
    let mut open = Open::start(&[trace.to_str().unwrap(), "--port", "0", "--keep-serving"]);
    let (port, path) = open.target();
    for _ in 0..2 {
        assert_eq!(get(port, &path, UI).body, bytes);
    }
    // A client without an Origin (curl) is served too.
    assert_eq!(exchange(port, format!("GET {path} HTTP/1.0\r\n\r\n").as_bytes()).body, bytes);
    assert!(open.running());
    open.interrupt();
    let (status, stderr) = open.wait();
    assert_eq!(status.code(), Some(0), "{stderr}");

    // Without --keep-serving, Ctrl-C before the trace was served is 130.
    let open = Open::start(&[trace.to_str().unwrap(), "--port", "0"]);
    open.interrupt();
    let (status, stderr) = open.wait();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert_eq!(stderr.lines().last(), Some("fpsan: interrupted before Perfetto UI fetched the trace"));
}

#[test]
fn the_frame_link_zooms_to_the_frame() {
    let dir = tempfile::tempdir().unwrap();
    let trace = two_frames(dir.path(), "t.pftrace");
    let open = Open::start(&[trace.to_str().unwrap(), "--port", "0", "--frame", "0"]);
    let args = open.args();
    // Frame 0's window, as report.html's timeline draws it: one interval
    // (P, nothing in the trace measures another) before its vsync V1, to
    // one interval after its last work (DrawFrame and present at V1 + 14 ms).
    let (start, end) = (V1 - P, V1 + 14_000_000 + P);
    assert_eq!((start, end), (1_000_000_000, 1_047_333_334));
    assert_eq!(args["visStart"], start.to_string());
    assert_eq!(args["visEnd"], end.to_string());
    // Its doFrame slice, selected.
    assert_eq!((args["ts"].as_str(), args["dur"].as_str()), ("1017666667", "10000000"));
    assert_eq!((TS1, DUR1), (1_017_666_667, 10_000_000));
    let (port, path) = open.target();
    assert_eq!(get(port, &path, UI).status, 200);
    let (status, stderr) = open.wait();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "fpsan: frame 0 (com.app pid 100): doFrame at ts 1017666667 ns (0.117667 s into the trace), 10.000 ms; \
             the link zooms to ts 1000000000 .. 1047333334 ns (0.100000 s .. 0.147333 s) and selects the doFrame slice"
        ),
        "{stderr}"
    );
}
