"""``run --tasks`` around its tasks: ``--squash`` (one commit per task), the learnings file
committed and put in the next task's prompt, the list's default template, ``tasks
rollback``, ``--notify``/``--notify-each-task``, ``--from``, a kill -9 mid-task continued
by ``--resume`` (not started again), and ``tasks status --watch`` -- real lists in
temporary git projects, worked by ``cmd:`` agents."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any

from ralph_verify.loop.prompt import load_template, render
from ralph_verify.testing import Ralph
from tests.loop_helpers import Background, agent, wait_for

CHAIN = """\
[defaults]
keep = "files:tasks.toml"
max-iterations = 3

[[task]]
id = "A"
title = "write a"
until = "files:a.txt"

[[task]]
id = "B"
title = "write b"
until = "files:b.txt"
"""


def rows(ralph: Ralph) -> dict[str, dict[str, Any]]:
    result = ralph.run("tasks", "status", "--json")
    assert result.ret == 0, result
    return {row["id"]: row for row in result.json()["tasks"]}


def test_squash_learnings_notify_each_task_then_rollback_and_resume(ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", CHAIN)
    ralph.git_init()
    notes = ralph.path.parent / "notes.jsonl"
    script = agent(ralph, """\
        T = os.environ["RALPH_TASK_ID"]
        if N == 2:  # the work on the second iteration of each task
            pathlib.Path(T.lower() + ".txt").write_text(T)
            with open("LEARNINGS.md", "a") as notes:
                notes.write(f"## {T}\\nlearned in {T}\\n")
        else:
            pathlib.Path(f"draft-{T}.txt").write_text("draft")
        """)
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent", script, "--squash",
                       "--notify-cmd", f"cat >> {notes}; echo >> {notes}",
                       "--notify-each-task")
    assert result.ret == 0, result
    done = rows(ralph)
    assert [(done[t]["status"], done[t]["iterations"]) for t in "AB"] == [("done", 2)] * 2
    # One commit per task, named after it, holding its learnings.
    subjects = ralph.git("log", "--format=%s").splitlines()
    assert subjects[:2] == ["B: write b", "A: write a"], subjects
    assert not any(s.startswith("ralph: iteration") for s in subjects)
    assert done["B"]["commit"] == ralph.git("rev-parse", "HEAD").strip()
    body = ralph.git("log", "-1", "--format=%B", done["A"]["commit"])
    assert "Ralph-Task: A" in body and "Ralph-Squashed: 2 commits" in body
    files = ralph.git("show", "--name-only", "--format=", done["A"]["commit"]).split()
    assert sorted(files) == ["LEARNINGS.md", "a.txt", "draft-A.txt"]
    # B's prompt: the list's template, A's learnings in it.
    prompt = (ralph.path / ".ralph/iterations/001/prompt.md").read_text()
    assert "# Task B: write b" in prompt and "Work on task B (write b) only." in prompt
    assert "- files:b.txt (this task's own checks)" in prompt
    assert "- [done] A: write a" in prompt and "learned in A" in prompt
    events = [json.loads(line) for line in notes.read_text().split("\n") if line.strip()]
    assert [(e["event"], e.get("task")) for e in events] == [
        ("task-finished", "A"), ("task-finished", "B"), ("task-list-finished", None)]
    assert events[-1]["verdict"] == "complete" and "2 of 2 tasks done" in events[-1]["text"]

    rolled = ralph.run("tasks", "rollback", "B")
    assert rolled.ret == 0, rolled
    assert not (ralph.path / "b.txt").exists() and (ralph.path / "a.txt").exists()
    assert "learned in B" not in (ralph.path / "LEARNINGS.md").read_text()
    after = rows(ralph)
    assert (after["A"]["status"], after["B"]["status"]) == ("done", "todo")
    assert ralph.git("log", "-1", "--format=%s").startswith("ralph: rollback to before task B")
    notes.unlink()
    again = ralph.run("run", "--tasks", "tasks.toml", "--agent", script, "--resume",
                      "--notify-cmd", f"cat >> {notes}; echo >> {notes}")
    assert again.ret == 0, again
    assert rows(ralph)["B"]["status"] == "done" and rows(ralph)["A"] == after["A"]
    events = [json.loads(line) for line in notes.read_text().split("\n") if line.strip()]
    assert [e["event"] for e in events] == ["task-list-finished"]  # not after each task


def test_from_starts_at_a_task_the_list_stays_incomplete_and_status_watch_ends_with_it(
        ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", CHAIN + '\n[[task]]\nid = "C"\nuntil = "files:c.txt"\n')
    ralph.git_init()
    calls = ralph.path.parent / "calls.txt"
    script = agent(ralph, f"""\
        T = os.environ["RALPH_TASK_ID"]
        with open({str(calls)!r}, "a") as log:
            log.write(T + "\\n")
        pathlib.Path(T.lower() + ".txt").write_text(T)
        """)
    unknown = ralph.run("run", "--tasks", "tasks.toml", "--agent", script, "--from", "X")
    assert unknown.ret == 2 and "--from X: no such task" in unknown.err, unknown
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent", script, "--from", "B")
    assert result.ret == 1, result  # A is the user's choice, never done: not complete
    assert "task list: incomplete: A passed over with --from" in result.err
    assert calls.read_text().split() == ["B", "C"]
    table = rows(ralph)
    assert table["A"]["status"] == "skipped"
    assert table["A"]["reason"] == "before --from B: the user's choice, not done"
    watched = ralph.run("tasks", "status", "--watch", "--interval", "0.1")
    assert watched.ret == 1 and "incomplete" in watched.out, watched
    assert watched.out.count("task list ") == 1  # drawn once: nothing changed


def test_kill_9_mid_task_then_resume_continues_that_task(ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", CHAIN)
    ralph.git_init()
    calls = ralph.path.parent / "calls.txt"
    hung = ralph.path.parent / "hung"
    stop = ralph.path.parent / "stop"
    script = agent(ralph, f"""\
        T = os.environ["RALPH_TASK_ID"]
        with open({str(calls)!r}, "a") as log:
            log.write(f"{{T}}{{N}}\\n")
        if T == "A":
            pathlib.Path("a.txt").write_text("a")
        elif N == 1:
            pathlib.Path("b-part1.txt").write_text("half of it")
        elif not pathlib.Path({str(hung)!r}).exists():
            pathlib.Path({str(hung)!r}).write_text("x")
            for _ in range(600):  # until the test says stop (ralph-verify is killed)
                if pathlib.Path({str(stop)!r}).exists():
                    break
                time.sleep(0.1)
            sys.exit(1)
        else:
            pathlib.Path("b.txt").write_text("b")
        """)
    run = Background(ralph, "run", "--tasks", "tasks.toml", "--agent", script)
    try:
        wait_for(hung.exists, timeout=120, what="B's second agent run", run=run)
        run.proc.send_signal(signal.SIGKILL)
        assert run.wait() == -signal.SIGKILL
    finally:
        stop.write_text("x")
        run.kill()
    assert rows(ralph)["B"]["status"] == "running"
    result = ralph.run("run", "--tasks", "tasks.toml", "--resume", "--agent", script)
    assert result.ret == 0, result
    table = rows(ralph)
    assert table["A"]["status"] == "done" and table["B"]["status"] == "done"
    # B went on at its second iteration, on the tree its first one left: not from scratch.
    assert calls.read_text().split() == ["A1", "B1", "B2", "B2"]
    assert table["B"]["iterations"] == 2


def test_the_task_placeholders_are_known_to_a_template_and_empty_outside_a_list(
        tmp_path: Any) -> None:
    template = tmp_path / "t.md"
    template.write_text("{{task_id}}|{{task_title}}|{{acceptance}}|{{tasks}}|{{learnings}}|"
                        "{{task}}")
    text = load_template(str(template), tmp_path)
    assert render(text, {"task": "x"}) == "|||||x\n"
    assert render(text, {"task": "x", "task_id": "T1", "task_title": "one"}).startswith("T1|one|")


def test_ctrl_c_mid_task_then_resume_continues_that_task(ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", CHAIN)
    ralph.git_init()
    calls = ralph.path.parent / "calls.txt"
    waiting = ralph.path.parent / "waiting"
    script = agent(ralph, f"""\
        T = os.environ["RALPH_TASK_ID"]
        with open({str(calls)!r}, "a") as log:
            log.write(f"{{T}}{{N}}\\n")
        if T == "A":
            pathlib.Path("a.txt").write_text("a")
        elif N == 1 and not pathlib.Path({str(waiting)!r}).exists():
            pathlib.Path("b-part1.txt").write_text("half of it")
            pathlib.Path({str(waiting)!r}).write_text("x")
            time.sleep(60)  # interrupted: ralph-verify stops the agent's process group
        else:
            pathlib.Path("b.txt").write_text("b")
        """)
    run = Background(ralph, "run", "--tasks", "tasks.toml", "--agent", script)
    try:
        wait_for(waiting.exists, timeout=120, what="B's first agent run", run=run)
        run.interrupt()
        assert run.wait(timeout=60) == 130, run.output()
    finally:
        run.kill()
    table = rows(ralph)
    assert table["A"]["status"] == "done" and table["B"]["status"] == "todo"
    assert table["B"]["reason"].startswith("cancelled")
    session = json.loads((ralph.path / ".ralph/state.json").read_text())["session"]
    result = ralph.run("run", "--tasks", "tasks.toml", "--resume", "--agent", script)
    assert result.ret == 0, result
    table = rows(ralph)
    assert (table["A"]["status"], table["B"]["status"]) == ("done", "done")
    log = calls.read_text().split()
    assert log[:2] == ["A1", "B1"] and "A1" not in log[2:], log  # A is not run again
    assert (ralph.path / "b-part1.txt").exists()  # B's first iteration's work was kept
    # B's session went on (the same session of the loop), not a new one from scratch.
    assert json.loads((ralph.path / ".ralph/state.json").read_text())["session"] == session


def test_retry_skip_and_reset_between_runs(ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", """\
        [defaults]
        keep = "files:tasks.toml"
        max-iterations = 1

        [[task]]
        id = "A"
        until = "files:a.txt"
        depends-on = []

        [[task]]
        id = "B"
        until = "files:b.txt"
        depends-on = ["A"]

        [[task]]
        id = "C"
        until = "files:c.txt"
        depends-on = []
        """)
    ralph.git_init()
    script = agent(ralph, """\
        T = os.environ["RALPH_TASK_ID"]
        if T != "A":  # A is never done
            pathlib.Path(T.lower() + ".txt").write_text(T)
        """)
    first = ralph.run("run", "--tasks", "tasks.toml", "--agent", script)
    assert first.ret == 1, first
    status = {t: row["status"] for t, row in rows(ralph).items()}
    assert status == {"A": "failed", "B": "skipped", "C": "done"}
    retried = ralph.run("tasks", "retry", "A")
    assert retried.ret == 0 and "A, B now todo" in retried.out, retried
    refused = ralph.run("tasks", "retry", "C")
    assert refused.ret == 2 and "the task is done" in refused.err, refused
    assert ralph.run("tasks", "skip", "A").ret == 0
    table = rows(ralph)
    assert (table["A"]["status"], table["B"]["status"]) == ("skipped", "todo")
    second = ralph.run("run", "--tasks", "tasks.toml", "--agent", script, "--resume")
    assert second.ret == 0, second  # A set aside holds nothing up; the list is complete
    table = rows(ralph)
    assert {t: row["status"] for t, row in table.items()} == {
        "A": "skipped", "B": "done", "C": "done"}
    assert "files:a.txt" not in table["B"]["gate"]
    reset = ralph.run("tasks", "reset", "C")
    assert reset.ret == 0, reset
    assert (rows(ralph)["C"]["status"], rows(ralph)["C"]["commit"]) == ("todo", None)
    unknown = ralph.run("tasks", "reset", "Z")
    assert unknown.ret == 2 and "no such task" in unknown.err and "A, B, C" in unknown.err


def test_status_watch_follows_a_live_list_to_its_end(ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", CHAIN)
    ralph.git_init()
    go = ralph.path.parent / "go"
    script = agent(ralph, f"""\
        T = os.environ["RALPH_TASK_ID"]
        for _ in range(600):  # each task waits for the test's word
            if pathlib.Path({str(go)!r}).exists():
                break
            time.sleep(0.05)
        pathlib.Path(T.lower() + ".txt").write_text(T)
        """)
    run = Background(ralph, "run", "--tasks", "tasks.toml", "--agent", script)
    watch = None
    try:
        wait_for(lambda: (ralph.path / ".ralph/tasks/state.json").exists(), timeout=120,
                 what="the list's state", run=run)
        watch = subprocess.Popen([sys.executable, "-m", "ralph_verify", "tasks", "status",
                                  "--watch", "--interval", "0.1"], cwd=ralph.path,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 env={**os.environ, **ralph.env})
        go.write_text("x")
        assert run.wait(timeout=120) == 0, run.output()
        out, _ = watch.communicate(timeout=60)
        assert watch.returncode == 0, out
    finally:
        run.kill()
        if watch is not None and watch.poll() is None:
            watch.kill()
            watch.wait()
    tables = out.split("task list ")[1:]
    assert len(tables) >= 2, out  # drawn again as it changed
    assert "running A" in out or "running B" in out, out
    assert "complete" in tables[-1] and tables[-1].count(" done ") == 2, out


def test_status_watch_follows_a_running_fleet_to_its_end(ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", CHAIN + 'depends-on = ["A"]\n')
    ralph.makefile(".gitignore", ".ralph/\nfleet/\n")
    ralph.makefile("PROMPT.md", "write the task's file")
    ralph.git_init()
    go = ralph.path.parent / "go"
    script = agent(ralph, f"""\
        for _ in range(600):  # each task waits for the test's word
            if pathlib.Path({str(go)!r}).exists():
                break
            time.sleep(0.05)
        T = os.environ["RALPH_TASK_ID"]
        pathlib.Path(T.lower() + ".txt").write_text(T)
        """)
    fleet = Background(ralph, "fleet", "tasks.toml", "--agent", script, "-j", "1",
                       "--id", "watched", "-P", "PROMPT.md")
    watch = None
    try:
        watch = subprocess.Popen([sys.executable, "-m", "ralph_verify", "tasks", "status",
                                  "--watch", "--interval", "0.1"], cwd=ralph.path,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 env={**os.environ, **ralph.env})
        wait_for(lambda: (ralph.path / "fleet/fleet.json").exists(), timeout=120,
                 what="the fleet's record", run=fleet)
        go.write_text("x")
        assert fleet.wait(timeout=180) == 0, fleet.output()
        out, _ = watch.communicate(timeout=60)
        assert watch.returncode == 0, out
    finally:
        fleet.kill()
        if watch is not None and watch.poll() is None:
            watch.kill()
            watch.wait()
    tables = out.split("task list fleet watched")[1:]
    assert len(tables) >= 2, out  # the fleet's table, drawn again as it changed
    assert any(" running " in table for table in tables[:-1]), out
    last = tables[-1].splitlines()
    assert "complete" in last[0] and [line.split()[:2] for line in last[2:4]] == \
        [["A", "done"], ["B", "done"]], out
