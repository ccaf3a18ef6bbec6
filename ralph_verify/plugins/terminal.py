"""The human report of ``check`` and ``run``, as pytest's ``TerminalReporter``: the one
writer of it, fed by the reporting hooks, so ``-p no:terminal`` silences it. The Stop hook's
commands have no output scope: their stdout belongs to the agent."""

from __future__ import annotations

import os
import time
from collections.abc import Generator, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, TextIO

from ralph_verify.checks.api import Check, CheckResult, Status
from ralph_verify.checks.tool_output import one_line
from ralph_verify.checks.verification import Verification
from ralph_verify.config import Config
from ralph_verify.config.stash import REPORT_STREAM_KEY
from ralph_verify.display import Display, output_stream
from ralph_verify.markers import hookimpl
from ralph_verify.project.interpreter import choose
from ralph_verify.tasks.keys import CURRENT_TASK_KEY
from ralph_verify.terminal_text import strip_controls

if TYPE_CHECKING:
    from ralph_verify.loop.session import Iteration, Session
    from ralph_verify.loop.verdict import VerdictProposal

#: The reporter's name in the plugin manager (``config.pluginmanager.get_plugin(...)``).
REPORTER = "terminalreporter"

_COLOURS = {Status.PASSED: "32", Status.FAILED: "31", Status.ERROR: "35", Status.SKIPPED: "33"}


def colour_wanted(stream: TextIO, mode: str | None = "auto") -> bool:
    """``--color always|never|auto``; auto: ``NO_COLOR`` off, ``FORCE_COLOR`` on, else a
    terminal (https://no-color.org, https://force-color.org)."""
    if mode in ("always", "never"):
        return mode == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    return bool(hasattr(stream, "isatty") and stream.isatty())


def result_line(result: CheckResult, stream: TextIO, width: int = 10,
                colour: str | None = "auto") -> str:
    label = f"{result.status.value.upper():<7}"
    if colour_wanted(stream, colour):
        label = f"\x1b[{_COLOURS[result.status]}m{label}\x1b[0m"
    summary = " ".join(result.summary.split())
    timing = "cached" if result.cached else f"{result.duration_s:.2f}s"
    return f"{label} {result.spec:<{width}} {summary}  ({timing})"


def summary_line(verification: Verification) -> str:
    """The closing line, counting checks in their own words and naming those that did not
    pass in ``--until`` order: ``FAILED: 1 of 3 checks failed (tests), 2 passed in 2.02s``;
    a skipped check is never counted as passed (``PASSED: 1 of 2 checks passed, 1
    skipped``)."""
    total = len(verification.results)
    noun = "check" if total == 1 else "checks"
    parts: list[str] = []
    for status in (Status.FAILED, Status.ERROR, Status.PASSED, Status.SKIPPED):
        names = [result.spec for result in verification.results if result.status is status]
        if not names:
            continue
        if parts:
            count = str(len(names))
        elif total == 1:
            count = f"1 {noun}"
        elif len(names) == total and status is Status.PASSED:
            count = f"all {total} {noun}"
        else:
            count = f"{len(names)} of {total} {noun}"
        named = f" ({', '.join(names)})" if status in (Status.FAILED, Status.ERROR) else ""
        word = "errored" if status is Status.ERROR else status.value
        parts.append(f"{count} {word}{named}")
    cached = sum(result.cached for result in verification.results)
    if cached:
        parts.append(f"{cached} cached")
    verdict = "PASSED" if verification.passed else "FAILED"
    return f"{verdict}: {', '.join(parts) or 'no checks'} in {verification.duration_s:.2f}s"


def python_line(config: Config, checks: Sequence[Check]) -> list[str]:
    """``python: .venv/bin/python (3.11.7, project .venv)``: which Python runs the tests;
    none when no check runs the project's Python (``lint``, ``files:``)."""
    if not any(check.uses_python or check.needs_coverage for check in checks):
        return []
    return [f"python: {choose(config.root, config.get('python')).describe(config.root)}"]


#: Failures of one check shown by default (``-v`` shows them all), and the lines of a
#: failure's excerpt or an error's output shown with ``-v`` (``-vv``: all of them).
FIRST_FAILURES = 10
EXCERPT_LINES = 15


def _clipped(text: str, verbosity: int, last: int) -> list[str]:
    """A tool's text, its last ``last`` lines (all of them at ``-vv``)."""
    lines = text.strip("\n").splitlines()
    if verbosity >= 2 or len(lines) <= last:
        return lines
    return [f"... ({len(lines) - last} lines above)", *lines[-last:]]


