"""fpsan: Android UI smoothness from Perfetto traces, in Python (docs/python.md).

    import fpsan, pyarrow as pa
    a = fpsan.analyze("trace.pftrace")
    pa.table(a.frames)            # or polars.DataFrame(a.frames), a.frames.to_pandas(), duckdb
    a.apps.to_polars()
    c = fpsan.compare("before/", "after/", fail_if=["fps.delta_pct < -5"])
    c.verdict, c.exit_code        # and c in a notebook shows the verdict table

Tables are Arrow: they implement the Arrow PyCapsule stream protocol
(``__arrow_c_stream__``), so any Arrow consumer takes them without a copy and
fpsan pins none of them. Column names and types are those of the command
line's Parquet files. Errors are ``FpsanError`` subclasses with the command
line's one-line messages; the work runs without the GIL.
"""

from __future__ import annotations

import json
from os import PathLike, fspath
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _fpsan
from ._fpsan import ANALYSIS_TABLES, TABLES, FpsanError, NoFramesError, Table, TraceError, UsageError

__version__ = _fpsan.__version__
__all__ = [
    "analyze",
    "query",
    "compare",
    "Analysis",
    "Comparison",
    "Table",
    "TABLES",
    "ANALYSIS_TABLES",
    "FpsanError",
    "TraceError",
    "NoFramesError",
    "UsageError",
]

Path = Union[str, "PathLike[str]"]


class Analysis:
    """One trace analysed: its tables (Arrow tables named as ``fpsan query`` and the lake
    name them: those of ``ANALYSIS_TABLES``), ``warnings`` (lines), ``summary`` (the JSON of
    ``fpsan analyze --format json``) and ``trace`` (its facts)."""

    # One attribute per name of ANALYSIS_TABLES, the registry's list (a test holds them equal).
    frames: Table
    apps: Table
    scenes: Table
    presents: Table
    flutter_frames: Table
    startups: Table
    main_thread_blocks: Table
    input_events: Table

    def __init__(self, path: Path, raw: Dict[str, Any], options: Dict[str, Any]):
        self.path = fspath(path)
        for name in ANALYSIS_TABLES:
            setattr(self, name, raw[name])
        self.warnings: List[str] = list(raw["warnings"])
        self.summary: Dict[str, Any] = json.loads(raw["summary_json"])
        self.trace: Dict[str, Any] = self.summary.get("trace", {})
        self._options = options

    def report(self, out_dir: Path) -> List[str]:
        """Write what ``fpsan analyze --out DIR`` writes; returns the files."""
        return [fspath(p) for p in _fpsan.report(self.path, fspath(out_dir), **self._options)]

    def __repr__(self) -> str:
        return f"<fpsan.Analysis {self.path}: {len(self.frames)} frames, {len(self.apps)} apps>"


def analyze(path: Path, app: Optional[str] = None, refresh_hz: Optional[float] = None,
            whole_trace: bool = False) -> Analysis:
    """Analyse one trace, as ``fpsan analyze`` (``app`` as ``--app``)."""
    options = {"app": app, "refresh_hz": refresh_hz, "whole_trace": whole_trace}
    return Analysis(path, _fpsan.analyze(fspath(path), **options), options)


def query(path: Path, sql: str) -> Table:
    """Polars SQL over the trace's tables (``TABLES`` names them), as ``fpsan query``."""
    return _fpsan.query(fspath(path), sql)


class Comparison:
    """``fpsan compare``'s result: ``metrics`` (one dict per metric, as in
    compare.json), ``verdict`` (the overall word), ``gates``, ``exit_code``
    (0, or 3 when a ``fail_if`` gate tripped), ``document`` (the whole
    compare.json), ``markdown``; shown as a table in a notebook."""

    def __init__(self, raw: Dict[str, Any], args: Dict[str, Any]):
        self.document: Dict[str, Any] = json.loads(raw["json"])
        self.markdown: str = raw["markdown"]
        self.tripped: List[str] = list(raw["tripped"])
        self.notes: List[str] = list(raw["notes"])
        self.metrics: List[Dict[str, Any]] = self.document.get("metrics", [])
        self.gates: List[Dict[str, Any]] = self.document.get("gates", [])
        self.verdict: str = self.document.get("overall", "")
        self.exit_code: int = 3 if self.tripped else 0
        self._args = args

    def metric(self, name: str) -> Dict[str, Any]:
        """One metric's row (``fps``, ``jank_pct``, …)."""
        for m in self.metrics:
            if m.get("metric") == name:
                return m
        raise KeyError(name)

    def report(self, out_dir: Path) -> List[str]:
        """Write compare.html, compare.json, charts and frames.parquet into ``out_dir``; returns the files."""
        raw = _fpsan.compare(**{**self._args, "out_dir": fspath(out_dir)})
        return [fspath(p) for p in raw["written"]]

    def _repr_html_(self) -> str:
        from html import escape

        rows = []
        for m in self.metrics:
            # As the command line's table: every run of both sides 0 is no change, whatever the test said.
            verdict = "no change (0 both)" if m.get("zero_both") else m.get("verdict")
            cells = [m.get("metric"), m.get("before"), m.get("after"), m.get("delta_pct"), verdict]
            shown = ["" if v is None else (f"{v:.4g}" if isinstance(v, float) else str(v)) for v in cells]
            rows.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in shown) + "</tr>")
        head = "".join(f"<th>{h}</th>" for h in ["metric", "before", "after", "Δ %", "verdict"])
        gates = "".join(f"<li>{escape(t)}</li>" for t in self.tripped)
        return (
            f"<div><b>fpsan compare: {escape(self.verdict)}</b>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            + (f"<p>gates tripped:</p><ul>{gates}</ul>" if gates else "")
            + "</div>"
        )

    def __repr__(self) -> str:
        return f"<fpsan.Comparison {self.verdict}, exit code {self.exit_code}>"


def compare(before: Path, after: Path, app: Optional[str] = None, fail_if: Sequence[str] = (),
            alpha: float = 0.05, min_change: float = 2.0, refresh_hz: Optional[float] = None,
            whole_trace: bool = False) -> Comparison:
    """Compare before/after traces (files or directories of runs), as ``fpsan compare``."""
    args = {
        "before": fspath(before),
        "after": fspath(after),
        "app": app,
        "fail_if": list(fail_if),
        "alpha": alpha,
        "min_change": min_change,
        "refresh_hz": refresh_hz,
        "whole_trace": whole_trace,
    }
    return Comparison(_fpsan.compare(**args), args)
