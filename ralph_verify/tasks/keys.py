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
