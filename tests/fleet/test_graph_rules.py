"""A fleet with ``depends-on`` on an executor that takes lists only (a plugin's): the ready
tasks come in waves; and what such a fleet refuses before anything runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ralph_verify import ExecutorRegistry, ExecutorType, FleetContext, LoopJob, hookimpl, run_job
from ralph_verify.testing import Ralph
from tests.fleet.graph_kata import DIAMOND
from tests.fleet.test_graph import setup_graph


class Lists:
    """One loop after another, given lists only (no ``feeds``): it records each call."""

    mode = "worktree"

    def __init__(self, calls: list[list[str]]) -> None:
        self.calls = calls

    def run(self, jobs: Sequence[LoopJob], fleet: FleetContext) -> None:
        self.calls.append([job.name for job in jobs])
        for job in jobs:
            prepared = fleet.prepare(job)
            if prepared is None:
                continue
            fleet.started(prepared, "lists")
            fleet.finished(prepared, run_job(prepared))


def test_an_executor_of_lists_gets_the_graph_in_waves(ralph: Ralph, tmp_path: Path) -> None:
    calls: list[list[str]] = []

    class ListsPlugin:
        @hookimpl
        def ralph_register_executors(self, registry: ExecutorRegistry) -> None:
            registry.add(ExecutorType("lists", lambda: Lists(calls), "lists only"))

    _marks, agent = setup_graph(ralph, tmp_path, "")
    ralph.makefile("tasks.toml", DIAMOND.format(agent=agent))
    result = ralph.run("fleet", "tasks.toml", "--executor", "lists", "--id", "w1",
                       plugins=[ListsPlugin()])
    assert result.ret == 0, result
    assert calls == [["T1", "T2"], ["T3"]]
    document = json.loads((ralph.path / "fleet" / "fleet.json").read_text())
    assert [loop["task_status"] for loop in document["loops"]] == ["done"] * 3
    assert document["integration"]["final"]["passed"] is True


def test_what_a_fleet_with_depends_on_refuses_before_anything_runs(
        ralph: Ralph, tmp_path: Path) -> None:
    marks, agent = setup_graph(ralph, tmp_path, "")
    ralph.makefile("tasks.toml", DIAMOND.format(agent=agent))
    sharded = ralph.run("fleet", "tasks.toml", "--shard", "1/2")
    assert sharded.ret == 2, sharded
    assert "--shard: a fleet whose tasks declare depends-on" in sharded.err
    ralph.makefile("other.toml", DIAMOND.format(agent=agent) + 'repo = "/elsewhere"\n')
    cloned = ralph.run("fleet", "other.toml")
    assert cloned.ret == 2, cloned
    assert "task T3: repo = ... cannot take part in depends-on" in cloned.err
    cycle = DIAMOND.format(agent=agent).replace('id = "T1"\ntitle = "a()"\nuntil = '
                                                '"tests:tests/test_a.py"\ndepends-on = []',
                                                'id = "T1"\ntitle = "a()"\nuntil = '
                                                '"tests:tests/test_a.py"\ndepends-on = ["T3"]')
    ralph.makefile("cycle.toml", cycle)
    looped = ralph.run("fleet", "cycle.toml")
    assert looped.ret == 2, looped
    assert "the tasks depend on each other in a cycle" in looped.err
    assert not (ralph.path / "fleet").exists()  # nothing ran
    ralph.git("branch", "ralph/fleet-again/_integration")
    again = ralph.run("fleet", "tasks.toml", "--id", "again")
    assert again.ret == 2, again
    assert "--id again: this fleet ran before (its branch ralph/fleet-again/_integration " \
        "exists); give a new --id" in again.err
    assert runs_of(marks) == []


def runs_of(marks: Path) -> list[str]:
    return sorted(path.name for path in marks.iterdir())


STOP = """\
[defaults]
agent = {agent!r}
prompt = "Do the task named by $RALPH_TASK_ID."
max-iterations = 2
on-fail = "stop"

[[task]]
id = "T1"
until = "tests:tests/test_a.py"
agent = "cmd:echo I looked but changed nothing"
max-iterations = 1
depends-on = []

[[task]]
id = "T2"
until = "tests:tests/test_b.py"
depends-on = []
"""


def test_on_fail_stop_ends_the_fleet_at_the_first_failed_task(
        ralph: Ralph, tmp_path: Path) -> None:
    marks, agent = setup_graph(ralph, tmp_path, "")
    ralph.makefile("tasks.toml", STOP.format(agent=agent))
    result = ralph.run("fleet", "tasks.toml", "-j", "1", "--id", "f1")
    assert result.ret == 1, result
    document = json.loads((ralph.path / "fleet" / "fleet.json").read_text())
    loops = {loop["name"]: loop for loop in document["loops"]}
    assert loops["T1"]["task_status"] == "failed"
    assert loops["T2"]["task_status"] == "not-run", loops["T2"]
    assert loops["T2"]["task_reason"] == 'task T1 failed (on-fail = "stop")'
    assert document["cancelled"] == 'task T1 failed (on-fail = "stop")'
    assert runs_of(marks) == []  # T2's agent never ran
    assert document["integration"]["final"] is None  # stopped: no final check


def test_sigterm_stops_a_fleet_with_depends_on_cleanly(ralph: Ralph, tmp_path: Path) -> None:
    marks, agent = setup_graph(ralph, tmp_path, "hang")
    ralph.makefile("tasks.toml", DIAMOND.format(agent=agent))
    fleet = subprocess.Popen([sys.executable, "-m", "ralph_verify", "fleet", "tasks.toml", "-j",
                              "1", "--id", "t1"], cwd=ralph.path, env={**os.environ,
                                                                       **ralph.env},
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (marks / "T1.started").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (marks / "T1.started").exists()
        fleet.send_signal(signal.SIGTERM)
        out, _ = fleet.communicate(timeout=120)
    finally:
        if fleet.poll() is None:
            fleet.kill()
            fleet.wait()
    assert fleet.returncode == 130, out
    document = json.loads((ralph.path / "fleet" / "fleet.json").read_text())
    loops = {loop["name"]: loop for loop in document["loops"]}
    assert loops["T1"]["verdict"] == "cancelled" and loops["T1"]["task_status"] == "cancelled"
    assert loops["T2"]["task_status"] == "not-run" and loops["T3"]["task_status"] == "not-run"
    assert document["integration"]["final"] is None
    assert document["integration"]["merged"] == []
    # Its worktrees' admin entries are sound, the integration branch is where it began.
    assert ralph.git("rev-parse", "ralph/fleet-t1/_integration") == ralph.git("rev-parse", "main")
