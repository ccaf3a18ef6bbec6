"""``ralph_register_executors``: a plugin's executor runs a fleet's loops, with ``run_job``
and the fleet context, exactly as the hook's documentation shows."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ralph_verify import (
    ExecutorRegistry,
    ExecutorType,
    FleetContext,
    LoopJob,
    hookimpl,
    run_job,
)
from ralph_verify.testing import Ralph
from tests.fleet.kata import agent, git, make_monorepo

FLEET_FILE = """\
[fleet]
until = "tests"
max-iterations = 2
prompt = "Make the tests pass."

[[task]]
folder = "packages/a"

[[task]]
folder = "packages/b"
"""


class Inline:
    """One loop after another, in this process's thread."""

    mode = "worktree"

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def run(self, jobs: Sequence[LoopJob], fleet: FleetContext) -> None:
        for job in jobs:
            prepared = fleet.prepare(job)
            if prepared is None:
                continue
            fleet.started(prepared, "inline")
            result = run_job(prepared)
            self.log.append(f"{prepared.name}: {result.record.verdict}")
            fleet.finished(prepared, result)


def test_a_plugin_executor_runs_the_fleet(ralph: Ralph) -> None:
    log: list[str] = []

    class InlinePlugin:
        @hookimpl
        def ralph_register_executors(self, registry: ExecutorRegistry) -> None:
            registry.add(ExecutorType("inline", lambda: Inline(log), "one loop after another"))

    make_monorepo(ralph.path, ["a", "b"])
    (ralph.path / "fleet.toml").write_text(FLEET_FILE)
    git(ralph.path, "add", "-A")
    git(ralph.path, "commit", "-q", "-m", "fleet file")
    result = ralph.run("fleet", "fleet.toml", "--agent", agent(ralph.path.parent),
                       "--executor", "inline", "--id", "e1", plugins=[InlinePlugin()])
    assert result.ret == 0, result
    assert log == ["packages-a: complete", "packages-b: complete"]
    document = json.loads((ralph.path / "fleet" / "fleet.json").read_text())
    assert document["executor"] == "inline"
    assert {(loop["name"], loop["verdict"], loop["where"]) for loop in document["loops"]} == {
        ("packages-a", "complete", "inline"), ("packages-b", "complete", "inline")}

    unknown = ralph.run("fleet", "fleet.toml", "--agent", agent(ralph.path.parent),
                        "--executor", "elsewhere", plugins=[InlinePlugin()])
    assert unknown.ret == 2
    assert "--executor 'elsewhere': no such executor; known:" in unknown.err
    known = unknown.err.split("known:")[1].strip().split(", ")
    assert {"inline", "local"} <= set(known)


def test_an_executor_name_taken_twice_is_refused(ralph: Ralph) -> None:
    class Clash:
        @hookimpl
        def ralph_register_executors(self, registry: ExecutorRegistry) -> None:
            registry.add(ExecutorType("local", lambda: Inline([]), "a second local"))

    make_monorepo(ralph.path, ["a", "b"])
    (ralph.path / "fleet.toml").write_text(FLEET_FILE)
    git(ralph.path, "add", "-A")
    git(ralph.path, "commit", "-q", "-m", "fleet file")
    result = ralph.run("fleet", "fleet.toml", "--agent", agent(ralph.path.parent),
                       plugins=[Clash()])
    assert result.ret == 2, result
    assert "executor 'local' is registered twice" in result.err
