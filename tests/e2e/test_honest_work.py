"""Honest work passes integrity: each iteration below fixes the bug *and* makes a change that
real projects make every week — a suppression that hides nothing from this run's checks, a
renamed or moved test, a feature deleted with its tests, a skip whose condition is false
here, a test of a class's own ``>=``, a stricter lint configuration — and the loop ends
``complete``, under ``run`` and under the Stop hook alike. The cheats next to them still fail.
"""

from __future__ import annotations

import json

import pytest

from tests.drivers import Driver, Outcome

PRICING = """\
def total(prices, rounding=None):
    return sum(prices) - 1


def legacy_total(prices):
    return sum(prices)


class Money:
    def __init__(self, cents):
        self.cents = cents

    def __eq__(self, other):
        return self.cents == other.cents

    def __ge__(self, other):
        return self.cents > other.cents
"""
FIXED = PRICING.replace("sum(prices) - 1", "sum(prices)").replace(
    "self.cents > other.cents", "self.cents >= other.cents")
TESTS = """\
from shop.pricing import Money, legacy_total, total


def test_total():
    assert total([1, 2]) == 3


def test_total_rounding():
    assert total([1, 2], rounding=1) == 3


def test_legacy_total():
    assert legacy_total([1, 2]) == 3


class TestMoney:
    def test_equal(self):
        assert Money(5) == Money(5)

    def test_order(self):
        assert Money(5) >= Money(5)
"""
PYPROJECT = '[tool.ruff]\nselect = ["E", "F"]\n'


def _make_shop(driver: Driver, extra: dict[str, str] | None = None) -> Driver:
    """A package whose ``total`` and ``Money.__ge__`` are wrong, with tests (and ``extra``
    files), in git."""
    driver.ralph.makepyproject(PYPROJECT)
    for name, text in {"shop/__init__.py": "", "shop/pricing.py": PRICING,
                       "tests/test_pricing.py": TESTS, **(extra or {})}.items():
        driver.ralph.makefile(name, text)
    driver.ralph.git_init()
    return driver


@pytest.fixture
def shop(driver: Driver) -> Driver:
    return _make_shop(driver)


def _integrity(outcome: Outcome, iteration: int = 1) -> dict[str, object]:
    data = json.loads((outcome.root / f".ralph/iterations/{iteration:03d}/verification.json")
                      .read_text())
    check: dict[str, object] = next(c for c in data["checks"] if c["name"] == "integrity")
    return check


def _complete(shop: Driver, step: dict[str, str | None], until: str = "tests",
              *args: str) -> str:
    """Loop one iteration of ``step`` (with the fix); the integrity summary."""
    outcome = shop.loop(until, [{"shop/pricing.py": FIXED, **step}], *args)
    check = _integrity(outcome)
    assert outcome.verdict == "complete", check
    assert check["status"] == "passed", check
    return str(check["summary"])


def test_suppressions_that_hide_nothing_from_the_gate_pass(shop: Driver) -> None:
    _complete(shop, {
        "shop/pricing.py": FIXED.replace("def legacy_total(prices):",
                                         "def legacy_total(prices):  # noqa"),
        "tests/test_pricing.py": TESTS.replace("== 3\n", "== 3  # type: ignore\n", 1),
        "tests/helpers.py": "def unused():  # pragma: no cover\n    raise NotImplementedError\n",
        "benchmarks/bench.py": "# mypy: ignore-errors\nx: int = 'a'  # type: ignore[assignment]\n",
    })


def test_suppressions_in_files_mypy_and_coverage_do_not_read_pass(driver: Driver) -> None:
    """types and coverage decide this run, but mypy checks only the package (mypy.ini) and
    coverage measures only the package (.coveragerc): a blanket suppression in a script
    hides nothing from either; the same in the package still fails."""
    _make_shop(driver, {"mypy.ini": "[mypy]\nfiles = shop\n",
                        ".coveragerc": "[run]\nsource = shop\n"})
    script = "x: int = 'a'  # type: ignore\nif x:  # pragma: no cover\n    print(x)\n"
    _complete(driver, {"scripts/tool.py": script}, until="tests,types,coverage")


def test_the_same_suppressions_in_the_package_still_fail(driver: Driver) -> None:
    _make_shop(driver, {"mypy.ini": "[mypy]\nfiles = shop\n"})
    outcome = driver.loop("tests,types", [{"shop/pricing.py": FIXED + "\nx: int = 'a'  # type: "
                                         "ignore\n"}])
    assert outcome.verdict != "complete"
    assert "new type: ignore suppression comment `# type: ignore` at shop/pricing.py:" \
        in json.dumps(_integrity(outcome))


def test_narrow_suppressions_where_the_rule_fires_are_listed(shop: Driver) -> None:
    summary = _complete(shop, {
        "shop/__init__.py": "import os  # noqa: F401\n",
        "shop/fmt.py": "double = lambda x: x * 2  # noqa: E731\n",
    }, until="tests,lint")
    assert "shop/__init__.py:1: `# noqa: F401` (a narrow suppression)" in summary
    assert "shop/fmt.py:1: `# noqa: E731` (a narrow suppression)" in summary


