"""Every descendant of a tool dies: on a timeout, at its end, on SIGTERM or SIGHUP to ``check``.

A process that calls ``setsid()`` leaves the tool's process group, so killing
the group misses it; ralph-verify also finds it by parent links and by the mark
every process it starts inherits in its environment.
"""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from tests.loop_helpers import Background, pid_alive, wait_for

#: Starts a child that calls setsid() and a daemon (double fork: its parent exits at once,
#: so it is orphaned), writes both pids to `escapees`, then sleeps (or exits: argv[1]).
ESCAPING_TOOL = """\
import os, subprocess, sys, time
sleeper = "import os, time; os.setsid(); time.sleep(60)"
child = subprocess.Popen([sys.executable, "-c", sleeper])
middle = subprocess.Popen([sys.executable, "-c",
    "import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', %r], "
    "stdout=subprocess.DEVNULL); print(p.pid)" % sleeper], stdout=subprocess.PIPE, text=True)
daemon = int(middle.communicate()[0])
open("escapees", "w").write(f"{child.pid} {daemon}")
time.sleep(0.5)
if sys.argv[1] == "hang":
    time.sleep(60)
"""


def _gone(pids: list[int], within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while any(pid_alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.parametrize("how", ["hang", "exit"])
def test_a_tools_setsid_children_die_on_timeout_and_at_its_end(ralph: Ralph, how: str) -> None:
    tool = ralph.path.parent / "tool.py"
    tool.write_text(ESCAPING_TOOL)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(tool))} {how}"
    # 3 s to hang past; the tool that exits gets room to start on a loaded machine
    result = ralph.run_subprocess("check", "--until", f"cmd:\"{command}\"",
                                  "--timeout", "3" if how == "hang" else "60")
    escapees = [int(pid) for pid in (ralph.path / "escapees").read_text().split()]
    if how == "hang":
        assert result.ret == 3, result
        assert "timed out after 3s and was killed" in result.out, result
    else:
        assert result.ret == 0, result
    alive = [pid for pid in escapees if pid_alive(pid)]
    assert _gone(escapees), f"left running: {alive}"


SLOW_TEST = """\
import os, pathlib, time


def test_slow():
    pathlib.Path(os.environ["PIDS_FILE"]).write_text(str(os.getpid()))
    time.sleep(60)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_to_check_ends_pytest_and_removes_temp_folders(ralph: Ralph, tmp_path: Path,
                                                                 sig: signal.Signals) -> None:
    ralph.makepyfile(test_slow=SLOW_TEST)
    temp = tmp_path / "tmp"
    temp.mkdir()
    pids = tmp_path / "pytest.pid"
    ralph.env.update(TMPDIR=str(temp), PIDS_FILE=str(pids))
    run = Background(ralph, "check", "--until", "tests")
    try:
        wait_for(lambda: pids.is_file() and pids.read_text(), what="pytest's test", run=run)
        assert [p.name for p in temp.iterdir() if p.name.startswith("ralph-verify-")]
        run.proc.send_signal(sig)
        assert run.wait() == 130, run.output()
    finally:
        run.kill()
    assert f"ralph-verify: interrupted ({sig.name})" in run.output()
    assert _gone([int(pids.read_text())]), "pytest is still running"
    assert [p.name for p in temp.iterdir() if p.name.startswith("ralph-verify-")] == []


#: Two tools side by side, each leaving a setsid() child and a daemon, both orphaned (the
#: tool exits): ending one tool's family ends its two and none of the other's. Run in a
#: process of its own: it becomes the subreaper, as ``check`` does.
SIDE_BY_SIDE = """\
import os, subprocess, sys, time
from ralph_verify.proc import info, process
info.become_subreaper()
if sys.argv[1] == "scan":
    info._children_listed = False  # a kernel without children lists: every process is read
escaping = open(sys.argv[2]).read()
tools = []
for _ in range(2):
    env, mark = process.marked_env(None)
    leader = subprocess.Popen([sys.executable, sys.argv[2], "exit"], env=env, cwd=sys.argv[3],
                              **process.own_process_group())
    leader.wait()
    pids = [int(pid) for pid in open(os.path.join(sys.argv[3], "escapees")).read().split()]
    tools.append((leader.pid, mark, pids))

def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False

def settled(pids, want):
    deadline = time.monotonic() + 5
    while any(alive(pid) != want for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [alive(pid) for pid in pids]

(first, first_mark, first_pids), (second, second_mark, second_pids) = tools
assert settled(first_pids + second_pids, True) == [True] * 4
info.kill_family(first, first_mark)
print(settled(first_pids, False), settled(second_pids, True))
info.kill_family(second, second_mark)
print(settled(second_pids, False))
"""


@pytest.mark.parametrize("how", ["children lists", "scan"])
def test_ending_one_tools_family_leaves_the_other_tools_alone(tmp_path: Path, how: str) -> None:
    tool = tmp_path / "tool.py"
    tool.write_text(ESCAPING_TOOL)
    script = tmp_path / "side_by_side.py"
    script.write_text(SIDE_BY_SIDE)
    proc = subprocess.run([sys.executable, str(script), how.split()[0], str(tool),
                           str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["[False, False] [True, True]", "[False, False]"]
