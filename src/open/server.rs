//! The trace over HTTP on 127.0.0.1, for Perfetto UI to fetch (as Perfetto's
//! `tools/open_trace_in_ui` does; docs/report.md, "`fpsan open`"): GET of the
//! trace's path only, with the CORS header `https://ui.perfetto.dev` needs,
//! streamed from the file; every connection on its own thread (a browser's
//! idle preconnection must not hold up the real request), up to
//! [`MAX_CONNECTIONS`] at once.

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::http::{self, Head, Request, Status};
use super::{OpenError, PERFETTO_UI};
use crate::read;

/// How long a connection may take to send its request head.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one write to a stalled client may block.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// Connections handled at once; more are answered 503.
pub const MAX_CONNECTIONS: usize = 32;
/// After a response, what is read (and dropped) of what the client still
/// sends, so that closing does not reset the connection under the response.
const DRAIN_BYTES: u64 = 1 << 20;
const DRAIN_TIME: Duration = Duration::from_secs(1);
/// Failed `accept`s in a row (each followed by a short pause) before `serve` gives up.
const MAX_ACCEPT_FAILURES: u32 = 100;

/// The headers every response carries: Perfetto UI may read it (CORS), and
/// never from a cache (the file may change between two `open`s).
const COMMON: [(&str, &str); 2] = [("Access-Control-Allow-Origin", PERFETTO_UI), ("Cache-Control", "no-cache")];

/// One answered request, for the log line the caller prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    pub peer: SocketAddr,
    /// `METHOD target` (the target cut to 200 characters), or None for a
    /// request that did not parse.
    pub request: Option<String>,
    pub status: u16,
    /// Body bytes sent (the trace's, for a 200).
    pub bytes: u64,
    /// What went wrong, if anything: why a request was refused, a transfer cut.
    pub note: Option<String>,
    /// The whole trace was sent.
    pub whole_trace: bool,
}

impl std::fmt::Display for Answered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.peer, self.request.as_deref().unwrap_or("-"), self.status)?;
        if self.status == 200 {
            write!(f, ", {} bytes", self.bytes)?;
        }
        if let Some(note) = &self.note {
            write!(f, " ({note})")?;
        }
        Ok(())
    }
}

/// How serving ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Served {
    /// Whole transfers of the trace.
    pub times: u64,
}

/// What the listening loop and the connections' threads share.
struct Shared {
    file: PathBuf,
    /// The trace's path in the URL, percent-encoded.
    url_path: String,
    /// The same, decoded: what a request's target must decode to.
    raw_path: Vec<u8>,
    port: u16,
    stop: AtomicBool,
    served: AtomicU64,
    live: AtomicUsize,
}

impl Shared {
    /// Make the listening loop look at the flags: connect to it.
    fn wake(&self) {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let _ = TcpStream::connect_timeout(&addr, Duration::from_secs(1));
    }

    /// A Host header naming this server. Any other is refused, so that a
    /// page whose own name was made to resolve to 127.0.0.1 (DNS
    /// rebinding) cannot read the trace as its same-origin resource.
    fn host_ok(&self, host: &str) -> bool {
        let (name, port) = match host.rsplit_once(':') {
            Some((name, port)) => (name, port.parse::<u16>().ok()),
            None => (host, Some(80)),
        };
        port == Some(self.port) && (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost"))
    }
}

/// Stops a serving [`TraceServer`] from another thread (the Ctrl-C handler).
#[derive(Clone)]
pub struct Stopper(Arc<Shared>);

impl Stopper {
    pub fn stop(&self) {
        self.0.stop.store(true, Ordering::SeqCst);
        self.0.wake();
    }
}

/// A trace file and the loopback socket it will be served on.
pub struct TraceServer {
    listener: TcpListener,
    shared: Arc<Shared>,
}

impl TraceServer {
    /// Check the trace file (it must be a readable, non-empty regular file)
    /// and listen on 127.0.0.1:`port` (0: a free port).
    pub fn bind(trace: &Path, port: u16) -> Result<TraceServer, OpenError> {
        read::open_file(trace)?;
        let name = trace.file_name().map(|n| n.as_encoded_bytes().to_vec()).unwrap_or_default();
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).map_err(|source| match source.kind() {
            io::ErrorKind::AddrInUse => OpenError::PortInUse { port },
            _ => OpenError::Listen { port, source },
        })?;
        let port = listener.local_addr().map_err(|source| OpenError::Listen { port, source })?.port();
        let mut raw_path = b"/".to_vec();
        raw_path.extend_from_slice(&name);
        let shared = Shared {
            file: trace.to_path_buf(),
            url_path: format!("/{}", http::percent_encode(&name)),
            raw_path,
            port,
            stop: AtomicBool::new(false),
            served: AtomicU64::new(0),
            live: AtomicUsize::new(0),
        };
        Ok(TraceServer { listener, shared: Arc::new(shared) })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.shared.port
    }