def test_a_blanket_or_bulk_noqa_still_fails_when_lint_decides(shop: Driver) -> None:
    outcome = shop.loop("tests,lint", [{"shop/pricing.py": FIXED, "shop/__init__.py":
                                        "import os  # noqa\n"}])
    assert outcome.verdict != "complete"
    assert "new noqa suppression comment `# noqa` at shop/__init__.py:1 (a blanket one)" \
        in json.dumps(_integrity(outcome))


def test_renamed_and_moved_tests_are_renames(shop: Driver) -> None:
    moved = TESTS.split("class TestMoney")[0]
    summary = _complete(shop, {
        "tests/test_pricing.py": moved.replace("def test_total():", "def test_sum_of_prices():"),
        "tests/test_money.py": "from shop.pricing import Money\n\n\nclass TestMoneyOrdering" +
                               TESTS.split("class TestMoney")[1],
    })
    assert "renamed tests/test_pricing.py::test_total -> tests/test_pricing.py::" \
           "test_sum_of_prices" in summary


def test_a_feature_deleted_with_its_tests_is_reported_not_failed(shop: Driver) -> None:
    tests = TESTS.split("def test_total_rounding")[0] + "class TestMoney" + \
        TESTS.split("class TestMoney")[1]
    summary = _complete(shop, {
        "shop/pricing.py": FIXED.replace("def legacy_total(prices):\n    return sum(prices)\n"
                                         "\n\n", "").replace(", rounding=None", ""),
        "tests/test_pricing.py": tests.replace("Money, legacy_total, total", "Money, total"),
    }, "tests", "--allow-test-edits")  # the start's tests would still test the feature
    assert "test tests/test_pricing.py::test_legacy_total was deleted with the feature it " \
           "tested (legacy_total gone from the project)" in summary
    assert "test_total_rounding was deleted with the feature it tested (rounding gone" \
        in summary


SKIPS = """\
import os
import sys
import unittest

import pytest

from shop.pricing import Money, total

NOT_HERE = sys.platform == "plan9"


@pytest.mark.skipif(sys.platform == "plan9", reason="not on plan9")
def test_total():
    assert total([1, 2]) == 3


@unittest.skipIf(sys.version_info < (3, 0), "python 2")
def test_total_rounding():
    assert total([1, 2], rounding=1) == 3


@pytest.mark.xfail(NOT_HERE, reason="plan9 only")
def test_legacy_total():
    pytest.importorskip("json")
    assert total([3]) == 3
"""
OPT_IN = """\
import os
import unittest

from shop.pricing import total


@unittest.skipUnless(os.environ.get("SHOP_SLOW"), "slow: set SHOP_SLOW=1")
class SlowTest(unittest.TestCase):
    def test_many(self):
        self.assertEqual(total(range(10**6)), 499999500000)
"""


def test_skips_whose_condition_is_false_here_and_opt_in_files_pass(shop: Driver) -> None:
    summary = _complete(shop, {
        "tests/test_pricing.py": SKIPS + "\n\nclass TestMoney" + TESTS.split("class TestMoney")[1],
        "tests/test_slow.py": OPT_IN,
    })
    assert "tests/test_slow.py:7: `unittest.skipUnless` applies only to new tests" in summary


def test_a_skip_whose_condition_holds_here_still_fails(shop: Driver) -> None:
    outcome = shop.loop("tests", [{"shop/pricing.py": FIXED, "tests/test_pricing.py": TESTS
                                   .replace("def test_total():", "@pytest.mark.skipif("
                                            "sys.platform != 'plan9', reason='x')\n"
                                            "def test_total():")
                                   .replace("from shop", "import sys\nimport pytest\nfrom shop")}])
    assert outcome.verdict != "complete"
    assert "new skip marker `pytest.mark.skipif` at tests/test_pricing.py:6" \
        in json.dumps(_integrity(outcome))


def test_comparing_an_object_with_itself_through_its_operator_is_a_test(shop: Driver) -> None:
    _complete(shop, {"tests/test_pricing.py": TESTS.replace(
        "        assert Money(5) >= Money(5)\n",
        "        assert Money(5) >= Money(5)\n        m = Money(5)\n        assert m >= m\n"
        "        assert m == m\n")})


def test_a_stricter_lint_configuration_is_not_loosened(shop: Driver) -> None:
    _complete(shop, {"pyproject.toml": '[tool.ruff.lint]\nselect = ["E", "F", "B", "UP"]\n'
                                       'ignore = ["B008", "UP007"]\n'})


def test_a_file_that_stops_collecting_is_left_to_the_tests_check(shop: Driver) -> None:
    outcome = shop.loop("tests", [{"shop/pricing.py": FIXED, "tests/test_pricing.py":
                                   TESTS + "\ndef broken(:\n"}])
    assert outcome.verdict != "complete"  # the tests check fails: the file does not collect
    check = json.dumps(_integrity(outcome))
    assert "removed" not in check and "is gone" not in check, check
