"""``cancelled``: the user asked to stop (Ctrl-C, SIGTERM, ``ralph-verify cancel``).

A cancel during the agent's turn stops the loop at once (the core kills the
agent's process group); one that arrives while the checks run is answered
here, as soon as the verification is done.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.loop.verdict import Verdict, VerdictProposal
from ralph_verify.markers import hookimpl

if TYPE_CHECKING:
    from ralph_verify.loop.session import Session


@hookimpl
def ralph_iteration_verdict(session: Session) -> VerdictProposal | None:
    if session.cancel_requested:
        return VerdictProposal(Verdict.CANCELLED, "cancelled while the checks ran")
    return None
