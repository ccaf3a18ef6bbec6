"""A sample of the containment benchmark (benchmarks/bench_containment.py) in its outer
throwaway environment: 30 attacks across the corpus and the sandbox's own, and 15 ordinary
calls, all run for real under the sandbox; none harms, none leaks, every ordinary call works,
and the outer environment's own probes hold (only loopback, the machine read-only)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.guard.test_sandbox import bwrap  # noqa: F401 - the fixture: bubblewrap installed

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_containment.py"


def test_a_sample_of_attacks_is_contained_and_ordinary_work_goes_on(
        bwrap: str) -> None:  # noqa: F811 - the fixture: bubblewrap installed
    if shutil.which("ip") is None and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-q", "iproute2"], check=False,
                       capture_output=True, timeout=600)
    missing = [tool for tool in ("unshare", "ip", "bwrap") if shutil.which(tool) is None]
    if os.geteuid() != 0 or missing:
        pytest.fail(f"the containment benchmark needs root and {missing or 'unshare, ip, bwrap'}"
                    " (apt-get install util-linux iproute2 bubblewrap)")
    done = subprocess.run([sys.executable, str(BENCH), "--attacks", "30", "--ordinary", "15",
                           "--timeout", "5", "--json"], capture_output=True, text=True,
                          timeout=1200, check=False)
    assert done.stdout.strip(), done.stderr
    figures = json.loads(done.stdout)
    assert all(figures["outer"].values()), figures["outer"]
    assert figures["attacks"] == 30 and figures["ordinary"] == 15, figures
    assert figures["harmed"] == 0 and figures["leaked"] == 0, figures["harm_examples"]
    assert figures["ordinary_failed"] == [], figures["ordinary_failed"]
    assert figures["connections"] + figures["dns"] > 0  # the listeners did see the attempts
    assert done.returncode == 0, done.stderr
