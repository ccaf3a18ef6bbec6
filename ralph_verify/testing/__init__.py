"""The ``ralph`` fixture: build a temporary project, run the CLI on it, match its output.

Opt-in, like pytester (``pytest_plugins = ["ralph_verify.testing"]``), not a ``pytest11``
entry point: ralph-verify runs pytest on users' projects and must not leak into them."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from ralph_verify.cli import main

#: The scripted model server's ``model_server`` fixture comes with this plugin.
pytest_plugins = ["ralph_verify.testing.server"]

DEFAULT_PYPROJECT = """\
[project]
name = "sample"
version = "0.0.1"
"""


@dataclass
class RunResult:
    """The outcome of one ``ralph-verify`` invocation."""

    ret: int
    out: str
    err: str
    duration: float

    @property
    def stdout(self) -> pytest.LineMatcher:
        return pytest.LineMatcher(self.out.splitlines())

    @property
    def stderr(self) -> pytest.LineMatcher:
        return pytest.LineMatcher(self.err.splitlines())

    def json(self) -> Any:
        """stdout parsed as JSON (for ``--json``)."""
        return json.loads(self.out)

    def __repr__(self) -> str:
        return f"<RunResult ret={self.ret} out={self.out[-2000:]!r} err={self.err[-2000:]!r}>"


class Ralph:
    """A temporary project and ways to run ralph-verify on it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.env: dict[str, str] = {}

    def makefile(self, name: str, content: str = "") -> Path:
        """Write ``content`` (dedented) to ``name`` under the project; folders are created."""
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
        return target

    def makepyfile(self, **files: str) -> list[Path]:
        """``makepyfile(calc="...", **{"tests/test_calc": "..."})`` writes ``.py`` files."""
        return [self.makefile(f"{name}.py", content) for name, content in files.items()]

    def makepyproject(self, content: str) -> Path:
        """Replace pyproject.toml; ``content`` is appended to a minimal ``[project]`` table."""
        return self.makefile("pyproject.toml", DEFAULT_PYPROJECT + textwrap.dedent(content))

    def copy_example(self, source: Path) -> Path:
        """Copy a sample project (a folder) into the temporary project."""
        shutil.copytree(source, self.path, dirs_exist_ok=True)
        return self.path

    def git(self, *args: str) -> str:
        result = subprocess.run(["git", *args], cwd=self.path, capture_output=True, text=True,
                                check=True, env={**os.environ, **_GIT_ENV})
        return result.stdout

    def git_init(self, commit: bool = True) -> None:
        """Make the project a git repository, with everything committed."""
        self.git("init", "-q", "-b", "main")
        if commit:
            self.git("add", "-A")
            self.git("commit", "-q", "-m", "initial")

    def run(self, *args: str, plugins: Sequence[object] = (),
            stdin: str | None = None) -> RunResult:
        """Run ``ralph-verify ARGS`` in-process, from the project folder; ``plugins`` for this
        run only, ``stdin`` as its standard input (agent hooks)."""
        out, err = io.StringIO(), io.StringIO()
        started = time.perf_counter()
        given = io.StringIO(stdin) if stdin is not None else sys.stdin
        with _chdir(self.path), mock.patch.dict(os.environ, self.env), \
                mock.patch.object(sys, "stdin", given), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            ret = main(list(args), plugins=plugins)
        return RunResult(int(ret), out.getvalue(), err.getvalue(),
                         time.perf_counter() - started)

    def run_subprocess(self, *args: str, timeout: float = 300,
                       python: str | None = None, stdin: str | None = None) -> RunResult:
        """Run ``python -m ralph_verify ARGS`` in a child process, from the project folder
        (``stdin``: its input; default ``/dev/null``)."""
        started = time.perf_counter()
        proc = subprocess.run([python or sys.executable, "-m", "ralph_verify", *args],
                              cwd=self.path, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **self.env}, input=stdin,
                              stdin=subprocess.DEVNULL if stdin is None else None)
        return RunResult(proc.returncode, proc.stdout, proc.stderr,
                         time.perf_counter() - started)


_GIT_ENV = {
    "GIT_AUTHOR_NAME": "ralph-test", "GIT_AUTHOR_EMAIL": "ralph@example.invalid",
    "GIT_COMMITTER_NAME": "ralph-test", "GIT_COMMITTER_EMAIL": "ralph@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@contextlib.contextmanager
def _chdir(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


@pytest.fixture
def ralph(tmp_path: Path) -> Ralph:
    """A temporary project with a minimal pyproject.toml; see :class:`Ralph`."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(DEFAULT_PYPROJECT, encoding="utf-8")
    ralph = Ralph(project)
    # A cache folder of the test's own: no stored verification of another test answers.
    ralph.env["RALPH_VERIFY_CACHE_DIR"] = str(tmp_path / "cache")
    # No sandbox unless a test asks (``--sandbox``, or ``del ralph.env[...]`` for ``auto``):
    # its PID namespace and read-only home are not what tests of other features expect.
    ralph.env["RALPH_VERIFY_SANDBOX"] = "off"
    return ralph
