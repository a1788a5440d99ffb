//! The presents of every layer, read from the trace's three sources
//! ([`PresentSource`]): FrameTimeline actual surface frames, SurfaceFlinger's
//! per-layer queued-buffer counters, and the producers' `queueBuffer` /
//! swap slices. A layer is read from the first source that has it; a
//! producing thread becomes a stream of its own only when its app has no
//! layer from the first two.

use foldhash::{HashMap, HashSet};

use serde::Serialize;

use super::verdict::UNNAMED_LAYER;
use super::PresentSource;
use crate::model::{JankSeverity, JankTag, Name, PresentType, TimelineKind, Trace, TrackKind, Upid, Utid};

/// The API a producer's slices show it presenting with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GraphicsApi {
    Gl,
    Vulkan,
}

impl GraphicsApi {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Gl => "GL",
            Self::Vulkan => "Vulkan",
        }
    }
}

/// One buffer presented.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Present {
    pub ts: i64,
    /// When the frame was due on screen: FrameTimeline's expected end for its
    /// token (docs/presents.md, "Dropped vsyncs").
    pub due_ts: Option<i64>,
    pub frame_id: Option<i64>,
    pub present_type: Option<PresentType>,
    pub jank_type: Option<Name>,
    /// FrameTimeline's verdict on the buffer (see `PresentRow`).
    pub jank_tag: Option<JankTag>,
    pub jank_severity: Option<JankSeverity>,
    pub present_delay_ms: Option<f64>,
}

impl Present {
    /// A present known only by its time (a counter fall, a queueBuffer).
    pub(crate) fn at(ts: i64) -> Present {
        Present {
            ts,
            due_ts: None,
            frame_id: None,
            present_type: None,
            jank_type: None,
            jank_tag: None,
            jank_severity: None,
            present_delay_ms: None,
        }
    }
}

/// One layer's (or producing thread's) presents, in time order.
#[derive(Debug, Clone)]
pub(crate) struct Stream {
    pub source: PresentSource,
    pub upid: Option<Upid>,
    pub pid: Option<i32>,
    pub layer: String,
    /// The producing thread, when known.
    pub producer: Option<Utid>,
    /// The graphics API the producer's slices show.
    pub api: Option<GraphicsApi>,
    pub presents: Vec<Present>,
}

/// The slice a producer thread ends each buffer with.
pub(crate) const QUEUE_BUFFER: &str = "queueBuffer";
/// Swap / present calls that hand a buffer to the compositor.
pub(crate) const EGL_SWAP: &str = "eglSwapBuffers";
pub(crate) const VK_PRESENT: &str = "vkQueuePresentKHR";

/// Every layer's stream, ordered by (pid, layer, source).
pub(crate) fn streams(trace: &Trace) -> Vec<Stream> {
    let producers = producer_streams(trace);
    let mut out = timeline_streams(trace);
    let from_timeline: HashSet<(Option<i32>, String)> = out.iter().map(|s| (s.pid, s.layer.clone())).collect();
    out.extend(counter_streams(trace).into_iter().filter(|s| !from_timeline.contains(&(s.pid, s.layer.clone()))));
    // Each app's layers take their producing thread from its producer
    // streams: SurfaceView layers the busiest thread that is not
    // RenderThread, the app's own layers RenderThread.
    // (pid, drawn by RenderThread) → the busiest such producer.
    let mut busiest: HashMap<(i32, bool), &Stream> = HashMap::default();
    for p in &producers {
        let Some(pid) = p.pid else { continue };
        let slot = busiest.entry((pid, is_render_thread(trace, p.producer))).or_insert(p);
        if p.presents.len() > slot.presents.len() {
            *slot = p;
        }
    }
    for s in &mut out {
        let view = !is_surface_view(&s.layer);
        if let Some(p) = s.pid.and_then(|pid| busiest.get(&(pid, view))) {
            s.producer = p.producer;
            s.api = p.api;
        }
    }
    let with_layers: HashSet<Option<i32>> = out.iter().map(|s| s.pid).collect();
    out.extend(producers.into_iter().filter(|p| p.pid.is_none() || !with_layers.contains(&p.pid)));
    out.sort_by(|a, b| (a.pid, &a.layer, a.source).cmp(&(b.pid, &b.layer, b.source)));
    out
}

/// A SurfaceView's layer (`SurfaceView - …`, `SurfaceView[…]`, `TX - SurfaceView…`),
/// not one of the app's View layers.
pub(crate) fn is_surface_view(layer: &str) -> bool {
    layer.contains("SurfaceView")
}

