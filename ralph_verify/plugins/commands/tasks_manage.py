"""``tasks export|retry|skip|reset|rollback`` and ``tasks status --watch``: what a person does
to a task list between runs (docs/tasks.md). The task file is only written by ``export``."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.config import Config
from ralph_verify.config.parser import Parser
from ralph_verify.errors import UsageError
from ralph_verify.markers import hookimpl
from ralph_verify.state_files import write_text_atomic

if TYPE_CHECKING:
    from ralph_verify.tasks.model import TaskList
    from ralph_verify.tasks.state import TasksState

#: What each action does to a row: the statuses it accepts, and a word for the log.
_FROM = {"retry": ("failed", "blocked", "skipped", "agent-error", "todo"),
         "skip": ("todo", "failed", "blocked", "agent-error", "running"),
         "reset": ("todo", "running", "done", "already", "failed", "blocked", "skipped",
                   "agent-error")}
#: A row as before its task ever ran (``reset``, ``rollback``).
_FRESH: dict[str, Any] = {"iterations": 0, "cost_usd": 0.0, "commit": None, "duration_s": 0.0,
                          "fingerprint": "", "base": None}


@hookimpl
def ralph_addoption(parser: Parser) -> None:
    parser.addoption("--to", scope="tasks", dest="tasks_to", choices=("prd.json", "tasks.md"),
                     help="tasks export: write a new file of this format (stdout, or -o); "
                          "without --to the verified statuses go into the task file itself "
                          "(a prd.json, ralph-tasks.json, Taskmaster tasks.json, tasks.md or "
                          "checklist)")


def load(config: Config, name: str) -> TaskList:
    """Read and validate a task file (``tasks.toml``, or a ``prd.json`` or Markdown checklist
imported in memory), its checks resolved against this run's check types."""
    from ralph_verify.checks.registry import registry_of
    from ralph_verify.tasks.importers import load_any

    path = config.invocation_dir / Path(name).expanduser()  # an absolute path stays itself
    return load_any(path, resolve=registry_of(config).resolve,
                    say=lambda note: print(f"ralph-verify: {note}", file=sys.stderr))


def _state(config: Config) -> TasksState:
    from ralph_verify.loop.state import StateDir
    from ralph_verify.loop.task_steps import trusted

    state = trusted(config.root)
    if state is None:
        raise UsageError(f"no task list in {config.root} (no .ralph/tasks/state.json): start "
                         "one with 'ralph-verify run --tasks tasks.toml'")
    if StateDir(config.root).lock_holder() is not None:
        raise UsageError("a run is active in this project: stop it first "
                         "('ralph-verify cancel') or wait for it")
    return state


def _row_id(config: Config, state: TasksState, action: str) -> str:
    task_id = config.get("task_file")
    ids = [row.id for row in state.tasks]
    if not task_id:
        raise UsageError(f"tasks {action} needs the task's id: ralph-verify tasks {action} "
                         f"{ids[0] if ids else 'T1'}")
    if str(task_id) not in ids:
        raise UsageError(f"tasks {action} {task_id}: no such task in the last list "
                         f"({state.file}); its tasks are {', '.join(ids)}")
    return str(task_id)


def _dependents(config: Config, state: TasksState, task_id: str) -> list[str]:
    """Every task waiting for ``task_id``, from the task file (when it still reads)."""
    from ralph_verify.tasks.order import dependents

    try:
        task_list = load(config, state.file)
    except UsageError:
        return []
    return dependents(task_list, task_id) if any(
        t.id == task_id for t in task_list.tasks) else []


def change(config: Config, action: str) -> int:
    """``tasks retry|skip|reset ID``."""
    state = _state(config)
    task_id = _row_id(config, state, action)
    row = state.record(task_id)
    if row.status not in _FROM[action]:
        raise UsageError(f"tasks {action} {task_id}: the task is {row.status}; {action} takes "
                         f"a task that is {', '.join(_FROM[action])}"
                         + ("  (tasks reset forgets a done task)" if action == "retry" else ""))
    changed = [task_id]
    if action == "retry":
        state.set(task_id, "todo", "retry asked by the user")
        for other in _dependents(config, state, task_id):
            if state.record(other).status == "skipped" and task_id in state.record(other).reason:
                state.set(other, "todo", f"retry of {task_id}")
                changed.append(other)
    elif action == "skip":  # set aside: it holds nothing up, as 'skip' in the file
        state.set(task_id, "skipped", "skipped by the user ('tasks skip')")
    else:
        state.set(task_id, "todo", "reset by the user", **_FRESH)
    state.verdict = None
    state.save()
    print(f"tasks {action}: {', '.join(changed)} now "
          f"{state.record(task_id).status}; 'ralph-verify run --tasks {state.file} --resume' "
          "goes on")
    return 0


