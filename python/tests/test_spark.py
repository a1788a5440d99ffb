"""fpsan.spark in Spark's local mode (`local[2]`): the fleet's frames computed on the
executors are the rows `fpsan batch` writes to the lake, and the per-device verdicts are
`fpsan compare`'s."""

import subprocess
import sys

import duckdb
import pyarrow as pa
import pytest

import fpsan
from conftest import BIN, traces_of

pyspark = pytest.importorskip("pyspark")
from fpsan import spark as fs  # noqa: E402


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # Spark starts its Python workers with `python3` from PATH unless told
    # otherwise, and that interpreter need not have fpsan or pyarrow
    # (scripts/test.sh runs these tests where it has neither): the workers
    # run this interpreter, as docs/spark.md tells users to set it. A session
    # made in this process reads PYSPARK_PYTHON when it starts; the
    # `spark.pyspark.python` setting is spark-submit's and changes nothing here.
    with pytest.MonkeyPatch.context() as env:
        env.setenv("PYSPARK_PYTHON", sys.executable)
        s = (
            SparkSession.builder.master("local[2]")
            .appName("fpsan-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .getOrCreate()
        )
        yield s
        s.stop()


def paths_df(spark, fleet):
    rows = [(str(p), p.parts[-3], p.parts[-2], p.stem.replace("run-", "")) for p in traces_of(fleet)]
    return spark.createDataFrame(rows, ["path", "build", "device", "run"])


def test_frames_on_spark_are_the_lake_rows(spark, fleet, tmp_path):
    lake = tmp_path / "lake"
    subprocess.run([BIN, "batch", str(fleet), "--out", str(lake), "--keys", "{build}/{device}/run-{run}"],
                   check=True, capture_output=True)
    got = fs.frames(paths_df(spark, fleet)).drop("path").toArrow()
    expected = duckdb.sql(
        f"SELECT * FROM read_parquet('{lake}/frames/**/*.parquet', hive_partitioning = true, hive_types_autocast = false)"
    ).to_arrow_table()
    assert got.num_rows == expected.num_rows > 24 * 60
    columns = [c for c in expected.column_names]
    assert sorted(got.column_names) == sorted(columns)
    order = [("trace_id", "ascending"), ("frame_index", "ascending")]
    g = got.select(columns).sort_by(order)
    e = expected.select(columns).sort_by(order)
    for name in columns:
        assert g.column(name).to_pylist() == e.column(name).to_pylist(), name


def test_compare_on_spark_gives_the_cli_verdicts(spark, fleet):
    frames = fs.frames(paths_df(spark, fleet))
    verdicts = fs.compare(frames, by=["device"], side="build", before="b1", after="b2").toPandas()
    assert sorted(verdicts["device"].unique()) == ["dev1", "dev2", "dev3"]
    for device in ["dev1", "dev2", "dev3"]:
        c = fpsan.compare(fleet / "b1" / device, fleet / "b2" / device)
        mine = verdicts[verdicts["device"] == device].set_index("metric")
        assert list(mine.index) == [m["metric"] for m in c.metrics]
        for m in c.metrics:
            row = mine.loc[m["metric"]]
            assert row["verdict"] == m["verdict"], (device, m["metric"])
            assert (row["p_value"] == m["p_value"]) or (m["p_value"] is None and row["p_value"] != row["p_value"])
            assert row["runs_before"] == 4 and row["runs_after"] == 4
