"""Hook mode through the front door: ``start``, then Stop hook JSON on stdin, as agents send it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ralph_verify import hookimpl
from ralph_verify.testing import Ralph, RunResult
from tests.loop_helpers import own_temp, pid_alive

UNTIL = "files:done.txt"


@pytest.fixture(autouse=True)
def _no_agent_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The suite may itself run inside Claude Code: its variables must not leak in."""
    for name in ("CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP",
                 "CLAUDE_PROJECT_DIR"):
        monkeypatch.delenv(name, raising=False)
    yield


def stop(ralph: Ralph, session: str = "s-1", *, active: bool = False, message: str = "done",
         action: str = "claude-stop", plugins: tuple[object, ...] = ()) -> RunResult:
    payload: dict[str, Any] = {
        "session_id": session, "transcript_path": f"/nowhere/{session}.jsonl",
        "cwd": str(ralph.path), "prompt_id": "p-1", "permission_mode": "bypassPermissions",
        "hook_event_name": "Stop", "stop_hook_active": active,
        "last_assistant_message": message, "background_tasks": [], "session_crons": []}
    if action == "codex-stop":
        payload.update(turn_id="t-1", model="ralph-test-model")
        for key in ("prompt_id", "background_tasks", "session_crons"):
            del payload[key]
    result = ralph.run("hook", action, stdin=json.dumps(payload), plugins=plugins)
    assert result.ret == 0, result
    return result


def answer(result: RunResult) -> dict[str, Any]:
    data = result.json()
    assert isinstance(data, dict)
    return data


def state(ralph: Ralph) -> dict[str, Any]:
    data = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    assert isinstance(data, dict)
    return data


def start(ralph: Ralph, *args: str) -> RunResult:
    result = ralph.run("start", "--until", UNTIL, *args)
    assert result.ret == 0, result
    return result


def test_no_loop_means_no_opinion(ralph: Ralph) -> None:
    assert stop(ralph).out == ""
    assert not (ralph.path / ".ralph" / "state.json").exists()


def test_blocks_while_checks_fail_then_lets_claude_stop(ralph: Ralph) -> None:
    started = start(ralph, "--max-iterations", "5", "create", "done.txt")
    assert "ralph-verify loop started" in started.out
    assert "done.txt" in started.out  # the baseline's feedback, for the agent
    assert state(ralph)["hook"]["session_id"] is None

    first = answer(stop(ralph, message="I think I am done"))
    assert first["decision"] == "block"
    assert "done.txt" in first["reason"] and "iteration 1 of 5" in first["reason"]
    assert first["systemMessage"] == "ralph-verify iteration 1/5: 1 check failing"
    data = state(ralph)
    assert data["mode"] == "hook" and data["status"] == "running"
    assert data["hook"]["session_id"] == "s-1" and data["iteration"] == 1
    folder = ralph.path / ".ralph" / "iterations"
    assert (folder / "002" / "prompt.md").read_text() == first["reason"]
    assert (folder / "001" / "agent.log").read_text() == "I think I am done"

    ralph.makefile("done.txt", "ok\n")
    second = answer(stop(ralph, active=True, message="created it"))
    assert "decision" not in second
    assert second["systemMessage"].startswith("ralph-verify: complete after 2 iterations")
    data = state(ralph)
    assert data["status"] == "finished" and data["verdict"]["verdict"] == "complete"
    history = [json.loads(line) for line in
               (ralph.path / ".ralph" / "history.jsonl").read_text().splitlines()]
    assert [h["iteration"] for h in history] == [1, 2]
    assert history[1]["files_changed"] == ["done.txt"]
    assert "Iteration 2" in (ralph.path / ".ralph" / "progress.md").read_text()
    assert stop(ralph).out == ""  # finished: Claude stops freely from now on

    status = ralph.run("status")
    assert status.ret == 0
    status.stdout.fnmatch_lines(["session * · finished", "*agent claude (Stop hook)*",
                                 "verdict: complete*"])


def test_other_sessions_in_the_project_are_left_alone(ralph: Ralph) -> None:
    start(ralph)
    assert answer(stop(ralph, "s-1"))["decision"] == "block"
    before = state(ralph)
    other = stop(ralph, "s-2")
    assert other.out == "" and other.err == ""
    assert state(ralph) == before


def test_start_binds_the_session_it_runs_in(ralph: Ralph) -> None:
    ralph.env["CLAUDE_CODE_SESSION_ID"] = "s-9"
    start(ralph)
    assert state(ralph)["hook"]["session_id"] == "s-9"
    assert stop(ralph, "s-1").out == ""
    assert answer(stop(ralph, "s-9"))["decision"] == "block"


