//! Numbers and names for people, shared by every output (hyperfine's
//! `output/format.rs` is the model): milliseconds, durations, sizes, counts,
//! percentages, refresh rates and app names, each formatted in one place.
//! Where the terminal table and the HTML report / charts differ (ASCII `-`
//! vs `–` for a missing value, `16.7` under a `ms` header vs `16.7 ms`,
//! `?` vs `pid 42` for an unnamed app) both forms are here, named for what
//! they print.

use crate::frames::FramePart;
use crate::metrics::{AppSummary, Vitals};

/// A missing value in the HTML report and the charts.
pub(crate) const NONE: &str = "–";
/// A missing value in the terminal table (ASCII).
pub(crate) const NONE_ASCII: &str = "-";

// ---------------------------------------------------------------------------
// Units

/// Nanoseconds as (fractional) milliseconds.
pub(crate) fn ns_to_ms(ns: i64) -> f64 {
    ns as f64 / 1e6
}

/// Seconds from `origin_ts` to `ts`.
pub(crate) fn secs_since(ts: i64, origin_ts: i64) -> f64 {
    (ts - origin_ts) as f64 / 1e9
}

// ---------------------------------------------------------------------------
// Times

/// `16.7 ms`.
pub(crate) fn fmt_ms(ns: i64) -> String {
    format!("{:.1} ms", ns_to_ms(ns))
}

/// `16.7 ms`, or `–` when there is no value.
pub(crate) fn fmt_opt_ms(ns: Option<i64>) -> String {
    ns.map(fmt_ms).unwrap_or_else(|| NONE.into())
}

/// `16.7`: milliseconds without the unit, for columns whose header says `ms`.
pub(crate) fn fmt_ms_value(ns: i64) -> String {
    format!("{:.1}", ns_to_ms(ns))
}

/// `16.7`, or `-` when there is no value (the terminal table).
pub(crate) fn fmt_opt_ms_value(ns: Option<i64>) -> String {
    ns.map(fmt_ms_value).unwrap_or_else(|| NONE_ASCII.into())
}

/// Milliseconds for the ticks of a log axis (1, 2, … 9 times a power of
/// ten, so labels differ): no decimals from 10 ms up. Linear axes use
/// `charts::draw::Ticks`.
pub(crate) fn fmt_ms_tick(v: f64) -> String {
    if v.abs() >= 10.0 || v == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// `12.3 s`, or `850.0 ms` under a second.
pub(crate) fn fmt_duration(ns: i64) -> String {
    if ns.abs() >= 1_000_000_000 {
        format!("{:.1} s", ns as f64 / 1e9)
    } else {
        fmt_ms(ns)
    }
}

// ---------------------------------------------------------------------------
// Sizes, counts, rates

/// `1.2 MB` / `3.4 kB`.
pub(crate) fn fmt_size(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / (1u64 << 20) as f64)
    } else {
        format!("{:.1} kB", bytes as f64 / 1024.0)
    }
}

