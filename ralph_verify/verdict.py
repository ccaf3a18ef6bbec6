"""Verdicts of a session, the proposals policies make, and the precedence that decides.

Every policy (completion, promise, stall breaker, budgets, iteration limit,
agent errors, cancellation) answers ``ralph_iteration_verdict`` with a
:class:`VerdictProposal` or ``None``. The core, not plugin order, picks the
winner by :data:`PRECEDENCE`: a user's cancel beats everything; verified
completion beats every reason to give up (work that passes is done); the
agent's own failures come next; budget and breaker limits after; the iteration
limit last.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from ralph_verify.exitcode import ExitCode


class Verdict(str, enum.Enum):
    """How a session ended; each has its own exit code (:data:`EXIT_CODES`)."""

    COMPLETE = "complete"
    CANCELLED = "cancelled"
    AGENT_ERROR = "agent-error"
    BLOCKED = "blocked"
    BUDGET = "budget"
    STALLED = "stalled"
    MAX_ITERATIONS = "max-iterations"
    #: The checks pass at the baseline only because their failures were there already
    #: (``tests:new``): the agent would have nothing to do, and the run says so.
    NOTHING_TO_DO = "nothing-to-do"


#: Highest first.
PRECEDENCE: tuple[Verdict, ...] = (
    Verdict.CANCELLED,
    Verdict.COMPLETE,
    Verdict.NOTHING_TO_DO,
    Verdict.AGENT_ERROR,
    Verdict.BLOCKED,
    Verdict.BUDGET,
    Verdict.STALLED,
    Verdict.MAX_ITERATIONS,
)

#: Each verdict's exit code (:class:`~ralph_verify.exitcode.ExitCode`).
EXIT_CODES: dict[Verdict, ExitCode] = {
    Verdict.COMPLETE: ExitCode.OK,
    Verdict.MAX_ITERATIONS: ExitCode.MAX_ITERATIONS,
    Verdict.STALLED: ExitCode.STALLED,
    Verdict.BLOCKED: ExitCode.BLOCKED,
    Verdict.BUDGET: ExitCode.BUDGET,
    Verdict.AGENT_ERROR: ExitCode.AGENT_ERROR,
    Verdict.NOTHING_TO_DO: ExitCode.NOTHING_TO_DO,
    Verdict.CANCELLED: ExitCode.CANCELLED,
}


@dataclass(frozen=True)
class VerdictProposal:
    """A policy's vote to end the session, with the reason shown to the user."""

    verdict: Verdict
    reason: str
    #: The plugin that proposed it (filled in by the core).
    source: str = ""


def decide(proposals: Iterable[VerdictProposal | None]) -> VerdictProposal | None:
    """The winning proposal by :data:`PRECEDENCE`, or ``None`` to go on."""
    ranked = [p for p in proposals if p is not None]
    if not ranked:
        return None
    return min(ranked, key=lambda p: PRECEDENCE.index(p.verdict))
