"""The ``local`` fleet executor: ``-j`` loops at once on this machine, each a ``ralph-verify
run`` child process in its own git worktree; a cancel sends each SIGTERM, which stops it
cleanly (verdict ``cancelled``, state and commits kept for ``fleet --resume``)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ralph_verify.markers import hookimpl

if TYPE_CHECKING:  # imported when a fleet runs, not at every start
    from ralph_verify.fleet.executor import ExecutorRegistry, FleetContext
    from ralph_verify.fleet.job import LoopJob


class LocalExecutor:
    """A thread per running loop; the loop itself is a child process (its own session)."""

    mode = "worktree"
    #: Takes a fleet's feed of jobs as they become ready (fleet/feed.py).
    feeds = True

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()

    def _started(self, proc: subprocess.Popen[bytes], fleet: FleetContext) -> None:
        with self._lock:
            self._running.add(proc)
        if fleet.cancelled.is_set():  # cancelled while it was starting
            self._stop(proc)

    def _stop(self, proc: subprocess.Popen[bytes]) -> None:
        """SIGTERM to the loop's process group: ``run`` stops cleanly (verdict cancelled)."""
        if proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if sys.platform == "win32":  # pragma: no cover - no process groups there
                proc.terminate()
            else:
                os.killpg(proc.pid, signal.SIGTERM)

    def _one(self, job: LoopJob, fleet: FleetContext) -> None:
        from ralph_verify.fleet.job import run_job

        prepared = fleet.prepare(job)
        if prepared is None:
            return
        import socket

        fleet.started(prepared, socket.gethostname())
        result = run_job(prepared, on_start=lambda proc: self._started(proc, fleet),
                         worker="local")
        with self._lock:
            self._running = {proc for proc in self._running if proc.poll() is None}
        fleet.finished(prepared, result)

    def run(self, jobs: Iterable[LoopJob], fleet: FleetContext) -> None:
        # A list, or a feed of jobs as they become ready (fleet/feed.py): both iterate.
        from concurrent.futures import ThreadPoolExecutor

        from ralph_verify.proc.signals import every

        def stop_all() -> bool:
            if not fleet.cancelled.is_set():
                return False
            with self._lock:
                running = list(self._running)
            for proc in running:
                self._stop(proc)
            return True

        with every(0.2, stop_all, "ralph-fleet-stop"), ThreadPoolExecutor(
                max_workers=max(1, fleet.jobs), thread_name_prefix="ralph-fleet") as pool:
            for future in [pool.submit(self._one, job, fleet) for job in jobs]:
                future.result()


@hookimpl
def ralph_register_executors(registry: ExecutorRegistry) -> None:
    from ralph_verify.fleet.executor import ExecutorType

    registry.add(ExecutorType(
        "local", LocalExecutor,
        "loops run on this machine, -j at once (default: the number of cores), each in a git "
        "worktree of the repository", plugin="fleet_local"))
