"""Rate limits and outages, decided in one place: wait, retry within the same iteration (a
turned-away run is never an iteration), or give up (``docs/overnight.md``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from ralph_verify.agents.limits import RATE_LIMIT
from ralph_verify.display import duration

if TYPE_CHECKING:
    from ralph_verify.agents import Agent, AgentRequest, AgentResult

#: The longest one backoff step grows to.
MAX_BACKOFF_S = 600.0
#: The least a rate limit waits, whatever reset it names (one in the past: no busy loop).
MIN_WAIT_S = 1.0
_TICK_S = 0.2


class Reporter(Protocol):
    """Where a wait is told: the agents plugin passes the reporting hooks."""

    def line(self, text: str) -> None: ...

    def phase(self, text: str) -> None: ...


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before an agent's failed turn is tried again."""

    max_retries: int = 5
    delay_s: float = 10.0
    #: Seconds the session has left (``--max-time``), or ``None``: unbounded.
    time_left: Callable[[], float | None] = lambda: None


def backoff(policy: RetryPolicy, attempt: int) -> float:
    """The wait before retry ``attempt`` (1-based): the delay, doubled each time, capped."""
    return float(min(policy.delay_s * 2 ** (attempt - 1), MAX_BACKOFF_S))


def run_with_retries(agent: Agent, request: AgentRequest, policy: RetryPolicy,
                     display: Reporter | None = None) -> AgentResult:
    """``agent.run(request)`` until the service takes it, a limit is reached, or a cancel."""
    retries = outages = limits = 0
    waited = 0.0
    while True:
        result = agent.run(request)
        unavailable = result.unavailable
        if unavailable is None or result.cancelled or request.cancel.is_set():
            return replace(result, retries=retries, waited_s=waited)
        if unavailable.kind == RATE_LIMIT:
            limits += 1
            what = "rate limited"
            wait = (backoff(policy, limits) if unavailable.retry_after_s is None
                    else max(unavailable.retry_after_s, MIN_WAIT_S))
        else:
            outages += 1
            what = "service unavailable"
            if outages > policy.max_retries:
                return replace(result, retries=retries, waited_s=waited, error=(
                    f"the model service is unavailable: {unavailable.message} (still failing "
                    f"after {policy.max_retries} retries; --max-agent-retries)"))
            wait = unavailable.retry_after_s or backoff(policy, outages)
        left = policy.time_left()
        if left is not None and wait > left:
            if display is not None:
                display.line(f"iteration {request.iteration}: {what} ({unavailable.message}); "
                             f"the reset in {duration(wait)} is after --max-time "
                             f"({duration(max(left, 0))} left): not waiting")
            return replace(result, retries=retries, waited_s=waited)
        if display is not None:
            display.line(f"iteration {request.iteration}: {what} ({unavailable.message}); "
                         f"waiting {duration(wait)}, then running the agent again "
                         "(not counted as an iteration)")
        started = time.monotonic()
        if not _wait(wait, request, what, display):
            return replace(result, retries=retries, waited_s=waited, cancelled=True)
        waited += time.monotonic() - started
        retries += 1
        _keep_log(request, retries)


def _wait(seconds: float, request: AgentRequest, what: str, display: Reporter | None) -> bool:
    """Sleep ``seconds`` with a countdown; ``False`` when cancelled."""
    until = time.monotonic() + seconds
    while (left := until - time.monotonic()) > 0:
        if display is not None:
            display.phase(f"{what}: agent runs again in {duration(left)}")
        if request.cancel.wait(min(_TICK_S, left)):
            return False
    return True


def _keep_log(request: AgentRequest, attempt: int) -> None:
    """The turned-away run's log moves aside: ``agent.log`` is the next run's alone."""
    if request.log_path.exists():
        request.log_path.replace(request.log_path.with_name(f"agent.attempt-{attempt}.log"))
