"""report.html's frame timeline in a real browser (docs/report.md, "Frame timeline").

Playwright drives Debian's chromium (/usr/bin/chromium; no browser is downloaded) over the
report `fpsan analyze --out` writes for a real trace (../shared/traces): clicking a
worst-frames row shows that frame's lanes, the keys move between janky frames, the address
links to a frame, and the page runs without an error and fetches nothing but itself.
Skipped, with the reason, without chromium or the shared traces (FPSAN_REQUIRE_SHARED=1, as
in CI, makes a missing ../shared a failure).
"""

import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, GEN, ROOT

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")

CHROMIUM = Path("/usr/bin/chromium")
TRACE = ROOT.parent / "shared" / "traces" / "real-android16-db-ui-thread-before.pftrace"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    if not TRACE.exists():
        if os.environ.get("FPSAN_REQUIRE_SHARED") == "1":
            pytest.fail(f"{TRACE} is absent and FPSAN_REQUIRE_SHARED=1")
        pytest.skip(f"{TRACE} is absent (set FPSAN_REQUIRE_SHARED=1 to fail instead)")
    out = tmp_path_factory.mktemp("report")
    subprocess.run([BIN, "analyze", str(TRACE), "--out", str(out)], check=True, capture_output=True)
    return out / "report.html"


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


def watched_page(ctx):
    """A new page of `ctx` with what went wrong in it recorded: page errors, console errors
    and every request (the file itself is the only one allowed)."""
    pg = ctx.new_page()
    pg.problems = []
    pg.requests = []
    pg.on("pageerror", lambda e: pg.problems.append(f"page error: {e}"))
    pg.on("console", lambda m: pg.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    pg.on("request", lambda r: pg.requests.append(r.url))
    return pg


@pytest.fixture
def page(browser, report):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield watched_page(ctx)
    ctx.close()


def title(pg):
    return pg.locator("#tl-title").text_content()


def timeline_texts(pg):
    return pg.eval_on_selector_all("#tl-svg text", "els => els.map(e => e.textContent)")


def assert_clean(pg, report):
    assert pg.problems == []
    assert pg.requests and all(u.split("#")[0] == report.as_uri() for u in pg.requests), pg.requests


def test_worst_frame_row_shows_its_lanes_and_keys_walk_the_janky_frames(page, report):
    page.goto(report.as_uri())
    # The dbui app's worst frame, vsync id 191623, in its worst-frames table.
    row = page.locator("tr[data-frame]", has=page.locator("td", has_text=re.compile(r"^191623$")))
    assert row.count() == 1
    row.locator("td").first.click()
    assert "vsync 191623" in title(page) and "com.example.perfetto.dbui" in title(page)
    assert page.evaluate("location.hash") == "#frame=" + row.get_attribute("data-frame")
    texts = timeline_texts(page)
    # The main thread's and the RenderThread's lanes, and the frame's RenderThread work.
    assert "e.perfetto.dbui" in texts and any(t.startswith("11377 · main thread") for t in texts), texts
    assert "RenderThread" in texts, texts
    assert "DrawFrames 191623" in texts and "shader_compile" in texts, texts
    # j: the next janky frame of the list (the app's other one), k: back.
    page.keyboard.press("j")
    assert "vsync 191646" in title(page)
    assert "DrawFrames 191646" in timeline_texts(page)
    page.keyboard.press("k")
    assert "vsync 191623" in title(page)
    assert_clean(page, report)


def test_address_opens_a_frame_and_zoom_hover_work(page, report):
    page.goto(report.as_uri())
    index = page.locator("tr[data-frame]", has=page.locator("td", has_text=re.compile(r"^191623$"))).get_attribute(
        "data-frame")
    page.goto(report.as_uri() + "#frame=" + index)
    assert "vsync 191623" in title(page)
    axis = lambda: [t for t in timeline_texts(page) if t.endswith(" ms")]
    whole = axis()
    page.locator("#tl-view").focus()
    page.keyboard.press("+")
    assert axis() != whole
    page.keyboard.press("0")
    assert axis() == whole
    # Hovering a slice names it, its thread, start and duration.
    page.locator("#tl-svg text", has_text=re.compile(r"^DrawFrames 191623$")).hover()
    detail = page.locator("#tl-detail").text_content()
    assert detail.startswith("DrawFrames 191623 — RenderThread ") and "duration" in detail, detail
    assert_clean(page, report)


def test_a_do_frame_block_opens_its_frame_and_the_other_blocks_are_listed(page, report):
    """The "Main-thread blocks" section (docs/blocks.md): the 388 ms doFrame block's row opens frame
    191623's lanes; the database block, no frame, is listed with its states and path."""
    page.goto(report.as_uri())
    section = page.locator("#main-thread-blocks")
    assert section.count() == 1
    block = section.locator("tr[data-frame]", has_text="Choreographer#doFrame 191623")
    assert block.count() == 1
    block.locator("td").first.click()
    assert "vsync 191623" in title(page)
    assert page.evaluate("location.hash") == "#frame=" + block.get_attribute("data-frame")
    db = section.locator("tr", has_text="openAndQueryOnUiThread (com.example.perfetto.dbui 11377)")
    assert db.count() == 1 and db.get_attribute("data-frame") is None
    assert "in D (I/O)" in section.text_content() and "path: " in section.text_content()
    assert_clean(page, report)


@pytest.fixture(scope="module")
def scroll_report(tmp_path_factory):
    """report.html of the generated scroll (docs/input.md, "Worked example")."""
    out = tmp_path_factory.mktemp("scroll")
    trace = out / "scroll.pftrace"
    subprocess.run([GEN, "input", str(trace), "scroll"], check=True, capture_output=True)
    subprocess.run([BIN, "analyze", str(trace), "--out", str(out / "report")], check=True, capture_output=True)
    return out / "report" / "report.html"


def test_the_input_lane_draws_each_event_from_read_to_present(browser, scroll_report):
    """The slow frame 104's lanes hold an input lane; hovering its MOVE names its read and
    how long after it the frame that showed it was presented; the Input section lists the app."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = watched_page(ctx)
    pg.goto(scroll_report.as_uri())
    assert "1 of 5 (20.0%)" in pg.locator("#input").text_content()
    row = pg.locator("tr[data-frame]", has=pg.locator("td", has_text=re.compile(r"^104$"))).first
    pg.goto(scroll_report.as_uri() + "#frame=" + row.get_attribute("data-frame"))
    assert "vsync 104" in title(pg)
    assert "input" in timeline_texts(pg)
    details = []
    for label in pg.locator("#tl-svg text", has_text=re.compile(r"^MOVE$")).all():
        label.hover()
        details.append(pg.locator("#tl-detail").text_content())
    # MOVE 4: read 3 ms before frame 104's vsync, presented 4 vsyncs + 3 ms later (69.667 ms,
    # to the µs the lanes keep).
    move4 = re.compile(r"^input MOVE · read -3\.00\d ms .* presented after 69\.66\d ms$")
    assert any(move4.match(d) for d in details), details
    assert_clean(pg, scroll_report)
    ctx.close()
