"""``ralph-verify init``: detection, a config that ``check`` accepts, never clobbering."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from ralph_verify.testing import DEFAULT_PYPROJECT, Ralph

TEST_FILE = "from app import add\n\n\ndef test_add() -> None:\n    assert add(1, 2) == 3\n"
APP = "def add(a: int, b: int) -> int:\n    return a + b\n"


def _table(ralph: Ralph) -> dict[str, object]:
    data = tomllib.loads((ralph.path / "pyproject.toml").read_text(encoding="utf-8"))
    table = data["tool"]["ralph-verify"]
    assert isinstance(table, dict)
    return table


def _init_then_check(ralph: Ralph) -> tuple[dict[str, object], int]:
    """``init`` off a terminal (stdin is /dev/null), then ``check`` with what it wrote."""
    result = ralph.run_subprocess("init")
    assert result.ret == 0, result
    assert "pyproject.toml: updated" in result.out
    check = ralph.run("check")
    assert check.ret != 2, check  # no usage or config error
    assert "ERROR:" not in check.err
    return _table(ralph), check.ret


@pytest.mark.slow
def test_plain_pytest_project(ralph: Ralph) -> None:
    ralph.makefile("app.py", APP)
    ralph.makefile("tests/test_app.py", TEST_FILE)
    ralph.makefile("conftest.py", "")
    table, ret = _init_then_check(ralph)
    assert table["until"] == ["tests", "lint"]
    assert ret == 0
    prompt = (ralph.path / "PROMPT.md").read_text(encoding="utf-8")
    assert "<promise>COMPLETE</promise>" in prompt and "tests, lint" in prompt
    assert (ralph.path / ".gitignore").read_text(encoding="utf-8") == ".ralph/\n"


@pytest.mark.slow
def test_pytest_ruff_mypy_coverage_project(ralph: Ralph) -> None:
    ralph.makepyproject("""
        [tool.pytest.ini_options]
        testpaths = ["tests"]
        pythonpath = ["."]

        [tool.ruff.lint]
        select = ["E", "F"]

        [tool.ruff.format]
        quote-style = "double"

        [tool.mypy]
        strict = true
        files = ["app.py"]
    """)
    ralph.makefile(".coveragerc", "[run]\nsource = app\n\n[report]\nfail_under = 50\n")
    ralph.makefile("app.py", APP)
    ralph.makefile("tests/test_app.py", TEST_FILE)
    ralph.makefile(".gitignore", "*.pyc")  # no final newline
    table, ret = _init_then_check(ralph)
    assert table["until"] == ["tests", "lint", "format", "types", "coverage"]
    assert ret == 0
    assert (ralph.path / ".gitignore").read_text(encoding="utf-8") == (
        "*.pyc\n\n# ralph-verify's session files\n.ralph/\n")


def test_project_without_tests(ralph: Ralph) -> None:
    ralph.makefile("tool.py", "import os\n")
    table, ret = _init_then_check(ralph)
    assert table["until"] == ["lint"]
    assert ret == 1  # the unused import: a failure, not a usage error
    text = (ralph.path / "pyproject.toml").read_text(encoding="utf-8")
    assert '# no tests found: add "tests" to until once there are some' in text


def test_no_pyproject_at_all(ralph: Ralph) -> None:
    (ralph.path / "pyproject.toml").unlink()
    ralph.git_init(commit=False)
    result = ralph.run("init")
    assert result.ret == 0
    assert "pyproject.toml: created" in result.out
    assert _table(ralph)["until"] == ["lint"]


def test_appends_without_touching_the_rest_of_the_file(ralph: Ralph) -> None:
    original = (b"# my project\r\n[project]\r\nname = 'x'  # keep 'these' quotes\r\n"
                b"version = \"0\"\r\n\r\n[tool.black]\r\nline-length = 88")
    (ralph.path / "pyproject.toml").write_bytes(original)
    assert ralph.run("init").ret == 0
    written = (ralph.path / "pyproject.toml").read_bytes()
    assert written.startswith(original + b"\r\n\r\n[tool.ralph-verify]\r\n")
    assert b"\n" not in written.replace(b"\r\n", b"")  # CRLF kept throughout
    assert _table(ralph)["until"] == ["lint"]


def test_an_existing_table_is_shown_as_a_diff_and_kept(ralph: Ralph) -> None:
    ralph.makepyproject("""
        [tool.ralph-verify]
        until = ["lint", "files:README.md"]  # mine

        [tool.ralph-verify.checks.lint]
        timeout = 30

        [tool.other]
        keep = true
    """)
    before = (ralph.path / "pyproject.toml").read_bytes()
    result = ralph.run("init")
    assert result.ret == 2
    result.stdout.fnmatch_lines([
        "--- a/pyproject.toml",
        "+++ b/pyproject.toml",
        '-until = ["lint", "files:README.md"]  # mine',
        '+until = ["lint"]',
    ])
    assert "rerun with --force" in result.err
    assert (ralph.path / "pyproject.toml").read_bytes() == before
    assert not (ralph.path / "PROMPT.md").exists()

    assert ralph.run("init", "--force").ret == 0
    text = (ralph.path / "pyproject.toml").read_text(encoding="utf-8")
    assert text.startswith(DEFAULT_PYPROJECT + "\n[tool.ralph-verify]\n")
    assert text.endswith('# args = ["-q"]\n\n[tool.other]\nkeep = true\n')
    assert "timeout = 30" not in text
    assert _table(ralph)["until"] == ["lint"]


def test_dry_run_writes_nothing(ralph: Ralph) -> None:
    result = ralph.run("init", "--dry-run")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["+[[]tool.ralph-verify[]]", "*pyproject.toml: would change"])
    assert (ralph.path / "pyproject.toml").read_text(encoding="utf-8") == DEFAULT_PYPROJECT
    assert not (ralph.path / "PROMPT.md").exists()


def test_existing_prompt_and_gitignore_entry_are_kept(ralph: Ralph) -> None:
    ralph.makefile("PROMPT.md", "my task\n")
    ralph.makefile(".gitignore", "/.ralph\n")
    result = ralph.run("init")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*PROMPT.md: kept as it is", "*.gitignore: kept as it is"])
    assert (ralph.path / "PROMPT.md").read_text(encoding="utf-8") == "my task\n"


def test_unknown_target_lists_the_known_ones(ralph: Ralph) -> None:
    result = ralph.run("init", "gitlab")
    assert result.ret == 2
    assert "unknown init target 'gitlab'; known targets: " in result.err
    assert "project" in result.err


def test_agent_on_path_is_detected(ralph: Ralph, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "codex"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    ralph.env["PATH"] = str(bin_dir)  # only the fake CLI: the machine's own agents are not seen
    result = ralph.run("init")
    assert result.ret == 0
    assert "agent CLIs:     codex" in result.out
    assert _table(ralph)["agent"] == "codex"


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_asks_on_a_terminal(ralph: Ralph) -> None:
    primary, secondary = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "ralph_verify", "init"], cwd=ralph.path,
                            stdin=secondary, stdout=secondary, stderr=secondary)
    os.close(secondary)
    seen = b""

    def wait_for(text: bytes) -> None:
        nonlocal seen
        deadline = time.monotonic() + 30
        while text not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 0.5)
            if ready:
                try:
                    seen += os.read(primary, 4096)
                except OSError:
                    break
        assert text in seen, seen

    try:
        wait_for(b"Checks that must pass [lint]: ")
        os.write(primary, b"lint,flies:README.md\n")  # a typo: said, then asked again
        wait_for(b"did you mean 'files'")
        seen = seen[seen.index(b"did you mean"):]
        wait_for(b"Checks that must pass [lint]: ")
        os.write(primary, b"lint,files:README.md\n")
        wait_for(b"Agent [")
        os.write(primary, b"aider\n")
        wait_for(b"next: ")
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()
        os.close(primary)
    assert _table(ralph)["until"] == ["lint", "files:README.md"]


@pytest.mark.slow
def test_types_targets_agree_with_the_project(ralph: Ralph) -> None:
    """src layout, tests with type errors, no 'files' in the mypy config: init writes the
    package as the target, so check passes where the project's own CI would."""
    ralph.makepyproject("[tool.mypy]\nwarn_unused_ignores = true\n")
    ralph.makefile("src/sample/__init__.py", APP)
    ralph.makefile("tests/test_app.py", "from sample import add\n\n\ndef test_add() -> None:\n"
                                        "    assert add('1', 2) == 3\n")
    result = ralph.run_subprocess("init", "--dry-run")
    assert result.ret == 0, result
    result.stdout.fnmatch_lines(["+# targets: the project's package(s), not its tests",
                                 '+targets = ["src/sample"]'])

    ralph.makefile("tox.ini", "[testenv:types]\ncommands = mypy --strict src tests {posargs}\n")
    assert ralph.run_subprocess("init").ret == 0
    table = _table(ralph)
    assert table["checks"] == {"types": {"targets": ["src", "tests"], "args": ["--strict"]}}
    check = ralph.run("check", "--until", "types")
    assert check.ret == 1, check  # as tox -e types would: the tests' type error counts
    check.stdout.fnmatch_lines(["FAILED*types*1 error (1 arg-type); checked src, tests*"])
