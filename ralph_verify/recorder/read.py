"""Read what ralph-verify's pytest plugin (:mod:`ralph_verify.recorder.plugin`) wrote.

The plugin runs inside the project's pytest and records, per test, pytest's
own node id, the category pytest's summary counts it under, and the raw
outcome of each phase. This module turns those JSON lines into the same
:class:`~ralph_verify.junit.read.JUnitReport` the JUnit reader gives, so the
``tests`` check judges both alike; JUnit XML is only the fallback for a run
where the plugin did not report.

A report that says "passed" (or "skipped") for a test whose call raised is a
failure: *tampering*, naming the project files that implement the hooks that
can rewrite reports.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ralph_verify.junit.read import (
    CRASH_LINE,
    E_LINE,
    JUnitReport,
    Outcome,
    TestCaseResult,
    excerpt,
)
from ralph_verify.recorder.sources import AFFECTED_PLUGIN_NAME, PLUGIN_NAME, record_files

#: Hooks that can rewrite a report after the test ran.
REPORT_HOOKS = ("pytest_runtest_makereport", "pytest_report_teststatus",
                "pytest_runtest_logreport")
#: The category :func:`test_ids` gives a collector (a file) that failed to collect.
COLLECTION_ERROR = "collection error"
_COUNTED = {"passed", "failed", "error", "skipped", "xfailed", "xpassed", "subtests passed"}


def project_hooks(hooks: dict[str, list[dict[str, str]]],
                  names: tuple[str, ...] = REPORT_HOOKS) -> list[str]:
    """``conftest.py (pytest_runtest_makereport)`` for each project file implementing ``names``."""
    found: list[str] = []
    for name in names:
        for impl in hooks.get(name, []):
            path = str(impl.get("path", ""))
            if (impl.get("plugin") in (PLUGIN_NAME, AFFECTED_PLUGIN_NAME) or not path
                    or path.startswith(("/", "<")) or "site-packages" in path or path == "?"):
                continue
            entry = f"{path} ({name})"
            if entry not in found:
                found.append(entry)
    return found


def records_in(folder: Path) -> Iterator[dict[str, Any]]:
    """Every record the plugin's processes wrote into ``folder`` (one file per process, in
    name order), skipping a line a worker killed mid-write left unfinished."""
    for path in record_files(folder):
        with path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # a worker killed mid-line
                if isinstance(record, dict):
                    yield record


def read_record(folder: Path, *, max_problems: int = 500) -> JUnitReport | None:
    """The report of the run whose plugin wrote into ``folder``; ``None`` if it never started."""
    records: list[dict[str, Any]] = []
    started = False
    report = JUnitReport(max_problems=max_problems)
    hooks: dict[str, list[dict[str, str]]] = {}
    collection_errors: set[str] = set()
    for record in records_in(folder):
        kind = record.get("k")
        if kind == "start":
            started = True
        elif kind == "hooks":
            hooks = record.get("hooks") or {}
        elif kind == "d":
            report.deselected += int(record.get("n") or 0)
        elif kind == "c":
            test_id = str(record.get("id") or ".")
            if test_id not in collection_errors:
                collection_errors.add(test_id)
                _keep(report, records, record, max_problems)
        elif kind == "r":
            if _failing(record):
                _keep(report, records, record, max_problems)
            else:
                _count(report, record)
    if not started:
        return None
    culprits = ", ".join(project_hooks(hooks)) or "a pytest plugin"
    for record in records:
        report.add(_problem(record, culprits))
    report.hooks = hooks
    report.files.append(str(folder))
    return report


def _keep(report: JUnitReport, records: list[dict[str, Any]], record: dict[str, Any],
          max_problems: int) -> None:
    """Keep a failing record for its details, or only count it once ``max_problems`` are
    kept: memory stays flat with 100,000 failing tests."""
    if len(records) < max_problems:
        records.append(record)
    elif _outcome(record) == "failed":
        report.failed += 1
    else:
        report.errors += 1


def passed_ids(folder: Path) -> set[str]:
    """Node ids whose every recorded report passed (a re-run's verdict per test)."""
    passed: set[str] = set()
    failed: set[str] = set()
    for record in records_in(folder):
        if record.get("k") != "r":
            continue
        test_id = str(record.get("id"))
        if _failing(record):
            failed.add(test_id)
        elif record.get("cat") == "passed":
            passed.add(test_id)
    return passed - failed


def failing_ids(folder: Path) -> set[str]:
    """Node ids with a failing report, and the ids of collection errors."""
    failing: set[str] = set()
    for record in records_in(folder):
        if record.get("k") == "c" or (record.get("k") == "r" and _failing(record)):
            failing.add(str(record.get("id") or "."))
    return failing


def test_ids(folder: Path) -> dict[str, str] | None:
    """Every test id the run reported, with how it ended (``failed`` when any phase failed or
    was tampered with, else pytest's category: passed, skipped, xfailed...; a collector that
    failed to collect, e.g. ``tests/test_x.py``, is :data:`COLLECTION_ERROR`); ``None`` if the
    plugin never started. The integrity check compares these with the session's start."""
    ids: dict[str, str] = {}
    started = False
    for record in records_in(folder):
        if record.get("k") == "start":
            started = True
        if record.get("k") == "c" and record.get("id"):  # a file that did not collect
            ids[str(record["id"])] = COLLECTION_ERROR
        if record.get("k") != "r" or not record.get("id"):
            continue
        test_id = str(record["id"])
        if _failing(record):
            ids[test_id] = "failed"
        elif ids.get(test_id) != "failed" and record.get("cat"):
            ids[test_id] = str(record["cat"])
        else:
            ids.setdefault(test_id, "passed")
    return ids if started else None


def _failing(record: dict[str, Any]) -> bool:
    return bool(record.get("tamper")) or record.get("outcome") == "failed" or record.get(
        "cat") in ("failed", "error")


def _count(report: JUnitReport, record: dict[str, Any]) -> None:
    category = str(record.get("cat") or "")
    if category not in _COUNTED:
        return
    if category == "passed":
        report.passed += 1
    elif category == "skipped":
        report.skipped += 1
    elif category == "xfailed":
        report.xfailed += 1
    elif category == "xpassed":
        report.xpassed += 1
    elif category == "subtests passed":
        report.subtests_passed += 1


def _problem(record: dict[str, Any], culprits: str) -> TestCaseResult:
    test_id = str(record.get("id") or ".")
    root = record.get("root") if isinstance(record.get("root"), dict) else None
    path = str(root["path"]) if root and root.get("path") else None
    line = int(root["line"]) if root and isinstance(root.get("line"), int) else None
    code = str(record.get("raw") or "") or None
    message = str(record.get("msg") or "")
    text = str(record.get("text") or "")
    if record.get("k") == "c":
        return TestCaseResult(test_id, "error", message=f"collection error: {message}"[:500],
                              detail=excerpt(text), code=_code(text, None), collection=True)
    subtest = record.get("sub")
    if subtest:
        message = f"subtest {subtest}: {message}"
    if record.get("tamper"):
        said = record.get("outcome")
        message = (f"tampering: report rewritten by {culprits}: the test raised {code} but its "
                   f"report says {said}")
        return TestCaseResult(test_id, "failed", message=message, code="tampering",
                              path=path, line=line, detail=excerpt(text))
    when = record.get("when")
    outcome = _outcome(record)
    if outcome == "error":
        message = f"error in {when}: {message}"
    cause = None
    if root:
        cause = f"{root.get('path')}:{root.get('func')}:{root.get('source') or root.get('line')}"
    return TestCaseResult(test_id, outcome, message=message[:500] or "failed",
                          detail=excerpt(text), code=_code(text, code), path=path, line=line,
                          cause=cause)


def _outcome(record: dict[str, Any]) -> Outcome:
    """How :func:`_problem` counts a failing record: a collection error, a failure in setup
    or teardown and what pytest counts as an error are errors; the others failures."""
    if record.get("k") == "c":
        return "error"
    if record.get("tamper"):
        return "failed"
    return ("error" if record.get("when") in ("setup", "teardown") or record.get("cat") == "error"
            else "failed")


def _code(text: str, raw: str | None) -> str | None:
    """The exception type: the raw one, else pytest's last traceback line names it."""
    if raw:
        return raw.rsplit(".", 1)[-1] if raw.startswith("_pytest.") else raw
    lines = [ln for ln in text.splitlines() if ln.strip()]
    crash = CRASH_LINE.match(lines[-1]) if lines else None
    if crash is not None:
        return crash.group("type")
    for line in reversed(lines):
        found = E_LINE.match(line)
        if found:
            return found.group("type")
    return None
