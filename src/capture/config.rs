//! The TraceConfig fpsan sends to perfetto: prost structs for only the
//! fields used (numbers checked against Perfetto's config/trace_config.proto,
//! config/data_source_config.proto, config/ftrace/ftrace_config.proto,
//! config/process_stats/process_stats_config.proto and
//! config/android/android_input_event_config.proto), the sizing rules, and a
//! text-proto rendering for `--dry-run` (valid input for `perfetto --txt`).

use std::fmt::Write as _;

/// Planning rate for a UI trace: sched + atrace + frame timeline on an
/// 8-core phone during scrolling runs at 2-5 MB/s; size for the top of that.
pub const MB_PER_SEC: u32 = 5;
/// Smallest main buffer: the first second carries bursts (initial sched
/// state, app start) bigger than the steady rate.
pub const MIN_BUFFER_MB: u32 = 16;
/// Largest main buffer fpsan asks for on its own: traced allocates it up
/// front, and more than this starts pushing apps out on 4 GB phones. Longer
/// captures stream into the file instead (`write_into_file`).
pub const MAX_BUFFER_MB: u32 = 256;
/// Buffer 1 holds only the process/thread scan; DISCARD so the scan made
/// at the start is never overwritten by later data (with one ring buffer a
/// long trace loses the process names and the app cannot be found).
pub const PROCESS_BUFFER_KB: u32 = 4 * 1024;
/// Per-CPU kernel ftrace buffer: atrace bursts during a fling overflow the
/// default on busy devices (the trace then reports lost ftrace events).
pub const FTRACE_BUFFER_KB: u32 = 4 * 1024;

pub const ATRACE_CATEGORIES: [&str; 9] =
    ["gfx", "view", "input", "am", "wm", "sched", "freq", "binder_driver", "dalvik"];
/// What a startup needs of a capture (docs/startups.md, "What a capture
/// needs"): system_server's launch events (`am`, `wm`), the app's lifecycle
/// and frames (`view`, `gfx`), class loading and GC (`dalvik`), binder
/// (`binder_driver`), and the scheduler for its critical path.
pub const STARTUP_ATRACE_CATEGORIES: [&str; 6] = ["am", "wm", "view", "gfx", "dalvik", "binder_driver"];
pub const STARTUP_FTRACE_EVENTS: [&str; 2] = ["sched/sched_switch", "sched/sched_waking"];
pub const FTRACE_EVENTS: [&str; 4] =
    ["sched/sched_switch", "sched/sched_waking", "task/task_newtask", "task/task_rename"];

// ---- prost structs (only the fields fpsan sets) ----

#[derive(Clone, PartialEq, prost::Message)]
pub struct TraceConfig {
    #[prost(message, repeated, tag = "1")]
    pub buffers: Vec<BufferConfig>,
    #[prost(message, repeated, tag = "2")]
    pub data_sources: Vec<DataSource>,
    #[prost(uint32, optional, tag = "3")]
    pub duration_ms: Option<u32>,
    #[prost(bool, optional, tag = "8")]
    pub write_into_file: Option<bool>,
    #[prost(uint32, optional, tag = "9")]
    pub file_write_period_ms: Option<u32>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct BufferConfig {
    #[prost(uint32, optional, tag = "1")]
    pub size_kb: Option<u32>,
    #[prost(enumeration = "FillPolicy", optional, tag = "4")]
    pub fill_policy: Option<i32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum FillPolicy {
    Unspecified = 0,
    RingBuffer = 1,
    Discard = 2,
}

impl FillPolicy {
    fn proto_name(self) -> &'static str {
        match self {
            FillPolicy::Unspecified => "UNSPECIFIED",
            FillPolicy::RingBuffer => "RING_BUFFER",
            FillPolicy::Discard => "DISCARD",
        }
    }
}

/// `TraceConfig.DataSource`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DataSource {
    #[prost(message, optional, tag = "1")]
    pub config: Option<DataSourceConfig>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct DataSourceConfig {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(uint32, optional, tag = "2")]
    pub target_buffer: Option<u32>,
    #[prost(message, optional, tag = "100")]
    pub ftrace_config: Option<FtraceConfig>,
    #[prost(message, optional, tag = "103")]
    pub process_stats_config: Option<ProcessStatsConfig>,
    #[prost(message, optional, tag = "128")]
    pub android_input_event_config: Option<AndroidInputEventConfig>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct FtraceConfig {
    #[prost(string, repeated, tag = "1")]
    pub ftrace_events: Vec<String>,
    #[prost(string, repeated, tag = "2")]
    pub atrace_categories: Vec<String>,
    #[prost(string, repeated, tag = "3")]
    pub atrace_apps: Vec<String>,
    #[prost(uint32, optional, tag = "10")]
    pub buffer_size_kb: Option<u32>,
    #[prost(message, optional, tag = "12")]
    pub compact_sched: Option<CompactSchedConfig>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct CompactSchedConfig {
    #[prost(bool, optional, tag = "1")]
    pub enabled: Option<bool>,
}

/// `AndroidInputEventConfig` (data source `android.input.inputevent`,
/// Android 15+ debuggable builds): InputDispatcher's own record of each
/// event and of its dispatch to each window.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AndroidInputEventConfig {
    /// `TraceMode`: [`INPUT_TRACE_MODE_USE_RULES`].
    #[prost(int32, optional, tag = "1")]
    pub mode: Option<i32>,
    #[prost(message, repeated, tag = "2")]
    pub rules: Vec<InputTraceRule>,
    #[prost(bool, optional, tag = "3")]
    pub trace_dispatcher_input_events: Option<bool>,
    #[prost(bool, optional, tag = "4")]
    pub trace_dispatcher_window_dispatch: Option<bool>,
}

/// `AndroidInputEventConfig.TraceRule`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InputTraceRule {
    /// `TraceLevel`: [`INPUT_TRACE_LEVEL_REDACTED`].
    #[prost(int32, optional, tag = "1")]
    pub trace_level: Option<i32>,
    #[prost(string, repeated, tag = "3")]
    pub match_any_packages: Vec<String>,
}

