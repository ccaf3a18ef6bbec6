"""``check`` reports as it goes: the header at once, each check's line as soon as that check
is decided, on a terminal and in a pipe (issue 25: a lint result must not wait for pytest).

No wall-clock thresholds: the slow check waits for a file the test writes only after it has
read the fast check's line, so the order is causal. If the line came only at the end, the
slow check would wait out its own limit and fail, and so would the test.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator

from ralph_verify import Check, CheckResult, hookimpl
from ralph_verify.testing import Ralph

#: The slow check: it ends when ``go`` exists (or fails after 60 s without it).
WAIT_FOR_GO = """\
import pathlib
import sys
import time

for _ in range(1200):
    if pathlib.Path("go").exists():
        sys.exit(0)
    time.sleep(0.05)
sys.exit(1)
"""


def _project(ralph: Ralph) -> list[str]:
    ralph.makefile("wait_for_go.py", WAIT_FOR_GO)
    return [sys.executable, "-m", "ralph_verify", "check", "--no-cache", "--until",
            'cmd:"python wait_for_go.py",lint']


def _chunks(fd: int, proc: subprocess.Popen[bytes]) -> Iterator[bytes]:
    """What the child writes to ``fd``, as it comes, until it closes or exits."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # a pty whose child side closed
                return
            if not chunk:
                return
            yield chunk
        elif proc.poll() is not None:
            return


def _drive(ralph: Ralph, proc: subprocess.Popen[bytes], fd: int) -> str:
    """Read the report; write ``go`` once the lint line is there; return everything read."""
    seen = b""
    released = False
    try:
        for chunk in _chunks(fd, proc):
            seen += chunk
            # Without colours and erasures; whole lines only, the last state of each.
            text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", seen.decode("utf-8", "replace"))
            lines = [line.rstrip("\r").split("\r")[-1] for line in text.split("\n")[:-1]]
            decided = [line.split()[1] for line in lines
                       if line.split()[:1] in (["PASSED"], ["FAILED"], ["ERROR"])]
            if not released and decided:
                assert lines[0].startswith("ralph-verify check · "), text
                # The fast check is decided while the slow one still waits for "go".
                assert decided == ["lint"], text
                (ralph.path / "go").write_text("")
                released = True
        assert proc.wait(timeout=60) == 0, seen
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert released, seen
    return seen.decode("utf-8", "replace")


def test_the_first_line_comes_before_the_slow_check_ends_in_a_pipe(ralph: Ralph) -> None:
    argv = _project(ralph)
    proc = subprocess.Popen(argv, cwd=ralph.path, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env={**os.environ, **ralph.env})
    assert proc.stdout is not None
    out = _drive(ralph, proc, proc.stdout.fileno())
    proc.stdout.close()
    lines = out.splitlines()
    assert lines[0].startswith("ralph-verify check · ") and lines[0].endswith("2 checks")
    # Completion order for the lines, --until order in the closing line; no live line.
    assert [line.split()[1][:4] for line in lines if line.startswith("PASSED ")] == ["lint",
                                                                                  "cmd:"]
    assert lines[-1].startswith("PASSED: all 2 checks passed in ")
    assert "\x1b" not in out and "[ralph]" not in out


def test_the_first_line_comes_before_the_slow_check_ends_on_a_terminal(ralph: Ralph) -> None:
    argv = _project(ralph)
    primary, secondary = os.openpty()
    proc = subprocess.Popen(argv, cwd=ralph.path, stdin=subprocess.DEVNULL, stdout=secondary,
                            stderr=secondary, env={**os.environ, **ralph.env, "TERM": "xterm"})
    os.close(secondary)
    try:
        screen = _drive(ralph, proc, primary)
    finally:
        os.close(primary)
    # The live line names what runs and for how long, and is wiped at the end.
    assert "\r\x1b[2K[ralph] check · " in screen
    assert "running cmd:python wait_for_go.py" in screen.replace('"', "")
    assert screen.rstrip("\r\n").endswith("\x1b[2K") or "PASSED: all 2 checks" in screen
    assert "PASSED: all 2 checks passed in " in screen


