"""The gating tool settings a project writes, by file and key: the baseline keeps them, and
pytest's ``-p`` plugins and each conftest's ``collect_ignore`` are read from them (a setting
counts by its effect: :mod:`ralph_verify.integrity.effective`)."""

from __future__ import annotations

import configparser
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ralph_verify.compat import tomllib
from ralph_verify.integrity.sources import conftest_settings
from ralph_verify.records.integrity import Setting

KINDS: dict[str, str] = {
    "fail_under": "min",
    **dict.fromkeys(("omit", "exclude_lines", "exclude_also", "partial_branches", "ignore",
                     "extend_ignore", "per_file_ignores", "extend_per_file_ignores", "exclude",
                     "extend_exclude", "disable_error_code", "collect_ignore",
                     "collect_ignore_glob", "norecursedirs", "hooks"), "grow"),
    **dict.fromkeys(("select", "extend_select", "enable_error_code", "testpaths",
                     "python_files", "python_classes", "python_functions", "source",
                     "include"), "shrink"),
    **dict.fromkeys(("branch", "xfail_strict", "check_untyped_defs", "extra_checks",
                     "strict"), "off"),
    "addopts": "opts",
}
_ON_PREFIXES = ("allow_", "ignore_", "implicit_")
_OFF_PREFIXES = ("strict", "disallow_", "warn_", "no_implicit_")
#: addopts options that take tests out of a run when added / make it stricter when present
#: (as written here, and in pytest's effective options).
ADD_WEAKENS = ("-k", "-m", "--deselect", "--ignore", "--ignore-glob", "--lf", "--last-failed",
               "--sw", "--stepwise", "-x", "--exitfirst", "--maxfail",
               "--continue-on-collection-errors")
DROP_WEAKENS = ("--strict-markers", "--strict-config", "--strict", "-W", "--runxfail")
_VALUE_OPTIONS = ("-k", "-m", "--deselect", "--ignore", "--ignore-glob", "-W", "-p", "-o",
                  "--cov-fail-under", "--cov")
_TOOLS = ("coverage", "ruff", "mypy", "pytest")
_INI_FILES = ("setup.cfg", "tox.ini", ".coveragerc", "mypy.ini", ".mypy.ini", "pytest.ini")


def kind_of(key: str) -> str | None:
    name = key.rsplit(".", 1)[-1].replace("-", "_")
    if name in KINDS:
        return KINDS[name]
    if key.startswith("mypy") and name.startswith(_ON_PREFIXES):
        return "on"
    if key.startswith("mypy") and name.startswith(_OFF_PREFIXES):
        return "off"
    return None


def read_all(root: Path, files: list[str]) -> list[Setting]:
    """Every watched setting in the project's config files (``files``: the tree's files)."""
    found: list[Setting] = []
    for rel in files:
        name = rel.rsplit("/", 1)[-1]
        is_top = "/" not in rel
        try:
            if is_top and name == "pyproject.toml":
                found += _from_toml(rel, _read(root / rel), prefix="tool.")
            elif is_top and name in ("ruff.toml", ".ruff.toml"):
                found += _from_toml(rel, _read(root / rel), prefix="", into="ruff.")
            elif is_top and name in _INI_FILES:
                found += _from_ini(rel, _read(root / rel))
            elif name == "conftest.py":
                found += [Setting(rel, f"conftest.{key}", items, line)
                          for key, items, line in conftest_settings(_read(root / rel))]
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue  # unreadable config: the tools themselves will complain
    return found


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# --- TOML ------------------------------------------------------------------------------------


def _from_toml(rel: str, text: str, *, prefix: str, into: str = "") -> list[Setting]:
    data = tomllib.loads(text)
    if prefix:
        data = {tool: data.get("tool", {}).get(tool) for tool in _TOOLS}
    else:
        data = {into.rstrip("."): data}
    found = []
    for path, value in _walk(data):
        key = ".".join(path)
        kind = kind_of(key)
        if kind is None:
            continue
        if key.startswith("pytest.ini_options."):
            key = "pytest." + key.removeprefix("pytest.ini_options.")
        found.append(Setting(rel, key, normalise(kind, value)))
    return found


