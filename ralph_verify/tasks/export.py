"""``tasks export``: a task list for other tools with the statuses ralph-verify verified (never
the agent's claims), written back into the user's own file (only the statuses change) or as
a new prd.json or tasks.md that ``tasks import`` reads back to the same tasks."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ralph_verify.tasks.formats import (
    by_priority,
    from_speckit,
    json_kind,
    looks_like_speckit,
    slug,
    taskmaster_tasks,
)
from ralph_verify.tasks.importers import from_checklist
from ralph_verify.tasks.model import TaskList
from ralph_verify.tasks.order import DONE

_CHECKBOX = re.compile(r"^(\s*[-*]\s+\[)[ xX](\])")


def own_format(path: Path, text: str) -> str | None:
    """The format of the user's file that :func:`write_back` writes into, if any."""
    if path.suffix.lower() in (".md", ".markdown", ".txt"):
        return "tasks.md"
    try:
        return json_kind(path, json.loads(text))
    except ValueError:
        return None


def write_back(task_list: TaskList, status: Mapping[str, str], text: str) -> str:
    """The user's file ``text`` (of :func:`own_format`) with the verified statuses: each
    claim ralph-verify did not verify is taken back, every other field and line kept."""
    done = verified(task_list, status)
    fmt = own_format(task_list.path, text)
    if fmt == "tasks.md":
        at: dict[int, str] = {}
        (from_speckit if looks_like_speckit(text) else from_checklist)(text, None, at)
        lines = text.splitlines(keepends=True)
        for number, task_id in at.items():
            if task_id in done:
                lines[number] = _CHECKBOX.sub(r"\g<1>" + ("X" if done[task_id] else " ")
                                              + r"\g<2>", lines[number], count=1)
        return "".join(lines)
    document = json.loads(text)
    if fmt == "prd.json":
        for number, story in enumerate(by_priority(document["userStories"]), 1):
            story["passes"] = done.get(slug(str(story.get("id") or ""), number), False)
    elif fmt == "ralph-tasks.json":
        for number, item in enumerate(by_priority(document["tasks"]), 1):
            _mark(item, done.get(slug(str(item.get("id") or ""), number), False),
                  ("completed", "pending"))
    else:
        for item in (t for t in taskmaster_tasks(document) or [] if isinstance(t, dict)):
            subs = [s for s in item.get("subtasks") or [] if isinstance(s, dict)]
            for sub in subs:
                _mark(sub, done.get(f"{item.get('id')}.{sub.get('id')}", False))
            parent = str(item.get("id"))
            _mark(item, done[parent] if parent in done else bool(subs) and all(
                done.get(f"{parent}.{sub.get('id')}", False) for sub in subs))
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _mark(item: dict[str, Any], done: bool, words: tuple[str, str] = ("done", "pending")
          ) -> None:
    """Set an item's ``passes`` (where it has one) and its ``status``: the done word when
    verified, the open word where it claimed done without it."""
    if "passes" in item or "status" not in item:
        item["passes"] = done
    if "status" in item:
        if done:
            item["status"] = words[0]
        elif str(item["status"]).lower() in ("done", "completed", "complete"):
            item["status"] = words[1]


def verified(task_list: TaskList, status: Mapping[str, str]) -> dict[str, bool]:
    """Whether each task passed its checks in ralph-verify's hands."""
    return {task.id: status.get(task.id) in DONE for task in task_list.tasks}


def to_prd(task_list: TaskList, status: Mapping[str, str]) -> str:
    """A new ``prd.json`` whose criteria hold each task's checks as ``until: SPECS``."""
    done = verified(task_list, status)
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


def to_tasks_md(task_list: TaskList, status: Mapping[str, str]) -> str:
    """A new spec-kit ``tasks.md``: one phase, each task's checks and dependencies as
    sub-items."""
    done = verified(task_list, status)
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
