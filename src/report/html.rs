//! `report.html`: one self-contained page for review tickets. The charts are
//! inlined as base64 PNG `data:` URIs and the CSS is inline; there is no
//! script and no reference to anything outside the file, so it opens
//! anywhere, offline. The page is a minijinja template
//! (`templates/report.html`) rendered from a view model of preformatted
//! strings built here ([`page`]): ms with one decimal, fps with one decimal,
//! percentages, counts with thousands separators.

use base64::Engine as _;
use minijinja::Environment;
use serde::Serialize;

use super::charts::{self, Chart, ChartKind, ChartOptions};
use super::format::*;
use super::{info, Artifact, Exporter, Report, ReportError};
use crate::frames::DropLevel;
use crate::metrics::{AppSummary, Category, Percentiles};

const TEMPLATE: &str = include_str!("templates/report.html");

/// `charts/*.png` and `report.html` (the charts are drawn once for both).
#[derive(Default)]
pub struct HtmlExporter {
    pub charts: ChartOptions,
}

impl Exporter for HtmlExporter {
    fn name(&self) -> &'static str {
        "html"
    }

    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        let charts = charts::render_charts(report, &self.charts)?;
        let html = render_html(report, &charts)?;
        let mut out: Vec<Artifact> = charts
            .into_iter()
            .map(|c| Artifact {
                file_name: c.file_name,
                bytes: c.png,
            })
            .collect();
        out.push(Artifact {
            file_name: "report.html".into(),
            bytes: html.into_bytes(),
        });
        Ok(out)
    }
}

/// Render the page for `report` with already drawn `charts`.
pub fn render_html(report: &Report, charts: &[Chart]) -> Result<String, ReportError> {
    let mut env = Environment::new();
    // The `.html` name turns on HTML auto-escaping for every value.
    env.add_template("report.html", TEMPLATE)
        .map_err(|e| ReportError::Write(format!("report template: {e}")))?;
    let tmpl = env
        .get_template("report.html")
        .map_err(|e| ReportError::Write(e.to_string()))?;
    tmpl.render(page(report, charts))
        .map_err(|e| ReportError::Write(format!("report template: {e:#}")))
}

// ---------------------------------------------------------------------------
// View model

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Field {
    pub label: String,
    pub value: String,
}

