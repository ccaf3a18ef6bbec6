"""Run the mutants in the project's pytest and collect what each one did.

One pytest process runs them all (:mod:`.inside`); a mutant under which it dies or hangs is
counted killed and a new process goes on from the next one."""

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
    from collections.abc import Iterable

    from ralph_verify.checks.api import VerifyContext
    from ralph_verify.plugins.mutation.engine import Mutant

PLUGIN = "ralph_verify_mutation"


def many(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


@dataclass(frozen=True)
class FilePlan:
    """One file to mutate: its lines, the id of its first mutant and how many it has."""

    path: Path
    lines: list[int]
    first: int
    sha: str


@dataclass
class Prepared:
    """The mutants of a verification: by id, with their file; the files' plans; the changed
    lines; what was skipped and how many changed lines are outside every function."""

    since: str
    lines: dict[str, list[int]]
    mutants: dict[int, tuple[str, Mutant]] = field(default_factory=dict)
    plans: list[FilePlan] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    outside: int = 0

    @property
    def changed(self) -> str:
        return (f"{many(sum(map(len, self.lines.values())), 'changed line')} of "
                f"{many(len(self.lines), 'file')}")


def prepare(ctx: VerifyContext, *, whole: Iterable[str] = ()) -> Prepared:
    """The mutants of the product lines changed since the baseline (:mod:`.changes`), and
    of every line of the product files ``whole``; :class:`~.changes.NoBaseline` when there
    is nothing to compare with."""
    import hashlib

    from ralph_verify.plugins.mutation import changes, engine

    base = changes.baseline(ctx)
    found = Prepared(base.name, changes.changed_lines(ctx.root, base.commit))
    for rel in whole:
        text = (ctx.root / rel).read_text(encoding="utf-8", errors="replace")
        found.lines[rel] = list(range(1, text.count("\n") + 2))
    for rel, numbers in sorted(found.lines.items()):
        data = (ctx.root / rel).read_bytes()
        first = len(found.mutants) + 1
        made = engine.switched(data.decode("utf-8", "replace"), numbers, first)
        if made.tree is None:
            found.skipped.append(f"{rel} does not parse")
            continue
        found.outside += len(made.outside)
        if made.mutants:
            found.plans.append(FilePlan(ctx.root / rel, numbers, first,
                                        hashlib.sha256(data).hexdigest()))
            found.mutants.update((m.id, (rel, m)) for m in made.mutants)
    return found


@dataclass
class Outcomes:
    """What the mutants did. A mutant is killed (by a test, or by a timeout or the
    process's death: ``by`` is then ``None``), survived (reached by a passing test, killed by
    none), unreached (no passing test evaluates it) or invalid (it does not compile)."""

    killed: dict[int, str | None] = field(default_factory=dict)
    #: With ``every``: each killed mutant's killers, every test that reaches it run.
    killers: dict[int, list[str]] = field(default_factory=dict)
    ended: dict[int, str] = field(default_factory=dict)
    survived: set[int] = field(default_factory=set)
    invalid: set[int] = field(default_factory=set)
    reached: set[int] = field(default_factory=set)
    #: With ``every``: the mutants each passing test reaches.
    reach: dict[str, list[int]] = field(default_factory=dict)
    tests: int = 0
    failing: list[str] = field(default_factory=list)


def run_mutants(ctx: VerifyContext, files: list[FilePlan], *, ids: list[str] | None,
                args: list[str], timeout: float, every: bool = False) -> Outcomes:
    """Run every mutant of ``files`` against the tests (``ids``: only those) that reach it,
    until one fails (``every``: all of them, to know each test's kills)."""
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
                  for f in files], "ids": ids, "results": str(results), "every": every}
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
            outcomes.reached.update(record["reached"])
            outcomes.reach.update(record.get("reach") or {})
        elif "start" in record:
            started = record["start"]
        elif "timeout" in record:
            outcomes.killed[record["timeout"]] = None
            outcomes.ended[record["timeout"]] = "its tests ran past their time"
            started = None
        elif "id" in record:
            if record["killed"]:
                outcomes.killed[record["id"]] = record["by"]
                outcomes.killers[record["id"]] = record.get("all") or [record["by"]]
            else:
                outcomes.survived.add(record["id"])
            started = None
        elif record.get("finished"):
            return True
    if started is not None:
        outcomes.killed[started] = None
        outcomes.ended[started] = "the test process died under it"
    return False


def pytest_args(ctx: VerifyContext, ids: list[str] | None) -> list[str]:
    """The tests check's pytest arguments; with ``ids``, their files instead of its paths."""
    from ralph_verify.plugins.pytest_run.shared import rerun_args, tests_args

    if ids is None:
        return tests_args(ctx)
    files = list(dict.fromkeys(test_id.split("::", 1)[0] for test_id in ids))
    return [*rerun_args(tuple(tests_args(ctx)), ctx.root), *files]
