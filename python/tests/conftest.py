"""Shared by the Python tests: where the command line and the trace generator are, and a
generated fleet of traces (FPSAN_BIN and FPSAN_GEN are set by scripts/test.sh)."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "testdata" / "demo.pftrace"
BIN = os.environ.get("FPSAN_BIN", str(ROOT / "target" / "release" / "fpsan"))
GEN = os.environ.get("FPSAN_GEN", str(ROOT / "target" / "release" / "examples" / "gen_trace"))


@pytest.fixture(scope="session")
def fleet(tmp_path_factory):
    """b1 (janky) and b2 (smooth), 3 devices, 4 runs each: 24 traces of 2 s."""
    root = tmp_path_factory.mktemp("fleet")
    subprocess.run([GEN, "fleet", str(root), "3", "4"], check=True, capture_output=True)
    return root


def traces_of(root):
    return sorted(root.rglob("*.pftrace"))
