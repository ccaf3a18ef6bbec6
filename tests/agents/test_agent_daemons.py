"""The processes an agent starts end with its turn, daemons included (issue 23, item 5).

A ``cmd:`` agent leaves daemons every way a shell can: ``setsid``, a double fork, ``nohup
... &``, with its environment wiped (``env -i``: the mark ralph-verify puts in it is gone),
and one that ignores SIGTERM. After the iteration none is left, found by reading ``/proc``
itself; a process of the user's, started outside the run, is untouched. The run goes in a
PID namespace of its own (``unshare --fork --pid --mount-proc``), as the forged-lock tests.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from tests.loop_helpers import own_temp

#: A daemon: detaches as KIND says, writes its pid to FOLDER/KIND, then sleeps.
DAEMON = """\
import os, pathlib, signal, sys, time
token, kind, folder = sys.argv[1:4]
if kind == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if kind == "forked-twice":
    if os.fork():
        os._exit(0)
    os.setsid()
    if os.fork():
        os._exit(0)
pathlib.Path(folder, kind).write_text(str(os.getpid()))
time.sleep(300)
"""

KINDS = ("setsid", "subshell", "nohup", "wiped-env", "wiped-env-subshell", "stubborn",
         "forked-twice")

#: Runs as pid 1 of the namespace: the user's own sleep, then the run; then /proc.
NAMESPACE_SCRIPT = """\
import json, os, subprocess, sys, time
project, agent, token, folder, timeout = sys.argv[1:6]
user = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", token + "-user"])
run = subprocess.run([sys.executable, "-m", "ralph_verify", "run", "--agent", agent,
                      "--until", "files:done.txt", "--max-iterations", "1", "--agent-timeout",
                      timeout, "start daemons"],
                     cwd=project, capture_output=True, text=True, timeout=240,
                     env=dict(os.environ, RALPH_VERIFY_SANDBOX="off"))
