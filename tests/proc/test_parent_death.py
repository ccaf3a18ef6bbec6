"""Nothing outlives ralph-verify: ``kill -9``, a closed terminal (SIGHUP), many Ctrl-C's.

The run goes in a child process; its agent starts a child and a child that
leaves the process group with ``setsid()``, writes the three pids and hangs.
"""

from __future__ import annotations

import signal
import time

from ralph_verify.testing import Ralph
from tests.loop_helpers import Background, agent, history, own_temp, pid_alive, state, wait_for

#: The first turn: a child, a child in a session of its own, then hang; any later turn
#: (also iteration 1 again, resumed) does the task.
FAMILY_AGENT = """\
if not pathlib.Path(os.environ["RALPH_SESSION_DIR"], "pids").exists():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    escaped = subprocess.Popen([sys.executable, "-c",
                                "import os, time; os.setsid(); time.sleep(120)"])
    time.sleep(0.3)
    pathlib.Path(os.environ["RALPH_SESSION_DIR"], "pids").write_text(
        f"{os.getpid()} {child.pid} {escaped.pid}")
    time.sleep(120)
else:
    pathlib.Path("done.txt").write_text("done")
"""


def _family(ralph: Ralph, run: Background) -> list[int]:
    pids = ralph.path / ".ralph" / "pids"
    wait_for(lambda: pids.is_file() and pids.read_text().strip(), what="the agent's pids",
             run=run)
    family = [int(pid) for pid in pids.read_text().split()]
    assert all(pid_alive(pid) for pid in family)
    time.sleep(1.0)  # the watchdog notes the agent's descendants twice a second
    return family


def _all_gone(pids: list[int], within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while any(pid_alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_kill_9_of_ralph_verify_ends_the_agent_and_resume_continues(ralph: Ralph) -> None:
    ralph.git_init()
    temp = own_temp(ralph)
    run = Background(ralph, "run", "--agent", agent(ralph, FAMILY_AGENT), "--until",
                     "files:done.txt", "--max-iterations", "3", "write done.txt")
    try:
        family = _family(ralph, run)
        run.proc.send_signal(signal.SIGKILL)
        assert run.wait() == -signal.SIGKILL
    finally:
        run.kill()
    alive = [pid for pid in family if pid_alive(pid)]
    assert _all_gone(family), f"still alive 5 s after kill -9: {alive}"
    # The agent's reaper reports on a pipe: a kill -9 leaves no file of it behind.
    assert [p.name for p in temp.iterdir() if "survivors" in p.name] == []
    assert state(ralph)["status"] == "running"  # nobody could write more
    status = ralph.run("status")
    assert status.ret == 0, status
    status.stdout.fnmatch_lines([
        f"session * · dead: the ralph-verify process that ran it (pid {run.proc.pid}) ended "
        "without finishing it (phase *); 'ralph-verify run --resume' continues it"])
    nothing = ralph.run("cancel")
    assert nothing.ret == 1 and nothing.out == (
        f"no run is active in {ralph.path}; session {state(ralph)['session']} was left running "
        "by a run that died: 'ralph-verify run --resume' continues it\n"), nothing
    resumed = ralph.run("run", "--resume")
    assert resumed.ret == 0, resumed
    assert state(ralph)["verdict"]["verdict"] == "complete"
    assert [line["iteration"] for line in history(ralph)] == [1]  # the killed turn, again


def test_sighup_ends_the_run_like_sigterm(ralph: Ralph) -> None:
    ralph.git_init()
    run = Background(ralph, "run", "--agent", agent(ralph, FAMILY_AGENT), "--until",
                     "files:done.txt", "write done.txt")
    try:
        family = _family(ralph, run)
        run.proc.send_signal(signal.SIGHUP)
        assert run.wait() == 130, run.output()
    finally:
        run.kill()
    assert _all_gone(family), [pid for pid in family if pid_alive(pid)]
    data = state(ralph)
    assert data["status"] == "finished"
    assert data["verdict"] == {"verdict": "cancelled", "reason": "cancelled by SIGHUP",
                               "source": "core"}
    assert not (ralph.path / ".ralph" / "lock").exists()


def test_five_quick_ctrl_c_still_end_cleanly(ralph: Ralph) -> None:
    ralph.git_init()
    run = Background(ralph, "run", "--agent", agent(ralph, FAMILY_AGENT), "--until",
                     "files:done.txt", "write done.txt")
    try:
        family = _family(ralph, run)
        for _ in range(5):
            run.interrupt()
            time.sleep(0.02)
        assert run.wait() == 130, run.output()
    finally:
        run.kill()
    assert _all_gone(family), [pid for pid in family if pid_alive(pid)]
    data = state(ralph)
    assert data["status"] == "finished"
    assert data["verdict"]["reason"] == "cancelled by Ctrl-C"
    assert history(ralph)[0]["verdict"]["verdict"] == "cancelled"
    assert "Traceback" not in run.output()