def _walk(data: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Leaves of the tool tables; mypy overrides are named by their module, not index."""
    if isinstance(data, dict) and not (path and kind_of(".".join(path)) == "grow"):
        for key, value in data.items():
            yield from _walk(value, (*path, str(key)))
    elif isinstance(data, list) and data and all(isinstance(d, dict) for d in data):
        for index, table in enumerate(data):
            module = table.get("module", index)
            modules = ",".join(module) if isinstance(module, list) else str(module)
            yield from _walk(table, (*path[:-1], f"{path[-1]}[{modules}]"))
    elif data is not None and path:
        yield path, data


# --- INI -------------------------------------------------------------------------------------


def _ini_section(file: str, section: str) -> str | None:
    """The tool prefix of an INI section (``coverage:report`` -> ``coverage.report``)."""
    if section.startswith("coverage:"):
        return "coverage." + section.split(":", 1)[1]
    if file == ".coveragerc" and section in ("run", "report", "paths", "html", "xml"):
        return "coverage." + section
    if section == "mypy":
        return "mypy"
    if section.startswith("mypy-"):
        return f"mypy.overrides[{section[5:]}]"
    if section in ("tool:pytest", "pytest") and (file != "setup.cfg" or section != "pytest"):
        return "pytest"
    return None


def ini_parser(text: str) -> configparser.RawConfigParser | None:
    """An INI file as coverage and mypy read it (configparser), ``None`` when it does not
    parse: the one reader of INI files, for the settings as written and by effect."""
    parser = configparser.RawConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return parser


def _from_ini(rel: str, text: str) -> list[Setting]:
    parser = ini_parser(text)
    if parser is None:
        return []
    found = []
    for section in parser.sections():
        tool = _ini_section(rel, section.strip())
        for key, value in parser.items(section) if tool is not None else []:
            full = f"{tool}.{key.strip().replace('-', '_')}"
            kind = kind_of(full)
            if kind is not None:
                found.append(Setting(rel, full, normalise(kind, value.strip())))
    return found


# --- Normalising -----------------------------------------------------------------------------


def normalise(kind: str, value: Any) -> Any:
    """Comparable values: a float, a bool, a list of strings, or the text."""
    if kind == "min":
        try:
            return float(value)
        except (TypeError, ValueError):
            return str(value)
    if kind in ("on", "off"):
        if isinstance(value, str):
            return value.strip().lower() in ("1", "true", "yes", "on")
        return bool(value)
    if kind == "opts":
        return addopts_items(value)
    if isinstance(value, dict):
        return [f"{k}: {item}" for k, v in value.items()
                for item in (v if isinstance(v, list) else [v])]
    if isinstance(value, list):
        return [str(item) for item in value]
    if isinstance(value, str):
        return [part.strip() for part in re.split(r"[\n,]", value) if part.strip()]
    return [str(value)]


def addopts_items(value: Any) -> list[str]:
    """``-k "not slow" --strict-markers`` -> ``["-k not slow", "--strict-markers"]``."""
    try:
        tokens = shlex.split(value) if isinstance(value, str) else [str(v) for v in value]
    except ValueError:
        tokens = str(value).split()
    items: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        name, eq, rest = token.partition("=")
        if eq and name in _VALUE_OPTIONS:
            items.append(f"{name} {rest}")
        elif token in _VALUE_OPTIONS and index + 1 < len(tokens):
            items.append(f"{token} {tokens[index + 1]}")
            index += 1
        elif token.startswith("-W") and len(token) > 2:
            items.append(f"-W {token[2:]}")
        else:
            items.append(token)
        index += 1
    return items


def option(item: str) -> str:
    return item.split(" ", 1)[0]


def marker_names(expression: str) -> set[str]:
    """The markers a ``-m`` expression names (``not slow and not stress`` -> slow, stress)."""
    return set(re.findall(r"[A-Za-z_]\w*", expression)) - {"and", "or", "not"}
