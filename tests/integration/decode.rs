//! The real device traces in `../shared/traces` decode, and on the Android 16
//! app-startup capture fpsan's per-process doFrame / DrawFrame counts agree
//! exactly with a second, independent count: the file parsed with the
//! official schema (`perfetto_protos`), ftrace `print` events walked by hand,
//! `B|<tgid>|<name>` begins counted per tgid after the same valid-data rule
//! (events before the latest first-bundle `previous_bundle_end_timestamp`
//! over all CPUs are dropped, as trace_processor does).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use protobuf::Message;

use fpsan::model::Trace;
use fpsan::read::ReadOptions;

use crate::util::shared;

#[test]
fn every_real_trace_decodes() {
    let Some(dir) = shared("traces") else { return };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read traces dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e != "md"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no traces in {}", dir.display());
    for path in paths {
        let t = fpsan::analysis::load(&path, &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{} does not decode: {e}", path.display()));
        // Text captures have events but no protobuf packets.
        let events = if t.meta.is_systrace() { t.meta.ftrace_events } else { t.meta.packets };
        assert!(events > 0, "{}: no packets or events", path.display());
        assert!(t.span_ns() > 0, "{}: empty time span", path.display());
        println!(
            "{}: {} packets, {} slices, {} counters, {} timeline slices, {} threads, span {:.2} s, warnings: {}",
            path.file_name().unwrap().to_string_lossy(),
            t.meta.packets,
            t.slices.len(),
            t.counters.len(),
            t.frame_timeline.len(),
            t.threads.len(),
            t.span_ns() as f64 / 1e9,
            t.meta.warnings.len()
        );
        for w in &t.meta.warnings {
            println!("    warning: {w}");
        }
    }
}

/// Slices whose name starts with `prefix` (and, for doFrame, that are not
/// `resynced` markers), per owning process pid, from fpsan's model.
fn fpsan_counts(t: &Trace, prefix: &str) -> BTreeMap<i32, usize> {
    let mut out = BTreeMap::new();
    for s in &t.slices {
        if !s.name.starts_with(prefix) || s.name.contains("resynced") {
            continue;
        }
        if let Some(th) = t.track_thread(s.track) {
            if let Some(upid) = th.upid {
                *out.entry(t.process(upid).pid).or_default() += 1;
            }
        }
    }
    out
}

/// The independent count: official schema, print events only.
struct Independent {
    /// Per name prefix: tgid → number of `B|tgid|prefix...` begins.
    counts: HashMap<&'static str, BTreeMap<i32, usize>>,
    /// pid → process name (process_tree cmdline's first argument).
    names: HashMap<i32, String>,
}

fn independent(bytes: &[u8], prefixes: &[&'static str]) -> Independent {
    use perfetto_protos::trace::Trace as PbTrace;
    use perfetto_protos::trace_packet::TracePacket;

    fn flatten(packets: Vec<TracePacket>, out: &mut Vec<TracePacket>) {
        for p in packets {
            if p.has_compressed_packets() {
                use std::io::Read;
                let mut inflated = Vec::new();
                flate2::read::ZlibDecoder::new(p.compressed_packets()).read_to_end(&mut inflated).expect("zlib batch");
                flatten(PbTrace::parse_from_bytes(&inflated).expect("inner trace").packet, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut packets = Vec::new();
    flatten(PbTrace::parse_from_bytes(bytes).expect("official schema parses the trace").packet, &mut packets);

    // The valid-data start: each CPU's first bundle says from when its
    // buffer is complete; the trace is complete from the latest of those.
    let mut first_bundle: HashMap<u32, Option<u64>> = HashMap::new();
    for p in &packets {
        if p.has_ftrace_events() {
            let b = p.ftrace_events();
            first_bundle.entry(b.cpu()).or_insert(b.previous_bundle_end_timestamp.or(b.last_read_event_timestamp));
        }
    }
    let valid_from = first_bundle.values().flatten().max().copied().unwrap_or(0);

    let mut counts: HashMap<&'static str, BTreeMap<i32, usize>> = HashMap::new();
    let mut names = HashMap::new();
    for p in &packets {
        if p.has_process_tree() {
            for pr in &p.process_tree().processes {
                if let Some(argv0) = pr.cmdline.first() {
                    names.insert(pr.pid(), argv0.clone());
                }
            }
        }
        if !p.has_ftrace_events() {
            continue;
        }
        for e in &p.ftrace_events().event {
            if !e.has_print() || e.timestamp() < valid_from {
                continue;
            }
            let line = e.print().buf().trim_end_matches(['\n', '\0']);
            let mut parts = line.splitn(3, '|');
            let (Some("B"), Some(tgid), Some(name)) = (parts.next(), parts.next(), parts.next()) else { continue };
            let Ok(tgid) = tgid.parse::<i32>() else { continue };
            for &prefix in prefixes {
                if name.starts_with(prefix) && !name.contains("resynced") {
                    *counts.entry(prefix).or_default().entry(tgid).or_default() += 1;
                }
            }
        }
    }
    Independent { counts, names }
}

#[test]
fn app_startup_frame_counts_agree_with_the_official_schema() {
    let Some(path) = shared("traces/real-android16-app-startup-after.pftrace") else { return };
    let t = fpsan::analysis::load(&path, &ReadOptions::default()).expect("decode");
    let bytes = std::fs::read(&path).expect("read trace");
    let ind = independent(&bytes, &["Choreographer#doFrame", "DrawFrame"]);

    let do_frames = fpsan_counts(&t, "Choreographer#doFrame");
    let draw_frames = fpsan_counts(&t, "DrawFrame");
    assert_eq!(do_frames, ind.counts["Choreographer#doFrame"], "doFrame per tgid: fpsan vs official schema");
    assert_eq!(draw_frames, ind.counts["DrawFrame"], "DrawFrame per tgid: fpsan vs official schema");

    let pid_of = |name: &str| {
        let p = t.processes.iter().find(|p| p.name.as_deref() == Some(name));
        p.unwrap_or_else(|| panic!("process {name} is missing")).pid
    };
    for name in [
        "com.android.systemui",
        "system_server",
        "com.android.launcher3",
        "com.example.perfetto.startup",
        "com.example.perfetto.jank",
    ] {
        let pid = pid_of(name);
        assert_eq!(ind.names.get(&pid).map(String::as_str), Some(name), "process_tree names pid {pid}");
        let (d, r) = (do_frames.get(&pid).copied().unwrap_or(0), draw_frames.get(&pid).copied().unwrap_or(0));
        println!("{name} (pid {pid}): {d} doFrame, {r} DrawFrame");
        assert!(d > 0, "{name} has doFrame slices");
    }
}