/// HWUI's RenderThread: it draws the View hierarchy.
pub(crate) fn is_render_thread(trace: &Trace, utid: Option<Utid>) -> bool {
    utid.and_then(|u| trace.thread(u).name.as_deref()).is_some_and(|n| n == "RenderThread")
}

/// Actual surface frames that reached the screen, per (process, layer),
/// each due at the end of its token's expected surface frame.
fn timeline_streams(trace: &Trace) -> Vec<Stream> {
    let mut by_layer: HashMap<(i32, Name), usize> = HashMap::default();
    let mut out: Vec<Stream> = Vec::new();
    let unnamed: Name = UNNAMED_LAYER.into();
    // (pid, token) → its expected surface frames' (start, end), in time order.
    let mut expected: HashMap<(i32, i64), Vec<(i64, i64)>> = HashMap::default();
    for f in trace.frame_timeline.iter().filter(|f| f.kind == TimelineKind::ExpectedSurface && f.dur >= 0) {
        expected.entry((f.pid, f.token)).or_default().push((f.ts, f.ts + f.dur));
    }
    for e in expected.values_mut() {
        e.sort_unstable();
    }
    for f in &trace.frame_timeline {
        if f.kind != TimelineKind::ActualSurface || f.dur < 0 || f.present_type == Some(PresentType::Dropped) {
            continue;
        }
        let layer = f.layer_name.clone().unwrap_or_else(|| unnamed.clone());
        let k = *by_layer.entry((f.pid, layer.clone())).or_insert_with(|| {
            out.push(Stream {
                source: PresentSource::FrameTimeline,
                upid: f.upid,
                pid: Some(f.pid),
                layer: layer.to_string(),
                producer: None,
                api: None,
                presents: Vec::new(),
            });
            out.len() - 1
        });
        out[k].presents.push(Present {
            ts: f.ts + f.dur,
            due_ts: expected.get(&(f.pid, f.token)).and_then(|e| due_of(e, f.ts)),
            frame_id: Some(f.token),
            present_type: f.present_type,
            jank_type: f.jank_type.clone(),
            jank_tag: f.jank_tag,
            jank_severity: f.jank_severity_type,
            present_delay_ms: f.present_delay_ms,
        });
    }
    for s in &mut out {
        s.presents.sort_by_key(|p| p.ts);
    }
    out
}

/// The end of the expected frame of a token that an actual frame starting at
/// `ts` answers: the last that started by then (a token repeats only across
/// concatenated captures or a reboot), else the first.
fn due_of(expected: &[(i64, i64)], ts: i64) -> Option<i64> {
    let by_then = expected.partition_point(|&(start, _)| start <= ts);
    expected.get(by_then.saturating_sub(1)).map(|&(_, end)| end)
}

/// SurfaceFlinger's counters named after a layer: each fall of the queued
/// buffers is a buffer latched for the next composition.
fn counter_streams(trace: &Trace) -> Vec<Stream> {
    let sf: HashSet<Upid> = trace
        .processes
        .iter()
        .filter(|p| p.name.as_deref().is_some_and(|n| n.ends_with("surfaceflinger")))
        .map(|p| p.upid)
        .collect();
    let mut by_name: HashMap<&str, Upid> = HashMap::default();
    for p in &trace.processes {
        if let Some(n) = p.name.as_deref() {
            by_name.entry(n).or_insert(p.upid);
        }
    }
    let mut slot: HashMap<usize, usize> = HashMap::default();
    let mut last: Vec<f64> = Vec::new();
    let mut out: Vec<Stream> = Vec::new();
    for (i, t) in trace.tracks.iter().enumerate() {
        let (TrackKind::ProcessCounter { upid }, Some(name)) = (&t.kind, &t.name) else { continue };
        if !sf.contains(upid) || !is_layer_name(name) {
            continue;
        }
        let owner = owner_of(&by_name, name);
        slot.insert(i, out.len());
        last.push(f64::NAN);
        out.push(Stream {
            source: PresentSource::LayerCounter,
            upid: owner,
            pid: owner.map(|u| trace.process(u).pid),
            layer: name.to_string(),
            producer: None,
            api: None,
            presents: Vec::new(),
        });
    }
    if out.is_empty() {
        return out;
    }
    for c in &trace.counters {
        let Some(&k) = slot.get(&c.track.index()) else { continue };
        if c.value < last[k] {
            out[k].presents.push(Present::at(c.ts));
        }
        last[k] = c.value;
    }
    out.retain(|s| !s.presents.is_empty());
    out
}

/// A SurfaceFlinger counter that counts a layer's queued buffers: layer
/// names end in `#<sequence>`; SurfaceFlinger's own counters (`VSYNC-sf`,
/// `HW_VSYNC_0`, …) have none.
fn is_layer_name(name: &str) -> bool {
    name.contains('#') && !name.starts_with("VSYNC") && !name.starts_with("HW_VSYNC")
}

