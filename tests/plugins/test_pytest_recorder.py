"""ralph-verify's pytest plugin: pytest's own node ids, pytest's own counts, raw call outcomes."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

from ralph_verify.testing import Ralph

CALC = "def add(a, b):\n    return a + b\n"

MIXIN = """
from pathlib import Path

from calc import add


class AddMixin:
    def test_add(self):
        assert add(1, 2) == 3

    def test_flaky(self):
        marker = Path(__file__).parent / ("marker-" + type(self).__name__)
        if not marker.exists():
            marker.write_text("failed once")
            assert False, "fails the first time only"
"""

USES_MIXIN = """
from tests.mixins import AddMixin


class TestAdd(AddMixin):
    pass
"""


def check_of_tests(result: Any) -> dict[str, Any]:
    checks: list[dict[str, Any]] = result.json()["checks"]
    return next(c for c in checks if c["name"] == "tests")


def test_ids_are_pytests_node_ids_so_a_flaky_inherited_test_is_re_run(ralph: Ralph) -> None:
    ralph.makepyfile(calc=CALC, **{"tests/__init__": "", "tests/mixins": MIXIN,
                                   "tests/test_uses_mixin": USES_MIXIN})
    ralph.makepyproject('[tool.ralph-verify.checks.tests]\nflaky = "allow"\n')
    result = ralph.run("check", "--until", "tests", "--json")
    assert result.ret == 0, result
    tests = check_of_tests(result)
    # The id names the class in the module that collects it, not the mixin's module:
    # `pytest tests/test_uses_mixin.py::TestAdd::test_flaky` runs it, so the re-run works.
    assert tests["flaky"] == ["tests/test_uses_mixin.py::TestAdd::test_flaky"]
    assert tests["summary"] == "2 passed (1 flaky)"


COUNTED = """
import pytest


def test_ok():
    pass


@pytest.mark.skip(reason="not today")
def test_skipped():
    pass


@pytest.mark.xfail(reason="known bug")
def test_xfail():
    assert False


@pytest.mark.xfail(reason="fixed already")
def test_xpass():
    pass


def test_deselected_one():
    pass


def test_deselected_two():
    pass


def test_subtests(subtests):
    for number in range(3):
        with subtests.test(number=number):
            assert number < 10
"""


def pytest_summary(ralph: Ralph, *args: str) -> str:
    """pytest's own last line, without the time and warnings."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
                          cwd=ralph.path, capture_output=True, text=True, check=False)
    last = proc.stdout.strip().splitlines()[-1].strip("= ")
    last = re.sub(r" in [\d.]+s.*$", "", last)
    return ", ".join(p for p in last.split(", ") if "warning" not in p)


def test_counts_agree_with_pytests_own_summary(ralph: Ralph) -> None:
    ralph.makepyfile(**{"tests/test_counted": COUNTED})
    args = ["--deselect", "tests/test_counted.py::test_deselected_one",
            "--deselect", "tests/test_counted.py::test_deselected_two"]
    ralph.makepyproject(f"[tool.ralph-verify.checks.tests]\nargs = {args!r}\n".replace("'", '"'))
    expected = pytest_summary(ralph, *args)
    assert "xfailed" in expected and "deselected" in expected, expected
    passed = int(expected.split(" passed")[0].split()[-1])
    result = ralph.run("check", "--until", f"tests>={passed}", "--json")
    assert result.ret == 0, result
    tests = check_of_tests(result)
    assert tests["summary"] == expected
    assert tests["metric"] == passed
    # The threshold counts what pytest calls passed: one more wanted fails.
    result = ralph.run("check", "--until", f"tests>={passed + 1}")
    assert result.ret == 1, result


SETUP_COUNTING_CONFTEST = """
def pytest_report_teststatus(report, config):
    if report.when == "setup" and report.passed:
        return "skipped", "s", "SETUP"
"""


def test_a_conftest_counting_passing_setups_is_still_asked(ralph: Ralph) -> None:
    # pytest's own plugins count a passing setup as nothing, and the recorder does not ask
    # them again for every test; a conftest that counts it otherwise is asked, as pytest does.
    ralph.makepyfile(conftest=SETUP_COUNTING_CONFTEST, **{"tests/test_two": (
        "def test_one():\n    pass\n\n\ndef test_two():\n    pass\n")})
    expected = pytest_summary(ralph)
    assert expected == "2 passed, 2 skipped", expected
    result = ralph.run("check", "--until", "tests", "--json")
    assert check_of_tests(result)["summary"] == expected


TAMPERING_CONFTEST = """
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.outcome = "passed"
        report.longrepr = None
"""


