"""The costliest check starts first: with fewer workers than checks, the longest first is
the shortest wall time."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from ralph_verify import (
    Check,
    CheckRegistry,
    CheckResult,
    CheckType,
    Status,
    VerifyContext,
    hookimpl,
)
from ralph_verify.testing import Ralph


class Events:
    """What the checks did, in the order they did it."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.lock = threading.Lock()

    def add(self, what: str) -> None:
        with self.lock:
            self.order.append(what)


def plugin(events: Events) -> object:
    class Head(Check):
        cost = 100

        def run(self, ctx: VerifyContext) -> CheckResult:
            events.add("head starts its tool")
            ctx.run([sys.executable, "-c", "import time; time.sleep(0.2)"], timeout=60)
            events.add("head done")
            return self.result(Status.PASSED, "ok")

    class Other(Check):
        cost = 3

        def run(self, ctx: VerifyContext) -> CheckResult:
            events.add("other prepares")
            ctx.run([sys.executable, "-c", "pass"], timeout=60)
            return self.result(Status.PASSED, "ok")

    class Plugin:
        @hookimpl
        def ralph_register_checks(self, registry: CheckRegistry) -> None:
            registry.add(CheckType(name="head", factory=Head, help="the costliest"))
            registry.add(CheckType(name="other", factory=Other, help="a quick one"))

    return Plugin()


def test_with_one_job_the_checks_run_in_turn_costliest_first(ralph: Ralph) -> None:
    events = Events()
    result = ralph.run("check", "--until", "other,head", "--no-cache", "--jobs", "1",
                       plugins=[plugin(events)])
    assert result.ret == 0, result
    assert events.order == ["head starts its tool", "head done", "other prepares"]


def test_mypy_goes_first_while_its_cache_is_cold(ralph: Ralph, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a cache mypy checks every module from scratch, and is often the longest tool
    of a first run: it starts first then, and after the tests once its cache is warm."""
    monkeypatch.setenv("RALPH_VERIFY_CACHE_DIR", str(tmp_path / "cache"))
    ralph.makepyfile(app="def double(x: int) -> int:\n    return 2 * x\n",
                     test_app="from app import double\n\ndef test_double():\n"
                              "    assert double(2) == 4\n")
    starts: list[str] = []

    class Recorder:
        @hookimpl
        def ralph_report_check_start(self, check: Check) -> None:
            starts.append(check.name)

    for _ in range(2):
        result = ralph.run("check", "--until", "tests,types", "--no-cache", "--jobs", "1",
                           plugins=[Recorder()])
        assert result.ret == 0, result
    assert starts == ["types", "tests", "tests", "types"]
