//! The CUJ slices and what their instrumentation marks inside them: the
//! `J<NAME>` slices on an app's async tracks, and the `FrameTracker` markers
//! (`FT#begin…`, `FT#end…`, `FT#cancel`, `FT#layerId#<id>`,
//! `FT#beginVsync#<id>`, `FT#endVsync#<id>`, `J<NAME>#UIThread`), as
//! Perfetto's `android.cujs.base` module reads them (docs/cujs.md).

use foldhash::HashMap;

use crate::model::{Name, Slice, SliceId, Trace, TrackKind, Upid, Utid};
use crate::perfetto_sql::cast_int;

/// A CUJ slice with the values its markers carry.
#[derive(Debug, Clone)]
pub(crate) struct CujSlice {
    pub upid: Upid,
    pub slice: SliceId,
    pub name: Name,
    pub ts: i64,
    pub ts_end: i64,
    pub canceled: bool,
    pub ended: bool,
    pub ui_thread: Option<Utid>,
    pub layer_id: Option<i64>,
    pub begin_vsync: Option<i64>,
    pub end_vsync: Option<i64>,
}

/// `J<…>`: Perfetto's `GLOB 'J<*>'`.
fn is_cuj_name(name: &str) -> bool {
    name.len() >= 3 && name.starts_with("J<") && name.ends_with('>')
}

/// The processes whose CUJs Perfetto reads: the platform's and Google's apps
/// (SystemUI, Launcher), which instrument with `InteractionJankMonitor`.
fn is_cuj_process(name: Option<&str>) -> bool {
    name.is_some_and(|n| n.starts_with("com.google.android") || n.starts_with("com.android."))
}

/// The CUJ slices in (ts, slice id) order, which is `cuj_id` order.
fn cuj_slices(trace: &Trace) -> Vec<CujSlice> {
    trace
        .slices
        .iter()
        .filter(|s| s.dur > 0 && is_cuj_name(&s.name))
        .filter_map(|s| {
            let TrackKind::ProcessAsync { upid } = trace.track(s.track).kind else { return None };
            is_cuj_process(trace.process(upid).name.as_deref()).then(|| CujSlice {
                upid,
                slice: s.id,
                name: s.name.clone(),
                ts: s.ts,
                ts_end: s.ts + s.dur,
                canceled: false,
                ended: false,
                ui_thread: None,
                layer_id: None,
                begin_vsync: None,
                end_vsync: None,
            })
        })
        .collect()
}

/// What a marker says, by Perfetto's first matching pattern (so
/// `FT#endVsync#<id>` also marks the end, and `FT#beginVsync#<id>` a begin).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MarkerType {
    Begin,
    DeferMonitoring,
    End,
    Cancel,
    LayerId,
    UiThread,
    Other,
}

fn marker_type(name: &str) -> MarkerType {
    if name.contains("FT#begin") {
        MarkerType::Begin
    } else if name.contains("FT#deferMonitoring") {
        MarkerType::DeferMonitoring
    } else if name.contains("FT#end") {
        MarkerType::End
    } else if name.contains("FT#cancel") {
        MarkerType::Cancel
    } else if name.contains("FT#layerId") {
        MarkerType::LayerId
    } else if name.ends_with("#UIThread") {
        MarkerType::UiThread
    } else {
        MarkerType::Other
    }
}

/// The integer after `key` (`str_split(name, key, 1)` cast as SQLite does).
fn value_after(name: &str, key: &str) -> Option<i64> {
    let rest = &name[name.find(key)? + key.len()..];
    let piece = rest.find(key).map_or(rest, |end| &rest[..end]);
    Some(cast_int(piece))
}

/// The CUJ slice name a marker belongs to: `J<NAME>#FT#…` and
/// `J<NAME>#UIThread` by their name, `FT#…` by their track's name.
fn marker_owner<'a>(trace: &'a Trace, s: &'a Slice) -> Option<&'a str> {
    let name: &str = &s.name;
    if let Some(pos) = name.find("#FT#") {
        return Some(&name[..pos]);
    }
    if let Some(owner) = name.strip_suffix("#UIThread") {
        return Some(owner);
    }
    if name.starts_with("FT#") {
        return trace.track(s.track).name.as_deref();
    }
    None
}