/// `1,234,567`.
pub(crate) fn fmt_count(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// `name value` pairs joined by `, `: `chunks_discarded 3, ftrace_overrun 1`.
pub(crate) fn fmt_pairs<K: std::fmt::Display, V: std::fmt::Display>(items: impl IntoIterator<Item = (K, V)>) -> String {
    items.into_iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
}

/// Idle spans: `3 (1.5 s)`, or `none`.
pub(crate) fn fmt_idle(idle: &crate::presents::IdleSpans) -> String {
    if idle.count == 0 {
        "none".into()
    } else {
        format!("{} ({})", idle.count, fmt_duration(idle.total_ns))
    }
}

/// FrameTimeline's verdict on an app: `61 janky of 739 actual frames`; None
/// when the app has no actual surface frame.
pub(crate) fn fmt_timeline_janky(j: &crate::metrics::Jank) -> Option<String> {
    (j.frame_timeline_frames > 0)
        .then(|| format!("{} janky of {} actual frames", j.frame_timeline_janky, j.frame_timeline_frames))
}

/// `59.6`.
pub(crate) fn fmt_fps(fps: f64) -> String {
    format!("{fps:.1}")
}

/// `12.5%` from a percentage.
pub(crate) fn fmt_pct(pct: f64) -> String {
    format!("{pct:.1}%")
}

/// `0.25%` from a percentage, with two decimals for shares that are
/// usually small (frozen frames, PerfDog stutter).
pub(crate) fn fmt_small_pct(pct: f64) -> String {
    format!("{pct:.2}%")
}

/// `n` as a share of `total`: `12.5%` (`–` when total is 0).
pub(crate) fn fmt_share(n: i64, total: i64) -> String {
    if total > 0 {
        fmt_pct(100.0 * n as f64 / total as f64)
    } else {
        NONE.into()
    }
}

/// `60 Hz`.
pub(crate) fn fmt_hz(hz: f64) -> String {
    format!("{hz:.0} Hz")
}

/// Distinct refresh rates rounded to 1 Hz, ascending: `60 Hz`, `60/120 Hz`;
/// None without any.
pub(crate) fn fmt_rates(hz: impl IntoIterator<Item = f64>) -> Option<String> {
    let mut rates: Vec<i64> = hz.into_iter().map(|v| v.round() as i64).collect();
    rates.sort_unstable();
    rates.dedup();
    if rates.is_empty() {
        return None;
    }
    Some(format!("{} Hz", rates.iter().map(|r| r.to_string()).collect::<Vec<_>>().join("/")))
}

// ---------------------------------------------------------------------------
// Names and words

/// The app's display name: its process name, else `pid 42` (HTML, charts).
pub(crate) fn app_name(app: &AppSummary) -> String {
    match &app.process {
        Some(p) => p.clone(),
        None => format!("pid {}", app.pid),
    }
}

/// `pid 42`, or `pid 42, named by its layer` when the trace does not name
/// the process (docs/presents.md, "Apps named by their layers").
pub(crate) fn pid_note(app: &AppSummary) -> String {
    match app.process_source.and_then(|s| s.note()) {
        Some(note) => format!("pid {}, {note}", app.pid),
        None => format!("pid {}", app.pid),
    }
}

/// The app's process name, `?` when unknown (the terminal table).
pub(crate) fn process_name(app: &AppSummary) -> &str {
    app.process.as_deref().unwrap_or("?")
}

/// `com.example.app-4242`: the file-name prefix of an app's charts, with
/// every character outside `[A-Za-z0-9._-]` replaced by `_`.
pub(crate) fn app_slug(app: &AppSummary) -> String {
    let name: String = app
        .process
        .as_deref()
        .unwrap_or("pid")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' })
        .collect();
    format!("{name}-{}", app.pid)
}

/// A frame part in words: `start jitter`, `traversal`.
pub(crate) fn part_words(part: FramePart) -> String {
    part.as_str().replace('_', " ")
}

/// Which Android vitals thresholds the app exceeds: `slow and frozen`,
/// `slow`, `frozen`; None when neither.
pub(crate) fn vitals_excessive(v: &Vitals) -> Option<&'static str> {
    match (v.excessive_slow, v.excessive_frozen) {
        (true, true) => Some("slow and frozen"),
        (true, false) => Some("slow"),
        (false, true) => Some("frozen"),
        (false, false) => None,
    }
}

/// Android release of an API level (`36` → `Android 16 (API 36)`); from the
/// build fingerprint (`…:14/…`) when the level is unknown.
pub(crate) fn android_version(sdk: Option<u64>, fingerprint: Option<&str>) -> Option<String> {
    let release = |sdk: u64| -> Option<&'static str> {
        Some(match sdk {
            37 => "17",
            36 => "16",
            35 => "15",
            34 => "14",
            33 => "13",
            32 => "12L",
            31 => "12",
            30 => "11",
            29 => "10",
            28 => "9",
            27 => "8.1",
            26 => "8.0",
            25 => "7.1",
            24 => "7.0",
            23 => "6.0",
            _ => return None,
        })
    };
    if let Some(s) = sdk {
        return Some(match release(s) {
            Some(r) => format!("Android {r} (API {s})"),
            None => format!("API {s}"),
        });
    }
    // brand/product/device:RELEASE/ID/INCREMENTAL:type/tags
    let rel = fingerprint?.split(':').nth(1)?.split('/').next()?;
    (!rel.is_empty()).then(|| format!("Android {rel}"))
}

