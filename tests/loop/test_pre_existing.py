"""Old lint and type errors stay pre-existing when the agent's edits move them; new ones
with the same message are counted as new (a real loop, a ``cmd:`` agent, real ruff)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ralph_verify.checks.api import CheckResult, Failure, Status
from ralph_verify.checks.verification import Verification
from ralph_verify.loop.pre_existing import mark_pre_existing
from ralph_verify.testing import Ralph
from tests.loop_helpers import agent

APP = """\
import os


def pick(x, y, z):
    if x == None:
        return 1
    if y == None:
        return 2
    return 3
"""

#: Three lines above everything, the old errors edited nowhere, one more E711 (on z).
EDIT = """\
text = pathlib.Path("app.py").read_text()
text = text.replace("    return 3\\n", "    if z == None:\\n        return 4\\n    return 3\\n")
pathlib.Path("app.py").write_text("# one\\n# two\\n# three\\n" + text)
"""


def lint_failures(ralph: Ralph, iteration: int) -> list[dict[str, Any]]:
    path = ralph.path / ".ralph" / "iterations" / f"{iteration:03d}" / "verification.json"
    data = json.loads(path.read_text())
    [lint] = [c for c in data["checks"] if c["name"] == "lint"]
    return list(lint["failures"])


def test_moved_old_errors_stay_pre_existing_and_a_new_twin_is_new(ralph: Ralph) -> None:
    ralph.makepyfile(app=APP)
    ralph.makepyproject('[tool.ruff.lint]\nselect = ["E711", "F401"]\n')
    ralph.git_init()
    result = ralph.run("run", "--agent", agent(ralph, EDIT), "--until", "lint",
                       "--max-iterations", "1", "fix the None comparisons")
    assert result.ret != 0, result
    baseline = lint_failures(ralph, 0)
    assert sorted((f["code"], f["line"]) for f in baseline) == [
        ("E711", 5), ("E711", 7), ("F401", 1)]

    after = {(f["code"], f["line"]): f["pre_existing"] for f in lint_failures(ralph, 1)}
    assert after == {
        ("F401", 4): True,    # was line 1
        ("E711", 8): True,    # was line 5 (x)
        ("E711", 10): True,   # was line 7 (y)
        ("E711", 12): False,  # z: the same message, but not there before
    }


# -- the matching, on failures as the checks make them ---------------------------------------


def _verification(*failures: Failure, name: str = "lint") -> Verification:
    return Verification(root=Path("."), results=[
        CheckResult(name, name, Status.FAILED, "x", failures=list(failures))])


def _lint(line: int, source: str = "", message: str = "Comparison to None") -> Failure:
    return Failure(message=message, location=f"app.py:{line}:8", code="E711", path="app.py",
                   line=line, source=source)


def _marks(new: Verification) -> list[bool]:
    return [f.pre_existing for f in new.results[0].failures]


def test_source_text_beats_an_old_location_taken_by_another_error() -> None:
    """Ten lines added above: a new error lands where an old one was; its text tells."""
    old = _verification(_lint(10, "if a == None:"), _lint(20, "if b == None:"))
    new = _verification(_lint(10, "if c == None:"), _lint(20, "if a == None:"),
                        _lint(30, "if b == None:"))
    assert mark_pre_existing(new, old)
    assert _marks(new) == [False, True, True]


def test_without_source_text_the_count_decides_nearest_first() -> None:
    """A baseline read back from disk has no source text: two old, three now, one new."""
    old = _verification(_lint(10), _lint(20))
    new = _verification(_lint(13), _lint(23), _lint(90))
    mark_pre_existing(new, old)
    assert _marks(new) == [True, True, False]


def test_tests_match_only_by_their_id() -> None:
    """A new failing test with an old test's message is new: test ids never move."""
    def failing(test: str) -> Failure:
        return Failure(message="AssertionError: assert 1 == 2", location=test,
                       code="AssertionError", path="tests/test_a.py", line=3)

    old = _verification(failing("tests/test_a.py::test_old"), name="tests")
    new = _verification(failing("tests/test_a.py::test_old"),
                        failing("tests/test_a.py::test_new"), name="tests")
    mark_pre_existing(new, old)
    assert _marks(new) == [True, False]


def test_another_file_or_message_is_new() -> None:
    old = _verification(_lint(10, "if a == None:"))
    moved_file = Failure(message="Comparison to None", location="other.py:10:8", code="E711",
                         path="other.py", line=10, source="if a == None:")
    other_message = _lint(10, "if a == None:", message="Comparison to True")
    new = _verification(moved_file, other_message)
    assert not mark_pre_existing(new, old)
