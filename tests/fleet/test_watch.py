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
from pathlib import Path

from ralph_verify.testing import Ralph
from tests.fleet.kata import agent, make_monorepo

CLEAR = "\x1b[H\x1b[2J"


def _read_all(fd: int, proc: subprocess.Popen[bytes], timeout: float) -> str:
    """Everything written to the pseudo-terminal until ``proc`` ends and its side closes."""
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the watcher ended and closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    return b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


def _running(out: Path) -> bool:
    with contextlib.suppress(OSError, ValueError):
        document = json.loads((out / "fleet.json").read_text())  # written atomically
        return any(loop.get("status") == "running" for loop in document["loops"])
    return False


def test_watch_redraws_a_table_on_a_terminal_and_prints_lines_elsewhere(
        ralph: Ralph, tmp_path: Path) -> None:
    make_monorepo(ralph.path, ["a", "b"])
    prompt = tmp_path / "PROMPT.md"
    prompt.write_text("Make the tests pass.")
    env = {**os.environ, "FLEET_AGENT_SLEEP": "3"}
    cli = [sys.executable, "-m", "ralph_verify", "fleet"]
    fleet = subprocess.Popen([*cli, "--matrix", "packages/*", "--agent", agent(tmp_path),
                              "--until", "tests", "-p", str(prompt), "-j", "1", "--id", "w1"],
                             cwd=ralph.path, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.STDOUT)
    procs = [fleet]
    primary, secondary = pty.openpty()
    try:
        deadline = time.monotonic() + 120
        while not _running(ralph.path / "fleet"):
            assert fleet.poll() is None, "the fleet ended before the watchers started"
            assert time.monotonic() < deadline, "no loop of the fleet started"
            time.sleep(0.1)
        on_tty = subprocess.Popen([*cli, "status", "--watch"], cwd=ralph.path,
                                  stdin=secondary, stdout=secondary, stderr=secondary)
        procs.append(on_tty)
        piped = subprocess.Popen([*cli, "status", "--watch"], cwd=ralph.path,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        procs.append(piped)
        os.close(secondary)
        secondary = -1
        screen = _read_all(primary, on_tty, timeout=240)
        plain, _ = piped.communicate(timeout=60)
        assert on_tty.wait(timeout=60) == 0, screen
        assert piped.returncode == 0, plain
        assert fleet.wait(timeout=60) == 0
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        os.close(primary)
        if secondary != -1:
            os.close(secondary)
    # On the terminal: the table is redrawn in place, first with a loop running...
    frames = screen.split(CLEAR)
    assert frames[0] == "" and len(frames) > 3, screen
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