/// The widest a name from the trace (a slice, scene or CUJ name) is shown in
/// the terminal's tables, in characters, ellipsis included: one long name
/// must not widen every row (JSON, CSV and the HTML report keep names whole).
pub(crate) const TERMINAL_NAME_CHARS: usize = 48;

/// Shorten a label to `max` characters, keeping its start (slice names say
/// what they are first: `VRI[Main]-relayoutWindow#first=true/…`).
pub(crate) fn shorten_head(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let head: String = s.chars().take(max - 1).collect();
    format!("{head}…")
}

/// Shorten a label to `max` characters, keeping its end (where activity and
/// class names differ) behind an ellipsis.
pub(crate) fn shorten(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let tail: String = s.chars().skip(n - (max - 1)).collect();
    format!("…{tail}")
}

/// Shorten a label to `max` characters, its middle replaced by `…`: layer
/// names say what they are first (`SurfaceView - PKG/…`) and which
/// instance last (`…Activity#0`).
pub(crate) fn shorten_middle(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max || max == 0 {
        return s.to_string();
    }
    let head = (max - 1) / 2;
    let tail = max - 1 - head;
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

/// A startup's main-thread milestones in one line (the terminal and
/// report.html): `before the app 157.4 ms, bindApplication 2616.4 ms (98%
/// asleep), …`; a milestone the main thread slept through most of says so.
pub(crate) fn startup_steps(why: &crate::startups::StartupWhy) -> String {
    let mut steps = vec![format!("{} {} ms", crate::startups::BEFORE_APP, fmt_ms_value(why.before_app_ns))];
    for m in &why.milestones {
        let asleep = m.thread_state.as_ref().map_or(String::new(), |t| {
            let off = t.sleeping_ns + t.blocked_ns;
            if m.dur_ns > 0 && off * 2 > m.dur_ns {
                format!(" ({:.0}% asleep)", 100.0 * off as f64 / m.dur_ns as f64)
            } else {
                String::new()
            }
        });
        steps.push(format!("{} {} ms{asleep}", m.name, fmt_ms_value(m.dur_ns)));
    }
    steps.join(", ")
}

/// Matrix's StartupTracer costs of a startup in one line, mapped to the
/// nearest trace events: `Matrix coldCost 3253.7 ms (applicationCost
/// 2616.4 ms; threshold 10000 ms)`, ` — over it` when Matrix would report it.
pub(crate) fn startup_matrix(why: &crate::startups::StartupWhy) -> Option<String> {
    let m = why.matrix.as_ref()?;
    let (name, cost) = match (m.cold_cost_ns, m.warm_cost_ns) {
        (Some(c), _) => ("coldCost", c),
        (None, Some(w)) => ("warmCost", w),
        (None, None) => return None,
    };
    let app = m.application_cost_ns.map_or(String::new(), |a| format!("applicationCost {} ms; ", fmt_ms_value(a)));
    let over = if m.over_threshold { " — over it" } else { "" };
    Some(format!("Matrix {name} {} ms ({app}threshold {} ms){over}", fmt_ms_value(cost), m.threshold_ms))
}

/// What a startup's causes run up to: `TTID`, else `its end`.
pub(crate) fn startup_until(s: &crate::startups::Startup) -> &'static str {
    if s.ttid.is_some() {
        "TTID"
    } else {
        "its end"
    }
}

/// A startup's causes in one line: `ImageLoader.init (main thread) 1200.6
/// ms, RenderThread 7442 outside its slices 235.5 ms, …`; slice names cut to
/// `max_chars` (report.html keeps them whole: `usize::MAX`).
pub(crate) fn startup_causes(why: &crate::startups::StartupWhy, max_chars: usize) -> String {
    let causes: Vec<String> = why
        .causes
        .iter()
        .map(|c| {
            let thread = if c.tid == why.main_tid {
                "main thread".to_string()
            } else {
                c.thread.as_deref().map_or_else(|| format!("tid {}", c.tid), |n| format!("{n} {}", c.tid))
            };
            match &c.slice {
                Some(slice) => format!("{} ({thread}) {} ms", shorten_head(slice, max_chars), fmt_ms_value(c.ns)),
                None => format!("{thread} outside its slices {} ms", fmt_ms_value(c.ns)),
            }
        })
        .collect();
    causes.join(", ")
}

