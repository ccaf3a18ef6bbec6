"""ralph-verify's pytest plugin, loaded first (``-p ralph_verify_recorder``) into the project's
interpreter: standard library and pytest only. Each process appends JSON lines to its
``record-PID.jsonl`` (:mod:`ralph_verify.recorder.read`): ``start``; ``r``, a report with the
raw outcome seen before any report hook (a rewritten one is *tampering*) and a failure's
root-cause frame; ``c``, a collection error; ``d``, deselected; ``hooks``, who implements
the hooks that can rewrite a report."""

from __future__ import annotations

import json
import linecache
import os
import sys
from collections.abc import Generator, Sequence
from types import TracebackType
from typing import Any

import pytest

#: As in :mod:`ralph_verify.recorder.sources` (this module cannot import it): the variable
#: naming the JUnit file read only when the recorder did not report, and the file written into
#: the record folder when the session finished.
JUNIT_VAR = "RALPH_VERIFY_JUNIT"
FINISHED = "finished"
#: Failing reports of one process whose traceback text is kept.
MAX_TEXTS = 200
TEXT_CHARS = 6000
#: Hooks that can rewrite a report after the test ran (a tampered report names them).
REPORT_HOOKS = ("pytest_runtest_makereport", "pytest_report_teststatus",
                "pytest_runtest_logreport")
_SKIP_TYPES = ("Skipped", "XFailed", "SkipTest", "Exit")
_TEST_DIRS = {"tests", "test", "testing"}

_out: Any = None
_config: pytest.Config | None = None
_raw: dict[tuple[str, str], dict[str, Any] | None] = {}
#: Tests run in this process: a pytest-xdist controller sees its workers' reports too.
_ran: set[str] = set()
_texts = 0
_causes: set[str] = set()
_root = ""
#: File name -> whether it is the project's (see :func:`is_project`), for so many files.
_project_files: dict[str, bool] = {}
#: File name -> its path relative to the root (see :func:`relative`), for so many files.
_relative: dict[str, str] = {}
MAX_FILES_KNOWN = 20_000
#: Whether only pytest's own plugins implement ``pytest_report_teststatus`` (``None``: not
#: asked since the last plugin was registered); see :func:`_own_category`.
_own_status: bool | None = None
_encode = json.JSONEncoder(default=str).encode  # json.dumps(default=) builds one a call
_quote = json.encoder.encode_basestring_ascii  # what _encode writes a string as
#: The record of a test whose call passed as pytest counts it, ``% _quote(node id)``: what
#: ``_encode`` writes for it, without encoding a dict (tests/plugins/test_pytest_recorder.py).
PASSED_LINE = ('{"k": "r", "id": %s, "when": "call", "outcome": "passed", "cat": "passed", '
               '"xfail": false}\n')


def _write(record: dict[str, Any]) -> None:
    _write_line(_encode(record) + "\n")


def _write_line(line: str) -> None:
    """Unbuffered: a worker that crashes loses no test."""
    if _out is not None:
        data = line.encode("utf-8")
        while data:
            data = data[_out.write(data):]


def _worker(config: pytest.Config) -> str | None:
    info = getattr(config, "workerinput", None)
    return str(info.get("workerid")) if isinstance(info, dict) else None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    global _out, _root, _own_status, _config
    _config = config
    config.addinivalue_line("markers", "hidden: held out by ralph-verify's tests:hidden (run "
                                       "apart, reported without source)")
    folder = os.environ.get("RALPH_VERIFY_RECORD_DIR")
    if not folder:
        return
    _root = str(getattr(config, "rootpath", None) or getattr(config, "rootdir", ""))  # pytest<6.1
    _project_files.clear()
    _relative.clear()
    _own_status = None
    _out = open(os.path.join(folder, f"record-{os.getpid()}.jsonl"), "ab",  # noqa: SIM115  # open all session
                buffering=0)
    _write({"k": "start", "pytest": pytest.__version__, "worker": _worker(config),
            "root": _root})
    # Our JUnit file is read only when the recorder did not report, so pytest does not write
    # it (a trivial test's time per test); another ``--junitxml`` is left alone.
    wanted = os.environ.get(JUNIT_VAR)
    if wanted and getattr(config.option, "xmlpath", None) == wanted:
        config.option.xmlpath = None


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """The session finished (the JUnit file is written then): the run's results are whole."""
    if _out is not None and _worker(session.config) is None:
        with open(os.path.join(os.path.dirname(_out.name), FINISHED), "w", encoding="utf-8"):
            pass


def pytest_unconfigure(config: pytest.Config) -> None:
    global _out
    if _out is not None:
        _out.close()
        _out = None


def relative(path: str) -> str:
    """``path`` relative to the root, ``/``-separated; ``path`` itself outside the root.
    Asked for every failure's frames, so answered once per file."""
    rel = _relative.get(path)
    if rel is None:
        try:
            rel = os.path.relpath(path, _root)
        except ValueError:
            rel = path
        rel = path if rel.startswith("..") else rel.replace(os.sep, "/")
        if len(_relative) < MAX_FILES_KNOWN:
            _relative[path] = rel
    return rel


