"""Inside the project's pytest: serve the switched modules, learn which tests reach which
mutant, then run each mutant against those tests, in this one process.

An import hook serves the switched code (nothing is written to the project); each result is
a flushed line, so a process killed under a mutant loses nothing."""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from types import CodeType, ModuleType
from typing import IO, Any

PLAN_VAR = "RALPH_VERIFY_MUTATION_PLAN"
#: The name :mod:`.engine` is copied as beside this module in the project's pytest.
ENGINE_COPY = "ralph_verify_mutation_engine"
#: A mutant's tests may take this many times their time without it, plus :data:`SLACK`.
FACTOR = 10.0
SLACK = 5.0


class _State:
    """Which mutant is on, which switches the running test reached, whether it failed."""

    def __init__(self) -> None:
        self.active = 0
        self.reached: set[int] | None = None
        self.failed = False


_STATE = _State()


def _switch(mutant: int) -> bool:
    reached = _STATE.reached
    if reached is not None:
        reached.add(mutant)
    return mutant == _STATE.active


def _engine() -> ModuleType:
    """The engine: the copy beside this module (the version ralph-verify computed the ids
    with), else the installed package's (when this module is imported from it)."""
    try:
        return importlib.import_module(ENGINE_COPY)
    except ImportError:
        return importlib.import_module("ralph_verify.plugins.mutation.engine")


class _Loader(importlib.abc.Loader):
    """Executes a module's switched code; anything else is asked of its own loader."""

    def __init__(self, code: CodeType, original: Any) -> None:
        self.code = code
        self.original = original

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        module.__dict__[_engine().SWITCH] = _switch
        exec(self.code, module.__dict__)

    def __getattr__(self, name: str) -> Any:  # is_package, get_resource_reader, ...
        return getattr(self.original, name)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds every module as the other finders do; the plan's files get our loader."""

    def __init__(self, codes: dict[str, CodeType]) -> None:
        self.codes = codes
        stems = {os.path.basename(p)[:-3] for p in codes}
        self.names = stems | {os.path.basename(os.path.dirname(p)) for p in codes
                              if p.endswith("__init__.py")}

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> Any:
        if fullname.rpartition(".")[2] not in self.names:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is None:
                continue
            origin = os.path.realpath(spec.origin) if spec.origin else ""
            code = self.codes.get(origin)
            if code is not None:
                spec.loader = _Loader(code, spec.loader)
            return spec
        return None


class _Run:
    """The plan, its results file, and the test loop."""

    def __init__(self, plan: dict[str, Any]) -> None:
        self.plan = plan
        self.out: IO[str] = open(plan["results"], "a", encoding="utf-8")  # noqa: SIM115
        self.deadline = 0.0
        self.current = 0

    def write(self, **record: Any) -> None:
        self.out.write(json.dumps(record) + "\n")
        self.out.flush()

    def install(self) -> None:
        engine = _engine()
        codes: dict[str, CodeType] = {}
        invalid: list[int] = []
        for item in self.plan["files"]:
            path = item["path"]
            with open(path, "rb") as handle:
                data = handle.read()
            if hashlib.sha256(data).hexdigest() != item["sha"]:
                self.write(error=f"{path} changed while the mutants were being run")
                raise SystemExit(3)
            source = data.decode("utf-8")
            made = engine.switched(source, item["lines"], item["first"])
            try:
                codes[os.path.realpath(path)] = compile(made.tree, path, "exec")
            except (SyntaxError, ValueError, TypeError):
                good = []
                for mutant in made.mutants:
                    alone = engine.switched(source, item["lines"], item["first"], {mutant.id})
                    try:
                        compile(alone.tree, path, "exec")
                        good.append(mutant.id)
                    except (SyntaxError, ValueError, TypeError):
                        invalid.append(mutant.id)
                kept = engine.switched(source, item["lines"], item["first"], set(good))
                codes[os.path.realpath(path)] = compile(kept.tree, path, "exec")
        if invalid:
            self.write(invalid=invalid)
        sys.meta_path.insert(0, _Finder(codes))
        threading.Thread(target=self._watch, name="ralph-verify-mutant-watch",
                         daemon=True).start()

    def _watch(self) -> None:
        while True:
            time.sleep(0.05)
            if self.current and time.monotonic() > self.deadline:
                self.write(timeout=self.current)
                os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))

    def loop(self, items: Sequence[Any]) -> None:
        skip = set(self.plan.get("skip") or ())
        reached: dict[int, list[int]] = {}
        reach: dict[str, list[int]] = {}
        passing: list[float] = []
        failing: list[str] = []
        for index, item in enumerate(items):
            _STATE.reached = set()
            ok, took = self._once(item)
            seen, _STATE.reached = _STATE.reached, None
            passing.append(took)
            if not ok:
                failing.append(item.nodeid)
                continue
            for mutant in seen:
                reached.setdefault(mutant, []).append(index)
            if self.plan.get("every"):
                reach[item.nodeid] = sorted(seen)
        self.write(tests=len(items), failing=failing, reached=sorted(reached), reach=reach)
        for mutant in sorted(reached):
            if mutant in skip:
                continue
            tests = reached[mutant]
            budget = SLACK + FACTOR * sum(passing[i] for i in tests)
            self.write(start=mutant, budget=budget)
            _STATE.active = mutant
            self.deadline = time.monotonic() + budget
            self.current = mutant
            killers = []
            for index in tests:
                ok, _ = self._once(items[index])
                if not ok:
                    killers.append(items[index].nodeid)
                    if not self.plan.get("every"):
                        break
            self.current = 0
            _STATE.active = 0
            self.write(id=mutant, killed=bool(killers), by=killers[0] if killers else None,
                       all=killers)
        self.write(finished=True)

    @staticmethod
    def _once(item: Any) -> tuple[bool, float]:
        _STATE.failed = False
        started = time.perf_counter()
        item.ihook.pytest_runtest_protocol(item=item, nextitem=None)
        session = item.session
        session.shouldstop = session.shouldfail = False  # -x or --maxfail: not ours to obey
        return not _STATE.failed, time.perf_counter() - started


_RUN: _Run | None = None


def pytest_load_initial_conftests(early_config: Any) -> None:
    """Before any conftest imports the project: the switched modules are served."""
    global _RUN
    path = os.environ.get(PLAN_VAR)
    if not path or _RUN is not None:
        return
    with open(path, encoding="utf-8") as handle:
        _RUN = _Run(json.load(handle))
    _RUN.install()


def pytest_collection_modifyitems(session: Any, config: Any, items: list[Any]) -> None:
    wanted = _RUN.plan.get("ids") if _RUN is not None else None
    if wanted is None:
        return
    keep = set(wanted)  # a test's id, or its function's (every parametrized case)
    dropped = [item for item in items if not _wanted(item.nodeid, keep)]
    items[:] = [item for item in items if _wanted(item.nodeid, keep)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)


def _wanted(nodeid: str, keep: set[str]) -> bool:
    return nodeid in keep or nodeid.split("[", 1)[0] in keep


def pytest_runtest_logreport(report: Any) -> None:
    if report.failed:
        _STATE.failed = True


def pytest_runtestloop(session: Any) -> bool | None:
    if _RUN is None:
        return None
    if session.testsfailed:
        _RUN.write(error=f"{session.testsfailed} error(s) while collecting the tests")
        return True
    _RUN.loop(session.items)
    return True
