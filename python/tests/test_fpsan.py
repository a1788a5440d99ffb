"""The Python package against the command line it wraps (docs/python.md, docs/lake.md).

Run by `bash scripts/test.sh` (the README's test command) with the wheel built from the
checkout installed; FPSAN_BIN and FPSAN_GEN name the release `fpsan` binary and the
`gen_trace` example, which the tests compare against and generate traces with.
"""

import json
import shutil
import subprocess
import threading
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fpsan
from conftest import BIN, DEMO, GEN, ROOT, traces_of


def cli(*args, check=True):
    done = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True)
    if check and done.returncode not in (0, 3):
        raise AssertionError(f"fpsan {' '.join(map(str, args))}: {done.returncode}: {done.stderr}")
    return done


@pytest.mark.parametrize("which", ["demo", "generated"])
def test_tables_equal_the_cli_parquet_cell_for_cell(which, fleet, tmp_path):
    path = DEMO if which == "demo" else traces_of(fleet)[5]
    a = fpsan.analyze(path)
    cli("analyze", path, "--out", tmp_path)
    for table in ["frames", "presents"]:
        expected = pq.read_table(tmp_path / f"{table}.parquet")
        got = pa.table(getattr(a, table))
        assert got.schema.equals(expected.schema), table
        assert got.equals(expected), table
    # apps: the summary.json the CLI writes, metric by metric.
    summary = json.loads((tmp_path / "summary.json").read_text())
    apps = pa.table(a.apps).to_pylist()
    assert [r["process"] for r in apps] == [s["process"] for s in summary["apps"]]
    for row, s in zip(apps, summary["apps"]):
        assert row["frames"] == s["frames"]
        assert row["fps"] == s["fps"]
        assert row["frame_cost_p90"] == s["frame_cost_ns"]["p90"]
        scenes = [r for r in pa.table(a.scenes).to_pylist() if r["pid"] == row["pid"]]
        assert [(r["scene"], r["frames"]) for r in scenes] == [(x["scene"], x["frames"]) for x in s["scenes"]]
    assert a.summary == json.loads(cli("analyze", path, "--format", "json").stdout)


def test_apps_that_draw_nothing_have_no_verdict(tmp_path):
    """tracegen::screen: a 90 Hz launcher (120 drawn frames), a SystemUI that drew 3, and two
    apps that only animate (330 and 200 doFrames): the apps table and the summary carry the
    same verdicts and order as the CLI (docs/metrics.md, "What reached the screen")."""
    path = tmp_path / "animators.pftrace"
    subprocess.run([GEN, "screen", str(path)], check=True, capture_output=True)
    a = fpsan.analyze(path)
    apps = pa.table(a.apps).to_pylist()
    got = [(r["pid"], r["frames"], r["screen_reached"], r["green_alliance_verdict"], r["green_alliance_pass"])
           for r in apps]
    assert got == [
        (2000, 120, 120, "pass", True),
        (1500, 3, 3, "too_few_frames", None),
        (3000, 330, 0, "draws_nothing", None),
        (3100, 200, 0, "draws_nothing", None),
    ]
    assert [(r["cpu_time_ns"], r["cpu_time_source"]) for r in apps[2:]] == [
        (330 * 1_400_000, "running"),
        (200 * 2_000_000, "do_frame"),
    ]
    assert [s["green_alliance"]["verdict"] for s in a.summary["apps"]] == [r["green_alliance_verdict"] for r in apps]
    assert a.summary == json.loads(cli("analyze", path, "--format", "json").stdout)


def test_every_arrow_consumer_takes_the_tables():
    a = fpsan.analyze(DEMO)
    n = len(a.frames)
    assert n == 300
    assert pa.table(a.frames).num_rows == n
    assert pl.DataFrame(a.frames).height == n
    assert a.frames.to_polars().height == n
    assert isinstance(a.frames.to_pandas(), pd.DataFrame) and len(a.frames.to_pandas()) == n
    frames = a.frames
    assert duckdb.sql("SELECT count(*) FROM frames").fetchall() == [(n,)]
    # The same table can be read again (each read gets a fresh stream).
    assert pa.table(a.frames).num_rows == n
    assert a.frames.columns[:3] == ["frame_index", "process", "pid"]


