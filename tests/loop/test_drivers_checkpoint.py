"""Checkpoints and the recovery point, once for each driver (``tests/drivers.py``).

``run`` works on the session branch ``ralph/<session>``; the Stop hook leaves HEAD on the
user's branch and commits each stop's work on the session branch beside it, through a
temporary index. Either way every iteration has its checkpoint commit on the session
branch, the user's branch never moves, and ``recover`` brings back the user's branch tip
and uncommitted work after an agent wrecked them and the loop died.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from ralph_verify.testing import Ralph
from tests.drivers import Driver, Step
from tests.loop_helpers import Background, agent, own_temp, user_state, wait_for


def _user_state(ralph: Ralph) -> str:
    """The user's work (:func:`user_state`), in a project that allows a dirty tree."""
    ralph.makepyproject("[tool.ralph-verify]\nallow-dirty = true\n")
    return user_state(ralph)


def test_each_iteration_is_a_checkpoint_on_the_session_branch(driver: Driver) -> None:
    ralph = driver.ralph
    ralph.git_init()
    main = ralph.git("rev-parse", "main").strip()
    steps: list[Step] = [{"a.txt": "one\n"}, {"a.txt": "two\n", "b.txt": "b\n"},
                         {"done.txt": "ok\n", "b.txt": None}]
    outcome = driver.loop("files:done.txt", steps, "--max-iterations", "5")
    assert outcome.verdict == "complete" and outcome.iterations == 3
    checkpoint = outcome.state["plugin_state"]["checkpoint"]
    branch = checkpoint["branch"]
    assert branch == f"ralph/{outcome.state['session']}"
    commits = checkpoint["commits"]
    assert sorted(commits, key=int) == ["0", "1", "2", "3"] and commits["0"] == main
    history = [json.loads(line) for line in
               (outcome.root / ".ralph/history.jsonl").read_text().splitlines()]
    assert [line["commit"] for line in history] == [commits["1"], commits["2"], commits["3"]]
    assert ralph.git("rev-parse", branch).strip() == commits["3"]
    trees = {1: {"a.txt": "one\n"}, 2: {"a.txt": "two\n", "b.txt": "b\n"},
             3: {"a.txt": "two\n", "done.txt": "ok\n"}}
    for number, files in trees.items():
        sha = commits[str(number)]
        ralph.git("merge-base", "--is-ancestor", sha, branch)  # on the session branch
        subject = ralph.git("log", "-1", "--format=%s", sha).strip()
        assert subject.startswith(f"ralph: iteration {number} — files:done.txt "), subject
        listed = set(ralph.git("ls-tree", "--name-only", sha).split())
        assert listed - {"pyproject.toml"} == set(files), listed  # .ralph/ is never in it
        for name, text in files.items():
            assert ralph.git("show", f"{sha}:{name}") == text
    assert ralph.git("rev-parse", "main").strip() == main  # the user's branch never moved
    status = ralph.run("status").stdout.str()
    assert "4 checkpoint(s)" in status and branch in status


def test_the_recovery_point_restores_the_users_work_after_a_crash(driver: Driver) -> None:
    """The agent resets the user's branch and cleans the tree, then the loop dies (``run``
    is killed mid-turn; the agent session that drives the Stop hook just ends)."""
    ralph = driver.ralph
    own_temp(ralph)  # a killed ralph-verify leaves its work folder behind
    tip = _user_state(ralph)
    wreck = "git checkout -q main && git reset -q --hard HEAD~1 && git clean -fdq"
    if driver.kind == "run":
        marker = ralph.path.parent / "wrecked"
        body = (f"subprocess.run({wreck!r}, shell=True, check=True)\n"
                f"pathlib.Path({str(marker)!r}).write_text('x')\ntime.sleep(60)\n")
        run = Background(ralph, "run", "--agent", agent(ralph, body), "--until",
                         "files:done.txt", "--max-iterations", "3", "go")
        try:
            wait_for(marker.exists, what="the agent's damage", run=run)
        finally:
            run.kill()  # SIGKILL: no clean-up of any kind
        assert "recovery point: your branch main and 2 uncommitted files" in run.output()
    else:
        started = ralph.run("start", "--until", "files:done.txt", "go")
        assert started.ret == 0, started
        assert "recovery point " in ralph.run("status").stdout.str()
        # The agent's turn, cut short: no Stop hook ever comes.
        subprocess.run(wreck, shell=True, check=True, cwd=ralph.path)
    assert ralph.git("rev-parse", "main").strip() != tip  # the damage is real
    assert not (ralph.path / "notes.txt").exists()

    recovered = ralph.run("recover")
    assert recovered.ret == 0, recovered
    recovered.stdout.fnmatch_lines(["recover: *"])
    assert ralph.git("rev-parse", "main").strip() == tip
    assert ralph.git("branch", "--show-current").strip() == "main"
    assert (ralph.path / "app.txt").read_text() == "version 2, not committed\n"
    assert (ralph.path / "notes.txt").read_text() == "my untracked notes\n"


