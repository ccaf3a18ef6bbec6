"""``budget``: wall time, cost and call-rate limits, each with a default.

``--max-calls-per-hour`` never fails the session: it waits."""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING

from ralph_verify.config import Config
from ralph_verify.config.parser import (
    Parser,
    non_negative_float,
    non_negative_int,
    parse_duration,
)
from ralph_verify.display import duration
from ralph_verify.errors import UsageError
from ralph_verify.loop.verdict import Verdict, VerdictProposal
from ralph_verify.markers import hookimpl
from ralph_verify.records.plugin_state import BudgetState

if TYPE_CHECKING:
    from ralph_verify.loop.session import Iteration, Session

NAME = "budget"
DEFAULT_MAX_TIME = "4h"
DEFAULT_MAX_COST = 20.0
DEFAULT_CALLS_PER_HOUR = 100
_HOUR = 3600.0


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    # Also on 'start': the Stop hook's loop keeps the same wall-time limit.
    parser.addoption("--max-time", scope=("loop", "start"), setting="max-time", setting_type=str,
                     type=_duration_arg, default=DEFAULT_MAX_TIME, metavar="DURATION",
                     help=f"stop with verdict budget after this wall time, e.g. 90m, 2h "
                          f"(default {DEFAULT_MAX_TIME}; 0: no limit; checked after each "
                          "iteration)")
    parser.addoption("--max-cost", scope="loop", setting="max-cost", type=non_negative_float,
                     default=DEFAULT_MAX_COST, metavar="USD",
                     help="stop with verdict budget once the agent's reported cost reaches "
                          f"this (default {DEFAULT_MAX_COST:g} USD; 0: no limit; agents that "
                          "report cost)")
    parser.addoption("--max-calls-per-hour", scope="loop", setting="max-calls-per-hour",
                     type=non_negative_int, default=DEFAULT_CALLS_PER_HOUR, metavar="N",
                     help="at most N agent runs in any hour: the loop waits, with a countdown, "
                          f"rather than fail (default {DEFAULT_CALLS_PER_HOUR}; 0: no limit)")


def _duration_arg(text: str) -> str:
    """argparse type: a duration ``parse_duration`` reads, kept as written."""
    import argparse

    try:
        parse_duration(text)
    except UsageError:
        raise argparse.ArgumentTypeError(
            f"expected a duration such as 90m, 2h, 1h30m or seconds, got {text!r}") from None
    return text


@hookimpl
def ralph_configure(config: Config) -> None:
    """A bad ``max-time`` in the config file fails before anything runs (no baseline, no
    branch, no .ralph/)."""
    if {"loop", "start"} & set(config.command.scopes):
        parse_duration(config.get("max_time"))


def _state(session: Session) -> BudgetState:
    state = session.plugin_state[NAME] = BudgetState.of(session.plugin_state)
    return state


@hookimpl
def ralph_session_start(session: Session) -> None:
    parse_duration(session.config.get("max_time"))  # a bad value fails before any spending
    state = _state(session)
    started = time.time()
    if not session.resumed and session.started_at:
        from datetime import datetime  # a loop's start only: not at every start-up

        with contextlib.suppress(ValueError):
            started = datetime.fromisoformat(session.started_at).timestamp()
    state.elapsed_before_s = state.elapsed_s if session.resumed else 0.0
    state.run_started = started


@hookimpl
def ralph_iteration_start(session: Session, iteration: Iteration) -> None:
    """Wait (visibly, cancellably) while the last hour already holds the allowed calls."""
    state = _state(session)
    limit = int(session.config.get("max_calls_per_hour"))
    calls = sorted(t for t in state.calls if time.time() - t < _HOUR)
    # In hook mode the agent's turn has already happened when its Stop hook runs: waiting
    # would only hold the hook past its time limit. The call is still counted.
    if limit > 0 and len(calls) >= limit and session.mode == "run":
        until = calls[len(calls) - limit] + _HOUR
        hook = session.config.hook
        hook.ralph_report_line(config=session.config, line=(
            f"rate limit: {limit} agent calls in the last hour (--max-calls-per-hour); "
            f"waiting {duration(until - time.time())} before the next one"))
        while time.time() < until and not session.cancel_requested:
            hook.ralph_report_phase(
                session=session, phase=f"rate limit: next agent call in "
                                       f"{duration(until - time.time())}")
            time.sleep(0.2)
        if session.cancel_requested:
            return
    calls.append(time.time())
    state.calls = calls[-max(limit, 1):]
    max_cost = float(session.config.get("max_cost"))
    if max_cost > 0:
        iteration.budget_usd = round(max(max_cost - state.cost_usd, 0.0), 4)


@hookimpl
def ralph_iteration_verdict(session: Session, iteration: Iteration) -> VerdictProposal | None:
    state = _state(session)
    now = time.time()
    state.elapsed_s = state.elapsed_before_s + now - (state.run_started or now)
    if iteration.agent is not None and iteration.agent.cost_usd is not None:
        state.cost_usd += iteration.agent.cost_usd
    max_time = parse_duration(session.config.get("max_time"))
    agent = iteration.agent
    if agent is not None and agent.unavailable is not None and not agent.error:
        # The agent runner did not wait: the service's reset comes after --max-time.
        return VerdictProposal(Verdict.BUDGET, f"the model service turned the agent away "
                                               f"({agent.unavailable.message}) and it resets "
                                               f"after --max-time ({duration(max_time)})")
    if max_time > 0 and state.elapsed_s >= max_time:
        return VerdictProposal(Verdict.BUDGET, f"ran {duration(state.elapsed_s)}, the limit "
                                               f"is {duration(max_time)} (--max-time)")
    max_cost = float(session.config.get("max_cost"))
    if max_cost > 0 and state.cost_usd >= max_cost:
        return VerdictProposal(Verdict.BUDGET, f"the agent reported ${state.cost_usd:.2f}, "
                                               f"the limit is ${max_cost:.2f} (--max-cost)")
    return None
