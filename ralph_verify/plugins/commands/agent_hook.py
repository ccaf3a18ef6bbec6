"""``ralph-verify hook ACTION``: run as the agent's Stop hook or PreToolUse guard.

An agent reads exit 2 as "block": any failure of ``hook`` becomes exit 0, the reason logged
in ``.ralph/hook.log``."""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Generator

from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.guard.rules import RULES
from ralph_verify.markers import hookimpl

HOOK_ACTIONS = ("claude-stop", "codex-stop", "qwen-stop", "gemini-stop", "copilot-stop",
                "claude-pretool", "codex-pretool")


@hookimpl(wrapper=True)
def ralph_cmdline_main(args: list[str]) -> Generator[None, int | None, int | None]:
    if args[:1] != ["hook"]:
        return (yield)
    action = args[1] if len(args) > 1 else "?"
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            code = yield
    except BaseException as exc:  # a hook must never fail the agent, not even on Ctrl-C
        import traceback

        code = 4
        err.write(f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
    if code == 0:
        sys.stderr.write(err.getvalue())
        return 0
    from ralph_verify.hookmode.protocol import let_the_agent_go_on

    return let_the_agent_go_on(action, 4 if code is None else code, err.getvalue())


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command(
        "hook", hook, scopes=("hook",),
        help="run as an agent hook: Stop (claude-stop, codex-stop, qwen-stop, "
             "gemini-stop, copilot-stop) or "
             "PreToolUse "
             "(claude-pretool, codex-pretool); reads the hook's JSON on stdin",
        description="Agent hooks. Stop: while a loop started with 'ralph-verify start' runs for "
                    "this session, answer {\"decision\": \"block\", \"reason\": FEEDBACK} while "
                    "the checks fail. PreToolUse: refuse destructive or exfiltrating tool "
                    "calls. A hook never wedges the agent: on any error it lets it go on and "
                    "logs why to .ralph/hook.log.\n\nguard rules (switch off with "
                    "[tool.ralph-verify.guard] disable = [...]):\n"
                    + "\n".join(f"  {name:<15}{text}" for name, text in RULES.items()),
    )
    parser.addoption("action", scope="hook", choices=HOOK_ACTIONS, metavar="ACTION",
                     help=f"one of {', '.join(HOOK_ACTIONS)}")


def hook(config: Config) -> int:
    """Read the agent's JSON and hand it to the Stop hook or the PreToolUse guard."""
    from ralph_verify.hookmode.protocol import HookInputError, check_fields, read_payload

    action = str(config.get("action"))
    agent = action.split("-")[0]
    try:
        payload = read_payload()
        if agent == "copilot" and action.endswith("-stop"):
            # agentStop: camelCase keys, the final text in the transcript
            from ralph_verify.hookmode.copilot import stop_payload

            payload = stop_payload(payload)
        check_fields(payload, ("tool_name", "tool_input") if action.endswith("-pretool")
                     else ())
    except HookInputError as exc:
        if action.endswith("-pretool"):  # a call we cannot read is refused, never let through
            from ralph_verify.hookmode.pretool import refuse_unreadable

            return refuse_unreadable(config.root, agent, f"the hook input cannot be read "
                                                         f"({str(exc)[:200]})")
        from ralph_verify.hookmode.protocol import unreadable_stop

        return unreadable_stop(action, str(exc))
    if action.endswith("-stop"):
        from ralph_verify.hookmode.stop import stop_hook

        return stop_hook(config, payload, agent=agent)
    from ralph_verify.hookmode.pretool import pretool_hook

    return pretool_hook(config, payload, agent=agent)
