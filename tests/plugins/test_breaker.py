"""The stall breaker on real sessions built from plain data: closed -> half-open -> open."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import pytest

from ralph_verify.checks.api import CheckResult, Failure, Status
from ralph_verify.checks.verification import Verification
from ralph_verify.loop.session import Iteration, Session
from ralph_verify.loop.settings import SessionSettings
from ralph_verify.loop.verdict import Verdict, VerdictProposal
from ralph_verify.plugins import breaker
from ralph_verify.startup import get_config
from ralph_verify.testing import Ralph


def _tests(*messages: str, count: int | None = None) -> CheckResult:
    """A failed ``tests`` result, one failure per message (or ``count`` of the first)."""
    if count is not None:
        messages = (messages[0],) * count
    failures = [Failure(message=m, location=f"tests/test_a.py::test_{i}")
                for i, m in enumerate(messages)]
    status = Status.FAILED if failures else Status.PASSED
    return CheckResult("tests", "tests", status, f"{len(failures)} failed", failures=failures)


def _coverage(percent: float, wanted: float = 80) -> CheckResult:
    status = Status.PASSED if percent >= wanted else Status.FAILED
    failures = [] if status is Status.PASSED else [
        Failure(message=f"coverage {percent}% is below {wanted}%")]
    return CheckResult("coverage", f"coverage>={wanted:g}", status, f"{percent}%",
                       metric=percent, failures=failures)


def _verification(*results: CheckResult) -> Verification:
    return Verification(root=Path("."), results=list(results))


class Driver:
    """Plays iterations through the breaker's hooks as the loop does."""

    def __init__(self, ralph: Ralph, baseline: Verification, *args: str) -> None:
        config = get_config(["check", "--root", str(ralph.path), *args])
        self.session = Session(id="s1", root=ralph.path, dir=ralph.path / ".ralph",
                               config=config, settings=SessionSettings((), "fix it", 50),
                               baseline=baseline)
        breaker.ralph_session_start(session=self.session)

    def step(self, verification: Verification,
             files: Sequence[str] = ("src/app.py",)) -> tuple[str | None, VerdictProposal | None]:
        """One iteration: its prompt note, then (after the agent) the breaker's vote."""
        iteration = Iteration(number=len(self.session.iterations) + 1)
        self.session.iterations.append(iteration)
        note = breaker.ralph_prompt_notes(session=self.session, iteration=iteration)
        iteration.files_changed = list(files)
        iteration.verification = verification
        breaker.ralph_iteration_end(session=self.session, iteration=iteration,
                                    verification=verification)
        vote = breaker.ralph_iteration_verdict(session=self.session, iteration=iteration,
                                               verification=verification)
        return note, vote

    @property
    def state(self) -> dict[str, Any]:
        return cast(dict[str, Any], self.session.plugin_state["breaker"])


def test_same_failures_warn_then_stop(ralph: Ralph) -> None:
    same = _verification(_tests("AssertionError: assert 1 == 2", "KeyError: 'name'"))
    driver = Driver(ralph, same)
    for _ in range(5):
        note, vote = driver.step(same)
        assert note is None and vote is None
    assert driver.state["state"] == "half-open"
    assert driver.state["counters"] == {"same-errors": 5, "no-change": 0, "no-progress": 5}
    note, vote = driver.step(same)
    assert note is not None
    assert "The same failures persist: change your approach" in note
    assert "the same 2 failures came back 5 iterations in a row (threshold 5)" in note
    assert "KeyError: 'name' (at tests/test_a.py::test_1)" in note
    assert same.results[0].failures[0].fingerprint in note
    assert vote is not None and vote.verdict is Verdict.STALLED
    assert vote.reason.startswith("stall breaker (same-errors): the same 2 failures came back "
                                  "6 iterations in a row (threshold 5), and the iteration after")
    assert driver.state["state"] == "open"


def test_recovery_after_the_note_closes_the_circuit(ralph: Ralph) -> None:
    same = _verification(_tests("assert 1 == 2", "KeyError: 'name'"))
    driver = Driver(ralph, same)
    for _ in range(5):
        driver.step(same)
    assert driver.state["state"] == "half-open"
    note, vote = driver.step(_verification(_tests("TypeError: bad operand")))
    assert note is not None and vote is None
    assert driver.state["state"] == "closed"
    assert driver.state["counters"] == {"same-errors": 0, "no-change": 0, "no-progress": 0}
    note, _ = driver.step(_verification(_tests("TypeError: bad operand")))
    assert note is None


def test_other_failures_without_progress_after_the_note_still_stall(ralph: Ralph) -> None:
    same = _verification(_tests("assert 1 == 2"))
    driver = Driver(ralph, same)
    for _ in range(5):
        driver.step(same)
    assert driver.state["rule"] == "same-errors"
    other = _verification(_tests("TypeError: bad operand"))
    note, vote = driver.step(other)
    assert note is not None and vote is None
    # The fingerprints changed, but 6 iterations without progress: warned again, then stopped.
    assert (driver.state["state"], driver.state["rule"]) == ("half-open", "no-progress")
    note, vote = driver.step(other)
    assert note is not None and "no measured progress for 6 iterations" in note
    assert vote is not None and vote.verdict is Verdict.STALLED


