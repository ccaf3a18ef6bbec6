"""The built-in agents: ``cmd:COMMAND`` (any command) and ``replay:DIR`` (scripted), and
running whichever agent was chosen (``ralph_run_agent``): with the idle timeout, and with
the waits and retries of rate limits and outages (:mod:`ralph_verify.agents.retry`)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ralph_verify.config.parser import Parser, non_negative_int, parse_duration
from ralph_verify.errors import UsageError
from ralph_verify.markers import hookimpl
from ralph_verify.records.plugin_state import BudgetState

if TYPE_CHECKING:
    from ralph_verify.agents import Agent, AgentRegistry, AgentRequest, AgentResult
    from ralph_verify.loop.session import Session

DEFAULT_IDLE_TIMEOUT = "20m"
DEFAULT_MAX_RETRIES = 5
DEFAULT_RETRY_DELAY = "10s"


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--agent-idle-timeout", scope="loop", setting="agent-idle-timeout",
                     default=DEFAULT_IDLE_TIMEOUT, metavar="DURATION",
                     help="kill the agent's process group when it has printed nothing and "
                          "changed no file in the project for this long, e.g. 20m, 90s; "
                          "counts as an agent failure (default "
                          f"{DEFAULT_IDLE_TIMEOUT}; 0 turns it off)")
    parser.addoption("--max-agent-retries", scope="loop", setting="max-agent-retries",
                     type=non_negative_int, default=DEFAULT_MAX_RETRIES, metavar="N",
                     help="retry an agent run the model service turned away with an outage "
                          "(connection refused, 5xx, overloaded) N times, with backoff, then "
                          f"stop with agent-error (default {DEFAULT_MAX_RETRIES}); rate limits "
                          "wait for their reset instead, within --max-time")
    parser.addoption("--agent-retry-delay", scope="loop", setting="agent-retry-delay",
                     default=DEFAULT_RETRY_DELAY, metavar="DURATION",
                     help="the first backoff after an outage or a rate limit without a reset "
                          "time, doubled each retry up to 10m (default "
                          f"{DEFAULT_RETRY_DELAY})")


def duration_setting(session: Session, name: str) -> float:
    """A duration option's seconds; a bad value is a usage error naming the option."""
    value = session.config.get(name.replace("-", "_"))
    seconds = parse_duration(value, f"--{name}")
    if seconds < 0:
        raise UsageError(f"--{name} {value!r}: must not be negative")
    return seconds


@hookimpl
def ralph_session_start(session: Session) -> None:
    """Bad values fail before the agent runs (and spends) once."""
    duration_setting(session, "agent-idle-timeout")
    duration_setting(session, "agent-retry-delay")


def _time_left(session: Session) -> float | None:
    """Seconds ``--max-time`` leaves, from the budget plugin's clock (None: no limit)."""
    state = BudgetState.of(session.plugin_state)
    value = session.config.get("max_time")  # None: -p no:budget, so no limit
    max_time = 0.0 if value is None else parse_duration(value)
    if max_time <= 0 or state.run_started is None:
        return None
    elapsed = state.elapsed_before_s + time.time() - state.run_started
    return float(max_time - elapsed)


@hookimpl
def ralph_register_agents(registry: AgentRegistry) -> None:
    from ralph_verify.agents import AgentType  # here: only run needs agents (--help does not)
    from ralph_verify.plugins.agent_clis import adapter

    registry.add(AgentType(
        name="cmd", factory=adapter("cmd", "CommandAgent"), arg="required", plugin="agents",
        help="any command, run through the shell in the project root; the prompt on stdin and "
             "in $RALPH_PROMPT_FILE, $RALPH_ITERATION, $RALPH_SESSION_DIR set"))
    registry.add(AgentType(
        name="replay", factory=adapter("replay", "ReplayAgent"), arg="required", plugin="agents",
        help="scripted steps for tests and demos: DIR/NNN.patch (git apply), DIR/NNN.py (run "
             "in the root), DIR/NNN.txt (printed) for iteration NNN"))


@hookimpl(trylast=True)
def ralph_run_agent(session: Session, agent: Agent, request: AgentRequest) -> AgentResult:
    """Every agent runs through this hook, so wrappers can time, trace or extend it."""
    from ralph_verify.agents.retry import RetryPolicy, run_with_retries

    request.idle_timeout = duration_setting(session, "agent-idle-timeout")
    retries = session.config.get("max_agent_retries")
    policy = RetryPolicy(
        max_retries=int(retries),
        delay_s=duration_setting(session, "agent-retry-delay"),
        time_left=lambda: _time_left(session))
    return run_with_retries(agent, request, policy, _Reporting(session))


class _Reporting:
    """The waits of :func:`run_with_retries`, told through the reporting hooks."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def line(self, text: str) -> None:
        self.session.config.hook.ralph_report_line(config=self.session.config, line=text)

    def phase(self, text: str) -> None:
        self.session.config.hook.ralph_report_phase(session=self.session, phase=text)
