"""Our plugins go into the project's pytest compiled, without source: pytest does not rewrite
them and coverage does not measure them. Compiled here when the project's interpreter is
ours, else by the project's interpreter, whose bytecode it must be.
"""

from __future__ import annotations

import marshal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.plugins.pytest_run.plugin_dir import COMPILED_NAME, plugin_dir


class Starts:
    """Stands in for a verification's context: runs what ``plugin_dir`` starts, counting."""

    def __init__(self) -> None:
        self.argv: list[list[str]] = []

    def run(self, argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        self.argv.append(argv)
        done = subprocess.run(argv, capture_output=True, text=True, env=kwargs.get("env"))
        assert done.returncode == 0, done.stderr
        return done  # plugin_dir reads only its returncode


def code_name(pyc: Path) -> str:
    return str(marshal.loads(pyc.read_bytes()[16:]).co_filename)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RALPH_VERIFY_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_our_interpreter_compiles_them_here(tmp_path: Path, cache: Path) -> None:
    starts = Starts()
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        folder = plugin_dir(starts, sys.executable, tmp_path / run, env={})  # type: ignore[arg-type]
        names = sorted(p.name for p in folder.iterdir())
        assert "ralph_verify_recorder.pyc" in names
        assert not [n for n in names if n.endswith(".py")]  # no source: nothing to rewrite
        assert code_name(folder / "ralph_verify_recorder.pyc") == COMPILED_NAME
    assert starts.argv == []  # no Python start


def test_another_interpreter_compiles_them_itself(tmp_path: Path, cache: Path) -> None:
    # A copy of the binary (venv --copies) is another interpreter for all we know.
    subprocess.run([sys.executable, "-m", "venv", "--copies", "--without-pip",
                    str(tmp_path / "venv")], check=True)
    python = str(tmp_path / "venv" / "bin" / "python")
    starts = Starts()
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        folder = plugin_dir(starts, python, tmp_path / run, env={})  # type: ignore[arg-type]
        assert code_name(folder / "ralph_verify_recorder.pyc") == COMPILED_NAME
    assert [argv[0] for argv in starts.argv] == [python, python]  # by that interpreter
    imported = subprocess.run([python, "-c", "import ralph_verify_recorder"],
                              cwd=tmp_path / "two" / "plugin", capture_output=True, text=True,
                              env={"PYTHONPATH": str(tmp_path / "two" / "plugin")})
    # It loads (pytest is not in that bare venv: the error is pytest's absence, not the file).
    assert "No module named 'pytest'" in imported.stderr, imported.stderr
