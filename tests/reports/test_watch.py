"""``status --watch`` following real runs from another process: plain lines, a terminal, a crash."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ralph_verify.records.session import IterationRecord
from ralph_verify.reports.watch import ERROR_MARK, History, sparkline
from ralph_verify.testing import Ralph

#: An agent that needs three iterations: done.txt appears on the third.
AGENT = """\
import pathlib, time
counter = pathlib.Path("count.txt")
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
time.sleep(0.4)
if n >= 3:
    pathlib.Path("done.txt").write_text("done")
"""


def _project(ralph: Ralph) -> None:
    ralph.makefile("agent.py", AGENT)
    ralph.git_init()


def _start_run(ralph: Ralph, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ralph_verify", "run", "--agent", 'cmd:"python agent.py"',
         "--until", "files:done.txt", *extra, "make done.txt"],
        cwd=ralph.path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        stdin=subprocess.DEVNULL, start_new_session=True)


def _watch_argv() -> list[str]:
    return [sys.executable, "-m", "ralph_verify", "status", "--watch", "--interval", "0.1"]


def _wait_for_state(ralph: Ralph, predicate: str = "running") -> dict[str, object]:
    path = ralph.path / ".ralph" / "state.json"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            data = json.loads(path.read_text())
            if data.get("status") == predicate:
                assert isinstance(data, dict)
                return data
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise AssertionError(f"no {predicate} session in {path}")


def test_plain_lines_when_not_a_terminal_from_waiting_to_the_verdict(ralph: Ralph) -> None:
    _project(ralph)
    watcher = subprocess.Popen(_watch_argv(), cwd=ralph.path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    # The watcher starts before the run and waits for it: its first line says so, and only
    # then does the run start (a fixed sleep loses that race on a loaded machine).
    assert watcher.stdout is not None
    first = watcher.stdout.readline()
    run = _start_run(ralph)
    run_out, _ = run.communicate(timeout=120)
    rest, err = watcher.communicate(timeout=60)
    out = first + rest
    assert run.returncode == 0, run_out
    assert watcher.returncode == 0, err
    assert "\x1b" not in out
    lines = out.splitlines()
    assert lines[0].startswith(f"waiting for a session in {ralph.path}")
    assert lines[1].startswith("session ") and "until files:done.txt" in lines[1]
    finished = [line for line in lines if line.startswith("iteration ") and "checks passed" in line]
    assert [line.split(":")[0] for line in finished] == ["iteration 1", "iteration 2",
                                                         "iteration 3"]
    assert "failing: files:done.txt 1" in finished[0]
    assert finished[2].startswith("iteration 3: 2/2 checks passed")
    assert lines[-1].startswith("verdict: complete")


def test_a_terminal_gets_a_redrawn_screen_until_the_end(ralph: Ralph) -> None:
    _project(ralph)
    run = _start_run(ralph)
    _wait_for_state(ralph)
    primary, secondary = os.openpty()
    watcher = subprocess.Popen(_watch_argv(), cwd=ralph.path, stdin=secondary,
                               stdout=secondary, stderr=secondary,
                               env={**os.environ, "TERM": "xterm", "COLUMNS": "100"})
    os.close(secondary)
    seen = b""
    try:
        deadline = time.monotonic() + 120
        while watcher.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 0.2)
            if ready:
                try:
                    seen += os.read(primary, 65536)
                except OSError:
                    break
        assert watcher.wait(timeout=10) == 0
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()
        os.close(primary)
        run.communicate(timeout=120)
    text = seen.decode("utf-8", "replace")
    screens = text.split("\x1b[H\x1b[2J")
    assert len(screens) > 3, text  # redrawn in place, several times
    last = screens[-1]
    assert "· finished ·" in last.splitlines()[0]
    assert "progress per iteration" in last
    assert "files:done.txt  ██▁  0" in last
    assert "verdict: complete" in last
    assert "refreshing every" not in last and "refreshing every 0.1s" in screens[-2]


def test_a_run_that_died_is_reported_interrupted(ralph: Ralph) -> None:
    _project(ralph)
    run = _start_run(ralph)
    _wait_for_state(ralph)
    os.killpg(run.pid, signal.SIGKILL)  # no cleanup: the lock stays, its pid is gone
    run.communicate(timeout=30)
    result = subprocess.run(_watch_argv(), cwd=ralph.path, capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1] == ("the run is no longer running: go on with "
                                              "'ralph-verify run --resume'")


def test_a_hook_mode_session_is_followed_to_its_verdict(ralph: Ralph,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Between two stops no process holds the lock: the session is not dead for that."""
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
    ralph.git_init()
    assert ralph.run("start", "--until", "files:done.txt", "make done.txt").ret == 0
    watcher = subprocess.Popen(_watch_argv(), cwd=ralph.path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    assert watcher.stdout is not None
    first = watcher.stdout.readline()  # it follows the session before the first stop
    payload = {"session_id": "s-1", "hook_event_name": "Stop", "stop_hook_active": False,
               "last_assistant_message": "working on it"}
    time.sleep(0.5)  # several looks at a session no process holds
    assert watcher.poll() is None
    assert ralph.run("hook", "claude-stop", stdin=json.dumps(payload)).ret == 0
    ralph.makefile("done.txt", "done\n")
    assert ralph.run("hook", "claude-stop", stdin=json.dumps(payload)).ret == 0
    rest, err = watcher.communicate(timeout=60)
    assert watcher.returncode == 0, err
    lines = (first + rest).splitlines()
    assert lines[0].startswith("session ") and "(Stop hook)" in lines[0]
    finished = [line.split(":")[0] for line in lines
                if line.startswith("iteration ") and "checks passed" in line]
    assert finished == ["iteration 1", "iteration 2"]
    assert lines[-1].startswith("verdict: complete")


@pytest.mark.parametrize(("values", "expected"), [
    ([13.0, 8.0, 7.0, 0.0], "█▅▅▁"),
    ([0.0, 0.0], "▁▁"),
    ([None, 3.0, 2.0], ERROR_MARK + "█▆"),
    ([100.0, 100.0], "██"),
])
def test_sparkline(values: list[float | None], expected: str) -> None:
    assert sparkline(values) == expected


def test_history_reads_only_complete_new_lines(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    history = History(path)
    assert history.poll() == []
    path.write_text('{"iteration": 1}\n{"iteration": 2')
    assert history.poll() == [IterationRecord(1)]
    with path.open("a") as handle:
        handle.write('}\n')
    assert history.poll() == [IterationRecord(2)]
    path.write_text('{"iteration": 1}\n')  # a new session: the file started over
    assert history.poll() == [IterationRecord(1)]
    assert history.records == [IterationRecord(1)]


def test_a_loop_claude_s_block_cap_may_have_stopped_is_marked_and_said(
        ralph: Ralph, monkeypatch: pytest.MonkeyPatch) -> None:
    """Claude Code ends its turn after its cap of Stop-hook blocks in a row: the state marks
    the block that reached it, and ``status --watch`` says why the loop does not move."""
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
    monkeypatch.setenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "2")
    ralph.git_init()
    assert ralph.run("start", "--until", "files:done.txt", "make done.txt").ret == 0
    payload = {"session_id": "s-1", "hook_event_name": "Stop", "stop_hook_active": False,
               "last_assistant_message": "working on it"}
    for active in (False, True):  # the second stop of the turn, after a block
        payload["stop_hook_active"] = active
        assert ralph.run("hook", "claude-stop", stdin=json.dumps(payload)).ret == 0
    state = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    assert state["hook"]["block_cap_reached"]["cap"] == 2, state["hook"]
    assert state["hook"]["block_cap_reached"]["iteration"] == 2
    watcher = subprocess.Popen(_watch_argv(), cwd=ralph.path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    assert watcher.stdout is not None
    try:
        seen = [watcher.stdout.readline() for _ in range(5)]
        assert any(line.startswith("stopped by Claude Code's block cap? iteration 2 was its "
                                   "2th Stop-hook block in a row") for line in seen), seen
    except BaseException:
        watcher.kill()
        watcher.communicate()
        raise
    ralph.makefile("done.txt", "done\n")
    assert ralph.run("hook", "claude-stop", stdin=json.dumps(payload)).ret == 0
    rest, err = watcher.communicate(timeout=60)
    assert watcher.returncode == 0, err
    assert rest.splitlines()[-1].startswith("verdict: complete")
    state = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    assert state["hook"].get("block_cap_reached") is None
