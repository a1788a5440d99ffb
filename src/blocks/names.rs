//! Slice names made comparable, as trace_processor's stdlib function
//! `android_standardize_slice_name` (module `android.slices`, v58) makes
//! them: parameters (lock owners, frame numbers, APK paths, Handler
//! callbacks' lambdas, hex and decimal ids) replaced by a fixed text, so
//! blocks of the same kind aggregate under one name (docs/blocks.md, "Names").
//!
//! The rules are SQLite `GLOB` patterns tried in order; their rewrites use
//! SQLite's `substr` and `instr`, whose edge cases (position 0, negative
//! lengths) are reproduced here, and `__intrinsic_strip_hex`. The
//! integration test `blocks` holds this equal to trace_processor's function
//! on every slice name of the real traces.

use std::borrow::Cow;

/// What a matching rule makes of a name.
#[derive(Clone, Copy)]
enum Rewrite {
    /// This text.
    Fixed(&'static str),
    /// A computed text.
    With(fn(&str) -> String),
}

use Rewrite::{Fixed, With};

/// `android_standardize_slice_name`'s cases, in its order, before the
/// vsync cases (which it tries on the lowercased name).
const RULES: &[(&str, Rewrite)] = &[
    ("monitor contention with*", Fixed("monitor contention with <...>")),
    ("SuspendThreadByThreadId*", Fixed("SuspendThreadByThreadId <...>")),
    ("LoadApkAssetsFd*", Fixed("LoadApkAssetsFd <...>")),
    ("relayoutWindow*", Fixed("relayoutWindow <...>")),
    ("android.os.Handler: kotlinx.coroutines*", Fixed("CoroutineContinuation")),
    ("Choreographer#doFrame*", Fixed("Choreographer#doFrame")),
    ("DrawFrames*", Fixed("DrawFrames")),
    ("drawLayer [[]*[]]*", With(|n| substr(n, 1, Some(instr(n, "]"))))),
    ("Texture upload*", Fixed("Texture upload")),
    ("AssetManager::OpenNonAsset*", Fixed("AssetManager::OpenNonAsset <...>")),
    ("AssetManager::OpenXmlAsset*", Fixed("AssetManager::OpenXmlAsset <...>")),
    ("AssetManager::OpenAsset*", Fixed("AssetManager::OpenAsset <...>")),
    ("*AssetInputStream*", Fixed("AssetInputStream")),
    ("openTypedAssetFile*", Fixed("openTypedAssetFile <...>")),
    ("LoadApkAssets*", Fixed("LoadApkAssets <...>")),
    ("*AssetLoader:*", Fixed("AssetLoader: <...>")),
    ("JIT compiling*", Fixed("JIT compiling")),
    ("requested config :*", Fixed("requested config : <...>")),
    ("/data/app*.apk", Fixed("APK load")),
    ("OpenDexFilesFromOat*", Fixed("OpenDexFilesFromOat")),
    ("Open oat file*", Fixed("Open oat file")),
    ("Open dex file*", Fixed("Open dex file")),
    ("VdexFile*", Fixed("VdexFile")),
    ("GC: Wait For*", Fixed("Garbage Collector")),
    ("prepareDispatchCycleLocked*", Fixed("prepareDispatchCycleLocked <...>")),
    (
        "enqueueDispatchEntryAndStartDispatchCycleLocked*",
        Fixed("enqueueDispatchEntryAndStartDispatchCycleLocked <...>"),
    ),
    ("Layers: *", Fixed("Layers: <...>")),
    (
        "* SurfaceView*(BLAST)#*",
        With(|n| {
            let at = instr(n, "SurfaceView");
            substr(n, at, Some(instr(n, "#") - at))
        }),
    ),
    ("uid=*", Fixed("uid = <...>")),
    ("wakeupap=*", Fixed("wakeupap = <...>")),
    ("launchingActivity#*", Fixed("launchingActivity#<...>")),
    ("updateUidStateUL*", Fixed("updateUidStateUL <...>")),
    ("Wakelock(epolld*", With(|n| wakelock(n, "epolld"))),
    ("Wakelock(epollm*", With(|n| wakelock(n, "epollm"))),
    ("cpuhp*", Fixed("cpuhp<...>")),
    ("atc*", Fixed("atc<...>")),
    ("[0-9]* Alarm:*", Fixed("Alarm: <...>")),
    ("[0-9]* Wifi:*", Fixed("Wifi: <...>")),
    ("[0-9]* Sensor:*", Fixed("Sensor: <...>")),
    ("*Cellular_data*", Fixed("Cellular_data <...>")),
    ("*GET_ACTIVITY_INFO ModemActivityInfo*", Fixed("<...>GET_ACTIVITY_INFO ModemActivityInfo <...>")),
    ("UNSOL_SIGNAL_STRENGTH*", Fixed("UNSOL_SIGNAL_STRENGTH <...>")),
    ("*GET_CELL_INFO_LIST*", Fixed("<...> GET_CELL_INFO_LIST <...>")),
    ("*VOICE_REGISTRATION_STATE*", Fixed("<...> VOICE_REGISTRATION_STATE <...>")),
    ("*DATA_REGISTRATION_STATE*", Fixed("<...> DATA_REGISTRATION_STATE <...>")),
    ("InputConsumer processing on ClientState*", Fixed("InputConsumer processing on ClientState<...>")),
    (
        "Transaction (Thread-*, *)",
        With(|n| format!("{}Thread-<...>,{}", substr(n, 1, Some(instr(n, "("))), from_char(n, ","))),
    ),
    ("Transaction (*, *)", With(|n| format!("{}<...>)", substr(n, 1, Some(instr(n, ",") + 1))))),
    ("Lock contention on* (*", With(|n| format!("{}<...>", substr(n, 0, Some(instr(n, "(")))))),
    // A Handler's message: the callback's class, without its lambda.
    ("*Handler: *$*", With(|n| remove_lambda(&substr(n, instr(n, "Handler:"), None)))),
    // `substr(name, ": ")` in the SQL is `substr(name, 0)`: the whole name.
    ("*.*.*: *$*", With(|n| format!("Handler: {}", remove_lambda(n)))),
    ("*.*$*: #*", With(|n| format!("Handler: {}", remove_lambda(n)))),
    ("deliverInputEvent*", Fixed("deliverInputEvent <...>")),
];

/// `_standardize_vsync_slice_name`'s cases, tried on names whose lowercase
/// holds "vsync".
const VSYNC_RULES: &[(&str, Rewrite)] = &[
    ("beginFrame*", Fixed("beginFrame <...>")),
    ("frameIsEarly*", Fixed("frameIsEarly <...>")),
    ("*vsync*in*", Fixed("vsync in <...>")),
    ("present for*vsyncIn*", Fixed("present for vsync in <...>")),
    ("wait for earliest present time*", Fixed("wait for earliest present time <vsync>")),
    ("present for Common Panel*", Fixed("present for Common Panel")),
    ("frameTimelineInfo*", Fixed("frameTimelineInfo <...>")),
    ("*setFrameTimelineInfo*", Fixed("setFrameTimelineInfo <...>")),
    ("*AChoreographer_vsyncCallback*", Fixed("AChoreographer_vsyncCallback <...>")),
    ("unsync-vsync-id=* isSfChoreo=false", Fixed("unsync-vsync-id=<...> isSfChoreo=false")),
    ("unsync-vsync-id=* isSfChoreo=true", Fixed("unsync-vsync-id=<...> isSfChoreo=true")),
    ("Discarding old vsync*", Fixed("Discarding old vsync")),
    ("setDisplayModePtr*", Fixed("setDisplayModePtr")),
    ("adjusting vsync by*", Fixed("adjusting vsync by <...>")),
    ("Not-Adjusting vsync by*", Fixed("Not-Adjusting vsync by <...>")),
    ("dropping stale frameNumber*", Fixed("dropping stale frameNumber <...>")),
    (
        "Sensor event from com.google.sensor.camera_vsync*",
        Fixed("Sensor event from com.google.sensor.camera_vsync <...>"),
    ),
    ("*DisplayInfo*", Fixed("DisplayInfo <...>")),
    ("Choreographer#onVsync*", Fixed("Choreographer#onVsync<...>")),
    ("appSf alarm*;*VSYNC in*", Fixed("appSf alarm in <...>; vsync in <...>")),
    ("sf alarm*;*VSYNC in*", Fixed("sf alarm in <...>; vsync in <...>")),
    ("app alarm*;*VSYNC in*", Fixed("app alarm in <...>; vsync in <...>")),
    ("FT#*", Fixed("FT#FrameTrackerEvent")),
    ("*isVsyncValid*", Fixed("isVsyncValid <...>")),
    ("onHardwareVsyncRequest*", Fixed("onHardwareVsyncRequest <...>")),
    ("onComposerHalVsync*", Fixed("onComposerHalVsync <...>")),
    (
        "ensureMinFrameDurationIsKept*mNumVsyncsForFrame=*mPastExpectedPresentTimes.size()=*",
        Fixed("ensureMinFrameDurationIsKept mNumVsyncsForFrame=<...> mPastExpectedPresentTimes.size()=<...>"),
    ),
    ("*lastVsyncDelta*", Fixed("lastVsyncDelta=<...>")),
    ("mLastCommittedVsync in*", Fixed("mLastCommittedVsync in <...>")),
];

/// The name `android_standardize_slice_name` gives `name`.
pub fn standardize(name: &str) -> Cow<'_, str> {
    let apply = |rules: &[(&str, Rewrite)]| {
        rules.iter().find(|(pattern, _)| glob(pattern, name)).map(|&(_, rewrite)| match rewrite {
            Fixed(s) => Cow::Borrowed(s),
            With(f) => Cow::Owned(f(name)),
        })
    };
    if let Some(s) = apply(RULES) {
        return s;
    }
    if name.to_ascii_lowercase().contains("vsync") {
        if let Some(s) = apply(VSYNC_RULES) {
            return s;
        }
    } else if glob("StatsPull-*", name) {
        // Stats pulls keep their atom tag.
        return Cow::Borrowed(name);
    }
    strip_hex(name, 2)
}

