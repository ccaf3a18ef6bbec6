"""What one ``<testcase>`` of a JUnit XML file says: its id, outcome, message and excerpt,
redacted and bounded whatever the tool wrote."""

from __future__ import annotations

import re
from dataclasses import dataclass
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
    code = (problem.get("type") or "").strip() or None
    crash = CRASH_LINE.match(lines[-1]) if lines else None
    if crash is not None:
        code = code or crash.group("type")
        if file is None or crash.group("path") == file:
            path, line = crash.group("path"), int(crash.group("line"))
    e_lines = [m for m in (E_LINE.match(ln) for ln in lines) if m]
    if code is None and e_lines:
        code = e_lines[-1].group("type")
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


def _problem_text(elem: Element) -> tuple[str, str, list[str]]:
    """A ``<failure>``'s bounded text, its message (a generic one replaced by the text's first
    meaningful line) and the text's non-empty lines."""
    text = _bounded(elem.text or "")
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


def _bounded(text: str) -> str:
    """A failure's text redacted, its middle cut past :data:`KEEP_CHARS` (the head says what
    failed, the tail where), so no later step costs more than that."""
    if len(text) > KEEP_CHARS + 100:  # the reader has already cut it (with a note)
        cut = len(text) - KEEP_CHARS
        text = (text[: KEEP_CHARS // 4] + f"\n[... {cut} characters cut ...]\n"
                + text[-(KEEP_CHARS - KEEP_CHARS // 4):])
    return redact(text)


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