/// Every CUJ slice with its markers applied.
pub(crate) fn read(trace: &Trace) -> Vec<CujSlice> {
    let mut cujs = cuj_slices(trace);
    if cujs.is_empty() {
        return cujs;
    }
    // Per CUJ name, its slices by start with the running maximum end, so a
    // marker finds the CUJs it falls in without scanning them all.
    let mut by_name: HashMap<Name, (Vec<usize>, Vec<i64>)> = HashMap::default();
    for (i, c) in cujs.iter().enumerate() {
        let (idx, max_end) = by_name.entry(c.name.clone()).or_default();
        let prev = max_end.last().copied().unwrap_or(i64::MIN);
        idx.push(i);
        max_end.push(prev.max(c.ts_end));
    }
    for s in &trace.slices {
        let Some(owner) = marker_owner(trace, s) else { continue };
        let Some((idx, max_end)) = by_name.get(owner) else { continue };
        let kind = marker_type(&s.name);
        let ui_thread = match trace.track(s.track).kind {
            TrackKind::Thread { utid } => Some(utid),
            _ => None,
        };
        // CUJs that started at or before the marker and end after it.
        let upto = idx.partition_point(|&i| cujs[i].ts <= s.ts);
        for k in (0..upto).rev() {
            if max_end[k] <= s.ts {
                break;
            }
            let c = &mut cujs[idx[k]];
            if c.ts_end <= s.ts {
                continue;
            }
            apply(c, kind, &s.name, ui_thread);
        }
    }
    cujs
}

/// One marker's effect on its CUJ (the maximum of each value, as Perfetto
/// aggregates them).
fn apply(c: &mut CujSlice, kind: MarkerType, name: &str, thread: Option<Utid>) {
    match kind {
        MarkerType::Cancel => c.canceled = true,
        MarkerType::End => c.ended = true,
        MarkerType::UiThread => c.ui_thread = c.ui_thread.max(thread),
        MarkerType::Begin | MarkerType::DeferMonitoring | MarkerType::LayerId | MarkerType::Other => {}
    }
    let max = |cur: Option<i64>, key: &str| match value_after(name, key) {
        Some(v) => Some(cur.map_or(v, |c| c.max(v))),
        None => cur,
    };
    c.layer_id = max(c.layer_id, "layerId#");
    c.begin_vsync = max(c.begin_vsync, "beginVsync#");
    c.end_vsync = max(c.end_vsync, "endVsync#");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_types_follow_perfettos_first_match() {
        assert_eq!(marker_type("FT#beginVsync#20"), MarkerType::Begin);
        assert_eq!(marker_type("FT#endVsync#30"), MarkerType::End);
        assert_eq!(marker_type("J<X>#FT#cancel#0"), MarkerType::Cancel);
        assert_eq!(marker_type("FT#layerId#7"), MarkerType::LayerId);
        assert_eq!(marker_type("J<X>#UIThread"), MarkerType::UiThread);
        assert_eq!(marker_type("FT#deferMonitoring"), MarkerType::DeferMonitoring);
        assert_eq!(marker_type("FT#MissedHWUICallback#5"), MarkerType::Other);
    }

    #[test]
    fn values_are_read_like_sqlite_casts() {
        assert_eq!(value_after("FT#layerId#12", "layerId#"), Some(12));
        assert_eq!(value_after("J<A>#FT#beginVsync#40#extra", "beginVsync#"), Some(40));
        assert_eq!(value_after("FT#layerId#x", "layerId#"), Some(0));
        assert_eq!(value_after("FT#begin", "beginVsync#"), None);
    }

    #[test]
    fn cuj_names() {
        assert!(is_cuj_name("J<SHADE_ROW_EXPAND>"));
        assert!(!is_cuj_name("J<SHADE_ROW_EXPAND>#UIThread"));
        assert!(!is_cuj_name("L<LATENCY>"));
        assert!(is_cuj_process(Some("com.android.systemui")));
        assert!(is_cuj_process(Some("com.google.android.apps.nexuslauncher")));
        assert!(!is_cuj_process(Some("com.example.app")));
    }
}
