"""Executors: what runs a fleet's loops (``local``, ``dask``, any a plugin registers through
``ralph_register_executors``). An executor runs each job and reports each start and result
to the :class:`FleetContext`, which keeps the records, the fleet-wide limits and the reports.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ralph_verify.config.registry import NamedRegistry
from ralph_verify.errors import UsageError
from ralph_verify.fleet.job import JobResult, LoopJob


class FleetContext(Protocol):
    """What the fleet offers its executor."""

    #: Concurrent loops at most (``-j``).
    jobs: int
    #: ``--address`` (a scheduler for a distributed executor), or ``None``.
    address: str | None
    #: How many times a loop lost with its worker is run again before it is ``lost``.
    retries: int
    #: Set on Ctrl-C, ``fleet cancel`` or a fleet-wide limit: start nothing more, stop loops.
    cancelled: threading.Event

    def prepare(self, job: LoopJob) -> LoopJob | None:
        """Right before a job starts: the job with the fleet's remaining cost as its limit,
        or ``None`` when the fleet is cancelled (do not start it)."""

    def started(self, job: LoopJob, where: str) -> None:
        """A job started on ``where`` (a host, a worker address)."""

    def progress(self, name: str, cost_usd: float) -> None:
        """A remote loop's cost so far (the fleet cannot read its state): for ``--total-cost``."""

    def finished(self, job: LoopJob, result: JobResult) -> None:
        """A job ended (thread-safe): recorded at once, so a later death loses nothing."""


class Executor(Protocol):
    """Runs jobs; see the module docstring."""

    #: The job's mode: ``worktree`` (same machine as the repository) or ``clone``.
    mode: str

    def run(self, jobs: Sequence[LoopJob], fleet: FleetContext) -> None:
        """Run every job, calling ``fleet.prepare/started/finished``; return when all are
        done, or soon after ``fleet.cancelled`` is set. A class with ``feeds = True`` may get
        a :class:`~ralph_verify.fleet.feed.JobFeed` (jobs as they become ready) instead of a
        list; any other gets a ``depends-on`` fleet's ready tasks in waves of lists."""


@dataclass(frozen=True)
class ExecutorType:
    """An executor a plugin offers: ``--executor NAME`` calls ``factory()``."""

    name: str
    factory: Callable[[], Executor]
    help: str
    plugin: str = ""


class ExecutorRegistry(NamedRegistry[ExecutorType]):
    """Executors by name, filled by ``ralph_register_executors``."""

    kind = "executor"

    def get(self, name: str) -> ExecutorType:
        found = self.find(name)
        if found is None:
            known = ", ".join(item.name for item in self.listed()) or "none"
            hint = (" (pip install 'ralph-verify[dask]' installs it)" if name == "dask" else "")
            raise UsageError(f"--executor {name!r}: no such executor{hint}; known: {known}")
        return found
