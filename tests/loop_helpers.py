"""Helpers for the loop tests: agents as tiny Python scripts, reading ``.ralph/``."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from ralph_verify.testing import Ralph

CALC = """\
def add(a, b):
    return a - b


def mul(a, b):
    return a + b
"""

CALC_TESTS = """\
from calc import add, mul


def test_add():
    assert add(2, 3) == 5


def test_mul():
    assert mul(2, 3) == 6


def test_ok():
    assert True
"""


def agent(ralph: Ralph, body: str, name: str = "agent.py") -> str:
    """A ``cmd:`` agent running ``body`` (Python) with the project root as cwd.

    The script lives outside the project, so it is not part of the tree the
    loop snapshots and commits. ``N`` is the iteration number in the script.
    """
    path = ralph.path.parent / name
    path.write_text("import os, sys, pathlib, time, subprocess\n"
                    "N = int(os.environ['RALPH_ITERATION'])\n" + textwrap.dedent(body),
                    encoding="utf-8")
    return f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def user_state(ralph: Ralph) -> str:
    """The user's work before a loop: branch main with two commits, a tracked file changed
    and an untracked one; returns main's tip."""
    ralph.git_init()
    ralph.makefile("app.txt", "version 1\n")
    ralph.git("add", "app.txt")
    ralph.git("commit", "-q", "-m", "second")
    ralph.makefile("app.txt", "version 2, not committed\n")
    ralph.makefile("notes.txt", "my untracked notes\n")
    return ralph.git("rev-parse", "main").strip()


def state(ralph: Ralph) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    return data


def history(ralph: Ralph) -> list[dict[str, Any]]:
    lines = (ralph.path / ".ralph" / "history.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def prompt(ralph: Ralph, number: int) -> str:
    return (ralph.path / ".ralph" / "iterations" / f"{number:03d}" / "prompt.md").read_text()


def own_temp(ralph: Ralph) -> Path:
    """A temporary folder of the test's own for what ralph-verify makes there (``TMPDIR``):
    a process killed with SIGKILL removes nothing, and the machine's /tmp must not keep it."""
    temp = ralph.path.parent / "tmp"
    temp.mkdir(exist_ok=True)
    ralph.env["TMPDIR"] = str(temp)
    return temp


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes (its parent has not reaped it yet).
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def wait_for(predicate: Any, timeout: float = 20.0, what: str = "condition",
             run: Background | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            output = f"; the run's output:\n{run.output()}" if run is not None else ""
            raise AssertionError(f"timed out waiting for {what}{output}")
        time.sleep(0.05)


#: An agent whose first turn starts a grandchild and hangs; it writes both pids.
HANGING_AGENT = """\
if N == 1:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    written = pathlib.Path(os.environ["RALPH_SESSION_DIR"], "pids.tmp")
    written.write_text(f"{os.getpid()} {child.pid}")
    os.replace(written, written.with_name("pids"))  # whole when it appears
    time.sleep(120)
else:
    pathlib.Path("done.txt").write_text("done")
"""


class Background:
    """``ralph-verify ARGS`` in a child process, output to a file, for signals and cancel."""

    def __init__(self, ralph: Ralph, *args: str) -> None:
        self.out_path = ralph.path.parent / "run.out"
        self.out = self.out_path.open("wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "ralph_verify", *args],
                                     cwd=ralph.path, stdout=self.out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, env={**os.environ, **ralph.env})

    def output(self) -> str:
        return self.out_path.read_text(errors="replace")

    def wait(self, timeout: float = 30) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self.out.close()

    def interrupt(self) -> None:
        self.proc.send_signal(signal.SIGINT)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.out.close()


def kill_nine_when(ralph: Ralph, marker: Path, what: str, *args: str) -> None:
    """``ralph-verify ARGS`` in the background, killed with SIGKILL once ``marker`` exists (an
    OOM kill or a reboot at that moment)."""
    run = Background(ralph, *args)
    try:
        wait_for(marker.exists, timeout=120, what=what, run=run)
        run.proc.send_signal(signal.SIGKILL)
        assert run.wait() == -signal.SIGKILL
    finally:
        run.kill()
