"""``tests.select = "affected"``: in a loop, the affected tests first, the full suite before
``complete`` (real pytest, coverage and ``cmd:`` agents)."""

from __future__ import annotations

import json
from typing import Any

from ralph_verify.testing import Ralph
from tests.loop_helpers import agent, history, prompt, state

AFFECTED = """
[tool.ralph-verify.checks.tests]
select = "affected"
rerun = 0
"""

CALC = """\
def add(a, b):
    return a - b


def mul(a, b):
    return a * b
"""

TEXT = """\
def shout(s):
    return s.upper()


def whisper(s):
    return s.lower()
"""

# Every test notes its name in a log outside the project; the agent marks each iteration.
CONFTEST = """\
import os

import pytest


@pytest.fixture(autouse=True)
def _log(request):
    with open(os.environ["RUN_LOG"], "a") as log:
        log.write(request.node.name + "\\n")
"""

TESTS = {
    "tests/conftest": CONFTEST,
    "tests/test_calc": """\
        from calc import add, mul

        def test_add():
            assert add(2, 3) == 5

        def test_mul():
            assert mul(2, 3) == 6
        """,
    "tests/test_text": """\
        from text import shout, whisper

        def test_shout():
            assert shout("a") == "A"

        def test_whisper():
            assert whisper("A") == "a"

        def test_both():
            assert whisper(shout("b")) == "b"
        """,
}


def _project(ralph: Ralph, **extra: str) -> None:
    ralph.makepyproject(AFFECTED)
    ralph.makepyfile(**{"calc": CALC, "text": TEXT, **TESTS, **extra})
    ralph.env["RUN_LOG"] = str(ralph.path.parent / "ran.log")


def only_the_full_suite_fails(ralph: Ralph, edit: str) -> tuple[list[str], dict[str, Any]]:
    """One iteration whose agent runs ``edit``: test_twice, the affected test, passes first;
    then the full suite runs, one test fails, and the loop does not end complete. The
    baseline's tests and the iteration's tests check."""
    result = ralph.run("run", "--agent", agent(ralph, MARK + edit), "--until", "tests",
                       "--max-iterations", "1", "fix twice")
    assert result.ret != 0, result
    assert state(ralph)["verdict"]["verdict"] == "max-iterations"
    baseline, first = _ran(ralph)
    assert first[0] == "test_twice" and sorted(first[1:]) == sorted(baseline)
    check: dict[str, Any] = history(ralph)[0]["checks"][0]
    assert check["status"] == "failed" and "partial" not in check["counts"]
    assert check["counts"]["failed"] == 1
    return baseline, check


def _ran(ralph: Ralph) -> list[list[str]]:
    """The tests each verification ran: the baseline's, then each iteration's."""
    runs: list[list[str]] = [[]]
    for line in (ralph.path.parent / "ran.log").read_text().splitlines():
        if line.startswith("--- "):
            runs.append([])
        else:
            runs[-1].append(line)
    return runs


MARK = "open(os.environ['RUN_LOG'], 'a').write(f'--- {N}\\n')\n"


def test_a_failing_affected_test_is_the_verdict_and_the_full_suite_decides_complete(
        ralph: Ralph) -> None:
    # Iteration 1 breaks shout's body and leaves add broken: only test_add (failing before)
    # and the tests that ran shout run, the failures are the feedback, coverage is not
    # judged on them.
    # Iteration 2 fixes both: the affected tests pass, so the full suite runs and decides.
    _project(ralph)
    body = MARK + """\
if N == 1:
    pathlib.Path("text.py").write_text(pathlib.Path("text.py").read_text()
                                       .replace("s.upper()", "s.title() + '!'"))
if N == 2:
    pathlib.Path("text.py").write_text(pathlib.Path("text.py").read_text()
                                       .replace("s.title() + '!'", "s.upper()"))
    pathlib.Path("calc.py").write_text(pathlib.Path("calc.py").read_text()
                                       .replace("a - b", "a + b"))
"""
    result = ralph.run("run", "--agent", agent(ralph, body), "--until", "tests,coverage>=50",
                       "fix it")
    assert result.ret == 0, result
    baseline, first, second = _ran(ralph)
    assert sorted(baseline) == ["test_add", "test_both", "test_mul", "test_shout",
                                "test_whisper"]
    # test_add failed last time; test_shout and test_both ran shout; test_whisper and
    # test_mul did not.
    assert sorted(first) == ["test_add", "test_both", "test_shout"]
    # Iteration 2 fixes add's body and puts shout's back as it was when the map was made:
    # test_add (it ran add) and last time's failures pass, then the full suite runs.
    assert sorted(second) == sorted(["test_add", "test_both", "test_shout", *baseline])
    lines = history(ralph)
    tests, coverage = lines[0]["checks"][0], lines[0]["checks"][1]
    assert tests["status"] == "failed"
    assert tests["summary"].startswith("partial run, the 3 affected tests first: 3 failed")
    assert tests["counts"]["partial"] == 1 and tests["counts"]["selected"] == 3
    assert coverage["status"] == "skipped" and "not judged" in coverage["summary"]
    # integrity compares the tests run with the baseline's: not on a partial run.
    assert [c["status"] for c in lines[0]["checks"] if c["name"] == "integrity"] == ["passed"]
    assert "tests/test_text.py::test_shout" in prompt(ralph, 2)
    assert "tests/test_calc.py::test_add" in prompt(ralph, 2)
    assert [c["name"] for c in lines[1]["checks"] if c["counts"].get("partial")] == []
    assert lines[1]["checks"][1]["status"] == "passed"
    assert state(ralph)["verdict"]["verdict"] == "complete"
    assert "partial run" in result.out  # the iteration's line says what ran


