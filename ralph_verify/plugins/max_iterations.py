"""``max-iterations``: a session ends after ``--max-iterations`` iterations (default 20).

The one place the limit is decided: ``-p no:max_iterations`` means no iteration limit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.loop.verdict import Verdict, VerdictProposal
from ralph_verify.markers import hookimpl

if TYPE_CHECKING:
    from ralph_verify.loop.session import Iteration, Session


def _reached(limit: int, hint: str = "") -> VerdictProposal:
    return VerdictProposal(Verdict.MAX_ITERATIONS, f"reached the limit of {limit} "
                           f"iteration{'s' if limit != 1 else ''} (--max-iterations){hint}")


@hookimpl
def ralph_iteration_verdict(session: Session, iteration: Iteration) -> VerdictProposal | None:
    if iteration.number >= session.max_iterations:
        return _reached(session.max_iterations)
    return None


@hookimpl(tryfirst=True)
def ralph_runloop(session: Session, first: int) -> VerdictProposal | None:
    """A session whose limit is behind it runs no iteration: ``run --resume`` of one that
    used them all, or hook mode's next stop after a last iteration that ran out of the
    hook's time (no policy was asked then)."""
    if first > session.max_iterations:
        return _reached(session.max_iterations, "; raise it to go on" if session.mode == "run"
                        else "")
    return None
