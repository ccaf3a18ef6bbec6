"""The report's task section: when the session is one task of a list (``run --tasks``,
``start --tasks``), the list's table from ``.ralph/tasks/state.json`` -- each task's status,
iterations, time, cost, commit, gate and why -- with the session's own task marked.

A session belongs to the list when its task text is the one the list gave it (``# Task ID:``);
a plain ``run`` after a list shows no task section.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_verify.display import duration

if TYPE_CHECKING:
    from ralph_verify.tasks.state import TasksState

#: The CSS classes of a task's status: passed (green), failed (red), other (grey).
_PASSED = frozenset({"done", "already"})
_FAILED = frozenset({"failed", "blocked", "agent-error"})


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def list_of(ralph_dir: Path, task_text: str) -> TasksState | None:
    """The task list this session is one task of, or ``None``."""
    if not task_text.startswith("# Task "):
        return None
    from ralph_verify.tasks.state import TasksState  # pydantic's import only for a task list

    state = TasksState.read(ralph_dir.parent)
    if state is None or not any(task_text.startswith(f"# Task {row.id}:")
                                for row in state.tasks):
        return None
    return state


def task_section(ralph_dir: Path, task_text: str) -> str:
    """The ``<h2>Tasks</h2>`` section, or nothing outside a task list."""
    state = list_of(ralph_dir, task_text)
    if state is None:
        return ""
    mine = task_text.split(":", 1)[0].removeprefix("# Task ")
    verdict = state.verdict or (f"running {state.current}" if state.current else "open")
    done = sum(row.status in _PASSED for row in state.tasks)
    rows = []
    for row in state.tasks:
        kind = "passed" if row.status in _PASSED else "failed" if row.status in _FAILED \
            else "skipped"
        cost = f"${row.cost_usd:.2f}" if row.cost_usd else "-"
        current = ' data-current="true"' if row.id == mine else ""
        rows.append(
            f'<tr class="task" data-task="{_e(row.id)}" data-status="{_e(row.status)}"'
            f' data-iterations="{row.iterations}"{current}>'
            f"<td><code>{_e(row.id)}</code>{' ◀' if current else ''}</td>"
            f"<td>{_e(row.title)}</td>"
            f'<td class="status-{kind}">{_e(row.status)}</td><td>{row.iterations}</td>'
            f"<td>{_e(duration(row.duration_s))}</td><td>{_e(cost)}</td>"
            f"<td><code>{_e((row.commit or '-')[:10])}</code></td>"
            f"<td><code>{_e(row.gate)}</code></td><td>{_e(row.reason)}</td></tr>")
    notes = "".join(f'<p class="muted task-note">{_e(note)}</p>' for note in state.notes)
    return (f'<h2>Tasks</h2>\n<p id="task-list" data-verdict="{_e(state.verdict or "")}" '
            f'data-done="{done}" data-tasks="{len(state.tasks)}">Task list '
            f"<code>{_e(Path(state.file).name)}</code>: {_e(verdict)}, {done} of "
            f"{len(state.tasks)} tasks done; this session is task <code>{_e(mine)}</code>."
            "</p>\n"
            '<table id="tasks"><thead><tr><th>task</th><th>title</th><th>status</th>'
            "<th>iterations</th><th>time</th><th>cost</th><th>commit</th><th>gate</th>"
            f"<th>why</th></tr></thead><tbody>{''.join(rows)}</tbody></table>\n{notes}")