def failure_lines(result: CheckResult, verbosity: int = 0) -> list[str]:
    """What a person reads under a check's line, as the tool itself would print it: per
    failure ``location: message`` (pytest's test id and assertion, ruff's and mypy's
    ``file:line:col: code message``), with ``-v`` its excerpt (``-vv`` uncut); for a check
    that could not decide, the last lines of its tool's output."""
    if result.status is Status.ERROR:
        output = result.output.strip()
        if not output or one_line(output) == one_line(result.summary):
            return []
        return ["  " + line for line in _clipped(output, verbosity,
                                                 5 if verbosity <= 0 else EXCERPT_LINES)]
    if result.status is not Status.FAILED:
        return []
    shown = result.failures if verbosity > 0 else result.failures[:FIRST_FAILURES]
    lines: list[str] = []
    for failure in shown:
        message = (failure.message.strip().splitlines() or [""])[0].strip()
        text = f"{failure.location}: {message}" if failure.location else message
        lines.append("  " + (text if verbosity >= 2 else one_line(text, 200)))
        if verbosity > 0 and failure.detail.strip():
            lines += ["    " + line
                      for line in _clipped(failure.detail, verbosity, EXCERPT_LINES)]
        elif failure.detail.startswith("hint: "):  # a plugin's word to the person: always
            lines.append("    " + failure.detail.splitlines()[0])
    more = len(result.failures) - len(shown) + result.unkept
    if more:
        lines.append(f"  ... and {more} more" + (" (-v shows them)" if len(result.failures)
                                                  > len(shown) else " (counted, not kept)"))
    return lines


