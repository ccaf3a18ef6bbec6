"""The costliest check's tool starts first; the other checks prepare theirs after it has.

Three checks share one interpreter while they prepare their tools. If the quick ones
prepared first, the longest tool (the test suite) would start later and the whole
verification would end later by as much. The others wait until a tool has started, or
the costliest check has finished, or a short time has passed (so a check that prepares
for long, or never starts a tool, delays nobody for more than that).
"""

from __future__ import annotations

import sys
import threading
import time
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
from ralph_verify.checks import verification
from ralph_verify.testing import Ralph


class Events:
    """What the checks did, in the order they did it."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.lock = threading.Lock()
        self.other_started = threading.Event()

    def add(self, what: str) -> None:
        with self.lock:
            self.order.append(what)


def plugin(events: Events, *, head_prepares: float = 0.0, head_runs_tool: bool = True,
           head_waits_for_other: bool = False) -> object:
    class Head(Check):
        cost = 100

        def run(self, ctx: VerifyContext) -> CheckResult:
            time.sleep(head_prepares)  # a slow preparation: the others must not go first
            if head_waits_for_other:
                events.other_started.wait(timeout=60)
            if head_runs_tool:
                events.add("head starts its tool")
                ctx.run([sys.executable, "-c", "import time; time.sleep(0.2)"], timeout=60)
            events.add("head done")
            return self.result(Status.PASSED, "ok")

    class Other(Check):
        cost = 3

        def run(self, ctx: VerifyContext) -> CheckResult:
            events.add("other prepares")
            events.other_started.set()
            ctx.run([sys.executable, "-c", "pass"], timeout=60)
            return self.result(Status.PASSED, "ok")

    class Plugin:
        @hookimpl
        def ralph_register_checks(self, registry: CheckRegistry) -> None:
            registry.add(CheckType(name="head", factory=Head, help="the costliest"))
            registry.add(CheckType(name="other", factory=Other, help="a quick one"))

    return Plugin()


def test_the_others_prepare_once_the_costliest_tool_has_started(
        ralph: Ralph, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verification, "_HEAD_START_WAIT", 60.0)  # order, not timing, decides
    events = Events()
    result = ralph.run("check", "--until", "other,head", "--no-cache",
                       plugins=[plugin(events, head_prepares=0.3)])
    assert result.ret == 0, result
    assert events.order.index("head starts its tool") < events.order.index("other prepares")


def test_a_costliest_check_without_a_tool_lets_the_others_go_when_it_ends(
        ralph: Ralph, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verification, "_HEAD_START_WAIT", 60.0)
    events = Events()
    result = ralph.run("check", "--until", "head,other", "--no-cache",
                       plugins=[plugin(events, head_runs_tool=False)])
    assert result.ret == 0, result
    assert events.order == ["head done", "other prepares"]
    assert result.duration < 30  # not the 60 s wait


def test_the_others_wait_only_so_long_for_the_costliest_tool(ralph: Ralph) -> None:
    """The costliest check waits for the other to start before it starts its own tool: the
    other's wait must end by itself, or neither would ever go on."""
    events = Events()
    started = time.perf_counter()
    result = ralph.run("check", "--until", "head,other", "--no-cache",
                       plugins=[plugin(events, head_waits_for_other=True)])
    assert result.ret == 0, result
    assert events.order[0] == "other prepares"
    assert time.perf_counter() - started < 30  # the head's own 60 s wait never ran out


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
