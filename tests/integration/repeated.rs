//! A trace of one recording repeated K times with shifted timestamps (the
//! `repeated_recording` generator: vsync ids and tokens repeat, timestamps do
//! not). Every frame must be matched to its own recording's RenderThread,
//! FrameTimeline and scheduler data; the values expected here come from the
//! generator's plan (`repeat_frames`), not from the analysis.

use fpsan::analysis::{self, Options};
use fpsan::frames::VsyncSource;
use tracegen::scenarios::{self, REPEAT_FRAMES, REPEAT_PID, REPEAT_T0};

use crate::util::fpsan;

const K: u64 = 3;
const P: i64 = 16_666_667;
const US: i64 = 1_000;

#[test]
fn every_frame_matches_its_own_recording() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("repeated.pftrace");
    let mut f = std::fs::File::create(&path).expect("create");
    scenarios::repeated_recording(&mut f, K).expect("generate");
    drop(f);

    let plan = scenarios::repeat_frames();
    let span = scenarios::repeat_span_ns(&plan);
    let opened = analysis::open(&path, &analysis::frame_read_options(fpsan::sink::Sink::quiet())).expect("open");
    let done = analysis::frames_of(opened, &Options::default());
    let a = &done.frames;
    assert_eq!(a.rows.len(), K as usize * REPEAT_FRAMES);
    assert_eq!(a.quality.cut_by_trace_bounds, 0);
    assert_eq!(
        (a.quality.repeated_ids, a.quality.repeated_id_values, a.quality.max_id_uses),
        (K * REPEAT_FRAMES as u64, REPEAT_FRAMES as u64, K)
    );
    let warning = format!(
        "{} frames share their vsync id with another frame of the same process ({} ids repeat, up to {K} times each: joined captures or a reboot inside the trace?); each was matched to the RenderThread and FrameTimeline data nearest to it in time",
        K as usize * REPEAT_FRAMES,
        REPEAT_FRAMES
    );
    assert_eq!(
        done.warnings
            .iter()
            .filter(|w| w.message == warning && w.code == fpsan::model::WarningCode::RepeatedVsyncIds)
            .count(),
        1,
        "{:?}",
        done.warnings
    );

    let mut janky = 0;
    for (idx, row) in a.rows.iter().enumerate() {
        let (r, k) = (idx / REPEAT_FRAMES, idx % REPEAT_FRAMES);
        let p = &plan[k];
        let t0 = REPEAT_T0 + r as i64 * span;
        let (vsync, ts, actual_end) = (t0 + p.vsync, t0 + p.ts, t0 + p.actual_end);
        let at = format!("recording {r} frame {k}");
        assert_eq!((row.pid, row.frame_id), (REPEAT_PID, Some(p.token)), "{at}");
        assert_eq!((row.ts, row.do_frame_dur), (ts, p.dur), "{at}");
        assert_eq!((row.vsync_ts, row.vsync_source), (Some(vsync), Some(VsyncSource::FrameTimeline)), "{at}");
        assert_eq!(
            (row.draw_frame_ts, row.draw_frame_dur, row.draw_frame_count),
            (Some(t0 + p.draw_ts), Some(p.draw_dur), 1),
            "{at}"
        );
        assert_eq!((row.expected_ts, row.expected_end), (Some(vsync), Some(vsync + P)), "{at}");
        assert_eq!((row.actual_ts, row.actual_end, row.layer_count), (Some(ts), Some(actual_end), 1), "{at}");
        assert_eq!(row.overrun_ns, Some(actual_end - (vsync + P)), "{at}");
        // Janky when doFrame ends a whole interval or more after its vsync.
        let dropped = (ts + p.dur - vsync) / P;
        assert_eq!(row.dropped_frames, dropped, "{at}");
        if dropped >= 1 {
            let why = &a.why[janky];
            janky += 1;
            assert_eq!(why.frame_index, idx, "{at}");
            // The longest nested slice is `draw` (3/8 of the doFrame).
            assert_eq!(why.longest_slice.as_deref(), Some("draw"), "{at}");
            assert_eq!(why.longest_slice_ns, Some(3 * (p.dur / 8) - 10 * US), "{at}");
            // This recording's scheduler data: woken 60 µs and switched in
            // 50 µs before the doFrame, switched out 20 µs after it; asleep
            // since the previous frame (nothing is known before the trace's
            // first event).
            let st = why.thread_state.as_ref().expect("thread state");
            let sleeping = if idx == 0 { 0 } else { ts - 60 * US - vsync };
            assert_eq!(
                (st.running_ns, st.runnable_ns, st.sleeping_ns, st.blocked_ns),
                (p.dur + 50 * US, 10 * US, sleeping, 0),
                "{at}"
            );
        }
    }
    assert_eq!(janky, a.why.len());
    assert!(janky as u64 >= 6 * K, "the plan has a long frame every 40: {janky}");

    // The command line says the same on stderr.
    let out = fpsan().arg("analyze").arg(&path).output().expect("run fpsan");
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches(&warning).count(), 1, "{stderr}");
}

/// The scheduler pass skips the batches whose scheduler events name none of
/// the threads it looks for (from the first pass's per-batch tids): it must
/// find exactly what a full scan of a fresh source finds.
#[test]
fn scheduler_pass_skipping_batches_finds_what_a_full_scan_finds() {
    use fpsan::read::{self, Source};
    let dir = tempfile::tempdir().expect("tempdir");
    let repeated = dir.path().join("repeated.pftrace");
    scenarios::repeated_recording(&mut std::fs::File::create(&repeated).expect("create"), 40).expect("generate");
    let busy = dir.path().join("busy.pftrace");
    scenarios::busy_phone(&mut std::fs::File::create(&busy).expect("create"), 12 << 20).expect("generate");
    for path in [repeated, busy, crate::util::testdata("demo.pftrace")] {
        let mut opened =
            analysis::open(&path, &analysis::frame_read_options(fpsan::sink::Sink::quiet())).expect("open");
        let fresh = Source::open(&path).expect("open");
        let frame_threads = fpsan::frames::frame_threads(&opened.trace);
        for tids in [frame_threads.clone(), vec![0], vec![1100, 1003], vec![99_999], vec![REPEAT_PID, 5001, 5021, 1010]]
        {
            let skipping = opened.sched.threads(&opened.source, &tids);
            let full = read::sched_for_threads(&fresh, &tids).expect("sched");
            assert_eq!(skipping, full, "{} {tids:?}", path.display());
        }
        assert!(!read::sched_for_threads(&fresh, &frame_threads).expect("sched").is_empty(), "{}", path.display());
    }
}
