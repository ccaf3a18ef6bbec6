"""docs/agents/index.md's table: every claim names a test that exists and runs the real CLI.

The table (scripts/agent_support.py) says, per agent CLI, the tested version and which
test proves the CLI runs a loop, drives a Stop hook, resumes its session and reports
its cost. A claim whose test was renamed or dropped, or a version that is not the one
the tests install, fails here.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agents_setup import SPECS

ROOT = Path(__file__).resolve().parents[2]


def _support() -> Any:
    """scripts/agent_support.py (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("agent_support",
                                                  ROOT / "scripts" / "agent_support.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["agent_support"] = module
    spec.loader.exec_module(module)
    return module


ROWS: dict[str, Any] = _support().ROWS


def collected(*files: str, marker: str | None = None) -> set[str]:
    """The node ids pytest collects from ``files`` (with ``marker`` only, if given)."""
    argv = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
            *(["-m", marker] if marker else []), *files]
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    return {line.strip() for line in proc.stdout.splitlines() if "::" in line}


def claims() -> list[tuple[str, str, str]]:
    """Every cell backed by a test ("yes", or "no:" for a test that fails if it turns yes)."""
    return [(name, column, test.removeprefix("no:")) for name, row in ROWS.items()
            for column, test in (("run", row.run), ("stop_hook", row.stop_hook),
                                 ("resume", row.resume), ("cost", row.cost)) if test]


def test_every_claim_names_a_test_that_runs_the_real_cli() -> None:
    files = sorted({test.split("::")[0] for _, _, test in claims()})
    real = collected(*files, marker="agents_e2e")
    every = collected(*files)
    for name, column, test in claims():
        if column == "cost" and name == "claude":
            # Claude Code's cost comes from a real run recorded in tests/data/agents.
            assert test in every, (name, column, test)
        else:
            assert test in real, (f"{name}: the {column} claim's test {test} is not collected "
                                  "as an agents_e2e test")


@pytest.mark.parametrize("name", [name for name, row in ROWS.items() if row.version])
def test_the_tested_version_is_the_one_the_tests_install(name: str) -> None:
    import importlib

    from ralph_verify.agents.cli import CLIAgent

    assert ROWS[name].version == SPECS[name].version
    module = importlib.import_module(f"ralph_verify.agents.{name}")
    (cls,) = [c for c in vars(module).values() if isinstance(c, type)
              and issubclass(c, CLIAgent) and c.__module__ == module.__name__]
    if cls.tested_versions is not None:
        assert cls.tested_versions[0] == SPECS[name].version


def test_a_bare_no_is_explained_in_the_note() -> None:
    """A "no" without a test is a feature the CLI lacks or ralph-verify does not use: the
    note says which."""
    for name, row in ROWS.items():
        if row.version is None:
            continue
        if row.stop_hook is None:
            assert "hook" in row.note.lower(), name
        if row.resume is None:
            assert "resume" in row.note, name
        if row.cost is None:
            assert "cost" in row.note, name


def test_amp_is_marked_not_tested_offline() -> None:
    row = ROWS["amp"]
    assert (row.version, row.run, row.resume, row.cost) == (None, None, None, None)
    assert "not tested offline" in row.note