    /// The trace's URL: `http://127.0.0.1:PORT/NAME`, the file's name percent-encoded.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}{}", self.shared.port, self.shared.url_path)
    }

    pub fn stopper(&self) -> Stopper {
        Stopper(self.shared.clone())
    }

    /// Answer connections until the trace was sent whole once (or, with
    /// `keep_serving`, until stopped); `log` hears of every request. A stop
    /// before the trace was sent is [`OpenError::Interrupted`], unless
    /// `keep_serving` (where stopping is how it ends).
    pub fn serve(
        self,
        keep_serving: bool,
        log: impl Fn(&Answered) + Send + Sync + 'static,
    ) -> Result<Served, OpenError> {
        let log: Arc<dyn Fn(&Answered) + Send + Sync> = Arc::new(log);
        let shared = &self.shared;
        let mut failures = 0;
        loop {
            let accepted = self.listener.accept();
            let served = Served { times: shared.served.load(Ordering::SeqCst) };
            if shared.stop.load(Ordering::SeqCst) {
                return if keep_serving || served.times > 0 { Ok(served) } else { Err(OpenError::Interrupted) };
            }
            if served.times > 0 && !keep_serving {
                return Ok(served);
            }
            let (stream, peer) = match accepted {
                Ok(a) => a,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    // Out of file descriptors, a connection reset while queued:
                    // wait a little; give up only when it lasts.
                    failures += 1;
                    if failures >= MAX_ACCEPT_FAILURES {
                        return Err(OpenError::Accept { port: shared.port, source });
                    }
                    std::thread::sleep(Duration::from_millis(100));
                    continue;
                }
            };
            failures = 0;
            if shared.live.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                shared.live.fetch_sub(1, Ordering::SeqCst);
                let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
                let _ = http::write_text(&mut &stream, Status::Unavailable, &COMMON);
                continue;
            }
            let (shared, log) = (shared.clone(), log.clone());
            let spawned = std::thread::Builder::new().name("fpsan-open".into()).spawn(move || {
                if let Some(a) = answer(&shared, stream, peer) {
                    log(&a);
                    // Counted after its line is out: the process may end right after.
                    if a.whole_trace {
                        shared.served.fetch_add(1, Ordering::SeqCst);
                        shared.wake();
                    }
                }
                shared.live.fetch_sub(1, Ordering::SeqCst);
            });
            if spawned.is_err() {
                self.shared.live.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }
}

/// Answer one connection's request; None when it sent nothing.
fn answer(shared: &Shared, mut stream: TcpStream, peer: SocketAddr) -> Option<Answered> {
    let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let mut answered = Answered { peer, request: None, status: 0, bytes: 0, note: None, whole_trace: false };
    let req = match http::read_head(&mut stream) {
        Head::Nothing => return None,
        Head::Bad(why) => {
            answered.note = Some(why.to_string());
            respond(&mut stream, Status::BadRequest, &COMMON, &mut answered);
            return Some(answered);
        }
        Head::Request(req) => req,
    };
    let target: String = req.target.chars().take(200).collect();
    answered.request = Some(format!("{} {target}", req.method));
    match route(shared, &req) {
        Err((status, why)) => {
            answered.note = why.map(str::to_string);
            respond(&mut stream, status, &COMMON, &mut answered);
        }
        Ok(Route::Preflight) => {
            // What trace_processor_shell's HTTP server answers a CORS
            // preflight with, Chrome's Private Network Access header included.
            let headers = [
                COMMON[0],
                COMMON[1],
                ("Access-Control-Allow-Methods", "GET, OPTIONS"),
                ("Access-Control-Allow-Headers", "*"),
                ("Access-Control-Allow-Private-Network", "true"),
                ("Access-Control-Max-Age", "86400"),
            ];
            answered.status = Status::NoContent.code();
            let _ = http::write_head(&mut stream, Status::NoContent, &headers, 0).and_then(|_| stream.flush());
            finish(&mut stream);
        }
        // Opened for each request: `--keep-serving` serves the file as it is now.
        Ok(Route::Trace) => match read::open_file(&shared.file) {
            Err(e) => {
                answered.note = Some(e.to_string());
                respond(&mut stream, Status::InternalError, &COMMON, &mut answered);
            }
            Ok((file, len)) => {
                answered.status = Status::Ok.code();
                match send_trace(&file, len, &mut stream, &mut answered.bytes) {
                    Ok(()) => {
                        finish(&mut stream);
                        answered.whole_trace = true;
                    }
                    Err(e) => answered.note = Some(format!("transfer cut after {} bytes: {e}", answered.bytes)),
                }
            }
        },
    }
    Some(answered)
}

