"""A fleet run (:class:`Fleet`, the context every executor reports to): each result is written
to ``OUT/fleet.json`` as it arrives, so neither a dying worker nor a cancel loses a finished
loop; fleet-wide limits and cancel."""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ralph_verify.fleet import COST_SHARE_ENV
from ralph_verify.fleet.feed import JobFeed
from ralph_verify.fleet.job import UNFINISHED, JobResult, LoopJob, state_cost
from ralph_verify.fleet.outputs import FLEET_JSON
from ralph_verify.fleet.tasks import LoopSpec
from ralph_verify.proc.signals import every
from ralph_verify.project.git import GitError, git
from ralph_verify.records.files import save
from ralph_verify.records.fleet import (
    FleetDocument,
    FleetProcess,
    LoopRecord,
    read_fleet,
    write_fleet,
)
from ralph_verify.state_files import now_iso, write_text_atomic

PID_FILE = "fleet.pid"


class Fleet:
    """The records of one fleet run, and the limits that apply across its loops."""

    def __init__(self, *, fleet_id: str, repo: Path, base: str, out: Path, jobs: int,
                 executor: str, address: str | None = None, retries: int = 2,
                 total_cost: float | None = None, total_time: float | None = None,
                 shard: str | None = None, say: Callable[[str], None] = print) -> None:
        self.fleet_id, self.repo, self.base, self.out = fleet_id, repo, base, out
        self.jobs, self.executor, self.address, self.retries = jobs, executor, address, retries
        self.total_cost, self.total_time, self.shard, self.say = (total_cost, total_time,
                                                                   shard, say)
        self.cancelled = threading.Event()
        self.cancel_reason = ""
        self.records: dict[str, LoopRecord] = {}
        self.started_at = now_iso()
        self._clock = time.monotonic()
        self._lock = threading.RLock()
        self._done = False

    # --- FleetContext -----------------------------------------------------------------------

    def prepare(self, job: LoopJob) -> LoopJob | None:
        if self.cancelled.is_set():
            return None
        if self.total_time is not None and \
                self.total_time - (time.monotonic() - self._clock) < 1:
            self.cancel(f"the fleet's total time ({self.total_time:g}s) is used up")
            return None
        if self.total_cost is None:
            return job
        # What is left of the fleet's cost is the loop's share, on top of its own --max-cost
        # (the fleet plugin enforces it inside the loop, and lowers the agent's budget to it).
        share = f"{max(self.total_cost - self.spent(), 0.01):.4f}"
        return replace(job, env={**job.env, COST_SHARE_ENV: share})

    def started(self, job: LoopJob, where: str) -> None:
        with self._lock:
            record = self.records.setdefault(job.name, LoopRecord(job.name))
            record.status, record.where, record.branch = "running", where, job.branch
            record.started_at, record.attempts = now_iso(), job.attempt
            if job.mode == "worktree":
                record.state = str(Path(job.workdir) / job.name / job.folder / ".ralph"
                                      / "state.json")
            self.save()
        self.say(f"started  {job.name} on {where}")

    def finished(self, job: LoopJob, result: JobResult) -> None:
        earlier = self.records.get(job.name)
        record = replace(result.record, status="finished", executor=self.executor,
                         where=result.record.where or (earlier.where if earlier else ""))
        loop_dir = self.out / "loops" / job.name
        if result.report_html is not None:
            write_text_atomic(loop_dir / "report.html", result.report_html)
            record.report = f"loops/{job.name}/report.html"
        if result.state_json is not None:
            write_text_atomic(loop_dir / "state.json", result.state_json)
        if result.log_tail:
            write_text_atomic(loop_dir / "run.log", result.log_tail)
        if result.bundle is not None:
            self._fetch(job, result.bundle, record)
        with self._lock:
            self.records[job.name] = record
            self.save()
        self.say(f"finished {job.name}: {record.verdict} after "
                 f"{record.iterations} iteration(s) — {record.reason}")
        self.check_limits()

    # --- the rest ---------------------------------------------------------------------------

    def _fetch(self, job: LoopJob, bundle: bytes, record: LoopRecord) -> None:
        """Bring a remote loop's commits into the source repository as its branch."""
        with tempfile.NamedTemporaryFile(suffix=".bundle", delete=False) as handle:
            handle.write(bundle)
        try:
            if job.source != str(self.repo):  # a task's own repository: keep the bundle
                target = self.out / "loops" / job.name / f"{job.name}.bundle"
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(handle.name, target)
                record.bundle = f"loops/{job.name}/{job.name}.bundle"
                return
            with self._lock:
                git(self.repo, "fetch", "-q", handle.name,
                     f"+refs/heads/{job.branch}:refs/heads/{job.branch}")
        except GitError as exc:
            record.verdict_note = f"its commits could not be fetched: {exc}"
        finally:
            Path(handle.name).unlink(missing_ok=True)

    def spent(self) -> float:
        """Cost so far: finished loops, and running ones as their state says."""
        total = 0.0
        with self._lock:
            records = list(self.records.values())
        for record in records:
            if record.status == "finished":
                total += record.cost_usd
            elif record.status == "running":
                total += state_cost(Path(record.state)) if record.state \
                    else record.live_cost_usd or 0.0
        return total

    def progress(self, name: str, cost_usd: float) -> None:
        with self._lock:
            record = self.records.get(name)
            if record is not None and record.status == "running":
                record.live_cost_usd = cost_usd

    def check_limits(self) -> bool:
        """Cancel the fleet once a fleet-wide limit is reached; whether it is cancelled."""
        if self.total_cost is not None and self.spent() >= self.total_cost:
            self.cancel(f"the fleet's total cost reached {self.total_cost:g} USD")
        if self.total_time is not None and time.monotonic() - self._clock >= self.total_time:
            self.cancel(f"the fleet's total time ({self.total_time:g}s) is used up")
        return self.cancelled.is_set()

    def cancel(self, reason: str) -> None:
        if not self.cancelled.is_set():
            self.cancel_reason = reason
            self.cancelled.set()
            self.say(f"stopping every loop: {reason}")

    def document(self) -> FleetDocument:
        loops = [self.records[name] for name in sorted(self.records)]
        return FleetDocument(self.fleet_id, repository=str(self.repo), base=self.base,
                             executor=self.executor, shard=self.shard,
                             started_at=self.started_at,
                             finished_at=None if not self._done else now_iso(),
                             cancelled=self.cancel_reason or None, loops=loops)

    def save(self) -> None:
        with self._lock:
            write_fleet(self.out / FLEET_JSON, self.document())

    def run(self, jobs: Sequence[LoopJob] | JobFeed, executor: Any) -> None:
        """Run ``jobs`` (a list, or a feed of jobs as they become ready) with ``executor``;
        loops it never started are ``not-run``."""
        planned = jobs.planned if isinstance(jobs, JobFeed) else list(jobs)
        self.plan(planned)
        self.out.mkdir(parents=True, exist_ok=True)
        save(self.out / PID_FILE, FleetProcess(os.getpid(), socket.gethostname(), self.fleet_id))
        self.save()
        try:
            with every(0.5, self.check_limits, "ralph-fleet-limits"):
                executor.run(jobs, self)
        finally:
            self._done = True
            for job in planned:
                record = self.records[job.name]
                if record.status != "finished":
                    record.verdict = "not-run" if record.status == "pending" else "lost"
                    record.status = "finished"
                    record.reason = self.cancel_reason or "the executor returned without a result"
                    record.iterations, record.cost_usd = 0, 0.0
            self.save()
            (self.out / PID_FILE).unlink(missing_ok=True)

    def plan(self, planned: Sequence[LoopJob]) -> None:
        """A pending record for each planned loop (a loop never started is ``not-run``)."""
        for job in planned:
            self.records.setdefault(job.name, LoopRecord(job.name, branch=job.branch,
                                                         folder=job.folder))


def make_jobs(tasks: Sequence[LoopSpec], *, fleet_id: str, repo: Path, base: str, mode: str,
              workdir: Path, defaults: Sequence[str] = ()) -> list[LoopJob]:
    """One job per task, on branch ``ralph/fleet-<id>/<task>``."""
    return [LoopJob(fleet_id=fleet_id, name=task.name, folder=task.folder,
                    branch=f"ralph/fleet-{fleet_id}/{task.name}", prompt=task.prompt,
                    run_args=[*defaults, *task.run_args], source=task.repo or str(repo),
                    base="" if task.repo else base, mode="clone" if task.repo else mode,
                    workdir=str(workdir)) for task in tasks]


def resumable(out: Path) -> FleetDocument:
    """The fleet.json to resume, with the loops that finished their work kept."""
    document = read_fleet(out / FLEET_JSON)
    document.loops = [loop for loop in document.loops
                      if loop.status == "finished" and loop.verdict not in UNFINISHED]
    return document
