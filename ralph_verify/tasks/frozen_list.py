"""A validated task list as JSON and back, for hook mode: ``start --tasks`` reads the file
once and freezes this copy out of the agent's reach; every later Stop hook call (a process
of its own) works from it, never from the file the agent may have ticked or loosened.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ralph_verify.config.until import CheckSpec, parse_spec
from ralph_verify.tasks.model import Task, TaskList


def _specs(texts: list[str]) -> tuple[CheckSpec, ...]:
    return tuple(parse_spec(text, source="the frozen task list") for text in texts)


def _texts(specs: tuple[CheckSpec, ...] | None) -> list[str] | None:
    return None if specs is None else [spec.text for spec in specs]


def to_json(task_list: TaskList) -> dict[str, Any]:
    """Everything :func:`from_json` needs: the tasks as validated (prompt files read)."""
    return {
        "path": str(task_list.path), "keep": _texts(task_list.keep),
        "final": _texts(task_list.final), "learnings": task_list.learnings,
        "on_fail": task_list.on_fail, "agent": task_list.agent,
        "declared": task_list.declared, "digest": task_list.digest, "text": task_list.text,
        "settings": dict(task_list.settings),
        "tasks": [{"id": t.id, "title": t.title, "prompt": t.prompt,
                   "until": _texts(t.until), "depends_on": list(t.depends_on),
                   "status": t.status, "notes": t.notes, "max_iterations": t.max_iterations,
                   "max_time": t.max_time, "max_cost": t.max_cost, "agent": t.agent,
                   "args": list(t.args), "folder": t.folder, "repo": t.repo,
                   "keep": _texts(t.keep)}
                  for t in task_list.tasks]}


def from_json(data: dict[str, Any]) -> TaskList:
    """The task list :func:`to_json` wrote (``KeyError``/``TypeError`` if it is not one)."""
    tasks = [Task(id=str(t["id"]), title=str(t["title"]), prompt=str(t["prompt"]),
                  until=_specs(list(t["until"])), depends_on=tuple(t["depends_on"]),
                  status=str(t["status"]), notes=str(t["notes"]),
                  max_iterations=t["max_iterations"], max_time=t["max_time"],
                  max_cost=t["max_cost"], agent=t["agent"], args=tuple(t["args"]),
                  folder=str(t["folder"]), repo=t["repo"], keep=_specs(list(t["keep"])))
             for t in data["tasks"]]
    final = data["final"]
    return TaskList(path=Path(data["path"]), tasks=tasks, keep=_specs(list(data["keep"])),
                    final=None if final is None else _specs(list(final)),
                    learnings=str(data["learnings"]), on_fail=str(data["on_fail"]),
                    agent=data["agent"], declared=bool(data["declared"]),
                    digest=str(data["digest"]), settings=dict(data["settings"]),
                    text=str(data["text"]))
