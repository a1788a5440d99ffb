//! The JSON block of a systrace HTML report, read for what it says about
//! the capture. catapult's systrace writes its controller's block last:
//! `{"traceEvents": [...], "metadata": {"clock-domain": "SYSTRACE"}}`, the
//! events being py_trace_event's: first a `process_argv` event whose
//! `args.argv` is systrace's command line, then `clock_sync` markers. A
//! Chrome trace (a report of Chrome and systrace together, or trace2html's
//! `viewer-data`) is the same shape, its `metadata` with `command_line`,
//! `clock-domain`, `trace-capture-datetime`, `os-name` and `os-version`.
//! Nothing else of the block is used, and content of another shape is no
//! damage: the block is the capture's own, not trace data.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::model::CaptureInfo;

/// Events read from the start of `traceEvents` for `process_argv` (it is
/// the first; a Chrome trace's millions of others are skipped unread).
const HEAD_EVENTS: usize = 16;

/// What `block` (JSON) says about the capture; nothing when it is not JSON
/// of either shape.
pub(super) fn read(block: &[u8]) -> CaptureInfo {
    let mut head = Vec::new();
    let mut de = serde_json::Deserializer::from_slice(block);
    // A bare array is the older controller's events alone.
    let metadata = if block.iter().find(|c| !c.is_ascii_whitespace()) == Some(&b'[') {
        Head(&mut head).deserialize(&mut de).ok().and(None)
    } else {
        BlockSeed(&mut head).deserialize(&mut de).ok().flatten()
    };
    let text = |m: &Map<String, Value>, key: &str| m.get(key).and_then(as_text);
    let mut info = CaptureInfo::default();
    if let Some(m) = &metadata {
        info.command_line = text(m, "command_line");
        info.clock_domain = text(m, "clock-domain");
        info.capture_time = text(m, "trace-capture-datetime");
        info.os = match (text(m, "os-name"), text(m, "os-version")) {
            (Some(n), Some(v)) => Some(format!("{n} {v}")),
            (n, v) => n.or(v),
        };
    }
    if info.command_line.is_none() {
        info.command_line = head.iter().find_map(process_argv);
    }
    info
}

/// A string, or a number written as one; anything else is not text.
fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// py_trace_event's `process_argv` event: the command joined by spaces.
fn process_argv(event: &Value) -> Option<String> {
    if event.get("name").and_then(Value::as_str) != Some("process_argv") {
        return None;
    }
    let argv = event.get("args")?.get("argv")?.as_array()?;
    let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// The top-level object: `traceEvents` (its head kept through the seed) and
/// `metadata`; other keys are skipped.
struct BlockSeed<'h>(&'h mut Vec<Value>);

impl<'de> DeserializeSeed<'de> for BlockSeed<'_> {
    type Value = Option<Map<String, Value>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for BlockSeed<'_> {
    type Value = Option<Map<String, Value>>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON trace object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut metadata = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "traceEvents" => map.next_value_seed(Head(&mut *self.0))?,
                // Metadata of another shape is simply not read.
                "metadata" => metadata = map.next_value::<Value>()?.as_object().cloned(),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(metadata)
    }
}

/// The first [`HEAD_EVENTS`] events of an array, the rest skipped.
struct Head<'h>(&'h mut Vec<Value>);

impl<'de> DeserializeSeed<'de> for Head<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Head<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of trace events")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while self.0.len() < HEAD_EVENTS {
            match seq.next_element::<Value>()? {
                Some(v) => self.0.push(v),
                None => return Ok(()),
            }
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    // `traceEvents` of another type is skipped, not an error.
    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        IgnoredAny::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(|_| ())
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_systrace_controllers_block_gives_its_command_and_clock() {
        // As systrace.py writes it (a real report's block, shortened ids).
        let block = br#"{"traceEvents": [{"category": "process_argv", "name": "process_argv", "args": {"argv": ["systrace.py", "-t", "5", "pagecache"]}, "pid": 1, "ts": 10.5, "tid": 2, "ph": "M"}, {"category": "python", "name": "clock_sync", "args": {"issue_ts": 12.2, "sync_id": "9a7e"}, "pid": 1, "ts": 13.9, "tid": 3, "ph": "c"}], "metadata": {"clock-domain": "SYSTRACE"}}"#;
        let want = CaptureInfo {
            command_line: Some("systrace.py -t 5 pagecache".into()),
            clock_domain: Some("SYSTRACE".into()),
            ..Default::default()
        };
        assert_eq!(read(block), want);
        // The older controller wrote the events alone.
        let bare = br#"[{"ph": "M", "name": "process_argv", "args": {"argv": ["systrace.py", "gfx"]}}]"#;
        assert_eq!(read(bare).command_line.as_deref(), Some("systrace.py gfx"));
    }

    #[test]
    fn chromes_metadata_is_read_and_its_events_skipped() {
        let events: Vec<String> = (0..100).map(|i| format!(r#"{{"ph":"X","name":"e{i}","ts":{i}}}"#)).collect();
        let block = format!(
            r#"{{"metadata": {{"command_line": "chrome --enable-tracing", "clock-domain": "LINUX_CLOCK_MONOTONIC", "trace-capture-datetime": "2016-8-18 22:28:10", "os-name": "Android", "os-version": "14", "num-cpus": 8}}, "traceEvents": [{}]}}"#,
            events.join(",")
        );
        let want = CaptureInfo {
            command_line: Some("chrome --enable-tracing".into()),
            clock_domain: Some("LINUX_CLOCK_MONOTONIC".into()),
            capture_time: Some("2016-8-18 22:28:10".into()),
            os: Some("Android 14".into()),
        };
        assert_eq!(read(block.as_bytes()), want);
    }

    #[test]
    fn other_content_gives_nothing_and_no_error() {
        for block in [
            &b"{}"[..],
            b"[]",
            br#"{"traceEvents": {"a": 1}, "metadata": 7}"#,
            br#"{"traceEvents": "x", "systemTraceEvents": ""}"#,
            br#"{"traceEvents": [{"name": "process_argv", "args": {"argv": "not a list"}}]}"#,
            b"{\"traceEvents\": [1, 2",
            b"[{\"ph\": \"M\",",
            b"{not json",
        ] {
            assert_eq!(read(block), CaptureInfo::default(), "{}", String::from_utf8_lossy(block));
        }
    }
}
