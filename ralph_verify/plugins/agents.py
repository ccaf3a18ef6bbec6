"""The built-in agents: ``cmd:COMMAND`` (any command) and ``replay:DIR`` (scripted), and
running whichever agent was chosen (``ralph_run_agent``)."""

from __future__ import annotations

from ralph_verify import hookimpl
from ralph_verify.agents import (
    Agent,
    AgentOptions,
    AgentRegistry,
    AgentRequest,
    AgentResult,
    AgentType,
)


def _cmd(arg: str | None, options: AgentOptions) -> Agent:
    from ralph_verify.agents.cmd import CommandAgent

    return CommandAgent(arg or "", options)


def _replay(arg: str | None, options: AgentOptions) -> Agent:
    from ralph_verify.agents.replay import ReplayAgent

    return ReplayAgent(arg or "", options)


@hookimpl
def ralph_register_agents(registry: AgentRegistry) -> None:
    registry.add(AgentType(
        name="cmd", factory=_cmd, arg="required", plugin="agents",
        help="any command, run through the shell in the project root; the prompt on stdin and "
             "in $RALPH_PROMPT_FILE, $RALPH_ITERATION, $RALPH_SESSION_DIR set"))
    registry.add(AgentType(
        name="replay", factory=_replay, arg="required", plugin="agents",
        help="scripted steps for tests and demos: DIR/NNN.patch (git apply), DIR/NNN.py (run "
             "in the root), DIR/NNN.txt (printed) for iteration NNN"))


@hookimpl(trylast=True)
def ralph_run_agent(agent: Agent, request: AgentRequest) -> AgentResult:
    """Every agent runs through this hook, so wrappers can time, trace or extend it."""
    return agent.run(request)
