"""Effective settings: what each tool will measure, collect or check, before and after.

A setting may move between files, and a new file may override another by the tool's own
precedence, so each tool's configuration is resolved the way the tool does it and both the
old and the new one are applied to the *current* tree: only a narrower effect is a finding,
wherever it was written. mypy's settings are read as mypy picks its file, ruff's from ruff's own
``--show-files``/``--show-settings``."""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ralph_verify.compat import tomllib
from ralph_verify.integrity import settings as written
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
        return {f"pyproject.toml#{tool}": digest(data) for tool in _PYPROJECT}
    state = {}
    for tool, paths in _PYPROJECT.items():
        parts = []
        for path in paths:
            value: Any = parsed_toml
            for name in path:
                value = value.get(name) if isinstance(value, dict) else None
            parts.append(value)
        state[f"pyproject.toml#{tool}"] = digest(json.dumps(parts, sort_keys=True,
                                                          default=str).encode())
    return state


def digest(data: bytes) -> str:
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
    parser = written.ini_parser(read_text(path))
    return dict(parser.items(section)) if parser and parser.has_section(section) else None


def _list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    return str(value or "").split()


def pytest_config(root: Path, conftests: dict[str, list[str]]) -> dict[str, Any]:
    """Effective pytest collection settings; ``conftests``: conftest -> its collect_ignore."""
    file, ini = _ini(root)
    opts = written.addopts_items(ini.get("addopts", "")) + written.addopts_items(
        os.environ.get("PYTEST_ADDOPTS", ""))
    if str(ini.get("strict", "")).lower() in ("true", "1", "yes"):  # pytest 9: all of them
        opts += [o for o in ("--strict-markers", "--strict-config") if o not in opts]
    return {"file": file, "addopts": opts, "testpaths": _list(ini.get("testpaths")),
            "python_files": _list(ini.get("python_files")) or ["test_*.py", "*_test.py"],
            "python_classes": _list(ini.get("python_classes")) or ["Test"],
            "python_functions": _list(ini.get("python_functions")) or ["test"],
            "xfail_strict": _truth(ini.get("xfail_strict")) or _truth(ini.get("strict")),
            "norecursedirs": _list(ini.get("norecursedirs")) or _DEFAULT_NORECURSE,
            "collect_ignore": conftests}


def _named(name: str, patterns: list[str]) -> bool:
    """Whether pytest collects a function or class ``name`` by ``python_functions`` or
    ``python_classes`` (a glob, or else a prefix)."""
    return any(fnmatch.fnmatch(name, p) if any(c in p for c in "*?[") else name.startswith(p)
               for p in patterns)


def collected_tests(config: dict[str, Any], tests: dict[str, dict[str, int]]) -> set[str]:
    """Which of ``tests`` (file -> ``name`` or ``Class.name``) pytest's name patterns take."""
    functions = config.get("python_functions", ["test"])
    classes = config.get("python_classes", ["Test"])
    return {f"{rel}::{name}" for rel, names in tests.items() for name in names
            if _named(name.rsplit(".", 1)[-1], functions)
            and ("." not in name or _named(name.split(".", 1)[0], classes))}


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
                   files: list[str], marks: set[str] | None = None,
                   tests: dict[str, dict[str, int]] | None = None) -> list[Narrowing]:
    """``marks``: the markers the start's test files carry (a ``-m`` that names none of them
    takes none of their tests out); ``tests``: the start's tests, by file."""
    where = new.get("file") or "pyproject.toml"
    found: list[Narrowing] = []
    now_files = collected_files(new, files)
    lost = sorted(collected_files(old, files) - now_files)
    kept = {rel: names for rel, names in (tests or {}).items() if rel in now_files}
    if "python_functions" in old:  # a baseline taken before the names were recorded: not
        names = sorted(collected_tests(old, kept) - collected_tests(new, kept))
        if names:
            found.append(("pytest", where, line_of(root, where, ("python_functions",
                                                                "python_classes")),
                          f"pytest no longer collects {len(names)} test(s) it collected at "
                          f"the start ({listed(names)}): keep them in the run"))
    if old.get("xfail_strict") and not new.get("xfail_strict"):
        found.append(("pytest", where, line_of(root, where, ("xfail_strict", "strict")),
                      "pytest's xfail_strict was turned off: an xfail that passes no longer "
                      "fails the run"))
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
        if item.startswith("-m ") and marks is not None \
                and not written.marker_names(item[3:]) & marks:
            continue
        if item not in then and written.option(item) in written.ADD_WEAKENS:
            found.append(("pytest", where, line_of(root, where, ("addopts",)),
                          f"pytest's effective options gained {item!r}, which takes tests "
                          "out of the run"))
    for item in then:
        if item not in now and written.option(item) in written.DROP_WEAKENS:
            found.append(("pytest", where, line_of(root, where, ("addopts",)),
                          f"pytest's effective options lost {item!r}"))
    was, cov = _cov_fail_under(then), _cov_fail_under(now)
    if was is not None and (cov is None or cov < was):
        found.append(("pytest", where, line_of(root, where, ("addopts",)),
                      f"pytest's effective --cov-fail-under went from {was:g} to "
                      f"{'nothing' if cov is None else format(cov, 'g')}"))
    return found


