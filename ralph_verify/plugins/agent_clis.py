"""The adapters for agent CLIs: ``claude``, ``codex``, ``aider``, ``gemini``, ``qwen``,
``opencode``, ``copilot`` (tested offline with the real programs) and ``amp`` (built from
its documentation: Amp talks only to Amp's own service, so it cannot be run offline).
``--agent NAME:PROGRAM`` names the program when it is not on PATH."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from ralph_verify.markers import hookimpl

if TYPE_CHECKING:
    from ralph_verify.agents import Agent, AgentOptions, AgentRegistry

#: name -> (module, class, help). Modules are imported only when their agent is picked.
ADAPTERS: dict[str, tuple[str, str, str]] = {
    "claude": ("claude", "ClaudeAgent", "Claude Code (claude -p, stream-json); tested offline"),
    "codex": ("codex", "CodexAgent", "OpenAI Codex (codex exec --json); tested offline"),
    "aider": ("aider", "AiderAgent", "aider (--message-file, --yes-always); tested offline"),
    "gemini": ("gemini", "GeminiAgent", "Gemini CLI (gemini -p, json); tested offline"),
    "qwen": ("qwen", "QwenAgent", "Qwen Code (qwen, json); tested offline"),
    "opencode": ("opencode", "OpenCodeAgent",
                 "OpenCode (opencode run --format json); tested offline"),
    "amp": ("amp", "AmpAgent", "Amp (amp -x --stream-json); not tested offline: Amp talks "
                               "only to its own service (docs/agents/amp.md)"),
    "copilot": ("copilot", "CopilotAgent",
                "GitHub Copilot CLI (copilot -p, json); tested offline"),
}


def adapter(module: str, cls: str) -> Callable[[str | None, AgentOptions], Agent]:
    """The factory of ``ralph_verify.agents.MODULE.CLS``, which is imported when it is picked."""

    def make(arg: str | None, options: AgentOptions) -> Agent:
        adapter: Agent = getattr(importlib.import_module(f"ralph_verify.agents.{module}"),
                                 cls)(arg, options)
        return adapter

    return make


@hookimpl
def ralph_register_agents(registry: AgentRegistry) -> None:
    from ralph_verify.agents import AgentType  # here: only run needs agents (--help does not)

    for name, (module, cls, help_text) in ADAPTERS.items():
        registry.add(AgentType(name=name, factory=adapter(module, cls), arg="optional",
                               plugin="agent_clis",
                               help=f"{help_text}; ARG: the program, if not {name!r} on PATH"))
