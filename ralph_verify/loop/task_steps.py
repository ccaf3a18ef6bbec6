"""What ``run --tasks`` does around a task's session, apart from the list's driver: the list's
state as ralph-verify wrote it, a task's start (``tasks rollback``), ``--squash``, ``--resume``
of a session left mid-task, ``--from ID`` and the notification of the list's end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.errors import UsageError
from ralph_verify.loop.frozen import session_dir
from ralph_verify.loop.recovery import snapshot_commit
from ralph_verify.loop.state import StateDir
from ralph_verify.project import git
from ralph_verify.records.files import CorruptFile, parse
from ralph_verify.state_files import write_text_atomic
from ralph_verify.tasks.keys import LIST_NOTIFIER_KEY, put_back, task_commit
from ralph_verify.tasks.order import DONE, FROM_REASON, ordered
from ralph_verify.tasks.prompt import is_task_text
from ralph_verify.tasks.state import TasksState

if TYPE_CHECKING:
    from ralph_verify.config import Config
    from ralph_verify.tasks.model import TaskList

#: What a task list's state says when ``.ralph/tasks/state.json`` is not what ralph-verify
#: wrote.
EDITED = (".ralph/tasks/state.json was not as ralph-verify wrote it (edited, or a crash "
          "mid-write); ralph-verify's own copy decides")


def sealed(state: TasksState) -> TasksState:
    """``state``, from now on saved with ralph-verify's own copy beside the session's frozen
    files (:mod:`ralph_verify.loop.frozen`), where the agent's tools do not reach."""
    state.seal = session_dir(state.folder.parent.parent, f"tasks-{state.session}") / \
        "state.json"
    return state


def trusted(root: Path, task_list: TaskList | None = None) -> TasksState | None:
    """The list's state as ralph-verify last wrote it, checked: ``.ralph/tasks/state.json``
    is believed only when it matches ralph-verify's own copy (else that copy decides, and
    without one every row goes back to the task file's status); and a ``done`` task stays
    done only while the commit that verified it (``Ralph-Task:``) is in the history of the
    list's branch. What was not believed is said in the state's notes."""
    state = TasksState.read(root)
    if state is None:
        return None
    seal = sealed(state).seal
    assert seal is not None
    try:
        own = seal.read_text(encoding="utf-8")
    except OSError:
        own = None
    if own != state.path.read_text(encoding="utf-8"):
        state = _rebuilt(root, state, own, task_list)
        if EDITED not in state.notes:
            state.notes.append(EDITED)
    commits = _verified_commits(root, state)
    for row in state.tasks:
        if row.status == "done" and row.commit and (row.commit, row.id) not in commits:
            row.status, row.commit = "todo", None
            row.reason = (f"verified again: the commit that verified it is not in the "
                          f"history of {state.branch or 'HEAD'}")
    return state


#: ralph-verify's copy of the task file as the list read it, beside its own state.
FILE_COPY = "task-file"


def keep_file(state: TasksState, text: str) -> None:
    """Keep the task file's text beside ralph-verify's copy of the state (once a list)."""
    if state.seal is not None and text and not (state.seal.parent / FILE_COPY).exists():
        write_text_atomic(state.seal.parent / FILE_COPY, text)


def put_file_back(root: Path, path: Path) -> None:
    """``--resume`` of a list whose task file the agent deleted (or changed) before the run
    died: the file as the list read it, from ralph-verify's copy."""
    try:
        state = TasksState.read(root)
        if state is None or path.resolve() != Path(state.file).resolve():
            return
        text = (sealed(state).seal or root).with_name(FILE_COPY).read_text(encoding="utf-8")
    except (OSError, UsageError):
        return  # no copy: the file is read as it is
    put_back(root, path, text)


def _rebuilt(root: Path, forged: TasksState, own: str | None,
             task_list: TaskList | None) -> TasksState:
    """The state from ralph-verify's copy; without one, the task file's statuses."""
    if own is not None:
        try:
            state = parse(TasksState, sealed(forged).seal or root, json.loads(own),
                          folder=forged.folder)
        except (ValueError, CorruptFile):
            pass
        else:
            return sealed(state)
    fresh = TasksState.start(root, task_list, forged.session) if task_list else None
    for row in forged.tasks:
        start = next((r for r in fresh.tasks if r.id == row.id), None) if fresh else None
        if start is not None:
            row.__dict__.update(start.__dict__)
        else:
            row.status, row.reason, row.commit = "todo", "verified again", None
    forged.current = forged.verdict = None
    return forged


def _verified_commits(root: Path, state: TasksState) -> set[tuple[str, str]]:
    """``(commit, task id)`` of every commit since the list's first task started that names
    the task it verified (one git command)."""
    base = next((row.base for row in state.tasks if row.base), None)
    if not any(row.status == "done" and row.commit for row in state.tasks) or \
            not git.is_repo(root):
        return set()
    tip = state.branch or "HEAD"
    span = f"{base}..{tip}" if base else tip
    out = git.git(root, "log", "--format=%H %(trailers:key=Ralph-Task,valueonly,separator=,)",
                  span, check=False)
    return {(commit, task) for commit, _, tasks in (line.partition(" ")
                                                    for line in out.splitlines())
            for task in tasks.split(",") if task}


def head(root: Path) -> str | None:
    """The commit a task starts from (``None`` outside git)."""
    return git.head(root) if git.is_repo(root) else None


def start_tree(root: Path) -> str | None:
    """A commit of the tree as it is now (HEAD's when nothing is uncommitted, else one made
    through a private index: no branch moves): where a task starts, for its evidence
    (``fail-to-pass``) and ``tasks rollback``. ``None`` outside git."""
    tip = head(root)
    dirty = git.dirty_paths(root) if tip else []
    if not dirty:
        return tip
    return snapshot_commit(root, tip, dirty, "ralph-verify: the tree at a task's start")


def verified_commit(root: Path, task_id: str, title: str, gate: str) -> str | None:
    """The commit that says the task is done (``Ralph-Task:``, ``Ralph-Verified:``): the
    passing iteration's, else -- a session resumed onto a tree that passes already -- an
    empty one named after the task on top of that tree."""
    tip, _, message = git.git(root, "log", "-1", "--format=%H%n%B", check=False).partition("\n")
    if f"Ralph-Task: {task_id}\n" in message or not tip:
        return tip or None
    git.git(root, "commit", "--allow-empty", "--no-verify", "-q", "-m",
            task_commit(task_id, title, gate)("verified when the interrupted session "
                                              "resumed"), identity=True)
    return head(root)


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
    if data is None or not is_task_text(data.task or "", task_id):
        return False
    return data.status == "running" or data.verdict_name == "cancelled"


def apply_from(task_list: TaskList, state: TasksState, task_id: str) -> None:
    """``--from ID``: the tasks before ID in the list's order that are not done are
    ``skipped`` for this run, the user's choice (their rows say so): they hold nothing up,
    ID runs next, and the list is not complete without them."""
    order = [task.id for task in ordered(task_list)]
    if task_id not in order:
        raise UsageError(f"--from {task_id}: no such task in {task_list.path.name}; its tasks "
                         f"are {', '.join(order)}")
    for earlier in order[:order.index(task_id)]:
        if state.record(earlier).status not in DONE:
            state.set(earlier, "skipped", f"{FROM_REASON}{task_id}: the user's choice, "
                                          "not done")


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