class TerminalReporter:
    """Permanent lines and, on a terminal during a session, the live status line."""

    def __init__(self, config: Config) -> None:
        self.config = config
        #: A session's wall time counts from here (plus its earlier runs when resumed).
        self.started = time.monotonic()
        #: A loop session is running (``check`` has none); its baseline is not yet verified.
        self._in_session = False
        self._baseline_seen = False
        #: The session's ``until``, as asked (the loop may add checks: ``integrity``).
        self._asked: list[str] = []
        self._width = 8
        #: Lines plugins say while an iteration is decided (the breaker's move, a
        #: checkpoint's word), held until that iteration's result is printed: its result
        #: first, then what follows from it. ``None``: not holding.
        self._held: list[str] | None = None

    @cached_property
    def display(self) -> Display:
        stream = self.config.stash.get(REPORT_STREAM_KEY) or output_stream(self.config)
        return Display(stream, quiet=self.verbosity <= -2)

    def close(self) -> None:
        if "display" in self.__dict__:  # made: a session or a check printed something
            self.display.stop()

    def _line(self, text: str, level: int = 0) -> None:
        """A permanent line, shown from verbosity ``level`` on (``-q`` is -1, ``-v`` 1); escape
        sequences from an agent's or a tool's text never pass."""
        if self.verbosity >= level:
            self.display.line(strip_controls(text))

    @property
    def verbosity(self) -> int:
        """pytest's: ``-v`` adds one, ``-q`` takes one away; ``-qq`` prints nothing."""
        return int(self.config.get("verbose")) - int(self.config.get("quiet"))

    @hookimpl
    def ralph_report_verification_start(self, checks: Sequence[Check]) -> None:
        """``check``'s header at once, before any check has run; in a loop, the checks the
        loop added to ``--until`` are named once, at the baseline."""
        self._width = max((len(check.spec.text) for check in checks), default=8)
        self.display.running = []
        if not self._in_session:
            self.display.where = "check"
            count = len(checks)  # -q: no header, as pytest
            self._line("\n".join([f"ralph-verify check · {self.config.root} · {count} "
                                  f"check{'s' if count != 1 else ''}",
                                  *python_line(self.config, checks)]))
            self.display.start()
            return
        if not self._baseline_seen:
            self._baseline_seen = True
            for line in python_line(self.config, checks):
                self._line(line)
            asked = self._asked
            added = [check.spec for check in checks if check.spec.text not in asked]
            if added:  # "baseline: 1/2 checks" when one was asked: say which is the other
                given = "the task's gate" if CURRENT_TASK_KEY in self.config.stash \
                    else "--until"
                self._line(f"checks: {', '.join(asked)} from {given}, plus "
                           + "; ".join(f"{spec.text}, added by {spec.source}"
                                       for spec in added))

    @hookimpl
    def ralph_report_check_start(self, check: Check) -> None:
        self.display.check_started(check.spec.text)

    @hookimpl
    def ralph_report_progress(self, name: str, done: int, total: int | None) -> None:
        self.display.progress(name, done, total)

    @hookimpl
    def ralph_verify_logresult(self, result: CheckResult) -> None:
        """Each check's line as soon as it is decided (``check``; ``run -v``)."""
        self.display.check_done(result.spec)
        if self._in_session and self.verbosity < 1:
            return
        indent = "    " if self._in_session else ""
        if self.verbosity >= -1:
            self.display.line(indent + result_line(result, self.display.stream, self._width,
                                                   self.config.get("color")))
        for name in result.flaky:
            self._line(f"{indent}        flaky (failed, then passed on re-run): {name}")
        for line in failure_lines(result, max(self.verbosity - self._in_session, 0)):
            self._line(indent + line, -1)

    @hookimpl
    def ralph_report_line(self, line: str) -> None:
        if self._held is not None:
            self._held.append(line)
        else:
            self._line(line)

    def _release(self) -> None:
        held, self._held = self._held or [], None
        for line in held:
            self._line(line)

    @hookimpl
    def ralph_report_phase(self, phase: str) -> None:
        self.display.phase(phase)

    @hookimpl(wrapper=True)
    def ralph_session_prepare(self, session: Session) -> Generator[None, list[None], list[None]]:
        """The header, after what other plugins say while they prepare; then the live line."""
        from ralph_verify.loop.records import header

        results = yield
        self._in_session = True
        if CURRENT_TASK_KEY in self.config.stash:  # a task of a list: its own time
            self.started = time.monotonic()
        self._asked = [spec.text for spec in session.settings.until]
        self.display.max_iterations = session.max_iterations
        self._line(header(session, session.config))
        self.display.start()
        return results

    @hookimpl(tryfirst=True)
    def ralph_iteration_start(self, iteration: Iteration) -> None:
        self.display.iteration = iteration.number

    @hookimpl(tryfirst=True)
    def ralph_iteration_end(self) -> None:
        self._held = []

    @hookimpl
    def ralph_report_agent(self, iteration: Iteration) -> None:
        from ralph_verify.loop.records import agent_line

        self._line(agent_line(iteration))

    @hookimpl
    def ralph_report_verification(self, session: Session | None, iteration: Iteration | None,
                                  verification: Verification) -> None:
        if session is None:  # check: a loop's records are not needed
            if self.config.get("feedback") and not verification.passed:
                self._line("\n" + verification.feedback, -1)
            self._line(f"\n{summary_line(verification)}", -1)
            self.display.stop()
            return
        from ralph_verify.loop.records import passed_text, verification_line

        self.display.checks = passed_text(verification, "")
        label = f"iteration {iteration.number}" if iteration is not None else "baseline"
        self._line(verification_line(label, verification), -1)
        if self.verbosity >= 1 and not verification.passed:  # the texts stay in the files
            self._line(f"    feedback for the next iteration: {len(verification.feedback):,} "
                       "characters")
            if iteration is not None and iteration.prompt_path is not None:
                path = iteration.prompt_path
                if path.is_relative_to(session.root):
                    path = path.relative_to(session.root)
                self._line(f"    the prompt it answered, in full: {path}")
        self._release()

    @hookimpl(wrapper=True)
    def ralph_session_finish(self, session: Session,
                             verdict: VerdictProposal) -> Generator[None, list[None], list[None]]:
        """The summary, after every line the other plugins add (``report: ...``)."""
        from ralph_verify.loop.records import summary_lines

        self._release()  # an iteration cut short has no result line
        results = yield
        elapsed = session.elapsed_before_s + time.monotonic() - self.started
        for line in summary_lines(session, verdict, session.dir, elapsed):
            self._line(line, -1)
        self.display.stop()
        return results


@hookimpl
def ralph_configure(config: Config) -> None:
    if "output" in config.command.scopes:
        config.pluginmanager.register(TerminalReporter(config), REPORTER)


@hookimpl
def ralph_unconfigure(config: Config) -> None:
    reporter = config.pluginmanager.get_plugin(REPORTER)
    if isinstance(reporter, TerminalReporter):
        reporter.close()
        config.pluginmanager.unregister(reporter)