/// `AndroidInputEventConfig.TraceMode.TRACE_MODE_USE_RULES`.
pub const INPUT_TRACE_MODE_USE_RULES: i32 = 1;
/// `AndroidInputEventConfig.TraceLevel.TRACE_LEVEL_REDACTED`: timings and
/// targets, no coordinates or key codes.
pub const INPUT_TRACE_LEVEL_REDACTED: i32 = 1;

#[derive(Clone, PartialEq, prost::Message)]
pub struct ProcessStatsConfig {
    #[prost(bool, optional, tag = "2")]
    pub scan_all_processes_on_start: Option<bool>,
}

// ---- sizing and building ----

/// Main buffer size: at least `MB_PER_SEC` × secs (floored, capped), or the
/// user's `--buffer-mb`.
pub fn buffer_mb(secs: u32, override_mb: Option<u32>) -> u32 {
    override_mb.unwrap_or_else(|| secs.saturating_mul(MB_PER_SEC).clamp(MIN_BUFFER_MB, MAX_BUFFER_MB))
}

/// How often traced drains the buffer into the file when it cannot hold the
/// whole capture: every time about half of it fills at `MB_PER_SEC`
/// (buffer_mb / (2 × 5) s), within perfetto's sensible range.
pub fn file_write_period_ms(buffer_mb: u32) -> u32 {
    buffer_mb.saturating_mul(1000 / (2 * MB_PER_SEC)).clamp(500, 5000)
}

/// The config for tracing `app` for `secs` seconds.
pub fn build(app: &str, secs: u32, buffer_override_mb: Option<u32>) -> TraceConfig {
    let main_mb = buffer_mb(secs, buffer_override_mb);
    // Stream to the file only when the ring buffer cannot keep the whole
    // capture: a short trace then costs no device I/O while it runs.
    let stream = main_mb < secs.saturating_mul(MB_PER_SEC);
    let strings = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    TraceConfig {
        buffers: vec![
            BufferConfig {
                size_kb: Some(main_mb.saturating_mul(1024)),
                fill_policy: Some(FillPolicy::RingBuffer as i32),
            },
            BufferConfig { size_kb: Some(PROCESS_BUFFER_KB), fill_policy: Some(FillPolicy::Discard as i32) },
        ],
        data_sources: vec![
            DataSource {
                config: Some(DataSourceConfig {
                    name: Some("linux.ftrace".into()),
                    target_buffer: Some(0),
                    ftrace_config: Some(FtraceConfig {
                        ftrace_events: strings(&FTRACE_EVENTS),
                        atrace_categories: strings(&ATRACE_CATEGORIES),
                        atrace_apps: vec![app.to_string()],
                        buffer_size_kb: Some(FTRACE_BUFFER_KB),
                        compact_sched: Some(CompactSchedConfig { enabled: Some(true) }),
                    }),
                    process_stats_config: None,
                    android_input_event_config: None,
                }),
            },
            DataSource {
                config: Some(DataSourceConfig {
                    name: Some("linux.process_stats".into()),
                    target_buffer: Some(1),
                    ftrace_config: None,
                    process_stats_config: Some(ProcessStatsConfig { scan_all_processes_on_start: Some(true) }),
                    android_input_event_config: None,
                }),
            },
            // Android 12+; older perfetto skips a data source it does not know.
            DataSource {
                config: Some(DataSourceConfig {
                    name: Some("android.surfaceflinger.frametimeline".into()),
                    target_buffer: Some(0),
                    ftrace_config: None,
                    process_stats_config: None,
                    android_input_event_config: None,
                }),
            },
            // InputDispatcher's own input trace (docs/input.md): Android 15+
            // debuggable builds register it, others skip it. Redacted, and
            // only the app's events.
            DataSource {
                config: Some(DataSourceConfig {
                    name: Some("android.input.inputevent".into()),
                    target_buffer: Some(0),
                    ftrace_config: None,
                    process_stats_config: None,
                    android_input_event_config: Some(AndroidInputEventConfig {
                        mode: Some(INPUT_TRACE_MODE_USE_RULES),
                        rules: vec![InputTraceRule {
                            trace_level: Some(INPUT_TRACE_LEVEL_REDACTED),
                            match_any_packages: vec![app.to_string()],
                        }],
                        trace_dispatcher_input_events: Some(true),
                        trace_dispatcher_window_dispatch: Some(true),
                    }),
                }),
            },
        ],
        duration_ms: Some(secs.saturating_mul(1000)),
        write_into_file: stream.then_some(true),
        file_write_period_ms: stream.then(|| file_write_period_ms(main_mb)),
    }
}

