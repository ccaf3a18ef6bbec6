"""``max-iterations``: stop after ``--max-iterations`` iterations (default 20)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.loop.verdict import Verdict, VerdictProposal
from ralph_verify.markers import hookimpl

if TYPE_CHECKING:
    from ralph_verify.loop.session import Iteration, Session


@hookimpl
def ralph_iteration_verdict(session: Session, iteration: Iteration) -> VerdictProposal | None:
    if iteration.number >= session.max_iterations:
        limit = session.max_iterations
        return VerdictProposal(Verdict.MAX_ITERATIONS,
                               f"reached the limit of {limit} iteration{'s' if limit != 1 else ''}"
                               " (--max-iterations)")
    return None
