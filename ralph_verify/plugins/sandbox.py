"""The agent under bubblewrap: ``sandbox = "auto"`` (the default), ``--sandbox``, ``--no-sandbox``.

``auto`` puts each agent run in the sandbox where bubblewrap can create namespaces on this
machine, and says once, on stderr, why not where it cannot; ``--sandbox`` (``"on"``)
insists and stops before the baseline when it cannot; ``--no-sandbox`` (``"off"``) runs the
agent as it is. See :mod:`ralph_verify.guard.sandbox` and docs/guard.md.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.config.stash import StashKey
from ralph_verify.errors import UsageError
from ralph_verify.markers import hookimpl

NAME = "sandbox"
MODES = ("auto", "on", "off")
#: The bubblewrap program the agent runs under, found at configure (absent: no sandbox).
BWRAP_KEY: StashKey[str] = StashKey("sandbox_bwrap")
#: Why ``auto`` found no sandbox, said when the session starts: after any usage error.
WHY_NOT_KEY: StashKey[str] = StashKey("sandbox_why_not")


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--sandbox", scope="loop", action="store_const", const="on",
                     setting="sandbox", setting_type=str, default="auto",
                     help="run the agent under bubblewrap (Linux) and stop when it cannot: the "
                          "project and the agent's state folders writable, the rest of the "
                          "file system read-only, a private /tmp (docs/guard.md)",
                     setting_help="'auto' (default: the sandbox where bubblewrap works here, "
                                  "else a note why not), 'on' (required), 'off'")
    parser.addoption("--no-sandbox", scope="loop", action="store_const", const="off",
                     dest="sandbox", default=None,
                     help="run the agent without the sandbox (the default 'auto' uses it "
                          "where bubblewrap works)")
    parser.addoption("--sandbox-network", scope="loop", choices=("shared", "none"),
                     default="shared",
                     help="with the sandbox: 'shared' (default; agents need their API) or "
                          "'none' (no network at all); bubblewrap cannot filter by host")


def sandbox_mode(config: Config) -> str:
    """``auto``, ``on`` or ``off``; ``true``/``false`` in the file read as on/off. Neither
    on the command line nor in the file, ``$RALPH_VERIFY_SANDBOX`` decides (a test suite's
    or a CI job's default), then ``auto``."""
    value = config.get("sandbox")
    chosen = config.source_of("sandbox") != "default"
    if not chosen and os.environ.get("RALPH_VERIFY_SANDBOX"):
        value = os.environ["RALPH_VERIFY_SANDBOX"]
    if isinstance(value, bool):
        return "on" if value else "off"
    mode = str(value or "auto").lower()
    mode = {"true": "on", "false": "off"}.get(mode, mode)
    if mode not in MODES:
        raise UsageError(f"sandbox = {value!r}: use one of {', '.join(MODES)} "
                         "([tool.ralph-verify] sandbox, $RALPH_VERIFY_SANDBOX)")
    return mode


@hookimpl
def ralph_configure(config: Config) -> None:
    """``on`` and no usable bubblewrap fails before the baseline (exit 2); ``auto`` says why."""
    if "loop" not in config.command.scopes:
        return
    mode = sandbox_mode(config)
    if mode == "off":
        return
    from ralph_verify.guard.sandbox import check_available, probe

    if mode == "on":
        config.stash[BWRAP_KEY] = check_available()
        return
    bwrap, why_not = probe()
    if bwrap is not None:
        config.stash[BWRAP_KEY] = bwrap
    else:
        config.stash[WHY_NOT_KEY] = why_not


@hookimpl
def ralph_session_start(session: Any) -> None:
    """The note of ``auto`` without a sandbox, once the session is sure to run the agent: a
    usage error (a bad spec, a missing prompt file) comes alone, never after a note."""
    why_not = session.config.stash.get(WHY_NOT_KEY)
    if why_not is not None:
        sys.stderr.write(f"note: the agent runs without a sandbox: {why_not} "
                         "(--no-sandbox or sandbox = \"off\" silences this note)\n")


@hookimpl(wrapper=True)
def ralph_run_agent(session: Any, request: Any) -> Generator[None, Any, Any]:
    config = session.config
    bwrap = config.stash.get(BWRAP_KEY)
    if bwrap is not None:
        from ralph_verify.guard.sandbox import bwrap_argv, writable_for

        agent = str(config.get("agent") or "")
        request.sandbox = tuple(bwrap_argv(
            bwrap, Path(request.root), network=str(config.get("sandbox_network")),
            writable=writable_for(agent, Path(request.root), os.environ, Path.home()),
            private_tmp=sandbox_mode(config) == "on"))
    result = yield
    return result