/// The binary encoding perfetto reads with `-c -`.
pub fn encode(config: &TraceConfig) -> Vec<u8> {
    prost::Message::encode_to_vec(config)
}

// ---- text-proto rendering ----

struct Text {
    out: String,
    depth: usize,
}

impl Text {
    fn line(&mut self, s: &str) {
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }
    fn open(&mut self, name: &str) {
        self.line(&format!("{name} {{"));
        self.depth += 1;
    }
    fn close(&mut self) {
        self.depth -= 1;
        self.line("}");
    }
    fn raw(&mut self, name: &str, value: impl std::fmt::Display) {
        self.line(&format!("{name}: {value}"));
    }
    fn opt(&mut self, name: &str, value: Option<impl std::fmt::Display>) {
        if let Some(v) = value {
            self.raw(name, v);
        }
    }
    fn string(&mut self, name: &str, value: &str) {
        let mut quoted = String::with_capacity(value.len() + 2);
        quoted.push('"');
        for c in value.chars() {
            match c {
                '"' => quoted.push_str("\\\""),
                '\\' => quoted.push_str("\\\\"),
                '\n' => quoted.push_str("\\n"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(quoted, "\\{:03o}", c as u32);
                }
                c => quoted.push(c),
            }
        }
        quoted.push('"');
        self.raw(name, quoted);
    }
}

