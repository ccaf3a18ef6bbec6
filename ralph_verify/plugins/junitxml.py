"""``--junitxml FILE``: verifications as JUnit XML, for CI test reporters.

One ``<testsuite>`` per verification, one ``<testcase>`` per check; rewritten atomically
after each verification, so an interrupted session still leaves a valid file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.checks.api import CheckResult, Status
from ralph_verify.checks.verification import Verification
from ralph_verify.loop.keys import SESSION_KEY
from ralph_verify.markers import hookimpl
from ralph_verify.redact import redact
from ralph_verify.state_files import output_target, write_text_atomic

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

    from ralph_verify.checks.verification import Verification
    from ralph_verify.config import Config
    from ralph_verify.config.parser import Parser
    from ralph_verify.loop.session import Iteration, Session
    from ralph_verify.tasks.state import TasksState

WRITER = "junitxml-writer"
#: Characters XML 1.0 cannot carry (tool output has ANSI escapes and worse); compiled on
#: first use (re's cache keeps it), not at start-up: the class costs some 5 ms to compile.
_INVALID_XML = "[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"


def xml_text(text: str) -> str:
    """``text`` redacted and made safe for XML 1.0 (invalid characters shown as ``\\xNN``)."""
    return re.sub(_INVALID_XML, lambda m: f"\\x{ord(m.group()):02x}", redact(text))


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--junitxml", scope="output", metavar="FILE",
                     help="write the verification(s) as JUnit XML to FILE: one test case per "
                          "check (in a loop: one test suite per iteration)")


@hookimpl
def ralph_configure(config: Config) -> None:
    target = config.get("junitxml")
    if target:
        path = output_target("--junitxml", target, config.invocation_dir)
        config.pluginmanager.register(JUnitXmlWriter(config, path), WRITER)


@hookimpl
def ralph_unconfigure(config: Config) -> None:
    writer = config.pluginmanager.get_plugin(WRITER)
    if writer is None:
        return
    # A run that stopped at its baseline (a check could not decide) finishes no session.
    session = config.stash.get(SESSION_KEY)
    if session is not None:
        writer.add_session(session)
    config.pluginmanager.unregister(writer, WRITER)


class JUnitXmlWriter:
    """Collects the run's verifications and keeps ``path`` up to date."""

    def __init__(self, config: Config, path: Path) -> None:
        self.config = config
        self.path = path
        self.suites: list[tuple[str, Verification]] = []
        #: The task list, once it ended (``run --tasks``).
        self.tasks: TasksState | None = None

    def add(self, name: str, verification: Verification) -> None:
        if any(seen is verification for _, seen in self.suites):
            return
        self.suites.append((name, verification))
        write_text_atomic(self.path, self.render())

    @hookimpl
    def ralph_verification_finish(self, verification: Verification) -> None:
        self.add("ralph-verify check" if not self.suites else
                 f"verification {len(self.suites) + 1}", verification)

    @hookimpl
    def ralph_session_start(self, session: Session) -> None:
        self.add_session(session)

    @hookimpl
    def ralph_iteration_end(self, iteration: Iteration, verification: Verification) -> None:
        self.add(f"iteration {iteration.number}", verification)

    @hookimpl
    def ralph_session_finish(self, session: Session) -> None:
        self.add_session(session)

    @hookimpl
    def ralph_report_tasks(self, tasks: TasksState) -> None:
        self.tasks = tasks
        write_text_atomic(self.path, self.render())

    def add_session(self, session: Session) -> None:
        """The baseline and every verified iteration not written yet, in order."""
        if session.baseline is not None:
            self.add("baseline", session.baseline)
        for iteration in session.iterations:
            if iteration.verification is not None:
                self.add(f"iteration {iteration.number}", iteration.verification)

    def render(self) -> str:
        from xml.etree.ElementTree import Element, SubElement, indent, tostring

        root = Element("testsuites", name="ralph-verify")
        suites = [self._suite(name, verification) for name, verification in self.suites]
        if self.tasks is not None:
            suites.append(_task_suite(self.tasks))
        root.extend(suites)
        for key in ("tests", "failures", "errors", "skipped"):
            root.set(key, str(sum(int(suite.get(key, "0")) for suite in suites)))
        root.set("time", f"{sum(v.duration_s for _, v in self.suites):.3f}")
        if not self.suites:
            SubElement(root, "testsuite", name="ralph-verify", tests="0")
        indent(root)
        return ('<?xml version="1.0" encoding="utf-8"?>\n'
                + tostring(root, encoding="unicode") + "\n")

    def _suite(self, name: str, verification: Verification) -> Element:
        import socket
        from xml.etree.ElementTree import Element, SubElement

        suite = Element("testsuite", {"name": name, "time": f"{verification.duration_s:.3f}",
                                      "timestamp": verification.started_at,
                                      "hostname": socket.gethostname()})
        properties = SubElement(suite, "properties")
        SubElement(properties, "property", name="root", value=xml_text(str(verification.root)))
        for result in verification.results:
            if result.metric is not None:  # into <properties>, ahead of every test case
                SubElement(properties, "property", name=f"metric:{xml_text(result.spec)}",
                           value=f"{result.metric:g}")
            message = xml_text(" ".join(result.summary.split()))
            outcome, kind, text = {
                Status.FAILED: ("failure", "failed", failures_text(result)),
                Status.ERROR: ("error", "error", result.output or result.summary),
                Status.SKIPPED: ("skipped", "", ""),
            }.get(result.status, ("passed", "", message))
            case = _case(suite, f"ralph-verify.{result.name}", result.spec, result.duration_s,
                         outcome, message, text, kind)
            if result.flaky:
                SubElement(case, "system-err").text = xml_text(
                    "flaky (failed, then passed on re-run): " + ", ".join(result.flaky))
        return _counted(suite)