def test_iteration_limit_lets_claude_stop(ralph: Ralph) -> None:
    start(ralph, "--max-iterations", "2")
    assert answer(stop(ralph))["decision"] == "block"
    last = answer(stop(ralph, active=True))
    assert "decision" not in last
    assert "max-iterations" in last["systemMessage"]
    assert state(ralph)["verdict"]["verdict"] == "max-iterations"


def test_breaker_opens_and_lets_claude_stop(ralph: Ralph) -> None:
    ralph.makepyproject("[tool.ralph-verify]\nstall-no-change = 1\n")
    start(ralph)
    first = answer(stop(ralph))
    assert first["decision"] == "block"
    assert "change your approach" in first["reason"]  # half-open: the note goes to the agent
    second = answer(stop(ralph, active=True))
    assert "decision" not in second
    assert "stalled" in second["systemMessage"]
    assert state(ralph)["verdict"]["verdict"] == "stalled"


def test_cancel_ends_the_loop(ralph: Ralph) -> None:
    start(ralph)
    assert answer(stop(ralph))["decision"] == "block"
    cancelled = ralph.run("cancel")
    assert cancelled.ret == 0 and "cancelled" in cancelled.out
    assert state(ralph)["verdict"]["verdict"] == "cancelled"
    assert stop(ralph, active=True).out == ""


