"""The task file: one loader, one validation; every mistake is exit 2 naming the task, the
key and the fix, before any agent runs; the order of the tasks."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ralph_verify.errors import UsageError
from ralph_verify.tasks.model import load_task_file
from ralph_verify.tasks.order import dependents, next_ready, ordered
from ralph_verify.tasks.prompt import learnings
from ralph_verify.testing import Ralph
from tests.loop_helpers import agent


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tasks.toml"
    path.write_text(textwrap.dedent(text))
    return path


CHAIN = """\
    [defaults]
    max-iterations = 4
    final = "tests"

    [[task]]
    id = "T1"
    title = "Parse durations"
    prompt = "Add parse()."
    until = "tests:tests/test_duration.py,lint"

    [[task]]
    id = "T2"
    title = "Use parse()"
    prompt-file = "T2.md"
    until = ["tests:tests/test_cli.py::test_timeout"]
    notes = "keep the old flag"
    max-iterations = 2

    [[task]]
    id = "T3"
    title = "Optional"
    until = "promise"
    status = "skip"

    [[task]]
    id = "T4"
    title = "Last"
    until = "tests:tests/test_last.py>=2"
"""


def test_a_list_without_depends_on_is_a_chain(tmp_path: Path) -> None:
    (tmp_path / "T2.md").write_text("Use parse() for --timeout.\n")
    tasks = load_task_file(write(tmp_path, CHAIN))
    t1, t2, t3, t4 = tasks.tasks
    assert [t.id for t in ordered(tasks)] == ["T1", "T2", "T3", "T4"]
    assert tasks.dependencies(t2) == ("T1",)
    assert tasks.dependencies(t4) == ("T2",)  # a skipped task does not hold the chain
    assert t2.prompt == "Use parse() for --timeout.\n" and t2.notes == "keep the old flag"
    assert t1.max_iterations == 4 and t2.max_iterations == 2
    assert t4.until[0].arg == "tests/test_last.py" and t4.until[0].threshold == 2
    assert t3.promise_only and [s.text for s in tasks.keep] == ["tests:new"]
    assert next_ready(tasks, {"T1": "todo"}) is t1
    assert next_ready(tasks, {"T1": "done", "T2": "todo"}) is t2
    assert next_ready(tasks, {"T1": "failed", "T2": "todo", "T4": "todo"}) is None
    assert dependents(tasks, "T1") == ["T2", "T3", "T4"]


def test_declared_dependencies_alone_count(tmp_path: Path) -> None:
    tasks = load_task_file(write(tmp_path, """\
        [[task]]
        id = "A"
        until = "lint"
        [[task]]
        id = "B"
        until = "lint"
        depends-on = []
        [[task]]
        id = "C"
        until = "lint"
        depends-on = ["A", "B"]
        """))
    _a, b, c = tasks.tasks
    assert tasks.dependencies(b) == () and tasks.dependencies(c) == ("A", "B")
    assert next_ready(tasks, {"A": "failed", "B": "todo", "C": "todo"}) is b
    assert dependents(tasks, "A") == ["C"]


def test_a_fleet_file_s_fleet_table_still_works(tmp_path: Path) -> None:
    tasks = load_task_file(write(tmp_path, """\
        [fleet]
        until = "tests"
        prompt = "fix it"
        jobs = 2

        [[task]]
        folder = "packages/billing"
        """), own_checks=False)
    (task,) = tasks.tasks
    assert task.id == "packages-billing" and task.folder == "packages/billing"
    assert task.until_text == "tests" and tasks.settings == {"jobs": 2}


def test_the_file_is_frozen_when_read(tmp_path: Path) -> None:
    path = write(tmp_path, '[[task]]\nid = "T1"\nuntil = "lint"\n')
    tasks = load_task_file(path)
    assert not tasks.edited()
    path.write_text(path.read_text().replace("todo", "done") + 'status = "done"\n')
    assert tasks.edited() and tasks.tasks[0].status == "todo"


BAD = {
    "cycle": ('[[task]]\nid = "A"\nuntil = "lint"\ndepends-on = ["B"]\n'
              '[[task]]\nid = "B"\nuntil = "lint"\ndepends-on = ["A"]\n',
              "cycle: A -> B -> A"),
    "unknown dependency": ('[[task]]\nid = "T1"\nuntil = "lint"\n'
                           '[[task]]\nid = "T2"\nuntil = "lint"\ndepends-on = ["T9"]\n',
                           "task T2: depends-on 'T9' is no task of this file"),
    "misspelt key": ('[[task]]\nid = "T1"\nuntil = "lint"\ndepends_on = ["T0"]\n',
                     "task T1: unknown key 'depends_on'; did you mean 'depends-on'?"),
    "misspelt default": ('[defaults]\nmax-iteration = 3\n[[task]]\nid = "T1"\nuntil = "lint"\n',
                         "[defaults]: unknown key 'max-iteration'; did you mean "
                         "'max-iterations'?"),
    "duplicate": ('[[task]]\nid = "T1"\nuntil = "lint"\n[[task]]\nid = "T1"\nuntil = "lint"\n',
                  "two tasks have the id 'T1'"),
    "bad status": ('[[task]]\nid = "T1"\nuntil = "lint"\nstatus = "finished"\n',
                   "task T1: status: input should be 'todo', 'skip' or 'done'"),
    "bad spec": ('[[task]]\nid = "T1"\nuntil = "tests:tests/a.py,,lint"\n', "task T1 until"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_file_is_a_usage_error_naming_the_task_and_the_fix(tmp_path: Path,
                                                                 case: str) -> None:
    text, message = BAD[case]
    with pytest.raises(UsageError) as raised:
        load_task_file(write(tmp_path, text))
    assert message in str(raised.value)


@pytest.mark.parametrize("case", ["cycle", "unknown dependency", "misspelt key"])
def test_run_tasks_refuses_a_bad_file_before_any_agent_runs(ralph: Ralph, case: str) -> None:
    ralph.makefile("tasks.toml", BAD[case][0])
    ralph.git_init()
    marker = ralph.path.parent / "agent-ran"
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent",
                       agent(ralph, f"pathlib.Path({str(marker)!r}).write_text('x')\n"))
    assert result.ret == 2, result
    assert BAD[case][1] in result.err and result.err.startswith("ERROR:")
    assert not marker.exists() and not (ralph.path / ".ralph" / "tasks").exists()


def test_an_unknown_check_is_named_before_anything_runs(ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", '[[task]]\nid = "T1"\nuntil = "tets:tests/a.py"\n')
    result = ralph.run("tasks", "check", "tasks.toml")
    assert result.ret == 2 and "unknown check 'tets'" in result.err
    assert "did you mean 'tests'" in result.err


def test_learnings_are_cut_to_patterns_and_the_last_entry(tmp_path: Path) -> None:
    (tmp_path / "LEARNINGS.md").write_text(
        "## Patterns\n- use parse()\n\n" + "".join(f"## T{n}\n{'x' * 300}\n" for n in range(20))
        + "## T99\nthe last one\n")
    text = learnings(tmp_path, "LEARNINGS.md", budget=1000)
    assert "use parse()" in text and "the last one" in text and "## T5" not in text
    assert learnings(tmp_path, "MISSING.md") == ""
