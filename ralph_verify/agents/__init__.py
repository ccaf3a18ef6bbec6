"""Agent adapters: one per agent CLI, found through ``ralph_register_agents``; an adapter
turns a rendered prompt into one run of its CLI and reads what the run reports."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ralph_verify.config.registry import NamedRegistry
from ralph_verify.config.stash import StashKey

if TYPE_CHECKING:
    from ralph_verify.agents.limits import Unavailable


@dataclass
class AgentRequest:
    """Everything one agent run needs."""

    prompt: str
    prompt_file: Path
    iteration: int
    root: Path
    session_dir: Path
    #: Where the agent's output streams to (bounded memory whatever its size).
    log_path: Path
    timeout: float
    env: Mapping[str, str] = field(default_factory=dict)
    #: Set from another thread (Ctrl-C, ``ralph-verify cancel``): kill the run's process group.
    cancel: threading.Event = field(default_factory=threading.Event)
    #: The most this run may spend, in USD (the session's ``--max-cost`` left), or ``None``.
    budget_usd: float | None = None
    #: Kill the run after this many seconds with no output and no file change (0: never).
    idle_timeout: float = 0.0
    #: The argv prefix the agent's process runs under (``run --sandbox``: bubblewrap).
    sandbox: tuple[str, ...] = ()
    #: File descriptors the sandbox prefix needs passed on (its status).
    sandbox_fds: tuple[int, ...] = ()


@dataclass
class AgentResult:
    """What one agent run did. ``text`` is the agent's own output (for the promise protocol)."""

    exit_code: int | None
    duration_s: float
    text: str = ""
    timed_out: bool = False
    cancelled: bool = False
    #: The agent could not run at all (binary missing, crashed at start): the reason.
    error: str | None = None
    #: The agent's own sandbox or permission mode refused a write this turn: what it said
    #: and the flag that allows it (read from the agent's transcript or output).
    refused: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    turns: int | None = None
    session_id: str | None = None
    #: Killed after ``--agent-idle-timeout`` seconds with no output and no file change.
    idle_s: float | None = None
    #: The model service turned the run away (rate limit, outage): not the agent's failure.
    unavailable: Unavailable | None = None
    #: Runs the service turned away before this one, and the seconds waited for them.
    retries: int = 0
    waited_s: float = 0.0
    #: Processes the agent started that outlived its turn and could not be ended
    #: ("pid N (COMMAND)"); every other one was ended with the turn.
    survivors: list[str] = field(default_factory=list)


class Agent(Protocol):
    """A configured agent adapter."""

    name: str

    def run(self, request: AgentRequest) -> AgentResult: ...


#: Builds an agent from the ``ARG`` of ``--agent NAME:ARG`` (None when absent).
AgentFactory = Callable[[str | None, "AgentOptions"], Agent]


#: The command an agent's own PreToolUse hook runs as the safety guard (``None``: no guard);
#: set by the plugin that owns the guard (hook mode), read when the agent is built.
GUARD_COMMAND_KEY: StashKey[str | None] = StashKey("guard_command")


@dataclass(frozen=True)
class AgentOptions:
    """Options common to every adapter (command line and ``[tool.ralph-verify]``)."""

    extra_args: tuple[str, ...] = ()
    model: str | None = None
    bypass_permissions: bool = False
    continue_session: bool = False
    #: How to call ralph-verify for the PreToolUse safety guard (``PREFIX hook claude-pretool``)
    #: in adapters whose CLI runs such hooks; ``None`` when the guard is off (agenthook plugin).
    guard_command: str | None = None
    #: The project root, where the agent runs: a ``cmd:`` agent's ``./agent.sh`` is looked for
    #: there before the baseline (``None``: the current directory).
    root: Path | None = None


@dataclass(frozen=True)
class AgentType:
    """An agent adapter a plugin registers: ``--agent NAME[:ARG]`` builds it with ``factory``."""

    name: str
    factory: AgentFactory
    help: str
    arg: str = "none"  # "none" | "optional" | "required"
    plugin: str = ""


class AgentRegistry(NamedRegistry[AgentType]):
    """Agent adapters by name."""

    kind = "agent"
    get = NamedRegistry.find
    types = NamedRegistry.listed
