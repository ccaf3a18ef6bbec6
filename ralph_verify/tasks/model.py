"""The task file (``[defaults]`` or a fleet file's ``[fleet]``, ``[[task]]`` tables): one
loader, one pydantic validation before any agent runs, every mistake a usage error naming
the file, the task, the key and the fix. Read once: an agent's later edit changes nothing.
"""

from __future__ import annotations

import difflib
import graphlib
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ralph_verify.compat import tomllib
from ralph_verify.config.until import CheckSpec, parse_spec, parse_until
from ralph_verify.errors import ConfigError, UsageError

ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
DEFAULT_KEEP = "tests:new"
DEFAULT_LEARNINGS = "LEARNINGS.md"


class _Limits(BaseModel):
    """What a task may set for its own loop; ``[defaults]`` gives every task's."""

    model_config = ConfigDict(extra="forbid")  # the file's names only, never depends_on

    agent: str | None = None
    prompt: str | None = None
    prompt_file: str | None = Field(default=None, alias="prompt-file")
    max_iterations: int | None = Field(default=None, alias="max-iterations", ge=1,
                                          strict=True)
    max_time: str | None = Field(default=None, alias="max-time")
    max_cost: float | None = Field(default=None, alias="max-cost", gt=0,
                                      strict=True, allow_inf_nan=False)
    args: list[str] = Field(default_factory=list)


class _TaskTable(_Limits):
    id: str | None = None
    name: str | None = None  # a fleet file's name of a task: the same as id
    title: str = ""
    until: str | list[str] | None = None
    #: Checks that keep the project green while the task runs but show nothing of it
    #: (mapped from a PRD's "Typecheck passes"): never the task's evidence.
    keep: str | list[str] | None = None
    depends_on: list[str] | None = Field(default=None, alias="depends-on")
    status: Literal["todo", "skip", "done"] = "todo"
    notes: str = ""
    folder: str = "."
    repo: str | None = None


class _DefaultsTable(_Limits):
    until: str | list[str] | None = None
    keep: str | list[str] | None = None
    final: str | list[str] | None = None
    learnings: str = DEFAULT_LEARNINGS
    on_fail: Literal["skip-dependents", "stop"] = Field(default="skip-dependents",
                                                        alias="on-fail")
    # A fleet file's [fleet] keys, kept working in [defaults] too.
    jobs: int | None = Field(default=None, ge=1, strict=True)
    total_cost: float | None = Field(default=None, alias="total-cost", gt=0,
                                        strict=True, allow_inf_nan=False)
    total_time: str | None = Field(default=None, alias="total-time")
    executor: str | None = None
    address: str | None = None


class _TaskFile(BaseModel):
    model_config = ConfigDict(extra="forbid")  # the file's names only, never depends_on

    defaults: _DefaultsTable | None = None
    fleet: _DefaultsTable | None = None
    task: list[_TaskTable] = Field(default_factory=list)


