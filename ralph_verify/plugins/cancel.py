"""``cancelled``: a stop asked (Ctrl-C, SIGTERM, ``ralph-verify cancel``) while the checks
ran, answered once they are done (during the agent's turn the core stops at once)."""

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
