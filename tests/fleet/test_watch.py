"""``fleet status --watch`` while a fleet runs: on a terminal (a real pseudo-terminal) a table
redrawn in place until the fleet ends, then its outcome; elsewhere plain lines, one per change."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ralph_verify.testing import Ralph
from tests.fleet.kata import agent, make_monorepo

CLEAR = "\x1b[H\x1b[2J"


class Terminal:
    """The far side of a pseudo-terminal: what a program wrote to it, read as it comes."""

    def __init__(self) -> None:
        self.primary, self.secondary = pty.openpty()
        self.text = ""
        self.closed = False

    def read(self, until: Callable[[str], bool], timeout: float) -> None:
        """Read until ``until(text so far)`` holds or the program closed the terminal."""
        deadline = time.monotonic() + timeout
        while not until(self.text) and not self.closed:
            assert time.monotonic() < deadline, f"not seen on the terminal: {self.text!r}"
            ready, _, _ = select.select([self.primary], [], [], 0.5)
            if not ready:
                continue
            try:
                data = os.read(self.primary, 65536)
            except OSError:  # EIO: every writer has closed the terminal
                data = b""
            self.closed = not data
            self.text += data.decode("utf-8", "replace").replace("\r\n", "\n")

    def handed_over(self) -> None:
        """The program has its side: close ours, so that its end closes the terminal."""
        os.close(self.secondary)
        self.secondary = -1

    def close(self) -> None:
        for fd in (self.primary, self.secondary):
            if fd != -1:
                os.close(fd)


def _running(out: Path) -> bool:
    with contextlib.suppress(OSError, ValueError):
        document = json.loads((out / "fleet.json").read_text())  # written atomically
        return any(loop.get("status") == "running" for loop in document["loops"])
    return False


def test_watch_redraws_a_table_on_a_terminal_and_prints_lines_elsewhere(
        ralph: Ralph, tmp_path: Path) -> None:
    """The first loop's agent waits at a gate that the test opens once both watchers have
    shown it running: no guessed sleep, however slow the machine."""
    make_monorepo(ralph.path, ["a", "b"])
    prompt = tmp_path / "PROMPT.md"
    prompt.write_text("Make the tests pass.")
    gate = tmp_path / "gate"
    env = {**os.environ, **ralph.env, "FLEET_AGENT_GATE": str(gate)}
    cli = [sys.executable, "-m", "ralph_verify", "fleet"]
    fleet = subprocess.Popen([*cli, "--matrix", "packages/*", "--agent", agent(tmp_path),
                              "--until", "tests", "-p", str(prompt), "-j", "1", "--id", "w1"],
                             cwd=ralph.path, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.STDOUT)
    procs = [fleet]
    terminal = Terminal()
    try:
        deadline = time.monotonic() + 120
        while not _running(ralph.path / "fleet"):
            assert fleet.poll() is None, "the fleet ended before the watchers started"
            assert time.monotonic() < deadline, "no loop of the fleet started"
            time.sleep(0.1)
        on_tty = subprocess.Popen([*cli, "status", "--watch"], cwd=ralph.path,
                                  stdin=terminal.secondary, stdout=terminal.secondary,
                                  stderr=terminal.secondary)
        procs.append(on_tty)
        piped = subprocess.Popen([*cli, "status", "--watch"], cwd=ralph.path,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        procs.append(piped)
        terminal.handed_over()
        assert piped.stdout is not None
        first = piped.stdout.readline().decode()  # the piped watcher is under way
        # Two tables drawn while the first loop waits at its gate, then let the fleet go on.
        terminal.read(lambda text: text.count(CLEAR) >= 2, timeout=120)
        gate.touch()
        terminal.read(lambda text: False, timeout=240)  # to the end: the watcher closes it
        rest, _ = piped.communicate(timeout=60)
        plain = first.encode() + rest
        screen = terminal.text
        assert on_tty.wait(timeout=60) == 0, screen
        assert piped.returncode == 0, plain
        assert fleet.wait(timeout=60) == 0
    finally:
        gate.touch()
        for proc in reversed(procs):  # SIGTERM: the fleet stops its loops cleanly
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        terminal.close()
    # On the terminal: the table is redrawn in place, first with a loop running...
    frames = screen.split(CLEAR)
    assert frames[0] == "" and len(frames) >= 4, screen  # 2 at the gate, 1+ after, the last
    frames = frames[1:]
    assert any(frame.startswith("fleet w1 · 2 loops · 1 running · 1 pending\n")
               and "\npackages-a  running" in frame for frame in frames[:-1]), screen
    # ...and last as the fleet ended: every loop complete, then the fleet's outcome.
    last = frames[-1].splitlines()
    assert last[0] == "fleet w1 · 2 loops · 0 running · 2 complete", screen
    assert [row.split()[:2] for row in last[1:3]] == [["packages-a", "complete"],
                                                      ["packages-b", "complete"]]
    assert last[3:] == ["fleet w1 ended: 2/2 loops complete (2 complete)"], screen
    # Elsewhere: no escape codes, a line each time a loop changes, the outcome last.
    text = plain.decode()
    assert "\x1b[" not in text
    rows = text.splitlines()
    assert rows[-1] == "fleet w1 ended: 2/2 loops complete (2 complete)"
    for name in ("packages-a", "packages-b"):
        mine = [row for row in rows[:-1] if row.startswith(f"{name} ")]
        assert all(one != two for one, two in itertools.pairwise(mine)), text
        assert mine[-1].split()[1] == "complete", text
    assert any(row.split()[1] == "running" for row in rows[:-1]), text
