"""What ``run --tasks`` does around a task's session, apart from the list's driver
(``task_list.py``): where a task started (``tasks rollback``), ``--squash`` (one commit per
task), a session left mid-task that ``--resume`` continues, ``--from ID``, and the
notification of the list's end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ralph_verify.errors import UsageError
from ralph_verify.loop.state import StateDir
from ralph_verify.project import git
from ralph_verify.tasks.keys import LIST_NOTIFIER_KEY
from ralph_verify.tasks.order import DONE, ordered

if TYPE_CHECKING:
    from pathlib import Path

    from ralph_verify.config import Config
    from ralph_verify.tasks.model import TaskList
    from ralph_verify.tasks.state import TasksState


def head(root: Path) -> str | None:
    """The commit a task starts from (``None`` outside git)."""
    return git.head(root) if git.is_repo(root) else None


def squash(root: Path, base: str | None, task_id: str) -> str | None:
    """``--squash``: the task's iteration commits since ``base`` as one commit, with the
    message of the commit that completed it (named after the task, with its trailers)."""
    tip = head(root)
    if not base or not tip or tip == base:
        return tip
    count = git.git(root, "rev-list", "--count", f"{base}..{tip}").strip()
    if count in ("", "0", "1"):
        return tip
    message = git.git(root, "log", "-1", "--format=%B", tip)
    if f"Ralph-Task: {task_id}" not in message:
        return tip  # the last commit is not the task's: leave the history alone
    git.git(root, "reset", "--soft", base)
    git.git(root, "commit", "--no-verify", "-q", "-m", message.rstrip("\n") + "\n"
            f"Ralph-Squashed: {count} commits\n", identity=True)
    return head(root)


def interrupted(root: Path, task_id: str) -> bool:
    """Whether the one loop's last session is this task's, stopped mid-way (killed, or
    cancelled): ``run --tasks --resume`` then continues it instead of starting again."""
    data = StateDir(root).read_state()
    if data is None or not (data.task or "").startswith(f"# Task {task_id}:"):
        return False
    return data.status == "running" or data.verdict_name == "cancelled"


#: The reason of a task ``--from`` passed over.
FROM_REASON = "before --from "
#: The reason of a task ``tasks skip`` skipped.
USER_SKIP = "skipped by the user"


def passed_over(status: str, reason: str) -> bool:
    """A task the user set aside (``skip`` in the file, ``--from``, ``tasks skip``): it holds
    nothing up and leaves the list complete."""
    return status == "skipped" and (reason == "skip in the task file" or
                                    reason.startswith((FROM_REASON, USER_SKIP)))


def apply_from(task_list: TaskList, state: TasksState, task_id: str) -> None:
    """``--from ID``: the tasks before ID in the list's order that are not done are
    ``skipped`` for this run (their rows say why) and hold nothing up: ID runs next."""
    order = [task.id for task in ordered(task_list)]
    if task_id not in order:
        raise UsageError(f"--from {task_id}: no such task in {task_list.path.name}; its tasks "
                         f"are {', '.join(order)}")
    for earlier in order[:order.index(task_id)]:
        if state.record(earlier).status not in DONE:
            state.set(earlier, "skipped", f"{FROM_REASON}{task_id}")


def readiness(state: TasksState) -> dict[str, str]:
    """The statuses the next task is chosen by: a task the user set aside holds nothing up
    (its checks still join no gate)."""
    return {row.id: "already" if passed_over(row.status, row.reason) else row.status
            for row in state.tasks}


def notify_list(config: Config, state: TasksState, verdict: str, reason: str) -> None:
    """Tell ``--notify``/``--notify-cmd`` how the list ended (the notify plugin's sender)."""
    send = config.stash.get(LIST_NOTIFIER_KEY)
    if send is None:
        return
    done = sum(1 for row in state.tasks if row.status in DONE)
    data: dict[str, Any] = {
        "event": "task-list-finished", "project": str(config.root), "session": state.session,
        "verdict": verdict, "reason": reason, "file": state.file,
        "tasks": [{"id": row.id, "status": row.status, "reason": row.reason}
                  for row in state.tasks],
        "cost_usd": round(sum(row.cost_usd for row in state.tasks), 4),
        "text": f"ralph-verify: {config.root.name}: task list {verdict}: {done} of "
                f"{len(state.tasks)} tasks done — {reason}"}
    send(config, data)
