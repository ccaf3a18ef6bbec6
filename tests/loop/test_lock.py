"""``.ralph/lock``: one holder at a time, and ``cancel`` signals only a proven run.

Anyone can write the lock file (an agent, a cloned repository), so its pid is
data. The forged-lock tests run ``cancel`` inside a fresh PID namespace
(``unshare --fork --pid --mount-proc``): without the fix, ``"pid": -1`` would
signal every process on the machine, not only those of the namespace.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from tests.loop_helpers import HANGING_AGENT, Background, agent, wait_for

#: Runs as pid 1 of a new PID namespace: forges locks naming -1, 0, 1, a live `sleep`
#: (also with that sleep's real start time and command line copied in), and a dead pid;
#: runs `ralph-verify cancel` on each and reports who got signalled.
_NAMESPACE_SCRIPT = """\
import json, os, signal, socket, subprocess, sys
from pathlib import Path

signalled = []
signal.signal(signal.SIGTERM, lambda *_: signalled.append("SIGTERM"))
project = Path(sys.argv[1])
lock = project / ".ralph" / "lock"
lock.parent.mkdir(exist_ok=True)
dead = subprocess.Popen(["true"])
dead.wait()
results = {}
for case in ("-1", "0", "1", "sleep", "sleep-identity", "dead", "-1@elsewhere",
             "0@elsewhere"):
    sleeper = subprocess.Popen(["sleep", "60"])
    name, _, host = case.partition("@")
    pid = {"sleep": sleeper.pid, "sleep-identity": sleeper.pid, "dead": dead.pid}.get(
        name, int(name) if name.lstrip("-").isdigit() else 0)
    forged = {"pid": pid, "host": host or socket.gethostname(), "session": "forged",
              "started_at": "2020-01-01T00:00:00Z"}
    if case == "sleep-identity":  # a careful forger copies what /proc shows
        stat = Path(f"/proc/{pid}/stat").read_text()
        forged["start_time"] = stat[stat.rfind(")") + 2:].split()[19]
        forged["cmdline"] = ["sleep", "60"]
    lock.write_text(json.dumps(forged))
    proc = subprocess.run([sys.executable, "-m", "ralph_verify", "cancel", "--wait", "1"],
                          cwd=project, capture_output=True, text=True, timeout=120)
    results[case] = {"pid": pid, "ret": proc.returncode, "err": proc.stderr.strip(),
                     "out": proc.stdout.strip(), "sleep_alive": sleeper.poll() is None,
                     "pid1_signalled": bool(signalled)}
    signalled.clear()
    sleeper.kill()
    sleeper.wait()
