"""Hook mode's settings and ``init AGENT`` targets: the loop driven by the agent's own Stop
hook, and the safety guard (the commands are ``start``, ``agent_hook`` and ``slash``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from ralph_verify.config.parser import Bound
from ralph_verify.guard.settings import GuardSettings
from ralph_verify.markers import hookimpl

if TYPE_CHECKING:
    from ralph_verify.config import Config
    from ralph_verify.config.parser import Parser
    from ralph_verify.config.scaffold import InitRegistry

#: Seconds the agent waits for a hook before killing it (written by ``init``).
DEFAULT_HOOK_TIMEOUT = 600
#: Written as CLAUDE_CODE_STOP_HOOK_BLOCK_CAP by ``init claude``.
DEFAULT_BLOCK_CAP = 1000


@hookimpl
def ralph_configure(config: Config) -> None:
    """``run``'s agents get the guard as their own PreToolUse hook, unless it is off."""
    if "loop" in config.command.scopes:  # only then: check and --help need no agents
        from ralph_verify.agents import GUARD_COMMAND_KEY
        from ralph_verify.hookmode.install import run_guard_command

        config.stash[GUARD_COMMAND_KEY] = run_guard_command(config)


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--no-guard", scope="init", action="store_true", default=None,
                     help="init claude: install the Stop hook only, not the PreToolUse guard")
    parser.addoption("--hook-command", scope="init", metavar="CMD",
                     help="init claude/codex/...: how the hooks call ralph-verify (default: "
                          "'ralph-verify' when it is on PATH, else this Python with -m)")
    parser.addsetting("guard", type=GuardSettings, default=None,
                      help="[tool.ralph-verify.guard]: the PreToolUse safety guard's rules")
    parser.addsetting("hook-timeout", type=Annotated[int, Bound(ge=1, duration=True)],
                      default=DEFAULT_HOOK_TIMEOUT,
                      help="seconds the agent gives a hook (written by 'init'); the Stop hook "
                           "lets the agent stop if its checks take longer than this minus 30")
    parser.addsetting("hook-block-cap", type=Annotated[int, Bound(ge=1)], default=DEFAULT_BLOCK_CAP,
                      help="CLAUDE_CODE_STOP_HOOK_BLOCK_CAP written by 'init claude' (and "
                           "stopHookBlockingCap by 'init qwen'): how many Stop-hook blocks in a "
                           "row the agent accepts")


#: ``init AGENT``: where each agent's hooks go.
_TARGETS = {
    "claude": "Claude Code: the Stop hook and the PreToolUse guard in .claude/settings.json "
              "(merged, nothing of yours removed)",
    "codex": "Codex: the Stop hook in $CODEX_HOME/hooks.json (merged)",
    "qwen": "Qwen Code: the Stop hook and a raised block cap in .qwen/settings.json (merged)",
    "gemini": "Gemini CLI: the Stop hook (AfterAgent) in .gemini/settings.json (merged)",
    "copilot": "Copilot CLI: the Stop hook (agentStop) in .github/hooks/ralph-verify.json "
               "(merged)",
}


@hookimpl
def ralph_register_init_targets(registry: InitRegistry) -> None:
    from functools import partial

    from ralph_verify.config.scaffold import InitTarget
    from ralph_verify.hookmode.install import install

    for agent, help in _TARGETS.items():
        registry.add(InitTarget(agent, partial(install, target=agent), help=help))
