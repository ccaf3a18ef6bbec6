"""``tests:PATH[::NODE][>=N]``: a file's or node's tests all pass and at least N exist, judged
from the one shared pytest run of the verification."""

from __future__ import annotations

import pytest

from ralph_verify.testing import Ralph

TESTS_A = """\
def test_one():
    assert True


def test_two():
    assert True
"""

TESTS_B = """\
import pytest


def test_good():
    assert True


def test_bad():
    assert 1 == 2


@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert n
"""


@pytest.fixture
def project(ralph: Ralph) -> Ralph:
    ralph.makepyfile(**{"tests/test_a": TESTS_A, "tests/test_b": TESTS_B})
    return ralph


def test_a_file_whose_tests_pass_passes_while_another_fails(project: Ralph) -> None:
    result = project.run("check", "--until", "tests:tests/test_a.py", "--json")
    assert result.ret == 0, result
    (check,) = result.json()["checks"]
    assert check["status"] == "passed" and "2 passed" in check["summary"]


def test_a_failing_file_names_only_its_own_tests(project: Ralph) -> None:
    result = project.run("check", "--until", "tests:tests/test_b.py,tests:tests/test_a.py",
                         "--json")
    assert result.ret == 1
    by_spec = {check["spec"]: check for check in result.json()["checks"]}
    failing = by_spec["tests:tests/test_b.py"]
    assert failing["status"] == "failed"
    assert [f["location"] for f in failing["failures"]] == ["tests/test_b.py::test_bad"]
    assert by_spec["tests:tests/test_a.py"]["status"] == "passed"


def test_a_node_and_its_parametrized_cases(project: Ralph) -> None:
    result = project.run("check", "--until",
                         "tests:tests/test_b.py::test_param>=2,tests:tests/test_b.py::test_good",
                         "--json")
    assert result.ret == 0, result
    assert all(c["status"] == "passed" for c in result.json()["checks"])


def test_at_least_n_tests_must_exist(project: Ralph) -> None:
    result = project.run("check", "--until", "tests:tests/test_a.py>=3", "--json")
    assert result.ret == 1
    (check,) = result.json()["checks"]
    assert "only 2 passed, wanted at least 3" in check["summary"]


def test_a_file_without_tests_fails_and_says_so(project: Ralph) -> None:
    result = project.run("check", "--until", "tests:tests/test_missing.py", "--json")
    assert result.ret == 1
    (check,) = result.json()["checks"]
    assert "no test was collected" in check["summary"]


def test_many_paths_cost_one_pytest_run(project: Ralph) -> None:
    project.makefile("conftest.py", """\
        import os, pathlib, sys
        def pytest_sessionstart(session):
            marks = pathlib.Path(os.environ["RUNS_FILE"])
            marks.write_text((marks.read_text() if marks.exists() else "") + repr(sys.argv) + "\\n")
        """)
    # No re-run of the failing test to tell flaky from failing: only the shared run counts.
    project.makepyproject("[tool.ralph-verify.checks.tests]\nrerun = 0\n")
    runs = project.path.parent / "runs.txt"
    project.env["RUNS_FILE"] = str(runs)
    result = project.run("check", "--until", "tests:tests/test_a.py,tests:tests/test_b.py::"
                         "test_good,tests:tests/test_b.py::test_param,tests")
    assert result.ret == 1  # test_bad fails the plain suite
    assert len(runs.read_text().splitlines()) == 1, runs.read_text()


def test_a_word_that_is_no_path_is_still_a_usage_error(project: Ralph) -> None:
    result = project.run("check", "--until", "tests:old")
    assert result.ret == 2
    assert "accepts only tests:new, tests:hidden, tests:hidden=VALUE, tests:PATH" in result.err