def is_project(path: str) -> bool:
    """Whether ``path`` is the project's (not a virtualenv's, not ``<string>``); asked for
    every frame of every failure, so answered once per file."""
    known = _project_files.get(path)
    if known is None:
        rel = relative(path)
        parts = rel.split("/")
        known = not (rel == path or path.startswith("<") or any(
            p in ("site-packages", "dist-packages") or p.startswith((".venv", "venv", ".tox",
                                                                      ".nox"))
            for p in parts))
        if len(_project_files) < MAX_FILES_KNOWN:
            _project_files[path] = known
    return known


def _is_test(path: str) -> bool:
    parts = relative(path).split("/")
    name = parts[-1]
    return (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            or any(p in _TEST_DIRS for p in parts[:-1]))


def _exc_name(exc: BaseException) -> str:
    kind = type(exc)
    module = kind.__module__
    return kind.__qualname__ if module in ("builtins", "exceptions") else (
        f"{module}.{kind.__qualname__}")


def _root_cause(tb: TracebackType | None) -> dict[str, Any] | None:
    """The deepest frame in the project's code under test, else the deepest in its tests."""
    code_frame = test_frame = None
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if is_project(filename):
            if _is_test(filename):
                test_frame = tb
            else:
                code_frame = tb
        tb = tb.tb_next
    found = code_frame or test_frame
    if found is None:
        return None
    filename = found.tb_frame.f_code.co_filename
    line = found.tb_lineno
    return {"path": relative(filename), "line": line, "func": found.tb_frame.f_code.co_name,
            "source": linecache.getline(filename, line).strip()[:300]}


def _remember(item: pytest.Item, when: str, exc: BaseException | None) -> None:
    """The raw outcome of a phase, before any report hook sees it."""
    if exc is None or _out is None:
        if _raw:  # a stale entry of an earlier attempt (reruns) must not outlive this one
            _raw.pop((item.nodeid, when), None)
        return
    skip = any(k.__name__ in _SKIP_TYPES for k in type(exc).__mro__)
    _raw[(item.nodeid, when)] = {"exc": _exc_name(exc), "skip": skip,
                                 "root": _root_cause(exc.__traceback__)}


try:  # new-style wrappers (pluggy 1.1): cheaper than old-style ones, paid 3 times a test
    pytest.hookimpl(wrapper=True)
    _NEW_STYLE = True
except TypeError:  # pluggy before 1.1 (pytest 6)
    _NEW_STYLE = False


def _phase_hook(when: str) -> Any:
    """The wrapper around ``pytest_runtest_<when>``: the innermost of the plugins loaded
    before the project's conftest files (``trylast``), it sees the phase's exception first."""
    if _NEW_STYLE:
        def wrapper(item: pytest.Item) -> Generator[None, Any, Any]:
            _ran.add(item.nodeid)
            try:
                result = yield
            except BaseException as exc:
                _remember(item, when, exc)
                raise
            _remember(item, when, None)
            return result

        return pytest.hookimpl(wrapper=True, trylast=True)(wrapper)

    def old_style(item: pytest.Item) -> Generator[None, Any, None]:
        _ran.add(item.nodeid)
        outcome = yield
        excinfo = getattr(outcome, "excinfo", None)
        _remember(item, when, None if excinfo is None else excinfo[1])

    return pytest.hookimpl(hookwrapper=True, trylast=True)(old_style)


pytest_runtest_setup = _phase_hook("setup")
pytest_runtest_call = _phase_hook("call")
pytest_runtest_teardown = _phase_hook("teardown")


def _message(report: Any) -> str:
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    message = getattr(crash, "message", None)
    if not message:
        text = str(getattr(report, "longreprtext", "") or "")
        lines = [ln for ln in text.splitlines() if ln.strip()]
        e_lines = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
        message = e_lines[0] if e_lines else (lines[-1] if lines else "")
    return str(message)[:1000]


