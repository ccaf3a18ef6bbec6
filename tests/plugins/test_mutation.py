"""``mutation``: real pytest in temporary git projects, through ``check`` and ``run``."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.checks.api import Check, CheckResult, CheckType, Status, VerifyContext
from ralph_verify.checks.registry import CheckRegistry
from ralph_verify.markers import hookimpl
from ralph_verify.plugins.mutation.engine import switched
from ralph_verify.plugins.mutation.new_tests import idle_new_tests
from ralph_verify.testing import Ralph
from tests.loop_helpers import agent, prompt, state

BEFORE = """\
def price(total):
    return total
"""
CHANGED = """\
def price(total, vip=False):
    if total > 100 and not vip:
        total = total * 0.5
    return total
"""
ASSERTS_NOTHING = """\
from pricing import price


def test_price():
    price(200)
    price(50, vip=True)
"""
GOOD_TESTS = """\
from pricing import price


def test_discount_above_100():
    assert price(200) == 100
    assert price(101) == 50.5


def test_no_discount_at_100():
    assert price(100) == 100


def test_no_discount_for_vip():
    assert price(200, vip=True) == 200


def test_small():
    assert price(50) == 50
"""
DISCOUNT_TEST = """\
from pricing import price


def test_discount():
    assert price(200) == 100