def test_no_file_changed_three_times_stalls(ralph: Ralph) -> None:
    failing = _verification(_tests("assert 1 == 2"))
    driver = Driver(ralph, failing)
    results = [driver.step(failing, files=()) for _ in range(4)]
    assert [vote for _, vote in results[:3]] == [None, None, None]
    assert results[3][0] is not None and "changed no file 3 iterations" in results[3][0]
    vote = results[3][1]
    assert vote is not None and vote.verdict is Verdict.STALLED
    assert "stall breaker (no-change): the agent changed no file 4 iterations" in vote.reason


def test_fewer_failures_with_the_same_fingerprints_is_progress(ralph: Ralph) -> None:
    driver = Driver(ralph, _verification(_tests("assert 1 == 2", count=12)))
    for remaining in range(11, 0, -1):
        note, vote = driver.step(_verification(_tests("assert 1 == 2", count=remaining)))
        assert note is None and vote is None
        assert driver.state["state"] == "closed"


def test_higher_coverage_is_progress(ralph: Ralph) -> None:
    driver = Driver(ralph, _verification(_coverage(50.0)))
    for percent in range(52, 72, 2):
        note, vote = driver.step(_verification(_coverage(float(percent))))
        assert note is None and vote is None
    assert driver.state["counters"] == {"same-errors": 0, "no-change": 0, "no-progress": 0}


def test_going_round_in_circles_is_no_progress(ralph: Ralph) -> None:
    first, second = _verification(_tests("assert 1 == 2")), _verification(_tests("KeyError"))
    driver = Driver(ralph, first)
    for i in range(5):
        _, vote = driver.step(second if i % 2 == 0 else first)
        assert vote is None
    assert driver.state["state"] == "half-open"
    assert driver.state["rule"] == "no-progress"
    note, vote = driver.step(second)
    assert note is not None and "no measured progress for 5 iterations" in note
    assert vote is not None and "now 1 failure, best so far 1 failure" in vote.reason


def test_an_errored_check_is_worse_than_any_failure(ralph: Ralph) -> None:
    errored = CheckResult("types", "types", Status.ERROR, "mypy not found")
    driver = Driver(ralph, _verification(errored))
    many = [Failure(message=f"error {i}", code="arg-type") for i in range(40)]
    driver.step(_verification(CheckResult("types", "types", Status.FAILED, "40 errors",
                                          failures=many)))
    assert driver.state["counters"]["no-progress"] == 0
    assert breaker.score(_verification(errored)) == {"types": None}


def test_thresholds_come_from_the_config_and_zero_turns_a_rule_off(ralph: Ralph) -> None:
    ralph.makepyproject("""
        [tool.ralph-verify]
        stall-same-errors = 2
        stall-no-change = 0
    """)
    same = _verification(_tests("assert 1 == 2"))
    driver = Driver(ralph, same)
    assert driver.state["thresholds"] == {"same-errors": 2, "no-change": 0, "no-progress": 5}
    votes = [driver.step(same, files=())[1] for _ in range(3)]
    assert votes[:2] == [None, None]
    assert votes[2] is not None and "(same-errors)" in votes[2].reason


def test_a_passing_verification_resets_the_counters(ralph: Ralph) -> None:
    failing = _verification(_tests("assert 1 == 2"))
    driver = Driver(ralph, failing)
    for _ in range(4):
        driver.step(failing)
    driver.step(_verification(_tests()))
    assert driver.state["counters"] == {"same-errors": 0, "no-change": 0, "no-progress": 0}


def test_state_survives_a_json_round_trip_for_resume(ralph: Ralph) -> None:
    same = _verification(_tests("assert 1 == 2"))
    driver = Driver(ralph, same)
    for _ in range(5):
        driver.step(same)
    saved = json.loads(json.dumps(driver.session.plugin_state))
    resumed = Driver(ralph, same)
    resumed.session.plugin_state = saved
    resumed.session.iterations = list(driver.session.iterations)
    breaker.ralph_session_start(session=resumed.session)
    assert resumed.state["state"] == "half-open"
    note, vote = resumed.step(same)
    assert note is not None and vote is not None and vote.verdict is Verdict.STALLED


def test_each_iteration_is_counted_once(ralph: Ralph) -> None:
    same = _verification(_tests("assert 1 == 2"))
    driver = Driver(ralph, same)
    iteration = Iteration(number=1, files_changed=["a.py"])
    for _ in range(3):
        breaker.ralph_iteration_end(session=driver.session, iteration=iteration,
                                    verification=same)
    assert driver.state["counters"]["same-errors"] == 1


def test_describe_names_the_state_and_counters(ralph: Ralph) -> None:
    same = _verification(_tests("assert 1 == 2"))
    driver = Driver(ralph, same)
    driver.step(same, files=())
    assert breaker.describe(driver.state) == (
        "closed (same-errors 1/5, no-change 1/3, no-progress 1/5)")


@pytest.mark.parametrize(("spec", "metric", "gap"), [
    ("coverage>=80", 73.5, 6.5), ("coverage>=80", 85.0, 0.0), ("tests>=120", 100.0, 20.0),
    ("cmd:x<=2", 5.0, 3.0), ("files:a==3", 1.0, 2.0), ("tests", 3.0, None),
])
def test_threshold_gap(spec: str, metric: float, gap: float | None) -> None:
    result = CheckResult("x", spec, Status.FAILED, "", metric=metric)
    assert breaker.threshold_gap(result) == gap


def test_the_plugin_is_built_in_and_declares_its_settings(ralph: Ralph) -> None:
    config = get_config(["check", "--root", str(ralph.path)])
    assert config.pluginmanager.get_plugin("breaker") is breaker
    assert config.get("stall-no-change") == 3
    assert config.parser.settings["stall-same-errors"].plugin == "breaker"
