"""``ralph-verify slash``: the ``/ralph-verify`` command of the Claude Code plugin; the
user's words arrive as raw text on stdin, so no shell ever parses them."""

from __future__ import annotations

from ralph_verify.cli import main
from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.markers import hookimpl


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command(
        "slash", slash, scopes=("slash",),
        help="the /ralph-verify command of the Claude Code plugin: reads 'start ... | cancel | "
             "status' as raw text on stdin, so no shell ever parses the user's words",
    )


def slash(config: Config) -> int:
    import sys

    from ralph_verify.hookmode.slash import slash_argv

    return main(slash_argv(sys.stdin.read()))
