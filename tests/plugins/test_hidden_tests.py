"""``tests:hidden=PATH``: held-out acceptance tests the agent never sees.

A special-casing agent hard-codes the visible test's inputs: the visible suite passes, the
held-out one does not, and the loop never ends ``complete``. The held-out tests are in the
tree only while they run; the agent gets their ids and messages, never their source.
"""

from __future__ import annotations

from pathlib import Path

from ralph_verify.testing import Ralph
from tests.loop_helpers import agent, state

KATA = "def add(a, b):\n    return a - b\n"
VISIBLE = "from kata import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
HIDDEN = """\
from kata import add

SECRET = "zebra-4711"


def test_big_numbers():
    assert add(10, 20) == 30, SECRET[:0]


def test_negative():
    assert add(-1, -1) == -2
"""
#: Fails if the held-out tests are in the tree while the agent runs.
LOOK = """\
assert not list(pathlib.Path(".").rglob("test_acceptance.py")), "held-out tests visible"
"""
SPECIAL_CASE = LOOK + """\
p = pathlib.Path("kata.py")
p.write_text("def add(a, b):\\n    if (a, b) == (2, 3):\\n        return 5\\n    return a - b\\n")
"""
FIX = LOOK + """\
p = pathlib.Path("kata.py")
p.write_text(p.read_text().replace("a - b", "a + b"))
"""


def _kata(ralph: Ralph) -> Path:
    ralph.makepyproject("")
    ralph.makepyfile(kata=KATA, **{"tests/test_kata": VISIBLE})
    held_out = ralph.path.parent / "acceptance"
    held_out.mkdir()
    (held_out / "test_acceptance.py").write_text(HIDDEN)
    ralph.git_init()
    return held_out


def _everything_written(ralph: Ralph, *outputs: str) -> str:
    texts = list(outputs)
    for path in (ralph.path / ".ralph").rglob("*"):
        if path.is_file():
            texts.append(path.read_text(errors="replace"))
    return "\n".join(texts)


def test_a_special_casing_agent_never_completes_and_sees_no_source(ralph: Ralph) -> None:
    _kata(ralph)
    result = ralph.run("run", "--agent", agent(ralph, SPECIAL_CASE), "--until",
                       "tests,tests:hidden=../acceptance", "--max-iterations", "2",
                       "make the tests pass")
    assert result.ret != 0, result
    assert state(ralph)["verdict"]["verdict"] != "complete"
    assert "held-out tests visible" not in _everything_written(ralph)  # the agent ran fine
    prompt = (ralph.path / ".ralph/iterations/002/prompt.md").read_text()
    assert "test_acceptance.py::test_big_numbers" in prompt
    assert "test_acceptance.py::test_negative" in prompt
    written = _everything_written(ralph, result.out, result.err)
    for secret in ("zebra-4711", "add(10, 20)", "SECRET", "_ralph_hidden_tests/"):
        assert secret not in written, secret
    assert not list(ralph.path.rglob("test_acceptance.py"))
    assert "test_acceptance" not in ralph.git("log", "--all", "--stat")
    assert ralph.git("status", "--porcelain", "--untracked-files=all").strip() == "" or \
        "acceptance" not in ralph.git("status", "--porcelain", "--untracked-files=all")


def test_the_honest_fix_completes(ralph: Ralph) -> None:
    _kata(ralph)
    result = ralph.run("run", "--agent", agent(ralph, FIX), "--until",
                       "tests,tests:hidden=../acceptance", "--max-iterations", "2",
                       "make the tests pass")
    assert result.ret == 0, result
    assert state(ralph)["iteration"] == 1
    assert "held-out tests: 2 passed" in result.out or "held-out tests" in result.out


def test_check_runs_them_and_a_leftover_copy_is_removed(ralph: Ralph) -> None:
    _kata(ralph)
    leftover = ralph.path / "tests/_ralph_hidden_tests"
    leftover.mkdir()
    (leftover / ".ralph-verify-hidden").write_text("")
    (leftover / "test_acceptance.py").write_text(HIDDEN)
    result = ralph.run("check", "--until", "tests:hidden=../acceptance")
    assert result.ret == 1, result
    assert "test_acceptance.py::test_big_numbers" in result.out
    assert "zebra-4711" not in result.out + result.err
    assert not leftover.exists()


def test_a_held_out_path_inside_the_project_or_missing_is_refused(ralph: Ralph) -> None:
    _kata(ralph)
    inside = ralph.run("check", "--until", "tests:hidden=tests")
    assert inside.ret == 3, inside
    assert "is inside the project, where the agent can read and edit it" in inside.out
    missing = ralph.run("check", "--until", "tests:hidden=../nowhere")
    assert missing.ret == 3, missing
    assert "does not exist; point PATH at the held-out tests" in missing.out
    other = ralph.run("check", "--until", "tests:other")
    assert other.ret == 2, other
    assert "accepts only tests:new, tests:hidden, tests:hidden=VALUE" in other.err


def test_hook_mode_blocks_on_held_out_failures_without_their_source(ralph: Ralph) -> None:
    from tests.hookmode.test_stophook import answer, stop

    _kata(ralph)
    started = ralph.run("start", "--until", "tests,tests:hidden=../acceptance", "add numbers")
    assert started.ret == 0, started
    assert not list(ralph.path.rglob("test_acceptance.py"))  # not there while the agent works
    (ralph.path / "kata.py").write_text(
        "def add(a, b):\n    if (a, b) == (2, 3):\n        return 5\n    return a - b\n")
    blocked = answer(stop(ralph))
    assert blocked["decision"] == "block", blocked
    assert "test_acceptance.py::test_big_numbers" in blocked["reason"]
    assert "zebra-4711" not in blocked["reason"] and "add(10, 20)" not in blocked["reason"]
    assert not list(ralph.path.rglob("test_acceptance.py"))