/// `_standardize_wakelock_slice_name`: `Wakelock(epolld280:system_serve` →
/// `Wakelock(epolld<...>:system_serve` (`marker` is `epolld` or `epollm`).
fn wakelock(name: &str, marker: &str) -> String {
    if instr(name, ":") == 0 {
        return strip_hex(name, 2).into_owned();
    }
    let keep = instr(name, marker) + marker.chars().count() as i64 - 1;
    format!("{}<...>{}", substr(name, 1, Some(keep)), from_char(name, ":"))
}

/// `substr(name, instr(name, c), length(name))`: from the first `c` on.
fn from_char(name: &str, c: &str) -> String {
    substr(name, instr(name, c), Some(name.chars().count() as i64))
}

/// `_remove_lambda_name`: what precedes the first `$`, hex ids stripped.
fn remove_lambda(name: &str) -> String {
    strip_hex(&substr(name, 0, Some(instr(name, "$"))), 2).into_owned()
}

/// SQLite's `instr`: the 1-based character position of the first `needle`
/// in `s`, 0 when absent.
fn instr(s: &str, needle: &str) -> i64 {
    s.find(needle).map_or(0, |at| s[..at].chars().count() as i64 + 1)
}

/// SQLite's `substr(s, start, len)` over characters, with its edge cases: a
/// start of 0 is one before the first character, a negative start counts
/// from the end, a negative length takes the characters before the start.
fn substr(s: &str, start: i64, len: Option<i64>) -> String {
    let chars = s.chars().count() as i64;
    let (mut p1, mut p2) = (start, len.unwrap_or(i64::MAX).max(i64::MIN + 1));
    let neg = p2 < 0;
    p2 = p2.abs();
    if p1 < 0 {
        p1 += chars;
        if p1 < 0 {
            p2 = (p2 + p1).max(0);
            p1 = 0;
        }
    } else if p1 > 0 {
        p1 -= 1;
    } else if p2 > 0 {
        p2 -= 1;
    }
    if neg {
        p1 -= p2;
        if p1 < 0 {
            p2 += p1;
            p1 = 0;
        }
    }
    s.chars().skip(p1 as usize).take(p2.max(0) as usize).collect()
}

