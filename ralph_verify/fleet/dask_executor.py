"""The ``dask`` fleet executor, a plugin named only by its entry point (Dask is imported when
it runs): one Dask task per loop, each in a fresh clone on a worker, sending back its record,
report and commits (a git bundle). Results are gathered as they finish; a loop whose worker
died is submitted again up to ``--retries`` times, then ``lost``. Cancel sets a Dask
``Event`` the loops watch; their costs so far come back as scheduler events.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.markers import hookimpl

if TYPE_CHECKING:  # this entry point is loaded at every start; the fleet only when it runs
    from ralph_verify.fleet.executor import ExecutorRegistry, FleetContext
    from ralph_verify.fleet.job import JobResult, LoopJob

CLUSTER_TIMEOUT = 60


def _reachable(address: str) -> None:
    """Raise ``OSError`` now when nothing listens at a ``tcp://`` address: Dask's client
    retries a refused connection until its timeout (a minute for a mistyped port)."""
    import socket

    scheme, _, rest = address.rpartition("://")
    host, _, port = rest.rpartition(":")
    if scheme not in ("", "tcp") or not port.isdigit():
        return  # tls://, ucx://, a scheduler file...: the client decides
    socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=10).close()


def _distributed() -> Any:
    """``distributed``, imported only here (its API is untyped: it is used as ``Any``)."""
    import importlib

    try:
        return importlib.import_module("distributed")
    except ImportError as exc:
        from ralph_verify.errors import UsageError

        raise UsageError(f"--executor dask needs Dask distributed ({exc}): pip install "
                         "'ralph-verify[dask]' here and on every worker") from None


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Start the LocalCluster's workers with SIGINT ignored: Ctrl-C reaches the whole process
    group, and a worker that died of it would take its loop down uncommitted."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _event_name(job: LoopJob) -> str:
    return f"ralph-fleet-{job.fleet_id}-cancel"


def _cost_topic(job: LoopJob) -> str:
    """The scheduler's event topic where running loops report their cost so far."""
    return f"ralph-fleet-{job.fleet_id}-cost"


def run_on_worker(job: LoopJob) -> JobResult:
    """The Dask task: run one loop in a fresh clone on this worker; stop it cleanly when the
    fleet's cancel event is set."""
    from ralph_verify.fleet.job import run_job, state_cost

    distributed = _distributed()
    worker = distributed.get_worker()
    worker.log_event(f"ralph-fleet-{job.fleet_id}", {"task": job.name, "worker": worker.address})
    cancel = distributed.Event(_event_name(job))
    if cancel.is_set():  # the fleet was cancelled before this loop began
        result = _lost(job, "the fleet was cancelled before it began")
        result.record.verdict = "not-run"
        return result
    procs: list[subprocess.Popen[bytes]] = []
    states: list[Path] = []
    done = threading.Event()

    def watch() -> None:
        reported = 0.0
        while not done.is_set():
            with contextlib.suppress(Exception):
                cost = state_cost(states[0]) if states else 0.0
                if cost != reported:  # the fleet cannot read this worker's files: tell it
                    worker.log_event(_cost_topic(job), {"task": job.name, "cost_usd": cost})
                    reported = cost
                if cancel.wait(timeout=1):
                    for proc in procs:
                        with contextlib.suppress(ProcessLookupError, PermissionError):
                            os.killpg(proc.pid, signal.SIGTERM)
                    return
            done.wait(0.5)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        result = run_job(job, on_start=procs.append, worker=worker.address,
                         on_state=states.append)
    finally:
        done.set()
    result.record.where = worker.address
    return result


