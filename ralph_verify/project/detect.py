"""What ``init`` finds in a project: tests, the tools configured, the agent CLIs installed.
Read-only and cheap: nothing is run."""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.compat import tomllib

if TYPE_CHECKING:
    import configparser

#: Agent adapters, named as the CLI each one drives, in the order ``init`` prefers them.
AGENT_CLIS = ("claude", "codex", "gemini", "qwen", "aider", "opencode", "amp", "copilot")
_PRUNE = {".git", ".hg", ".venv", "venv", "env", ".tox", ".nox", "node_modules", "build",
          "dist", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".ralph",
          "site-packages"}
#: Stop counting after this many files: enough to know, cheap on a monorepo.
_WALK_LIMIT = 20_000


@dataclass
class Project:
    """The facts ``init`` bases its config on; ``*_config`` name the file that configures a tool."""

    root: Path
    python_files: int = 0
    test_files: int = 0
    pytest_config: str | None = None
    ruff_config: str | None = None
    ruff_format: bool = False
    mypy_config: str | None = None
    coverage_config: str | None = None
    coverage_fail_under: float | None = None
    venv: str | None = None
    agents: list[str] = field(default_factory=list)

    @property
    def has_tests(self) -> bool:
        return self.test_files > 0

    def describe(self) -> list[str]:
        """One line per fact, for ``init``'s output."""
        def where(value: str | None) -> str:
            return f"yes ({value})" if value else "no"

        return [
            f"python files:   {self.python_files}{'+' if self.python_files >= _WALK_LIMIT else ''}",
            f"test files:     {self.test_files}"
            + (f" (pytest configured in {self.pytest_config})" if self.pytest_config else ""),
            f"ruff config:    {where(self.ruff_config)}",
            f"mypy config:    {where(self.mypy_config)}",
            f"coverage:       {where(self.coverage_config)}"
            + (f", fail_under = {self.coverage_fail_under:g}"
               if self.coverage_fail_under is not None else ""),
            f"virtualenv:     {self.venv or 'none found in the project'}",
            f"agent CLIs:     {', '.join(self.agents) if self.agents else 'none on PATH'}",
        ]


def _load_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def _load_ini(path: Path) -> configparser.ConfigParser:
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        return configparser.ConfigParser(interpolation=None)
    return parser


def _walk(root: Path) -> Iterator[Path]:
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _PRUNE and not d.endswith(".egg-info"))
        for name in files:
            seen += 1
            if seen > _WALK_LIMIT:
                return
            yield Path(folder, name)


def _is_test_file(path: Path) -> bool:
    return path.suffix == ".py" and (path.name.startswith("test_") or path.stem.endswith("_test"))


def _float(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _first(root: Path, candidates: Iterable[tuple[str, bool]]) -> str | None:
    """The first file name of ``candidates`` that exists in ``root`` and holds what is wanted."""
    return next((name for name, holds in candidates if holds and (root / name).is_file()), None)


def detect(root: Path, agents: Collection[str] | None = None) -> Project:
    """The facts about ``root``; ``agents``: the adapter names to look for (default: all known)."""
    project = Project(root=root)
    for path in _walk(root):
        if path.suffix == ".py":
            project.python_files += 1
            project.test_files += _is_test_file(path)

    pyproject = _load_toml(root / "pyproject.toml")
    tool = pyproject.get("tool", {}) if isinstance(pyproject.get("tool"), dict) else {}
    setup_cfg = _load_ini(root / "setup.cfg")
    tox_ini = _load_ini(root / "tox.ini")

    project.pytest_config = "pyproject.toml" if "pytest" in tool else _first(root, (
        ("pytest.ini", True), ("setup.cfg", setup_cfg.has_section("tool:pytest")),
        ("tox.ini", tox_ini.has_section("pytest")), ("conftest.py", True)))
    ruff_file = _first(root, (("ruff.toml", True), (".ruff.toml", True)))
    project.ruff_config = "pyproject.toml" if "ruff" in tool else ruff_file
    ruff = tool["ruff"] if "ruff" in tool else _load_toml(root / ruff_file) if ruff_file else {}
    project.ruff_format = isinstance(ruff, dict) and "format" in ruff
    project.mypy_config = "pyproject.toml" if "mypy" in tool else _first(root, (
        ("mypy.ini", True), (".mypy.ini", True), ("setup.cfg", setup_cfg.has_section("mypy"))))

    coverage = tool.get("coverage")
    if isinstance(coverage, dict):
        project.coverage_config = "pyproject.toml"
        report = coverage.get("report", {})
        project.coverage_fail_under = _float(report.get("fail_under")) if isinstance(
            report, dict) else None
    else:
        inis = {".coveragerc": _load_ini(root / ".coveragerc"), "setup.cfg": setup_cfg,
                "tox.ini": tox_ini}
        for name, ini in inis.items():
            prefix = "" if name == ".coveragerc" else "coverage:"
            if (root / name).is_file() and any(s.startswith(prefix) for s in ini.sections()):
                project.coverage_config = name
                if ini.has_option(f"{prefix}report", "fail_under"):
                    project.coverage_fail_under = _float(ini.get(f"{prefix}report", "fail_under"))
                break

    project.venv = next((name for name in (".venv", "venv")
                         if (root / name / "pyvenv.cfg").is_file()), None)
    import shutil

    project.agents = [name for name in AGENT_CLIS if (agents is None or name in agents)
                      and shutil.which(name)]
    return project
