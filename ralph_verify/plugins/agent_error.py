"""``agent-error``: the agent cannot run (program not found), or it failed (non-zero
exit, timeout, idle timeout) ``--max-agent-failures`` times in a row (default 3), or its own
sandbox or permission mode refused its writes two turns in a row.

A refused write is said once to the user, with the flag that allows it, and to the model in
the next prompt. Rate limits and outages are retried (:mod:`ralph_verify.agents.retry`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.config.parser import Parser, positive_int
from ralph_verify.loop.verdict import Verdict, VerdictProposal
from ralph_verify.markers import hookimpl
from ralph_verify.records.plugin_state import AgentErrorState

if TYPE_CHECKING:
    from ralph_verify.loop.session import Iteration, Session

NAME = "agent_error"
DEFAULT_MAX_FAILURES = 3
#: Turns in a row whose writes the agent's own sandbox or permission mode refused.
REFUSED_TURNS = 2


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--max-agent-failures", scope="loop", setting="max-agent-failures",
                     type=positive_int, default=DEFAULT_MAX_FAILURES, metavar="N",
                     help="stop with agent-error after the agent failed (non-zero exit, "
                          "timeout or --agent-idle-timeout) N times in a row (default "
                          f"{DEFAULT_MAX_FAILURES}); rate limits and outages are not failures")


@hookimpl
def ralph_iteration_verdict(session: Session, iteration: Iteration) -> VerdictProposal | None:
    from ralph_verify.loop.records import idle_text

    result = iteration.agent
    if result is None:
        return None
    if result.error:
        return VerdictProposal(Verdict.AGENT_ERROR, result.error)
    state = session.plugin_state[NAME] = AgentErrorState.of(session.plugin_state)
    state.refused_in_a_row = state.refused_in_a_row + 1 if result.refused else 0
    if result.refused:
        if not state.refusal:  # said once a session
            session.config.hook.ralph_report_line(config=session.config,
                                                  line=f"WARNING: {result.refused}")
        state.refusal = result.refused
    if state.refused_in_a_row >= REFUSED_TURNS:
        return VerdictProposal(Verdict.AGENT_ERROR, f"{state.refusal} ({state.refused_in_a_row} "
                                                    "turns in a row)")
    if result.unavailable is not None:
        return None  # the service turned it away (past --max-time): not the agent's failure
    failed = result.timed_out or result.idle_s is not None or (
        result.exit_code not in (0, None))
    state.failures_in_a_row = state.failures_in_a_row + 1 if failed else 0
    limit = int(session.config.get("max_agent_failures"))
    if state.failures_in_a_row >= limit:
        what = ("timed out" if result.timed_out else
                f"{idle_text(result.idle_s)}, killed" if result.idle_s is not None
                else f"exited {result.exit_code}")
        return VerdictProposal(Verdict.AGENT_ERROR,
                               f"the agent failed {state.failures_in_a_row} times in a row "
                               f"(last: {what}; see the iteration's agent.log)")
    return None


@hookimpl
def ralph_prompt_notes(session: Session, iteration: Iteration) -> str | None:
    state = AgentErrorState.of(session.plugin_state)
    if not state.refused_in_a_row:
        return None
    return (f"Your last turn's writes were refused by your own sandbox or permission mode "
            f"({state.refusal.split(': ', 1)[-1]}). The user has been told how to allow them; "
            "if your next turn's writes are refused too, the loop ends.")