def test_cancel_while_the_hook_runs_its_checks(ralph: Ralph) -> None:
    """``cancel`` while a Stop hook holds the lock waits for it, then ends the loop."""
    ralph.run("start", "--until", 'cmd:"sleep 3; exit 1"')
    payload = ralph.path.parent / "payload.json"
    payload.write_text(json.dumps({
        "session_id": "s-1", "transcript_path": "/nowhere/s-1.jsonl", "cwd": str(ralph.path),
        "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "done"}))
    with payload.open() as stdin:
        hook = subprocess.Popen([sys.executable, "-m", "ralph_verify", "hook", "claude-stop"],
                                cwd=ralph.path, env={**os.environ, **ralph.env}, stdin=stdin,
                                stdout=subprocess.DEVNULL)
    try:
        lock = ralph.path / ".ralph" / "lock"
        deadline = time.monotonic() + 60
        while not lock.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        cancelled = ralph.run("cancel")
        assert cancelled.ret == 0 and "cancelled the" in cancelled.out, cancelled
    finally:
        hook.wait(timeout=120)
    assert state(ralph)["verdict"]["verdict"] == "cancelled"


def test_blocked_promise_in_the_last_message_stops(ralph: Ralph) -> None:
    start(ralph)
    echoed = answer(stop(ralph, message="<promise>BLOCKED: the reason</promise>"))
    assert echoed["decision"] == "block"  # the template's example, echoed: does not count
    own = answer(stop(ralph, active=True,
                      message="I need an API key.\n<promise>BLOCKED: no API key</promise>"))
    assert "decision" not in own and "no API key" in own["systemMessage"]
    assert state(ralph)["verdict"]["verdict"] == "blocked"


def test_block_cap_is_reported_before_claude_code_ends_the_turn(ralph: Ralph) -> None:
    ralph.env["CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"] = "2"
    start(ralph)
    first = answer(stop(ralph, active=False))
    assert "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP" not in first["systemMessage"]
    second = answer(stop(ralph, active=True))
    assert second["decision"] == "block"
    assert "ends a turn after 2 Stop-hook blocks" in second["systemMessage"]
    assert "send any message" in second["systemMessage"]
    assert state(ralph)["hook"]["blocks_in_a_row"] == 2
    ralph.run("status").stdout.fnmatch_lines(["*note: Claude Code ends a turn after 2*"])
    # A new turn (stop_hook_active false) starts counting again.
    third = answer(stop(ralph, active=False))
    assert state(ralph)["hook"]["blocks_in_a_row"] == 1
    assert "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP" not in third["systemMessage"]


def test_start_warns_when_the_loop_is_longer_than_the_block_cap(ralph: Ralph) -> None:
    assert "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP" in start(ralph, "--max-iterations", "20").out


def test_codex_stop_hook(ralph: Ralph) -> None:
    start(ralph, "--max-iterations", "3")
    blocked = answer(stop(ralph, "c-1", action="codex-stop"))
    assert blocked["decision"] == "block" and "done.txt" in blocked["reason"]
    assert set(blocked) == {"decision", "reason", "systemMessage"}  # Codex's output schema
    assert state(ralph)["hook"]["agent"] == "codex"
    assert stop(ralph, "c-1", action="claude-stop").out == ""  # another agent: not ours
    # No block cap in Codex: max-iterations bounds the blocks, whatever stop_hook_active says.
    assert answer(stop(ralph, "c-1", active=True, action="codex-stop"))["decision"] == "block"
    last = answer(stop(ralph, "c-1", active=True, action="codex-stop"))
    assert "decision" not in last and "max-iterations" in last["systemMessage"]


class Crash:
    """A policy plugin with a bug."""

    @hookimpl
    def ralph_iteration_end(self) -> None:
        raise RuntimeError("plugin bug")


def test_a_crash_lets_claude_stop_and_is_logged(ralph: Ralph) -> None:
    start(ralph)
    result = answer(stop(ralph, plugins=(Crash(),)))
    assert "decision" not in result
    assert "failed" in result["systemMessage"] and ".ralph/hook.log" in result["systemMessage"]
    log = (ralph.path / ".ralph" / "hook.log").read_text()
    assert "RuntimeError: plugin bug" in log
    assert not (ralph.path / ".ralph" / "lock").exists()


def test_broken_state_or_config_lets_claude_stop(ralph: Ralph) -> None:
    start(ralph)
    (ralph.path / ".ralph" / "state.json").write_text("{cut")
    # A state.json broken from outside is put back from the copy kept out of the agent's
    # reach (hookmode/binding.py): the stop is judged as if nothing had happened...
    result = answer(stop(ralph))
    assert "state.json was changed outside ralph-verify; it was put back" in str(result)
    # ... and without that copy (another user folder), a broken state lets the agent stop.
    from unittest import mock

    from ralph_verify.hookmode import binding

    with mock.patch.dict(os.environ, ralph.env):  # the user folder the hook sees
        binding.kept_state_path(ralph.path).unlink()
    (ralph.path / ".ralph" / "state.json").write_text("{cut")
    result = answer(stop(ralph))
    assert "decision" not in result and "failed" in result["systemMessage"]
    ralph.makepyproject("[tool.ralph-verify]\nno-such-key = 1\n")
    result = answer(stop(ralph))
    assert "decision" not in result and "no-such-key" in result["systemMessage"]


def test_checks_over_the_time_budget_let_claude_stop(ralph: Ralph) -> None:
    ralph.makepyproject("[tool.ralph-verify]\nhook-timeout = 8\n")
    slow = ("cmd:\"python -c \\\"import os,time; time.sleep(30 if os.path.exists('slow') "
            "else 0); raise SystemExit(1)\\\"\"")
    assert ralph.run("start", "--until", slow).ret == 0
    ralph.makefile("slow", "")
    result = answer(stop(ralph))
    assert result.get("decision") is None
    assert "time budget" in result["systemMessage"]
    assert result_took_less_than(ralph, 8)
    assert "time budget" in (ralph.path / ".ralph" / "hook.log").read_text()


def result_took_less_than(ralph: Ralph, seconds: float) -> bool:
    history = (ralph.path / ".ralph" / "history.jsonl").read_text().splitlines()
    return float(json.loads(history[-1])["duration_s"]) < seconds


def test_a_run_session_is_not_driven_by_the_hook(ralph: Ralph) -> None:
    (ralph.path / ".ralph").mkdir()
    (ralph.path / ".ralph" / "state.json").write_text(json.dumps(
        {"session": "x", "status": "running", "agent": "claude", "iteration": 1}))
    assert stop(ralph).out == ""


def test_start_when_everything_passes_already(ralph: Ralph) -> None:
    ralph.makefile("done.txt", "")
    assert "passes already" in start(ralph).out
    assert state(ralph)["verdict"]["verdict"] == "complete"
    assert stop(ralph).out == ""


def test_slash_command_takes_the_users_words_verbatim(ralph: Ralph) -> None:
    task = "fix (the) <bug> it's \"quoted\" $HOME; rm -rf / && echo"
    result = ralph.run("slash", stdin=f"start --until {UNTIL} --max-iterations=3 {task}\n")
    assert result.ret == 0, result
    assert "ralph-verify loop started" in result.out
    data = state(ralph)
    assert data["task"] == task and data["max_iterations"] == 3
    assert data["until"][0] == UNTIL
    status = ralph.run("slash", stdin="status\n")
    status.stdout.fnmatch_lines(["*driven by*Stop hook*"])
    assert ralph.run("slash", stdin="cancel").ret == 0
    assert state(ralph)["verdict"]["verdict"] == "cancelled"


HANGING_PLUGIN = '''
import time
from ralph_verify import hookimpl
from ralph_verify.checks.api import Check, Status
from ralph_verify.checks.api import CheckType


class Hang(Check):
    def run(self, ctx):
        if ctx.config.command.name == "hook":
            time.sleep(60)  # Python code that no tool timeout can stop
        return self.result(Status.FAILED, "not yet")


@hookimpl
def ralph_register_checks(registry):
    registry.add(CheckType(name="hang", factory=Hang, help="hangs in the Stop hook"))
'''


def test_a_hook_that_runs_out_of_time_lets_claude_stop(ralph: Ralph) -> None:
    """The watchdog answers just before the agent would kill the hook (hook-timeout), and
    leaves nothing behind: no process a tool started (its timeout is clamped to the
    hook's budget), no work folder in ``$TMPDIR``."""
    ralph.makefile("hangplugin.py", HANGING_PLUGIN)
    # A tool whose child would outlive it: in the hook only (``start`` verifies too).
    ralph.makefile("spawner.sh", "[ -f in-hook ] || exit 0\nsleep 300 &\n"
                                 "echo $! > sleeper.pid\nwait\n")
    ralph.makepyproject("[tool.ralph-verify]\nhook-timeout = 6\n")
    ralph.env["RALPH_VERIFY_PLUGINS"] = "hangplugin"
    temp = own_temp(ralph)
    assert ralph.run_subprocess("start", "--until", 'hang,cmd:"sh spawner.sh"').ret == 0
    (ralph.path / "in-hook").touch()
    payload = {"session_id": "s-1", "hook_event_name": "Stop", "stop_hook_active": False,
               "last_assistant_message": "done"}
    try:
        result = ralph.run_subprocess("hook", "claude-stop", stdin=json.dumps(payload),
                                      timeout=30)
        assert result.ret == 0, result
        assert "time budget" in json.loads(result.out)["systemMessage"]
        assert result.duration < 6
        assert "time budget ran out" in (ralph.path / ".ralph" / "hook.log").read_text()
        assert not (ralph.path / ".ralph" / "lock").exists()
        sleeper = int((ralph.path / "sleeper.pid").read_text())
        assert not pid_alive(sleeper), "the tool's child outlived the hook"
        assert list(temp.iterdir()) == [], "the work folder outlived the hook"
    finally:
        if (ralph.path / "sleeper.pid").exists():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int((ralph.path / "sleeper.pid").read_text()), signal.SIGKILL)


def test_the_hooks_clock_starts_when_the_agent_spawned_it(ralph: Ralph) -> None:
    """A slow start (a loaded machine; here a sitecustomize that sleeps 3 s) is counted:
    the agent's hook-timeout runs from the spawn, not from when ralph-verify is loaded."""
    ralph.makefile("hangplugin.py", HANGING_PLUGIN)
    ralph.makepyproject("[tool.ralph-verify]\nhook-timeout = 6\n")
    ralph.env["RALPH_VERIFY_PLUGINS"] = "hangplugin"
    assert ralph.run_subprocess("start", "--until", "hang").ret == 0
    slow = ralph.path.parent / "slow-start"
    slow.mkdir()
    (slow / "sitecustomize.py").write_text("import time\ntime.sleep(3)\n")
    ralph.env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(slow), str(ralph.path)]))
    payload = {"session_id": "s-1", "hook_event_name": "Stop", "stop_hook_active": False,
               "last_assistant_message": "done"}
    result = ralph.run_subprocess("hook", "claude-stop", stdin=json.dumps(payload), timeout=30)
    assert result.ret == 0, result
    assert "time budget" in json.loads(result.out)["systemMessage"]
    assert 3 < result.duration < 6, result.duration  # 3 s asleep, then 4 s more before


def test_the_calls_per_hour_limit_never_holds_a_stop_hook(ralph: Ralph) -> None:
    """In hook mode the agent's turn has happened when its Stop hook runs: a rate-limit wait
    there would only hold the hook (an hour, past any hook timeout). Each stop answers at once."""
    import os
    import subprocess
    import sys

    ralph.makepyproject("[tool.ralph-verify]\nmax-calls-per-hour = 1\n")
    start(ralph)
    payload = {"session_id": "s-1", "transcript_path": "/nowhere/s-1.jsonl",
               "cwd": str(ralph.path), "hook_event_name": "Stop", "stop_hook_active": False,
               "last_assistant_message": "done"}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX"))}
    for _ in range(3):
        proc = subprocess.run([sys.executable, "-m", "ralph_verify", "hook", "claude-stop"],
                              cwd=ralph.path, input=json.dumps(payload), capture_output=True,
                              text=True, timeout=120, env=env)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["decision"] == "block", proc.stdout
        payload["stop_hook_active"] = True
