"""ralph-verify's pytest plugin for affected-tests-first (``-p ralph_verify_affected``, after
the recorder). With ``RALPH_VERIFY_DEPS`` each process writes ``deps-PID.jsonl``: per test and
per test file's collection, the project files and functions that ran (``sys.monitoring`` from
3.12, else cProfile); with ``RALPH_VERIFY_SELECT`` only the listed tests run."""

from __future__ import annotations

import contextlib
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
_select: set[str] | None = None
#: ``sys.monitoring`` (Python 3.12+), else ``None``; Any: older typeshed stubs lack it.
_monitoring: Any = getattr(sys, "monitoring", None)
#: cProfile's profiler (before 3.12, or with ``RALPH_VERIFY_DEPS=profile``), made on first use.
_profiler: Any = None
_PROFILE = os.environ.get("RALPH_VERIFY_DEPS") == "profile"


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


def _start() -> str:
    """Start following the code that runs; how ("" when no tracer was free: the test is left
    to the full runs, and said)."""
    global _profiler
    _seen.clear()
    tool = None if _PROFILE else _monitor_tool()
    if tool is not None:
        _monitoring.restart_events()
        _monitoring.set_events(tool, _monitoring.events.PY_START)
        return f"monitoring:{tool}"
    if sys.getprofile() is None:
        if _profiler is None:
            import cProfile

            _profiler = cProfile.Profile()
        _profiler.enable(subcalls=False, builtins=False)
        return "profiler"
    return ""


def _stop(how: str) -> dict[str, list[int]]:
    """Stop following; the first lines of the project's code objects that ran, per file."""
    if how.startswith("monitoring:"):
        _monitoring.set_events(int(how.split(":")[1]), 0)
    elif how == "profiler":
        _profiler.disable()
        _seen.update(entry.code for entry in _profiler.getstats()
                     if not isinstance(entry.code, str))  # str: a built-in
        _profiler.clear()
    lines: dict[str, list[int]] = {}
    for code in _seen:
        rel = _project_file(code.co_filename)
        if rel:
            # A module's own code is no function's, whatever its first line holds: line 0.
            lines.setdefault(rel, []).append(
                0 if code.co_name == "<module>" else code.co_firstlineno)
    _seen.clear()
    return lines


def _write(record: dict[str, Any]) -> None:
    _deps_out.write(json.dumps(record) + "\n")
    _deps_out.flush()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, Any, None]:
    """Record the project files each test's code ran in (with ``RALPH_VERIFY_DEPS``)."""
    if _deps_out is None:
        yield
        return
    how = _start()
    try:
        yield
    finally:
        lines = _stop(how)
    seen = set(lines)
    path = getattr(item, "path", None) or getattr(item, "fspath", None)  # pytest<7: fspath
    if path is not None:
        seen.add(relative(str(path)))
    _write({"id": item.nodeid, "files": sorted(seen), "lines": lines, "traced": bool(how)})


