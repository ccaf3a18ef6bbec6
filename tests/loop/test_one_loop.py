"""The loop's contract, once for each driver: ``run`` and the agent's Stop hook drive the same
iteration (``ralph_verify/loop/cycle.py``), so they must agree on every verdict below."""

from __future__ import annotations

import json

import pytest

from tests.drivers import Driver
from tests.loop_helpers import CALC, CALC_TESTS


def fixed_calc() -> str:
    return "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"


@pytest.fixture
def calc(driver: Driver) -> Driver:
    """A project whose tests fail at the start (``add`` and ``mul`` are wrong), in git."""
    driver.ralph.makepyfile(calc=CALC, test_calc=CALC_TESTS)
    driver.ralph.git_init()
    return driver


def test_completes_once_the_checks_pass(driver: Driver) -> None:
    outcome = driver.loop("files:done.txt", [{}, {"done.txt": "ok\n"}], "--max-iterations", "5")
    assert outcome.verdict == "complete" and outcome.iterations == 2


def test_saying_done_never_completes_a_failing_check(calc: Driver) -> None:
    outcome = calc.loop("tests", [{"notes.txt": f"done {n}\n"} for n in range(3)])
    assert outcome.verdict == "max-iterations" and outcome.iterations == 3


def test_the_failures_reach_the_next_prompt_and_the_fix_completes(calc: Driver) -> None:
    outcome = calc.loop("tests", [{}, {"calc.py": fixed_calc()}], "--max-iterations", "5")
    assert outcome.verdict == "complete" and outcome.iterations == 2
    feedback = outcome.prompt(2)
    assert "test_calc.py::test_add" in feedback and "test_calc.py::test_mul" in feedback


def test_the_same_errors_with_no_change_stop_the_loop(calc: Driver) -> None:
    calc.ralph.makepyproject("[tool.ralph-verify]\nstall-no-change = 1\n")
    calc.ralph.git("add", "-A")
    calc.ralph.git("commit", "-q", "-m", "stall after one iteration without change")
    outcome = calc.loop("tests", [{}, {}, {}, {}], "--max-iterations", "10")
    assert outcome.verdict == "stalled" and outcome.iterations == 2


def test_deleting_the_failing_tests_never_completes(calc: Driver) -> None:
    only_ok = "def test_ok():\n    assert True\n"
    outcome = calc.loop("tests", [{"test_calc.py": only_ok}] * 2)
    assert outcome.verdict != "complete" and outcome.iterations == 2
    assert "test_add" in outcome.prompt(2)  # the agent is told what it removed


def test_skipping_the_failing_tests_never_completes(calc: Driver) -> None:
    skipped = "import pytest\n\npytestmark = pytest.mark.skip('later')\n\n" + CALC_TESTS
    outcome = calc.loop("tests", [{"test_calc.py": skipped}] * 2)
    assert outcome.verdict != "complete" and outcome.iterations == 2


def test_weakening_the_failing_assertions_never_completes(calc: Driver) -> None:
    weakened = CALC_TESTS.replace("== 5", "== add(2, 3)").replace("== 6", "== mul(2, 3)")
    outcome = calc.loop("tests", [{"test_calc.py": weakened}] * 2)
    assert outcome.verdict != "complete" and outcome.iterations == 2


def test_the_affected_tests_run_first_and_the_full_suite_decides(calc: Driver) -> None:
    # Iteration 1 changes add's body (still wrong): only the tests that failed or ran add run
    # first, a partial run that fails. Iteration 2 fixes calc.py: they pass, the full suite
    # runs and decides complete.
    calc.ralph.makepyproject('[tool.ralph-verify.checks.tests]\nselect = "affected"\n')
    calc.ralph.makepyfile(text="def shout(s):\n    return s.upper()\n", test_text="""\
        from text import shout

        def test_shout():
            assert shout("a") == "A"
        """)
    calc.ralph.git("add", "-A")
    calc.ralph.git("commit", "-q", "-m", "affected tests first")
    still_wrong = CALC.replace("a - b", "b - a")
    outcome = calc.loop("tests", [{"calc.py": still_wrong}, {"calc.py": fixed_calc()}],
                        "--max-iterations", "5")
    assert outcome.verdict == "complete" and outcome.iterations == 2
    history = [json.loads(line) for line in
               (outcome.root / ".ralph/history.jsonl").read_text().splitlines()]
    first, second = (line["checks"][0] for line in history)
    assert first["counts"]["partial"] == 1 and first["counts"]["selected"] == 2  # add, mul
    assert first["status"] == "failed" and "partial run" in first["summary"]
    assert "partial" not in second["counts"] and second["counts"]["passed"] == 4
