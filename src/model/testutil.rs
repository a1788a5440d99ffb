//! Test-only builder of `model::Trace` values: processes, threads with their
//! slice tracks, nested slices (depth/parent computed like the reader does),
//! process counters, FrameTimeline slices and scheduler events.

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::*;

#[derive(Default)]
pub struct TB {
    t: Trace,
    thread_track: HashMap<i32, TrackId>,
    counter_track: HashMap<(i32, String), TrackId>,
    raw: Vec<(i64, i64, String, TrackId)>,
}

impl TB {
    pub fn new() -> TB {
        TB::default()
    }

    fn upid(&self, pid: i32) -> Upid {
        self.t.processes.iter().find(|p| p.pid == pid).map(|p| p.upid).expect("process first")
    }

    pub fn process(&mut self, pid: i32, name: &str) -> &mut Self {
        let upid = Upid::next_of(self.t.processes.len());
        self.t.processes.push(Process { upid, pid, name: Some(name.into()), ..Default::default() });
        self
    }

    pub fn thread(&mut self, tid: i32, pid: i32, name: &str) -> &mut Self {
        let upid = self.upid(pid);
        let utid = Utid::next_of(self.t.threads.len());
        self.t.threads.push(Thread { utid, tid, upid: Some(upid), name: Some(name.into()) });
        let id = TrackId::next_of(self.t.tracks.len());
        self.t.tracks.push(Track { id, name: None, kind: TrackKind::Thread { utid } });
        self.thread_track.insert(tid, id);
        self
    }

    /// A slice on thread `tid`; `dur` -1 = never ended.
    pub fn slice(&mut self, tid: i32, ts: i64, dur: i64, name: &str) -> &mut Self {
        let track = self.thread_track[&tid];
        self.raw.push((ts, dur, name.to_string(), track));
        self
    }

    /// A slice (`dur` 0: an instant) on process `pid`'s async track `track`.
    pub fn async_slice(&mut self, pid: i32, track: &str, ts: i64, dur: i64, name: &str) -> &mut Self {
        let upid = self.upid(pid);
        let kind = TrackKind::ProcessAsync { upid };
        let id = match self.t.tracks.iter().find(|t| t.kind == kind && t.name.as_deref() == Some(track)) {
            Some(t) => t.id,
            None => {
                let id = TrackId::next_of(self.t.tracks.len());
                self.t.tracks.push(Track { id, name: Some(track.into()), kind });
                id
            }
        };
        self.raw.push((ts, dur, name.to_string(), id));
        self
    }

    pub fn counter(&mut self, pid: i32, name: &str, ts: i64, value: f64) -> &mut Self {
        let upid = self.upid(pid);
        let key = (pid, name.to_string());
        let track = match self.counter_track.get(&key) {
            Some(&t) => t,
            None => {
                let id = TrackId::next_of(self.t.tracks.len());
                self.t.tracks.push(Track { id, name: Some(name.into()), kind: TrackKind::ProcessCounter { upid } });
                self.counter_track.insert(key, id);
                id
            }
        };
        self.t.counters.push(CounterSample { ts, value, track });
        self
    }

    fn ft(&mut self, kind: TimelineKind, pid: i32, token: i64, ts: i64, dur: i64) -> &mut TimelineSlice {
        let upid = self.t.processes.iter().find(|p| p.pid == pid).map(|p| p.upid);
        self.t.frame_timeline.push(TimelineSlice {
            kind,
            ts,
            dur,
            token,
            display_frame_token: None,
            pid,
            upid,
            layer_name: None,
            jank_type: None,
            present_type: None,
            on_time_finish: None,
            gpu_composition: None,
            prediction_type: None,
            jank_severity_type: None,
            jank_tag: None,
            present_delay_ms: None,
        });
        self.t.frame_timeline.last_mut().unwrap()
    }

    pub fn expected_surface(&mut self, pid: i32, token: i64, ts: i64, dur: i64) -> &mut Self {
        self.ft(TimelineKind::ExpectedSurface, pid, token, ts, dur);
        self
    }

    pub fn expected_display(&mut self, pid: i32, token: i64, ts: i64, dur: i64) -> &mut Self {
        self.ft(TimelineKind::ExpectedDisplay, pid, token, ts, dur);
        self
    }

    pub fn actual_display(&mut self, pid: i32, token: i64, ts: i64, dur: i64) -> &mut Self {
        let s = self.ft(TimelineKind::ActualDisplay, pid, token, ts, dur);
        s.jank_type = Some("None".into());
        s.present_type = Some(PresentType::OnTime);
        self
    }

    #[allow(clippy::too_many_arguments)]
    pub fn actual_surface(
        &mut self,
        pid: i32,
        token: i64,
        ts: i64,
        dur: i64,
        layer: &str,
        jank: &str,
        present: PresentType,
    ) -> &mut Self {
        let s = self.ft(TimelineKind::ActualSurface, pid, token, ts, dur);
        s.layer_name = Some(layer.into());
        s.jank_type = Some(jank.into());
        s.present_type = Some(present);
        self
    }

    pub fn sched(&mut self, e: SchedEvent) -> &mut Self {
        match self.t.sched.iter_mut().find(|t| t[0].tid() == e.tid()) {
            Some(thread) => thread.push(e),
            None => self.t.sched.push(vec![e]),
        }
        self
    }

    /// Sorts everything like the reader (by ts; at equal ts the longer slice,
    /// then the earlier call, first) and computes depth and parent per track.
    pub fn build(&mut self) -> Trace {
        let mut t = std::mem::take(&mut self.t);
        let mut raw = std::mem::take(&mut self.raw);
        let mut order: Vec<usize> = (0..raw.len()).collect();
        let key = |d: i64| if d < 0 { i64::MAX } else { d };
        order.sort_by_key(|&i| (raw[i].0, std::cmp::Reverse(key(raw[i].1)), i));
        let mut stacks: HashMap<TrackId, Vec<(SliceId, i64)>> = HashMap::new();
        for (id, &i) in order.iter().enumerate() {
            let (ts, dur, name, track) = std::mem::take(&mut raw[i]);
            let st = stacks.entry(track).or_default();
            while st.last().is_some_and(|&(_, end)| end <= ts) {
                st.pop();
            }
            let parent = st.last().map(|x| x.0);
            let depth = st.len() as u32;
            let end = if dur < 0 { i64::MAX } else { ts + dur };
            st.push((SliceId::next_of(id), end));
            t.slices.push(Slice {
                id: SliceId::next_of(id),
                ts,
                dur,
                name: Arc::from(name.as_str()),
                category: None,
                track,
                depth,
                parent,
            });
        }
        t.counters.sort_by_key(|c| c.ts);
        t.frame_timeline.sort_by_key(|f| f.ts);
        t.sched.sort_by_key(|t| t[0].tid());
        for thread in &mut t.sched {
            thread.sort_by_key(|e| e.ts());
        }
        t.meta.first_ts = t.slices.first().map(|s| s.ts);
        t.meta.last_ts = t.slices.iter().map(|s| s.end().unwrap_or(s.ts)).max();
        t
    }
}
