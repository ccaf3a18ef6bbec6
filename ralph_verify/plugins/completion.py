"""``complete`` when every check passes, ``blocked`` when the agent says it cannot go on;
``<promise>COMPLETE</promise>`` alone is a claim the checks must confirm."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.checks.verification import Verification
from ralph_verify.loop.promises import COMPLETE, blocked_reason
from ralph_verify.loop.verdict import Verdict, VerdictProposal
from ralph_verify.markers import hookimpl

if TYPE_CHECKING:
    from ralph_verify.loop.session import Iteration, Session


@hookimpl
def ralph_iteration_verdict(iteration: Iteration,
                            verification: Verification) -> VerdictProposal | None:
    if verification.passed:
        total = len(verification.results)
        promised = f" and the agent promised {', '.join(iteration.promises)}" \
            if iteration.promises else ""
        return VerdictProposal(Verdict.COMPLETE, f"every check passes ({total} of {total})"
                                                 f"{promised}")
    reason = blocked_reason(iteration.promises)
    if reason is not None:
        return VerdictProposal(Verdict.BLOCKED, f"the agent is blocked: {reason}")
    return None


@hookimpl
def ralph_prompt_notes(session: Session, iteration: Iteration) -> str | None:
    previous = next((it for it in reversed(session.iterations)
                     if it.number < iteration.number), None)
    if previous is None or COMPLETE not in previous.promises or previous.verification is None:
        return None
    failing = [r.spec for r in previous.verification.results if not r.passed]
    if not failing:
        return None
    return (f"Your last turn claimed COMPLETE, but these checks still do not pass: "
            f"{', '.join(failing)}. The loop ends only when the checks pass; the feedback "
            "above says why they fail.")
