"""The real Copilot CLI with the Stop hook from ``ralph-verify init copilot``, offline.

Copilot CLI's Stop hook is ``agentStop``, read from ``.github/hooks/*.json`` in a folder
it trusts (``copilot -p`` with ``--trust-folder``): ``{"version": 1, "hooks":
{"agentStop": [{"type": "command", "bash": CMD, "timeoutSec": N}]}}``. Its input holds
``sessionId``, ``transcriptPath`` and ``stop_hook_active`` but not the final text (read from
the transcript); ``{"decision": "block", "reason": R}`` sends R as the next user message.
``init copilot`` writes ``.github/hooks/ralph-verify.json``; ``start --agent-name copilot``
records the loop. One ``copilot -p`` run then completes a two-iteration loop: the first
stop is blocked with the failing test, the model fixes it, the second stop is let through,
and nothing but loopback is reached.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph
from ralph_verify.testing.server import ModelServer
from tests.agents_setup import MODEL, AgentCLI
from tests.offline_net import OfflineNet
from tests.test_agents_e2e import FAILURE, RIGHT, SAID, make_project
from tests.test_agents_offline_e2e import CASES, iteration_steps

pytestmark = pytest.mark.agents_e2e

#: What the copilot adapter sets with the user's own model (COPILOT_PROVIDER_BASE_URL).
QUIET = {"COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false"}


def test_copilot_agent_stop_hook_blocks_until_the_tests_pass(
        ralph: Ralph, copilot_cli: AgentCLI, agent_home: Path, offline_net: OfflineNet,
        offline_server: ModelServer) -> None:
    make_project(ralph)
    hook = f"{shlex.quote(sys.executable)} -m ralph_verify"
    initialised = ralph.run("init", "copilot", "--hook-command", hook)
    assert initialised.ret == 0, initialised
    settings = json.loads((ralph.path / ".github" / "hooks" / "ralph-verify.json").read_text())
    assert settings["version"] == 1
    assert settings["hooks"]["agentStop"][0]["bash"] == f"{hook} hook copilot-stop"
    assert ".ralph/" in (ralph.path / ".gitignore").read_text().splitlines()
    started = ralph.run("start", "--until", "tests", "--max-iterations", "4",
                        "--agent-name", "copilot")
    assert started.ret == 0, started
    first, second = iteration_steps(CASES["copilot"])
    offline_server.script(*first, *second)
    env = copilot_cli.env(agent_home, offline_server.url, QUIET)
    proc = subprocess.run(
        [*offline_net.prefix(), str(copilot_cli.executable), "--trust-folder",
         "--output-format", "json", "--no-ask-user", "--no-auto-update", "--allow-all",
         f"--model={MODEL}", "--prompt=Implement add() in calc.py so that the tests pass."],
        cwd=ralph.path, env=env, capture_output=True, text=True, timeout=300,
        stdin=subprocess.DEVNULL, pass_fds=(offline_net.fd,))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    requests = offline_server.model_requests("chat")
    assert len(requests) == len(first) + len(second), [r.text[-300:] for r in requests]
    # The blocked stop: the next request carries the failing test and the loop's count.
    blocked = requests[len(first)]
    assert FAILURE in blocked.text and "iteration 1 of 4" in blocked.text, blocked.text[-2000:]
    assert FAILURE not in requests[len(first) - 1].text
    assert SAID in blocked.text
    assert (ralph.path / "calc.py").read_text() == RIGHT
    data = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    assert data["verdict"]["verdict"] == "complete" and data["iteration"] == 2, data
    assert data["hook"]["agent"] == "copilot"
    assert data["hook"]["session_id"], data["hook"]
    # The final text came from Copilot's transcript: iteration 1's record holds SAID.
    history = [json.loads(line) for line in
               (ralph.path / ".ralph" / "history.jsonl").read_text().splitlines()]
    assert len(history) == 2, history
    log = (ralph.path / ".ralph" / "iterations" / "001" / "agent.log")
    assert SAID in log.read_text(), log.read_text()[-2000:]
    assert not offline_server.errors, [r.error for r in offline_server.errors]
    assert offline_net.outbound_attempts() == 0, offline_net.counters()
