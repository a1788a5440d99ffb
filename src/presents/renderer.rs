//! Which renderer draws each app, told from its threads' names and the
//! layers it presents (docs/presents.md, "Renderer"): the View system
//! (HWUI's RenderThread), a SurfaceView drawn with GL or Vulkan (by a game
//! engine when its threads name one), Flutter's engine, WebView, or video.

use std::collections::BTreeMap;

use serde::Serialize;

use super::sources::{is_render_thread, is_surface_view, GraphicsApi, Stream};
use super::{LayerSummary, PresentSource};
use crate::model::{Trace, Upid};

/// What draws an app's visible content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RendererKind {
    /// Views drawn by HWUI's RenderThread.
    View,
    /// A SurfaceView (or TextureView) the app draws into with GL or Vulkan.
    SurfaceView,
    /// Flutter's engine (`1.ui` → `1.raster`).
    Flutter,
    /// Chromium's WebView.
    WebView,
    /// A video decoder's output.
    Video,
}

impl RendererKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::View => "View",
            Self::SurfaceView => "SurfaceView",
            Self::Flutter => "Flutter",
            Self::WebView => "WebView",
            Self::Video => "video",
        }
    }

    /// Whether the app's visible content can come from a layer other than
    /// its View layer (then its presents, not its doFrames, say what was seen).
    pub fn draws_outside_views(self) -> bool {
        matches!(self, Self::SurfaceView | Self::Flutter | Self::Video)
    }
}

/// A game engine named by its threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    Unity,
    Unreal,
    Cocos,
    Godot,
    /// `GLSurfaceView`'s render thread (`GLThread <n>`), engine unknown.
    GlSurfaceView,
}

impl Engine {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unity => "Unity",
            Self::Unreal => "Unreal",
            Self::Cocos => "Cocos",
            Self::Godot => "Godot",
            Self::GlSurfaceView => "GLSurfaceView",
        }
    }

    /// Whether the engine makes games (a GLSurfaceView may be a map or a viewer).
    pub fn is_game(self) -> bool {
        !matches!(self, Self::GlSurfaceView)
    }
}

/// One app's renderer and what showed it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Renderer {
    pub kind: RendererKind,
    pub engine: Option<Engine>,
    pub api: Option<GraphicsApi>,
    /// The threads or layer that told it, for the reader to check.
    pub evidence: String,
}

impl std::fmt::Display for Renderer {
    /// `SurfaceView (Unity, GL)`, `Flutter`, `View`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.kind.as_str())?;
        let parts: Vec<&str> =
            self.engine.map(Engine::as_str).into_iter().chain(self.api.map(GraphicsApi::as_str)).collect();
        if !parts.is_empty() {
            write!(f, " ({})", parts.join(", "))?;
        }
        Ok(())
    }
}

/// Thread names (the kernel keeps 15 characters) that show an engine or a
/// renderer, matched as prefixes.
const ENGINE_THREADS: [(&str, Engine); 8] = [
    ("UnityMain", Engine::Unity),
    ("UnityGfxDevice", Engine::Unity),
    ("UnityChoreograp", Engine::Unity),
    ("RHIThread", Engine::Unreal),
    ("GameThread", Engine::Unreal),
    ("Cocos", Engine::Cocos),
    ("GodotRender", Engine::Godot),
    ("GLThread", Engine::GlSurfaceView),
];
const FLUTTER_THREADS: [&str; 3] = ["1.ui", "1.raster", "1.gpu"];
const WEBVIEW_THREADS: [&str; 4] = ["CrRendererMain", "Chrome_InProcGp", "VizCompositorTh", "CrGpuMain"];
const VIDEO_THREADS: [&str; 4] = ["MediaCodec_loop", "CodecLooper", "ExoPlayer:Playb", "ExoPlayerImplIn"];

