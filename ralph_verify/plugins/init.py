"""The ``project`` target of ``ralph-verify init``: a ``[tool.ralph-verify]`` table in
``pyproject.toml`` (appended as text), a ``PROMPT.md`` and ``.ralph/`` in ``.gitignore``,
never overwriting without ``--force``; on a terminal it asks for the checks and the agent."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.checks.registry import registry_of
from ralph_verify.config.until import parse_until
from ralph_verify.errors import UsageError
from ralph_verify.markers import hookimpl
from ralph_verify.plugins.mypy.targets import config_names_targets

if TYPE_CHECKING:  # detect and scaffold are imported by init alone, when it runs
    from ralph_verify.config import Config
    from ralph_verify.config.scaffold import FileChange, InitRegistry
    from ralph_verify.project.detect import Project

PROMPT_TEMPLATE = """\
# Task

Describe the change you want, as you would to a colleague: what to build or fix,
where it lives, and what "done" looks like.

## Done when

`ralph-verify check` passes: {checks}.

## Rules

- Work in small steps; run the tests yourself before you stop.
- Do not delete, skip or weaken tests, and do not add `# type: ignore`, `# noqa`
  or `pragma: no cover` to make a check pass: fix the code instead.
- When the task is done, print `<promise>COMPLETE</promise>`.
- If you cannot go on (a decision or access only a person can give), print
  `<promise>BLOCKED: the reason</promise>`.
"""

_HEADER = r"^[ \t]*\[\[?[ \t]*([^\]\r\n]*?)[ \t]*\]"


@hookimpl
def ralph_register_init_targets(registry: InitRegistry) -> None:
    from ralph_verify.config.scaffold import InitTarget

    registry.add(InitTarget("project", init_project,
                            help="[tool.ralph-verify] in pyproject.toml, PROMPT.md, .gitignore"))


# --- The ``project`` target --------------------------------------------------------------------


def detected_until(project: Project) -> list[str]:
    """The checks to start with: what the project already has tools configured for."""
    until = []
    if project.has_tests:
        until.append("tests")
    until.append("lint")
    if project.ruff_format:
        until.append("format")
    if project.mypy_config:
        until.append("types")
    if project.has_tests and project.coverage_config:
        until.append("coverage" if project.coverage_fail_under is not None else "coverage>=80")
    return until


def _toml(value: str | list[str]) -> str:
    """A TOML string or array of strings (JSON's spelling of them is TOML's)."""
    return json.dumps(value, ensure_ascii=False)


def types_settings(root: Path) -> tuple[list[str] | None, list[str], str]:
    """The ``targets`` and ``args`` that make ``types`` agree with the project's CI, and why:
    the targets and options of the CI's mypy command, else no targets (the mypy config's
    ``files``), else the project's package(s)."""
    from ralph_verify.project.layout import ci_mypy_targets, project_packages

    found = ci_mypy_targets(root)
    if found is not None:
        return found[0], found[1], f"as the project's CI runs mypy ({found[2]})"
    if config_names_targets(root):
        return None, [], "the files of your mypy config"
    packages = project_packages(root)
    if packages:
        return packages, [], "the project's package(s), not its tests"
    return None, [], "no package found: the whole project"


def config_block(config: Config, project: Project, until: list[str], agent: str | None,
                 types: bool = False) -> str:
    """The ``[tool.ralph-verify]`` table; keys no loaded plugin declares are commented out.
    ``types``: ``until`` has the ``types`` check, so its targets are written too."""
    known = set(config.parser.settings)
    lines = ["[tool.ralph-verify]",
             "# Written by 'ralph-verify init'; every key: docs/configuration.md",
             f"until = {_toml(until)}"]
    if not project.has_tests:
        lines.append('# no tests found: add "tests" to until once there are some')
    if not agent:
        lines.append("# no agent CLI found on PATH; install one or pick another")
    lines += [f"{'' if agent and 'agent' in known else '# '}agent = {_toml(agent or 'claude')}",
              f"{'' if 'max-iterations' in known else '# '}max-iterations = 20"]
    if types:
        targets, args, why = types_settings(project.root)
        lines += ["", "[tool.ralph-verify.checks.types]", f"# targets: {why}"]
        if targets is not None:
            lines.append(f"targets = {_toml(targets)}")
        if args:
            lines.append(f"args = {_toml(args)}")
    lines += ["", "# [tool.ralph-verify.checks.tests]", '# args = ["-q"]']
    return "\n".join(lines) + "\n"


def replace_tables(text: str, block: str) -> str | None:
    """``text`` with every ``[tool.ralph-verify...]`` table replaced by ``block`` (where the first
    one was); ``None`` if the table is not written as table headers (inline, dotted keys)."""
    from ralph_verify.config.scaffold import newline_of

    kept: list[str] = []
    insert_at: int | None = None
    skipping = False
    for line in text.splitlines(keepends=True):
        match = re.compile(_HEADER).match(line)
        if match:
            key = re.sub(r"""[\s"']""", "", match.group(1))
            skipping = key == "tool.ralph-verify" or key.startswith("tool.ralph-verify.")
            if skipping and insert_at is None:
                insert_at = len(kept)
        if not skipping:
            kept.append(line)
    if insert_at is None:
        return None
    eol = newline_of(text)
    after = kept[insert_at:]
    # A table ends at the next header: the blank lines before it went with ours.
    new_block = block.replace("\n", eol) + (eol if after else "")
    return "".join(kept[:insert_at]) + new_block + "".join(after)


