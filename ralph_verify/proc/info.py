"""What we know about other processes: identity (a pid alone proves nothing: reused, forged
in ``.ralph/lock``, or ``-1``; with its start time and command line it does), descendants,
and Linux's process controls (the subreaper, children that die with us)."""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_PROC = Path("/proc")
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def start_time(pid: int) -> str | None:
    """When ``pid`` started (an opaque text: boot-relative clock ticks on Linux), or ``None``
    if there is no such process."""
    if pid <= 0:
        return None
    if _PROC.is_dir():
        fields = _stat_fields(pid)
        return fields[19] if fields is not None and len(fields) > 19 and fields[0] != "Z" \
            else None
    if sys.platform == "win32":  # pragma: no cover - no signals are sent there
        return None
    return _ps(pid, "lstart=")  # pragma: no cover - macOS, BSD


def age() -> float:
    """Seconds since this process was started as the ``ralph-verify`` command (Linux; else 0.0):
    a deadline counted by whoever spawned us (an agent's hook timeout) includes start-up."""
    argv = list(getattr(sys, "orig_argv", []))
    if argv[1:3] != ["-m", "ralph_verify"] and not any(
            os.path.basename(part) == "ralph-verify" for part in argv[:2]):
        return 0.0
    fields = _stat_fields(os.getpid()) if _PROC.is_dir() else None
    clock = getattr(time, "CLOCK_BOOTTIME", None)
    if fields is None or len(fields) <= 19 or clock is None:
        return 0.0  # pragma: no cover - not Linux
    try:
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")
        return max(0.0, time.clock_gettime(clock) - started)
    except (ValueError, OSError):  # pragma: no cover - an unreadable field
        return 0.0


def cmdline(pid: int) -> list[str] | None:
    """The command line of ``pid``, or ``None`` if it cannot be read."""
    if pid <= 0:
        return None
    if _PROC.is_dir():
        try:
            raw = (_PROC / str(pid) / "cmdline").read_bytes()
        except OSError:
            return None
        return [part.decode("utf-8", errors="replace") for part in raw.split(b"\0")[:-1]]
    if sys.platform == "win32":  # pragma: no cover - no signals are sent there
        return None
    text = _ps(pid, "args=")  # pragma: no cover - macOS, BSD
    return text.split() if text is not None else None  # pragma: no cover - as above


def _ps(pid: int, field: str) -> str | None:  # pragma: no cover - macOS, BSD
    try:
        out = subprocess.run(["ps", "-p", str(pid), "-o", field], capture_output=True,
                             text=True, check=False, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out or None


def holds_open(pid: int, path: Path) -> bool | None:
    """Whether ``pid`` has the file ``path`` open (Linux); ``None`` where it cannot be told."""
    fds = _PROC / str(pid) / "fd"
    if not _PROC.is_dir():
        return None  # pragma: no cover - macOS, BSD, Windows
    try:
        wanted = path.stat()
        names = os.listdir(fds)
    except OSError:
        return False
    for name in names:
        with contextlib.suppress(OSError):
            found = os.stat(fds / name)
            if (found.st_dev, found.st_ino) == (wanted.st_dev, wanted.st_ino):
                return True
    return False


def _stat_fields(pid: int) -> list[str] | None:
    """Fields 3.. of ``/proc/PID/stat`` (state, ppid, pgrp...), or ``None``."""
    try:  # plain open(), not pathlib: this runs for every process after every tool
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode("utf-8", "replace")
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()


def _parents() -> dict[int, int]:
    """pid -> parent pid of every live (not zombie) process (Linux)."""
    parents: dict[int, int] = {}
    try:
        entries = os.listdir(_PROC)
    except OSError:
        return parents
    for entry in entries:
        fields = _stat_fields(int(entry)) if entry.isdigit() else None
        if fields is not None and len(fields) > 1 and fields[0] not in ("Z", "X"):
            parents[int(entry)] = int(fields[1])
    return parents


def ancestry(pid: int | None = None) -> list[tuple[int, str]]:
    """``pid`` (default: this process) and its ancestors up to init, each as (pid, start
    time), nearest first (Linux); ``[]`` where processes cannot be read."""
    found: list[tuple[int, str]] = []
    current = os.getpid() if pid is None else pid
    while current > 0 and len(found) < 256:
        fields = _stat_fields(current)
        if fields is None or len(fields) <= 19:
            break
        found.append((current, fields[19]))
        current = int(fields[1])
    return found


#: The environment variable that marks every process one tool or agent run starts: the
#: descendants inherit it, also those that leave the process group or are orphaned.
MARK_VAR = "RALPH_VERIFY_PROCESS"
_marks = itertools.count(1)


def new_mark() -> str:
    """A mark for one process run, unique on this machine (``os.urandom``: what ``secrets``
    would give, without importing it and ``hmac`` before every tool starts)."""
    return f"{os.getpid()}-{next(_marks)}-{os.urandom(4).hex()}"


def _children(pid: int) -> set[int]:
    """The children of ``pid``, from its threads' ``children`` lists (Linux 3.5+)."""
    found: set[int] = set()
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, ValueError), \
                    open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                found.update(map(int, handle.read().split()))
    return found