"""


def project(ralph: Ralph, tests: str, changed: str = CHANGED) -> None:
    """A repository whose commit has ``BEFORE``, with ``changed`` and ``tests`` uncommitted."""
    ralph.makepyfile(pricing=BEFORE, **{"tests/test_pricing": "def test_nothing():\n    pass\n"})
    ralph.git_init()
    ralph.makepyfile(pricing=changed, **{"tests/test_pricing": tests})


def mutation(ralph: Ralph, *args: str) -> dict[str, Any]:
    result = ralph.run("check", "--until", "mutation>=80", "--json", *args)
    check: dict[str, Any] = result.json()["checks"][0]
    return check


def tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.parts}


def test_tests_that_assert_nothing_score_0_and_each_survivor_is_named(ralph: Ralph) -> None:
    project(ralph, ASSERTS_NOTHING)
    check = mutation(ralph)
    assert check["status"] == "failed"
    assert check["metric"] == 0
    assert check["counts"]["mutants"] == 6 and check["counts"]["killed"] == 0
    messages = {f["message"] for f in check["failures"]}
    assert "`pricing.py:3`: replacing `0.5` by `1.5` breaks no test" in messages
    assert "`pricing.py:2`: replacing `>` by `>=` breaks no test" in messages
    assert "`pricing.py:2`: replacing `and` by `or` breaks no test" in messages
    assert all(f["path"] == "pricing.py" and f["code"] == "survived" for f in check["failures"])
    assert "0/6 mutants killed (0% < 80%)" in check["summary"]
    assert "since HEAD" in check["summary"]


def test_good_tests_kill_every_mutant(ralph: Ralph) -> None:
    project(ralph, GOOD_TESTS)
    check = mutation(ralph)
    assert check["status"] == "passed", check
    assert check["metric"] == 100
    assert check["failures"] == []
    assert check["counts"]["killed"] == check["counts"]["mutants"] == 6


def test_the_users_tree_is_byte_identical_after_the_check(ralph: Ralph) -> None:
    project(ralph, GOOD_TESTS)
    before = tree_digest(ralph.path)
    status = ralph.git("status", "--porcelain", "--ignored")
    mutation(ralph)
    assert tree_digest(ralph.path) == before
    assert ralph.git("status", "--porcelain", "--ignored") == status


def test_an_unchanged_tree_is_not_judged_and_claims_no_score(ralph: Ralph) -> None:
    project(ralph, GOOD_TESTS)
    ralph.git("add", "-A")
    ralph.git("commit", "-q", "-m", "work")
    check = mutation(ralph)
    assert check["status"] == "skipped"
    assert check["metric"] is None
    assert check["summary"] == "not judged: no product line changed since HEAD"
    assert check["counts"] == {"mutants": 0}


def test_only_module_level_changes_are_not_judged_and_say_why(ralph: Ralph) -> None:
    project(ralph, GOOD_TESTS)
    ralph.git("add", "-A")
    ralph.git("commit", "-q", "-m", "work")
    ralph.makefile("pricing.py", "LIMIT = 100\n" + CHANGED)
    check = mutation(ralph)
    assert check["status"] == "skipped"
    assert "hold nothing to mutate" in check["summary"]
    assert "1 changed line at module or class level not mutated" in check["summary"]


def test_baseline_ref_measures_the_changes_since_that_commit(ralph: Ralph) -> None:
    project(ralph, ASSERTS_NOTHING)
    ralph.git("add", "-A")
    ralph.git("commit", "-q", "-m", "work")
    assert mutation(ralph)["status"] == "skipped"  # against HEAD: nothing changed
    check = mutation(ralph, "--baseline", "HEAD~1")
    assert check["metric"] == 0 and check["counts"]["mutants"] == 6
    assert "since HEAD~1" in check["summary"]


def test_a_mutant_that_hangs_its_tests_counts_killed_and_the_rest_still_run(
        ralph: Ralph) -> None:
    countdown = """\
        def steps(n):
            count = 0
            while n != 0:
                n -= 1
                count += 1
            return count
        """
    ralph.makepyfile(**{"tests/test_steps": "def test_nothing():\n    pass\n"})
    ralph.makefile("steps.py", "def steps(n):\n    return n\n")
    ralph.git_init()
    ralph.makefile("steps.py", countdown)
    ralph.makepyfile(**{"tests/test_steps": "from steps import steps\n\n\n"
                                           "def test_steps():\n    assert steps(3) == 3\n"})
    check = mutation(ralph)
    assert "counted killed because their tests hung or the test process died" \
        in check["summary"], check
    assert check["counts"]["timeouts"] >= 1
    # '-=' by '+=' never ends; the other mutants were judged by the next process
    assert check["counts"]["killed"] + check["counts"]["survived"] == check["counts"]["mutants"]
    assert check["counts"]["mutants"] >= 6


def test_a_file_that_does_not_parse_is_skipped_by_name(ralph: Ralph) -> None:
    project(ralph, GOOD_TESTS)
    ralph.makefile("broken.py", "def f(:\n")
    check = mutation(ralph)
    assert "broken.py does not parse" in check["summary"]
    assert check["counts"]["mutants"] == 6


def test_tests_and_helpers_are_not_mutated(ralph: Ralph) -> None:
    project(ralph, ASSERTS_NOTHING)
    ralph.makefile("tests/helpers.py", "def double(x):\n    return x * 2\n")
    ralph.makefile("conftest.py", "def pytest_configure(config):\n    x = 1 + 1\n")
    check = mutation(ralph)
    assert {f["path"] for f in check["failures"]} == {"pricing.py"}


def test_a_line_no_test_runs_is_named_unreached(ralph: Ralph) -> None:
    project(ralph, ASSERTS_NOTHING)
    ralph.makefile("extra.py", "def half(x):\n    return x / 2\n")
    check = mutation(ralph)
    unreached = [f["message"] for f in check["failures"] if f["code"] == "unreached"]
    assert "`extra.py:2`: replacing `/` by `*`: no passing test runs this line" in unreached


def test_not_a_git_repository_is_an_error_that_says_so(ralph: Ralph) -> None:
    ralph.makepyfile(pricing=CHANGED)
    check = mutation(ralph)
    assert check["status"] == "error"
    assert "is not a git repository" in check["summary"]


# -- the engine ---------------------------------------------------------------------------


def test_the_engine_numbers_the_same_mutants_the_same_way() -> None:
    first = switched(CHANGED, [2, 3], 7)
    again = switched(CHANGED, [2, 3], 7)
    assert [m.id for m in first.mutants] == list(range(7, 13))
    assert first.mutants == again.mutants
    assert switched(CHANGED, [4], 1).mutants[0].describe() \
        == "replacing `return total` by `return None`"


@pytest.mark.parametrize("source", [
    'def f(x):\n    """Doc 1."""\n    return f"{x + 1}"\n',
    "def f(x):\n    match x:\n        case 1:\n            return 2\n",
    "def f(x: int = 1) -> int:\n    y: int = 3\n    return y\n",
])
def test_the_engine_leaves_alone_what_must_stay_as_it_is(source: str) -> None:
    made = switched(source, range(1, 10))
    described = [m.describe() for m in made.mutants]
    assert not any("Doc" in d or "`+` by" in d or "`1` by" in d or "`int`" in d
                   for d in described), described
    assert made.tree is not None
    compile(made.tree, "<test>", "exec")


# -- in a loop ------------------------------------------------------------------------------


def test_a_loop_measures_from_the_sessions_start_and_ends_when_the_tests_bite(
        ralph: Ralph) -> None:
    ralph.makepyproject('[tool.ralph-verify.checks.tests]\nselect = "affected"\n')
    ralph.makepyfile(pricing=BEFORE, **{"tests/test_pricing": DISCOUNT_TEST})
    ralph.git_init()
    # The loop commits each iteration: the session's start, not HEAD, is the baseline. The
    # agent's first change passes the one test, which kills half the mutants; then it adds
    # tests.
    body = f"""\
        pathlib.Path("pricing.py").write_text({CHANGED!r})
        if N == 2:
            pathlib.Path("tests/test_pricing.py").write_text({GOOD_TESTS!r})
        """
    result = ralph.run("run", "--agent", agent(ralph, body), "--until", "tests,mutation>=80",
                       "--max-iterations", "2", "--no-integrity", "price with a discount")
    assert result.ret == 0, result
    assert state(ralph)["verdict"]["verdict"] == "complete"
    first = json.loads((ralph.path / ".ralph/iterations/001/verification.json").read_text())
    check = next(c for c in first["checks"] if c["name"] == "mutation")
    assert check["status"] == "failed" and check["metric"] == 50
    assert "from the affected-tests map" in check["summary"], check["summary"]
    assert "`pricing.py:2`: replacing `and` by `or` breaks no test" in prompt(ralph, 2)
    second = json.loads((ralph.path / ".ralph/iterations/002/verification.json").read_text())
    check = next(c for c in second["checks"] if c["name"] == "mutation")
    assert check["metric"] == 100 and "6/6 mutants killed" in check["summary"]


# -- for integrity: new tests that kill nothing ----------------------------------------------


class IdleTestsCheck(Check):
    """``idle``: what :func:`idle_new_tests` finds for the tests named in the environment."""

    def run(self, ctx: VerifyContext) -> CheckResult:
        new = os.environ["NEW_TESTS"].split(",")
        failures = idle_new_tests(ctx, new, timeout=self.timeout)
        return self.result(Status.FAILED if failures else Status.PASSED, "", failures=failures)


class IdlePlugin:
    @hookimpl
    def ralph_register_checks(self, registry: CheckRegistry) -> None:
        registry.add(CheckType(name="idle", factory=IdleTestsCheck, help="test only"))


def test_new_tests_that_kill_few_mutants_of_the_code_they_run_are_a_finding(
        ralph: Ralph) -> None:
    """Judged by file: the idle tests' own file kills nothing; a narrow test beside tests
    that kill (test_no_discount_for_vip here) is not idle; a file that runs the product only
    while it is imported (coverage without a test) is idle."""
    project(ralph, GOOD_TESTS)
    ralph.makepyfile(**{"tests/test_idle": "from pricing import price\n\n\n"
                        "def test_runs_but_asserts_nothing():\n    price(300)\n\n\n"
                        "def test_checks_only_that_it_returns():\n"
                        "    assert price(300) is not None\n\n\n"
                        "def test_unrelated():\n    assert 1\n",
                        "tests/test_at_import": "from pricing import price\n\nprice(300)\n"
                        "price(50)\n\n\ndef test_importable():\n    assert callable(price)\n"})
    ralph.env["NEW_TESTS"] = ",".join(
        ["tests/test_pricing.py::test_no_discount_for_vip", "tests/test_at_import.py"]
        + [f"tests/test_idle.py::{name}" for name in (
            "test_runs_but_asserts_nothing", "test_checks_only_that_it_returns",
            "test_unrelated")])
    result = ralph.run("check", "--until", "idle", "--json", plugins=[IdlePlugin()])
    failures = result.json()["checks"][0]["failures"]
    assert [f["location"] for f in failures] == [
        "tests/test_at_import.py", "tests/test_idle.py"], failures
    assert {f["code"] for f in failures} == {"idle-test"}
    assert "run none of the product code they import (pricing.py)" in failures[0]["message"]
    assert "tests/test_idle.py kill 0 of the" in failures[1]["message"]
    assert "of the product code they run (pricing.py;" in failures[1]["message"]
