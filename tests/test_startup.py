"""`ralph-verify --help` and `--version` stay fast: nothing heavy is imported."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("junitparser", "coverage", "xml.etree.ElementTree", "mypy", "http.server", "asyncio",
         # What only some commands need, imported when they run (each some 10-20 ms):
         "urllib.request", "xml.sax", "ralph_verify.guard", "ralph_verify.recovery",
         "ralph_verify.fleet.executor", "ralph_verify.fleet.job", "ralph_verify.agents.retry")


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["check", "--help"]])
def test_startup_imports_nothing_heavy(args: list[str]) -> None:
    code = (
        "import sys\n"
        "from ralph_verify.session import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stdout