def _subtree(roots: set[int], children: Callable[[int], set[int]]) -> set[int]:
    """``roots`` and all their descendants, walking the children lists down."""
    found = set(roots)
    frontier = set(roots)
    while frontier:
        frontier = set().union(*map(children, frontier)) - found
        found |= frontier
    return found


def _carries(pid: int, needle: bytes) -> bool:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/environ", "rb") as handle:
        return needle in handle.read()
    return False


_subreaper = False
_children_listed: bool | None = None


def _by_children_lists() -> bool:
    """Whether a tool's family can be found from our own children down: we are the
    subreaper (every orphan of a tool is handed to us) and the kernel lists children."""
    global _children_listed
    if _children_listed is None:
        _children_listed = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    return _subreaper and _children_listed


def _family(leaders: set[int], mark: str | None) -> set[int]:
    """Every process the ``leaders`` started that still lives, and those carrying ``mark``: as the
    subreaper we are the parent of every orphan, so a walk of our own descendants finds them;
    else (no children lists) by every process's parent link and environment."""
    by_parent: dict[int, set[int]] | None = None
    if not _by_children_lists():
        by_parent = {}
        for pid, parent in _parents().items():
            by_parent.setdefault(parent, set()).add(pid)

    def children(pid: int) -> set[int]:
        return _children(pid) if by_parent is None else by_parent.get(pid, set())

    roots = {pid for pid in leaders if os.path.exists(f"/proc/{pid}")}
    if mark:
        needle = f"{MARK_VAR}={mark}\0".encode()
        candidates = children(os.getpid()) if by_parent is None else \
            set().union(*by_parent.values())
        roots |= {pid for pid in candidates - roots if _carries(pid, needle)}
    return _subtree(roots, children) - leaders


def kill_family(leader: int, mark: str | None) -> None:
    """SIGKILL the process group ``leader`` leads and every process it started: by the
    parent links (read before the kill, while they still hold) and by ``mark`` (those that
    left the group with ``setsid`` and were orphaned). The leader itself is left to its
    ``Popen`` to reap; orphans handed to us (the subreaper) are reaped here. Never raises."""
    if leader <= 1:
        return
    me = os.getpid()
    linux = _PROC.is_dir()
    family = _family({leader}, mark) if linux else set()
    with contextlib.suppress(OSError):
        os.killpg(leader, signal.SIGKILL)
    seen: set[int] = set()
    for _ in range(5):  # a process may fork while we kill: look again a few times
        pending = {pid for pid in family if pid > 1 and pid not in (me, leader)} - seen
        if not pending:
            break
        for pid in pending:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        seen |= pending
        family = _family(pending, mark)
    for pid in seen:
        fields = _stat_fields(pid)
        if fields is not None and len(fields) > 1 and int(fields[1]) == me:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)


@functools.cache
def _load_prctl() -> Any:
    """libc's prctl (Linux), or ``None``."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            return ctypes.CDLL(None, use_errno=True).prctl
    return None


def _prctl(option: int, value: int) -> bool:
    function = _load_prctl()
    return bool(function) and int(function(option, value, 0, 0, 0)) == 0


def become_subreaper() -> bool:
    """Orphaned descendants of this process come back to it instead of to init (Linux)."""
    global _subreaper
    _subreaper = _subreaper or _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    return _subreaper


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` for ``Popen``: the child gets SIGKILL when the thread that started it
    dies (Linux), or ``None``. Between fork and exec the child only calls prctl."""
    function = _load_prctl()
    if not function:
        return None  # pragma: no cover - not Linux
    parent = os.getpid()

    def setup() -> None:
        function(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)  # the parent is already gone: do not start

    return setup
