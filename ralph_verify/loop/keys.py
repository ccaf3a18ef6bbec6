"""The loop's stash keys, apart from the classes they hold: ``check`` asks "is a loop
running?" without importing the session's dataclasses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_verify.config.stash import StashKey

if TYPE_CHECKING:
    from ralph_verify.loop.session import Session

#: The running session (set by the loop before its baseline; absent outside a loop).
SESSION_KEY: StashKey[Session] = StashKey("session")

#: More values for the prompt template's placeholders (``run --tasks``: ``{{task_id}}``,
#: ``{{task_title}}``, ``{{acceptance}}``, ``{{tasks}}``, ``{{learnings}}``).
PROMPT_VALUES_KEY: StashKey[dict[str, str]] = StashKey("prompt_values")

#: The commit of a session's start (its recovery point's uncommitted work), kept in the
#: repository: lint and types read the start's settings from it.
WORK_REF = "refs/ralph-verify/recovery/{session}/work"
