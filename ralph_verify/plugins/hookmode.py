"""Hook mode: the loop driven by the agent's own Stop hook, the safety guard, ``init``.

Commands::

    ralph-verify start --until tests,lint [--max-iterations N]   # inside Claude Code / Codex
    ralph-verify hook claude-stop | codex-stop                    # the Stop hook
    ralph-verify hook claude-pretool | codex-pretool              # the PreToolUse guard
    ralph-verify init claude | codex                              # install the hooks

A hook never fails the agent: whatever goes wrong (bad config, a crash, the
time budget) it exits 0 without blocking, says so in a ``systemMessage`` and
logs why to ``.ralph/hook.log`` (see :mod:`ralph_verify.hookrun`).
"""

from __future__ import annotations

from ralph_verify import hookimpl
from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.scaffold import InitRegistry, InitTarget

HOOK_ACTIONS = ("claude-stop", "codex-stop", "claude-pretool", "codex-pretool")
#: Seconds the agent waits for a hook before killing it (written by ``init``).
DEFAULT_HOOK_TIMEOUT = 600
#: Written as CLAUDE_CODE_STOP_HOOK_BLOCK_CAP by ``init claude``.
DEFAULT_BLOCK_CAP = 1000


@hookimpl
def ralph_configure(config: Config) -> None:
    """``run``'s agents get the guard as their own PreToolUse hook, unless it is off."""
    from ralph_verify.agents import GUARD_COMMAND_KEY
    from ralph_verify.hookinstall import run_guard_command

    if "loop" in config.command.scopes:
        config.stash[GUARD_COMMAND_KEY] = run_guard_command(config)


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command(
        "start", start, scopes=("verify", "start"),
        help="start a loop driven by the agent's Stop hook (inside Claude Code or Codex)",
        description="Record a loop for this project: the Stop hook ('ralph-verify hook "
                    "claude-stop') then runs the checks each time the agent stops, and while "
                    "they fail sends their feedback back so it goes on. The first Stop hook "
                    "call (or --session-id, or $CLAUDE_CODE_SESSION_ID) binds the loop to one "
                    "agent session; other sessions in the project are left alone.\n\n"
                    "examples:\n  ralph-verify start --until tests,lint --max-iterations 10\n"
                    "  ralph-verify cancel",
    )
    parser.addoption("--session-id", scope="start", metavar="ID",
                     help="the agent session to bind (default: $CLAUDE_CODE_SESSION_ID, else "
                          "the first session whose Stop hook fires)")
    parser.addoption("--agent-name", scope="start", choices=("claude", "codex"),
                     help="which agent's Stop hook drives the loop (default: the first to "
                          "call; claude when $CLAUDE_CODE_SESSION_ID binds it)")
    parser.addoption("start_task", scope="start", nargs="*", metavar="TASK",
                     help="the task, recorded for 'status' and progress.md")
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
    parser.add_command(
        "slash", slash, scopes=("slash",),
        help="the /ralph-verify command of the Claude Code plugin: reads 'start ... | cancel | "
             "status' as raw text on stdin, so no shell ever parses the user's words",
    )
    parser.addoption("--no-guard", scope="init", action="store_true", default=None,
                     help="init claude: install the Stop hook only, not the PreToolUse guard")
    parser.addoption("--hook-command", scope="init", metavar="CMD",
                     help="init claude/codex: how the hooks call ralph-verify (default: "
                          "'ralph-verify' when it is on PATH, else this Python with -m)")
    parser.addsetting("guard", type="ralph_verify.guard_settings:GuardSettings",  # lazy: pydantic
                      default=None,
                      help="[tool.ralph-verify.guard]: the PreToolUse safety guard's rules")
    parser.addsetting("hook-timeout", type=int, default=DEFAULT_HOOK_TIMEOUT,
                      help="seconds the agent gives a hook (written by 'init'); the Stop hook "
                           "lets the agent stop if its checks take longer than this minus 30")
    parser.addsetting("hook-block-cap", type=int, default=DEFAULT_BLOCK_CAP,
                      help="CLAUDE_CODE_STOP_HOOK_BLOCK_CAP written by 'init claude': how many "
                           "Stop-hook blocks in a row Claude Code accepts")


def _rules_help() -> str:
    from ralph_verify.guard_rules import RULES

    return "\n".join(f"  {name:<15}{text}" for name, text in RULES.items())


def start(config: Config) -> int:
    from ralph_verify.hookstart import start_loop

    return start_loop(config)


def slash(config: Config) -> int:
    import sys

    from ralph_verify.hookrun import slash_argv
    from ralph_verify.session import main

    return main(slash_argv(sys.stdin.read()))


def hook(config: Config) -> int:
    from ralph_verify.hookrun import run_hook

    return run_hook(config, str(config.get("action")))


@hookimpl
def ralph_register_init_targets(registry: InitRegistry) -> None:
    registry.add(InitTarget("claude", init_claude,
                            help="Claude Code: the Stop hook and the PreToolUse guard in "
                                 ".claude/settings.json (merged, nothing of yours removed)"))
    registry.add(InitTarget("codex", init_codex,
                            help="Codex: the Stop hook in $CODEX_HOME/hooks.json (merged)"))


def init_claude(config: Config) -> int:
    from ralph_verify.hookinstall import install

    return install(config, "claude")


def init_codex(config: Config) -> int:
    from ralph_verify.hookinstall import install

    return install(config, "codex")
