"""Effective mypy and ruff settings (see :mod:`ralph_verify.integrity.effective`): mypy's read
as mypy picks its file, ruff's from ruff's own ``--show-files``/``--show-settings``."""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ralph_verify.integrity.effective import Narrowing, line_of, listed, read_ini, tool_table

STRICT_FLAGS = ("warn_unused_configs", "disallow_any_generics", "disallow_subclassing_any",
                "disallow_untyped_calls", "disallow_untyped_defs", "disallow_incomplete_defs",
                "check_untyped_defs", "disallow_untyped_decorators", "warn_redundant_casts",
                "warn_unused_ignores", "warn_return_any", "no_implicit_reexport",
                "strict_equality", "extra_checks")
#: The tool of a narrowing that hides nothing today (its rules fire nowhere): not a finding
#: of its own, but the tool's per-file findings are not dropped as a move either.
QUIET = "quiet"


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
        parser = read_ini(path)
        if parser is None or not parser.has_section("mypy"):
            continue
        modules = {}
        for section in parser.sections():
            if section.startswith("mypy-"):
                for module in section[5:].split(","):
                    modules[module.strip()] = dict(parser.items(section))
        return name, dict(parser.items("mypy")), modules
    return None, {}, {}


def mypy_config(root: Path, files: list[str]) -> dict[str, Any]:
    """mypy's settings, and the files it checks with them among ``files``."""
    file, table, modules = _mypy_tables(root)
    table = {k.replace("-", "_"): v for k, v in table.items()}
    flags = {flag: _truth(table["strict"]) for flag in STRICT_FLAGS} if "strict" in table else {}
    flags.update({k: _truth(v) for k, v in table.items()
                  if k.startswith(("disallow_", "warn_", "check_", "strict_", "no_implicit",
                                   "extra_checks", "ignore_errors"))})
    silenced = sorted(m for m, opts in modules.items()
                      if _truth(opts.get("ignore_errors")) or str(opts.get("follow_imports",
                                                                          "")) == "skip")
    config = {"file": file, "flags": flags, "files": _items(table.get("files")),
              "exclude": _items(table.get("exclude")) if isinstance(table.get("exclude"), list)
              else [str(table["exclude"]).strip()] if table.get("exclude") else [],
              "disabled": sorted(set(_items(table.get("disable_error_code")))
                                 - set(_items(table.get("enable_error_code")))),
              "silenced": silenced}
    config["checked"] = sorted(checked_files(root, config, files))
    return config


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
    then, now = old.get("flags", {}), new.get("flags", {})
    off = sorted(f for f, on in then.items() if on and not now.get(f, False))
    if off:
        found.append(("mypy", where, line_of(root, where, ("strict", *off)),
                      f"mypy's effective flags turned off: {listed(off)}"))
    disabled = sorted(set(new.get("disabled", [])) - set(old.get("disabled", [])))
    if disabled:
        found.append(("mypy", where, line_of(root, where, ("disable_error_code",
                                                           "disable-error-code")),
                      f"mypy no longer reports error code(s) {listed(disabled)}"))
    modules = {module_name(rel) for rel in checked}
    for pattern in sorted(set(new.get("silenced", [])) - set(old.get("silenced", []))):
        hit = [m for m in modules if fnmatch.fnmatch(m, pattern)
               or fnmatch.fnmatch(m, pattern.removesuffix(".*"))]
        if hit:
            found.append(("mypy", where, line_of(root, where, ("module", f"[mypy-{pattern}]",
                                                               "ignore_errors")),
                          f"mypy now ignores the errors of {pattern} ({listed(sorted(hit))})"))
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
    """Which of ``codes`` fire in ``files`` once the ignores are lifted (an ignore, or a rule
    dropped, that hides nothing narrows nothing); all of them when ruff cannot tell."""
    if not files:
        return []
    out = _ruff(root, "--config", "lint.per-file-ignores = {}", "--config", "lint.ignore = []",
                "--select", ",".join(codes), "--output-format", "concise", "--exit-zero",
                "--", *files)
    if out is None:
        return list(codes)
    return sorted({code for code in codes if re.search(rf"\b{code}\b", out)})


def compare_ruff(root: Path, old: dict[str, Any], new: dict[str, Any],
                 files: list[str], renamed: dict[str, str] | None = None,
                 changed: Sequence[str] = ()) -> list[Narrowing]:
    """``renamed``: new path -> the old path of a file with the same content; ``changed``:
    the settings files that differ from the start."""
    where = new.get("file") or "pyproject.toml"
    present = set(files)
    renamed = renamed or {}
    moved = set(renamed.values())
    found = lost_files(root, [f for f in old.get("linted", []) if f not in moved],
                       new.get("linted", []), list(changed), "ruff", where,
                       ("exclude", "extend-exclude", "extend_exclude", "include"))
    dropped = sorted(set(old.get("rules", [])) - set(new.get("rules", [])))
    if dropped:
        fire = _firing(root, dropped, sorted(set(new.get("linted", [])) & present))
        found.append(("ruff" if fire else QUIET, where,
                      line_of(root, where, ("ignore", "extend-ignore", "select",
                                            "extend-select")),
                      f"ruff no longer enforces {len(dropped)} rule(s) it enforced at the "
                      f"start, of which {listed(fire)} fire in the project: fix the code "
                      "instead"))
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
        quiet = not _firing(root, list(group), hit)
        pattern = next((p for p, c in new.get("per_file", {}).items() if set(group) & set(c)
                        and any(fnmatch.fnmatch(h, p) for h in hit)), hit[0])
        found.append((QUIET if quiet else "ruff", where,
                      line_of(root, where, (f'"{pattern}"', pattern)),
                      f"ruff now ignores {listed(list(group))} in {listed(hit)}, where they "
                      "fire: fix the code instead"))
    return found
