"""``tasks export --to prd.json|tasks.md``: a task list written for other tools, with the
statuses ralph-verify verified (never the agent's claims): ``"passes": true`` and ``[X]``
only for a task that is ``done`` or ``already`` in ``.ralph/tasks/state.json``.

Written back into a file of the same format (its other fields and lines kept), or as a new
file that ``tasks import`` reads back to the same tasks (ids, titles, checks, dependencies).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ralph_verify.tasks.formats import SPECKIT_ITEM, looks_like_speckit
from ralph_verify.tasks.model import TaskList
from ralph_verify.tasks.order import DONE

#: The formats ``--to`` names.
FORMATS = ("prd.json", "tasks.md")
_CHECKBOX = re.compile(r"^(\s*[-*]\s+\[)[ xX](\])")
_CHECKLIST_ITEM = re.compile(r"^(?P<indent>\s*)[-*]\s+\[[ xX]\]\s+\S")


def verified(task_list: TaskList, status: Mapping[str, str]) -> dict[str, bool]:
    """Whether each task passed its checks in ralph-verify's hands."""
    return {task.id: status.get(task.id) in DONE for task in task_list.tasks}


def to_prd(task_list: TaskList, status: Mapping[str, str],
           original: dict[str, Any] | None = None) -> str:
    """A ``prd.json``: the original with ``passes`` set, or a new one whose criteria hold
    each task's checks as ``until: SPECS``."""
    done = verified(task_list, status)
    if original is not None and isinstance(original.get("userStories"), list):
        for old in original["userStories"]:
            if isinstance(old, dict) and str(old.get("id")) in done:
                old["passes"] = done[str(old.get("id"))]
        return json.dumps(original, indent=2, ensure_ascii=False) + "\n"
    stories = []
    for priority, task in enumerate(task_list.tasks, 1):
        story: dict[str, Any] = {
            "id": task.id, "title": task.title, "description": task.prompt,
            "acceptanceCriteria": [f"until: {task.until_text}"] if task.until else [],
            "priority": priority, "passes": done[task.id], "notes": task.notes}
        deps = task_list.dependencies(task)
        if task_list.declared or deps:
            story["dependsOn"] = list(deps)
        if task.status == "skip":
            story["status"] = "skip"  # the user's: read back by 'tasks import'
        stories.append(story)
    name = task_list.path.stem
    return json.dumps({"project": name, "description": f"exported from {task_list.path.name} "
                       "by ralph-verify (passes: verified by its checks)",
                       "userStories": stories}, indent=2, ensure_ascii=False) + "\n"


def to_tasks_md(task_list: TaskList, status: Mapping[str, str],
                original: str | None = None) -> str:
    """A spec-kit ``tasks.md``: the original (a spec-kit list, or any Markdown checklist)
    with its boxes set, or a new one (one phase, each task's checks and dependencies as
    sub-items)."""
    done = verified(task_list, status)
    if original is not None:
        lines = []
        speckit = looks_like_speckit(original)
        position = 0
        for line in original.splitlines(keepends=True):
            item = SPECKIT_ITEM.match(line) if speckit else _CHECKLIST_ITEM.match(line)
            if item and not speckit and not item["indent"]:
                position += 1  # a checklist's tasks are T1, T2... by position
            task_id = ((item["id"] or item["quoted"]) if speckit else f"T{position}") \
                if item else ""
            if item and not item["indent"] and task_id in done:
                line = _CHECKBOX.sub(r"\g<1>" + ("X" if done[task_id] else " ") + r"\g<2>",
                                     line, count=1)
            lines.append(line)
        return "".join(lines)
    out = [f"# Tasks: {task_list.path.stem}", "",
           f"Exported from {task_list.path.name} by ralph-verify: [X] only where the task's "
           "checks passed.", "", "## Phase 1: Tasks", ""]
    for task in task_list.tasks:
        plain = re.fullmatch(r"T\d{2,}", task.id)
        ident = task.id if plain else f"`{task.id}`"
        out.append(f"- [{'X' if done[task.id] else ' '}] {ident} {task.title}")
        if task.until:
            out.append(f"  - until: {task.until_text}")
        out.append(f"  - depends-on: {', '.join(task_list.dependencies(task))}")
        if task.status == "skip":
            out.append("  - status: skip")
        out += [f"  - {line.strip()}" for line in task.prompt.splitlines()
                if line.strip() and line.strip() != task.title]
    return "\n".join(out) + "\n"
