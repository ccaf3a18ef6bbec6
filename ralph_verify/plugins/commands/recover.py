"""``ralph-verify recover [SESSION]``: restore what a session's recovery point kept
(:mod:`ralph_verify.loop.recovery`)."""

from __future__ import annotations

from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.errors import UsageError
from ralph_verify.markers import hookimpl


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.add_command("recover", recover_command, scopes=("recover",),
                       help="restore every branch, tag and stash entry and the uncommitted "
                            "work kept when a session started and at its checkpoints (after an "
                            "agent deleted .git or branches, reset, cleared the stash or cleaned)")
    parser.addoption("recovery_session", scope="recover", nargs="?", metavar="SESSION",
                     help="the session whose recovery point to restore (default: the newest)")


def recover_command(config: Config) -> int:
    """``ralph-verify recover [SESSION]``: see :mod:`ralph_verify.loop.recovery`."""
    from ralph_verify.loop import recovery
    from ralph_verify.loop.state import StateDir

    if (config.root / ".ralph").is_dir() and StateDir(config.root).lock_holder() is not None:
        raise UsageError("a run is active in this project: stop it first ('ralph-verify "
                         "cancel'), then recover")
    for line in recovery.recover(config.root, config.get("recovery_session")):
        print(f"recover: {line}")
    return 0
