"""The fleet's loops: a fleet file (a task file, read by ``tasks/model.py``) or ``--matrix``.
A bad file is a usage error and nothing runs; a task whose folder or own settings are bad
fails alone, when it runs (:mod:`ralph_verify.fleet.job`)."""

from __future__ import annotations

import glob
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ralph_verify.errors import ConfigError, UsageError
from ralph_verify.tasks.model import Task, TaskList, load_task_file, task_name


@dataclass(frozen=True)
class LoopSpec:
    """One loop of the fleet, with its settings merged over the defaults (in a file that
    declares ``depends-on``, the task of the list it works on has the same name)."""

    name: str
    folder: str
    prompt: str
    run_args: tuple[str, ...]
    repo: str | None = None


@dataclass
class FleetSpec:
    """Everything a fleet file (or ``--matrix``) says."""

    tasks: list[LoopSpec]
    settings: dict[str, Any] = field(default_factory=dict)
    #: The validated file when a task declares ``depends-on``: the fleet then merges.
    graph: TaskList | None = None


def _run_args(task: Task) -> list[str]:
    values = {"--agent": task.agent, "--until": task.until_text or None,
              "--max-iterations": task.max_iterations, "--max-time": task.max_time,
              "--max-cost": task.max_cost}
    return [*(part for flag, value in values.items() if value is not None
              for part in (flag, str(value))), *task.args]


def load_fleet_file(path: Path, default_prompt: str | None = None) -> FleetSpec:
    """A fleet file, read by the one task-file loader; ``default_prompt`` (``-P``) is the
    prompt of the tasks that set none."""
    listed = load_task_file(path, own_checks=False)
    tasks = []
    for task in listed.tasks:
        prompt = task.prompt or default_prompt
        if prompt is None:
            raise ConfigError(f"{path}: task {task.id}: no prompt: set prompt or prompt-file "
                              "in the task or in [fleet], or pass -P PROMPT.md")
        tasks.append(LoopSpec(task.id, task.folder, prompt, tuple(_run_args(task)), task.repo))
    return FleetSpec(tasks, dict(listed.settings), listed if listed.declared else None)


def matrix_tasks(pattern: str, repo: Path, prompt: str) -> FleetSpec:
    """One task per folder of ``repo`` matching ``pattern`` (``packages/*``)."""
    folders = sorted(Path(found).relative_to(repo).as_posix()
                     for found in glob.glob(str(repo / pattern)) if Path(found).is_dir())
    if not folders:
        raise UsageError(f"--matrix {pattern!r}: no folder of {repo} matches; give a glob "
                         "relative to the repository, e.g. --matrix 'packages/*'")
    tasks = [LoopSpec(task_name(folder), folder, prompt, ()) for folder in folders]
    names = [task.name for task in tasks]
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:
        raise ConfigError(f"--matrix {pattern!r}: two tasks are named {twice!r}; give each a "
                          "distinct name = ...")
    return FleetSpec(tasks)


def parse_shard(text: str) -> tuple[int, int]:
    """``2/8`` -> (2, 8); the shard numbers start at 1."""
    match = re.fullmatch(r"(\d+)/(\d+)", text.strip())
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise UsageError(f"--shard {text!r}: expected I/N with 1 <= I <= N, e.g. --shard 2/8")
    return int(match[1]), int(match[2])


def shard_of(tasks: list[LoopSpec], index: int, count: int) -> list[LoopSpec]:
    """The tasks of shard ``index`` of ``count``: by name, round robin, so that every shard
    gets a share and the shards together are exactly the fleet."""
    ordered = sorted(tasks, key=lambda task: task.name)
    return [task for position, task in enumerate(ordered) if position % count == index - 1]