def _text(report: Any, cause: str = "") -> str | None:
    """The traceback of the first failures, and of the first failure of each root cause."""
    global _texts
    first = bool(cause) and len(_causes) < MAX_TEXTS * 5 and cause not in _causes
    if first:  # memory stays bounded however many distinct causes fail
        _causes.add(cause)
    if _texts >= MAX_TEXTS and not first:
        return None
    _texts += 1
    text = str(getattr(report, "longreprtext", "") or "")
    if len(text) > TEXT_CHARS:
        text = text[: TEXT_CHARS // 4] + "\n[...]\n" + text[-(TEXT_CHARS * 3 // 4):]
    return text


def pytest_plugin_registered() -> None:
    """A plugin (or conftest file) registered late may count reports its own way."""
    global _own_status
    _own_status = None


def _own_category(report: pytest.TestReport, config: pytest.Config) -> str | None:
    """What pytest's own plugins count a plain passing report as (``""`` for a setup or
    teardown, ``passed`` for a call), or ``None``: ``pytest_report_teststatus`` must be asked
    (a hook call per phase of every test, saved while only pytest implements it)."""
    global _own_status
    if not report.passed or hasattr(report, "wasxfail") or getattr(report, "context", None):
        return None
    if _own_status is None:
        hook = config.pluginmanager.hook.pytest_report_teststatus
        _own_status = all(str(getattr(impl.function, "__module__", "")).startswith("_pytest.")
                          for impl in hook.get_hookimpls())
    if not _own_status:
        return None
    return "passed" if report.when == "call" else ""


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """After every other plugin (the terminal counted it): record the report as it stands."""
    if _out is None or report.nodeid not in _ran:
        return
    raw = _raw.pop((report.nodeid, report.when), None) if _raw else None
    if raw is None and _config is not None:
        own = _own_category(report, _config)
        if own is not None:  # a plain pass, most reports: a test's call is one line
            if own:
                _write_line(PASSED_LINE % _quote(str(report.nodeid)))
            return
    _write_report(report, raw, _config)


def _write_report(report: pytest.TestReport, raw: dict[str, Any] | None,
                  config: pytest.Config | None) -> None:
    context = getattr(report, "context", None)
    subtest = None
    if context is not None and hasattr(context, "msg"):
        # The public head line is "<test's domain> <subtest's description>".
        head, domain = str(report.head_line or ""), f"{report.location[2]} "
        subtest = head[len(domain):] if head.startswith(domain) else str(context.msg)
        _raw[(report.nodeid, report.when)] = raw  # the parent report comes later
    category = ""
    if config is not None:
        status = config.hook.pytest_report_teststatus(report=report, config=config)
        category = str(status[0]) if status else ""
    if report.when != "call" and report.passed and not category and raw is None:
        return
    if str(report.outcome) == "rerun":  # pytest-rerunfailures: only the last attempt counts
        return
    wasxfail = hasattr(report, "wasxfail")
    record: dict[str, Any] = {"k": "r", "id": report.nodeid, "when": report.when,
                              "outcome": report.outcome, "cat": category, "xfail": wasxfail}
    if subtest is not None:
        record["sub"] = subtest
    if raw is not None:
        record["raw"] = raw["exc"]
        if not raw["skip"] and (report.passed or (report.skipped and not wasxfail)):
            record["tamper"] = True
    if report.failed or record.get("tamper"):
        record["msg"] = _message(report) if report.failed else f"{raw and raw['exc']}"
        root = raw["root"] if raw is not None else None
        if root is None:
            crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
            if crash is not None and getattr(crash, "path", None):
                path = str(crash.path)
                root = {"path": relative(path), "line": crash.lineno, "func": "",
                        "source": linecache.getline(path, crash.lineno).strip()[:300]}
        record["root"] = root
        cause = f"{root.get('path')}:{root.get('line')}:{record.get('raw')}" if root else ""
        text = _text(report, cause)
        if text is not None:
            record["text"] = text
    _write(record)


if int(pytest.__version__.split(".")[0]) >= 7:  # collection_path: pytest 7 and later
    def pytest_ignore_collect(collection_path: Any, config: pytest.Config) -> bool | None:
        """A symbolic link out of the project (``ln -s / rootlink``) is not walked: pytest
        would collect the whole file system, for minutes, at every verification."""
        path = str(collection_path)
        if not os.path.islink(path):
            return None
        try:
            target = os.path.realpath(path, strict=True) if sys.version_info >= (3, 10) \
                else os.path.realpath(path)
        except OSError:  # broken or looping: nothing to collect there
            return True
        root = os.path.realpath(str(config.rootpath))
        inside = target == root or target.startswith(root.rstrip(os.sep) + os.sep)
        return None if inside else True


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        _write({"k": "c", "id": report.nodeid or ".", "msg": _message(report),
                "text": _text(report)})


def pytest_deselected(items: Sequence[pytest.Item]) -> None:
    worker = _worker(_config) if _config is not None else None
    if worker in (None, "gw0"):
        _write({"k": "d", "n": len(items)})


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Conftest files are loaded by now: say who implements the hooks that rewrite reports."""
    if _worker(session.config) not in (None, "gw0"):
        return
    hooks: dict[str, list[dict[str, str]]] = {}
    for name in REPORT_HOOKS:
        # Not config.hook: from pytest 7.0 to 9.0 it gives path hooks as plain functions.
        caller = getattr(session.config.pluginmanager.hook, name, None)
        if caller is None:
            continue
        for impl in caller.get_hookimpls():
            # A plugin is a module, or an object of a module's class.
            path = str(getattr(impl.plugin, "__file__", None) or getattr(
                sys.modules.get(type(impl.plugin).__module__), "__file__", None) or "?")
            hooks.setdefault(name, []).append({"plugin": impl.plugin_name,
                                               "path": relative(path) if _root else path})
    # How many tests will run: the live line's "pytest 120/900" (recorder/progress.py).
    _write({"k": "hooks", "hooks": hooks, "collected": len(session.items)})