/// trace_processor's `__intrinsic_strip_hex(s, min_digits)`: each run of hex
/// digits that starts the text, follows a character that is not a letter or
/// digit, follows `0x` or begins with a digit becomes `<num>` when it is at
/// least `min_digits` long and holds a digit (after `0x`, digits or not).
pub fn strip_hex(s: &str, min_digits: usize) -> Cow<'_, str> {
    let b = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let mut replace = false;
        if (c == b'x' || c == b'X') && i >= 1 && b[i - 1] == b'0' {
            out.push(c);
            i += 1;
            replace = true;
        } else if !c.is_ascii_alphanumeric() {
            out.push(c);
            i += 1;
        } else if (i > 0 || !c.is_ascii_hexdigit()) && !c.is_ascii_digit() {
            // A letter inside a word: no run starts here.
            out.push(c);
            i += 1;
            continue;
        }
        let from = i;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            replace |= b[i].is_ascii_digit();
            i += 1;
        }
        if replace && i - from >= min_digits {
            out.extend_from_slice(b"<num>");
        } else {
            out.extend_from_slice(&b[from..i]);
        }
    }
    if out == b {
        Cow::Borrowed(s)
    } else {
        // Only ASCII runs were replaced, so the bytes stay UTF-8.
        Cow::Owned(String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }
}

