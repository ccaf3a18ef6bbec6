"""``ralph-verify init [TARGET]``: set something up, by a target a plugin registers
(``ralph_register_init_targets``; the bare ``init`` is ``project``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.errors import UsageError
from ralph_verify.markers import hookimpl

if TYPE_CHECKING:
    from ralph_verify.config import Config
    from ralph_verify.config.parser import Parser


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command(
        "init", run_init, scopes=("init",),
        help="set a project up: [tool.ralph-verify] in pyproject.toml, PROMPT.md, .gitignore",
        description="Look at the project (tests, ruff, mypy, coverage config, agent CLIs on "
                    "PATH) and write a [tool.ralph-verify] table to pyproject.toml, a PROMPT.md "
                    "template and .ralph/ in .gitignore. An existing table is shown as a diff "
                    "and kept unless --force. Asks nothing when not on a terminal.\n\n"
                    "targets: project (the default), and what plugins add, e.g. "
                    "'init claude' for Claude Code's hooks",
    )
    parser.addoption("target", scope="init", nargs="?", default="project", metavar="TARGET",
                     help="what to set up (default: project; see the list above)")
    parser.addoption("--force", scope="init", action="store_true",
                     help="replace an existing configuration (after showing its diff)")
    parser.addoption("--dry-run", scope="init", action="store_true",
                     help="show the diffs and write nothing")
    parser.addoption("--commit", scope="init", action="store_true",
                     help="commit the files init wrote (git init first if needed), so that "
                          "'ralph-verify run' finds a clean tree")
    parser.addoption("-y", "--yes", scope="init", action="store_true",
                     help="ask nothing, take what was detected (the default off a terminal)")


def run_init(config: Config) -> int:
    from ralph_verify.config.scaffold import init_targets

    registry = init_targets(config)
    name = config.get("target")
    target = registry.get(name)
    if target is None:
        known = ", ".join(t.name for t in registry.targets())
        raise UsageError(f"unknown init target {name!r}; known targets: {known}")
    return target.handler(config)
