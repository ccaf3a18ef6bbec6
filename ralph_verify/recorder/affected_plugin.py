"""ralph-verify's pytest plugin for affected-tests-first (:mod:`ralph_verify.recorder.affected`).

Loaded with ``-p ralph_verify_affected`` after the recorder
(:mod:`ralph_verify.recorder.plugin`, whose paths it shares), into the project's
interpreter, only for the runs that record the map or run a selection; like the
recorder it imports nothing but the standard library, pytest and the recorder.

With ``RALPH_VERIFY_DEPS`` set, each process writes ``deps-PID.jsonl``, one line per
test: its node id, the project files whose code ran while it ran (setup, call, teardown)
and, per file, the first lines of the code objects that ran (each function once:
ralph-verify maps them to the file's functions), seen by a call-only tracer
(``sys.monitoring`` on Python 3.12+, disabled per code object once seen; else cProfile's
C profiler, reset after each test; else a trace or profile function that never traces
lines). With ``RALPH_VERIFY_SELECT`` naming a JSON list of node ids (and of test files
run whole), only those of the collected tests run.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Generator
from typing import Any

import pytest

try:  # as loaded into the project's pytest, beside the recorder
    from ralph_verify_recorder import is_project, relative  # type: ignore[import-not-found]  # written at run time
except ImportError:  # imported from ralph-verify's package (type checks, documentation)
    from ralph_verify.recorder.plugin import is_project, relative

_deps_out: Any = None
#: The code objects entered during the current test.
_seen: set[Any] = set()
#: File name -> its path relative to the root when it is the project's, else "".
_project_files: dict[str, str] = {}
_select: set[str] | None = None
#: ``sys.monitoring`` (Python 3.12+), else ``None``; Any: older typeshed stubs lack it.
_monitoring: Any = getattr(sys, "monitoring", None)
try:
    # cProfile's C core, before 3.12: a Python-level trace or profile function called on
    # every call (and generator resume) costs about twice its time (more-itertools' recipe
    # tests: 18 s plain, 68 s traced, 40 s with this).
    import _lsprof

    _profiler: Any = _lsprof.Profiler()
except ImportError:  # an interpreter without it: the trace or profile function below
    _profiler = None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    global _deps_out, _select
    folder = os.environ.get("RALPH_VERIFY_RECORD_DIR")
    if folder and os.environ.get("RALPH_VERIFY_DEPS"):
        _deps_out = open(os.path.join(folder, f"deps-{os.getpid()}.jsonl"), "a",  # noqa: SIM115  # open all session
                         encoding="utf-8")
    select = os.environ.get("RALPH_VERIFY_SELECT")
    if select:
        with open(select, encoding="utf-8") as handle:
            chosen = json.load(handle)
        _select = set(chosen["ids"]) | {f"file:{rel}" for rel in chosen["files"]}


def _saw(frame: Any, event: str, arg: Any) -> None:
    """Profile/trace function: note the code of each frame entered; never trace its lines."""
    _seen.add(frame.f_code)


def _saw_code(code: Any, offset: int) -> Any:
    _seen.add(code)
    return _monitoring.DISABLE  # once per code object and test: restart_events() re-arms


def _monitor_tool() -> int | None:
    monitoring = _monitoring
    if monitoring is None:
        return None
    for tool in (4, 3, 5):
        if monitoring.get_tool(tool) in (None, "ralph-verify"):
            if monitoring.get_tool(tool) is None:
                monitoring.use_tool_id(tool, "ralph-verify")
                monitoring.register_callback(tool, monitoring.events.PY_START, _saw_code)
            return tool
    return None


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, Any, None]:
    """Record the project files each test's code ran in (with ``RALPH_VERIFY_DEPS``)."""
    if _deps_out is None:
        yield
        return
    _seen.clear()
    tool = _monitor_tool()
    how = ""
    if tool is not None:
        _monitoring.restart_events()
        _monitoring.set_events(tool, _monitoring.events.PY_START)
    elif _profiler is not None and sys.getprofile() is None:
        how = "lsprof"
        _profiler.enable(subcalls=False, builtins=False)
    elif sys.gettrace() is None:  # coverage's tracer is not ours to replace
        how = "trace"
        sys.settrace(_saw)
    elif sys.getprofile() is None:
        how = "profile"
        sys.setprofile(_saw)
    try:
        yield
    finally:
        if tool is not None:
            _monitoring.set_events(tool, 0)
        elif how == "lsprof":
            _profiler.disable()
            _seen.update(entry.code for entry in _profiler.getstats()
                         if not isinstance(entry.code, str))  # str: a built-in
            _profiler.clear()
        elif how == "trace":
            sys.settrace(None)
        elif how == "profile":
            sys.setprofile(None)
    lines: dict[str, list[int]] = {}
    for code in _seen:
        rel = _project_file(code.co_filename)
        if rel:
            lines.setdefault(rel, []).append(code.co_firstlineno)
    _seen.clear()
    seen = set(lines)
    path = getattr(item, "path", None) or getattr(item, "fspath", None)  # pytest<7: fspath
    if path is not None:
        seen.add(relative(str(path)))
    files = sorted(seen)
    _deps_out.write(json.dumps({"id": item.nodeid, "files": files, "lines": lines,
                                "traced": bool(tool is not None or how)}) + "\n")
    _deps_out.flush()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """With ``RALPH_VERIFY_SELECT``: keep only the named tests (ralph-verify chose them)."""
    if _select is not None:
        items[:] = [item for item in items if item.nodeid in _select
                    or f"file:{item.nodeid.split('::', 1)[0]}" in _select]


def pytest_unconfigure(config: pytest.Config) -> None:
    global _deps_out
    if _deps_out is not None:
        _deps_out.close()
        _deps_out = None


def _project_file(filename: str) -> str:
    """``filename`` relative to the root if it is the project's, else "" (cached)."""
    rel = _project_files.get(filename)
    if rel is None:
        rel = _project_files[filename] = relative(filename) if is_project(filename) else ""
    return rel
