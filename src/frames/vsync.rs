//! Which vsync a frame belongs to (docs/frames.md, "Vsync") and the trace-wide vsync series:
//! SurfaceFlinger's `VSYNC-app` counter edges, Choreographer's `jitterNanos`
//! counter per process, and the vsync grid fitted to a thread's doFrame starts.

use foldhash::HashMap;

use crate::model::{Trace, TrackKind, Upid};

pub const VSYNC_APP: &str = "VSYNC-app";
pub const JITTER_NANOS: &str = "jitterNanos";

#[derive(Debug, Default)]
pub struct CounterIndex {
    /// Every `VSYNC-app` sample (each one is a vsync callback: the counter
    /// toggles 0/1 per callback), sorted.
    pub vsync_app: Vec<i64>,
    /// upid -> `jitterNanos` samples (ts, value), sorted.
    pub jitter: HashMap<Upid, Vec<(i64, f64)>>,
}

impl CounterIndex {
    pub fn new(trace: &Trace) -> CounterIndex {
        let mut ix = CounterIndex::default();
        // Classify tracks once, then one pass over the samples.
        #[derive(Clone, Copy)]
        enum Role {
            None,
            VsyncApp,
            Jitter(Upid),
        }
        let roles: Vec<Role> = trace
            .tracks
            .iter()
            .map(|t| match t.name.as_deref() {
                Some(VSYNC_APP) => Role::VsyncApp,
                Some(JITTER_NANOS) => {
                    let upid = match t.kind {
                        TrackKind::ProcessCounter { upid } => Some(upid),
                        TrackKind::ThreadCounter { utid } => trace.thread(utid).upid,
                        _ => None,
                    };
                    upid.map(Role::Jitter).unwrap_or(Role::None)
                }
                _ => Role::None,
            })
            .collect();
        for c in &trace.counters {
            match roles.get(c.track.index()).copied().unwrap_or(Role::None) {
                Role::VsyncApp => ix.vsync_app.push(c.ts),
                Role::Jitter(u) => ix.jitter.entry(u).or_default().push((c.ts, c.value)),
                Role::None => {}
            }
        }
        ix.vsync_app.sort_unstable();
        ix
    }

    /// The `VSYNC-app` edge that delivered a frame starting at `ts`: the latest
    /// edge at or before `ts` and after `after` (the previous frame's start on
    /// the same thread: a frame's vsync cannot precede it).
    pub fn vsync_app_edge(&self, ts: i64, after: i64) -> Option<i64> {
        let i = self.vsync_app.partition_point(|&x| x <= ts);
        let e = *self.vsync_app.get(i.checked_sub(1)?)?;
        (e > after).then_some(e)
    }

    /// Choreographer's commit-phase `jitterNanos` sample of a frame: the last
    /// sample of the process in `[ts, commit_ts]` (it is written just before the
    /// `commit` slice begins). Returns (sample ts, jitter ns). The value is an
    /// `(int)` cast of a long: a negative value is a jitter above 2^31 ns that
    /// wrapped, so 2^32 is added back.
    pub fn jitter_sample(&self, upid: Upid, ts: i64, commit_ts: i64) -> Option<(i64, i64)> {
        let v = self.jitter.get(&upid)?;
        let i = v.partition_point(|&(t, _)| t <= commit_ts);
        let (t, val) = *v.get(i.checked_sub(1)?)?;
        if t < ts {
            return None;
        }
        let mut j = val as i64;
        if j < 0 {
            j += 1i64 << 32;
        }
        Some((t, j))
    }
}

/// Frames each side of a frame used to fit its thread's vsync grid.
const GRID_WINDOW: usize = 16;
/// Fewer starts than this do not define a grid.
const GRID_MIN_FRAMES: usize = 4;
/// Starts further than this from the frame are not used (phase drift).
const GRID_MAX_SPAN: i64 = 1_000_000_000;

/// The vsync of frame `k` on a grid fitted to the thread's doFrame starts.
///
/// `starts[j]`, `intervals[j]`: the thread's frames in start order. The frames
/// within ±16 of `k` that share its interval and lie within 1 s give offsets
/// `(start − starts[k]) mod I`. doFrames start shortly after their vsync, so the
/// offsets bunch just after the grid phase: the phase is the offset that ends
/// the largest empty circular gap. The vsync is the latest grid point at or
/// before the frame's start, so jitter is in [0, I) and skipped frames are not
/// visible with this source.
pub fn grid_vsync(starts: &[i64], intervals: &[i64], k: usize) -> Option<i64> {
    let i = intervals[k];
    let t0 = starts[k];
    if i <= 0 {
        return None;
    }
    let lo = k.saturating_sub(GRID_WINDOW);
    let hi = (k + GRID_WINDOW + 1).min(starts.len());
    let mut offs: Vec<i64> = (lo..hi)
        .filter(|&j| intervals[j] == i && (starts[j] - t0).abs() <= GRID_MAX_SPAN)
        .map(|j| (starts[j] - t0).rem_euclid(i))
        .collect();
    if offs.len() < GRID_MIN_FRAMES {
        return None;
    }
    offs.sort_unstable();
    offs.dedup();
    // Gap before offs[0] wraps around from the last offset.
    let mut best_gap = offs[0] + i - offs[offs.len() - 1];
    let mut phase = offs[0];
    for w in offs.windows(2) {
        let g = w[1] - w[0];
        if g > best_gap {
            best_gap = g;
            phase = w[1];
        }
    }
    // Grid points are t0 + phase + n·I; the latest one at or before t0:
    Some(t0 - (i - phase) % i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_from_noisy_starts() {
        // Vsync grid at 1_000_000 + n·16_666_667; doFrames start 0.3–1.5 ms
        // after their vsync, frame 3 starts 9 ms after its vsync.
        let i = 16_666_667;
        let lat = [300_000, 1_500_000, 500_000, 9_000_000, 800_000, 400_000];
        let starts: Vec<i64> = lat.iter().enumerate().map(|(n, l)| 1_000_000 + n as i64 * i + l).collect();
        let ints = vec![i; starts.len()];
        // The phase is the earliest start in the cluster: grid at vsync + 0.3 ms.
        // Frame 3: start = 1_000_000 + 3·16_666_667 + 9_000_000 = 60_000_001;
        // vsync = 1_000_000 + 50_000_001 + 300_000 = 51_300_001.
        assert_eq!(grid_vsync(&starts, &ints, 3), Some(51_300_001));
        // Frame 1: 1_000_000 + 16_666_667 + 300_000 = 17_966_667.
        assert_eq!(grid_vsync(&starts, &ints, 1), Some(17_966_667));
        // Too few frames.
        assert_eq!(grid_vsync(&starts[..3], &ints[..3], 1), None);
    }
}
