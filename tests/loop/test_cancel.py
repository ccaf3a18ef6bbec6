"""Stopping a run: Ctrl-C, ``ralph-verify cancel``, the rate-limit wait; then ``--resume``.

The run goes in a child process (signals are process-wide); its agent starts a
grandchild and hangs, and both must be gone when the run has stopped.
"""

from __future__ import annotations

from ralph_verify.testing import Ralph
from tests.loop_helpers import (
    HANGING_AGENT,
    Background,
    agent,
    history,
    pid_alive,
    state,
    wait_for,
)


def _agent_pids(ralph: Ralph, run: Background) -> list[int]:
    pids = ralph.path / ".ralph" / "pids"
    wait_for(lambda: pids.is_file() and pids.read_text().strip(), what="the agent's pids",
             run=run)
    return [int(pid) for pid in pids.read_text().split()]


def test_ctrl_c_kills_the_agent_group_and_records_cancelled(ralph: Ralph) -> None:
    ralph.git_init()
    run = Background(ralph, "run", "--agent", agent(ralph, HANGING_AGENT), "--until",
                     "files:done.txt", "write done.txt")
    try:
        pids = _agent_pids(ralph, run)
        status = ralph.run("status")
        status.stdout.fnmatch_lines([f"session * · running (pid {run.proc.pid}), agent",
                                     "iteration 1/20 · *"])
        run.interrupt()
        assert run.wait() == 130, run.output()
    finally:
        run.kill()
    assert not any(pid_alive(pid) for pid in pids)
    data = state(ralph)
    assert data["verdict"] == {"verdict": "cancelled", "reason": "cancelled by Ctrl-C",
                               "source": "core"}
    assert data["status"] == "finished"
    assert history(ralph)[0]["verdict"]["verdict"] == "cancelled"
    assert "verdict: cancelled — cancelled by Ctrl-C" in run.output()
    assert not (ralph.path / ".ralph" / "lock").exists()


def test_cancel_from_another_terminal_then_resume(ralph: Ralph) -> None:
    ralph.git_init()
    hanging = agent(ralph, HANGING_AGENT)
    run = Background(ralph, "run", "--agent", hanging, "--until", "files:done.txt",
                     "--max-iterations", "5", "write done.txt")
    try:
        pids = _agent_pids(ralph, run)
        cancelled = ralph.run("cancel")
        assert cancelled.ret == 0, cancelled
        assert "verdict cancelled" in cancelled.out
        assert state(ralph)["verdict"]["reason"].startswith(
            "cancelled by 'ralph-verify cancel' (pid ")  # heard on its socket, not a signal
        assert run.wait() == 130, run.output()
    finally:
        run.kill()
    assert not any(pid_alive(pid) for pid in pids)
    assert state(ralph)["verdict"]["verdict"] == "cancelled"
    assert ralph.run("cancel").ret == 1  # nothing runs any more

    # --resume: same session, settings and plugin state; next iteration is 2.
    session = state(ralph)["session"]
    resumed = ralph.run("run", "--resume")
    assert resumed.ret == 0, resumed
    resumed.stdout.fnmatch_lines(["*resumed after iteration 1*"])
    data = state(ralph)
    assert data["session"] == session and data["iteration"] == 2
    assert [line["iteration"] for line in history(ralph)] == [1, 2]
    assert data["plugin_state"]["budget"]["calls"][0] < data["plugin_state"]["budget"]["calls"][1]
    done = ralph.run("run", "--resume")
    assert done.ret == 2 and f"session {session} is already complete" in done.err
    (ralph.path / ".ralph" / "state.json").unlink()
    nothing = ralph.run("run", "--resume")
    assert nothing.ret == 2 and "nothing to resume: no session in" in nothing.err


def test_rate_limit_waits_with_a_countdown_and_can_be_cancelled(ralph: Ralph) -> None:
    run = Background(ralph, "run", "--agent", agent(ralph, "pass\n"), "--until",
                     "files:done.txt", "--max-calls-per-hour", "1", "-p", "no:breaker", "x")
    try:
        wait_for(lambda: "rate limit: 1 agent calls in the last hour" in run.output(),
                 what="the rate-limit wait", run=run)
        assert ralph.run("cancel").ret == 0
        assert run.wait() == 130, run.output()
    finally:
        run.kill()
    assert "waiting 59m" in run.output()
    assert len(history(ralph)) == 2  # iteration 2 was cancelled while it waited
    assert history(ralph)[1]["agent"] is None