/// A rate per minute (blocks per minute), one decimal; `-` when undefined.
pub(crate) fn fmt_per_min(v: Option<f64>) -> String {
    v.map_or_else(|| NONE_ASCII.to_string(), |v| format!("{v:.1}"))
}

/// A block's title: `openAndQueryOnUiThread (com.example.dbui 11377)`, the
/// name cut to `max_chars`; an untraced block says so.
pub(crate) fn block_title(b: &crate::blocks::Block, max_chars: usize) -> String {
    let process = b.process.as_deref().map_or_else(|| format!("pid {}", b.pid), |p| format!("{p} {}", b.pid));
    match b.kind {
        crate::blocks::BlockKind::Slice => format!("{} ({process})", shorten_head(&b.name, max_chars)),
        crate::blocks::BlockKind::Untraced => format!("untraced work, no slice open ({process})"),
    }
}

/// A block's main-thread states and what it held up, one line: `running
/// 257.6 ms, runnable 2.7 ms, sleeping 1.8 ms, in D (I/O) 66.2 ms; 20
/// vsyncs, 1 frame delayed, 22 dropped`; a state the thread was never in is
/// left out, the states altogether without scheduler data.
pub(crate) fn block_states(b: &crate::blocks::Block) -> String {
    let states =
        [("running", b.cpu_ns), ("runnable", b.runnable_ns), ("sleeping", b.sleeping_ns), ("in D (I/O)", b.io_ns)];
    let mut parts: Vec<String> = states
        .iter()
        .filter_map(|&(name, ns)| ns.filter(|&v| v > 0).map(|v| format!("{name} {} ms", fmt_ms_value(v))))
        .collect();
    if b.cpu_ns.is_none() {
        parts.push("no scheduler data".into());
    }
    let mut line = parts.join(", ");
    if let (Some(vsyncs), Some(delayed), Some(dropped)) = (b.vsyncs, b.frames_delayed, b.frames_dropped) {
        let frames = match (delayed, dropped) {
            (0, _) => "no frame delayed".to_string(),
            (1, 0) => "1 frame delayed".to_string(),
            (d, 0) => format!("{d} frames delayed"),
            (1, x) => format!("1 frame delayed, {x} dropped"),
            (d, x) => format!("{d} frames delayed, {x} dropped"),
        };
        line.push_str(&format!("; {vsyncs} vsync{}, {frames}", if vsyncs == 1 { "" } else { "s" }));
    }
    line
}

/// The slices with the most self time inside a block, one line:
/// `Decoding 48x48 bitmap 74.5 ms (×3), inflate 12.0 ms`; names cut to
/// `max_chars`; empty without them.
pub(crate) fn block_methods(b: &crate::blocks::Block, max_chars: usize) -> String {
    let Some(why) = &b.why else { return String::new() };
    let methods: Vec<String> = why
        .methods
        .iter()
        .map(|m| {
            let times = if m.count > 1 { format!(" (×{})", m.count) } else { String::new() };
            format!("{} {} ms{times}", shorten_head(&m.name, max_chars), fmt_ms_value(m.self_ns))
        })
        .collect();
    methods.join(", ")
}

// ---------------------------------------------------------------------------
// Input (docs/input.md)

/// The input section's column heads, the terminal's and report.html's.
pub(crate) const INPUT_HEADERS: [&str; 12] = [
    "process",
    "pid",
    "events",
    "gestures",
    "handling p50 ms",
    "p90",
    "max",
    "end-to-end p50 ms",
    "p90",
    "max",
    "touch→frame p50 ms",
    "delayed frames",
];

/// One app's cells under [`INPUT_HEADERS`].
pub(crate) fn input_cells(s: &crate::input::InputSummary, max_chars: usize) -> Vec<String> {
    let p = |v: &crate::series::Percentiles| [v.p50, v.p90, v.max].map(fmt_opt_ms_value);
    let mut row = vec![shorten_head(s.process.as_deref().unwrap_or(NONE_ASCII), max_chars), s.pid.to_string()];
    row.extend([s.events.to_string(), s.gestures.to_string()]);
    row.extend(p(&s.handling_ns));
    row.extend(p(&s.end_to_end_ns));
    row.push(fmt_opt_ms_value(s.touch_to_first_frame_ns.p50));
    row.push(fmt_delayed(s.delayed_frames, s.judged_presents, NONE_ASCII));
    row
}

