"""``start --resume``: a stopped hook-mode loop (one task, or a task list) goes on in the same
session, on the same branch, judged by the same frozen tests and settings; only its budgets
may grow. The real Stop hook is called through the CLI, as Claude Code calls it."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest

from ralph_verify.testing import Ralph
from tests.drivers import Driver, apply
from tests.task_drivers import run_list

TEST = "from demo import value\n\n\ndef test_value():\n    assert value() == 1\n"
WRONG = "def value():\n    return 0\n"
RIGHT = "def value():\n    return 1\n"
WEAK = "def test_value():\n    assert True\n"


@pytest.fixture
def hook(ralph: Ralph, monkeypatch: pytest.MonkeyPatch) -> Iterator[Driver]:
    for name in ("CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP",
                 "CLAUDE_PROJECT_DIR", "PYTEST_ADDOPTS", "COVERAGE_RCFILE"):
        monkeypatch.delenv(name, raising=False)
    ralph.makefile("tests/test_demo.py", TEST)
    ralph.makefile("demo.py", WRONG)
    ralph.makefile(".gitignore", ".ralph/\n")
    ralph.git_init()
    yield Driver(ralph, "hook")


def stop(ralph: Ralph, step: dict[str, str | None], active: bool = True) -> dict[str, Any]:
    """The agent's turn: ``step`` written, then Claude Code's Stop event; the hook's answer."""
    apply(ralph.path, step)
    payload = {"session_id": "s-1", "hook_event_name": "Stop", "cwd": str(ralph.path),
               "stop_hook_active": active, "last_assistant_message": "done"}
    result = ralph.run("hook", "claude-stop", stdin=json.dumps(payload))
    assert result.ret == 0, result
    answer: dict[str, Any] = result.json() if result.out.strip() else {}
    return answer


def state(ralph: Ralph) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ralph.path / ".ralph/state.json").read_text())
    return data


def test_a_loop_whose_iterations_ran_out_goes_on_in_the_same_session_and_completes(
        hook: Driver) -> None:
    ralph = hook.ralph
    first = hook.loop("tests", [{"demo.py": "def value():\n    return 2\n"}])
    assert first.verdict == "max-iterations"
    session, branch = first.state["session"], first.state["plugin_state"]["checkpoint"]["branch"]
    resumed = ralph.run("start", "--resume", "--max-iterations", "3")
    assert resumed.ret == 0, resumed
    assert f"loop resumed (session {session}) at iteration 2" in resumed.out
    assert "at most 3 iterations" in resumed.out
    assert "test_value" in resumed.out  # the last verification's feedback, for the agent
    assert state(ralph)["status"] == "running" and state(ralph)["verdict"] is None
    answer = stop(ralph, {"demo.py": RIGHT}, active=False)
    assert "complete after 2 iterations" in answer["systemMessage"], answer
    after = state(ralph)
    assert after["session"] == session and after["verdict"]["verdict"] == "complete"
    assert after["plugin_state"]["checkpoint"]["branch"] == branch
    assert len((ralph.path / ".ralph/history.jsonl").read_text().splitlines()) == 2
    assert ralph.git("show", f"{branch}:demo.py") == RIGHT  # checkpointed on the same branch
    assert ralph.git("branch", "--list", "ralph/*").split() == [branch]


def test_the_tests_frozen_at_the_start_still_judge_after_resume(hook: Driver) -> None:
    ralph = hook.ralph
    first = hook.loop("tests", [{"tests/test_demo.py": WEAK}])  # weakened, not fixed
    assert first.verdict == "max-iterations"
    assert ralph.run("start", "--resume", "--max-iterations", "3").ret == 0
    answer = stop(ralph, {}, active=False)  # the weakened test is still not the judge
    assert answer.get("decision") == "block", answer
    assert "test_value" in answer["reason"]
    answer = stop(ralph, {"demo.py": RIGHT, "tests/test_demo.py": TEST})
    assert "complete after 3 iterations" in answer["systemMessage"], answer


def test_only_the_budgets_may_change_and_each_wrong_case_is_a_clear_error(
        hook: Driver) -> None:
    ralph = hook.ralph
    none = ralph.run("start", "--resume")
    assert none.ret == 2 and "nothing to resume: no session in" in none.err, none
    started = ralph.run("start", "--until", "tests", "--max-iterations", "1", "fix it")
    assert started.ret == 0, started
    active = ralph.run("start", "--resume")
    assert active.ret == 2 and "is still active" in active.err, active
    stop(ralph, {}, active=False)
    assert state(ralph)["verdict"]["verdict"] == "max-iterations"
    for args, word in [(("--until", "lint"), "--until"), (("--max-iterations", "2", "other"),
                                                          "TASK"),
                       (("--tasks", "tasks.toml"), "is one task, not a task list")]:
        ralph.makefile("tasks.toml", '[[task]]\nid = "T1"\ntitle = "t"\nuntil = "tests"\n')
        refused = ralph.run("start", "--resume", *args)
        assert refused.ret == 2 and word in refused.err and "Traceback" not in refused.err, \
            refused
    path = ralph.path / ".ralph/state.json"  # the agent's edit is not believed
    forged = path.read_text().replace('"max_iterations": 1,', '"max_iterations": 9,')
    assert forged != path.read_text()
    path.write_text(forged)
    for more in ((), ("--max-iterations", "1")):  # no iteration left: nothing written
        same = ralph.run("start", "--resume", *more)
        assert same.ret == 2 and "used its 1 iterations" in same.err, same
    assert ralph.run("start", "--resume", "--max-iterations", "2").ret == 0
    assert "complete" in stop(ralph, {"demo.py": RIGHT}, active=False)["systemMessage"]
    done = ralph.run("start", "--resume", "--max-iterations", "5")
    assert done.ret == 2 and "is already complete" in done.err, done
    run = ralph.run("run", "--agent", "cmd:true", "--until", "tests", "--max-iterations",
                    "1", "--allow-dirty", "again")
    assert run.ret != 2, run
    other = ralph.run("start", "--resume")
    assert other.ret == 2 and "was started by 'ralph-verify run'" in other.err, other
    assert "'ralph-verify run --resume' continues it" in other.err