def _cov_fail_under(opts: list[str]) -> float | None:
    """The last ``--cov-fail-under`` of pytest's options (0 when its value is no number)."""
    values = [item.split(" ", 1)[-1] for item in opts
              if written.option(item) == "--cov-fail-under"]
    if not values:
        return None
    try:
        return float(values[-1])
    except ValueError:
        return 0.0


# --- mypy --------------------------------------------------------------------------------------

STRICT_FLAGS = ("warn_unused_configs", "disallow_any_generics", "disallow_subclassing_any",
                "disallow_untyped_calls", "disallow_untyped_defs", "disallow_incomplete_defs",
                "check_untyped_defs", "disallow_untyped_decorators", "warn_redundant_casts",
                "warn_unused_ignores", "warn_return_any", "no_implicit_reexport",
                "strict_equality", "extra_checks")
def _truth(value: Any) -> bool:
    return value is True or str(value).strip().lower() in ("1", "true", "yes", "on")


def _items(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return [v.strip() for v in re.split(r"[,\n]", str(value or "")) if v.strip()]


def _mypy_tables(root: Path) -> tuple[str | None, dict[str, Any], dict[str, dict[str, Any]]]:
    for name in ("mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg"):
        path = root / name
        if name == "pyproject.toml":
            data = tool_table(path, "mypy")
            if not isinstance(data, dict):
                continue
            modules: dict[str, dict[str, Any]] = {}
            for override in data.get("overrides", []) or []:
                names = override.get("module", [])
                for module in names if isinstance(names, list) else [names]:
                    modules[str(module)] = {k: v for k, v in override.items() if k != "module"}
            return name, {k: v for k, v in data.items() if k != "overrides"}, modules
        parser = written.ini_parser(read_text(path))
        if parser is None or not parser.has_section("mypy"):
            continue
        modules = {}
        for section in parser.sections():
            if section.startswith("mypy-"):
                for module in section[5:].split(","):
                    modules[module.strip()] = dict(parser.items(section))
        return name, dict(parser.items("mypy")), modules
    return None, {}, {}


def _levels(options: dict[str, Any]) -> dict[str, int]:
    """How strict each of mypy's options is set (higher: stricter); ``strict`` stands for
    its flags, ``disable_error_code``/``enable_error_code`` for ``code:NAME`` entries."""
    options = {k.replace("-", "_"): v for k, v in options.items()}
    levels = {flag: int(_truth(options["strict"])) for flag in STRICT_FLAGS} \
        if "strict" in options else {}
    for key, value in options.items():
        if key.startswith(_LOOSE):
            levels[key] = int(not _truth(value))
        elif key.startswith(_STRICT):
            levels[key] = int(_truth(value))
        elif key == "follow_imports":
            levels[key] = int(str(value).strip() not in ("skip", "silent"))
    for key, level in (("disable_error_code", -1), ("enable_error_code", 1)):
        levels.update({f"code:{code}": level for code in _items(options.get(key))})
    return levels


_LOOSE = ("allow_", "ignore_", "implicit_")
_STRICT = ("disallow_", "warn_", "check_", "strict_", "no_implicit", "extra_checks")


def _level(levels: dict[str, int], key: str) -> int:
    """``key``'s level, or mypy's default (its loosening options are off by default)."""
    return levels.get(key, int(key.startswith(_LOOSE) or key == "follow_imports"))


def mypy_config(root: Path, files: list[str]) -> dict[str, Any]:
    """mypy's settings, and the files it checks with them among ``files``."""
    file, table, modules = _mypy_tables(root)
    table = {k.replace("-", "_"): v for k, v in table.items()}
    config = {"file": file, "files": _items(table.get("files")),
              "exclude": _items(table.get("exclude")) if isinstance(table.get("exclude"), list)
              else [str(table["exclude"]).strip()] if table.get("exclude") else [],
              "levels": {"": _levels(table),
                         **{pattern: _levels(opts) for pattern, opts in modules.items()}}}
    config["checked"] = sorted(checked_files(root, config, files))
    return config


def module_levels(config: dict[str, Any], module: str) -> dict[str, int]:
    """The levels of mypy's options for ``module``: its global ones, then its sections'
    (wildcards first, a more specific pattern last)."""
    levels = config.get("levels", {})
    out = dict(levels.get("", {}))
    for pattern in sorted((p for p in levels if p and in_section(module, p)),
                          key=lambda p: (not p.endswith("*"), len(p))):
        out.update(levels[pattern])
    return out


def silenced(config: dict[str, Any], module: str) -> bool:
    """Whether mypy never shows ``module``'s errors (``ignore_errors``, ``follow_imports =
    skip``; ``silenced``: the sections a baseline of an older version recorded as such)."""
    levels = module_levels(config, module)
    return not (_level(levels, "ignore_errors") and _level(levels, "follow_imports")) \
        or any(in_section(module, p) for p in config.get("silenced", []))


def _lost(then: dict[str, int], now: dict[str, int]) -> tuple[str, ...]:
    """The options set looser in ``now`` than in ``then``, as words."""
    return tuple(_loosened(key, _level(now, key)) for key in sorted({*then, *now})
                 if _level(now, key) < _level(then, key))


def _loosened(key: str, level: int) -> str:
    if key.startswith("code:"):
        return f"error code {key[5:]} " + ("disabled" if level < 0 else "no longer enabled")
    if key == "follow_imports":
        return "follow_imports = skip"
    return f"{key} " + ("on" if key.startswith(_LOOSE) else "off")


def checked_files(root: Path, config: dict[str, Any], files: list[str]) -> set[str]:
    """Python files mypy type-checks under ``config``."""
    from ralph_verify.project.layout import project_packages

    targets = config.get("files") or project_packages(root) or ["."]
    found = set()
    for rel in files:
        if not rel.endswith((".py", ".pyi")):
            continue
        if not any(t in (".", "") or rel == t or rel.startswith(t.rstrip("/") + "/")
                   or fnmatch.fnmatch(rel, t) for t in targets):
            continue
        if any(_search(pattern, rel) for pattern in config.get("exclude", [])):
            continue
        found.add(rel)
    # A stub beside a module is what mypy reads: the module itself is not checked.
    return {rel for rel in found if not (rel.endswith(".py") and rel + "i" in found)}


def _search(pattern: str, rel: str) -> bool:
    try:
        return re.search(pattern, rel) is not None
    except re.error:
        return False


def module_name(rel: str) -> str:
    """The dotted module of a project file (``src/pkg/a.py`` -> ``pkg.a``)."""
    name = rel.removesuffix(".py").removesuffix(".pyi").removeprefix("src/")
    return name.removesuffix("/__init__").replace("/", ".")


def in_section(module: str, pattern: str) -> bool:
    """Whether a mypy per-module section's ``pattern`` (``pkg.*``) covers ``module``."""
    return fnmatch.fnmatch(module, pattern) or fnmatch.fnmatch(module, pattern.removesuffix(".*"))


def lost_files(root: Path, then: list[str], now: list[str], changed: list[str],
               tool: str, where: str, keys: tuple[str, ...]) -> list[Narrowing]:
    """Files ``tool`` checked at the start (``then``) that are still there and that it no
    longer checks (``now``), each group named with the settings file that took it out."""
    lost = sorted(rel for rel in set(then) - set(now) if (root / rel).is_file())
    by_file: dict[str, list[str]] = {}
    for rel in lost:
        stub = rel + "i" if rel.endswith(".py") and (root / (rel + "i")).is_file() else None
        nearest = [c for c in changed if rel.startswith(c.rpartition("/")[0] + "/")
                   or "/" not in c]
        by_file.setdefault(stub or max(nearest, key=len, default=where), []).append(rel)
    return [(tool, file, line_of(root, file, keys) if file == where else
             line_of(root, file, tuple(sorted({p for rel in group
                                                for p in (rel, rel.rsplit("/", 1)[-1])})),
                    anywhere=True), f"{tool} no longer checks {len(group)} file(s) it "
             f"checked at the start ({listed(group)}) since {file} changed: fix their errors "
             "instead (the set of files a tool checks may grow, never shrink)")
            for file, group in sorted(by_file.items())]


def compare_mypy(root: Path, old: dict[str, Any], new: dict[str, Any],
                 files: list[str], changed: Sequence[str] = ()) -> list[Narrowing]:
    where = new.get("file") or "pyproject.toml"
    checked = set(new.get("checked", []))
    found = lost_files(root, old.get("checked", []), sorted(checked), list(changed), "mypy",
                       where, ("files", "exclude"))
    if "checked" not in old:  # a baseline taken before the set was recorded
        found = []
    if "levels" not in old:  # a baseline taken before mypy's options were recorded
        return found
    modules = sorted({module_name(rel) for rel in checked})
    everywhere = _lost(old["levels"][""], new["levels"][""])
    by_loss: dict[tuple[str, ...], list[str]] = {}
    for module in modules:
        lost = _lost(module_levels(old, module), module_levels(new, module))
        if lost:
            by_loss.setdefault(lost, []).append(module)
    for lost, hit in sorted(by_loss.items()):
        keys = tuple(item.split(" ", 1)[0] for item in lost)
        scope = "" if lost == everywhere else f" for {listed(hit)}"
        names = (*keys, *(k.replace("_", "-") for k in keys), "disable_error_code",
                 "disable-error-code")
        found.append(("mypy", where, line_of(root, where, names if scope else (*names,
                                                                               "strict")),
            f"mypy checks less than at the start{scope}: {listed(list(lost))}"))
    return found


# --- ruff --------------------------------------------------------------------------------------


def _ruff(root: Path, *args: str) -> str | None:
    try:
        from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

        binary = str(find_ruff_bin())
    except (ImportError, FileNotFoundError):
        return None
    try:
        # Read-only whatever the settings say (``fix = true``): ruff takes the last of a pair,
        # and these come before the paths of ``--``.
        at = args.index("--") if "--" in args else len(args)
        command = [binary, "check", "--no-cache", *args[:at], "--no-fix", "--no-fix-only",
                   *args[at:]]
        env = {k: v for k, v in os.environ.items() if k != "RUFF_OUTPUT_FILE"}
        run = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True,
                             timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return run.stdout if run.returncode in (0, 1) else None


def ruff_config(root: Path) -> dict[str, Any]:
    """Files linted, rules enabled and per-file ignores, as ruff resolves them."""
    listing = _ruff(root, "--show-files")
    if listing is None:
        return {"error": "ruff could not show its settings"}
    prefix = root.resolve().as_posix().rstrip("/") + "/"
    linted = sorted(line.strip().removeprefix(prefix) for line in listing.splitlines()
                    if line.strip().endswith((".py", ".pyi")))
    probe = next((f for f in linted if "/" not in f), linted[0] if linted else "")
    settings = _ruff(root, "--show-settings", probe) if probe else None
    if settings is None:
        return {"linted": linted, "rules": [], "per_file": {}, "file": None}
    block = re.search(r"^linter\.rules\.enabled = \[\n(.*?)^\]", settings, re.S | re.M)
    rules = sorted(set(re.findall(r"\(([A-Z]+[0-9]+)\)", block.group(1)))) if block else []
    per_file: dict[str, list[str]] = {}
    pfi = re.search(r"^linter\.per_file_ignores = \{\n(.*?)^\}", settings, re.S | re.M)
    for entry in re.finditer(r'basename_matcher = "([^"]*)".*?data = \[(.*?)\]',
                             pfi.group(1) if pfi else "", re.S):
        per_file.setdefault(entry.group(1), []).extend(
            re.findall(r"\(([A-Z]+[0-9]+)\)", entry.group(2)))
    path = re.search(r'^Settings path: "(.*)"', settings, re.M)
    file = path.group(1).removeprefix(prefix) if path else None
    return {"linted": linted, "rules": rules, "per_file": per_file, "file": file}


def _ignored(per_file: dict[str, list[str]], rel: str) -> set[str]:
    return {code for pattern, codes in per_file.items()
            if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel.rsplit("/", 1)[-1], pattern)
            for code in codes}


