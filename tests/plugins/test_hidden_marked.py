"""``tests:hidden`` without a path: the tests the user marks ``@pytest.mark.hidden`` are held
out — left out of the visible run, run apart, reported by id and first message line only —
in a real loop under both drivers."""

from __future__ import annotations

from ralph_verify.testing import Ralph
from tests.drivers import Driver

KATA = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a + b\n"
FIXED_ADD = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n"
FIXED = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
TESTS = """\
import pytest

from kata import add, mul


def test_add():
    assert add(2, 3) == 5


@pytest.mark.hidden
def test_mul_secret_expectation():
    assert mul(4, 5) == 20, "the product of four and five"
"""


def _kata(driver: Driver) -> None:
    driver.ralph.makepyproject('[tool.pytest.ini_options]\naddopts = "--strict-markers"\n')
    driver.ralph.makepyfile(kata=KATA, **{"tests/test_kata": TESTS})
    driver.ralph.git_init()


def test_marked_tests_are_held_out_until_they_pass(driver: Driver) -> None:
    _kata(driver)
    outcome = driver.loop("tests,tests:hidden", [{"kata.py": FIXED_ADD}, {"kata.py": FIXED}],
                          "--max-iterations", "3")
    assert outcome.verdict == "complete" and outcome.iterations == 2, outcome.result
    feedback = outcome.prompt(2)
    assert "test_mul_secret_expectation" in feedback
    assert "hidden test: source withheld" in feedback
    assert "mul(4, 5)" not in feedback and "== 20" not in feedback  # no source, no rewrite
    assert "test_add" not in feedback  # the visible run passed


def test_no_marked_test_is_a_clear_failure(ralph: Ralph) -> None:
    ralph.makepyfile(kata=FIXED, test_kata="from kata import add\n\n\ndef test_add():\n"
                                           "    assert add(2, 3) == 5\n")
    result = ralph.run("check", "--until", "tests,tests:hidden")
    assert result.ret == 1, result
    assert "none was collected: mark the acceptance tests, or use tests:hidden=PATH" \
        in result.out, result.out
    assert "Traceback" not in result.out + result.err
