"""``.ralph/cancel`` is honoured only when ``ralph-verify cancel`` wrote it: an agent's own
``touch .ralph/cancel`` ends neither a run nor a Stop-hook loop, and is reported."""

from __future__ import annotations

import os

from ralph_verify.loop import cancel_key
from ralph_verify.loop.verdict import EXIT_CODES, Verdict
from ralph_verify.testing import Ralph
from tests.hookmode.test_stophook import answer, start, stop
from tests.loop_helpers import agent, state

#: Writes a cancel file of its own each turn, in every spelling, and waits for it to be seen.
FORGER = """\
text = ["", "stop", "cancel requested by pid 1\\n", "key " + "0" * 32 + "\\n"][N % 4]
pathlib.Path(".ralph/cancel").write_text(text)
time.sleep(0.6)
"""


def test_an_agents_own_cancel_file_does_not_end_the_run(ralph: Ralph) -> None:
    result = ralph.run("run", "--agent", agent(ralph, FORGER), "--until", "files:done.txt",
                       "--max-iterations", "3", "-p", "no:breaker", "go")
    assert result.ret == EXIT_CODES[Verdict.MAX_ITERATIONS], result
    assert cancel_key.FORGED in result.out
    assert state(ralph)["verdict"]["verdict"] == "max-iterations"
    assert not (ralph.path / ".ralph" / "cancel").exists()


def test_a_cancel_file_with_the_key_of_another_session_is_refused(ralph: Ralph) -> None:
    environ = {**os.environ, **ralph.env}
    old = cancel_key.request(ralph.path, environ)  # no session yet: no key in it
    assert "key " not in old
    start(ralph)
    (ralph.path / ".ralph" / "cancel").write_text(old)
    result = answer(stop(ralph))
    assert result.get("decision") == "block", result
    assert state(ralph)["verdict"] is None or state(ralph)["verdict"]["verdict"] != "cancelled"
    assert cancel_key.FORGED in (ralph.path / ".ralph" / "progress.md").read_text()


def test_an_agents_cancel_file_does_not_end_a_stop_hook_loop(ralph: Ralph) -> None:
    start(ralph)
    (ralph.path / ".ralph" / "cancel").write_text("cancel\n")  # `touch` by the agent
    result = answer(stop(ralph))
    assert result.get("decision") == "block", result
    assert not (ralph.path / ".ralph" / "cancel").exists()


def test_the_users_cancel_still_ends_both(ralph: Ralph) -> None:
    start(ralph)
    (ralph.path / ".ralph" / "cancel").write_text(
        cancel_key.request(ralph.path, {**os.environ, **ralph.env}))
    result = answer(stop(ralph))
    assert "decision" not in result and "cancelled" in result["systemMessage"]


def test_the_key_lives_outside_the_project_and_is_private(ralph: Ralph) -> None:
    start(ralph)
    path = cancel_key.key_path(ralph.path, {**os.environ, **ralph.env})
    assert path.is_file() and ralph.path not in path.parents
    assert path.stat().st_mode & 0o077 == 0
