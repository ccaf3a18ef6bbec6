"""Task lists under both drivers, ``run --tasks`` and ``start --tasks`` with the Stop hook:
the same rules, the same state, the same tests. The harness, never the agent, decides each
task: ticking it off (in ``tasks.toml``, a ``prd.json`` or a checklist) or printing the
promise gets another iteration; a later task that breaks an earlier one's tests is not done
until they pass again; a failed task skips its dependents while independent tasks run."""

from __future__ import annotations

import json
import textwrap

import pytest

from ralph_verify.testing import Ralph
from tests.drivers import Driver
from tests.task_drivers import run_list

ONE = "def one():\n    return 1\n"
TWO = "def two():\n    return 2\n"
BROKEN_ONE = "def one():\n    return 0\n"
PROMISE = "<promise>COMPLETE</promise>"

#: The same two tasks written for each tool: (file name, text, the text with T1 ticked off).
TOML = textwrap.dedent("""\
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
PRD = {"project": "demo", "userStories": [
    {"id": "T1", "title": "one", "description": "write demo_one.one", "priority": 1,
     "acceptanceCriteria": ["one() returns 1", "until: tests:tests/test_one.py"],
     "passes": False},
    {"id": "T2", "title": "two", "description": "write demo_two.two", "priority": 2,
     "acceptanceCriteria": ["until: tests:tests/test_two.py"], "passes": False}]}
CHECKLIST = textwrap.dedent("""\
    # Fix plan

    - [ ] one
      - write demo_one.one
      - until: tests:tests/test_one.py
    - [ ] two
      - until: tests:tests/test_two.py
    """)
FORMATS = {
    "tasks.toml": (TOML, TOML.replace('title = "one"', 'title = "one"\nstatus = "done"')),
    "prd.json": (json.dumps(PRD, indent=2),
                 json.dumps(PRD, indent=2).replace('"passes": false', '"passes": true', 1)),
    "fix_plan.md": (CHECKLIST, CHECKLIST.replace("- [ ] one", "- [x] one")),
}


def suite_of(name: str, value: int) -> str:
    return (f"from demo_{name} import {name}\n\n\n"
            f"def test_{name}():\n    assert {name}() == {value}\n")


def project(ralph: Ralph, name: str, text: str) -> None:
    ralph.makefile("tests/test_one.py", suite_of("one", 1))
    ralph.makefile("tests/test_two.py", suite_of("two", 2))
    ralph.makefile(name, text)
    ralph.makefile(".gitignore", ".ralph/\n")
    ralph.git_init()


def ignore_fleet(ralph: Ralph) -> None:
    """A fleet's own folder, ``fleet/``, is no change of the project's."""
    ralph.makefile(".gitignore", ".ralph/\nfleet/\n")
    ralph.git("commit", "-q", "-am", "fleet/ ignored")


@pytest.mark.parametrize("name", list(FORMATS))
def test_ticking_the_task_or_promising_is_no_done_and_a_broken_earlier_task_is_no_done(
        driver: Driver, name: str) -> None:
    text, ticked = FORMATS[name]
    project(driver.ralph, name, text)
    outcome = run_list(driver, {
        "T1": [{name: ticked}, {"demo_one.py": ONE}],  # 1: ticked off and promised, no work
        "T2": [{"demo_two.py": TWO, "demo_one.py": BROKEN_ONE},  # 1: breaks T1's test
               {"demo_one.py": ONE}]},
        file=name, says={"T1": [PROMISE], "T2": [PROMISE]})
    assert outcome.turns == ["T1", "T1", "T2", "T2"]
    if driver.kind == "run":
        assert outcome.started.ret == 0, outcome.started
    else:
        assert "task list complete" in outcome.last_answer["systemMessage"]
        assert "decision" not in outcome.last_answer  # the agent may stop: the list is done
    data = outcome.table()
    assert data["verdict"] == "complete"
    assert outcome.status() == {"T1": ("done", 2), "T2": ("done", 2)}
    assert "tests:tests/test_one.py" in outcome.rows()["T2"]["gate"]
    assert any(f"{name} was edited" in note for note in data["notes"])
    # T2's second prompt (run) or block reason (hook) named T1's broken test.
    root = driver.ralph.path
    feedback = (root / ".ralph/iterations/002/prompt.md").read_text()
    assert "tests/test_one.py::test_one" in feedback
    first = (root / ".ralph/iterations/001/prompt.md").read_text()  # hook: the block reason
    assert "Task T2: two" in (feedback if driver.kind == "run" else first)
    log = driver.ralph.git("log", "--all", "--format=%s%n%b%x00").split("\x00")
    done = [entry.strip() for entry in log if "Ralph-Task:" in entry]
    assert [entry.splitlines()[0] for entry in done] == ["T2: two", "T1: one"]
    assert "Ralph-Verified: tests:tests/test_two.py,tests:tests/test_one.py" in done[0]
    t1 = outcome.rows()["T1"]
    assert t1["commit"] and driver.ralph.git("log", "-1", "--format=%s", t1["commit"]) == \
        "T1: one\n"


def test_a_failed_task_skips_its_dependents_and_independent_tasks_still_run(
        driver: Driver) -> None:
    project(driver.ralph, "tasks.toml", textwrap.dedent("""\
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
        """))
    outcome = run_list(driver, {"C": [{"c.txt": "c\n"}]},
                       says={"A": [PROMISE], "C": [PROMISE]})
    assert outcome.turns == ["A", "C"]  # B never started; D cost no agent call
    if driver.kind == "run":
        assert outcome.started.ret == 1, outcome.started
    else:
        assert "task list incomplete" in outcome.last_answer["systemMessage"]
        assert "decision" not in outcome.last_answer
    assert outcome.status() == {"A": ("failed", 1), "B": ("skipped", 0), "C": ("done", 1),
                                "D": ("already", 0)}
    assert outcome.table()["verdict"] == "incomplete"
    assert "depends on A, failed" in outcome.rows()["B"]["reason"]


@pytest.mark.parametrize("driver", ["run", "hook", "fleet"], indirect=True)
def test_a_blocked_task_stays_blocked_and_skips_its_dependents(driver: Driver) -> None:
    project(driver.ralph, "tasks.toml", textwrap.dedent("""\
        [defaults]
        prompt = "the task named by $RALPH_TASK_ID"

        [[task]]
        id = "A"
        until = "files:a.txt"

        [[task]]
        id = "B"
        until = "files:b.txt"
        depends-on = ["A"]

        [[task]]
        id = "C"
        until = "files:c.txt"
        depends-on = []
        """))
    ignore_fleet(driver.ralph)
    outcome = run_list(driver, {"C": [{"c.txt": "c"}]},
                       says={"A": ["<promise>BLOCKED: no access to the database</promise>"]})
    assert outcome.turns == ["A", "C"], outcome.started
    assert outcome.status() == {"A": ("blocked", 1), "B": ("skipped", 0), "C": ("done", 1)}
    rows = outcome.rows()
    assert "no access to the database" in rows["A"]["reason"]
    assert "depends on A, blocked" in rows["B"]["reason"]
    assert outcome.table()["verdict"] == "incomplete"


@pytest.mark.parametrize("driver", ["run", "hook", "fleet"], indirect=True)
@pytest.mark.parametrize("fixed", [True, False])
def test_a_failing_final_check_gets_a_fix_up_task(driver: Driver, fixed: bool) -> None:
    project(driver.ralph, "tasks.toml", textwrap.dedent("""\
        [defaults]
        keep = "files:tasks.toml"
        final = "files:a.txt,files:final.txt"
        prompt = "the task named by $RALPH_TASK_ID"

        [[task]]
        id = "A"
        until = "files:a.txt"
        depends-on = []
        """))
    ignore_fleet(driver.ralph)
    fix_up = [{"final.txt": "F"}] if fixed else []
    outcome = run_list(driver, {"A": [{"a.txt": "A"}], "FINAL": fix_up})
    cap = 1 if fixed else 3  # the fix-up task's iteration cap
    assert outcome.turns == ["A"] + ["FINAL"] * cap, outcome.started
    data = outcome.table()
    assert data["verdict"] == ("complete" if fixed else "final-failed"), data
    assert outcome.status() == {"A": ("done", 1),
                                "FINAL": ("done" if fixed else "failed", cap)}
    assert driver.kind == "hook" or outcome.started.ret == (0 if fixed else 1), outcome.started
    if driver.kind == "fleet":  # the fix-up was merged, and the final check passed after it
        final = json.loads((driver.ralph.path / "fleet/fleet.json").read_text())
        assert final["integration"]["final"]["passed"] is fixed, final["integration"]


#: A task the user skipped, one that depends on it, three that fail, one never reached.
IN_A_ROW = """\
[defaults]
max-iterations = 1
prompt = "the task named by $RALPH_TASK_ID"

[[task]]
id = "S"
until = "files:s.txt"
status = "skip"

[[task]]
id = "E"
until = "files:e.txt"
depends-on = ["S"]

[[task]]
id = "A"
until = "files:never.txt"
depends-on = []

[[task]]
id = "B"
until = "files:never.txt"
depends-on = []

[[task]]
id = "C"
until = "files:never.txt"
depends-on = []

[[task]]
id = "D"
until = "files:d.txt"
depends-on = []
"""


@pytest.mark.parametrize("driver", ["run", "hook", "fleet"], indirect=True)
def test_a_skipped_task_holds_nothing_up_and_three_failures_in_a_row_end_the_list(
        driver: Driver) -> None:
    project(driver.ralph, "tasks.toml", IN_A_ROW)
    ignore_fleet(driver.ralph)
    outcome = run_list(driver, {"E": [{"e.txt": "e"}], "D": [{"d.txt": "d"}]})
    assert outcome.turns == ["E", "A", "B", "C"], outcome.started  # D never ran
    assert outcome.started.ret == 1 or driver.kind == "hook", outcome.started
    data = outcome.table()  # a fleet's tasks too
    assert data["verdict"] == "stopped", data
    assert {row: status for row, (status, _) in outcome.status().items()} == {
        "S": "skipped", "E": "done", "A": "failed", "B": "failed", "C": "failed",
        "D": "not-run" if driver.kind == "fleet" else "todo"}
    said = f"{outcome.started.err}{outcome.last_answer}{data['notes']}"  # run, hook, fleet
    assert "3 tasks failed in a row" in said, said


def test_a_cycle_starts_nothing(driver: Driver) -> None:
    ralph = driver.ralph
    project(ralph, "tasks.toml", textwrap.dedent("""\
        [[task]]
        id = "A"
        until = "files:a.txt"
        depends-on = ["B"]

        [[task]]
        id = "B"
        until = "files:b.txt"
        depends-on = ["A"]
        """))
    command = ("run", "--agent", "cmd:true") if driver.kind == "run" else ("start",)
    refused = ralph.run(*command, "--tasks", "tasks.toml")
    assert refused.ret == 2 and "A -> B -> A" in refused.err, refused
    assert not (ralph.path / ".ralph" / "tasks").exists()


def test_codex_s_stop_hook_works_a_list_through_too(ralph: Ralph) -> None:
    text, ticked = FORMATS["tasks.toml"]
    project(ralph, "tasks.toml", text)
    outcome = run_list(Driver(ralph, "hook"), {
        "T1": [{"tasks.toml": ticked}, {"demo_one.py": ONE}],
        "T2": [{"demo_two.py": TWO}]}, says={"T1": [PROMISE]}, agent_name="codex")
    assert outcome.turns == ["T1", "T1", "T2"]
    assert "task list complete" in outcome.last_answer["systemMessage"]
    assert outcome.status() == {"T1": ("done", 2), "T2": ("done", 1)}
    hook = json.loads((ralph.path / ".ralph/state.json").read_text())["hook"]
    assert hook["agent"] == "codex"
