"""``ralph_cmdline_main``: the whole command line as one hook, and the agent hook's use of it.

The ``hook`` command's plugin wraps it so that an agent's hook never exits 2 (Claude
Code's "block") by accident; ``session.py`` itself names no command.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Generator
from pathlib import Path

from ralph_verify import hookimpl
from ralph_verify.exitcode import ExitCode
from ralph_verify.testing import Ralph

SESSION = Path(__file__).resolve().parents[1] / "ralph_verify" / "cli.py"


class Timing:
    """A plugin that wraps every command: it sees the command line and the exit code."""

    def __init__(self) -> None:
        self.seen: list[tuple[list[str], int | None]] = []

    @hookimpl(wrapper=True)
    def ralph_cmdline_main(self, args: list[str]) -> Generator[None, int | None, int | None]:
        code = yield
        self.seen.append((list(args), code))
        return code


def test_a_plugin_wraps_the_whole_command_line(ralph: Ralph) -> None:
    ralph.makefile("done.txt", "yes")
    timing = Timing()
    assert ralph.run("check", "--until", "files:done.txt", plugins=[timing]).ret == 0
    assert ralph.run("check", "--until", "files:missing.txt", plugins=[timing]).ret == 1
    assert timing.seen == [(["check", "--until", "files:done.txt"], ExitCode.OK),
                           (["check", "--until", "files:missing.txt"], ExitCode.CHECKS_FAILED)]


def test_a_plugin_that_cannot_load_fails_check_but_never_the_agent_hook(ralph: Ralph) -> None:
    """The agent hook's fail-open wrapping runs before any third-party plugin is imported."""
    ralph.env["RALPH_VERIFY_PLUGINS"] = "no_such_plugin_module"
    check = ralph.run("check", "--until", "files:x")
    assert check.ret == ExitCode.USAGE_ERROR
    assert "no_such_plugin_module" in check.err
    stop = ralph.run("hook", "claude-stop", stdin=json.dumps({"session_id": "s-1"}))
    assert stop.ret == 0, stop
    assert "no_such_plugin_module" in json.loads(stop.out)["systemMessage"]
    assert "no_such_plugin_module" in (ralph.path / ".ralph" / "hook.log").read_text()
    guard = ralph.run("hook", "claude-pretool", stdin=json.dumps({"tool_name": "Bash"}))
    assert guard.ret == 0 and guard.out == "", guard
    assert "no_such_plugin_module" in guard.err


def test_session_names_no_command() -> None:
    """The core runs commands; which one needs what is the command's plugin's business."""
    from ralph_verify.startup import get_config

    commands = set(get_config(["checks"]).parser.commands)
    strings = {node.value for node in ast.walk(ast.parse(SESSION.read_text()))
               if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    assert not commands & strings, commands & strings
