"""Loosened tool settings, judged by their effect.

Each tool's effective settings (:mod:`ralph_verify.integrity.effective`) are resolved at the
start and now, and both are applied to today's tree: a file no longer measured, collected,
linted or type-checked, a test no longer collected, a rule or flag no longer enforced, is a
``narrowed-setting`` wherever it was written; the same effect from another file is nothing."""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.checks.api import Failure
from ralph_verify.integrity import effective
from ralph_verify.integrity.rule import allowed, failure
from ralph_verify.integrity.rules.gaming import is_source
from ralph_verify.integrity.sources import parse, read_text
from ralph_verify.records.integrity import FileFacts, Setting, Tools

if TYPE_CHECKING:
    from ralph_verify.integrity.rule import Pair

#: Tool -> the checks whose verdict it decides.
GATES = {"coverage": ("coverage",), "pytest": ("tests", "coverage"), "mypy": ("types",),
         "ruff": ("lint",)}
_COMPARE = {"coverage": effective.compare_coverage, "pytest": effective.compare_pytest,
            "mypy": effective.compare_mypy, "ruff": effective.compare_ruff}
#: The config files (and ``$VARIABLES``) each tool reads: it is resolved again only when
#: one of them changed.
_INPUTS = {"coverage": (".coveragerc", ".coveragerc.toml", "setup.cfg", "tox.ini",
                        "pyproject.toml#coverage", "$COVERAGE_RCFILE"),
           "pytest": ("pytest.ini", ".pytest.ini", "pyproject.toml#pytest", "tox.ini",
                      "setup.cfg", "$PYTEST_ADDOPTS", "conftest.py"),
           "mypy": ("mypy.ini", ".mypy.ini", "pyproject.toml#mypy", "setup.cfg",
                    "$MYPY_CONFIG_FILE", "#stubs"),
           "ruff": ("ruff.toml", ".ruff.toml", "pyproject.toml#ruff", "pyproject.toml",
                    ".gitignore", ".ignore")}
#: Settings files read in sub-folders too (by ruff, and pytest's conftests).
_NESTED = ("ruff.toml", ".ruff.toml", "pyproject.toml", "conftest.py")


def _config_state(root: Path, files: list[str]) -> dict[str, str]:
    state = {}
    for name in effective.CONFIG_FILES:
        path = root / name
        if path.is_file():
            data = path.read_bytes()
            if name == "pyproject.toml":
                state.update(effective.pyproject_state(data))
            else:
                state[name] = effective.digest(data)
    # conftests, and the files that decide which files ruff lints (.gitignore, a sub-folder's
    # ruff.toml or pyproject.toml): the set a tool checks may grow, never shrink.
    state.update({rel: effective.digest((root / rel).read_bytes()) for rel in files
                  if ("/" in rel and rel.rsplit("/", 1)[-1] in _NESTED)
                  or rel.rsplit("/", 1)[-1] in (".gitignore", ".ignore", "conftest.py")
                  if (root / rel).is_file()})
    state["#stubs"] = effective.digest("\n".join(f for f in files if f.endswith(".pyi")).encode())
    state.update({f"${k}": os.environ.get(k, "") for k in effective.ENV})
    return state


def _inputs(tool: str, state: dict[str, str]) -> dict[str, str]:
    names = _INPUTS[tool]
    return {k: v for k, v in state.items() if k in names or k.rsplit("/", 1)[-1] in names}


def _pytest(root: Path, files: list[str], settings: list[Setting]) -> dict[str, Any]:
    """pytest's effective settings; each conftest's ``collect_ignore`` entries as the
    settings reader found them."""
    conftests: dict[str, list[str]] = {}
    for setting in settings:
        if setting.key.startswith("conftest.collect_ignore"):
            conftests.setdefault(setting.file, []).extend(setting.value)
    return effective.pytest_config(root, conftests)


#: Each tool's reader of its effective settings, from the project, its files and the
#: settings they write.
_RESOLVE: dict[str, Callable[[Path, list[str], list[Setting]], dict[str, Any]]] = {
    "coverage": lambda root, _, __: effective.coverage_config(root), "pytest": _pytest,
    "mypy": lambda root, files, _: effective.mypy_config(root, files),
    "ruff": lambda root, _, __: effective.ruff_config(root)}
#: Effective settings by tool, project and the state of the tool's inputs.
_RESOLVED: dict[tuple[str, str, tuple[tuple[str, str], ...]], dict[str, Any]] = {}


