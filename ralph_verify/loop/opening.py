"""Opening a loop session, the same steps for both drivers (``run`` and ``start``): the lock,
the session made from its settings, plugins' ``ralph_session_prepare``, the last session's
files cleared, the baseline, then the end there or ``ralph_session_start``."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from ralph_verify.config.stash import PROMISES_KEY
from ralph_verify.loop import cancel_key
from ralph_verify.loop.cycle import verify_in_session
from ralph_verify.loop.keys import SESSION_KEY
from ralph_verify.loop.new_failures import nothing_to_do
from ralph_verify.loop.session import Session
from ralph_verify.loop.verdict import Verdict, VerdictProposal
from ralph_verify.state_files import now_iso
from ralph_verify.tasks.keys import CURRENT_TASK_KEY

if TYPE_CHECKING:
    from ralph_verify.checks.api import Check
    from ralph_verify.config import Config
    from ralph_verify.loop.settings import SessionSettings
    from ralph_verify.loop.state import StateDir


@contextlib.contextmanager
def holding(state: StateDir, session_id: str, say: Callable[[str], None]) -> Iterator[None]:
    """The project's lock while a session runs (``run``) or opens (``start``), with a new
    cancel key: the last session's no longer counts. ``say`` hears the lock's note."""
    note = state.acquire_lock(session_id)
    try:
        cancel_key.issue(state.root)
        if note:
            say(f"ralph-verify: {note}")
        yield
    finally:
        state.cancel_path.unlink(missing_ok=True)
        state.release_lock()


def new_session_id() -> str:
    """A session's id: when it started, and four hex digits."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + os.urandom(2).hex()


def new_session(config: Config, state: StateDir, settings: SessionSettings, session_id: str,
                mode: str) -> Session:
    """A new session of ``settings``; its ``config`` answers their options."""
    return Session(id=session_id, root=config.root, dir=state.path,
                   config=settings.config_for(config), settings=settings,
                   started_at=now_iso(), mode=mode)


@dataclass(frozen=True)
class Opening:
    """How :func:`open_session` went: the loop goes on (``go``), or it ended at the
    baseline: ``errored`` (a check could not decide) or with ``verdict``."""

    errored: bool = False
    verdict: VerdictProposal | None = None

    @property
    def go(self) -> bool:
        return not self.errored and self.verdict is None


def open_session(session: Session, state: StateDir, checks: Sequence[Check], *,
                 fresh: bool, tool_output: TextIO | None = None) -> Opening:
    """Prepare ``session``, verify its baseline (unless a resumed session has one) and start
    it, or say why it ends there. ``fresh``: a new session, so the last one's files go, but
    only once no plugin refused to prepare it. ``tool_output``: where the baseline's tools
    may print (hook mode: stderr, stdout carries the agent's message)."""
    config = session.config
    config.stash[SESSION_KEY] = session
    config.hook.ralph_session_prepare(session=session)
    if fresh:
        state.clear_session_files()
    if session.baseline is None:
        config.hook.ralph_report_phase(session=session, phase="verifying the baseline")
        config.stash[PROMISES_KEY] = []
        with contextlib.redirect_stdout(tool_output or sys.stdout):
            session.baseline = verify_in_session(config, checks, None)
        state.write_verification(0, session.baseline)
        config.hook.ralph_report_verification(config=config, session=session, iteration=None,
                                              verification=session.baseline)
        if session.baseline.errored:
            return Opening(errored=True)
        # A task of a list: its gate is the list's, not an --until to rewrite.
        idle = nothing_to_do(session.baseline,
                             advise=CURRENT_TASK_KEY not in session.config.stash)
        if idle is not None:
            return Opening(verdict=idle)
        if session.baseline.passed:
            return Opening(verdict=VerdictProposal(
                Verdict.COMPLETE, "every check passes already; the agent was not called",
                source="core"))
    config.hook.ralph_session_start(session=session)
    return Opening()
