//! `report.html`'s frame timeline: the lanes the analysis built
//! (`crate::lanes`) as the page's JSON data block, and the section's words
//! (which frames have lanes, which were left out). The page's script
//! (`templates/report.html`) draws them; docs/report.md, "Frame timeline".

use serde::Serialize;

use super::view::TimelineView;
use crate::lanes::Lanes;
use crate::report::format::{fmt_count, fmt_size};
use crate::report::Report;

/// What the template writes inside the data block; replaced by the JSON in
/// the finished page ([`splice_data`]), so 3 MB of data are not copied
/// through the template engine. Every value the template writes is escaped
/// (`<` becomes `&lt;`), so no name can forge it.
pub(crate) const DATA_MARKER: &str = "<!--fpsan-timeline-data-->";

/// The page's one script: it draws the frame chosen from the data block.
/// Inlined as it is (`| safe`): it holds no `</script` (a test checks).
pub(crate) const SCRIPT: &str = include_str!("../templates/timeline.js");

/// What the page's script reads: the lanes, and where the page's times start.
#[derive(Serialize)]
struct Data<'a> {
    /// Trace time (ns) of the page's 0 s: times are shown from it.
    origin_ns: i64,
    lanes: &'a Lanes,
}

/// The section's view; None without lanes (the analysis was not asked for them).
pub(crate) fn timeline_view(report: &Report) -> Option<TimelineView> {
    let l = report.lanes?;
    let shown = l.frames.len();
    let janky_shown = l.frames.iter().filter(|f| f.dropped_frames >= 1).count();
    let smooth = shown - janky_shown;
    let summary = if l.wanted == 0 {
        "No frame to show: the apps have no frames".to_string()
    } else {
        format!(
            "Lanes for {} frames: {} of the {} janky frames{}; {} of data",
            fmt_count(shown as i64),
            fmt_count(janky_shown as i64),
            fmt_count(l.wanted_janky as i64),
            if smooth > 0 {
                format!(", and {} of the apps' costliest frames that dropped none", fmt_count(smooth as i64))
            } else {
                String::new()
            },
            fmt_size(l.bytes as u64)
        )
    };
    let left_out = if l.left_out == 0 {
        String::new()
    } else {
        format!(
            "{} frames ({} of them janky) were left out to keep the data within its {} budget: the frames of the worst-frames tables come first, then the other janky frames, costliest first",
            fmt_count(l.left_out as i64),
            fmt_count(l.left_out_janky as i64),
            fmt_size(l.budget_bytes as u64)
        )
    };
    Some(TimelineView { summary, left_out, frames: shown, script: SCRIPT })
}

/// The frames that have lanes, by frame index, for the worst-frames tables' links.
pub(crate) fn frames_with_lanes(report: &Report) -> foldhash::HashSet<usize> {
    report.lanes.map(|l| l.frames.iter().map(|f| f.frame_index).collect()).unwrap_or_default()
}

/// `page` with the data block's marker replaced by the lanes as JSON, every
/// `<` written `\u003c` (the same JSON string, and no `</script>` inside
/// the block whatever the trace's names).
pub(crate) fn splice_data(page: String, report: &Report) -> Result<String, serde_json::Error> {
    let Some(lanes) = report.lanes else { return Ok(page) };
    let Some(at) = page.find(DATA_MARKER) else { return Ok(page) };
    let json = serde_json::to_string(&Data { origin_ns: report.origin_ts(), lanes })?;
    let mut out = String::with_capacity(page.len() + json.len() + json.len() / 64);
    out.push_str(&page[..at]);
    let mut rest = json.as_str();
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        out.push_str("\\u003c");
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
    out.push_str(&page[at + DATA_MARKER.len()..]);
    Ok(out)
}
