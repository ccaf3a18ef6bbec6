"""A task list in hook mode with the real Claude Code CLI, offline: ``start --tasks`` and the
Stop hook ``init claude`` installed, against the scripted model server. Claude ticks its own
task off and promises it is complete: the stop is blocked with the failing test, never
taken for done; once the tests pass the hook commits the task and blocks the stop with the
next task's prompt; a later task that breaks the earlier one's test is not done until it
passes again; after the last one it lets Claude stop."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from ralph_verify.testing.server import ModelServer, claude_write, text
from tests.agents_setup import AgentCLI
from tests.e2e.test_claude_hooks_e2e import HOOK_COMMAND, claude, feedback_in, finish

pytestmark = pytest.mark.agents_e2e

TASKS = textwrap.dedent("""\
    [defaults]
    max-iterations = 4

    [[task]]
    id = "T1"
    title = "add"
    prompt = "Implement add(a, b) in calc.py."
    until = "tests:tests/test_add.py"

    [[task]]
    id = "T2"
    title = "mul"
    prompt = "Implement mul(a, b) in calc.py."
    until = "tests:tests/test_mul.py"
    """)
TICKED = TASKS.replace('title = "add"', 'title = "add"\nstatus = "done"')
ADD = "def add(a, b):\n    return a + b\n"
BOTH = ADD + "\n\ndef mul(a, b):\n    return a * b\n"
BROKEN = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"


def test_a_two_task_list_completes_in_hook_mode_and_a_ticked_task_is_not_done(
        ralph: Ralph, claude_cli: AgentCLI, agent_home: Path,
        model_server: ModelServer) -> None:
    ralph.makepyfile(calc="def add(a, b):\n    raise NotImplementedError\n",
                     **{"tests/test_add": "from calc import add\n\n\n"
                                          "def test_add():\n    assert add(2, 3) == 5\n",
                        "tests/test_mul": "from calc import mul\n\n\n"
                                          "def test_mul():\n    assert mul(2, 3) == 6\n"})
    ralph.makefile("tasks.toml", TASKS)
    ralph.makefile(".gitignore", ".ralph/\n")
    ralph.git_init()
    assert ralph.run("init", "claude", "--hook-command", HOOK_COMMAND).ret == 0
    ralph.git("add", "-A")
    ralph.git("commit", "-q", "-m", "init claude")
    started = ralph.run("start", "--tasks", "tasks.toml")
    assert started.ret == 0, started
    assert "Task T1: add" in started.out and "task T1 first" in started.out
    model_server.script(
        claude_write("tasks.toml", TICKED), text("<promise>COMPLETE</promise>"),  # no work
        claude_write("calc.py", ADD), text("Implemented add()."),
        claude_write("calc.py", BROKEN), text("Implemented mul()."),  # breaks T1's add()
        claude_write("calc.py", BOTH), text("Fixed add() again."))
    result = finish(claude(claude_cli, agent_home, model_server, ralph.path,
                           started.out + "\n\nWork on the tasks above."))
    requests = model_server.model_requests("anthropic")
    assert len(requests) == 8, [r.last_user_text()[-300:] for r in requests]
    assert not model_server.errors
    # The tick and the promise were no done: the stop was blocked with T1's failing test.
    blocked = feedback_in(requests[2])
    assert "Stop hook feedback" in blocked and "test_add" in blocked
    assert "Task T2" not in blocked
    # T1 passed: the stop was blocked with T2's prompt, its gate keeping T1's tests.
    second = feedback_in(requests[4])
    assert "task T1 is done" in second and "# Task T2: mul" in second
    assert "tests:tests/test_add.py (kept" in second
    # T2's work broke T1's test: blocked with it, T2 not done until it passed again.
    third = feedback_in(requests[6])
    assert "test_add" in third and "assert -1 == 5" in third and "task T2 is done" not in third
    assert result["is_error"] is False
    table = ralph.run("tasks", "status", "--json")
    assert table.ret == 0, table
    data = table.json()
    assert data["verdict"] == "complete"
    rows = {row["id"]: (row["status"], row["iterations"]) for row in data["tasks"]}
    assert rows == {"T1": ("done", 2), "T2": ("done", 2)}
    assert any("tasks.toml was edited" in note for note in data["notes"])
    hook = json.loads((ralph.path / ".ralph/state.json").read_text())["hook"]
    assert hook["session_id"] == result["session_id"]
    subjects = ralph.git("log", "--all", "--format=%s").splitlines()
    assert "T1: add" in subjects and "T2: mul" in subjects


STORY = json.dumps({"project": "calc", "userStories": [{
    "id": "US-001", "title": "Add mul",
    "description": "As a user, I want mul(a, b) in calc.py.",
    "acceptanceCriteria": ["Typecheck passes"], "priority": 1, "passes": False, "notes": ""}]},
    indent=2)
MUL_TEST = "from calc import mul\n\n\ndef test_mul() -> None:\n    assert mul(2, 3) == 6\n"
WITH_MUL = ADD + "\n\ndef mul(a: int, b: int) -> int:\n    return a * b\n"


def test_a_story_whose_only_criterion_is_typecheck_passes_needs_fail_to_pass_tests(
        ralph: Ralph, claude_cli: AgentCLI, agent_home: Path,
        model_server: ModelServer) -> None:
    """snarktank's usual story: "Typecheck passes" holds before any work, so it keeps the
    project green but is no evidence. Claude's promise with nothing done is blocked with the
    ask for tests; its test that fails on the story's start tree and passes now completes it."""
    ralph.makepyfile(calc=ADD, **{"tests/test_add": "from calc import add\n\n\n"
                                                    "def test_add() -> None:\n"
                                                    "    assert add(2, 3) == 5\n"})
    ralph.makefile("prd.json", STORY)
    ralph.makefile(".gitignore", ".ralph/\n")
    ralph.git_init()
    assert ralph.run("init", "claude", "--hook-command", HOOK_COMMAND).ret == 0
    ralph.git("add", "-A")
    ralph.git("commit", "-q", "-m", "init claude")
    started = ralph.run("start", "--tasks", "prd.json")
    assert started.ret == 0, started
    assert "US-001" in started.out and "no check of its own" in started.out, started.out
    model_server.script(
        text("<promise>COMPLETE</promise>"),  # types pass already: no work, no evidence
        claude_write("tests/test_mul.py", MUL_TEST), claude_write("calc.py", WITH_MUL),
        text("Added mul() and its test."))
    result = finish(claude(claude_cli, agent_home, model_server, ralph.path,
                           started.out + "\n\nWork on the story above."))
    requests = model_server.model_requests("anthropic")
    assert len(requests) == 4, [r.last_user_text()[-300:] for r in requests]
    assert not model_server.errors
    blocked = feedback_in(requests[1])
    assert "Stop hook feedback" in blocked and "add tests that show it" in blocked, blocked
    assert result["is_error"] is False
    data = ralph.run("tasks", "status", "--json").json()
    assert data["verdict"] == "complete", data
    row = data["tasks"][0]
    assert row["status"] == "done" and "fail-to-pass:" in row["gate"], row
    assert "types" in row["gate"], row
