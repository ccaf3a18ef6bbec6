"""``run --tasks``: real lists in temporary git projects, worked by ``cmd:`` agents. The
harness, never the agent, decides each task: ticking it off or printing the promise gets
another iteration; a later task that breaks an earlier one's tests is not done until they
pass again; a failed task skips its dependents while independent tasks still run."""

from __future__ import annotations

import json
import signal
import textwrap
from typing import Any

from ralph_verify.testing import Ralph
from tests.loop_helpers import Background, agent, wait_for

ONE = "def one():\n    return 1\n"
TWO = "def two():\n    return 2\n"


def suite_of(name: str, value: int) -> str:
    return (f"from demo_{name} import {name}\n\n\n"
            f"def test_{name}():\n    assert {name}() == {value}\n")


def table(ralph: Ralph) -> dict[str, Any]:
    result = ralph.run("tasks", "status", "--json")
    assert result.ret == 0, result
    data: dict[str, Any] = result.json()
    return data


def rows(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in data["tasks"]}


def project(ralph: Ralph, tasks: str) -> None:
    ralph.makefile("tests/test_one.py", suite_of("one", 1))
    ralph.makefile("tests/test_two.py", suite_of("two", 2))
    ralph.makefile("tasks.toml", textwrap.dedent(tasks))
    ralph.git_init()


def test_ticking_the_task_or_promising_is_no_done_and_a_broken_earlier_task_is_no_done(
        ralph: Ralph) -> None:
    project(ralph, """\
        [defaults]
        max-iterations = 3

        [[task]]
        id = "T1"
        title = "one"
        prompt = "write demo_one.one"
        until = "tests:tests/test_one.py"

        [[task]]
        id = "T2"
        title = "two"
        prompt = "write demo_two.two"
        until = "tests:tests/test_two.py"
        """)
    script = agent(ralph, """\
        T = os.environ["RALPH_TASK_ID"]
        tasks = pathlib.Path("tasks.toml")
        if T == "T1" and N == 1:  # says it is done, without the work
            tasks.write_text(tasks.read_text().replace('title = "one"',
                                                       'title = "one"\\nstatus = "done"'))
            print("<promise>COMPLETE</promise>")
        elif T == "T1":
            pathlib.Path("demo_one.py").write_text(ONE)
        elif N == 1:  # T2's work breaks T1's
            pathlib.Path("demo_two.py").write_text(TWO)
            pathlib.Path("demo_one.py").write_text("def one():\\n    return 0\\n")
        else:
            pathlib.Path("demo_one.py").write_text(ONE)
        """.replace("ONE", repr(ONE)).replace("TWO", repr(TWO)))
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent", script)
    assert result.ret == 0, result
    data = table(ralph)
    assert data["verdict"] == "complete"
    t1, t2 = rows(data)["T1"], rows(data)["T2"]
    assert (t1["status"], t1["iterations"]) == ("done", 2)  # iteration 1 only claimed it
    assert (t2["status"], t2["iterations"]) == ("done", 2)  # iteration 1 broke T1's test
    assert "tests:tests/test_one.py" in t2["gate"]
    assert any("tasks.toml was edited" in note for note in data["notes"])
    # The feedback of T2's second iteration named T1's broken test.
    prompt = (ralph.path / ".ralph/iterations/002/prompt.md").read_text()
    assert "tests/test_one.py::test_one" in prompt and "Task T2: two" in prompt
    log = ralph.git("log", "--format=%s%n%b%x00").split("\x00")
    done = [entry.strip() for entry in log if "Ralph-Task:" in entry]
    assert [entry.splitlines()[0] for entry in done] == ["T2: two", "T1: one"]
    assert "Ralph-Verified: tests:tests/test_two.py,tests:tests/test_one.py" in done[0]
    assert t1["commit"] and ralph.git("log", "-1", "--format=%s", t1["commit"]) == "T1: one\n"