def task_name(folder: str) -> str:
    """``packages/billing`` -> ``packages-billing``: a fleet's task, named after its folder."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", folder.strip("/")).strip("-.") or "root"


def _keys(model: type[BaseModel]) -> list[str]:
    return sorted(info.alias or name for name, info in model.model_fields.items())


@dataclass(frozen=True)
class Task:
    """One task of the list, its settings merged over the defaults."""

    id: str
    title: str
    prompt: str
    until: tuple[CheckSpec, ...]
    depends_on: tuple[str, ...]
    status: str = "todo"
    notes: str = ""
    max_iterations: int | None = None
    max_time: str | None = None
    max_cost: float | None = None
    agent: str | None = None
    args: tuple[str, ...] = ()
    folder: str = "."
    repo: str | None = None
    keep: tuple[CheckSpec, ...] = ()

    @property
    def until_text(self) -> str:
        return ",".join(spec.text for spec in self.until)

    @property
    def promise_only(self) -> bool:
        """``until = "promise"``: the agent's word, and the report says so."""
        return bool(self.until) and all(spec.name == "promise" for spec in self.until)

    def fingerprint(self) -> str:
        """What the task asks; a task whose fields changed since it passed is verified again."""
        text = "\0".join([self.id, self.title, self.prompt, self.until_text, self.notes,
                          *(spec.text for spec in self.keep)])
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class TaskList:
    """A validated task file, frozen when it was read."""

    path: Path
    tasks: list[Task]
    keep: tuple[CheckSpec, ...] = ()
    final: tuple[CheckSpec, ...] | None = None
    learnings: str = DEFAULT_LEARNINGS
    on_fail: str = "skip-dependents"
    agent: str | None = None
    #: Whether any task named a dependency (else the list is a chain).
    declared: bool = False
    #: The file's bytes when it was read: an agent's edit is noticed, never obeyed.
    digest: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    #: The file's text as read (what the verified commits carry, whatever the agent does).
    text: str = field(default="", repr=False)

    def get(self, task_id: str) -> Task:
        return next(task for task in self.tasks if task.id == task_id)

    def dependencies(self, task: Task) -> tuple[str, ...]:
        """What ``task`` waits for: its declared dependencies, or the task before it."""
        if self.declared:
            return task.depends_on
        earlier = [t for t in self.tasks[:self.tasks.index(task)] if t.status != "skip"]
        return (earlier[-1].id,) if earlier else ()  # a skipped task does not hold the chain

    def edited(self) -> bool:
        """Whether the file on disk differs from the copy the session works from."""
        try:
            return _digest(self.path.read_bytes()) != self.digest
        except OSError:
            return True


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _describe(exc: ValidationError, path: Path, data: dict[str, Any]) -> str:
    lines = []
    for error in exc.errors():
        loc = list(error["loc"])
        where = str(path)
        model: type[BaseModel]
        if loc[:1] == ["task"] and len(loc) > 1 and isinstance(loc[1], int):
            table = (data.get("task") or [{}])[loc[1]]
            name = table.get("id") or table.get("name") if isinstance(table, dict) else None
            where += f": task {name or '#' + str(loc[1] + 1)}"
            loc, model = loc[2:], _TaskTable
        elif loc[:1] in (["defaults"], ["fleet"]):
            where += f": [{loc[0]}]"
            loc, model = loc[1:], _DefaultsTable
        else:
            model = _TaskFile
        key = ".".join(str(part) for part in loc)
        if error["type"] == "extra_forbidden":
            close = difflib.get_close_matches(str(loc[0]), _keys(model), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            lines.append(f"{where}: unknown key {key!r}; {hint}known keys: "
                         f"{', '.join(_keys(model))}")
        else:
            lines.append(f"{where}: {key}: {error['msg'].lower()} (got {error.get('input')!r})")
    return "\n".join(lines)


def _specs(value: str | list[str] | None, where: str,
           resolve: Callable[[CheckSpec], object] | None) -> tuple[CheckSpec, ...]:
    if value is None:
        return ()
    specs = (parse_until(value, source=where) if isinstance(value, str)
             else [parse_spec(item, source=f"{where}[{i}]") for i, item in enumerate(value)])
    for spec in specs:
        if resolve is not None:
            resolve(spec)
    return tuple(specs)


def _prompt(table: _Limits, defaults: _Limits, base: Path, where: str) -> str:
    for source in (table, defaults):
        if source.prompt is not None:
            return source.prompt
        if source.prompt_file is not None:
            try:
                return (base / source.prompt_file).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(f"{where}: prompt-file {source.prompt_file!r} cannot be read "
                                  f"({getattr(exc, 'strerror', None) or exc}); give a UTF-8 "
                                  f"file's path relative to {base}") from None
    return ""


def read_toml(path: Path) -> tuple[dict[str, Any], bytes]:
    """The file's table and bytes; an unreadable or invalid file is a usage error."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"task file {path}: cannot be read ({exc.strerror}); give the path "
                         "of a tasks.toml") from None
    try:
        return tomllib.loads(raw.decode("utf-8")), raw
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def load_task_file(path: Path, *, resolve: Callable[[CheckSpec], object] | None = None,
                   own_checks: bool = True) -> TaskList:
    """Read and validate a task file. ``resolve`` checks each spec against the check types
    (a usage error for an unknown one); ``own_checks`` (``run --tasks``) requires every task
    to name checks of its own, where a fleet's tasks may take ``[fleet]``'s."""
    data, raw = read_toml(path)
    return from_data(data, path, raw=raw, resolve=resolve, own_checks=own_checks)


def from_data(data: dict[str, Any], path: Path, *, raw: bytes = b"",
              resolve: Callable[[CheckSpec], object] | None = None,
              own_checks: bool = True) -> TaskList:
    """Validate a task file's table (from TOML or an importer's translation)."""
    try:
        parsed = _TaskFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, path, data)) from None
    if parsed.defaults is not None and parsed.fleet is not None:
        raise ConfigError(f"{path}: both [defaults] and [fleet]: keep one of them "
                          "([fleet] is the older name of [defaults])")
    defaults = parsed.defaults or parsed.fleet or _DefaultsTable()
    if not parsed.task:
        raise ConfigError(f'{path}: no [[task]]: add one table per task, e.g. [[task]] id = "T1" '
                          'title = "..." until = "tests:tests/test_x.py"')
    base = path.resolve().parent
    default_until = _specs(defaults.until, f"{path} [defaults] until", resolve)
    tasks: list[Task] = []
    for index, table in enumerate(parsed.task):
        task_id = table.id or table.name or (
            f"T{index + 1}" if own_checks else task_name(table.folder))
        where = f"{path}: task {task_id}"
        if not ID.match(task_id):
            raise ConfigError(f"{where}: id {task_id!r} must be letters, digits, '.', '_' or '-' "
                              "(it becomes part of branch names), e.g. id = \"T1\"")
        if any(t.id == task_id for t in tasks):
            raise ConfigError(f"{where}: two tasks have the id {task_id!r}; give each a "
                              "distinct id = ...")
        until = _specs(table.until, f"{where} until", resolve)
        tasks.append(Task(
            id=task_id, title=table.title or task_id,
            prompt=_prompt(table, defaults, base, where), until=until or default_until,
            depends_on=tuple(table.depends_on or ()), status=table.status, notes=table.notes,
            max_iterations=table.max_iterations or defaults.max_iterations,
            max_time=table.max_time or defaults.max_time,
            max_cost=table.max_cost or defaults.max_cost, agent=table.agent or defaults.agent,
            args=(*defaults.args, *table.args), folder=table.folder, repo=table.repo,
            keep=_specs(table.keep, f"{where} keep", resolve)))
    declared = any(table.depends_on is not None for table in parsed.task)
    final = (_specs(defaults.final, f"{path} [defaults] final", resolve)
             if defaults.final is not None else None)
    settings = defaults.model_dump(include={"jobs", "total_cost", "total_time", "executor",
                                            "address"}, exclude_none=True)
    task_list = TaskList(path=path, tasks=tasks, declared=declared, final=final,
                         keep=_specs(defaults.keep if defaults.keep is not None
                                     else (DEFAULT_KEEP if own_checks else None),
                                     f"{path} [defaults] keep", resolve),
                         learnings=defaults.learnings, on_fail=defaults.on_fail,
                         agent=defaults.agent, digest=_digest(raw) if raw else "",
                         text=raw.decode("utf-8", "replace"),
                         settings=settings)
    check_graph(task_list)
    return task_list


def check_graph(task_list: TaskList) -> None:
    """Refuse a dependency on no task, on itself, and any cycle, naming the tasks."""
    ids = [task.id for task in task_list.tasks]
    for task in task_list.tasks:
        for dep in task.depends_on:
            if dep == task.id:
                raise ConfigError(f"{task_list.path}: task {task.id}: depends-on names the task "
                                  "itself; remove it from depends-on")
            if dep not in ids:
                close = difflib.get_close_matches(dep, ids, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                raise ConfigError(f"{task_list.path}: task {task.id}: depends-on {dep!r} is no "
                                  f"task of this file; {hint}known ids: {', '.join(ids)}")
    graph = {task.id: task_list.dependencies(task) for task in task_list.tasks}
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:  # args[1]: each node before the one depending on it
        raise ConfigError(f"{task_list.path}: the tasks depend on each other in a cycle: "
                          f"{' -> '.join(reversed(exc.args[1]))}; remove one of these "
                          "depends-on") from None