/// What the threads of one process show.
#[derive(Default)]
struct Clues {
    engine: Option<(Engine, String)>,
    flutter: Option<String>,
    webview: Option<String>,
    video: Option<String>,
    render_thread: bool,
}

/// The renderer of every app that draws: a process with a RenderThread, a
/// renderer's threads, or a layer or producer of its own.
pub(crate) fn detect(trace: &Trace, streams: &[Stream]) -> BTreeMap<i32, Renderer> {
    let mut clues: BTreeMap<Upid, Clues> = BTreeMap::new();
    for t in &trace.threads {
        let (Some(upid), Some(name)) = (t.upid, t.name.as_deref()) else { continue };
        let c = clues.entry(upid).or_default();
        if name == "RenderThread" {
            c.render_thread = true;
        } else if let Some((_, e)) = ENGINE_THREADS.iter().find(|(p, _)| name.starts_with(p)) {
            // A game engine outranks a GLThread.
            if c.engine.as_ref().is_none_or(|(old, _)| !old.is_game() && e.is_game()) {
                c.engine = Some((*e, name.to_string()));
            }
        } else if FLUTTER_THREADS.iter().any(|f| name.ends_with(f)) {
            c.flutter.get_or_insert_with(|| name.to_string());
        } else if WEBVIEW_THREADS.iter().any(|w| name.starts_with(w)) {
            c.webview.get_or_insert_with(|| name.to_string());
        } else if VIDEO_THREADS.iter().any(|v| name.starts_with(v)) {
            c.video.get_or_insert_with(|| name.to_string());
        }
    }
    let mut own_streams: BTreeMap<Upid, Vec<&Stream>> = BTreeMap::new();
    for s in streams {
        if let Some(upid) = s.upid {
            own_streams.entry(upid).or_default().push(s);
            clues.entry(upid).or_default();
        }
    }
    let mut out = BTreeMap::new();
    for (upid, c) in clues {
        let own = own_streams.remove(&upid).unwrap_or_default();
        // A SurfaceView layer, or a thread other than RenderThread queueing buffers.
        let surface = own.iter().find(|s| {
            s.presents.len() >= 2
                && (is_surface_view(&s.layer)
                    || (s.source == PresentSource::Producer && !is_render_thread(trace, s.producer)))
        });
        let api = own.iter().filter(|s| !is_render_thread(trace, s.producer)).find_map(|s| s.api);
        let r = |kind, engine, evidence: String| Renderer { kind, engine, api, evidence };
        let renderer = if let Some((e, thread)) = c.engine.clone().filter(|(e, _)| e.is_game()) {
            r(RendererKind::SurfaceView, Some(e), format!("thread {thread}"))
        } else if let Some(thread) = c.flutter {
            r(RendererKind::Flutter, None, format!("thread {thread}"))
        } else if let Some(thread) = c.video {
            r(RendererKind::Video, None, format!("thread {thread}"))
        } else if let Some((e, thread)) = c.engine {
            r(RendererKind::SurfaceView, Some(e), format!("thread {thread}"))
        } else if let Some(s) = surface {
            r(RendererKind::SurfaceView, None, format!("presents of {}", s.layer))
        } else if let Some(thread) = c.webview {
            r(RendererKind::WebView, None, format!("thread {thread}"))
        } else if c.render_thread {
            Renderer { kind: RendererKind::View, engine: None, api: None, evidence: "thread RenderThread".to_string() }
        } else if let Some(s) = own.first() {
            Renderer { kind: RendererKind::View, engine: None, api: None, evidence: format!("presents of {}", s.layer) }
        } else {
            continue;
        };
        out.insert(trace.process(upid).pid, renderer);
    }
    out
}

/// An app's own View layer (not a SurfaceView's), or its RenderThread.
pub(crate) fn is_view_layer(l: &LayerSummary) -> bool {
    match l.source {
        PresentSource::Producer => l.thread.as_deref() == Some("RenderThread"),
        _ => !is_surface_view(&l.layer),
    }
}
