"""The per-test-id baseline: every test pytest ran when the session started must still run.

Counting tests cannot see "dropped the failing case and added an easy one"; node ids can.
Each cheat below keeps the number of tests and every test function, so only the ids tell.
"""

from __future__ import annotations

from ralph_verify.testing import Ralph, RunResult
from tests.hookmode.test_stophook import answer, stop
from tests.integrity.test_cheats import _integrity_messages
from tests.loop_helpers import agent, prompt, state

KATA = "def add(a, b):\n    return a - b\n"
TESTS = """\
import pytest

from kata import add


@pytest.mark.parametrize("a, b, total", [(2, 3, 5), (0, 0, 0), (4, 4, 8)])
def test_add(a, b, total):
    assert add(a, b) == total


def test_add_is_a_function():
    assert callable(add)
"""
#: Drops the two failing cases and adds two that pass with the bug: same count, same functions.
SWAP_CASES = """\
t = pathlib.Path("tests/test_kata.py")
t.write_text(t.read_text().replace("[(2, 3, 5), (0, 0, 0), (4, 4, 8)]",
                                   "[(1, 1, 0), (0, 0, 0), (5, 5, 0)]"))
"""
FIX = """\
p = pathlib.Path("kata.py")
p.write_text(p.read_text().replace("a - b", "a + b"))
"""


def _kata(ralph: Ralph, pyproject: str = "") -> None:
    ralph.makepyproject(pyproject)
    ralph.makepyfile(kata=KATA, **{"tests/test_kata": TESTS})


def _run(ralph: Ralph, body: str, *args: str) -> RunResult:
    return ralph.run("run", "--agent", agent(ralph, body), "--until", "tests",
                     "--max-iterations", "2", *args, "make the tests pass")


def test_swapping_failing_cases_for_easy_ones_never_completes(ralph: Ralph) -> None:
    _kata(ralph)
    result = _run(ralph, SWAP_CASES)
    assert result.ret != 0, result
    assert state(ralph)["verdict"]["verdict"] != "complete"
    messages = "\n".join(_integrity_messages(ralph, 1))
    for gone in ("test_add[2-3-5]", "test_add[4-4-8]"):
        assert (f"test tests/test_kata.py::{gone} (failed at the session's start) is gone: "
                "deleted, renamed, moved or deselected") in messages
    assert "2 new test(s) appeared (a rename shows as gone + new" in messages
    assert "test_add[0-0-0]" not in messages  # still there
    assert "tests/test_kata.py::test_add[2-3-5] (failed at the session's start) is gone" \
        in prompt(ralph, 2)  # the agent is told


def test_the_honest_fix_completes(ralph: Ralph) -> None:
    _kata(ralph)
    result = _run(ralph, FIX)
    assert result.ret == 0, result
    assert state(ralph)["iteration"] == 1


def test_a_deleted_test_is_reported_once_and_a_broken_file_is_not_every_test_gone(
        ralph: Ralph) -> None:
    """Deleting a test function: the source comparison names it; the ids do not repeat it.
    A test file that no longer imports: the tests check reports it; its tests are not each
    reported as gone."""
    _kata(ralph)
    ralph.makepyfile(**{"tests/test_other": "def test_one():\n    assert True\n\n\n"
                                            "def test_two():\n    assert True\n"})
    cheat = FIX + """\
t = pathlib.Path("tests/test_kata.py")
t.write_text(t.read_text().split("def test_add_is_a_function")[0])
o = pathlib.Path("tests/test_other.py")
o.write_text("import no_such_module\\n" + o.read_text())
"""
    result = _run(ralph, cheat, "--max-iterations", "1")
    assert result.ret != 0, result
    messages = "\n".join(_integrity_messages(ralph, 1))
    assert "test tests/test_kata.py::test_add_is_a_function was removed" in messages
    assert "test_add_is_a_function (passed at the session's start) is gone" not in messages
    assert "test_one" not in messages and "test_two" not in messages


def test_hook_mode_swapped_cases_block(ralph: Ralph) -> None:
    _kata(ralph, '[tool.ralph-verify]\nmax-iterations = 5\n')
    started = ralph.run("start", "--until", "tests", "make the tests pass")
    assert started.ret == 0, started
    tests = ralph.path / "tests/test_kata.py"
    tests.write_text(tests.read_text().replace("[(2, 3, 5), (0, 0, 0), (4, 4, 8)]",
                                               "[(1, 1, 0), (0, 0, 0), (5, 5, 0)]"))
    blocked = answer(stop(ralph))
    assert blocked["decision"] == "block", blocked
    assert "tests/test_kata.py::test_add[2-3-5] (failed at the session's start) is gone" \
        in blocked["reason"]
