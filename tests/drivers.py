"""One loop, two drivers: the same scripted agent, driven by ``run`` or by the Stop hook.

A :class:`Driver` plays a list of *steps*, one per iteration: the files the agent writes
(``None`` deletes one) before it says it is done. Under ``run`` a ``cmd:`` agent applies
step ``N`` in iteration ``N``; under the Stop hook the test applies it, then sends the
agent's Stop event, as Claude Code would at the end of its turn. Both end in the same
files under ``.ralph/``, which :class:`Outcome` reads, so a behavioural test is written
once and parametrized over the driver (``tests/loop/test_one_loop.py``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.testing import Ralph, RunResult
from tests.loop_helpers import agent

Step = dict[str, "str | None"]

_APPLY = """\
import json
steps = json.loads(pathlib.Path(sys.argv[1]).read_text())
says, pause = json.loads(pathlib.Path(sys.argv[2]).read_text())
time.sleep(pause)
for rel, text in (steps[N - 1] if N <= len(steps) else {}).items():
    path = pathlib.Path(rel)
    if text is None:
        path.unlink(missing_ok=True)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
print(says[N - 1] if N <= len(says) else "done")
"""


def apply(root: Path, step: Step) -> None:
    for rel, text in step.items():
        path = root / rel
        if text is None:
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)


@dataclass
class Outcome:
    """What a loop left behind, read the same way for both drivers."""

    root: Path
    #: The last command's result (``run``, or the last Stop hook call).
    result: RunResult

    @property
    def state(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.root / ".ralph/state.json").read_text())
        return data

    @property
    def verdict(self) -> str:
        return str(self.state["verdict"]["verdict"])

    @property
    def iterations(self) -> int:
        lines = (self.root / ".ralph/history.jsonl").read_text().splitlines()
        return len(lines)

    def prompt(self, number: int) -> str:
        """The prompt the agent got for iteration ``number`` (2 on: the feedback)."""
        return (self.root / ".ralph/iterations" / f"{number:03d}" / "prompt.md").read_text()


class Driver:
    """Drives one loop session over ``steps`` with ``run`` or with the Stop hook."""

    def __init__(self, ralph: Ralph, kind: str) -> None:
        self.ralph = ralph
        self.kind = kind
        self.says: list[str] = []
        self.pause = 0.0

    def __repr__(self) -> str:
        return f"Driver({self.kind})"

    def loop(self, until: str, steps: list[Step], *args: str,
             task: str = "make the checks pass", says: list[str] | None = None,
             pause: float = 0.0) -> Outcome:
        """One session until it ends; at most ``len(steps)`` iterations unless ``args``
        set ``--max-iterations``. ``says[N - 1]`` is the agent's last message of turn ``N``
        (its promises; default "done"); each turn takes at least ``pause`` seconds."""
        if "--max-iterations" not in args:
            args = (*args, "--max-iterations", str(len(steps)))
        self.says, self.pause = list(says or []), pause
        if self.kind == "run":
            return self._run(until, steps, args, task)
        return self._hook(until, steps, args, task)

    def said(self, number: int) -> str:
        return self.says[number - 1] if number <= len(self.says) else "done"

    def _run(self, until: str, steps: list[Step], args: tuple[str, ...],
             task: str) -> Outcome:
        script = self.ralph.path.parent / "steps.json"
        script.write_text(json.dumps(steps))
        turn = self.ralph.path.parent / "turn.json"
        turn.write_text(json.dumps([self.says, self.pause]))
        command = agent(self.ralph, _APPLY) + f" {script} {turn}"
        result = self.ralph.run("run", "--agent", command, "--until", until, *args, task)
        assert result.ret != 2 and (self.ralph.path / ".ralph/state.json").exists(), result
        return Outcome(self.ralph.path, result)

    def _hook(self, until: str, steps: list[Step], args: tuple[str, ...],
              task: str) -> Outcome:
        started = self.ralph.run("start", "--until", until, *args, task)
        assert started.ret == 0, started
        result = started
        for number, step in enumerate(steps, 1):
            time.sleep(self.pause)
            apply(self.ralph.path, step)
            payload = {"session_id": "s-1", "hook_event_name": "Stop", "cwd": str(self.ralph.path),
                       "stop_hook_active": number > 1,
                       "last_assistant_message": self.said(number)}
            result = self.ralph.run("hook", "claude-stop", stdin=json.dumps(payload))
            assert result.ret == 0, result  # an agent hook never fails its agent
            answer = result.json() if result.out.strip() else {}
            if not isinstance(answer, dict) or answer.get("decision") != "block":
                break  # the loop let the agent stop: the session is over
        return Outcome(self.ralph.path, result)


@pytest.fixture(params=["run", "hook"])
def driver(request: pytest.FixtureRequest, ralph: Ralph,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[Driver]:
    """The same scripted steps under each driver, ``run`` and the Stop hook; the outer
    environment's Claude Code session and pytest or coverage settings do not leak in (the
    suite may itself run inside Claude Code)."""
    for name in ("CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP",
                 "CLAUDE_PROJECT_DIR", "PYTEST_ADDOPTS", "COVERAGE_RCFILE"):
        monkeypatch.delenv(name, raising=False)
    yield Driver(ralph, request.param)