#: Collection: what ran outside any test file ("" while no test file is being collected) and
#: while each test file was collected, the project modules each one imported first, and
#: each test file's module.
_collected: dict[str, dict[str, list[int]]] = {}
_owner: dict[str, str] = {}
_test_modules: dict[str, str] = {}
_collect_how: list[str] = []


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_collection(session: pytest.Session) -> Generator[None, Any, None]:
    """Record the code that runs at collection (with ``RALPH_VERIFY_DEPS``)."""
    if _deps_out is None:
        yield
        return
    import builtins

    real_import = builtins.__import__

    def importing(name: str, globals: Any = None, locals: Any = None,  # __import__'s names
                  fromlist: Any = (), level: int = 0) -> Any:
        module = real_import(name, globals, locals, fromlist, level)
        # A project's module: any error of its attributes is its own.
        with contextlib.suppress(Exception):
            _imported(module, name, globals, fromlist, level)
        return module

    _collect_how[:] = [_start()]
    before = set(sys.modules)
    builtins.__import__ = importing
    try:
        yield
    finally:
        if builtins.__import__ is importing:  # not if the project's code replaced it since
            builtins.__import__ = real_import
        _bucket("", _stop(_collect_how[0]))
        for name in set(sys.modules) - before:
            _owner.setdefault(name, "")
        traced = all(_collect_how)
        _write({"session": True, "lines": _collected.get("", {}), "traced": traced})
        for rel, name in _test_modules.items():
            lines: dict[str, list[int]] = {}
            for owner in {rel, *(_owner.get(m, "") for m in _reached(name))}:
                for file, firsts in _collected.get(owner, {}).items():
                    lines.setdefault(file, []).extend(firsts)
            _write({"collect": rel, "lines": lines, "traced": traced})
        _collected.clear()
        _direct.clear()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    """While a test file is collected (imported), its code and what it imports first."""
    if _deps_out is None or not _collect_how or not isinstance(collector, pytest.Module):
        yield
        return
    rel = relative(str(getattr(collector, "path", None) or collector.fspath))
    _bucket("", _stop(_collect_how[0]))
    _collect_how[0] = _start()
    before = set(sys.modules)
    outcome = None
    try:
        outcome = yield
    finally:
        _bucket(rel, _stop(_collect_how[0]))
        for name in set(sys.modules) - before:
            _owner.setdefault(name, rel)
        _collect_how[0] = _start()
    try:
        report = outcome.get_result() if outcome is not None else None
    except BaseException:  # the collection's own error: pytest reports it
        report = None
    if report is not None and report.passed:  # imported: ``obj`` is the module, not imported again
        module_name = getattr(collector.obj, "__name__", None)
        if isinstance(module_name, str):
            _test_modules[rel] = module_name


def _bucket(rel: str, lines: dict[str, list[int]]) -> None:
    into = _collected.setdefault(rel, {})
    for file, firsts in lines.items():
        into.setdefault(file, []).extend(firsts)


#: Module name -> the modules its ``import`` statements named at collection (imported then
#: or already): a file that imports a module another file imported first reaches it too.
_imports: dict[str, set[str]] = {}


def _imported(module: Any, name: str, globals: Any, fromlist: Any, level: int) -> None:
    importer = globals.get("__name__") if isinstance(globals, dict) else None
    if not isinstance(importer, str):
        return
    targets: set[str] = set()
    if level == 0 and not fromlist:  # import a.b.c: a, a.b and a.b.c
        parts = name.split(".")
        targets.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
    else:
        targets.add(getattr(module, "__name__", ""))
    for attr in fromlist or ():
        sub = getattr(module, attr, None) if isinstance(attr, str) else None
        if isinstance(sub, type(sys)):
            targets.add(sub.__name__)
    _imports.setdefault(importer, set()).update(t for t in targets if t)


def _reached(name: str) -> set[str]:
    """The project modules module ``name`` reaches through its imports and its names,
    transitively."""
    found: set[str] = set()
    todo = [name]
    while todo:
        for target in _edges(todo.pop()):
            if target not in found:
                found.add(target)
                todo.append(target)
    return found


#: Module name -> the project modules it names directly (each module's names read once).
_direct: dict[str, set[str]] = {}


def _edges(name: str) -> set[str]:
    edges = _direct.get(name)
    if edges is not None:
        return edges
    edges = _direct[name] = set()
    module = sys.modules.get(name)
    named = [*_imports.get(name, ())]
    for value in list(getattr(module, "__dict__", {}).values()):
        try:
            named.append(value.__name__ if isinstance(value, type(sys)) else getattr(
                value, "__module__", None))
        except Exception:  # a project's object: any error is its own
            continue
    for target in named:
        if isinstance(target, str) and target in sys.modules and target not in edges \
                and _project_file(getattr(sys.modules[target], "__file__", None) or ""):
            edges.add(target)
    return edges


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
    """``filename`` relative to the root if it is the project's, else "" (both answers are
    the recorder's, kept per file)."""
    return relative(filename) if is_project(filename) else ""

