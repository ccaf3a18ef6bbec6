"""Effective settings: what each tool will measure, collect or check, before and after.

A setting may move between files, and a new file may override another by the tool's own
precedence, so each tool's configuration is resolved the way the tool does it and both the
old and the new one are applied to the *current* tree: only a narrower effect is a finding,
wherever it was written."""

from __future__ import annotations

import configparser
import fnmatch
import hashlib
import os
import re
from pathlib import Path
from typing import Any

from ralph_verify.compat import tomllib
from ralph_verify.integrity.sources import read_text

#: A narrowing: (tool, file, line, message).
Narrowing = tuple[str, str, int, str]
CONFIG_FILES = ("pyproject.toml", "setup.cfg", "tox.ini", ".coveragerc", ".coveragerc.toml",
                "pytest.ini", ".pytest.ini", "mypy.ini", ".mypy.ini", "ruff.toml", ".ruff.toml")
ENV = ("PYTEST_ADDOPTS", "COVERAGE_RCFILE", "MYPY_CONFIG_FILE")
MAX_LISTED = 5


#: The tables of ``pyproject.toml`` each tool reads: the tool is resolved again only when
#: one of them changed (a new version number or dependency changes no tool's settings).
_PYPROJECT = {"coverage": (("tool", "coverage"),), "mypy": (("tool", "mypy"),),
              "ruff": (("tool", "ruff"), ("project", "requires-python")),
              "pytest": (("tool", "pytest"),)}


def pyproject_state(data: bytes) -> dict[str, str]:
    """``pyproject.toml#TOOL`` -> a hash of the tables that tool reads (of the whole file for
    every tool when it does not parse)."""
    import json

    try:
        parsed_toml = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {f"pyproject.toml#{tool}": _digest(data) for tool in _PYPROJECT}
    state = {}
    for tool, paths in _PYPROJECT.items():
        parts = []
        for path in paths:
            value: Any = parsed_toml
            for name in path:
                value = value.get(name) if isinstance(value, dict) else None
            parts.append(value)
        state[f"pyproject.toml#{tool}"] = _digest(json.dumps(parts, sort_keys=True,
                                                          default=str).encode())
    return state


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def line_of(root: Path, file: str | None, keys: tuple[str, ...], anywhere: bool = False) -> int:
    """The first line of ``file`` that sets one of ``keys`` (``anywhere``: that names one;
    1 when none is found)."""
    if not file:
        return 1
    lines = read_text(root / file).splitlines()
    names = "|".join(re.escape(k) for k in keys)
    pattern = re.compile(names if anywhere else r"""^\s*["']?(""" + names + r""")["']?\s*[=:]""")
    return next((n for n, text in enumerate(lines, 1) if pattern.search(text)), 1)


def listed(items: list[str]) -> str:
    more = f" and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else ""
    return ", ".join(items[:MAX_LISTED]) + more


# --- coverage ----------------------------------------------------------------------------------


def coverage_config(root: Path) -> dict[str, Any]:
    """coverage.py's own reading of the project's configuration (the files it tries, in its
    order: ``$COVERAGE_RCFILE`` or ``.coveragerc``, ``.coveragerc.toml``, ``setup.cfg``,
    ``tox.ini``, ``pyproject.toml``)."""
    from coverage.config import CoverageConfig
    from coverage.exceptions import CoverageException

    config = CoverageConfig()
    rcfile = os.environ.get("COVERAGE_RCFILE") or ".coveragerc"
    source = None
    for name, ours in ((rcfile, True), (".coveragerc.toml", True), ("setup.cfg", False),
                       ("tox.ini", False), ("pyproject.toml", False)):
        path = root / name
        if not path.is_file():
            continue
        try:
            if config.from_file(str(path), lambda message: None, our_file=ours):
                source = name
                break
        except (CoverageException, OSError, UnicodeDecodeError, ValueError):
            return {"error": f"{name} is unreadable"}
    return {"file": source, "source": list(config.source or []),
            "include": [*(config.run_include or []), *(config.report_include or [])],
            "omit": [*(config.run_omit or []), *(config.report_omit or [])],
            "exclude": list(config.exclude_list), "fail_under": float(config.fail_under),
            "branch": bool(config.branch)}


def _glob(root: Path, pattern: str) -> str:
    """A coverage pattern as it matches absolute paths (relative ones from the root)."""
    if pattern.startswith(("*", "/")):
        return pattern
    return (root / pattern).as_posix()


