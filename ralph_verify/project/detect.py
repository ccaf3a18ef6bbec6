"""What ``init`` finds in a project: tests, the tools configured, the agent CLIs installed.
Read-only and cheap: nothing is run."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.compat import tomllib

if TYPE_CHECKING:
    import configparser

#: Agent adapters and the CLI each one drives, in the order ``init`` prefers them.
AGENT_CLIS: dict[str, str] = {
    "claude": "claude", "codex": "codex", "gemini": "gemini", "qwen": "qwen",
    "aider": "aider", "opencode": "opencode", "amp": "amp", "copilot": "copilot",
}
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


def detect(root: Path, agents: Iterable[str] | None = None) -> Project:
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

    if "pytest" in tool:
        project.pytest_config = "pyproject.toml"
    elif (root / "pytest.ini").is_file():
        project.pytest_config = "pytest.ini"
    elif setup_cfg.has_section("tool:pytest"):
        project.pytest_config = "setup.cfg"
    elif tox_ini.has_section("pytest"):
        project.pytest_config = "tox.ini"
    elif (root / "conftest.py").is_file():
        project.pytest_config = "conftest.py"

    ruff_tables = [tool.get("ruff")] if "ruff" in tool else []
    if ruff_tables:
        project.ruff_config = "pyproject.toml"
    for name in ("ruff.toml", ".ruff.toml"):
        if project.ruff_config is None and (root / name).is_file():
            project.ruff_config = name
            ruff_tables.append(_load_toml(root / name))
    project.ruff_format = any(isinstance(t, dict) and "format" in t for t in ruff_tables)

    if "mypy" in tool:
        project.mypy_config = "pyproject.toml"
    else:
        for name in ("mypy.ini", ".mypy.ini"):
            if (root / name).is_file():
                project.mypy_config = name
                break
        else:
            if setup_cfg.has_section("mypy"):
                project.mypy_config = "setup.cfg"

    coverage = tool.get("coverage")
    if isinstance(coverage, dict):
        project.coverage_config = "pyproject.toml"
        report = coverage.get("report", {})
        project.coverage_fail_under = _float(report.get("fail_under")) if isinstance(
            report, dict) else None
    else:
        for name, section in ((".coveragerc", "report"), ("setup.cfg", "coverage:report"),
                              ("tox.ini", "coverage:report")):
            ini = _load_ini(root / name) if name == ".coveragerc" else (
                setup_cfg if name == "setup.cfg" else tox_ini)
            sections = [s for s in ini.sections()
                        if name == ".coveragerc" or s.startswith("coverage:")]
            if (root / name).is_file() and sections:
                project.coverage_config = name
                if ini.has_option(section, "fail_under"):
                    project.coverage_fail_under = _float(ini.get(section, "fail_under"))
                break

    for name in (".venv", "venv"):
        if (root / name / "pyvenv.cfg").is_file():
            project.venv = name
            break
    wanted = list(AGENT_CLIS) if agents is None else [a for a in AGENT_CLIS if a in set(agents)]
    import shutil

    project.agents = [name for name in wanted if shutil.which(AGENT_CLIS[name])]
    return project
