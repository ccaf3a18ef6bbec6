"""Hook mode's task list, ``start --tasks FILE``: ``run --tasks``'s rules
(:class:`~ralph_verify.loop.task_list.TaskListRun`), each task a hook-mode session; the Stop hook
that ends one opens the next. The task file is frozen at ``start``, out of the agent's reach."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ralph_verify.config.until import CheckSpec, parse_spec
from ralph_verify.hookmode.protocol import log
from ralph_verify.hookmode.session import (
    epoch,
    fresh_hook,
    open_session,
    starting,
)
from ralph_verify.loop.frozen import FrozenError, freeze, thaw
from ralph_verify.loop.opening import new_session_id
from ralph_verify.loop.records import persisted_settings
from ralph_verify.loop.state import StateDir
from ralph_verify.loop.task_list import TaskListRun, status_of
from ralph_verify.loop.task_steps import trusted
from ralph_verify.records.codec import decode, encode
from ralph_verify.records.plugin_state import CheckpointState
from ralph_verify.records.session import FrozenRef, HookRecord, HookTasks
from ralph_verify.tasks.keys import TASK_BRANCH_KEY, TASK_COMMIT_KEY, TASK_FILE_KEY, task_commit
from ralph_verify.tasks.model import Task, TaskList
from ralph_verify.tasks.order import FINAL, fix_up_task
from ralph_verify.tasks.prompt import task_text
from ralph_verify.tasks.state import TasksState

if TYPE_CHECKING:
    from ralph_verify.config import Config
    from ralph_verify.loop.session import Session
    from ralph_verify.loop.task_list import TaskListResult
    from ralph_verify.loop.verdict import VerdictProposal


class _Waiting(Exception):
    """A task's session is open: the agent works on it until its next stop."""

    def __init__(self, task: Task, message: str) -> None:
        super().__init__(task.id)
        self.task = task
        self.message = message


class HookTaskList(TaskListRun):
    """``run --tasks``'s rules, each task a hook-mode session instead of a ``run``."""

    resume_command = "'ralph-verify start --resume'"

    def __init__(self, config: Config, task_list: TaskList, statedir: StateDir,
                 hook_base: HookRecord, base: dict[str, Any],
                 state: TasksState | None = None) -> None:
        super().__init__(config, task_list)
        self.statedir = statedir
        self.hook_base = hook_base
        #: The settings ``start`` was given (each task's own go over them).
        self.base = base
        self.carried_state = state
        #: What a check that could not decide at a task's baseline said.
        self.error = ""

    def go(self) -> tuple[TaskListResult | None, _Waiting | None]:
        """On with the list: its end, or the task whose session now waits for the agent."""
        try:
            return self.run(), None
        except _Waiting as waiting:
            return None, waiting

    def _start_state(self, resume: bool | None = None) -> TasksState:
        if self.carried_state is not None:
            return self.carried_state
        return super()._start_state(resume)

    def task_options(self, task: Task) -> dict[str, Any]:
        """``start``'s settings under the task's own; the tree and branch are the user's
        (``start``'s say), not those of the first task as under ``run``."""
        options = {**self.base, **super().task_options(task)}
        for key in ("no_branch", "allow_dirty"):
            options.pop(key, None)
            if self.base.get(key) is not None:
                options[key] = self.base[key]
        return options

    def task_prompt(self, task: Task, gate: list[CheckSpec], state: TasksState) -> str:
        """No template in hook mode (a ``--template`` setting included): the task's text."""
        return task_text(self.task_list, task, gate, state.status(), self.root)

    def _run_task(self, task: Task, state: TasksState) -> str:
        gate, _ = self.start(task, state)
        # In this Stop, nothing ran since the last task's verification (a fresh start or
        # resume has no results yet): they may answer this task's gate.
        self._switch()
        tasks = self.hook_base.tasks
        assert tasks is not None
        tasks.failed_in_a_row = self.failed_in_a_row
        branch = tasks.branch
        if branch:
            self.config.stash[TASK_BRANCH_KEY] = str(branch)
        settings = self.task_settings(task, gate, state)
        with self._task_context(task, gate, state):
            opened = open_session(self.config, self.statedir, new_session_id(), settings,
                                  self.hook_base)
        if opened.kind == "error":
            state.set(task.id, "todo", "not started: a check could not decide at its "
                                       "baseline")
            self.check_error, self.error = opened.code, opened.message
            return "check-error"
        if opened.kind in ("passed", "idle"):
            reason = "its checks passed before any work; the agent was not called"
            state.set(task.id, "already", reason, iterations=0)
            self.say(f"task {task.id}: already ({reason})")
            return "already"
        raise _Waiting(task, opened.message)


#: What a frozen task list that cannot be read raises.
UNREADABLE = (FrozenError, KeyError, TypeError, ValueError, AttributeError)


def thaw_list(ref: FrozenRef) -> tuple[TaskList, dict[str, Any], list[CheckSpec]]:
    """The task list ``start --tasks`` froze, its settings and ``--until``'s checks."""
    frozen = thaw(ref)
    return (decode(TaskList, frozen["list"]), dict(frozen["settings"]),
            [parse_spec(text) for text in frozen["extra"]])


# --- start --tasks ---------------------------------------------------------------------------


