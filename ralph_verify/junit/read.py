"""A streaming, bounded reader of JUnit XML, whoever wrote it (pytest, jest-junit, go, nextest),
and what one ``<testcase>`` says, redacted and bounded whatever the tool wrote.

Memory stays flat on a 100,000-test file: each finished ``<testcase>`` is read and dropped.
Test ids are pytest node ids when the file has pytest's ``file`` (xunit1), else
``classname::name``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ralph_verify.redact import redact

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

Outcome = Literal["passed", "failed", "error", "skipped"]


#: Bounds on what is kept of one failing test.
MESSAGE_CHARS = 500
DETAIL_LINES = 20
DETAIL_CHARS = 1500
#: What is read of one failure's text at most (head and tail), before anything else.
KEEP_CHARS = 64 * 1024

#: Messages that say nothing; the first meaningful line of the text is used instead.
_GENERIC_MESSAGES = {"", "failed", "failure", "error", "collection failure", "test failed",
                     "test failure", "build error", "build failed"}
#: pytest's last traceback line: ``tests/test_calc.py:4: AssertionError``.
CRASH_LINE = re.compile(r"^(?P<path>\S.*?):(?P<line>\d+): (?P<type>[A-Za-z_][\w.]*)$")
#: pytest's exception line: ``E   ValueError: bad value``.
E_LINE = re.compile(r"^E\s+(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*): ")

@dataclass(frozen=True)
class TestCaseResult:
    """One test as read from the file; ``message``/``detail`` are bounded."""

    __test__ = False  # not a pytest test class, despite the name

    id: str
    outcome: Outcome
    message: str = ""
    detail: str = ""
    code: str | None = None
    path: str | None = None
    line: int | None = None
    #: pytest could not import the test module (the test id is the file).
    collection: bool = False
    #: The tool itself retried it and it passed (nextest ``<flakyFailure>``).
    flaky: bool = False
    #: The root cause when known (``path:func:source line``, from ralph-verify's pytest
    #: recorder): failures sharing it and their exception type are one fingerprint.
    cause: str | None = None


def case_result(elem: Element) -> TestCaseResult:
    name, classname = elem.get("name") or "", elem.get("classname") or ""
    file = elem.get("file") or None
    problem = next((child for child in elem if child.tag in ("failure", "error")), None)
    test_id = _test_id(name, classname, file)
    line = _int(elem.get("line"))
    if file is not None and line is not None and _pytest_module(file, classname) is not None:
        line += 1  # pytest writes the 0-based line of the test's def
    path = file
    if problem is None:
        if elem.find("skipped") is not None:
            return TestCaseResult(test_id, "skipped", path=path, line=line)
        flaky = elem.find("flakyFailure") is not None or elem.find("flakyError") is not None
        return TestCaseResult(test_id, "passed", path=path, line=line, flaky=flaky)
    text, message, lines = _problem_text(problem)
    collection = (problem.get("message") or "").strip() == "collection failure"
    code = (problem.get("type") or "").strip() or traceback_code(lines)
    crash = CRASH_LINE.match(lines[-1]) if lines else None
    if crash is not None and (file is None or crash.group("path") == file):
        path, line = crash.group("path"), int(crash.group("line"))
    if message.lower().startswith("test failure"):
        message = _first_meaningful(lines)
    if collection:
        message = f"collection error: {message}"
    if code is None:
        prefix = re.match(r"((?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*)?(?:Error|Exception)): ", message)
        code = prefix.group(1) if prefix else None
    outcome: Outcome = "failed" if problem.tag == "failure" else "error"
    return TestCaseResult(test_id, outcome, message=_clip_message(message or "failed"),
                          detail=excerpt(text), code=code[:80] if code else None,
                          path=path, line=line, collection=collection)


def suite_problem(suite: Element, elem: Element) -> TestCaseResult:
    text, message, _ = _problem_text(elem)
    return TestCaseResult(suite.get("name") or "(test suite)", "error",
                          message=_clip_message(message or "the test suite failed to run"),
                          detail=excerpt(text), code=(elem.get("type") or "").strip() or None)


def traceback_code(lines: list[str]) -> str | None:
    """The exception type pytest's traceback ``lines`` name: its last line, else an E line."""
    crash = CRASH_LINE.match(lines[-1]) if lines else None
    if crash is not None:
        return crash.group("type")
    e_lines = [m for m in map(E_LINE.match, lines) if m]
    return e_lines[-1].group("type") if e_lines else None


