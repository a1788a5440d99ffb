//! Scenes: which screen a frame belongs to (the frames table's `scene`
//! column), for the per-scene summary; docs/metrics.md, "Scenes".
//!
//! A frame's scene is, in order of preference:
//! 1. its FrameTimeline layer (`layer_name`), normalised: `TX - ` prefix and
//!    the `#N` instance suffix removed, and `pkg/pkg.Cls` shortened to the
//!    ComponentName short form `pkg/.Cls`;
//! 2. the activity in force on the app at the frame's start, from slices: the
//!    ViewRootImpl name in the app's own slices (`VRI[MainActivity]`, Android
//!    12+), with `activityStart` / `activityResume` on the app's threads and
//!    system_server's `launching: <pkg>` marking where a new activity begins
//!    (its name is then the first `VRI[...]` name that follows, null if none);
//! 3. null (shown as `(unknown)`).

use std::collections::HashMap;

use crate::frames::FrameRow;
use crate::model::{Trace, TrackKind};

/// Scene name from a FrameTimeline layer name.
fn scene_from_layer(layer: &str) -> String {
    let mut s = layer.trim();
    s = s.strip_prefix("TX - ").unwrap_or(s);
    if let Some(pos) = s.rfind('#') {
        let digits = &s[pos + 1..];
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            s = &s[..pos];
        }
    }
    if let Some((pkg, cls)) = s.split_once('/') {
        if let Some(rest) = cls.strip_prefix(pkg) {
            if rest.starts_with('.') {
                return format!("{pkg}/{rest}");
            }
        }
    }
    s.to_string()
}

/// The window name inside `VRI[...]`, if the slice name carries one.
fn vri_name(slice_name: &str) -> Option<&str> {
    let start = slice_name.find("VRI[")? + 4;
    let len = slice_name[start..].find(']')?;
    let name = &slice_name[start..start + len];
    (!name.is_empty()).then_some(name)
}

#[derive(Debug, Clone, PartialEq)]
enum Marker {
    /// A new activity starts here; its name comes later.
    Boundary,
    /// The app's window is named this.
    Window(String),
}

/// Activity labels of one process over time: `(from_ts, label)`, sorted.
fn labels_from_markers(mut markers: Vec<(i64, Marker)>) -> Vec<(i64, Option<String>)> {
    markers.sort_by_key(|(ts, _)| *ts);
    // next_window[i]: the first window name at or after marker i. Boundaries
    // with no window between them (`launching:` then `activityStart` then
    // `activityResume` of one launch) thus share the name that follows.
    let mut next_window: Vec<Option<String>> = vec![None; markers.len()];
    let mut pending: Option<String> = None;
    for (i, (_, m)) in markers.iter().enumerate().rev() {
        match m {
            Marker::Window(name) => pending = Some(name.clone()),
            Marker::Boundary => {}
        }
        next_window[i] = pending.clone();
    }
    let mut out = Vec::with_capacity(markers.len() + 1);
    // Before the first marker: the first window named before any boundary.
    let head = markers.iter().take_while(|(_, m)| *m != Marker::Boundary).find_map(|(_, m)| match m {
        Marker::Window(n) => Some(n.clone()),
        Marker::Boundary => None,
    });
    out.push((i64::MIN, head));
    let mut current: Option<String> = out[0].1.clone();
    for (i, (ts, m)) in markers.iter().enumerate() {
        let label = match m {
            Marker::Boundary => next_window[i].clone(),
            Marker::Window(n) => Some(n.clone()),
        };
        if label != current {
            out.push((*ts, label.clone()));
            current = label;
        }
    }
    out
}

fn package_matches(process: &str, pkg: &str) -> bool {
    process == pkg || process.strip_prefix(pkg).is_some_and(|rest| rest.starts_with(':'))
}

