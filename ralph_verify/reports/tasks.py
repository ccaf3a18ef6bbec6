"""The report's task section: when the session is one task of a list (its task text is the
one the list gave it, ``# Task ID:``), the list's table from ``.ralph/tasks/state.json``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ralph_verify.display import duration

#: The CSS classes of a task's status: passed (green), failed (red), other (grey).
_PASSED = frozenset({"done", "already"})
_FAILED = frozenset({"failed", "blocked", "agent-error"})


@dataclass
class TaskRow:
    """One task's row: its kind (``passed``, ``failed``, ``skipped``) colours its status."""

    id: str
    title: str
    status: str
    kind: str
    iterations: int
    time: str
    cost: str
    commit: str
    gate: str
    reason: str
    current: bool


@dataclass
class TaskSection:
    """The report's ``Tasks`` section (``templates/report.html``)."""

    file: str
    verdict: str
    status: str
    done: int
    mine: str
    rows: list[TaskRow]
    notes: list[str]


def task_section(ralph_dir: Path, task_text: str) -> TaskSection | None:
    """The list this session is one task of, as its section shows it; ``None`` outside one."""
    if not task_text.startswith("# Task "):
        return None
    from ralph_verify.tasks.state import TasksState  # pydantic's import only for a task list

    state = TasksState.read(ralph_dir.parent)
    if state is None or not any(task_text.startswith(f"# Task {row.id}:")
                                for row in state.tasks):
        return None
    mine = task_text.split(":", 1)[0].removeprefix("# Task ")
    rows = [TaskRow(row.id, row.title, row.status,
                    "passed" if row.status in _PASSED else "failed" if row.status in _FAILED
                    else "skipped", row.iterations, duration(row.duration_s),
                    f"${row.cost_usd:.2f}" if row.cost_usd else "-", (row.commit or "-")[:10],
                    row.gate, row.reason, row.id == mine)
            for row in state.tasks]
    return TaskSection(Path(state.file).name, state.verdict or "",
                       state.verdict or (f"running {state.current}" if state.current
                                         else "open"),
                       sum(row.status in _PASSED for row in state.tasks), mine, rows,
                       list(state.notes))
