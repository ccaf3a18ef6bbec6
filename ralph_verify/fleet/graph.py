"""A fleet whose tasks depend on each other: the task list's rulebook
(:mod:`ralph_verify.tasks.order`) driven with a merge queue. Ready tasks go to the executor at
once, each from the integration branch's tip; a completed loop's branch is merged in the
list's order and verified against the task's gate. A conflict or failing gate sends the task
back once, on the new tip, with a note; the second time it is ``failed (merge)``. A task is
``done`` only once merged; the final check (and its fix-up task) runs on the integration branch.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ralph_verify.config.until import CheckSpec, parse_until
from ralph_verify.fleet.feed import JobFeed, feeding
from ralph_verify.fleet.job import JobResult, LoopJob, worktree_admin
from ralph_verify.fleet.merge import GateResult, Integration, MergeOutcome
from ralph_verify.fleet.run import Fleet
from ralph_verify.fleet.tasks import LoopSpec
from ralph_verify.project.git import branch_tip, git
from ralph_verify.records.fleet import (
    FinalCheck,
    FleetDocument,
    IntegrationRecord,
    LoopRecord,
    MergedTask,
)
from ralph_verify.tasks import order as rules
from ralph_verify.tasks.model import Task, TaskList
from ralph_verify.tasks.prompt import task_text
from ralph_verify.tasks.state import TaskRecord, initial_reason, initial_status

#: Loop verdicts that send a task to the merge queue.
MERGEABLE = frozenset({"complete", "nothing-to-do"})


class GraphFleet(Fleet, rules.Driver):
    """:class:`~ralph_verify.fleet.run.Fleet` driving the task list's rulebook
    (:mod:`ralph_verify.tasks.order`) with a merge queue; see the module docstring."""

    def __init__(self, *, graph: TaskList, tasks: Sequence[LoopSpec], integration: Integration,
                 until: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.task_list, self.integration = graph, integration
        self.extra = parse_until(until) if until else []
        self.loops = {task.name: task for task in tasks}
        self.order = [task.id for task in rules.ordered(graph) if task.id in self.loops]
        self.status: dict[str, str] = {}
        self.reason: dict[str, str] = {}
        self.planned: dict[str, LoopJob] = {}
        #: The checks each task's loop ran (its gate in its folder when it was released).
        self.loop_gate: dict[str, list[str]] = {}
        self.sent_back: set[str] = set()
        #: (task, merge commit), in merge order.
        self.merged: list[tuple[str, str]] = []
        self.final: FinalCheck | None = None
        #: The rulebook's fix-up task, once the final check failed.
        self.fix_up: Task | None = None
        #: Why the rulebook stopped the list (``on-fail = "stop"``, failures in a row).
        self.stopped: str | None = None
        self.verdict: tuple[str, str] | None = None
        self.feed = JobFeed([])
        self._queue: list[LoopJob] = []
        self._wake = threading.Condition(self._lock)
        self._stopping = False
        #: The integration branch's tip, moved by the merge queue only (a task released while
        #: a merge is being verified starts from the last verified merge, never from it).
        self.tip = ""

    # --- the graph --------------------------------------------------------------------------

    def _task(self, name: str) -> Task:
        return self.fix_up if self.fix_up and name == rules.FINAL else self.task_list.get(name)

    def _gate(self, task: Task) -> dict[str, list[CheckSpec]]:
        """Folder -> the checks that decide ``task`` (the fix-up task's: the final check)."""
        if task is self.fix_up:
            return self._final_specs()
        return rules.gate(self.task_list, task, self.status, extra=self.extra, folders=True)

    def _set(self, name: str, status: str, reason: str = "") -> None:
        self.status[name], self.reason[name] = status, reason
        record = self.records.setdefault(name, LoopRecord(name))
        record.title, record.task_status, record.task_reason = (
            self._task(name).title, status, reason)
        if status in ("skipped", "done") and record.status != "finished":
            # Never run: skipped for a dependency, or done by the user's word.
            record.status, record.verdict, record.reason = "finished", status, reason
            record.iterations, record.cost_usd = 0, 0.0
        self.save()  # fleet status sees it at once
        self.say(f"task {name}: {status}{' — ' + reason if reason else ''}")

    def _rows(self) -> list[TaskRecord]:
        return [TaskRecord(name, "", self.status[name], self.reason.get(name, ""))
                for name in self.order]

    def _release(self) -> None:
        """Start every ready task; close the feed once nothing runs or waits for its merge
        (nothing can become ready any more)."""
        with self._lock:
            if not self.cancelled.is_set():
                for task in rules.ready(self.task_list, rules.readiness(self._rows())):
                    self._set(task.id, "running")
                    self.feed.put(self._job(task.id))
            if not any(status in ("running", "merging") for status in self.status.values()) \
                    and not self._fixing_up():
                self.feed.close()

    def _fixing_up(self) -> bool:
        """Every task done (or set aside): the final check on the integration branch; if it
        fails, the rulebook's fix-up task as one more loop, once (its job: the first task's,
        with the fix-up's prompt, checks and iteration cap). True: that loop started."""
        if self.cancelled.is_set() or self.fix_up is not None or \
                rules.final_blocked(self._rows()) is not None:
            return False
        result = self._check()
        if result.passed:
            return False
        specs = self._final_specs()
        folder = "." if "." in specs else next(iter(specs), ".")
        self.fix_up = replace(rules.fix_up_task(specs.get(folder, []), result.feedback),
                              folder=folder)
        first = self.planned[self.order[0]]
        self.planned[rules.FINAL] = replace(
            first, name=rules.FINAL, folder=folder, prompt=self.fix_up.prompt,
            branch=f"ralph/fleet-{self.fleet_id}/{rules.FINAL}",
            run_args=[*first.run_args, "--max-iterations", str(rules.FINAL_ITERATIONS)])
        self.order.append(rules.FINAL)
        self._set(rules.FINAL, "running")
        self.feed.put(self._job(rules.FINAL))
        return True

    def _failed(self, name: str, status: str, reason: str) -> None:
        """A task failed: the rulebook skips its dependents, or stops the fleet (the fix-up
        task only ends: the final check decides)."""
        self._set(name, status, reason)
        if name == rules.FINAL:
            return
        self.stopped = self.failed(name, status, self.status, self._set)
        if self.stopped is not None:
            self.cancel(self.stopped)

    def _job(self, name: str, note: str = "") -> LoopJob:
        """The task's job from the integration branch's tip, with ``run --tasks``' task text;
        its loop's checks are its gate in its folder (its agent keeps done tasks green)."""
        planned, task = self.planned[name], self._task(name)
        args, skip = [], False
        for arg in planned.run_args:
            if skip or arg == "--until":
                skip = not skip
            elif not arg.startswith("--until="):
                args.append(arg)
        specs = self._gate(task)
        gate = self.loop_gate[name] = [spec.text for spec in specs.get(task.folder, [])]
        if gate:
            args += ["--until", ",".join(gate)]
        prompt = task_text(self.task_list, replace(task, prompt=planned.prompt),
                           specs.get(task.folder, []), self.status, self.integration.tree)
        return replace(planned, base=self.tip, prompt=prompt + (f"\n\n{note}" if note else ""),
                       run_args=args)

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
            else:
                self._failed(job.name, rules.ended(verdict),
                             f"its loop ended {verdict}: {record.reason}")
            self._release()

    def cancel(self, reason: str) -> None:
        super().cancel(reason)
        self.feed.close()

    # --- the merge queue --------------------------------------------------------------------

    def _next(self) -> LoopJob | None:
        """The finished task to merge next, in the list's order (dependencies, then file
        order): a task waits for the earlier ones still running, whichever ends first."""
        queued = {job.name: job for job in self._queue}
        for name in self.order:
            if name in queued:
                return queued[name]
            if self.status[name] in ("todo", "running") and not self.cancelled.is_set():
                return None
        return None

    def _merge_loop(self) -> None:
        while True:
            with self._lock:
                job = self._next()
                while job is None and not self._stopping:
                    self._wake.wait(0.5)
                    job = self._next()
                job = job or (self._queue[0] if self._queue else None)  # stopped: the rest
                if job is None:
                    return
                self._queue.remove(job)
            try:
                self._merge(job)
            except Exception as exc:  # a git failure: the task fails, the fleet goes on
                with self._lock:
                    self._failed(job.name, "failed (merge)", f"{type(exc).__name__}: {exc}")
            self._release()

    def _merge(self, job: LoopJob) -> None:
        task = self._task(job.name)
        if self.cancelled.is_set():
            with self._lock:
                self._set(job.name, "cancelled", "not merged: " + self.cancel_reason)
            return
        record = self.records[job.name]
        message = (f"{task.id}: {task.title}\n\nRalph-Task: {task.id}\n"
                   f"Ralph-Fleet: {self.fleet_id}\n")
        gate = {folder: [spec.text for spec in group]
                for folder, group in self._gate(task).items()}
        clock = time.monotonic()
        # Nothing merged since the task's loop started from the tip, and its loop ran this
        # very gate: the merged tree is the one its loop verified, no second verification.
        verified = (self.tip == job.base
                    and gate == {task.folder: self.loop_gate.get(task.id)})
        outcome = self.integration.merge(job.branch, message, gate, verified=verified)
        record.gate = gate
        record.gate_verified_by = "its loop" if verified else "the merge queue"
        record.merge_s = round(time.monotonic() - clock, 3)
        if outcome.ok:
            with self._lock:
                self.merged.append((task.id, outcome.commit))
                self.failed_in_a_row = 0
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
                self._failed(job.name, "failed (merge)",
                             f"{note.splitlines()[0]} (branch {job.branch} kept)")
            return
        self.sent_back.add(job.name)
        if job.mode == "worktree" and record.workdir:
            with worktree_admin(self.integration.workdir):
                git(self.repo, "worktree", "remove", "--force", record.workdir, check=False)
        first = f"{job.branch}-try1"
        git(self.repo, "branch", "-M", job.branch, first, check=False)
        with self._lock:
            record.merge_note, record.first_try = note, first
            self._set(job.name, "running", f"sent back once: {note.splitlines()[0]}")
            self.feed.put(self._job(job.name, note))

    def _note(self, job: LoopJob, outcome: MergeOutcome) -> str:
        """Why the merge failed, for the task's second run and the report."""
        if outcome.conflicts:
            first = []
            for name, commit in self.merged:
                if git(self.repo, "merge-base", commit, job.base, check=False).strip() == commit:
                    continue  # already in the tree the task started from
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

    # --- the run ----------------------------------------------------------------------------

    def run(self, jobs: Sequence[LoopJob] | JobFeed, executor: Any) -> None:
        planned = list(getattr(jobs, "planned", jobs))
        self.planned = {job.name: job for job in planned}
        self.plan(planned)  # as Fleet.run would: a task released but never started is not-run
        self.feed = JobFeed(planned)
        self.out.mkdir(parents=True, exist_ok=True)
        self.integration.open()
        self.tip = self.integration.tip()
        initial = initial_status(self.task_list)
        for name in self.order:
            self.status[name] = "todo"
            if initial[name] != "todo":
                self._set(name, initial[name], initial_reason(self.task_list.get(name)))
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
            self.verdict = self._final() if not self.cancelled.is_set() else (
                ("stopped", self.stopped) if self.stopped else ("cancelled", self.cancel_reason))
            self.integration.close()
            self.save()

    def _final(self) -> tuple[str, str]:
        """The list's verdict: the rulebook's ``final`` check on the integration branch once
        every task is done, again after a fix-up task that was merged."""
        blocked = rules.final_blocked([row for row in self._rows() if row.id != rules.FINAL])
        if blocked is not None:
            return "incomplete", blocked
        if self.final is None or self.status.get(rules.FINAL) in rules.DONE:
            self._check()
        assert self.final is not None
        return rules.final_verdict(self.final.passed, fixed_up=self.fix_up is not None)

    def _final_specs(self) -> dict[str, list[CheckSpec]]:
        """Folder -> the final check (default: every task's checks + ``--until``)."""
        return rules.final_specs(self.task_list, self.status, extra=self.extra, folders=True)

    def _check(self) -> GateResult:
        """The final check on the integration branch's tip, recorded."""
        clock = time.monotonic()
        result = self.integration.verify({folder: [spec.text for spec in group]
                                          for folder, group in self._final_specs().items()})
        self.final = FinalCheck(result.passed, result.checks, result.feedback[-4000:],
                                round(time.monotonic() - clock, 3))
        self.say(f"final check on {self.integration.branch}: "
                 f"{'passed' if result.passed else 'failed'}")
        return result

    def complete(self) -> bool:
        """Every task done (merged, already, or the user's ``done``) and the final check
        passed: the fleet's exit 0."""
        return self.verdict is not None and self.verdict[0] == "complete"

    def document(self) -> FleetDocument:
        document = super().document()
        tip = branch_tip(self.repo, self.integration.branch)
        with self._lock:
            verdict, reason = self.verdict or (None, "")
            document.integration = IntegrationRecord(
                self.integration.branch, tip or None,
                [MergedTask(name, commit) for name, commit in self.merged], self.final,
                verdict, reason)
            document.loops.sort(key=lambda loop: self.order.index(loop.name)
                                if loop.name in self.order else len(self.order))
        return document
