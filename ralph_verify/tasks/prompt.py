"""The text a task gives the loop's prompt (its ``{{task}}``): the task itself, what decides
it (the gate, in words), the list with its statuses, and the learnings file under a budget.

The prompt gets one line per task, never ralph-verify's log; the agent's own learnings are
cut to their ``## Patterns`` section and last entry when they outgrow the budget.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from ralph_verify.config.until import CheckSpec
from ralph_verify.tasks.model import Task, TaskList

#: The learnings file's share of a prompt, in bytes.
LEARNINGS_BUDGET = 4096


def acceptance(gate: Sequence[CheckSpec], own: Sequence[CheckSpec]) -> str:
    """The gate in words: what must pass before ralph-verify calls the task done."""
    mine = {spec.text for spec in own}
    lines = [f"- {spec.text}" + (" (this task's own checks)" if spec.text in mine else
                                 " (kept: earlier tasks and the whole project)")
             for spec in gate]
    return "\n".join(lines)


def task_table(task_list: TaskList, status: Mapping[str, str], current: str) -> str:
    return "\n".join(f"- [{status.get(task.id, 'todo')}] {task.id}: {task.title}"
                     + ("  <- this one" if task.id == current else "")
                     for task in task_list.tasks)


def learnings(root: Path, name: str, budget: int = LEARNINGS_BUDGET) -> str:
    """The agent's learnings file as the prompt shows it (empty when there is none)."""
    try:
        text = (root / name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    if len(text.encode()) <= budget:
        return text.strip()
    patterns = re.search(r"^## Patterns\b.*?(?=^## |\Z)", text, re.M | re.S)
    entries = re.split(r"^(?=## )", text, flags=re.M)
    last = entries[-1] if entries else ""
    kept = "\n".join(part.strip() for part in (patterns[0] if patterns else "", last) if part)
    return kept.encode()[:budget].decode(errors="ignore").strip()


def task_body(task: Task) -> str:
    """The task as the prompt's ``{{task}}``: its title, prompt and notes (the gate, the list
    and the learnings have placeholders of their own)."""
    parts = [f"# Task {task.id}: {task.title}", task.prompt.strip()]
    if task.notes.strip():
        parts.append(f"Notes:\n{task.notes.strip()}")
    return "\n\n".join(part for part in parts if part)


def task_text(task_list: TaskList, task: Task, gate: Sequence[CheckSpec],
              status: Mapping[str, str], root: Path) -> str:
    """The task with its gate, the list and the learnings in one text (for a template that
    has only ``{{task}}``, as the Stop hook's)."""
    parts = [f"# Task {task.id}: {task.title}", task.prompt.strip()]
    if task.notes.strip():
        parts.append(f"Notes:\n{task.notes.strip()}")
    parts.append("Done when these checks pass (ralph-verify runs them; ticking the task off "
                 "in a file or printing a promise does not count):\n"
                 + acceptance(gate, task.until))
    parts.append("The task list:\n" + task_table(task_list, status, task.id))
    known = learnings(root, task_list.learnings)
    if known:
        parts.append(f"Learnings so far ({task_list.learnings}; add what the next task "
                     f"should know):\n{known}")
    return "\n\n".join(part for part in parts if part)