def tools(root: Path, files: list[str], settings: list[Setting], old: Tools | None) -> Tools:
    """The tools' config inputs and each tool's effective settings (``old``'s where none of
    the tool's inputs changed); ``settings``: the ones :func:`.settings.read_all` found."""
    old = old or Tools()
    state = _config_state(root, files)
    found: dict[str, dict[str, Any]] = {}
    for tool in _INPUTS:
        inputs = _inputs(tool, state)
        if tool in old.effective and _inputs(tool, old.config) == inputs:
            found[tool] = old.effective[tool]
            continue
        if tool == "ruff":  # which files it lints depends on the files there are
            inputs = {**inputs, "files": effective.digest("\n".join(files).encode())}
        key = (tool, str(root), tuple(sorted(inputs.items())))
        if key not in _RESOLVED:  # resolved once per configuration in a loop's process
            try:
                _RESOLVED[key] = _RESOLVE[tool](root, files, settings)
            except Exception as exc:  # a tool's reader must never break the check
                _RESOLVED[key] = {"error": f"{type(exc).__name__}: {exc}"}
        found[tool] = _RESOLVED[key]
    return Tools(state, found)


def gated_tools(gate: set[str]) -> set[str]:
    """The tools whose settings decide a check of ``gate`` (all of them when the gate has
    no tool check: ``check --until integrity``)."""
    tools = {tool for tool, checks in GATES.items() if gate & set(checks)}
    return tools or set(GATES)


def compare(pair: Pair) -> list[Failure]:
    """Narrowed effective settings, and code moved out of coverage's sight."""
    return _narrowed(pair) + _moved_out(pair)


def _moved_out(pair: Pair) -> list[Failure]:
    """New product modules coverage does not measure, imported by a module it measures:
    code moved out of coverage's sight (the files it measures may grow, never shrink)."""
    config = pair.before.tools.effective.get("coverage") if pair.before.tools else None
    if "coverage" not in pair.checks or not config or "error" in config \
            or pair.before.facts is None or pair.after.facts is None:
        return []
    old, new = pair.before.facts.files, pair.after.facts.files
    inside = effective.measured(pair.root, config, sorted(new))
    outside = {effective.module_name(rel): rel for rel in new
               if rel not in old and rel not in inside and is_source(rel)}
    failures = []
    for rel in sorted(inside) if outside else []:
        if old.get(rel, FileFacts("")).sha == new[rel].sha:
            continue
        tree = parse(read_text(pair.root / rel))
        if tree is None:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [
                node.module] if node.module and not node.level else []
            failures += [failure(rel, node.lineno, "narrowed-setting", (
                f"{rel} imports {outside[name]}, a new module coverage does not measure "
                "(outside its source): move the code back where coverage measures it"))
                for name in names if name in outside]
    return failures


def _narrowed(pair: Pair) -> list[Failure]:
    """Narrowings of the effective settings of the tools that decide the run's checks."""
    then, now = pair.before.tools, pair.after.tools
    if then is None or now is None or pair.before.facts is None or pair.after.facts is None:
        return []
    old_files, new_files = pair.before.facts.files, pair.after.facts.files
    failures: list[Failure] = []
    for tool in sorted(gated_tools(pair.checks)):
        a, b = then.effective.get(tool) or {}, now.effective.get(tool) or {}
        if "error" in a or "error" in b or not a or not b \
                or _inputs(tool, then.config) == _inputs(tool, now.config):
            continue
        extra: dict[str, Any] = {}
        if tool == "ruff":  # new path -> old path, for files moved with the same content
            by_sha = {entry.sha: rel for rel, entry in old_files.items()}
            extra["renamed"] = {rel: by_sha[entry.sha] for rel, entry in new_files.items()
                                if rel not in old_files and entry.sha in by_sha}
        if tool == "pytest" and pair.before.marks is not None:  # the start's test files' now
            extra["marks"] = {*pair.before.marks, *(
                m for rel in pair.before.tests for m in new_files.get(rel, FileFacts("")).marks)}
        if tool == "pytest":
            extra["tests"] = pair.before.tests
        if tool in ("ruff", "mypy"):
            was, state = _inputs(tool, then.config), _inputs(tool, now.config)
            extra["changed"] = sorted({key.split("#", 1)[0] for key in {*was, *state}
                                       if was.get(key) != state.get(key) and key[0] not in "#$"})
        for _, path, line, message in _COMPARE[tool](pair.root, a, b, sorted(new_files),
                                                        **extra):
            if not allowed(path, "narrowed-setting", tool, pair.before.allow):
                failures.append(failure(
                    path, line, "narrowed-setting", f"{message} (allow it on purpose with "
                    f'allow = ["{path}:{tool}"] in [tool.ralph-verify.checks.integrity])'))
    return failures