def test_a_failed_task_skips_its_dependents_and_independent_tasks_still_run(
        ralph: Ralph) -> None:
    project(ralph, """\
        [defaults]
        max-iterations = 1

        [[task]]
        id = "A"
        title = "never done"
        until = "tests:tests/test_one.py"

        [[task]]
        id = "B"
        title = "needs A"
        until = "tests:tests/test_two.py"
        depends-on = ["A"]

        [[task]]
        id = "C"
        title = "independent"
        until = "files:c.txt"
        depends-on = []

        [[task]]
        id = "D"
        title = "there already"
        until = "files:tasks.toml"
        depends-on = []
        """)
    script = agent(ralph, """\
        T = os.environ["RALPH_TASK_ID"]
        print("working on", T)
        if T == "C":
            pathlib.Path("c.txt").write_text("c\\n")
        print("<promise>COMPLETE</promise>")
        """)
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent", script, "--json", "out.json")
    assert result.ret == 1, result
    status = {row["id"]: (row["status"], row["iterations"]) for row in table(ralph)["tasks"]}
    assert status == {"A": ("failed", 1), "B": ("skipped", 0), "C": ("done", 1),
                      "D": ("already", 0)}
    out = json.loads((ralph.path / "out.json").read_text())
    assert set(out["tasks"][0]) == {"id", "title", "status", "reason", "iterations",
                                    "cost_usd", "gate", "commit"}
    assert "depends on A, failed" in rows(out)["B"]["reason"]
    shown = ralph.run("tasks", "status")
    assert shown.ret == 0 and "B          skipped" in shown.out


def test_tasks_check_names_the_tasks_whose_checks_pass_already(ralph: Ralph) -> None:
    project(ralph, """\
        [[task]]
        id = "T1"
        until = "tests:tests/test_one.py"

        [[task]]
        id = "T2"
        until = "files:tasks.toml"
        """)
    result = ralph.run("tasks", "check", "tasks.toml")
    assert result.ret == 1, result
    assert "1. T1" in result.out and "2. T2 [todo] T2  after T1" in result.out
    assert "pass already, before any work" in result.out and result.out.rstrip().endswith("T2")
    assert not (ralph.path / ".ralph" / "tasks").exists()


