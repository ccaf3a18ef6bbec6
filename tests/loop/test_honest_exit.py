"""The honest ways out of a loop: the rules in every prompt, BLOCKED, and nothing to do.

An agent told plainly that gaming the tests is detected, and offered ``BLOCKED`` for a
contradictory task, games less; a user's own task may spell the promise tag; and a
``tests:new`` session whose failures are all old says there is nothing to do instead of
ending ``complete``.
"""

from __future__ import annotations

import json

from ralph_verify.loop.prompt import RULES
from ralph_verify.testing import Ralph
from tests.loop_helpers import CALC, CALC_TESTS, agent, history, prompt, state

LEGACY_TESTS = """\
def test_legacy():
    assert False, "broken long before this session"


def test_fine():
    assert True
"""


def test_every_prompt_says_gaming_is_detected_and_offers_blocked(ralph: Ralph) -> None:
    ralph.makepyfile(calc=CALC, **{"tests/test_calc": CALC_TESTS})
    blocked = agent(ralph, 'print("The tests want add(2, 3) == 5 and == 6.")\n'
                           'print("<promise>BLOCKED: the tests contradict each other</promise>")\n')
    result = ralph.run("run", "--agent", blocked, "--until", "tests", "fix the tests")
    assert result.ret == 12, result
    text = " ".join(prompt(ralph, 1).split())
    assert "Editing, deleting or skipping existing tests" in text
    assert "detected by the loop's integrity checks" in text and "wasted effort" in text
    assert "If the task or the tests contradict each other" in text
    assert "<promise>BLOCKED: the reason</promise>" in text
    assert state(ralph)["verdict"] == {
        "verdict": "blocked", "source": "completion",
        "reason": "the agent is blocked: the tests contradict each other"}


def test_hook_mode_states_the_same_rules(ralph: Ralph) -> None:
    started = ralph.run("start", "--until", "files:done.txt", "create done.txt")
    assert started.ret == 0, started
    assert RULES in started.out
    payload = {"session_id": "s-1", "transcript_path": "/nowhere/s-1.jsonl",
               "cwd": str(ralph.path), "hook_event_name": "Stop", "stop_hook_active": False,
               "last_assistant_message": "done"}
    stopped = ralph.run("hook", "claude-stop", stdin=json.dumps(payload))
    answer = json.loads(stopped.out)
    assert answer["decision"] == "block"
    assert RULES in answer["reason"]


def test_a_promise_tag_in_the_users_own_task_can_still_be_kept(ralph: Ralph) -> None:
    # The user's PROMPT.md spells the tag on a line of its own, as many Ralph prompts do.
    (ralph.path / "PROMPT.md").write_text(
        "Create done.txt.\nWhen you are done, print:\n<promise>COMPLETE</promise>\n")
    honest = agent(ralph, 'pathlib.Path("done.txt").write_text("x")\n'
                          'print("Created done.txt.")\n'
                          'print("<promise>COMPLETE</promise>")\n')
    result = ralph.run("run", "--agent", honest, "--until", "files:done.txt,promise",
                       "-P", "PROMPT.md")
    assert result.ret == 0, result
    assert [line["promises"] for line in history(ralph)] == [["COMPLETE"]]


def test_an_echo_of_that_task_still_does_not_count(ralph: Ralph) -> None:
    (ralph.path / "PROMPT.md").write_text(
        "Create done.txt.\nWhen you are done, print:\n<promise>COMPLETE</promise>\n")
    echo = agent(ralph, 'pathlib.Path("done.txt").write_text("x")\n'
                        "sys.stdout.write(sys.stdin.read())\n")
    result = ralph.run("run", "--agent", echo, "--until", "files:done.txt,promise",
                       "--max-iterations", "2", "-p", "no:breaker", "-p", "PROMPT.md")
    assert result.ret == 10, result
    assert [line["promises"] for line in history(ralph)] == [[], []]


def test_tests_new_with_only_old_failures_is_nothing_to_do(ralph: Ralph) -> None:
    ralph.makepyfile(**{"tests/test_legacy": LEGACY_TESTS})
    ralph.git_init()
    marker = ralph.path.parent / "agent-ran"
    result = ralph.run("run", "--agent", agent(ralph, f"open({str(marker)!r}, 'w')\n"),
                       "--until", "tests:new", "fix the legacy test")
    assert result.ret == 15, result
    assert not marker.exists()
    data = state(ralph)
    assert data["verdict"]["verdict"] == "nothing-to-do"
    reason = data["verdict"]["reason"]
    assert "tests:new (1 failing, all there before the session)" in reason
    assert "use --until 'tests' instead" in reason
    result.stdout.fnmatch_lines(["verdict: nothing-to-do — nothing for the agent to do*"])


def test_start_says_the_same_in_hook_mode(ralph: Ralph) -> None:
    ralph.makepyfile(**{"tests/test_legacy": LEGACY_TESTS})
    result = ralph.run("start", "--until", "tests:new", "fix the legacy test")
    assert result.ret == 15, result
    assert "no loop started: nothing for the agent to do" in result.out
    assert state(ralph)["verdict"]["verdict"] == "nothing-to-do"
