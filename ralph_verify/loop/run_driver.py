"""The ``run`` driver: ralph-verify starts the agent itself, iteration after iteration. It holds
the lock, watches signals and ``cancel``, opens the session, calls ``ralph_runloop`` and
finishes it; it is the :class:`~ralph_verify.loop.cycle.Driver` of each iteration."""

from __future__ import annotations

import errno
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from ralph_verify.checks.registry import build_checks
from ralph_verify.config.stash import REPORT_STREAM_KEY
from ralph_verify.errors import UsageError
from ralph_verify.exitcode import ExitCode
from ralph_verify.loop import cancel_key, records
from ralph_verify.loop.cycle import Driver, make_agent, session_specs
from ralph_verify.loop.cycle import start as start_driving
from ralph_verify.loop.keys import PROMPT_VALUES_KEY
from ralph_verify.loop.opening import holding, new_session, new_session_id, open_session
from ralph_verify.loop.prompt import load_template, progress_text, render, render_notes
from ralph_verify.loop.records import state_record
from ralph_verify.loop.result import LoopResult
from ralph_verify.loop.session import Iteration, Session
from ralph_verify.loop.settings import resumed, settings_for
from ralph_verify.loop.state import StateDir
from ralph_verify.loop.verdict import EXIT_CODES, Verdict, VerdictProposal
from ralph_verify.proc import signals
from ralph_verify.project import snapshot
from ralph_verify.project.git import is_repo

if TYPE_CHECKING:
    from ralph_verify.agents import Agent
    from ralph_verify.checks.api import Check
    from ralph_verify.checks.verification import Verification
    from ralph_verify.config import Config
    from ralph_verify.loop.settings import SessionSettings
    from ralph_verify.records.session import SessionState


class _Cancelled(Exception):
    """The user asked to stop (cancel file seen, agent run cancelled)."""


