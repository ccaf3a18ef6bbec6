"""The fleet's tasks: a fleet file (TOML, validated with pydantic) or ``--matrix GLOB``.

A bad fleet file (unknown key, wrong type, two tasks of one name) is a usage error and
nothing runs; a task whose folder is missing or whose own settings are bad fails alone,
when it runs (see :mod:`ralph_verify.fleet.job`), and the others go on.

Example fleet file::

    [fleet]
    agent = "claude"
    until = "tests,lint"
    prompt-file = "PROMPT.md"
    max-iterations = 10

    [[task]]
    folder = "packages/billing"

    [[task]]
    name = "search-coverage"
    folder = "packages/search"
    until = "tests,coverage>=80"
    prompt = "Raise the coverage of the search package to 80%."
"""

from __future__ import annotations

import glob
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ralph_verify.compat import tomllib
from ralph_verify.errors import ConfigError, UsageError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class _LoopSettings(BaseModel):
    """What a task may set for its own loop; the ``[fleet]`` table gives the defaults."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    agent: str | None = None
    until: str | list[str] | None = None
    prompt: str | None = Field(default=None, description="the task as text")
    prompt_file: str | None = Field(default=None, alias="prompt-file")
    max_iterations: int | None = Field(default=None, alias="max-iterations", ge=1,
                                          strict=True)
    max_time: str | None = Field(default=None, alias="max-time")
    max_cost: float | None = Field(default=None, alias="max-cost", gt=0,
                                      strict=True, allow_inf_nan=False)
    args: list[str] = Field(default_factory=list,
                            description="more options for `ralph-verify run`")


class _TaskTable(_LoopSettings):
    name: str | None = None
    folder: str = "."
    repo: str | None = Field(default=None,
                             description="a git URL or path to clone instead of this repository")


class _FleetTable(_LoopSettings):
    jobs: int | None = Field(default=None, ge=1, strict=True)
    total_cost: float | None = Field(default=None, alias="total-cost", gt=0,
                                        strict=True, allow_inf_nan=False)
    total_time: str | None = Field(default=None, alias="total-time")
    executor: str | None = None
    address: str | None = None


class _FleetFile(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    fleet: _FleetTable = Field(default_factory=_FleetTable)
    task: list[_TaskTable] = Field(default_factory=list)


@dataclass(frozen=True)
class Task:
    """One loop of the fleet, with its settings merged over the defaults."""

    name: str
    folder: str
    prompt: str
    run_args: tuple[str, ...]
    repo: str | None = None


@dataclass
class FleetSpec:
    """Everything a fleet file (or ``--matrix``) says."""

    tasks: list[Task]
    settings: dict[str, Any] = field(default_factory=dict)


def _describe(exc: ValidationError, path: Path) -> str:
    lines = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"])
        if error["type"] == "extra_forbidden":
            lines.append(f"{path}: unknown key {key!r}; a task knows name, folder, repo, agent, "
                         "until, prompt, prompt-file, max-iterations, max-time, max-cost, args "
                         "([fleet] also jobs, total-cost, total-time, executor, address)")
        else:
            lines.append(f"{path}: {key}: {error['msg'].lower()} (got {error.get('input')!r})")
    return "\n".join(lines)


def _prompt_text(settings: _LoopSettings, base: Path, where: str) -> str | None:
    if settings.prompt is not None:
        return settings.prompt
    if settings.prompt_file is not None:
        path = base / settings.prompt_file
        try:
            return path.read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"{where}: prompt-file {settings.prompt_file}: cannot be read "
                             f"({exc.strerror}); give the path relative to {base}") from None
    return None


def _run_args(settings: _LoopSettings) -> list[str]:
    args: list[str] = []
    if settings.agent is not None:
        args += ["--agent", settings.agent]
    if settings.until is not None:
        until = settings.until if isinstance(settings.until, str) else ",".join(settings.until)
        args += ["--until", until]
    if settings.max_iterations is not None:
        args += ["--max-iterations", str(settings.max_iterations)]
    if settings.max_time is not None:
        args += ["--max-time", settings.max_time]
    if settings.max_cost is not None:
        args += ["--max-cost", repr(settings.max_cost)]
    return args + list(settings.args)


def _merged(task: _TaskTable, defaults: _FleetTable) -> _LoopSettings:
    values = defaults.model_dump(include=set(_LoopSettings.model_fields), exclude_none=True)
    values.update(task.model_dump(include=set(_LoopSettings.model_fields),
                                  exclude_unset=True))
    if "prompt" in task.model_fields_set:
        values.pop("prompt_file", None)
    if "prompt_file" in task.model_fields_set:
        values.pop("prompt", None)
    values["args"] = [*defaults.args, *task.args]
    return _LoopSettings.model_validate(values)


def task_name(folder: str) -> str:
    """``packages/billing`` -> ``packages-billing``: a name git accepts in a branch."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", folder.strip("/")).strip("-.") or "root"
    return name