def measured(root: Path, config: dict[str, Any], files: list[str]) -> set[str]:
    """The project's Python files coverage measures under ``config``."""
    omit = [_glob(root, p) for p in config.get("omit", [])]
    include = [_glob(root, p) for p in config.get("include", [])]
    sources = [s.replace(".", "/") if not (root / s).exists() else s
               for s in config.get("source", [])]
    found = set()
    for rel in files:
        if not rel.endswith(".py"):
            continue
        full = (root / rel).as_posix()
        if sources and not any(rel == s or rel.startswith(s.rstrip("/") + "/")
                               or rel.startswith(f"src/{s}/") for s in sources):
            continue
        if include and not any(fnmatch.fnmatch(full, p) for p in include):
            continue
        if any(fnmatch.fnmatch(full, p) for p in omit):
            continue
        found.add(rel)
    return found


def excluded_lines(root: Path, regexes: list[str], files: set[str]) -> dict[str, list[int]]:
    """Lines of ``files`` that ``regexes`` (``exclude_lines``) exclude."""
    try:
        joined = re.compile("|".join(f"(?:{r})" for r in regexes)) if regexes else None
    except re.error:
        return {}
    out: dict[str, list[int]] = {}
    for rel in sorted(files) if joined else []:
        lines = read_text(root / rel).splitlines()
        hits = [n for n, line in enumerate(lines, 1) if joined and joined.search(line)]
        if hits:
            out[rel] = hits
    return out


def compare_coverage(root: Path, old: dict[str, Any], new: dict[str, Any],
                     files: list[str]) -> list[Narrowing]:
    where = new.get("file") or "pyproject.toml"
    found: list[Narrowing] = []
    then, now = measured(root, old, files), measured(root, new, files)
    lost = sorted(then - now)
    if lost:
        found.append(("coverage", where, line_of(root, where, ("omit", "include", "source")),
                      f"coverage no longer measures {len(lost)} file(s) it measured at the "
                      f"start ({listed(lost)}): test them instead of leaving them out"))
    if old.get("exclude") != new.get("exclude"):
        before = excluded_lines(root, old.get("exclude", []), now)
        after = excluded_lines(root, new.get("exclude", []), now)
        extra = [f"{rel}:{n}" for rel, lines in sorted(after.items())
                 for n in lines if n not in set(before.get(rel, []))]
        if extra:
            found.append(("coverage", where, line_of(root, where, ("exclude_lines",
                                                                   "exclude_also", "exclude")),
                          f"coverage now excludes {len(extra)} more line(s) from measurement "
                          f"({listed(extra)}): test them instead of excluding them"))
    if new.get("fail_under", 0.0) < old.get("fail_under", 0.0):
        found.append(("coverage", where, line_of(root, where, ("fail_under", "fail-under")),
                      f"coverage's effective fail_under went from {old['fail_under']:g} to "
                      f"{new['fail_under']:g}"))
    if old.get("branch") and not new.get("branch"):
        found.append(("coverage", where, line_of(root, where, ("branch",)),
                      "coverage no longer measures branches (branch was on)"))
    return found


# --- pytest ------------------------------------------------------------------------------------

_DEFAULT_NORECURSE = ["*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv",
                      "{arch}"]
_NARROWING = ("-k", "-m", "--deselect", "--ignore", "--ignore-glob", "--lf", "--last-failed",
              "--sw", "--stepwise", "-x", "--exitfirst", "--maxfail")
_STRICT = ("--strict-markers", "--strict-config", "--strict", "--runxfail")


def read_ini(path: Path) -> configparser.RawConfigParser | None:
    """An INI file (empty when unreadable), ``None`` when it does not parse."""
    parser = configparser.RawConfigParser(interpolation=None)
    try:
        parser.read_string(read_text(path))
    except configparser.Error:
        return None
    return parser


def tool_table(path: Path, tool: str) -> Any:
    """``[tool.TOOL]`` of a TOML file, ``None`` when it cannot be read or lacks it."""
    try:
        return tomllib.loads(read_text(path)).get("tool", {}).get(tool)
    except tomllib.TOMLDecodeError:
        return None