class DaskExecutor:
    """Submits one task per loop, at most ``-j`` at a time, and gathers each as it ends."""

    mode = "clone"
    #: Takes a fleet's feed of jobs as they become ready (fleet/feed.py).
    feeds = True

    def run(self, jobs: Iterable[LoopJob], fleet: FleetContext) -> None:
        distributed = _distributed()
        planned = list(getattr(jobs, "planned", jobs))
        Client, LocalCluster = distributed.Client, distributed.LocalCluster
        cluster: Any = None
        if fleet.address:
            try:
                _reachable(fleet.address)
                client = Client(fleet.address, timeout=CLUSTER_TIMEOUT)
            except OSError as exc:
                from ralph_verify.errors import UsageError

                raise UsageError(f"--address {fleet.address}: no Dask scheduler answered "
                                 f"({exc}); start one with 'dask scheduler' or leave out "
                                 "--address for a local cluster") from None
            where = fleet.address
        else:
            with _sigint_ignored():
                cluster = LocalCluster(n_workers=max(1, min(fleet.jobs, len(planned))),
                                       threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
            client = Client(cluster)
            where = "dask LocalCluster"
        try:
            self._run(client, distributed.Event, distributed.as_completed, jobs, fleet, where)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()

    def _run(self, client: Any, event_type: Any, as_completed: Any,
             jobs: Iterable[LoopJob], fleet: FleetContext, where: str) -> None:
        """Submit the jobs, at most ``-j`` running; a :class:`JobFeed` (a fleet whose tasks
        depend on each other) gives them as they become ready, and is polled between
        results so that a ready task starts while others still run."""
        from ralph_verify.fleet.feed import JobFeed
        from ralph_verify.proc.signals import every

        KilledWorker = _distributed().KilledWorker
        feed = jobs if isinstance(jobs, JobFeed) else None
        planned = feed.planned if feed is not None else list(jobs)
        waiting = [] if feed is not None else list(jobs)
        cancel = event_type(_event_name(planned[0]), client=client) if planned else None
        if cancel is not None:
            cancel.clear()  # left set by an earlier, cancelled run of this fleet (--resume)
        futures = as_completed()
        running: dict[Any, LoopJob] = {}

        def submit() -> None:
            while len(running) < max(1, fleet.jobs) and not fleet.cancelled.is_set():
                job = waiting.pop(0) if waiting else feed.take(0) if feed is not None else None
                if job is None:
                    return
                prepared = fleet.prepare(job)
                if prepared is None:
                    continue
                future = client.submit(run_on_worker, prepared, pure=False,
                                       key=f"ralph-fleet-{prepared.name}-{prepared.attempt}"
                                           f"-{os.getpid()}-{next(serial)}")
                running[future] = prepared
                futures.add(future)
                fleet.started(prepared, where)

        def relay() -> bool:
            """Pass the running loops' costs on to the fleet (its --total-cost counts them),
            and the fleet's cancel on to the loops running on the workers."""
            with contextlib.suppress(Exception):
                for _, msg in client.get_events(_cost_topic(planned[0])):
                    if isinstance(msg, dict):
                        fleet.progress(msg["task"], float(msg["cost_usd"]))
            if not fleet.cancelled.is_set():
                return False
            with contextlib.suppress(Exception):
                if cancel is not None:
                    cancel.set()
            return True

        serial = iter(range(1, 1 << 30))
        submit()
        with every(0.5, relay, "ralph-fleet-dask-relay"):
            while True:
                # A list: wait for the next result; a feed: poll, a ready task may come first.
                batch = futures.next_batch(block=feed is None) if running else []
                for future in batch:
                    self._gathered(future, running.pop(future), fleet, client, waiting,
                                   KilledWorker)
                    future.release()
                submit()
                if not running and (feed is None or feed.exhausted or fleet.cancelled.is_set()):
                    break
                if not batch and feed is not None:  # nothing ended: wait for a ready task
                    job = feed.take(0.2)
                    if job is not None:
                        waiting.append(job)
        if cancel is not None:
            with contextlib.suppress(Exception):
                cancel.clear()

    def _gathered(self, future: Any, job: LoopJob, fleet: FleetContext, client: Any,
                  waiting: list[LoopJob], killed: Any) -> None:
        try:
            result: JobResult = future.result()
        except killed as exc:
            if job.attempt <= fleet.retries and not fleet.cancelled.is_set():
                waiting.insert(0, replace(job, attempt=job.attempt + 1))
            else:
                fleet.finished(job, _lost(job, f"its worker died while it ran, every "
                                               f"time it was tried ({exc})"))
        except Exception as exc:  # the task itself failed: a bug, recorded, not fatal
            fleet.finished(job, _lost(job, f"{type(exc).__name__}: {exc}"))
        else:
            result.record.attempts = max(job.attempt, self._starts(client, job, fleet))
            fleet.finished(job, result)

    @staticmethod
    def _starts(client: Any, job: LoopJob, fleet: FleetContext) -> int:
        """How many times a worker began this loop (Dask reruns it when a worker dies)."""
        try:
            events = client.get_events(f"ralph-fleet-{job.fleet_id}")
        except Exception:
            return job.attempt
        return sum(1 for _, msg in events if isinstance(msg, dict) and msg.get("task") == job.name)

def _lost(job: LoopJob, reason: str) -> JobResult:
    from ralph_verify.fleet.job import JobResult
    from ralph_verify.records.fleet import LoopRecord

    return JobResult(LoopRecord(job.name, folder=job.folder, branch=job.branch, base=job.base,
                                verdict="lost", reason=reason, attempts=job.attempt))


@hookimpl
def ralph_register_executors(registry: ExecutorRegistry) -> None:
    from ralph_verify.fleet.executor import ExecutorType

    registry.add(ExecutorType(
        "dask", DaskExecutor,
        "loops run on a Dask cluster (--address tcp://host:8786, default: a local cluster), "
        "each in a clone of the repository; commits come back as branches", plugin="dask"))
