"""Executors: what runs a fleet's loops. ``local`` is built in (a thread pool of child
processes, :mod:`ralph_verify.plugins.fleet_local`); ``dask`` comes from a plugin; any plugin
may add one through the ``ralph_register_executors`` hook.

An executor gets the jobs and a :class:`FleetContext`; it runs each job (for instance with
:func:`ralph_verify.fleet.job.run_job`), reports each start and each result to the context as
soon as it knows it, and returns when every job has a result or the context is cancelled.
The context, not the executor, keeps the records, the fleet-wide limits and the reports.
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
        """Call right before a job starts: the job with the fleet's remaining time and cost
        as its limits, or ``None`` when the fleet is cancelled (do not start it)."""

    def started(self, job: LoopJob, where: str) -> None:
        """A job started on ``where`` (a host, a worker address)."""

    def progress(self, name: str, cost_usd: float) -> None:
        """A running loop's cost so far, for an executor whose loops run where the fleet
        cannot read their state (remote workers): it counts toward ``--total-cost``."""

    def finished(self, job: LoopJob, result: JobResult) -> None:
        """A job ended (thread-safe); its result is recorded at once, so nothing finished is
        lost if the fleet or a worker dies afterwards."""


class Executor(Protocol):
    """Runs jobs; see the module docstring."""

    #: The job's mode: ``worktree`` (same machine as the repository) or ``clone``.
    mode: str

    def run(self, jobs: Sequence[LoopJob], fleet: FleetContext) -> None:
        """Run every job, calling ``fleet.prepare/started/finished``; return when all are
        done, or soon after ``fleet.cancelled`` is set (stopping the running loops cleanly
        where the executor can).

        An executor whose class sets ``feeds = True`` may get a
        :class:`~ralph_verify.fleet.feed.JobFeed` instead of a list (a fleet whose tasks
        depend on each other): its jobs come as they become ready (iterating it blocks until
        the next one, and ends when the fleet closes it); start each at once, within ``-j``.
        Any other executor gets such a fleet's ready tasks in waves of lists."""


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
            known = ", ".join(self.names()) or "none"
            hint = (" (pip install 'ralph-verify[dask]' installs it)" if name == "dask" else "")
            raise UsageError(f"--executor {name!r}: no such executor{hint}; known: {known}")
        return found

    def names(self) -> list[str]:
        return [item.name for item in self.listed()]
