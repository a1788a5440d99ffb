//! The little HTTP/1.1 that `fpsan open` speaks: one request head (the
//! request line and the headers, no body) read within fixed bounds and
//! parsed strictly, plain responses with `Connection: close`, and the
//! percent-encoding of a path. Anything outside what a browser's `fetch()`
//! sends is a [`BadRequest`] (answered 400), never a panic.

use std::io::{self, Read, Write};

/// The most bytes a request head may take (request line, headers, blank line).
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// The most header lines a request may have.
pub const MAX_HEADERS: usize = 64;
/// The longest method name accepted (`OPTIONS` is 7).
const MAX_METHOD: usize = 16;

/// A parsed request head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// The request target as sent: printable ASCII, percent-encoded.
    pub target: String,
    /// Header names lower-cased, values without surrounding blanks.
    headers: Vec<(String, String)>,
}

impl Request {
    /// The value of the first header called `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Why a request was answered 400.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadRequest {
    #[error("request head longer than {MAX_HEAD_BYTES} bytes")]
    TooLarge,
    #[error("request head cut short")]
    Incomplete,
    #[error("malformed request line")]
    RequestLine,
    #[error("not HTTP/1.0 or HTTP/1.1")]
    Version,
    #[error("malformed header line")]
    Header,
    #[error("more than {MAX_HEADERS} headers")]
    TooManyHeaders,
}

/// What reading a request head from a connection gave.
#[derive(Debug)]
pub enum Head {
    /// The peer closed (or went quiet) before sending a byte: a browser's
    /// unused preconnection, a port probe, `open`'s own wake-up call.
    Nothing,
    Request(Request),
    Bad(BadRequest),
}

/// Read one request head from `r`, at most [`MAX_HEAD_BYTES`]. A read that
/// times out (the caller sets the timeout) or fails ends the head where it is.
pub fn read_head(r: &mut impl Read) -> Head {
    let mut buf = vec![0u8; MAX_HEAD_BYTES];
    let mut len = 0;
    loop {
        if len == buf.len() {
            return Head::Bad(BadRequest::TooLarge);
        }
        let n = match r.read(&mut buf[len..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => 0,
        };
        if n == 0 {
            return if len == 0 { Head::Nothing } else { Head::Bad(BadRequest::Incomplete) };
        }
        // The blank line may straddle the previous read.
        let from = len.saturating_sub(3);
        len += n;
        if let Some(end) = head_end(&buf[from..len]) {
            return match parse(&buf[..from + end]) {
                Ok(req) => Head::Request(req),
                Err(e) => Head::Bad(e),
            };
        }
    }
}

/// Where the head's blank line ends in `b` (CRLF CRLF, or bare LFs, which
/// RFC 9112 lets a server accept).
fn head_end(b: &[u8]) -> Option<usize> {
    let crlf = memchr::memmem::find(b, b"\r\n\r\n").map(|i| i + 4);
    let lf = memchr::memmem::find(b, b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A token (RFC 9110 tchar): method and header names.
fn is_token(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(|&c| c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c))
}

/// Parse a request head (its lines, up to and including the blank line).
pub fn parse(head: &[u8]) -> Result<Request, BadRequest> {
    let mut lines = head.split(|&c| c == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let line = lines.next().ok_or(BadRequest::RequestLine)?;
    let mut parts = line.split(|&c| c == b' ');
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(BadRequest::RequestLine);
    };
    if !is_token(method) || method.len() > MAX_METHOD {
        return Err(BadRequest::RequestLine);
    }
    // Origin form (a path) or `*` (OPTIONS); printable ASCII only.
    let printable = target.iter().all(|c| (0x21..0x7f).contains(c));
    if !printable || !(target.starts_with(b"/") || target == b"*") {
        return Err(BadRequest::RequestLine);
    }
    if version != b"HTTP/1.1" && version != b"HTTP/1.0" {
        return Err(BadRequest::Version);
    }
    let mut headers = Vec::new();
    for line in lines.take_while(|l| !l.is_empty()) {
        if headers.len() == MAX_HEADERS {
            return Err(BadRequest::TooManyHeaders);
        }
        // A line folded onto the one before (obsolete) or without a colon.
        let colon = line.iter().position(|&c| c == b':').ok_or(BadRequest::Header)?;
        let (name, value) = (&line[..colon], &line[colon + 1..]);
        if !is_token(name) || value.iter().any(|&c| c.is_ascii_control() && c != b'\t') {
            return Err(BadRequest::Header);
        }
        let value = String::from_utf8_lossy(value.trim_ascii()).into_owned();
        headers.push((String::from_utf8_lossy(name).to_ascii_lowercase(), value));
    }
    // Both were checked to be ASCII.
    let ascii = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    Ok(Request { method: ascii(method), target: ascii(target), headers })
}

/// The statuses `open` answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    NoContent,
    BadRequest,
    Forbidden,
    NotFound,
    InternalError,
    Unavailable,
}

impl Status {
    pub fn code(self) -> u16 {
        match self {
            Status::Ok => 200,
            Status::NoContent => 204,
            Status::BadRequest => 400,
            Status::Forbidden => 403,
            Status::NotFound => 404,
            Status::InternalError => 500,
            Status::Unavailable => 503,
        }
    }

    fn reason(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::NoContent => "No Content",
            Status::BadRequest => "Bad Request",
            Status::Forbidden => "Forbidden",
            Status::NotFound => "Not Found",
            Status::InternalError => "Internal Server Error",
            Status::Unavailable => "Service Unavailable",
        }
    }
}