def test_table_lists_are_the_registrys():
    # fpsan.TABLES and fpsan.ANALYSIS_TABLES come from the Rust registry; the
    # Analysis' typed attributes must be exactly the analysis tables.
    assert set(fpsan.Analysis.__annotations__) == set(fpsan.ANALYSIS_TABLES)
    assert set(fpsan.ANALYSIS_TABLES) <= set(fpsan.TABLES)
    assert {"slice", "frames", "flutter_frames", "android_frames"} <= set(fpsan.TABLES)
    assert "traces" not in fpsan.TABLES
    a = fpsan.analyze(DEMO)
    assert all(isinstance(getattr(a, name), fpsan.Table) for name in fpsan.ANALYSIS_TABLES)
    help_text = cli("query", "--help").stdout
    assert all(name in help_text for name in fpsan.TABLES)


def test_query_matches_the_cli(tmp_path):
    sql = "SELECT process, count(*) AS n, sum(dropped_frames) AS dropped FROM frames GROUP BY process"
    got = pa.table(fpsan.query(DEMO, sql)).to_pylist()
    expected = json.loads(cli("query", DEMO, sql, "--format", "json").stdout)
    assert got == expected


def test_compare_equals_the_cli_json(fleet, tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    shutil.copytree(fleet / "b1" / "dev1", before)
    shutil.copytree(fleet / "b2" / "dev1", after)
    c = fpsan.compare(before, after, fail_if=["fps.delta_pct < 1000"])
    done = cli("compare", before, after, "--format", "json", "--fail-if", "fps.delta_pct < 1000")
    assert c.document == json.loads(done.stdout)
    assert c.exit_code == done.returncode
    # b2 drops fewer frames than b1 on every run: 4 vs 4 fully separated, p = 2/70.
    assert c.metric("fps")["verdict"] == "better"
    assert c.metric("fps")["p_value"] == pytest.approx(2 / 70)
    assert "<table>" in c._repr_html_() and c.verdict in c._repr_html_()
    # report() returns the files it wrote, as Analysis.report() does.
    out = tmp_path / "out"
    files = c.report(out)
    assert [Path(f).relative_to(out).as_posix() for f in files] == [
        "charts/compare-cdf.png",
        "charts/compare-drop-levels.png",
        "charts/compare-fps-runs.png",
        "charts/compare-fps-wall.png",
        "compare.html",
        "compare.json",
        "frames.parquet",
    ]
    assert all(Path(f).is_file() for f in files)


def test_errors_are_exceptions_with_the_cli_line(tmp_path):
    bad = tmp_path / "bad.pftrace"
    bad.write_bytes(b"not a trace at all")
    with pytest.raises(fpsan.TraceError) as e:
        fpsan.analyze(bad)
    line = cli("analyze", bad, check=False).stderr.strip()
    assert line.startswith("fpsan: ") and str(e.value) in line
    with pytest.raises(fpsan.NoFramesError):
        fpsan.analyze(DEMO, app="com.nobody")
    with pytest.raises(fpsan.UsageError):
        fpsan.query(DEMO, "SELECT nope FROM nowhere")
    with pytest.raises(fpsan.UsageError):
        fpsan.compare(DEMO, DEMO, fail_if=["fps.sideways < 3"])
    with pytest.raises(fpsan.FpsanError):
        fpsan.analyze(tmp_path / "missing.pftrace")
    assert issubclass(fpsan.TraceError, fpsan.FpsanError)


@pytest.mark.parametrize("hz, shown", [(0, "0"), (-60.0, "-60"), (float("nan"), "NaN"), (float("inf"), "inf")])
def test_refresh_hz_must_be_positive(hz, shown):
    # As the command line refuses `--refresh-hz` that is not a positive number (status 2).
    assert cli("analyze", DEMO, f"--refresh-hz={hz}", check=False).returncode == 2
    message = f"^refresh_hz must be a positive number, got {shown}$"
    with pytest.raises(fpsan.UsageError, match=message):
        fpsan.analyze(DEMO, refresh_hz=hz)
    with pytest.raises(fpsan.UsageError, match=message):
        fpsan.compare(DEMO, DEMO, refresh_hz=hz)
    assert len(fpsan.analyze(DEMO, refresh_hz=60.0).frames) == 300


def test_report_and_threads(tmp_path):
    a = fpsan.analyze(DEMO)
    files = a.report(tmp_path)
    assert any(f.endswith("report.html") for f in files)
    # The GIL is released while analysing: threads run side by side and agree.
    results = []
    threads = [threading.Thread(target=lambda: results.append(len(fpsan.analyze(DEMO).frames))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [300] * 4


def lake_queries():
    """The SQL blocks of docs/lake.md, in order."""
    text = (ROOT / "docs" / "lake.md").read_text()
    blocks = text.split("```sql\n")[1:]
    sql = blocks[0].split("```")[0]
    return [q.strip() for q in sql.split(";") if q.strip()]


def test_batch_lake_and_the_documented_queries(fleet, tmp_path):
    farm = tmp_path / "farm"
    shutil.copytree(fleet, farm)
    (farm / "b1" / "dev2" / "run-9.pftrace").write_bytes(b"damaged")
    lake = tmp_path / "lake"
    done = cli("batch", farm, "--out", lake, "--keys", "{build}/{device}/run-{run}")
    assert "25 traces: 24 analysed, 0 already in the lake, 1 failed" in done.stderr
    again = cli("batch", farm, "--out", lake, "--keys", "{build}/{device}/run-{run}")
    assert "25 traces: 0 analysed, 25 already in the lake, 0 failed" in again.stderr

    # Independent values: fpsan.analyze on each trace.
    per_run = {}
    for t in traces_of(fleet):
        build, device, run = t.parts[-3], t.parts[-2], t.stem
        app = pa.table(fpsan.analyze(t).apps).to_pylist()[0]
        per_run[(build, device, run)] = app

    def median(xs):
        xs = sorted(xs)
        k = len(xs) // 2
        return xs[k] if len(xs) % 2 else (xs[k - 1] + xs[k]) / 2

    q = [s.replace("LAKE", str(lake)) for s in lake_queries()]
    by_build = duckdb.sql(q[0]).fetchall()
    assert len(by_build) == 6
    for build, device, runs, fps, p90_ms in by_build:
        mine = [v for (b, d, _), v in per_run.items() if (b, d) == (build, device)]
        assert runs == 4
        assert fps == pytest.approx(median([v["fps"] for v in mine]), rel=1e-12)
        assert p90_ms == pytest.approx(median([v["frame_cost_p90"] for v in mine]) / 1e6, rel=1e-12)

    regressions = duckdb.sql(q[1]).fetchall()
    assert len(regressions) == 3
    for device, before_fps, after_fps, delta in regressions:
        assert after_fps > before_fps  # b2 is the smoother build
        assert delta == pytest.approx(100 * (after_fps - before_fps) / before_fps)

    worst = duckdb.sql(q[2]).fetchall()
    assert len(worst) == 10
    assert worst[0][1] == "b1"
    path, _, _, frames, dropped_per_100 = worst[0]
    mine = fpsan.analyze(path)
    col = pa.table(mine.frames).column("dropped_frames").to_pylist()
    assert frames == len(col) and dropped_per_100 == pytest.approx(100 * sum(col) / len(col))

    failed = duckdb.sql(q[3]).fetchall()
    assert len(failed) == 1 and failed[0][0].endswith("run-9.pftrace") and failed[0][1]


DBUI = ROOT.parent / "shared" / "traces" / "real-android16-db-ui-thread-before.pftrace"


@pytest.mark.skipif(not DBUI.exists(), reason="../shared/traces is not beside the checkout")
def test_critical_path_agrees_with_the_cli():
    """The worst frames' critical-path chains and segments in Python are the CLI JSON's (docs/frames.md)."""
    cli = json.loads(subprocess.run([BIN, "analyze", str(DBUI), "--app", "com.example.perfetto.dbui",
                                     "--format", "json"], check=True, capture_output=True).stdout)
    a = fpsan.analyze(DBUI, app="com.example.perfetto.dbui")
    want = [w["why"] for w in cli["apps"][0]["worst_frames"]]
    got = [w["why"] for w in a.summary["apps"][0]["worst_frames"]]
    assert [w["chain"] for w in got] == [w["chain"] for w in want]
    assert [w["critical_path"] for w in got] == [w["critical_path"] for w in want]
    # Frame 191623 waited on its RenderThread's DrawFrames 191623 (≥ 300 ms); of the slices
    # inside, the chain names those holding most of the RenderThread's own time on the path
    # (as tests/integration/consistency.rs: cache_miss 22.5 ms with its scheduler states as
    # trace_processor has them).
    assert "← RenderThread DrawFrames 191623 327.4 ms" in got[0]["chain"]
    assert "cache_miss 22.5 ms" in got[0]["chain"]


@pytest.mark.skipif(not DBUI.exists(), reason="../shared/traces is not beside the checkout")
def test_the_database_block_agrees_with_the_cli():
    """The 328 ms `openAndQueryOnUiThread` block (docs/blocks.md) in Python's table and summary is the CLI's."""
    cli_doc = json.loads(cli("analyze", DBUI, "--format", "json").stdout)
    a = fpsan.analyze(DBUI)
    assert a.summary["main_thread_blocks"] == cli_doc["main_thread_blocks"]
    want = next(b for b in cli_doc["main_thread_blocks"]["blocks"] if b["name"] == "openAndQueryOnUiThread")
    rows = [r for r in pa.table(a.main_thread_blocks).to_pylist() if r["name"] == "openAndQueryOnUiThread"]
    assert len(rows) == 1
    got = rows[0]
    assert got["dur"] == want["dur"] == 328_290_218
    for key in ["ts", "cpu_ns", "runnable_ns", "sleeping_ns", "io_ns", "vsyncs", "frames_delayed", "level"]:
        assert got[key] == want[key], key
    cause = want["why"]["causes"][0]
    assert (got["cause_tid"], got["cause_slice"], got["cause_ns"]) == (cause["tid"], cause["slice"], cause["ns"])
    assert got["chain"] == want["why"]["chain"]
    # The main thread's states over it add up to it.
    assert got["cpu_ns"] + got["runnable_ns"] + got["sleeping_ns"] + got["io_ns"] == got["dur"]


def test_input_agrees_with_the_cli(tmp_path):
    """The generated scroll (docs/input.md, "Worked example"): Python's input summary,
    gestures and input_events table are the CLI's JSON and Parquet."""
    trace = tmp_path / "scroll.pftrace"
    subprocess.run([GEN, "input", str(trace), "scroll"], check=True, capture_output=True)
    cli_doc = json.loads(cli("analyze", trace, "--format", "json").stdout)
    a = fpsan.analyze(trace)
    assert a.summary["input"] == cli_doc["input"]
    app = cli_doc["input"]["apps"][0]
    assert (app["events"], app["gestures"], app["delayed_frames"], app["judged_presents"]) == (11, 1, 1, 5)
    assert app["end_to_end_ns"]["p90"] == 69_666_668
    out = tmp_path / "out"
    cli("analyze", trace, "--out", out)
    expected = pq.read_table(out / "input_events.parquet")
    got = pa.table(a.input_events)
    assert got.equals(expected)
    e2e = [r["end_to_end_latency_dur"] for r in got.to_pylist()]
    assert e2e == [42_000_001, 36_333_334, 36_333_334, 36_333_334, 69_666_668, 69_666_668, None, None, 36_333_334,
                   None, None]
