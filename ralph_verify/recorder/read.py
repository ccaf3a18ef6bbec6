"""Read what ralph-verify's pytest plugin wrote straight into the :class:`JUnitReport` and
:class:`TestCaseResult` the JUnit reader gives; a report that says "passed" for a test whose
call raised is *tampering*."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ralph_verify.junit.read import JUnitReport, Outcome, TestCaseResult, excerpt, traceback_code
from ralph_verify.recorder.sources import AFFECTED_PLUGIN_NAME, PLUGIN_NAME, record_files

#: The category :func:`outcomes` gives a collector (a file) that failed to collect.
COLLECTION_ERROR = "collection error"
#: A passing record's category, and the count of the report it adds to.
_COUNTED = {"passed": "passed", "skipped": "skipped", "xfailed": "xfailed",
            "xpassed": "xpassed", "subtests passed": "subtests_passed"}

#: One line the recorder wrote; its ``k``: ``start``, ``hooks``, ``d`` (deselected), ``c`` (a
#: collection error) or ``r`` (a test's report of one phase). A field of another type reads
#: empty (:func:`_text`).
Record = dict[str, Any]


def project_hooks(hooks: dict[str, list[dict[str, str]]]) -> list[str]:
    """``conftest.py (pytest_runtest_makereport)`` for each project file implementing one of the
    hooks the recorder names (those that can rewrite a report)."""
    found: list[str] = []
    for name, impls in hooks.items():
        for impl in impls:
            path = str(impl.get("path", ""))
            if (impl.get("plugin") in (PLUGIN_NAME, AFFECTED_PLUGIN_NAME) or not path
                    or path.startswith(("/", "<")) or "site-packages" in path or path == "?"):
                continue
            entry = f"{path} ({name})"
            if entry not in found:
                found.append(entry)
    return found


def _text(record: Record, key: str) -> str:
    value = record.get(key)
    return value if isinstance(value, str) else ""


def _failing(record: Record) -> bool:
    return (bool(record.get("tamper")) or record.get("outcome") == "failed"
            or record.get("cat") in ("failed", "error"))


def records_in(folder: Path) -> Iterator[Record]:
    """Every line the plugin's processes wrote into ``folder``, one file per process."""
    for path in record_files(folder):
        with path.open(encoding="utf-8", errors="replace") as handle:
            for text in handle:
                try:
                    record = json.loads(text)
                except ValueError:
                    continue  # a worker killed mid-line
                if isinstance(record, dict):
                    yield record


def read_record(folder: Path, *, max_problems: int = 500) -> JUnitReport | None:
    """The report of the run whose plugin wrote into ``folder``; ``None`` if it never started."""
    records: list[Record] = []
    started = False
    report = JUnitReport(max_problems=max_problems)
    hooks: Any = {}
    collection_errors: set[str] = set()
    for record in records_in(folder):
        kind = record.get("k")
        if kind == "start":
            started = True
        elif kind == "hooks":
            hooks = record.get("hooks")
        elif kind == "d" and type(record.get("n")) is int:
            report.deselected += record["n"]
        elif kind == "c" and (_text(record, "id") or ".") not in collection_errors:
            collection_errors.add(_text(record, "id") or ".")
            _keep(report, records, record, max_problems)
        elif kind == "r" and _failing(record):
            _keep(report, records, record, max_problems)
        elif kind == "r" and (counter := _COUNTED.get(_text(record, "cat"))) is not None:
            setattr(report, counter, getattr(report, counter) + 1)
    if not started:
        return None
    culprits = ", ".join(project_hooks(hooks if isinstance(hooks, dict) else {}))
    for record in records:
        report.add(_problem(record, culprits or "a pytest plugin"))
    return report


def _keep(report: JUnitReport, records: list[Record], record: Record, max_problems: int) -> None:
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
        kind, test_id, category = record.get("k"), _text(record, "id"), _text(record, "cat")
        started = started or kind == "start"
        if kind == "c" and test_id:
            ids[test_id] = COLLECTION_ERROR
        elif kind == "r" and test_id:
            if _failing(record):
                ids[test_id] = "failed"
            elif ids.get(test_id) != "failed" and category:
                ids[test_id] = category
            else:
                ids.setdefault(test_id, "passed")
    return ids if started else None


def failing_ids(ended: dict[str, str]) -> set[str]:
    """The ids of :func:`outcomes` that failed, files that failed to collect included."""
    return {test_id for test_id, how in ended.items() if how in ("failed", COLLECTION_ERROR)}


def _problem(record: Record, culprits: str) -> TestCaseResult:
    test_id = _text(record, "id") or "."
    root = record.get("root") if isinstance(record.get("root"), dict) else None
    path = str(root["path"]) if root and root.get("path") else None
    line = root["line"] if root and type(root.get("line")) is int else None
    code = _text(record, "raw") or None
    message, text = _text(record, "msg"), _text(record, "text")
    if record.get("k") == "c":
        return TestCaseResult(test_id, "error", message=f"collection error: {message}"[:500],
                              detail=excerpt(text), code=_code(text, None), collection=True)
    if record.get("sub"):
        message = f"subtest {record['sub']}: {message}"
    if record.get("tamper"):
        message = (f"tampering: report rewritten by {culprits}: the test raised {code} but its "
                   f"report says {_text(record, 'outcome')}")
        return TestCaseResult(test_id, "failed", message=message, code="tampering",
                              path=path, line=line, detail=excerpt(text))
    outcome = _outcome(record)
    if outcome == "error":
        message = f"error in {_text(record, 'when')}: {message}"
    cause = (f"{path}:{root.get('func') or ''}:{root.get('source') or line}" if root else None)
    return TestCaseResult(test_id, outcome, message=message[:500] or "failed",
                          detail=excerpt(text), code=_code(text, code), path=path, line=line,
                          cause=cause)


def _outcome(record: Record) -> Outcome:
    """A collection error, a failure in setup or teardown and what pytest counts as an error
    are errors; the others failures."""
    if record.get("k") == "c":
        return "error"
    return "error" if not record.get("tamper") and (
        record.get("when") in ("setup", "teardown") or record.get("cat") == "error") else "failed"


def _code(text: str, raw: str | None) -> str | None:
    """The exception type: the raw one, else pytest's last traceback lines name it."""
    if raw:
        return raw.rsplit(".", 1)[-1] if raw.startswith("_pytest.") else raw
    return traceback_code([ln for ln in text.splitlines() if ln.strip()])