/// SQLite's `GLOB`: `*` any text, `?` one character, `[...]` one of a set
/// (ranges, `^` negates, a leading `]` is literal); case-sensitive. The
/// patterns here are ASCII, so bytes stand for characters except under `?`,
/// which they do not use.
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    // Where to resume after the last `*`: its pattern position and the text
    // position it has swallowed up to.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi + 1, ti));
            pi += 1;
            continue;
        }
        if let Some(next) = (pi < p.len()).then(|| one(p, pi, t[ti])).flatten() {
            pi = next;
            ti += 1;
            continue;
        }
        match star {
            Some((sp, st)) => {
                pi = sp;
                ti = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// Whether pattern element `p[at..]` (not `*`) matches byte `c`; the
/// position after the element when it does.
fn one(p: &[u8], at: usize, c: u8) -> Option<usize> {
    match p[at] {
        b'?' => Some(at + 1),
        b'[' => {
            let mut i = at + 1;
            let negate = p.get(i) == Some(&b'^');
            if negate {
                i += 1;
            }
            let mut hit = false;
            let mut first = true;
            while i < p.len() && (first || p[i] != b']') {
                first = false;
                if p.get(i + 1) == Some(&b'-') && p.get(i + 2).is_some_and(|&e| e != b']') {
                    hit |= (p[i]..=p[i + 2]).contains(&c);
                    i += 3;
                } else {
                    hit |= p[i] == c;
                    i += 1;
                }
            }
            // An unclosed set matches nothing, as in SQLite.
            (i < p.len() && hit != negate).then_some(i + 1)
        }
        lit => (lit == c).then_some(at + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_as_sqlite() {
        assert!(glob("drawLayer [[]*[]]*", "drawLayer [DoubleShadowNode] 55.0 x 55.0"));
        assert!(!glob("drawLayer [[]*[]]*", "drawLayer DoubleShadowNode"));
        assert!(glob("[0-9]* Alarm:*", "12 Alarm: x"));
        assert!(!glob("[0-9]* Alarm:*", "a12 Alarm: x"));
        assert!(glob("/data/app*.apk", "/data/app/x/base.apk"));
        assert!(!glob("/data/app*.apk", "/data/app/x/base.apk.odex"));
        assert!(glob("*.*.*: *$*", "a.b.c: d$e"));
        assert!(glob("Choreographer#doFrame*", "Choreographer#doFrame"));
        assert!(!glob("doFrame", "Choreographer#doFrame"));
    }

    #[test]
    fn sqlite_substr_edges() {
        assert_eq!(substr("abc(d", 0, Some(4)), "abc");
        assert_eq!(substr("abcdef", 1, Some(3)), "abc");
        assert_eq!(substr("abcdef", 3, None), "cdef");
        assert_eq!(substr("abcdef", 0, None), "abcdef");
        assert_eq!(substr("abcdef", 4, Some(-2)), "bc");
        assert_eq!(substr("abcdef", -2, None), "ef");
        assert_eq!(substr("abc", 0, Some(0)), "");
    }

    #[test]
    fn strip_hex_as_trace_processor() {
        assert_eq!(strip_hex("inflate", 2), "inflate");
        assert_eq!(strip_hex("Choreographer#doFrame 191623", 2), "Choreographer#doFrame <num>");
        // A run of letters only stays, even after one with digits.
        assert_eq!(strip_hex("foo 12 bad", 2), "foo <num> bad");
        assert_eq!(strip_hex("bad 12", 2), "bad <num>");
        assert_eq!(strip_hex("at 0xdeadbeef", 2), "at 0x<num>");
        assert_eq!(strip_hex("x 7", 2), "x 7");
        // A digit inside a word starts a run too.
        assert_eq!(strip_hex("u0a93 running", 2), "u<num> running");
        assert_eq!(strip_hex("deadbeef", 2), "deadbeef");
    }

    #[test]
    fn handler_and_lock_names() {
        assert_eq!(
            standardize("android.os.Handler: com.android.systemui.qs.external.TileServiceManager$1"),
            "Handler: com.android.systemui.qs.external.TileServiceManager"
        );
        // The stdlib's comment says `Handler: android.view.ViewRootImpl`, but
        // its earlier `*Handler: *$*` case takes the name first.
        assert_eq!(
            standardize("android.view.ViewRootImpl$ViewRootHandler: com.android.systemui.someClass$enableMarquee$1"),
            "Handler: com.android.systemui.someClass"
        );
        assert_eq!(standardize("com.example.Outer$Inner: #3"), "Handler: com.example.Outer");
        assert_eq!(standardize("android.os.AsyncTask$InternalHandler: #1"), "Handler: android.os.AsyncTask");
        assert_eq!(
            standardize("Lock contention on thread list lock (owner tid: 1665)"),
            "Lock contention on thread list lock <...>"
        );
        assert_eq!(standardize("Choreographer#doFrame 82521"), "Choreographer#doFrame");
        assert_eq!(standardize("Wakelock(epolld280:system_serve"), "Wakelock(epolld<...>:system_serve");
        assert_eq!(
            standardize("Transaction (ptz-fgd-1-LOCAL_MEDIA_REMOVE_DELETED_ITEMS_SYNC, 11910)"),
            "Transaction (ptz-fgd-1-LOCAL_MEDIA_REMOVE_DELETED_ITEMS_SYNC, <...>)"
        );
        // The SQL keeps the comma twice.
        assert_eq!(standardize("Transaction (Thread-12, 5)"), "Transaction (Thread-<...>,, 5)");
        assert_eq!(standardize("StatsPull-10023"), "StatsPull-10023");
        assert_eq!(standardize("VSYNC-app 1"), "VSYNC-app 1");
        assert_eq!(standardize("a SurfaceView[x](BLAST)#12"), "SurfaceView[x](BLAST)");
        assert_eq!(standardize("drawLayer [DoubleShadowNode] 55.0 x 55.0"), "drawLayer [DoubleShadowNode]");
        assert_eq!(standardize("bindApplication"), "bindApplication");
    }
}
