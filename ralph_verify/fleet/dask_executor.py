"""The ``dask`` fleet executor, a plugin named only by its entry point (Dask is imported when
it runs): one Dask task per loop, each in a fresh clone on a worker, sending back its record,
report and commits (a git bundle), waited for by a thread per running loop; a loop whose worker
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
    """Submits one task per loop, at most ``-j`` at a time."""

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
            self._run(client, distributed, jobs, planned, fleet, where)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()

    def _run(self, client: Any, distributed: Any, jobs: Iterable[LoopJob],
             planned: list[LoopJob], fleet: FleetContext, where: str) -> None:
        """A thread per running loop, at most ``-j``, as the local executor: each submits its
        loop and waits for its result (a list or a feed of jobs as they become ready)."""
        from concurrent.futures import ThreadPoolExecutor

        from ralph_verify.proc.signals import every

        cancel = distributed.Event(_event_name(planned[0]), client=client) if planned else None
        if cancel is not None:
            cancel.clear()  # left set by an earlier, cancelled run of this fleet (--resume)
        serial = iter(range(1, 1 << 30))

        def one(job: LoopJob) -> None:
            prepared = fleet.prepare(job)
            while prepared is not None:
                future = client.submit(run_on_worker, prepared, pure=False,
                                       key=f"ralph-fleet-{prepared.name}-{prepared.attempt}"
                                           f"-{os.getpid()}-{next(serial)}")
                fleet.started(prepared, where)
                try:
                    result: JobResult = future.result()
                except distributed.KilledWorker as exc:
                    if prepared.attempt <= fleet.retries and not fleet.cancelled.is_set():
                        prepared = fleet.prepare(replace(prepared, attempt=prepared.attempt + 1))
                        continue
                    result = _lost(prepared, "its worker died while it ran, every time it was "
                                             f"tried ({exc})")
                except Exception as exc:  # the task itself failed: a bug, recorded, not fatal
                    result = _lost(prepared, f"{type(exc).__name__}: {exc}")
                else:
                    result.record.attempts = max(prepared.attempt, _starts(client, prepared))
                finally:
                    future.release()
                fleet.finished(prepared, result)
                return

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

        with every(0.5, relay, "ralph-fleet-dask-relay"), ThreadPoolExecutor(
                max_workers=max(1, fleet.jobs), thread_name_prefix="ralph-fleet") as pool:
            for future in [pool.submit(one, job) for job in jobs]:
                future.result()
        if cancel is not None:
            with contextlib.suppress(Exception):
                cancel.clear()


def _starts(client: Any, job: LoopJob) -> int:
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
