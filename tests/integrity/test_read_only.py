"""Integrity and ``lint`` never write to the project's tree, whatever ruff's settings say.

A project whose ruff settings say ``fix = true`` (as markupsafe's do) gets ruff's fixes
applied by any ``ruff check`` run without ``--no-fix``: real ruff, a real ``check`` and a
real ``run`` iteration, and every file of the project compared byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from tests.loop_helpers import agent

#: Unused imports ruff removes when it fixes: one in product code (lint must report it), one
#: in a test file the agent's per-file ignore hides (integrity asks ruff whether it fires).
CALC = "import os\n\n\ndef add(a, b):\n    return a + b\n"
TESTS = "import sys\n\nfrom calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
SETTINGS = {
    "pyproject.toml": ('[tool.ruff]\nfix = true\n\n'
                       '[tool.ruff.lint]\nselect = ["F"]\n',
                       '\n[tool.ruff.lint.per-file-ignores]\n"tests/*" = ["F401"]\n'),
    "ruff.toml": ('fix = true\n\n[lint]\nselect = ["F"]\n',
                  '\n[lint.per-file-ignores]\n"tests/*" = ["F401"]\n'),
}
SKIPPED = {".git", ".ralph", ".ruff_cache", ".mypy_cache", ".pytest_cache", "__pycache__"}


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not SKIPPED & set(p.relative_to(root).parts)}


def _project(ralph: Ralph, settings: str) -> None:
    body, _ = SETTINGS[settings]
    if settings == "pyproject.toml":
        ralph.makepyproject(body)
    else:
        ralph.makepyproject("")
        ralph.makefile(settings, body)
    ralph.makefile("calc.py", CALC)
    ralph.makefile("tests/test_calc.py", TESTS)


def _lint_and_integrity(checks: list[dict[str, object]]) -> tuple[dict[str, object], str]:
    lint = next(c for c in checks if c["name"] == "lint")
    integrity = next(c for c in checks if c["name"] == "integrity")
    failures = integrity.get("failures") or []
    assert isinstance(failures, list)
    return lint, "\n".join(str(f["message"]) for f in failures)


def _assert_lint_read_right(lint: dict[str, object],
                            want: tuple[str, ...] = ("calc.py",)) -> None:
    assert lint["status"] == "failed", lint
    failures = lint["failures"]
    assert isinstance(failures, list)
    assert [(f["path"], f["code"]) for f in failures] == [(p, "F401") for p in want], failures


@pytest.mark.parametrize("settings", sorted(SETTINGS))
def test_check_with_fix_true_writes_nothing(ralph: Ralph, settings: str) -> None:
    _project(ralph, settings)
    ralph.git_init()
    path = ralph.path / settings
    path.write_text(path.read_text() + SETTINGS[settings][1])
    before = _files(ralph.path)
    result = ralph.run("check", "--until", "lint,integrity", "--baseline", "HEAD",
                       "--json")
    assert _files(ralph.path) == before
    lint, messages = _lint_and_integrity(result.json()["checks"])
    _assert_lint_read_right(lint)
    assert "F401" in messages and "tests/" in messages, messages


@pytest.mark.parametrize("settings", sorted(SETTINGS))
def test_a_run_iteration_with_fix_true_writes_nothing(ralph: Ralph, settings: str) -> None:
    _project(ralph, settings)
    edit = json.dumps(SETTINGS[settings][1])
    body = f"p = pathlib.Path({settings!r})\np.write_text(p.read_text() + {edit})\n"
    before = _files(ralph.path)
    result = ralph.run("run", "--agent", agent(ralph, body), "--until", "lint",
                       "--max-iterations", "1", "lint it")
    assert result.ret != 0, result
    after = _files(ralph.path)
    assert after.pop(settings) == before.pop(settings) + SETTINGS[settings][1].encode()
    assert after == before
    record = json.loads((ralph.path / ".ralph/iterations/001/verification.json").read_text())
    lint, messages = _lint_and_integrity(record["checks"])
    _assert_lint_read_right(lint)
    assert "F401" in messages and "tests/" in messages, messages


@pytest.mark.parametrize("args", [["--fix"], ["--fix-only"], ["--fix", "--unsafe-fixes", "--",
                                                              "calc.py"]])
def test_lint_args_that_fix_write_nothing(ralph: Ralph, args: list[str]) -> None:
    _project(ralph, "ruff.toml")
    ralph.makepyproject(f"[tool.ralph-verify.checks.lint]\nargs = {json.dumps(args)}\n")
    before = _files(ralph.path)
    result = ralph.run("check", "--until", "lint", "--json")
    assert _files(ralph.path) == before
    want = ("calc.py",) if "--" in args else ("calc.py", "tests/test_calc.py")
    _assert_lint_read_right(result.json()["checks"][0], want)
