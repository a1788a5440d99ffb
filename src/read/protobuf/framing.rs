//! The sequential framing pass: finds each top-level `Trace.packet` (field 1,
//! length-delimited) without copying, and reports where the file stops
//! making sense (a truncated tail, garbage after the last packet).

use super::wire::read_varint;

#[derive(Debug, Default)]
pub struct Framing {
    /// Byte ranges of the packets' payloads.
    pub packets: Vec<ByteRange>,
    /// Bytes after the last whole packet that could not be framed.
    pub trailing_bytes: usize,
    /// Why framing stopped early, if it did.
    pub stop_reason: Option<String>,
}

/// A packet payload's (start, end) byte offsets in the trace.
pub type ByteRange = (usize, usize);

/// Frame the packets of a serialized `Trace`.
pub fn frame(buf: &[u8]) -> Framing {
    frame_releasing(buf, &|_| {})
}

/// Bytes scanned between calls to `done_before` (see [`frame_releasing`]).
const RELEASE_EVERY: usize = 64 << 20;

/// [`frame`], calling `done_before(offset)` every 64 MB so a memory-mapped
/// caller can drop the pages already scanned from its resident set.
pub fn frame_releasing(buf: &[u8], done_before: &dyn Fn(usize)) -> Framing {
    frame_streaming(buf, done_before, &mut |_| {})
}

/// [`frame_releasing`], calling `on_packet(packets so far)` after each packet
/// is found, so a consumer can start on the packets before framing ends.
pub fn frame_streaming(buf: &[u8], done_before: &dyn Fn(usize), on_packet: &mut dyn FnMut(&[ByteRange])) -> Framing {
    let mut out = Framing { packets: Vec::with_capacity(buf.len() / 512), ..Default::default() };
    let mut pos = 0usize;
    let mut next_release = RELEASE_EVERY;
    while pos < buf.len() {
        if pos >= next_release {
            done_before(pos);
            next_release = pos + RELEASE_EVERY;
        }
        let start = pos;
        let stop = |out: &mut Framing, why: String| {
            out.trailing_bytes = buf.len() - start;
            out.stop_reason = Some(why);
        };
        let tag = match read_varint(buf, &mut pos) {
            Ok(t) => t,
            Err(_) => {
                stop(&mut out, format!("unreadable packet header at byte {start}"));
                break;
            }
        };
        let (field, wire) = (tag >> 3, tag & 7);
        match wire {
            2 => {
                let Ok(len) = read_varint(buf, &mut pos) else {
                    stop(&mut out, format!("unreadable packet length at byte {start}"));
                    break;
                };
                let end = usize::try_from(len).ok().and_then(|l| pos.checked_add(l));
                match end {
                    Some(end) if end <= buf.len() => {
                        if field == 1 {
                            out.packets.push((pos, end));
                            on_packet(&out.packets);
                        }
                        pos = end;
                    }
                    _ => {
                        stop(
                            &mut out,
                            format!("the last packet (at byte {start}) declares {len} bytes but only {} remain: the file is truncated", buf.len() - pos),
                        );
                        break;
                    }
                }
            }
            // Varint/fixed fields at the top level are not Perfetto's, but are
            // skippable; anything else means we lost sync with the stream.
            0 => {
                if read_varint(buf, &mut pos).is_err() {
                    stop(&mut out, format!("unreadable field at byte {start}"));
                    break;
                }
            }
            _ => {
                stop(
                    &mut out,
                    format!(
                        "byte {start} is not a packet header (wire type {wire}): the rest of the file is not a trace"
                    ),
                );
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_whole_packets_and_reports_a_cut_tail() {
        // two packets of 2 and 1 bytes, then a packet declaring 5 bytes with 2 present
        let buf = [0x0a, 2, 0xaa, 0xbb, 0x0a, 1, 0xcc, 0x0a, 5, 1, 2];
        let f = frame(&buf);
        assert_eq!(f.packets, vec![(2, 4), (6, 7)]);
        assert_eq!(f.trailing_bytes, 4);
        assert!(f.stop_reason.unwrap().contains("truncated"));
    }

    #[test]
    fn garbage_stops_framing() {
        let f = frame(&[0x0a, 0, 0x0f, 1, 2]);
        assert_eq!(f.packets, vec![(2, 2)]);
        assert_eq!(f.trailing_bytes, 3);
    }
}
