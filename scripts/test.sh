#!/usr/bin/env bash
# Every test: the Rust ones (`cargo test --release`: unit, integration,
# conformance, the trace builder's), then the Python package's (the wheel
# built from this checkout with maturin, installed into a virtual
# environment of its own, pytest over python/tests, Spark in local mode
# among them: it needs Java 17 or newer). The README's test command;
# `.ci/run` runs it too.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/fpsan-target}"

echo "== Rust tests (cargo test --release)"
cargo test --release

echo "== Python package: wheel, then pytest"
venv="$CARGO_TARGET_DIR/python-venv"
# The venv sees only what is installed into it (no --system-site-packages);
# one made otherwise by an older version of this script is made again.
if [ ! -x "$venv/bin/python" ] || grep -qi '^include-system-site-packages *= *true' "$venv/pyvenv.cfg"; then
  rm -rf "$venv"
  python3 -m venv "$venv"
fi
# The test tools, pinned so that a run today and a run next month test the
# same thing; the package itself pins none of them. Playwright drives the
# system's chromium (report.html's frame timeline, test_report_browser.py);
# it downloads no browser of its own.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  "maturin==1.16.0" "pytest==9.2.0" "pyarrow==26.0.1" "polars==2.1.0" "pandas==3.1.1" "duckdb==2.0.1" \
  "pyspark==4.0.1" "playwright==1.65.2"
wheels="$CARGO_TARGET_DIR/wheels"
rm -rf "$wheels"
"$venv/bin/maturin" build --release --quiet -m python/Cargo.toml -o "$wheels"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/fpsan-*.whl
# pytest runs as on a fresh machine, seeing nothing installed by hand: no
# user site-packages, no PYTHONPATH, no PySpark interpreter chosen in the
# environment, and a PATH without any virtual environment, so the `python3`
# Spark would start by default is the system's (without fpsan): the tests
# must name the interpreter their Spark workers run, as docs/spark.md says.
path="$(printf '%s\n' "$PATH" | tr ':' '\n' | grep -vxF -e "$venv/bin" ${VIRTUAL_ENV:+-e "$VIRTUAL_ENV/bin"} | paste -sd: -)"
env -u PYSPARK_PYTHON -u PYSPARK_DRIVER_PYTHON -u PYTHONPATH -u PYTHONHOME -u VIRTUAL_ENV \
  PYTHONNOUSERSITE=1 PATH="$path" \
  FPSAN_BIN="$CARGO_TARGET_DIR/release/fpsan" FPSAN_GEN="$CARGO_TARGET_DIR/release/examples/gen_trace" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
