"""Our plugins go into the project's pytest compiled, without source: pytest does not rewrite
them and coverage does not measure them. Compiled here when the project's interpreter is
ours, else by the project's interpreter, whose bytecode it must be.
"""

from __future__ import annotations

import marshal
import multiprocessing
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
        assert folder.is_relative_to(cache)  # kept outside the project
    assert starts.argv == []  # no Python start


def venv_copy(tmp_path: Path) -> str:
    # A copy of the binary (venv --copies) is another interpreter for all we know.
    subprocess.run([sys.executable, "-m", "venv", "--copies", "--without-pip",
                    str(tmp_path / "venv")], check=True)
    return str(tmp_path / "venv" / "bin" / "python")


def test_another_interpreter_compiles_them_itself_once(tmp_path: Path, cache: Path) -> None:
    python = venv_copy(tmp_path)
    starts = Starts()
    folders = []
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        folders.append(plugin_dir(starts, python, tmp_path / run, env={}))  # type: ignore[arg-type]
        assert code_name(folders[-1] / "ralph_verify_recorder.pyc") == COMPILED_NAME
    assert [argv[0] for argv in starts.argv] == [python]  # by that interpreter, once
    assert folders[0] == folders[1]
    imported = subprocess.run([python, "-c", "import ralph_verify_recorder"],
                              cwd=tmp_path, capture_output=True, text=True,
                              env={"PYTHONPATH": str(folders[1])})
    # It loads (pytest is not in that bare venv: the error is pytest's absence, not the file).
    assert "No module named 'pytest'" in imported.stderr, imported.stderr
    assert not list(cache.glob("pytest-plugins/.*"))  # no folder left half built


@pytest.mark.parametrize("damage", ["truncated", "missing", "digests"])
def test_a_damaged_kept_folder_is_rebuilt(tmp_path: Path, cache: Path, damage: str) -> None:
    python = venv_copy(tmp_path)
    starts = Starts()
    (tmp_path / "one").mkdir()
    kept = plugin_dir(starts, python, tmp_path / "one", env={})  # type: ignore[arg-type]
    pyc = kept / "ralph_verify_recorder.pyc"
    if damage == "truncated":
        pyc.write_bytes(pyc.read_bytes()[:20])
    elif damage == "missing":
        pyc.unlink()
    else:
        (kept / "digests.json").write_text("{not json")
    (tmp_path / "two").mkdir()
    again = plugin_dir(starts, python, tmp_path / "two", env={})  # type: ignore[arg-type]
    assert len(starts.argv) == 2  # compiled again, not used damaged
    assert again == kept and code_name(again / "ralph_verify_recorder.pyc") == COMPILED_NAME
    assert [p.name for p in cache.glob("pytest-plugins/*")] == [kept.name]


def test_a_script_is_not_trusted_to_be_the_same_interpreter(tmp_path: Path,
                                                            cache: Path) -> None:
    # A shim (pyenv's) may start another Python at each call: compiled at every run.
    shim = tmp_path / "python"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    shim.chmod(0o755)
    starts = Starts()
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        folder = plugin_dir(starts, str(shim), tmp_path / run, env={})  # type: ignore[arg-type]
        assert folder == tmp_path / run / "plugin"
    assert len(starts.argv) == 2
    assert not cache.exists()


def _build(python: str, folder: str) -> str:
    return str(plugin_dir(Starts(), python, Path(folder), env={}))  # type: ignore[arg-type]


def test_checks_at_once_build_one_folder(tmp_path: Path, cache: Path) -> None:
    # A fleet runs many checks at once: each sees a whole folder or builds its own, and one
    # is kept.
    python = venv_copy(tmp_path)
    folders = [tmp_path / str(i) for i in range(6)]
    for folder in folders:
        folder.mkdir()
    context = multiprocessing.get_context("fork")
    with context.Pool(len(folders)) as pool:
        got = pool.starmap(_build, [(python, str(folder)) for folder in folders])
    assert len(set(got)) == 1, got
    assert [p.name for p in cache.glob("pytest-plugins/*")] == [Path(got[0]).name]
    assert not list(cache.glob("pytest-plugins/.*"))
    assert code_name(Path(got[0]) / "ralph_verify_recorder.pyc") == COMPILED_NAME
