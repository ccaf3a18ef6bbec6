"""``check --baseline REF``: integrity against a git ref, on a real git history.

The history is a real repository with real commits: ``main`` holds the honest project, a
branch of an "agent" changes it; ``check --baseline main`` judges the branch by the loop's
rules, in a fresh clone as CI sees it (``origin/main``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from ralph_verify.testing import Ralph

KATA = "def add(a, b):\n    return a - b\n"
TESTS = ("from kata import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
         "def test_zero():\n    assert add(0, 0) == 0\n")


def _history(ralph: Ralph) -> None:
    ralph.makepyproject('[tool.coverage.run]\nbranch = true\n')
    ralph.makepyfile(kata=KATA, **{"tests/test_kata": TESTS})
    ralph.git_init()
    ralph.git("branch", "-M", "main")
    (ralph.path / "README.md").write_text("a second commit on main\n")
    ralph.git("add", "-A")
    ralph.git("commit", "-q", "-m", "readme")
    ralph.git("checkout", "-q", "-b", "agent")


def _commit(ralph: Ralph, files: dict[str, str], message: str) -> None:
    for rel, text in files.items():
        (ralph.path / rel).parent.mkdir(parents=True, exist_ok=True)
        (ralph.path / rel).write_text(text)
    ralph.git("add", "-A")
    ralph.git("commit", "-q", "-m", message)


def test_a_gamed_branch_fails_and_names_every_weakening(ralph: Ralph) -> None:
    _history(ralph)
    _commit(ralph, {"kata.py": "def add(a, b):\n    if (a, b) == (2, 3):\n        return 5\n"
                               "    return a - b\n"}, "special-case the test")
    _commit(ralph, {".coveragerc": "[run]\nomit = kata.py\n",
                    "tests/conftest.py": "import kata\n\nkata.add = lambda a, b: a + b\n"},
            "move coverage config")
    result = ralph.run("check", "--until", "tests", "--baseline", "main")
    assert result.ret == 1, result
    out = result.out
    assert "integrity" in out and "since main (" in out, out
    assert "kata.py:2: `if (a, b) == (2, 3):` returns the tests' expected value" in out, out
    assert "tests/conftest.py:3: `kata.add = lambda a, b: a + b`" in out, out
    assert ".coveragerc:2: coverage no longer measures 1 file(s)" not in out  # not gated
    gated = ralph.run("check", "--until", "tests,coverage", "--baseline", "main")
    assert ".coveragerc:2: coverage no longer measures 1 file(s) it measured at the start " \
        "(kata.py)" in gated.out, gated.out


def test_an_honest_branch_passes_in_a_clone_against_origin(ralph: Ralph, tmp_path: Path) -> None:
    _history(ralph)
    _commit(ralph, {"kata.py": "def add(a, b):\n    return a + b\n",
                    ".coveragerc": "[run]\nbranch = True\n",
                    "pyproject.toml": (ralph.path / "pyproject.toml").read_text().replace(
                        "[tool.coverage.run]\nbranch = true\n", "")}, "fix add; move config")
    clone = tmp_path / "ci"
    subprocess.run(["git", "clone", "-q", "--branch", "agent", str(ralph.path), str(clone)],
                   check=True)
    result = ralph.run("check", "--until", "tests,coverage", "--baseline", "origin/main",
                       "--root", str(clone))
    assert result.ret == 0, result
    assert "nothing weakened since origin/main (" in result.out, result.out
    assert not (clone / ".ralph/integrity-baseline.json").exists()
    assert subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True,
                          text=True, check=True).stdout.strip() in ("", "?? .ralph/")


def test_an_unknown_ref_is_a_one_line_usage_error(ralph: Ralph) -> None:
    _history(ralph)
    result = ralph.run("check", "--until", "tests", "--baseline", "origin/nope")
    assert result.ret == 2, result
    assert "--baseline origin/nope: no such commit in this repository; fetch it first" \
        in result.err, result
    assert "Traceback" not in result.err
