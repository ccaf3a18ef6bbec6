"""A process started with ``os.posix_spawn``, and what ralph-verify asks of a ``Popen``.

The tool a command starts ahead (:mod:`ralph_verify.proc.ahead`) starts before
``subprocess`` is imported (with what it imports, 12 ms of a start): ``posix_spawn``
is in ``os``. Standard library only, nothing imported at module level.
"""

from __future__ import annotations

import os

#: Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def can_start_in(cwd: str) -> bool:
    """Whether :func:`spawn` can start a process in ``cwd``: only in our own folder
    (``os.posix_spawn`` has no action that changes folders)."""
    return os.path.realpath(cwd) == os.path.realpath(os.getcwd())


def spawn(command: list[str], cwd: str, env: dict[str, str], out: int, err: int,
           gate_read: int) -> int:
    """Start ``command`` as ``Popen(..., start_new_session=True, close_fds=True)`` would,
    with stdin from /dev/null, ``out`` and ``err``, and ``gate_read`` kept open. The gate
    itself asks for the parent-death signal (``posix_spawn`` runs no code in the child)."""
    if not can_start_in(cwd):
        raise OSError(f"{cwd}: not our own folder, where alone a process can be started")
    actions: list[tuple[Any, ...]] = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                                      (os.POSIX_SPAWN_DUP2, out, 1),
                                      (os.POSIX_SPAWN_DUP2, err, 2)]
    try:
        inherited = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except OSError:
        inherited = list(range(3, 256))
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in sorted(inherited)
                if fd > 2 and fd != gate_read and _inheritable(fd)]
    os.set_inheritable(gate_read, True)
    return os.posix_spawn(command[0], command, env, file_actions=actions, setsid=True)


def _inheritable(fd: int) -> bool:
    try:
        return os.get_inheritable(fd)
    except OSError:
        return False


class Spawned:
    """What ralph-verify asks of a ``Popen`` (``pid``, ``args``, ``returncode``, ``poll``,
    ``wait``), for a process started with ``os.posix_spawn``."""

    def __init__(self, pid: int, args: list[str]) -> None:
        import _thread

        self.pid, self.args = pid, args
        self.returncode: int | None = None
        self._lock = _thread.allocate_lock()

    def _reap(self, flags: int) -> int | None:
        with self._lock:
            if self.returncode is None:
                try:
                    pid, status = os.waitpid(self.pid, flags)
                except ChildProcessError:  # reaped elsewhere: no exit status to trust
                    pid, status = self.pid, 9  # as killed: an error, never a pass
                if pid == self.pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def poll(self) -> int | None:
        return self._reap(os.WNOHANG)

    def wait(self, timeout: float | None = None) -> int:
        if timeout is None:
            code = self._reap(0)
            assert code is not None
            return code
        import subprocess
        import time

        deadline = time.monotonic() + timeout
        while (code := self.poll()) is None:
            if time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(self.args, timeout)
            time.sleep(0.005)
        return code