def _without_ours(data: dict[str, Any]) -> dict[str, Any]:
    tool = dict(data.get("tool", {}))
    tool.pop("ralph-verify", None)
    return {**data, "tool": tool}


def pyproject_change(path: Path, block: str) -> FileChange:
    from ralph_verify.compat import tomllib
    from ralph_verify.config.scaffold import FileChange, append_block, read_text

    old = read_text(path)
    if old is None:
        return FileChange(path, None, block, why="create it")
    data = tomllib.loads(old)
    if "ralph-verify" not in data.get("tool", {}):
        new = append_block(old, block)
        clobbers = False
    else:
        replaced = replace_tables(old, block)
        if replaced is None:
            raise UsageError(f"{path} sets [tool.ralph-verify] with inline tables or dotted keys: "
                             "edit it by hand (see docs/configuration.md)")
        new, clobbers = replaced, True
    try:
        parsed = tomllib.loads(new)
    except tomllib.TOMLDecodeError:
        parsed = {}
    if _without_ours(parsed) != _without_ours(data):
        raise UsageError(f"could not add [tool.ralph-verify] to {path} without changing other "
                         "settings: edit it by hand (see docs/configuration.md)")
    return FileChange(path, old, new, clobbers=clobbers,
                      why=f"{path.name} already has a [tool.ralph-verify] table")


def _ask(question: str, default: str) -> str:
    answer = input(f"{question} [{default}]: ").strip()
    return answer or default


def init_project(config: Config) -> int:
    from ralph_verify.config.scaffold import FileChange, apply_changes, gitignore_change, read_text
    from ralph_verify.project.detect import detect

    root = config.root
    project = detect(root, _registered_agents(config))
    print(f"ralph-verify init · {root}")
    for line in project.describe():
        print(f"  {line}")
    until = detected_until(project)
    agent = project.agents[0] if project.agents else None
    interactive = (not config.get("yes") and not config.get("dry_run")
                   and sys.stdin.isatty() and sys.stdout.isatty())
    while True:
        if interactive:
            until = [s.strip() for s in _ask("Checks that must pass", ",".join(until)).split(",")
                     if s.strip()]
        try:
            names = {registry_of(config).resolve(spec).name
                     for spec in parse_until(",".join(until), source="the checks")}
            break
        except UsageError as exc:
            if not interactive:
                raise
            print(f"ERROR: {exc}")  # a typo is asked again, not the end of init
            until = detected_until(project)
    if interactive:
        agent = _ask("Agent", agent or "claude")
    block = config_block(config, project, until, agent, types="types" in names)
    prompt = root / "PROMPT.md"
    changes = [
        pyproject_change(config.pyproject, block),
        FileChange(prompt, read_text(prompt), read_text(prompt)
                   or PROMPT_TEMPLATE.format(checks=", ".join(until))),
        gitignore_change(root / ".gitignore"),
    ]
    written = apply_changes(changes, root, force=config.get("force"),
                            dry_run=config.get("dry_run"), out=sys.stdout)
    print()
    files = [change.path.relative_to(root).as_posix() for change in changes]
    for name, change in zip(files, changes, strict=True):
        if config.get("dry_run"):
            state = "would change" if change.changed else "unchanged"
        elif change in written:
            state = "created" if change.old is None else "updated"
        else:
            state = "kept as it is"
        print(f"  {name}: {state}")
    if not config.get("dry_run"):
        print(commit_step(config, root, files))
        print("\nnext: 'ralph-verify check' to see where the project stands, then edit "
              "PROMPT.md and 'ralph-verify run'")
    return 0


def commit_step(config: Config, root: Path, names: list[str]) -> str:
    """``init --commit`` commits init's files (``run`` refuses a dirty tree); without it,
    the exact command that does, when they are not committed yet."""
    import shlex

    from ralph_verify.project import git

    message = "ralph-verify init"
    if config.get("commit"):
        if not git.is_repo(root):
            git.git(root, "init", "-q")
        sha = git.commit_paths(root, names, message)
        return f"  committed: {sha[:12]} {message}" if sha else "  nothing to commit"
    if not git.is_repo(root):
        return ("  not a git repository: 'git init' first, or 'ralph-verify init --commit' "
                "does it (run works without git, but with no checkpoints and no rollback)")
    dirty = set(git.dirty_paths(root)) & set(names)
    if not dirty:
        return "  already committed"
    listed = " ".join(shlex.quote(name) for name in names if name in dirty)
    return (f"  not committed yet ('ralph-verify run' wants a clean tree): git add {listed} "
            f"&& git commit -m '{message}'  (or: ralph-verify init --commit)")


def _registered_agents(config: Config) -> list[str] | None:
    """Adapter names the loaded plugins provide, or ``None`` if none does (look for all)."""
    from ralph_verify.agents import AgentRegistry

    registry = AgentRegistry()
    config.hook.ralph_register_agents(registry=registry)
    names = [t.name for t in registry.types()]
    return names or None
