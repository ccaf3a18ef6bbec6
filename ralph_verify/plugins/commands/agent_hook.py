"""``ralph-verify hook ACTION``: run as the agent's Stop hook or PreToolUse guard.

The module is named for what it serves (an agent's hook), not ``hook.py``: in module
names "hook" means pluggy hooks (:mod:`ralph_verify.hookspec`).
"""

from __future__ import annotations

from ralph_verify import hookimpl
from ralph_verify.config import Config
from ralph_verify.config.parser import Parser

HOOK_ACTIONS = ("claude-stop", "codex-stop", "claude-pretool", "codex-pretool")


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command(
        "hook", hook, scopes=("hook",),
        help="run as an agent hook: Stop (claude-stop, codex-stop) or PreToolUse "
             "(claude-pretool, codex-pretool); reads the hook's JSON on stdin",
        description="Agent hooks. Stop: while a loop started with 'ralph-verify start' runs for "
                    "this session, answer {\"decision\": \"block\", \"reason\": FEEDBACK} while "
                    "the checks fail. PreToolUse: refuse destructive or exfiltrating tool "
                    "calls. A hook never wedges the agent: on any error it lets it go on and "
                    "logs why to .ralph/hook.log.\n\nguard rules (switch off with "
                    "[tool.ralph-verify.guard] disable = [...]):\n" + _rules_help(),
    )
    parser.addoption("action", scope="hook", choices=HOOK_ACTIONS, metavar="ACTION",
                     help=f"one of {', '.join(HOOK_ACTIONS)}")


def _rules_help() -> str:
    from ralph_verify.guard_rules import RULES

    return "\n".join(f"  {name:<15}{text}" for name, text in RULES.items())


def hook(config: Config) -> int:
    from ralph_verify.hookrun import run_hook

    return run_hook(config, str(config.get("action")))