def _counted(suite: Element) -> Element:
    """``suite`` with its counts of test cases, failures, errors and skips."""
    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    for key, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
        suite.set(key, str(sum(case.find(tag) is not None for case in cases)))
    return suite


def _case(suite: Element, classname: str, name: str, seconds: float, outcome: str,
          message: str, text: str, kind: str) -> Element:
    """One ``<testcase>``: a ``failure`` or ``error`` of type ``kind``, ``skipped``, or
    passed with ``text`` as its output."""
    from xml.etree.ElementTree import SubElement

    case = SubElement(suite, "testcase", {"classname": classname, "name": xml_text(name),
                                          "time": f"{seconds:.3f}"})
    if outcome == "passed":
        SubElement(case, "system-out").text = xml_text(text)
    elif outcome == "skipped":
        SubElement(case, "skipped", message=message)
    else:
        SubElement(case, outcome, message=message, type=kind).text = xml_text(text)
    return case


def failures_text(result: CheckResult) -> str:
    """A failed check's failures, one block each: where, what, the tool's excerpt."""
    blocks = [(f"{failure.location}: " if failure.location else "") + failure.message
              + (f"\n{failure.detail.rstrip()}" if failure.detail.strip() else "")
              for failure in result.failures]
    if result.unkept:
        blocks.append(f"... and {result.unkept} more, counted but not kept")
    return "\n\n".join(blocks) or result.summary


def _task_suite(tasks: TasksState) -> Element:
    """One test case per task of the list: done passes, skipped is skipped, any other fails."""
    from xml.etree.ElementTree import Element, SubElement

    from ralph_verify.tasks.order import DONE

    rows = tasks.tasks
    suite = Element("testsuite", {"name": "tasks",
                                  "time": f"{sum(row.duration_s for row in rows):.3f}"})
    properties = SubElement(suite, "properties")
    SubElement(properties, "property", name="file", value=xml_text(tasks.file))
    SubElement(properties, "property", name="verdict", value=xml_text(tasks.verdict or ""))
    for row in rows:
        message = xml_text(f"{row.status}: {row.reason}" if row.reason else row.status)
        if row.status not in DONE | {"skipped"}:
            outcome, text = "failure", (f"task {row.id} is {row.status}: {row.reason}\n"
                                        f"gate: {row.gate}\niterations: {row.iterations}")
        else:
            outcome = "skipped" if row.status == "skipped" else "passed"
            text = f"{message}\ngate: {row.gate}\ncommit: {row.commit or '-'}"
        _case(suite, "ralph-verify.task", f"{row.id}: {row.title}", row.duration_s, outcome,
              message, text, row.status)
    return _counted(suite)
