"""fpsan on Apache Spark (docs/spark.md): the lake's frames computed on the executors,
and `fpsan compare`'s verdicts per group.

    from fpsan import spark as fs
    paths = spark.createDataFrame([("/mnt/farm/b1/p7/run-1.pftrace", "b1", "p7", "1"), ...],
                                  ["path", "build", "device", "run"])
    frames = fs.frames(paths)                        # the lake's `frames` rows + the key columns
    verdicts = fs.compare(frames, by=["device"], side="build", before="b1", after="b2")

Traces travel as paths, not bytes: every executor must read them (a shared or mounted
file system, as for any Spark input). Each task analyses its traces with the same
library as the command line, so a row here is the row `fpsan batch` writes.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any, Dict, List, Optional, Sequence

import fpsan
from fpsan import _fpsan

_COMPARE_COLUMNS = [
    ("metric", "string"),
    ("unit", "string"),
    ("before", "double"),
    ("after", "double"),
    ("delta", "double"),
    ("delta_pct", "double"),
    ("ci_low", "double"),
    ("ci_high", "double"),
    ("p_value", "double"),
    ("verdict", "string"),
    ("runs_before", "long"),
    ("runs_after", "long"),
]


def frames(paths, path_col: str = "path", app: Optional[str] = None, refresh_hz: Optional[float] = None,
           whole_trace: bool = False):
    """One row per frame of every trace in `paths` (a DataFrame with a `path_col` column and
    any key columns): `trace_id` (the BLAKE3 hash `fpsan batch` uses), the columns of
    frames.parquet, then the key columns and `path`. Runs through `mapInArrow`: a trace per
    step, on the executors. A trace that cannot be analysed gives no rows (`fpsan batch`
    records why in its `traces` table)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import from_arrow_schema

    keys = [f for f in paths.schema.fields if f.name != path_col]
    frame_schema = pa.table(_fpsan.frames_schema()).schema
    arrow_keys = [pa.field(f.name, pa.string()) for f in keys]
    out_schema = pa.schema([pa.field("trace_id", pa.string())] + list(frame_schema) + arrow_keys
                           + [pa.field(path_col, pa.string())])
    options = {"app": app, "refresh_hz": refresh_hz, "whole_trace": whole_trace}
    names = [f.name for f in keys]

    def analyse(batches):
        import pyarrow as pa
        import fpsan

        for batch in batches:
            for row in batch.to_pylist():
                path = row[path_col]
                try:
                    table = pa.table(fpsan.analyze(path, **options).frames)
                    trace_id = fpsan._fpsan.content_id(path)
                except fpsan.FpsanError:
                    continue
                n = table.num_rows
                if n == 0:
                    continue
                table = table.add_column(0, "trace_id", pa.array([trace_id] * n, pa.string()))
                for name in names:
                    value = row[name]
                    table = table.append_column(name, pa.array([None if value is None else str(value)] * n, pa.string()))
                table = table.append_column(path_col, pa.array([path] * n, pa.string()))
                yield from table.cast(out_schema).to_batches()

    casted = paths.select(*[paths[name].cast("string").alias(name) for name in names], paths[path_col])
    return casted.mapInArrow(analyse, from_arrow_schema(out_schema))


def compare(frames_df, by: Sequence[str], side: str, before: str, after: str, path_col: str = "path",
            app: Optional[str] = None, alpha: float = 0.05, min_change: float = 2.0):
    """`fpsan compare`'s metrics and verdicts for every group of `by` (e.g. device,
    scenario): within a group, the traces whose `side` column is `before` against those
    where it is `after`, each trace a run. One row per group and metric: the `by` columns,
    then metric, unit, before, after, delta, delta_pct, ci_low, ci_high, p_value, verdict,
    runs_before, runs_after. The statistics are compare's own (each group runs
    `fpsan.compare` on its traces' paths), so a verdict here is the command line's."""
    by = list(by)
    runs = frames_df.select(*by, side, path_col).where(frames_df[side].isin(before, after)).distinct()
    schema = ", ".join([f"{c} string" for c in by] + [f"{n} {t}" for n, t in _COMPARE_COLUMNS])

    def judge(group):
        import pandas as pd
        import fpsan

        keys = {c: group[c].iloc[0] for c in by}
        with tempfile.TemporaryDirectory() as tmp:
            sides = {}
            for label in (before, after):
                folder = os.path.join(tmp, "before" if label == before else "after")
                os.makedirs(folder)
                for k, path in enumerate(sorted(group.loc[group[side] == label, path_col])):
                    os.symlink(path, os.path.join(folder, f"run-{k:05d}.pftrace"))
                sides[label] = folder
            if not os.listdir(sides[before]) or not os.listdir(sides[after]):
                return pd.DataFrame(columns=by + [n for n, _ in _COMPARE_COLUMNS])
            c = fpsan.compare(sides[before], sides[after], app=app, alpha=alpha, min_change=min_change)
        rows = []
        for m in c.metrics:
            ci = m.get("ci") or [None, None]
            rows.append({**{k: str(v) for k, v in keys.items()},
                         "metric": m["metric"], "unit": m.get("unit"), "before": m.get("before"),
                         "after": m.get("after"), "delta": m.get("delta"), "delta_pct": m.get("delta_pct"),
                         "ci_low": ci[0], "ci_high": ci[1], "p_value": m.get("p_value"),
                         "verdict": m.get("verdict"),
                         "runs_before": len(m.get("before_runs") or []), "runs_after": len(m.get("after_runs") or [])})
        return pd.DataFrame(rows, columns=by + [n for n, _ in _COMPARE_COLUMNS])

    casted = runs.select(*[runs[c].cast("string").alias(c) for c in by], runs[side].cast("string").alias(side),
                         runs[path_col])
    return casted.groupBy(*by).applyInPandas(judge, schema)
