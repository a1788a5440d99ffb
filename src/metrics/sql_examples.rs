//! The SQL in `queries/` held to the summaries: each documented example,
//! run by polars over a frames table, gives the numbers the Rust summaries
//! (`summary`, `crate::series`) computed for the same frames. Every
//! hand-computed summary test runs through [`agree`], and so do the demo and
//! a generated trace (`sql_examples_agree_on_real_analyses`).

use std::collections::{BTreeMap, HashMap};

use polars::prelude::DataFrame;

use super::sql::{
    run_all, Row, Rows, APP_SUMMARY, FPS_WALL, JANK_TAGS, JANK_TYPES, PERCENTILES, PERFDOG, SCENES, VSYNC_SOURCES,
    WORST_FRAMES,
};
use super::{AppSummary, Levels, Percentiles};
use crate::frames::DropLevel;

/// Equal, or both undefined (NaN / null), or within a rounding error.
fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-9 * a.abs().max(1.0)
}

fn levels(r: &Row, suffix: &str) -> Levels {
    let mut v = [0i64; 5];
    for (k, level) in DropLevel::ALL.iter().enumerate() {
        v[k] = r.i64(&format!("{}_{suffix}", level.as_str().to_lowercase())).unwrap();
    }
    Levels(v)
}

fn percentiles(r: &Row, base: &str) -> Percentiles {
    let g = |p: &str| r.opt_i64(&format!("{base}_{p}")).unwrap();
    Percentiles { p50: g("p50"), p90: g("p90"), p95: g("p95"), p99: g("p99"), max: g("max") }
}

/// Rows of a per-app result, grouped by pid.
fn by_pid<'a>(rows: &'a Rows<'a>) -> HashMap<i32, Vec<Row<'a>>> {
    let mut m: HashMap<i32, Vec<Row>> = HashMap::new();
    for r in rows.iter() {
        m.entry(r.i64("pid").unwrap() as i32).or_default().push(r);
    }
    m
}

