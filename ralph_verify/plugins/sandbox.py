"""``run --sandbox``: each agent run under bubblewrap (see :mod:`ralph_verify.guard.sandbox`)."""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.markers import hookimpl

NAME = "sandbox"
_BWRAP: dict[int, str] = {}


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--sandbox", scope="loop", action="store_true", default=False,
                     help="run the agent under bubblewrap (Linux): the project writable, the "
                          "rest of the file system read-only, a private /tmp (docs/guard.md)")
    parser.addoption("--sandbox-network", scope="loop", choices=("shared", "none"),
                     default="shared",
                     help="with --sandbox: 'shared' (default; agents need their API) or "
                          "'none' (no network at all); bubblewrap cannot filter by host")


@hookimpl
def ralph_configure(config: Config) -> None:
    """A missing or unusable bubblewrap fails before the baseline (exit 2)."""
    if "loop" in config.command.scopes and config.get("sandbox"):
        from ralph_verify.guard.sandbox import check_available

        _BWRAP[id(config)] = check_available()


@hookimpl(wrapper=True)
def ralph_run_agent(session: Any, request: Any) -> Generator[None, Any, Any]:
    config = session.config
    bwrap = _BWRAP.get(id(config))
    if bwrap is not None:
        from ralph_verify.guard.sandbox import bwrap_argv, state_dirs

        agent = str(config.get("agent") or "")
        request.sandbox = tuple(bwrap_argv(
            bwrap, Path(request.root), network=str(config.get("sandbox_network")),
            writable=state_dirs(agent, os.environ, Path.home())))
    result = yield
    return result
