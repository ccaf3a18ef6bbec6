"""The agent's watchdog: ends the agent's processes if ralph-verify dies without doing so.

``kill -9`` runs no cleanup, so each agent run gets this companion script (``python -I -S
watchdog.py PGID MARK``) in a session of its own, reading a pipe only ralph-verify holds:
end of file without ``done`` means ralph-verify is gone, and it kills the agent's group, its
descendants and every process carrying its MARK."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys

#: How often the watchdog notes the agent's descendants (Linux).
_LOOK_S = 0.5


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()


def _tree(root: int) -> dict[int, str]:
    """pid -> start time of ``root``'s group members and descendants (Linux /proc)."""
    try:
        entries = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return {}
    info = {}
    for pid in entries:
        fields = _stat(pid)
        if fields is not None and len(fields) > 19 and fields[0] not in ("Z", "X"):
            info[pid] = (int(fields[1]), int(fields[2]), fields[19])
    found = {pid for pid, (_, group, _) in info.items() if group == root}
    frontier = set(found) | {root}
    while frontier:
        frontier = {pid for pid, (parent, _, _) in info.items()
                    if parent in frontier and pid not in found}
        found |= frontier
    return {pid: info[pid][2] for pid in found if pid in info}


def _marked(mark: str) -> set[int]:
    """Processes whose environment carries ``RALPH_VERIFY_PROCESS=mark`` (Linux)."""
    needle = f"RALPH_VERIFY_PROCESS={mark}\0".encode()
    found = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{name}/environ", "rb") as handle:
                if needle in handle.read():
                    found.add(int(name))
    return found


def main(argv: list[str]) -> int:
    group = int(argv[1])
    mark = argv[2] if len(argv) > 2 else ""
    if group <= 1:
        return 2  # ExitCode.USAGE_ERROR: run as 'python -I -S', this imports no ralph_verify
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)  # outlive the terminal, like the agent would
    seen: dict[int, str] = {}
    received = b""
    linux = os.path.isdir("/proc")
    while True:
        ready, _, _ = select.select([0], [], [], _LOOK_S)
        if ready:
            chunk = os.read(0, 64)
            if not chunk:
                break
            received += chunk
        elif linux:
            seen.update(_tree(group))
    if b"done" in received:
        return 0
    with contextlib.suppress(OSError):
        os.killpg(group, signal.SIGKILL)  # group > 1: the agent's own group, never ours
    if linux:
        seen.update(_tree(group))
        for pid in _marked(mark) if mark else set():
            fields = _stat(pid)
            if fields is not None and len(fields) > 19:
                seen[pid] = fields[19]
        for pid, started in seen.items():
            fields = _stat(pid)
            if pid > 1 and fields is not None and len(fields) > 19 and fields[19] == started:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
