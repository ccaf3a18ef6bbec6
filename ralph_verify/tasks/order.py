"""The rulebook of a task list, one for its three drivers (``run --tasks``, the Stop hook of
``start --tasks``, ``fleet``): the next ready task, a task's gate, what a failure does
(``on-fail``, three in a row), the ``final`` check and its fix-up task. It reads no file:
the drivers run, verify and record. Without any ``depends-on`` the list is a chain in file
order; with one, only declared ones count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from ralph_verify.config.until import CheckSpec, parse_spec
from ralph_verify.tasks.keys import EVIDENCE
from ralph_verify.tasks.model import Task, TaskList
from ralph_verify.tasks.state import FILE_SKIP, TaskRecord

#: Statuses after which a task's dependents may start.
DONE = frozenset({"done", "already"})
#: Failed tasks in a row that end the session whatever ``on-fail`` says.
FAILED_IN_A_ROW = 3
#: The fix-up task after a failing final check, and its iteration cap.
FINAL = "FINAL"
FINAL_ITERATIONS = 3
#: The reasons of the tasks the user set aside with ``--from``, ``tasks skip`` (or in the
#: file: :data:`~ralph_verify.tasks.state.FILE_SKIP`).
FROM_REASON = "before --from "
USER_SKIP = "skipped by the user"


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
    return next(iter(ready(task_list, status)), None)


def ready(task_list: TaskList, status: Mapping[str, str]) -> list[Task]:
    """Every ``todo`` task whose dependencies are done, in order (a fleet starts them all)."""
    return [task for task in ordered(task_list) if status.get(task.id, "todo") == "todo"
            and all(status.get(dep) in DONE for dep in task_list.dependencies(task))]


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


def passed_over(status: str, reason: str) -> bool:
    """A task the user set aside (``skip`` in the file, ``--from``, ``tasks skip``): it holds
    nothing up and leaves the list complete."""
    return status == "skipped" and (reason == FILE_SKIP or
                                    reason.startswith((FROM_REASON, USER_SKIP)))


def readiness(rows: Iterable[TaskRecord]) -> dict[str, str]:
    """The statuses the next task is chosen by: a task the user set aside holds nothing up
    (its checks still join no gate)."""
    return {row.id: "already" if passed_over(row.status, row.reason) else row.status
            for row in rows}


def _by_folder(parts: Iterable[tuple[str, Iterable[CheckSpec]]]) -> dict[str, list[CheckSpec]]:
    """Folder -> its checks, each once (by its text), in order."""
    gate: dict[str, dict[str, CheckSpec]] = {}
    for folder, specs in parts:
        for spec in specs:
            gate.setdefault(folder, {}).setdefault(spec.text, spec)
    return {folder: list(specs.values()) for folder, specs in gate.items()}


def gate(task_list: TaskList, task: Task, status: Mapping[str, str], *,
         base: str | None = None, extra: Sequence[CheckSpec] = (),
         folders: bool = False) -> dict[str, list[CheckSpec]]:
    """Folder -> the checks that decide ``task``: its own (without any: its fail-to-pass
    tests since ``base``), its ``keep``, every done task's own checks, the list's ``keep``
    and ``extra`` (``--until``). Each in the task's folder when ``folders`` (a fleet), else
    all under ``"."`` (one tree)."""
    own = task.until if task.until or not base else (parse_spec(f"{EVIDENCE}:{base}"),)
    where = task.folder if folders else "."
    done = [((other.folder if folders else "."), other.until) for other in task_list.tasks
            if status.get(other.id) in DONE and other.id != task.id]
    return _by_folder([(where, own), (where, task.keep), *done, (where, task_list.keep),
                       (where, extra)]) or {where: []}


class Driver:
    """What every driver of the list (``run --tasks``, the Stop hook, ``fleet``) keeps between
    tasks by this rulebook: the failed tasks in a row, and what a failure does to the rest."""

    task_list: TaskList
    failed_in_a_row = 0

    def failed(self, task_id: str, outcome: str, status: Mapping[str, str],
               set_status: Callable[[str, str, str], object]) -> str | None:
        """Skip the tasks still waiting for ``task_id``; why the list stops (``on-fail =
        "stop"``, :data:`FAILED_IN_A_ROW`), or ``None``: it goes on."""
        self.failed_in_a_row += 1
        for other in dependents(self.task_list, task_id):
            if status.get(other, "todo") == "todo":
                set_status(other, "skipped", f"depends on {task_id}, {outcome}")
        if self.task_list.on_fail == "stop":
            return f'task {task_id} {outcome} (on-fail = "stop")'
        if self.failed_in_a_row >= FAILED_IN_A_ROW:
            return f"{FAILED_IN_A_ROW} tasks failed in a row"
        return None


def ended(verdict: str) -> str:
    """A task's status when its loop ended ``verdict`` without completing: ``blocked`` (the
    agent's ``<promise>BLOCKED``) stays ``blocked``, anything else is ``failed``; both count
    as failures for :meth:`Driver.failed`."""
    return "blocked" if verdict == "blocked" else "failed"


def final_verdict(passed: bool, fixed_up: bool) -> tuple[str, str]:
    """The list's verdict and reason once every task is done, by its final check."""
    if passed:
        return "complete", "every task is done and the final check passes"
    return "final-failed", ("every task is done but the final check fails"
                            + (", and the fix-up task did not fix it" if fixed_up else ""))


def final_blocked(rows: Sequence[TaskRecord]) -> str | None:
    """Why the list is ``incomplete`` without a final check (a task neither done nor set
    aside, or passed over with ``--from``); ``None`` when the final check is due."""
    unfinished = [row for row in rows if row.status not in DONE and
                  not passed_over(row.status, row.reason)]
    if unfinished:
        return "not every task is done: " + ", ".join(f"{row.id} {row.status}"
                                                      for row in unfinished)
    jumped = [row.id for row in rows if row.reason.startswith(FROM_REASON)]
    if jumped:
        return (f"{', '.join(jumped)} passed over with --from (the user's choice, not done): "
                "the list is not complete")
    return None


def final_specs(task_list: TaskList, status: Mapping[str, str], *,
                extra: Sequence[CheckSpec] = (), folders: bool = False
                ) -> dict[str, list[CheckSpec]]:
    """Folder -> the whole-project check after the last task: ``final``, else every task's
    checks (but a skipped task's: it did no work) and ``extra``; judged outside any task's
    session (no promise, no ``tests:new`` baseline)."""
    if task_list.final is not None:
        parts: list[tuple[str, Iterable[CheckSpec]]] = [(".", task_list.final)]
    else:
        parts = [((task.folder if folders else "."), (*task.until, *task.keep))
                 for task in task_list.tasks if status.get(task.id) != "skipped"]
        parts.append((".", extra))
    return _by_folder((folder, [spec for spec in specs if spec.name != "promise"
                                and spec.arg != "new"]) for folder, specs in parts)


def fix_up_task(specs: Sequence[CheckSpec], feedback: str) -> Task:
    """The short task ``FINAL`` after a failing final check, with its feedback as prompt."""
    return Task(id=FINAL, title="Make the whole-project check pass",
                prompt="Every task of the list is done, but the whole-project check fails:"
                       f"\n\n{feedback}" if feedback else "", until=tuple(specs),
                depends_on=(), max_iterations=FINAL_ITERATIONS)