def load_fleet_file(path: Path, default_prompt: str | None = None) -> FleetSpec:
    """Read and validate a fleet file; prompt files are read relative to its folder;
    ``default_prompt`` (``-p``) is the task of those that set none."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"fleet file {path}: cannot be read ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    try:
        parsed = _FleetFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, path)) from None
    if not parsed.task:
        raise ConfigError(f"{path}: no [[task]]: add one table per loop, e.g. [[task]] "
                          'folder = "packages/app"')
    base = path.resolve().parent
    tasks = []
    for index, table in enumerate(parsed.task):
        name = table.name or task_name(table.folder)
        where = f"{path}: task[{index}] ({name})"
        if not _NAME.match(name):
            raise ConfigError(f"{where}: name {name!r} must be letters, digits, '.', '_' or '-' "
                              "(it becomes part of a branch name)")
        settings = _merged(table, parsed.fleet)
        prompt = _prompt_text(settings, base, where) or default_prompt
        if prompt is None:
            raise ConfigError(f"{where}: no prompt: set prompt or prompt-file in the task or "
                              "in [fleet], or pass -p PROMPT.md")
        tasks.append(Task(name, table.folder, prompt, tuple(_run_args(settings)), table.repo))
    _refuse_duplicates(tasks, str(path))
    fleet_settings = parsed.fleet.model_dump(
        include={"jobs", "total_cost", "total_time", "executor", "address"}, exclude_none=True)
    return FleetSpec(tasks, fleet_settings)


def matrix_tasks(pattern: str, repo: Path, prompt: str, run_args: list[str]) -> FleetSpec:
    """One task per folder of ``repo`` matching ``pattern`` (``packages/*``)."""
    folders = sorted(Path(found).relative_to(repo).as_posix()
                     for found in glob.glob(str(repo / pattern)) if Path(found).is_dir())
    if not folders:
        raise UsageError(f"--matrix {pattern!r}: no folder of {repo} matches; give a glob "
                         "relative to the repository, e.g. --matrix 'packages/*'")
    tasks = [Task(task_name(folder), folder, prompt, tuple(run_args)) for folder in folders]
    _refuse_duplicates(tasks, f"--matrix {pattern!r}")
    return FleetSpec(tasks)


def _refuse_duplicates(tasks: list[Task], where: str) -> None:
    seen: set[str] = set()
    for task in tasks:
        if task.name in seen:
            raise ConfigError(f"{where}: two tasks are named {task.name!r}; give each a "
                              "distinct name = ...")
        seen.add(task.name)


def parse_shard(text: str) -> tuple[int, int]:
    """``2/8`` -> (2, 8); the shard numbers start at 1."""
    match = re.fullmatch(r"(\d+)/(\d+)", text.strip())
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise UsageError(f"--shard {text!r}: expected I/N with 1 <= I <= N, e.g. --shard 2/8")
    return int(match[1]), int(match[2])


def shard_of(tasks: list[Task], index: int, count: int) -> list[Task]:
    """The tasks of shard ``index`` of ``count``: by name, round robin, so that every shard
    gets a share and the shards together are exactly the fleet."""
    ordered = sorted(tasks, key=lambda task: task.name)
    return [task for position, task in enumerate(ordered) if position % count == index - 1]