/// `1 of 5 (20.0%)`: delayed frames of the presents judged; `none` with none judged.
pub(crate) fn fmt_delayed(delayed: i64, judged: i64, none: &str) -> String {
    match crate::input::gestures::delayed_pct(delayed, judged) {
        Some(pct) => format!("{delayed} of {judged} ({})", fmt_pct(pct)),
        None => none.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatting() {
        assert_eq!(fmt_ms(16_666_667), "16.7 ms");
        assert_eq!(fmt_ms(-8_860_000), "-8.9 ms");
        assert_eq!(fmt_opt_ms(None), "–");
        assert_eq!(fmt_ms_value(16_666_667), "16.7");
        assert_eq!(fmt_opt_ms_value(None), "-");
        assert_eq!(fmt_fps(59.96), "60.0");
        assert_eq!(fmt_pct(12.345), "12.3%");
        assert_eq!(fmt_small_pct(0.126), "0.13%");
        assert_eq!(fmt_share(1, 4), "25.0%");
        assert_eq!(fmt_share(1, 0), "–");
        assert_eq!(fmt_count(0), "0");
        assert_eq!(fmt_count(999), "999");
        assert_eq!(fmt_count(1_234_567), "1,234,567");
        assert_eq!(fmt_count(-1000), "-1,000");
        assert_eq!(fmt_duration(7_720_000_000), "7.7 s");
        assert_eq!(fmt_duration(316_666_667), "316.7 ms");
        assert_eq!(fmt_size(1536), "1.5 kB");
        assert_eq!(fmt_size(3 << 20), "3.0 MB");
        assert_eq!(fmt_hz(59.94), "60 Hz");
        assert_eq!(fmt_rates([120.2, 60.0, 59.9]).as_deref(), Some("60/120 Hz"));
        assert_eq!(fmt_rates([]), None);
        assert_eq!(fmt_pairs([("a", 1), ("b", 2)]), "a 1, b 2");
        assert_eq!(fmt_ms_tick(16.0), "16");
        assert_eq!(fmt_ms_tick(2.5), "2.5");
        assert_eq!(android_version(Some(36), None).as_deref(), Some("Android 16 (API 36)"));
        assert_eq!(android_version(Some(32), None).as_deref(), Some("Android 12L (API 32)"));
        assert_eq!(android_version(Some(99), None).as_deref(), Some("API 99"));
        assert_eq!(
            android_version(None, Some("google/tokay/tokay:15/AP4A/123:user/release-keys")).as_deref(),
            Some("Android 15")
        );
        assert_eq!(android_version(None, Some("garbage")), None);
        assert_eq!(android_version(None, None), None);
        assert_eq!(shorten("com.example.app/.MainActivity", 12), "…ainActivity");
        assert_eq!(shorten_head("VRI[Main]-relayoutWindow#first=true", 12), "VRI[Main]-r…");
        assert_eq!(shorten_middle("SurfaceView - com.a/com.a.Main#0", 12), "Surfa…Main#0");
        assert_eq!(shorten_middle("short", 12), "short");
        assert_eq!(shorten_middle("anything", 0), "anything");
    }

    #[test]
    fn app_names() {
        let mut a = crate::report::fixture::two_apps().apps[0].clone();
        a.pid = 42;
        a.process = Some("com.a:remote/x".into());
        assert_eq!(
            (app_name(&a), process_name(&a), app_slug(&a)),
            ("com.a:remote/x".into(), "com.a:remote/x", "com.a_remote_x-42".into())
        );
        a.process = None;
        assert_eq!((app_name(&a), process_name(&a), app_slug(&a)), ("pid 42".into(), "?", "pid-42".into()));
        a.process_source = Some(crate::presents::NameSource::Process);
        assert_eq!(pid_note(&a), "pid 42");
        a.process_source = Some(crate::presents::NameSource::Layer);
        assert_eq!(pid_note(&a), "pid 42, named by its layer");
    }
}
