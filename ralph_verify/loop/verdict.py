"""Verdicts of a session, the proposals policies make, and the precedence that decides.

The core, not plugin order, picks among the policies' :class:`VerdictProposal` by
:data:`PRECEDENCE`: a user's cancel first, verified completion before any reason to give up,
then the agent's failures, budgets and breaker, the iteration limit last."""

from __future__ import annotations

import enum
import inspect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import CodeType, FrameType

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
    #: The plugin that proposed it: given, or filled in by the core from :attr:`made_in`.
    source: str = ""
    #: The code running where it was made, innermost first, so that the core can credit it
    #: to the hook implementation that made it (pluggy does not say which one answered).
    made_in: tuple[CodeType, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.source and not self.made_in:
            codes: list[CodeType] = []
            frame: FrameType | None = inspect.currentframe()  # None: Python keeps no frames
            frame = frame.f_back if frame is not None else None  # the caller's (no cycle)
            while frame is not None:
                codes.append(frame.f_code)
                frame = frame.f_back
            object.__setattr__(self, "made_in", tuple(codes))


def credited(proposals: Iterable[object],
             implementers: Mapping[CodeType, str]) -> list[VerdictProposal]:
    """The proposals a ``ralph_iteration_verdict`` call returned, each with its ``source``:
    the plugin it names, else the plugin whose implementation (``implementers``: code ->
    plugin name) was running when it was made."""
    found: list[VerdictProposal] = []
    for proposal in proposals:
        if not isinstance(proposal, VerdictProposal):
            continue
        if not proposal.source:
            source = next((implementers[code] for code in proposal.made_in
                           if code in implementers), "")
            proposal = replace(proposal, source=source)
        found.append(proposal)
    return found


def decide(proposals: Iterable[VerdictProposal | None]) -> VerdictProposal | None:
    """The winning proposal by :data:`PRECEDENCE`, or ``None`` to go on."""
    ranked = [p for p in proposals if p is not None]
    if not ranked:
        return None
    return min(ranked, key=lambda p: PRECEDENCE.index(p.verdict))
