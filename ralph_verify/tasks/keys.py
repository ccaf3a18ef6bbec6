"""The stash key that names the commit completing a task, apart from the task file's model:
the checkpoint plugin reads it at every start without importing pydantic."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ralph_verify.config.stash import StashKey

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


def task_commit(task_id: str, title: str, gate: str) -> Callable[[str], str]:
    """The message of the commit that completes a task: named after it, with trailers."""
    return lambda brief: (f"{task_id}: {title}\n\n{brief}\n\nRalph-Task: {task_id}\n"
                          f"Ralph-Verified: {gate}\n")