left = []
for name in os.listdir("/proc"):
    if not name.isdigit() or int(name) == os.getpid():
        continue
    try:
        command = open(f"/proc/{name}/cmdline", "rb").read()
        state = open(f"/proc/{name}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        continue
    if token.encode() in command and state != "Z":
        left.append(command.replace(b"\\0", b" ").decode())
pids = {kind: int(open(os.path.join(folder, kind)).read()) for kind in os.listdir(folder)}
print(json.dumps({"ret": run.returncode, "out": run.stdout[-3000:], "err": run.stderr[-3000:],
                  "left": left, "pids": pids, "user_alive": user.poll() is None}))
user.kill()
user.wait()
"""


def _in_new_pid_namespace(argv: list[str], cwd: Path,
                          temp: Path | None = None) -> subprocess.CompletedProcess[str]:
    unshare = shutil.which("unshare")
    assert unshare is not None, "these tests need unshare (util-linux): apt-get install util-linux"
    user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    env = {**os.environ, **({"TMPDIR": str(temp)} if temp is not None else {})}
    return subprocess.run([unshare, *user, "--fork", "--pid", "--mount-proc", *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=300, start_new_session=True,
                          env=env)


@pytest.mark.parametrize("end", ["exits", "times-out"])
def test_daemons_the_agent_detaches_end_with_its_turn(ralph: Ralph, end: str) -> None:
    """The agent exits (its reaper ends what is left), or hangs and is killed at its
    timeout (with everything in its reaper's tree)."""
    ralph.git_init()
    token = f"ralph-daemon-{uuid.uuid4().hex[:12]}"
    folder = ralph.path.parent / "pids"
    folder.mkdir()
    daemon = ralph.path.parent / "daemon.py"
    daemon.write_text(DAEMON)
    py, script, where = (shlex.quote(str(p)) for p in (sys.executable, daemon, folder))
    start = f"{script} {token}"
    agent = ralph.path.parent / "agent.sh"
    agent.write_text(f"""\
setsid {py} {start} setsid {where} &
( {py} {start} subshell {where} & )
nohup {py} {start} nohup {where} >/dev/null 2>&1 &
setsid env -i {py} {start} wiped-env {where} &
( setsid env -i {py} {start} wiped-env-subshell {where} & )
( setsid {py} {start} stubborn {where} & )
{py} {start} forked-twice {where}
for i in $(seq 200); do [ $(ls {where} | wc -l) -ge {len(KINDS)} ] && break; sleep 0.05; done
echo done > done.txt
{"sleep 300" if end == "times-out" else ""}
""")
    runner = ralph.path.parent / "namespace.py"
    runner.write_text(NAMESPACE_SCRIPT)
    temp = own_temp(ralph)
    done = _in_new_pid_namespace(
        [sys.executable, str(runner), str(ralph.path), f"cmd:sh {shlex.quote(str(agent))}",
         token, str(folder), "4" if end == "times-out" else "600"], ralph.path, temp)
    assert done.returncode == 0, done.stderr
    # The reaper reports on a pipe: no file of it is left in the temporary folder (one was,
    # for every ralph-verify killed with kill -9 while an agent ran).
    assert [p.name for p in temp.iterdir() if "survivors" in p.name] == []
    seen = json.loads(done.stdout)
    assert seen["ret"] == 0, seen  # done.txt was written before the agent hung
    record = json.loads((ralph.path / ".ralph" / "history.jsonl").read_text().splitlines()[0])
    assert record["agent"]["timed_out"] is (end == "times-out"), record
    assert sorted(seen["pids"]) == sorted(KINDS), seen  # every daemon did start
    # Only the user's own is left.
    assert seen["left"] == [f"{sys.executable} -c import time; time.sleep(300) {token}-user "], \
        seen
    assert seen["user_alive"], seen
    log = (ralph.path / ".ralph" / "iterations" / "001" / "agent.log").read_text()
    assert "could not be ended" not in log


def test_a_process_that_could_not_be_ended_is_named() -> None:
    """What the reaper reports and is still alive is named in the agent's line; one that
    ended since is not."""
    from ralph_verify.agents import AgentResult
    from ralph_verify.loop.records import agent_record, agent_text
    from ralph_verify.proc.process import read_survivors

    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    try:
        read_end, write_end = os.pipe()
        os.write(write_end, f"{alive.pid}\tpython -c sleep\n{gone.pid}\tpython -c pass\n"
                 .encode())
        os.close(write_end)
        survivors = read_survivors(read_end)
        assert survivors == [f"pid {alive.pid} (python -c sleep)"]
        with pytest.raises(OSError):
            os.fstat(read_end)  # read_survivors closed it
    finally:
        alive.kill()
        alive.wait()
    result = AgentResult(exit_code=0, duration_s=1.0, survivors=survivors)
    assert agent_text(result) == (f"exit 0 in 1s; 1 process it started could not be ended: "
                                  f"pid {alive.pid} (python -c sleep)")
    record = agent_record(result)
    assert record is not None and record.survivors == survivors


#: Runs as pid 1 of the namespace: ATTEMPTS times, a SIGTERM reaches the main thread just as
#: the agent's process exists (as the fleet's cost stop can), under the run's signal handling;
#: then lists the processes of the agent (their command line has TOKEN) still alive.
STOPPED_AS_IT_STARTS = """\
import json, os, signal, sys, threading
from pathlib import Path
from ralph_verify.agents.runner import OutputSink, run_agent_process
from ralph_verify.proc.signals import cancel_on_signals

token, folder, attempts = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
children = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def stop_when_started(main, before):
    while not set(children.read_text().split()) - before:
        pass
    signal.pthread_kill(main, signal.SIGTERM)


stopped = 0
for attempt in range(attempts):
    stopper = threading.Thread(target=stop_when_started,
                               args=(threading.get_ident(), set(children.read_text().split())))
    with cancel_on_signals(lambda name: True):
        stopper.start()
        try:
            run_agent_process([sys.executable, "-c", "import time; time.sleep(120)", token],
                              cwd=folder, env=os.environ,
                              sink=OutputSink(folder / f"agent-{attempt}.log"), timeout=300,
                              cancel=threading.Event())
        except KeyboardInterrupt:
            stopped += 1
        stopper.join()
left = []
for name in os.listdir("/proc"):
    try:
        command = open(f"/proc/{name}/cmdline", "rb").read()
        state = open(f"/proc/{name}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        continue
    if name.isdigit() and int(name) != os.getpid() and token.encode() in command \
            and state != "Z":
        left.append(command.replace(b"\\0", b" ").decode())
print(json.dumps({"stopped": stopped, "left": left}))
"""


def test_an_agent_stopped_as_it_starts_is_ended(tmp_path: Path) -> None:
    """A SIGTERM (the fleet's cost stop) or Ctrl-C that reached a loop while its agent's
    ``Popen`` waited for the exec was raised inside ``Popen``: the agent ran on with no one
    holding its pid, after its loop and the fleet had ended. It waits until the agent is
    started, then ends it with everything it started."""
    token = f"ralph-stopped-{uuid.uuid4().hex[:12]}"
    script = tmp_path / "stopped.py"
    script.write_text(STOPPED_AS_IT_STARTS)
    done = _in_new_pid_namespace([sys.executable, str(script), token, str(tmp_path), "5"],
                                 tmp_path)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen == {"stopped": 5, "left": []}, seen
