"""The stash keys and words of a task list that live apart from the task file's model:
the checkpoint plugin reads it at every start without importing pydantic."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ralph_verify.config.stash import StashKey
from ralph_verify.state_files import write_text_atomic

#: Names the commit that completes a task (set by ``run --tasks`` while a task runs; the
#: checkpoint plugin gives it the iteration's message when that verification passed).
TASK_COMMIT_KEY: StashKey[Callable[[str], str]] = StashKey("tasks.commit_message")

#: Sends a task list's end to ``--notify``/``--notify-cmd`` (set by the notify plugin; the
#: list calls it once at its end, and every task's session notifies only with
#: ``--notify-each-task``).
LIST_NOTIFIER_KEY: StashKey[Callable[[Any, dict[str, Any]], None]] = StashKey("tasks.notify")
#: The id of the task whose session runs now (set by ``run --tasks``).
CURRENT_TASK_KEY: StashKey[str] = StashKey("tasks.current")
#: Hook mode: the branch beside the user's that the list's earlier tasks committed on; the
#: next task's session goes on on it (as ``run --tasks``' later tasks go on on its branch).
TASK_BRANCH_KEY: StashKey[str] = StashKey("tasks.branch")


#: The task file as the list read it (path, text): put back after every agent turn.
TASK_FILE_KEY: StashKey[tuple[Path, str]] = StashKey("tasks.file")
#: Where an agent's edit of the task file is kept apart (under ``.ralph/tasks/``).
EDITED_FOLDER = "edited"


def put_back(root: Path, path: Path, text: str) -> bool:
    """Put the task file back as the list read it when the agent changed or deleted it,
    its version kept in ``.ralph/tasks/edited/``: what gets committed and verified is the
    user's file. Whether it had to."""
    data = text.encode()
    try:
        now: bytes | None = path.read_bytes()
    except OSError:
        now = None
    if now == data:
        return False
    kept = root / ".ralph" / "tasks" / EDITED_FOLDER / path.name
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_bytes(now if now is not None else b"")
    write_text_atomic(path, text)
    return True


#: The check that is the evidence of a task with no check of its own: ``fail-to-pass:BASE``.
EVIDENCE = "fail-to-pass"
#: What a task with no check of its own is told of its evidence.
EVIDENCE_ASK = ("This task has no check of its own: add tests that show it (test_*.py "
                "files). They must fail on the tree as it was when the task started and pass "
                "after your change; ralph-verify runs them on both.")


def task_commit(task_id: str, title: str, gate: str) -> Callable[[str], str]:
    """The message of the commit that completes a task: named after it, with trailers."""
    return lambda brief: (f"{task_id}: {title}\n\n{brief}\n\nRalph-Task: {task_id}\n"
                          f"Ralph-Verified: {gate}\n")
