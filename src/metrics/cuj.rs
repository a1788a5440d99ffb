//! Jank CUJs as scenes (docs/metrics.md, "Jank CUJs"): each app's CUJs by
//! name, with fpsan's frames of them summarised as any scene is.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::{AppSummary, SceneSummary};
use crate::cujs::{CujAnalysis, CujState};
use crate::frames::{FrameAnalysis, FrameRow};

/// One CUJ name of an app, over every instance of it in the trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CujSummary {
    /// `J<NAME>`, as the instrumentation names it.
    pub cuj: String,
    /// Instances (slices), and how many ended and were canceled (the rest
    /// have no state marker).
    pub instances: i64,
    pub completed: i64,
    pub canceled: i64,
    /// The counted instances' time on the UI thread, summed.
    pub dur_ns: i64,
    /// FrameTimeline's vsyncs in the counted instances (Perfetto's
    /// `android_jank_cuj_slice_summary` counts), summed; null without any.
    pub timeline_frames: Option<i64>,
    pub missed_app_frames: Option<i64>,
    pub missed_sf_frames: Option<i64>,
    /// fpsan's frames of the counted instances: their doFrames on the CUJ's
    /// UI thread, with the same fps and drop-level formulas as any scene
    /// (its `scene` is the CUJ name); null when none drew.
    pub frames: Option<SceneSummary>,
}

/// Fill each app's `cujs` from the CUJs of its process.
pub fn attach(apps: &mut [AppSummary], frames: &FrameAnalysis, cujs: &CujAnalysis) {
    if cujs.cujs.is_empty() {
        return;
    }
    let mut per_app = summaries(frames, cujs);
    for a in apps {
        a.cujs = per_app.remove(&a.pid).unwrap_or_default();
    }
}

/// Every CUJ name's summary per pid, in order of first start.
fn summaries(frames: &FrameAnalysis, cujs: &CujAnalysis) -> HashMap<i32, Vec<CujSummary>> {
    // Each counted instance's frames, summarised as a scene named by the
    // CUJ: a frame in two CUJs is counted in both.
    // CUJ: a frame in two CUJs is counted in both, a frame in two instances
    // of one CUJ once (as `compare` counts it).
    let mut groups: HashMap<(i32, &str), Vec<usize>> = HashMap::new();
    for c in cujs.cujs.iter().filter(|c| c.counted) {
        groups.entry((c.pid, &c.slice_name)).or_default().extend(&c.frames);
    }
    let mut frame_summaries: HashMap<(i32, String), SceneSummary> = groups
        .into_iter()
        .filter(|(_, indices)| !indices.is_empty())
        .map(|((pid, name), mut indices)| {
            indices.sort_unstable();
            indices.dedup();
            let mut rows: Vec<&FrameRow> = indices.iter().map(|&i| &frames.rows[i]).collect();
            rows.sort_by_key(|r| r.ts);
            ((pid, name.to_string()), super::summary::scene(name, &rows))
        })
        .collect();
    let mut out: HashMap<i32, BTreeMap<(i64, String), CujSummary>> = HashMap::new();
    let mut first: HashMap<(i32, &str), i64> = HashMap::new();
    for c in &cujs.cujs {
        first.entry((c.pid, &c.slice_name)).or_insert(c.ts);
    }
    for c in &cujs.cujs {
        let key = (first[&(c.pid, &*c.slice_name)], c.slice_name.to_string());
        let s = out.entry(c.pid).or_default().entry(key).or_insert_with(|| CujSummary {
            cuj: c.slice_name.to_string(),
            instances: 0,
            completed: 0,
            canceled: 0,
            dur_ns: 0,
            timeline_frames: None,
            missed_app_frames: None,
            missed_sf_frames: None,
            frames: frame_summaries.remove(&(c.pid, c.slice_name.to_string())),
        });
        s.instances += 1;
        match c.state {
            Some(CujState::Completed) => s.completed += 1,
            Some(CujState::Canceled) => s.canceled += 1,
            None => {}
        }
        if !c.counted {
            continue;
        }
        let (ts, end) = c.span();
        s.dur_ns += end - ts;
        if let Some(t) = c.timeline {
            let add = |v: &mut Option<i64>, n: i64| *v = Some(v.unwrap_or(0) + n);
            add(&mut s.timeline_frames, t.frames);
            add(&mut s.missed_app_frames, t.missed_app_frames);
            add(&mut s.missed_sf_frames, t.missed_sf_frames);
        }
    }
    out.into_iter().map(|(pid, m)| (pid, m.into_values().collect())).collect()
}
