"""A streaming, bounded reader of JUnit XML, whoever wrote it (pytest, jest-junit, go, nextest).

Memory stays flat on a 100,000-test file: each finished ``<testcase>`` is read and dropped.
Test ids are pytest node ids when the file has pytest's ``file`` (xunit1), else
``classname::name``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.junit.case import (
    CRASH_LINE,
    E_LINE,
    KEEP_CHARS,
    Outcome,
    TestCaseResult,
    case_result,
    excerpt,
    suite_problem,
)

__all__ = ["CRASH_LINE", "E_LINE", "JUnitError", "JUnitReport", "Outcome", "TestCaseResult",
           "excerpt", "iter_cases", "read_report"]

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

_SUITE_TAGS = ("testsuite", "testsuites")


class JUnitError(ValueError):
    """The file is not readable JUnit XML (malformed, truncated, empty or something else)."""


@dataclass
class JUnitReport:
    """Counts over every test read, and the first ``max_problems`` failing tests."""

    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    problems: list[TestCaseResult] = field(default_factory=list)
    flaky: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    max_problems: int = 500
    #: Counted only from ralph-verify's pytest recorder, as pytest's summary counts them.
    xfailed: int = 0
    xpassed: int = 0
    deselected: int = 0
    subtests_passed: int = 0
    #: Where the counts come from, when it is worth saying (e.g. a fallback to JUnit XML).
    note: str = ""
    #: Hook name -> the plugins implementing it (``plugin``, ``path``), from the recorder.
    hooks: dict[str, list[dict[str, str]]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return (self.passed + self.failed + self.errors + self.skipped + self.xfailed
                + self.xpassed)

    @property
    def failing(self) -> int:
        return self.failed + self.errors

    def add(self, case: TestCaseResult) -> None:
        if case.outcome == "passed":
            self.passed += 1
            if case.flaky and len(self.flaky) < self.max_problems:
                self.flaky.append(case.id)
            return
        if case.outcome == "skipped":
            self.skipped += 1
            return
        if case.outcome == "failed":
            self.failed += 1
        else:
            self.errors += 1
        if len(self.problems) < self.max_problems:
            self.problems.append(case)


def read_report(path: Path, *, max_problems: int = 500,
                report: JUnitReport | None = None) -> JUnitReport:
    """Read ``path`` into ``report`` (a new one by default); raises :class:`JUnitError`."""
    report = report if report is not None else JUnitReport(max_problems=max_problems)
    for case in iter_cases(path):
        report.add(case)
    report.files.append(str(path))
    return report


def iter_cases(path: Path) -> Iterator[TestCaseResult]:
    """Yield every test case of ``path`` as it is parsed; raises :class:`JUnitError`. The file is
    data: a DTD is refused before anything is parsed, and a suite's numbers must be sane."""
    # Imported here: the tests check imports this module before pytest starts, and the XML
    # parser is wanted only once pytest has finished.
    import xml.parsers.expat as expat

    from ralph_verify.junit.xml_stream import DTDRefused, iterparse_bounded

    try:
        if path.stat().st_size == 0:
            raise JUnitError(f"{path}: the file is empty (did the tool stop while writing it?)")
        handle = path.open("rb")
    except OSError as exc:
        raise JUnitError(f"{path}: cannot read: {exc.strerror or exc}") from None
    stack: list[Element] = []
    #: Per open suite: [failing cases, cases] listed inside it.
    tallies: list[list[int]] = []
    with handle:
        try:
            # Each text cut to KEEP_CHARS while it is read: a 200 MB failure costs 64 KB.
            for event, elem in iterparse_bounded(handle, KEEP_CHARS):
                if event == "start":
                    if not stack and elem.tag not in _SUITE_TAGS:
                        raise JUnitError(f"{path}: not JUnit XML (the root element is "
                                         f"<{elem.tag}>, expected <testsuites> or <testsuite>)")
                    stack.append(elem)
                    if elem.tag in _SUITE_TAGS:
                        _check_declared(elem, path)  # absurd numbers: refused at once
                        tallies.append([0, 0])
                    continue
                stack.pop()
                if elem.tag in _SUITE_TAGS:
                    failing, cases = tallies.pop()
                    if tallies:
                        tallies[-1][0] += failing
                        tallies[-1][1] += cases
                    problem = _disagreement(elem, path, failing, cases)
                    if problem is not None:
                        yield problem
                parent = stack[-1] if stack else None
                if parent is None or parent.tag not in _SUITE_TAGS or elem.tag in _SUITE_TAGS:
                    continue
                if elem.tag == "testcase":
                    case = case_result(elem)
                    tallies[-1][1] += 1
                    tallies[-1][0] += case.outcome in ("failed", "error")
                    yield case
                elif elem.tag in ("error", "failure"):
                    # A suite-level error (some tools report a suite that could not run so).
                    tallies[-1][0] += 1
                    yield suite_problem(parent, elem)
                parent.remove(elem)
        except DTDRefused as exc:
            raise JUnitError(f"{path}: {exc}") from None
        except expat.ExpatError as exc:
            truncated = any(why in str(exc) for why in ("no element found", "unclosed token"))
            kind = "truncated" if truncated else "malformed"
            raise JUnitError(f"{path}: {kind} XML ({exc})") from None


#: A suite claiming more tests than this is not a real report.
ABSURD_COUNT = 10_000_000


def _check_declared(suite: Element, path: Path) -> None:
    """Raise :class:`JUnitError` on a count the suite declares that is not a sane number."""
    for name in ("tests", "failures", "errors", "skipped", "disabled"):
        value = suite.get(name)
        if value is None:
            continue
        try:
            number = int(value.strip())
        except ValueError:
            raise JUnitError(f"{path}: <{suite.tag} {name}={value[:40]!r}> is not a number: "
                             "not a report a test tool wrote") from None
        if not 0 <= number <= ABSURD_COUNT:
            raise JUnitError(f"{path}: <{suite.tag} {name}=\"{number}\"> is negative or absurd: "
                             "not a report a test tool wrote")


def _disagreement(suite: Element, path: Path, failing: int,
                  cases: int) -> TestCaseResult | None:
    """A failure when the suite declares more failing tests than it lists."""
    declared = int(suite.get("failures") or 0) + int(suite.get("errors") or 0)
    if declared <= failing:
        return None
    name = suite.get("name") or f"<{suite.tag}>"
    return TestCaseResult(
        name, "error", code="junit-counts", path=str(path),
        message=(f"{path.name}: {name} declares {declared} failing tests (failures + errors) "
                 f"but lists {failing} of its {cases} test cases as failing: the file is "
                 "incomplete or was edited"))