/// One scene per row (see the module doc).
pub(crate) fn assign(trace: &Trace, rows: &[&FrameRow]) -> Vec<Option<String>> {
    // Rows come by (pid, ts), so a layer's frames mostly follow each other:
    // its scene is worked out once per run of them.
    let mut last: Option<(&str, String)> = None;
    let mut out: Vec<Option<String>> = rows
        .iter()
        .map(|r| {
            let layer = r.layer_name.as_deref()?;
            match &last {
                Some((l, scene)) if *l == layer => Some(scene.clone()),
                _ => {
                    let scene = scene_from_layer(layer);
                    last = Some((layer, scene.clone()));
                    Some(scene)
                }
            }
        })
        .collect();
    if out.iter().all(Option::is_some) {
        return out;
    }
    // Markers for the processes that have frames without a layer.
    let mut wanted: HashMap<i32, Option<&str>> = HashMap::new();
    for (r, scene) in rows.iter().zip(&out) {
        if scene.is_none() {
            wanted.insert(r.pid, r.process.as_deref());
        }
    }
    let mut markers: HashMap<i32, Vec<(i64, Marker)>> = HashMap::new();
    for s in &trace.slices {
        let Some(track) = trace.tracks.get(s.track.index()) else {
            continue;
        };
        let owner = match track.kind {
            TrackKind::Thread { .. } | TrackKind::ProcessAsync { .. } => trace.track_process(s.track),
            _ => None,
        };
        let name: &str = &s.name;
        if let Some(launched) = name.strip_prefix("launching: ") {
            for (&pid, process) in &wanted {
                if process.is_some_and(|p| package_matches(p, launched.trim())) {
                    markers.entry(pid).or_default().push((s.ts, Marker::Boundary));
                }
            }
            continue;
        }
        let Some(p) = owner else { continue };
        if !wanted.contains_key(&p.pid) {
            continue;
        }
        if name == "activityStart" || name == "activityResume" {
            markers.entry(p.pid).or_default().push((s.ts, Marker::Boundary));
        } else if let Some(w) = vri_name(name) {
            markers.entry(p.pid).or_default().push((s.ts, Marker::Window(w.to_string())));
        }
    }
    let labels: HashMap<i32, Vec<(i64, Option<String>)>> =
        markers.into_iter().map(|(pid, m)| (pid, labels_from_markers(m))).collect();
    for (r, scene) in rows.iter().zip(out.iter_mut()) {
        if scene.is_some() {
            continue;
        }
        if let Some(l) = labels.get(&r.pid) {
            let idx = l.partition_point(|(from, _)| *from <= r.ts);
            if idx > 0 {
                *scene = l[idx - 1].1.clone();
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{SliceId, TrackId, Upid, Utid};

    #[test]
    fn layer_names_normalised() {
        assert_eq!(
            scene_from_layer("TX - com.example.app/com.example.app.MainActivity#1234"),
            "com.example.app/.MainActivity"
        );
        assert_eq!(scene_from_layer("com.example.app/org.other.Act#0"), "com.example.app/org.other.Act");
        assert_eq!(scene_from_layer("StatusBar#12"), "StatusBar");
        assert_eq!(scene_from_layer("Name#tag"), "Name#tag");
        assert_eq!(scene_from_layer("SurfaceView[com.a/com.a.B]#3"), "SurfaceView[com.a/com.a.B]");
    }

    #[test]
    fn vri_names() {
        assert_eq!(vri_name("draw-VRI[StartupActivity]"), Some("StartupActivity"));
        assert_eq!(vri_name("VRI[Main]-relayoutWindow#first=true"), Some("Main"));
        assert_eq!(vri_name("VRI[]"), None);
        assert_eq!(vri_name("doFrame"), None);
    }

    #[test]
    fn markers_to_labels() {
        use Marker::*;
        let l = labels_from_markers(vec![
            (10, Window("A".into())),
            (50, Boundary),
            (60, Window("B".into())),
            (70, Window("B".into())),
            (90, Boundary),
        ]);
        assert_eq!(l, vec![(i64::MIN, Some("A".into())), (50, Some("B".into())), (90, None)]);
    }

    use crate::model::{Process, Slice, Thread, Track};
    use std::sync::Arc;

    fn trace_with(slices: &[(i64, &str, u32)]) -> Trace {
        // track 0: main thread of pid 100 (com.a); track 1: system_server async.
        let mut t = Trace {
            processes: vec![
                Process { upid: Upid(0), pid: 100, name: Some(Arc::from("com.a")), ..Default::default() },
                Process { upid: Upid(1), pid: 1000, name: Some(Arc::from("system_server")), ..Default::default() },
            ],
            threads: vec![Thread { utid: Utid(0), tid: 100, upid: Some(Upid(0)), name: Some(Arc::from("com.a")) }],
            tracks: vec![
                Track { id: TrackId(0), name: None, kind: TrackKind::Thread { utid: Utid(0) } },
                Track { id: TrackId(1), name: None, kind: TrackKind::ProcessAsync { upid: Upid(1) } },
            ],
            ..Default::default()
        };
        t.slices = slices
            .iter()
            .enumerate()
            .map(|(i, &(ts, name, track))| Slice {
                id: SliceId(i as u32),
                ts,
                dur: 1,
                name: Arc::from(name),
                category: None,
                track: TrackId(track),
                depth: 0,
                parent: None,
            })
            .collect();
        t
    }

    #[test]
    fn scenes_from_layers_and_activity_slices() {
        let trace = trace_with(&[
            (5, "draw-VRI[Splash]", 0),
            (100, "launching: com.a", 1),
            (110, "activityStart", 0),
            (150, "VRI[Main]-relayoutWindow", 0),
        ]);
        let mk = |ts: i64, layer: Option<&str>| FrameRow {
            process: Some("com.a".into()),
            layer_name: layer.map(String::from),
            ..crate::testutil::frame(100, ts, crate::testutil::I60, 0)
        };
        let rows = [mk(1, None), mk(20, None), mk(105, None), mk(200, None), mk(300, Some("com.a/com.a.Other#3"))];
        let refs: Vec<&FrameRow> = rows.iter().collect();
        assert_eq!(
            assign(&trace, &refs),
            vec![
                Some("Splash".into()),
                Some("Splash".into()),
                Some("Main".into()),
                Some("Main".into()),
                Some("com.a/.Other".into())
            ]
        );
    }
}
