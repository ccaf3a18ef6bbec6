"""The agent's watchdog where it has no reaper (POSIX but Linux): ends the agent's process
group if ralph-verify dies without doing so.

``kill -9`` runs no cleanup, so each such agent run gets this companion script (``python -I
-S watchdog.py PGID``) in a session of its own, reading a pipe only ralph-verify holds: end
of file without ``done`` means ralph-verify is gone, and it kills the agent's group."""

from __future__ import annotations

import contextlib
import os
import signal
import sys


def main(argv: list[str]) -> int:
    group = int(argv[1])
    if group <= 1:
        return 2  # ExitCode.USAGE_ERROR: run as 'python -I -S', this imports no ralph_verify
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)  # outlive the terminal, like the agent would
    received = b""
    while chunk := os.read(0, 64):
        received += chunk
    if b"done" not in received:
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)  # group > 1: the agent's own group, never ours
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
