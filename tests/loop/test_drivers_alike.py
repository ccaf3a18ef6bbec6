"""Budget and promise, once for each driver: ``run`` and the agent's Stop hook must end a
session the same way, with the same verdict and reason (``tests/drivers.py``).

``run`` exits with the verdict's code (``ralph-verify run --help``); an agent hook always
exits 0 and, when the session ends, lets the agent stop with a message naming the verdict.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ralph_verify.loop.verdict import EXIT_CODES, Verdict
from ralph_verify.testing import Ralph
from tests.drivers import Driver, Outcome, Step

PROMISE = "Everything is fixed.\n<promise>COMPLETE</promise>"


def history(outcome: Outcome) -> list[dict[str, Any]]:
    return [json.loads(line) for line in
            (outcome.root / ".ralph/history.jsonl").read_text().splitlines()]


def ended(driver: Driver, outcome: Outcome, verdict: Verdict) -> str:
    """The session ended with ``verdict`` as the driver says it; its reason."""
    assert outcome.verdict == verdict.value, outcome.state["verdict"]
    assert outcome.state["status"] == "finished"
    reason = str(outcome.state["verdict"]["reason"])
    if driver.kind == "run":
        assert outcome.result.ret == EXIT_CODES[verdict], outcome.result
        outcome.result.stdout.fnmatch_lines([f"verdict: {verdict.value} — {reason}"])
    else:
        assert outcome.result.ret == 0, outcome.result  # an agent hook never fails its agent
        answer = outcome.result.json()
        assert "decision" not in answer, answer  # the agent may stop: the session is over
        n = outcome.iterations
        assert answer["systemMessage"] == (f"ralph-verify: {verdict.value} after {n} "
                                           f"iteration{'s' if n != 1 else ''} — {reason}")
    return reason


# --- budget ----------------------------------------------------------------------------------


def test_max_iterations_ends_with_its_verdict(driver: Driver) -> None:
    steps: list[Step] = [{"notes.txt": f"try {n}\n"} for n in range(5)]
    outcome = driver.loop("files:done.txt", steps, "--max-iterations", "2")
    assert ended(driver, outcome, Verdict.MAX_ITERATIONS) == \
        "reached the limit of 2 iterations (--max-iterations)"
    assert outcome.iterations == 2


def test_max_time_ends_with_the_budget_verdict(driver: Driver) -> None:
    # Each turn takes 0.6s; the limit of 1s is reached after the first or the second.
    steps: list[Step] = [{"notes.txt": f"try {n}\n"} for n in range(6)]
    outcome = driver.loop("files:done.txt", steps, "--max-time", "1", "--max-iterations", "6",
                          pause=0.6)
    reason = ended(driver, outcome, Verdict.BUDGET)
    assert reason.startswith("ran ") and reason.endswith(", the limit is 1s (--max-time)")
    assert outcome.iterations in (1, 2)


def test_a_budget_is_not_judged_once_the_checks_pass(driver: Driver) -> None:
    """Completion outranks the budget: the last turn's work counts."""
    driver.ralph.makepyproject('[tool.ralph-verify]\nmax-time = "1"\n')
    outcome = driver.loop("files:done.txt", [{"done.txt": "ok\n"}], pause=1.2)
    ended(driver, outcome, Verdict.COMPLETE)


# --- promise ---------------------------------------------------------------------------------


def test_a_promise_with_failing_checks_never_completes(driver: Driver) -> None:
    outcome = driver.loop("files:done.txt", [{"notes.txt": "done\n"}, {"notes.txt": "yes\n"}],
                          says=[PROMISE, PROMISE])
    ended(driver, outcome, Verdict.MAX_ITERATIONS)
    lines = history(outcome)
    assert [line["promises"] for line in lines] == [["COMPLETE"], ["COMPLETE"]]
    assert all(line["checks"][0]["status"] == "failed" for line in lines)
    assert "done.txt" in outcome.prompt(2)  # the feedback names what still fails


def test_a_promise_check_needs_the_promise_and_the_checks(driver: Driver) -> None:
    steps: list[Step] = [{}, {"done.txt": "ok\n"}, {}]
    outcome = driver.loop("files:done.txt,promise", steps, "--max-iterations", "5",
                          says=[PROMISE, "I wrote done.txt.", PROMISE])
    assert ended(driver, outcome, Verdict.COMPLETE)
    assert outcome.iterations == 3
    statuses = [{c["spec"]: c["status"] for c in line["checks"] if c["spec"] != "integrity"}
                for line in history(outcome)]
    assert statuses == [{"files:done.txt": "failed", "promise": "passed"},
                        {"files:done.txt": "passed", "promise": "failed"},
                        {"files:done.txt": "passed", "promise": "passed"}]
    assert "did not print <promise>COMPLETE</promise>" in outcome.prompt(3)


def test_a_blocked_promise_ends_as_blocked(driver: Driver) -> None:
    said = "I cannot go on.\n<promise>BLOCKED: I need the staging password</promise>"
    outcome = driver.loop("files:done.txt", [{"notes.txt": "stuck\n"}] * 3, says=[said])
    assert ended(driver, outcome, Verdict.BLOCKED) == \
        "the agent is blocked: I need the staging password"
    assert outcome.iterations == 1


@pytest.mark.parametrize("command", [("run", "--agent", "cmd:true"), ("start",)])
def test_a_bad_max_time_is_refused_alike(ralph: Ralph, command: tuple[str, ...]) -> None:
    result = ralph.run(*command, "--until", "files:done.txt", "--max-time", "5x", "go")
    assert result.ret == 2, result
    assert "argument --max-time: expected a duration such as 90m, 2h, 1h30m or seconds, " \
           "got '5x'" in result.err
    assert not (ralph.path / ".ralph/state.json").exists()
