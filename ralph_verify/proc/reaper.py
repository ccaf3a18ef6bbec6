"""The agent's reaper: every process the agent starts ends with its turn, daemons included.

A daemon escapes the process group, its parent and the mark, so on Linux the agent runs
under this small parent (``python -I -S reaper.py REPORT_FD GRACE -- ARGV``), the child
subreaper of its tree. When the agent exits it ends what is left (TERM, GRACE, KILL) and
reports what survived on a pipe; when ralph-verify dies (``kill -9`` runs no cleanup), its
parent-death signal makes it end the whole tree at once."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_POLL_S = 0.02
#: Lines the report holds at most: ralph-verify reads it once we have exited, so it must fit
#: in a pipe's buffer (64 KiB on Linux; a line is at most some 220 bytes).
MAX_REPORTED = 100


def _prctl(option: int, value: int) -> None:
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


class _Orphaned(Exception):
    """ralph-verify died: SIGTERM, our parent-death signal."""


def _orphaned(signum: int, frame: object) -> None:
    raise _Orphaned


def _tree(root: int) -> list[int]:
    """The live (not zombie) descendants of ``root``."""
    parents = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2:].split()
        if len(fields) > 1 and fields[0] not in ("Z", "X"):
            parents[int(name)] = int(fields[1])
    found: list[int] = []
    frontier = {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier}
        found += sorted(frontier)
    return found


def _reap() -> None:
    """Collect every child that has ended (the agent's orphans come to us)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _end(signum: int, within: float) -> list[int]:
    """Send ``signum`` to every descendant (again to new ones) until none is left or
    ``within`` seconds passed; the ones left."""
    me = os.getpid()
    deadline = time.monotonic() + within
    signalled: set[int] = set()
    while True:
        _reap()
        left = _tree(me)
        for pid in left:
            if pid not in signalled:
                signalled.add(pid)
                with contextlib.suppress(OSError):
                    os.kill(pid, signum)
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(_POLL_S)


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            raw = handle.read()
    except OSError:
        return "?"
    return " ".join(part.decode("utf-8", "replace") for part in raw.split(b"\0") if part)[:200]


def main(argv: list[str]) -> int:
    if len(argv) < 5 or argv[3] != "--":
        return 2  # ExitCode.USAGE_ERROR: run as 'python -I -S', this imports no ralph_verify
    report, grace, command = int(argv[1]), float(argv[2]), argv[4:]
    os.set_inheritable(report, False)  # the agent's tree must not hold the pipe open
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    # Started with SIGKILL as the parent-death signal: until here no agent runs to be ended.
    signal.signal(signal.SIGTERM, _orphaned)
    _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    try:
        return _run(report, grace, command)
    except _Orphaned:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _end(signal.SIGKILL, 1.0)
        return 1


def _run(report: int, grace: float, command: list[str]) -> int:
    try:
        agent = os.posix_spawnp(command[0], command, os.environ)
    except OSError as exc:
        sys.stderr.write(f"{command[0]}: {exc.strerror}\n")
        return 127
    while True:  # wait for the agent, reaping the orphans it leaves meanwhile
        try:
            pid, status = os.wait()
        except ChildProcessError:  # pragma: no cover - the agent is always our child
            status = 0
            break
        if pid == agent:
            break
    left = _end(signal.SIGTERM, grace)
    if left:
        left = _end(signal.SIGKILL, 1.0)
    _reap()
    with open(report, "w", encoding="utf-8") as handle:
        handle.writelines(f"{pid}\t{_command(pid)}\n" for pid in left[:MAX_REPORTED])
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return 128 + signum  # pragma: no cover - a signal that does not end a process
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
