"""The order of a task list (its graph was checked when the file was read: model.py): the
tasks in order, the next ready task, the dependents a failed task skips.

No ``depends-on`` anywhere: the list is a chain, in file order. Once any task names one,
only declared dependencies count.
"""

from __future__ import annotations

from collections.abc import Mapping

from ralph_verify.tasks.model import Task, TaskList

#: Statuses after which a task's dependents may start.
DONE = frozenset({"done", "already"})
#: Statuses of a task that will not run (again) in this session.
FINISHED = frozenset({"done", "already", "failed", "blocked", "skipped", "agent-error"})


def ordered(task_list: TaskList) -> list[Task]:
    """Every task, each after its dependencies, else in file order."""
    placed: list[Task] = []
    seen: set[str] = set()
    while len(placed) < len(task_list.tasks):
        for task in task_list.tasks:
            if task.id not in seen and all(d in seen for d in task_list.dependencies(task)):
                placed.append(task)
                seen.add(task.id)
                break
    return placed


def next_ready(task_list: TaskList, status: Mapping[str, str]) -> Task | None:
    """The first ``todo`` task whose dependencies are all done."""
    for task in ordered(task_list):
        if status.get(task.id, "todo") == "todo" and all(
                status.get(dep) in DONE for dep in task_list.dependencies(task)):
            return task
    return None


def dependents(task_list: TaskList, task_id: str) -> list[str]:
    """Every task that waits for ``task_id``, however far down."""
    found: list[str] = []
    frontier = [task_id]
    while frontier:
        current = frontier.pop()
        for task in task_list.tasks:
            if current in task_list.dependencies(task) and task.id not in found:
                found.append(task.id)
                frontier.append(task.id)
    return found


def initial_status(task_list: TaskList) -> dict[str, str]:
    """The user's statuses: ``skip`` becomes ``skipped``, ``done`` stays done."""
    return {task.id: {"skip": "skipped"}.get(task.status, task.status)
            for task in task_list.tasks}
