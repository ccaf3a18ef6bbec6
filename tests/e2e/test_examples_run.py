"""The examples, the stall breaker, integrity and ``tests:new`` through ``ralph-verify run``.

Each test copies a project into a temporary git repository and runs the real
loop with a scripted agent (``replay:`` or ``cmd:``) and the real checks.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from tests.loop_helpers import agent, history, prompt, state

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _example(ralph: Ralph, name: str) -> Path:
    """A copy of ``examples/NAME`` as a fresh git repository; returns its replay folder."""
    (ralph.path / "pyproject.toml").unlink()
    ralph.copy_example(EXAMPLES / name)
    ralph.git_init()
    return ralph.path / "replay"


def _checks(ralph: Ralph, iteration: int) -> dict[str, dict[str, object]]:
    path = ralph.path / ".ralph" / "iterations" / f"{iteration:03d}" / "verification.json"
    return {c["spec"]: c for c in json.loads(path.read_text())["checks"]}


def test_the_tdd_kata_completes_and_the_wrong_attempt_is_fed_back(ralph: Ralph) -> None:
    replay = _example(ralph, "tdd-kata")
    result = ralph.run("run", "--agent", f"replay:{replay}")
    assert result.ret == 0, result
    result.stdout.fnmatch_lines(["*until tests,coverage>=90,lint*",
                                 "verdict: complete — every check passes (4 of 4)*"])
    assert [line["iteration"] for line in history(ralph)] == [1, 2, 3]
    # Iteration 1 wrote 4 as IIII; iteration 2's prompt quotes that failure.
    assert _checks(ralph, 1)["tests"]["status"] == "failed"
    second = prompt(ralph, 2)
    assert "AssertionError: assert 'IIII' == 'IV'" in second
    assert "tests/test_roman.py::test_subtractive" in second
    assert "'IIII' == 'IV'" not in prompt(ralph, 3)
    final = _checks(ralph, 3)
    assert {spec: c["status"] for spec, c in final.items()} == {
        "tests": "passed", "coverage>=90": "passed", "lint": "passed", "integrity": "passed"}
    assert state(ralph)["plugin_state"]["breaker"]["state"] == "closed"


def test_the_test_migration_completes(ralph: Ralph) -> None:
    replay = _example(ralph, "test-migration")
    result = ralph.run("run", "--agent", f"replay:{replay}")
    assert result.ret == 0, result
    assert [line["iteration"] for line in history(ralph)] == [1, 2]
    first = _checks(ralph, 1)
    assert first['!cmd:"grep -rnE \'^(import|from) unittest\' tests"']["status"] == "failed"
    assert first["!files:run_tests.py"]["status"] == "failed"
    assert first["files:tests/conftest.py"]["status"] == "passed"
    assert "tests/test_circle.py:2:import unittest" in prompt(ralph, 2)
    assert not (ralph.path / "run_tests.py").exists()
    assert str(_checks(ralph, 2)["tests>=8"]["summary"]).startswith("8 passed")


def test_an_agent_that_changes_nothing_is_stopped_as_stalled(ralph: Ralph) -> None:
    _example(ralph, "tdd-kata")
    nothing = ralph.path.parent / "no-steps"
    nothing.mkdir()
    result = ralph.run("run", "--agent", f"replay:{nothing}", "--stall-no-change", "2",
                       "--until", "tests")
    assert result.ret == 11, result
    # Each breaker line follows the result of the iteration that moved it.
    result.stdout.fnmatch_lines([
        "iteration 2: agent exit 0*",
        "iteration 2: 1/2 checks passed, 1 failed*",
        "    tests failed*",
        "breaker half-open (no-change): the agent changed no file 2 iterations in a row "
        "(threshold 2); the next prompt asks the agent to change its approach",
        "iteration 3: agent exit 0*",
        "iteration 3: 1/2 checks passed, 1 failed*",
        "    tests failed*",
        "breaker open (no-change)*",
        "verdict: stalled — stall breaker (no-change): the agent changed no file 3 iterations "
        "in a row (threshold 2), and the iteration after the 'change your approach' note "
        "repeated it"])
    assert len(history(ralph)) == 3
    assert "change your approach" not in prompt(ralph, 2)
    note = prompt(ralph, 3)
    assert "## The same failures persist: change your approach" in note
    assert "[tests] NotImplementedError (at tests/test_roman.py::" in note
    breaker = state(ralph)["plugin_state"]["breaker"]
    assert (breaker["state"], breaker["rule"], breaker["counters"]["no-change"]) == (
        "open", "no-change", 3)
    status = ralph.run("status")
    status.stdout.fnmatch_lines(["breaker: open (same-errors 3/5, no-change 3/2, "
                                 "no-progress 3/5): the agent changed no file*"])


SAME_FAILURE_EVERY_TIME = """\
pathlib.Path("calc.py").write_text(f"# attempt {N}\\ndef add(a, b):\\n    return a - b\\n")
"""


def test_the_same_failures_again_and_again_stall(ralph: Ralph) -> None:
    ralph.makepyfile(calc="def add(a, b):\n    return a - b\n", **{"tests/test_calc": """
        from calc import add

        def test_add():
            assert add(2, 3) == 5
    """})
    ralph.git_init()
    result = ralph.run("run", "--agent", agent(ralph, SAME_FAILURE_EVERY_TIME), "--until",
                       "tests", "--stall-same-errors", "2", "fix add")
    assert result.ret == 11, result
    assert [line["files_changed"] for line in history(ralph)] == [["calc.py"]] * 3
    assert "stall breaker (same-errors): the same 1 failure came back 3 iterations" \
        in state(ralph)["verdict"]["reason"]
    assert "assert -1 == 5" in prompt(ralph, 3)


SKIP_THEN_FIX = """\
test = pathlib.Path("tests/test_calc.py")
if N == 1:
    test.write_text("import pytest\\n\\n" + test.read_text().replace(
        "def test_add", "@pytest.mark.skip(reason='later')\\ndef test_add"))