/// Write a response head: the status line, `headers`, `Content-Length`
/// and `Connection: close` (one request per connection).
pub fn write_head(w: &mut impl Write, status: Status, headers: &[(&str, &str)], content_length: u64) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {} {}\r\n", status.code(), status.reason());
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {content_length}\r\nConnection: close\r\n\r\n"));
    w.write_all(head.as_bytes())
}

/// A response with a short text body (the reason, for a human with curl).
pub fn write_text(w: &mut impl Write, status: Status, headers: &[(&str, &str)]) -> io::Result<()> {
    let body = format!("{} {}\n", status.code(), status.reason());
    let mut all = headers.to_vec();
    all.push(("Content-Type", "text/plain; charset=utf-8"));
    write_head(w, status, &all, body.len() as u64)?;
    w.write_all(body.as_bytes())?;
    w.flush()
}

/// `bytes` percent-encoded: every byte but RFC 3986's unreserved characters
/// (letters, digits, `-._~`) as `%XX`, so the result means the same in a
/// path, in a query value and inside another URL's query value.
pub fn percent_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `s` with its `%XX` escapes decoded; None when an escape is not two hex digits.
pub fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok().filter(|_| hex.bytes().all(|c| c.is_ascii_hexdigit()))?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(s: &str) -> Head {
        read_head(&mut s.as_bytes())
    }

    #[test]
    fn a_browser_request_parses() {
        let Head::Request(r) = head(
            "GET /t%20x.pftrace HTTP/1.1\r\nHost: 127.0.0.1:9001\r\nOrigin:  https://ui.perfetto.dev \r\nAccept: */*\r\n\r\n",
        ) else {
            panic!("not parsed")
        };
        assert_eq!((r.method.as_str(), r.target.as_str()), ("GET", "/t%20x.pftrace"));
        assert_eq!(r.header("host"), Some("127.0.0.1:9001"));
        assert_eq!(r.header("origin"), Some("https://ui.perfetto.dev"));
        assert_eq!(r.header("referer"), None);
        // Bare LFs, and the head ends at the first blank line.
        let Head::Request(r) = head("OPTIONS * HTTP/1.0\nX-A: 1\n\nbody") else { panic!("not parsed") };
        assert_eq!((r.method.as_str(), r.target.as_str(), r.header("x-a")), ("OPTIONS", "*", Some("1")));
    }

    #[test]
    fn malformed_heads_are_bad_requests() {
        let bad = |s: &str| match head(s) {
            Head::Bad(e) => e,
            other => panic!("{s:?} gave {other:?}"),
        };
        assert_eq!(bad("hello\r\n\r\n"), BadRequest::RequestLine);
        assert_eq!(bad("GET  /a HTTP/1.1\r\n\r\n"), BadRequest::RequestLine);
        assert_eq!(bad("GET a HTTP/1.1\r\n\r\n"), BadRequest::RequestLine);
        assert_eq!(bad("GET /a b HTTP/1.1\r\n\r\n"), BadRequest::RequestLine);
        assert_eq!(bad("G(T /a HTTP/1.1\r\n\r\n"), BadRequest::RequestLine);
        assert_eq!(bad("GET /\u{e9} HTTP/1.1\r\n\r\n"), BadRequest::RequestLine);
        assert_eq!(bad("GET /a HTTP/2\r\n\r\n"), BadRequest::Version);
        assert_eq!(bad("GET /a HTTP/1.1\r\nno colon\r\n\r\n"), BadRequest::Header);
        assert_eq!(bad("GET /a HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n"), BadRequest::Header);
        assert_eq!(bad("GET /a HTTP/1.1\r\nA: 1\u{1}\r\n\r\n"), BadRequest::Header);
        assert_eq!(bad("GET /a HTTP/1.1\r\nHost: x"), BadRequest::Incomplete);
        let many = format!("GET /a HTTP/1.1\r\n{}\r\n", "A: 1\r\n".repeat(MAX_HEADERS + 1));
        assert_eq!(bad(&many), BadRequest::TooManyHeaders);
        let exactly = format!("GET /a HTTP/1.1\r\n{}\r\n", "A: 1\r\n".repeat(MAX_HEADERS));
        assert!(matches!(head(&exactly), Head::Request(_)));
        // A head that never ends is cut at the bound, whatever follows.
        let huge = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(MAX_HEAD_BYTES));
        assert_eq!(bad(&huge), BadRequest::TooLarge);
        assert!(matches!(head(""), Head::Nothing));
        // Arbitrary bytes never panic.
        for seed in 0..200u32 {
            let bytes: Vec<u8> =
                (0..seed * 7 % 300).map(|i| (i.wrapping_mul(seed.wrapping_add(31)) % 256) as u8).collect();
            let _ = read_head(&mut bytes.as_slice());
        }
    }

    /// A reader that hands out one byte at a time: the blank line split across reads.
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let Some((&b, rest)) = self.0.split_first() else { return Ok(0) };
            buf[0] = b;
            self.0 = rest;
            Ok(1)
        }
    }

    #[test]
    fn a_head_read_byte_by_byte_parses() {
        let Head::Request(r) = read_head(&mut Trickle(b"GET /a HTTP/1.1\r\nHost: h\r\n\r\nrest")) else {
            panic!("not parsed")
        };
        assert_eq!((r.target.as_str(), r.header("host")), ("/a", Some("h")));
    }

    #[test]
    fn responses() {
        let mut out = Vec::new();
        write_text(&mut out, Status::NotFound, &[("Access-Control-Allow-Origin", "https://ui.perfetto.dev")]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "HTTP/1.1 404 Not Found\r\nAccess-Control-Allow-Origin: https://ui.perfetto.dev\r\n\
             Content-Type: text/plain; charset=utf-8\r\nContent-Length: 14\r\nConnection: close\r\n\r\n404 Not Found\n"
        );
    }

    #[test]
    fn percent_coding() {
        assert_eq!(percent_encode(b"my trace+1.pftrace"), "my%20trace%2B1.pftrace");
        assert_eq!(percent_encode("é~_-".as_bytes()), "%C3%A9~_-");
        assert_eq!(percent_encode(b"http://127.0.0.1:9001/a%20b"), "http%3A%2F%2F127.0.0.1%3A9001%2Fa%2520b");
        assert_eq!(percent_decode("my%20trace%2b1").as_deref(), Some(&b"my trace+1"[..]));
        assert_eq!(percent_decode("%C3%A9").as_deref(), Some("é".as_bytes()));
        for bad in ["%", "%2", "%zz", "%+1", "a%-1"] {
            assert_eq!(percent_decode(bad), None, "{bad}");
        }
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(percent_decode(&percent_encode(&all)), Some(all));
    }
}
