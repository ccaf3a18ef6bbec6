"""A task list driven by ``run --tasks``, by ``start --tasks`` and the Stop hook, or by
``fleet`` (one loop at a time), from the same scripted steps (the ``driver`` fixture of
``tests/drivers.py`` picks which; ``fleet`` by indirect parametrization).

``steps[TASK][N - 1]`` holds the files the agent writes in its ``N``-th iteration on that
task (``None`` deletes one; a key ``sed:PATH`` with ``[OLD, NEW]`` replaces text in a file)
and ``says[TASK][N - 1]`` its last message (default "done").
Under ``run`` and ``fleet`` a ``cmd:`` agent applies them, reading ``$RALPH_TASK_ID``;
under the Stop hook the test applies them to the task ``.ralph/tasks/state.json`` names
current, then sends Claude Code's Stop event. ``tasks status`` reads each one's table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ralph_verify.testing import RunResult
from tests.drivers import Driver, apply
from tests.loop_helpers import agent

_APPLY = """\
import json
steps = json.loads(pathlib.Path(sys.argv[1]).read_text())
says = json.loads(pathlib.Path(sys.argv[2]).read_text())
T = os.environ["RALPH_TASK_ID"]
mine = steps.get(T, [])
for rel, text in (mine[N - 1] if N <= len(mine) else {}).items():
    path = pathlib.Path(rel.removeprefix("sed:"))
    if rel.startswith("sed:"):
        path.write_text(path.read_text().replace(*text))
    elif text is None:
        path.unlink(missing_ok=True)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
said = says.get(T, [])
print(said[N - 1] if N <= len(said) else "done")
"""
#: Stop events at most, whatever the list does (a test that loops forever fails instead).
MAX_STOPS = 40


@dataclass
class ListOutcome:
    """What a task list left behind, read the same way for both drivers."""

    driver: Driver
    #: ``run``'s result, or ``start``'s (hook mode).
    started: RunResult
    #: The Stop hook's last answer (hook mode; ``{}`` under ``run``).
    last_answer: dict[str, Any]
    #: The task the agent worked on at each agent turn, in order.
    turns: list[str]

    def table(self) -> dict[str, Any]:
        result = self.driver.ralph.run("tasks", "status", "--json")
        assert result.ret == 0, result
        data: dict[str, Any] = result.json()
        return data

    def rows(self) -> dict[str, dict[str, Any]]:
        return {row["id"]: row for row in self.table()["tasks"]}

    def status(self) -> dict[str, tuple[str, int]]:
        return {row["id"]: (row["status"], row["iterations"]) for row in self.table()["tasks"]}


def run_list(driver: Driver, steps: dict[str, list[dict[str, Any]]], *args: str,
             says: dict[str, list[str]] | None = None, file: str = "tasks.toml",
             agent_name: str = "claude") -> ListOutcome:
    """Work the list of ``file`` through with the scripted agent under ``driver`` (in hook
    mode, ``agent_name``'s Stop hook: claude or codex)."""
    ralph = driver.ralph
    says = says or {}
    if driver.kind in ("run", "fleet"):
        script = ralph.path.parent / "task-steps.json"
        script.write_text(json.dumps(steps))
        words = ralph.path.parent / "task-says.json"
        words.write_text(json.dumps(says))
        log = ralph.path.parent / "turns.txt"
        body = _APPLY + f"with open({str(log)!r}, 'a') as turns:\n    turns.write(T + '\\n')\n"
        command = agent(ralph, body, name="task_agent.py") + f" {script} {words}"
        result = ralph.run("run", "--tasks", file, "--agent", command, *args) \
            if driver.kind == "run" else \
            ralph.run("fleet", file, "--agent", command, "-j", "1", "--id", "list", *args)
        assert result.ret != 2, result
        return ListOutcome(driver, result, {}, log.read_text().split() if log.exists() else [])
    started = ralph.run("start", "--tasks", file, "--agent-name", agent_name, *args)
    assert started.ret != 2, started
    answer: dict[str, Any] = {}
    turns: list[str] = []
    counts: dict[str, int] = {}
    if started.ret != 0 or "ralph-verify loop started" not in started.out:
        return ListOutcome(driver, started, answer, turns)  # nothing waits for the agent
    for stop in range(1, MAX_STOPS + 1):
        current = _current(driver)
        assert current is not None, "a task list waits for the agent but names no task"
        number = counts[current] = counts.get(current, 0) + 1
        turns.append(current)
        mine = steps.get(current, [])
        step = mine[number - 1] if number <= len(mine) else {}
        for rel, text in step.items():
            if rel.startswith("sed:"):
                path = ralph.path / rel.removeprefix("sed:")
                path.write_text(path.read_text().replace(*text))
        apply(ralph.path, {rel: text for rel, text in step.items()
                           if not rel.startswith("sed:")})
        said = says.get(current, [])
        payload = {"session_id": "s-1", "hook_event_name": "Stop", "cwd": str(ralph.path),
                   "stop_hook_active": stop > 1,
                   "last_assistant_message": said[number - 1] if number <= len(said)
                   else "done"}
        result = ralph.run("hook", f"{agent_name}-stop", stdin=json.dumps(payload))
        assert result.ret == 0, result  # an agent hook never fails its agent
        answer = result.json() if result.out.strip() else {}
        if answer.get("decision") != "block":
            return ListOutcome(driver, started, answer, turns)
    raise AssertionError(f"the list did not end in {MAX_STOPS} stops: {turns}")


def _current(driver: Driver) -> str | None:
    data = json.loads((driver.ralph.path / ".ralph/tasks/state.json").read_text())
    current = data.get("current")
    return None if current is None else str(current)
