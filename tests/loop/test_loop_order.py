"""Both drivers of a loop session -- ``run`` and the agent's Stop hook -- fire every loop hook,
in the order ``ralph_verify.hookspec`` documents: one iteration protocol, two drivers."""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import Any

import pytest

from ralph_verify import Iteration, Session, VerdictProposal, hookimpl
from ralph_verify.config.until import CheckSpec, parse_spec
from ralph_verify.testing import Ralph
from tests.loop_helpers import agent

UNTIL = "files:done.txt"


class Recorder:
    """Writes down each loop hook as it fires, with the iteration it concerns."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int | None]] = []
        self.modes: set[str] = set()

    @hookimpl
    def ralph_session_prepare(self, session: Session) -> None:
        self.modes.add(session.mode)
        self.calls.append(("session_prepare", None))

    @hookimpl
    def ralph_session_start(self, session: Session) -> None:
        self.calls.append(("session_start", None))

    @hookimpl(wrapper=True)
    def ralph_runloop(self, session: Session, first: int) -> Generator[None, Any, Any]:
        self.modes.add(session.mode)
        self.calls.append(("runloop", first))
        return (yield)

    @hookimpl(wrapper=True)
    def ralph_run_iteration(self, iteration: Iteration) -> Generator[None, Any, Any]:
        self.calls.append(("run_iteration", iteration.number))
        return (yield)

    @hookimpl
    def ralph_iteration_start(self, iteration: Iteration) -> None:
        self.calls.append(("iteration_start", iteration.number))

    @hookimpl
    def ralph_prompt_notes(self, iteration: Iteration) -> None:
        self.calls.append(("prompt_notes", iteration.number))

    @hookimpl(wrapper=True)
    def ralph_run_agent(self, iteration: Iteration) -> Generator[None, Any, Any]:
        self.calls.append(("run_agent", iteration.number))
        return (yield)

    @hookimpl
    def ralph_iteration_end(self, iteration: Iteration) -> None:
        self.calls.append(("iteration_end", iteration.number))

    @hookimpl
    def ralph_iteration_verdict(self, iteration: Iteration) -> None:
        self.calls.append(("iteration_verdict", iteration.number))

    @hookimpl
    def ralph_session_finish(self, verdict: VerdictProposal) -> None:
        self.calls.append(("session_finish", None))


def _drive_run(ralph: Ralph, recorder: Recorder) -> None:
    script = agent(ralph, "if N == 2:\n    pathlib.Path('done.txt').write_text('ok')\n")
    result = ralph.run("run", "--agent", script, "--until", UNTIL, "--no-integrity",
                       "--allow-dirty", "create done.txt", plugins=[recorder])
    assert result.ret == 0, result


def _stop(ralph: Ralph, recorder: Recorder, message: str) -> dict[str, Any]:
    payload = {"session_id": "s-1", "hook_event_name": "Stop", "stop_hook_active": False,
               "last_assistant_message": message, "cwd": str(ralph.path)}
    result = ralph.run("hook", "claude-stop", stdin=json.dumps(payload), plugins=[recorder])
    assert result.ret == 0, result
    data = result.json()
    assert isinstance(data, dict)
    return data


def _drive_hook(ralph: Ralph, recorder: Recorder) -> None:
    started = ralph.run("start", "--until", UNTIL, "create done.txt",
                        plugins=[recorder])
    assert started.ret == 0, started
    assert _stop(ralph, recorder, "not yet")["decision"] == "block"
    ralph.makefile("done.txt", "ok\n")
    assert "complete" in _stop(ralph, recorder, "done")["systemMessage"]


ITERATION = ["run_iteration", "iteration_start", "run_agent", "iteration_end",
             "iteration_verdict"]


@pytest.mark.parametrize("driver", ["run", "hook"])
def test_every_loop_hook_fires_in_the_documented_order(ralph: Ralph, driver: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
    recorder = Recorder()
    (_drive_run if driver == "run" else _drive_hook)(ralph, recorder)
    assert recorder.modes == {driver}
    names = [name for name, _ in recorder.calls if name != "prompt_notes"]
    # `run` loops once over both iterations; the Stop hook runs one iteration per stop.
    second = ["runloop"] if driver == "hook" else []
    expected = ["session_prepare", "session_start", "runloop", *ITERATION, *second,
                *ITERATION, "session_finish"]
    assert names == expected
    # The prompt of iteration N asks for notes before its agent runs: in `run` right after
    # the iteration starts; the Stop hook asks when it blocks the last stop (the block's
    # reason is the next prompt; iteration 1's prompt is the start message).
    calls = recorder.calls
    first_noted = 1 if driver == "run" else 2
    for number in range(first_noted, 3):
        assert calls.index(("prompt_notes", number)) < calls.index(("run_agent", number))


class ExtraCheck:
    @hookimpl
    def ralph_session_checks(self, specs: list[CheckSpec]) -> list[CheckSpec]:
        assert [spec.text for spec in specs] == [UNTIL]
        return [parse_spec("files:extra.txt", source="ExtraCheck")]


@pytest.mark.parametrize("driver", ["run", "hook"])
def test_a_plugin_adds_checks_to_every_session(ralph: Ralph, driver: str) -> None:
    if driver == "run":
        result = ralph.run("run", "--agent", "cmd:true", "--until", UNTIL, "--allow-dirty",
                           "--max-iterations", "1", "create done.txt", plugins=[ExtraCheck()])
    else:
        result = ralph.run("start", "--until", UNTIL, "create done.txt", plugins=[ExtraCheck()])
    assert result.ret in (0, 10), result  # 10: max-iterations
    baseline = json.loads((ralph.path / ".ralph/iterations/000/verification.json").read_text())
    specs = [check["spec"] for check in baseline["checks"]]
    assert specs[0] == UNTIL and specs.count("files:extra.txt") == 1
