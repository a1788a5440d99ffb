//! The display's vsync grid: the period every layer is shown on, shared by
//! all apps. One process's series of frames is no measure of it (an app that
//! draws every second or third vsync is still on a 60 Hz panel), so the grid
//! is read from SurfaceFlinger's own clocks: the hardware vsync counter
//! (`HW_VSYNC_<display>`), `VSYNC-sf`, `VSYNC-app`. Each ticks only when its
//! callback is asked for, so each may skip vsyncs (`VSYNC-sf` toggles every
//! other vsync when SurfaceFlinger composes every other frame of a 90 Hz
//! panel, while `VSYNC-app` ticks every 11.1 ms): skipping only makes a
//! series slower, so the panel's period is the shortest any of them measures
//! there. Then FrameTimeline's display and surface frames' expected starts,
//! which only exist on vsyncs something was drawn on and so are believed only
//! when no counter measures a period and they give a standard refresh rate no
//! slower than the fallback (the frames' most common interval, else 60 Hz):
//! FrameTimeline alone cannot tell a 30 Hz panel from an app drawing every
//! other vsync of a 60 Hz one.

use super::interval::{is_standard, PeriodSeries, SeriesKind};
use crate::model::{TimelineKind, Trace};

/// A series is looked up at its sample nearest to the time asked, if that
/// sample is this close.
const MAX_DIST: i64 = 500_000_000;
/// A counter whose nearest period lies this much further from the time asked
/// than another counter's is not current there: it stopped ticking (its
/// callbacks were not asked for) and may hold the rate from before a switch.
const CURRENT_SLACK: i64 = 100_000_000;

/// One source of vsync times and whether any period it measures is believed.
#[derive(Debug, Clone, Default)]
struct Source {
    series: PeriodSeries,
    /// Counters tick on every vsync; FrameTimeline starts only on drawn ones.
    dense: bool,
}

/// The display's vsync period at any time of a trace (built once, by the
/// frames stage, which hands it on in `FrameAnalysis::display`).
#[derive(Debug, Clone, Default)]
pub struct DisplayGrid {
    sources: Vec<Source>,
}

impl DisplayGrid {
    /// The grid of `trace`.
    pub fn new(trace: &Trace) -> DisplayGrid {
        let mut hw: Vec<(usize, Vec<i64>)> = Vec::new();
        let (mut sf, mut app) = (Vec::new(), Vec::new());
        let mut role: Vec<Option<usize>> = vec![None; trace.tracks.len()];
        const SF: usize = usize::MAX;
        const APP: usize = usize::MAX - 1;
        for (i, t) in trace.tracks.iter().enumerate() {
            match t.name.as_deref() {
                Some(n) if is_hw_vsync(n) => {
                    role[i] = Some(hw.len());
                    hw.push((i, Vec::new()));
                }
                Some("VSYNC-sf") => role[i] = Some(SF),
                Some("VSYNC-app") => role[i] = Some(APP),
                _ => {}
            }
        }
        for c in &trace.counters {
            match role.get(c.track.index()).copied().flatten() {
                Some(SF) => sf.push(c.ts),
                Some(APP) => app.push(c.ts),
                Some(k) => hw[k].1.push(c.ts),
                None => {}
            }
        }
        // A device with two panels has a counter per display: the one that
        // ticked most is the one in use.
        let hw = hw.into_iter().map(|(_, v)| v).max_by_key(Vec::len).unwrap_or_default();
        let starts = |kind: TimelineKind| {
            let mut v: Vec<i64> = trace.frame_timeline.iter().filter(|f| f.kind == kind).map(|f| f.ts).collect();
            v.sort_unstable();
            v
        };
        let mut sources = Vec::new();
        for (mut ts, kind) in [
            (hw, SeriesKind::Counter),
            (sf, SeriesKind::Counter),
            (app, SeriesKind::Counter),
            (starts(TimelineKind::ExpectedDisplay), SeriesKind::FrameTimeline),
            (starts(TimelineKind::ExpectedSurface), SeriesKind::FrameTimeline),
        ] {
            if ts.len() >= 2 {
                ts.sort_unstable();
                let dense = kind == SeriesKind::Counter;
                sources.push(Source { series: PeriodSeries::new(ts, kind), dense });
            }
        }
        DisplayGrid { sources }
    }

    /// The vsync period at `t` if one of SurfaceFlinger's vsync counters
    /// measures one there: the shortest of the counters current at `t` (each
    /// skips the vsyncs its callbacks were not asked for).
    pub fn counted_at(&self, t: i64) -> Option<i64> {
        let found: smallvec::SmallVec<[(i64, i64); 4]> =
            self.sources.iter().filter(|s| s.dense).filter_map(|s| s.series.nearest(t, MAX_DIST)).collect();
        let closest = found.iter().map(|&(d, _)| d).min()?;
        found.iter().filter(|&&(d, _)| d <= closest + CURRENT_SLACK).map(|&(_, p)| p).min()
    }

    /// The vsync period at `t`; `fallback` where nothing measures one.
    pub fn period_at(&self, t: i64, fallback: i64) -> i64 {
        if let Some(p) = self.counted_at(t) {
            return p;
        }
        // A sparse series' gaps span skipped vsyncs: only a standard rate at
        // least as fast as the fallback's (within 15 %) is the panel's.
        let believed = |p: i64| is_standard(p) && p * 100 <= fallback * 115;
        self.sources
            .iter()
            .filter(|s| !s.dense)
            .find_map(|s| s.series.at(t, MAX_DIST).filter(|&p| believed(p)))
            .unwrap_or(fallback)
    }
}

/// `HW_VSYNC_0`, `HW_VSYNC_4619827259835644672`: the hardware vsync of a
/// display, toggled on every edge (`HW_VSYNC_ON_0` is its on/off state).
fn is_hw_vsync(name: &str) -> bool {
    name.strip_prefix("HW_VSYNC_").is_some_and(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
}
