"""``run --tasks``: real lists in temporary git projects, worked by ``cmd:`` agents. The
rules both drivers share (ticking a task off or promising is no done, a broken earlier task
is no done, a failed task skips its dependents) are tested under both in
``tests/tasks/test_tasks_drivers.py``; here what is ``run``'s own: resume, pause, ``--only``."""

from __future__ import annotations

import textwrap
from typing import Any

from ralph_verify.testing import Ralph
from tests.loop_helpers import agent, kill_nine_when


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
    kill_nine_when(ralph, hung, "T2's first agent run", "run", "--tasks", "tasks.toml", "--agent",
                   script)
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
