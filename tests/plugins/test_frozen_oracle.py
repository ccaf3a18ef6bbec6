"""The frozen oracle, through ``run`` with real pytest, coverage and git: what the session
started with judges the agent's product code, whatever the agent does to the tests."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ralph_verify.testing import Ralph
from tests.drivers import Driver, Step
from tests.loop_helpers import CALC, CALC_TESTS, agent, state

WRONG_ADD = "pathlib.Path('calc.py').write_text(pathlib.Path('calc.py').read_text()" \
    ".replace('a + b', 'a * b').replace('a - b', 'a + b'))\n"
"""Fixes ``mul`` (a + b -> a * b) and ``add`` (a - b -> a + b): all of CALC_TESTS pass."""
FIX_MUL_ONLY = "pathlib.Path('calc.py').write_text(pathlib.Path('calc.py').read_text()" \
    ".replace('a + b', 'a * b'))\n"
"""Fixes ``mul`` only: ``test_add`` still fails."""


def _project(ralph: Ralph) -> None:
    ralph.makefile("calc.py", CALC)
    ralph.makefile("tests/test_calc.py", CALC_TESTS)
    ralph.git_init()


def _loop(ralph: Ralph, body: str, *args: str) -> tuple[int, str, list[dict[str, Any]]]:
    result = ralph.run("run", "--agent", agent(ralph, body), "--until", "tests",
                       "--no-integrity", "--max-iterations", "1", *args, "fix calc")
    data = json.loads((ralph.path / ".ralph/iterations/001/verification.json").read_text())
    tests = [check for check in data["checks"] if check["name"] == "tests"]
    return result.ret, state(ralph)["verdict"]["verdict"], tests


CHEATS = {
    "edited test": "pathlib.Path('tests/test_calc.py').write_text(pathlib.Path("
                   "'tests/test_calc.py').read_text().replace('== 5', '== -1'))\n",
    "deleted test": "src = pathlib.Path('tests/test_calc.py').read_text()\n"
                    "pathlib.Path('tests/test_calc.py').write_text(src.split('def test_add')[0]"
                    " + 'def test_mul' + src.split('def test_mul')[1])\n",
    "weakened assertion": "pathlib.Path('tests/test_calc.py').write_text(pathlib.Path("
                          "'tests/test_calc.py').read_text().replace("
                          "'assert add(2, 3) == 5', 'assert add(2, 3) in (5, -1)'))\n",
    "stand-in from a new conftest": "pathlib.Path('tests/conftest.py').write_text("
                                    "'import calc\\ncalc.add = lambda a, b: a + b\\n')\n",
    "stand-in from tests/__init__.py": "pathlib.Path('tests/__init__.py').write_text("
                                       "'import calc\\ncalc.add = lambda a, b: a + b\\n')\n",
    "stand-in from a helper module": "pathlib.Path('tests/helpers.py').write_text("
                                     "'import calc\\ncalc.add = lambda a, b: a + b\\n')\n"
                                     "pathlib.Path('tests/test_calc.py').write_text("
                                     "'import tests.helpers\\n' + pathlib.Path("
                                     "'tests/test_calc.py').read_text())\n",
    "setting that deselects": "pathlib.Path('pyproject.toml').write_text("
                              "'[tool.pytest.ini_options]\\naddopts = \"-k not add\"\\n')\n",
}


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_a_cheat_cannot_turn_a_failing_verification_green(ralph: Ralph, cheat: str) -> None:
    _project(ralph)
    ret, status, tests = _loop(ralph, FIX_MUL_ONLY + CHEATS[cheat])
    assert status != "complete" and ret != 0, (cheat, tests)
    failures = tests[0]["failures"]
    assert any("test_add" in str(f) for f in failures), failures
    assert any(f["code"] == "frozen-tests" for f in failures), failures


def test_the_same_change_released_counts_and_is_named(ralph: Ralph) -> None:
    _project(ralph)
    ralph.makepyproject('[tool.ralph-verify.checks.tests]\nallow = ["tests/test_calc.py"]\n')
    ralph.git("add", "-A")
    ralph.git("commit", "-q", "-m", "allow")
    ret, status, tests = _loop(ralph, FIX_MUL_ONLY + CHEATS["edited test"])
    assert (ret, status) == (0, "complete"), tests
    assert "released from the frozen tests: tests/test_calc.py" in tests[0]["summary"]


def test_allow_test_edits_releases_every_file(ralph: Ralph) -> None:
    _project(ralph)
    ret, status, tests = _loop(ralph, FIX_MUL_ONLY + CHEATS["deleted test"],
                               "--allow-test-edits")
    assert (ret, status) == (0, "complete"), tests
    assert "released from the frozen tests: tests/test_calc.py" in tests[0]["summary"]


def test_a_real_fix_with_a_new_test_and_a_split_test_completes(ralph: Ralph) -> None:
    _project(ralph)
    body = WRONG_ADD + (
        "src = pathlib.Path('tests/test_calc.py').read_text()\n"
        "pathlib.Path('tests/test_calc.py').write_text(src.replace('def test_add():\\n"
        "    assert add(2, 3) == 5', '@pytest.mark.parametrize(\"a,b,want\", [(2, 3, 5), "
        "(0, 0, 0)])\\ndef test_add(a, b, want):\\n    assert add(a, b) == want').replace("
        "'from calc', 'import pytest\\nfrom calc'))\n"
        "pathlib.Path('tests/test_more.py').write_text('from calc import add\\n\\n"
        "def test_negative():\\n    assert add(-1, -1) == -2\\n')\n")
    ret, status, tests = _loop(ralph, body)
    assert (ret, status) == (0, "complete"), tests
    assert tests[0]["counts"]["frozen"] == 2 and tests[0]["counts"]["agent_tests_passed"] == 5


def test_a_new_test_that_fails_fails_the_verification(ralph: Ralph) -> None:
    _project(ralph)
    body = WRONG_ADD + ("pathlib.Path('tests/test_more.py').write_text('from calc import add"
                        "\\n\\ndef test_wrong():\\n    assert add(1, 1) == 3\\n')\n")
    ret, status, tests = _loop(ralph, body)
    assert status != "complete" and ret != 0, tests
    assert any("test_wrong" in str(f) for f in tests[0]["failures"])


SUB = "\n\ndef sub(a, b):\n    return a - b\n"


def _coverage_loop(ralph: Ralph, body: str) -> tuple[int, str, dict[str, Any]]:
    ralph.makefile("calc.py", "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n"
                              "    return a * b" + SUB)
    ralph.makefile("tests/test_calc.py", CALC_TESTS)
    ralph.makefile(".coveragerc", "[run]\nsource = calc\n")
    ralph.git_init()
    result = ralph.run("run", "--agent", agent(ralph, body), "--until", "tests,coverage>=100",
                       "--no-integrity", "--max-iterations", "1", "cover sub")
    data = json.loads((ralph.path / ".ralph/iterations/001/verification.json").read_text())
    coverage = next(c for c in data["checks"] if c["name"] == "coverage")
    return result.ret, state(ralph)["verdict"]["verdict"], coverage


def test_coverage_counts_the_agents_new_tests(ralph: Ralph) -> None:
    ret, verdict, coverage = _coverage_loop(ralph, (
        "pathlib.Path('tests/test_sub.py').write_text('from calc import sub\\n\\n"
        "def test_sub():\\n    assert sub(3, 1) == 2\\n')\n"))
    assert (ret, verdict) == (0, "complete"), coverage
    assert coverage["summary"].startswith("100% >= 100%"), coverage


def test_coverage_settings_are_frozen(ralph: Ralph) -> None:
    ret, verdict, coverage = _coverage_loop(ralph, (
        "pathlib.Path('.coveragerc').write_text('[run]\\nsource = calc\\n[report]\\n"
        "exclude_lines =\\n    def sub\\n    return a - b\\n')\n"))
    assert verdict != "complete" and ret != 0, coverage
    assert "calc.py" in str(coverage["failures"]), coverage


HABITS = """\
import sys
subprocess.run([sys.executable, "-m", "venv", ".venv"], check=True)
subprocess.run([".venv/bin/python", "-m", "pip", "install", "-q", "-e", "."], check=True)
assert list(pathlib.Path(".venv").glob("lib/python*/site-packages/__editable__*.pth"))
pathlib.Path(".gitignore").write_text(".venv/\\n")
""" + WRONG_ADD + """\
src = pathlib.Path("tests/test_calc.py").read_text()
pathlib.Path("tests/test_calc.py").write_text("import pytest\\n" + src.replace(
    "def test_add():\\n    assert add(2, 3) == 5\\n",
    "@pytest.mark.parametrize('a, b, want', [(2, 3, 5), (0, 0, 0)])\\n"
    "def test_sum(a, b, want):\\n    got = add(a, b)\\n    assert got == want\\n"))