else:
    test.write_text(test.read_text().replace("@pytest.mark.skip(reason='later')\\n", ""))
    pathlib.Path("calc.py").write_text("def add(a, b):\\n    return a + b\\n")
"""


@pytest.mark.parametrize("integrity", [True, False])
def test_skipping_a_failing_test_does_not_complete(ralph: Ralph, integrity: bool) -> None:
    # The frozen oracle runs tests/test_calc.py as it was at the start, skip or no skip;
    # integrity's rule explains it where it is on.
    ralph.makepyfile(calc="def add(a, b):\n    return a - b\n", **{"tests/test_calc": """
        from calc import add


        def test_add():
            assert add(2, 3) == 5


        def test_ok():
            assert True
    """})
    ralph.git_init()
    args = [] if integrity else ["--no-integrity"]
    result = ralph.run("run", "--agent", agent(ralph, SKIP_THEN_FIX), "--until", "tests",
                       *args, "fix add")
    assert result.ret == 0, result
    assert len(history(ralph)) == 2
    first = _checks(ralph, 1)
    assert first["tests"]["status"] == "failed"
    assert "tests/test_calc.py" in prompt(ralph, 2) and "frozen" in prompt(ralph, 2)
    if not integrity:
        assert "integrity" not in first
        return
    assert first["integrity"]["status"] == "failed"
    message = ("new skip marker `pytest.mark.skip` at tests/test_calc.py:6: make the test pass "
               "instead of skipping it (new-skip;")
    assert message in prompt(ralph, 2)


def test_tests_new_allows_failures_that_were_there_at_the_start(ralph: Ralph) -> None:
    ralph.makepyfile(calc="def add(a, b):\n    return a + b\n", **{"tests/test_calc": """
        from calc import add


        def test_add():
            assert add(2, 3) == 5


        def test_legacy():
            assert False, "broken long before this session"
    """})
    ralph.git_init()
    body = """\
    if N == 1:  # the feature, but add() broken on the way
        pathlib.Path("feature.py").write_text("FEATURE = True\\n")
        pathlib.Path("calc.py").write_text("def add(a, b):\\n    return a * b\\n")
    else:
        pathlib.Path("calc.py").write_text("def add(a, b):\\n    return a + b\\n")
    """
    result = ralph.run("run", "--agent", agent(ralph, body), "--until",
                       "tests:new,files:feature.py", "add feature.py")
    assert result.ret == 0, result
    assert _checks(ralph, 0)["tests:new"]["status"] == "passed"
    first = _checks(ralph, 1)["tests:new"]
    assert first["status"] == "failed"
    assert first["summary"] == "1 new failing (1 pre-existing allowed): 2 failed, 0 passed"
    assert "tests/test_calc.py::test_add" in prompt(ralph, 2)
    final = _checks(ralph, 2)["tests:new"]
    assert final["summary"] == "no new failures (1 pre-existing allowed): 1 failed, 1 passed"


def test_the_examples_patches_apply_to_a_fresh_copy(tmp_path: Path) -> None:
    import subprocess

    for name in ("tdd-kata", "test-migration"):
        copy = tmp_path / name
        shutil.copytree(EXAMPLES / name, copy)
        for patch in sorted((copy / "replay").glob("*.patch")):
            subprocess.run(["git", "apply", "--check", str(patch)], cwd=copy, check=True)
            subprocess.run(["git", "apply", str(patch)], cwd=copy, check=True)