def _ini(root: Path) -> tuple[str | None, dict[str, Any]]:
    """pytest's configuration file and its ini options, in pytest's own order."""
    for name in ("pytest.ini", ".pytest.ini"):
        if (root / name).is_file():
            return name, _ini_section(root / name, "pytest") or {}
    table = tool_table(root / "pyproject.toml", "pytest")
    if isinstance(table, dict) and isinstance(table.get("ini_options"), dict):
        return "pyproject.toml", table["ini_options"]
    if isinstance(table, dict) and table:  # pytest 9's native [tool.pytest]
        return "pyproject.toml", table
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        found = _ini_section(root / name, section)
        if found is not None:
            return name, found
    return None, {}


def _ini_section(path: Path, section: str) -> dict[str, Any] | None:
    parser = read_ini(path)
    return dict(parser.items(section)) if parser and parser.has_section(section) else None


def _list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    return str(value or "").split()


def pytest_config(root: Path, conftests: dict[str, list[str]]) -> dict[str, Any]:
    """Effective pytest collection settings; ``conftests``: conftest -> its collect_ignore."""
    from ralph_verify.integrity.settings import addopts_items

    file, ini = _ini(root)
    opts = addopts_items(ini.get("addopts", "")) + addopts_items(
        os.environ.get("PYTEST_ADDOPTS", ""))
    if str(ini.get("strict", "")).lower() in ("true", "1", "yes"):  # pytest 9: all of them
        opts += [o for o in ("--strict-markers", "--strict-config") if o not in opts]
    return {"file": file, "addopts": opts, "testpaths": _list(ini.get("testpaths")),
            "python_files": _list(ini.get("python_files")) or ["test_*.py", "*_test.py"],
            "norecursedirs": _list(ini.get("norecursedirs")) or _DEFAULT_NORECURSE,
            "collect_ignore": conftests}


def collected_files(config: dict[str, Any], files: list[str]) -> set[str]:
    """The test files pytest collects under ``config`` (by path; no import)."""
    paths = [p.rstrip("/") for p in config.get("testpaths", [])]
    ignores = [item.split(" ", 1)[1].rstrip("/") for item in config.get("addopts", [])
               if item.split(" ", 1)[0] in ("--ignore", "--ignore-glob") and " " in item]
    for conftest, entries in config.get("collect_ignore", {}).items():
        base = conftest.rsplit("/", 1)[0] + "/" if "/" in conftest else ""
        ignores += [f"{base}{e}".rstrip("/") for e in entries]
    found = set()
    for rel in files:
        parts = rel.split("/")
        if not any(fnmatch.fnmatch(parts[-1], p) for p in config.get("python_files", [])):
            continue
        if paths and not any(rel == p or rel.startswith(p + "/") or fnmatch.fnmatch(rel, p)
                             for p in paths):
            continue
        if any(fnmatch.fnmatch(d, p) for d in parts[:-1]
               for p in config.get("norecursedirs", [])):
            continue
        if any(rel == i or rel.startswith(i + "/") or fnmatch.fnmatch(rel, i) for i in ignores):
            continue
        found.add(rel)
    return found


def compare_pytest(root: Path, old: dict[str, Any], new: dict[str, Any],
                   files: list[str], marks: set[str] | None = None) -> list[Narrowing]:
    """``marks``: the markers the start's test files carry (a ``-m`` that names none of them
    takes none of their tests out)."""
    from ralph_verify.integrity.setting_moves import marker_names

    where = new.get("file") or "pyproject.toml"
    found: list[Narrowing] = []
    lost = sorted(collected_files(old, files) - collected_files(new, files))
    if lost:
        ignoring = next((c for c, e in new.get("collect_ignore", {}).items()
                         if e and e != old.get("collect_ignore", {}).get(c)), None)
        at = ignoring or where
        found.append(("pytest", at, line_of(root, at, ("collect_ignore", "collect_ignore_glob",
                                                       "testpaths", "python_files",
                                                       "norecursedirs", "addopts")),
                      f"pytest no longer collects {len(lost)} test file(s) it collected at the "
                      f"start ({listed(lost)}): keep them in the run"))
    then, now = old.get("addopts", []), new.get("addopts", [])
    for item in now:
        if item.startswith("-m ") and marks is not None and not marker_names(item[3:]) & marks:
            continue
        if item not in then and item.split(" ", 1)[0] in _NARROWING:
            found.append(("pytest", where, line_of(root, where, ("addopts",)),
                          f"pytest's effective options gained {item!r}, which takes tests "
                          "out of the run"))
    for item in then:
        if item not in now and (item in _STRICT or item.startswith("-W ")):
            found.append(("pytest", where, line_of(root, where, ("addopts",)),
                          f"pytest's effective options lost {item!r}"))
    return found