def test_a_conftest_rewriting_failed_reports_to_passed_is_tampering(ralph: Ralph) -> None:
    ralph.makepyfile(calc=CALC, conftest=TAMPERING_CONFTEST, **{"tests/test_calc": (
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 5\n\n\n"
        "def test_ok():\n    assert add(1, 1) == 2\n")})
    # pytest itself is fooled: "2 passed".
    assert pytest_summary(ralph) == "2 passed"
    result = ralph.run("check", "--until", "tests", "--json")
    assert result.ret == 1, result
    tests = check_of_tests(result)
    assert tests["summary"] == "1 failed, 1 passed"
    [failure] = tests["failures"]
    assert failure["location"] == "tests/test_calc.py::test_add"
    assert failure["code"] == "tampering"
    assert failure["message"].startswith(
        "tampering: report rewritten by conftest.py (pytest_runtest_makereport): the test "
        "raised AssertionError but its report says passed")


SLUGIFY = '''
def slugify(text):
    if "-" in text:
        raise ValueError("a dash in " + text)
    if text.isdigit():
        return int(text) // (len(text) - len(text))
    return text.lower()
'''

MANY_FAILURES = '''
import pytest

from slug import slugify

DASHED = [a + "-" + b for a in "abcdefghijklmnopqrst" for b in "abcdefghijklmno"]
DIGITS = [str(100 + n) for n in range(150)]
UPPER = [a + b for a in "ABCDEFGHIJ" for b in "KLMNO"]


@pytest.mark.parametrize("text", DASHED + DIGITS)
def test_slugify_keeps_text(text):
    assert slugify(text) is not None


@pytest.mark.parametrize("text", UPPER)
def test_slugify_keeps_case(text):
    assert slugify(text) == text
'''


def test_500_failures_of_3_root_causes_are_3_groups_all_counted_and_named(ralph: Ralph) -> None:
    ralph.makepyfile(slug=SLUGIFY, **{"tests/test_slug": MANY_FAILURES})
    result = ralph.run("check", "--until", "tests", "--json")
    assert result.ret == 1, result
    tests = check_of_tests(result)
    assert tests["summary"] == "500 failed, 0 passed"
    groups: dict[str, list[dict[str, Any]]] = {}
    for failure in tests["failures"]:
        groups.setdefault(failure["fingerprint"], []).append(failure)
    sizes = sorted(((len(g), g[0]["code"], g[0]["path"], g[0]["line"]) for g in groups.values()),
                   reverse=True)
    # The failing line in the code under test (slug.py) and the exception, whatever the
    # message; the test's own line when the code under test did not raise.
    def line_of(path: str, needle: str) -> int:
        lines = (ralph.path / path).read_text().splitlines()
        return next(n for n, line in enumerate(lines, 1) if needle in line)

    assert sizes == [
        (300, "ValueError", "slug.py", line_of("slug.py", "raise ValueError")),
        (150, "ZeroDivisionError", "slug.py", line_of("slug.py", "int(text) //")),
        (50, "AssertionError", "tests/test_slug.py",
         line_of("tests/test_slug.py", "assert slugify(text) == text"))]
    # Every group has an excerpt, which shows the failing and E lines, not the long
    # parametrize list above the test.
    for group in groups.values():
        detail = group[0]["detail"]
        assert "E  " in detail and ">" in detail, detail
        assert "DASHED + DIGITS" not in detail and "@pytest" not in detail, detail
    # The feedback (the agent's text: --json's ``feedback``; stderr is for a person) names
    # all three causes with their true counts.
    feedback = result.json()["feedback"]
    for count in ("300 failures", "150 failures", "50 failures"):
        assert count in feedback, feedback


def test_a_plain_pass_is_written_as_the_encoder_writes_it() -> None:
    # Most records are a plain pass, written from a template rather than by the encoder: the
    # reader must not be able to tell them apart, whatever the node id holds.
    from ralph_verify.recorder import plugin as recorder

    for node_id in ("tests/test_a.py::test_one", 'tests/test_q.py::test_x["a\\\\b"]',
                    "tests/test_ü.py::test_[π-\U0001f600]", "t.py::test[\n\t\x00]"):
        record = {"k": "r", "id": node_id, "when": "call", "outcome": "passed",
                  "cat": "passed", "xfail": False}
        assert recorder.PASSED_LINE % recorder._quote(node_id) == recorder._encode(record) + "\n"


def test_the_plugin_and_ralph_verify_name_its_files_alike() -> None:
    # The plugin cannot import ralph-verify's package, so it keeps copies of the names.
    from ralph_verify.recorder import plugin, sources

    assert (plugin.JUNIT_VAR, plugin.FINISHED) == (sources.JUNIT_VAR, sources.FINISHED)


def test_a_failing_subtest_is_named_as_pytest_names_it(ralph: Ralph) -> None:
    ralph.makepyfile(**{"tests/test_sub": """\
        def test_numbers(subtests):
            for number in range(3):
                with subtests.test("small", number=number):
                    assert number < 2
        """})
    result = ralph.run("check", "--until", "tests", "--json")
    assert result.ret == 1, result
    messages = [failure["message"] for failure in check_of_tests(result)["failures"]]
    assert any(m.startswith("subtest [small] (number=2): ") for m in messages), messages