def _firing(root: Path, codes: list[str], files: list[str]) -> list[str]:
    """Which of ``codes`` fire in ``files`` once the ignores are lifted, to name them first."""
    if not files:
        return []
    out = _ruff(root, "--config", "lint.per-file-ignores = {}", "--config", "lint.ignore = []",
                "--select", ",".join(codes), "--output-format", "concise", "--exit-zero",
                "--", *files)
    return sorted({code for code in codes if out and re.search(rf"\b{code}\b", out)})


def compare_ruff(root: Path, old: dict[str, Any], new: dict[str, Any],
                 files: list[str], renamed: dict[str, str] | None = None,
                 changed: Sequence[str] = ()) -> list[Narrowing]:
    """``renamed``: new path -> the old path of a file with the same content; ``changed``:
    the settings files that differ from the start."""
    where = new.get("file") or "pyproject.toml"
    renamed = renamed or {}
    moved = set(renamed.values())
    found = lost_files(root, [f for f in old.get("linted", []) if f not in moved],
                       new.get("linted", []), list(changed), "ruff", where,
                       ("exclude", "extend-exclude", "extend_exclude", "include"))
    dropped = sorted(set(old.get("rules", [])) - set(new.get("rules", [])))
    if dropped:
        fire = _firing(root, dropped, sorted(set(new.get("linted", [])) & set(files)))
        found.append(("ruff", where, line_of(root, where, ("ignore", "extend-ignore", "select",
                                                           "extend-select")),
                      f"ruff no longer enforces {len(dropped)} rule(s) it enforced at the "
                      f"start ({listed(fire + [c for c in dropped if c not in fire])}, of "
                      f"which {len(fire)} fire in the project): fix the code instead"))
    enforced = set(new.get("rules", [])) & set(old.get("rules", []))
    extra: dict[str, list[str]] = {}  # file -> codes newly ignored in it
    for rel in new.get("linted", []):
        then = _ignored(old.get("per_file", {}), renamed.get(rel, rel))
        codes = sorted((_ignored(new.get("per_file", {}), rel) & enforced) - then)
        if codes:
            extra[rel] = codes
    by_codes: dict[tuple[str, ...], list[str]] = {}
    for rel, codes in sorted(extra.items()):
        by_codes.setdefault(tuple(codes), []).append(rel)
    for group, hit in sorted(by_codes.items()):
        pattern = next((p for p, c in new.get("per_file", {}).items() if set(group) & set(c)
                        and any(fnmatch.fnmatch(h, p) for h in hit)), hit[0])
        found.append(("ruff", where, line_of(root, where, (f'"{pattern}"', pattern)),
                      f"ruff now ignores {listed(list(group))} in {listed(hit)}: fix the code "
                      "instead"))
    return found