/// The config as protobuf text format, field by field in tag order.
pub fn render_text(config: &TraceConfig) -> String {
    let mut t = Text { out: String::new(), depth: 0 };
    for b in &config.buffers {
        t.open("buffers");
        t.opt("size_kb", b.size_kb);
        if let Some(p) = b.fill_policy {
            match FillPolicy::try_from(p) {
                Ok(p) => t.raw("fill_policy", p.proto_name()),
                Err(_) => t.raw("fill_policy", p),
            }
        }
        t.close();
    }
    for ds in &config.data_sources {
        t.open("data_sources");
        if let Some(c) = &ds.config {
            t.open("config");
            if let Some(name) = &c.name {
                t.string("name", name);
            }
            t.opt("target_buffer", c.target_buffer);
            if let Some(f) = &c.ftrace_config {
                t.open("ftrace_config");
                for e in &f.ftrace_events {
                    t.string("ftrace_events", e);
                }
                for cat in &f.atrace_categories {
                    t.string("atrace_categories", cat);
                }
                for app in &f.atrace_apps {
                    t.string("atrace_apps", app);
                }
                t.opt("buffer_size_kb", f.buffer_size_kb);
                if let Some(cs) = &f.compact_sched {
                    t.open("compact_sched");
                    t.opt("enabled", cs.enabled);
                    t.close();
                }
                t.close();
            }
            if let Some(p) = &c.process_stats_config {
                t.open("process_stats_config");
                t.opt("scan_all_processes_on_start", p.scan_all_processes_on_start);
                t.close();
            }
            if let Some(i) = &c.android_input_event_config {
                t.open("android_input_event_config");
                if i.mode == Some(INPUT_TRACE_MODE_USE_RULES) {
                    t.raw("mode", "TRACE_MODE_USE_RULES");
                }
                for r in &i.rules {
                    t.open("rules");
                    if r.trace_level == Some(INPUT_TRACE_LEVEL_REDACTED) {
                        t.raw("trace_level", "TRACE_LEVEL_REDACTED");
                    }
                    for p in &r.match_any_packages {
                        t.string("match_any_packages", p);
                    }
                    t.close();
                }
                t.opt("trace_dispatcher_input_events", i.trace_dispatcher_input_events);
                t.opt("trace_dispatcher_window_dispatch", i.trace_dispatcher_window_dispatch);
                t.close();
            }
            t.close();
        }
        t.close();
    }
    t.opt("duration_ms", config.duration_ms);
    t.opt("write_into_file", config.write_into_file);
    t.opt("file_write_period_ms", config.file_write_period_ms);
    t.out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `capture --launch` records what a startup needs: every config fpsan
    /// writes has the categories and events (docs/startups.md).
    #[test]
    fn captures_record_what_startups_need() {
        let config = build("com.example.app", 20, None);
        let ftrace =
            config.data_sources.iter().find_map(|d| d.config.as_ref()?.ftrace_config.as_ref()).expect("ftrace");
        for c in STARTUP_ATRACE_CATEGORIES {
            assert!(ftrace.atrace_categories.iter().any(|x| x == c), "{c}");
        }
        for e in STARTUP_FTRACE_EVENTS {
            assert!(ftrace.ftrace_events.iter().any(|x| x == e), "{e}");
        }
    }

    /// Every capture records what the input events need (docs/input.md):
    /// the `input` and `view` categories, and InputDispatcher's own trace
    /// of the app's events, redacted.
    #[test]
    fn captures_record_what_input_events_need() {
        let config = build("com.example.app", 20, None);
        let ftrace =
            config.data_sources.iter().find_map(|d| d.config.as_ref()?.ftrace_config.as_ref()).expect("ftrace");
        for c in ["input", "view"] {
            assert!(ftrace.atrace_categories.iter().any(|x| x == c), "{c}");
        }
        let input = config
            .data_sources
            .iter()
            .filter_map(|d| d.config.as_ref())
            .find(|c| c.name.as_deref() == Some("android.input.inputevent"))
            .and_then(|c| c.android_input_event_config.as_ref())
            .expect("android.input.inputevent");
        assert_eq!(input.rules[0].match_any_packages, ["com.example.app"]);
        let text = render_text(&config);
        assert!(text.contains("mode: TRACE_MODE_USE_RULES"), "{text}");
        assert!(text.contains("trace_level: TRACE_LEVEL_REDACTED"), "{text}");
    }

    #[test]
    fn buffer_sizing() {
        assert_eq!(buffer_mb(1, None), 16); // floor
        assert_eq!(buffer_mb(30, None), 150); // 5 MB/s × 30 s
        assert_eq!(buffer_mb(51, None), 255);
        assert_eq!(buffer_mb(52, None), 256); // cap
        assert_eq!(buffer_mb(600, None), 256);
        assert_eq!(buffer_mb(600, Some(64)), 64);
        assert_eq!(file_write_period_ms(256), 5000);
        assert_eq!(file_write_period_ms(8), 800);
        assert_eq!(file_write_period_ms(2), 500);
    }

    #[test]
    fn streams_only_when_the_buffer_is_too_small() {
        let short = build("a.b", 30, None);
        assert_eq!(short.write_into_file, None);
        assert_eq!(short.file_write_period_ms, None);
        let long = build("a.b", 120, None);
        assert_eq!(long.write_into_file, Some(true));
        assert_eq!(long.file_write_period_ms, Some(5000));
        let small = build("a.b", 10, Some(8));
        assert_eq!(small.write_into_file, Some(true));
        assert_eq!(small.file_write_period_ms, Some(800));
    }

    #[test]
    fn encoding_starts_with_the_first_buffer() {
        let bytes = encode(&build("a.b", 1, None));
        // field 1 (buffers), wire type 2 → key 0x0a; the BufferConfig is
        // size_kb (0x08, varint 16384 = 0x80 0x80 0x01) + fill_policy (0x20 0x01).
        assert_eq!(&bytes[..8], &[0x0a, 0x06, 0x08, 0x80, 0x80, 0x01, 0x20, 0x01]);
    }

    #[test]
    fn text_escapes_strings() {
        let mut t = Text { out: String::new(), depth: 1 };
        t.string("name", "a\"b\\c\nd\u{1}");
        assert_eq!(t.out, "  name: \"a\\\"b\\\\c\\nd\\001\"\n");
    }
}