def test_a_dependency_the_map_misses_is_caught_by_the_full_suite(ralph: Ralph) -> None:
    # test_limit reads LIMIT, a constant, from a module it finds by a computed name at run
    # time: no code of limits.py runs in it, and its file's names do not reach limits, so
    # the map says only test_twice depends on limits.py. The agent fixes twice and changes
    # LIMIT: the affected run (test_twice) passes, the full suite fails, the loop does not
    # end complete.
    _project(ralph, calc=CALC.replace("a - b", "a + b"),
             limits="LIMIT = 3\n\n\ndef twice(x):\n    return x + x + 1\n",
             **{"tests/test_limits": """\
                 import limits

                 def test_twice():
                     assert limits.twice(2) == 4
                 """,
                "tests/test_limit": """\
                 import importlib

                 def test_limit():
                     assert importlib.import_module("lim" + "its").LIMIT == 3
                 """})
    baseline, check = only_the_full_suite_fails(ralph, """\
pathlib.Path("limits.py").write_text(pathlib.Path("limits.py").read_text()
                                     .replace("LIMIT = 3", "LIMIT = 4").replace(" + 1", ""))
""")
    assert check["counts"]["passed"] == len(baseline) - 1
    saved = json.loads((ralph.path / ".ralph/iterations/001/verification.json").read_text())
    assert [f["location"] for f in saved["checks"][0]["failures"]] == [
        "tests/test_limit.py::test_limit"]


def test_a_function_run_at_import_time_selects_the_tests_of_the_files_that_import_it(
        ralph: Ralph) -> None:
    # table.py builds TABLE when it is imported, at collection: no test runs build(). The
    # agent breaks build()'s body: the tests of the file that imports table run first (and
    # fail: the verdict), also those of a file that reaches it only through shapes.py, which
    # imported it first; test_calc's do not.
    table = "def build():\n    return {'a': 1, 'b': 2}\n\n\nTABLE = build()\n"
    _project(ralph, table=table, shapes="from table import TABLE\n\nSIDES = len(TABLE)\n",
             **{"tests/test_a_shapes": """\
                 from shapes import SIDES

                 def test_sides():
                     assert SIDES == 2
                 """,
                "tests/test_table": """\
                 from table import TABLE

                 def test_a():
                     assert TABLE["a"] == 1

                 def test_b():
                     assert TABLE["b"] == 2
                 """})
    body = MARK + """\
pathlib.Path("table.py").write_text(pathlib.Path("table.py").read_text()
                                    .replace("'b': 2", "'b': 3"))
"""
    result = ralph.run("run", "--agent", agent(ralph, body), "--until", "tests",
                       "--max-iterations", "1", "change the table")
    assert result.ret != 0, result
    baseline, first = _ran(ralph)
    assert "test_b" in baseline and "test_sides" in baseline
    # test_add failed in the baseline (calc's a - b): it runs first too.
    assert sorted(first) == ["test_a", "test_add", "test_b", "test_sides"]
    check = history(ralph)[0]["checks"][0]
    assert check["counts"]["partial"] == 1, check
    assert check["summary"].startswith("partial run, the 4 affected tests first: 2 failed")


def test_a_changed_data_file_runs_the_full_suite(ralph: Ralph) -> None:
    _project(ralph, **{"tests/test_data": """\
        import pathlib

        def test_data():
            assert pathlib.Path("data.txt").read_text() == "ok"
        """})
    ralph.makefile("data.txt", "ok")
    body = MARK + 'pathlib.Path("data.txt").write_text("ko")\n'
    result = ralph.run("run", "--agent", agent(ralph, body), "--until", "tests",
                       "--max-iterations", "1", "edit the data")
    assert result.ret != 0, result
    baseline, first = _ran(ralph)
    assert sorted(first) == sorted(baseline)
    check = history(ralph)[0]["checks"][0]
    assert "partial" not in check["counts"]
    assert check["counts"]["failed"] == 2
    affected_map = json.loads((ralph.path / ".ralph" / "affected.json").read_text())
    assert "tests/test_data.py::test_data" in affected_map["tests"]


#: Takes every tracer the recorder could use while test_whisper runs (outermost: a conftest
#: registers after ralph-verify's plugin). Python 3.12's monitoring tool ids are taken for
#: the whole session, before the recorder could take one: there it falls back to cProfile.
BUSY = '''
import sys

import pytest

monitoring = getattr(sys, "monitoring", None)
for tool in (3, 4, 5) if monitoring else ():
    if monitoring.get_tool(tool) is None:
        monitoring.use_tool_id(tool, "busy")


def _busy(*args):
    return None


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item):
    if item.name != "test_whisper":
        yield
        return
    sys.setprofile(_busy)
    sys.settrace(_busy)
    yield
    sys.settrace(None)
    sys.setprofile(None)
'''


def test_a_test_no_tracer_followed_runs_in_the_full_suite_and_the_partial_run_says_so(
        ralph: Ralph) -> None:
    # test_whisper is recorded untraced: the map keeps the other tests. The agent breaks
    # shout: test_shout and test_both run first, fail, and the summary says one test waits
    # for the full suite.
    _project(ralph, conftest=BUSY)
    edit = MARK + ('pathlib.Path("text.py").write_text(pathlib.Path("text.py").read_text()'
                   '.replace("s.upper()", "s.title()"))\n')
    result = ralph.run("run", "--agent", agent(ralph, edit), "--until", "tests",
                       "--max-iterations", "1", "fix it")
    assert result.ret != 0, result
    _, first = _ran(ralph)
    assert sorted(set(first)) == ["test_add", "test_both", "test_shout"]
    summary = history(ralph)[0]["checks"][0]["summary"]
    assert summary.startswith("partial run, the 3 affected tests first"), summary
    assert summary.endswith("; 1 test no tracer could follow run in the full suite only")