print(json.dumps(results))
"""


def _in_new_pid_namespace(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` as pid 1 of a fresh PID namespace (root: as is; otherwise with a user
    namespace mapping us to root), in a session of its own: a process group spans PID
    namespaces, so a signal to "pid 0" (the caller's group) must not reach pytest."""
    unshare = shutil.which("unshare")
    assert unshare is not None, "these tests need unshare (util-linux): apt-get install util-linux"
    user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    return subprocess.run([unshare, *user, "--fork", "--pid", "--mount-proc", *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=300, start_new_session=True)


def test_cancel_signals_nothing_a_forged_lock_names(ralph: Ralph) -> None:
    script = ralph.path.parent / "forge.py"
    script.write_text(_NAMESPACE_SCRIPT)
    done = _in_new_pid_namespace([sys.executable, str(script), str(ralph.path)], ralph.path)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    for case in ("-1", "0", "1", "sleep", "sleep-identity"):
        seen = results[case]
        assert seen["sleep_alive"] and not seen["pid1_signalled"], (case, seen)
        assert seen["ret"] == 2, (case, seen)
        assert seen["err"] == (
            f"ERROR: the lock names pid {seen['pid']}, which is not a ralph-verify run of this "
            f"project; remove {ralph.path / '.ralph' / 'lock'} if no run is active"), seen
    # Another host's run (a shared folder) cannot be checked from here: never signalled.
    for case in ("-1@elsewhere", "0@elsewhere"):
        seen = results[case]
        assert seen["sleep_alive"] and not seen["pid1_signalled"], (case, seen)
        assert seen["ret"] == 1 and seen["err"] == (
            f"ERROR: the run on host elsewhere (pid {seen['pid']}) did not stop within the "
            "wait; 'ralph-verify cancel' on host elsewhere stops it"), (case, seen)
    # A lock naming a process that is gone: nothing runs.
    assert results["dead"]["ret"] == 1 and results["dead"]["out"] == (
        f"no run is active in {ralph.path}"), results["dead"]


def test_a_real_run_is_cancelled_and_the_lock_records_who_it_is(ralph: Ralph) -> None:
    args = ["run", "--agent", agent(ralph, HANGING_AGENT), "--until", "files:done.txt",
            "write done.txt"]
    run = Background(ralph, *args)
    try:
        lock = ralph.path / ".ralph" / "lock"
        wait_for(lambda: lock.is_file() and lock.read_text(), what="the lock", run=run)
        data = json.loads(lock.read_text())
        stat = Path(f"/proc/{run.proc.pid}/stat").read_text()
        assert data["pid"] == run.proc.pid and data["host"] == socket.gethostname()
        assert data["start_time"] == stat[stat.rfind(")") + 2:].split()[19]
        assert data["cmdline"] == [sys.executable, "-m", "ralph_verify", *args]
        wait_for(lambda: (ralph.path / ".ralph" / "pids").is_file(), what="the agent", run=run)
        cancelled = ralph.run("cancel")
        assert cancelled.ret == 0, cancelled
        assert run.wait() == 130, run.output()
    finally:
        run.kill()


_RACER = """\
import os, sys, time
from pathlib import Path
from ralph_verify.errors import UsageError
from ralph_verify.loop.state import StateDir

root, start, answers = Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3])
state = StateDir(root)
time.sleep(max(0.0, start - time.time() - 0.02))
while time.time() < start:
    pass
try:
    state.acquire_lock("racer")
except UsageError:
    (answers / str(os.getpid())).write_text("busy")
    print("busy")
else:
    (answers / str(os.getpid())).write_text("held")
    print("held", flush=True)
    # Hold it until every racer has tried: two "held" are then two holders at once.
    deadline = time.monotonic() + 30
    while len(list(answers.iterdir())) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    state.release_lock()
"""


@pytest.mark.parametrize("stale", [False, True], ids=["no-lock", "stale-lock"])
def test_synchronised_runs_never_hold_the_lock_together(ralph: Ralph, stale: bool) -> None:
    """4 processes ask for the lock at the same instant, 6 times: exactly one holds it each
    time (it keeps it until all have tried), also when they all take over a stale lock (the
    race the old unlink-and-create had)."""
    racer = ralph.path.parent / "racer.py"
    racer.write_text(textwrap.dedent(_RACER))
    (ralph.path / ".ralph").mkdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    for trial in range(6):
        if stale:
            (ralph.path / ".ralph" / "lock").write_text(json.dumps(
                {"pid": dead.pid, "host": socket.gethostname(), "session": "old",
                 "started_at": "x"}))
        folder = ralph.path.parent / f"answers-{trial}"
        folder.mkdir()
        start = time.time() + 1.5
        procs = [subprocess.Popen([sys.executable, str(racer), str(ralph.path), str(start),
                                   str(folder)], stdout=subprocess.PIPE, text=True)
                 for _ in range(4)]
        answers = sorted(proc.communicate(timeout=60)[0].strip() for proc in procs)
        assert answers == ["busy", "busy", "busy", "held"], (trial, answers)
        assert not (ralph.path / ".ralph" / "lock").exists()


def test_a_lock_being_taken_is_not_taken_over(ralph: Ralph) -> None:
    """The window the old lock lost in: a run has created the lock file but not yet written
    its details. The file is empty, yet a live process holds it: not stale."""
    (ralph.path / ".ralph").mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time; "
         "fd = os.open('.ralph/lock', os.O_RDWR | os.O_CREAT); fcntl.flock(fd, fcntl.LOCK_EX); "
         "print('held', flush=True); time.sleep(30)"],
        cwd=ralph.path, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        result = ralph.run("run", "--agent", "cmd:true", "--until", "files:x", "task")
    finally:
        holder.kill()
        holder.wait()
    assert result.ret == 2, result
    assert (f"ERROR: another ralph-verify run is working in {ralph.path}; wait for it, or "
            "stop it with 'ralph-verify cancel'") in result.err


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("second", [
    ["run", "--agent", "cmd:true", "--until", "files:x", "another task"],
    ["run", "--resume"],
    ["start", "--until", "files:x", "another task"],
], ids=["run", "resume", "start"])
def test_a_second_session_refused_by_the_lock_leaves_the_running_one_alone(
        ralph: Ralph, second: list[str]) -> None:
    """A second loop started while one works: refused (exit 2) before touching anything;
    every file of the running session (state, history, iterations, the lock) is as it was,
    and the running session still ends with its own verdict."""
    run = Background(ralph, "run", "--agent", agent(ralph, HANGING_AGENT), "--until",
                     "files:done.txt", "write done.txt")
    try:
        wait_for(lambda: (ralph.path / ".ralph" / "pids").is_file(), what="the agent", run=run)
        before = _files(ralph.path / ".ralph")
        assert "state.json" in before and "lock" in before
        refused = ralph.run(*second)
        assert refused.ret == 2, refused
        assert "ERROR: another ralph-verify run (pid " in refused.err, refused
        assert _files(ralph.path / ".ralph") == before
        assert ralph.run("cancel").ret == 0
        assert run.wait() == 130, run.output()
        assert json.loads((ralph.path / ".ralph" / "state.json").read_text())["status"] == \
            "finished"
    finally:
        run.kill()
