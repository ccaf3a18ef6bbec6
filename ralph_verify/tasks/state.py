"""What ``run --tasks`` knows of each task, in ``.ralph/tasks/``: ``state.json`` (atomic, so
a kill -9 loses no done task) and ``log.jsonl``, written by ralph-verify only."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.records.codec import NOT_SAVED, encode
from ralph_verify.records.files import dumps, load
from ralph_verify.records.fleet import read_fleet
from ralph_verify.records.session import SCHEMA
from ralph_verify.state_files import now_iso, write_text_atomic

if TYPE_CHECKING:
    from ralph_verify.tasks.model import Task, TaskList

#: The reasons of the statuses a user writes in the task file.
FILE_SKIP = "skip in the task file"
FILE_DONE = "done in the task file"


def initial_status(task_list: TaskList) -> dict[str, str]:
    """The user's statuses: ``skip`` becomes ``skipped``, ``done`` stays done."""
    return {task.id: {"skip": "skipped"}.get(task.status, task.status)
            for task in task_list.tasks}


def initial_reason(task: Task) -> str:
    return {"skip": FILE_SKIP, "done": FILE_DONE}.get(task.status, "")


@dataclass
class TaskRecord:
    """One task's row of the table."""

    id: str
    title: str
    status: str = "todo"
    reason: str = ""
    iterations: int = 0
    cost_usd: float = 0.0
    gate: str = ""
    commit: str | None = None
    fingerprint: str = ""
    duration_s: float = 0.0
    #: The commit the task's first iteration started from ('tasks rollback' goes back to it).
    base: str | None = None


@dataclass
class TasksState:
    """The state of one task-list session."""

    folder: Path = field(metadata=NOT_SAVED)
    file: str = ""
    session: str = ""
    current: str | None = None
    verdict: str | None = None
    tasks: list[TaskRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: The branch whose history holds the commits that verified the tasks (``None``: HEAD).
    branch: str | None = None
    #: The layout of ``state.json`` (absent in older files: they read as they are).
    version: int = SCHEMA
    #: ralph-verify's own copy of ``state.json``, out of the agent's reach (set by the
    #: driver: under the git directory or the user's cache); the one that decides.
    seal: Path | None = field(default=None, metadata=NOT_SAVED)

    @property
    def path(self) -> Path:
        return self.folder / "state.json"

    @classmethod
    def start(cls, root: Path, task_list: TaskList, session: str) -> TasksState:
        status = initial_status(task_list)
        records = [TaskRecord(task.id, task.title, status[task.id], initial_reason(task),
                              gate=task.until_text, fingerprint=task.fingerprint())
                   for task in task_list.tasks]
        return cls(root / ".ralph" / "tasks", str(task_list.path), session, tasks=records)

    @classmethod
    def read(cls, root: Path) -> TasksState | None:
        """``.ralph/tasks/state.json`` checked against this type; ``None`` when there is
        none, a one-line error naming it when it is corrupted."""
        folder = root / ".ralph" / "tasks"
        return load(cls, folder / "state.json", folder=folder)

    @classmethod
    def of_fleet(cls, root: Path) -> TasksState | None:
        """The tasks of the last ``fleet`` with ``depends-on`` in ``root`` (its
        ``fleet/fleet.json``) as a list's table, for ``tasks status``; ``None`` without one."""
        path = root / "fleet" / "fleet.json"
        if not path.is_file():
            return None
        document = read_fleet(path)  # a corrupted one is a clear error
        if document.integration is None:
            return None
        rows = [TaskRecord(loop.name, loop.title or loop.name, loop.task_status or "todo",
                           loop.task_reason, loop.iterations, loop.cost_usd,
                           ",".join(spec for specs in (loop.gate or {}).values()
                                    for spec in specs), loop.merge_commit,
                           duration_s=loop.duration_s or 0.0) for loop in document.loops]
        return cls(path.parent, f"fleet {document.fleet}", document.fleet, tasks=rows,
                   verdict=document.integration.verdict,
                   branch=document.integration.branch,
                   notes=[document.integration.reason] if document.integration.reason else [])

    def record(self, task_id: str) -> TaskRecord:
        return next(row for row in self.tasks if row.id == task_id)

    def status(self) -> dict[str, str]:
        return {row.id: row.status for row in self.tasks}

    def set(self, task_id: str, status: str, reason: str = "", **values: Any) -> None:
        """Change a task's row, save, and log the change."""
        row = self.record(task_id)
        row.status, row.reason = status, reason
        for key, value in values.items():
            setattr(row, key, value)
        self.current = task_id if status == "running" else (
            None if self.current == task_id else self.current)
        self.save()
        self.log({"event": "status", "task": task_id, "status": status, "reason": reason,
                  **values})

    def save(self) -> None:
        """Write ralph-verify's own copy first, then the one in ``.ralph/`` (a crash between
        the two leaves the older one in ``.ralph/``: it reads as edited, the copy decides)."""
        text = dumps(self) + "\n"
        if self.seal is not None:
            self.seal.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(self.seal, text)
        self.folder.mkdir(parents=True, exist_ok=True)
        write_text_atomic(self.path, text)

    def log(self, entry: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with (self.folder / "log.jsonl").open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"at": now_iso(), **entry}) + "\n")

    def to_json(self) -> dict[str, object]:
        return dict(encode(self))

    def public_json(self) -> dict[str, object]:
        """``tasks status --json``: the table of TASKS.md."""
        keys = ("id", "title", "status", "reason", "iterations", "cost_usd", "gate", "commit")
        return {"file": self.file, "session": self.session, "current": self.current,
                "verdict": self.verdict, "notes": self.notes,
                "tasks": [{key: getattr(row, key) for key in keys} for row in self.tasks]}
