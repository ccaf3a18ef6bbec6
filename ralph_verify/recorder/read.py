"""Read what ralph-verify's pytest plugin wrote into the :class:`JUnitReport` the JUnit
reader gives; a report that says "passed" for a test whose call raised is *tampering*."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ralph_verify.junit.read import JUnitReport, Outcome, TestCaseResult, excerpt, traceback_code
from ralph_verify.recorder.sources import AFFECTED_PLUGIN_NAME, PLUGIN_NAME, record_files

#: Hooks that can rewrite a report after the test ran.
REPORT_HOOKS = ("pytest_runtest_makereport", "pytest_report_teststatus",
                "pytest_runtest_logreport")
#: The category :func:`outcomes` gives a collector (a file) that failed to collect.
COLLECTION_ERROR = "collection error"
#: A passing record's category, and the count of the report it adds to.
_COUNTED = {"passed": "passed", "skipped": "skipped", "xfailed": "xfailed",
            "xpassed": "xpassed", "subtests passed": "subtests_passed"}


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


@dataclass(frozen=True)
class Cause:
    """Where a failing test's exception was raised in the project (the recorder's ``root``)."""

    path: str | None = None
    line: int | None = None
    func: str = ""
    source: str = ""


@dataclass(frozen=True)
class Line:
    """One line the recorder wrote; ``kind`` (its ``k``): ``start``, ``hooks``, ``d``
    (deselected), ``c`` (a collection error) or ``r`` (a test's report of one phase)."""

    kind: str
    id: str = ""
    when: str = ""
    outcome: str = ""
    cat: str = ""
    sub: str = ""
    raw: str = ""
    tamper: bool = False
    msg: str = ""
    text: str = ""
    root: Cause | None = None
    n: int = 0
    hooks: dict[str, list[dict[str, str]]] = field(default_factory=dict)

    @property
    def failing(self) -> bool:
        return self.tamper or self.outcome == "failed" or self.cat in ("failed", "error")


def _line(data: dict[str, Any]) -> Line:
    """The recorder's JSON object as a :class:`Line` (a field of another type reads empty)."""
    def text(key: str) -> str:
        value = data.get(key)
        return value if isinstance(value, str) else ""

    root = data.get("root")
    cause = None if not isinstance(root, dict) else Cause(
        str(root["path"]) if root.get("path") else None,
        root["line"] if type(root.get("line")) is int else None,
        str(root.get("func") or ""), str(root.get("source") or ""))
    hooks = data.get("hooks")
    return Line(text("k"), text("id"), text("when"), text("outcome"), text("cat"),
                str(data.get("sub") or ""), text("raw"), bool(data.get("tamper")), text("msg"),
                text("text"), cause, n if type(n := data.get("n")) is int else 0,
                hooks if isinstance(hooks, dict) else {})


def records_in(folder: Path) -> Iterator[Line]:
    """Every line the plugin's processes wrote into ``folder``, one file per process."""
    for path in record_files(folder):
        with path.open(encoding="utf-8", errors="replace") as handle:
            for text in handle:
                try:
                    record = json.loads(text)
                except ValueError:
                    continue  # a worker killed mid-line
                if isinstance(record, dict):
                    yield _line(record)


def read_record(folder: Path, *, max_problems: int = 500) -> JUnitReport | None:
    """The report of the run whose plugin wrote into ``folder``; ``None`` if it never started."""
    records: list[Line] = []
    started = False
    report = JUnitReport(max_problems=max_problems)
    hooks: dict[str, list[dict[str, str]]] = {}
    collection_errors: set[str] = set()
    for record in records_in(folder):
        kind = record.kind
        if kind == "start":
            started = True
        elif kind == "hooks":
            hooks = record.hooks
        elif kind == "d":
            report.deselected += record.n
        elif kind == "c":
            test_id = record.id or "."
            if test_id not in collection_errors:
                collection_errors.add(test_id)
                _keep(report, records, record, max_problems)
        elif kind == "r":
            if record.failing:
                _keep(report, records, record, max_problems)
            else:
                _count(report, record)
    if not started:
        return None
    culprits = ", ".join(project_hooks(hooks)) or "a pytest plugin"
    for record in records:
        report.add(_problem(record, culprits))
    return report


def _keep(report: JUnitReport, records: list[Line], record: Line, max_problems: int) -> None:
    """Keep a failing record for its details, or only count it once ``max_problems`` are
    kept (memory stays flat with 100,000 failing tests)."""
    if len(records) < max_problems:
        records.append(record)
    elif _outcome(record) == "failed":
        report.failed += 1
    else:
        report.errors += 1


def outcomes(folder: Path) -> dict[str, str] | None:
    """Every test id the run reported, with how it ended (``failed`` when any phase failed or
    was tampered with, else pytest's category; a file that failed to collect:
    :data:`COLLECTION_ERROR`); ``None`` if the plugin never started."""
    ids: dict[str, str] = {}
    started = False
    for record in records_in(folder):
        started = started or record.kind == "start"
        if record.kind == "c" and record.id:
            ids[record.id] = COLLECTION_ERROR
        elif record.kind == "r" and record.id:
            if record.failing:
                ids[record.id] = "failed"
            elif ids.get(record.id) != "failed" and record.cat:
                ids[record.id] = record.cat
            else:
                ids.setdefault(record.id, "passed")
    return ids if started else None


def failing_ids(ended: dict[str, str]) -> set[str]:
    """The ids of :func:`outcomes` that failed, files that failed to collect included."""
    return {test_id for test_id, how in ended.items() if how in ("failed", COLLECTION_ERROR)}


def _count(report: JUnitReport, record: Line) -> None:
    counter = _COUNTED.get(record.cat)
    if counter is not None:
        setattr(report, counter, getattr(report, counter) + 1)


def _problem(record: Line, culprits: str) -> TestCaseResult:
    test_id = record.id or "."
    root = record.root
    path, line = (root.path, root.line) if root else (None, None)
    code = record.raw or None
    message = record.msg
    text = record.text
    if record.kind == "c":
        return TestCaseResult(test_id, "error", message=f"collection error: {message}"[:500],
                              detail=excerpt(text), code=_code(text, None), collection=True)
    if record.sub:
        message = f"subtest {record.sub}: {message}"
    if record.tamper:
        said = record.outcome
        message = (f"tampering: report rewritten by {culprits}: the test raised {code} but its "
                   f"report says {said}")
        return TestCaseResult(test_id, "failed", message=message, code="tampering",
                              path=path, line=line, detail=excerpt(text))
    outcome = _outcome(record)
    if outcome == "error":
        message = f"error in {record.when}: {message}"
    cause = f"{root.path}:{root.func}:{root.source or root.line}" if root else None
    return TestCaseResult(test_id, outcome, message=message[:500] or "failed",
                          detail=excerpt(text), code=_code(text, code), path=path, line=line,
                          cause=cause)


def _outcome(record: Line) -> Outcome:
    """A collection error, a failure in setup or teardown and what pytest counts as an error
    are errors; the others failures."""
    if record.kind == "c":
        return "error"
    return "error" if not record.tamper and (
        record.when in ("setup", "teardown") or record.cat == "error") else "failed"


def _code(text: str, raw: str | None) -> str | None:
    """The exception type: the raw one, else pytest's last traceback lines name it."""
    if raw:
        return raw.rsplit(".", 1)[-1] if raw.startswith("_pytest.") else raw
    return traceback_code([ln for ln in text.splitlines() if ln.strip()])