def test_rollback_restores_an_iterations_tree_on_the_session_branch(driver: Driver) -> None:
    ralph = driver.ralph
    ralph.git_init()
    main = ralph.git("rev-parse", "main").strip()
    outcome = driver.loop("files:done.txt", [{"a.txt": "one\n"}, {"a.txt": "two\n"}],
                          "--branch-prefix", "agent/")
    assert outcome.verdict == "max-iterations"
    branch = outcome.state["plugin_state"]["checkpoint"]["branch"]
    assert branch == f"agent/{outcome.state['session']}"
    if driver.kind == "hook":
        # HEAD is on main, the agent's work uncommitted in the tree (as on the branch's tip):
        # rollback commits only on the session branch, so it refuses until one switches.
        refused = ralph.run("rollback", "1")
        assert refused.ret == 2 and f"'git switch {branch}' first" in refused.err, refused
        ralph.git("switch", "-q", "-f", branch)  # the tree is its tip: nothing lost
    assert ralph.git("branch", "--show-current").strip() == branch
    result = ralph.run("rollback", "1")
    assert result.ret == 0, result
    assert (ralph.path / "a.txt").read_text() == "one\n"
    assert ralph.git("log", "-1", "--format=%s").startswith("ralph: rollback to iteration 1")
    assert ralph.git("rev-parse", "main").strip() == main


def test_no_commit_leaves_no_checkpoints(driver: Driver) -> None:
    ralph = driver.ralph
    ralph.git_init()
    head = ralph.git("rev-parse", "HEAD").strip()
    outcome = driver.loop("files:done.txt", [{"a.txt": "one\n"}], "--no-commit")
    assert outcome.verdict == "max-iterations"
    assert ralph.git("rev-parse", "HEAD").strip() == head
    assert not outcome.state["plugin_state"]["checkpoint"]["commits"].get("1")
    assert (ralph.path / "a.txt").read_text() == "one\n"  # the work stays in the tree


#: A check that passes once done.txt exists; while ../hold exists it says so and waits.
SLOW_CHECK = """\
import pathlib, sys, time
if pathlib.Path("../hold").exists():
    pathlib.Path("../checking").write_text("x")
while pathlib.Path("../hold").exists():
    time.sleep(0.05)
sys.exit(0 if pathlib.Path("done.txt").exists() else 1)
"""


def test_a_loop_killed_mid_iteration_goes_on_and_loses_no_work(driver: Driver) -> None:
    """SIGKILL while the checks run (``run``, or one Stop hook call); the loop goes on
    (``run --resume``, or the next stop) and the killed iteration's work is committed."""
    ralph = driver.ralph
    own_temp(ralph)  # a killed ralph-verify leaves its work folder behind
    ralph.git_init()
    (ralph.path.parent / "slow.py").write_text(SLOW_CHECK)
    until = f'files:done.txt,cmd:"{sys.executable} ../slow.py"'
    hold, checking = ralph.path.parent / "hold", ralph.path.parent / "checking"
    resumed = ralph.path.parent / "resumed"
    if driver.kind == "run":
        body = (f"if pathlib.Path({str(resumed)!r}).exists():\n"
                "    pathlib.Path('done.txt').write_text('work')\n"
                "else:\n    pathlib.Path('a.txt').write_text('work')\n"
                f"    pathlib.Path({str(hold)!r}).write_text('x')\n")
        command = ["run", "--agent", agent(ralph, body), "--until", until,
                   "--max-iterations", "1", "go"]
    else:
        started = ralph.run("start", "--until", until, "--max-iterations", "3", "go")
        assert started.ret == 0, started
        (ralph.path / "a.txt").write_text("work")
        hold.write_text("x")
        command = ["hook", "claude-stop"]
    payload = json.dumps({"session_id": "s-1", "hook_event_name": "Stop",
                          "cwd": str(ralph.path), "stop_hook_active": False,
                          "last_assistant_message": "done"})
    proc = subprocess.Popen([sys.executable, "-m", "ralph_verify", *command], cwd=ralph.path,
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={**os.environ, **ralph.env})
    try:
        assert proc.stdin is not None
        proc.stdin.write(payload.encode())
        proc.stdin.close()
        wait_for(checking.exists, what="the checks to run")
    finally:
        proc.kill()
        proc.wait()
        hold.unlink(missing_ok=True)  # the orphaned check ends
    resumed.write_text("x")
    if driver.kind == "run":
        result = ralph.run("run", "--resume")
    else:
        (ralph.path / "done.txt").write_text("work")
        result = ralph.run("hook", "claude-stop", stdin=payload)
    assert result.ret == 0, result
    data = json.loads((ralph.path / ".ralph/state.json").read_text())
    assert data["verdict"]["verdict"] == "complete", data["verdict"]
    assert data["iteration"] == 1  # the killed iteration was never recorded: it runs again
    branch = data["plugin_state"]["checkpoint"]["branch"]
    assert ralph.git("show", f"{branch}:a.txt") == "work"  # the killed iteration's work
    assert ralph.git("show", f"{branch}:done.txt") == "work"
