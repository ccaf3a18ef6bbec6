"""The stash key that names the commit completing a task, apart from the task file's model:
the checkpoint plugin reads it at every start without importing pydantic."""

from __future__ import annotations

from collections.abc import Callable

from ralph_verify.config.stash import StashKey

#: Names the commit that completes a task (set by ``run --tasks`` while a task runs; the
#: checkpoint plugin gives it the iteration's message when that verification passed).
TASK_COMMIT_KEY: StashKey[Callable[[str], str]] = StashKey("tasks.commit_message")
