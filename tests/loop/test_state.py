"""``.ralph/``: the lock between runs, state and history files, resuming from them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from ralph_verify.checks.api import CheckResult, Failure, Status
from ralph_verify.checks.verification import Verification
from ralph_verify.loop.state import StateDir
from ralph_verify.testing import Ralph
from tests.loop_helpers import agent, history, state


def _lock(ralph: Ralph, pid: int) -> None:
    folder = ralph.path / ".ralph"
    folder.mkdir(exist_ok=True)
    (folder / "lock").write_text(json.dumps({"pid": pid, "host": socket.gethostname(),
                                             "session": "other", "started_at": "earlier"}))


def test_a_live_lock_refuses_a_second_run(ralph: Ralph) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; "
         "from ralph_verify.loop.state import StateDir; StateDir(Path('.')).acquire_lock('other'); "
         "print('held', flush=True); time.sleep(30)"],
        cwd=ralph.path, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        started = json.loads((ralph.path / ".ralph" / "lock").read_text())["started_at"]
        result = ralph.run("run", "--agent", "cmd:true", "--until", "files:x", "task")
    finally:
        holder.kill()
        holder.wait()
    assert result.ret == 2, result
    assert (f"another ralph-verify run (pid {holder.pid}, session other, started {started}) is "
            f"working in {ralph.path}; wait for it, or stop it with 'ralph-verify cancel'"
            ) in result.err
    assert not (ralph.path / ".ralph" / "state.json").exists()


def test_a_lock_naming_a_live_process_that_holds_nothing_is_taken_over(ralph: Ralph) -> None:
    """The lock file is data (an agent or a repository can write it): only a run holding it
    counts, not whatever pid it names."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        _lock(ralph, sleeper.pid)
        result = ralph.run("run", "--agent", "cmd:true", "--until", "files:x",
                           "--max-iterations", "1", "task")
        assert sleeper.poll() is None
    finally:
        sleeper.kill()
        sleeper.wait()
    assert result.ret == 10, result
    result.stdout.fnmatch_lines([f"ralph-verify: took over a stale lock of pid {sleeper.pid} "
                                 "(not a run holding the lock)"])


def test_a_stale_lock_is_taken_over(ralph: Ralph) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    _lock(ralph, gone.pid)
    result = ralph.run("run", "--agent", "cmd:true", "--until", "files:x", "--max-iterations",
                       "1", "task")
    assert result.ret == 10, result
    result.stdout.fnmatch_lines([f"ralph-verify: took over a stale lock of pid {gone.pid} "
                                 "(no longer running)"])
    assert not (ralph.path / ".ralph" / "lock").exists()  # released at the end


def test_state_and_history_are_valid_json_and_redacted(ralph: Ralph) -> None:
    ralph.env["DEPLOY_API_KEY"] = "k-0123456789"
    leak = agent(ralph, "print('key is', os.environ['DEPLOY_API_KEY'])\n")
    result = ralph.run("run", "--agent", leak, "--until", 'cmd:"echo $DEPLOY_API_KEY; exit 1"',
                       "--max-iterations", "2", "-p", "no:breaker", "task")
    assert result.ret == 10, result
    folder = ralph.path / ".ralph"
    for path in [folder / "state.json", folder / "history.jsonl", folder / "progress.md",
                 *folder.glob("iterations/*/*")]:
        assert "k-0123456789" not in path.read_text(), path
    assert "[redacted:DEPLOY_API_KEY]" in (folder / "iterations/001/agent.log").read_text()
    data = state(ralph)
    assert data["version"] == 1 and data["pid"] == os.getpid()
    assert data["until"] == ['cmd:"echo $DEPLOY_API_KEY; exit 1"']
    assert data["settings"]["max_iterations"] == 2
    assert [line["iteration"] for line in history(ralph)] == [1, 2]
    assert not list(folder.glob("**/.*.tmp"))  # no atomic-write leftovers


def test_a_new_session_clears_the_previous_ones_files(ralph: Ralph) -> None:
    for _ in range(2):
        assert ralph.run("run", "--agent", "cmd:true", "--until", "files:x",
                         "--max-iterations", "1", "task").ret == 10
    assert len(history(ralph)) == 1
    assert (ralph.path / ".ralph/progress.md").read_text().count("## Iteration 1") == 1


def test_verification_round_trip(tmp_path: Path) -> None:
    original = Verification(root=tmp_path, results=[
        CheckResult("tests", "tests>=2", Status.FAILED, "1 failed", metric=1.0,
                    failures=[Failure("assert 1 == 2", location="t.py::test_a", code="E",
                                      path="t.py", line=3, pre_existing=True)],
                    counts={"passed": 1, "failed": 1}, flaky=["t.py::test_b"]),
        CheckResult("files", "files:x", Status.PASSED, "1 match"),
    ], duration_s=1.5, feedback="fix it")
    state_dir = StateDir(tmp_path)
    state_dir.write_verification(4, original)
    again = state_dir.read_verification(4)
    assert again is not None
    assert again.to_json() == original.to_json()
    assert again.results[0].failures[0].pre_existing
    assert state_dir.read_verification(5) is None
