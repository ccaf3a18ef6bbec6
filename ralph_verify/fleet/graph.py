"""A fleet whose tasks depend on each other (a task file that declares ``depends-on``).

The graph and the merge queue live here, in the coordinator, whatever the executor: ready
tasks (every dependency merged) go to the executor at once, each on a branch from the
integration branch's tip (:mod:`ralph_verify.fleet.merge`); a loop that completes joins the
merge queue, which merges one branch at a time, in dependency order, and verifies the
merged tree against the task's gate (its checks + every done task's checks + ``keep`` +
``--until``). A conflict or a failing gate sends the task back once, on the new tip, with a
note saying why; the second time it is ``failed (merge)`` and its branch stays. A task is
``done`` only once merged. A failed task skips its dependents (``on-fail =
"skip-dependents"``) or stops the fleet (``on-fail = "stop"``). After the last task, the
``final`` check runs on the integration branch.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from ralph_verify.fleet.feed import JobFeed, feeding
from ralph_verify.fleet.job import JobResult, LoopJob, _git, _worktree_admin
from ralph_verify.fleet.merge import Integration, MergeOutcome
from ralph_verify.fleet.run import Fleet
from ralph_verify.fleet.tasks import Task
from ralph_verify.records.fleet import (
    FinalCheck,
    FleetDocument,
    IntegrationRecord,
    LoopRecord,
    MergedTask,
)
from ralph_verify.tasks.model import TaskList
from ralph_verify.tasks.order import ordered

#: A task's statuses in a fleet after which its dependents may start.
DONE = frozenset({"done", "already"})
#: Loop verdicts that send a task to the merge queue.
MERGEABLE = frozenset({"complete", "nothing-to-do"})


class GraphFleet(Fleet):
    """:class:`~ralph_verify.fleet.run.Fleet` with the graph, the merge queue and the final
    check; see the module docstring."""

    def __init__(self, *, graph: TaskList, tasks: Sequence[Task], integration: Integration,
                 until: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.graph, self.integration, self.until = graph, integration, until
        self.tasks = {task.name: task for task in tasks}
        self.order = [task.id for task in ordered(graph) if task.id in self.tasks]
        self.status: dict[str, str] = {}
        self.reason: dict[str, str] = {}
        self.planned: dict[str, LoopJob] = {}
        #: The checks each task's loop ran (its gate in its folder when it was released).
        self.loop_gate: dict[str, list[str]] = {}
        self.sent_back: set[str] = set()
        #: (task, merge commit), in merge order.
        self.merged: list[tuple[str, str]] = []
        self.final: FinalCheck | None = None
        self.feed = JobFeed([])
        self._queue: list[LoopJob] = []
        self._wake = threading.Condition(self._lock)
        self._stopping = False
        #: The integration branch's tip, moved by the merge queue only (a task released while
        #: a merge is being verified starts from the last verified merge, never from it).
        self.tip = ""

    # --- the graph --------------------------------------------------------------------------

    def _set(self, name: str, status: str, reason: str = "") -> None:
        self.status[name], self.reason[name] = status, reason
        record = self.records.setdefault(name, LoopRecord(name))
        record.task_status, record.task_reason = status, reason
        if status in ("skipped", "done") and record.status != "finished":
            # Never run: skipped for a dependency, or done by the user's word.
            record.status, record.verdict, record.reason = "finished", status, reason
            record.iterations, record.cost_usd = 0, 0.0
        self.save()  # fleet status sees it at once
        self.say(f"task {name}: {status}{' — ' + reason if reason else ''}")

    def _release(self) -> None:
        """Start every ready task, skip the dependents of a failed one; close the feed once
        nothing runs or waits for its merge (nothing can become ready any more)."""
        with self._lock:
            for name in self.order:
                if self.status[name] != "todo" or self.cancelled.is_set():
                    continue
                deps = self.graph.dependencies(self.graph.get(name))
                bad = [dep for dep in deps if self.status.get(dep, "done") not in
                       ("todo", "running", "merging", *DONE)]
                if bad:
                    self._set(name, "skipped", f"depends on {bad[0]}, which is "
                              f"{self.status[bad[0]]}")
                elif all(self.status.get(dep, "done") in DONE for dep in deps):
                    self._set(name, "running")
                    self.feed.put(self._job(name, self.planned[name].prompt))
            if not any(status in ("running", "merging") for status in self.status.values()):
                self.feed.close()

    def _job(self, name: str, prompt: str) -> LoopJob:
        """The task's job from the integration branch's tip; its loop's checks are its gate
        in its folder, so that its agent keeps the done tasks' checks green too."""
        planned, task = self.planned[name], self.tasks[name]
        args, skip = [], False
        for arg in planned.run_args:
            if skip or arg == "--until":
                skip = not skip
            elif not arg.startswith("--until="):
                args.append(arg)
        gate = self.gate(task).get(task.folder, [])
        self.loop_gate[name] = gate
        if gate:
            args += ["--until", ",".join(gate)]
        return replace(planned, base=self.tip, prompt=prompt, run_args=args)

    def gate(self, task: Task) -> dict[str, list[str]]:
        """Folder -> checks: the task's, every done task's (each in its folder), ``keep``
        and ``--until`` (in the task's folder)."""
        gate: dict[str, list[str]] = {}

        def add(folder: str, specs: Iterable[str]) -> None:
            gate.setdefault(folder, []).extend(spec for spec in specs if spec)

        add(task.folder, (spec.text for spec in self.graph.get(task.name).until))
        for name in self.order:
            if self.status.get(name) in DONE and name != task.name:
                add(self.tasks[name].folder,
                    (spec.text for spec in self.graph.get(name).until))
        add(task.folder, (spec.text for spec in self.graph.keep))
        add(task.folder, [self.until or ""])
        return {folder: list(dict.fromkeys(specs)) for folder, specs in gate.items()}

    # --- the executor's reports -------------------------------------------------------------

    def finished(self, job: LoopJob, result: JobResult) -> None:
        super().finished(job, result)
        record = self.records[job.name]
        verdict = str(record.verdict)
        with self._lock:
            if verdict in MERGEABLE and not self.cancelled.is_set():
                self._set(job.name, "merging")
                self._queue.append(job)
                self._wake.notify_all()
                return
            if self.cancelled.is_set():  # stopped by the fleet, not failed on its own
                self._set(job.name, "cancelled", self.cancel_reason)
                self._release()
                return
            self._set(job.name, "failed", f"its loop ended {verdict}: {record.reason}")
            if self.graph.on_fail == "stop":
                self.cancel(f"task {job.name} failed and on-fail is \"stop\"")
            self._release()

    def cancel(self, reason: str) -> None:
        super().cancel(reason)
        self.feed.close()

    # --- the merge queue --------------------------------------------------------------------

    def _merge_loop(self) -> None:
        while True:
            with self._lock:
                while not self._queue and not self._stopping:
                    self._wake.wait(0.5)
                if not self._queue:
                    return
                job = min(self._queue, key=lambda queued: self.order.index(queued.name))
                self._queue.remove(job)
            try:
                self._merge(job)
            except Exception as exc:  # a git failure: the task fails, the fleet goes on
                with self._lock:
                    self._set(job.name, "failed (merge)", f"{type(exc).__name__}: {exc}")
            self._release()

    def _merge(self, job: LoopJob) -> None:
        task = self.tasks[job.name]
        if self.cancelled.is_set():
            with self._lock:
                self._set(job.name, "cancelled", "not merged: " + self.cancel_reason)
            return
        record = self.records[job.name]
        message = (f"{task.name}: {task.title or task.name}\n\nRalph-Task: {task.name}\n"
                   f"Ralph-Fleet: {self.fleet_id}\n")
        gate = self.gate(task)
        clock = time.monotonic()
        # Nothing merged since the task's loop started from the tip, and its loop ran this
        # very gate: the merged tree is the one its loop verified, no second verification.
        verified = (self.tip == job.base
                    and gate == {task.folder: self.loop_gate.get(task.name)})
        outcome = self.integration.merge(job.branch, message, gate, verified=verified)
        record.gate = gate
        record.gate_verified_by = "its loop" if verified else "the merge queue"
        record.merge_s = round(time.monotonic() - clock, 3)
        if outcome.ok:
            with self._lock:
                self.merged.append((task.name, outcome.commit))
                self.tip = outcome.commit
                record.merge_commit = outcome.commit
                already = record.verdict == "nothing-to-do"
                self._set(job.name, "already" if already else "done",
                          f"merged into {self.integration.branch} as {outcome.commit[:10]}")
            return
        note = self._note(job, outcome)
        if job.name in self.sent_back or self.cancelled.is_set():
            with self._lock:
                record.merge_note = note
                self._set(job.name, "failed (merge)",
                          f"{note.splitlines()[0]} (branch {job.branch} kept)")
            return
        self.sent_back.add(job.name)
        if job.mode == "worktree" and record.workdir:
            with _worktree_admin(self.integration.workdir):
                _git(self.repo, "worktree", "remove", "--force", record.workdir, check=False)
        first = f"{job.branch}-try1"
        _git(self.repo, "branch", "-M", job.branch, first, check=False)
        with self._lock:
            record.merge_note, record.first_try = note, first
            self._set(job.name, "running", f"sent back once: {note.splitlines()[0]}")
            self.feed.put(self._job(job.name, f"{self.planned[job.name].prompt}\n\n{note}"))

    def _note(self, job: LoopJob, outcome: MergeOutcome) -> str:
        """Why the merge failed, for the task's second run and the report."""
        if outcome.conflicts:
            first = []
            for name, commit in self.merged:
                if self._is_ancestor(commit, job.base):
                    continue
                files = sorted(set(self.integration.touched(commit)) & set(outcome.conflicts))
                if files:
                    first.append(f"{name} ({', '.join(files)})")
            merged_first = "; ".join(first) or "the tasks merged since it started"
            return (f"Conflicts with {merged_first}, merged first: {', '.join(outcome.conflicts)}"
                    f" conflicted when the fleet merged your branch {job.branch}. This run "
                    "starts again from the integration branch, which holds their work: do the "
                    "task again on this tree.")
        done = ", ".join(name for name, _ in self.merged) or "none"
        return ("The merged tree failed the gate (tasks merged so far: "
                f"{done}):\n{outcome.feedback.strip()}\nThis run starts from the merged tree: "
                "make this task's checks and theirs pass together.")

    def _is_ancestor(self, commit: str, of: str) -> bool:
        return subprocess.run(["git", "merge-base", "--is-ancestor", commit, of], cwd=self.repo,
                              capture_output=True, check=False,
                              stdin=subprocess.DEVNULL).returncode == 0

    # --- the run ----------------------------------------------------------------------------

    def run(self, jobs: Sequence[LoopJob] | JobFeed, executor: Any) -> None:
        planned = list(getattr(jobs, "planned", jobs))
        self.planned = {job.name: job for job in planned}
        self.plan(planned)  # as Fleet.run would: a task released but never started is not-run
        self.feed = JobFeed(planned)
        self.out.mkdir(parents=True, exist_ok=True)
        self.integration.open()
        self.tip = self.integration.tip()
        for name in self.order:
            user = self.tasks[name].status
            self.status[name] = "todo"
            if user == "skip":
                self._set(name, "skipped", "status = \"skip\" in the task file")
            elif user == "done":
                self._set(name, "done", "status = \"done\" in the task file")
        merger = threading.Thread(target=self._merge_loop, daemon=True, name="ralph-fleet-merge")
        merger.start()
        self._release()
        try:
            super().run(self.feed, feeding(executor))
        finally:
            self.feed.close()
            with self._lock:
                self._stopping = True
                self._wake.notify_all()
            merger.join()
            for name in self.order:
                if self.status[name] in ("todo", "running", "merging"):
                    record = self.records[name]
                    never = self.status[name] == "todo" or record.verdict in (None, "not-run")
                    record.task_status = self.status[name] = "not-run" if never else "failed"
                    record.task_reason = self.cancel_reason or "not finished"
            if not self.cancelled.is_set():
                self.final = self._final()
            self.integration.close()
            self.save()

    def _final(self) -> FinalCheck:
        """The ``final`` check (default: every task's checks + ``--until``) on the
        integration branch."""
        gate: dict[str, list[str]] = {}
        if self.graph.final is not None:
            gate["."] = [spec.text for spec in self.graph.final]
        else:
            for name in self.order:
                if self.tasks[name].status != "skip":
                    gate.setdefault(self.tasks[name].folder, []).extend(
                        spec.text for spec in self.graph.get(name).until)
            if self.until:
                gate.setdefault(".", []).append(self.until)
        clock = time.monotonic()
        result = self.integration.verify(gate)
        seconds = round(time.monotonic() - clock, 3)
        self.say(f"final check on {self.integration.branch}: "
                 f"{'passed' if result.passed else 'failed'}")
        return FinalCheck(result.passed, result.checks, result.feedback[-4000:], seconds)

    def complete(self) -> bool:
        """Every task done (merged, already, or the user's ``done``) and the final check
        passed: the fleet's exit 0."""
        return bool(self.final and self.final.passed) and all(
            status in DONE or (status == "skipped" and self.tasks[name].status == "skip")
            for name, status in self.status.items())

    def document(self) -> FleetDocument:
        document = super().document()
        tip = _git(self.repo, "rev-parse", "--verify", "-q",
                   f"refs/heads/{self.integration.branch}", check=False).strip()
        with self._lock:
            document.integration = IntegrationRecord(
                self.integration.branch, tip or None,
                [MergedTask(name, commit) for name, commit in self.merged], self.final)
        return document
