"""The human report of ``check`` and ``run``: the one thing that writes it, fed by hooks.

As pytest's ``TerminalReporter``: the commands with output options (scope ``output``:
``check``, ``run``) get a :class:`TerminalReporter` registered at configure time, and it
turns the reporting hooks (``ralph_report_*``, the session's and iteration's hooks) into
lines, plus the live status line on a terminal (:class:`~ralph_verify.display.Display`).
The core and the other plugins never print the report themselves, so ``-p no:terminal``
silences it for both commands; ``--json``, files and ``ERROR:`` lines on stderr stay.
The Stop hook's commands have no output scope: their stdout belongs to the agent.
"""

from __future__ import annotations

import os
import time
from collections.abc import Generator
from typing import TYPE_CHECKING, TextIO

from ralph_verify.checks.api import CheckResult, Status
from ralph_verify.checks.verification import Verification
from ralph_verify.config import Config
from ralph_verify.config.stash import REPORT_STREAM_KEY
from ralph_verify.display import Display, output_stream
from ralph_verify.markers import hookimpl
from ralph_verify.project.interpreter import choose
from ralph_verify.terminal_text import strip_controls

if TYPE_CHECKING:
    from ralph_verify.loop.session import Iteration, Session
    from ralph_verify.loop.verdict import VerdictProposal

#: The reporter's name in the plugin manager (``config.pluginmanager.get_plugin(...)``).
REPORTER = "terminalreporter"

_COLOURS = {Status.PASSED: "32", Status.FAILED: "31", Status.ERROR: "35", Status.SKIPPED: "33"}


def _paint(text: str, status: Status, stream: TextIO) -> str:
    if os.environ.get("NO_COLOR") or not (hasattr(stream, "isatty") and stream.isatty()):
        return text
    return f"\x1b[{_COLOURS[status]}m{text}\x1b[0m"


def result_line(result: CheckResult, stream: TextIO, width: int = 10) -> str:
    label = _paint(f"{result.status.value.upper():<7}", result.status, stream)
    metric = ""
    summary = " ".join(result.summary.split())
    timing = "cached" if result.cached else f"{result.duration_s:.2f}s"
    return f"{label} {result.spec:<{width}} {summary}{metric}  ({timing})"


def summary_line(verification: Verification) -> str:
    counts: dict[str, int] = {}
    for result in verification.results:
        counts[result.status.value] = counts.get(result.status.value, 0) + 1
    order = ("failed", "error", "passed", "skipped")
    parts = [f"{counts[key]} {key if key != 'error' else 'errored'}" for key in order
             if key in counts]
    verdict = "PASSED" if verification.passed else "FAILED"
    cached = sum(result.cached for result in verification.results)
    if cached:
        parts.append(f"{cached} cached")
    return f"{verdict}: {', '.join(parts)} in {verification.duration_s:.2f}s"


def python_line(config: Config) -> str:
    """``python: .venv/bin/python (3.11.7, project .venv)``: which Python runs the tests."""
    return f"python: {choose(config.root, config.get('python')).describe(config.root)}"


def check_report(config: Config, verification: Verification, stream: TextIO) -> None:
    """``check``'s report: a header, one line per check, the feedback, the verdict line."""
    width = max((len(r.spec) for r in verification.results), default=8)
    count = len(verification.results)
    print(f"ralph-verify check · {verification.root} · {count} check{'s' if count != 1 else ''}",
          file=stream)
    print(python_line(config), file=stream)
    for result in verification.results:
        print(result_line(result, stream, width), file=stream)
        for name in result.flaky:
            print(f"        flaky (failed, then passed on re-run): {name}", file=stream)
    if not verification.passed:
        print("\nFeedback\n--------", file=stream)
        print(verification.feedback, file=stream)
    print(f"\n{summary_line(verification)}", file=stream)


class TerminalReporter:
    """Permanent lines and, on a terminal during a session, the live status line."""

    def __init__(self, config: Config) -> None:
        self.config = config
        #: A session's wall time counts from here (plus its earlier runs when resumed).
        self.started = time.monotonic()
        self._display: Display | None = None

    @property
    def display(self) -> Display:
        if self._display is None:
            stream = self.config.stash.get(REPORT_STREAM_KEY) or output_stream(self.config)
            self._display = Display(stream, quiet=self._quiet())
        return self._display

    def close(self) -> None:
        if self._display is not None:
            self._display.stop()

    def _line(self, text: str) -> None:
        """A permanent line; escape sequences from an agent's or a tool's text never pass."""
        self.display.line(strip_controls(text))

    def _quiet(self) -> bool:
        return bool(self.config.get("quiet"))

    @hookimpl
    def ralph_report_line(self, line: str) -> None:
        self._line(line)

    @hookimpl
    def ralph_report_phase(self, phase: str) -> None:
        self.display.phase(phase)

    @hookimpl(wrapper=True)
    def ralph_session_prepare(self, session: Session) -> Generator[None, list[None], list[None]]:
        """The header, after what other plugins say while they prepare; then the live line."""
        from ralph_verify.loop.records import header

        results = yield
        self.display.max_iterations = session.max_iterations
        self._line(header(session, self.config))
        self.display.start()
        return results

    @hookimpl(tryfirst=True)
    def ralph_iteration_start(self, iteration: Iteration) -> None:
        self.display.iteration = iteration.number

    @hookimpl
    def ralph_report_agent(self, iteration: Iteration) -> None:
        from ralph_verify.loop.records import agent_line

        self._line(agent_line(iteration))

    @hookimpl
    def ralph_report_verification(self, session: Session | None, iteration: Iteration | None,
                                  verification: Verification) -> None:
        from ralph_verify.loop.records import passed_text, verification_line

        if session is None:
            if not self._quiet():
                check_report(self.config, verification, self.display.stream)
            return
        self.display.checks = passed_text(verification)
        label = f"iteration {iteration.number}" if iteration is not None else "baseline"
        self._line(verification_line(label, verification))

    @hookimpl(wrapper=True)
    def ralph_session_finish(self, session: Session,
                             verdict: VerdictProposal) -> Generator[None, list[None], list[None]]:
        """The summary, after every line the other plugins add (``report: ...``)."""
        from ralph_verify.loop.records import summary_lines

        results = yield
        elapsed = session.elapsed_before_s + time.monotonic() - self.started
        for line in summary_lines(session, verdict, session.dir, elapsed):
            self._line(line)
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