/// What a well-formed request asks for.
enum Route {
    Trace,
    Preflight,
}

/// The request's route, or the status refusing it and why.
fn route(shared: &Shared, req: &Request) -> Result<Route, (Status, Option<&'static str>)> {
    if req.header("host").is_some_and(|h| !shared.host_ok(h)) {
        return Err((Status::Forbidden, Some("Host names another server")));
    }
    if http::percent_decode(&req.target).as_deref() != Some(&shared.raw_path[..]) {
        return Err((Status::NotFound, None));
    }
    match req.method.as_str() {
        "OPTIONS" => Ok(Route::Preflight),
        // Another page's script may not make the one-shot server spend its
        // one transfer (its browser would hide the bytes from it anyway).
        "GET" if req.header("origin").is_some_and(|o| o != PERFETTO_UI) => {
            Err((Status::Forbidden, Some("Origin is not Perfetto UI")))
        }
        "GET" => Ok(Route::Trace),
        _ => Err((Status::NotFound, None)),
    }
}

/// A short response, then the connection closed.
fn respond(stream: &mut TcpStream, status: Status, headers: &[(&str, &str)], answered: &mut Answered) {
    answered.status = status.code();
    let _ = http::write_text(stream, status, headers);
    finish(stream);
}

/// The trace, `len` bytes of `file`, streamed: the kernel copies file to
/// socket (`io::copy`'s sendfile), the memory used is the same for any size.
fn send_trace(file: &std::fs::File, len: u64, stream: &mut TcpStream, sent: &mut u64) -> io::Result<()> {
    let headers = [COMMON[0], COMMON[1], ("Content-Type", "application/octet-stream")];
    http::write_head(stream, Status::Ok, &headers, len)?;
    *sent = io::copy(&mut file.take(len), stream)?;
    if *sent < len {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the file got shorter while it was sent"));
    }
    stream.flush()
}

/// End the response: no more writes, then read what the client still sends
/// (bounded) until it closes, so the response is not reset away.
fn finish(stream: &mut TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let deadline = Instant::now() + DRAIN_TIME;
    let mut buf = [0u8; 8192];
    let mut drained = 0u64;
    while drained < DRAIN_BYTES {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            break;
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(dir: &Path, name: &str) -> TraceServer {
        let path = dir.join(name);
        std::fs::write(&path, b"trace bytes").unwrap();
        TraceServer::bind(&path, 0).unwrap()
    }

    #[test]
    fn the_url_names_the_file_percent_encoded() {
        let dir = tempfile::tempdir().unwrap();
        let s = server(dir.path(), "my trace+1.pftrace");
        assert_eq!(s.url(), format!("http://127.0.0.1:{}/my%20trace%2B1.pftrace", s.port()));
        assert_ne!(s.port(), 0);
        assert_eq!(s.shared.raw_path, b"/my trace+1.pftrace");
    }

    #[test]
    fn only_this_server_is_a_good_host() {
        let dir = tempfile::tempdir().unwrap();
        let s = server(dir.path(), "t");
        let port = s.port();
        for ok in [format!("127.0.0.1:{port}"), format!("LocalHost:{port}")] {
            assert!(s.shared.host_ok(&ok), "{ok}");
        }
        for bad in [format!("evil.example:{port}"), "127.0.0.1".into(), format!("127.0.0.1:{}", port ^ 1), "".into()] {
            assert!(!s.shared.host_ok(&bad), "{bad}");
        }
    }

    #[test]
    fn stopping_before_the_trace_was_served_is_an_interruption() {
        let dir = tempfile::tempdir().unwrap();
        let s = server(dir.path(), "t");
        let stopper = s.stopper();
        let t = std::thread::spawn(move || s.serve(false, |_| {}));
        stopper.stop();
        assert!(matches!(t.join().unwrap(), Err(OpenError::Interrupted)));
        // With --keep-serving, stopping is how it ends.
        let s = server(dir.path(), "u");
        let stopper = s.stopper();
        let t = std::thread::spawn(move || s.serve(true, |_| {}));
        stopper.stop();
        assert_eq!(t.join().unwrap().unwrap(), Served { times: 0 });
    }

    #[test]
    fn a_missing_file_or_a_taken_port_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = TraceServer::bind(&dir.path().join("absent"), 0).err().unwrap();
        assert!(matches!(e, OpenError::Read(read::ReadError::Io { .. })), "{e}");
        let e = TraceServer::bind(dir.path(), 0).err().unwrap();
        assert!(matches!(e, OpenError::Read(read::ReadError::IsDirectory { .. })), "{e}");
        let s = server(dir.path(), "t");
        let e = TraceServer::bind(&dir.path().join("t"), s.port()).err().unwrap();
        assert!(matches!(e, OpenError::PortInUse { port } if port == s.port()), "{e}");
    }
}