fn field(label: &str, value: impl Into<String>) -> Field {
    Field {
        label: label.into(),
        value: value.into(),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ChartView {
    pub title: String,
    pub file_name: String,
    pub width: u32,
    pub height: u32,
    /// `data:image/png;base64,…`
    pub src: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LevelRow {
    pub name: String,
    /// CSS class of the level colour.
    pub class: String,
    pub frames: String,
    pub share: String,
    pub dropped: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PercentileRow {
    pub metric: String,
    pub values: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SceneRow {
    pub scene: String,
    pub frames: String,
    pub fps: String,
    pub refresh: String,
    pub dropped: String,
    pub levels: Vec<String>,
    pub p90: String,
}

/// One jank vocabulary: its name, its numbers, its formula.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Vocabulary {
    pub name: String,
    pub fields: Vec<Field>,
    pub formula: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WorstRow {
    pub rank: usize,
    pub at: String,
    pub frame_id: String,
    pub scene: String,
    pub cost: String,
    pub dropped: String,
    pub level: String,
    pub level_class: String,
    pub phase: String,
    pub longest: String,
    pub thread_state: String,
    pub blockers: String,
    pub jank_type: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct AppView {
    pub name: String,
    pub pid: i32,
    pub anchor: String,
    pub refresh: String,
    pub fps: String,
    pub fps_wall: String,
    pub pass: bool,
    pub verdict: String,
    pub verdict_rule: String,
    pub frozen: i64,
    pub high: i64,
    pub frozen_text: String,
    pub high_text: String,
    pub janky: String,
    pub summary: Vec<Field>,
    pub levels: Vec<LevelRow>,
    pub levels_total: LevelRow,
    pub percentiles: Vec<PercentileRow>,
    pub scenes: Vec<SceneRow>,
    pub vocabularies: Vec<Vocabulary>,
    pub worst: Vec<WorstRow>,
    pub quality: Vec<Field>,
    pub charts: Vec<ChartView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Definition {
    pub term: String,
    pub formula: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Page {
    pub title: String,
    pub fpsan_version: String,
    pub header: Vec<Field>,
    pub apps: Vec<AppView>,
    pub overview_charts: Vec<ChartView>,
    pub quality: Vec<Field>,
    pub warnings: Vec<String>,
    pub definitions: Vec<Definition>,
    pub level_names: Vec<String>,
}

fn chart_view(c: &Chart, title: String) -> ChartView {
    ChartView {
        title,
        file_name: c.file_name.clone(),
        width: c.width,
        height: c.height,
        src: format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&c.png)
        ),
    }
}

/// Distinct refresh rates of the frames table, rounded: `60 Hz`, `60/120 Hz`.
fn trace_refresh(report: &Report) -> String {
    let rates = crate::metrics::sql::f64s(report.frames, "refresh_hz").unwrap_or_default();
    fmt_rates(rates.into_iter().flatten().filter(|v| v.is_finite() && *v > 0.0)).unwrap_or_else(|| NONE.into())
}

fn app_refresh(report: &Report, a: &AppSummary) -> String {
    match charts::data::app_frames(report.frames, a.pid) {
        Ok(f) if !f.is_empty() => charts::data::refresh_label(&f, a.refresh_hz),
        _ => fmt_hz(a.refresh_hz),
    }
}

fn percentile_row(metric: &str, p: &Percentiles) -> PercentileRow {
    PercentileRow {
        metric: metric.into(),
        values: [p.p50, p.p90, p.p95, p.p99, p.max]
            .into_iter()
            .map(fmt_opt_ms)
            .collect(),
    }
}

fn category_name(c: Category) -> &'static str {
    match c {
        Category::Normal => "ordinary",
        Category::Game => "game",
        Category::Map => "map",
        Category::Video => "video",
    }
}

fn level_class(level: DropLevel) -> String {
    format!("lv-{}", level.as_str().to_lowercase())
}

fn vocabularies(a: &AppSummary) -> Vec<Vocabulary> {
    let j = &a.jank;
    let p = &j.perfetto;
    let perfetto = if p.frames_with_data > 0 {
        vec![
            field("jank", fmt_count(p.jank)),
            field("slow", fmt_count(p.slow)),
            field("big jank", fmt_count(p.big_jank)),
            field("huge jank", fmt_count(p.huge_jank)),
            field("frames with data", fmt_count(p.frames_with_data)),
        ]
    } else {
        vec![field("frames with data", "0 (needs FrameTimeline)")]
    };
    let timeline = if j.frame_timeline.is_empty() {
        vec![field("frames with a match", "0 (needs FrameTimeline)")]
    } else {
        j.frame_timeline.iter().map(|(k, v)| field(k, fmt_count(*v))).collect()
    };
    let v = &j.vitals;
    let mut vitals = vec![
        field("slow", format!("{} ({})", fmt_count(v.slow), fmt_pct(v.slow_pct))),
        field(
            "frozen",
            format!("{} ({})", fmt_count(v.frozen), fmt_small_pct(v.frozen_pct)),
        ),
    ];
    vitals.push(field("excessive", vitals_excessive(v).unwrap_or("no")));
    let d = &j.perfdog;
    let perfdog = vec![
        field("Jank", fmt_count(d.jank)),
        field("BigJank", fmt_count(d.big_jank)),
        field("Stutter", fmt_small_pct(100.0 * d.stutter)),
        field("jank time", fmt_ms(d.jank_time_ns)),
    ];
    let c = &j.choreographer;
    let choreographer = vec![
        field("“Skipped N frames” events", fmt_count(c.skipped_frame_events)),
        field("frames skipped in them", fmt_count(c.skipped_frames)),
        field("most skipped at once", fmt_count(c.max_skipped_frames)),
    ];
    vec![
        Vocabulary {
            name: "Perfetto".into(),
            fields: perfetto,
            formula: "android.frames.per_frame_metrics: was_jank, was_slow_frame, was_big_jank, was_huge_jank".into(),
        },
        Vocabulary {
            name: "FrameTimeline".into(),
            fields: timeline,
            formula: "SurfaceFlinger's jank type of the app's actual surface frame; a frame with two types counts for each".into(),
        },
        Vocabulary {
            name: "Android vitals".into(),
            fields: vitals,
            formula: "slow: frame cost > 16 ms scaled to the interval (cost·25 > I·24); frozen: > 700 ms".into(),
        },
        Vocabulary {
            name: "PerfDog".into(),
            fields: perfdog,
            formula: "Jank: frame time > 2× the mean of the previous 3 and > 83.33 ms; BigJank: > 125 ms; Stutter = jank time / total".into(),
        },
        Vocabulary {
            name: "Choreographer".into(),
            fields: choreographer,
            formula: "frames whose start jitter skipped ≥ 30 frames (Choreographer logs “Skipped N frames!”)".into(),
        },
    ]
}

fn worst_rows(a: &AppSummary, origin_ts: i64) -> Vec<WorstRow> {
    a.worst_frames
        .iter()
        .enumerate()
        .map(|(k, w)| {
            let why = w.why.as_ref();
            WorstRow {
                rank: k + 1,
                at: format!("{:.3} s", secs_since(w.ts, origin_ts)),
                frame_id: w.frame_id.map(|v| v.to_string()).unwrap_or_else(|| NONE.into()),
                scene: w.scene.clone().unwrap_or_else(|| NONE.into()),
                cost: fmt_ms(w.frame_cost_ns),
                dropped: fmt_count(w.dropped_frames),
                level: w.drop_level.to_string(),
                level_class: level_class(w.drop_level),
                phase: why
                    .map(|y| format!("{} {}", part_words(y.dominant_phase), fmt_ms(y.dominant_phase_ns)))
                    .unwrap_or_else(|| NONE.into()),
                longest: why
                    .and_then(|y| {
                        let name = y.longest_slice.clone()?;
                        Some(match y.longest_slice_ns {
                            Some(ns) => format!("{name} ({})", fmt_ms(ns)),
                            None => name,
                        })
                    })
                    .unwrap_or_else(|| NONE.into()),
                thread_state: why
                    .and_then(|y| y.thread_state.as_ref())
                    .map(|t| {
                        format!(
                            "Running {} · Runnable {} · Sleeping {} · Blocked {}",
                            fmt_ms(t.running_ns),
                            fmt_ms(t.runnable_ns),
                            fmt_ms(t.sleeping_ns),
                            fmt_ms(t.blocked_ns)
                        )
                    })
                    .unwrap_or_else(|| NONE.into()),
                blockers: why
                    .map(|y| {
                        y.blockers
                            .iter()
                            .map(|b| format!("{} ({})", b.name, fmt_ms(b.dur)))
                            .collect::<Vec<_>>()
                            .join("; ")
                    })
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| NONE.into()),
                jank_type: w.jank_type.clone().unwrap_or_else(|| NONE.into()),
            }
        })
        .collect()
}

fn app_view(report: &Report, a: &AppSummary, charts: &[Chart], origin_ts: i64) -> AppView {
    let refresh = app_refresh(report, a);
    let counts = a.drop_level.values();
    let sums = a.drop_sum.values();
    let levels: Vec<LevelRow> = DropLevel::ALL
        .iter()
        .enumerate()
        .map(|(k, &level)| LevelRow {
            name: level.to_string(),
            class: level_class(level),
            frames: fmt_count(counts[k]),
            share: fmt_share(counts[k], a.frames),
            dropped: fmt_count(sums[k]),
        })
        .collect();
    let janky: i64 = counts[1..].iter().sum();
    let g = &a.green_alliance;
    let wall_ns = a.wall_end_ts - a.first_ts;
    let summary = vec![
        field("frames", fmt_count(a.frames)),
        field("fps (paced)", fmt_fps(a.fps)),
        field("fps_wall", fmt_fps(a.fps_wall)),
        field("refresh rate", refresh.clone()),
        field("frame interval", fmt_ms(a.frame_interval_ns)),
        field("dropped frames", fmt_count(a.dropped_frames)),
        field("wall time", fmt_duration(wall_ns)),
        field("vsync time used (Σ (d+1)·I)", fmt_duration(a.paced_ns)),
        field("scenes", fmt_count(a.scenes.len() as i64)),
    ];
    let scenes = a
        .scenes
        .iter()
        .map(|s| SceneRow {
            scene: s.scene.clone(),
            frames: fmt_count(s.frames),
            fps: fmt_fps(s.fps),
            refresh: fmt_hz(s.refresh_hz),
            dropped: fmt_count(s.dropped_frames),
            levels: s.drop_level.values().iter().map(|v| fmt_count(*v)).collect(),
            p90: fmt_opt_ms(s.frame_cost_p90),
        })
        .collect();
    let q = &a.quality;
    let quality = vec![
        field(
            "vsync sources",
            fmt_pairs(q.vsync_sources.iter().map(|(k, v)| (k, fmt_count(*v)))),
        ),
        field(
            "frames without RenderThread",
            format!(
                "{} ({})",
                fmt_count(q.without_render_thread),
                fmt_share(q.without_render_thread, a.frames)
            ),
        ),
        field(
            "frames without FrameTimeline",
            format!(
                "{} ({})",
                fmt_count(q.without_timeline),
                fmt_share(q.without_timeline, a.frames)
            ),
        ),
    ];
    let charts = charts
        .iter()
        .filter(|c| c.pid == Some(a.pid))
        .map(|c| chart_view(c, c.kind.label().to_string()))
        .collect();
    AppView {
        name: app_name(a),
        pid: a.pid,
        anchor: format!("app-{}", a.pid),
        refresh,
        fps: fmt_fps(a.fps),
        fps_wall: fmt_fps(a.fps_wall),
        pass: g.pass,
        verdict: if g.pass { "PASS".into() } else { "FAIL".into() },
        verdict_rule: format!(
            "Green Alliance, {} app: fps ≥ {}",
            category_name(g.category),
            fmt_fps(g.min_fps)
        ),
        frozen: counts[4],
        high: counts[3],
        frozen_text: fmt_count(counts[4]),
        high_text: fmt_count(counts[3]),
        janky: format!(
            "{} of {} frames dropped ≥ 3 frames",
            fmt_count(janky),
            fmt_count(a.frames)
        ),
        summary,
        levels_total: LevelRow {
            name: "all".into(),
            class: String::new(),
            frames: fmt_count(a.frames),
            share: fmt_share(a.frames, a.frames),
            dropped: fmt_count(a.dropped_frames),
        },
        levels,
        percentiles: vec![
            percentile_row("frame cost (vsync → doFrame end)", &a.frame_cost_ns),
            percentile_row("doFrame duration", &a.do_frame_dur),
            percentile_row("FrameTimeline overrun", &a.overrun_ns),
        ],
        scenes,
        vocabularies: vocabularies(a),
        worst: worst_rows(a, origin_ts),
        quality,
        charts,
    }
}

fn definitions() -> Vec<Definition> {
    let d = |t: &str, f: &str| Definition {
        term: t.into(),
        formula: f.into(),
    };
    vec![
        d("I (frame interval)", "the vsync period in force for the frame, read from the trace (FrameTimeline, VSYNC-app or the doFrame grid); refresh rate = 1e9 / I"),
        d("frame cost", "vsync-to-commit-end: ts + do_frame_dur − vsync_ts (the doFrame duration when the vsync is unknown)"),
        d("dropped frames d", "frame_cost / I, integer division, never negative"),
        d("drop level", "Matrix levels on d: FROZEN ≥ 42, HIGH ≥ 24, MIDDLE ≥ 9, NORMAL ≥ 3, else BEST"),
        d("dropSum", "Σ d of the frames of a level (BEST adds max(d, 0))"),
        d("fps (paced)", "min(refresh rate, 1e9 · frames / Σ (d + 1) · I): Matrix's formula without its 60 fps cap and millisecond truncation"),
        d("fps_wall", "frames per second of wall time from the first doFrame to max(ts + I), counted in 1 s windows by doFrame start"),
        d("percentiles", "nearest rank: the value at rank ⌈n · p⌉ of the n sorted values"),
        d("overrun", "FrameTimeline actual_end − expected_end of the app's surface frame"),
        d("Green Alliance", "pass when fps ≥ 55 (ordinary apps) or ≥ 25 (games, maps, video)"),
        d("Perfetto jank", "counts of was_jank / was_slow_frame / was_big_jank / was_huge_jank as android.frames.per_frame_metrics defines them"),
        d("Android vitals", "slow: cost · 25 > I · 24 (16 ms at 60 Hz, scaled to I); frozen: cost > 700 ms; excessive: > 50 % slow or > 0.1 % frozen"),
        d("PerfDog", "frame time = present − max(previous present, vsync); Jank: 3·ft > 2·(sum of the previous 3) and ft > 83.33 ms; BigJank: also > 125 ms; Stutter = Σ jank frame time / Σ frame time"),
        d("Choreographer", "frames with skipped_frames = jitter / I ≥ 30, the “Skipped N frames!” log"),
        d("dominant phase", "the largest of start jitter, input, animation, insets animation, traversal and commit for a janky frame; the longest slice is the longest slice nested in its doFrame"),
        d("idle (FPS chart)", "no frame pending for ≥ 100 ms: from the end of one frame's work to the next frame's vsync"),
    ]
}

/// The view model of the page.
pub fn page(report: &Report, charts: &[Chart]) -> Page {
    let m = report.meta;
    let origin_ts = m
        .first_ts
        .unwrap_or_else(|| report.apps.iter().map(|a| a.first_ts).min().unwrap_or(0));
    let mut header = vec![field("trace", m.path.clone())];
    header.push(field(
        "file",
        format!("{}, {}", fmt_size(m.file_size), container_name(&m.container)),
    ));
    if let Some(d) = &m.android.device {
        header.push(field("device", d.clone()));
    }
    if let Some(b) = &m.android.build_fingerprint {
        header.push(field("build", b.clone()));
    }
    header.push(field(
        "Android",
        android_version(m.android.sdk_version, m.android.build_fingerprint.as_deref())
            .unwrap_or_else(|| "unknown".into()),
    ));
    header.push(field(
        "apps",
        report
            .apps
            .iter()
            .map(|a| format!("{} (pid {})", app_name(a), a.pid))
            .collect::<Vec<_>>()
            .join(", "),
    ));
    header.push(field("refresh rates", trace_refresh(report)));
    header.push(field("duration", fmt_duration(report.span_ns)));
    header.push(field("fpsan", env!("CARGO_PKG_VERSION")));

    let q = report.quality;
    let mut quality = vec![
        field(
            "data sources",
            if m.data_sources.is_empty() {
                NONE.into()
            } else {
                m.data_sources.join(", ")
            },
        ),
        field("packets", fmt_count(m.packets as i64)),
        field(
            "atrace events",
            format!(
                "{} ({} malformed)",
                fmt_count(m.atrace_events as i64),
                fmt_count(m.atrace_malformed as i64)
            ),
        ),
        field("FrameTimeline events", fmt_count(m.frame_timeline_events as i64)),
        field("scheduler events", fmt_count(m.sched_events as i64)),
        field(
            "vsync sources (all frames)",
            fmt_pairs(q.vsync_sources.iter().map(|(k, v)| (k, fmt_count(*v as i64)))),
        ),
        field(
            "frame interval sources",
            fmt_pairs(q.interval_sources.iter().map(|(k, v)| (k, fmt_count(*v as i64)))),
        ),
        field("frames without RenderThread", fmt_count(q.without_render_thread as i64)),
        field("frames without FrameTimeline", fmt_count(q.without_timeline as i64)),
        field(
            "doFrames cut by the trace bounds",
            fmt_count(q.cut_by_trace_bounds as i64),
        ),
    ];
    let loss = info::data_loss_items(&m.data_loss);
    quality.push(field(
        "data loss",
        if loss.is_empty() {
            "none reported".into()
        } else {
            fmt_pairs(loss.iter().map(|(k, v)| (k, fmt_count(*v as i64))))
        },
    ));
    for f in quality.iter_mut() {
        if f.value.is_empty() {
            f.value = NONE.into();
        }
    }

    let apps: Vec<AppView> = report
        .apps
        .iter()
        .map(|a| app_view(report, a, charts, origin_ts))
        .collect();
    let overview_charts = charts
        .iter()
        .filter(|c| c.kind == ChartKind::AppsDropLevels)
        .map(|c| chart_view(c, c.kind.label().to_string()))
        .collect();
    let title = match report.apps.first() {
        Some(a) => format!("fpsan report: {}", app_name(a)),
        None => "fpsan report".into(),
    };
    Page {
        title,
        fpsan_version: env!("CARGO_PKG_VERSION").into(),
        header,
        apps,
        overview_charts,
        quality,
        warnings: report.warnings.to_vec(),
        definitions: definitions(),
        level_names: DropLevel::ALL.iter().map(|l| l.to_string()).collect(),
    }
}

/// What in a page would make a browser fetch anything: a script, link,
/// frame or embedded object, CSS `url()` / `@import`, a refresh, or a
/// `src`/`href`/`action`/`poster` that is not a `data:` URI or an in-page
/// anchor. Empty for every report fpsan writes (it must open offline).
pub fn external_references(html: &str) -> Vec<String> {
    let lower = html.to_lowercase();
    let mut found: Vec<String> = [
        "<script",
        "<link",
        "<iframe",
        "<object",
        "<embed",
        "@import",
        "url(",
        "srcset",
        "http-equiv",
    ]
    .into_iter()
    .filter(|bad| lower.contains(bad))
    .map(String::from)
    .collect();
    for attr in ["src=", "href=", "action=", "poster="] {
        for part in lower.split(attr).skip(1) {
            let v = part.trim_start_matches(['"', '\'']);
            if !(v.starts_with("data:") || v.starts_with('#')) {
                let end = part.char_indices().nth(60).map_or(part.len(), |(i, _)| i);
                found.push(format!("{attr}{}", &part[..end]));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::{FrameAnalysis, FrameWhy, ThreadStateSplit};
    use crate::metrics::{self, AppFilter, MetricsOptions};
    use crate::model::Trace;
    use crate::report::charts::tests::{row, Fixture};

    const MS: i64 = 1_000_000;

    /// com.a: 4 frames 100 ms apart from 1 s at 60 Hz costing 5, 5, 60, 5 ms;
    /// and an app whose name needs escaping.
    fn small() -> (Trace, FrameAnalysis) {
        let mut trace = Trace::default();
        trace.meta.path = "t.pftrace".into();
        trace.meta.file_size = 1536;
        trace.meta.first_ts = Some(0);
        trace.meta.last_ts = Some(2_500_000_000);
        trace.meta.android.build_fingerprint = Some("google/tokay/tokay:15/AP4A/123:user/release-keys".into());
        trace.meta.data_sources = vec!["ftrace".into(), "atrace".into()];
        trace.meta.data_loss.chunks_discarded = 1234;
        let mut rows: Vec<_> = [5, 5, 60, 5]
            .iter()
            .enumerate()
            .map(|(k, c)| row(1, "com.a", 1_000_000_000 + k as i64 * 100 * MS, c * MS, k as i64))
            .collect();
        rows.push(row(2, "<b>evil</b>", 1_000_000_000, 5 * MS, 0));
        let why = vec![FrameWhy {
            frame_index: 2,
            dominant_phase: crate::frames::FramePart::StartJitter,
            dominant_phase_ns: 40 * MS,
            longest_slice: Some("inflate".into()),
            longest_slice_ns: Some(12_340_000),
            blockers: vec![crate::frames::Blocker {
                name: "GC".into(),
                ts: 0,
                dur: 9 * MS,
            }],
            thread_state: Some(ThreadStateSplit {
                running_ns: 20 * MS,
                runnable_ns: 5 * MS,
                sleeping_ns: 30 * MS,
                blocked_ns: 4 * MS,
            }),
        }];
        (
            trace,
            FrameAnalysis {
                rows,
                why,
                quality: Default::default(),
            },
        )
    }

    fn with_small<T>(f: impl FnOnce(&Report) -> T) -> T {
        let (trace, a) = small();
        let frames = metrics::frames_table(&trace, &a, &AppFilter::All).unwrap();
        let apps = metrics::summarize(&frames, &a.why, &MetricsOptions::default()).unwrap();
        let warnings = vec!["the trace lost data".to_string()];
        let r = Report {
            meta: &trace.meta,
            span_ns: trace.span_ns(),
            apps: &apps,
            frames: &frames,
            quality: &a.quality,
            warnings: &warnings,
        };
        f(&r)
    }

    #[test]
    fn numbers_for_people() {
        let p = with_small(|r| page(r, &[]));
        let a = &p.apps[0];
        assert_eq!((a.name.as_str(), a.pid, a.refresh.as_str()), ("com.a", 1, "60 Hz"));
        // paced = (1 + 1 + 4 + 1) · 16 666 667 ns → 4 / 0.116 666 669 s = 34.29 fps.
        assert_eq!(a.fps, "34.3");
        // wall = 300 ms + I = 316.67 ms → 4 / 0.316 666 667 s = 12.63 fps.
        assert_eq!(a.fps_wall, "12.6");
        assert_eq!((a.pass, a.verdict.as_str()), (false, "FAIL"));
        assert_eq!(a.verdict_rule, "Green Alliance, ordinary app: fps ≥ 55.0");
        assert_eq!((a.frozen_text.as_str(), a.high_text.as_str()), ("0", "0"));
        assert_eq!(a.janky, "1 of 4 frames dropped ≥ 3 frames");
        let summary: Vec<(&str, &str)> = a.summary.iter().map(|f| (f.label.as_str(), f.value.as_str())).collect();
        assert_eq!(
            summary,
            vec![
                ("frames", "4"),
                ("fps (paced)", "34.3"),
                ("fps_wall", "12.6"),
                ("refresh rate", "60 Hz"),
                ("frame interval", "16.7 ms"),
                ("dropped frames", "3"),
                ("wall time", "316.7 ms"),
                ("vsync time used (Σ (d+1)·I)", "116.7 ms"),
                ("scenes", "1"),
            ]
        );
        let levels: Vec<(&str, &str, &str, &str)> = a
            .levels
            .iter()
            .map(|l| (l.name.as_str(), l.frames.as_str(), l.share.as_str(), l.dropped.as_str()))
            .collect();
        assert_eq!(
            levels,
            vec![
                ("BEST", "3", "75.0%", "0"),
                ("NORMAL", "1", "25.0%", "3"),
                ("MIDDLE", "0", "0.0%", "0"),
                ("HIGH", "0", "0.0%", "0"),
                ("FROZEN", "0", "0.0%", "0"),
            ]
        );
        assert_eq!(
            (a.levels_total.frames.as_str(), a.levels_total.share.as_str()),
            ("4", "100.0%")
        );
        // Nearest rank over 5, 5, 5, 60 ms (doFrame: 1 ms less each).
        assert_eq!(
            a.percentiles[0].values,
            ["5.0 ms", "60.0 ms", "60.0 ms", "60.0 ms", "60.0 ms"]
        );
        assert_eq!(
            a.percentiles[1].values,
            ["4.0 ms", "59.0 ms", "59.0 ms", "59.0 ms", "59.0 ms"]
        );
        assert_eq!(a.percentiles[2].values, ["–", "–", "–", "–", "–"]);
        let vitals = &a.vocabularies[2];
        assert_eq!(vitals.name, "Android vitals");
        assert_eq!(vitals.fields[0].value, "1 (25.0%)");
        assert_eq!(vitals.fields[1].value, "0 (0.00%)");
        assert_eq!(a.vocabularies[0].fields[0].value, "0 (needs FrameTimeline)");
        let w = &a.worst[0];
        assert_eq!(
            (
                w.at.as_str(),
                w.frame_id.as_str(),
                w.cost.as_str(),
                w.dropped.as_str(),
                w.level.as_str()
            ),
            ("1.200 s", "1002", "60.0 ms", "3", "NORMAL")
        );
        assert_eq!(w.phase, "start jitter 40.0 ms");
        assert_eq!(w.longest, "inflate (12.3 ms)");
        assert_eq!(
            w.thread_state,
            "Running 20.0 ms · Runnable 5.0 ms · Sleeping 30.0 ms · Blocked 4.0 ms"
        );
        assert_eq!(w.blockers, "GC (9.0 ms)");
        assert_eq!(a.scenes[0].scene, "com.a/.MainActivity");
        assert_eq!(a.scenes[0].levels, ["3", "1", "0", "0", "0"]);

        let header: Vec<(&str, &str)> = p.header.iter().map(|f| (f.label.as_str(), f.value.as_str())).collect();
        assert_eq!(
            header,
            vec![
                ("trace", "t.pftrace"),
                ("file", "1.5 kB, plain"),
                ("build", "google/tokay/tokay:15/AP4A/123:user/release-keys"),
                ("Android", "Android 15"),
                ("apps", "com.a (pid 1), <b>evil</b> (pid 2)"),
                ("refresh rates", "60 Hz"),
                ("duration", "2.5 s"),
                ("fpsan", env!("CARGO_PKG_VERSION")),
            ]
        );
        let q: Vec<(&str, &str)> = p.quality.iter().map(|f| (f.label.as_str(), f.value.as_str())).collect();
        assert!(q.contains(&("data sources", "ftrace, atrace")), "{q:?}");
        assert!(q.contains(&("data loss", "chunks_discarded 1,234")), "{q:?}");
        assert!(q.contains(&("vsync sources (all frames)", "–")), "{q:?}");
    }

    #[test]
    fn page_is_escaped_and_self_contained() {
        let (html, n_charts) = with_small(|r| {
            let charts = charts::render_charts(r, &ChartOptions::default()).unwrap();
            (render_html(r, &charts).unwrap(), charts.len())
        });
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains(
            r#"<div class="k">FPS (paced)</div><div class="v">34.3</div><div class="s">fps_wall 12.6</div>"#
        ));
        assert!(html.contains(
            r#"<tr><td><span class="lv lv-best"></span>BEST</td><td class="num">3</td><td class="num">75.0%</td><td class="num">0</td></tr>"#
        ));
        assert!(html.contains(r#"<div class="card fail"><div class="k">Green Alliance</div><div class="v">FAIL</div>"#));
        assert!(html.contains("Android 15") && html.contains("the trace lost data"));
        // Text from the trace is escaped.
        assert!(!html.contains("<b>evil"), "unescaped app name");
        assert!(html.contains("&lt;b&gt;evil"));
        // Every chart inline, as a PNG.
        assert_eq!(html.matches(r#"<img src="data:image/png;base64,"#).count(), n_charts);
        for part in html.split(r#"src="data:image/png;base64,"#).skip(1) {
            let b64 = &part[..part.find('"').unwrap()];
            let png = base64::engine::general_purpose::STANDARD.decode(b64).unwrap();
            assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        }
        assert_eq!(external_references(&html), Vec::<String>::new());
    }

    #[test]
    fn fixture_page_renders() {
        let fx = Fixture::new();
        let r = fx.report();
        let charts = charts::render_charts(&r, &ChartOptions::default()).unwrap();
        let p = page(&r, &charts);
        assert_eq!(p.apps.len(), 2);
        assert_eq!(p.apps[0].charts.len(), 6);
        assert_eq!(p.apps[1].charts.len(), 4);
        assert_eq!(p.overview_charts.len(), 1);
        assert_eq!(p.header.iter().find(|f| f.label == "device").unwrap().value, "Pixel 9");
        assert_eq!(
            p.header.iter().find(|f| f.label == "Android").unwrap().value,
            "Android 16 (API 36)"
        );
        assert_eq!(p.apps[0].high_text, "1");
        let html = render_html(&r, &charts).unwrap();
        assert_eq!(external_references(&html), Vec::<String>::new());
        assert!(html.contains(r##"<nav><a href="#app-100">com.example.app</a><a href="#app-200">com.other</a></nav>"##));
    }
}
