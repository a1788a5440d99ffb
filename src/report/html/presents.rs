//! An app's "Presents" section on `report.html`: its renderer, its headline
//! fps and where that comes from (its doFrames or one layer's presents, with
//! the reason), a table of its layers (docs/presents.md, "Per layer") and
//! the chart of the shown layer (`charts::data::shown_layer`).

use super::view::{ChartView, LayerRow, PresentsView};
use crate::metrics::{AppSummary, HeadlineSource};
use crate::presents::LayerSummary;
use crate::report::charts::{data, Chart, ChartKind};
use crate::report::format::*;
use crate::report::Report;

/// Rows of an app's layer table: the shown layer, then the others with the
/// most presents. An app with hundreds of short-lived layers (animation
/// leashes) keeps a readable page; presents.csv has them all.
pub(crate) const MAX_LAYER_ROWS: usize = 12;

/// Layer names run to 200 characters; the table shows this many (the whole
/// name is the cell's tooltip).
const LAYER_CHARS: usize = 60;

/// The Presents section of app `a`.
pub(crate) fn presents_view(report: &Report, a: &AppSummary, charts: &[Chart]) -> PresentsView {
    let (renderer, evidence) = match &a.renderer {
        Some(r) => (r.to_string(), r.evidence.clone()),
        None => (NONE.to_string(), String::new()),
    };
    let h = &a.headline;
    let headline_from = match (h.source, &h.layer) {
        (HeadlineSource::Presents, Some(l)) => format!("the presents of {}", shorten_middle(l, LAYER_CHARS)),
        (HeadlineSource::Presents, None) => "a layer's presents".to_string(),
        (HeadlineSource::Frames, _) => "its doFrames".to_string(),
    };
    let (layers, more) = layer_rows(report, a.pid);
    PresentsView {
        renderer,
        evidence,
        headline: format!("{} fps (paced)", fmt_fps(h.fps)),
        headline_from,
        reason: h.reason.clone(),
        layers,
        more_layers: match more {
            0 => String::new(),
            1 => "1 more layer with fewer presents: see presents.csv".to_string(),
            n => format!("{n} more layers with fewer presents: see presents.csv"),
        },
        charts: presents_charts(a, charts),
    }
}

/// The app's layers as table rows (the shown one first, then by presents,
/// at most [`MAX_LAYER_ROWS`]) and how many were left out.
fn layer_rows(report: &Report, pid: i32) -> (Vec<LayerRow>, usize) {
    let p = report.presents;
    let range = data::app_layers(p, pid);
    let shown = data::shown_layer(p, pid);
    let mut order: Vec<usize> = range.collect();
    // The shown layer first, then most presents; the layers' order on a tie.
    order.sort_by_key(|&k| (Some(k) != shown, std::cmp::Reverse(p.layers[k].presents), k));
    let left_out = order.len().saturating_sub(MAX_LAYER_ROWS);
    let rows = order.iter().take(MAX_LAYER_ROWS).map(|&k| layer_row(&p.layers[k], Some(k) == shown)).collect();
    (rows, left_out)
}

fn layer_row(l: &LayerSummary, shown: bool) -> LayerRow {
    LayerRow {
        layer: shorten_middle(&l.layer, LAYER_CHARS),
        full: l.layer.clone(),
        shown,
        source: l.source.as_str().to_string(),
        presents: fmt_count(l.presents),
        fps: fmt_fps(l.fps),
        refresh: fmt_hz(l.refresh_hz),
        dropped: fmt_count(l.dropped_vsyncs),
        idle: fmt_idle(&l.idle),
        jank: fmt_count(l.perfdog.jank),
        big_jank: fmt_count(l.perfdog.big_jank),
        stutter: fmt_small_pct(100.0 * l.perfdog.stutter),
        p50: fmt_opt_ms(l.frame_time_ns.p50),
        p90: fmt_opt_ms(l.frame_time_ns.p90),
        p99: fmt_opt_ms(l.frame_time_ns.p99),
    }
}

/// The app's layer-presents charts (the section shows them, not the app's chart list).
fn presents_charts(a: &AppSummary, charts: &[Chart]) -> Vec<ChartView> {
    charts
        .iter()
        .enumerate()
        .filter(|(_, c)| c.pid == Some(a.pid) && c.kind == ChartKind::LayerPresents)
        .map(|(i, c)| super::chart_view(i, c))
        .collect()
}
