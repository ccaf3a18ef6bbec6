"""``run --tasks FILE``: a list worked through task by task, each one a session of the one
loop (:class:`~ralph_verify.loop.run_driver.RunDriver`) whose baseline is the task's gate: a
gate that passes already makes the task ``already``, no agent called. A task is done only
when its gate passes; what the agent says or ticks is never asked.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from ralph_verify.checks.registry import build_checks
from ralph_verify.checks.verification import REUSE_KEY, Reuse, verify
from ralph_verify.config.until import CheckSpec
from ralph_verify.errors import UsageError
from ralph_verify.exitcode import ExitCode
from ralph_verify.loop.keys import PROMPT_VALUES_KEY
from ralph_verify.loop.opening import new_session_id
from ralph_verify.loop.run_driver import RunDriver
from ralph_verify.loop.settings import SessionSettings, settings_for
from ralph_verify.loop.task_steps import (
    apply_from,
    head,
    interrupted,
    keep_file,
    notify_list,
    sealed,
    squash,
    start_tree,
    trusted,
    verified_commit,
)
from ralph_verify.loop.verdict import Verdict
from ralph_verify.project import git
from ralph_verify.tasks import order as rules
from ralph_verify.tasks.keys import (
    CURRENT_TASK_KEY,
    EDITED_FOLDER,
    TASK_COMMIT_KEY,
    TASK_FILE_KEY,
    task_commit,
)
from ralph_verify.tasks.model import Task
from ralph_verify.tasks.order import DONE, FINAL, next_ready, readiness
from ralph_verify.tasks.prompt import acceptance, learnings, task_body, task_table, task_text
from ralph_verify.tasks.state import TaskRecord, TasksState

if TYPE_CHECKING:
    from ralph_verify.config import Config
    from ralph_verify.config.stash import StashKey
    from ralph_verify.tasks.model import TaskList


@dataclass
class TaskListResult:
    """How a task list ended: its exit code, verdict and why."""

    exit_code: int
    verdict: str
    reason: str


class TaskListRun(rules.Driver):
    """One ``run --tasks``: the frozen list, its state, one loop session per task."""

    #: The command that takes a stopped list up again, in this driver's words.
    resume_command = "'run --tasks FILE --resume'"

    def __init__(self, config: Config, task_list: TaskList, stream: TextIO | None = None):
        self.config = config
        self.task_list = task_list
        self.stream = stream
        self.root = config.root
        self.extra = self._cli_specs()
        self.sessions = 0
        self.check_error = int(ExitCode.CHECK_ERROR)
        #: The task a killed or cancelled run left mid-way: ``--resume`` continues it.
        self.continuing: str | None = None
        # A task's gate is verified on the tree the last task's verification just saw: its
        # results answer again (one run of the suite per task switch), the final check's too.
        # (The Stop hook's own store, holding the verification that ended the last task.)
        if config.stash.get(REUSE_KEY) is None:
            config.stash[REUSE_KEY] = Reuse()

    def say(self, text: str) -> None:
        """``ralph-verify: TEXT`` to the terminal (every driver of the list speaks so)."""
        self.config.hook.ralph_report_line(config=self.config, line=f"ralph-verify: {text}")

    def _cli_specs(self) -> list[CheckSpec]:
        try:
            specs, _ = self.config.requested_specs()
        except UsageError:
            return []  # no --until and none in the config file: the tasks' checks decide
        return specs

    def start(self, task: Task, state: TasksState) -> tuple[list[CheckSpec], str]:
        """Mark ``task`` running from the tree as it is (or as it was when an interrupted
        run started it); its gate and the gate's text."""
        base = state.record(task.id).base or (
            head(self.root) if task.until else start_tree(self.root))
        gate = rules.gate(self.task_list, task, state.status(), base=base, extra=self.extra)["."]
        gate_text = ",".join(spec.text for spec in gate)
        state.set(task.id, "running", "", gate=gate_text, base=base)
        self.say(f"task {task.id} ({task.title}): gate {gate_text}")
        return gate, gate_text

    def run(self) -> TaskListResult:
        only = self.config.get("only")
        if only:
            return self._only(str(only))
        state = self._start_state()
        if self.config.get("from_task"):
            apply_from(self.task_list, state, str(self.config.get("from_task")))
        try:
            while True:
                task = (self.task_list.get(self.continuing) if self.continuing  # first: the
                        else next_ready(self.task_list, readiness(state.tasks)))  # interrupted
                if task is None:
                    break
                ended = self.settle(state, task, self._run_task(task, state))
                if ended is not None:
                    return ended
            return self._final(state)
        finally:
            name = self.task_list.path.name
            note = (f"{name} was edited during the session; the list was worked from the "
                    "copy read at its start and the file put back (the edit changed nothing; "
                    f"it is kept in .ralph/tasks/{EDITED_FOLDER}/{name})")
            edited = self.task_list.edited() or \
                (self.root / ".ralph" / "tasks" / EDITED_FOLDER / name).exists()
            if edited and note not in state.notes:
                state.notes.append(note)
                state.save()
                self.say(note)

    def settle(self, state: TasksState, task: Task, outcome: str) -> TaskListResult | None:
        """The rules after a task's session ended (both drivers): the end of the list, or
        ``None`` to go on with the next ready task."""
        if outcome == "check-error":
            return self._end(state, "check-error", f"task {task.id}: a check could "
                             "not decide at its baseline; fix it first")
        if outcome == "agent-error":
            return self._end(state, "agent-error", f"task {task.id}: the agent could not run")
        if outcome == "cancelled":
            return self._end(state, "cancelled", f"task {task.id} was cancelled; "
                             f"{self.resume_command} goes on")
        if outcome in ("failed", "blocked"):
            stop = self.failed(task.id, outcome, state.status(), state.set)
            return None if stop is None else self._end(state, "stopped", stop)
        self.failed_in_a_row = 0
        if self.config.get("pause_after_task") and \
                next_ready(self.task_list, readiness(state.tasks)) is not None:
            return self._end(state, "paused", f"task {task.id} {outcome}; "
                             f"{self.resume_command} takes the next")
        return None

    def _only(self, task_id: str) -> TaskListResult:
        """``--only ID``: that task alone (its dependencies done already), no final check."""
        ids = [task.id for task in self.task_list.tasks]
        if task_id not in ids:
            raise UsageError(f"--only {task_id}: no such task in {self.task_list.path.name}; "
                             f"its tasks are {', '.join(ids)}")
        previous = trusted(self.root, self.task_list)
        status = previous.status() if previous is not None else {}
        task = self.task_list.get(task_id)
        waiting = [dep for dep in self.task_list.dependencies(task) if status.get(dep) not in DONE]
        if waiting:
            raise UsageError(f"--only {task_id}: it depends on {', '.join(waiting)}, not done "
                             "yet; run those first (or the whole list without --only)")
        state = self._start_state(resume=previous is not None)  # keep done rows
        state.record(task_id).status = "todo"
        outcome = self._run_task(task, state)
        return self._end(state, "complete" if outcome in DONE else "incomplete",
                         f"task {task_id} {outcome} (--only)")

    def _start_state(self, resume: bool | None = None) -> TasksState:
        if resume is None:
            resume = bool(self.config.get("resume"))
        previous = trusted(self.root, self.task_list) if resume else None
        if resume and previous is None:
            raise UsageError(f"nothing to resume: no task list in {self.root} "
                             "(.ralph/tasks/state.json not found)")
        state = sealed(TasksState.start(self.root, self.task_list, previous.session if previous
                                        else new_session_id()))
        keep_file(state, self.task_list.text)
        if previous is not None:
            state.notes = previous.notes
            self.sessions = 1  # go on on the branch the interrupted run was on
            for row in previous.tasks:
                task = next((t for t in self.task_list.tasks if t.id == row.id), None)
                if task is None:
                    continue
                if row.status == "running" or row.reason.startswith("cancelled"):
                    # Under way when the run died or was stopped: its session goes on.
                    if interrupted(self.root, row.id):
                        self.continuing = row.id
                    state.record(row.id).base = row.base
                    continue
                if row.status in DONE and row.fingerprint != task.fingerprint():
                    continue  # changed since it passed: verified again
                state.record(row.id).__dict__.update(row.__dict__)
        state.verdict = None
        state.save()
        state.log({"event": "start", "file": str(self.task_list.path),
                   "resume": previous is not None})
        return state

    def task_options(self, task: Task) -> dict[str, Any]:
        """What a task fixes for its session over the command line and the file: its limits
        and agent (``--agent`` wins over the task file), and for the later tasks the tree
        and branch the first one left."""
        options = {key: getattr(task, key) for key in ("max_iterations", "max_time", "max_cost")
                   if getattr(task, key) is not None}
        if task.agent is not None and self.config.source_of("agent") != "command line":
            options["agent"] = task.agent
        if self.sessions:
            options.update(no_branch=True, allow_dirty=True)
        return options

    def task_prompt(self, task: Task, gate: list[CheckSpec], state: TasksState) -> str:
        """The prompt's ``{{task}}``: in the built-in template, the task with its gate, the
        list and the learnings (as the Stop hook and ``fleet`` give it); a ``--template``
        has placeholders of its own for those."""
        if self.config.get("template"):
            return task_body(task)
        return task_text(self.task_list, task, gate, state.status(), self.root)

    def task_settings(self, task: Task, gate: list[CheckSpec],
                      state: TasksState) -> SessionSettings:
        """The settings of a task's session: its gate, its text, its options; it resumes
        when it is the task an interrupted run left mid-way."""
        return settings_for(self.config, options=self.task_options(task), until=gate,
                            task=self.task_prompt(task, gate, state),
                            resume=self.continuing == task.id)

    @contextmanager
    def _task_context(self, task: Task, gate: list[CheckSpec],
                      state: TasksState) -> Iterator[None]:
        """What the task's session finds besides its settings: the prompt's task values, the
        name of the commit that completes it, ``$RALPH_TASK_ID``."""
        config = self.config
        status = state.status()
        self.continuing = None
        config.stash[CURRENT_TASK_KEY] = task.id
        config.stash[PROMPT_VALUES_KEY] = {
            "task_id": task.id, "task_title": task.title,
            "acceptance": acceptance(gate, task.until),
            "tasks": task_table(self.task_list, status, task.id),
            "learnings": learnings(self.root, self.task_list.learnings) or
            f"(none yet: write them to {self.task_list.learnings})"}
        config.stash[TASK_COMMIT_KEY] = task_commit(task.id, task.title,
                                                    ",".join(spec.text for spec in gate))
        if self.task_list.text:
            config.stash[TASK_FILE_KEY] = (self.task_list.path, self.task_list.text)
        before = os.environ.get("RALPH_TASK_ID")
        os.environ["RALPH_TASK_ID"] = task.id
        try:
            yield
        finally:
            self.sessions += 1
            keys: tuple[StashKey[Any], ...] = (TASK_COMMIT_KEY, TASK_FILE_KEY,
                                               CURRENT_TASK_KEY, PROMPT_VALUES_KEY)
            for key in keys:
                if key in config.stash:
                    del config.stash[key]
            if before is None:
                os.environ.pop("RALPH_TASK_ID", None)
            else:
                os.environ["RALPH_TASK_ID"] = before

    def _switch(self) -> None:
        """No agent ran since the last verification: its results may answer the next."""
        self.config.stash[REUSE_KEY].armed = True

    def _run_task(self, task: Task, state: TasksState) -> str:
        gate, gate_text = self.start(task, state)
        if self.continuing != task.id:  # a resumed session's next verification follows
            self._switch()  # an agent's turn
        try:
            settings = self.task_settings(task, gate, state)
            with self._task_context(task, gate, state):
                result = RunDriver(self.config, None, self.stream, settings).run()
        except UsageError as exc:  # e.g. a dirty tree: nothing ran, the task waits
            state.set(task.id, "todo", f"not started: {exc}")
            raise
        if result.verdict is None:  # a check could not decide at the task's baseline
            state.set(task.id, "todo", f"not started: {result.reason}")
            self.check_error = result.exit_code
            return "check-error"
        status, reason = status_of(result.verdict, result.reason, len(result.iterations), task)
        cost = sum((it.agent.cost_usd or 0.0) for it in result.iterations if it.agent)
        commit = None
        if status == "done" and state.record(task.id).base and \
                not self.config.get("no_commit"):
            commit = verified_commit(self.root, task.id, task.title, gate_text)
            if self.config.get("squash"):
                commit = squash(self.root, state.record(task.id).base, task.id)
            state.branch = git.current_branch(self.root)
        state.set(task.id, status, reason, iterations=len(result.iterations),
                  cost_usd=round(cost, 6), duration_s=round(result.duration_s, 3),
                  commit=commit)
        self.say(f"task {task.id}: {status} ({reason})")
        return status

    def _final(self, state: TasksState) -> TaskListResult:
        blocked = rules.final_blocked(state.tasks)
        if blocked is not None:
            return self._end(state, "incomplete", blocked)
        specs = self.final_specs(state)
        if specs:
            self._switch()
            verification = verify(self.config, build_checks(self.config, specs))
            state.log({"event": "final", "passed": verification.passed,
                       "checks": [r.spec for r in verification.results]})
            if not verification.passed:
                return self.fixed_up(state, self._fix_up(state, specs, verification.feedback))
        return self.fixed_up(state, "done")

    def fixed_up(self, state: TasksState, status: str) -> TaskListResult:
        """The end of a list whose final check passed, or whose fix-up task ended."""
        return self._end(state, *rules.final_verdict(status in DONE, fixed_up=True))

    def final_specs(self, state: TasksState) -> list[CheckSpec]:
        """The whole-project check after the last task (the rulebook's, in one tree)."""
        return rules.final_specs(self.task_list, state.status(), extra=self.extra).get(".", [])

    def _fix_up(self, state: TasksState, specs: list[CheckSpec], feedback: str) -> str:
        """One short task, ``FINAL``, with the final check's feedback as its prompt."""
        task = rules.fix_up_task(specs, feedback)
        if all(row.id != FINAL for row in state.tasks):
            state.tasks.append(TaskRecord(FINAL, task.title, fingerprint=task.fingerprint()))
        return self._run_task(task, state)

    def _end(self, state: TasksState, verdict: str, reason: str) -> TaskListResult:
        state.verdict = verdict
        state.save()
        state.log({"event": "end", "verdict": verdict, "reason": reason})
        self.say(f"task list {verdict}: {reason}")
        notify_list(self.config, state, verdict, reason)
        self.config.hook.ralph_report_tasks(config=self.config, tasks=state)
        for row in state.tasks:  # cancelled mid-way: the next --resume goes on with it
            if verdict == "cancelled" and row.status == "cancelled":
                state.set(row.id, "todo", f"cancelled; {self.resume_command} goes on")
        code = {"complete": ExitCode.OK, "paused": ExitCode.OK, "check-error": self.check_error,
                "cancelled": ExitCode.CANCELLED}.get(verdict, 1)
        return TaskListResult(int(code), verdict, reason)


def status_of(verdict: Verdict, reason: str, iterations: int, task: Task) -> tuple[str, str]:
    """A task's status (and why) from its loop session's verdict, after ``iterations``."""
    if verdict in (Verdict.COMPLETE, Verdict.NOTHING_TO_DO) and not iterations:
        return "already", "its checks passed before any work; the agent was not called"
    if verdict is Verdict.COMPLETE:
        word = " (until = promise: the agent's word)" if task.promise_only else ""
        return "done", f"its gate passed after {iterations} iteration(s){word}"
    if verdict in (Verdict.BLOCKED, Verdict.AGENT_ERROR, Verdict.CANCELLED):
        return verdict.value, reason
    return "failed", f"{verdict.value}: {reason}"


def run_task_list(config: Config, task_list: TaskList, stream: TextIO | None = None) -> int:
    """``run --tasks``: the exit code (0 only when every task is done and ``final`` passes)."""
    result = TaskListRun(config, task_list, stream).run()
    print(f"task list: {result.verdict}: {result.reason}", file=sys.stderr)
    return result.exit_code
