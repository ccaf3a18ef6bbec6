"""Ways a task list could end ``complete`` with work undone, each refused.

- The agent rewrites ``.ralph/tasks/state.json`` (``sed 's/"todo"/"done"/'``): under the
  Stop hook at its next stop, under ``run`` after a kill -9 and ``--resume``. ralph-verify's
  own copy of the state, beside the session's frozen files, decides; the edit is reported.
- A done task whose verifying commit left the branch's history is verified again.
- ``--from T3`` with T1 and T2 not done: they are the user's choice, never done, and the
  list is not complete.
- ``tasks plan`` takes no task whose only check is the agent's word, and ends 1, not 10,
  when its iterations run out.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.tasks.model import from_data
from ralph_verify.tasks.prompt import LIST_BUDGET, task_table
from ralph_verify.testing import Ralph
from tests.drivers import Driver
from tests.loop_helpers import agent, kill_nine_when
from tests.task_drivers import run_list

CHAIN = textwrap.dedent("""\
    [defaults]
    max-iterations = 2

    [[task]]
    id = "T1"
    title = "one"
    until = "tests:tests/test_one.py"

    [[task]]
    id = "T2"
    title = "two"
    until = "tests:tests/test_two.py"

    [[task]]
    id = "T3"
    title = "three"
    until = "tests:tests/test_three.py"
    """)
NAMES = {"one": 1, "two": 2, "three": 3}
FORGE = ['"todo"', '"done"']


def module(name: str) -> str:
    return f"def {name}():\n    return {NAMES[name]}\n"


TEXTS = {name: module(name) for name in NAMES}


def project(ralph: Ralph) -> None:
    for name, value in NAMES.items():
        ralph.makefile(f"tests/test_{name}.py", f"from demo_{name} import {name}\n\n\n"
                       f"def test_{name}():\n    assert {name}() == {value}\n")
    ralph.makefile("tasks.toml", CHAIN)
    ralph.makefile(".gitignore", ".ralph/\n")
    ralph.git_init()


def table(ralph: Ralph) -> dict[str, Any]:
    result = ralph.run("tasks", "status", "--json")
    assert result.ret == 0, result
    data: dict[str, Any] = result.json()
    return data


def statuses(ralph: Ralph) -> dict[str, str]:
    return {row["id"]: row["status"] for row in table(ralph)["tasks"]}


def _forged_then_killed(ralph: Ralph) -> list[str]:
    """``run``: T1's agent marks every todo task done in state.json and hangs; the run is
    killed (-9, as an OOM kill), then resumed. The agent calls, in order."""
    calls = ralph.path.parent / "calls.txt"
    hung = ralph.path.parent / "hung"
    script = agent(ralph, f"""\
        T = os.environ["RALPH_TASK_ID"]
        with open({str(calls)!r}, "a") as log:
            log.write(T + "\\n")
        name = {{"T1": "one", "T2": "two", "T3": "three"}}[T]
        pathlib.Path(f"demo_{{name}}.py").write_text({TEXTS!r}[name])
        if T == "T1" and not pathlib.Path({str(hung)!r}).exists():
            state = pathlib.Path(".ralph/tasks/state.json")
            state.write_text(state.read_text().replace({FORGE[0]!r}, {FORGE[1]!r}))
            pathlib.Path({str(hung)!r}).write_text("x")
            time.sleep(120)  # killed with ralph-verify
        """)
    kill_nine_when(ralph, hung, "T1's forging agent", "run", "--tasks", "tasks.toml", "--agent",
                   script)
    forged = json.loads((ralph.path / ".ralph/tasks/state.json").read_text())
    assert [row["status"] for row in forged["tasks"]] == ["running", "done", "done"]
    resumed = ralph.run("run", "--tasks", "tasks.toml", "--resume", "--agent", script)
    assert resumed.ret == 0, resumed
    return calls.read_text().split()


def test_a_forged_task_state_is_reported_and_never_believed(driver: Driver) -> None:
    ralph = driver.ralph
    project(ralph)
    if driver.kind == "run":
        calls = _forged_then_killed(ralph)
    else:
        outcome = run_list(driver, {
            "T1": [{"demo_one.py": module("one"), "sed:.ralph/tasks/state.json": FORGE}],
            "T2": [{"demo_two.py": module("two")}],
            "T3": [{"demo_three.py": module("three")}]})
        assert "task list complete" in outcome.last_answer["systemMessage"], outcome
        calls = outcome.turns
    assert calls[-2:] == ["T2", "T3"]  # the forged "done" tasks were worked on all the same
    data = table(ralph)
    assert data["verdict"] == "complete"
    assert statuses(ralph) == {"T1": "done", "T2": "done", "T3": "done"}
    assert any("state.json was not as ralph-verify wrote it" in note
               for note in data["notes"])


def test_a_done_task_whose_commit_left_the_history_or_a_forged_session_is_not_done(
        ralph: Ralph) -> None:
    project(ralph)
    script = agent(ralph, f"""\
        T = os.environ["RALPH_TASK_ID"]
        if T == "T1":
            pathlib.Path("demo_one.py").write_text({module('one')!r})
        """)
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent", script,
                       "--pause-after-task")
    assert result.ret == 0 and statuses(ralph)["T1"] == "done", result
    path = ralph.path / ".ralph/tasks/state.json"
    genuine = path.read_text()
    # ralph-verify's own copy is missing for a session the agent named itself.
    data = json.loads(genuine.replace('"todo"', '"done"'))
    data["session"] = "forged"
    path.write_text(json.dumps(data))
    assert statuses(ralph) == {"T1": "todo", "T2": "todo", "T3": "todo"}
    # The genuine record, but the branch was reset to before T1's verified commit.
    path.write_text(genuine)
    ralph.git("reset", "-q", "--hard", "HEAD~1")
    rows = {row["id"]: row for row in table(ralph)["tasks"]}
    assert rows["T1"]["status"] == "todo"
    assert "not in the history" in rows["T1"]["reason"]


def test_from_leaves_the_tasks_before_it_to_the_user_and_the_list_incomplete(
        ralph: Ralph) -> None:
    project(ralph)
    script = agent(ralph, f"""\
        pathlib.Path("demo_three.py").write_text({module('three')!r})
        """)
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent", script, "--from", "T3")
    assert result.ret == 1, result
    assert "task list: incomplete: T1, T2 passed over with --from" in result.err
    assert "every task is done" not in result.err
    assert statuses(ralph) == {"T1": "skipped", "T2": "skipped", "T3": "done"}


def test_plan_refuses_the_agents_word_as_a_check_and_ends_1_when_out_of_iterations(
        ralph: Ralph) -> None:
    ralph.makefile("SPEC.md", "# Features\n\nWrite a.txt.\n")
    ralph.git_init()
    words = '[[task]]\nid = "A"\nuntil = "promise"\n'
    script = agent(ralph, f"""\
        pathlib.Path("tasks.toml").write_text({words!r})
        """)
    result = ralph.run("tasks", "plan", "SPEC.md", "-o", "tasks.toml", "--agent", script,
                       "--max-iterations", "2")
    assert result.ret == 1, result
    feedback = (ralph.path / ".ralph/iterations/002/prompt.md").read_text()
    assert "only check is the agent's word" in feedback and ": A" in feedback
    checked = ralph.run("tasks", "check", "tasks.toml")
    assert checked.ret == 1 and "only check is the agent's word" in checked.out, checked


PRD = Path(__file__).parent / "data" / "prd.json.example"
STORIES = ["US-001", "US-002", "US-003", "US-004"]


def story_steps(story: str) -> list[dict[str, Any]]:
    """The story's function and a test of it that fails without it; US-004 first writes a
    test that passes anyway (no evidence), then the real one."""
    name = "us" + story[-3:]
    real = {f"demo/{name}.py": f"def {name}() -> str:\n    return {story!r}\n",
            f"tests/test_{name}.py": f"from demo.{name} import {name}\n\n\n"
                                     f"def test_{name}() -> None:\n"
                                     f"    assert {name}() == {story!r}\n"}
    if story != "US-004":
        return [real]
    return [{f"tests/test_{name}.py": "def test_nothing() -> None:\n    assert True\n"}, real]


def test_snarktanks_prd_example_calls_the_agent_for_every_story(driver: Driver) -> None:
    """Every story's only check is "Typecheck passes" (types), green before any work: it
    keeps the project green, and each story is done on fail-to-pass tests of its own."""
    ralph = driver.ralph
    ralph.makefile("demo/__init__.py", "")
    ralph.makefile("tests/test_base.py", "def test_base() -> None:\n    assert True\n")
    ralph.makefile("prd.json", PRD.read_text())
    ralph.makefile(".gitignore", ".ralph/\n")
    ralph.git_init()
    outcome = run_list(driver, {story: story_steps(story) for story in STORIES},
                       file="prd.json")
    assert outcome.turns == [*STORIES, "US-004"], outcome.turns
    rows = outcome.rows()
    assert outcome.table()["verdict"] == "complete", rows
    for story in STORIES:
        row = rows[story]
        assert row["status"] == "done", row
        assert "fail-to-pass:" in row["gate"] and "types" in row["gate"]
    feedback = (ralph.path / ".ralph/iterations/002/prompt.md").read_text()  # US-004's
    assert "tests/test_us004.py::test_nothing passed already" in feedback
    first = (ralph.path / ".ralph/iterations/001/prompt.md").read_text()
    assert "no check of its own: add tests that show it" in first


TWO_TASKS = CHAIN.split('\n[[task]]\nid = "T3"')[0]


def test_the_verified_commit_carries_the_users_task_file(driver: Driver) -> None:
    """The agent deletes T2 from the list and marks T1 done: the list goes on from the file
    it read, every commit carries the user's file, the agent's version is kept apart."""
    ralph = driver.ralph
    project(ralph)
    (ralph.path / "tasks.toml").write_text(TWO_TASKS)
    ralph.git("commit", "-qam", "two tasks")
    loosened = TWO_TASKS.split("\n[[task]]\nid = \"T2\"")[0].replace(
        'title = "one"', 'title = "one"\nstatus = "done"')
    outcome = run_list(driver, {"T1": [{"demo_one.py": module("one"), "tasks.toml": loosened}],
                                "T2": [{"demo_two.py": module("two")}]})
    assert outcome.turns == ["T1", "T2"]
    assert statuses(ralph) == {"T1": "done", "T2": "done"}
    assert (ralph.path / "tasks.toml").read_text() == TWO_TASKS
    assert (ralph.path / ".ralph/tasks/edited/tasks.toml").read_text() == loosened
    for row in table(ralph)["tasks"]:
        assert ralph.git("show", f"{row['commit']}:tasks.toml") == TWO_TASKS
    assert any("tasks.toml was edited" in note for note in table(ralph)["notes"])


def test_a_task_file_deleted_before_a_kill_does_not_break_resume(ralph: Ralph) -> None:
    project(ralph)
    hung = ralph.path.parent / "hung"
    script = agent(ralph, f"""\
        T = os.environ["RALPH_TASK_ID"]
        name = {{"T1": "one", "T2": "two", "T3": "three"}}[T]
        pathlib.Path(f"demo_{{name}}.py").write_text({TEXTS!r}[name])
        if T == "T2" and not pathlib.Path({str(hung)!r}).exists():
            pathlib.Path("tasks.toml").unlink()
            pathlib.Path({str(hung)!r}).write_text("x")
            time.sleep(120)  # killed with ralph-verify
        """)
    kill_nine_when(ralph, hung, "T2's deleting agent", "run", "--tasks", "tasks.toml", "--agent",
                   script)
    assert not (ralph.path / "tasks.toml").exists()
    resumed = ralph.run("run", "--tasks", "tasks.toml", "--resume", "--agent", script)
    assert resumed.ret == 0, resumed
    assert (ralph.path / "tasks.toml").read_text() == CHAIN
    assert statuses(ralph) == {"T1": "done", "T2": "done", "T3": "done"}


@pytest.mark.parametrize("text", ['{"tasks": "oops"}', "garbage", '{"file": "tasks.toml", "ta',
                                  ""])
def test_a_corrupted_task_state_is_a_clear_error_saying_what_to_do(ralph: Ralph,
                                                                   text: str) -> None:
    project(ralph)
    (ralph.path / ".ralph/tasks").mkdir(parents=True)
    (ralph.path / ".ralph/tasks/state.json").write_text(text)
    for args in (("tasks", "status"), ("run", "--tasks", "tasks.toml", "--resume", "--agent",
                                        "cmd:true"), ("tasks", "retry", "T1")):
        result = ralph.run(*args)
        assert result.ret == 2, (args, result)
        assert "state.json is corrupted" in result.err and "move it aside" in result.err
        assert "Traceback" not in result.out + result.err


def test_the_task_list_in_a_prompt_has_a_budget(tmp_path: Path) -> None:
    tasks = [{"id": f"T{i}", "title": f"task number {i} with a title of some length",
              "until": "files:x"} for i in range(150)]
    task_list = from_data({"task": tasks}, tmp_path / "tasks.toml")
    status = {f"T{i}": "done" for i in range(100)}
    text = task_table(task_list, status, "T100")
    assert len(text) <= LIST_BUDGET
    assert "- [todo] T100: task number 100 with a title of some length  <- this one" in text
    assert "earlier tasks: " in text and "done" in text and "later tasks: " in text


def test_a_lists_lines_speak_of_the_task_not_of_until_or_the_lists_time(ralph: Ralph) -> None:
    project(ralph)
    (ralph.path / "tasks.toml").write_text(TWO_TASKS.replace(
        'until = "tests:tests/test_two.py"', 'until = "files:tasks.toml"'))
    ralph.git("commit", "-qam", "T2 is there already")
    script = agent(ralph, f"""\
        time.sleep(4)
        pathlib.Path("demo_one.py").write_text({module('one')!r})
        """)
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent", script)
    assert result.ret == 0, result
    text = result.out + result.err
    assert "from --until" not in text and "from the task's gate" in text
    assert "use --until" not in text
    times = re.findall(r"iterations: (\d+) of at most \d+ in (\d+(?:\.\d+)?)s", text)
    assert [count for count, _ in times] == ["1", "0"], text
    assert float(times[1][1]) < 4, text  # T2's own time, not the list's
