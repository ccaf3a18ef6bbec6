"""The loop's built-in ``ralph_runloop`` and ``ralph_run_iteration``, for both drivers; a
plugin can replace either, as pytest's ``pytest_runtestloop``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.markers import hookimpl

if TYPE_CHECKING:
    from ralph_verify.loop.session import Iteration, Session
    from ralph_verify.loop.verdict import VerdictProposal


@hookimpl(trylast=True)
def ralph_runloop(session: Session, first: int) -> VerdictProposal | None:
    """The iterations of a session, the same for ``run`` and the Stop hook (cycle.py)."""
    from ralph_verify.loop.cycle import runloop

    return runloop(session, first)


@hookimpl(trylast=True)
def ralph_run_iteration(session: Session, iteration: Iteration) -> bool:
    from ralph_verify.loop.cycle import run_iteration

    run_iteration(session, iteration)
    return True
