"""Run the mutants in the project's pytest and collect what each one did.

One pytest process runs them all (:mod:`.inside`); when it dies or its watchdog ends it
under a mutant (a loop that never ends, ``os._exit`` in the mutated code), that mutant is
counted killed and a new process goes on from the next one. The process gets ralph-verify's
bytecode prefix and no cache provider, so it writes nothing into the project.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.plugins.mutation import inside
from ralph_verify.proc.process import ToolError

if TYPE_CHECKING:
    from ralph_verify.checks.api import VerifyContext

PLUGIN = "ralph_verify_mutation"


@dataclass(frozen=True)
class FilePlan:
    """One file to mutate: its lines, the id of its first mutant and how many it has."""

    path: Path
    lines: list[int]
    first: int
    sha: str


@dataclass
class Outcomes:
    """What the mutants did. A mutant is killed (by a test, or by a timeout or the
    process's death: ``by`` is then ``None``), survived (reached by a passing test, killed by
    none), unreached (no passing test evaluates it) or invalid (it does not compile)."""

    killed: dict[int, str | None] = field(default_factory=dict)
    ended: dict[int, str] = field(default_factory=dict)
    survived: set[int] = field(default_factory=set)
    invalid: set[int] = field(default_factory=set)
    reached: set[int] = field(default_factory=set)
    tests: int = 0
    failing: list[str] = field(default_factory=list)
    served: set[str] = field(default_factory=set)
    processes: int = 0


def run_mutants(ctx: VerifyContext, files: list[FilePlan], *, ids: list[str] | None,
                args: list[str], timeout: float) -> Outcomes:
    """Run every mutant of ``files`` against the tests (``ids``: only those) that reach it."""
    from ralph_verify.plugins.pytest_run.plugin_dir import plugin_dir
    from ralph_verify.plugins.pytest_run.shared import pytest_env

    folder = ctx.workdir / "mutation"
    folder.mkdir(exist_ok=True)
    python = ctx.python()
    env = pytest_env(ctx)
    ours = folder / "plugin-mutation"
    ours.mkdir(exist_ok=True)
    for name, module in ((PLUGIN, "inside"), (inside.ENGINE_COPY, "engine")):
        source = Path(__file__).with_name(f"{module}.py").read_text(encoding="utf-8")
        (ours / f"{name}.py").write_text(source, encoding="utf-8")
    shared = plugin_dir(ctx, python, folder, env=dict(env))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ours), str(shared),
                                                    env.get("PYTHONPATH")) if p)
    plan_path, results = folder / "plan.json", folder / "results.jsonl"
    env[inside.PLAN_VAR] = str(plan_path)
    argv = [python, "-m", "pytest", "-p", PLUGIN, "-p", "no:cacheprovider", "-q",
            "--tb=no", "-rN", "--maxfail=0", *args]
    outcomes = Outcomes()
    deadline = time.monotonic() + timeout
    plan: dict[str, Any] = {
        "files": [{"path": str(f.path), "lines": f.lines, "first": f.first, "sha": f.sha}
                  for f in files], "ids": ids, "results": str(results)}
    while True:
        plan["skip"] = sorted({*outcomes.killed, *outcomes.survived})
        plan_path.write_text(json.dumps(plan), encoding="utf-8")
        results.unlink(missing_ok=True)
        left = deadline - time.monotonic()
        if left <= 0:
            raise ToolError(f"the mutants did not finish within {timeout:g}s (raise the "
                            "check's 'timeout' option or --timeout)")
        run = ctx.run(argv, timeout=left, env=env,
                      missing_hint=f"the project's Python {python} does not exist")
        outcomes.processes += 1
        decided = len(outcomes.killed) + len(outcomes.survived)
        if _read(results, outcomes, run.tail()):
            return outcomes
        if len(outcomes.killed) + len(outcomes.survived) == decided:
            raise ToolError(f"pytest ended (exit {run.returncode}) before running the mutants",
                            output=run.tail())


def _read(results: Path, outcomes: Outcomes, tail: str) -> bool:
    """Read one process's results into ``outcomes``; whether it finished."""
    try:
        text = results.read_text(encoding="utf-8")
    except OSError:
        return False
    started: int | None = None
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a line cut by the kill
        if "error" in record:
            raise ToolError(str(record["error"]), output=tail)
        if "invalid" in record:
            outcomes.invalid.update(record["invalid"])
        elif "tests" in record:
            outcomes.tests = record["tests"]
            outcomes.failing = record["failing"]
            outcomes.served.update(record["served"])
            outcomes.reached.update(record["reached"])
        elif "start" in record:
            started = record["start"]
        elif "timeout" in record:
            outcomes.killed[record["timeout"]] = None
            outcomes.ended[record["timeout"]] = "its tests ran past their time"
            started = None
        elif "id" in record:
            if record["killed"]:
                outcomes.killed[record["id"]] = record["by"]
            else:
                outcomes.survived.add(record["id"])
            started = None
        elif record.get("finished"):
            return True
    if started is not None:
        outcomes.killed[started] = None
        outcomes.ended[started] = "the test process died under it"
    return False