def rollback(config: Config) -> int:
    """``tasks rollback ID``: the tree of before the task, as a new commit."""
    from ralph_verify.plugins.commands.rollback import restore_as_commit
    from ralph_verify.project import git

    state = _state(config)
    task_id = _row_id(config, state, "rollback")
    base = state.record(task_id).base
    if not base:
        raise UsageError(f"tasks rollback {task_id}: the task never started (no tree to go "
                         "back to); 'tasks reset' changes its status only")
    try:
        git.git(config.root, "merge-base", "--is-ancestor", base, "HEAD")
    except git.GitError:
        here = git.current_branch(config.root) or "a detached HEAD"
        raise UsageError(f"tasks rollback {task_id}: {here} does not hold the task list's "
                         f"history (no {base[:10]}): switch to the branch the list ran on "
                         "first") from None
    later = started_since(state, task_id)
    where = restore_as_commit(config.root, base, f"ralph: rollback to before task {task_id} "
                                                 f"({base[:10]})\n\nRalph-Task: {task_id}\n")
    for other in later:
        state.set(other, "todo", f"rolled back to before {task_id}", **_FRESH)
    state.verdict = None
    state.save()
    print(f"restored the tree of before task {task_id} ({base[:10]}) {where}; todo again: "
          f"{', '.join(later)}; 'ralph-verify run --tasks {state.file} --resume' goes on")
    return 0


def started_since(state: TasksState, task_id: str) -> list[str]:
    """``task_id`` and every task that started after it, by the log's order."""
    try:
        lines = (state.folder / "log.jsonl").read_text(encoding="utf-8").splitlines()
    except OSError:
        lines = []
    starts: list[str] = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("status") == "running":
            starts.append(str(entry.get("task")))
    first = max((i for i, t in enumerate(starts) if t == task_id), default=len(starts))
    found = [task_id, *starts[first:]]
    return [row.id for row in state.tasks if row.id in found]


def export(config: Config) -> int:
    """``tasks export [FILE] [--to prd.json|tasks.md] [-o OUT]``."""
    from ralph_verify.loop.state import StateDir
    from ralph_verify.loop.task_steps import trusted
    from ralph_verify.tasks.export import own_format, to_prd, to_tasks_md, verified, write_back

    state = trusted(config.root)
    name = config.get("task_file") or (state.file if state is not None else None)
    if not name:
        raise UsageError("tasks export needs the task file: ralph-verify tasks export "
                         "prd.json (after 'run --tasks prd.json')")
    task_list = load(config, str(name))
    source = task_list.path
    ours = state is not None and Path(state.file).resolve() == source.resolve()
    status = state.status() if state is not None and ours else {}
    text = source.read_text(encoding="utf-8")
    own = own_format(source, text)
    fmt = config.get("tasks_to") or own
    if fmt is None:
        raise UsageError(f"tasks export {source.name}: ralph-verify never writes your "
                         "tasks.toml (its statuses are yours); say the format of a new file: "
                         "--to prd.json or --to tasks.md")
    target = config.get("tasks_output")
    out = (config.invocation_dir / str(target)) if target else (source if fmt == own else None)
    if out is not None and out.resolve() == source.resolve():
        if not ours:
            raise UsageError(f"tasks export: no list of {source.name} ran here (the last was "
                             f"{state.file if state else 'none'}): there are no verified "
                             f"statuses to write into it; 'ralph-verify run --tasks "
                             f"{source.name}' first, or -o OTHER for a copy with every task open")
        if StateDir(config.root).lock_holder() is not None:
            raise UsageError(f"a run is active in this project: it puts {source.name} back as "
                             "it read it after every agent turn; export after it ends")
    text = write_back(task_list, status, text) if fmt == own else (
        to_prd if fmt == "prd.json" else to_tasks_md)(task_list, status)
    if out is None:
        sys.stdout.write(text)
        return 0
    write_text_atomic(out, text)
    print(f"wrote {out.name}: {len(task_list.tasks)} tasks, "
          f"{sum(verified(task_list, status).values())} verified done")
    return 0


def watch(config: Config, show: Callable[[Config], int],
          read: Callable[[Config], TasksState | None]) -> int:
    """``tasks status --watch``: the table ``read`` gives (a list's, or a running fleet's)
    again whenever it changes, until the list ends; before a list starts, it waits for one."""
    from ralph_verify.loop.state import StateDir

    interval = max(0.05, float(config.get("interval")))
    last = None
    lock = StateDir(config.root)
    if read(config) is None:
        print(f"no task list in {config.root} yet: waiting for one to start "
              "(Ctrl-C stops)", flush=True)
    while True:
        state = read(config)
        seen = json.dumps(state.to_json() if state else None, sort_keys=True)
        if state is not None and seen != last:
            last = seen
            if sys.stdout.isatty():
                sys.stdout.write("\x1b[H\x1b[2J")
            show(config)
            sys.stdout.flush()
        if state is not None and state.verdict and lock.lock_holder() is None:
            return 0 if state.verdict in ("complete", "paused") else 1
        time.sleep(interval)