def _problem_text(elem: Element) -> tuple[str, str, list[str]]:
    """A ``<failure>``'s text (bounded as it was read), its message (a generic one replaced by
    the text's first meaningful line) and the text's non-empty lines."""
    text = redact(elem.text or "")
    message = redact((elem.get("message") or "")[:KEEP_CHARS]).strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if message.lower() in _GENERIC_MESSAGES:
        message = _first_meaningful(lines)
    return text, message, lines


def _pytest_module(file: str, classname: str) -> str | None:
    """The class part of ``classname`` when it is pytest's dotted form of ``file``, else None."""
    if not file.endswith(".py"):
        return None
    module = file[:-3].replace("\\", "/").replace("/", ".")
    if classname == "" or classname == module:
        return ""
    if classname.startswith(module + "."):
        return classname[len(module) + 1:]
    return None


def _test_id(name: str, classname: str, file: str | None) -> str:
    if file is not None:
        inner = _pytest_module(file, classname)
        if inner is not None:
            if classname == "" and file[:-3].replace("/", ".") == name:
                return file  # a collection error: the module itself
            parts = [file, *(inner.split(".") if inner else []), name]
            return "::".join(parts)
    if not classname or classname == name:
        return name or "(unnamed test)"
    return f"{classname}::{name}"


def _first_meaningful(lines: list[str]) -> str:
    """The exception line of a pytest traceback, else the first non-empty line."""
    for line in lines:
        if line.startswith("E ") and line[1:].strip():
            return line[1:].strip()
    if not lines:
        return ""
    first = lines[0].strip()
    # "thread 'x' panicked at src/lib.rs:21:9:" says what follows on the next line.
    return f"{first} {lines[1].strip()}" if first.endswith(":") and len(lines) > 1 else first


def _clip_message(message: str) -> str:
    return message if len(message) <= MESSAGE_CHARS else message[: MESSAGE_CHARS - 3] + "..."


def excerpt(text: str) -> str:
    """The lines of a traceback that say what failed, bounded.

    A pytest traceback keeps its failing lines (``>``) with two lines of context, its
    ``E`` lines and its ``file:line: Type`` lines, not the decorators (a long
    parametrize list) above them; any other text keeps its last lines.
    """
    lines = text.strip("\n").splitlines()
    marked = [i for i, ln in enumerate(lines)
              if ln.startswith((">", "E ")) or CRASH_LINE.match(ln)]
    if marked and any(lines[i].startswith("E ") for i in marked):
        keep: set[int] = set()
        for i in marked:
            keep.add(i)
            if lines[i].startswith(">"):
                keep.update(j for j in range(max(0, i - 2), i)
                            if not lines[j].lstrip().startswith("@"))
        lines = [lines[i] for i in sorted(keep)]
    lines = lines[-DETAIL_LINES:]
    kept = "\n".join(lines)
    return kept if len(kept) <= DETAIL_CHARS else "..." + kept[-(DETAIL_CHARS - 3):]


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


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
    max_problems: int = 500
    #: Counted only from ralph-verify's pytest recorder, as pytest's summary counts them.
    xfailed: int = 0
    xpassed: int = 0
    deselected: int = 0
    subtests_passed: int = 0
    #: Where the counts come from, when it is worth saying (e.g. a fallback to JUnit XML).
    note: str = ""

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
    return report


def iter_cases(path: Path) -> Iterator[TestCaseResult]:
    """Yield every test case of ``path`` as it is parsed; raises :class:`JUnitError`. The file is
    data: a DTD is refused before anything is parsed, and a suite's numbers must be sane."""
    # Imported here: the tests check imports this module before pytest starts, and the XML
    # parser is wanted only once pytest has finished.
    import xml.parsers.expat as expat

    from ralph_verify.junit.xml_stream import SUITE_TAGS, DTDRefused, iterparse_bounded

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
                    if not stack and elem.tag not in SUITE_TAGS:
                        raise JUnitError(f"{path}: not JUnit XML (the root element is "
                                         f"<{elem.tag}>, expected <testsuites> or <testsuite>)")
                    stack.append(elem)
                    if elem.tag in SUITE_TAGS:
                        _check_declared(elem, path)  # absurd numbers: refused at once
                        tallies.append([0, 0])
                    continue
                stack.pop()
                if elem.tag in SUITE_TAGS:
                    failing, cases = tallies.pop()
                    if tallies:
                        tallies[-1][0] += failing
                        tallies[-1][1] += cases
                    problem = _disagreement(elem, path, failing, cases)
                    if problem is not None:
                        yield problem
                parent = stack[-1] if stack else None
                if parent is None or parent.tag not in SUITE_TAGS or elem.tag in SUITE_TAGS:
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