/// The package a layer name names (docs/presents.md, "Apps named by their
/// layers").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LayerPackage<'a> {
    pub package: &'a str,
    /// A starting window (`Splash Screen PKG#N`): the system draws it for the
    /// app (SystemUI's shell on Android 12+, system_server before), so its
    /// process is not the app's.
    pub starting_window: bool,
}

impl<'a> LayerPackage<'a> {
    /// The package of the app whose process draws the layer.
    pub(crate) fn drawn_by(self) -> Option<&'a str> {
        (!self.starting_window).then_some(self.package)
    }
}

/// The package a layer name names: `PKG/ACTIVITY#0`, `SurfaceView -
/// PKG/ACTIVITY#0`, `SurfaceView[PKG/ACTIVITY](BLAST)#12`, `Splash Screen
/// PKG#3`, and each of them behind `TX - ` (the BLAST transaction layers
/// FrameTimeline names). System layers (`StatusBar#5`, `TX -
/// Surface(name=Task=1)/@0x… - …`) name none.
pub(crate) fn layer_package(layer: &str) -> Option<LayerPackage<'_>> {
    let layer = layer.strip_prefix("TX - ").unwrap_or(layer);
    let (pkg, starting_window) = if let Some(splash) = layer.strip_prefix("Splash Screen ") {
        (splash.split('#').next()?, true)
    } else {
        let rest = layer.strip_prefix("SurfaceView - ").or_else(|| layer.strip_prefix("SurfaceView[")).unwrap_or(layer);
        (rest.split_once('/')?.0, false)
    };
    is_package(pkg).then_some(LayerPackage { package: pkg, starting_window })
}

/// An Android package name: two or more dot-separated Java identifiers of
/// ASCII letters, digits and `_`, each starting with a letter.
fn is_package(s: &str) -> bool {
    let mut parts = 0;
    for part in s.split('.') {
        let mut chars = part.chars();
        if !chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return false;
        }
        parts += 1;
    }
    parts >= 2
}

/// The process a layer name belongs to: the first named its package, or
/// the package's last 15 characters (the kernel's comm of a process a
/// systrace knows only from its threads). `by_name`: each name's first process.
fn owner_of(by_name: &HashMap<&str, Upid>, layer: &str) -> Option<Upid> {
    let pkg = layer_package(layer)?.drawn_by()?;
    by_name.get(pkg).or_else(|| by_name.get(crate::model::package_comm(pkg))).copied()
}

/// Each thread's buffers: its `queueBuffer` slice ends, or, on a thread
/// without them, its swap / present call ends. SurfaceFlinger's own threads
/// are left out (it is the consumer).
fn producer_streams(trace: &Trace) -> Vec<Stream> {
    #[derive(Default)]
    struct Thread {
        queues: Vec<i64>,
        swaps: Vec<i64>,
        api: Option<GraphicsApi>,
    }
    let mut by_thread: HashMap<Utid, Thread> = HashMap::default();
    for s in &trace.slices {
        let name: &str = &s.name;
        let kind = if name == QUEUE_BUFFER {
            0
        } else if name.starts_with(EGL_SWAP) {
            1
        } else if name == VK_PRESENT {
            2
        } else {
            continue;
        };
        let Some(end) = s.end() else { continue };
        let Some(TrackKind::Thread { utid }) = trace.tracks.get(s.track.index()).map(|t| &t.kind) else { continue };
        let t = by_thread.entry(*utid).or_default();
        match kind {
            0 => t.queues.push(end),
            1 => {
                t.swaps.push(end);
                t.api.get_or_insert(GraphicsApi::Gl);
            }
            _ => {
                t.swaps.push(end);
                t.api = Some(GraphicsApi::Vulkan);
            }
        }
    }
    let mut out = Vec::new();
    for (utid, t) in by_thread {
        let thread = trace.thread(utid);
        let process = thread.upid.map(|u| trace.process(u));
        if process.and_then(|p| p.name.as_deref()).is_some_and(|n| n.ends_with("surfaceflinger")) {
            continue;
        }
        let mut ends = if t.queues.is_empty() { t.swaps } else { t.queues };
        ends.sort_unstable();
        out.push(Stream {
            source: PresentSource::Producer,
            upid: thread.upid,
            pid: process.map(|p| p.pid),
            layer: thread.name.as_deref().map_or_else(|| format!("thread {}", thread.tid), str::to_string),
            producer: Some(utid),
            api: t.api,
            presents: ends.into_iter().map(Present::at).collect(),
        });
    }
    out
}