def test_run_resume_refuses_a_hook_mode_session(hook: Driver) -> None:
    first = hook.loop("tests", [{}])
    assert first.verdict == "max-iterations"
    refused = hook.ralph.run("run", "--resume")
    assert refused.ret == 2 and "'ralph-verify start --resume' continues it" in refused.err


LIST = textwrap.dedent("""\
    [defaults]
    max-iterations = 1

    [[task]]
    id = "T1"
    title = "value"
    until = "tests:tests/test_demo.py"

    [[task]]
    id = "T2"
    title = "file"
    until = "files:two.txt"
    """)


def list_project(ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", LIST)
    ralph.git("add", "tasks.toml")
    ralph.git("commit", "-q", "-m", "tasks")


def test_a_task_list_goes_on_with_the_task_whose_iterations_ran_out(hook: Driver) -> None:
    ralph = hook.ralph
    list_project(ralph)
    first = run_list(hook, {"T1": [{}]})
    assert first.status()["T1"] == ("failed", 1)
    assert first.status()["T2"][0] == "skipped"
    resumed = ralph.run("start", "--resume", "--max-iterations", "2")
    assert resumed.ret == 0, resumed
    assert "task T1 goes on" in resumed.out and "at iteration 2" in resumed.out
    assert first.status() == {"T1": ("running", 1), "T2": ("todo", 0)}
    answer = stop(ralph, {"demo.py": RIGHT}, active=False)
    assert answer.get("decision") == "block" and "Next, task T2" in answer["reason"], answer
    answer = stop(ralph, {"two.txt": "2"})
    assert "task list complete" in answer["systemMessage"], answer
    assert first.table()["verdict"] == "complete"
    assert {row: status for row, (status, _) in first.status().items()} == \
        {"T1": "done", "T2": "done"}


def test_a_tampered_task_state_is_not_believed_on_resume(hook: Driver) -> None:
    ralph = hook.ralph
    list_project(ralph)
    first = run_list(hook, {"T1": [{"demo.py": RIGHT}], "T2": [{}]})
    assert first.status() == {"T1": ("done", 1), "T2": ("failed", 1)}
    path = ralph.path / ".ralph/tasks/state.json"
    path.write_text(path.read_text().replace('"failed"', '"done"')
                    .replace('"verdict": "incomplete"', '"verdict": "complete"'))
    resumed = ralph.run("start", "--resume", "--max-iterations", "2")
    assert resumed.ret == 0, resumed
    assert "task T2 goes on" in resumed.out
    table = first.table()
    assert table["tasks"][1]["status"] == "running"
    assert any("not as ralph-verify wrote it" in note for note in table["notes"])
    answer = stop(ralph, {"two.txt": "2"}, active=False)
    assert "task list complete" in answer["systemMessage"], answer


def test_a_loop_whose_time_ran_out_goes_on_with_more_time(hook: Driver) -> None:
    ralph = hook.ralph
    first = hook.loop("tests", [{}], "--max-time", "1s", "--max-iterations", "5", pause=1.5)
    assert first.verdict == "budget", first.state["verdict"]
    assert ralph.run("start", "--resume", "--max-time", "10m").ret == 0
    answer = stop(ralph, {"demo.py": RIGHT}, active=False)
    assert "complete after 2 iterations" in answer["systemMessage"], answer


def test_a_cancelled_task_list_goes_on_with_its_task(hook: Driver) -> None:
    ralph = hook.ralph
    list_project(ralph)
    ralph.makefile("tasks.toml", LIST.replace("max-iterations = 1", "max-iterations = 3"))
    ralph.git("commit", "-q", "-am", "three iterations a task")
    assert ralph.run("start", "--tasks", "tasks.toml").ret == 0
    assert stop(ralph, {}, active=False).get("decision") == "block"
    cancelled = ralph.run("cancel")
    assert cancelled.ret == 0, cancelled
    row = ralph.run("tasks", "status", "--json").json()["tasks"][0]
    assert row["status"] == "todo" and "'ralph-verify start --resume' goes on" in row["reason"]
    resumed = ralph.run("start", "--resume")
    assert resumed.ret == 0 and "task T1 goes on" in resumed.out, resumed
    assert "at iteration 2" in resumed.out and "at most 3 iterations" in resumed.out
    answer = stop(ralph, {"demo.py": RIGHT}, active=False)
    assert "Next, task T2" in answer.get("reason", ""), answer
    assert "task list complete" in stop(ralph, {"two.txt": "2"})["systemMessage"]