def test_kill_9_mid_list_then_resume_loses_no_done_task(ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", """\
        [defaults]
        keep = "files:tasks.toml"
        max-iterations = 2

        [[task]]
        id = "T1"
        until = "files:one.txt"

        [[task]]
        id = "T2"
        until = "files:two.txt"
        """)
    ralph.git_init()
    calls = ralph.path.parent / "calls.txt"
    hung = ralph.path.parent / "hung"
    script = agent(ralph, f"""\
        T = os.environ["RALPH_TASK_ID"]
        with open({str(calls)!r}, "a") as log:
            log.write(T + "\\n")
        if T == "T1":
            pathlib.Path("one.txt").write_text("1\\n")
        elif not pathlib.Path({str(hung)!r}).exists():
            pathlib.Path({str(hung)!r}).write_text("x")
            time.sleep(120)  # killed with ralph-verify
        else:
            pathlib.Path("two.txt").write_text("2\\n")
        """)
    run = Background(ralph, "run", "--tasks", "tasks.toml", "--agent", script)
    try:
        wait_for(hung.exists, timeout=120, what="T2's first agent run", run=run)
        run.proc.send_signal(signal.SIGKILL)
        assert run.wait() == -signal.SIGKILL
    finally:
        run.kill()
    before = rows(table(ralph))
    assert before["T1"]["status"] == "done" and before["T2"]["status"] == "running"
    assert "task T2 of " in ralph.run("status").out  # the session is one task of the list
    result = ralph.run("run", "--tasks", "tasks.toml", "--resume", "--agent", script)
    assert result.ret == 0, result
    after = rows(table(ralph))
    assert after["T1"] == before["T1"]  # kept as it was: not run again
    assert after["T2"]["status"] == "done"
    assert calls.read_text().split() == ["T1", "T2", "T2"]


def test_on_fail_stop_ends_the_list_at_a_blocked_task(ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", """\
        [defaults]
        keep = "files:tasks.toml"
        on-fail = "stop"
        max-iterations = 3

        [[task]]
        id = "A"
        until = "files:a.txt"
        depends-on = []

        [[task]]
        id = "B"
        until = "files:b.txt"
        depends-on = []
        """)
    ralph.git_init()
    script = agent(ralph, 'print("<promise>BLOCKED: no access to the database</promise>")\n')
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent", script)
    assert result.ret == 1, result
    data = table(ralph)
    assert data["verdict"] == "stopped"
    assert rows(data)["A"]["status"] == "blocked" and rows(data)["A"]["iterations"] == 1
    assert "no access to the database" in rows(data)["A"]["reason"]
    assert rows(data)["B"]["status"] == "todo"


def test_pause_after_a_task_then_resume_and_a_failing_final_check_gets_a_fix_up_task(
        ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", """\
        [defaults]
        keep = "files:tasks.toml"
        final = "files:a.txt,files:final.txt"

        [[task]]
        id = "A"
        until = "files:a.txt"

        [[task]]
        id = "B"
        until = "files:b.txt"
        """)
    ralph.git_init()
    script = agent(ralph, """\
        T = os.environ["RALPH_TASK_ID"]
        pathlib.Path({"A": "a.txt", "B": "b.txt", "FINAL": "final.txt"}[T]).write_text(T)
        """)
    paused = ralph.run("run", "--tasks", "tasks.toml", "--agent", script, "--pause-after-task")
    assert paused.ret == 0, paused
    data = table(ralph)
    assert data["verdict"] == "paused"
    assert [rows(data)[t]["status"] for t in ("A", "B")] == ["done", "todo"]
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent", script, "--resume")
    assert result.ret == 0, result
    data = table(ralph)
    assert data["verdict"] == "complete"
    assert {row["id"]: row["status"] for row in data["tasks"]} == {
        "A": "done", "B": "done", "FINAL": "done"}
    assert (ralph.path / "final.txt").read_text() == "FINAL"


def test_a_dirty_tree_starts_no_agent_and_the_task_waits(ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", """\
        [defaults]
        keep = "files:tasks.toml"

        [[task]]
        id = "T1"
        until = "files:one.txt"
        """)
    ralph.git_init()
    marker = ralph.path.parent / "agent-ran"
    script = agent(ralph, f"pathlib.Path({str(marker)!r}).write_text('x')\n")
    ralph.makefile("notes.txt", "uncommitted\n")
    dirty = ralph.run("run", "--tasks", "tasks.toml", "--agent", script)
    assert dirty.ret == 2 and "uncommitted changes" in dirty.err, dirty
    assert rows(table(ralph))["T1"]["status"] == "todo"
    assert not marker.exists()


def test_only_runs_one_task_whose_dependencies_are_done(ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", """\
        [defaults]
        keep = "files:tasks.toml"

        [[task]]
        id = "A"
        until = "files:a.txt"

        [[task]]
        id = "B"
        until = "files:b.txt"
        """)
    ralph.git_init()
    script = agent(ralph, 'pathlib.Path(os.environ["RALPH_TASK_ID"].lower() + ".txt")'
                          '.write_text("x")\n')
    refused = ralph.run("run", "--tasks", "tasks.toml", "--agent", script, "--only", "B")
    assert refused.ret == 2 and "--only B: it depends on A, not done yet" in refused.err
    first = ralph.run("run", "--tasks", "tasks.toml", "--agent", script, "--only", "A")
    assert first.ret == 0, first
    assert {r["id"]: r["status"] for r in table(ralph)["tasks"]} == {"A": "done", "B": "todo"}
    second = ralph.run("run", "--tasks", "tasks.toml", "--agent", script, "--only", "B")
    assert second.ret == 0, second
    assert {r["id"]: r["status"] for r in table(ralph)["tasks"]} == {"A": "done", "B": "done"}