class RunDriver(Driver):
    """The state of one run while it goes; :meth:`run` is the protocol, the iterations are
    :mod:`ralph_verify.loop.cycle`'s (this class answers as their driver)."""

    def __init__(self, config: Config, agent: Agent | None, stream: TextIO | None,
                 settings: SessionSettings | None = None) -> None:
        super().__init__(StateDir(config.root), agent)
        #: The command's configuration until the session opens, then the session's.
        self.config = config
        #: What the caller fixed for the session (a task's); ``None``: the command line's.
        self.settings = settings
        self.root = config.root
        if stream is not None:
            config.stash[REPORT_STREAM_KEY] = stream
        self.cancel_reason = "cancelled"
        self.started = time.monotonic()
        #: Wall time of the earlier runs of a resumed session (``elapsed_s`` adds up).
        self.elapsed_before = 0.0
        self._recorded: set[int] = set()
        self._snap: Any = None
        self._checks: Sequence[Check] = ()
        self._template = ""
        self._finishing = False
        self._signalled = False
        self.use_git = is_repo(config.root)

    # --- the protocol ------------------------------------------------------------------------

    def run(self) -> LoopResult:
        resume = (self.settings.resume if self.settings is not None
                  else bool(self.config.get("resume")))
        previous = records.resumable(self.state, "run") if resume else None
        session_id = previous.session if previous else new_session_id()
        if previous:
            self.elapsed_before = previous.elapsed_s
        with holding(self.state, session_id, self._line):
            try:
                with signals.cancel_on_signals(self._on_signal), \
                        cancel_key.listening(self.root, self._on_cancel_request, self._refused), \
                        signals.watch_file(self.state.cancel_path, self._on_cancel_file):
                    try:
                        return self._run(session_id, previous)
                    except (KeyboardInterrupt, _Cancelled):
                        return self._finish(VerdictProposal(Verdict.CANCELLED,
                                                            self.cancel_reason, source="core"))
            except OSError as exc:
                if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                    raise
                raise UsageError(self.state.stop_on_full_disk(exc)) from None

    def _run(self, session_id: str, previous: SessionState | None) -> LoopResult:
        if previous is not None:
            settings = resumed(self.config, previous, self.settings)
            session, start = records.restore_session(self.config, self.state, previous,
                                                     settings)
        else:
            settings = self.settings or settings_for(self.config)
            session, start = new_session(self.config, self.state, settings, session_id,
                                         "run"), 1
        session.elapsed_before_s = self.elapsed_before
        config = self.config = session.config
        start_driving(session, self)
        if self.agent is None:
            self.agent = make_agent(config)
        preflight = getattr(self.agent, "preflight", None)
        problem = preflight() if callable(preflight) else None
        if problem:
            # Say it before the baseline: a missing agent costs nothing, and a run that never
            # started writes nothing: the last session's records stay as they were.
            reason = f"{problem} (found before the baseline; nothing was run)"
            print(f"ERROR: {reason}; .ralph/ was left as it was", file=sys.stderr)
            return LoopResult(Verdict.AGENT_ERROR, reason, EXIT_CODES[Verdict.AGENT_ERROR],
                              session, None, time.monotonic() - self.started)
        checks = build_checks(config, session_specs(config, settings.until))
        template = load_template(config.get("template"), config.invocation_dir)
        opening = open_session(session, self.state, checks, fresh=previous is None)
        if opening.errored:
            assert session.baseline is not None
            return self._baseline_error(session, session.baseline)
        if opening.verdict is not None:
            return self._finish(opening.verdict)
        self._save(phase="running")
        self._checks, self._template = checks, template
        verdict = config.hook.ralph_runloop(session=session, first=start)
        if verdict is None:
            raise UsageError("no plugin ran the loop: every ralph_runloop implementation "
                             "returned None (was the built-in 'loop' plugin disabled?)")
        return self._finish(verdict)

    # --- the driver of cycle.run_iteration ---------------------------------------------------

    def prompt(self, session: Session, iteration: Iteration) -> str:
        notes = [n for n in self.config.hook.ralph_prompt_notes(session=session,
                                                                  iteration=iteration) if n]
        previous = session.previous_verification()
        extra: dict[str, str] = self.config.stash.get(PROMPT_VALUES_KEY) or {}
        text = render(self._template, {
            **extra,
            "task": session.task.strip(),
            "feedback": previous.feedback if previous is not None else "",
            "iteration": str(iteration.number),
            "max_iterations": str(session.max_iterations),
            "progress": progress_text(session.iterations, iteration.number),
            "notes": render_notes(notes),
        })
        assert iteration.prompt_path is not None
        self.state.write_text(iteration.prompt_path, text)
        return text

    def checks(self) -> Sequence[Check]:
        return self._checks

    def snapshot(self, previous: Any) -> Any:
        self._snap = snapshot.take(self.root, self._snap if previous is None else previous,
                                   use_git=self.use_git)
        return self._snap

    def check_cancel(self) -> None:
        if self.cancel.is_set() or (self.session is not None and self.session.cancel_requested):
            raise _Cancelled

    def phase(self, text: str, iteration: Iteration) -> None:
        self._save(phase=text)

    def after_agent(self, iteration: Iteration) -> str | None:
        damage = self.state.repair()  # the agent may have deleted or replaced .ralph/
        if damage:
            self._line(f"ERROR: {damage}; the session ends with what it knows")
        return damage

    # --- helpers -----------------------------------------------------------------------------

    def _elapsed(self) -> float:
        return self.elapsed_before + time.monotonic() - self.started

    def record(self, iteration: Iteration) -> None:
        if iteration.number in self._recorded:  # a cancel right after recording it
            self._save(phase="between iterations")
            return
        self._recorded.add(iteration.number)
        super().record(iteration)
        self._save(phase="between iterations")

    def _save(self, *, phase: str, verdict: VerdictProposal | None = None,
              error: str | None = None) -> None:
        if self.session is not None:
            self.state.write_state(state_record(self.session, self.session.config, phase=phase,
                                                verdict=verdict, error=error,
                                                elapsed_s=self._elapsed()))

    def _finish(self, verdict: VerdictProposal) -> LoopResult:
        self._finishing = True
        session = self.session
        if session is None:  # cancelled before the session existed
            raise KeyboardInterrupt
        self.config.hook.ralph_report_phase(session=session,
                                            phase=f"finished: {verdict.verdict.value}")
        last = session.last
        if last is not None and last.verdict is None:
            last.verdict = verdict
            if verdict.verdict is Verdict.CANCELLED:
                self.record(last)
        self._save(phase="finished", verdict=verdict)
        self.config.hook.ralph_session_finish(session=session, verdict=verdict)
        return LoopResult(verdict.verdict, verdict.reason, EXIT_CODES[verdict.verdict], session,
                          session.previous_verification(), self._elapsed())

    def _baseline_error(self, session: Session, baseline: Verification) -> LoopResult:
        lines = ["ERROR: the baseline verification could not decide, so the agent was not "
                 "started (nothing spent); fix these first:"]
        for result in baseline.errored:
            lines.append(f"  {result.spec}: {result.summary}")
            if result.output:
                lines += [f"    {line}" for line in result.output.splitlines()[-10:]]
        print("\n".join(lines), file=sys.stderr)
        self._save(phase="finished", error="a check could not decide at baseline")
        return LoopResult(None, "a check could not decide at baseline", ExitCode.CHECK_ERROR,
                          session, baseline, self._elapsed())

    def _on_signal(self, name: str) -> bool:
        """Ctrl-C / SIGTERM / SIGHUP: cancel; returns whether to interrupt the main thread.

        Only the first signal interrupts: more (five quick Ctrl-C's) must not break the
        cleanup that kills the agent and writes the state."""
        first, self._signalled = not self._signalled, True
        if first:
            self.cancel_reason = f"cancelled by {name}"
        self._request_cancel()
        return first and not self._finishing

    def _on_cancel_file(self) -> bool:
        """Cancel when ``ralph-verify cancel`` wrote the file; False (go on watching) when
        someone else did: that file is removed and reported."""
        if not cancel_key.genuine(self.root, self.state.cancel_path):
            self.state.cancel_path.unlink(missing_ok=True)
            self._line(f"ralph-verify: {cancel_key.FORGED}")
            return False
        self.cancel_reason = "cancelled by 'ralph-verify cancel'"
        self._request_cancel()
        return True

    def _on_cancel_request(self, pid: int) -> None:
        self.cancel_reason = f"cancelled by 'ralph-verify cancel' (pid {pid})"
        self._request_cancel()

    def _refused(self, why: str) -> None:
        self._line(f"ralph-verify: {why}")

    def _request_cancel(self) -> None:
        if self.session is not None:
            self.session.cancel_requested = True
        self.cancel.set()
        if self.session is not None:
            self.config.hook.ralph_report_phase(session=self.session, phase="cancelling")

    def _line(self, text: str) -> None:
        self.config.hook.ralph_report_line(config=self.config, line=text)