def start_task_list(config: Config, task_list: TaskList) -> int:
    """``start --tasks FILE``: freeze the list, open the first task's session (tasks whose
    checks pass already are ``already``), print its prompt; exit 0 while a task waits."""
    statedir = StateDir(config.root)
    list_id = new_session_id()
    with starting(statedir, list_id):
        base = persisted_settings(config)
        runner = HookTaskList(config, task_list, statedir, fresh_hook(config), base)
        frozen = freeze(config.root, f"tasks-{list_id}", "tasks.json", {
            "list": encode(task_list), "settings": base,
            "extra": [spec.text for spec in runner.extra]})
        runner.hook_base.tasks = HookTasks(frozen)
        result, waiting = runner.go()
    if waiting is not None:
        total = len(task_list.tasks)
        print(f"ralph-verify: task list {task_list.path.name} ({total} task"
              f"{'s' if total != 1 else ''}), hook mode: task {waiting.task.id} first; the "
              "Stop hook verifies each task and gives the next")
        print(waiting.message)
        return 0
    assert result is not None
    if runner.error:
        print(runner.error)
    print(f"task list: {result.verdict}: {result.reason}")
    return result.exit_code


# --- the Stop hook ---------------------------------------------------------------------------


def name_task_commit(config: Config, hook: HookRecord) -> None:
    """Before a stop's iteration: the commit that completes the current task is named after
    it (``Ralph-Task:``, ``Ralph-Verified:``), as under ``run --tasks``."""
    if hook.tasks is None:
        return
    state = trusted(config.root)
    if state is None or state.current is None:
        return
    row = state.record(state.current)
    config.stash[TASK_COMMIT_KEY] = task_commit(row.id, row.title, row.gate)
    try:
        task_list, _, _ = thaw_list(hook.tasks.frozen)
    except UNREADABLE:
        return  # said at the end of the stop (after_session)
    if task_list.text:
        config.stash[TASK_FILE_KEY] = (task_list.path, task_list.text)


def after_session(config: Config, statedir: StateDir, session: Session,
                  hook: HookRecord, verdict: VerdictProposal,
                  answer: dict[str, Any]) -> dict[str, Any]:
    """A task's session ended at this stop: record the task, then open the next task's
    session and block the stop with its prompt, or end the list and let the agent stop.
    ``answer`` (the session's own) is returned as it is outside a task list."""
    record = hook.tasks
    if record is None:
        return answer
    if TASK_COMMIT_KEY in config.stash:
        del config.stash[TASK_COMMIT_KEY]
    try:
        task_list, base, extra = thaw_list(record.frozen)
    except UNREADABLE as exc:
        log(config.root, "stop", f"the frozen task list cannot be read: {exc}")
        return {"systemMessage": f"ralph-verify: the task list's frozen copy cannot be read "
                                 f"({exc}); letting the agent stop. 'ralph-verify start --tasks "
                                 "FILE' starts the list again"}
    state = trusted(config.root, task_list)
    if state is None or state.current is None:
        return answer
    branch = CheckpointState.of(session.plugin_state).branch
    carried = HookRecord(agent=hook.agent, session_id=hook.session_id, bound_by=hook.bound_by,
                         blocks_in_a_row=hook.blocks_in_a_row + 1, last_decision="block",
                         last_stop_at=hook.last_stop_at,
                         tasks=replace(record, branch=branch or record.branch))
    # The next task's session is made from the configuration frozen at start (this one's).
    runner = HookTaskList(session.config, task_list, statedir, carried, base, state)
    runner.extra = extra
    runner.failed_in_a_row = record.failed_in_a_row
    runner.sessions = 1
    current = state.current
    # The fix-up task's prompt went with the block that opened it: its checks decide now.
    task = fix_up_task(runner.final_specs(state), "") if current == FINAL \
        else task_list.get(current)
    status = _record_task(config, state, session, verdict, task)
    ended: TaskListResult | None
    waiting: _Waiting | None = None
    if current == FINAL:
        ended = runner.fixed_up(state, status)
    else:
        ended = runner.settle(state, task, status)
        if ended is None:
            ended, waiting = runner.go()
    if waiting is not None:
        head = (f"ralph-verify: task {current} is {status}. Next, task {waiting.task.id} "
                f"({waiting.task.title}); it is done only when its checks pass.")
        return {"decision": "block", "reason": f"{head}\n\n{waiting.message}",
                "systemMessage": f"ralph-verify: task {current} {status}; next task "
                                 f"{waiting.task.id}"}
    assert ended is not None
    return {"systemMessage": f"ralph-verify: task {current} {status}; task list "
                             f"{ended.verdict}: {ended.reason}"}


def _record_task(config: Config, state: TasksState, session: Session,
                 verdict: VerdictProposal, task: Task) -> str:
    """The task's row from its session's verdict (the same mapping as ``run --tasks``)."""
    started = epoch(session.started_at) or time.time()
    duration = max(0.0, time.time() - started)
    status, reason = status_of(verdict.verdict, verdict.reason, len(session.iterations), task)
    last = session.last
    state.branch = CheckpointState.of(session.plugin_state).branch or state.branch
    state.set(task.id, status, reason, iterations=len(session.iterations), cost_usd=0.0,
              duration_s=round(duration, 3),
              commit=last.commit if last is not None and status == "done" else None)
    config.hook.ralph_report_line(config=config, line=f"ralph-verify: task {task.id}: {status} "
                                                      f"({reason})")
    return status