def test_check_qq_stays_silent_and_the_exit_code_tells(ralph: Ralph) -> None:
    ralph.makefile("wait_for_go.py", "")
    result = ralph.run_subprocess("check", "-qq", "--until", "files:nothing.txt")
    assert result.ret == 1 and result.out == ""


class Events:
    """A third-party reporter: the order of the reporting events of one verification."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    @hookimpl
    def ralph_report_verification_start(self, checks: list[Check]) -> None:
        self.seen.append("start " + ",".join(check.spec.text for check in checks))

    @hookimpl
    def ralph_report_check_start(self, check: Check) -> None:
        self.seen.append(f"run {check.spec.text}")

    @hookimpl
    def ralph_verify_logresult(self, result: CheckResult) -> None:
        self.seen.append(f"done {result.spec}")


def test_a_plugin_sees_the_verification_and_each_check_start(ralph: Ralph) -> None:
    events = Events()
    result = ralph.run("check", "--until", "files:pyproject.toml,files:missing.txt",
                       "--jobs", "1", plugins=[events])
    assert result.ret == 1
    assert events.seen[0] == "start files:pyproject.toml,files:missing.txt"
    assert sorted(events.seen[1:]) == ["done files:missing.txt", "done files:pyproject.toml",
                                       "run files:missing.txt", "run files:pyproject.toml"]
    for name in ("files:missing.txt", "files:pyproject.toml"):
        assert events.seen.index(f"run {name}") < events.seen.index(f"done {name}")
    # The closing line counts checks, names the failing one, and says so in its own words.
    assert result.out.splitlines()[-1].startswith(
        "FAILED: 1 of 2 checks failed (files:missing.txt), 1 passed in ")


def test_run_v_shows_what_failed_and_what_was_fed_back(ralph: Ralph) -> None:
    from tests.loop_helpers import agent

    ralph.makefile("PROMPT.md", "write done.txt\n")
    ralph.git_init()
    second_time = agent(ralph, "if N == 2:\n    pathlib.Path('done.txt').write_text('ok')\n")
    result = ralph.run("run", "-v", "--agent", second_time, "--until", "files:done.txt",
                       "--no-integrity")
    assert result.ret == 0, result
    result.stdout.fnmatch_lines([
        "    FAILED  files:done.txt *",          # each check's line, as it is decided
        "      done.txt: expected files matching done.txt*",  # its failures under it
        "iteration 1: 0/1 checks passed*",
        "    feedback for the next iteration: * characters",
        "    the prompt it answered, in full: .ralph/iterations/001/prompt.md",
        "    PASSED  files:done.txt *",
        "iteration 2: 1/1 checks passed*",
    ])
    quiet = ralph.run("run", "-qq", "--agent", second_time, "--until", "files:done.txt",
                      "--no-integrity", "--allow-dirty")
    assert quiet.out == ""


#: A suite whose third test runs until the test writes ``go``: the live line must show
#: pytest's progress (2 of 4 done) while it waits.
SUITE_WAITING_FOR_GO = """\
import pathlib
import time


def test_a():
    pass


def test_b():
    pass


def test_c_waits_for_go():
    for _ in range(1200):
        if pathlib.Path("go").exists():
            return
        time.sleep(0.05)
    raise AssertionError("nobody said go: the live line never showed pytest's progress")


def test_d():
    pass
"""


def test_the_live_line_shows_pytest_progress_tests_done_of_collected(ralph: Ralph) -> None:
    ralph.makefile("test_progress.py", SUITE_WAITING_FOR_GO)
    argv = [sys.executable, "-m", "ralph_verify", "check", "--no-cache", "--until", "tests"]
    primary, secondary = os.openpty()
    proc = subprocess.Popen(argv, cwd=ralph.path, stdin=subprocess.DEVNULL, stdout=secondary,
                            stderr=secondary, env={**os.environ, **ralph.env, "TERM": "xterm"})
    os.close(secondary)
    seen = b""
    released = False
    try:
        for chunk in _chunks(primary, proc):
            seen += chunk
            if not released and b"running tests (pytest 2/4)" in seen:
                (ralph.path / "go").write_text("")  # only now may the third test end
                released = True
        assert proc.wait(timeout=60) == 0, seen
    finally:
        os.close(primary)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert released, seen
    plain = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", seen.decode("utf-8", "replace"))
    assert "PASSED  tests 4 passed" in plain
