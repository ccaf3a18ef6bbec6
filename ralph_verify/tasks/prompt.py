"""A task's text in the loop's prompt (its ``{{task}}``): the task, its gate in words, the
list (one line per task) and the learnings file, each under a budget."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from ralph_verify.config.until import CheckSpec
from ralph_verify.tasks.keys import EVIDENCE, EVIDENCE_ASK
from ralph_verify.tasks.model import Task, TaskList

#: The learnings file's share of a prompt, in bytes.
LEARNINGS_BUDGET = 4096
#: The task list's share of a prompt, in characters (150 tasks were 19.6 K without one).
LIST_BUDGET = 3000


def acceptance(gate: Sequence[CheckSpec], own: Sequence[CheckSpec]) -> str:
    """The gate in words: what must pass before ralph-verify calls the task done."""
    mine = {spec.text for spec in own} | {spec.text for spec in gate if spec.name == EVIDENCE}
    lines = [f"- {spec.text}" + (" (this task's own checks)" if spec.text in mine else
                                 " (kept: earlier tasks and the whole project)")
             for spec in gate]
    return "\n".join(lines)


def task_table(task_list: TaskList, status: Mapping[str, str], current: str,
               budget: int = LIST_BUDGET) -> str:
    """One line per task; past ``budget`` characters, the lines around the current task and
    a count of the others."""
    lines = [f"- [{status.get(task.id, 'todo')}] {task.id}: {task.title}"
             + ("  <- this one" if task.id == current else "") for task in task_list.tasks]
    if sum(len(line) + 1 for line in lines) <= budget:
        return "\n".join(lines)
    here = next((i for i, task in enumerate(task_list.tasks) if task.id == current), 0)
    start = end = here
    used = len(lines[here])
    while True:  # a few before, the rest after, as the budget allows
        grow = end + 1 if end + 1 < len(lines) and (here - start >= 3 or start == 0) \
            else start - 1 if start > 0 else None
        if grow is None or used + len(lines[grow]) + 1 > budget - 200:
            break
        used += len(lines[grow]) + 1
        start, end = min(start, grow), max(end, grow)
    def counted(tasks: Sequence[Task]) -> str:
        counts: dict[str, int] = {}
        for task in tasks:
            counts[status.get(task.id, "todo")] = counts.get(status.get(task.id, "todo"), 0) + 1
        return ", ".join(f"{n} {name}" for name, n in counts.items())
    before, after = task_list.tasks[:start], task_list.tasks[end + 1:]
    return "\n".join([*([f"- ({len(before)} earlier tasks: {counted(before)})"] if before else []),
                      *lines[start:end + 1],
                      *([f"- ({len(after)} later tasks: {counted(after)}; 'ralph-verify tasks "
                         "status' shows every task)"] if after else [])])


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


def is_task_text(text: str, task_id: str) -> bool:
    """Whether a session's task text (:func:`task_body` heads it) is task ``task_id``'s."""
    return text.startswith(f"# Task {task_id}:")


def task_body(task: Task) -> str:
    """The task as the prompt's ``{{task}}``: its title, prompt and notes (the gate, the list
    and the learnings have placeholders of their own)."""
    parts = [f"# Task {task.id}: {task.title}", task.prompt.strip()]
    if task.notes.strip():
        parts.append(f"Notes:\n{task.notes.strip()}")
    if not task.until:
        parts.append(EVIDENCE_ASK)
    return "\n\n".join(part for part in parts if part)


def task_text(task_list: TaskList, task: Task, gate: Sequence[CheckSpec],
              status: Mapping[str, str], root: Path) -> str:
    """The task with its gate, the list and the learnings in one text: the built-in
    template's ``{{task}}`` under all three drivers (``run --tasks``, the Stop hook, ``fleet``)."""
    parts = [task_body(task)]
    parts.append(f"Work on task {task.id} ({task.title}) only. It is done when these checks "
                 "pass (ralph-verify runs them; ticking the task off in a file or printing a "
                 "promise does not count):\n" + acceptance(gate, task.until))
    parts.append("The task list:\n" + task_table(task_list, status, task.id))
    known = learnings(root, task_list.learnings)
    if known:
        parts.append(f"Learnings so far ({task_list.learnings}; add what the next task "
                     f"should know):\n{known}")
    return "\n\n".join(part for part in parts if part)
