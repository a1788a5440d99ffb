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
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
# The test tools, pinned so that a run today and a run next month test the
# same thing; the package itself pins none of them.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  "maturin==1.16.0" "pytest==9.2.0" "pyarrow==26.0.1" "polars==2.1.0" "pandas==3.1.1" "duckdb==2.0.1" \
  "pyspark==4.0.1"
wheels="$CARGO_TARGET_DIR/wheels"
rm -rf "$wheels"
"$venv/bin/maturin" build --release --quiet -m python/Cargo.toml -o "$wheels"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/fpsan-*.whl
FPSAN_BIN="$CARGO_TARGET_DIR/release/fpsan" FPSAN_GEN="$CARGO_TARGET_DIR/release/examples/gen_trace" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