ident = ["-c", "user.name=agent", "-c", "user.email=agent@example.com"]
subprocess.run(["git", "add", "-A"], check=True)
subprocess.run(["git", *ident, "commit", "-qm", "fix add and mul"], check=True)
subprocess.run(["git", *ident, "commit", "-q", "--amend", "-m", "fix calc"], check=True)
"""


def test_an_honest_agent_with_a_venv_an_editable_install_and_commits_completes(
        ralph: Ralph) -> None:
    """Integrity on: pip's .pth files, the agent's own commits and a test rewritten as a
    parametrized one under another name are honest."""
    import sys

    ralph.makefile("pyproject.toml", '[project]\nname = "calc"\nversion = "0.1"\n'
                        '[build-system]\nrequires = ["setuptools>=64"]\n'
                        'build-backend = "setuptools.build_meta"\n'
                        '[tool.setuptools]\npy-modules = ["calc"]\n')
    _project(ralph)
    result = ralph.run("run", "--agent", agent(ralph, HABITS), "--until", "tests",
                       "--python", sys.executable, "--max-iterations", "2", "fix calc")
    assert result.ret == 0, result
    assert state(ralph)["verdict"]["verdict"] == "complete"


MUL_FIXED = CALC.replace("a + b", "a * b")
BOTH_FIXED = MUL_FIXED.replace("a - b", "a + b")


def test_the_oracle_is_frozen_in_both_drivers(driver: Driver) -> None:
    """The Stop hook's verification is judged like ``run``'s: the agent's edit of an existing
    test does not turn it green; the real fix, the test put back and a new one beside it,
    does."""
    _project(driver.ralph)
    cheat: Step = {"calc.py": MUL_FIXED, "tests/test_calc.py": CALC_TESTS.replace("== 5", "== -1")}
    fixed: Step = {"calc.py": BOTH_FIXED, "tests/test_calc.py": CALC_TESTS,
             "tests/test_more.py": "from calc import add\n\n\ndef test_zero():\n"
                                   "    assert add(0, 0) == 0\n"}
    outcome = driver.loop("tests", [cheat, fixed])
    assert outcome.verdict == "complete" and outcome.iterations == 2, outcome.state
    feedback = outcome.prompt(2)
    assert "test_add" in feedback and "frozen" in feedback, feedback


def test_integrity_counts_a_released_test_edit_as_a_note(ralph: Ralph) -> None:
    """A behaviour changed with its test on purpose (``--allow-test-edits``): the test that
    makes fewer checks is the user's release, named in integrity's summary, not a failure;
    without the release the same change is refused."""
    _project(ralph)
    body = WRONG_ADD + ("pathlib.Path('tests/test_calc.py').write_text(pathlib.Path("
                        "'tests/test_calc.py').read_text().replace('assert add(2, 3) == 5', "
                        "'print(add(2, 3))'))\n")
    for args, done in ((("--allow-test-edits",), True), ((), False)):
        result = ralph.run("run", "--agent", agent(ralph, body), "--until", "tests",
                           "--max-iterations", "1", *args, "fix calc")
        data = json.loads((ralph.path / ".ralph/iterations/001/verification.json").read_text())
        integrity = next(c for c in data["checks"] if c["name"] == "integrity")
        assert (result.ret == 0) is done, data
        if done:
            assert integrity["status"] == "passed", integrity
            assert "released (weakened-test)" in integrity["summary"], integrity
        else:
            assert integrity["status"] == "failed", integrity
        ralph.git("checkout", "-q", "-f", "main")
        ralph.git("clean", "-q", "-f", "-d", "-x")


def test_an_xfail_test_of_the_start_is_not_a_test_skipped_more(ralph: Ralph) -> None:
    """The start's tests check counts an xfail apart from the skips; integrity's count of
    the iteration's run must not read it as one more skipped test."""
    _project(ralph)
    ralph.makefile("tests/test_known.py", "import pytest\n\n\n@pytest.mark.xfail(strict=True)\n"
                                          "def test_known_bug():\n    assert 1 == 2\n")
    ralph.git("add", "-A")
    ralph.git("commit", "-q", "-m", "a known bug")
    result = ralph.run("run", "--agent", agent(ralph, WRONG_ADD), "--until", "tests",
                       "--max-iterations", "1", "fix calc")
    data = json.loads((ralph.path / ".ralph/iterations/001/verification.json").read_text())
    assert result.ret == 0, data
    assert state(ralph)["verdict"]["verdict"] == "complete"