/// Asserts that every example in `queries/` over `frames` and the trace's
/// `frame_timeline` table gives the numbers of `apps` (the summaries of the
/// same frames and trace).
pub(super) fn agree(frames: &DataFrame, frame_timeline: &DataFrame, apps: &[AppSummary]) {
    let [summary, pct, wall, jank, tags, vsync, pd, sc, worst] = run_all(
        frames,
        frame_timeline,
        [APP_SUMMARY, PERCENTILES, FPS_WALL, JANK_TYPES, JANK_TAGS, VSYNC_SOURCES, PERFDOG, SCENES, WORST_FRAMES],
    )
    .expect("the SQL examples run");
    let with_frames: Vec<&AppSummary> = apps.iter().filter(|a| a.frames > 0).collect();
    let summary = Rows::new(&summary);
    let rows: Vec<Row> = summary.iter().collect();
    assert_eq!(rows.len(), with_frames.len(), "app_summary.sql: one row per app with frames");
    for (r, a) in rows.iter().zip(&with_frames) {
        let pid = a.pid;
        // The summaries here have no presents: what reached the screen is
        // their drawn doFrames, which the SQL orders by.
        assert_eq!(r.i64("pid").unwrap() as i32, pid, "app_summary.sql orders apps as the summaries");
        assert_eq!(r.opt_str("process").unwrap(), a.process, "process of {pid}");
        for (name, want) in [
            ("frames", a.frames),
            ("min_frame_interval_ns", a.frame_interval_ns),
            ("paced_ns", a.paced_ns),
            ("first_ts", a.first_ts),
            ("wall_end_ts", a.wall_end_ts),
            ("dropped_frames", a.dropped_frames),
            ("skipped_frame_events", a.jank.choreographer.skipped_frame_events),
            ("skipped_frames_in_events", a.jank.choreographer.skipped_frames),
            ("max_skipped_frames", a.jank.choreographer.max_skipped_frames),
            ("perfetto_frames", a.jank.perfetto.frames_with_data),
            ("perfetto_jank", a.jank.perfetto.jank),
            ("perfetto_slow", a.jank.perfetto.slow),
            ("perfetto_big_jank", a.jank.perfetto.big_jank),
            ("perfetto_huge_jank", a.jank.perfetto.huge_jank),
            ("without_render_thread", a.quality.without_render_thread),
            ("without_timeline", a.quality.without_timeline),
            ("drawn_frames", a.screen.drawn_frames),
        ] {
            assert_eq!(r.i64(name).unwrap(), want, "app_summary.sql {name} of {pid}");
        }
        // The vitals are the doFrames' unless the app is judged by presents
        // (then they are its presents': docs/metrics.md, "Android vitals").
        if a.headline.source == super::HeadlineSource::Frames {
            assert_eq!(r.i64("vitals_slow").unwrap(), a.jank.vitals.slow, "app_summary.sql vitals_slow of {pid}");
            assert_eq!(r.i64("vitals_frozen").unwrap(), a.jank.vitals.frozen, "app_summary.sql vitals_frozen of {pid}");
        }
        assert!(same(r.f64("fps").unwrap(), a.fps), "app_summary.sql fps of {pid}");
        assert!(same(r.f64("refresh_hz").unwrap(), a.refresh_hz), "app_summary.sql refresh_hz of {pid}");
        assert_eq!(levels(r, "frames"), a.drop_level, "app_summary.sql levels of {pid}");
        assert_eq!(levels(r, "dropped"), a.drop_sum, "app_summary.sql dropped per level of {pid}");
    }
    let pct = Rows::new(&pct);
    for (pid, r) in by_pid(&pct) {
        let a = app(apps, pid);
        assert_eq!(percentiles(&r[0], "frame_cost"), a.frame_cost_ns, "percentiles.sql frame cost of {pid}");
        assert_eq!(percentiles(&r[0], "do_frame_dur"), a.do_frame_dur, "percentiles.sql doFrame of {pid}");
        assert_eq!(percentiles(&r[0], "overrun_ns"), a.overrun_ns, "percentiles.sql overrun of {pid}");
    }
    let wall = Rows::new(&wall);
    for (pid, r) in by_pid(&wall) {
        let got: Vec<(i64, i64)> = r.iter().map(|r| (r.i64("window").unwrap(), r.i64("frames").unwrap())).collect();
        let want: Vec<(i64, i64)> = app(apps, pid)
            .fps_wall_timeline
            .iter()
            .enumerate()
            .filter(|(_, w)| w.frames > 0)
            .map(|(k, w)| (k as i64, w.frames))
            .collect();
        assert_eq!(got, want, "fps_wall.sql windows of {pid}");
    }
    let counted = |df: &DataFrame, key: &str, kind: Option<&str>| -> HashMap<i32, BTreeMap<String, i64>> {
        let rows = Rows::new(df);
        let mut m: HashMap<i32, BTreeMap<String, i64>> = HashMap::new();
        for r in rows.iter() {
            if kind.is_some_and(|k| r.str("kind").unwrap() != k) {
                continue;
            }
            if let Some(name) = r.opt_str(key).unwrap() {
                m.entry(r.i64("pid").unwrap() as i32).or_default().insert(name, r.i64("frames").unwrap());
            }
        }
        m
    };
    for a in apps {
        let get = |m: &HashMap<i32, BTreeMap<String, i64>>| m.get(&a.pid).cloned().unwrap_or_default();
        assert_eq!(get(&counted(&jank, "jank", None)), a.jank.frame_timeline, "jank_types.sql of {}", a.pid);
        assert_eq!(get(&counted(&tags, "name", Some("tag"))), a.jank.frame_timeline_tags, "jank_tags.sql of {}", a.pid);
        assert_eq!(
            get(&counted(&tags, "name", Some("severity"))),
            a.jank.frame_timeline_severity,
            "jank_tags.sql severities of {}",
            a.pid
        );
        assert_eq!(
            get(&counted(&vsync, "vsync_source", None)),
            a.quality.vsync_sources,
            "vsync_sources.sql of {}",
            a.pid
        );
    }
    let pd = Rows::new(&pd);
    for (pid, r) in by_pid(&pd) {
        let a = app(apps, pid);
        // The example computes PerfDog on doFrames; an app with a layer that
        // presented is read on that layer's presents instead.
        if a.jank.perfdog_layer.is_none() {
            let d = &a.jank.perfdog;
            let got = [r[0].i64("jank"), r[0].i64("big_jank"), r[0].i64("jank_time_ns"), r[0].i64("total_time_ns")]
                .map(Result::unwrap);
            assert_eq!(got, [d.jank, d.big_jank, d.jank_time_ns, d.total_time_ns], "perfdog.sql of {pid}");
        }
    }
    let sc = Rows::new(&sc);
    for (pid, r) in by_pid(&sc) {
        let scenes = &app(apps, pid).scenes;
        assert_eq!(r.len(), scenes.len(), "scenes.sql: scenes of {pid}");
        for (r, s) in r.iter().zip(scenes) {
            assert_eq!(r.str("scene").unwrap(), s.scene, "scenes.sql order of {pid}");
            assert_eq!(
                [r.i64("frames"), r.i64("first_ts"), r.i64("dropped_frames")].map(Result::unwrap),
                [s.frames, s.first_ts, s.dropped_frames],
                "scenes.sql {} of {pid}",
                s.scene
            );
            assert!(same(r.f64("fps").unwrap(), s.fps) && same(r.f64("refresh_hz").unwrap(), s.refresh_hz));
            assert_eq!((levels(r, "frames"), levels(r, "dropped")), (s.drop_level, s.drop_sum));
            assert_eq!(r.opt_i64("frame_cost_p90").unwrap(), s.frame_cost_p90);
        }
    }
    let worst = Rows::new(&worst);
    for (pid, r) in by_pid(&worst) {
        let want: Vec<i64> = app(apps, pid).worst_frames.iter().map(|w| w.frame_index as i64).collect();
        let got: Vec<i64> = r.iter().take(want.len()).map(|r| r.i64("frame_index").unwrap()).collect();
        assert_eq!(got, want, "worst_frames.sql of {pid}");
    }
}

fn app(apps: &[AppSummary], pid: i32) -> &AppSummary {
    apps.iter().find(|a| a.pid == pid).unwrap_or_else(|| panic!("an app summary for pid {pid}"))
}
